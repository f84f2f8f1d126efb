"""Localisation after the rules: which node, port, link or switch explains the symptoms.

- Pairwise tomography: nccl-tests runs between two hosts each (hosts from the ``# Rank``
  lines) give a bus bandwidth per pair (the best of repeated runs, so a noisy pair that
  re-tests fine is not slow). A pair is slow below ``slow_fraction`` of the reference pair,
  the ``reference_quantile`` of the pairs (the upper quartile: a fault only takes bandwidth
  away, so the better pairs show what the fabric does, even when most pairs are slow).
  The smallest set of elements that explains every slow pair is chosen greedily: a host or
  switch whose pairs are mostly slow (``consistent_fraction``) explains them all; what is left
  is the link between the two hosts. A switch counts for a pair only when it lies on every
  shortest path between the two hosts (networkx ``all_shortest_paths``); switches that share
  a pair's paths (two spines) count together, and a set of them is named when the pairs
  cannot tell which one it is. A degraded or down port on a suspect host (from
  ``ib_port_summary``) narrows the suspect to that port.
- RDMA completion errors toward a peer address (:mod:`stethoscope.engine.localise.rdma_path`): peer
  node -> its HCA port -> the cable from that port to its switch.
- Common cause (:mod:`stethoscope.engine.localise.common_cause`): findings that share an upstream
  element (a leaf switch, a PCIe switch, a node) are lifted to it, with the blast radius.

Pairs come from nccl-tests outputs (one run per pair) or from a CSV table (``pair_bandwidth``).
Each finding says in ``placed_by`` which evidence placed it there. The limits, the severity
and the confidences are knowledge/localisation.yaml's (``limits()``).
"""
from __future__ import annotations


from collections import defaultdict

from stethoscope.engine.findings import rank_findings
from stethoscope.engine.report import Entity, EvidenceLine, Finding  # noqa: F401 - Entity for rdma_path
from stethoscope.engine.localise.graph import build, fabric_paths
from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, FactIndex, of_kind
from stethoscope.facts.readings import records

#: the rules that judge a port's counter growth against its limit (knowledge/ib_counters.yaml)
COUNTER_RULES = frozenset({"ib_counter_errors_over_ber_limit", "ib_counter_errors_over_ber_limit_untimed", "ib_link_flapping"})
#: rules that find a port below its siblings, the fleet or the inventory (knowledge/ib_port_comparison.yaml)
DEGRADED_RULES = frozenset({"ib_width_below_siblings", "ib_rate_below_siblings", "ib_rate_below_fleet", "ib_rate_below_inventory"})



def limits() -> knowledge.Localisation:
    """knowledge/localisation.yaml, validated (facts/knowledge/localisation.py)."""
    return knowledge.load("localisation.yaml")


def _ev(f: Fact) -> EvidenceLine:
    return EvidenceLine(path=f.evidence.path, line=f.evidence.line, text=f.evidence.text)


def localisation_finding(rule: str, title: str, blame: knowledge.Blame, conf: float, entity: dict, summary: str, evidence: list[Fact], placed_by: list[str], nodes: list[str]) -> Finding:
    label = " ".join(filter(None, [entity.get("node"), f"HCA {entity['hca']} port {entity['port']}" if entity.get("hca") else None,
                                   f"switch {entity['switch']}" if entity.get("switch") else None,
                                   "link " + " <-> ".join(entity["link"]) if entity.get("link") else None]))
    ev = list({(e.evidence.path, e.evidence.line): _ev(e) for e in evidence}.values())
    return Finding(rank=0, rule=rule, title=title, cause=blame.cause, component=blame.component, severity=limits().severity, confidence=round(conf, 2),
                   role="independent", entity=Entity(label=label, **entity), summary=summary, actions=list(blame.actions), action_text="",
                   evidence=ev[:20], evidence_total=len(ev), nodes=sorted(set(nodes)), placed_by=placed_by)


