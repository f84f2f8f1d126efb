"""Lines of an NCCL debug log about the resources NCCL sets up: GPUDirect RDMA, peer-to-peer,
shared memory, verbs calls, duplicate GPUs, CUDA failures. Called by
:mod:`stethoscope.facts.parsers.nccl_log` for each NCCL-prefixed line (its message part);
the facts are those of :mod:`stethoscope.facts.kinds.nccl`.

Real sample lines (public issue threads; the H200 capture of this project)::

    learn01:2228637:2230195 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'     (nccl#1676)
    vm:1552:1564 [1] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'lo'               (H200 socket-only run)
    ault44:1424216:1424273 [1] NCCL INFO Could not enable P2P between dev 1(=81000) and dev 0(=41000)   (nccl#1516)
    ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-KWfVyt (size 5967872)   (nccl-tests#166)
    qgpu2018:59522:59993 [0] init.cc:795 NCCL WARN Duplicate GPU detected : rank 6 and rank 4 both on CUDA device 31000   (accelerate#2246)
    gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'   (nccl#1372)
    gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error        (nccl-tests#276)
    gpu-stress-dgc86-xfpt6:420:437 [5] transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.   (DCGM#304)

Duplicate GPU, CUDA failure and NVLS bind messages are read through the one NCCL message table,
:mod:`torch_nccl_forwarded`, that also reads them where PyTorch or XLA forward them.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from stethoscope.facts.ids import nccl_busid
from stethoscope.facts.parsers import torch_nccl_forwarded as messages
from stethoscope.facts.parsers import nccl_warn_kinds
from stethoscope.facts.kinds.nccl import (
    NcclGdrState,
    NcclP2pUnavailable,
    NcclShmFailure,
    NcclShmRefused,
    NcclVerbsFailure,
)

if TYPE_CHECKING:
    from stethoscope.facts.parsers.nccl_log import NcclLogState

# Cheap test before any regex: every message handled here holds one of these.
_KEYS = ("GPU Direct RDMA", "P2P", "shared memory", "posix_fallocate", "failed to extend", "Call to ibv", "Duplicate GPU", "Mismatched NCCL version",
         "NCCL version mismatch with remote peer",
         "Cuda failure", "NVLink SHARP (NVLS)", "Call to shm_open", "shm_open failed")
_KEYS_RE = re.compile("|".join(map(re.escape, _KEYS)))

# NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
# NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)          (net plugins, NCCL <= 2.12)
# NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_0       (nccl-rdma-sharp-plugins#104: no closing quote)
# NET/NCCL RDMA Plugin v10 : GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'
_GDR_HCA = re.compile(
    r"^NET/(?P<net>[^:]+?) ?: GPU Direct RDMA (?:\((?P<mech>[^)]+)\) )?(?P<state>[Ee]nabled|[Dd]isabled) "
    r"for HCA (?P<idx>\d+) '(?P<hca>[^'\s]+)'?(?P<nomod> \(no module\))?"
)
# GPU Direct RDMA Disabled for GPU 0 / HCA 1 (distance 5 > 3)              (graph/paths.cc, NCCL_NET_GDR_LEVEL)
# GPU Direct RDMA Enabled for GPU 1b000 / HCA 0 (distance 3 <= 4), read 0
_GDR_PAIR = re.compile(
    r"^GPU Direct RDMA (?P<state>Enabled|Disabled) for GPU (?P<gpu>[0-9a-fA-Fx]+) / HCA (?P<hca>[0-9a-fA-Fx]+) "
    r"\(distance (?P<d>\d+) (?:>|<=) (?P<l>\d+)\)"
)
# P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case given their connectivity, ...
_P2P_NVLINK = re.compile(r"^P2P is disabled between NVLINK connected GPUs (?P<a>\d+) and (?P<b>\d+)")
# P2P is disabled between connected GPUs 1 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
#   (vllm-project/vllm#3710, two RTX 4090 under vLLM's Ray workers; NVIDIA/nccl src/graph/paths.cc ncclTopoCheckP2p:
#   INFO(NCCL_INIT, "P2P is disabled between connected GPUs %d and %d. You can repress this message with "
#   "NCCL_IGNORE_DISABLED_P2P=1.", ...) where NVML's P2P read/write status of a pair joined below the CPU (path type
#   above NVB, below SYS) is not OK: NCCL goes on without P2P between them; the NVLink case is the WARN above)
_P2P_PCIE = re.compile(r"^P2P is disabled between connected GPUs (?P<a>\d+) and (?P<b>\d+)")
# Could not enable P2P between dev 1(=81000) and dev 0(=41000)
_P2P_ENABLE = re.compile(r"^Could not enable P2P between dev (?P<a>\d+)\(=(?P<abus>[0-9a-fA-F]+)\) and dev (?P<b>\d+)\(=(?P<bbus>[0-9a-fA-F]+)\)")
# "Error while creating/attaching to shared memory segment ...": messages.SHM_SEGMENT (also read after torch's "Last error:")
_SHM_SEGMENT = messages.SHM_SEGMENT
# Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes
_SHM_EXTEND = re.compile(r"^Error: failed to extend (?P<seg>\S+) to (?P<size>\d+) bytes(?:, error: (?P<err>.+))?$")
# Call to posix_fallocate failed : No space left on device
_SHM_FALLOCATE = re.compile(r"^Call to posix_fallocate failed ?: ?(?P<err>.+)$")
# NCCL 2.4-2.11 include/shm.h shmSetup: SYSCHECKVAL(shm_open(shmname, O_CREAT | O_RDWR, S_IRUSR | S_IWUSR), "shm_open", *fd),
# include/checks.h: WARN("Call to " name " failed : %s", strerror(errno)); the "Error while creating shared memory
# segment" line that follows it then carries no reason of its own:
# node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied        (NVIDIA/nccl#328)
_SHM_OPEN = re.compile(r"^Call to shm_open failed ?: ?(?P<err>.+)$")
# NCCL 2.3 said both in its own words (v2.3.5-5 src/include/shm.h:19, 26, shmOpen: WARN("shm_open failed to open %s : %s",
# shmname, strerror(errno)) and, posix_fallocate of the new segment failing, WARN("Unable to allocate shared memory (%d
# bytes) : %s", shmsize, strerror(res)); the segment's name is shm_open's, "nccl-shm-recv-<hash>-<ring>-<rank>", no /dev/shm):
# Unable to allocate shared memory (9637888 bytes) : No space left on device          (the format, filled in)
# Only ENOSPC is a full /dev/shm: 2.3's posix_fallocate was not retried on a signal (v2.3.5-5 and v2.3.7-1
# include/shm.h; 2.4.2 on call it through SYSCHECK, whose SYSCHECKSYNC retries EINTR, EAGAIN and EWOULDBLOCK), and
#   include/shm.h:26 NCCL WARN Unable to allocate shared memory (4263936 bytes) : Interrupted system call
#   (marian-nmt/marian-dev src/training/communicator_nccl.h, a comment quoting its NCCL 2.3 failure) is that, not a full
#   /dev/shm: nccl_shm_failure with errno_name EINTR (rules/nccl/nccl_shm_alloc_interrupted.yaml); another errno is
#   the generic failure of the segment (no rule of /dev/shm's size takes it)
_SHM_OPEN_23 = re.compile(r"^shm_open failed to open (?P<seg>\S+) : (?P<err>.+)$")
_SHM_ALLOCATE_23 = re.compile(r"^Unable to allocate shared memory \((?P<size>\d+) bytes\) : (?P<err>.+)$")
# The last peer to attach unlinks the segment (misc/shmutils.cc ncclShmOpen); the file already gone (ENOENT) was
# deleted by something else: systemd-logind's RemoveIPC=yes clears a user's /dev/shm when it sees no session of
# that user, which an mpirun or Slurm job may not have (the NCCL troubleshooting guide's "Systemd" section):
# NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory
#   (that guide's sample; current releases print it at INFO: INFO(NCCL_ALLOC, "unlink shared memory %s failed,
#   error: %s (%d)", shmPath, strerror(errno), errno))
_SHM_UNLINK = re.compile(r"^unlink shared memory (?P<seg>\S+) failed, error: (?P<err>[^\n]*\S)\s*$")
# glibc's strerror() texts of the errnos a /dev/shm segment call fails with (asm-generic/errno-base.h), read back to
# the errno: a full /dev/shm (ENOSPC) and one the job may not write to (EACCES, EPERM, EROFS) are different faults
# posix_fallocate(3)'s own errnos too (EBADF, EFBIG, EINTR, EINVAL, ENODEV, ENOSPC, EOPNOTSUPP, ESPIPE): glibc's texts
_ERRNO_NAMES = {
    "Operation not permitted": "EPERM", "No such file or directory": "ENOENT", "Cannot allocate memory": "ENOMEM",
    "Permission denied": "EACCES", "Too many open files": "EMFILE", "No space left on device": "ENOSPC",
    "Read-only file system": "EROFS", "Invalid argument": "EINVAL", "Interrupted system call": "EINTR",
    "Bad file descriptor": "EBADF", "File too large": "EFBIG", "No such device": "ENODEV",
    "Operation not supported": "EOPNOTSUPP", "Illegal seek": "ESPIPE",
}
# "No space left on device", "Permission denied (13)" (2.12+ adds the errno number)
_ERRNO_TEXT = re.compile(r"^(?P<text>[A-Za-z](?:[A-Za-z -]*[A-Za-z-])?)\s*(?:\(\d+\))?\s*$")


#: the errnos of a call refused access (POSIX: EACCES, EPERM; EROFS a read-only /dev/shm)
_REFUSED = frozenset({"EACCES", "EPERM", "EROFS"})


def _errno_name(error: str | None) -> str | None:
    m = _ERRNO_TEXT.match(error) if error else None
    return _ERRNO_NAMES.get(m["text"]) if m else None


def _shm(p: "NcclLogState", no: int, node: str, op: str, error: str | None, ctx: dict[str, Any], **where: Any) -> None:
    """One failed /dev/shm segment call: refused (a permission errno) or failed otherwise. A line that gives a
    reason names its errno (other_reason: a reason, and not ENOSPC's). NCCL 2.4-2.11's "Error while creating shared
    memory segment %s (size %d)" gives none: shmOpen prints it after the SYSCHECK WARN of the call of shmSetup that
    failed ("Call to posix_fallocate failed : %s", shm_open's), so it takes that call's reason (v2.4.2-1 .. v2.11.4-1
    src/include/shm.h: NCCLCHECKGOTO(shmSetup(...), res, sysError); sysError: WARN("Error while %s shared memory ...")."""
    errno_name = _errno_name(error)
    key = (node, ctx["pid"])
    if error is not None:
        other = errno_name != "ENOSPC"
        if op in ("fallocate", "shm_open") and ctx["pid"] is not None:
            p.shm_calls[key] = (errno_name, other)
    elif op == "create" and ctx["pid"] is not None and key in p.shm_calls:
        errno_name, other = p.shm_calls.pop(key)
    else:
        other = False
    if error is not None and errno_name in _REFUSED:
        p.b.add(NcclShmRefused, no, node=node, call=op, error=error, errno_name=errno_name, **where, **ctx)
    elif op != "shm_open":
        p.b.add(NcclShmFailure, no, node=node, op=op, error=error, errno_name=errno_name, other_reason=other, **where, **ctx)
# Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory          Call to ibv_create_cq failed
#   (NCCL <= 2.18: "Call to %s failed with error %s", strerror(errno); 2.19 and later add " errno %d")
_VERBS = re.compile(r"^Call to (?P<verb>ibv_\w+) failed(?: with error (?P<err>.+?)(?: errno (?P<errno>\d+))?)?\s*$")
# NCCL 2.25 and later say where a queue-pair transition failed (src/misc/ibvwrap.cc, wrap_ibv_modify_qp:
# WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg), qpMsg from ibvModifyQpLog:
# "on dev %s:%d, curr state %s, next state %s, local GID index %d, local GID %s, remote GID %s"):
# Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2
#   (that format filled in; no sample of it was found in an even-numbered public thread)
_MODIFY_QP = re.compile(
    r"^Call to (?P<verb>ibv_modify_qp) failed with (?P<errno>\d+) (?P<err>[^,]+), on dev (?P<dev>[^\s:,]+):(?P<port>-?\d+), "
    r"curr state (?P<curr>\w+), next state (?P<next>\w+)"
    r"(?:, local GID index (?P<gidx>-?\d+), local GID (?P<lgid>\S+?), remote GID (?P<rgid>\S+?))?"
    r"\s*$"  # the INFO before a retry (", retrying 1/8 after 100 msec of sleep") is not the failure
)


def _gid(text: str | None) -> str | None:
    """A GID as NCCL printed it; None for its "N/A" (not queried)."""
    return None if text in (None, "N/A") else text


def _busid_or_none(text: str) -> str | None:
    """NCCL >= 2.8 prints the GPU of a GDR pair line as its busId in hex (``%lx``: "42000")."""
    try:
        return nccl_busid(text)
    except ValueError:
        return None


def handle(p: "NcclLogState", no: int, node: str, msg: str, src: str | None, ctx: dict[str, Any]) -> bool:
    """Add the fact of one message; True when the message was one of this module's kinds."""
    if not _KEYS_RE.search(msg):
        return False
    pid = ctx["pid"]
    if m := _GDR_HCA.match(msg):
        enabled = m["state"].lower() == "enabled"
        p.once(NcclGdrState, no, node, (pid, "hca", m["net"], m["hca"], enabled), network=m["net"], hca=m["hca"],
               hca_index=int(m["idx"]), enabled=enabled, mechanism=m["mech"], reason="no_module" if m["nomod"] else None,
               scope="hca", **ctx)
    elif m := _GDR_PAIR.match(msg):
        enabled = m["state"] == "Enabled"
        p.once(NcclGdrState, no, node, (pid, "pair", m["gpu"], m["hca"], enabled), network="topology", hca=m["hca"],
               enabled=enabled, reason=None if enabled else "distance", scope="gpu_hca_pair",
               gpu=int(m["gpu"]) if m["gpu"].isdecimal() else None, gpu_bus_id=_busid_or_none(m["gpu"]),
               distance=int(m["d"]), limit=int(m["l"]), **ctx)
    elif m := _P2P_NVLINK.match(msg):
        p.once(NcclP2pUnavailable, no, node, (pid, m["a"], m["b"]), dev=int(m["a"]), peer_dev=int(m["b"]), nvlink=True, **ctx)
    elif m := _P2P_PCIE.match(msg):
        p.once(NcclP2pUnavailable, no, node, (pid, m["a"], m["b"]), dev=int(m["a"]), peer_dev=int(m["b"]), nvlink=False, **ctx)
    elif m := _P2P_ENABLE.match(msg):
        p.once(NcclP2pUnavailable, no, node, (pid, m["a"], m["b"]), dev=int(m["a"]), peer_dev=int(m["b"]),
               bus_id=nccl_busid(m["abus"]), peer_bus_id=nccl_busid(m["bbus"]), **ctx)
    elif m := _SHM_SEGMENT.match(msg):
        _shm(p, no, node, "create" if m["op"] == "creating" else "attach", m["err"], ctx, segment=m["seg"],
             size_bytes=int(m["size"]) if m["size"] else None)
    elif m := _SHM_EXTEND.match(msg):
        _shm(p, no, node, "extend", m["err"], ctx, segment=m["seg"], size_bytes=int(m["size"]))
    elif m := _SHM_FALLOCATE.match(msg):
        _shm(p, no, node, "fallocate", m["err"], ctx)
    elif m := _SHM_OPEN.match(msg):
        _shm(p, no, node, "shm_open", m["err"], ctx)
    elif m := _SHM_OPEN_23.match(msg):
        _shm(p, no, node, "shm_open", m["err"], ctx, segment=m["seg"])
    elif m := _SHM_ALLOCATE_23.match(msg):
        _shm(p, no, node, "fallocate", m["err"], ctx, size_bytes=int(m["size"]))
    elif (m := _SHM_UNLINK.match(msg)) and _errno_name(m["err"]) == "ENOENT":
        p.b.add(NcclShmFailure, no, node=node, op="unlink", error=m["err"], errno_name="ENOENT", other_reason=True,
                segment=m["seg"], **ctx)
    elif m := _MODIFY_QP.match(msg):
        gidx = int(m["gidx"]) if m["gidx"] is not None else None
        p.once(NcclVerbsFailure, no, node, (pid, m["verb"], m["err"], m["dev"], m["next"]), verb=m["verb"], error=m["err"].strip(),
               errno=int(m["errno"]), device=m["dev"], port=int(m["port"]) if int(m["port"]) >= 0 else None,
               qp_state=m["curr"], next_state=m["next"], gid_index=gidx if gidx is not None and gidx >= 0 else None,
               local_gid=_gid(m["lgid"]), remote_gid=_gid(m["rgid"]), **ctx)
    elif (m := _VERBS.match(msg)) and not nccl_warn_kinds.BARE_INFO_FORMS.match(msg):  # not the ECE query NCCL goes on without
        p.once(NcclVerbsFailure, no, node, (pid, m["verb"], m["err"]), verb=m["verb"], error=m["err"],
               errno=int(m["errno"]) if m["errno"] else None, **ctx)
    elif got := messages.read_setup(msg, src):  # duplicate GPU, CUDA failure, NVLS bind: the one message table
        cls, fields = got
        # one per process, device and values (a CUDA failure per error and call site: NCCL repeats it for every kernel
        # it tries); the device kept apart because a process driving several GPUs (nccl-tests -g N, one JAX process per
        # node) prints each device's failure with its own error chain under it, NVIDIA/nccl#1338 (H800, -g 8):
        # node2:242431:242475 [1] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'
        # node2:242431:242474 [0] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'
        p.once(cls, no, node, (pid, ctx.get("local_device"), *fields.values()), **fields, **ctx)
    else:
        return False
    return True
