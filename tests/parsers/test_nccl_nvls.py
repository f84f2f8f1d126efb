"""NCCL's NVLS and channel-summary lines on real logs (fixtures/artefacts/nccl_nvls/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_nvls
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "artefacts" / "nccl_nvls"
LOG = ROOT / "fixtures" / "artefacts" / "nccl_log"


def _facts(path: Path, kind: str | None = None):
    res = nccl_nvls.parse(Artefact(path=path.name, text=path.read_text()))
    assert res.errors == []
    return [f for f in res.facts if kind is None or f.kind == kind]


def test_zero_nvls_channels_once_per_process_and_values():
    counts = _facts(FIX / "nccl1706_g2_zero_nvls_channels.log", "nccl_channel_counts")
    # both ranks of the one process print the same summary: one fact, at its first line
    assert [(c.node, c.pid, c.coll, c.collnet, c.nvls, c.p2p, c.p2p_per_peer, c.evidence.line) for c in counts] == [
        ("deepseek", 2081594, 4, 4, 0, 4, 2, 7)]


def test_channel_summary_before_nvls_existed():
    counts = _facts(FIX / "nccltests128_channels_before_nvls.log", "nccl_channel_counts")
    assert [(c.node, c.pid, c.nvls, c.collnet, c.coll) for c in counts] == [
        ("SH-IDC1-10-142-6-130", 75327, None, None, 2), ("SH-IDC1-10-142-6-130", 75325, None, None, 2),
        ("SH-IDC1-10-142-5-57", 10775, None, None, 2)]


def test_nvls_setup_steps():
    [s] = _facts(FIX / "nccltests216_nvls_bind_mem.log")
    assert (s.kind, s.step, s.pid, s.local_device) == ("nccl_nvls_setup", "bind_mem", 1023, 0)
    steps = _facts(LOG / "mpirun_tagged_ib.log")
    assert {(f.kind, getattr(f, "step", None), getattr(f, "nvls", None)) for f in steps} >= {
        ("nccl_nvls_setup", "tree_connected", None), ("nccl_channel_counts", None, 16)}


def test_bare_multicast_support_line():
    [s] = _facts(FIX / "nccl1788_multicast_available_bare.log")
    assert (s.kind, s.available, s.pid, s.local_device, s.node) == ("nccl_nvls_support", True, None, 3, "unknown")


@pytest.mark.parametrize(
    "line, expected",
    [
        ("vm:1428:1439 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer", True),
        ("node1:12:13 [0] NCCL INFO NVLS multicast support is not available on dev 0", True),
        ("NVLS multicast support is available on dev 3", True),
        ("vm:1428:1439 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.", False),
        ("We disabled NVLS and the hang went away", False),
    ],
)
def test_detect_lines(line, expected):
    assert nccl_nvls.detect(line + "\n") is expected


def test_empty_input():
    res = nccl_nvls.parse(Artefact(path="empty", text=""))
    assert (res.facts, res.errors, res.lines_used) == ([], [], 0)
