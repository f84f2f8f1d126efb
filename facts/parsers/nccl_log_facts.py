"""Fact classes of the NCCL debug log parser (:mod:`stethoscope.facts.parsers.nccl_log`).

Every fact carries ``pid`` and ``local_device`` from NCCL's line prefix
``host:pid:tid [dev]`` (``dev`` is the CUDA device current in the printing thread); both are
None for the bare ``NCCL version ...`` line that NCCL prints without a prefix.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


class NcclLineFact(Fact):
    """Shared fields of facts read from one NCCL log line (not itself a fact kind)."""

    pid: int | None = None
    local_device: int | None = None


@fact_kind
class NcclVersion(NcclLineFact):
    """``NCCL version 2.28.9+cuda13.0``"""

    kind: Literal["nccl_version"] = "nccl_version"
    version: str  # "2.28.9"
    cuda: str | None = None  # "13.0"


@fact_kind
class NcclEnv(NcclLineFact):
    """``NCCL_P2P_DISABLE set by environment to 1``: a setting NCCL read from its environment."""

    kind: Literal["nccl_env"] = "nccl_env"
    name: str
    value: str


@fact_kind
class NcclNetPlugin(NcclLineFact):
    """``NET/Plugin: Could not find: libnccl-net.so``, ``Initialized NET plugin Socket``, ..."""

    kind: Literal["nccl_net_plugin"] = "nccl_net_plugin"
    event: Literal["not_found", "loaded", "failed", "assigned"]
    name: str | None = None  # plugin ("Socket", "IB") or library ("libnccl-net.so")


@fact_kind
class NcclNetPluginLoadFailure(NcclLineFact):
    """``NET/Plugin : dlerror=<loader error> No plugin found (libnccl-net.so), ...``: a net plugin
    library that is there but that the dynamic loader refused, so NCCL fell back to its internal
    transports. An absent library (``cannot open shared object file: No such file or directory``)
    is NCCL's normal case and gives no such fact."""

    kind: Literal["nccl_net_plugin_load_failure"] = "nccl_net_plugin_load_failure"
    library: str | None = None  # "libnccl-net.so" where the line names it
    reason: Literal["missing_dependency", "symbol_version", "undefined_symbol", "wrong_elf_class", "other"]
    error: str  # the loader's message, as printed


# dlopen's ENOENT text: "libnccl-net.so: cannot open shared object file: No such file or directory"
_NO_FILE = re.compile(r"^(?P<file>\S+): cannot open shared object file: No such file or directory\b")


def plugin_load_reason(error: str, library: str | None = None) -> str:
    """Why dlopen refused a plugin: ``absent`` (the plugin library itself is not there: NCCL's
    normal case), ``missing_dependency`` (the plugin is there, a library it needs is not), a
    missing symbol version (``version `FABRIC_1.7' not found``: built against a newer library than
    the host's), an ``undefined symbol``, a ``wrong ELF class``, or ``other``."""
    if m := _NO_FILE.match(error):
        name = m["file"].rsplit("/", 1)[-1]
        plugin = name.startswith("libnccl-net") or (library is not None and name == library.rsplit("/", 1)[-1])
        return "absent" if plugin else "missing_dependency"
    if "version `" in error and "' not found" in error:
        return "symbol_version"
    if "undefined symbol" in error:
        return "undefined_symbol"
    if "wrong ELF class" in error:
        return "wrong_elf_class"
    return "other"


@fact_kind
class NcclNetSelected(NcclLineFact):
    """``Using network Socket``: the network transport a communicator uses."""

    kind: Literal["nccl_net_selected"] = "nccl_net_selected"
    network: str  # "Socket", "IB", "IBext", "AWS Libfabric", ...
    # "IB" for NCCL's IB transport and the IB plugins ("IBext", "IBext_v8": nccl-rdma-sharp-plugins), "Socket";
    # any other plugin: its name without the API version suffix ("AWS Libfabric", "UCX")
    family: str = ""
    external: bool = False  # a net plugin's network, not NCCL's internal IB or Socket


@fact_kind
class NcclNetDevice(NcclLineFact):
    """One device of ``NET/IB : Using [0]mlx5_0:1/IB ...`` or ``NET/Socket : Using [0]lo:127.0.0.1<0>``."""

    kind: Literal["nccl_net_device"] = "nccl_net_device"
    network: Literal["IB", "Socket"]
    index: int
    device: str  # "lo", "mlx5_0:1"
    address: str | None = None  # Socket devices: "127.0.0.1"
    link_layer: str | None = None  # IB devices: "IB" or "RoCE"


@fact_kind
class NcclNoIbDevice(NcclLineFact):
    """``NET/IB : No device found.``: NCCL found no usable InfiniBand/RoCE HCA."""

    kind: Literal["nccl_no_ib_device"] = "nccl_no_ib_device"


