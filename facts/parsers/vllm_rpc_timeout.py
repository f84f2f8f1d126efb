"""vLLM's engine core giving up on its GPU workers: an RPC to them was not answered in time.
vLLM prints it among a job's own output (the engine core's traceback under its logger and process
tags, a Ray actor's relay of it, a title that quotes it), so it is looked for anywhere in a file.

The V1 engine core drives its workers through ``MultiprocExecutor.collective_rpc``: it broadcasts
the call on a shared-memory message queue and reads each worker's answer with a deadline
(``VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS``, 300 s by default, for ``execute_model`` and
``sample_tokens``). A read past the deadline raises a bare ``TimeoutError`` in the queue
(vllm/distributed/device_communicators/shm_broadcast.py ``acquire_read``, later its
``timeout_ms``), which the executor re-raises as (vllm/v1/executor/multiproc_executor.py)::

    raise TimeoutError(f"RPC call to {method} timed out.") from e       (the format)

The engine core then dies (``EngineCore encountered a fatal error``, ``EngineDeadError`` in the
API server). Real lines (threads named)::

    [Bug]: RPC call to execute_model timed out.                                           (kvcache-ai/Mooncake#1458, the title)
    [Bug]: QWEN 3.5-397B-A17B report "RPC call to sample_tokens timed out"                 (vllm-project/vllm#37250, the title)
    [Bug]: prefill节点奔溃（TimeoutError: RPC call to sample_tokens timed out），场景：PD分离，...   (vllm-project/vllm-ascend#10828, the title)
    (APIServer pid=716) (EngineCore_DP0 pid=1101) ERROR 01-29 10:27:47 [core.py:710]   File ".../vllm/distributed/device_communicators/shm_broadcast.py", line 460, in acquire_read
    (APIServer pid=716) (EngineCore_DP0 pid=1101) ERROR 01-29 10:27:47 [core.py:710]     raise TimeoutError
    (APIServer pid=716) (EngineCore_DP0 pid=1101) ERROR 01-29 10:27:47 [core.py:710] TimeoutError     (kvcache-ai/Mooncake#1458)
    (EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361]   File ".../vllm/distributed/device_communicators/shm_broadcast.py", line 647, in timeout_ms
    (EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361]     raise TimeoutError
    (EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361] TimeoutError                              (eugr/spark-vllm-docker#348)

With Ray as its executor (``--distributed-executor-backend ray``) the engine reads its workers' output through a
Ray compiled graph's channel, with Ray's own deadline (``RAY_CGRAPH_get_timeout``); past it Ray raises
``RayChannelTimeoutError`` (python/ray/exceptions.py, a TimeoutError), the same wait given up::

    > `ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting for object available to read.`    (pytorch/pytorch#181632: vLLM's tp=2 test under torch 2.12)
    [Bug]: vLLM failure (ray.exceptions.RayChannelTimeoutError) observed since v0.10.2, with tp=8, pp=4             (vllm-project/vllm#27116, the title)

The deadline passing says a worker did not finish its step in that time: it hung (a collective a
peer never joined, a GPU or driver fault, a deadlock) or was slow (compiling kernels for a new
shape, host memory pressure), on this node or a peer. It does not say which; the worker's own log
or an earlier error does.

While the engine waits, its message queue reports each interval it found no block (vllm/distributed/
device_communicators/shm_broadcast.py: ``long_wait_time_msg`` "No available shared memory broadcast block found in
{threshold} seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g.
compilation, weight/kv cache quantization)." logged with logger.info; before it ``"No available shared memory broadcast
block found in %s second."`` and ``"No available block found in %s second. "`` with logger.warning, SGLang's copy of the
queue the latter)::

    (APIServer pid=81599) INFO 04-18 01:08:52 [shm_broadcast.py:681] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation, weight/kv cache quantization).   (vllm-project/vllm-omni#2928)

A wait, not a failure: a long compile or an engine with nothing to do prints it as a hung worker does. It is read as
``vllm_shm_broadcast_wait`` (``seconds``, ``form``, ``pid``), a hint rules/application/vllm_shm_broadcast_wait.yaml
reports at info level, never a fault alone.

Facts: ``vllm_rpc_timeout`` per line: ``form`` rpc (the executor's message: ``method``), queue
(a bare ``TimeoutError`` whose innermost frame, at most three lines up, is in shm_broadcast.py) or ray_channel (Ray's
``RayChannelTimeoutError`` with its message, or its qualified class name),
``pid`` from the engine core's ``(EngineCore_DP0 pid=N)`` tag where the line has one. Empty input, or
no such line: nothing. The code line ``raise TimeoutError(f"RPC call to {method} timed out.")`` a
traceback quotes is no message (``{method}`` is no name).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import VllmRpcTimeout, VllmShmBroadcastWait  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "vllm_rpc_timeout"

# TimeoutError: RPC call to execute_model timed out.      [Bug]: RPC call to execute_model timed out.  (Mooncake#1458)
# ... report "RPC call to sample_tokens timed out"        (vllm-project/vllm#37250)
_RPC = re.compile(r"\bRPC call to (?P<method>[A-Za-z_]\w{0,60}) timed out\b")
# ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting for object available to read.   (pytorch/pytorch#181632)
# [Bug]: vLLM failure (ray.exceptions.RayChannelTimeoutError) observed since v0.10.2, with tp=8, pp=4     (vllm-project/vllm#27116)
_RAY_CHANNEL = re.compile(r"\bRayChannelTimeoutError: (?:System error: )?Timed out waiting for object available to read"
                          r"|\bray\.exceptions\.RayChannelTimeoutError\b")
# TimeoutError            (the queue's bare raise, the line a traceback ends on; normalise() took the tags off)
_BARE = re.compile(r"^[ \t]*TimeoutError[ \t]*\r?$")
#   File "/opt/python/Python-3.11/lib/python3.11/site-packages/vllm/distributed/device_communicators/shm_broadcast.py", line 460, in acquire_read
_QUEUE_FRAME = re.compile(r'^[ \t]*File "[^"\n]{0,300}[/\\]shm_broadcast\.py", line \d+, in \w+')
_FRAME_REACH = 3  # the frame, its code line (and a caret line under it) above the exception
# (EngineCore_DP0 pid=1101) ...    (EngineCore pid=222) ...    (EngineCore_0 pid=268) ...
_PID = re.compile(r"\(EngineCore\w* pid=(?P<pid>\d+)\)")
# (APIServer pid=81599) INFO 04-18 01:08:52 [shm_broadcast.py:681] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging ...   (vllm-project/vllm-omni#2928)
# No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).   (gpustack/gpustack#3888: vLLM 0.11's wording, no prefix)
# (VllmWorkerProcess pid=103446) WARNING 07-28 21:01:32 shm_broadcast.py:394] No available block found in 60 second.    (vllm-project/vllm#6614: vLLM 0.5's wording)
_WAIT = re.compile(r"\bNo available (?P<named>shared memory broadcast )?block found in (?P<secs>\d{1,6}) seconds?\.(?P<hint> This typically happens)?")
# any process tag of vLLM's multiprocess logging: (EngineCore_DP0 pid=1101), (APIServer pid=81599), (VllmWorker rank=0 pid=5)
_ANY_PID = re.compile(r"\((?:EngineCore|APIServer|VllmWorker|Worker)\w*(?: rank=\d+)? pid=(?P<pid>\d+)\)")


def detect(head: str) -> bool:
    return _RPC.search(head) is not None or _RAY_CHANNEL.search(head) is not None or (
        "shm_broadcast.py" in head and "TimeoutError" in head) or (
        "No available " in head and _WAIT.search(head) is not None)


def _pid(artefact: Artefact, n: int) -> int | None:
    p = _PID.search(artefact.raw_line(n))  # the line as written: normalise() took the process tags off
    return int(p["pid"]) if p else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, line in iter_lines_with(("RPC call to", "TimeoutError", "No available "), artefact):
        if "No available " in line and (w := _WAIT.search(line)) is not None:
            result.lines_used += 1
            p = _ANY_PID.search(artefact.raw_line(n))
            fb.add(VllmShmBroadcastWait, n, seconds=int(w["secs"]),
                   form="hint" if w["hint"] else "named" if w["named"] else "old", pid=int(p["pid"]) if p else None)
        elif (m := _RPC.search(line)) is not None:
            result.lines_used += 1
            fb.add(VllmRpcTimeout, n, form="rpc", method=m["method"], pid=_pid(artefact, n))
        elif _RAY_CHANNEL.search(line) is not None:
            result.lines_used += 1
            fb.add(VllmRpcTimeout, n, form="ray_channel", pid=_pid(artefact, n))
        elif _BARE.match(line) and any(_QUEUE_FRAME.match(lines[k]) for k in range(max(0, n - 1 - _FRAME_REACH), n - 1)):
            result.lines_used += 1
            fb.add(VllmRpcTimeout, n, form="queue", pid=_pid(artefact, n))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bRPC call to [A-Za-z_]\w* timed out\b", r"shm_broadcast\.py\", line \d+, in \w+",
              r"\bRayChannelTimeoutError: (?:System error: )?Timed out waiting", r"\bray\.exceptions\.RayChannelTimeoutError\b",
              r"\bNo available (?:shared memory broadcast )?block found in \d+ seconds?\.")
