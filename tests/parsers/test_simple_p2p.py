"""simple_p2p: CUDA simpleP2P's verification errors -> gpu_copy_verification_failed; its peer-access
table is context. nvbandwidth's pattern check -> the same fact (facts/parsers/nvbandwidth.py)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nvbandwidth, simple_p2p
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2] / "fixtures/artefacts"


def _parse(mod, rel: str):
    text = (ROOT / rel).read_text()
    assert mod.detect(text)
    return mod.parse(Artefact(path=rel, text=text, node="node1"))


def test_aikitoria8_nan_from_element_0():
    res = _parse(simple_p2p, "simple_p2p/aikitoria8_rtx4090_verification_nan.txt")
    assert res.errors == []
    [f] = res.facts
    assert (f.kind, f.tool, f.peer, f.gpus, f.errors, f.evidence.line) == (
        "gpu_copy_verification_failed", "simpleP2P", True, "GPU0, GPU1", 5, 4)
    assert f.first == "element 0: val = nan, ref = 0.000000"
    assert res.lines_used == 8


def test_tinygrad22_peer_access_table_makes_no_fact():
    res = _parse(simple_p2p, "simple_p2p/tinygrad22_rtx4090_peer_access_yes.txt")
    assert res.facts == [] and res.errors == [] and res.lines_used == 15


def test_passed_run_makes_no_fact():
    text = ("Copy data back to host from GPU0 and verify results...\nDisabling peer access...\n"
            "Shutting down...\nTest passed\n")
    assert simple_p2p.parse(Artefact(path="x", text=text, node="n")).facts == []


def test_nvbandwidth34_pattern_mismatch_in_a_peer_test():
    res = _parse(nvbandwidth, "nvbandwidth/nvbandwidth34_a100_d2d_pattern_mismatch.txt")
    [f] = [f for f in res.facts if f.kind == "gpu_copy_verification_failed"]
    assert (f.tool, f.test, f.peer, f.first, f.evidence.line) == (
        "nvbandwidth", "device_to_device_memcpy_read_ce", True, "pattern mismatch at 0x70a640000000", 18)


def test_nvbandwidth_old_form_in_a_host_test_is_not_peer():
    # v0.4's host-side form, CONSTRUCTED from NVIDIA/nvbandwidth v0.4 memcpy.cpp:76-77 (a void* streamed as 0x-hex;
    # the offset a multiple of sizeof(unsigned int), below the size), under a host test
    text = ("nvbandwidth Version: v0.4\nRunning host_to_device_memcpy_sm.\n"
            " Invalid value when checking the pattern at <0x7f3a40200010>\n Current offset [ 16/33554432]\n")
    res = nvbandwidth.parse(Artefact(path="x", text=text, node="n"))
    [f] = res.facts
    assert (f.test, f.peer, f.first) == ("host_to_device_memcpy_sm", False, "pattern mismatch at 0x7f3a40200010")
    assert res.lines_used == 4
