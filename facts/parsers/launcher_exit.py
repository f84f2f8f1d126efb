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

text-generation-inference's launcher (``text-generation-launcher``, launcher/src/main.rs of every release from 0.9
on) starts one ``text-generation-server`` process a shard, and when one exits before it is ready, it logs the shard's
stderr and then ends: ``Shard complete standard error output:`` with the stderr on the lines after it (the span's
`` rank=N`` after its last line), ``Shard {rank} failed to start``, ``Shutting down shards``, and the process's own
``Error: ShardCannotStart`` (Rust's report of the ``main`` that returned ``Err(LauncherError::ShardCannotStart)``);
a shard that exits after start is ``Shard {rank} crashed`` (``Error: ShardFailed``), the router ``Webserver Crashed``
(``Error: WebserverFailed``). Sample content (real, huggingface/text-generation-inference#1354)::

    ValueError: `num_heads` must be divisible by `num_shards` (got `num_heads`: 71 and `num_shards`: 2
     rank=0
    2023-12-16T09:36:24.632149Z ERROR text_generation_launcher: Shard 0 failed to start
    2023-12-16T09:36:24.632181Z  INFO text_generation_launcher: Shutting down shards
    2023-12-16T09:36:24.652173Z  INFO shard-manager: text_generation_launcher: Shard terminated rank=1
    Error: ShardCannotStart

Those lines are one report, one fact: the launcher's line names the process (``shard 0``), and ``error`` is the
exception line that ends the shard's stderr above it (the last ``<Name>Error: ...`` line before it, up to the stderr's
header; TGI 0.8's ``Shard {} failed to start:\n{}`` carries the stderr in the same record: its text). The follow-on
lines say the same failure again and are read as its (knowledge/fact_polarity.yaml's echo of a reported failure).

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


# text-generation-inference's launcher, its compact log (the target before the message; the JSON form under --json-output
# is read as this line, facts/records.py tracing_record_line):
# 2023-12-16T09:36:24.632149Z ERROR text_generation_launcher: Shard 0 failed to start            (TGI#1354, TGI#866)
# 2023-06-02T14:12:37.201050Z ERROR text_generation_launcher: Shard 0 failed to start: A new version of the following ...
#   (TGI 0.8's "Shard {} failed to start:\n{}", the shard's stderr in the record: TGI#402, read from its JSON record)
# ... ERROR text_generation_launcher: Shard 1 crashed         (CONSTRUCTED from launcher/src/main.rs "Shard {rank} crashed")
# ... ERROR text_generation_launcher: Webserver Crashed       (CONSTRUCTED from launcher/src/main.rs)
_TGI = re.compile(r"\btext_generation_launcher: (?:Shard (?P<rank>\d{1,6}) (?P<how>failed to start|crashed)"
                  r"(?::[ \t]*(?P<msg>[^\n]*?))?|(?P<web>Webserver Crashed))[ \t]*\r?$", re.M)
_TGI_WORDS = ("text_generation_launcher: Shard ", "text_generation_launcher: Webserver Crashed")
# the header of the shard's stderr the launcher logs before (the stderr on the lines after it, " rank=N" after its last):
# 2024-03-06T17:53:31.052367Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:
_STDERR_HEADER = "Shard complete standard error output:"
# the exception that ends a Python traceback in the shard's stderr:
# ValueError: `num_heads` must be divisible by `num_shards` (got `num_heads`: 71 and `num_shards`: 2      (TGI#1354)
# torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; 15.77 GiB total capacity; ...  (TGI#866)
_EXCEPTION = re.compile(r"^[ \t]*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?::[ \t]|[ \t]*$)")
# the launcher's own end (Rust's "Error: {:?}" of main's Err, launcher/src/main.rs LauncherError), which is no
# shard's exception: Error: ShardCannotStart
_LAUNCHER_ERROR = re.compile(r"^Error: (?:ShardCannotStart|ShardFailed|ShardDisconnected|WebserverFailed|WebserverCannotStart"
                             r"|DownloadError)[ \t]*\r?$")
#: lines above the launcher's line its shard's stderr is looked for in
_STDERR_LINES = 200


def _tgi_error(lines: list[str], n: int) -> str | None:
    """The exception line that ends the shard's stderr above line ``n`` (1-based), None where none is shown: the nearest
    such line above it, looked for up to the stderr's header or another line of the launcher."""
    for i in range(n - 2, max(-1, n - 2 - _STDERR_LINES), -1):
        line = lines[i]
        if "text_generation_launcher: " in line:
            if " process was signaled to shutdown " in line:
                continue  # the signal that ended it, logged after its stderr (subprocess_error's)
            return None  # the stderr's header, or another record of the launcher: no exception after it
        if _EXCEPTION.match(line) is not None and _LAUNCHER_ERROR.match(line) is None:
            return line.strip()[:400]
    return None


# DeepSpeed's per-node launcher (deepspeed/launcher/launch.py, every release from 0.3 on): when a worker it started exits
# non-zero it terminates the others and logs from sigkill_handler (print(...) in launcher_helper.py)
#   logger.error(f"{cmd} exits with return code = {last_return_code}")
# its only record that begins with the command's list; ``cmd`` is the loop variable of the spawn loop, the command of the
# last worker started, not of the one that failed. A negative code is a signal (subprocess_error's); the code may be cut
# off with the command, or sit on a line after it where a paste wrapped the list:
# [2024-02-03 11:48:27,267] [ERROR] [launch.py:322:sigkill_handler] ['/usr/bin/python', '-u', 'moellava/train/train_mem.py', '--local_rank=7', ...   (deepspeedai/DeepSpeed#5066, cut in the command)
# [2024-03-01 10:00:00,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=1'] exits with return code = 1   (CONSTRUCTED from the f-string)
_DS_LAUNCHER = re.compile(r"\[launch\.py:\d{1,5}:sigkill_handler\] \[['\"]")
_DS_WORDS = ":sigkill_handler] ["
_DS_CODE = re.compile(r"\bexits with return code = (?P<code>-?\d{1,5})\b")
#: lines of a wrapped command the code is looked for in
_DS_LINES = 6


def _ds_code(lines: list[str], n: int) -> tuple[bool, int | None]:
    """(whether the record at line ``n`` (1-based) is read here, its return code where shown): a negative code is a
    signal, subprocess_error's; the record ends at the next line that begins another record or after _DS_LINES."""
    for i in range(n - 1, min(len(lines), n - 1 + _DS_LINES)):
        if i > n - 1 and (lines[i].startswith("[") or _DS_WORDS in lines[i]):
            break
        if (m := _DS_CODE.search(lines[i])) is not None:
            code = int(m["code"])
            return code >= 0, code
    return True, None


def _count_alone(text: str) -> bool:
    return _PRIMARY_WORDS in text and _SIGNAL_REPORT not in text and _PRIMARY.search(text) is not None


def detect(text: str) -> bool:
    return (_DETECTED_WORDS in text and _DETECTED.search(text) is not None) or _count_alone(text) \
        or (any(w in text for w in _TGI_WORDS) and _TGI.search(text) is not None) \
        or (_DS_WORDS in text and _DS_LAUNCHER.search(text) is not None)


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
    if any(w in artefact.text for w in _TGI_WORDS):
        for n, line in iter_lines_with(_TGI_WORDS, artefact):
            if (m := _TGI.search(line)) is None:
                continue
            result.lines_used += 1
            if m["web"]:
                fb.add(LauncherProcessExited, n, launcher="text-generation-launcher", process_name="webserver",
                       how="crashed")
                continue
            error = (m["msg"] or "").strip()[:400] or _tgi_error(lines, n)
            fb.add(LauncherProcessExited, n, launcher="text-generation-launcher", process_name=f"shard {m['rank']}",
                   rank=int(m["rank"]), how=m["how"], error=error)
    if _DS_WORDS in artefact.text:
        for n, line in iter_lines_with((_DS_WORDS,), artefact):
            if _DS_LAUNCHER.search(line) is None:
                continue
            ours, code = _ds_code(lines, n)
            if not ours:
                continue
            result.lines_used += 1
            fb.add(LauncherProcessExited, n, launcher="DeepSpeed launcher", process_name="a worker", exit_code=code)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECTED_WORDS, r"Primary job {1,2}terminated normally, but \d",
              r"text_generation_launcher: (?:Shard \d+ (?:failed to start|crashed)|Webserver Crashed)",
              r"\[launch\.py:\d{1,5}:sigkill_handler\] \[['\"]")