def degraded_ports(facts: list[Fact], findings: list[Finding]) -> dict[str, list[tuple[Fact, str]]]:
    """Per node, its ports expected up and not Active, those the rules found below their
    references (DEGRADED_RULES' findings) or whose counters they found growing over their
    limits (COUNTER_RULES'), each with the reason in words."""
    out: dict[str, dict[str, tuple[Fact, str]]] = defaultdict(dict)
    judged = {(f.entity.node, f.entity.hca, f.entity.port) for f in findings if COUNTER_RULES.intersection(f.rules or [f.rule])}
    below: dict[tuple, set[str]] = defaultdict(set)
    for f in findings:
        for r in DEGRADED_RULES.intersection(f.rules or [f.rule]):
            below[(f.entity.node, f.entity.hca, f.entity.port)].add(r)
    for f in of_kind(facts, "ib_port_summary", "ib_counter_growth"):
        why = None
        if f.kind == "ib_port_summary":
            rules = below.get((f.node, f.hca, str(f.port)), ())
            if f.expected_up and f.state != "Active":
                why = f"port state: {f.port_id} {f.state} ({f.physical_state})"
            elif "ib_width_below_siblings" in rules:
                why = f"port state: {f.port_id} at width {f.width} ({f.rate_gbps} Gb/s), its siblings at {f.sibling_width_lanes}X"
            elif rules:
                ref = (f.sibling_rate_gbps if "ib_rate_below_siblings" in rules
                       else f.fleet_rate_gbps if "ib_rate_below_fleet" in rules else f.expected_rate_gbps)
                why = f"port state: {f.port_id} {f.state} at {f.rate_gbps} Gb/s, against {ref} Gb/s"
        elif f.kind == "ib_counter_growth" and f.hca and (f.node, f.hca, str(f.port)) in judged:
            why = f"port counters: {f.counter} of {f.port_id} grew {f.first} -> {f.last}" + (f" ({f.per_hour}/hour)" if f.per_hour is not None else "")
        if why and f.port_id not in out[f.node]:
            out[f.node][f.port_id] = (f, why)
    return {n: list(ps.values()) for n, ps in out.items()}


def _switches_of(graph, host: str) -> list[str]:
    """Switches a host's ports are cabled to."""
    h = f"host:{host}"
    if h not in graph:
        return []
    return sorted({sw for hca in graph.neighbors(h) if graph.nodes[hca]["type"] == "hca" for p in graph.neighbors(hca)
                   if graph.nodes[p]["type"] == "port" for sw in graph.neighbors(p) if graph.nodes[sw]["type"] == "switch"})


def pair_bandwidth(facts: list[Fact]) -> dict[frozenset[str], tuple[float, list[Fact]]]:
    """Best bus bandwidth per pair of hosts (largest message size), with its evidence rows."""
    hosts: dict[str, set[str]] = defaultdict(set)
    rows: dict[str, tuple[Fact, int]] = {}  # run -> its table and the row of its largest size
    measured: list[tuple[frozenset[str], float, Fact]] = []
    csv_size: dict[frozenset[str], int] = {}
    csv = [f for f in of_kind(facts, "pair_bandwidth") if f.host_a != f.host_b]
    for f in csv:
        pair = frozenset((f.host_a, f.host_b))
        csv_size[pair] = max(csv_size.get(pair, -1), f.size_bytes if f.size_bytes is not None else -1)
    for f in csv:
        pair = frozenset((f.host_a, f.host_b))
        if (f.size_bytes if f.size_bytes is not None else -1) == csv_size[pair]:  # the largest size measured
            measured.append((pair, f.busbw_gbs, f))
    for r in records(facts, "nccl_test_rank"):  # (their files' summaries' rows: fact_routing.yaml summary_rows)
        hosts[r.run_id].add(r.host)
    for t in of_kind(facts, "nccl_test_table"):
        sizes = t.size_bytes
        old = rows.get(t.run_id)
        i = max(range(len(sizes)), key=sizes.__getitem__)  # the first row of the largest size
        if old is None or sizes[i] > old[0].size_bytes[old[1]]:
            rows[t.run_id] = (t, i)
    for run, hs in hosts.items():
        if len(hs) != 2 or run not in rows:
            continue
        table, i = rows[run]
        row = table.row(i)
        measured.append((frozenset(hs), max(b for b in (row.oop_busbw, row.ip_busbw) if b is not None), row))
    best: dict[frozenset[str], tuple[float, list[Fact]]] = {}
    for pair, bw, row in measured:
        if pair not in best:
            best[pair] = (bw, [row])
        elif bw > best[pair][0]:
            best[pair] = (bw, [row] + best[pair][1])  # the better re-test first, the slow run kept
        else:
            best[pair][1].append(row)
    return best


