"""The one table of NCCL's WARN messages that name a setup fault (duplicate GPU, CUDA failure,
NVLS multicast bind, the socket messages of :mod:`nccl_log_socket`), however the message arrives:
in NCCL's own log (:mod:`nccl_log_setup`, with NCCL's prefix), as PyTorch forwards it (after
``Last error:``) or applications paste it without NCCL's ``host:pid:tid [dev] file:line NCCL WARN``
prefix (:mod:`torch_log`), or as XLA quotes it (``Last NCCL warning(error)``, :mod:`xla_nccl`).

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
on CUDA device %lx", src/misc/socket.cc "socketStartConnect: Connect to %s failed : %s" and the other socket messages
of :mod:`nccl_log_socket`,
src/transport/nvls.cc "Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA
error %d '%s'" (2.19-2.28; 2.27+ add two sentences after it on lines of their own, and print it as
INFO with ". Proceeding without NVLS support." when NVLS was not forced on: not a failure),
include/checks.h "Cuda failure '%s'", include/cudawrap.h "Cuda failure %d '%s'", src/init.cc
"Invalid config blocking attribute value %d": the first releases with the config API accept only
0/1, later ones also NCCL_CONFIG_UNDEF_INT, the value newer headers leave in an unset field).
"""
from __future__ import annotations

import re
from typing import Any

from stethoscope.facts.ids import nccl_busid
from stethoscope.facts.parsers import nccl_log_socket as socket
from stethoscope.facts.parsers import nccl_warn_kinds
from stethoscope.facts.parsers.nccl_log_facts import NcclBootstrapFailure, NcclNetPluginError, NcclWarn
from stethoscope.facts.parsers.nccl_log_messages import read_gcp_plugin, read_ofi_request, read_ofi_setup, read_proxy
from stethoscope.facts.parsers.nccl_tests_facts import nccl_version_str
from stethoscope.facts.kinds.nccl import (NcclConfigRejected, NcclCudaFailure, NcclDuplicateGpu, NcclPeerVersionMismatch,
                                             NcclProxyFailure, NcclShmFailure,
                                             NcclShmRefused)

# WARN("Mismatched NCCL version detected : rank %d version %d rank %d version %d", i, comm->peerInfo[i].version, rank,
#   comm->peerInfo[rank].version)   (src/init.cc initTransportsRank, the same words in every release from 2.4's
#   allGather1Data check to v2.30.7-1's init.cc:1043; the peer's pair first, the printing rank's second)
# Mismatched NCCL version detected : rank 0 version 21003 rank 4 version 21602   (CONSTRUCTED from the format: no even
#   thread's paste of it was found; an NCCL 2.10.3 peer and an NCCL 2.16.2 rank)
VERSION_MISMATCH = re.compile(r"Mismatched NCCL version detected : rank (?P<peer>\d+) version (?P<peer_code>\d+) "
                              r"rank (?P<rank>\d+) version (?P<code>\d+)")
# NCCL's RAS thread checks the version of every peer that connects to it (src/ras/ras.cc rasMsgHandleConnInit, from
# v2.24.3-1; ncclInvalidUsage and the socket closed):
#   WARN("NCCL version mismatch with remote peer %s (local: %d, remote %d)", ncclSocketToString(...), NCCL_VERSION_CODE,
#     msg->connInit.ncclVersion)   (v2.24.3-1 ras.cc:391 .. v2.28.3-1 ras.cc:428)
#   WARN("NCCL version mismatch with remote peer %s (local: %s, remote %s)", ..., ncclVersionToString(NCCL_VERSION_CODE),
#     ncclVersionToString(msg->connInit.ncclVersion))   (5067397c ras.cc:415: "%d.%d.%d", code/10000, code%10000/100, code%100)
# NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 22703, remote 22605)        (CONSTRUCTED from the formats:
# NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 2.30.3, remote 2.29.7)        no even thread's paste found)
RAS_VERSION_MISMATCH = re.compile(r"NCCL version mismatch with remote peer (?P<peer>\S+) "
                                  r"\(local: (?P<local>\d+(?:\.\d+\.\d+)?), remote (?P<remote>\d+(?:\.\d+\.\d+)?)\)")
# Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40
# Duplicate GPU detected : rank 1 and rank 0 both on CUDA device ...      (CONSTRUCTED: NCCL's message as a report paraphrases
#   it, the device left out or elided; a line cut inside "both on CUDA device" the same: which GPU is then unknown, the two
#   ranks and the fault are not)
DUPLICATE_GPU = re.compile(r"Duplicate GPU detected : rank (?P<a>\d+) and rank (?P<b>\d+)\b"
                           r"(?: both on CUDA device (?P<bus>[0-9a-fA-F]+)\b)?")
# Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.
NVLS_BIND = re.compile(r"Failed to (?P<op>bind|map|create|allocate) NVLink SHARP \(NVLS\) Multicast memory(?: of size (?P<size>\d+))?"
                       r" : CUDA error (?P<code>\d+) '(?P<err>[^']*)'")
# Cuda failure 'out of memory'          Cuda failure 999 'unknown error'
# Cuda failure 999 'unknown error          (nccl-tests#276: the closing quote lost in the paste)
# Cuda failure 'cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth'
#   (CUDA's own text of cudaErrorSyncDepthExceeded (68) holds an apostrophe: the text runs to the quote that ends the line)
#   (else the first quoted text, with whatever follows it; else a text whose closing quote was lost)
CUDA_FAILURE = re.compile(r"^Cuda failure (?:(?P<code>\d+) )?'(?:(?P<err>.*)'\s*$|(?P<quoted>[^']*)'|(?P<cut>[^']*?)\s*$)")

# Invalid config blocking attribute value -2147483648      (vllm-project/vllm#1726: NCCL 2.14.3 under a newer torch)
CONFIG_INVALID = re.compile(r"Invalid config (?P<attr>\w+) attribute value (?P<value>-?\d+)")
#: NCCL_CONFIG_UNDEF_INT (src/nccl.h.in: INT_MIN): "not set by the caller" for newer headers
CONFIG_UNDEF_INT = -2147483648

# The same messages pasted on their own, without NCCL's prefix, at a line start (issue 11, the key
# line alone); a line this finds is read only if read() reads it:
#   Invalid config blocking attribute value -2147483648          (SpursGoZmy/Table-LLaVA#4, the last line of a paste)
#   socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort   (nccl-tests#166, prefix cut)
#   Connect to 10.38.10.112<21724> failed : Connection refused     (pytorch/pytorch#38702, prefix cut)
#   Call to connect returned Connection timed out, retrying        (Oneflow-Inc/oneflow#3586: an INFO line, prefix cut)
#: the messages' starts (BARE at a line start, QUOTED after a quote)
BARE_FORMS = (
    r"Duplicate GPU detected : rank \d|Failed to \w+ NVLink SHARP \(NVLS\)|Invalid config \w+ attribute value -?\d"
    r"|Bootstrap ?: no socket interface found|NET/Socket ?: No usable listening interface"
    r"|(?:\w+ ?: ?)?(?:Socket creation failed|Connection closed by remote peer|Call to recv from \S+ failed"
    r"|No interface found in the same subnet|[Cc]onnect to \S+ (?:failed|returned) )"
    r"|\w+: exceeded (?:retries|timeouts)|Call to connect (?:timeout|returned) "
)
BARE = re.compile(r"^[ \t]*(?:" + BARE_FORMS + ")", re.M)
# The same messages quoted in a sentence, as issues quote what NCCL said: the line's one quoted span (a Markdown code
# span's backticks, or straight or typographic double quotes), the words around it off; the span is read as read()
# reads the message pasted alone (nccl_log.QUOTED_BARE does the same for nccl_warn_kinds.BARE):
#   Getting error: `Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 50`          (NVlabs/Sana#204)
#   it causes `Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 69000`           (verl-project/verl#1752)
#   (each run ends at the next quote: one way through, linear on a long line)
_NOT_QUOTE = "[^`\"\u201c\u201d\\n]"  # (the characters, not escapes: facts/classify.py matches SIGNATURES with re2)
QUOTED = re.compile(
    "^" + _NOT_QUOTE + "{0,300}[`\"\u201c](?P<msg>(?:" + BARE_FORMS + ")" + _NOT_QUOTE + "{0,1000})[`\"\u201d]"
    + _NOT_QUOTE + "{0,300}$",
    re.M,
)
#: a line nccl_log reads as the bare NCCL message it is (nccl_warn_kinds.BARE at its start, nccl_log._BARE_MESSAGE's
#: test): nccl_log owns such a line, where it stands alone or after PyTorch's "Last error:", and torch_log only cites it
#: (two readers' facts of one kind on one line share an id: the engine refused the second, an internal error, round rI1)
NCCL_LOG_BARE = re.compile(r"^[ \t]*(?:" + nccl_warn_kinds.BARE + ")")
#: a quote QUOTED's span opens with (a text with none is not searched)
QUOTE_MARKS = ("`", '"', "\u201c")

