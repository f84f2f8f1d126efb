"""NUMA nodes: ``numactl -H`` / ``numactl --hardware``.

Sample content (this workplace's device machine, fixtures/artefacts/numactl_hardware/device_h200_vm_one_node.txt)::

    available: 1 nodes (0)
    node 0 cpus: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
    node 0 size: 7130 MB
    node 0 free: 4592 MB
    node distances:
    node   0
      0:  10

Facts: ``numa_node`` per node (its CPUs as a list text ``0-15`` and their count, memory
size and free in MB; a node with CPUs and no memory, or memory and no CPUs, as such), and one
``numa_topology`` per file: nodes, nodes with CPUs, nodes without memory, the largest distance.
Which node a GPU is local to comes from ``nvidia-smi topo -m`` (``gpu_topo_affinity``); these
facts say what the host's nodes are, so that a binding can be judged against them. A ``node N``
line whose values are not numbers is a parse error. Empty input yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    NumaNode, NumaTopology,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "numactl_hardware"

# available: 1 nodes (0)
AVAILABLE = re.compile(r"^available: (?P<n>\d+) nodes? \((?P<range>[\d,-]+)\)\s*$", re.M)
# node 0 cpus: 0 1 2 3    /   node 1 cpus:        (a node without CPUs)
CPUS = re.compile(r"^node (?P<node>\d+) cpus:(?P<cpus>(?: \d+)*)\s*$")
# node 0 size: 7130 MB   /   node 0 free: 4592 MB
MEM = re.compile(r"^node (?P<node>\d+) (?P<what>size|free): (?P<mb>\d+) MB\s*$")
# node distances:
DIST_HEAD = re.compile(r"^node distances:\s*$")
#   0:  10
DIST_ROW = re.compile(r"^\s+(?P<node>\d+):(?P<vals>(?:\s+\d+)+)\s*$")
# node   0   1
DIST_COLS = re.compile(r"^node(?:\s+\d+)+\s*$")


def cpu_list(cpus: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2,5"`` (the form taskset, numactl and nvidia-smi topo print)."""
    out, start, prev = [], None, None
    for c in sorted(cpus):
        if start is None:
            start = prev = c
        elif c == prev + 1:
            prev = c
        else:
            out.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = c
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(out)


def detect(text: str) -> bool:
    return "available: " in text and AVAILABLE.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    nodes: dict[int, dict] = {}
    distances: list[int] = []
    announced = None
    in_dist = False
    for n, line in enumerate(artefact.lines, 1):
        if (m := AVAILABLE.match(line)) is not None:
            announced = (n, int(m["n"]))
        elif (m := CPUS.match(line)) is not None:
            nodes.setdefault(int(m["node"]), {"line": n})["cpus"] = [int(c) for c in m["cpus"].split()]
        elif (m := MEM.match(line)) is not None:
            nodes.setdefault(int(m["node"]), {"line": n})[m["what"]] = int(m["mb"])
        elif DIST_HEAD.match(line):
            in_dist = True
        elif in_dist and DIST_COLS.match(line):
            pass
        elif in_dist and (m := DIST_ROW.match(line)) is not None:
            distances += [int(v) for v in m["vals"].split()]
        elif line.startswith("node ") and announced is not None:
            b.error(n, "numactl -H node line not understood")
            continue
        else:
            continue
        result.lines_used += 1
    if announced is None:
        return result
    for node, d in sorted(nodes.items()):
        cpus = d.get("cpus", [])
        b.add(NumaNode, d["line"], numa_node=node, cpus=cpu_list(cpus), cpu_count=len(cpus), size_mb=d.get("size"),
              free_mb=d.get("free"))
    b.add(NumaTopology, announced[0], nodes=announced[1], nodes_with_cpus=sum(1 for d in nodes.values() if d.get("cpus")),
          nodes_without_memory=sum(1 for d in nodes.values() if d.get("cpus") and d.get("size") == 0),
          max_distance=max(distances) if distances else None)
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (AVAILABLE,)
