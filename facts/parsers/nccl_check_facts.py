"""Fact classes made by :mod:`stethoscope.engine.combine.nccl_checks` from facts of several files at
once: which RoCE GIDs the nodes of a job used, GPUDirect RDMA turned off for a GPU/HCA pair
by their PCIe distance, and an NCCL release without code for the GPU's architecture.

Each carries ``sources``: the ids of the facts it summarises, so a finding quotes the
original lines (completion errors, ``set by environment`` lines, ``nvidia-smi -q``).
"""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class RoceGidSet(Fact):
    """The RoCE GIDs and ``NCCL_IB_GID_INDEX`` values of one job, across its nodes; no verdict.

    GIDs are of a kind: IPv4-mapped ``::ffff:a.b.c.d``, IPv6 link-local ``fe80::``, other IPv6.
    ``mixed_pairs`` counts completion errors whose local and remote GID differ in kind;
    ``node_gid_kinds`` the distinct kinds of the GIDs the nodes used (each node's own side of
    its first completion error that prints one). The rules of rules/network/roce_gid_*.yaml
    weigh them: GIDs of different kinds in one connection or across nodes, else different
    ``NCCL_IB_GID_INDEX`` values together with failed RDMA connections (different indexes
    alone are normal where GID tables differ, nccl#718).
    """

    kind: Literal["roce_gid_set"] = "roce_gid_set"
    mixed_pairs: int  # completion errors between GIDs of different kinds
    node_gid_kinds: int  # distinct kinds of the GIDs the nodes used (0: none printed)
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


def version_key(version: str | None) -> int | None:
    """A dotted version as one number that orders releases (major, minor, patch: 1,000 each):
    "2.26.2" -> 2026002, "12.8" -> 12008000; None where no number is printed."""
    parts = [int(x) for x in re.findall(r"\d+", version or "")[:3]]
    if not parts:
        return None
    parts += [0] * (3 - len(parts))
    return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2]


def with_version_keys(data: Any, keys: dict[str, tuple[str, ...]]) -> Any:
    """A ``model_validator(mode="before")`` step: each key field of ``keys`` left unset is filled
    with :func:`version_key` of the first of its source fields that is set."""
    if not isinstance(data, dict):
        return data
    for key, fields in keys.items():
        text = next((data[f] for f in fields if data.get(f) is not None), None)
        if data.get(key) is None and text is not None:
            data = {**data, key: version_key(str(text))}
    return data


@fact_kind
class NcclArchBuild(Fact):
    """The NCCL release on a node (and the CUDA it was built with) beside the first release with
    native code for the node's GPU architecture (``knowledge/nccl_arch_support.yaml``); rules
    judge it (rules/nccl/nccl_arch_not_in_build.yaml, nccl_arch_build_cuda_too_old.yaml).

    The ``*_key`` fields are the versions as numbers that order releases (:func:`version_key`),
    filled from the dotted versions: rules compare those."""

    kind: Literal["nccl_arch_build"] = "nccl_arch_build"
    version: str  # "2.21.5"
    build_cuda: str | None = None  # "12.4" from "+cuda12.4"
    architecture: str  # "Blackwell"
    gpu_name: str | None = None
    compute_capability: str  # "10.0"
    nccl_min: str
    cuda_min: str
    version_key: int | None = None
    build_cuda_key: int | None = None
    nccl_min_key: int | None = None
    cuda_min_key: int | None = None
    source: str  # where the table's entry comes from
    sources: str

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        return with_version_keys(data, {"version_key": ("version",), "build_cuda_key": ("build_cuda",),
                                        "nccl_min_key": ("nccl_min",), "cuda_min_key": ("cuda_min",)})
