"""GPU utilisation over time: ``nvidia-smi dmon`` and ``nvidia-smi --query-gpu=... --format=csv -l 1``.

Sample content (``nvidia-smi dmon -c 3`` on a 2 x H200 host, idle; columns vary with ``-s``)::

    # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
    # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
        0    148     36     35      0      0      0      0      0      0   3201   1980
        1    140     37     35      0      0      0      0      0      0   3201   1980

and (``nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,...,utilization.gpu,... --format=csv``,
the same host; ``-l 1`` repeats the rows every second, ``timestamp`` may be queried too)::

    index, name, uuid, pci.bus_id, driver_version, temperature.gpu, power.draw [W], ..., utilization.gpu [%], memory.used [MiB], ...
    0, NVIDIA H200, GPU-5cc6fa16-d7a0-98bf-3d43-f0337652e85f, 00000000:00:06.0, 580.159.04, 32, 78.81 W, ..., 0 %, 0 MiB, 0

Facts emitted: one ``gpu_util_series`` per GPU of the file (dmon's ``sm`` column, the CSV's
``utilization.gpu``): samples, runs of zero samples (``dips``), their share, the mean of the
busy samples; evidence is the last zero sample (the first sample when none is zero). A dip is
a run of zero samples, as for the live ``DCGM_FI_DEV_GPU_UTIL`` series; whether dips make a
stall is decided in engine/bundle_series.py with the live side's criterion. dmon names GPUs by
index only: ``pci_bus_id`` is then None and the engine maps the index with ``nvidia-smi -q``.

Empty input or a header without a utilisation column yields no facts; a data row whose
utilisation is not a number (other than ``-``, ``[N/A]``) is a ParseError.
"""
from __future__ import annotations

import re
import statistics
from typing import Literal

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.stats import zero_runs
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_smi_util"

# # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
_DMON_HEAD = re.compile(r"^#\s*gpu\s+.*\bsm\b", re.M)
# index, name, uuid, pci.bus_id, ..., utilization.gpu [%], ...
_CSV_HEAD = re.compile(r"^(?:[\w.]+(?: \[[^\]]*\])?, )*utilization\.gpu \[%\]", re.M)
#     0    148     36     35      0      0  ...
_DMON_ROW = re.compile(r"^\s*(?:\d{8}\s+)?(?:\d\d:\d\d:\d\d\s+)?(?P<idx>\d+)\s+(?P<rest>.*)$")
_NA = {"-", "[N/A]", "N/A", ""}


@fact_kind
class GpuUtilSeries(Fact):
    """One GPU's utilisation samples in one file, summed up (``nvidia-smi dmon`` / ``--query-gpu -l``)."""

    kind: Literal["gpu_util_series"] = "gpu_util_series"
    index: int
    pci_bus_id: str | None = None  # the CSV's pci.bus_id; None for dmon (index only)
    samples: int
    dips: int  # separate runs of zero samples
    zero_fraction: float
    busy_mean_pct: float  # mean of the non-zero samples (0 when none)
    mean_pct: float  # mean of all samples
    interval_s: float  # seconds between samples (1 unless timestamps say otherwise)
    source: str  # "dmon" or "query-gpu"


def detect(head: str) -> bool:
    # gates: _DMON_HEAD needs "#", "gpu" and "sm"; _CSV_HEAD its "utilization.gpu [%]"
    if "#" in head and "gpu" in head and "sm" in head and _DMON_HEAD.search(head) is not None:
        return True
    return "utilization.gpu [%]" in head and _CSV_HEAD.search(head) is not None


def _emit(b: FactBuilder, idx: int, bus: str | None, rows: list[tuple[int, float]], source: str) -> None:
    vals = [v for _, v in rows]
    busy = [v for v in vals if v > 0]
    zeros = [ln for ln, v in rows if v <= 0]
    b.add(GpuUtilSeries, zeros[-1] if zeros else rows[0][0], index=idx, pci_bus_id=bus, samples=len(vals),
          dips=zero_runs(vals), zero_fraction=round(1 - len(busy) / len(vals), 3),
          busy_mean_pct=round(statistics.fmean(busy), 1) if busy else 0.0, mean_pct=round(statistics.fmean(vals), 1),
          interval_s=1.0, source=source)


def _num(raw: str) -> float | None:
    raw = raw.strip().removesuffix("%").strip()
    return None if raw in _NA else float(raw)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    series: dict[int, list[tuple[int, float]]] = {}
    buses: dict[int, str | None] = {}
    used = 0
    col = None
    source = "dmon"
    for ln, line in enumerate(lines, 1):
        if line.startswith("#"):
            head = line.lstrip("#").split()
            if head and head[0] == "gpu":
                col, source = (head.index("sm") if "sm" in head else None), "dmon"
                used += 1
            elif head and head[0] == "Idx":
                used += 1
            continue
        if "utilization.gpu [%]" in line:
            names = [c.strip() for c in line.split(",")]
            col, source = names.index("utilization.gpu [%]"), "query-gpu"
            icol = names.index("index") if "index" in names else None
            bcol = names.index("pci.bus_id") if "pci.bus_id" in names else None
            used += 1
            continue
        if col is None or not line.strip():
            continue
        if source == "dmon":
            m = _DMON_ROW.match(line)
            if m is None:
                continue
            # the columns after the index; a leading date/time column (dmon -o DT) is skipped above
            parts = m["rest"].split()
            idx, raw, bus = int(m["idx"]), (parts[col - 1] if len(parts) >= col else ""), None
        else:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) <= col:
                continue
            if icol is None and bcol is None:
                continue  # no way to tell GPUs apart
            idx = int(parts[icol]) if icol is not None and parts[icol].isdigit() else len(buses)
            bus = try_pci_bus_id(parts[bcol]) if bcol is not None else None
            raw = parts[col]
        try:
            value = _num(raw)
        except ValueError:
            b.error(ln, f"utilisation {raw!r} is not a number")
            continue
        used += 1
        if value is None:
            continue
        series.setdefault(idx, []).append((ln, value))
        buses.setdefault(idx, bus)
    for idx, rows in sorted(series.items()):
        _emit(b, idx, buses.get(idx), rows, source)
    result.lines_used = used
    return result
