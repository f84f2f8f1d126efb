"""The cluster as a networkx graph: hosts, GPUs, PCIe bridges, NVLink, HCAs and their
ports, InfiniBand switches and cables, from a bundle's facts plus an optional inventory.

Node ids are typed and canonical: ``host:node01``, ``gpu:node01/0000:1b:00.0``,
``pci:node01/0000:1a:00.0``, ``hca:node01/mlx5_0``, ``port:node01/mlx5_0/1``,
``switch:leaf01``. GPUs come from NCCL's topology dump (under their PCI bridges), NCCL's
rank lines and nvidia-smi (under the host). Every node has ``type`` and ``label``; edges have ``type`` (pcie,
nvlink, has, cable, uplink, ring); cables say which artefact gave them (``source``). NCCL's
ring order per communicator (``nccl_ring_order`` with the ranks' GPUs from ``nccl_rank``)
becomes ``ring`` edges between GPUs and ``graph.graph["rings"]``: comm -> ordered ranks.
"""
from __future__ import annotations

import re
from operator import attrgetter

import networkx as nx

from stethoscope.engine.localise.topo_matrix import add_nic_locality
from stethoscope.facts.inventory import Inventory
from stethoscope.facts.model import FACT_KINDS, Fact, FactIndex
from stethoscope.facts.parsers.gpu_state_facts import GpuFact

# "MF0;leaf01:MQM8700/U1" -> leaf01 ; "node01 mlx5_0" -> (node01, mlx5_0)
_SWITCH_DESC = re.compile(r"^(?:[^;]*;)?(?P<name>[\w.-]+)(?::|$)")
_CA_DESC = re.compile(r"^(?P<host>[\w.-]+) (?P<hca>[A-Za-z][\w-]*\d)$")


def _add(g: nx.Graph, nid: str, type_: str, label: str, **attrs) -> str:
    if nid not in g:
        g.add_node(nid, type=type_, label=label, **attrs)
    elif attrs:
        g.nodes[nid].update({k: v for k, v in attrs.items() if v is not None})
    return nid


def host(g: nx.Graph, node: str) -> str:
    return _add(g, f"host:{node}", "host", node)


def port_node(g: nx.Graph, node: str, hca: str, port: int, **attrs) -> str:
    h = _add(g, f"hca:{node}/{hca}", "hca", hca)
    g.add_edge(host(g, node), h, type="has")
    p = _add(g, f"port:{node}/{hca}/{port}", "port", f"{hca}/{port}", **attrs)
    g.add_edge(h, p, type="has")
    return p


def switch(g: nx.Graph, name: str) -> str:
    return _add(g, f"switch:{name}", "switch", name)


#: the kinds build() reads besides each fact's node: a fact of another kind only adds its host
_READ = frozenset({"ib_port", "ib_port_summary", "nccl_topo_pci", "nccl_topo_gpu", "gpu_topo_link", "ib_fabric_link",
                   "inventory_port", "inventory_uplink", "nccl_rank", "nccl_ring_order", "gpu_topo_affinity"})
#: kinds whose node is no host
_NOT_HOSTS = frozenset({"ib_fabric_node", "ib_fabric_link"})
#: the kinds topo_matrix.add_nic_locality reads
_LOCALITY = frozenset({"nccl_topo_pci", "gpu_topo_affinity", "gpu_topo_link"})


def build(facts: list[Fact], inventory: Inventory | None = None) -> nx.Graph:
    g = nx.Graph()
    # the facts by kind (a FactIndex: engine/pipeline.combine made it): the few kinds read here and
    # by _rings and add_nic_locality, the GPUs nvidia-smi reports and each host's first fact, taken
    # from the index, and placed in the order of the facts as one pass over them all did (the
    # graph's insertion order, and so its paths' tie breaks, is the same; tests/test_topology.py
    # compares). One pass over every fact (~430k at 1,024 bench nodes, for the ~46k read here) and
    # a look-up per nvidia-smi fact (~130k) took build 0.25 CPU s there, this 0.175 (bench/speed_rM6.md).
    if getattr(facts, "positions", None) is None:
        facts = FactIndex(facts)
    positions = facts.positions
    read_at = sorted(i for k in _READ for i in positions.get(k, ()))
    read = list(map(facts.__getitem__, read_at))
    hosts = iter(_first_hosts(facts, positions))
    nxt = next(hosts, None)
    for i, f in zip(read_at, read):
        while nxt is not None and nxt[0] <= i:  # the hosts whose first fact comes before this one
            host(g, nxt[1])
            nxt = next(hosts, None)
        _place(g, f)
    while nxt is not None:
        host(g, nxt[1])
        nxt = next(hosts, None)
    gpus = _gpu_facts(facts, positions)
    _rings(g, read)
    # GPU<->HCA under one PCIe switch, from topo -m without a dump
    add_nic_locality(g, [f for f in read if f.kind in _LOCALITY], _add, host)
    for f in gpus:  # GPUs nvidia-smi reports, where no topology dump placed them already
        if f.node not in ("unknown", "fabric") and f"gpu:{f.node}/{f.pci_bus_id}" not in g:
            g.add_edge(host(g, f.node), _add(g, f"gpu:{f.node}/{f.pci_bus_id}", "gpu", f"GPU {f.pci_bus_id}"), type="has")
    if inventory is not None:
        for name, spec in inventory.hosts.items():
            host(g, name)
            for key, cab in spec.ports.items():
                hca, p = key.rsplit("/", 1)
                pid = port_node(g, name, hca, int(p), expected_rate_gbps=cab.rate_gbps)
                if cab.switch:
                    g.add_edge(pid, switch(g, cab.switch), type="cable", switch_port=cab.switch_port, source="inventory (--inventory)")
        for name, spec in inventory.switches.items():
            for up in spec.uplinks:
                g.add_edge(switch(g, name), switch(g, up), type="uplink")
    return g


