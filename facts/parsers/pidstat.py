"""Per-task CPU usage: ``pidstat -u 1 N`` and ``pidstat -u -t 1 N`` (sysstat).

Sample content (public reports; 24-hour, 12-hour or localised stamps; ``-t`` adds TGID/TID
columns and ``|__`` thread rows; ``-h`` puts every activity on one ``# Time`` line; an
``Average:`` block closes a capture given a count)::

    Linux 6.12.86-amd64 (web01)   06/03/2026   _x86_64_   (8 CPU)
    05:03:29 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
    05:03:29 PM  1000    251473   12.00    3.50    0.00    1.20   15.50     3  java
    14时05分26秒   UID      TGID       TID    %usr %system  %guest    %CPU   CPU  Command
    14时05分27秒  1010         -    219299  100.00    0.00    0.00  100.00    55  |__pigz
    # Time        UID      TGID       TID    %usr %system  %guest   %wait    %CPU   CPU  minflt/s ... Command

Facts emitted: one ``cpu_process_sample`` per process and per thread that used the CPU
(%CPU above 0), averaged over the interval rows or taken from its ``Average:`` row, evidence
that row (or the busiest interval row). ``host_cpus`` comes from the ``(8 CPU)`` banner;
``host_busy_pct`` is the processes' summed %CPU over those cores. pidstat lists only active
tasks unless ``-p`` narrows it, so a ``-p`` capture undercounts the host (documented, not
guessed at). A row whose %CPU is not a number, or with fewer values than its header has
columns, is a ParseError.
"""
from __future__ import annotations

import re
import statistics

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.host import CpuProcessSample

KIND = "pidstat"

# 05:03:29 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
# 14时05分26秒   UID      TGID       TID    %usr %system  %guest    %CPU   CPU  Command
# # Time        UID      TGID       TID    %usr ... %CPU   CPU  minflt/s ... iodelay  Command
# (bounded: a header's columns are short; unbounded, each PID and %CPU of a long line was retried to its end)
_HEAD = re.compile(r"^\S.{0,80}?\s(?:PID|TGID)\s.{0,400}%CPU\s.{0,400}\bCommand\s*$", re.M)
# Linux 5.4.0-74-generic (rancher24x) 	10/06/21 	_x86_64_	(4 CPU)
# (the first ")" and blank after the host taken once, atomically (?>...): any later one leaves less room for
#  the "(N CPU)"; greedy, a line of many ") " was scanned to its end once per ") " in it)
_BANNER = re.compile(r"^Linux \S+ \((?>.*?\)\s).*\((\d+) CPU\)\s*$")
_ID_COLS = ("UID", "USER", "PID", "TGID")


def detect(head: str) -> bool:
    return "%CPU" in head and _HEAD.search(head) is not None  # "%CPU": a cheap gate


def _int(v: str) -> int | None:
    return int(v) if v.isdecimal() else None  # not isdigit(): "²" is a digit int() refuses


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    cols: list[str] | None = None
    prefix = 0  # tokens of the time stamp ahead of the first column
    host_cpus: int | None = None
    tgid: int | None = None
    rows: dict[tuple[int, int | None, str], list[tuple[int, float, int | None]]] = {}
    avg: dict[tuple[int, int | None, str], tuple[int, float]] = {}
    used = 0
    for ln, line in enumerate(artefact.lines, 1):
        if (m := _BANNER.match(line)) is not None:
            host_cpus, used = int(m[1]), used + 1
            continue
        toks = line.split()
        if _HEAD.match(line):
            first = next((i for i, t in enumerate(toks) if t in _ID_COLS), None)
            if first is None or "%CPU" not in toks[first:-1]:  # "-%CPU", "PID\x1c": not pidstat's columns
                b.error(ln, "pidstat header without its PID and %CPU columns")
                cols = None
                continue
            cols, used = toks[first:], used + 1
            # "# Time" (-h) is two header tokens for a one-token stamp
            prefix = 1 if toks[0] in ("#", "Average:") else first
            continue
        if cols is None or not toks or not any(c.isdigit() for c in toks[0]) and toks[0] != "Average:":
            continue  # prose, "....", or rows before any header
        n = 1 if toks[0] == "Average:" else prefix
        vals = toks[n:]
        if len(vals) < len(cols):
            b.error(ln, f"pidstat row has {len(vals)} values for {len(cols)} columns")
            continue
        row = dict(zip(cols[:-1], vals))
        command = " ".join(vals[len(cols) - 1:]).removeprefix("|__")  # -l: a command line with blanks
        try:
            cpu_pct = float(row["%CPU"].replace(",", "."))  # some locales print a decimal comma
        except ValueError:
            b.error(ln, f"pidstat %CPU {row['%CPU']!r} is not a number")
            continue
        pid, tid = _int(row.get("PID", row.get("TGID", "-"))), _int(row.get("TID", "-"))
        if "TGID" in row and pid is not None:
            tgid, tid = pid, None
        elif "TGID" in row:
            pid = tgid if tgid is not None else tid  # a thread row belongs to the last process row
        if pid is None:
            b.error(ln, "pidstat row without a process or thread id")
            continue
        used += 1
        key = (pid, tid, command)
        if toks[0] == "Average:":
            avg[key] = (ln, cpu_pct)
        else:
            rows.setdefault(key, []).append((ln, cpu_pct, _int(row.get("CPU", "-"))))
    means: dict[tuple[int, int | None, str], tuple[int, float, float, int, int | None]] = {}
    for key in dict.fromkeys([*rows, *avg]):
        series = rows.get(key, [])
        top = max(series, key=lambda r: r[1], default=None)
        ln, mean = avg[key] if key in avg else (top[0], statistics.fmean(r[1] for r in series))
        means[key] = (ln, mean, max((r[1] for r in series), default=mean), len(series) or 1, series[-1][2] if series else None)
    # processes only: a thread's share is already inside its process row
    total = sum(v[1] for k, v in means.items() if k[1] is None)
    host_busy = round(min(100.0, total / host_cpus), 2) if host_cpus else None
    for (pid, tid, command), (ln, mean, peak, n, last) in means.items():
        if peak <= 0.0:
            continue  # idle tasks (pidstat -p ALL, -h captures) say nothing about a bottleneck
        b.add(CpuProcessSample, ln, pid=pid, tid=tid, command=command, cpu_pct=round(mean, 2), max_cpu_pct=round(peak, 2),
              last_cpu=last, samples=n, host_cpus=host_cpus, host_busy_pct=host_busy, tool="pidstat")
    result.lines_used = used
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEAD,)
