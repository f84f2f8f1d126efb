"""Per-core and per-process CPU usage: ``top -b -n 2 -d 1 -1`` (procps / procps-ng, batch mode).

Sample content (public reports): the summary area, per-CPU lines when ``1`` is toggled (or
``-1`` given), in text or bar form, and the process table; old procps writes ``Cpu(s):`` and
``21.7% us``; ``-H`` shows threads (``Threads:`` instead of ``Tasks:``)::

    top - 23:30:03 up 7 min,  0 users,  load average: 0.98, 1.01, 0.56
    %Cpu(s): 12.3 us,  6.2 sy,  0.0 ni, 79.4 id,  1.4 wa,  0.0 hi,  0.7 si,  0.0 st
    %Cpu3  : 19.7 us, 80.3 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st
    %Cpu1  :   9.9/3.5    13[||||||||||||||                    ]
    Cpu(s): 21.7% us,  5.4% sy,  2.2% ni, 69.4% id,  0.0% wa,  0.0% hi,  1.3% si
      PID USER      PR  NI    VIRT    RES    SHR S  %CPU %MEM     TIME+ COMMAND
     1992 root      20   0  139488  90676  45940 S   6.2  2.2   0:17.21 kube-contr+

Only the LAST frame is read: top's first frame has no earlier sample to difference against,
so its CPU shares are since boot; ``-n 2 -d 1`` gives a second, one-second frame.
Facts emitted, from that frame: with per-CPU lines, one ``cpu_core_usage`` per core (busy =
100 - id, or the bar's total) and one ``cpu_usage_summary`` (the same kinds ``mpstat -P ALL``
yields); one ``cpu_process_sample`` per process row above 0 % (%CPU is a share of one core in
top's default Irix mode; Solaris mode, toggled with ``I``, divides by the cores and cannot be
told from the output). A CPU line with no value, or a %CPU that is not a number, is a ParseError.
"""
from __future__ import annotations

import re
import statistics

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.host import CpuProcessSample
from stethoscope.facts.parsers.mpstat import CpuCoreUsage, CpuUsageSummary

KIND = "top"

# top - 10:39:10 up 40 min,  1 user,  load average: 0.45, 1.28, 1.85
_FRAME = re.compile(r"^top - \d\d:\d\d:\d\d up ")
# %Cpu0  : 60.7 us,  0.0 sy, ...   /   Cpu(s): 21.7% us, ...   /   %Cpu0  :  96.6/3.4   100[|||
# (several on one line when top prints CPUs side by side)
_CPU = re.compile(r"%?Cpu(?:(?P<n>\d+)|\(s\))\s*:(?P<body>.*?)(?=%?Cpu(?:\d+|\(s\))\s*:|$)")
# 60.7 us,   /   21.7% us,   /   0.3%us,
_PAIR = re.compile(r"(\d+(?:[.,]\d+)?)\s*%?\s*(us|sy|ni|id|wa|hi|si|st)\b")
# 3.5/2.8     6[|||||||      (bar form: us/sy, then the total)
_BAR = re.compile(r"^\s*[\d.]+/[\d.]+\s+(\d+)\s*\[")
#   PID USER      PR  NI    VIRT    RES    SHR S  %CPU %MEM     TIME+ COMMAND
# (the first "%CPU" taken once, atomically (?>...): a later one leaves less room for "COMMAND"; greedy, a long
#  line of many "%CPU" was scanned to its end once per "%CPU" in it)
_TABLE = re.compile(r"^\s*+PID\s++USER\s(?>.*?%CPU\s).*COMMAND\s*$")
_DETECT = re.compile(r"^top - \d\d:\d\d:\d\d up |^%?Cpu(?:\d+|\(s\))\s*:\s*[\d.]+(?:\s*%\s*us\b|\s+us,|/[\d.]+\s+\d+\[)", re.M)


def detect(head: str) -> bool:
    return "Cpu" in head and _DETECT.search(head) is not None  # "Cpu": a cheap gate


