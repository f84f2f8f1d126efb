"""``perf script`` output: the samples ``perf record -g`` took, each a header line and its call stack.

Sample content (deepseek-ai/DeepEP#624, an SGLang scheduler thread sampled while DeepEP's internode
dispatch showed latency spikes; the stored copy cuts the stack after task_work_run)::

    sglang::schedul 2256971 53718.148983:     740539 cycles:
            ffffffffba32fa60 vm_normal_page+0x0 ([kernel.kallsyms])
            ffffffffba37d536 change_prot_numa+0x36 ([kernel.kallsyms])
            ffffffffba14094b task_numa_work+0x1ab ([kernel.kallsyms])

The header is perf's default for a record with call graphs: command, pid (``pid/tid`` with
``-F +tid``), an optional ``[cpu]``, the timestamp, the period and the event; each frame is an
address, a symbol (``+0x..`` offset) and the object in parentheses (``[kernel.kallsyms]``, a
library path, ``[unknown]``).

Facts: ``perf_process_samples`` per process (command and pid): its samples, and how many had the
kernel's automatic NUMA balancing on their stack (the scanner task_numa_work and the page
protection change it makes, or the NUMA hinting fault that follows: :data:`NUMA_BALANCING`).
Empty input, or samples without stacks: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import PerfProcessSamples  # noqa: F401 - the fact class lives in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "perf_script"

#: the kernel functions of automatic NUMA balancing (kernel/sched/fair.c: task_numa_work scans a
#: task's memory and change_prot_numa marks it PROT_NONE; mm/memory.c: do_numa_page takes the hinting
#: fault, mm/migrate.c migrates the misplaced page): time in them is time the process's own thread
#: spends in the kernel on its way back to user space
NUMA_BALANCING = frozenset({
    "task_numa_work", "change_prot_numa", "task_numa_fault", "do_numa_page", "do_huge_pmd_numa_page",
    "numa_migrate_prep", "migrate_misplaced_page", "migrate_misplaced_folio", "task_numa_migrate",
})

# sglang::schedul 2256971 53718.148983:     740539 cycles:
# python3 1234/1240 [012] 53718.148983:     250000 cpu-clock:pppH:
#   (comm bounded: the kernel's is 15 characters; unbounded, each pid-like number of a long line was retried)
_HEAD = re.compile(r"^(?P<comm>\S.{0,63}?) +(?P<pid>\d+)(?:/\d+)? +(?:\[\d+\] +)?\d+\.\d+: +(?:\d+ +)?[\w:./-]+:\s*$")
#         ffffffffba14094b task_numa_work+0x1ab ([kernel.kallsyms])
_FRAME = re.compile(r"^\s+[0-9a-f]{4,16} (?P<sym>\S+?)(?:\+0x[0-9a-f]+)? \((?:\[[\w.]+\]|/[^)]*)\)\s*$")
_LINE = re.compile(_HEAD.pattern + "|" + _FRAME.pattern, re.M)
_KERNEL_FRAME = " ([kernel.kallsyms])"
_HEAD_M = re.compile(_HEAD.pattern, re.M)
_FRAME_M = re.compile(_FRAME.pattern, re.M)


def detect(head: str) -> bool:
    """A sample's header line and a kernel stack frame (``([kernel.kallsyms])``): the stacks of ``perf record -g``
    without ``:u``; user-space-only stacks are left to other readers."""
    return _KERNEL_FRAME in head and _FRAME_M.search(head) is not None and _HEAD_M.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    procs: dict[tuple[str, int], list[int]] = {}  # (comm, pid) -> [first line, samples, numa samples]
    current: list[int] | None = None
    in_numa = False
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        if m["comm"] is not None:
            current = procs.setdefault((m["comm"], int(m["pid"])), [n, 0, 0])
            current[1] += 1
            in_numa = False
        elif current is not None and not in_numa and m["sym"] in NUMA_BALANCING:
            current[2] += 1
            in_numa = True
    for (comm, pid), (line, samples, numa) in procs.items():
        fb.add(PerfProcessSamples, line, comm=comm, pid=pid, samples=samples, numa_balancing_samples=numa)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (re.escape(_KERNEL_FRAME),)