@fact_kind
class NcclBootstrapInterface(NcclLineFact):
    """``Bootstrap: Using eth0:192.0.2.2<0>``: the interface of NCCL's bootstrap network."""

    kind: Literal["nccl_bootstrap_interface"] = "nccl_bootstrap_interface"
    interface: str
    address: str | None = None
    loopback: bool = False  # a loopback address (127.0.0.0/8, ::1): no other host can reach it


@fact_kind
class NcclBootstrapFailure(NcclLineFact):
    """A bootstrap/socket failure: no interface, a refused or timed-out connection, a socket
    that could not be created (``Socket creation failed : ...``), a connection the peer closed
    (``socketProgress: Connection closed by remote peer 10.10.1.3<36138>``), ...

    ``retrying`` is True for INFO lines that say NCCL will try again (``..., retrying``);
    those are deduplicated per (node, pid, reason, peer).
    """

    kind: Literal["nccl_bootstrap_failure"] = "nccl_bootstrap_failure"
    reason: Literal["no_socket_interface", "no_subnet_interface", "connection_refused", "timeout", "unreachable",
                    "connection_aborted", "connection_reset", "socket_creation_failed", "connection_closed", "other"]
    peer: str | None = None  # "10.1.1.2<34567>" as printed
    peer_loopback: bool = False  # the peer's address is a loopback one (127.0.0.0/8, ::1): it advertised lo
    message: str
    retrying: bool = False
    error: str | None = None  # socket_creation_failed: the strerror text ("Address family not supported by protocol")


@fact_kind
class NcclRank(NcclLineFact):
    """``ncclCommInitRankConfig comm 0x... rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 70 ... - Init START``

    One fact per (node, pid, comm, rank) at its first Init (or ``Destroy COMPLETE``) line;
    ``init_complete`` says whether an ``Init COMPLETE`` or ``Destroy COMPLETE`` line for it occurs
    in the same file.
    """

    kind: Literal["nccl_rank"] = "nccl_rank"
    rank: int
    nranks: int
    cuda_dev: int
    nvml_dev: int | None = None
    bus_id: str  # canonical dddd:bb:dd.f
    comm: str  # "0x55b4d1f13be0"
    comm_id: str | None = None  # "0xd0e572375164a3b6"
    init_complete: bool = False


@fact_kind
class NcclTransport(NcclLineFact):
    """``Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM``: how data moves from ``rank`` to ``peer_rank``.

    One fact per distinct (node, pid, rank, peer_rank, transport, direction) at its first line;
    ``channel_count`` is the number of distinct channels seen for it in the file.
    """

    kind: Literal["nccl_transport"] = "nccl_transport"
    rank: int  # sending side (left of "->")
    peer_rank: int  # receiving side
    transport: str  # exactly as after "via": "P2P/CUMEM", "SHM/direct/direct", "NET/IB/0/GDRDMA"
    family: str = ""  # "P2P", "SHM", "NET", ... (first part of ``transport``; "direct shared memory": SHM)
    # the second part of ``transport``: P2P's mechanism ("CUMEM", "MNNVL", "IPC", "direct pointer", "indirect"),
    # NET's and COLLNET's network ("IB", "Socket", "IBext_v8"), SHM's send-side copy ("direct", "CE"); None if none
    method: str | None = None
    channel_count: int
    direction: Literal["send", "receive"] | None = None  # NET lines say "[send]"/"[receive]"


@fact_kind
class NcclWarn(NcclLineFact):
    """Every ``NCCL WARN`` line: ``bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found``"""

    kind: Literal["nccl_warn"] = "nccl_warn"
    source_file: str | None = None
    source_line: int | None = None
    message: str
    # which of NCCL's self-explaining WARN messages it is (nccl_warn_kinds; knowledge/nccl_warn_messages.yaml), or None
    message_kind: str | None = None


@fact_kind
class NcclRdmaCompletionError(NcclLineFact):
    """``NET/IB : Got completion from peer 10.1.1.2<45678> with error 12, opcode 0, len 0, vendor err 129``

    ``error`` is the ibv_wc status (12 = transport retry counter exceeded); newer NCCL also
    prints its name (``status_text``, "IBV_WC_RETRY_EXC_ERR").
    """

    kind: Literal["nccl_rdma_completion_error"] = "nccl_rdma_completion_error"
    peer: str | None = None
    error: int
    status_text: str | None = None
    vendor_err: int | None = None
    hca: str | None = None
    opcode: int | None = None
    opcode_text: str | None = None
    request: str | None = None  # "Send", "Recv", ...
    local_gid: str | None = None  # RoCE: "localGid ::ffff:10.1.1.1" (NCCL >= 2.19 prints both GIDs)
    remote_gid: str | None = None  # "remoteGids::ffff:10.1.1.2"


