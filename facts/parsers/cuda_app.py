"""An application's own CUDA error output (PyTorch, CuPy, CUDA C++ programs).

Made by the application's stderr: ``python train.py 2>&1 | tee app.log``. Such lines sit in
Python tracebacks, torchrun logs and pasted terminal sessions, so they are looked for
anywhere in a file.

Sample content (the real capture ``kernel/app-illegal-address.txt`` of an H200 whose kernel
wrote through a wild pointer, seen by the driver as Xid 31; PyTorch lines from public issues)::

    caught: cudaErrorIllegalAddress: an illegal memory access was encountered
    cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered
    RuntimeError: CUDA error: an illegal memory access was encountered
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is free. ...

Facts: ``cuda_error`` (one per distinct error on a node and rank: an exception printed again
by ``Exception ignored in ...`` is one error) with ``error_name`` as printed, else the
runtime name its message stands for, and ``runtime_name`` (``cudaError*``) for both the runtime
and the driver (``CUDA_ERROR_*``) spelling; ``cuda_oom`` for PyTorch's out-of-memory message.
Empty input, or output without CUDA errors, yields no facts.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.torch_log_lines import marked_lines

KIND = "cuda_app"


@fact_kind
class CudaError(Fact):
    kind: Literal["cuda_error"] = "cuda_error"
    error_name: str | None = None
    runtime_name: str | None = None  # cudaError* whatever the spelling printed
    message: str
    device: int | None = None
    pid: int | None = None
    rank: int | None = None  # from a torchrun "[rankN]:" prefix


@fact_kind
class CudaOom(Fact):
    kind: Literal["cuda_oom"] = "cuda_oom"
    device: int | None = None
    tried_bytes: int | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None
    rank: int | None = None


# caught: cudaErrorIllegalAddress: an illegal memory access was encountered
# cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered
NAMED_ERROR = re.compile(r"\b(?P<name>cudaError[A-Z]\w*|CUDA_ERROR_[A-Z_]+): (?P<msg>[^\n]+)")

# RuntimeError: CUDA error: an illegal memory access was encountered
#   what():  CUDA error: an illegal memory access was encountered
TORCH_ERROR = re.compile(r"\bCUDA error: (?P<msg>[^\n]+)")

# torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is free. Including ...
# torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty of 6.00 GiB of which 0 bytes is free. Of ...
# RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; 8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)
OOM = re.compile(r"CUDA out of memory\.(?P<rest>[^\n]*)")
_SIZE = r"(?P<{}>\S+) (?P<{}_unit>bytes|B|KiB|MiB|GiB|TiB)"
OOM_TRIED = re.compile(r"Tried to allocate " + _SIZE.format("tried", "tried"))
OOM_DEVICE = re.compile(r"\(?GPU (?P<dev>\d+)[;)]? ")
# GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is free
OOM_NEW = re.compile(r"total capac\w* of " + _SIZE.format("total", "total") + " of which " + _SIZE.format("free", "free") + " is free")
# (GPU 0; 10.92 GiB total capacity; 8.57 MiB already allocated; 9.28 GiB free; ...
OOM_OLD = re.compile(_SIZE.format("total", "total") + r" total capacity;.*?; " + _SIZE.format("free", "free") + " free")

# Literals that put a line in front of the patterns above (str.find beats a regex alternation)
MARKERS = ("cudaError", "CUDA_ERROR_", "CUDA error: ", "CUDA out of memory.")

# [rank3]:[E416 ...] ... / (WorkerDict pid=63294) [rank3]: ...
GLOBAL_RANK = re.compile(r"\[rank(?P<rank>\d+)\]:")
PID = re.compile(r"\bpid[=: ]\s*(?P<pid>\d+)")
# CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
BOILERPLATE = re.compile(
    r"^\s*(?:CUDA kernel errors might be asynchronously reported|For debugging consider passing CUDA_LAUNCH_BLOCKING=1"
    r"|Compile with `?TORCH_USE_CUDA_DSA`? to enable device-side assertions)"
)
BOILERPLATE_MARKERS = ("CUDA kernel errors might", "CUDA_LAUNCH_BLOCKING=1", "TORCH_USE_CUDA_DSA")

DETECT = re.compile(r"cudaError[A-Z]\w*: |CUDA_ERROR_[A-Z_]+: |CUDA error: |CUDA out of memory\. ")

# cudaGetErrorString()/cuGetErrorString() texts of the CUDA runtime and driver API
RUNTIME_NAMES = {
    "out of memory": "cudaErrorMemoryAllocation",
    "initialization error": "cudaErrorInitializationError",
    "an illegal memory access was encountered": "cudaErrorIllegalAddress",
    "unspecified launch failure": "cudaErrorLaunchFailure",
    "device-side assert triggered": "cudaErrorAssert",
    "misaligned address": "cudaErrorMisalignedAddress",
    "an illegal instruction was encountered": "cudaErrorIllegalInstruction",
    "the launch timed out and was terminated": "cudaErrorLaunchTimeout",
    "too many resources requested for launch": "cudaErrorLaunchOutOfResources",
    "uncorrectable ECC error encountered": "cudaErrorECCUncorrectable",
    "uncorrectable NVLink error detected during the execution": "cudaErrorNvlinkUncorrectable",
    "no CUDA-capable device is detected": "cudaErrorNoDevice",
    "no kernel image is available for execution on the device": "cudaErrorNoKernelImageForDevice",
    "unknown error": "cudaErrorUnknown",
}


def detect(head: str) -> bool:
    if not ("cudaError" in head or "CUDA_ERROR_" in head or "CUDA error: " in head or "CUDA out of memory. " in head):
        return False  # cheap gate: one literal per branch of DETECT
    return DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    used: set[int] = set()
    seen: set[tuple] = set()
    for no, line, _start, _end in marked_lines(artefact, MARKERS):
        # a named error first: "CUDA error: ..." inside it is the same error
        m = NAMED_ERROR.search(line) or TORCH_ERROR.search(line)
        oom = OOM.search(line)
        if m is None and oom is None:
            continue
        used.add(no)
        g = GLOBAL_RANK.search(line)
        rank = int(g["rank"]) if g else None
        p = PID.search(line)
        pid = int(p["pid"]) if p else None
        if oom is not None and (m is None or oom.start() < m.start()):
            _oom(b, no, line, oom["rest"], rank, pid, seen)
            continue
        msg = m["msg"].strip()
        name = m["name"] if "name" in m.groupdict() else None
        runtime = RUNTIME_NAMES.get(msg)
        if name is not None and name.startswith("cudaError"):
            runtime = name
        key = (name or runtime, msg, rank, pid)
        if key in seen:
            continue
        seen.add(key)
        b.add(CudaError, no, text=line, error_name=name or runtime, runtime_name=runtime, message=msg,
              device=None, pid=pid, rank=rank)
    used.update(no for no, line, _s, _e in marked_lines(artefact, BOILERPLATE_MARKERS) if BOILERPLATE.match(line))
    result.lines_used = len(used)
    return result


def _oom(b: FactBuilder, no: int, line: str, rest: str, rank: int | None, pid: int | None, seen: set) -> None:
    try:
        t = OOM_TRIED.search(rest)
        tried = _bytes(t["tried"], t["tried_unit"]) if t else None
        d = OOM_DEVICE.search(rest)
        device = int(d["dev"]) if d else None
        cap = OOM_NEW.search(rest) or OOM_OLD.search(rest)
        total = _bytes(cap["total"], cap["total_unit"]) if cap else None
        free = _bytes(cap["free"], cap["free_unit"]) if cap else None
    except ValueError as e:
        b.error(no, f"CUDA out-of-memory line with an unreadable size: {e}")
        return
    key = ("oom", device, tried, rank, pid)
    if key in seen:
        return
    seen.add(key)
    b.add(CudaError, no, text=line, error_name="cuda_out_of_memory", runtime_name="cudaErrorMemoryAllocation",
          message=("CUDA out of memory." + rest).strip(), device=device, pid=pid, rank=rank)
    b.add(CudaOom, no, text=line, device=device, tried_bytes=tried, total_bytes=total, free_bytes=free, rank=rank)


_UNIT = {"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def _bytes(value: str, unit: str) -> int:
    return round(float(value) * _UNIT[unit])
