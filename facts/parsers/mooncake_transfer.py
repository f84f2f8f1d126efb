"""Mooncake's transfer engine: failed RDMA work completions of the KV-cache transfer that SGLang's
and vLLM's prefill/decode disaggregation run over it, and the NICs it stops using after them.
Mooncake logs through glog into the serving process's own output, so its lines are looked for
anywhere in a file.

Sample content (real, fixtures/artefacts/mooncake_transfer/)::

    E0603 20:16:59.104586 27322 worker_pool.cpp:271] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f20fe0f1680, length: 65536, dest_addr: 0x7f3d820f3a80, local_nic: mlx5_7, peer_nic: 10.93.81.13:15729@mlx5_0, dest_rkey: 2116517, retry_cnt: 0): transport retry counter exceeded   (sgl-project/sglang#6854)
    W0724 03:14:20.702893 104002 worker_pool.cpp:303] Too many errors found in local RNIC 10.0.2.69:15858@mlx5_bond_2, mark it inactive   (sgl-project/sglang#8324)
    E0724 03:14:20.707079 104002 rdma_context.cpp:261] Context is not active: mlx5_bond_2

The failed slice's status is libibverbs' ``ibv_wc_status_str()`` (mooncake-transfer-engine
src/transport/rdma_transport/worker_pool.cpp ``performPollCq``: "Worker: Process failed for slice
(opcode: .., source_addr: .., length: .., dest_addr: .., local_nic: <device>, peer_nic:
<host:port>@<device>, dest_rkey: .., retry_cnt: ..): <status>"), so it is numbered exactly as
knowledge/ib_wc_status.yaml numbers NCCL's, UCX's and the kernel's completion errors. After more
than 32 failed completions and none good, the worker marks the local NIC inactive ("Too many
errors found in local RNIC <nic path>, mark it inactive"; "Failed to establish peer endpoints in
local RNIC ..., mark it inactive" when connections fail); the transfers on it then fail with
"Context is not active: <device>" (rdma_context.cpp) until its monitor re-enables it.

When a connection is set up, each queue pair is moved RESET -> INIT -> RTR -> RTS with
ibv_modify_qp; a refusal is logged as "[Handshake] Failed to modify QP to <state>" (rdma_endpoint.cpp
``doSetupConnection``: RTR adds ", check mtu, gid, peer lid, peer qp num"), then ": " and
strerror(ret) and, in older releases, " [errno]"; newer ones put the local and peer NIC paths, the
GID index and the path MTU before the error. Sample (real, kvcache-ai/Mooncake#204, two NICs on a
host, one works alone)::

    E0331 12:03:04.222625 56060 rdma_endpoint.cpp:385] [Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]

At start-up the engine may have no RDMA NIC at all. Its topology discovery finding none logs
``LOG(WARNING) << "No RDMA devices found, check your device installation"`` (topology.cpp; a container
started without /dev/infiniband) and Mooncake falls back to TCP or its NVLink transport, whose
relocation of a peer's buffer can then fail: ``LOG(ERROR) << "Requested address " << (void *)dest_addr
<< " to " << (void *)(dest_addr + length) << " not found!"`` (nvlink_transport.cpp, hip_transport.cpp).
Where it found NICs and none opened, the RDMA transport is not installed. Sample (real,
kvcache-ai/Mooncake#1384, one NIC whose GID 0 has no network device)::

    E0115 05:20:19.945159   309 rdma_context.cpp:81] Failed to open device mlx5_8 on port  with GID 0
    W0115 05:20:19.945183   309 rdma_transport.cpp:656] Disable device mlx5_8
    E0115 05:20:19.945191   309 rdma_transport.cpp:662] RdmaTransport: No available RNIC
    E0115 05:20:19.945197   309 rdma_transport.cpp:106] RdmaTransport: cannot initialize RDMA resources

A registration the NIC refused (rdma_context.cpp's ``PLOG(ERROR) << "Failed to register memory " << addr``:
``Failed to register memory 0x7b375b400000: Invalid argument [22]``, sgl-project/sglang#6894) is verbs_perror's
failed ``ibv_reg_mr``; its echoes here ("RdmaTransport: Failed to register memory: addr .. length ..", "Memory
region not registered by any active device(s): ..", SGLang's "Mooncake memory registration failed.") are read
beside it, counted and left without a fact.

Over any transport, a transfer that never finished is told by the waiting side, not the transport: the
store client's and the transfer task's poll (mooncake-store src/client.cpp ``TransferRead``/``TransferWrite``, later
transfer_task.cpp) gives up after its timeout, ``LOG(ERROR) << "Failed to complete transfers after " << timeout_seconds
<< " seconds for batch " << batch_id`` (the client's older form ends at "after 60 seconds"); a slice the transport
marked failed is ``"Transfer failed for task" << i`` (older, no space; later ``"Transfer failed for task " << i << " with
status " << n``), the client retries it (``Transfer incomplete, retrying... (attempt 1/3)``) and, out of attempts,
logs ``transfer_incomplete max_attempts=3`` (later ``Transfer incomplete after max attempts: 3``). The TCP transport
(tcp_transport.cpp) fails a slice on any Boost.Asio exception: ``LOG(ERROR) << "TcpTransport: ASIO exception: " <<
e.what()``, the operation and the system's message (``connect: Connection refused``: no transfer engine listening at
the peer's address). Samples (real, kvcache-ai/Mooncake#1088, SGLang HiCache on the Mooncake store; #292, a 1P1D
set-up over TCP)::

    E1120 11:10:27.133715 203020 transfer_task.cpp:305] Failed to complete transfers after 60 seconds for batch 2586731328
    E0423 16:34:48.929325 217299 tcp_transport.cpp:393] TcpTransport: ASIO exception: connect: Connection refused
    E0423 16:34:48.929347 217299 client.cpp:347] Transfer failed for task1
    W0423 16:34:48.929348 217299 client.cpp:353] Transfer incomplete, retrying... (attempt 1/3)

Facts: ``mooncake_transfer_failed`` once a file where no RDMA completion, QP or NIC fact explains these lines (where
one does, they are its consequences, read beside it): ``reason`` ``tcp_error`` (the first ASIO exception, its text in
``error``), else ``timeout`` (``timeout_s``), else ``retries_exhausted``, else ``task_failed``; a file of only the
client's retry warnings is left alone. ``mooncake_rdma_unavailable`` once a file (state: ``failed`` when no NIC opened, or when the
fallback's "Requested address ... not found!" followed "No RDMA devices found"; the device-open and
transport-install lines are read beside it; a "Requested address" line without the no-device warning
is left to the catch-all), ``mooncake_slice_failed`` per failed slice whose status is on the line (a line whose head
the paste cut still gives local_nic, peer and status), ``mooncake_nic_inactive`` per NIC marked
inactive, ``mooncake_qp_transition_failed`` once per state and local NIC a file (every QP of the
connection and every retry prints one; a line the paste cut before its error is read beside it). The "Context is not active" lines and a slice line cut before its status are counted
as read only beside those facts (alone, they are left to the catch-all). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    MooncakeNicInactive, MooncakeQpTransitionFailed, MooncakeRdmaUnavailable, MooncakeSliceFailed, MooncakeTransferFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "mooncake_transfer"

# ... local_nic: mlx5_7, peer_nic: 10.93.81.13:15729@mlx5_0, dest_rkey: 2116517, retry_cnt: 0): transport retry counter exceeded
_SLICE = re.compile(r"\blocal_nic: (?P<local>[\w.:-]{1,64}), peer_nic: (?:(?P<peer>[^\s,@]{1,80})@)?(?P<peer_nic>[\w.:-]{1,64}), "
                    r"dest_rkey: \d{1,12}, retry_cnt: (?P<retry>\d{1,6})\): (?P<status>[^\n]{1,80}?)\s*$")
# Worker: Process failed for slice (opcode: 1, source_addr: 0x7f61fc      (a line cut before its status)
_SLICE_HEAD = "Worker: Process failed for slice ("
# Too many errors found in local RNIC 10.0.2.69:15858@mlx5_bond_2, mark it inactive
# Failed to establish peer endpoints in local RNIC 10.0.2.69:15858@mlx5_bond_2, mark it inactive
_INACTIVE = re.compile(r"\b(?P<why>Too many errors found|Failed to establish peer endpoints) in local RNIC "
                       r"(?P<path>(?:[^\s,@]{1,80}@)?(?P<dev>[\w.:-]{1,64})), mark it inactive")
# E0724 03:14:20.707079 104002 rdma_context.cpp:261] Context is not active: mlx5_bond_2
_NOT_ACTIVE = "] Context is not active: "
# [Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]      (Mooncake#204)
# [Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: local=<nic path>, peer=<nic path>, qp_index=0,
#   local_qp=N, peer_qp=N, local_gid=<gid>, local_gid_index=3, peer_gid=<gid>, peer_lid=0, path_mtu=5, port_num=1: Invalid argument
#   (the newer form, rdma_endpoint.cpp's LOG(ERROR) stream, filled)
_HANDSHAKE = "[Handshake] Failed to modify QP to "
_QP_STATE = re.compile(r"\[Handshake\] Failed to modify QP to (?P<state>RESET|INIT|RTR|RTS)\b")
_QP_ERROR = re.compile(r": (?P<err>[A-Z][A-Za-z' /-]{2,60}?)(?: \[(?P<errno>\d{1,5})\])?\s*$")
_QP_FIELD = re.compile(r"\b(?P<key>local|peer|local_gid_index|path_mtu)=(?P<value>[^\s,]{1,120})")
# A buffer a NIC would not register: rdma_context.cpp's PLOG line is verbs_perror's (a failed ibv_reg_mr); its echoes are
# read here beside it: rdma_transport.cpp's "RdmaTransport: Failed to register memory: addr 0x7f4cfa000000 length 4885774336",
# a later transfer's "Memory region not registered by any active device(s): 0x7f3e26088000" (both Mooncake#1754) and
# SGLang's "Mooncake memory registration failed." (sglang#6894)
# E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory 0x7b375b400000: Invalid argument [22]
_REG_MR = re.compile(r"\] Failed to register memory (?:0x[0-9a-fA-F]{1,16}|\(nil\))?: ?[A-Z][A-Za-z' /-]{2,60}? \[\d{1,5}\]")
_REG_ECHOES = ("RdmaTransport: Failed to register memory: addr ", "Memory region not registered by any active device",
               "Mooncake memory registration failed")
# W0829 17:47:10.869227 566135 topology.cpp:58] No RDMA devices found, check your device installation   (topology.cpp LOG(WARNING))
_NO_DEVICE = "No RDMA devices found, check your device installation"
# E0115 05:20:19.945191   309 rdma_transport.cpp:662] RdmaTransport: No available RNIC   (Mooncake#1384)
_NO_RNIC = "RdmaTransport: No available RNIC"
# E0115 05:20:19.945159   309 rdma_context.cpp:81] Failed to open device mlx5_8 on port  with GID 0   (Mooncake#1384)
# W0115 05:20:19.945183   309 rdma_transport.cpp:656] Disable device mlx5_8
# E0115 05:20:19.945197   309 rdma_transport.cpp:106] RdmaTransport: cannot initialize RDMA resources
# E... transfer_engine.cpp:234] Failed to install RDMA transport
_NIC_OPEN = re.compile(r"\] (?:Failed to open device (?P<dev>[\w.:-]{1,64}) on port|Disable device (?P<off>[\w.:-]{1,64})\s*$"
                       r"|RdmaTransport: cannot initialize RDMA resources|Failed to install RDMA transport)")
# E... nvlink_transport.cpp:497] Requested address 0x7f3a00000000 to 0x7f3a00010000 not found!   (nvlink_transport.cpp LOG(ERROR))
_ADDR = re.compile(r"\] Requested address (?:0x)?[0-9a-fA-F]{1,16} to (?:0x)?[0-9a-fA-F]{1,16} not found!")
# E1120 11:10:27.133715 203020 transfer_task.cpp:305] Failed to complete transfers after 60 seconds for batch 2586731328   (Mooncake#1088)
# ... client.cpp] Failed to complete transfers after 60 seconds            (the store client's older form, Mooncake client.cpp)
_TIMEOUT = re.compile(r"\bFailed to complete transfers after (?P<s>\d{1,6}) seconds(?: for batch (?P<batch>\d{1,20}))?")
# E0423 16:34:48.929325 217299 tcp_transport.cpp:393] TcpTransport: ASIO exception: connect: Connection refused   (Mooncake#292)
_TCP = re.compile(r"\bTcpTransport: ASIO exception: (?P<what>[^\n]{1,160}?)\s*$")
# E0423 16:34:48.911491 217200 client.cpp:347] Transfer failed for task1                         (Mooncake#292; client.cpp)
# E... transfer_task.cpp:NNN] Transfer failed for task 3 with status 4                             (transfer_task.cpp, later)
# W0423 16:34:48.911494 217200 client.cpp:353] Transfer incomplete, retrying... (attempt 1/3)      (Mooncake#292; its last
#   line the paste cut after "retrying...")
# E... client.cpp:NNN] transfer_incomplete max_attempts=3      E... transfer_task.cpp] Transfer incomplete after max attempts: 3
# E... client.cpp:NNN] Transfer 0 error, error_code=-1
#   (the store client's own lines: glog's "<file>.cpp:<line>] " head is asked, the words alone being anyone's)
_CLIENT = re.compile(r"\.cpp:\d{1,6}\] (?:(?P<task>Transfer failed for task ?\d{1,9}\b)|(?P<retry>Transfer incomplete, retrying\.\.\.)"
                     r"|(?P<exhausted>transfer_incomplete max_attempts=\d|Transfer incomplete after max attempts: \d)"
                     r"|(?P<code>Transfer \d{1,9} error, error_code=-?\d))")
_TRANSFER_LITERALS = ("Failed to complete transfers after ", "TcpTransport: ASIO exception: ", "Transfer failed for task",
                      "Transfer incomplete", "transfer_incomplete max_attempts=", " error, error_code=")
_LITERALS = ("local_nic: ", "in local RNIC ", _NOT_ACTIVE, _SLICE_HEAD, _HANDSHAKE, _NO_DEVICE, _NO_RNIC,
             "Failed to open device ", "Disable device ", "cannot initialize RDMA resources", "Failed to install RDMA transport",
             "] Requested address ") + _TRANSFER_LITERALS


def detect(head: str) -> bool:
    return (("local_nic: " in head and "retry_cnt: " in head) or "in local RNIC " in head or _HANDSHAKE in head
            or _NO_DEVICE in head or _NO_RNIC in head or _TIMEOUT.search(head) is not None
            or _TCP.search(head) is not None or any(not m["retry"] for m in _CLIENT.finditer(head)))


def _transfer(fb: FactBuilder, lines: list[tuple[int, str]]) -> int:
    """The waiting side's and the TCP transport's lines: one ``mooncake_transfer_failed`` a file, the lines read
    beside it. A file of only retry warnings gives none. Returns how many were read."""
    tcp = timeout = exhausted = task = None
    for n, line in lines:
        if tcp is None and (m := _TCP.search(line)) is not None:
            tcp = (n, m["what"])
        elif timeout is None and (m := _TIMEOUT.search(line)) is not None:
            timeout = (n, int(m["s"]), m["batch"])
        elif (m := _CLIENT.search(line)) is not None:
            if exhausted is None and m["exhausted"]:
                exhausted = n
            elif task is None and (m["task"] or m["code"]):
                task = n
    if tcp is not None:
        fb.add(MooncakeTransferFailed, tcp[0], reason="tcp_error", error=tcp[1],
               timeout_s=timeout[1] if timeout else None, batch=timeout[2] if timeout else None)
    elif timeout is not None:
        fb.add(MooncakeTransferFailed, timeout[0], reason="timeout", timeout_s=timeout[1], batch=timeout[2])
    elif exhausted is not None:
        fb.add(MooncakeTransferFailed, exhausted, reason="retries_exhausted")
    elif task is not None:
        fb.add(MooncakeTransferFailed, task, reason="task_failed")
    else:
        return 0
    return len(lines)


def _startup(artefact: Artefact, fb: FactBuilder, lines: list[tuple[int, str]]) -> int:
    """The start-up lines (no NIC found, none opened, the fallback's lost address): one fact a file,
    the lines read beside it. Returns how many were read."""
    first = next((n for n, line in lines if _NO_DEVICE in line or _NO_RNIC in line), None)
    if first is None:
        return 0
    no_rnic = any(_NO_RNIC in line for _n, line in lines)
    devices: list[str] = []
    addr = False
    for _n, line in lines:
        if (m := _NIC_OPEN.search(line)) is not None and (dev := m["dev"] or m["off"]) and dev not in devices:
            devices.append(dev)
        addr = addr or _ADDR.search(line) is not None
    fallback_failed = addr and not no_rnic
    fb.add(MooncakeRdmaUnavailable, first, reason="no_usable_nic" if no_rnic else "no_device", devices=",".join(devices) or None,
           fallback_failed=fallback_failed, failed=no_rnic or fallback_failed)
    return len(lines)


def _qp_transition(n: int, line: str, fb: FactBuilder, seen: set[tuple]) -> bool:
    """One handshake line: a fact once per state and local NIC (True); a repeat, or a line cut before
    its error, is read only beside such a fact (False)."""
    m = _QP_STATE.search(line)
    if m is None:
        return False
    rest = line[m.end():]
    err = _QP_ERROR.search(rest)
    fields = {f["key"]: f["value"] for f in _QP_FIELD.finditer(rest)}
    key = (m["state"], fields.get("local"))
    if err is None or key in seen:
        return False
    seen.add(key)
    gid, mtu = fields.get("local_gid_index", ""), fields.get("path_mtu", "")
    fb.add(MooncakeQpTransitionFailed, n, state=m["state"], error=err["err"],
           errno=int(err["errno"]) if err["errno"] else None, local_nic=fields.get("local"), peer=fields.get("peer"),
           gid_index=int(gid) if gid.isdigit() else None, path_mtu=int(mtu) if mtu.isdigit() else None)
    return True


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    table = knowledge.load("ib_wc_status.yaml")
    consequences: list[int] = []
    seen_qp: set[tuple] = set()
    startup: list[tuple[int, str]] = []
    transfer: list[tuple[int, str]] = []
    for n, line in iter_lines_with(_LITERALS, artefact):
        if _TIMEOUT.search(line) is not None or _TCP.search(line) is not None or _CLIENT.search(line) is not None:
            transfer.append((n, line))
            continue
        if (_NO_DEVICE in line or _NO_RNIC in line or _NIC_OPEN.search(line) is not None
                or _ADDR.search(line) is not None):
            startup.append((n, line))
            continue
        if _HANDSHAKE in line:
            if _qp_transition(n, line, fb, seen_qp):
                result.lines_used += 1
            else:
                consequences.append(n)
            continue
        if (m := _SLICE.search(line)) is not None:
            entry = table.leading_name(m["status"])
            if entry is None or entry.name != m["status"].rstrip("."):
                consequences.append(n)  # a status libibverbs does not name: read only beside the others
                continue
            result.lines_used += 1
            fb.add(MooncakeSliceFailed, n, status=entry.status, status_text=entry.name, local_nic=m["local"],
                   peer_nic=m["peer_nic"], peer=m["peer"], retry_cnt=int(m["retry"]))
        elif (m := _INACTIVE.search(line)) is not None:
            result.lines_used += 1
            fb.add(MooncakeNicInactive, n, device=m["dev"], nic_path=m["path"],
                   reason="completion_errors" if m["why"].startswith("Too many") else "connect_failed")
        else:
            consequences.append(n)
    result.lines_used += _startup(artefact, fb, startup)
    if _REG_MR.search(artefact.text) is not None:
        # the registration's echoes, beside the refusal verbs_perror reads
        result.lines_used += sum(1 for _n, _line in iter_lines_with(_REG_ECHOES, artefact))
    if result.facts:
        # the transfers failing on a NIC Mooncake disabled, slice lines cut before their status, and the waiting
        # side's lines of the transfers that RDMA failure broke
        result.lines_used += len(consequences) + len(transfer)
    elif transfer:
        result.lines_used += _transfer(fb, transfer)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"local_nic: [\w.:-]+, peer_nic: \S+, dest_rkey: \d+, retry_cnt: \d+\): ",
              r"(?:Too many errors found|Failed to establish peer endpoints) in local RNIC \S+, mark it inactive",
              r"\[Handshake\] Failed to modify QP to (?:RESET|INIT|RTR|RTS)\b",
              r"No RDMA devices found, check your device installation|RdmaTransport: No available RNIC",
              r"Failed to complete transfers after \d+ seconds|TcpTransport: ASIO exception: ",
              r"\.cpp:\d+\] (?:Transfer failed for task ?\d|transfer_incomplete max_attempts=\d|Transfer incomplete after max attempts: \d"
              r"|Transfer \d+ error, error_code=)")
