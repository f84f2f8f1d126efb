"""Fact classes made by :mod:`stethoscope.engine.combine.nccl_checks` from facts of several files at
once: which RoCE GIDs the nodes of a job used, GPUDirect RDMA turned off for a GPU/HCA pair
by their PCIe distance, and an NCCL release without code for the GPU's architecture.

Each carries ``sources``: the ids of the facts it summarises, so a finding quotes the
original lines (completion errors, ``set by environment`` lines, ``nvidia-smi -q``).
"""
from __future__ import annotations

from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclArchBuild, NcclGdrDistance, RoceGidSet, version_key, with_version_keys,
)
