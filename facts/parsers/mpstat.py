"""Per-core CPU usage: ``mpstat -P ALL 1 N`` (sysstat).

Sample content (public reports; 24-hour stamps, or 12-hour with AM/PM; ``%gnice`` only in
newer sysstat; ``Average:`` rows at the end when a count was given)::

    Linux 6.18.44-fc-v77 (vm)       10/07/26        _x86_64_        (4 CPU)

    13:50:49     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
    13:50:50     all   98.75    0.00    0.25    0.00    0.00    0.00    1.00    0.00    0.00    0.00
    13:50:50       0   97.03    0.00    0.99    0.00    0.00    0.00    1.98    0.00    0.00    0.00
    02:56:23 PM    0    0.99    0.00   55.45    0.00    0.99   42.57    0.00    0.00    0.00    0.00
    Average:       0   97.03    0.00    0.99    0.00    0.00    0.00    1.98    0.00    0.00    0.00

Facts emitted: one ``cpu_core_usage`` per CPU (busy = 100 - %idle, averaged over the
interval rows; the ``Average:`` row when present), evidence the core's busiest row (or its
Average row); one ``cpu_usage_summary`` per file: cores, the busiest core and the mean of
all cores. Rows of ``all`` give the summary's ``all_busy_pct``. A row with a column that is
not a number is a ParseError; empty input yields no facts.
"""
from __future__ import annotations

import re
import statistics

from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    CpuCoreUsage, CpuUsageSummary,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "mpstat"

# 13:50:49     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
# Average:     CPU    %usr ...
_HEAD = re.compile(r"^(?:\d\d:\d\d:\d\d(?: [AP]M)?|Average:)\s+CPU\s+%usr\s+%nice\s+%sys\b.*%idle\s*$", re.M)
# 13:50:50       0   97.03 ...      /   Average:     all   98.75 ...
_ROW = re.compile(r"^(?P<when>\d\d:\d\d:\d\d(?: [AP]M)?|Average:)\s+(?P<cpu>all|\d+)\s+(?P<vals>[-\d.,\s]*[-\d.,]|\s)\s*$")


def detect(head: str) -> bool:
    return "%usr" in head and _HEAD.search(head) is not None  # "%usr": a cheap gate


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    cols: list[str] | None = None
    rows: dict[str, list[tuple[int, dict[str, float]]]] = {}
    avg: dict[str, tuple[int, dict[str, float]]] = {}
    used = 0
    for ln, line in enumerate(artefact.lines, 1):
        if _HEAD.match(line):
            cols = line.split()[line.split().index("CPU") + 1:]
            if "%idle" not in cols:  # "x%idle": the header's last column is not mpstat's
                b.error(ln, "mpstat header without its %idle column")
                cols = None
                continue
            used += 1
            continue
        m = _ROW.match(line)
        if m is None or cols is None:
            if line.startswith("Linux "):
                used += 1
            continue
        raw = m["vals"].replace(",", ".").split()  # some locales print a decimal comma
        if len(raw) != len(cols):
            b.error(ln, f"mpstat row has {len(raw)} values for {len(cols)} columns")
            continue
        try:
            vals = dict(zip(cols, map(float, raw)))
        except ValueError:
            b.error(ln, "mpstat row with a value that is not a number")
            continue
        used += 1
        if m["when"] == "Average:":
            avg[m["cpu"]] = (ln, vals)
        else:
            rows.setdefault(m["cpu"], []).append((ln, vals))
    cores = sorted({c for c in (*rows, *avg) if c != "all"}, key=int)
    busy: dict[int, float] = {}
    n = 0
    for c in cores:
        series = rows.get(c, [])
        per = [100.0 - v["%idle"] for _, v in series]
        if c in avg:
            ln, v = avg[c]
            mean = 100.0 - v["%idle"]
            iow = v.get("%iowait", 0.0)
        else:
            ln = max(series, key=lambda r: 100.0 - r[1]["%idle"])[0]
            mean = statistics.fmean(per)
            iow = statistics.fmean(v.get("%iowait", 0.0) for _, v in series)
        busy[int(c)] = round(mean, 2)
        n = max(n, len(series) or 1)
        b.add(CpuCoreUsage, ln, cpu=int(c), busy_pct=round(mean, 2), max_busy_pct=round(max(per, default=mean), 2),
              iowait_pct=round(iow, 2), samples=len(series) or 1)
    if busy:
        top = max(busy, key=lambda c: (busy[c], -c))
        alls = [100.0 - v["%idle"] for _, v in rows.get("all", [])]
        line = avg[str(top)][0] if str(top) in avg else max(rows[str(top)], key=lambda r: 100.0 - r[1]["%idle"])[0]
        b.add(CpuUsageSummary, line, cores=len(busy), busiest_cpu=top, busiest_pct=busy[top],
              mean_core_pct=round(statistics.fmean(busy.values()), 2), saturated_cores=sum(v >= 95 for v in busy.values()),
              all_busy_pct=round(statistics.fmean(alls), 2) if alls else None, samples=n)
    result.lines_used = used
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEAD,)
