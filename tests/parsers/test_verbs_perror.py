"""verbs_perror: a program's perror(3) of a failed libibverbs call; other programs' forms are their readers'."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import verbs_perror
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/verbs_perror"


def _facts(text: str):
    return verbs_perror.parse(Artefact(path="t.log", text=text, node="node1")).facts


def test_smart2_modify_qp_invalid_argument():
    # madsys-dev/smart#2: the program's prefix, then perror("ibv_modify_qp"), a trailing comma
    text = (FIX / "smart2_modify_qp_invalid_argument.txt").read_text()
    assert verbs_perror.detect(text)
    assert [(f.call, f.error) for f in _facts(text)] == [("ibv_modify_qp", "Invalid argument")]


def test_once_per_call_and_error():
    text = "ibv_modify_qp: Invalid argument\nibv_modify_qp: Invalid argument\nibv_reg_mr: Bad address\n"
    assert [(f.call, f.error) for f in _facts(text)] == [("ibv_modify_qp", "Invalid argument"), ("ibv_reg_mr", "Bad address")]


@pytest.mark.parametrize("line", [
    # UCX's form (open-mpi/ompi#6300, openucx/ucx#8746) and NCCL's (NVIDIA/nccl#778): their readers'
    "[1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory",
    "[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.",
    "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported",
    # a call's name followed by words that are no strerror text (a tool's help line)
    "  ibv_devinfo: Query RDMA devices",
])
def test_other_forms_are_not_this(line):
    assert not verbs_perror.detect(line + "\n")
    assert _facts(line + "\n") == []
