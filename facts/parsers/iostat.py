"""Block-device load: ``iostat -x [-m] INTERVAL COUNT`` (sysstat).

Sample content (ColinIanKing/stress-ng#148: an HDD under a write load; sysstat/sysstat#374 for
the ``-m`` layout)::

    Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s ... f/s f_await  aqu-sz  %util
    sdb              0.00      0.00     0.00   0.00    0.00     0.00  156.00 182784.00 ... 0.00    0.00    6.25 100.00
    Device            r/s     rMB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wMB/s ...
    dm-0             0.00      0.00     0.00   0.00    0.00     0.00    0.90      0.03 ... 0.00    0.00    0.00   0.12

The columns are read by their header, so sysstat 12's layout (``aqu-sz``, d/s and f/s columns),
the ``-m`` one (MB/s) and the older one (``Device:`` with ``avgqu-sz``, ``await``, ``svctm``) all
read alike. ``avg-cpu`` blocks are counted as read (mpstat gives CPU shares per core).

Facts: one ``disk_io`` per device per file: reports seen, the busiest report's %util (its
evidence line), mean %util, the most requests queued (``aqu-sz``), the longest read and write
waits, mean read and write MB/s, and how many reports were at least 90 % busy. The first report
of an ``iostat`` without ``-y`` averages since boot; it is counted like the others. A device row
whose values are not numbers is a parse error. Empty input yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import DiskIo  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "iostat"

# Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s ... aqu-sz  %util
# Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util
HEADER = re.compile(r"^Device:?\s+(?:\S+\s+)*r/s\s.*%util\s*$", re.M)
# sdb              0.00      0.00     0.00   0.00    0.00     0.00  156.00 182784.00 ... 6.25 100.00
ROW = re.compile(r"^(?P<dev>[A-Za-z][\w.:/-]*)\s+(?P<vals>-?[\d.,]+(?:\s+-?[\d.,]+)+)\s*$")
# avg-cpu:  %user   %nice %system %iowait  %steal   %idle
AVG_CPU = re.compile(r"^avg-cpu:\s+%user")
# 10/10/23 21:01:40
STAMP = re.compile(r"^\d\d/\d\d/\d\d(?:\d\d)?\s+\d\d:\d\d:\d\d(?: [AP]M)?\s*$")
# Linux 5.4.0-150-generic (host)   10/10/23   _x86_64_   (64 CPU)
BANNER = re.compile(r"^Linux \S+ \(\S+\)\s+\S+\s+_\w+_")

SATURATED_PCT = 90.0  # %util at or above which a report counts as saturated (iostat(1): "Device saturation occurs when this value is close to 100%")


def detect(text: str) -> bool:
    return "%util" in text and HEADER.search(text) is not None


def _col(cols: dict[str, float], *names: str) -> float | None:
    for n in names:
        if n in cols:
            return cols[n]
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    header: list[str] | None = None
    rows: dict[str, list[tuple[int, dict[str, float]]]] = {}
    in_cpu = False
    for n, line in enumerate(artefact.lines, 1):
        if HEADER.match(line):
            header = line.split()[1:]
            in_cpu = False
            result.lines_used += 1
            continue
        if AVG_CPU.match(line):
            in_cpu, header = True, None
            result.lines_used += 1
            continue
        if not line.strip():
            header, in_cpu = None, False
            continue
        if in_cpu or STAMP.match(line) or BANNER.match(line):
            result.lines_used += 1
            continue
        if header is None:
            continue
        m = ROW.match(line)
        vals = line.split()[1:]
        if m is None or len(vals) != len(header):
            b.error(n, f"iostat row with {len(vals)} values under a header of {len(header)} columns")
            continue
        try:
            cols = {h: float(v.replace(",", ".")) for h, v in zip(header, vals)}
        except ValueError:
            b.error(n, "iostat row with a value that is not a number")
            continue
        rows.setdefault(m["dev"], []).append((n, cols))
        result.lines_used += 1
    for dev, all_samples in rows.items():
        # a header cut or mangled: the busy share is what this reader is for; its rows are a problem each
        for n, _ in [s for s in all_samples if "%util" not in s[1]]:
            b.error(n, f"iostat row of {dev} under a header without %util")
        samples = [s for s in all_samples if "%util" in s[1]]
        if not samples:
            continue
        utils = [c["%util"] for _, c in samples]
        busiest_line, busiest = max(samples, key=lambda s: s[1]["%util"])

        def mb(kb: str, mbs: str) -> list[float]:
            return [c[mbs] if mbs in c else c[kb] / 1024 for _, c in samples if mbs in c or kb in c]

        reads, writes = mb("rkB/s", "rMB/s"), mb("wkB/s", "wMB/s")
        aqu = [v for _, c in samples if (v := _col(c, "aqu-sz", "avgqu-sz")) is not None]
        r_wait = [v for _, c in samples if (v := _col(c, "r_await", "await")) is not None]
        w_wait = [v for _, c in samples if (v := _col(c, "w_await", "await")) is not None]
        b.add(DiskIo, busiest_line, device=dev, reports=len(samples), util_max_pct=busiest["%util"],
              util_mean_pct=round(sum(utils) / len(utils), 2), saturated_reports=sum(u >= SATURATED_PCT for u in utils),
              aqu_sz_max=max(aqu) if aqu else None, r_await_max_ms=max(r_wait) if r_wait else None,
              w_await_max_ms=max(w_wait) if w_wait else None,
              read_mb_s_mean=round(sum(reads) / len(reads), 3) if reads else None,
              write_mb_s_mean=round(sum(writes) / len(writes), 3) if writes else None)
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (HEADER,)
