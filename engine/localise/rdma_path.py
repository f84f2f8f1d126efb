"""RDMA completion errors toward a peer address, followed to the link: peer address -> peer
node -> the peer's HCA port -> the cable from that port to its switch.

``NET/IB : Got completion from peer 10.1.0.11<45678> with error 12`` names the peer by the
address its NCCL announced: the out-of-band address of ``NET/IB : Using ... ; OOB
ib0:10.1.0.11<0>``, the ``Bootstrap : Using`` address, or the inventory's host addresses. On
the peer, a port that the fabric summary flags (Down, slower or narrower than its siblings,
error counters over the limit, a link that went down between readings) is the suspect when it
is the only one; the graph (ibnetdiscover or the inventory) then names its cable and switch
port. Errors from several reporters toward one peer make one finding, and the reporters'
own completion-error findings become its cascade: the fault is at the far end. How sure each
placement is: the ``rdma_peer`` section of knowledge/localisation.yaml.
"""
from __future__ import annotations

import re
from collections import defaultdict

import networkx as nx

from stethoscope.engine.localise.pairwise import degraded_ports, limits, localisation_finding
from stethoscope.engine.report import Finding
from stethoscope.facts.model import Fact, of_kind

# 10.1.1.2<45678>
_ADDR = re.compile(r"^(?P<ip>[0-9a-fA-F.:]+?)(?:<\d+>)?$")


def addresses(facts: list[Fact]) -> dict[str, tuple[str, Fact]]:
    """Address -> (node, the fact that says so)."""
    out: dict[str, tuple[str, Fact]] = {}
    for f in of_kind(facts, "nccl_bootstrap_interface", "nccl_net_device", "nccl_oob_address", "inventory_host"):
        if f.kind != "inventory_host" and getattr(f, "address", None):
            out.setdefault(f.address, (f.node, f))
        elif f.kind == "inventory_host":
            for a in filter(None, f.addresses.split(",")):
                out.setdefault(a, (f.node, f))
    return out


def _cable(graph: nx.Graph, node: str, hca: str, port: int) -> tuple[str, str] | None:
    """(switch name and port, the artefact that says so) of a port's cable, if the graph knows it."""
    pid = f"port:{node}/{hca}/{port}"
    if pid not in graph:
        return None
    for sw in graph.neighbors(pid):
        if graph.nodes[sw]["type"] == "switch":
            d = graph.edges[pid, sw]
            sp = d.get("switch_port")
            return (graph.nodes[sw]["label"] + (f"/{sp}" if sp is not None else ""), d.get("source", "cabling"))
    return None


def rdma_peers(facts: list[Fact], graph: nx.Graph | None = None, findings: list[Finding] | None = None) -> tuple[list[Finding], list[tuple[Finding, list[Finding]]]]:
    """Findings per peer that RDMA completions failed from, and the rule findings each explains."""
    graph = graph if graph is not None else nx.Graph()
    k = limits().rdma_peer
    conf_k = k.confidence
    addr = addresses(facts)
    degraded = degraded_ports(facts, findings or [])
    by_peer: dict[str, list[Fact]] = defaultdict(list)
    for f in of_kind(facts, "nccl_rdma_completion_error"):
        if f.peer:
            m = _ADDR.match(f.peer)
            peer = addr.get(m["ip"]) if m else None
            if peer and peer[0] != f.node:
                by_peer[peer[0]].append(f)
    out: list[Finding] = []
    explains: list[tuple[Finding, list[Finding]]] = []
    for peer, errs in sorted(by_peer.items()):
        first = errs[0]
        reporters = sorted({e.node for e in errs})
        address_fact = addr[_ADDR.match(first.peer)["ip"]][1]  # type: ignore[index]
        placed = [f"NCCL on {', '.join(reporters)} got {len(errs)} failed completion(s) from {first.peer}, the address of {peer} "
                  f"({address_fact.evidence.path}:{address_fact.evidence.line})"]
        ev: list[Fact] = list(errs) + [address_fact]
        entity: dict = {"link": [reporters[0] + (f"/{first.hca}" if first.hca and len(reporters) == 1 else ""), peer]} if len(reporters) == 1 else {"node": peer}
        conf = conf_k.one_reporter if len(reporters) == 1 else conf_k.several_reporters
        summary = f"RDMA completions from {peer} failed on {', '.join(reporters)} (error {first.error})"
        ports = degraded.get(peer, [])
        if len(ports) == 1:
            port, why = ports[0]
            entity = {"node": peer, "hca": port.hca, "port": str(port.port)}
            placed.append(why)
            ev.append(port)
            conf = conf_k.on_port
            cable = _cable(graph, peer, port.hca, port.port)
            if cable:
                entity["link"] = [f"{peer}/{port.hca}/{port.port}", cable[0]]
                placed.append(f"cabling: {peer}/{port.hca}/{port.port} is cabled to {cable[0]} ({cable[1]})")
                summary += f"; the peer's port {port.hca}/{port.port} and its cable to {cable[0]} are suspect"
            else:
                summary += f"; the peer's port {port.hca}/{port.port} is suspect"
        elif ports:
            placed.append(f"{len(ports)} ports of {peer} are flagged ({', '.join(p.port_id for p, _ in ports)}): not narrowed to one")
        finding = localisation_finding("localise_rdma_peer", "RDMA completion errors point at a peer", k.blame, conf, entity,
                           summary, ev, placed, reporters + [peer])
        out.append(finding)
        members = [f for f in findings or [] if f.cause == k.blame.cause and f.entity.node in reporters and not f.rule.startswith("localise_")]
        if members:
            explains.append((finding, members))
    return out, explains
