"""Fact classes made by :mod:`stethoscope.engine.combine.nccl_checks` from facts of several files at
once: which RoCE GIDs the nodes of a job used, GPUDirect RDMA turned off for a GPU/HCA pair
by their PCIe distance, and an NCCL release without code for the GPU's architecture.

Each carries ``sources``: the ids of the facts it summarises, so a finding quotes the
original lines (completion errors, ``set by environment`` lines, ``nvidia-smi -q``).
"""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class RoceGidSet(Fact):
    """The RoCE GIDs and ``NCCL_IB_GID_INDEX`` values of one job, across its nodes.

    ``mismatch`` is True only on evidence that the GIDs are of different kinds: a completion
    error whose local and remote GID differ in kind (IPv4-mapped ``::ffff:a.b.c.d``, IPv6
    link-local ``fe80::``, other IPv6), or GIDs of different kinds used by different nodes;
    or when nodes set different ``NCCL_IB_GID_INDEX`` values and RDMA connections failed.
    Different indexes alone are normal where GID tables differ (nccl#718).
    """

    kind: Literal["roce_gid_set"] = "roce_gid_set"
    mismatch: bool
    basis: Literal["gid_kinds_differ", "index_differs_with_errors", "none"]
    gid_kinds: str  # "node1 ipv4 (::ffff:10.1.1.1); node2 ipv6_link_local (fe80::...)" or "unknown"
    gid_index: str  # "node1: 3; node2: 5" or "not set"
    distinct_index: int
    connection_errors: int  # completion errors and failed ibv_modify_qp calls in the job
    sources: str


@fact_kind
class NcclGdrDistance(Fact):
    """NCCL turned GPUDirect RDMA off for one GPU/HCA pair because the PCIe path between them
    is longer than ``NCCL_NET_GDR_LEVEL`` (default PXB, distance 4) allows.

    ``multi_node`` says whether the job sends data over the network (NET transport lines,
    NCCL ranks on more than one node): only then does the pair's traffic go through host
    memory: rules/network/gdr_disabled_pcie_distance*.yaml weigh it (warning, else info).
    """

    kind: Literal["nccl_gdr_distance"] = "nccl_gdr_distance"
    gpu: str  # as NCCL printed it: bus id "42000" or index "0"
    gpu_bus_id: str | None = None  # canonical dddd:bb:dd.f when NCCL printed a bus id
    hca: str  # NCCL's NET device index
    distance: int
    limit: int
    path: str  # NCCL's path type of that distance: "PHB", "SYS", ...
    multi_node: bool
    sources: str


@fact_kind
class NcclArchUnsupported(Fact):
    """The NCCL release (or the CUDA it was built with) on a node predates native code for
    the node's GPU architecture (``knowledge/nccl_arch_support.yaml``)."""

    kind: Literal["nccl_arch_unsupported"] = "nccl_arch_unsupported"
    version: str  # "2.21.5"
    build_cuda: str | None = None  # "12.4" from "+cuda12.4"
    architecture: str  # "Blackwell"
    gpu_name: str | None = None
    compute_capability: str  # "10.0"
    nccl_min: str
    cuda_min: str
    reason: Literal["nccl_too_old", "build_cuda_too_old"]
    source: str  # where the table's entry comes from
    sources: str
