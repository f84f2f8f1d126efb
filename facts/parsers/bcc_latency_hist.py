"""bcc's latency histograms of one traced kernel function (``funclatency``, /usr/share/bcc/tools):
its log2 buckets and the ``avg = ... total: ... count:`` line.

Sample content (deepseek-ai/DeepEP#624: the kernel's NUMA balancing scanner in an SGLang
scheduler process, 60 s)::

    # funclatency -d 60 -m -p 2256971 task_numa_work
    Tracing 1 functions for "task_numa_work"... Hit Ctrl-C to end.

         msecs               : count     distribution
             0 -> 1          : 72       |****************************************|
             8 -> 15         : 57       |*******************************         |

    avg = 5 msecs, total: 789 msecs, count: 139

The lines are bcc's own: tools/funclatency.py prints ``Tracing %d functions for "%s"... Hit
Ctrl-C to end.`` and ``avg = %ld %s, total: %ld %s, count: %ld``; the buckets are
``table.print_log2_hist`` (``%*d -> %-*d : %-8d |%s|`` under a ``<unit> : count distribution``
header, unit nsecs, usecs or msecs).

Facts: ``kernel_function_latency`` per histogram (its header line): the traced function (the
Tracing line's pattern; None where not pasted), the command's ``-p`` pid, the call count, average
and total, the lower bound of the slowest non-empty bucket and the calls of 1 ms or more, all in
ms, and whether the function is the kernel's automatic NUMA balancing. Histograms of other bcc
tools (biolatency, runqlat) share the form but trace no function: only a histogram after a
``Tracing ... functions for`` line is read. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import KernelFunctionLatency  # noqa: F401 - the fact class lives in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.perf_script import NUMA_BALANCING

KIND = "bcc_latency_hist"

_MS = {"nsecs": 1e-6, "usecs": 1e-3, "msecs": 1.0}

_LINE = re.compile(
    # # funclatency -d 60 -m -p 2256971 task_numa_work
    r"^(?:[#$] *)?(?:\S*/)?funclatency(?:-bpfcc|\.py)?\b(?P<args>[^\n]*)"
    # Tracing 1 functions for "task_numa_work"... Hit Ctrl-C to end.
    r'|^Tracing \d+ functions? for "(?P<func>[^"\n]*)"\.\.\.'
    #      msecs               : count     distribution
    r"|^ *(?P<unit>nsecs|usecs|msecs) +: count +distribution"
    #          8 -> 15         : 57       |*******************************         |
    r"|^ *(?P<lo>\d+) -> (?P<hi>\d+) +: (?P<n>\d+) +\|"
    # avg = 5 msecs, total: 789 msecs, count: 139
    r"|^avg = (?P<avg>\d+) (?P<aunit>[num]secs), total: (?P<total>\d+) [num]secs, count: (?P<count>\d+)",
    re.M,
)
_PID = re.compile(r"(?:^|\s)-p\s*(?P<pid>\d+)")
_DETECT = re.compile(r'^Tracing \d+ functions? for "[^"\n]*"\.\.\. Hit Ctrl-C to end\.|^ *(?:nsecs|usecs|msecs) +: count +distribution',
                     re.M)


def detect(head: str) -> bool:
    return "functions for" in head and _DETECT.search(head) is not None and "count" in head


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    func = pid = None
    hist: dict | None = None
    hists: list[dict] = []
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        if m["args"] is not None:
            p = _PID.search(m["args"])
            pid = int(p["pid"]) if p else pid
        elif m["func"] is not None:
            func = m["func"]
        elif m["unit"] is not None:
            if func is None:
                continue  # a histogram of another bcc tool (biolatency, runqlat): no traced function
            hist = {"line": n, "unit": m["unit"], "function": func, "pid": pid, "buckets": []}
            hists.append(hist)
        elif hist is None:
            continue
        elif m["lo"] is not None:
            hist["buckets"].append((int(m["lo"]), int(m["n"])))
        else:
            hist["avg"], hist["total"], hist["count"] = int(m["avg"]), int(m["total"]), int(m["count"])
            hist["line"] = n  # the summary is the line to quote
            hist = None
    for h in hists:
        scale = _MS[h["unit"]]
        full = [(lo * scale, n) for lo, n in h["buckets"] if n]
        if not full:
            continue
        name = h["function"]
        fb.add(KernelFunctionLatency, h["line"], function=name, pid=h["pid"],
               traced=f"process {h['pid']}" if h["pid"] is not None else "every process",
               count=h.get("count", sum(n for _, n in full)),
               avg_ms=h["avg"] * scale if "avg" in h else None, total_ms=h["total"] * scale if "total" in h else None,
               slowest_ms=max(lo for lo, _ in full), slow_calls=sum(n for lo, n in full if lo >= 1.0),
               numa_balancing=name in NUMA_BALANCING)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECT,)
