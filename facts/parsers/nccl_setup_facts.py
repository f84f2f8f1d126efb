"""Fact classes for what NCCL's log says about the resources it set up or failed to set up:
GPUDirect RDMA, peer-to-peer, shared memory, verbs calls, duplicate GPUs, CUDA failures.

Read by :mod:`stethoscope.facts.parsers.nccl_log_setup` from ``NCCL_DEBUG=INFO`` logs; every
fact carries ``pid`` and ``local_device`` from NCCL's ``host:pid:tid [dev]`` prefix.
"""
from __future__ import annotations

from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclConfigRejected, NcclCudaFailure, NcclDuplicateGpu, NcclGdrState, NcclP2pUnavailable, NcclShmFailure,
    NcclShmRefused, NcclVerbsFailure,
)