def reference(values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values``, linear between neighbours (q = 0.5: the median)."""
    pos = q * (len(values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def pairwise(facts: list[Fact], graph, findings: list[Finding]) -> list[Finding]:
    k = limits().pairwise
    conf_k = k.confidence
    pairs = pair_bandwidth(facts)
    if len(pairs) < k.min_pairs:
        return []
    ref = reference(sorted(bw for bw, _ in pairs.values()), k.reference_quantile)
    slow = {p for p, (bw, _) in pairs.items() if bw < k.slow_fraction * ref}
    if not slow:
        return []
    through: dict[str, set[frozenset[str]]] = defaultdict(set)
    for p in pairs:
        a, b = sorted(p)
        # a switch carries all of a pair's traffic only when it lies on every shortest path;
        # switches that share the pair's paths between them (two spines) count as one set
        paths = [{n for n in path if n.startswith("switch:")} for path in fabric_paths(graph, a, b)]
        on_all = set.intersection(*paths) if paths else set()
        shared = set.union(*paths) - on_all if paths else set()
        for el in [f"host:{a}", f"host:{b}"] + sorted(on_all) + (["switches:" + ",".join(sorted(s[7:] for s in shared))] if shared else []):
            through[el].add(p)
    degraded = degraded_ports(facts, findings)
    out: list[Finding] = []
    left = set(slow)
    while left:
        scored = []
        for el, ps in through.items():
            covered = ps & left
            consistency = len(ps & slow) / len(ps)
            if len(covered) >= k.min_slow_pairs and consistency >= k.consistent_fraction:
                scored.append((len(covered), consistency, el))
        if not scored:
            break
        n, consistency, el = max(scored)
        covered = through[el] & left
        left -= covered
        kind_, name = el.split(":", 1)
        ev = [r for p in sorted(covered, key=sorted) for r in pairs[p][1]]
        nums = ", ".join(f"{'<->'.join(sorted(p))} {pairs[p][0]:.1f}" for p in sorted(covered, key=sorted))
        placed = [f"pairwise nccl-tests: {len(covered)} of {len(through[el])} pairs with {name} below {k.slow_fraction:.0%} of the reference {ref:.1f} GB/s ({nums})"]
        entity: dict = {"node": name} if kind_ == "host" else {"switch": name}
        conf = conf_k.base + conf_k.per_fraction * consistency
        if kind_ == "switches":  # the pairs cannot tell which of the switches that share their paths
            members = name.split(",")
            behind = sorted({h for p in covered for h in p})
            placed.append(f"cabling: the slow pairs' traffic is split over {', '.join(members)} (every shortest path crosses one of them, "
                          "none lies on all): one of them, the pairs cannot tell which")
            radius = members
            conf = min(conf, conf_k.shared_switches_max)
        elif kind_ == "switch":
            behind = sorted({h for p in covered for h in p if name in [s.split(":", 1)[1] for s in _switches_of(graph, h)]})
            placed.append(f"cabling: the slow pairs' paths all cross {name} ({', '.join(behind)} behind it); pairs that avoid it are fast")
            radius = behind
        else:
            radius = ["<->".join(sorted(p)) for p in sorted(covered, key=sorted)]
        if kind_ == "host" and len(degraded.get(name, [])) == 1:
            port, why = degraded[name][0]
            entity = {"node": name, "hca": port.hca, "port": str(port.port)}
            ev.append(port)
            placed.append(why)
            conf = min(conf_k.max, conf + conf_k.port_bonus)
        what = f"{name} is slow with {len(covered)} of its {len(through[el])} partners" if kind_ == "host" else \
            (f"every pair through switch {name} is slow ({len(covered)} of {len(through[el])})" if kind_ == "switch" else
             f"every pair whose traffic crosses {' or '.join(name.split(','))} is slow ({len(covered)} of {len(through[el])})")
        out.append(localisation_finding("localise_pairwise", "Pairwise tests single out one element", k.host if kind_ == "host" else k.switch,
                            conf, entity, f"{what} (reference pair {ref:.1f} GB/s)", ev, placed, [h for p in covered for h in p]).model_copy(update={"blast_radius": radius}))
    for p in sorted(left, key=sorted):
        a, b = sorted(p)
        bw, rows = pairs[p]
        placed = [f"pairwise nccl-tests: only {a}<->{b} is slow ({bw:.1f} GB/s against a reference of {ref:.1f}); both hosts are fast with every other partner"]
        entity: dict = {"link": [a, b]}
        ev: list[Fact] = list(rows)
        conf = conf_k.link
        ports = degraded.get(a, []) + degraded.get(b, [])
        if len(ports) == 1:
            port, why = ports[0]
            entity = {"node": port.node, "hca": port.hca, "port": str(port.port), "link": [a, b]}
            ev.append(port)
            placed.append(why)
            conf = conf_k.link_on_port
        out.append(localisation_finding("localise_pairwise", "Pairwise tests single out one link", k.link, conf, entity,
                            f"{a}<->{b} bus bandwidth {bw:.1f} GB/s, {bw / ref:.0%} of the reference pair ({ref:.1f} GB/s)",
                            ev, placed, [a, b]))
    return out


def localise(findings: list[Finding], facts: list[Fact], symptom: dict[str, bool]) -> list[Finding]:
    """Add localisation findings, lift common causes, rank everything again (root causes first).
    The facts are indexed by kind once (a FactIndex), for the few kinds each step reads."""
    from stethoscope.engine.localise.common_cause import attach, lift
    from stethoscope.engine.knowledge import load_vocabulary
    from stethoscope.engine.localise.rdma_path import rdma_peers

    if getattr(facts, "positions", None) is None:
        facts = FactIndex(facts)
    graph = build(facts)
    rdma, rdma_explains = rdma_peers(facts, graph, findings)
    extra = pairwise(facts, graph, findings) + rdma
    merged, lifted = lift(findings + extra, graph, facts)
    if not extra and not lifted:
        return findings
    actions = load_vocabulary().actions
    merged = [f.model_copy(update={"action_text": " ".join(actions[a] for a in f.actions if a in actions)}) if not f.action_text else f
              for f in merged]
    # the amended copies of localisation findings replace their originals in the groups
    return attach(rank_findings(merged, symptom), lifted + rdma_explains + _port_explains(merged),
                  getattr(symptom, "unexplained", frozenset()))


def _port_explains(findings: list[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """A slow pair placed on a port that a port finding already condemns is that finding's
    symptom: the degraded port explains the slow pair, not the other way round."""
    port_causes = set(limits().pairwise.port_causes)
    out: list[tuple[Finding, list[Finding]]] = []
    for pair in findings:
        if pair.rule != "localise_pairwise" or pair.entity.port is None:
            continue
        where = (pair.entity.node, pair.entity.hca, pair.entity.port)
        for cause in findings:
            if cause is not pair and cause.cause in port_causes and (cause.entity.node, cause.entity.hca, cause.entity.port) == where:
                out.append((cause, [pair]))
    return out