#: literals in front of the patterns above (a line with none is not looked at)
MARKERS = ("Duplicate GPU detected", "Invalid config ", "onnect to ", "Connection closed by remote peer", "Call to recv from", "completed with error", "NET/OFI ", "NET/GPUDirectTCPX", "NET/FasTrak", "no socket interface found",
           "No usable listening interface", "Socket creation failed", "NVLink SHARP (NVLS)", "Cuda failure",
           "Call to connect timeout", "Call to connect returned", "exceeded retries", "exceeded timeouts", "exceeded error retry", "same subnet as remote")


# NCCL's shared-memory segment failure (src/misc/shmutils.cc ncclShmOpen: WARN("Error while %s shared memory segment %s
# (size %zu)", create ? "creating" : "attaching to", shmPath, ...); 2.12+ may add ", error: %s (%d)"), on NCCL's WARN line,
# pasted alone, or forwarded by PyTorch after "Last error:":
# Error while creating shared memory segment /dev/shm/nccl-KWfVyt (size 5967872)                         (nccl-tests#166)
# Error while attaching to shared memory segment /dev/shm/nccl-glnlGK (size 14156128), error: No such file or directory (2)
# Error while creating shared memory segment /dev/shm/nccl-F9ffgB (size 9637888)`    (vllm-project/production-stack#276:
#   a paste wrapped in one backtick span that closes on this line; a closing quote or backtick is the paste's, not NCCL's)
# ERROR 2025-04-05T00:01:19.209110975Z Error while creating shared memory segment /dev/shm/nccl-lNPZ0f (size 734038
#   (sgl-project/sglang#5096: cut inside the size; the segment and the operation are read, the size is not)
SHM_SEGMENT = re.compile(
    r"^Error while (?P<op>creating|attaching to) shared memory segment (?P<seg>[^\s`'\"\u201d]+)"
    r"(?: \((?:size (?:(?P<size>\d+)\)(?:, error: (?P<err>.+?))?|\d*))?)?[`'\"\u201d]?$"
)


# NCCL's completion error, forwarded after "Last error:" as nccl_log reads it pasted alone (nccl_log owns the line:
# torch_log only cites it):
# NET/IB : Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221
#   (NVIDIA/nccl#1814's HPC-X ib_plugin.c WARN, its message as ncclGetLastError keeps it; NCCL 2.22's net_ib.cc has
#   "NET/IB: Got completion from peer %s with status=%d ..." without the blank)
RDMA_COMPLETION = re.compile(r"^NET/IB\w* ?: ?Got completion from peer ")


def read_shm(msg: str) -> tuple[type, dict[str, Any]] | None:
    """(NcclShmRefused or NcclShmFailure, its fields) for a shared-memory segment message, as nccl_log reads it
    (nccl_log owns the line, pasted alone or after "Last error:": torch_log only cites it)."""
    if (m := SHM_SEGMENT.match(msg.strip())) is None:
        return None
    from stethoscope.facts.parsers import nccl_log_setup as setup  # it imports this module: bound at call time

    op = "create" if m["op"] == "creating" else "attach"
    size = int(m["size"]) if m["size"] else None
    errno_name = setup._errno_name(m["err"])
    if errno_name in setup._REFUSED:
        return NcclShmRefused, dict(call=op, error=m["err"], errno_name=errno_name, segment=m["seg"], size_bytes=size)
    return NcclShmFailure, dict(op=op, error=m["err"], segment=m["seg"], size_bytes=size)


def _version_code(text: str) -> int:
    """NCCL_VERSION_CODE of RAS's printed version: the code itself (2.24-2.29) or its "2.30.3" (2.30 on, 2.9+ encoding)."""
    if "." not in text:
        return int(text)
    major, minor, patch = (int(x) for x in text.split("."))
    return major * 10000 + minor * 100 + patch


