"""CPU topology: ``lscpu`` (util-linux).

Sample content (the device machine, fixtures/artefacts/lscpu/device_h200_vm.txt)::

    Architecture:                            x86_64
    CPU(s):                                  16
    Model name:                              Intel(R) Xeon(R) Processor
    Thread(s) per core:                      1
    Core(s) per socket:                      16
    Socket(s):                               1
    Hypervisor vendor:                       KVM
    NUMA node(s):                            1
    NUMA node0 CPU(s):                       0-15

util-linux 2.38+ indents keys under section names (``CPU(s):`` under nothing, ``Model name:``
under ``Vendor ID:``, ``NUMA node0 CPU(s):`` under ``NUMA:``); both layouts read alike.

Facts: one ``cpu_topology`` (CPUs, sockets, cores per socket, threads per core, NUMA nodes
and how many of them have CPUs, model name, hypervisor) and one ``lscpu_numa_node`` per
``NUMA nodeN CPU(s)`` line (its CPU list; empty on the memory-only nodes of a Grace Hopper or
a CXL device). A count that is not a number is a parse error. Empty input yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    CpuTopology, LscpuNumaNode,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "lscpu"

# Architecture:                            x86_64
ARCH = re.compile(r"^Architecture:\s+(?P<arch>\S+)\s*$", re.M)
# Thread(s) per core:                      1     /   "    Thread(s) per core:      1" (2.38+)
KEY = re.compile(r"^\s*(?P<key>[A-Za-z][\w()/ .-]*?):\s*(?P<value>(?:.*\S)?)\s*$")
# NUMA node0 CPU(s):                       0-15
NUMA_CPUS = re.compile(r"^NUMA node(?P<node>\d+) CPU\(s\)$")

_INT_KEYS = {"CPU(s)": "cpus", "Socket(s)": "sockets", "Core(s) per socket": "cores_per_socket",
             "Thread(s) per core": "threads_per_core", "NUMA node(s)": "numa_nodes"}


def detect(text: str) -> bool:
    return "Architecture:" in text and ARCH.search(text) is not None and ("Socket(s):" in text or "CPU(s):" in text)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    start = None
    fields: dict[str, object] = {}
    numa: list[tuple[int, int, str]] = []
    for n, line in enumerate(artefact.lines, 1):
        if start is None:
            m = ARCH.match(line)
            if m is None:
                continue
            start, fields["arch"] = n, m["arch"]
            result.lines_used += 1
            continue
        m = KEY.match(line)
        if m is None:
            if line.strip() and not line.startswith(" "):
                break  # the next command's output
            result.lines_used += bool(line.strip())  # a wrapped Flags line
            continue
        key, value = m["key"].strip(), m["value"]
        result.lines_used += 1
        if key in _INT_KEYS:
            try:
                fields[_INT_KEYS[key]] = int(value)
            except ValueError:
                b.error(n, f"lscpu {key!r} is not a number: {value!r}")
        elif key == "Model name" and "model_name" not in fields:
            fields["model_name"] = value
        elif key == "Hypervisor vendor":
            fields["hypervisor"] = value
        elif (mm := NUMA_CPUS.match(key)) is not None:
            numa.append((n, int(mm["node"]), value))
    if start is None:
        return result
    for n, node, cpus in numa:
        b.add(LscpuNumaNode, n, numa_node=node, cpus=cpus)
    if numa:
        fields["numa_nodes_with_cpus"] = sum(1 for _, _, c in numa if c)
    b.add(CpuTopology, start, **fields)
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (ARCH,)