def _place(g: nx.Graph, f: Fact) -> None:
    """The graph elements of one fact of the kinds build reads (_READ)."""
    k = f.kind
    if k in ("ib_port", "ib_port_summary"):
        port_node(g, f.node, f.hca, f.port, state=f.state, rate_gbps=f.rate_gbps)
    elif k == "nccl_topo_pci":
        nid = _add(g, f"pci:{f.node}/{f.pci_bus_id}", "pci", f.pci_bus_id, pci_class=f.pci_class, parent=f.parent)
        parent = f"pci:{f.node}/{f.parent}" if f.parent else host(g, f.node)
        g.add_edge(parent, nid, type="pcie")
    elif k == "nccl_topo_gpu" and f.pci_bus_id:
        gid = _add(g, f"gpu:{f.node}/{f.pci_bus_id}", "gpu", f"GPU{f.dev} {f.pci_bus_id}")
        g.add_edge(f"pci:{f.node}/{f.pci_bus_id}", gid, type="pcie")
        if f.nvswitch:
            g.add_edge(gid, _add(g, f"nvswitch:{f.node}", "nvswitch", "NVSwitch fabric"), type="nvlink", count=f.nvlinks)
    elif k == "gpu_topo_link" and f.connection.startswith("NV"):
        a = _add(g, f"gpu:{f.node}/{f.a}", "gpu", f.a)
        b = _add(g, f"gpu:{f.node}/{f.b}", "gpu", f.b)
        g.add_edge(host(g, f.node), a, type="has")
        g.add_edge(host(g, f.node), b, type="has")
        g.add_edge(a, b, type="nvlink", count=f.nvlinks)
    elif k == "ib_fabric_link":
        ends = []
        for guid, desc, port in ((f.local_guid, f.local_description, f.local_port), (f.remote_guid, f.remote_description, f.remote_port)):
            ca = _CA_DESC.match(desc) if guid.startswith("H-") else None
            if ca:
                ends.append(port_node(g, ca["host"], ca["hca"], port))
            else:
                sw = _SWITCH_DESC.match(desc)
                ends.append(switch(g, sw["name"] if sw else guid))
        g.add_edge(ends[0], ends[1], type="cable", width=f.width, speed=f.speed, source=f"ibnetdiscover ({f.evidence.path})")
    elif k == "inventory_port" and f.switch:
        g.add_edge(port_node(g, f.node, f.hca, f.port, expected_rate_gbps=f.expected_rate_gbps), switch(g, f.switch), type="cable",
                   switch_port=f.switch_port, source=f"inventory ({f.evidence.path})")
    elif k == "inventory_uplink":
        g.add_edge(switch(g, f.switch), switch(g, f.uplink), type="uplink")


def _first_hosts(facts: FactIndex, positions: dict) -> list[tuple[int, str]]:
    """(position, node) of each host's first fact, in order: every fact's node is a host but
    those of _NOT_HOSTS kinds, "unknown" and "fabric". From the index's first positions where
    it has them and no fact is of a _NOT_HOSTS kind, else a pass over every fact's node (C-level:
    map, zip, dict)."""
    first = getattr(facts, "first_at", None)
    if first is not None and not any(positions.get(k) for k in _NOT_HOSTS):
        return sorted((i, node) for node, i in first.items() if node not in ("unknown", "fabric"))
    nodes = list(map(attrgetter("node"), facts))
    for k in _NOT_HOSTS:
        for i in positions.get(k, ()):
            nodes[i] = _NO_HOST
    # built from the last fact back: each node keeps its first position
    first = dict(zip(reversed(nodes), range(len(nodes) - 1, -1, -1)))
    first.pop(_NO_HOST, None)
    return sorted((i, node) for node, i in first.items() if node not in ("unknown", "fabric"))


