"""An MPICH-derived MPI's abort line (MPICH, Cray MPICH, MVAPICH): the rank, job, host and the error
message that stopped it. Sample lines: Cray MPICH prints (its documentation and every public paste of it; the
GPU Transport Layer check of MPIDI_CRAY_init)::

    MPICH ERROR [Rank 0] [job id 5680267.11] [Wed Feb 22 23:01:58 2023] [nid002845] - Abort(-1) (rank 0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked
     (Other MPI error)

    aborting job:
    MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked

(JuliaParallel/MPI.jl#716 on Perlmutter; APPFL/APPFL#258 on Polaris and flux-framework/flux-core#6924 on
Frontier print the same line with an empty ``[job id ]``.) MPICH's own MPIR_Handle_fatal_error writes
"Abort(<code>) on node <n> (rank <n> in comm <n>): Fatal error in <function>: <class>, error stack:" and the
stack after it; ch4's MPID_Abort prints " on node <n>" and " (rank <n> in comm <n>)" only when it has them, so an
MPI_Init that fails before MPI_COMM_WORLD exists prints "Abort(<code>): Fatal error in internal_Init_thread: ...".
Each form is read, and the stack's frames are the abort's detail (its deepest message kept).

Facts: ``mpich_abort`` per aborted rank and message (the "aborting job:" repeat and the "(Other MPI
error)" class line are read with it): rank, job id, the host (the node), the function, the message,
whether it failed in MPI_Init (``in_init``), the stack's deepest message (``stack_error``),
and ``reason`` ``gtl_not_linked`` for the GTL check (MPICH_GPU_SUPPORT_ENABLED=1 in a program built
without the GTL library: libmpi_gtl_cuda for NVIDIA GPUs, libmpi_gtl_hsa for AMD). No abort line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import MpichAbort  # noqa: F401 - the fact class lives in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "mpich_abort"

# MPICH ERROR [Rank 0] [job id 5680267.11] [Wed Feb 22 23:01:58 2023] [nid002845] - Abort(-1) (rank 0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked   (JuliaParallel/MPI.jl#716)
# MPICH ERROR [Rank 0] [job id ] [Thu Jan 30 22:35:30 2025] [x3006c0s19b1n0] - Abort(-1) (rank 0 in comm 0): MPIDI_CRAY_init: ...   (APPFL/APPFL#258)
_CRAY = re.compile(r"\bMPICH ERROR \[Rank (?P<rank>\d{1,9})\] \[job id (?P<job>[\w.-]{0,40})\] \[[^\]\n]{1,40}\] "
                   r"\[(?P<host>[\w.-]{1,253})\] - Abort\((?P<code>-?\d{1,10})\) \(rank \d{1,9} in comm \d{1,9}\): "
                   r"(?:(?P<func>[A-Za-z_]\w{0,63}): )?(?P<msg>[^\n]{0,300}[^\s])")
# MPICH's ch4 MPID_Abort (pmodels/mpich src/mpid/ch4/src/ch4_globals.c): "Abort(%d)%s%s: %s%s\n", exit code, then
# " on node %d" (the world rank) only once MPI_COMM_WORLD exists, " (rank %d in comm %d)" only with a communicator:
# an MPI_Init that fails before either prints neither. MPIR_Handle_fatal_error's message "Fatal error in %s: " first:
# Abort(1) on node 3 (rank 3 in comm 0): Fatal error in PMPI_Init_thread: Other MPI error, error stack:   (filled)
# Abort(1615247) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, error stack:   (rouyang2017/SISSO#64)
# Abort(1008326287): Fatal error in internal_Init_thread: Other MPI error, error stack:                   (openucx/ucx#9610)
# Abort(15) on node 2: Fatal error in internal_Allreduce: Other MPI error, error stack:                   (CONSTRUCTED: a world
#   rank without a communicator's part)
_PLAIN = re.compile(r"^Abort\((?P<code>-?\d{1,10})\)(?: on node (?P<world>\d{1,9}))?(?: \(rank (?P<rank>\d{1,9}) in comm \d{1,9}\))?: "
                    r"Fatal error in (?P<func>[A-Za-z_]\w{0,63}): (?P<msg>[^\n]{0,300}[^\s])")
# the error stack MPIR_Err_get_string prints after it, a frame a line ("<function>(<line>)<dots>: <message>", the
# message empty on frames that only pass the error on), read as the abort's detail; the deepest message says what
# failed (openucx/ucx#9610):
# MPIDI_UCX_init_local(219):  ucx function returned with failed status(ucx_init.c 219 MPIDI_UCX_init_local No such device)
_FRAME = re.compile(r"^(?P<fn>[A-Za-z_]\w{0,63})\(\d{1,6}\)\.{0,80}: ?(?P<msg>[^\n]{0,400})")  # (msg stripped after)
_FRAMES_MAX = 40
# aborting job:   /   (Other MPI error)
_ECHO = re.compile(r"^\s{0,4}(?:aborting job:|\(Other MPI error\))\s*$")
_GTL = re.compile(r"\bGPU_SUPPORT_ENABLED is requested, but GTL library is not linked\b")


def detect(head: str) -> bool:
    return ("MPICH ERROR [Rank" in head and _CRAY.search(head) is not None
            or "Fatal error in " in head and any(_PLAIN.match(line) for line in head.splitlines() if line.startswith("Abort(")))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    messages: set[str] = set()
    for n, line in iter_lines_with(("MPICH ERROR [Rank", "Abort("), artefact):
        m = _CRAY.search(line) or _PLAIN.match(line)
        if m is None:
            continue
        result.lines_used += 1
        got = m.groupdict()
        msg = m["msg"].strip()
        messages.add(msg)
        rank = got.get("rank") or got.get("world")
        cause = None
        if msg.endswith("error stack:"):
            cause, used = _stack(artefact.lines, n)
            result.lines_used += used
        fb.add(MpichAbort, n, node=artefact.node_for(got.get("host")), rank=int(rank) if rank else None,
               job_id=got.get("job") or None, function=m["func"], message=msg, code=int(m["code"]),
               reason="gtl_not_linked" if _GTL.search(line) else "other", stack_error=cause,
               in_init="Init" in (m["func"] or ""))
    if messages:
        for line in artefact.lines:
            s = line.strip()
            if _ECHO.match(line) or any(s.endswith(msg) and ": " in s and len(s) < len(msg) + 70 for msg in messages) \
                    and not s.startswith(("MPICH ERROR", "Abort(")):  # (an abort line is read above)
                result.lines_used += 1
    return result


def _stack(lines: list[str], n: int) -> tuple[str | None, int]:
    """The error stack after the abort line ``n`` (1-based): its deepest non-empty message and how many lines it took."""
    deepest, used = None, 0
    for line in lines[n:n + _FRAMES_MAX]:
        if (f := _FRAME.match(line.strip())) is None:
            break
        used += 1
        if f["msg"].strip():
            deepest = f["msg"].strip()[:300]
    return deepest, used


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bMPICH ERROR \[Rank \d+\] \[job id [\w.-]*\] ",
              r"(?m)^Abort\(-?\d+\)(?: on node \d+)?(?: \(rank \d+ in comm \d+\))?: Fatal error in ")
