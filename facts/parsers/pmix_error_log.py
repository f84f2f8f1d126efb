"""The error lines the PMIx library logs in a process (an MPI rank's client, srun's stepd plugin, prterun / prted's
server), looked for anywhere in a file: srun's and mpirun's output carry them among the ranks' own lines.

PMIx's error log (src/util/error.h ``PMIX_ERROR_LOG(r)``: ``pmix_output(0, "PMIX ERROR: %s in file %s at line %d",
PMIx_Error_string(r), __FILE__, __LINE__)``, the same text in PMIx 1.x to 5.x; pmix_output puts ``[host:pid] ``
before it) and its buffer unpacker's complaint about a value of a type it does not know (src/mca/bfrops/base/
bfrop_base_unpack.c ``pmix_output(0, "UNPACK-PMIX-VALUE: UNSUPPORTED TYPE %d", (int)val->type)``; PMIx 1.x without
the number). Sample content (real)::

    [nid200018:821449] UNPACK-PMIX-VALUE: UNSUPPORTED TYPE 104
    [nid200019:1324764] PMIX ERROR: OUT-OF-RESOURCE in file base/bfrop_base_unpack.c at line 750
        (open-mpi/ompi#12146: Open MPI's ranks under srun --mpi=pmix of Slurm's pmix_v4 plugin on Perlmutter; the
        ranks then said hello: the lines were the start-up's, not a failure)
    [squidhpc2:3977236] PMIX ERROR: UNPACK-INADEQUATE-SPACE in file ../../../../../../3rd-party/openpmix/src/mca/gds/base/gds_base_fns.c at line 266
        (the form with a build's relative __FILE__, as Open MPI 5's bundled PMIx writes it)

Facts: ``pmix_error_logged`` per line where the error is in reading a message (a bfrops source file, an UNPACK-*
status, the unpacker's unknown type; ``unpack``): what a PMIx of another version or build than the one on the other
end of the socket produces (status, file and line, the unknown type's code, the host). A PMIX ERROR of another step
(NOT-FOUND in server/pmix_server.c under a component's help block) is left to the reader of what surrounds it, or to
the unexplained errors. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.launch import PmixErrorLogged
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "pmix_error_log"

# [nid200019:1324764] PMIX ERROR: OUT-OF-RESOURCE in file base/bfrop_base_unpack.c at line 750      (ompi#12146)
# [squidhpc2:3977236] PMIX ERROR: UNPACK-INADEQUATE-SPACE in file ../../../../../../3rd-party/openpmix/src/mca/gds/base/gds_base_fns.c at line 266
_ERROR = re.compile(
    r"(?:\[(?P<host>[^\s:\]]{1,255}):\d{1,10}\] {0,4})?PMIX ERROR: (?P<status>[A-Za-z][\w -]{0,60}?) in file "
    r"(?P<file>\S{1,400}) at line (?P<line>\d{1,7})\b")
# [nid200018:821449] UNPACK-PMIX-VALUE: UNSUPPORTED TYPE 104       (ompi#12146; PMIx 1.x: no number)
_UNSUPPORTED = re.compile(
    r"(?:\[(?P<host>[^\s:\]]{1,255}):\d{1,10}\] {0,4})?UNPACK-PMIX-VALUE: UNSUPPORTED TYPE(?: (?P<type>\d{1,6}))?\b")


def detect(head: str) -> bool:
    return ("PMIX ERROR: " in head and any(_unpack(m["status"], m["file"]) for m in _ERROR.finditer(head))) \
        or ("UNPACK-PMIX-VALUE: " in head and _UNSUPPORTED.search(head) is not None)


def _unpack(status: str, source_file: str) -> bool:
    """An error in reading a message: the bfrops framework's files (bfrop_base_unpack.c, bfrop_pmix20.c, ...) or
    an UNPACK-* status wherever it is logged."""
    return "bfrop" in source_file.rsplit("/", 1)[-1] or status.upper().startswith("UNPACK")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(("PMIX ERROR: ", "UNPACK-PMIX-VALUE: "), artefact):
        m = _ERROR.search(line)
        if m is not None:
            status = m["status"].strip()
            if not _unpack(status, m["file"]):
                continue  # another step's error (a key not found, a component's open): the reader of its block reads it
            result.lines_used += 1
            fb.add(PmixErrorLogged, n, node=artefact.node_for(m["host"]), status=status, source_file=m["file"],
                   source_line=int(m["line"]), unpack=_unpack(status, m["file"]), host=m["host"],
                   message=line[m.start():].strip()[:300])
            continue
        m = _UNSUPPORTED.search(line)
        if m is not None:
            result.lines_used += 1
            fb.add(PmixErrorLogged, n, node=artefact.node_for(m["host"]), status="UNSUPPORTED TYPE",
                   unsupported_type=int(m["type"]) if m["type"] else None, unpack=True, host=m["host"],
                   message=line[m.start():].strip()[:300])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"PMIX ERROR: [A-Za-z][\w -]* in file \S+ at line \d", r"UNPACK-PMIX-VALUE: UNSUPPORTED TYPE")
