"""vLLM saying that one of its own processes died or did not start: a GPU worker or the engine core.

vLLM runs its model in worker processes (one per GPU) under an engine-core process, under the API
server or the ``LLM`` object. When one of them ends, the process above it logs a line that names
the dead one and points back at its own error ("See stack trace above for root cause"), then shuts
the engine down: every request in flight fails. The forms, from vLLM's source, every release:

- V0's multiprocessing executor (vllm/executor/multiproc_worker_utils.py, 0.5-0.10:
  ``logger.error("Worker %s pid %s died, exit code: %s", process.name, process.pid, process.exitcode)``)::

      ERROR 07-04 23:23:23 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 3283517 died, exit code: -15.   (the format filled in, CONSTRUCTED)

- V1's executor, 0.7-0.8.4, on the SIGUSR1 a failing worker sent (vllm/v1/executor/multiproc_executor.py
  ``"MulitprocExecutor got fatal signal from worker processes, shutting down. See stack trace above for root cause
  issue."``, its typo kept; the engine-core client's own handler, vllm/v1/engine/core_client.py, ``"Got fatal signal
  from worker processes, shutting down. See stack trace above for root cause issue."``)::

      CRITICAL 03-15 17:24:18 [multiproc_executor.py:48] MulitprocExecutor got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.   (vllm-project/vllm#14452)

- V1's executor since 0.8.5, its worker monitor (multiproc_executor.py ``"Worker proc %s died unexpectedly, shutting
  down executor."``; Ray's V2 executor, ray_executor_v2.py, ``"RayWorkerProc rank=%s died unexpectedly, shutting down
  executor."``; a later form with the exit code, ``"... died unexpectedly (exit code: None), shutting down executor."``,
  seen in vllm-project/vllm-ascend#7742's log)::

      eap-llm-server-on-arc  | ERROR 11-08 11:01:29 [multiproc_executor.py:135] Worker proc VllmWorker-3 died unexpectedly, shutting down executor.   (intel/llm-scaler#154)

- a worker that failed while starting (multiproc_executor.py: its ``worker_main``'s ``logger.exception("WorkerProc
  failed to start.")``, and ``wait_for_ready``'s ``Exception("WorkerProc initialization failed due to an exception
  in a background process. See stack trace for root cause.")`` in the engine core)::

      (EngineCore_DP0 pid=33630) ERROR 11-18 14:16:34 [core.py:708] Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.   (vllm-project/vllm#28910)

- the engine core (vllm/v1/engine/core.py ``run_engine_core``: ``logger.exception("EngineCore failed to start.")``
  before it ran, ``logger.exception("EngineCore encountered a fatal error.")`` after; core_client.py's monitor
  ``"Engine core proc %s died unexpectedly, shutting down client."``; utils.py ``wait_for_engine_startup``'s
  ``RuntimeError("Engine core initialization failed. See root cause above. Failed core proc(s): {...}")``; the
  API server's ``EngineDeadError`` whose message is ``"EngineCore encountered an issue. See stack trace (above) for
  the root cause."``, vllm/v1/engine/exceptions.py).

Each says a process is gone, not why: that process's own traceback above the line (a CUDA or NCCL error, an
out-of-memory, a bad configuration), or the kernel log (the OOM killer for exit code -9, a segfault for -11), says
why. A symptom, read so the run is not left unexplained and its own cause outranks it.

Sample content: the real lines quoted under each form above (the threads named).

Facts: ``vllm_process_failed`` per message, process and pid: ``process`` (worker, engine core), ``event`` (died,
failed to start), ``form``, ``name``, ``pid``, ``exit_code`` and its ``signal`` (a negative exit code is
multiprocessing's "killed by signal N"). Empty input, or no such line: nothing. A line that quotes the format
(``"Worker proc %s died ..."`` in source) is no message.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import VllmProcessFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "vllm_process_death"

# ERROR 07-04 23:23:23 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 3283517 died, exit code: -15.   (the format filled in, CONSTRUCTED)
_V0 = re.compile(r"\bWorker (?P<name>[\w.:-]{1,80}) pid (?P<pid>\d{1,9}) died, exit code: (?P<code>-?\d{1,4})\b")
# Worker proc VllmWorker-3 died unexpectedly, shutting down executor.                 (intel/llm-scaler#154)
# Worker proc VllmWorker-14 died unexpectedly (exit code: None), shutting down executor. (vllm-project/vllm-ascend#7742)
# RayWorkerProc rank=[3] died unexpectedly, shutting down executor.                    (ray_executor_v2.py's format, filled in)
_V1 = re.compile(r"\b(?:Worker proc (?P<name>[\w.:-]{1,80})|RayWorkerProc rank=(?P<rank>\[[\d, ]{1,80}\]|\d{1,6}))"
                 r" died unexpectedly(?: \(exit code: (?P<code>-?\d{1,4}|None)\))?, shutting down executor\b")
# CRITICAL 03-15 17:24:18 [multiproc_executor.py:48] MulitprocExecutor got fatal signal from worker processes, shutting down. ...   (vllm-project/vllm#14452)
# CRITICAL 04-17 23:05:06 [core_client.py:361] Got fatal signal from worker processes, shutting down. ...   (huggingface/trl#3310)
_SIGNAL = re.compile(r"\b(?:Mul\w{0,4}procExecutor got|Got) fatal signal from worker processes, shutting down\b")
# Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.   (vllm-project/vllm#28910)
_INIT = re.compile(r"\bWorkerProc initialization failed due to an exception in a background process\b")
# ERROR 06-10 03:43:33 [multiproc_executor.py:487] WorkerProc failed to start.         (multiproc_executor.py worker_main)
_WSTART = re.compile(r"\bWorkerProc failed to start\b")
# ERROR 12-01 23:08:02 [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.
_CORE_DIED = re.compile(r"\bEngine core proc (?P<name>[\w.:-]{1,80}) died unexpectedly, shutting down client\b")
# (EngineCore pid=12534) ERROR 06-13 18:37:33 [core.py:1202] EngineCore failed to start.
# RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_0': 1}
_CORE_START = re.compile(r"\bEngineCore failed to start\b|\bEngine core initialization failed\. See root cause above\b")
# ERROR 11-08 11:01:30 [core.py:502] EngineCore encountered a fatal error.
_CORE_FATAL = re.compile(r"\bEngineCore encountered a fatal error\b")
# vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
_DEAD = re.compile(r"\bEngineCore encountered an issue\. See stack trace\b")
# (VllmWorker rank=2 pid=825) ...   (EngineCore_DP0 pid=33630) ...   (RayWorkerWrapper pid=92234, ip=...) ...
_TAG_PID = re.compile(r"\((?:EngineCore|VllmWorker|Worker|RayWorker)\w*(?: rank=\d+)? pid=(?P<pid>\d+)[,)]")
# a format string in source or a traceback's code line: "%s" where the name would be
_FORMAT = re.compile(r"%s|\{[A-Za-z_][\w.]*\}")

# multiprocessing's exitcode -N: the process was killed by signal N (Linux numbers)
_SIGNALS = {1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
            10: "SIGUSR1", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}
_LITERALS = ("died", "fatal signal from worker", "WorkerProc ", "EngineCore ", "Engine core ")


def detect(head: str) -> bool:
    return any(r.search(head) is not None for r in (_V1, _V0, _SIGNAL, _INIT, _WSTART, _CORE_DIED, _CORE_START,
                                                    _CORE_FATAL, _DEAD))


def _match(line: str) -> tuple[str, str, str, re.Match] | None:
    """(form, process, event, match) of the message on ``line``; None for none."""
    for form, process, event, rx in (("worker_died", "worker", "died", _V1), ("worker_died_v0", "worker", "died", _V0),
                                     ("fatal_signal", "worker", "died", _SIGNAL),
                                     ("worker_init_failed", "worker", "failed to start", _INIT),
                                     ("worker_start_failed", "worker", "failed to start", _WSTART),
                                     ("engine_core_died", "engine core", "died", _CORE_DIED),
                                     ("engine_core_start_failed", "engine core", "failed to start", _CORE_START),
                                     ("engine_core_fatal", "engine core", "died", _CORE_FATAL),
                                     ("engine_dead", "engine core", "died", _DEAD)):
        if (m := rx.search(line)) is not None:
            return form, process, event, m
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple] = set()
    for n, line in iter_lines_with(_LITERALS, artefact):
        got = _match(line)
        if got is None or _FORMAT.search(line):
            continue
        form, process, event, m = got
        groups = m.groupdict()
        name = groups.get("name") or (f"RayWorkerProc rank={groups['rank']}" if groups.get("rank") else None)
        code = groups.get("code")
        exit_code = int(code) if code not in (None, "None") else None
        pid = int(groups["pid"]) if groups.get("pid") else None
        if pid is None and (t := _TAG_PID.search(artefact.raw_line(n))) is not None:
            pid = int(t["pid"])
        result.lines_used += 1
        key = (form, name, pid, exit_code)
        if key in seen:  # the API server's EngineDeadError for every request, a worker's line per rank tag
            continue
        seen.add(key)
        fb.add(VllmProcessFailed, n, process=process, event=event, form=form, name=name, pid=pid, exit_code=exit_code,
               signal=_SIGNALS.get(-exit_code) if exit_code is not None and exit_code < 0 else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bWorker [\w.:-]+ pid \d+ died, exit code: -?\d", r"\bdied unexpectedly(?: \(exit code: [-\w]+\))?, shutting down (?:executor|client)\b",
              r"\bfatal signal from worker processes, shutting down\b",
              r"\bWorkerProc (?:initialization failed due to an exception|failed to start)\b",
              r"\bEngineCore (?:failed to start|encountered a fatal error|encountered an issue\. See stack trace)\b",
              r"\bEngine core initialization failed\. See root cause above\b")
