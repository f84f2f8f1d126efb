"""UCX's verbs errors, printed on stderr by any program that uses UCX (Open MPI's pml ucx, Horovod,
Spark's RAPIDS shuffle, ucx-py, ``ucx_info``), so they are looked for anywhere in a file.

UCX logs a failed verbs call as ``<call>(<args>) failed: <strerror>``; since UCX 1.13 it names the
device first, and for ENOMEM it adds the process's locked-memory limit unless that is unlimited
(``uct_ib_memlock_limit_msg``, src/uct/ib/base/ib_log.c: "Please set max locked memory (ulimit -l)
to 'unlimited' (current: %llu kbytes)"; UCX's own reading of ENOMEM from a verbs call). Sample
lines (real, from the public threads named)::

    [1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory    (open-mpi/ompi#6300)
    [1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)    (openucx/ucx#8746)
    ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.    (quoted without its prefix, NVIDIA/cudf-spark#7632)
    ib_iface.c:618  UCX  ERROR ibv_create_cq(cqe=4096) failed: Invalid argument    (openucx/ucx#4556)

Facts: ``ucx_verbs_failure`` per line: the verbs call (``ibv_create_cq``, ``ibv_reg_mr``,
``mlx5dv_create_cq``, ...), the device when printed, the strerror text and the memlock limit UCX
printed (KiB). Lines of other programs that call verbs (NCCL's ``Call to ibv_x failed``) are not
UCX's and are left to their readers. Empty input, or no UCX verbs error: nothing.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "ucx_log"

# [1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory
# ... ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)
# ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.
#   (the call with its parenthesised arguments, then " failed: ": UCX's form; NCCL writes "Call to ibv_x failed")
_LINE = re.compile(
    r"^[^\n]*?\bERROR\s+(?:(?P<dev>[A-Za-z]\w{0,31}): )?(?P<verb>(?:ibv|mlx5dv)_\w{1,40})\([^)\n]{0,200}\) failed: "
    r"(?P<err>[A-Za-z][A-Za-z ]{0,60}?)[ \t]*(?:[.:]|$)(?P<rest>[^\n]*)$", re.M)
# ... Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)
_MEMLOCK = re.compile(r"\(current: (?P<kb>\d{1,20}) kbytes\)")


@fact_kind
class UcxVerbsFailure(Fact):
    """One failed verbs call as UCX logged it."""

    kind: Literal["ucx_verbs_failure"] = "ucx_verbs_failure"
    verb: str  # "ibv_create_cq", "ibv_reg_mr", "mlx5dv_create_cq"
    device: str | None = None  # "mlx5_0" (UCX 1.13 and later)
    error: str  # "Cannot allocate memory"
    memlock_kb: int | None = None  # the locked-memory limit UCX printed with an ENOMEM


def detect(head: str) -> bool:
    return "failed: " in head and _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        limit = _MEMLOCK.search(m["rest"])
        fb.add(UcxVerbsFailure, n, verb=m["verb"], device=m["dev"], error=m["err"].strip(),
               memlock_kb=int(limit["kb"]) if limit else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"ERROR\s+(?:\w+: )?(?:ibv|mlx5dv)_\w+\([^)\n]*\) failed: ",)
