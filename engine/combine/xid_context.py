"""Context of Xids whose workflow asks about more than the line: GSP errors (Xid 119/120)
with the driver that loaded and their recurrence across boots.

NVIDIA's catalogue gives Xid 119 (GSP_RPC_TIMEOUT) and 120 (GSP_ERROR) RESET_GPU, then
INVESTIGATE_SW: the driver and GSP firmware version decide whether it is a known issue, and
a timeout that comes back after a reset points at the GPU. So the fact carries the driver
version of the node's log and the count of boots the code showed up in.
"""
from __future__ import annotations

from collections import defaultdict

from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.xid_knowledge_facts import GspErrorContext

GSP_CODES = (119, 120)
MAX_SOURCES = 50


def gsp_contexts(xids: list[Fact], facts: list[Fact]) -> list[Fact]:
    by_gpu: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for x in xids:
        if x.xid in GSP_CODES:  # type: ignore[attr-defined]
            by_gpu[(x.node, x.pci_bus_id)].append(x)  # type: ignore[attr-defined]
    if not by_gpu:
        return []
    drivers: dict[str, Fact] = {}
    for f in sorted((f for f in facts if f.kind == "nvidia_driver_loaded"), key=lambda f: (f.evidence.path, f.evidence.line)):
        drivers[f.node] = f  # the last load in the log: the driver the errors ran under
    out: list[Fact] = []
    for (node, bus), lines in sorted(by_gpu.items()):
        lines.sort(key=lambda f: (f.evidence.path, f.evidence.line))
        drv = drivers.get(node)
        boots = {(x.evidence.path, x.boot) for x in lines}  # type: ignore[attr-defined]
        src = lines[:MAX_SOURCES] + ([drv] if drv else [])
        out.append(GspErrorContext(
            id=f"agg:gsp:{node}:{bus}", node=node, evidence=lines[0].evidence, pci_bus_id=bus,
            codes=",".join(str(c) for c in sorted({x.xid for x in lines})),  # type: ignore[attr-defined]
            events=len(lines), boots=len(boots),
            driver_version=drv.version if drv else "unknown",  # type: ignore[attr-defined]
            open_module=drv.open_module if drv else None,  # type: ignore[attr-defined]
            sources=",".join(f.id for f in src),
        ))
    return out
