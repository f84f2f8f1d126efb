"""Localisation after the rules: which node, port, link or switch explains the symptoms.

- Pairwise tomography: nccl-tests runs between two hosts each (hosts from the ``# Rank``
  lines) give a bus bandwidth per pair (the best of repeated runs, so a noisy pair that
  re-tests fine is not slow). A pair is slow below ``SLOW_FRACTION`` of the median pair.
  The smallest set of elements that explains every slow pair is chosen greedily: a host or
  switch whose pairs are mostly slow (``CONSISTENT``) explains them all; what is left is
  the link between the two hosts. A degraded or down port on a suspect host (from
  ``ib_port_summary``) narrows the suspect to that port.
- RDMA completion errors toward a peer address: the address names the peer host (NCCL's
  bootstrap/OOB addresses, the inventory), whose degraded port, if any, is the suspect,
  else the link between the two hosts.

Each finding says in ``placed_by`` which evidence placed it there.
"""
from __future__ import annotations

import re
import statistics
from collections import defaultdict

from stethoscope.engine.findings import rank_findings
from stethoscope.engine.report import Entity, EvidenceLine, Finding
from stethoscope.engine.topology import build, fabric_path
from stethoscope.facts.model import Fact

SLOW_FRACTION = 0.8
CONSISTENT = 0.75
_ADDR = re.compile(r"^(?P<ip>[0-9a-fA-F.:]+?)(?:<\d+>)?$")


def _ev(f: Fact) -> EvidenceLine:
    return EvidenceLine(path=f.evidence.path, line=f.evidence.line, text=f.evidence.text)


def _finding(rule: str, title: str, cause: str, conf: float, entity: dict, summary: str, evidence: list[Fact], placed_by: list[str], actions: list[str], action_text: str, nodes: list[str]) -> Finding:
    label = " ".join(filter(None, [entity.get("node"), f"HCA {entity['hca']} port {entity['port']}" if entity.get("hca") else None,
                                   f"switch {entity['switch']}" if entity.get("switch") else None,
                                   "link " + " <-> ".join(entity["link"]) if entity.get("link") else None]))
    ev = list({(e.evidence.path, e.evidence.line): _ev(e) for e in evidence}.values())
    return Finding(rank=0, rule=rule, title=title, cause=cause, component="network", severity="critical", confidence=round(conf, 2),
                   role="independent", entity=Entity(label=label, **entity), summary=summary, actions=actions, action_text=action_text,
                   evidence=ev[:20], evidence_total=len(ev), nodes=sorted(set(nodes)), placed_by=placed_by)


def _degraded_ports(facts: list[Fact]) -> dict[str, list[Fact]]:
    out: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        if f.kind == "ib_port_summary" and (f.below_siblings or f.below_fleet or f.below_expected or (f.expected_up and f.state != "Active")):
            out[f.node].append(f)
    return out


def pair_bandwidth(facts: list[Fact]) -> dict[frozenset[str], tuple[float, list[Fact]]]:
    """Best bus bandwidth per pair of hosts (largest message size), with its evidence rows."""
    hosts: dict[str, set[str]] = defaultdict(set)
    rows: dict[str, Fact] = {}
    for f in facts:
        if f.kind == "nccl_test_rank":
            hosts[f.run_id].add(f.host)
        elif f.kind == "nccl_test_row":
            old = rows.get(f.run_id)
            if old is None or f.size_bytes > old.size_bytes:
                rows[f.run_id] = f
    best: dict[frozenset[str], tuple[float, list[Fact]]] = {}
    for run, hs in hosts.items():
        if len(hs) != 2 or run not in rows:
            continue
        row = rows[run]
        bw = max(b for b in (row.oop_busbw, row.ip_busbw) if b is not None)
        pair = frozenset(hs)
        if pair not in best:
            best[pair] = (bw, [row])
        elif bw > best[pair][0]:
            best[pair] = (bw, [row] + best[pair][1])  # the better re-test first, the slow run kept
        else:
            best[pair][1].append(row)
    return best


