"""NCCL's own messages as PyTorch forwards them (after ``Last error:``) or as applications paste
them without NCCL's ``host:pid:tid [dev] file:line NCCL WARN`` prefix (read by :mod:`torch_log`).

Not a parser. PyTorch's ``DistBackendError`` quotes ``ncclGetLastError()`` under
``Last error:``; that text is NCCL's WARN message without its prefix, so the same fact kinds
the NCCL log parser makes (``nccl_duplicate_gpu``, ``nccl_bootstrap_failure``,
``nccl_cuda_failure``) are made here, and one set of rules reads both. Real lines::

    torch.distributed.DistBackendError: NCCL error in: .../ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.5
    ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
    Last error:
    socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused connection abort          (awsome-distributed-ai#192)
    Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40                                   (facebookresearch/msn#24)
    Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.   (pytorch#177472)

The message strings are NCCL's (src/init.cc "Duplicate GPU detected : rank %d and rank %d both
on CUDA device %lx", src/misc/socket.cc "socketStartConnect: Connect to %s failed : %s",
src/transport/nvls.cc "Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA
error %d '%s'", include/checks.h "Cuda failure %d '%s'").
"""
from __future__ import annotations

import re
from typing import Any

from stethoscope.facts.ids import nccl_busid
from stethoscope.facts.parsers.nccl_log_facts import NcclBootstrapFailure
from stethoscope.facts.parsers.nccl_setup_facts import NcclCudaFailure, NcclDuplicateGpu

# Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40
DUPLICATE_GPU = re.compile(r"Duplicate GPU detected : rank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<bus>[0-9a-fA-F]+)")
# socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused connection abort
# socketPollConnect: Connect to 10.1.1.2<34567> returned 111(Connection refused) errno 115(Operation now in progress)
CONNECT_FAILED = re.compile(r"\b[Cc]onnect to (?P<peer>\S+<\d+>) (?:failed ?: ?|returned )(?P<err>.+?)\s*$")
# socketProgress: Connection closed by remote peer 10.10.1.3<36138>
CONNECTION_CLOSED = re.compile(r"Connection closed by remote peer (?P<peer>\S+<\d+>)")
# Bootstrap : no socket interface found
NO_INTERFACE = re.compile(r"Bootstrap ?: no socket interface found|NET/Socket ?: No usable listening interface found")
# ncclSocketInit: Socket creation failed : Address family not supported by protocol
SOCKET_CREATION = re.compile(r"Socket creation failed ?: ?(?P<err>.+?)\s*$")
# Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.
NVLS_BIND = re.compile(r"Failed to (?P<op>bind|map|create|allocate) NVLink SHARP \(NVLS\) Multicast memory(?: of size (?P<size>\d+))?"
                       r" : CUDA error (?P<code>\d+) '(?P<err>[^']*)'")
# Cuda failure 'out of memory'          Cuda failure 999 'unknown error'
CUDA_FAILURE = re.compile(r"^Cuda failure (?:(?P<code>\d+) )?'(?P<err>[^']*)'?")

#: literals in front of the patterns above (a line with none is not looked at)
MARKERS = ("Duplicate GPU detected", "onnect to ", "Connection closed by remote peer", "no socket interface found",
           "No usable listening interface", "Socket creation failed", "NVLink SHARP (NVLS)", "Cuda failure")


def read(msg: str) -> tuple[type, dict[str, Any], str | None] | None:
    """(fact class, its fields, the peer address if any) for one NCCL message, or None."""
    if m := DUPLICATE_GPU.search(msg):
        return NcclDuplicateGpu, dict(rank=int(m["a"]), other_rank=int(m["b"]), bus_id=nccl_busid(m["bus"])), None
    if m := NVLS_BIND.search(msg):
        return NcclCudaFailure, dict(error=m["err"], error_code=int(m["code"]), source_file="transport/nvls.cc", nvls=True), None
    if m := CUDA_FAILURE.search(msg.strip()):
        return NcclCudaFailure, dict(error=m["err"], error_code=int(m["code"]) if m["code"] else None), None
    if m := CONNECT_FAILED.search(msg):
        err = m["err"]
        low = err.lower()
        reason = "connection_refused" if "refused" in low else "timeout" if "timed out" in low else "other"
        return NcclBootstrapFailure, dict(reason=reason, peer=m["peer"], message=msg.strip(), error=err), m["peer"]
    if m := CONNECTION_CLOSED.search(msg):
        return NcclBootstrapFailure, dict(reason="connection_closed", peer=m["peer"], message=msg.strip()), m["peer"]
    if NO_INTERFACE.search(msg):
        return NcclBootstrapFailure, dict(reason="no_socket_interface", message=msg.strip()), None
    if m := SOCKET_CREATION.search(msg):
        return NcclBootstrapFailure, dict(reason="socket_creation_failed", message=msg.strip(), error=m["err"]), None
    return None


def is_loopback(peer: str | None) -> bool:
    """``127.0.0.1<45069>`` / ``::1<1234>``: a peer address on the loopback interface."""
    if not peer:
        return False
    addr = peer.split("<", 1)[0]
    return addr.startswith("127.") or addr in ("::1", "[::1]")
