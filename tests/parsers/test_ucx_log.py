"""ucx_log: UCX's verbs errors, every form on real lines; NCCL's own verbs lines are not UCX's."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ucx_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ucx_log"


def parse_text(text: str):
    return ucx_log.parse(Artefact(path="t.log", text=text, node="node1"))


def test_ompi_6300_every_rank():
    text = (FIX / "ompi6300_mpirun_paste.txt").read_text()
    got = [(f.evidence.line, f.verb, f.device, f.error, f.memlock_kb) for f in parse_text(text).facts]
    assert got == [(7, "ibv_create_cq", None, "Cannot allocate memory", None),
                   (8, "ibv_create_cq", None, "Cannot allocate memory", None)]


@pytest.mark.parametrize("line,verb,device,error,kb", [
    # UCX 1.13, device first and the memlock hint (openucx/ucx#8746)
    ("[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: "
     "Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)",
     "ibv_create_cq", "mlx5_0", "Cannot allocate memory", 64),
    # quoted without UCX's prefix (NVIDIA/cudf-spark#7632)
    ("ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.", "ibv_create_cq", "mlx5_0", "Cannot allocate memory", None),
    # the mlx5 direct-verbs call, EINVAL (openucx/ucx#4556)
    ("ib_mlx5.c:73   UCX  ERROR mlx5dv_create_cq(cqe=4096) failed: Invalid argument", "mlx5dv_create_cq", None,
     "Invalid argument", None),
])
def test_forms(line, verb, device, error, kb):
    (f,) = parse_text(line).facts
    assert (f.verb, f.device, f.error, f.memlock_kb) == (verb, device, error, kb)


@pytest.mark.parametrize("line", [
    "misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory",  # NCCL's
    "[mpi11:04770] pml_ucx.c:212 Error: Failed to create UCP worker",
    "",
])
def test_not_ucx_verbs_lines(line):
    assert not ucx_log.detect(line)
    assert parse_text(line).facts == []


def test_mlx5_completion_errors_every_release_form():
    text = (FIX / "ucx_mlx5_completion_errors_paste.txt").read_text()
    res = parse_text(text)
    got = [(f.evidence.line, f.node, f.status, f.syndrome, f.vendor_err, f.device, f.port, f.link_layer, f.qp_type, f.opcode)
           for f in res.facts]
    assert got == [
        (1, "clx-orion-059", 12, 0x15, 0x81, None, None, None, None, "SEND"),  # UCX 1.3, openucx/ucx#1920
        (3, "node1", 12, 0x15, 0x81, "mlx5_0", 1, "IB", "RC", "RDMA_READ"),  # 1.8.1 without its prefix, #5634
        (5, "mgmt", 12, 0x15, 0x81, "mlx5_0", 1, "RoCE", "DCI", "SEND"),  # RoCE, #6000
        (7, "jwb0296", 12, 0x15, 0x81, "mlx5_2", 1, "IB", "RC", "RDMA_WRITE"),  # #7416
    ]
    assert {f.message for f in res.facts} == {"Transport retry count exceeded"}
    assert res.lines_used == 7  # the endpoint-timeout line after the 1.3 error is not a completion


@pytest.mark.parametrize("line,status,synd,message", [
    # an issue title: UCX 1.3's tail alone (openucx/ucx#2434)
    ("Transport retry count exceeded (synd 0x15 vend 0x81) opcode RDMA_READ", 12, 0x15, "Transport retry count exceeded"),
    # StanfordLegion/legion#1650, UCX 1.1x
    ("[cn355:11558:0:11678] ib_mlx5_log.c:171  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
     12, 0x15, "Transport retry count exceeded"),
])
def test_completion_forms(line, status, synd, message):
    (f,) = parse_text(line).facts
    assert (f.kind, f.status, f.syndrome, f.message) == ("ucx_completion_error", status, synd, message)


@pytest.mark.parametrize("line", [
    # the kernel's own completion error (mlx5_core_log reads it)
    "infiniband mlx5_0: mlx5_handle_error_cqe:332:(pid 0): WC error: 12, Message: transport retry counter exceeded",
    # UCX's consequence line, not a completion
    "[1516700569.378516] [clx-orion-059:5831 :0]     ucp_worker.c:437  UCX  ERROR Error Endpoint timeout was not handled for ep 0x1bdfee0 - rc_mlx5/mlx5_2:1",
])
def test_not_completion_lines(line):
    assert [f for f in parse_text(line).facts if f.kind == "ucx_completion_error"] == []