def pairwise(facts: list[Fact], graph) -> list[Finding]:
    pairs = pair_bandwidth(facts)
    if len(pairs) < 3:
        return []
    median = statistics.median(bw for bw, _ in pairs.values())
    slow = {p for p, (bw, _) in pairs.items() if bw < SLOW_FRACTION * median}
    if not slow:
        return []
    through: dict[str, set[frozenset[str]]] = defaultdict(set)
    for p in pairs:
        a, b = sorted(p)
        for el in [f"host:{a}", f"host:{b}"] + [n for n in fabric_path(graph, a, b) if n.startswith("switch:")]:
            through[el].add(p)
    degraded = _degraded_ports(facts)
    out: list[Finding] = []
    left = set(slow)
    while left:
        scored = []
        for el, ps in through.items():
            covered = ps & left
            consistency = len(ps & slow) / len(ps)
            if len(covered) >= 2 and consistency >= CONSISTENT:
                scored.append((len(covered), consistency, el))
        if not scored:
            break
        n, consistency, el = max(scored)
        covered = through[el] & left
        left -= covered
        kind_, name = el.split(":", 1)
        ev = [r for p in sorted(covered, key=sorted) for r in pairs[p][1]]
        nums = ", ".join(f"{'<->'.join(sorted(p))} {pairs[p][0]:.1f}" for p in sorted(covered, key=sorted))
        placed = [f"pairwise nccl-tests: {len(covered)} of {len(through[el])} pairs with {name} below {SLOW_FRACTION:.0%} of the median {median:.1f} GB/s ({nums})"]
        entity: dict = {"node": name} if kind_ == "host" else {"switch": name}
        conf = 0.6 + 0.3 * consistency
        if kind_ == "host" and degraded.get(name):
            port = degraded[name][0]
            entity = {"node": name, "hca": port.hca, "port": str(port.port)}
            ev.append(port)
            placed.append(f"port state: {port.port_id} {port.state} at {port.rate_gbps} Gb/s")
            conf = min(0.95, conf + 0.05)
        out.append(_finding("localise_pairwise", "Pairwise tests single out one element", "slow_link_pair", conf, entity,
                            f"{name} is slow with {len(covered)} of its {len(through[el])} partners (median pair {median:.1f} GB/s)",
                            ev, placed, ["CHECK_IB_CABLE", "RERUN_NCCL_TESTS"], "", [h for p in covered for h in p]))
    for p in sorted(left, key=sorted):
        a, b = sorted(p)
        bw, rows = pairs[p]
        placed = [f"pairwise nccl-tests: only {a}<->{b} is slow ({bw:.1f} GB/s against a median of {median:.1f}); both hosts are fast with every other partner"]
        entity: dict = {"link": [a, b]}
        ev: list[Fact] = list(rows)
        conf = 0.6
        ports = degraded.get(a, []) + degraded.get(b, [])
        if len(ports) == 1:
            port = ports[0]
            entity = {"node": port.node, "hca": port.hca, "port": str(port.port), "link": [a, b]}
            ev.append(port)
            placed.append(f"port state: {port.port_id} {port.state} at {port.rate_gbps} Gb/s, its siblings at {port.sibling_rate_gbps}")
            conf = 0.9
        out.append(_finding("localise_pairwise", "Pairwise tests single out one link", "slow_link_pair", conf, entity,
                            f"{a}<->{b} bus bandwidth {bw:.1f} GB/s, {bw / median:.0%} of the median pair ({median:.1f} GB/s)",
                            ev, placed, ["CHECK_IB_CABLE", "RERUN_NCCL_TESTS"], "", [a, b]))
    return out


def rdma_peers(facts: list[Fact]) -> list[Finding]:
    addr: dict[str, str] = {}
    for f in facts:
        if f.kind in ("nccl_bootstrap_interface", "nccl_net_device") and getattr(f, "address", None):
            addr[f.address] = f.node
        elif f.kind == "inventory_host":
            for a in filter(None, f.addresses.split(",")):
                addr[a] = f.node
    degraded = _degraded_ports(facts)
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.kind == "nccl_rdma_completion_error" and f.peer:
            m = _ADDR.match(f.peer)
            peer = addr.get(m["ip"]) if m else None
            if peer and peer != f.node:
                groups[(f.node, peer)].append(f)
    out = []
    for (node, peer), errs in sorted(groups.items()):
        first = errs[0]
        placed = [f"NCCL on {node} got {len(errs)} failed completion(s) from {first.peer}, the address of {peer}"]
        entity: dict = {"link": [node + (f"/{first.hca}" if first.hca else ""), peer]}
        ev: list[Fact] = list(errs)
        conf = 0.7
        if len(degraded.get(peer, [])) == 1:
            port = degraded[peer][0]
            entity = {"node": peer, "hca": port.hca, "port": str(port.port)}
            placed.append(f"port state: {port.port_id} {port.state} at {port.rate_gbps} Gb/s")
            ev.append(port)
            conf = 0.9
        out.append(_finding("localise_rdma_peer", "RDMA completion errors point at a peer", "ib_completion_error", conf, entity,
                            f"RDMA completions from {peer} failed on {node} (error {first.error})", ev, placed,
                            ["CHECK_IB_CABLE", "CHECK_NCCL_LOG"], "", [node, peer]))
    return out


def localise(findings: list[Finding], facts: list[Fact], symptom: dict[str, bool]) -> list[Finding]:
    """Add localisation findings and rank everything again (root causes first)."""
    extra = pairwise(facts, build(facts)) + rdma_peers(facts)
    if not extra:
        return findings
    from stethoscope.engine.knowledge import load_vocabulary

    actions = load_vocabulary().actions
    extra = [f.model_copy(update={"action_text": " ".join(actions[a] for a in f.actions if a in actions)}) for f in extra]
    return rank_findings(findings + extra, symptom)
