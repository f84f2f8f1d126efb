"""A multi-process launcher's report that a process of the job exited with a non-zero status and
the job was ended for it, in any program's output (mpirun's own stderr, a batch job's log).

Open MPI's runtime (ORTE's help files in Open MPI 1.x-4.x, PRRTE's in 5.x, the tool's name filled in:
``mpirun``, ``mpiexec``, ``orterun``, ``mpirun.real`` of Debian's wrapper, ``prterun``) prints two
boxes when a rank exits with a non-zero status (sample content, real lines)::

    -------------------------------------------------------
    Primary job  terminated normally, but 1 process returned
    a non-zero exit code. Per user-direction, the job has been aborted.
    -------------------------------------------------------
    --------------------------------------------------------------------------
    mpirun.real detected that one or more processes exited with non-zero status, thus causing
    the job to be terminated. The first process to do so was:

      Process name: [[4115,1],1]
      Exit code:    1
    --------------------------------------------------------------------------
                                                  (real: horovod/horovod#410, Horovod over two hosts)

Horovod's own launcher (horovodrun with Gloo; horovod/runner/gloo_run.py) raises the same words
without the box: ``RuntimeError: Horovod detected that one or more processes exited with non-zero
status, thus causing the job to be terminated. The first process to do so was:`` then ``Process
name: {name}`` and ``Exit code: {code}`` (``Gloo job detected ...`` in older releases).

The process's own output (above the boxes, or in its rank's ``[1,N]<stderr>:`` lines) says why it
failed; exit code 1 is most often a Python exception. A launcher's report of a rank a signal ended
(``mpirun noticed that process rank N ... exited on signal 9``) is subprocess_error's.

Facts: one ``launcher_process_exited`` per "detected" report (``launcher``, ``process_name``,
``rank`` from Open MPI's ``[[job,step],rank]`` or PRRTE's ``[nspace,rank]``, ``exit_code``), with the
count of ``Primary job`` before it when there is one; a ``Primary job`` box alone (a paste cut
before the second box) makes one fact with its count and no process, unless mpirun's report of a
signal follows it instead (subprocess_error's). Empty input, or neither report: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.launch import LauncherProcessExited  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "launcher_exit"

# mpirun.real detected that one or more processes exited with non-zero status, thus causing     (horovod/horovod#410)
# RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the job ...
#   (horovod/runner/gloo_run.py; "Gloo job detected ..." before)
_DETECTED = re.compile(r"(?P<tool>Gloo job|[\w.()/-]{1,60}) detected that one or more processes exited with non-zero\b")
_DETECTED_WORDS = "detected that one or more processes exited with non-zero"
#   Process name: [[4115,1],1]        Process name: [prterun-gpu01-4242@1,3]        Process name: 1
_NAME = re.compile(r"^[ \t]*Process name:[ \t]*(?P<name>\S{1,200})")
#   Exit code:    1
_CODE = re.compile(r"^[ \t]*Exit code:[ \t]*(?P<code>-?\d{1,5})\b")
# the rank in Open MPI's process name [[job,step],rank] or PRRTE's [nspace,rank]
_RANK = re.compile(r",(?P<rank>\d{1,9})\]$")
# Primary job  terminated normally, but 1 process returned          (horovod/horovod#410; "2 processes returned")
_PRIMARY = re.compile(r"Primary job {1,2}terminated normally, but (?P<n>\d{1,9}) process(?:es)? returned")
_PRIMARY_WORDS = "terminated normally, but "
_BOX_LINES = 8  # lines after the "detected" sentence its name and code are looked for in


# mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on signal 9 (Killed).   (NVIDIA/TensorRT-LLM#1700)
#   (mpirun's report of a rank a signal ended, which follows the "Primary job" box in place of the "detected" one:
#   subprocess_error's, which names the rank; the count alone adds nothing to it)
_SIGNAL_REPORT = " noticed that process rank "


def _count_alone(text: str) -> bool:
    return _PRIMARY_WORDS in text and _SIGNAL_REPORT not in text and _PRIMARY.search(text) is not None


def detect(text: str) -> bool:
    return (_DETECTED_WORDS in text and _DETECTED.search(text) is not None) or _count_alone(text)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    processes: int | None = None
    primary_line: int | None = None
    reported = False
    for n, line in iter_lines_with((_DETECTED_WORDS, _PRIMARY_WORDS), artefact):
        if (m := _PRIMARY.search(line)) is not None:
            result.lines_used += 1
            processes, primary_line = int(m["n"]), n
            continue
        if (m := _DETECTED.search(line)) is None:
            continue
        result.lines_used += 1
        name = code = None
        for i in range(n, min(len(lines), n + _BOX_LINES)):
            if name is None and (nm := _NAME.match(lines[i])) is not None:
                name = nm["name"]
            elif code is None and (cm := _CODE.match(lines[i])) is not None:
                code = int(cm["code"])
            if name is not None and code is not None:
                break
        rank = _RANK.search(name) if name else None
        fb.add(LauncherProcessExited, n, launcher=m["tool"], process_name=name,
               rank=int(rank["rank"]) if rank else None, exit_code=code, processes=processes)
        reported = True
    if not reported and primary_line is not None and _SIGNAL_REPORT not in artefact.text:
        fb.add(LauncherProcessExited, primary_line, launcher="Open MPI", processes=processes)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECTED_WORDS, r"Primary job {1,2}terminated normally, but \d")