def _frames(lines: list[str]) -> list[int]:
    """0-based first line of each frame (a frame starts at a ``top - `` line)."""
    starts = [i for i, line in enumerate(lines) if _FRAME.match(line)]
    return starts if starts and starts[0] == 0 else [0, *starts]


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    start = _frames(lines)[-1]
    used = start and sum(1 for line in lines[:start] if line.strip())  # earlier frames: read, set aside
    cores: dict[int, tuple[int, float, float]] = {}  # cpu -> (line, busy, iowait)
    overall: tuple[int, float] | None = None
    threads = False
    cols: list[str] | None = None
    procs: list[tuple[int, int, str, float, int | None]] = []
    for ln, line in enumerate(lines[start:], start + 1):
        if _FRAME.match(line) or line.startswith(("Tasks:", "Threads:")):
            threads = threads or line.startswith("Threads:")
            used += 1
            continue
        if "Cpu" in line and (segs := list(_CPU.finditer(line))) and line.lstrip().startswith(("%Cpu", "Cpu")):
            for seg in segs:
                pairs = {k: float(v.replace(",", ".")) for v, k in _PAIR.findall(seg["body"])}
                if "id" in pairs:
                    busy = 100.0 - pairs["id"]
                elif (bar := _BAR.match(seg["body"])) is not None:
                    busy = float(bar[1])
                else:
                    b.error(ln, "top CPU line without an idle share")
                    continue
                if seg["n"] is None:
                    overall = (ln, busy)
                else:
                    cores[int(seg["n"])] = (ln, busy, pairs.get("wa", 0.0))
            used += 1
            continue
        if _TABLE.match(line):
            cols = line.split()
            if "%CPU" not in cols[:-1]:  # "-%CPU": not top's column
                b.error(ln, "top process table header without its %CPU column")
                cols = None
                continue
            used += 1
            continue
        if cols is None or not line.strip():
            continue
        toks = line.split()
        if not toks[0].isdecimal():  # not isdigit(): "²" is a digit int() refuses
            cols = None  # the table ended (prose after a pasted capture)
            continue
        if len(toks) < len(cols):
            b.error(ln, f"top process row has {len(toks)} values for {len(cols)} columns")
            continue
        row = dict(zip(cols[:-1], toks))
        try:
            pct = float(row["%CPU"].rstrip("%").replace(",", "."))
        except ValueError:
            b.error(ln, f"top %CPU {row['%CPU']!r} is not a number")
            continue
        used += 1
        last = row.get("P")
        procs.append((ln, int(toks[0]), " ".join(toks[len(cols) - 1:]), pct, int(last) if last and last.isdecimal() else None))
    busy = {c: v[1] for c, v in cores.items()}
    host_busy = round(statistics.fmean(busy.values()), 2) if busy else (round(overall[1], 2) if overall else None)
    for c in sorted(cores):
        ln, pct, iow = cores[c]
        b.add(CpuCoreUsage, ln, cpu=c, busy_pct=round(pct, 2), max_busy_pct=round(pct, 2), iowait_pct=round(iow, 2), samples=1)
    if busy:
        top = max(busy, key=lambda c: (busy[c], -c))
        b.add(CpuUsageSummary, cores[top][0], cores=len(busy), busiest_cpu=top, busiest_pct=round(busy[top], 2),
              mean_core_pct=host_busy, saturated_cores=sum(v >= 95 for v in busy.values()),
              all_busy_pct=round(overall[1], 2) if overall else None, samples=1)
    for ln, pid, command, pct, last in procs:
        if pct <= 0.0:
            continue  # a full batch table lists hundreds of idle tasks
        b.add(CpuProcessSample, ln, pid=pid, tid=pid if threads else None, command=command, cpu_pct=pct, max_cpu_pct=pct,
              last_cpu=last, samples=1, host_cpus=len(busy) or None, host_busy_pct=host_busy, tool="top")
    result.lines_used = used
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
