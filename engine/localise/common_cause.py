"""Common-cause localisation: findings that share one upstream element are lifted to it.

Several findings on things behind one element are more simply explained by that element than
by as many independent faults: ports of several hosts cabled to one leaf switch, GPUs behind
one PCIe switch (any bridge above them in NCCL's PCI tree; the nearest that covers them
wins), every rank of one node, every GPU of one node (power brake, cooling). An element is
suspected when findings (``min_severity`` or worse) name at least ``min_members`` distinct
things behind it, spread over more than one parent where that matters (ports of at least
``min_switch_hosts`` hosts), and they are at least ``lift_fraction`` of everything the graph
knows behind it: two bad cables among a leaf's 32 ports are two cables, not the leaf. These
limits, the components each element can cause and the confidences are the ``common_cause``
section of knowledge/localisation.yaml.

The lifted finding names the element, lists the members' entities as ``blast_radius``, says in
``placed_by`` which findings and which cabling or PCI tree placed it, and explains the members
(they become its cascade); a PCIe switch also cites kernel AER or link-down lines that name
one of its ports. A node is lifted only when another node's ranks (GPUs) are not all hit.
When a localisation finding already names the same element (pairwise tests that single out
a switch), the evidence is added to it instead of making a second one.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

import networkx as nx

from stethoscope.engine.findings import SEVERITY_ORDER
from stethoscope.engine.localise.pairwise import limits
from stethoscope.engine.report import Entity, EvidenceLine, Finding
from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.readings import records


def _limits() -> knowledge.CommonCauseLimits:
    return limits().common_cause


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
    for f in of_kind(facts, "nccl_rank"):
        out[f.node].add(f.rank)
    for r in records(facts, "nccl_test_rank"):  # (their files' summaries' rows: fact_routing.yaml summary_rows)
        out[r.host].add(r.rank)
    return out


def pci_bridges_above(graph: nx.Graph, node: str, bus: str) -> list[str]:
    """PCI bridges above a device in NCCL's PCI tree, nearest first (graph ids)."""
    out: list[str] = []
    cur = graph.nodes[f"pci:{node}/{bus}"].get("parent") if f"pci:{node}/{bus}" in graph else None
    while cur and f"pci:{node}/{cur}" in graph:
        d = graph.nodes[f"pci:{node}/{cur}"]
        if (d.get("pci_class") or "0x0604").startswith("0x0604"):
            out.append(f"pci:{node}/{cur}")
        cur = d.get("parent")
    return out


def is_bridge(d: dict) -> bool:
    return (d.get("pci_class") or "0x0604").startswith("0x0604")  # class 0x0604xx: PCI-to-PCI bridge


def devices_below(graph: nx.Graph, bridge: str) -> list[str]:
    """PCI devices (not bridges) anywhere below a bridge, as ``pci:`` graph ids."""
    node, bus = bridge[4:].split("/", 1)
    out, todo = [], [bus]
    while todo:
        cur = todo.pop()
        for n in graph.neighbors(f"pci:{node}/{cur}"):
            d = graph.nodes[n]
            if d["type"] == "pci" and d.get("parent") == cur:
                if is_bridge(d):
                    todo.append(n.split("/", 1)[1])
                else:
                    out.append(n)
    return sorted(out)


def gpus_below(graph: nx.Graph, bridge: str) -> set[str]:
    node = bridge[4:].split("/", 1)[0]
    return {f"gpu:{node}/{n.split('/', 1)[1]}" for n in devices_below(graph, bridge) if f"gpu:{node}/{n.split('/', 1)[1]}" in graph}


def gpus_by_node(graph: nx.Graph) -> dict[str, set[str]]:
    """The GPUs the graph knows per host, by PCI bus id (not the GPU0 names of topo -m)."""
    out: dict[str, set[str]] = defaultdict(set)
    for n, d in graph.nodes(data=True):
        if d["type"] == "gpu":
            node, name = n[4:].split("/", 1)
            if ":" in name:
                out[node].add(n)
    return out


