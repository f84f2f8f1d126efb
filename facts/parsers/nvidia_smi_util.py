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

``nvidia-smi dmon -o DT`` puts date and time columns first (header ``#Date Time gpu ...``)::

    #Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
    #YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
     20240916   10:02:17      0    612     58     66     97     41      0      0      0      0   2619   1980

and a query with ``timestamp`` stamps every row (``2024/09/16 10:02:17.123``); the sample
interval is then the median step between a GPU's stamps, else 1 s (dmon's and ``-l 1``'s
default).

Facts emitted: one ``gpu_util_series`` per GPU of the file (dmon's ``sm`` column, the CSV's
``utilization.gpu``): samples, runs of zero samples (``dips``), their share, the mean of the
busy samples; evidence is the last zero sample (the first sample when none is zero). A dip is
a run of zero samples, as for the live ``DCGM_FI_DEV_GPU_UTIL`` series; whether dips make a
stall is decided in engine/combine/bundle_series.py with the live side's criterion. dmon names GPUs by
index only: ``pci_bus_id`` is then None and the engine maps the index with ``nvidia-smi -q``.

Empty input or a header without a utilisation column yields no facts; a data row whose
utilisation is not a number (other than ``-``, ``[N/A]``) is a ParseError.
"""
from __future__ import annotations

import datetime
import re
import statistics

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import GpuUtilSeries  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.stats import zero_runs
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nvidia_smi_query import emit_row, field_name, known

KIND = "nvidia_smi_util"

# # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
# #Date       Time        gpu    pwr  gtemp  mtemp     sm ...   (dmon -o DT)
# > \# gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 sbecc dbecc   pci rxpci txpci
#   (mozilla/DeepSpeech#178, dmon -s pucvmet of 2016 in a markdown quote: "\#" is markdown's escape of a "#" that
#   would start a heading; the quote's "> " is stripped before any reader, the escape is read here)
_DMON_HEAD = re.compile(r"^\\?#\s*(?:Date\s+Time\s+)?gpu\s+.*\bsm\b", re.M)
# index, name, uuid, pci.bus_id, ..., utilization.gpu [%], ...   (any field set; units in brackets;
# a few names are camel-cased: encoder.stats.sessionCount, encoder.stats.averageFps, ...averageLatency)
_CSV_HEAD = re.compile(r"^[a-z_][A-Za-z0-9_.]*(?: \[[^\]\n]*\])?(?:, ?[a-z_][A-Za-z0-9_.]*(?: \[[^\]\n]*\])?)*[ \t]*$", re.M)
# nvidia-smi --query-gpu=index,pci.bus_id,temperature.gpu --format=csv,noheader,nounits
_CMD_QUERY = re.compile(r"--query-gpu[= ](?P<fields>[\w.,]+)")
_CMD_FORMAT = re.compile(r"--format[= ](?P<fmt>[\w,]+)")
_FIELD = re.compile(r"^[a-z_][A-Za-z0-9_.]*$")
#: literals one of which a query header or command holds (detect's cheap gate)
_QUERY_GATES = ("--query-gpu", "pci.bus_id", "temperature.gpu", "utilization.gpu", "memory.used", "power.draw",
                "clocks_throttle_reasons.", "clocks_event_reasons.", "ecc.errors.", "retired_pages.",
                "remapped_rows.", "pcie.link.", "ecc.mode.", "fabric.state")
#     0    148     36     35      0      0  ...
#  20240916   10:02:17      0    612  ...   (-o DT: date and time first; -o T: time only)
_DMON_ROW = re.compile(r"^\s*(?:(?P<date>\d{8})\s+)?(?:(?P<time>\d\d:\d\d:\d\d)\s+)?(?P<idx>\d+)\s+(?P<rest>.*)$")
# 2024/09/16 10:02:17.123   (query-gpu "timestamp" column)
_CSV_STAMP = re.compile(r"^(?P<d>\d{4}/\d\d/\d\d) (?P<t>\d\d:\d\d:\d\d)(?:\.(?P<ms>\d+))?$")
_NA = {"-", "[N/A]", "N/A", ""}


def detect(head: str) -> bool:
    # gates: _DMON_HEAD needs "#", "gpu" and "sm"; a query header or command one of _QUERY_GATES
    if "#" in head and "gpu" in head and "sm" in head and _DMON_HEAD.search(head) is not None:
        return True
    if not any(g in head for g in _QUERY_GATES):
        return False
    if "--query-gpu" in head and any(_query_command(ln) for ln in head.splitlines() if "--query-gpu" in ln):
        return True
    return any(_query_header(m[0]) is not None for m in _CSV_HEAD.finditer(head))


def _seconds(date: str | None, time: str | None, frac: str | None = None) -> float | None:
    """Seconds since the epoch of a row stamp (naive: only differences are used)."""
    if time is None:
        return None
    h, m, sec = (int(x) for x in time.split(":"))
    day = 0.0
    if date:
        digits = date.replace("/", "")
        day = datetime.date(int(digits[:4]), int(digits[4:6]), int(digits[6:8])).toordinal() * 86400.0
    return day + h * 3600 + m * 60 + sec + (float("0." + frac) if frac else 0.0)


def _interval(stamps: list[float]) -> float:
    """Median step between consecutive stamps of one GPU; 1 s without two stamps."""
    steps = [b - a for a, b in zip(stamps, stamps[1:]) if b > a]
    return round(statistics.median(steps), 3) if steps else 1.0


def _emit(b: FactBuilder, idx: int, bus: str | None, rows: list[tuple[int, float]], source: str,
          stamps: list[float]) -> None:
    vals = [v for _, v in rows]
    busy = [v for v in vals if v > 0]
    zeros = [ln for ln, v in rows if v <= 0]
    b.add(GpuUtilSeries, zeros[-1] if zeros else rows[0][0], index=idx, pci_bus_id=bus, samples=len(vals),
          dips=zero_runs(vals), zero_fraction=round(1 - len(busy) / len(vals), 3),
          busy_mean_pct=round(statistics.fmean(busy), 1) if busy else 0.0, mean_pct=round(statistics.fmean(vals), 1),
          interval_s=_interval(stamps), source=source)


def _num(raw: str) -> float | None:
    raw = raw.strip().removesuffix("%").strip()
    return None if raw in _NA else float(raw)


def _query_header(line: str) -> list[str] | None:
    """The field names of a ``--format=csv`` header line, or None when the line is not one."""
    if "," not in line and "." not in line:
        return None
    names = [field_name(c) for c in line.split(",")]
    if not all(_FIELD.match(n) for n in names) or not any(known(n) for n in names):
        return None
    return names if len(names) > 1 or "." in names[0] else None


def _query_command(line: str) -> list[str] | None:
    """Fields of ``nvidia-smi --query-gpu=a,b --format=csv,noheader``: rows follow without a header."""
    q, f = _CMD_QUERY.search(line), _CMD_FORMAT.search(line)
    if q is None or f is None or "noheader" not in f["fmt"]:
        return None
    return [field_name(n) for n in q["fields"].split(",") if n]


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    series: dict[int, list[tuple[int, float]]] = {}
    stamps: dict[int, list[float]] = {}
    buses: dict[int, str | None] = {}
    #: the last CSV row of each GPU: its state facts describe the GPU as last read
    last_rows: dict[object, tuple[int, list[str], list[str]]] = {}
    used = 0
    # header lines count as read only when a row under them was: a query whose rows name no GPU
    # (no index, no pci.bus_id: bpytop#26's 'name, fan.speed [%], ...') was recognised, not read
    headers = 0
    col = tcol = icol = bcol = None
    names: list[str] | None = None
    source = "dmon"
    for ln, line in enumerate(lines, 1):
        if line.startswith(("#", "\\#")):  # "\#": markdown's escaped "#" (see _DMON_HEAD)
            head = line.lstrip("\\").lstrip("#").split()
            if "gpu" in head[:3] and head[0] in ("gpu", "Date", "Time"):
                # the column of "sm" counted from "gpu": date/time columns are read by _DMON_ROW
                col, source, names = (head.index("sm") - head.index("gpu") if "sm" in head else None), "dmon", None
                headers += 1
            elif head and head[0] in ("Idx", "YYYYMMDD", "HH:MM:SS"):
                headers += 1
            continue
        fields = _query_command(line) if "--query-gpu" in line else _query_header(line)
        if fields is not None:
            names, source = fields, "query-gpu"
            col = names.index("utilization.gpu") if "utilization.gpu" in names else None
            icol = names.index("index") if "index" in names else None
            bcol = next((names.index(k) for k in ("pci.bus_id", "gpu_bus_id") if k in names), None)
            tcol = names.index("timestamp") if "timestamp" in names else None
            headers += 1
            continue
        if not line.strip():
            continue
        if source == "dmon":
            if col is None:
                continue
            m = _DMON_ROW.match(line)
            if m is None:
                continue
            # the columns after the index; a leading date/time column (dmon -o DT) is skipped above
            parts = m["rest"].split()
            idx, raw, bus = int(m["idx"]), (parts[col - 1] if len(parts) >= col else ""), None
            try:
                stamp = _seconds(m["date"], m["time"])
            except ValueError:  # 2026/13/39: no calendar day
                b.error(ln, f"time stamp {m['date']} {m['time']} is not a date and time")
                continue
        else:
            parts = [p.strip() for p in line.split(",")]
            if names is None or len(parts) != len(names):
                continue  # not a row of this query (a prompt, other output)
            if icol is None and bcol is None:
                continue  # no way to tell GPUs apart (nor a GPU from the next sample of -l)
            idx = int(parts[icol]) if icol is not None and parts[icol].isdecimal() else len(buses)
            bus = try_pci_bus_id(parts[bcol]) if bcol is not None else None
            last_rows[bus or idx] = (ln, names, parts)
            used += 1
            if col is None:
                continue
            raw = parts[col]
            stamp = None
            if tcol is not None:
                t = _CSV_STAMP.match(parts[tcol])
                if t is None:
                    b.error(ln, f"timestamp {parts[tcol]!r} is not YYYY/MM/DD HH:MM:SS[.mmm]")
                    continue
                try:
                    stamp = _seconds(t["d"], t["t"], t["ms"])
                except ValueError:  # 2026/11/39: no calendar day
                    b.error(ln, f"timestamp {parts[tcol]!r} is not a date and time")
                    continue
        try:
            value = _num(raw)
        except ValueError:
            b.error(ln, f"utilisation {raw!r} is not a number")
            continue
        used += source == "dmon"
        if value is None:
            continue
        series.setdefault(idx, []).append((ln, value))
        if stamp is not None:
            stamps.setdefault(idx, []).append(stamp)
        buses.setdefault(idx, bus)
    for idx, rows in sorted(series.items()):
        _emit(b, idx, buses.get(idx), rows, source, stamps.get(idx, []))
    for ln, row_names, parts in sorted(last_rows.values()):
        emit_row(b, ln, row_names, parts)
    result.lines_used = used + headers if used else 0
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DMON_HEAD, "|".join(re.escape(g) for g in _QUERY_GATES))
