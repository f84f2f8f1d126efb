"""vllm_pynccl: vLLM's/SGLang's 'is using nccl==X.Y.Z' read as the NCCL version in use (nccl_version)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import vllm_pynccl
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/vllm_pynccl"


def versions(text: str):
    art = Artefact(path="vllm.log", text=text, node="node1")
    art.normalise()
    assert vllm_pynccl.detect(text)
    return [(f.kind, f.version, f.cuda, f.pid, f.evidence.line) for f in vllm_pynccl.parse(art).facts]


def test_driver_and_worker_lines():
    # vllm-project/vllm#8058: the driver's line (no pid prefix) and a worker's
    assert versions((FIX / "vllm8058_two_workers.txt").read_text()) == [
        ("nccl_version", "2.20.5", None, None, 3), ("nccl_version", "2.20.5", None, 1927518, 4)]


def test_line_with_nccl_lines_pasted_after_it():
    # vllm-project/vllm#12292: NCCL's INFO lines run on after the version on one line
    assert versions((FIX / "vllm12292_worker.txt").read_text()) == [("nccl_version", "2.20.5", None, 24153, 1)]


def test_sglang_form_and_no_line():
    assert versions("[2025-03-01 10:00:00 TP0] sglang is using nccl==2.21.5\n")[0][1] == "2.21.5"
    assert not vllm_pynccl.detect("INFO 08-31 09:50:46 utils.py:975] Found nccl from library libnccl.so.2\n")