def groups(findings: list[Finding], graph: nx.Graph, facts: list[Fact]) -> list[Group]:
    """Candidate elements with the findings behind them (before the thresholds). A host is a
    candidate twice: for its ranks (``ranks:`` key) and for its GPUs (``gpus:`` key)."""
    k = _limits()
    found: dict[str, Group] = {}
    # each rank and GPU of the bundle, by node: made when a finding first asks (a healthy fleet's
    # few findings seldom do; 20k rank lines and every graph node at 512 bench nodes)
    ranks: dict[str, set[int]] | None = None
    gpus: dict[str, set[str]] | None = None
    for f in findings:
        if SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[k.min_severity] or f.rule.startswith("localise_"):
            continue
        e = f.entity
        port = _port_of(graph, e)
        if port and f.component in k.switch_components:
            for sw in (n for n in graph.neighbors(port) if graph.nodes[n]["type"] == "switch"):
                g = found.setdefault(sw, Group(sw, behind=_switch_ports(graph, sw)))
                g.members.append(f)
                g.things.add(port)
        gid = f"gpu:{e.node}/{e.gpu}" if e.node and e.gpu else None
        if gid in graph and f.component in k.pci_components:
            # every bridge above the GPU is a candidate: a PCIe switch shows as an upstream port
            # with a downstream port (and on HGX boards a second bridge) per device, so the GPUs
            # of one switch share its upstream port, not their immediate parent
            for bridge in pci_bridges_above(graph, e.node, e.gpu):
                g = found.setdefault(bridge, Group(bridge, behind=gpus_below(graph, bridge)))
                g.members.append(f)
                g.things.add(gid)
        if gid in graph and e.rank is None and (f.component in k.node_components or f.cause in k.node_causes) \
                and len((gpus := gpus_by_node(graph) if gpus is None else gpus)[e.node]) >= k.min_members:
            g = found.setdefault(f"gpus:{e.node}", Group(f"host:{e.node}", behind=gpus[e.node]))
            g.members.append(f)
            g.things.add(gid)
        if e.rank is not None and e.node and \
                len((ranks := _ranks_by_node(facts) if ranks is None else ranks).get(e.node, ())) >= k.min_members:
            g = found.setdefault(f"ranks:{e.node}", Group(f"host:{e.node}", behind={f"rank {r}" for r in ranks[e.node]}))
            g.members.append(f)
            g.things.add(f"rank {e.rank}")
    return list(found.values())


def _qualifies(g: Group, every_node_hit: bool) -> bool:
    k = _limits()
    if len(g.things) < k.min_members or not g.behind:
        return False
    kind = g.element.split(":", 1)[0]
    if kind == "switch" and len({t.split("/")[0] for t in g.things}) < k.min_switch_hosts:
        return False  # ports of one host share the host first
    if kind == "host":
        return g.things >= g.behind and not every_node_hit
    return len(g.things & g.behind) / len(g.behind) >= k.lift_fraction


def _every_node_hit(cands: list[Group], what: str, known: Callable[[], set[str]]) -> bool:
    """Every rank (or GPU) of every node has a finding: no node stands out. ``known``: the nodes
    that have ranks (or GPUs), asked only where a host is a candidate."""
    hosts = [g for g in cands if g.element.startswith("host:") and next(iter(g.things)).startswith(what)]
    return bool(hosts) and all(g.things >= g.behind for g in hosts) and known() <= {g.element[5:] for g in hosts}


