"""Whole-log views of kernel facts that a single-fact rule cannot see: repeats, recurrence
across boots, decay after a reboot, a PCIe error before a GPU loss, NVLink5 line decoding.

Each function emits facts (classes in :mod:`stethoscope.facts.parsers.xid_knowledge_facts`)
that carry ``sources``, so findings quote the original lines. The judgements (how many
repeats make a suspect GPU, what escalates) stay in the rules; this module only counts.

Boot indexes are per file (the kernel log parser numbers the boots of each file), so
everything that compares boots groups by node and file.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from stethoscope.facts.knowledge import load as load_knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.kernel_log_time import stamp_seconds as _seconds
from stethoscope.engine.catalogues.nvlink_xid import nvlink5_details, xid74_details
from stethoscope.engine.combine.xid_context import gsp_contexts
from stethoscope.facts.parsers.xid_knowledge_facts import (
    XID45_PREVIOUS,
    NvswitchSxidLinks,
    PcieGpuLoss,
    Xid45Context,
    XidCausedBy,
    XidRecoveryContext,
    XidRecurrence,
    XidRepeat,
    XidStale,
)

if TYPE_CHECKING:
    from stethoscope.engine.catalogues.xid import Catalogue

APP_FAULT_CODES = (13, 31)
MAX_SOURCES = 200  # a storm of thousands of lines: the first ones tell the story
EVENT_GAP_S = 2.0  # lines of one fault are printed within a second
EVENT_GAP_LINES = 5  # without stamps: lines of one fault are adjacent

def _ids(facts: list[Fact]) -> str:
    return ",".join(f.id for f in facts[:MAX_SOURCES])


def _order(f: Fact) -> tuple[str, int]:
    return (f.evidence.path, f.evidence.line)


def repeats(xids: list[Fact]) -> list[Fact]:
    """One ``xid_repeat`` per GPU with Xid 13/31: its events, pids, processes and locations."""
    by_gpu: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for x in xids:
        if x.xid in APP_FAULT_CODES:  # type: ignore[attr-defined]
            by_gpu[(x.node, x.pci_bus_id)].append(x)  # type: ignore[attr-defined]
    out: list[Fact] = []
    shared = load_knowledge("process_names.yaml") if by_gpu else None
    for (node, bus), lines in sorted(by_gpu.items()):
        lines.sort(key=_order)
        events: list[list[Fact]] = []
        for x in lines:
            prev = events[-1][-1] if events else None
            if prev is None or prev.evidence.path != x.evidence.path or prev.pid != x.pid:  # type: ignore[attr-defined]
                events.append([x])
                continue
            a, b = _seconds(prev.timestamp), _seconds(x.timestamp)  # type: ignore[attr-defined]
            far = abs(b - a) > EVENT_GAP_S if a is not None and b is not None else x.evidence.line - prev.evidence.line > EVENT_GAP_LINES
            if far:
                events.append([x])
            else:
                events[-1].append(x)
        pids = {x.pid for x in lines if x.pid is not None}  # type: ignore[attr-defined]
        names = sorted({x.process for x in lines if x.process})  # type: ignore[attr-defined]
        # a new pid is not a new program (a game or service restarted, a job retried): names tell programs
        # apart when every line prints one (two thread names of one pid are one program); a line without
        # one, or with one many programs share (python3, pt_main_thread: knowledge/process_names.yaml),
        # could be any program, so pids count then
        named = all(x.process and not shared.is_shared(x.process) for x in lines)  # type: ignore[attr-defined]
        programs = (min(len(names), len(pids)) if pids else len(names)) if named else len(pids)
        where: dict[str, int] = defaultdict(int)
        for ev in events:
            for loc in {f"{x.gpc} {x.tpc}" for x in ev if x.gpc and x.tpc}:  # type: ignore[attr-defined]
                where[loc] += 1
        loc, count = max(where.items(), key=lambda kv: (kv[1], kv[0])) if where else (None, 0)
        out.append(XidRepeat(
            id=f"agg:xid_repeat:{node}:{bus}", node=node, evidence=lines[0].evidence, pci_bus_id=bus,
            # older drivers print no process name (``pid=13641, Ch 00000008``): the report says so rather than "()"
            events=len(events), pids=len(pids), processes=",".join(names) or "no process name printed", programs=programs,
            same_location_events=count,
            location=loc, sources=_ids([ev[0] for ev in events]),
        ))
    return out


def _by_file(facts: list[Fact]) -> dict[tuple[str, str], list[Fact]]:
    out: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        out[(f.node, f.evidence.path)].append(f)
    return out


def recurrences(xids: list[Fact]) -> list[Fact]:
    """The same code on the same GPU in two or more boots of one file."""
    groups: dict[tuple[str, str, str, int], dict[int, Fact]] = defaultdict(dict)
    for x in sorted(xids, key=_order):
        groups[(x.node, x.evidence.path, x.pci_bus_id, x.xid)].setdefault(x.boot, x)  # type: ignore[attr-defined]
    out: list[Fact] = []
    for (node, path, bus, code), per_boot in sorted(groups.items()):
        if len(per_boot) < 2:
            continue
        firsts = [per_boot[b] for b in sorted(per_boot)]
        out.append(XidRecurrence(
            id=f"agg:xid_recurrence:{node}:{path}:{bus}:{code}", node=node, evidence=firsts[-1].evidence,
            pci_bus_id=bus, xid=code, boots=len(per_boot), first_boot=min(per_boot), last_boot=max(per_boot),
            sources=_ids(firsts),
        ))
    return out


def stale(xids: list[Fact], boots: list[Fact], loads: list[Fact] = (), shown: set[tuple[str, str]] = frozenset()) -> list[Fact]:
    """Xids of a boot followed, in the same file, by a later boot without any Xid on that GPU, in
    which the NVIDIA driver loaded (``loads``: its load lines): a boot whose lines show no driver
    (not loaded, or cut off the paste) says nothing of whether the GPU came back; one whose log stops at
    the load line is marked (``seen_since`` False) for the rules to tell apart, unless nvidia-smi of the
    node shows the GPU (``shown``: (node, bus id) of its gpu_info facts: NVML opened it)."""
    boots_of = _by_file(boots)
    loaded = {(f.node, f.evidence.path, f.boot) for f in loads}  # type: ignore[attr-defined]
    # boots whose load line the log runs on past (XidStale.seen_since)
    ran = {(f.node, f.evidence.path, f.boot) for f in loads  # type: ignore[attr-defined]
           if getattr(f, "runs_on", None) is not False and not getattr(f, "alone", False)}
    out: list[Fact] = []
    for (node, path), lines in sorted(_by_file(xids).items()):
        markers = sorted((m for m in boots_of.get((node, path), []) if (node, path, m.boot) in loaded),  # type: ignore[attr-defined]
                         key=_order)
        last_xid_boot: dict[str, int] = {}
        for x in lines:
            last_xid_boot[x.pci_bus_id] = max(last_xid_boot.get(x.pci_bus_id, -1), x.boot)  # type: ignore[attr-defined]
        groups: dict[tuple[str, int, int], list[Fact]] = defaultdict(list)
        for x in sorted(lines, key=_order):
            groups[(x.pci_bus_id, x.xid, x.boot)].append(x)  # type: ignore[attr-defined]
        for (bus, code, boot), group in sorted(groups.items()):
            later = [m for m in markers if m.boot > boot]  # type: ignore[attr-defined]
            if not later or last_xid_boot[bus] > boot:
                continue
            out.append(XidStale(
                id=f"agg:xid_stale:{node}:{path}:{bus}:{code}:{boot}", node=node, evidence=group[0].evidence,
                pci_bus_id=bus, xid=code, boot=boot, later_boots=len({m.boot for m in later}),  # type: ignore[attr-defined]
                seen_since=(node, bus) in shown or any((node, path, m.boot) in ran for m in later),  # type: ignore[attr-defined]
                sources=_ids(group[:3] + later[:1]),
            ))
    return out


def _pcie_event(f: Fact) -> str | None:
    if f.kind == "pcie_link_down":
        return "link down"
    errors = (f.errors or "") + "," + (f.first_error or "")  # type: ignore[attr-defined]
    if re.search(r"\bSDES\b|Surprise Down", errors):
        return "surprise down"
    if f.severity in ("fatal", "nonfatal"):  # type: ignore[attr-defined]
        return f"AER {f.severity}"  # type: ignore[attr-defined]
    return None


def pcie_losses(xids: list[Fact], pcie: list[Fact]) -> list[Fact]:
    """Xid 79 preceded, in the same file and boot, by a PCIe error on its path.

    On the path means: the AER event names the GPU itself (as device or reporting port), or
    it is a surprise down / link down on the node while exactly one GPU fell off in that
    boot (a port above the GPU; the log does not say which port leads to which GPU, but with
    one lost GPU there is no other candidate)."""
    lost = [x for x in xids if x.xid == 79]  # type: ignore[attr-defined]
    per_boot: dict[tuple[str, str, int], set[str]] = defaultdict(set)
    for x in lost:
        per_boot[(x.node, x.evidence.path, x.boot)].add(x.pci_bus_id)  # type: ignore[attr-defined]
    out: list[Fact] = []
    seen: set[tuple[str, str, int]] = set()
    for x in sorted(lost, key=_order):
        key = (x.node, x.pci_bus_id, x.boot)  # type: ignore[attr-defined]
        if key in seen:
            continue
        before = [p for p in pcie if p.node == x.node and p.evidence.path == x.evidence.path
                  and p.boot == x.boot and p.evidence.line < x.evidence.line]  # type: ignore[attr-defined]
        match = None
        for p in sorted(before, key=_order, reverse=True):
            what = _pcie_event(p)
            if what is None:
                continue
            names = {p.device, getattr(p, "reporter", None)}  # type: ignore[attr-defined]
            alone = len(per_boot[(x.node, x.evidence.path, x.boot)]) == 1  # type: ignore[attr-defined]
            if x.pci_bus_id in names or (what in ("surprise down", "link down") and alone):  # type: ignore[attr-defined]
                match = (p, what)
                break
        if match is None:
            continue
        seen.add(key)
        p, what = match
        out.append(PcieGpuLoss(
            id=f"agg:pcie_gpu_loss:{x.node}:{x.pci_bus_id}:{x.boot}", node=x.node, evidence=p.evidence,  # type: ignore[attr-defined]
            pci_bus_id=x.pci_bus_id, boot=x.boot, pcie_device=p.device, pcie_event=what,  # type: ignore[attr-defined]
            sources=_ids([p, x]),
        ))
    return out


def xid45_contexts(xids: list[Fact]) -> list[Fact]:
    """For each GPU with Xid 45: the other Xids it may follow (same node, or named on its line)."""
    out: list[Fact] = []
    by_gpu: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for x in sorted(xids, key=_order):
        if x.xid == 45:  # type: ignore[attr-defined]
            by_gpu[(x.node, x.pci_bus_id)].append(x)  # type: ignore[attr-defined]
    for (node, bus), lines in sorted(by_gpu.items()):
        others = [x for x in xids if x.node == node and x.xid != 45]  # type: ignore[attr-defined]
        named = [int(m["code"]) for x in lines if (m := XID45_PREVIOUS.search(x.message))]  # type: ignore[attr-defined]
        codes = sorted({x.xid for x in others} | set(named))  # type: ignore[attr-defined]
        out.append(Xid45Context(
            id=f"agg:xid45:{node}:{bus}", node=node, evidence=lines[0].evidence, pci_bus_id=bus,
            follows=len(others) + len(named), other_codes=",".join(map(str, codes)),
            sources=_ids(lines[:3] + sorted(others, key=_order)[:5]),
        ))
    return out


def caused_by(xids: list[Fact]) -> list[Fact]:
    """One ``xid_caused_by`` per GPU and earlier code that lines name ("caused by previous Xid N")."""
    seen = {(x.node, x.pci_bus_id, x.xid) for x in xids}  # type: ignore[attr-defined]
    groups: dict[tuple[str, str, int, int], list[Fact]] = defaultdict(list)
    for x in sorted(xids, key=_order):
        if x.previous_xid is not None:  # type: ignore[attr-defined]
            groups[(x.node, x.pci_bus_id, x.xid, x.previous_xid)].append(x)  # type: ignore[attr-defined]
    return [XidCausedBy(
        id=f"agg:xid_caused_by:{node}:{bus}:{code}:{prev}", node=node, evidence=lines[0].evidence, pci_bus_id=bus,
        xid=code, previous_xid=prev, previous_seen=(node, bus, prev) in seen, events=len(lines), sources=_ids(lines),
    ) for (node, bus, code, prev), lines in sorted(groups.items())]


def recovery_contexts(xids: list[Fact], facts: list[Fact]) -> list[Fact]:
    """For each recovery-action change (Xid 154) that names an action: the Xid it announces, the
    nearest earlier Xid line of the same GPU in the same log and boot, printed with it (one fault's
    lines: within EVENT_GAP_S by their stamps, else EVENT_GAP_LINES lines), other than channel
    cleanup (Xid 45: it follows a fault, it is none) and other Xid 154 lines. A change with no
    such line stays on its own (rule xid154_recovery_action)."""
    out: list[Fact] = []
    recs = {(r.evidence.path, r.evidence.line): r for r in of_kind(facts, "gpu_recovery_action")}
    for x154 in xids:
        rec = recs.get(_order(x154))
        if x154.xid != 154 or rec is None:  # type: ignore[attr-defined]
            continue
        t154 = _seconds(x154.timestamp)  # type: ignore[attr-defined]
        before = [x for x in xids if x.xid not in (45, 154) and x.node == x154.node  # type: ignore[attr-defined]
                  and x.pci_bus_id == x154.pci_bus_id and x.evidence.path == x154.evidence.path  # type: ignore[attr-defined]
                  and x.boot == x154.boot and x.evidence.line < x154.evidence.line]  # type: ignore[attr-defined]
        if not before:
            continue
        cause = max(before, key=_order)
        t = _seconds(cause.timestamp)  # type: ignore[attr-defined]
        near = (0 <= t154 - t <= EVENT_GAP_S if t is not None and t154 is not None
                else x154.evidence.line - cause.evidence.line <= EVENT_GAP_LINES)
        if near:
            out.append(XidRecoveryContext(
                id=f"agg:xid_recovery:{rec.id}", node=x154.node, evidence=x154.evidence, pci_bus_id=x154.pci_bus_id,  # type: ignore[attr-defined]
                recovery_id=rec.id, action=rec.action, xid=cause.xid, sources=_ids([cause, x154]),  # type: ignore[attr-defined]
            ))
    return out


def sxid_links(facts: list[Fact]) -> list[Fact]:
    """One ``nvswitch_sxid_links`` per (node, NVSwitch, SXid code): the distinct links its lines
    name, in order (``Link 48`` in the kernel's headline, ``port 61`` in the fabric manager's
    line); a Severity/Data line alone names none."""
    by_code: dict[tuple[str, str, int], list[Fact]] = defaultdict(list)
    for f in of_kind(facts, "nvswitch_sxid"):
        by_code[(f.node, f.switch, f.sxid)].append(f)  # type: ignore[attr-defined]
    out: list[Fact] = []
    for (node, switch, code), lines in sorted(by_code.items()):
        lines.sort(key=_order)
        links = sorted({f.link for f in lines if f.link is not None})  # type: ignore[attr-defined]
        out.append(NvswitchSxidLinks(
            id=f"agg:sxid_links:{node}:{switch}:{code}", node=node, evidence=lines[0].evidence, switch=switch, sxid=code,
            links=", ".join(map(str, links)) if links else "none", link_count=len(links), sources=_ids(lines),
        ))
    return out


def aggregate(facts: list[Fact], cat: "Catalogue") -> list[Fact]:
    xids = of_kind(facts, "xid_event")
    if not xids:
        return []
    boots = of_kind(facts, "kernel_boot")
    pcie = of_kind(facts, "pcie_aer_error", "pcie_link_down")
    shown = {(f.node, f.pci_bus_id) for f in of_kind(facts, "gpu_info")}  # type: ignore[attr-defined]
    return (repeats(xids) + recurrences(xids) + stale(xids, boots, of_kind(facts, "nvidia_driver_loaded"), shown)
            + pcie_losses(xids, pcie) + nvlink5_details(xids, cat)
            + xid74_details(xids, facts) + xid45_contexts(xids) + caused_by(xids) + gsp_contexts(xids, facts)
            + recovery_contexts(xids, facts))
