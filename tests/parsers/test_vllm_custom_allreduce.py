"""vllm_custom_allreduce: vLLM's custom all-reduce refusals read as info facts, one per process and reason."""
from pathlib import Path

from stethoscope.facts.parsers import vllm_custom_allreduce
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "vllm_custom_allreduce"


def _parse(text: str):
    return vllm_custom_allreduce.parse(Artefact(path="vllm.log", text=text, node="n1")).facts


def test_pcie_only_over_two_one_fact_per_worker():
    facts = _parse((FIX / "vllm15340_pcie_only_over_two_paste.log").read_text())
    assert {f.reason for f in facts} == {"pcie_only_over_two"}
    assert sorted(f.pid for f in facts) == [281, 282, 285]


def test_p2p_test_failed_and_world_size_forms():
    (f,) = _parse((FIX / "vllm4770_p2p_test_failed_paste.log").read_text())
    assert f.reason == "p2p_unavailable" and f.pid == 3040
    (g,) = _parse("WARNING 01-30 21:39:03 custom_all_reduce.py:33] Custom allreduce is disabled due to an unsupported world "
                  "size: 1. Supported world sizes: [2, 4, 6, 8]. To slience this warning, specifydisable_custom_all_reduce=True explicitly.\n")
    assert g.reason == "world_size" and g.world_size == 1


def test_other_vllm_lines_give_nothing():
    assert not vllm_custom_allreduce.detect("INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5\n")
