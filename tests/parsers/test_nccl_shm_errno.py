"""NCCL's /dev/shm segment failures read with their errno (session 30, round C3): ENOSPC is a full /dev/shm, EINTR a
signal NCCL 2.3 did not retry, another errno neither; NCCL 2.4-2.11's reasonless "Error while creating shared memory
segment" line takes the errno of the call its process printed failing just before (src/include/shm.h shmOpen)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"


def _shm(text: str) -> list[tuple]:
    res = nccl_log.parse(Artefact(path="nccl.log", text=text, node="n", node_from_folder=False))
    return [(f.kind, f.node, getattr(f, "op", None) or getattr(f, "call", None), f.errno_name, getattr(f, "other_reason", None))
            for f in res.facts if f.kind in ("nccl_shm_failure", "nccl_shm_refused")]


def test_full_dev_shm_lines_and_the_create_line_after_them():
    # NVIDIA/nccl-tests#166 (2.12: no reason on either line) and pytorch/pytorch#40622 (2.7: posix_fallocate's ENOSPC,
    # then the reasonless create line of the same process, which takes it)
    assert _shm((FIX / "shm_too_small.log").read_text()) == [
        ("nccl_shm_failure", "ubuntu", "create", None, False), ("nccl_shm_failure", "ubuntu", "extend", None, False),
        ("nccl_shm_failure", "ubuntu", "create", None, False),
        ("nccl_shm_failure", "5135fc87695d", "fallocate", "ENOSPC", False),
        ("nccl_shm_failure", "5135fc87695d", "create", "ENOSPC", False)]


def test_create_line_after_a_refused_shm_open_takes_its_errno():
    # NVIDIA/nccl#328 (2.4-2.6): shm_open refused, then the reasonless create line: EACCES, not a full /dev/shm
    assert _shm((FIX / "shm_open_permission_denied_nccl328.log").read_text()) == [
        ("nccl_shm_refused", "node08", "shm_open", "EACCES", None), ("nccl_shm_failure", "node08", "create", "EACCES", True)]


def test_nccl23_interrupted_allocation():
    # NCCL 2.3's WARN as marian-nmt/marian-dev src/training/communicator_nccl.h quotes it: EINTR, not a full /dev/shm
    assert _shm("include/shm.h:26 NCCL WARN Unable to allocate shared memory (4263936 bytes) : Interrupted system call\n") == [
        ("nccl_shm_failure", "n", "fallocate", "EINTR", True)]
