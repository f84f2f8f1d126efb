"""NVIDIA SHARP's own log lines, as they land in an NCCL job's output or are pasted from the Aggregation Manager's
log: the SHARP library (libsharp / libsharp_coll, loaded into every rank by the RDMA/SHARP net plugin that gives NCCL
its CollNet) and the SHARP Aggregation Manager (sharp_am, the daemon beside the subnet manager that grants a job its
SHARP trees and resources). SHARP itself is not open source: the forms are those its logs show in public threads.

The library prefixes each line with the host, the process's rank in the SHARP job and its pid, then either the
source file and line or the job's unique id, then (recent HPC-X releases) the date; then the level. Sample lines (real)::

    [snail01:0:3745196 unique id 9370583446459220315][2024-09-24 16:15:29] ERROR Job error in sharp_get_job_data_len.
    [snail01:0:3745196 - context.c:709][2024-09-24 16:15:29] ERROR                   (NVIDIA/nccl#1460, HPC-X 2.20, the
                                                                                     stored excerpt ends after the level)

The Aggregation Manager's log (sharp_am.log; its messages also reach the library's caller) prefixes the host when
several write one file, then the date with microseconds, a category, the pid and the level. Sample lines (real)::

    [snail01][Sep 24 16:15:29 847428][GENERAL][3745742][warn ] - Begin job id: 9370583446459220315 failed with status: No resource
                                                                                     (NVIDIA/nccl#1460, sharp_am 3.8.0)
    [May 22 02:20:08 752213][GENERAL][336070][info ] - Begin Job: job_id_external: 1516164047242882094 reservation_key:  ...
                                                                                     (NVIDIA/nccl#1292, a healthy job)

Facts: ``sharp_error`` per library line at level ERROR and per Aggregation Manager line at level error (or fatal), or
one that says a job failed ("... failed with status: <status>", logged at warn): its source, level, message, the job
id and the status where printed, and the HCA and port where the message names them ("device mlx5_0 port 1"). Lines
at other levels are SHARP's and make no fact (a job's set-up, its quota and trees). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import SharpError
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "sharp_log"

# [snail01:0:3745196 unique id 9370583446459220315][2024-09-24 16:15:29] ERROR Job error in sharp_get_job_data_len.   (NVIDIA/nccl#1460)
# [snail01:0:3745196 - context.c:709][2024-09-24 16:15:29] ERROR                                                      (NVIDIA/nccl#1460, cut)
#   (older releases print no date: "[n1:0:24972 - context.c:702] INFO job (ID: ...) ..." CONSTRUCTED from the same form)
_LIBSHARP = re.compile(r"\[(?P<host>[\w.-]{1,64}):(?P<rank>\d{1,7}):(?P<pid>\d{1,9})"
                       r"(?: - (?P<src>[\w.-]{1,64}\.c):\d{1,6}| unique id (?P<job>\d{1,20}))\]"
                       r"(?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\])? (?P<level>ERROR|WARN|INFO|DEBUG|TRACE)\b ?(?P<msg>[^\n]*)")
# [snail01][Sep 24 16:15:29 847428][GENERAL][3745742][warn ] - Begin job id: 9370583446459220315 failed with status: No resource   (NVIDIA/nccl#1460)
# [May 22 02:20:08 758415][JOBS   ][336070][info ] - job_id_external: 1516164047242882094 reservation_key:  job_id_sharp: 211 - Allocated quota ...   (NVIDIA/nccl#1292)
_SHARP_AM = re.compile(r"(?:\[(?P<host>[\w.-]{1,64})\])?\[[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d \d{1,6}\]"
                       r"\[[A-Z_]{2,12} *\]\[(?P<pid>\d{1,9})\]\[(?P<level>[a-z]{3,7}) *\] - (?P<msg>[^\n]*)")
# Begin job id: 9370583446459220315 failed with status: No resource   (NVIDIA/nccl#1460)
_AM_FAILED = re.compile(r"\bjob id: (?P<job>\d{1,20}) failed with status: (?P<status>[^\n]{1,120}?)\s*$")
# ... device mlx5_0 port 1 ...   (a message naming the HCA and port it refers to; CONSTRUCTED in the tests)
_HCA_PORT = re.compile(r"\bdevice (?P<hca>[A-Za-z][\w]{1,30}) port (?P<port>\d{1,3})\b")

_LITERALS = ("] ERROR", "][error", "][fatal", "failed with status: ")
_AM_ERROR_LEVELS = ("error", "fatal", "crit")


def detect(text: str) -> bool:
    return any(lit in text for lit in _LITERALS) and (_LIBSHARP.search(text) is not None or _SHARP_AM.search(text) is not None)


def _read(line: str) -> tuple[re.Match, str, str | None, str | None] | None:
    """The line's prefix match, the source, the job id and the status, for a line that makes a fact."""
    if (m := _LIBSHARP.search(line)) is not None:
        return (m, "libsharp", m["job"], None) if m["level"] == "ERROR" else None
    if (m := _SHARP_AM.search(line)) is None:
        return None
    failed = _AM_FAILED.search(m["msg"])
    if failed is not None:
        return m, "sharp_am", failed["job"], failed["status"]
    return (m, "sharp_am", None, None) if m["level"] in _AM_ERROR_LEVELS else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_LITERALS, artefact):
        if (read := _read(line)) is None:
            continue
        m, source, job, status = read
        msg = m["msg"].strip()
        where = _HCA_PORT.search(msg)
        fb.add(SharpError, n, node=artefact.node_for(m["host"]), source=source, level=m["level"], message=msg, job_id=job,
               status=status, hca=where["hca"] if where else None, port=int(where["port"]) if where else None)
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py): the two prefixes, at any level (a file of SHARP's lines is SHARP's log)
SIGNATURES = (
    r"\[[\w.-]+:\d+:\d+(?: - [\w.-]+\.c:\d+| unique id \d+)\](?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\])? (?:ERROR|WARN|INFO|DEBUG|TRACE)\b",
    r"\[[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d \d{1,6}\]\[[A-Z_]{2,12} *\]\[\d+\]\[[a-z]{3,7} *\] - ",
)