def lift(findings: list[Finding], graph: nx.Graph, facts: list[Fact]) -> tuple[list[Finding], list[tuple[Finding, list[Finding]]]]:
    """The findings (localisation findings amended) and (lifted finding, its members) pairs."""
    cands = groups(findings, graph, facts)
    hit = {"rank": _every_node_hit(cands, "rank ", lambda: set(_ranks_by_node(facts))),
           "gpu": _every_node_hit(cands, "gpu:", lambda: {h for h, gs in gpus_by_node(graph).items() if len(gs) >= _limits().min_members})}
    taken: set[int] = set()
    out = list(findings)
    lifted: list[tuple[Finding, list[Finding]]] = []
    # most findings first; among equals the element with least behind it (the nearest switch)
    for g in sorted(cands, key=lambda g: (-len(g.things), len(g.behind), g.element)):
        members = [m for m in g.members if id(m) not in taken]
        every = hit["rank" if next(iter(g.things)).startswith("rank ") else "gpu"]
        if not members or not _qualifies(g, every):
            continue
        taken.update(id(m) for m in members)
        finding = _lifted(g, members, graph, facts)
        same = next((i for i, f in enumerate(out) if f.rule.startswith("localise_") and _names(f, g.element)), None)
        if same is not None:  # pairwise tests (or the other host group) already named it: one finding, both reasons
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
            lifted = [(finding if prev is old else prev, ms) for prev, ms in lifted]
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


def _pcie_events(facts: list[Fact], node: str, buses: set[str]) -> list[Fact]:
    """Kernel PCIe errors (AER, hotplug link down) that name one of ``buses`` on ``node``."""
    return [f for f in of_kind(facts, "pcie_aer_error", "pcie_link_down") if f.node == node
            and ({f.device, getattr(f, "reporter", None)} & buses)]


