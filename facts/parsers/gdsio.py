"""gdsio: GPUDirect Storage's benchmark (``/usr/local/cuda/gds/tools/gdsio``), one result line per run.

gdsio ships as a binary with the GDS tools (no public source); its line is printed as NVIDIA's GDS documentation shows
it (Getting Started with GPUDirect Storage, "Demonstrating GDS with GDSIO"; GDS Support for NVMe, "Test GDS"), the
transfer type named as gdsio -h lists ``-x``: 0 GPUD (storage -> GPU), 1 CPUONLY, 2 CPU_GPU (a host bounce buffer),
3 CPU_ASYNC_GPU, 4 CPU_CACHED_GPU, 5 GPUD_ASYNC, 6 GPU_BATCH, 7 GPU_BATCH_STREAM. Sample content (real lines:
NVIDIA/gds-nvidia-fs#78; the "Test GDS" page's CPUONLY run; a public script's comment for -x 6 with its IoDepth)::

    IoType: WRITE XferType: GPUD Threads: 1 DataSetSize: 1024/1024(KiB) IOSize: 4(KiB) Throughput: 0.013104 GiB/sec, Avg_Latency: 264.007812 usecs ops: 256 total_time 0.074524 secs
    IoType: READ XferType: CPUONLY Threads: 4 DataSetSize: 4069376/4194304(KiB) IOSize: 1024(KiB) Throughput: 2.698050 GiB/sec, Avg_Latency: 1443.841342 usecs ops: 3974 total_time 1.438394 secs
    IoType: WRITE XferType: GPU_BATCH Threads: 1 IoDepth: 8 DataSetSize: 524206080/8388608(KiB) IOSize: 16384(KiB) Throughput: 1.664916 GiB/sec, Avg_Latency: 9383.000000 usecs ops: 31995 total_time 300.268538 secs

and the result's tail alone, as people quote it (NVIDIA/gds-nvidia-fs#30, each in backticks under its command)::

    `Throughput: 2.308903 GiB/sec, Avg_Latency: 81215.056568 usecs`

Fact: one ``gdsio_run`` per result line: the I/O type and transfer type, the path that type moves data through
(``gpu_direct`` for GPUD, GPUD_ASYNC and the GPU_BATCH types; ``cpu_bounce`` for the CPU_*GPU types; ``cpu_only``), the
threads, the I/O size, the throughput (GiB/s) and average latency (usec) measured, the ops and seconds. A line is a run
that completed: the path gdsio was asked for, not proof that cuFile did not fall back to its compatibility mode (its
log says that). gdsio's failures (``file register error:``) are facts/parsers/cufile_app.py's. Text without these lines
is not this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import GdsioRun  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gdsio"

_NUM = r"\d{1,12}(?:\.\d{1,9})?"
# IoType: WRITE XferType: GPUD Threads: 1 DataSetSize: 1024/1024(KiB) IOSize: 4(KiB) Throughput: 0.013104 GiB/sec, ...
_HEAD = re.compile(r"^[ \t]*IoType: (?P<io>[A-Z][A-Z_-]{0,15}) XferType: (?P<xfer>[A-Z][A-Z_]{0,23}) Threads: (?P<threads>\d{1,6})\b")
# ... IOSize: 1024(KiB) ...
_IOSIZE = re.compile(r" IOSize: (?P<kib>\d{1,12})\(KiB\)")
# Throughput: 0.013104 GiB/sec, Avg_Latency: 264.007812 usecs ops: 256 total_time 0.074524 secs     (the tail alone too)
_RESULT = re.compile(r"(?:^[ \t]*`?| )Throughput: (?P<tput>" + _NUM + r") GiB/sec, Avg_Latency: (?P<lat>" + _NUM
                     + r") usecs(?: ops: (?P<ops>\d{1,15}) total_time (?P<secs>" + _NUM + r") secs)?")
_DIRECT = ("GPUD", "GPUD_ASYNC", "GPU_DIRECT", "GPU_DIRECT_ASYNC", "GPU_BATCH", "GPU_BATCH_STREAM")


def _path(xfer: str | None) -> str | None:
    if xfer is None:
        return None
    if xfer in _DIRECT:
        return "gpu_direct"
    if xfer in ("CPUONLY", "CPU_ONLY"):
        return "cpu_only"
    return "cpu_bounce" if xfer.startswith("CPU") and xfer.endswith("GPU") else None


def _is_result(line: str) -> bool:
    return _HEAD.match(line) is not None or line.lstrip(" \t`").startswith("Throughput: ")


def detect(head: str) -> bool:
    return " GiB/sec, Avg_Latency: " in head and any(_RESULT.search(line) and _is_result(line) for line in head.splitlines()
                                                      if " GiB/sec, Avg_Latency: " in line)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if " GiB/sec, Avg_Latency: " not in line or (r := _RESULT.search(line)) is None:
            continue
        if not _is_result(line):
            continue  # the figures inside another program's line or a sentence: not gdsio's result
        h = _HEAD.match(line)
        size = _IOSIZE.search(line) if h is not None else None
        b.add(GdsioRun, n, io_type=h["io"] if h else None, xfer_type=h["xfer"] if h else None,
              path=_path(h["xfer"] if h else None), threads=int(h["threads"]) if h else None,
              io_size_kib=int(size["kib"]) if size else None, throughput_gib_s=float(r["tput"]),
              avg_latency_us=float(r["lat"]), ops=int(r["ops"]) if r["ops"] else None,
              seconds=float(r["secs"]) if r["secs"] else None)
        result.lines_used += 1
    return result


#: the line signatures this reader owns
SIGNATURES = (r"(?m)^[ \t`]*(?:IoType: [A-Z][^\n]* )?Throughput: \d+(?:\.\d+)? GiB/sec, Avg_Latency: ",)
