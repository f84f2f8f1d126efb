"""``gpustat`` (wookayin/gpustat: NVML's readings of each GPU, one line a GPU) as people paste it.

Sample content (real, wookayin/gpustat#130: gpustat of 2022 on four P100s; the header is the host, the
query time and the driver version)::

    gpu-a-11.extreme         Mon Aug 22 15:23:57 2022  515.65.01
    [0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |
    [3] Tesla P100-PCIE-16GB | 27'C,   2 % |   103 / 16384 MB |

The line as gpustat/core.py ``GPUStat.print_to`` writes it (gpustat 1.1): ``[{index}] {name} |``,
``{temperature:>3}°C, `` (``'C`` in the releases before commit 6d2b1d0, "Print degrees with correct
symbol", and in #130's), with ``--show-fan`` ``{fan:>3} %, ``, ``{utilization:>3} %``, with
``--show-codec`` `` (E: .. %  D: .. %)``, with ``--show-power`` ``,  {draw:>3} / {limit:>3} W`` (the
limit left out by ``--show-power=draw``), `` | {memory.used:>5} / {memory.total:>5} MB``, then `` |``
and the processes (``user1(4000M)``, ``user1:python/48448(4000M)``) unless ``--no-processes``. A value
NVML did not give is ``??`` (``?`` as the 1.1.1 release prints it); processes it could not list,
``(Not Supported)``. A GPU whose query raised NVML's Unknown Error or GPU-is-lost is printed with that
as its name (``InvalidGPU(index, "((Unknown Error))", e)``, ``InvalidGPU(index, "((GPU is lost))",
e)``) and ``?`` for every value.

Facts: ``gpustat_gpu`` per GPU line (its index, name and readings); for an InvalidGPU line
``nvml_device_error`` (NVML answered for the other GPUs but not this one: ``gpu_lost`` or
``unknown_error``, the GPU named ``GPU<index>``, as nvidia-smi's "Unable to determine the device
handle for GPU1" is). The header line is read (no fact) where a GPU line follows it. No GPU line:
nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import GpustatGpu, NvmlDeviceError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gpustat"

_N = r"(?:\d{1,6}|\?{1,2})"
# [0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |                     (wookayin/gpustat#130)
# [0] GeForce GTX TITAN 0 | 80°C,  16 %,  76 % (E:  88 %  D:  67 %),  125 / 250 W |  8000 / 12287 MB | user1:python/48448(4000M) ...
#   (gpustat's own test_gpustat.py: --show-fan --show-codec --show-power, the processes after the memory)
# (core.py print_to: "[{index}] {name} |{temp:>3}°C, [{fan:>3} %, ]{util:>3} %[ (E: ..  D: ..)][,  {draw:>3} / {limit:>3} W]
#  | {used:>5} / {total:>5} MB[ |{processes}]"; a value NVML did not give is "??")
_ROW = re.compile(
    rf"^[ \t]*\[(?P<idx>\d{{1,3}})\] (?P<name>[^|\n]{{1,80}}?) *\| *(?P<temp>{_N}) ?(?:'|°|º)C, +"
    rf"(?:(?P<fan>{_N}) %, +)?(?P<util>{_N}) %(?: \([^()\n]{{0,40}}\))?"
    rf"(?:, +(?P<draw>{_N})(?: / +(?P<limit>{_N}) W)?)?"
    rf" *\| *(?P<used>{_N}) / +(?P<total>{_N}) MB(?P<procs> *\|[^\n]*)?[ \t]*\r?$")
# gpu-a-11.extreme         Mon Aug 22 15:23:57 2022  515.65.01                     (wookayin/gpustat#130)
# (print_formatted's header: "{hostname:{width}}  {timestr}  {driver_version}")
_HEADER = re.compile(r"^[\w.-]{1,64} {2,}[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} {2}[\w.]{1,20}[ \t]*\r?$")
# [2] ((GPU is lost))  |  ?°C,   ? % |     ? /     ? MB | (Not Supported)
#   (gpustat 1.1.1's own print_to of InvalidGPU(2, "((GPU is lost))", e), as new_query builds it when
#   nvmlDeviceGetHandleByIndex raises NVMLError_GpuIsLost; "((Unknown Error))" for NVMLError_Unknown; "??" in
#   the source of later commits)
_INVALID = {"gpu is lost": ("gpu_lost", "GPU is lost"), "unknown error": ("unknown_error", "Unknown Error")}
_DETECT = re.compile(rf"^[ \t]*\[\d{{1,3}}\] [^|\n]{{1,80}}?\| *{_N} ?(?:'|°|º)C, +", re.M)
#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)


def detect(head: str) -> bool:
    return "C, " in head and " MB" in head and _DETECT.search(head) is not None


def _int(v: str | None) -> int | None:
    return int(v) if v and v.isdigit() else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, line in enumerate(lines, 1):
        if " MB" not in line or "[" not in line or (m := _ROW.match(line)) is None:
            continue
        result.lines_used += 1
        if n > 1 and "  " in lines[n - 2] and _HEADER.match(lines[n - 2]):
            result.lines_used += 1
        idx, name = int(m["idx"]), m["name"].strip()
        inner = name[2:-2].strip().lower() if name.startswith("((") and name.endswith("))") else None
        if inner in _INVALID:
            reason, message = _INVALID[inner]
            b.add(NvmlDeviceError, n, reason=reason, message=message, source="gpustat", gpu=f"GPU{idx}",
                  query="device handle", gpu_index=idx)
            continue
        procs = m["procs"].strip().lstrip("|").strip() if m["procs"] is not None else None
        b.add(GpustatGpu, n, index=idx, name=name, temperature_c=_int(m["temp"]), fan_pct=_int(m["fan"]),
              utilization_pct=_int(m["util"]), power_draw_w=_int(m["draw"]), power_limit_w=_int(m["limit"]),
              memory_used_mib=_int(m["used"]), memory_total_mib=_int(m["total"]),
              processes=len(procs.split()) if procs is not None and procs != "(Not Supported)" else None)
    return result
