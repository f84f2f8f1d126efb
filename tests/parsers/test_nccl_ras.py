"""nccl_ras: NCCL's RAS status report (ncclras), on the user guide's samples and NVIDIA/nccl#1730's report."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_ras
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/nccl_ras"


def _facts(text: str):
    return [(f.evidence.line, f.kind, f.issue, f.comm, f.comm_hash, f.count, f.ranks, f.processes, f.nodes, f.errors, f.node)
            for f in nccl_ras.parse(Artefact(path="ras.txt", text=text, node="node1")).facts if f.kind != "nccl_version"]


def test_nccl_1730_all_ok_makes_no_fact():
    text = (FIX / "nccl1730_ras_ok_watchdog_paste.txt").read_text()
    assert nccl_ras.detect(text)
    assert _facts(text) == []


def test_user_guide_unresponsive_process():
    assert _facts((FIX / "ras_rst_unresponsive.txt").read_text()) == [
        (11, "nccl_ras_issue", "unresponsive", None, None, 1, None, "3487984", "172.16.64.213", None, "172.16.64.213"),
        (15, "nccl_ras_issue", "comm_incomplete", "0-0", "cf264af53edbe986", 1, "21", None, None, None, "node1"),
        (22, "nccl_ras_disagreement", "timeout", None, None, 2, None, None, None, None, "node1")]


def test_user_guide_dead_process():
    assert [f[:3] + f[5:9] for f in _facts((FIX / "ras_rst_dead.txt").read_text())] == [
        (4, "nccl_ras_issue", "dead", 1, None, "3487984", "172.16.64.213"),
        (8, "nccl_ras_issue", "comm_incomplete", 1, "21", None, None)]


def test_user_guide_mismatches_name_the_outliers():
    got = _facts((FIX / "ras_rst_mismatch_count_and_status.txt").read_text())
    assert [(f[0], f[1], f[2], f[4], f[6]) for f in got] == [
        (4, "nccl_ras_disagreement", "count_mismatch", "27a079b828ff1a75", "0, 2, 3, 4, 5, 7"),
        (23, "nccl_ras_disagreement", "status_mismatch", "9e17999afaa87dbb", "0, 8, 16, 24, 4, 20")]
    assert got[1][8] == "172.16.64.210, 172.16.64.212, 172.16.64.213, 172.16.64.222"


@pytest.mark.parametrize("text, expected", [
    # client_support.cc's forms filled in: two processes dead, one with no process information; an ERROR entry
    ("DEAD\n  2 job processes are considered dead (unreachable via the RAS network)\n"
     "  Process 11 on node 10.0.0.7 managing GPUs 0,1\n  [could not find information on 1 process]\n",
     [(1, "nccl_ras_issue", "dead", None, None, 2, None, "11", "10.0.0.7", None, "10.0.0.7")]),
    ("#2-5 (00000000deadbeef) ERROR\n  Initialization error on 1 rank\n"
     "  Rank 3 reported unhandled system error -- GPU 3 managed by process 77 on node gpu-a\n",
     [(1, "nccl_ras_issue", "comm_error", "2-5", "00000000deadbeef", 1, "3", "77", "gpu-a", "unhandled system error", "node1")]),
    ("#0-0 (fa93daea854b060b) MISMATCH\n  Communicator ranks have different AllGather operation counts\n"
     "  30 ranks have launched up to operation 640\n  2 ranks have launched up to operation 641\n"
     "  Rank 12 -- [process information not found]\n",
     [(1, "nccl_ras_disagreement", "count_mismatch", "0-0", "fa93daea854b060b", None, "12", None, None, None, "node1")]),
    # a bare word on its own line, not followed by a RAS entry's indented line: nothing
    ("TIMEOUT\nthe job hung\n", []),
    ("DEAD\n  the node is dead\n", []),
])
def test_forms(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # the user guide's monitor-mode sample (ncclras -m, NCCL 2.29+)
    ("[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1\n",
     [(1, "nccl_ras_issue", "dead", None, None, 1, None, "1524345", "172.16.64.245", None, "172.16.64.245")]),
    # rasnet.cc's timeout event, filled in: a peer known by its address only
    ("[2025-12-19 13:08:09] PEER_TIMEOUT_DEAD: 172.16.64.245<34567> peer failed to respond for 61s, declaring dead\n",
     [(1, "nccl_ras_issue", "dead", None, None, 1, None, None, "172.16.64.245", None, "172.16.64.245")]),
    # other events are not deaths
    ("[2025-12-19 13:06:50] PEER_NEW: Process 1524345 on node 172.16.64.245 managing GPU 1\n", []),
])
def test_monitor_mode_events(text, expected):
    assert nccl_ras.detect(text) == bool(expected)
    assert _facts(text) == expected


def test_user_guide_json_report_rank_unresponsive():
    text = (FIX / "ras_rst_json_rank_unresponsive.json").read_text()
    assert nccl_ras.detect(text)
    assert _facts(text) == [(9, "nccl_ras_issue", "comm_incomplete", None, "ae94423cfbb2ef4a", 1, "1", "1524345", "172.16.64.245",
                             None, "172.16.64.245")]


def test_json_report_dead_rank_and_async_error():
    """The user guide's sample with its values changed as client_support.cc's jsonWrite* would print them."""
    text = (FIX / "ras_rst_json_rank_unresponsive.json").read_text()
    text = text.replace('"considered_dead": false', '"considered_dead": true').replace('"async_error": 0', '"async_error": 6')
    got = _facts(text)
    assert [(f[2], f[6], f[7], f[9]) for f in got] == [("dead", "1", "1524345", None),
                                                       ("comm_error", "0", "1524344", "remote process exited or there was a network error")]
    assert _facts(text[:400]) == []  # cut short: not JSON, no fact


def test_nccl_1762_report_header_version_and_incomplete_communicators():
    """NCCL 2.27.3's report (NVIDIA/nccl#1762): its first line is the answering process's NCCL version; the second
    INCOMPLETE communicator is what the 2.26.2-2.28.9 RAS client read past its missing-rank records (255 ranks)."""
    facts = nccl_ras.parse(Artefact(path="ras.txt", text=(FIX / "nccl1762_ras_incomplete_overrun_paste.txt").read_text(),
                                    node="node1")).facts
    assert [(f.evidence.line, f.version, f.cuda) for f in facts if f.kind == "nccl_version"] == [(2, "2.27.3", "12.9")]
    assert [(f.issue, f.comm, f.count) for f in facts if f.kind == "nccl_ras_issue"] == [
        ("unresponsive", None, 1), ("comm_incomplete", "0-0", 1), ("comm_incomplete", "2-0", 255)]


@pytest.mark.parametrize("line, version", [
    ("NCCL version 2.27.3 compiled with CUDA 12.9", ("2.27.3", "12.9")),  # NVIDIA/nccl#1762
    ("NCCL version 2.26.2 compiled with CUDA 12.4", ("2.26.2", "12.4")),  # NVIDIA/nccl#1730
    ("NCCL version 2.27.3+cuda12.9", None),  # NCCL's own log line: nccl_log's, not a RAS report's
])
def test_report_version_line(line, version):
    got = [(f.version, f.cuda) for f in nccl_ras.parse(Artefact(path="ras.txt", text=line + "\n", node="n1")).facts
           if f.kind == "nccl_version"]
    assert got == ([version] if version else [])