def _lifted(g: Group, members: list[Finding], graph: nx.Graph, facts: list[Fact]) -> Finding:
    kind, name = g.element.split(":", 1)
    worst = max(members, key=lambda m: SEVERITY_ORDER[m.severity])
    things = sorted(t.split("/", 1)[1] if t.startswith("gpu:") else t for t in g.things)
    shown = ", ".join(things[:8]) + (f" and {len(things) - 8} more" if len(things) > 8 else "")
    frac = len(g.things & g.behind) / len(g.behind)
    causes = sorted({m.cause for m in members})
    extra: list[EvidenceLine] = []
    if kind == "switch":
        cabling = sorted({graph.edges[p, g.element].get("source", "cabling") for p in g.things if graph.has_edge(p, g.element)})
        entity = Entity(switch=name, label=f"switch {name}")
        blame = _limits().switch
        cause, component, actions = blame.cause, blame.component, list(blame.actions)
        what = f"{len(things)} of the {len(g.behind)} host ports cabled to {name}"
        placed = [f"common cause: {what} ({shown}) have findings ({', '.join(causes)}), on {len({t.split('/')[0] for t in things})} hosts",
                  f"cabling: {', '.join(cabling)}"]
        summary = f"Switch {name}: {what} show {', '.join(causes)}; one switch explains them better than {len(things)} separate cables"
    elif kind == "pci":
        node, bus = name.split("/", 1)
        entity = Entity(node=node, switch=bus, label=f"{node} PCIe switch {bus}")
        blame = _limits().pci
        cause, component, actions = blame.cause, blame.component, list(blame.actions)
        what = f"{len(things)} of the {len(g.behind)} GPUs behind PCIe switch {bus} on {node}"
        below = devices_below(graph, g.element)
        others = sorted(n.split("/", 1)[1] + (" (NIC)" if str(graph.nodes[n].get("pci_class")).startswith("0x02") else "")
                        for n in below if f"gpu:{n[4:]}" not in g.things)
        placed = [f"common cause: {what} ({shown}) have findings ({', '.join(causes)})",
                  f"PCI tree: NCCL's topology dump ({len(below)} devices below {bus}"
                  + (f"; also behind it, without a finding: {', '.join(others)})" if others else ")")]
        bridges = {bus} | {n.split("/", 1)[1] for n in graph if n.startswith(f"pci:{node}/") and g.element in pci_bridges_above(graph, node, n.split("/", 1)[1])}
        events = _pcie_events(facts, node, bridges)
        if events:
            placed.append("kernel log: " + "; ".join(
                (f"AER {e.severity} error" if e.kind == "pcie_aer_error" else "link down") + f" on {e.device}"
                + (" (the switch's upstream port)" if e.device == bus else " (a port of this switch)") for e in events[:3]))
            extra = [EvidenceLine(path=e.evidence.path, line=e.evidence.line, text=e.evidence.text) for e in events]
        summary = (f"PCIe switch {bus} on {node}: {len(things)} of its {len(g.behind)} GPUs ({shown}) show {', '.join(causes)}"
                   + (", after a PCIe error on the switch" if events else "") + "; one switch explains them better than as many GPU faults")
    else:
        entity = Entity(node=name, label=name)
        cause, component, actions = worst.cause, worst.component, list(dict.fromkeys(a for m in members for a in m.actions))
        if things[0].startswith("rank "):
            what = f"every rank of {name} ({', '.join(things)})"
            placed = [f"common cause: {what} has a finding ({', '.join(causes)}), ranks on other nodes do not",
                      "ranks per node: NCCL's init lines or nccl-tests' '# Rank' lines"]
            summary = f"{name}: {what} shows {', '.join(causes)}: the node, not one rank"
        else:
            what = f"every GPU of {name} ({len(things)}: {shown})"
            placed = [f"common cause: {what} has a finding ({', '.join(causes)}), GPUs on other nodes do not",
                      "GPUs per node: nvidia-smi and NCCL's topology dump"]
            summary = (f"{name}: all {len(things)} of its GPUs show {', '.join(causes)}, GPUs of other nodes do not: "
                       f"the node (its power, cooling or baseboard), not {len(things)} separate GPUs")
    evidence = extra + list({(e.path, e.line): e for m in members for e in m.evidence}.values())
    conf = _limits().confidence
    return Finding(rank=0, rule="localise_common_cause", title="Findings share one upstream element", cause=cause, component=component,
                   severity=worst.severity, confidence=round(min(conf.max, conf.base + conf.per_fraction * frac + (conf.kernel_event_bonus if extra else 0)), 2), role="root_cause",
                   entity=entity, summary=summary, actions=actions, action_text="", evidence=evidence[:20], evidence_total=len(evidence),
                   nodes=sorted({n for m in members for n in m.nodes} | ({entity.node} if entity.node else set())),
                   placed_by=placed, blast_radius=[m.entity.label for m in members])


def key(f: Finding) -> tuple:
    """What identifies a finding across re-ranking (ranks and roles change, these do not)."""
    return (f.rule, f.cause, f.entity.label, f.summary)


def attach(findings: list[Finding], explained: list[tuple[Finding, list[Finding]]],
           last: frozenset[str] = frozenset()) -> list[Finding]:
    """Mark each group's members as its cascade, put them after their cause, renumber ranks.
    ``findings`` are ranked; ``explained`` may hold the same findings before ranking. Findings of
    the rules in ``last`` (unexplained errors) stay after the rest, as ranking put them."""
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
    tail = {f.rank for f in findings if f.rule in last} if any(f.rule not in last and f.severity != "info" for f in findings) else set()
    order = sorted(findings, key=lambda f: (f.rank in tail, f.rank in causes, f.rank))
    new = {f.rank: i + 1 for i, f in enumerate(order)}
    out = []
    for f in order:
        explains = set(f.explains) | {m for m, cs in causes.items() if f.rank in cs}
        by = set(f.explained_by) | set(causes.get(f.rank, []))
        role = "cascade" if by else ("root_cause" if explains else f.role)
        out.append(f.model_copy(update={"rank": new[f.rank], "role": role, "explains": sorted(new[r] for r in explains),
                                        "explained_by": sorted(new[r] for r in by)}))
    return out
