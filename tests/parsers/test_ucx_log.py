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