@fact_kind
class NcclErrorReturn(NcclLineFact):
    """``init.cc:126 -> 5``: one step of NCCL's error-return chain (code is an ncclResult_t)."""

    kind: Literal["nccl_error_return"] = "nccl_error_return"
    source_file: str
    source_line: int
    code: int
    thread: str | None = None  # "Async thread", "Progress Thread"


@fact_kind
class NcclErrorChain(NcclLineFact):
    """One NCCL error-return chain: the consecutive ``file:line -> code`` frames of one process
    (``transport/nvls.cc:324 -> 1``, ``init.cc:1093 -> 1``, ``group.cc:75 -> 6 [Async thread]``).

    The first frame is where the error began; the WARN that process printed just before it (if
    any) says why. The fact cites that WARN's line when there is one (the finding for the WARN
    then accounts for the chain), else the first frame's line.
    """

    kind: Literal["nccl_error_chain"] = "nccl_error_chain"
    first_file: str  # "transport/nvls.cc"
    first_line: int
    code: int  # ncclResult_t of the first frame
    result: str  # "ncclUnhandledCudaError"
    meaning: str  # ncclGetErrorString's text: "unhandled cuda error"
    frames: int
    frame_list: str  # "transport/nvls.cc:324,init.cc:1093,..." in order
    has_warn: bool = False
    warn_message: str | None = None
    warn_message_kind: str | None = None  # that WARN's message_kind (nccl_warn_kinds)
    warn_source_file: str | None = None
    warn_source_line: int | None = None


@fact_kind
class NcclCollectiveMismatch(NcclLineFact):
    """``init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls
    at and around rank 39``: NCCL (2.4-2.5 checks) saw ranks call different collectives."""

    kind: Literal["nccl_collective_mismatch"] = "nccl_collective_mismatch"
    rank: int


@fact_kind
class NcclIbAsyncEvent(NcclLineFact):
    """``NET/IB : mlx5_0:1 Got async event : port error``: an asynchronous event of an HCA
    (libibverbs' ``ibv_event_type_str``) that NCCL's IB transport reported.

    ``fatal`` is NCCL's own reading (2.23 and later print "async fatal event" or "non-fatal
    async event"); None where the version did not say.
    """

    kind: Literal["nccl_ib_async_event"] = "nccl_ib_async_event"
    event: str  # "port error", "local catastrophic error", "GID table change"
    device: str | None = None  # "mlx5_0"
    port: int | None = None
    fatal: bool | None = None
    # NCCL printed "unknown event type (<n>)": its switch has no case for the event (the GID change, 18, in 2.23-2.27)
    unknown_to_nccl: bool = False


@fact_kind
class NcclNetPluginError(NcclLineFact):
    """A net plugin's own failure, e.g. aws-ofi-nccl's ``NET/OFI OFI fi_getinfo() call failed: No
    data available`` (libfabric found no provider: FI_ENODATA), ``NET/OFI Unable to register memory
    (type = 2) for device 0. RC: -22, Error: Invalid argument`` (a CUDA buffer refused)."""

    kind: Literal["nccl_net_plugin_error"] = "nccl_net_plugin_error"
    plugin: str  # "OFI"
    call: str | None = None  # "fi_getinfo", "register_mr"
    error: str | None = None  # "No data available"
    code: int | None = None  # the return code printed ("RC: -22")
    memory_type: str | None = None  # register_mr: "host", "cuda" or "dmabuf" (NCCL_PTR_* of the buffer)


@fact_kind
class NcclSharedMemExceeds(NcclLineFact):
    """``cudaArch 800 ncclMaxSharedMem 90112 exceeds device/fn maxSharedMem 65536``: NCCL's
    kernels need more shared memory than the device (or the built function) provides."""

    kind: Literal["nccl_shared_mem_exceeds"] = "nccl_shared_mem_exceeds"
    cuda_arch: int
    requested: int
    available: int


@fact_kind
class NcclProxyFailure(NcclLineFact):
    """NCCL's proxy thread reporting that an operation it ran for a rank failed: the failure
    itself is logged before it in the same process (a socket, verbs or CUDA error).

    ``[Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 2``
    (``what`` service_operation), ``Proxy Call to rank 3 failed (Connect)`` (proxy_call),
    ``Socket recv failed while polling for opId=0x7f6f18cb7f40`` (poll_recv),
    ``[Service thread] Error encountered progressing operation=Connect, res=3, closing connection``
    (service_thread), ``ncclProxyCallBlockingUDS call to tpRank 1(8f3e2a1b4c5d6e7f) failed : 2`` (uds_call)."""

    kind: Literal["nccl_proxy_failure"] = "nccl_proxy_failure"
    what: Literal["service_operation", "proxy_call", "poll_recv", "service_thread", "uds_call"]
    operation: str | None = None  # "Connect", "Setup", "SharedInit", ...
    rank: int | None = None
    retcode: int | None = None  # ncclResult_t
