"""NCCL's MNNVL fabric line (nccl_mnnvl): the project's own H200 log (state 3, healthMask 0x0), a CONSTRUCTED GB200
tray (a GPU In Progress, one with degraded bandwidth, one with every health field FALSE), NVML's mask decoded, and
texts that are not the line."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_mnnvl
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_mnnvl"


def _facts(text: str):
    return nccl_mnnvl.parse(Artefact(path="nccl.log", text=text, node="n1")).facts


def test_real_h200_host_completed_nothing_supported():
    text = (FIXTURES / "h200x2_state3_mask0.log").read_text()
    assert nccl_mnnvl.detect(text)
    a, b = _facts(text)
    assert (a.bus_id, a.state, a.state_name, a.health_mask, a.health_problem_count) == ("0000:00:06.0", 3, "Completed", "0x0", 0)
    assert a.cluster_uuid_zero and a.clique_id == "0x0" and a.local_device == 0 and a.pid == 1502
    assert b.bus_id == "0000:00:07.0" and b.evidence.line == 6


def test_constructed_gb200_tray():
    f0, f1, f2 = _facts((FIXTURES / "constructed_gb200_in_progress_degraded_bw.log").read_text())
    assert (f0.health_problems, f0.health_problem_count, f0.cluster_uuid_zero) == ("degraded bandwidth", 1, False)
    assert (f1.state, f1.state_name) == (2, "In Progress")
    assert f2.health_mask == "0xaa" and f2.health_problems == ""  # every field FALSE: healthy


def test_health_mask_decoded_as_nvml_packs_it():
    assert nccl_mnnvl.health_problems(0x0) == [] and nccl_mnnvl.health_problems(0x80) == []
    assert nccl_mnnvl.health_problems(0xaa) == []
    assert nccl_mnnvl.health_problems(0x10 | 0xa2) == []  # 0xb2: route unhealthy field 3 (reserved), not TRUE
    assert nccl_mnnvl.health_problems(0x96) == ["route recovery in progress", "route unhealthy"]


def test_repeated_lines_once_and_bare_message():
    line = "NCCL INFO MNNVL busId 0x1a000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x80\n"
    (f,) = _facts(line + line)
    assert f.bus_id == "0000:1a:00.0" and f.node == "n1" and f.pid is None


def test_other_texts_are_not_the_line():
    assert not nccl_mnnvl.detect("NCCL INFO comm 0x55e4 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n")
    assert _facts("MNNVL busId 0x60 fabric UUID\n") == []
