"""PyTorch's CUDA out-of-memory message, every form from 1.0 to 2.11 (read by :mod:`cuda_app`).

Not a parser: :func:`read` turns one message line into the fields of a ``cuda_oom`` fact.
The message is built by c10/cuda/CUDACachingAllocator.cpp; its wording changed twice:

1.0-1.4 (``cached``: ``format_size(stats.amount_cached - stats.amount_allocated)`` in
THCCachingAllocator.cpp, what the allocator holds beyond what is allocated),
neurosim/DNN_NeuroSim_V1.3#28::

    RuntimeError: CUDA out of memory. Tried to allocate 1.12 MiB (GPU 0; 22.37 GiB total capacity; 15.87 GiB already allocated; 3.56 MiB free; 787.74 MiB cached)

1.5-2.0 (``reserved in total by PyTorch``), junyanz/pytorch-CycleGAN-and-pix2pix#962::

    RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 2.42 GiB already allocated; 26.12 MiB free; 2.75 GiB reserved in total by PyTorch)

2.1 and later (NVML's per-process list; 2.1 spelled "capacty"), PyTorch 2.x issues::

    torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 496.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 235.06 MiB is free. Process 20398 has 14.52 GiB memory in use. Of the allocated memory 14.06 GiB is allocated by PyTorch, and 330.42 MiB is reserved by PyTorch but unallocated.   (FoundationVision/GenerateU#10)
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 has a total capacity of 31.47 GiB of which 12.73 GiB is free. Including non-PyTorch memory, this process has 18.73 GiB memory in use. Of the allocated memory 9.08 GiB is allocated by PyTorch, and 9.35 GiB is reserved by PyTorch but unallocated.   (murong-xu/CADS#4)

"Process N has X memory in use" names the OTHER processes on the GPU (the current one is
"this process"), so their sum is memory the job could never have had. Except in a container:
reportProcessMemoryInfo writes "this process" only where ``getpid()`` equals the pid NVML gives
(``if (self_pid == proc.pid)``), and NVML gives the host's pid, so in another PID namespace
(Docker, Kubernetes) the process itself is printed as "Process <host pid>". Where no "this
process" entry is printed, one "Process N" entry is the process itself (it holds memory on the
GPU, so NVML lists it): the one whose use is at least what PyTorch reserved, the closest above
it (its CUDA context and non-PyTorch memory on top), huggingface/text-generation-inference#1374
in Docker Compose::

    ... Server error: CUDA out of memory. Tried to allocate 222.00 MiB. GPU 0 has a total capacty of 39.39 GiB of which 217.94 MiB is free. Process 862944 has 39.17 GiB memory in use. Of the allocated memory 37.10 GiB is allocated by PyTorch, and 1.57 GiB is reserved by PyTorch but unallocated.

(37.10 + 1.57 GiB reserved, 39.17 GiB in use: the process itself, nobody else on the GPU).

A pasted message may begin at "Tried to allocate", the exception's name and "CUDA out of memory." left out
(a reporter copying the numbers; LISTatSNU/FastMRI_challenge#238, a comment on a shared node where another
process held the GPU)::

    Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total capacity; 69.17 MiB already allocated; 24.56 MiB free; 86.00 MiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF

:data:`TAIL` takes that rest of the message only where the allocator's device clause follows the size
("(GPU 0; " of 1.0-2.0, ". GPU 0 has a total capacity of" of 2.1 and later), and only where no other
backend's start stands before it: torch_musa's allocator prints the same rest after "MUSA out of memory.", Intel's
DPCPP one after "DPCPP out of memory." (their own devices, not CUDA's).
"""
from __future__ import annotations

import re
from typing import Any

MARKER = "CUDA out of memory."
XLA_MARKER = "RESOURCE_EXHAUSTED: "

# XLA's GPU client (JAX, TensorFlow's XLA), after absl's status prefix "RESOURCE_EXHAUSTED: ":
# jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.   (jax-ml/jax#13428)
# jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) on device ordinal 0   (ecmwf-lab/ai-models-graphcast#18)
XLA_OOM = re.compile(r"RESOURCE_EXHAUSTED: (?:Out of memory while trying to allocate (?P<bytes>\d{1,20}) bytes"
                     r"|Failed to allocate request for [^\s()]{1,40} \((?P<bytes2>\d{1,20})B\) on device ordinal (?P<dev>\d+))")

# a size starts a token and is short (linear on a long line: the local fuzz run, seed 6)
_SIZE = r"(?<![^\s;()])(?P<{0}>[^\s;()]{{1,40}}) (?P<{0}_unit>bytes|B|KiB|MiB|GiB|TiB)"

# CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; ...
OOM = re.compile(r"CUDA out of memory\.(?P<rest>[^\n]*)")
#: the message from "Tried to allocate" on, its start not pasted (docstring)
TAIL_MARKER = "Tried to allocate "
# Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total capacity; ... reserved in total by PyTorch)   (1.0-2.0)
# Tried to allocate 496.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 235.06 MiB is free. ...   (2.1 and later)
TAIL = re.compile(r"(?P<rest>\bTried to allocate " + _SIZE.format("t") + r"(?: \(GPU \d+; |\. GPU \d+ has a total capac)[^\n]*)")
TRIED = re.compile(r"Tried to allocate " + _SIZE.format("v"))
# (GPU 0; ...   /   . GPU 0 has a total capacity of
DEVICE = re.compile(r"\(GPU (?P<dev>\d+);|\bGPU (?P<dev2>\d+) has a total capac")
# GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is free
NEW_CAPACITY = re.compile(r"total capac\w* of " + _SIZE.format("total") + " of which " + _SIZE.format("free") + " is free")
# 10.76 GiB total capacity; 2.42 GiB already allocated; 26.12 MiB free; 2.75 GiB reserved in total by PyTorch
OLD_TOTAL = re.compile(_SIZE.format("v") + r" total capacity")
OLD_ALLOCATED = re.compile(_SIZE.format("v") + r" already allocated")
OLD_FREE = re.compile(r"; " + _SIZE.format("v") + r" free")
OLD_RESERVED = re.compile(_SIZE.format("v") + r" reserved in total by PyTorch")
# 15.87 GiB already allocated; 3.56 MiB free; 787.74 MiB cached   (1.0-1.4: held by the allocator, not in use)
OLD_CACHED = re.compile(_SIZE.format("v") + r" cached")
# Process 1234 has 70.00 GiB memory in use.
OTHER_PROCESS = re.compile(r"\bProcess (?P<pid>\d+) has " + _SIZE.format("v") + r" memory in use")
# Including non-PyTorch memory, this process has 23.62 GiB memory in use.
THIS_PROCESS = re.compile(r"this process has " + _SIZE.format("v") + r" memory in use")
# Of the allocated memory 22.91 GiB is allocated by PyTorch, [and 1.00 GiB is allocated by private pools (e.g., CUDA Graphs), ]and 259.94 MiB is reserved by PyTorch but unallocated.
NEW_ALLOCATED = re.compile(r"Of the allocated memory " + _SIZE.format("v") + r" is allocated by PyTorch")
NEW_UNALLOCATED = re.compile(_SIZE.format("v") + r" is reserved by PyTorch but unallocated")

_UNIT = {"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def _bytes(m: re.Match[str] | None, group: str = "v") -> int | None:
    if m is None:
        return None
    return round(float(m[group]) * _UNIT[m[group + "_unit"]])


def read(line: str) -> dict[str, Any] | None:
    """The ``cuda_oom`` fields of the message on ``line`` ({"error": ...} when a size is
    unreadable); None when the line holds no out-of-memory message."""
    m = OOM.search(line)
    if m is None and (TAIL_MARKER not in line or (m := TAIL.search(line)) is None
                      or "out of memory" in line[:m.start()].lower()):
        return None  # (another backend's "MUSA out of memory. Tried to allocate ... (GPU 0; ": not CUDA's cut message)
    rest = m["rest"]
    try:
        d = DEVICE.search(rest)
        cap = NEW_CAPACITY.search(rest)
        total = _bytes(cap, "total") if cap else _bytes(OLD_TOTAL.search(rest))
        free = _bytes(cap, "free") if cap else _bytes(OLD_FREE.search(rest))
        allocated = _bytes(NEW_ALLOCATED.search(rest)) if cap else _bytes(OLD_ALLOCATED.search(rest))
        if cap:
            unalloc = _bytes(NEW_UNALLOCATED.search(rest))
            reserved = allocated + unalloc if allocated is not None and unalloc is not None else None
        elif (c := OLD_CACHED.search(rest)) is not None:
            # 1.0-1.4: "cached" is amount_cached - amount_allocated (THCCachingAllocator.cpp), so reserved = both
            reserved = allocated + _bytes(c) if allocated is not None else None
        else:
            reserved = _bytes(OLD_RESERVED.search(rest))
        listed = [(o["pid"], _bytes(o) or 0) for o in OTHER_PROCESS.finditer(rest)]
        others = [b for _, b in listed]
        this = _bytes(THIS_PROCESS.search(rest))
        tried = _bytes(TRIED.search(rest))
    except (ValueError, OverflowError) as e:  # "nan MiB", "inf MiB" (OverflowError: not a ValueError)
        return {"error": f"CUDA out-of-memory line with an unreadable size: {e}"}
    if this is None and others and reserved is not None and (mine := [b for b in others if b >= reserved]):
        # no "this process": the process is one of the entries, seen from another PID namespace (docstring)
        this = min(mine)
        others.remove(this)
        listed.remove(next(e for e in listed if e[1] == this))
    other_bytes = sum(others) if others else None
    mine = this if this is not None else reserved
    elsewhere = None
    if total is not None and free is not None and mine is not None:
        elsewhere = max(0, total - free - mine)
    if other_bytes is not None:
        elsewhere = max(elsewhere or 0, other_bytes)
    return dict(device=int(d["dev"] or d["dev2"]) if d else None, tried_bytes=tried, total_bytes=total,
                free_bytes=free, allocated_bytes=allocated, reserved_bytes=reserved, process_bytes=this,
                other_process_bytes=other_bytes, other_processes=len(others),
                other_pids=", ".join(pid for pid, _ in listed) or None, elsewhere_bytes=elsewhere,
                elsewhere_fraction=round(elsewhere / total, 3) if elsewhere is not None and total else None)


def read_xla(line: str) -> dict[str, Any] | None:
    """The ``cuda_oom`` fields of XLA's out-of-memory status on ``line`` (what was asked and, when
    printed, the device ordinal); None when the line holds none."""
    m = XLA_OOM.search(line)
    if m is None:
        return None
    return dict(device=int(m["dev"]) if m["dev"] else None, tried_bytes=int(m["bytes"] or m["bytes2"]))