def read_setup(msg: str, src: str | None = None) -> tuple[type, dict[str, Any]] | None:
    """(fact class, its fields) for a duplicate-GPU, NCCL version mismatch, NVLS-bind or CUDA-failure message, or None;
    ``src`` is the ``file`` of NCCL's ``file:line`` prefix where the line has one."""
    if m := DUPLICATE_GPU.search(msg):
        return NcclDuplicateGpu, dict(rank=int(m["a"]), other_rank=int(m["b"]), bus_id=nccl_busid(m["bus"]) if m["bus"] else None)
    if m := VERSION_MISMATCH.match(msg.strip()):  # anchored, as nccl_warn_kinds reads the message
        code, peer_code = int(m["code"]), int(m["peer_code"])
        return NcclPeerVersionMismatch, dict(rank=int(m["rank"]), version_code=code, version=nccl_version_str(code),
                                             peer_rank=int(m["peer"]), peer_version_code=peer_code,
                                             peer_version=nccl_version_str(peer_code))
    if m := RAS_VERSION_MISMATCH.match(msg.strip()):
        code, peer_code = _version_code(m["local"]), _version_code(m["remote"])
        return NcclPeerVersionMismatch, dict(version_code=code, version=nccl_version_str(code), peer_address=m["peer"],
                                             peer_version_code=peer_code, peer_version=nccl_version_str(peer_code))
    if (m := NVLS_BIND.search(msg)) and "Proceeding without NVLS" not in msg:  # 2.27+ INFO: NVLS left off, no failure
        return NcclCudaFailure, dict(error=m["err"], error_code=int(m["code"]), source_file=src or "transport/nvls.cc", nvls=True)
    if m := CONFIG_INVALID.search(msg):
        value = int(m["value"])
        return NcclConfigRejected, dict(attribute=m["attr"], value=value, undefined=value == CONFIG_UNDEF_INT)
    if m := CUDA_FAILURE.search(msg.strip()):
        err = next(e for e in (m["err"], m["quoted"], m["cut"]) if e is not None)
        return NcclCudaFailure, dict(error=err, error_code=int(m["code"]) if m["code"] else None, source_file=src,
                                     nvls=bool(src) and src.endswith("nvls.cc"))
    return None


def read(msg: str) -> tuple[type, dict[str, Any], str | None] | None:
    """(fact class, its fields, the peer address if any) for one NCCL message, or None."""
    if got := read_setup(msg):
        return got[0], got[1], None
    fields = socket.read_retry(msg) or socket.read(msg.strip())  # a retry; no interface, connect failed/refused/retried out, ...
    if fields is not None:
        return NcclBootstrapFailure, dict(message=msg.strip(), peer_loopback=is_loopback(fields["peer"]),
                                          peer_link_local=socket.link_local_address(fields["peer"]), **fields), fields["peer"]
    if (ofi := read_ofi_request(msg) or read_ofi_setup(msg)) is not None:  # aws-ofi-nccl's failed request (nccl#1928), its setup
        return NcclNetPluginError, ofi, None
    if (gcp := read_gcp_plugin(msg)) is not None:  # GPUDirect-TCPX/TCPXO (container-engine-accelerators#414)
        return NcclNetPluginError, gcp, None
    if (proxy := read_proxy(msg.strip())) is not None:  # the proxy thread's failed operation (verl#108)
        return NcclProxyFailure, proxy, None
    if (mk := nccl_warn_kinds.kind(msg)) is not None:  # any WARN message of NCCL's by its format string, as its log's reader
        # reads it (topology detection's "Failed to find reverse path from remNode ..." after Last error:, vllm#4062)
        return NcclWarn, dict(message=msg.strip(), message_kind=mk), None
    return None


def bare_message(text: str) -> bool:
    """Whether ``text`` holds an NCCL message at a line start, or as a line's one quoted span, without NCCL's
    prefix, that read() reads."""
    if any("NCCL WARN" not in m[0] and "NCCL INFO" not in m[0] and read(m[0].strip()) is not None
           for m in re.finditer(BARE.pattern + r".*", text, re.M)):
        return True
    return any(q in text for q in QUOTE_MARKS) and any(quoted(m[0]) is not None for m in QUOTED.finditer(text))


def quoted(line: str) -> tuple[type, dict[str, Any], str | None] | None:
    """read() of the NCCL message a line quotes in a sentence (QUOTED), or None."""
    if "NCCL WARN" in line or "NCCL INFO" in line or (m := QUOTED.match(line.strip())) is None:
        return None
    return read(m["msg"].strip())


def is_loopback(peer: str | None) -> bool:
    """``127.0.0.1<45069>`` / ``::1<1234>``: a peer address on the loopback interface."""
    return socket.loopback_address(peer)
