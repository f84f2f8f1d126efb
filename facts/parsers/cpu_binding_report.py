"""CPU bindings a launcher reports: Open MPI's ``mpirun --report-bindings``.

Sample content (open-mpi/ompi#7660: four ranks under a Slurm allocation of cores)::

    [a1a-u2-c4-b1:118346] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [[<B/././.>][[]
    [a1a-u2-c4-b1:118346] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [[<./B/./.>][[]

The text before the map lists every core the rank is bound to (``socket 0[core 0[hwt 0-1]],
socket 0[core 1[hwt 0-1]]``); its ``core N[`` entries are counted, and its hardware threads.
Open MPI numbers cores relative to the job's cgroup (ompi#7660), so the count is what is read,
not the numbers. ``MCW rank 0 is not bound (or bound to all available processors)`` is an
unbound rank.

Facts: ``rank_cpu_binding`` per rank line (host, rank, bound, cores, hardware threads,
sockets); one ``cpu_binding_summary`` per host of the file (ranks, how many are bound to one
core only, to cores of two or more sockets, or not at all, the fewest cores of a bound rank). A report line whose binding text names no core
is a parse error. Empty input yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    CpuBindingSummary, RankCpuBinding,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cpu_binding_report"

# [a1a-u2-c4-b1:118346] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [[<B/././.>][[]
BOUND = re.compile(r"^\[(?P<host>[^:\]\s]+):(?P<pid>\d+)\] MCW rank (?P<rank>\d+) bound to (?P<what>.+?): \[")
# [host:1234] MCW rank 0 is not bound (or bound to all available processors)
UNBOUND = re.compile(r"^\[(?P<host>[^:\]\s]+):(?P<pid>\d+)\] MCW rank (?P<rank>\d+) is not bound\b")
# socket 0[core 1[hwt 0-1]]
CORE = re.compile(r"(?:socket|package) (?P<socket>\d+)\[core (?P<core>\d+)\[hwt (?P<hwt>[\d,-]+)\]\]")
SIGNATURE = re.compile(r"\] MCW rank \d+ (?:bound to|is not bound)")


#: one hardware-thread list of a core, as Open MPI prints it: "0-1", "0,8", "3"
HWT_LIST = re.compile(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*")


def _threads(spec: str) -> int:
    n = 0
    for part in spec.split(","):
        a, _, b = part.partition("-")
        n += (int(b) - int(a) + 1) if b else 1
    return n


def detect(text: str) -> bool:
    return "MCW rank" in text and SIGNATURE.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    per_host: dict[str, list[RankCpuBinding]] = {}
    first: dict[str, int] = {}
    for n, line in enumerate(artefact.lines, 1):
        m = BOUND.match(line)
        if m is not None:
            cores = CORE.findall(m["what"])
            if not cores:
                b.error(n, f"binding report names no core: {m['what'][:80]!r}")
                continue
            if not all(HWT_LIST.fullmatch(h) for _, _, h in cores):
                b.error(n, f"hardware-thread list not read: {m['what'][:80]!r}")
                continue
            f = b.add(RankCpuBinding, n, host=m["host"], rank=int(m["rank"]), bound=True, cores=len(cores),
                      hwthreads=sum(_threads(h) for _, _, h in cores), sockets=len({s for s, _, _ in cores}))
        elif (m := UNBOUND.match(line)) is not None:
            f = b.add(RankCpuBinding, n, host=m["host"], rank=int(m["rank"]), bound=False)
        else:
            continue
        result.lines_used += 1
        per_host.setdefault(f.host, []).append(f)  # type: ignore[attr-defined]
        first.setdefault(f.host, n)  # type: ignore[attr-defined]
    for host, ranks in per_host.items():
        bound = [r for r in ranks if r.bound]
        b.add(CpuBindingSummary, first[host], host=host, ranks=len(ranks), bound_ranks=len(bound),
              single_core_ranks=sum(1 for r in bound if r.cores == 1),
              min_cores=min((r.cores for r in bound if r.cores), default=None),
              multi_socket_ranks=sum(1 for r in bound if (r.sockets or 0) >= 2), unbound_ranks=len(ranks) - len(bound))
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (SIGNATURE,)
