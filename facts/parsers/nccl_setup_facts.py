"""Fact classes for what NCCL's log says about the resources it set up or failed to set up:
GPUDirect RDMA, peer-to-peer, shared memory, verbs calls, duplicate GPUs, CUDA failures.

Read by :mod:`stethoscope.facts.parsers.nccl_log_setup` from ``NCCL_DEBUG=INFO`` logs; every
fact carries ``pid`` and ``local_device`` from NCCL's ``host:pid:tid [dev]`` prefix.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import fact_kind
from stethoscope.facts.parsers.nccl_log_facts import NcclLineFact


@fact_kind
class NcclGdrState(NcclLineFact):
    """``NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'`` and its kin: whether a network
    device can read and write GPU memory directly.

    ``network`` is the transport that printed it ("IB", "Socket", "NCCL RDMA Plugin v10", "UCX";
    ``topology`` for the per GPU/HCA pair lines of NCCL's topology search);
    NET/Socket never supports GPUDirect RDMA, so its "Disabled" line is normal. ``reason`` is
    ``no_module`` (the plugin's "(no module)": no nvidia-peermem / nv_peer_mem), ``distance``
    (the topology line "for GPU g / HCA h (distance d > l)": NCCL_NET_GDR_LEVEL or the PCIe
    path), else None.
    """

    kind: Literal["nccl_gdr_state"] = "nccl_gdr_state"
    scope: Literal["hca", "gpu_hca_pair"]  # a device's capability, or one GPU/HCA pair's path
    network: str
    hca: str  # "mlx5_0" (device lines) or NCCL's hex NET id (topology lines)
    hca_index: int | None = None
    enabled: bool
    mechanism: str | None = None  # "nvidia-peermem", "DMABUF" when NCCL names it
    reason: Literal["no_module", "distance"] | None = None
    gpu: int | None = None  # topology lines: the GPU's NCCL index
    gpu_bus_id: str | None = None  # topology lines: the GPU as NCCL prints it (busId "%lx"), canonical
    distance: int | None = None
    limit: int | None = None


@fact_kind
class NcclP2pUnavailable(NcclLineFact):
    """NCCL could not use peer-to-peer between two GPUs of one node.

    ``P2P is disabled between NVLINK connected GPUs 1 and 0. ...`` (WARN, ``nvlink`` True:
    NVML says no P2P over links the topology has, usually a hardware or driver fault) or
    ``Could not enable P2P between dev 1(=81000) and dev 0(=41000)`` (INFO, ``nvlink`` None:
    cudaDeviceEnablePeerAccess failed; normal on GPUs without P2P support such as GeForce).
    """

    kind: Literal["nccl_p2p_unavailable"] = "nccl_p2p_unavailable"
    dev: int
    peer_dev: int
    bus_id: str | None = None
    peer_bus_id: str | None = None
    nvlink: bool | None = None


@fact_kind
class NcclShmFailure(NcclLineFact):
    """A failed shared-memory segment operation (``misc/shmutils.cc`` / ``include/shm.h``).

    ``op``: ``create`` ("Error while creating shared memory segment /dev/shm/nccl-X (size N)"),
    ``extend`` ("Error: failed to extend /dev/shm/nccl-X to N bytes"), ``fallocate`` ("Call to
    posix_fallocate failed : No space left on device"), ``attach`` ("Error while attaching to
    shared memory segment ..."; the segment vanished, a different fault from a full /dev/shm).
    """

    kind: Literal["nccl_shm_failure"] = "nccl_shm_failure"
    op: Literal["create", "extend", "fallocate", "attach"]
    segment: str | None = None  # "/dev/shm/nccl-KWfVyt"
    size_bytes: int | None = None
    error: str | None = None  # "No space left on device", "No such file or directory (2)"


@fact_kind
class NcclShmRefused(NcclLineFact):
    """A shared-memory segment call refused with a permission errno (EACCES, EPERM, EROFS): the job
    may not create NCCL's segment in /dev/shm at all (a full /dev/shm reads ENOSPC: ``nccl_shm_failure``).

    ``call``: ``shm_open`` (NCCL 2.4-2.11 include/shm.h: "Call to shm_open failed : Permission denied",
    followed by an "Error while creating shared memory segment" line without a reason), ``create`` /
    ``extend`` / ``attach`` (2.12+ misc/shmutils.cc, the errno after the segment: "..., error:
    Permission denied (13)"). ``errno_name`` is the errno of ``error``'s strerror() text.
    """

    kind: Literal["nccl_shm_refused"] = "nccl_shm_refused"
    call: Literal["shm_open", "create", "extend", "fallocate", "attach"]
    segment: str | None = None
    size_bytes: int | None = None
    error: str  # "Permission denied", "Read-only file system (30)"
    errno_name: str  # "EACCES", "EPERM", "EROFS"


@fact_kind
class NcclVerbsFailure(NcclLineFact):
    """``misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory``

    One failed InfiniBand verbs call; ``error`` is the strerror text (None when NCCL printed none),
    ``errno`` its number where NCCL printed it (2.19 and later). NCCL 2.25 and later say where a
    queue-pair transition failed: ``Call to ibv_modify_qp failed with 110 Connection timed out, on
    dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.1,
    remote GID ::ffff:10.0.0.2``: the HCA and port, the transition and the GIDs.
    """

    kind: Literal["nccl_verbs_failure"] = "nccl_verbs_failure"
    verb: str  # "ibv_reg_mr_iova2", "ibv_modify_qp", "ibv_create_cq"
    error: str | None = None  # "Cannot allocate memory"
    errno: int | None = None  # 110
    device: str | None = None  # "mlx5_0" (2.25+ ibv_modify_qp)
    port: int | None = None
    qp_state: str | None = None  # the queue pair's state before: RESET, INIT, RTR
    next_state: str | None = None  # the state it was moved to: INIT, RTR, RTS
    gid_index: int | None = None
    local_gid: str | None = None  # "::ffff:10.0.0.1"; "::" is an empty GID table slot
    remote_gid: str | None = None


@fact_kind
class NcclConfigRejected(NcclLineFact):
    """``init.cc NCCL WARN Invalid config blocking attribute value -2147483648``: NCCL refused a
    field of the ``ncclConfig_t`` its caller passed to ``ncclCommInitRankConfig``.

    ``undefined`` is True when the value is ``NCCL_CONFIG_UNDEF_INT`` (INT_MIN, -2147483648):
    newer ``nccl.h`` headers leave a field the caller did not set at that value and newer
    libraries accept it, while the first releases with the config API (2.14-2.16) accept only
    0/1 for ``blocking``. A library that rejects it is older than the headers its caller (the
    framework) was built against.
    """

    kind: Literal["nccl_config_rejected"] = "nccl_config_rejected"
    attribute: str  # blocking, cgaClusterSize, minCTAs, ...
    value: int
    undefined: bool = False


@fact_kind
class NcclDuplicateGpu(NcclLineFact):
    """``init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000``"""

    kind: Literal["nccl_duplicate_gpu"] = "nccl_duplicate_gpu"
    rank: int
    other_rank: int
    bus_id: str  # canonical dddd:bb:dd.f of NCCL's busId


@fact_kind
class NcclCudaFailure(NcclLineFact):
    """``enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'``: a CUDA call inside
    NCCL failed; ``error`` is the CUDA error string between the quotes (the driver API's
    ``CUCHECK`` also prints its number: ``Cuda failure 999 'unknown error'``).

    ``nvls`` is True when the failing call is in NCCL's NVLink SHARP transport
    (``transport/nvls.cc``: the cuMulticast* calls that set up NVLS buffers), named by the WARN
    itself or by the first frame of the error-return chain after it.
    """

    kind: Literal["nccl_cuda_failure"] = "nccl_cuda_failure"
    error: str
    error_code: int | None = None  # CUresult / cudaError_t where printed: 999
    source_file: str | None = None  # "enqueue.cc", "transport/nvls.cc"
    nvls: bool = False
    #: the knowledge/cuda_errors.yaml entry of ``error`` (its cudaGetErrorString / cuGetErrorString
    #: text, else the number as a CUresult: NCCL's CUCHECK prints the driver API's), None: not resolved
    catalogue_name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("catalogue_name") is None and data.get("error"):
            from stethoscope.facts.parsers import cuda_error_catalogue as catalogue

            e = catalogue.resolve(text=data["error"], code=data.get("error_code"), api="driver")
            if e is not None:
                data = {**data, "catalogue_name": e.name}
        return data
