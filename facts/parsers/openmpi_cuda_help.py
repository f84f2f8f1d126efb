"""Open MPI's CUDA support reporting a CUDA driver call that failed on the ranks' GPU buffers: the
help messages of ``help-mpi-common-cuda.txt`` (opal/mca/common/cuda/, Open MPI 1.7 to 4.1; printed by
``opal_show_help`` from common_cuda.c, which the smcuda BTL and the CUDA-aware point-to-point paths
call), in any rank's output, and mpirun's count of the copies it held back.

Each block begins with the call (help-mpi-common-cuda.txt, the same words from 1.8 to 4.1)::

    The call to cuIpcGetMemHandle failed. This means the GPU RDMA protocol
    cannot be used.
      cuIpcGetMemHandle return value:   %d
      address: %p
    The call to cuIpcOpenMemHandle failed. This is an unrecoverable error
    and will cause the program to abort.

and mpirun aggregates the same block from other processes (orte/util/show_help.c: ``"%d more process%s
sent help message %s / %s"``, "es have" / " has"; sample real, OPM/LBPM#34, the block itself left out of
the paste)::

    > [gpu03:11920] 126 more processes have sent help message help-mpi-common-cuda.txt / cuIpcGetMemHandle failed

Fact ``openmpi_cuda_call_failed``, one per block and one per host and topic of aggregation lines that no block
of the same text stands for: ``call`` (the CUDA driver function), ``topic`` (the help file's tag),
``return_value`` and ``return_name`` (the CUresult, by knowledge/cuda_errors.yaml's driver entries) when the
block shows it, ``aborts`` (the help text says the error is unrecoverable or the program will abort),
``copies`` (the further copies mpirun's aggregation lines count, summed: a process that fails the call
again prints it again, so this counts messages, not processes), ``host``, and ``detail``, the same in
words. A text without such a line is not this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import OpenmpiCudaCallFailed
from stethoscope.facts.parsers import cuda_error_catalogue as cec
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "openmpi_cuda_help"

# help-mpi-common-cuda.txt (open-mpi/ompi v4.1.x): each topic's CUDA call, and whether its text says the
# program aborts ("This is an unrecoverable error and will cause the program to abort", "The program will
# probably abort", "A call to allocate memory ... unrecoverable"); the others say it continues ("The program
# will continue to run", "the GPU RDMA protocol cannot be used", "performance ... may be reduced")
TOPICS: dict[str, tuple[str, bool]] = {
    "cuCtxGetCurrent failed not initialized": ("cuCtxGetCurrent", False),
    "cuCtxGetCurrent failed": ("cuCtxGetCurrent", False),
    "cuCtxGetCurrent returned NULL": ("cuCtxGetCurrent", False),
    "cuMemHostRegister during init failed": ("cuMemHostRegister", False),
    "cuMemHostRegister failed": ("cuMemHostRegister", False),
    "cuIpcGetMemHandle failed": ("cuIpcGetMemHandle", False),
    "cuMemGetAddressRange failed": ("cuMemGetAddressRange", False),
    "cuMemGetAddressRange failed 2": ("cuMemGetAddressRange", True),
    "cuIpcOpenMemHandle failed": ("cuIpcOpenMemHandle", True),
    "cuIpcCloseMemHandle failed": ("cuIpcCloseMemHandle", False),
    "cuMemcpyAsync failed": ("cuMemcpyAsync", True),
    "cuEventCreate failed": ("cuEventCreate", True),
    "cuEventRecord failed": ("cuEventRecord", True),
    "cuEventQuery failed": ("cuEventQuery", True),
    "cuIpcGetEventHandle failed": ("cuIpcGetEventHandle", True),
    "cuIpcOpenEventHandle failed": ("cuIpcOpenEventHandle", True),
    "cuStreamWaitEvent failed": ("cuStreamWaitEvent", True),
    "cuEventDestroy failed": ("cuEventDestroy", True),
    "cuStreamCreate failed": ("cuStreamCreate", True),
    "cuStreamSynchronize failed": ("cuStreamSynchronize", False),
    "cuMemcpy failed": ("cuMemcpy", False),
}

# The call to cuIpcOpenMemHandle failed. This is an unrecoverable error
# The call to cuMemHostRegister(%p, %d, 0) failed.            (the arguments filled in)
# WARNING: The call to cuCtxGetCurrent() failed while attempting to register
# The call to cuEventDestory failed. This is a unrecoverable error and will   (the help file's own spelling)
_HEAD = re.compile(r"^[ \t>]{0,8}(?:WARNING: )?The call to (?P<call>cu[A-Z]\w{2,40})(?:\([^)\n]{0,120}\))? failed"
                   r"(?P<rest>(?: |\.|$)[^\n]{0,200})$")
# the words after it that say the program aborts, on the head line or the one after it
_ABORTS = re.compile(r"unrecoverable|will cause the program to abort|will probably abort")
#   cuIpcGetMemHandle return value:   1
#   cuIpcOpenMemHandle return value:  1
_RV = re.compile(r"^[ \t>]{0,8}(?P<call>cu[A-Z]\w{2,40}) return value:[ \t]*(?P<rv>-?\d{1,6})[ \t]*$")
# [gpu03:11920] 126 more processes have sent help message help-mpi-common-cuda.txt / cuIpcGetMemHandle failed
_MORE = re.compile(r"(?:\[(?P<host>[A-Za-z][\w.-]{0,62}):\d{1,10}\] )?(?P<count>\d{1,7}) more process(?:es have| has) sent "
                   r"help message help-mpi-common-cuda\.txt / (?P<topic>cu\w{2,40}[^\n]{0,40})")
#   (the topic taken greedily and its trailing blanks stripped: a lazy topic before "[ \t]*$" took 29 s on bench/redos.py's
#   120,000-character line of repeated aggregation lines)
_EVENT_DESTORY = "cuEventDestory"  # the help file's spelling of cuEventDestroy


def detect(head: str) -> bool:
    if "help-mpi-common-cuda.txt" in head and _MORE.search(head) is not None:
        return True
    return "The call to cu" in head and any(_HEAD.match(line) for line in head.splitlines() if "The call to cu" in line)


def _name(rv: int | None) -> str | None:
    e = cec.by_code(rv, "driver") if rv is not None else None
    return e.name if e is not None else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    blocks: set[str] = set()  # the calls a block of the text reported
    more: dict[tuple[str | None, str], list[int]] = {}  # (host, topic) -> [first line, processes]
    for n, line in enumerate(lines):
        if "The call to cu" in line and (h := _HEAD.match(line)) is not None:
            call = "cuEventDestroy" if h["call"] == _EVENT_DESTORY else h["call"]
            tail = lines[n + 1] if n + 1 < len(lines) else ""
            rv = None
            for k in range(n + 1, min(n + 5, len(lines))):
                if (r := _RV.match(lines[k])) is not None:
                    rv = int(r["rv"])
                    result.lines_used += 1
                    break
            name = _name(rv)
            detail = (f"CUresult {rv}" + (f" {name}" if name else "")) if rv is not None else "its CUresult not in the text"
            b.add(OpenmpiCudaCallFailed, n + 1, call=call, topic=None, return_value=rv, return_name=name,
                  aborts=_ABORTS.search(h["rest"] + " " + tail) is not None, copies=0, host=None, detail=detail)
            blocks.add(call)
            result.lines_used += 1
        elif "help-mpi-common-cuda.txt" in line and (m := _MORE.search(line)) is not None:
            topic = m["topic"].rstrip()
            key = (m["host"], topic)
            seen = more.setdefault(key, [n + 1, 0])
            seen[1] += int(m["count"])
            result.lines_used += 1
    for (host, topic), (at, count) in more.items():
        call, aborts = TOPICS.get(topic, (topic.split()[0], False))
        if call in blocks:
            continue  # the copies of a block the text shows: its echo
        b.add(OpenmpiCudaCallFailed, at, call=call, topic=topic, return_value=None, return_name=None, aborts=aborts,
              copies=count, host=host, detail=f"mpirun counted {count} more copies of the message '{topic}'"
              + (f" on {host}" if host else "") + "; the block itself, with its CUresult, is not in the text")
    return result


#: the line signatures this reader owns
SIGNATURES = (r"\d more process(?:es have| has) sent help message help-mpi-common-cuda\.txt / ",
              r"(?m)^[ \t>]{0,8}(?:WARNING: )?The call to cu[A-Z]\w{2,40}(?:\([^)\n]{0,120}\))? failed")
