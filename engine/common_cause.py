"""Common-cause localisation: findings that share one upstream element are lifted to it.

Several findings on things behind one element are more simply explained by that element than
by as many independent faults: ports of several hosts cabled to one leaf switch, GPUs behind
one PCIe switch, every rank of one node. An element is suspected when findings (warning or
worse) name at least ``MIN_MEMBERS`` distinct things behind it, spread over more than one
parent where that matters (ports of at least two hosts), and they are at least
``LIFT_FRACTION`` of everything the graph knows behind it: two bad cables among a leaf's 32
ports are two cables, not the leaf.

The lifted finding names the element, lists the members' entities as ``blast_radius``, says in
``placed_by`` which findings and which cabling or PCI tree placed it, and explains the members
(they become its cascade). When a localisation finding already names the same element (pairwise
tests that single out a switch), the evidence is added to it instead of making a second one.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx

from stethoscope.engine.findings import SEVERITY_ORDER
from stethoscope.engine.report import Entity, Finding
from stethoscope.facts.model import Fact

MIN_MEMBERS = 2
LIFT_FRACTION = 0.5
_COMPONENTS = {"switch": {"network"}, "pci": {"gpu", "pcie", "gpu_memory", "nvlink"}, "host": None}


@dataclass
class Group:
    element: str  # graph node id: switch:leaf03, pci:node1/0000:15:00.0, host:node4
    members: list[Finding] = field(default_factory=list)
    things: set[str] = field(default_factory=set)  # distinct ports / GPUs / ranks named
    behind: set[str] = field(default_factory=set)  # everything known behind the element


def _port_of(graph: nx.Graph, e: Entity) -> str | None:
    if not (e.node and e.hca):
        return None
    if e.port:
        pid = f"port:{e.node}/{e.hca}/{e.port}"
        return pid if pid in graph else None
    hid = f"hca:{e.node}/{e.hca}"
    ports = [n for n in graph.neighbors(hid) if graph.nodes[n]["type"] == "port"] if hid in graph else []
    return ports[0] if len(ports) == 1 else None


def _switch_ports(graph: nx.Graph, sw: str) -> set[str]:
    return {n for n in graph.neighbors(sw) if graph.nodes[n]["type"] == "port"}


def _ranks_by_node(facts: list[Fact]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = defaultdict(set)
    for f in facts:
        if f.kind == "nccl_rank":
            out[f.node].add(f.rank)
        elif f.kind == "nccl_test_rank":
            out[f.host].add(f.rank)
    return out


def groups(findings: list[Finding], graph: nx.Graph, facts: list[Fact]) -> list[Group]:
    """Candidate elements with the findings behind them (before the thresholds)."""
    found: dict[str, Group] = {}
    ranks = _ranks_by_node(facts)
    for f in findings:
        if SEVERITY_ORDER[f.severity] < 1 or f.rule.startswith("localise_"):
            continue
        e = f.entity
        port = _port_of(graph, e)
        if port and f.component in _COMPONENTS["switch"]:
            for sw in (n for n in graph.neighbors(port) if graph.nodes[n]["type"] == "switch"):
                g = found.setdefault(sw, Group(sw, behind=_switch_ports(graph, sw)))
                g.members.append(f)
                g.things.add(port)
        gid = f"gpu:{e.node}/{e.gpu}" if e.node and e.gpu else None
        if gid in graph and f.component in _COMPONENTS["pci"]:
            parent = graph.nodes[f"pci:{e.node}/{e.gpu}"].get("parent") if f"pci:{e.node}/{e.gpu}" in graph else None
            if parent:
                bridge = f"pci:{e.node}/{parent}"
                behind = {f"gpu:{e.node}/{n.split('/', 1)[1]}" for n in graph.neighbors(bridge)
                          if graph.nodes[n]["type"] == "pci" and graph.nodes[n].get("parent") == parent and f"gpu:{e.node}/{n.split('/', 1)[1]}" in graph}
                g = found.setdefault(bridge, Group(bridge, behind=behind))
                g.members.append(f)
                g.things.add(gid)
        if e.rank is not None and e.node and len(ranks.get(e.node, ())) >= 2:
            hid = f"host:{e.node}"
            g = found.setdefault(hid, Group(hid, behind={f"rank {r}" for r in ranks[e.node]}))
            g.members.append(f)
            g.things.add(f"rank {e.rank}")
    return list(found.values())


def _qualifies(g: Group, all_ranks_hit: bool) -> bool:
    if len(g.things) < MIN_MEMBERS or not g.behind:
        return False
    kind = g.element.split(":", 1)[0]
    if kind == "switch" and len({t.split("/")[0] for t in g.things}) < 2:
        return False  # ports of one host share the host first
    if kind == "host":
        return g.things >= g.behind and not all_ranks_hit
    return len(g.things & g.behind) / len(g.behind) >= LIFT_FRACTION


def lift(findings: list[Finding], graph: nx.Graph, facts: list[Fact]) -> tuple[list[Finding], list[tuple[Finding, list[Finding]]]]:
    """The findings (localisation findings amended) and (lifted finding, its members) pairs."""
    cands = groups(findings, graph, facts)
    rank_groups = [g for g in cands if g.element.startswith("host:")]
    all_ranks_hit = bool(rank_groups) and all(g.things >= g.behind for g in rank_groups) and \
        set(_ranks_by_node(facts)) <= {g.element[5:] for g in rank_groups}
    taken: set[int] = set()
    out = list(findings)
    lifted: list[tuple[Finding, list[Finding]]] = []
    for g in sorted(cands, key=lambda g: (-len(g.things), g.element)):
        members = [m for m in g.members if id(m) not in taken]
        if not _qualifies(Group(g.element, members, g.things, g.behind), all_ranks_hit):
            continue
        taken.update(id(m) for m in members)
        finding = _lifted(g, members, graph)
        same = next((i for i, f in enumerate(out) if f.rule.startswith("localise_") and _names(f, g.element)), None)
        if same is not None:  # pairwise tests already named it: one finding, both reasons
            old = out[same]
            finding = old.model_copy(update={
                "placed_by": old.placed_by + finding.placed_by,
                "blast_radius": sorted(set(old.blast_radius) | set(finding.blast_radius)),
                "confidence": max(old.confidence, finding.confidence),
                "evidence": (old.evidence + [e for e in finding.evidence if e not in old.evidence])[:20],
                "evidence_total": old.evidence_total + finding.evidence_total,
                "nodes": sorted(set(old.nodes) | set(finding.nodes)),
            })
            out[same] = finding
        else:
            out.append(finding)
        lifted.append((finding, members))
    return out, lifted


def _names(f: Finding, element: str) -> bool:
    kind, name = element.split(":", 1)
    e = f.entity
    if kind == "switch":
        return e.switch == name and not e.node
    if kind == "host":
        return e.node == name and not (e.hca or e.gpu or e.link)
    return False


def _lifted(g: Group, members: list[Finding], graph: nx.Graph) -> Finding:
    kind, name = g.element.split(":", 1)
    worst = max(members, key=lambda m: SEVERITY_ORDER[m.severity])
    things = sorted(g.things)
    shown = ", ".join(things[:8]) + (f" and {len(things) - 8} more" if len(things) > 8 else "")
    frac = len(g.things & g.behind) / len(g.behind)
    causes = sorted({m.cause for m in members})
    if kind == "switch":
        cabling = sorted({graph.edges[p, g.element].get("source", "cabling") for p in g.things if graph.has_edge(p, g.element)})
        entity = Entity(switch=name, label=f"switch {name}")
        cause, component, actions = "ib_switch_fault", "network", ["CHECK_IB_SWITCH", "CHECK_IB_CABLE"]
        what = f"{len(things)} of the {len(g.behind)} host ports cabled to {name}"
        placed = [f"common cause: {what} ({shown}) have findings ({', '.join(causes)}), on {len({t.split('/')[0] for t in things})} hosts",
                  f"cabling: {', '.join(cabling)}"]
        summary = f"Switch {name}: {what} show {', '.join(causes)}; one switch explains them better than {len(things)} separate cables"
    elif kind == "pci":
        node, bus = name.split("/", 1)
        entity = Entity(node=node, switch=bus, label=f"{node} PCIe switch {bus}")
        cause, component, actions = "pcie_switch_fault", "pcie", ["CHECK_PCIE_SWITCH", "HARDWARE_INSPECTION"]
        what = f"{len(things)} of the {len(g.behind)} GPUs behind PCIe switch {bus} on {node}"
        placed = [f"common cause: {what} ({shown}) have findings ({', '.join(causes)})", "PCI tree: NCCL's topology dump"]
        summary = f"PCIe switch {bus} on {node}: {what} show {', '.join(causes)}"
    else:
        entity = Entity(node=name, label=name)
        cause, component, actions = worst.cause, worst.component, list(dict.fromkeys(a for m in members for a in m.actions))
        what = f"every rank of {name} ({', '.join(things)})"
        placed = [f"common cause: {what} has a finding ({', '.join(causes)}), ranks on other nodes do not",
                  "ranks per node: NCCL's init lines or nccl-tests' '# Rank' lines"]
        summary = f"{name}: {what} shows {', '.join(causes)}: the node, not one rank"
    evidence = list({(e.path, e.line): e for m in members for e in m.evidence}.values())
    return Finding(rank=0, rule="localise_common_cause", title="Findings share one upstream element", cause=cause, component=component,
                   severity=worst.severity, confidence=round(min(0.95, 0.6 + 0.3 * frac), 2), role="root_cause", entity=entity,
                   summary=summary, actions=actions, action_text="", evidence=evidence[:20], evidence_total=len(evidence),
                   nodes=sorted({n for m in members for n in m.nodes} | ({entity.node} if entity.node else set())),
                   placed_by=placed, blast_radius=[m.entity.label for m in members])


def key(f: Finding) -> tuple:
    """What identifies a finding across re-ranking (ranks and roles change, these do not)."""
    return (f.rule, f.cause, f.entity.label, f.summary)


def attach(findings: list[Finding], explained: list[tuple[Finding, list[Finding]]]) -> list[Finding]:
    """Mark each group's members as its cascade, put them after their cause, renumber ranks.
    ``findings`` are ranked; ``explained`` may hold the same findings before ranking."""
    if not explained:
        return findings
    rank_of = {key(f): f.rank for f in findings}
    causes: dict[int, list[int]] = defaultdict(list)  # member rank -> cause ranks
    for cause, members in explained:
        c = rank_of.get(key(cause))
        for m in members:
            r = rank_of.get(key(m))
            if c is not None and r is not None and r != c and c not in causes[r]:
                causes[r].append(c)
    order = sorted(findings, key=lambda f: (f.rank in causes, f.rank))
    new = {f.rank: i + 1 for i, f in enumerate(order)}
    out = []
    for f in order:
        explains = set(f.explains) | {m for m, cs in causes.items() if f.rank in cs}
        by = set(f.explained_by) | set(causes.get(f.rank, []))
        role = "cascade" if by else ("root_cause" if explains else f.role)
        out.append(f.model_copy(update={"rank": new[f.rank], "role": role, "explains": sorted(new[r] for r in explains),
                                        "explained_by": sorted(new[r] for r in by)}))
    return out
