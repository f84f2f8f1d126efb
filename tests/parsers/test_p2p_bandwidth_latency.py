"""p2p_bandwidth_latency: CUDA p2pBandwidthLatencyTest's bandwidth matrices -> one pair fact per
ordered GPU pair that both the P2P=Disabled and the P2P=Enabled matrix of one kind hold."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import p2p_bandwidth_latency as p2p
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/p2p_bandwidth_latency"


def _parse(name: str):
    text = (FIX / name).read_text()
    assert p2p.detect(text)
    return p2p.parse(Artefact(path=name, text=text, node="node1"))


def test_nccl814_writes_and_reads_against_staged():
    res = _parse("nccl814_rtx4090_p2p_slower_than_staged.txt")
    assert res.errors == []
    by = {(f.mode, f.src, f.dst): f for f in res.facts}
    assert len(by) == 60  # 6 x 5 ordered pairs, writes and reads; the bidirectional title has no rows
    w = by[("writes", 0, 1)]
    assert (w.p2p_gbs, w.staged_gbs, w.ratio, w.evidence.line) == (10.14, 19.98, 0.508, 12)
    assert by[("reads", 3, 4)].p2p_gbs == 12.46 and by[("reads", 3, 4)].staged_gbs == 20.41


def test_enabled_matrix_alone_compares_nothing():
    res = _parse("nccl1264_h100_bidirectional_enabled_only.txt")
    assert res.facts == [] and res.errors == [] and res.lines_used == 10


@pytest.mark.parametrize("name, ratio", [("crafted_edge_ratio_0899.txt", 0.899), ("crafted_edge_ratio_0900.txt", 0.9)])
def test_edge_ratios(name, ratio):
    assert {f.ratio for f in _parse(name).facts} == {ratio}


def test_row_with_wrong_cell_count_is_an_error_and_latency_matrix_is_skipped():
    text = ("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1 \n     0 912.14 \n"
            "P2P=Disabled Latency Matrix (us)\n   GPU     0      1 \n     0   1.52  14.10 \n")
    res = p2p.parse(Artefact(path="x.txt", text=text, node="n"))
    assert [e.line for e in res.errors] == [3] and res.facts == []


@pytest.mark.parametrize("text", ["", "P2P=Enabled", "Bidirectional bandwidth 12 GB/s\n",
                                  "Device=0 CAN Access Peer Device=1\n"])
def test_not_detected(text):
    assert not p2p.detect(text)


def test_aikitoria6_head_only_is_recognised_context():
    res = _parse("aikitoria6_rtx5090x8_head_only.txt")
    assert res.facts == [] and res.errors == []
    assert res.lines_used == 27  # title, 8 device lines, 18 whole peer lines (the 19th is cut)
