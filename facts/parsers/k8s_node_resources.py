"""A Kubernetes node's capacity and allocatable counts of its extended resources (``nvidia.com/gpu``),
as ``kubectl get node <n> -o yaml`` (``status.capacity`` / ``status.allocatable``) or ``kubectl describe
node`` (its ``Capacity:`` / ``Allocatable:`` blocks) print them.

The kubelet's device manager advertises a device plugin's healthy devices as allocatable and all of
them as capacity: allocatable below capacity is devices the plugin reported unhealthy (an Xid, an NVML
health-check failure), held back from new pods. Sample content (real: NVIDIA/k8s-device-plugin#58, a
16-GPU node on plugin 1.10 whose allocatable went to 0; the maintainer: "Allocatable: Number of GPUs in
a 'Healthy' state")::

      allocatable:
        cpu: "48"
        nvidia.com/gpu: "0"
        pods: "110"
      capacity:
        cpu: "48"
        nvidia.com/gpu: "16"

Read line by line (pastes are fragments: no ``kind: Node`` line, cut): a block starts at a line
``allocatable:``/``capacity:`` (YAML) or ``Allocatable:``/``Capacity:`` (describe) and holds the more
indented ``<key>: <quantity>`` lines under it. Facts: ``k8s_node_extended_resource`` per extended
resource (``<domain>/<name>``) found in both blocks with whole-number counts (``resource``,
``capacity``, ``allocatable``, ``unallocatable``, ``gpu``), citing its allocatable line. A reading: rules
judge it. Empty input, or no such pair: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import K8sNodeExtendedResource  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "k8s_node_resources"

#       allocatable:        /     capacity:        /  Allocatable:     (describe node)
_BLOCK = re.compile(r"^(?P<ind>[ \t]*)(?P<which>allocatable|capacity|Allocatable|Capacity):[ \t\r]*$")
#         nvidia.com/gpu: "16"       /   nvidia.com/gpu:     8      (describe's columns)
_ENTRY = re.compile(r"^(?P<ind>[ \t]+)(?P<key>[\w./-]{1,253}):[ \t]+[\"']?(?P<val>\d{1,9})[\"']?[ \t\r]*$")
# nvidia.com/gpu   amd.com/gpu   nvidia.com/mig-1g.5gb   (a domain-qualified resource name)
_EXTENDED = re.compile(r"^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.[a-z]{2,}/[A-Za-z0-9][\w.-]*$")
_GPU = re.compile(r"/(?:gpu|mig-[\w.-]+)$")
_SIGNATURE = re.compile(r"^[ \t]*(?:allocatable|Allocatable):[ \t\r]*$", re.M)


def detect(head: str) -> bool:
    return ("llocatable:" in head and "apacity:" in head and _SIGNATURE.search(head) is not None
            and re.search(r"^[ \t]*(?:capacity|Capacity):[ \t\r]*$", head, re.M) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    blocks: dict[str, dict[str, tuple[int, int]]] = {"allocatable": {}, "capacity": {}}
    cur: dict[str, tuple[int, int]] | None = None
    ind = -1
    for n, line in enumerate(artefact.lines, 1):
        if (m := _BLOCK.match(line)) is not None:
            cur, ind = blocks[m["which"].lower()], len(m["ind"].expandtabs())
            result.lines_used += 1
            continue
        if cur is None:
            continue
        e = _ENTRY.match(line)
        if e is None or len(e["ind"].expandtabs()) <= ind:
            if line.strip() and not line.strip().startswith("...") and not (e is None and line.startswith(" " * (ind + 1))):
                cur = None  # the block ended (a line at its level or above); kubectl's "...." elisions stay inside
            continue
        cur.setdefault(e["key"], (n, int(e["val"])))
        result.lines_used += 1
    for res, (n, alloc) in blocks["allocatable"].items():
        if res not in blocks["capacity"] or not _EXTENDED.match(res):
            continue
        cap = blocks["capacity"][res][1]
        b.add(K8sNodeExtendedResource, n, resource=res, capacity=cap, allocatable=alloc,
              unallocatable=max(0, cap - alloc), gpu=_GPU.search(res) is not None)
    return result


SIGNATURES = (_SIGNATURE,)
