"""verbs_completion: a program's own failed RDMA work completion lines, read by libibverbs' status."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import verbs_completion
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/verbs_completion"


def parse(text: str):
    artefact = Artefact(path="app.log", text=text, node="node1")
    artefact.normalise()
    return verbs_completion.parse(artefact)


def statuses(text: str):
    return [(f.status, f.status_text, f.evidence.line, f.count, f.vendor_err) for f in parse(text).facts]


def test_uccl_cqe_error_real():
    # uccl-project/uccl#972: three channels, one status; the WR_FLUSH_ERR lines are not in a read form
    text = (FIX / "uccl_cqe_error.log").read_text()
    assert verbs_completion.detect(text)
    assert statuses(text) == [(2, "local QP operation error", 1, 3, "0x3")]
    assert parse(text).lines_used == 3


def test_nbs_bare_enum_in_error_line_real():
    # ydb-platform/nbs#2690: "RECV ...: IBV_WC_RETRY_EXC_ERR" in a BLOCKSTORE_RDMA ERROR line
    text = (FIX / "nbs_recv_retry_exc.log").read_text()
    assert verbs_completion.detect(text)
    assert statuses(text) == [(12, "transport retry counter exceeded", 3, 1, None)]


@pytest.mark.parametrize("line,status", [
    # CONSTRUCTED in UCCL EP's form (no blank before the parenthesis)
    ("CQE ERROR wr_id=7 status=12(transport retry counter exceeded) opcode=0 vendor_err=0x81", 12),
    # CONSTRUCTED: "status: <ibv_wc_status_str text>"
    ("E1201 10:00:00 rdma.cc:88] send failed, status: remote access error, qp 0x1a", 10),
    ("E1201 10:00:00 rdma.cc:88] recv failed, status: Work Request Flushed Error", 5),
    # CONSTRUCTED: the enum name in a failed line
    ("ERROR: completion failed: IBV_WC_REM_INV_REQ_ERR on qp 12", 9),
    ("[warn] poll_cq: wc error IBV_WC_RNR_RETRY_EXC_ERR", 13),
])
def test_constructed_forms(line, status):
    assert [f.status for f in parse(line + "\n").facts] == [status]


@pytest.mark.parametrize("line", [
    # near misses, CONSTRUCTED: a bare number, a number whose text disagrees, a text no row names
    "CQE error, wr_id=3, status=2, opcode=1",
    "CQE error, status=12 (local QP operation error)",
    "request done, status=0 (success)",
    "status: transport retry counter exceededness",
    "status: 12",
    # the enum name in a line that says nothing failed
    "handled IBV_WC_RETRY_EXC_ERR by reconnecting",
    # NCCL's own completion lines are nccl_log's
    "NET/IB : Got completion from peer 10.1.1.2<45678> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) len=0 vendor err 129 (Send)",
    # systemd's exit status
    "nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE",
])
def test_near_misses(line):
    assert parse(line + "\n").facts == []
    assert not verbs_completion.detect(line)


def test_empty():
    assert parse("").facts == []