#: stands for the node of a fact of a _NOT_HOSTS kind in _first_hosts
_NO_HOST = object()


def _gpu_facts(facts: FactIndex, positions: dict) -> list[Fact]:
    """The GpuFacts (nvidia-smi's) of kinds build does not read, in their order, each GPU
    (node, bus id) once: its first fact (the later ones found it in the graph). A kind's facts
    are of the class registered for it (facts/model.fact_kind: its ``kind`` is a Literal); a kind
    none registered is asked fact by fact."""
    at: list[int] = []
    for k, pos in positions.items():
        cls = FACT_KINDS.get(k)
        if k in _READ or (cls is not None and not issubclass(cls, GpuFact)):
            continue
        at.extend(pos if cls is not None else [i for i in pos if isinstance(facts[i], GpuFact)])
    gpus = list(map(facts.__getitem__, sorted(at)))
    keys = list(zip(map(attrgetter("node"), gpus), map(attrgetter("pci_bus_id"), gpus)))
    first = dict(zip(reversed(keys), reversed(gpus)))  # built from the last back: each GPU's first fact
    return [first[key] for key in dict.fromkeys(keys)]


def fabric_path(g: nx.Graph, a: str, b: str) -> list[str]:
    """Elements between two hosts through the fabric (switches and ports), [] when unknown."""
    ha, hb = f"host:{a}", f"host:{b}"
    if ha not in g or hb not in g:
        return []
    # only the fabric counts: no path through another host
    sub = g.subgraph(n for n in g if g.nodes[n]["type"] != "host" or n in (ha, hb))
    try:
        path = nx.shortest_path(sub, ha, hb)
    except nx.NetworkXNoPath:
        return []
    return [n for n in path if g.nodes[n]["type"] in ("switch", "port")]


def fabric_paths(g: nx.Graph, a: str, b: str) -> list[list[str]]:
    """Every shortest fabric path between two hosts (switches and ports of each), [] when
    unknown: with two spines the traffic of a pair is split over both."""
    ha, hb = f"host:{a}", f"host:{b}"
    if ha not in g or hb not in g:
        return []
    sub = g.subgraph(n for n in g if g.nodes[n]["type"] != "host" or n in (ha, hb))
    try:
        return [[n for n in p if g.nodes[n]["type"] in ("switch", "port")] for p in nx.all_shortest_paths(sub, ha, hb)]
    except nx.NetworkXNoPath:
        return []


def _rings(g: nx.Graph, facts: list[Fact]) -> None:
    """Ring edges between consecutive ranks' GPUs, per communicator (first ring order of each)."""
    gpu_of: dict[tuple[str, int], str] = {}
    placed: set[tuple[str, str]] = set()  # (node, bus id) already under its host
    for f in facts:
        if f.kind == "nccl_rank" and f.bus_id:
            gid = f"gpu:{f.node}/{f.bus_id}"
            # a GPU's every rank line (one a communicator: 20k at 512 bench nodes) would add the same
            # node and host edge again: only its first does (no attributes change, no order moves)
            if (f.node, f.bus_id) not in placed:
                placed.add((f.node, f.bus_id))
                _add(g, gid, "gpu", f.bus_id)
                g.add_edge(host(g, f.node), gid, type="has")
            for comm in filter(None, (f.comm_id, f.comm)):  # the ring line names the commId, else the pointer
                gpu_of[(comm, f.rank)] = gid
    rings: dict[str, list[list[int]]] = g.graph.setdefault("rings", {})
    for f in facts:
        if f.kind != "nccl_ring_order":
            continue
        order = [int(r) for r in f.order.split()]
        rings.setdefault(f.comm, []).append(order)
        hops = {tuple(sorted(p)) for p in zip(order, order[1:] + order[:1])}  # a 2-rank ring is one hop both ways
        for a, b in sorted(hops):
            ga, gb = gpu_of.get((f.comm, a)), gpu_of.get((f.comm, b))
            if ga and gb and ga != gb:
                chans = g.edges[ga, gb].get("channels", 0) if g.has_edge(ga, gb) and g.edges[ga, gb].get("type") == "ring" else 0
                if not g.has_edge(ga, gb) or g.edges[ga, gb].get("type") == "ring":
                    g.add_edge(ga, gb, type="ring", comm=f.comm, channels=chans + f.channel_count)
