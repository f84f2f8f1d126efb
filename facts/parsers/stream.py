"""STREAM (John McCalpin's stream.c, https://www.cs.virginia.edu/stream/): host memory bandwidth.

Sample content (superbenchmark tests/data/streamResultZen.log, 32 threads; DaiZhiyuan/study's
CentOS 7 README)::

    STREAM version $Revision: 5.10 $
    Array size = 400000000 (elements), Offset = 0 (elements)
    Number of Threads counted = 32
    Function    Best Rate MB/s  Avg time     Min time     Max time
    Copy:          342008.3     0.018755     0.018713     0.018895
    Triad:         363208.7     0.026599     0.026431     0.026855
    Solution Validates: avg error less than 1.000000e-13 on all three arrays

Facts: ``bench_result`` per kernel row (test ``Copy``/``Scale``/``Add``/``Triad``, entity ``host``,
metric ``best_rate`` in MB/s; the detail names the threads, the array size and whether the
solution validated). A kernel row after the table header that does not hold four numbers is
a ParseError. Text without the table yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "stream"

# STREAM version $Revision: 5.10 $
_VERSION = re.compile(r"^STREAM version \$Revision: (?P<v>[\d.]+) \$")
# Function    Best Rate MB/s  Avg time     Min time     Max time
_HEADER = re.compile(r"^Function\s+Best Rate MB/s\s+Avg time\s+Min time\s+Max time\s*$")
# Triad:         363208.7     0.026599     0.026431     0.026855
_ROW = re.compile(r"^(?P<fn>Copy|Scale|Add|Triad):\s+(?P<rate>\d+(?:\.\d+)?)\s+(?P<avg>\d+(?:\.\d+)?)\s+(?P<min>\d+(?:\.\d+)?)\s+(?P<max>\d+(?:\.\d+)?)\s*$")
_KERNEL = re.compile(r"^(?:Copy|Scale|Add|Triad):")
# Number of Threads counted = 32
_THREADS = re.compile(r"^Number of Threads counted = (?P<n>\d+)")
# Array size = 400000000 (elements), Offset = 0 (elements)
_ARRAY = re.compile(r"^Array size = (?P<n>\d+) \(elements\)")
# Solution Validates: avg error less than 1.000000e-13 on all three arrays   /   Failed Validation on array a[], ...
_VALID = re.compile(r"^(?P<ok>Solution Validates)|^(?P<bad>Failed Validation on array)")
_DETECT = re.compile(r"^STREAM version \$Revision: |^Function\s+Best Rate MB/s\s+Avg time", re.M)


def detect(head: str) -> bool:
    return ("STREAM version" in head or "Best Rate MB/s" in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    version = threads = array = None
    validated: bool | None = None
    rows: list[tuple[int, re.Match[str]]] = []
    in_table = False
    for n, line in enumerate(artefact.lines, 1):
        if m := _VERSION.match(line):
            version, result.lines_used = m["v"], result.lines_used + 1
        elif m := _THREADS.match(line):
            threads, result.lines_used = int(m["n"]), result.lines_used + 1
        elif m := _ARRAY.match(line):
            array, result.lines_used = int(m["n"]), result.lines_used + 1
        elif _HEADER.match(line):
            in_table, result.lines_used = True, result.lines_used + 1
        elif in_table and _KERNEL.match(line):
            m = _ROW.match(line)
            if m is None:
                fb.error(n, "STREAM kernel row without rate and three times")
                continue
            rows.append((n, m))
            result.lines_used += 1
        elif m := _VALID.match(line):
            validated = bool(m["ok"]) if validated is not False else False
            result.lines_used += 1
    parts = [f"{threads} threads" if threads else None, f"array {array} elements" if array else None,
             {True: "solution validates", False: "FAILED validation", None: None}[validated]]
    detail = "; ".join(p for p in parts if p) or None
    for n, m in rows:
        fb.add(BenchResult, n, benchmark="stream", test=m["fn"], entity="host", metric="best_rate",
               value=float(m["rate"]), unit="MB/s", tool_version=version, detail=detail)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
