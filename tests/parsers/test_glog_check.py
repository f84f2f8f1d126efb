"""glog_check: a program's failed glog/absl fatal CHECK, on real lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import glog_check
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/glog_check"


def _facts(text: str):
    return glog_check.parse(Artefact(path="app.log", text=text, node="n")).facts


def test_uccl_bind_check_among_the_signal_blocks():
    # uccl-project/uccl#172: UCCL's listening socket could not bind; the check names bind(), nothing a rule reads
    text = (FIX / "uccl172_bind_check_failed_sigabrt.log").read_text()
    assert glog_check.detect(text)
    (f,) = _facts(text)
    assert (f.kind, f.evidence.line, f.call, f.source_file, f.source_line) == ("fatal_check_failed", 8, "bind", "util.h", 139)
    assert f.condition.endswith(">= 0 ERROR: binding") and f.values is None and f.errno is None


def test_glog_year_prefix_and_check_op_values():
    # the same run's first line, glog 0.7's year in the prefix (uccl#172); Paddle#14620's CHECK_EQ of an NCCL call
    (f,) = _facts("F20250720 17:52:37.391902 1125343 util.h:139] Check failed: bind(*listen_fd, (struct sockaddr*)"
                  "&serv_addr, sizeof(serv_addr)) >= 0 ERROR: binding\n")
    assert (f.call, f.source_file, f.source_line) == ("bind", "util.h", 139)
    (f,) = _facts("F1125 15:44:39.266677 200102 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0) \n")
    assert (f.call, f.values) == ("ncclGroupEnd", "1 vs. 0")


def test_pcheck_errno():
    # Oneflow-Inc/oneflow#8974: PCHECK's ": <strerror> [<errno>]" (its CQ check names no verbs call: a plain check)
    (f,) = _facts("Check failed: cq_ : Cannot allocate memory [12]\n")
    assert (f.kind, f.call, f.errno_text, f.errno) == ("fatal_check_failed", None, "Cannot allocate memory", 12)


@pytest.mark.parametrize("line, call, error", [
    # CONSTRUCTED from oneflow#8974's diff (PCHECK(ibv::wrapper.ibv_destroy_qp(qp_) == 0)) and glog's ErrnoLogMessage
    ("F0822 10:11:12.123456  4321 ibverbs_qp.cpp:74] Check failed: ibv::wrapper.ibv_destroy_qp(qp_) == 0 : Invalid argument [22]",
     "ibv_destroy_qp", "Invalid argument"),
    # CONSTRUCTED: CHECK_EQ of a verbs call that returns the errno (rdma-core ibv_modify_qp(3))
    ("Check failed: ibv_modify_qp(qp, &attr, mask) == 0 (22 vs. 0)", "ibv_modify_qp", "Invalid argument"),
])
def test_a_verbs_call_with_its_errno_is_a_verbs_failure(line, call, error):
    (f,) = _facts(line + "\n")
    assert (f.kind, f.call, f.error) == ("verbs_call_failed", call, error)


@pytest.mark.parametrize("line", [
    # the NVIDIA driver's own assert is kernel_log_nvrm's (NV_ERR_RESET_REQUIRED)
    "NVRM: nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
    # a verbs call that returns NULL (ibv_reg_mr): no errno in the check, a plain check
    "Check failed: ibv_reg_mr(pd, buf, len, flags) != nullptr",
    # prose about checks, no "Check failed: " line
    "The health check failed on node 3, see the log",
])
def test_not_a_verbs_failure_nor_an_other_readers_line(line):
    facts = _facts(line + "\n")
    assert all(f.kind != "verbs_call_failed" for f in facts)
    if "NVRM" in line or "Check failed: " not in line:
        assert facts == []
