"""GPU<->NIC locality from ``nvidia-smi topo -m`` when the bundle has no NCCL topology dump.

NCCL's dump gives the PCI tree itself (GPUs and NICs under their bridges). Without it, the
matrix still says which NIC shares a PCIe switch with which GPU: ``PIX`` (at most one bridge
between them, the same switch) and ``PXB`` (several bridges but no host bridge, a switch
tree). Those pairs become ``pcie_local`` edges between the GPU and the HCA, so that a GPU's
network traffic can be followed to its HCA and a finding on either can name the other.
``NODE``/``PHB``/``SYS`` cross the CPU and say nothing about a shared switch: no edge.

The matrix names GPUs by index (``GPU0``), so they sit in the graph as ``gpu:node/GPU0``,
beside any GPU known by its PCI bus id; nothing in the matrix joins the two. A NIC is named by
its RDMA device (``mlx5_0``, from the legend or an old matrix's column); without a legend it
stays ``NIC0``, marked ``unnamed``, since NIC numbering need not follow mlx5 numbering.
"""
from __future__ import annotations

import networkx as nx

from stethoscope.facts.model import Fact

LOCAL = ("PIX", "PXB")


def add_nic_locality(g: nx.Graph, facts: list[Fact], add, host) -> None:
    """Add ``pcie_local`` GPU-HCA edges from ``gpu_topo_link`` facts, per node without an
    NCCL topology dump. ``add``/``host`` are engine.topology's node makers."""
    dumped = {f.node for f in facts if f.kind == "nccl_topo_pci"}
    affinity = {(f.node, f.gpu): f for f in facts if f.kind == "gpu_topo_affinity"}
    for f in facts:
        if f.kind != "gpu_topo_link" or f.node in dumped:
            continue
        ends = [(f.a, f.a_rdma_device), (f.b, f.b_rdma_device)]
        gpu = next((d for d, _ in ends if d.startswith("GPU")), None)
        nic_dev, nic = next(((d, r) for d, r in ends if not d.startswith("GPU")), (None, None))
        if not (gpu and nic_dev) or f.connection not in LOCAL:
            continue
        aff = affinity.get((f.node, gpu))
        gid = add(g, f"gpu:{f.node}/{gpu}", "gpu", gpu, numa=aff.numa_affinity if aff else None)
        g.add_edge(host(g, f.node), gid, type="has")
        # without a NIC Legend the NIC is known by its index only: kept apart from named HCAs
        hid = add(g, f"hca:{f.node}/{nic or nic_dev}", "hca", nic or f"{nic_dev} (no NIC Legend)", unnamed=nic is None or None)
        g.add_edge(host(g, f.node), hid, type="has")
        g.add_edge(gid, hid, type="pcie_local", connection=f.connection, source=f"nvidia-smi topo -m ({f.evidence.path})")


def local_nics(g: nx.Graph, node: str, gpu: str) -> list[tuple[str, str]]:
    """(HCA, connection) pairs that share a PCIe switch with ``gpu`` on ``node``, PIX first."""
    gid = f"gpu:{node}/{gpu}"
    if gid not in g:
        return []
    out = [(g.nodes[n]["label"], g.edges[gid, n]["connection"]) for n in g.neighbors(gid) if g.edges[gid, n].get("type") == "pcie_local"]
    return sorted(out, key=lambda p: (LOCAL.index(p[1]), p[0]))


def local_gpus(g: nx.Graph, node: str, hca: str) -> list[tuple[str, str]]:
    """(GPU, connection) pairs that share a PCIe switch with ``hca`` on ``node``, PIX first."""
    hid = f"hca:{node}/{hca}"
    if hid not in g:
        return []
    out = [(g.nodes[n]["label"], g.edges[hid, n]["connection"]) for n in g.neighbors(hid) if g.edges[hid, n].get("type") == "pcie_local"]
    return sorted(out, key=lambda p: (LOCAL.index(p[1]), p[0]))
