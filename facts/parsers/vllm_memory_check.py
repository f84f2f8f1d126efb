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

What was in use at that moment (total - free) is the CUDA context's (a few hundred MiB, more with a
newer CUDA or PyTorch: pytorch/pytorch#175666, 2.28 GiB of an L4) and whatever other processes hold
on the GPU (a stale engine core, another server, a training job). The rules weigh the two.

Facts: ``vllm_startup_memory_short`` per line: ``device`` (N of ``cuda:N``, else None), ``free_gib``,
``total_gib``, ``utilization``, ``requested_gib``, ``used_gib``, ``used_fraction``, ``shortfall_gib``,
``pid`` (the process prefix). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import VllmStartupMemoryShort  # noqa: F401 - the fact classes live in facts/kinds
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


def detect(head: str) -> bool:
    return "ree memory on device" in head and "on startup is less than desired GPU memory utilization" in head


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
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"ree memory on device [^\n]*on startup is less than desired GPU memory utilization",)
