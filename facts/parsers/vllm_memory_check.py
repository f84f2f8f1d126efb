"""vLLM refusing to start because the GPU's free memory, measured before it loaded anything, is less
than the share of the GPU it was told to take (``gpu_memory_utilization``). vLLM prints it among a
job's own output (the engine core's or a worker's traceback, a Ray task's re-raise, a title that
quotes it), so it is looked for anywhere in a file.

The V1 worker takes a memory snapshot at start-up and compares its free memory with
``utilization x total`` (vllm/v1/worker/gpu_worker.py ``init_device``, 0.8-0.10: "Free memory on
device ({free}/{total} GiB) on startup is less than desired GPU memory utilization ({util},
{requested} GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.";
later releases name the device, ``cuda:N``, in the same sentence). Real sample lines (the thread named)::

    [2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.    (pytorch/pytorch#175666)
    [release 2.11][vllm] Distributed failures - free memory on device cuda:0 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB)    (the same thread's title)

The worker also profiles a run of the model and takes what the GPU's free memory fell by as the
model's; where free memory did not fall (another process on the GPU released memory meanwhile, or a
unified-memory GPU whose free figure moves with the host) it asserts "Error in memory profiling.
Initial free memory X GiB, current free memory Y GiB. ..." and the engine does not start.

What was in use at that moment (total - free) is the CUDA context's (a few hundred MiB, more with a
newer CUDA or PyTorch: pytorch/pytorch#175666, 2.28 GiB of an L4) and whatever other processes hold
on the GPU (a stale engine core, another server, a training job). The rules weigh the two.

Facts: ``vllm_startup_memory_short`` per line: ``device`` (N of ``cuda:N``, else None), ``free_gib``,
``total_gib``, ``utilization``, ``requested_gib``, ``used_gib``, ``used_fraction``, ``shortfall_gib``,
``pid`` (the process prefix). ``vllm_memory_profile_inconsistent`` per assertion of the start-up memory profile
(its free memory before and after the profiling run did not drop): ``initial_free_gib``, ``current_free_gib``,
``grew_gib``, ``pid``. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import VllmMemoryProfileInconsistent, VllmStartupMemoryShort  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "vllm_memory_check"

# ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB).
# free memory on device cuda:0 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB)   (a title)
# Free memory on device ({free}/{total} GiB) on startup is less than desired GPU memory utilization ({util}, {requested} GiB).   (0.8-0.10's format)
_LINE = re.compile(
    r"\b[Ff]ree memory on device (?:(?P<dev>[\w:]{1,20}) )?\((?P<free>\d{1,6}(?:\.\d{1,4})?)/(?P<total>\d{1,6}(?:\.\d{1,4})?) GiB\)"
    r" on startup is less than desired GPU memory utilization \((?P<util>\d(?:\.\d{1,6})?), (?P<req>\d{1,6}(?:\.\d{1,4})?) GiB\)"
)
# cuda:1   (torch's device string: the process's visible device index)
_INDEX = re.compile(r"(?:cuda|npu|xpu|hpu):(?P<n>\d{1,3})$")
# (EngineCore_DP0 pid=6940) ...   (VllmWorker rank=1 pid=1410768) ...   (Worker pid=150) ...
_PID = re.compile(r"\(\w+(?: rank=\d+)? pid=(?P<pid>\d+)\)")


# AssertionError: Error in memory profiling. Initial free memory 82.94 GiB,
# current free memory 90.17 GiB. This happens when other processes sharing the
# same container release GPU memory while vLLM is profiling during initialization.     (vllm-project/vllm#56830, 2026: the
#   V1 worker's assert, re-wrapped by the reporter; one line as the engine core's log prints it)
# (EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in memory profiling. Initial free memory 30.3 GiB, current free memory 30.3 GiB. This happens when other processes sharing the same container release GPU memory while vLLM is profiling during initialization. ...
#   (vllm-project/vllm#33358, an XPU whose free figure did not move: equal, and the check wants a strict drop)
# AssertionError: Error in memory profiling. Initial free memory 84301545472, current free memory 84301545472. This happens when the GPU memory was not properly cleaned up before initializing the vLLM instance.
#   (CONSTRUCTED from the V0 worker's assert, vllm/worker/worker.py determine_num_available_blocks: the figures in bytes)
_PROFILE = re.compile(
    r"\bError in memory profiling\.\s{1,4}Initial free memory (?P<init>\d{1,15}(?:\.\d{1,4})?)(?P<u1> ?GiB)?,"
    r"\s{1,4}current free memory (?P<cur>\d{1,15}(?:\.\d{1,4})?)(?P<u2> ?GiB)?"
)
_PROFILE_MARKER = "Error in memory profiling."


def detect(head: str) -> bool:
    return ("ree memory on device" in head and "on startup is less than desired GPU memory utilization" in head) \
        or (_PROFILE_MARKER in head and _PROFILE.search(head) is not None)


def _gib(figure: str, unit: str | None) -> float:
    """A figure as vLLM printed it: GiB where it says so, else bytes (the V0 worker's raw counts)."""
    return float(figure) if unit else round(float(figure) / 2 ** 30, 2)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        free, total, util, req = float(m["free"]), float(m["total"]), float(m["util"]), float(m["req"])
        if total <= 0:
            continue
        index = _INDEX.search(m["dev"] or "")
        p = _PID.search(artefact.raw_line(n))  # the line as written: normalise() took the process prefix off
        used = max(total - free, 0.0)
        result.lines_used += 1
        fb.add(VllmStartupMemoryShort, n, device=int(index["n"]) if index else None, free_gib=free, total_gib=total,
               utilization=util, requested_gib=req, used_gib=round(used, 2), used_fraction=round(used / total, 3),
               shortfall_gib=round(max(req - free, 0.0), 2), pid=int(p["pid"]) if p else None)
    if _PROFILE_MARKER in artefact.text:
        for n, m in iter_matches(_PROFILE, artefact):
            init, cur = _gib(m["init"], m["u1"]), _gib(m["cur"], m["u2"])
            p = _PID.search(artefact.raw_line(n))
            result.lines_used += 1
            fb.add(VllmMemoryProfileInconsistent, n, initial_free_gib=init, current_free_gib=cur,
                   grew_gib=round(max(cur - init, 0.0), 2), pid=int(p["pid"]) if p else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"ree memory on device [^\n]*on startup is less than desired GPU memory utilization",
              r"Error in memory profiling\. Initial free memory \d")
