"""NCCL as its log (NCCL_DEBUG=INFO/WARN), its topology dump and its channels report it, and
the cross-rank NCCL summaries.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class NcclRingOrder(Fact):
    """The ring of one or more channels: ``order`` is the ranks in sending order, space-separated."""

    kind: Literal["nccl_ring_order"] = "nccl_ring_order"
    comm: str
    nranks: int
    order: str
    channels: str  # "0,1,2"
    channel_count: int
    pid: int


@fact_kind
class NcclRingNeighbour(Fact):
    kind: Literal["nccl_ring_neighbour"] = "nccl_ring_neighbour"
    comm: str
    rank: int
    prev_rank: int
    next_rank: int
    channels: str
    pid: int


@fact_kind
class NcclTreeLink(Fact):
    """One rank's place in the trees: ``parent`` -1 at the root, ``children`` space-separated."""

    kind: Literal["nccl_tree_link"] = "nccl_tree_link"
    comm: str
    rank: int
    parent: int
    children: str
    channels: str
    pid: int


@fact_kind
class NcclCommNodes(Fact):
    """``comm 0x55e484784590 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0`` (NCCL 2.20 on): how
    many nodes a communicator spans and how many of its ranks share this rank's node. One fact per
    (node, pid, comm). ``nnodes`` 1 (``local_ranks`` == ``nranks``): the communicator never leaves the node, so
    NCCL's network transport carries none of its data (its bootstrap sockets only). NCCL up to 2.19 prints no
    such line: no fact, the span unknown."""

    kind: Literal["nccl_comm_nodes"] = "nccl_comm_nodes"
    comm: str  # the commId of the communicator's Init line where it was printed, else the comm pointer
    rank: int
    nranks: int
    nnodes: int
    local_ranks: int
    local_rank: int
    # the line's 'MNNVL %d' (comm->MNNVL, src/mnnvl.cc ncclMnnvlCheck: 1 where the ranks' GPUs share one multi-node
    # NVLink domain, a GB200 NVL72's clique, whose data between nodes then goes over NVLink through the P2P transport,
    # 'P2P/MNNVL', not the hosts' network); None where the line did not print it
    mnnvl: int | None = None
    pid: int


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
class NcclEnvIgnored(NcclLineFact):
    """``Invalid value abc for NCCL_IB_TIMEOUT, using default 20.``: a setting NCCL could not read as a
    number, so it ran with its default (src/misc/param.cc, an INFO up to 2.31, NCCL 2.32's ATTN)."""

    kind: Literal["nccl_env_ignored"] = "nccl_env_ignored"
    name: str
    value: str
    default: str


@fact_kind
class NcclNetPlugin(NcclLineFact):
    """``NET/Plugin: Could not find: libnccl-net.so``, ``Initialized NET plugin Socket``, ..."""

    kind: Literal["nccl_net_plugin"] = "nccl_net_plugin"
    event: Literal["not_found", "loaded", "failed", "assigned"]
    name: str | None = None  # plugin ("Socket", "IB") or library ("libnccl-net.so")


@fact_kind
class NcclPluginNotFound(NcclLineFact):
    """``PROFILER/Plugin: Could not find: libnccl-profiler-myprof.so.``: NCCL was told to load a
    plugin (NCCL_NET_PLUGIN, NCCL_GIN_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_PROFILER_PLUGIN,
    NCCL_ENV_PLUGIN) and no library of the names it tried is there, so it runs without that plugin.
    Only for a name other than the one NCCL tries unasked (``libnccl-<type>.so``): that one absent
    is NCCL's normal case."""

    kind: Literal["nccl_plugin_not_found"] = "nccl_plugin_not_found"
    plugin: Literal["NET", "GIN", "TUNER", "PROFILER", "ENV"]
    libraries: str  # the names NCCL tried, as it printed them, blank-separated ("libnccl-profiler-myprof.so")


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
    # Socket devices: an IP-over-InfiniBand interface ("ib0", "ibp12s0"): the node has an InfiniBand port
    ipoib: bool = False


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
    # an IP-over-InfiniBand interface ("ib0", "ibp12s0"; NCCL 2.2-2.3's "NET : Using interface ib0:..." too):
    # the node has an InfiniBand port
    ipoib: bool = False


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
                    "connection_aborted", "connection_reset", "socket_creation_failed", "connection_closed", "accept_failed",
                    "bind_failed", "connect_failed", "other"]
    # connect_failed: a connect to a peer that did not complete and NCCL does not say why (2.22-2.26 "socketPollConnect
    # poll() returned 1, no POLLOUT events" / "poll() failed with error ...": no peer, no errno of the connect)
    peer: str | None = None  # "10.1.1.2<34567>" as printed
    peer_loopback: bool = False  # the peer's address is a loopback one (127.0.0.0/8, ::1): it advertised lo
    peer_link_local: bool = False  # the peer's address is IPv4 link-local (169.254.0.0/16): an interface only its own link reaches
    message: str
    retrying: bool = False
    error: str | None = None  # the strerror text ("Address family not supported by protocol", accept's "Bad file descriptor")
    # the peer's address without its port: "169.254.170.23" of "169.254.170.23<...>", "[fe80::1%eth0]" kept whole
    # less its port; what a finding names as the entity's address (one per host dialled, not one per port)
    peer_host: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _peer_host(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("peer_host") is None and data.get("peer"):
            host = str(data["peer"]).split("<", 1)[0].strip()
            if host:
                data = {**data, "peer_host": host}
        return data


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
    bus_id: str | None = None  # canonical dddd:bb:dd.f; NCCL 2.4 printed no busId (nvmlDev only)
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
    # NET lines: whether the connection uses GPUDirect RDMA (transport/net.cc appends "/GDRDMA" to
    # "NET/<net>/<dev>" when it does: "NET/IB/1/GDRDMA/Shared" vs "NET/IB/0"); None for other families
    gdr: bool | None = None
    # NET lines: whether any NET connection of the same node in the same log uses GPUDirect RDMA
    node_gdr: bool | None = None
    # "network" where the channel's data crosses the network: a NET transport (transport/net.cc "Channel %02d/%d :
    # %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", NCCL's IB or Socket or a net plugin's network); None for P2P, SHM and
    # NVLS, which stay within a node (P2P/MNNVL within its NVLink domain): what knowledge/coverage.yaml reads for 'network'
    crosses: Literal["network"] | None = None


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
    at and around rank 39``: NCCL (2.4-2.5 checks) saw ranks call different collectives.
    ``suspected``: the same check's weaker form, ``Your program may be hanging, this may be caused by a
    collective mismatch around rank 1``: a kernel waited too long and a mismatch is the likely cause."""

    kind: Literal["nccl_collective_mismatch"] = "nccl_collective_mismatch"
    rank: int
    suspected: bool = False


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
    (type = 2) for device 0. RC: -22, Error: Invalid argument`` (a CUDA buffer refused), ``NET/OFI
    Couldn't open AV. RC: -22, ERROR: Invalid argument`` (call libfabric_setup), ``NET/OFI Only EFA
    provider is supported`` (call provider), ``NET/OFI aws-ofi-nccl initialization failed`` (call init);
    GPUDirect-TCPX's slowness report on a connection (``... 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl
    timeout cnt 7331502, nanos 10000000585``: call rx_ctrl_timeout, resource the connection)."""

    kind: Literal["nccl_net_plugin_error"] = "nccl_net_plugin_error"
    plugin: str  # "OFI"
    call: str | None = None  # "fi_getinfo", "register_mr"
    error: str | None = None  # "No data available"
    code: int | None = None  # the return code printed ("RC: -22")
    memory_type: str | None = None  # register_mr: "host", "cuda" or "dmabuf" (NCCL_PTR_* of the buffer)
    resource: str | None = None  # libfabric_setup: the object not set up, as the plugin names it ("open AV", "open CQ");
    #                              a GPUDirect-TCPX slowness report: the connection that stalled ("<local><-<peer>")


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


@fact_kind
class NcclOobAddress(Fact):
    kind: Literal["nccl_oob_address"] = "nccl_oob_address"
    network: str  # IB | Socket
    interface: str
    address: str
    devices: str  # "mlx5_10:1,mlx5_11:1" (may be empty: "Using [RO]")
    pid: int


@fact_kind
class NcclMnnvlFabric(Fact):
    """NCCL's view of a GPU's multi-node NVLink fabric registration (``MNNVL busId 0x.. fabric UUID a.b cliqueId
    0x.. state N healthMask 0x..``, src/init.cc, printed where NVML reports a fabric state): NVML's
    nvmlGpuFabricInfoV_t as NCCL read it at communicator init, the health mask's 2-bit fields decoded."""

    kind: Literal["nccl_mnnvl_fabric"] = "nccl_mnnvl_fabric"
    pid: int | None = None
    local_device: int | None = None
    bus_id: str  # canonical dddd:bb:dd.f of NCCL's busId
    state: int  # NVML_GPU_FABRIC_STATE_*: 1 Not Started, 2 In Progress, 3 Completed
    state_name: str  # "Not Started", "In Progress", "Completed", "unknown"
    health_mask: str  # as printed, "0x80"
    #: the health fields NVML reports TRUE, joined with ", ": "degraded bandwidth", "route recovery in progress",
    #: "route unhealthy", "access timeout recovery" ("" where none is)
    health_problems: str = ""
    health_problem_count: int = 0
    clique_id: str | None = None  # "0x7ffe"
    cluster_uuid_zero: bool = False  # "fabric UUID 0.0": no cluster assigned (any GPU outside an NVLink domain)


@fact_kind
class NcclNvlsSupport(Fact):
    """``NVLS multicast support is [not ]available on dev N``: NVLS was enabled and the node had
    enough GPUs for NCCL to ask the GPU (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED)."""

    kind: Literal["nccl_nvls_support"] = "nccl_nvls_support"
    pid: int | None = None
    local_device: int | None = None
    available: bool
    nvls_channels: int | None = None  # "(NVLS_NCHANNELS 16)", NCCL 2.27 on


@fact_kind
class NcclChannelCounts(Fact):
    """The channel summary a communicator prints at the end of its init."""

    kind: Literal["nccl_channel_counts"] = "nccl_channel_counts"
    pid: int | None = None
    local_device: int | None = None
    coll: int
    collnet: int | None = None  # printed from NCCL 2.21
    nvls: int | None = None  # printed from NCCL 2.17; 0: no NVLS channels
    p2p: int
    p2p_per_peer: int


@fact_kind
class NcclNvlsSetup(Fact):
    """A step of NVLS set-up that NCCL logged (buffers bound to a multicast group, the NVLS
    tree connected): this process used NVLS."""

    kind: Literal["nccl_nvls_setup"] = "nccl_nvls_setup"
    pid: int | None = None
    local_device: int | None = None
    step: str  # "bind_mem", "created_multicast_group", "tree_connected", ...


@fact_kind
class NcclNvlsUse(Fact):
    """Whether one nccl-tests run used NVLink SHARP, made by :mod:`stethoscope.engine.combine.nvls_use`
    from the run's rank lines and its processes' NCCL lines, with knowledge/nvls.yaml where
    the log does not say.

    ``used``: True / False, None when nothing tells. ``basis``: ``log_setup`` (NVLS set-up lines),
    ``log_channels`` (the channel summary's nvls count), ``log_support`` (the multicast
    support line), ``setting`` (NCCL_NVLS_ENABLE), ``gpu_model`` (NCCL's default on these
    GPUs at this GPU count and release), ``too_few_gpus``, ``nccl_too_old``, ``gpu_not_capable``,
    ``unknown``. ``hung``: the run listed its ranks and then printed neither a row nor its
    footer, or nccl-tests' own ``-T`` timeout fired.
    """

    kind: Literal["nccl_nvls_use"] = "nccl_nvls_use"
    run_id: str
    used: bool | None = None
    basis: str
    hung: bool
    local_gpus: int | None = None  # the most ranks of the run on one host
    gpu_name: str | None = None
    nccl_version: str | None = None
    nvls_enable: str | None = None  # NCCL_NVLS_ENABLE as NCCL read it, None when not printed
    detail: str
    sources: str


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
    NVML says no P2P over links the topology has, usually a hardware or driver fault),
    ``P2P is disabled between connected GPUs 1 and 0. ...`` (INFO, ``nvlink`` False: NVML says no
    P2P between GPUs joined over PCIe below the CPU; NCCL goes on without it, as on GeForce cards) or
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
    shared memory segment ..."; the segment vanished, a different fault from a full /dev/shm),
    ``unlink`` ("unlink shared memory /dev/shm/nccl-X failed, error: No such file or directory": the
    segment was already deleted when its last peer came to remove it; read only for that errno).
    ``errno_name``: the errno of ``error``'s strerror() text where it is one of those the segment calls
    fail with (ENOSPC a full /dev/shm; EINTR a signal that interrupted NCCL 2.3's posix_fallocate, which
    2.4 and later retry); None where the line gives no reason or a text not known. NCCL 2.4-2.11's
    ``create`` line gives none: it reports the failed call its process printed just before ("Call to
    posix_fallocate failed : %s", shm_open's), whose errno it takes. ``other_reason``: the failure (or
    that call) gives a reason and it is not ENOSPC's (a known errno or not); False where it gives none.
    """

    kind: Literal["nccl_shm_failure"] = "nccl_shm_failure"
    op: Literal["create", "extend", "fallocate", "attach", "unlink"]
    segment: str | None = None  # "/dev/shm/nccl-KWfVyt"
    size_bytes: int | None = None
    error: str | None = None  # "No space left on device", "No such file or directory (2)"
    errno_name: str | None = None  # "ENOSPC", "EINTR", "EINVAL"
    other_reason: bool = False


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
    bus_id: str | None = None  # canonical dddd:bb:dd.f of NCCL's busId; None where the paste leaves the device out


@fact_kind
class NcclPeerVersionMismatch(NcclLineFact):
    """``init.cc:1043 NCCL WARN Mismatched NCCL version detected : rank 0 version 21003 rank 4 version 21602``: the
    ranks of one communicator exchanged their peer info and a peer's NCCL_VERSION_CODE differs from this rank's; NCCL
    refuses the communicator (ncclInvalidUsage). The first pair is the peer's (``peer_rank``), the second the rank that
    printed it; each code decoded as NCCL encodes it (major*10000+minor*100+patch from 2.9, major*1000+minor*100+patch
    before: 21003 = 2.10.3, 2708 = 2.7.8).

    NCCL's RAS thread (2.24 on) checks the same at its peers' handshake, by address, not rank:
    ``ras/ras.cc:430 NCCL WARN NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 22703, remote 22605)``
    (2.24-2.29 print the codes; 2.30 on the decoded ``local: 2.30.3, remote 2.29.7``): ``rank`` and ``peer_rank`` are
    None, ``peer_address`` the peer's RAS socket, and the printing process's version is ``version``."""

    kind: Literal["nccl_peer_version_mismatch"] = "nccl_peer_version_mismatch"
    rank: int | None = None  # the rank that printed it; None: RAS's check, which names no rank
    version_code: int  # its NCCL_VERSION_CODE: 21602
    version: str  # "2.16.2"
    peer_rank: int | None = None  # the rank whose version differs; None: RAS's check (peer_address names it)
    peer_version_code: int  # 21003
    peer_version: str  # "2.10.3"
    peer_address: str | None = None  # RAS's check: the peer's socket, "10.0.0.12<49152>"


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


@fact_kind
class NcclVersionSet(Fact):
    """The NCCL versions that the processes of one bundle printed (one fact per bundle)."""

    kind: Literal["nccl_version_set"] = "nccl_version_set"
    distinct: int  # number of different versions
    versions: str  # "2.18.1, 2.19.3"
    detail: str  # "node1: 2.18.1; node2: 2.19.3"
    sources: str


@fact_kind
class NcclNetPluginSet(Fact):
    """Which external net plugin each process loaded: ``distinct`` > 1 when they differ;
    ``missing`` > 0 when some processes found none while others loaded one."""

    kind: Literal["nccl_net_plugin_set"] = "nccl_net_plugin_set"
    distinct: int
    missing: int  # processes that found no external plugin while others loaded one
    missing_nodes: str = ""  # the nodes of those processes: "node3"
    plugins: str  # "NCCL RDMA Plugin v8 (node1, node2); none (node3)"
    sources: str


@fact_kind
class NcclBootstrapSubnetSet(Fact):
    """The IPv4 subnets (/24) NCCL bootstrapped on across nodes: ranks on different subnets
    through different interfaces usually cannot reach each other (e.g. ib0 vs eth0)."""

    kind: Literal["nccl_bootstrap_subnet_set"] = "nccl_bootstrap_subnet_set"
    distinct: int
    #: distinct interface names the nodes bootstrapped on (eth0 everywhere: 1)
    interface_names: int = 1
    interfaces: str  # "node1 ib0 10.1.0.1; node2 eth0 192.168.1.2"
    sources: str


@fact_kind
class TorchStragglerCandidate(Fact):
    """A rank that never reached the collective the others time out in.

    ``basis`` says how it was found: ``desync_report`` (PyTorch's own TORCH_NCCL_DESYNC_DEBUG
    verdict), ``lowest_enqueued`` (its last enqueued sequence number is below the one the
    others time out at), ``no_progress`` (the job has this rank, which printed no progress
    while others timed out).
    """

    kind: Literal["torch_straggler_candidate"] = "torch_straggler_candidate"
    rank: int
    basis: Literal["desync_report", "lowest_enqueued", "no_progress"]
    timeout_seq: int | None = None
    last_enqueued_seq: int | None = None
    op_type: str | None = None
    waiting_ranks: str  # "0" or "0, 2, 3"
    host: str | None = None
    gpu: str | None = None  # PCI bus id from NCCL's Init line of that rank
    sources: str


@fact_kind
class TorchFrCulprit(Fact):
    """The rank PyTorch's flight-recorder analyser names (``torch_fr_analysis``'s first_rank: the
    lowest missing or culprit rank), placed on a host where the bundle maps that global rank:
    NCCL's Init line of the largest communicator, else torchrun's failures table
    (engine/combine/nccl_summary.py). ``host``/``gpu`` stay None where nothing maps it: the
    analyser's own file says where it ran, not where the rank ran."""

    kind: Literal["torch_fr_culprit"] = "torch_fr_culprit"
    issue: str  # the analysis's: ranks_missing, mismatch, io_mismatch
    rank: int
    ranks: str | None = None  # every rank the analyser names, "1, 3"
    seq_num: int | None = None
    pg: str | None = None
    op_type: str | None = None
    error_type: str | None = None
    state: str | None = None
    host: str | None = None
    gpu: str | None = None  # PCI bus id from NCCL's Init line of that rank
    placed_by: str | None = None  # nccl_rank, torch_worker_failed; None: not placed
    sources: str


@fact_kind
class NcclTestsIndependentRuns(Fact):
    """Several nccl-tests processes that each ran the same test as their own single-process
    job (a binary built without MPI=1 launched by mpirun/srun): each printed ``Rank 0``."""

    kind: Literal["nccl_tests_independent_runs"] = "nccl_tests_independent_runs"
    collective: str | None = None
    runs: int
    hosts: str  # "node1, node2"
    sources: str


@fact_kind
class NcclSlowPathSetting(Fact):
    """An NCCL environment setting that the catalogue ``knowledge/nccl_env.yaml`` lists as
    forcing a slower path (NCCL_ALGO, NCCL_PROTO, channel limits, ...)."""

    kind: Literal["nccl_slow_path_setting"] = "nccl_slow_path_setting"
    name: str
    value: str
    effect: str
    own_rule: bool = False  # the setting has a rule of its own (NCCL_P2P_DISABLE, ...)
    sources: str


@fact_kind
class NcclKnownIssue(Fact):
    """A bug of ``knowledge/nccl_known_issues.yaml`` whose symptoms a node shows; rules judge the version.

    Derived by rules/nccl/known_issues/*.yaml, which join the entry (``nccl_known_issue_entry``)
    with its symptoms seen on one node (``nccl_symptom_seen``) and the version that node printed
    (``nccl_version_seen``) or, where it printed none, a frame that places it
    (``nccl_symptom_frame``, ``nccl_known_issue_frame``). It carries that version and the bug's
    affected range; rules decide whether it applies (rules/nccl/nccl_known_version_issue.yaml:
    the version within the range, compared as the ``*_key`` numbers that order releases).

    ``version`` is what the finding shows; ``version_min``/``version_max`` the version as a
    range: the printed version twice, or the range of releases that have the failing frame."""

    kind: Literal["nccl_known_issue"] = "nccl_known_issue"
    version: str
    issue: str  # id in the table
    title: str
    fixed_in: str | None = None
    workaround: str | None = None  # what to do until the upgrade, from the table
    source: str
    sources: str
    #: the CUDA error (knowledge/cuda_errors.yaml name) of a failed CUDA call inside NCCL that is
    #: one of the entry's symptoms: the bug explains that failure (rule nccl_cuda_failure_catalogue)
    cuda_error: str | None = None
    version_min: str | None = None  # None: ``version`` itself
    version_max: str | None = None
    affected_min: str | None = None  # the table's affected range
    affected_max: str | None = None
    version_min_key: int | None = None  # filled from the strings (version_key)
    version_max_key: int | None = None
    affected_min_key: int | None = None
    affected_max_key: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        # a printed version is both ends of the range
        return with_version_keys(data, {"version_min_key": ("version_min", "version"), "version_max_key": ("version_max", "version"),
                                        "affected_min_key": ("affected_min",), "affected_max_key": ("affected_max",)})


@fact_kind
class NcclVersionSeen(Fact):
    """An NCCL version a node printed, one per (node, version), from whichever line printed it
    first: NCCL's own ``NCCL version 2.18.1+cuda12.1``, nccl-tests' ``nccl-library=21801`` header,
    or PyTorch's ``... unhandled cuda error ..., NCCL version 2.18.1``. Made by
    engine/combine/nccl_known_issues.py on the nodes that show a symptom of
    knowledge/nccl_known_issues.yaml (elsewhere no rule joins it); rules/nccl/known_issues/ join it
    with the symptoms on the same node."""

    kind: Literal["nccl_version_seen"] = "nccl_version_seen"
    version: str
    version_key: int | None = None  # filled from ``version`` (version_key)
    sources: str  # the fact that printed it

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        return with_version_keys(data, {"version_key": ("version",)})


@fact_kind
class NcclSymptomSeen(Fact):
    """A symptom of knowledge/nccl_known_issues.yaml (its ``symptoms`` table: a fact kind and a
    rule condition on its fields) that a fact of the node meets: one per (symptom, node), citing
    the first such fact. Whether a known bug applies is the rules' (rules/nccl/known_issues/)."""

    kind: Literal["nccl_symptom_seen"] = "nccl_symptom_seen"
    symptom: str  # its name in the table
    #: the CUDA error (knowledge/cuda_errors.yaml name) where the fact is a failed CUDA call inside NCCL
    cuda_error: str | None = None
    sources: str


@fact_kind
class NcclSymptomFrame(Fact):
    """The first source location (``file:line`` as NCCL prints it: a WARN's own place or a frame of
    its error-return chain) of a symptom fact that an entry's ``located_by`` of
    knowledge/nccl_known_issues.yaml lists: one per (node, frame), citing the first such fact."""

    kind: Literal["nccl_symptom_frame"] = "nccl_symptom_frame"
    frame: str  # "misc/socket.cc:428"
    symptom: str
    sources: str


@fact_kind
class BusbwComparison(Fact):
    """One nccl-tests run against a reference (a recorded baseline, an expected figure or its sibling runs),
    for one message-size band: ``latency`` (<= 64 KiB) or ``bandwidth`` (>= 64 MiB).

    Sibling runs (``reference_kind`` "sibling run", bandwidth band only): the median of the same
    test's other runs in the bundle, where no baseline or expected figure applies.
    ``ratio`` is measured busbw / reference busbw at the sizes both have (median over them),
    computed from the times, so that small sizes printed as 0.00 GB/s still compare. The limits
    that apply ride along with where they were read; rules compare ``ratio`` with them
    (rules/nccl/busbw_below_baseline*.yaml), no code judges it.
    """

    kind: Literal["busbw_comparison"] = "busbw_comparison"
    run_id: str = ""  # the nccl_test_run compared (rules/nccl/nccl_tests_busbw_unjudged.yaml asks which runs were)
    collective: str
    band: Literal["latency", "bandwidth"]
    ratio: float
    factor_below: float  # 1 / ratio, rounded: "35x below"
    measured_busbw: float  # GB/s at the largest common size
    reference_busbw: float
    size_bytes: int  # that size
    size_text: str  # "2 GiB"
    sizes: int  # sizes compared
    reference: str  # "baseline h200-pair (2026-11-29)" or "expected: h200-nv18-pair"
    reference_kind: Literal["baseline", "expected", "sibling run"]
    context_diff: str  # "nccl 2.28.9 -> 2.29.1; driver 580 -> 590" or "none"
    env_overrides: str  # "NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1" or "none"
    #: under this ratio the band is below its reference: knowledge/bench_tolerances.yaml
    #: nccl_tests.below.<band>, or the expected platform's min_ratio (knowledge/expected_perf.yaml)
    below_limit: float
    below_limit_source: str  # "knowledge/expected_perf.yaml h200-nv18-pair.min_ratio"
    #: under this ratio it is far below (critical): knowledge/bench_tolerances.yaml nccl_tests.critical_below
    critical_limit: float
    critical_limit_source: str
    sources: str


@fact_kind
class NcclGpuShared(Fact):
    """Several ranks of one communicator on one GPU: from NCCL's ``Duplicate GPU detected``
    warnings (``basis`` nccl_warning), else from Init lines of one ``commId`` that name the
    same node and busId for different ranks (``init_lines``)."""

    kind: Literal["nccl_gpu_shared"] = "nccl_gpu_shared"
    bus_id: str | None = None  # None: NCCL's warning pasted without its device
    ranks: str  # "0, 2, 4"
    basis: Literal["nccl_warning", "init_lines"]
    sources: str


@fact_kind
class BusbwVsNicRate(Fact):
    """An nccl-tests run that crossed nodes, beside the line rate of the RDMA ports an ibstat /
    ibstatus / ibv_devinfo in the bundle shows (made by :mod:`stethoscope.engine.localise.nic_line_rate`).
    ``ratio`` is the measured busbw over the aggregate line rate of the node's Active ports
    (GB/s = Gb/s / 8); ``min_ratio`` is knowledge/nic_line_rate.yaml's, which
    rules/network/busbw_far_below_nic_line_rate.yaml compares it with."""

    kind: Literal["busbw_vs_nic_rate"] = "busbw_vs_nic_rate"
    run_id: str = ""  # the nccl_test_run judged
    measured_busbw: float  # GB/s
    measure: Literal["peak_large_sizes", "average"]  # the best row >= 64 MiB, else the footer's average
    nic_ports: int
    nic_rate_gbps: float  # aggregate line rate of the Active ports, Gb/s
    nic_busbw: float  # the same in GB/s
    ratio: float
    min_ratio: float
    ports_node: str  # the node whose ports were counted
    nranks: int  # ranks of the job as the run or NCCL printed them (0: unknown)
    hosts: int  # hosts of the run's rank lines (0: not printed)
    sources: str


@fact_kind
class NcclTopoPci(Fact):
    """``<pci busid="0000:00:06.0" class="0x030200" ... link_speed="32.0 GT/s PCIe" link_width="16">``"""

    kind: Literal["nccl_topo_pci"] = "nccl_topo_pci"
    pci_bus_id: str
    pci_class: str | None = None  # 0x060400 = PCI bridge / switch port, 0x030200 = 3D controller (GPU)
    parent: str | None = None
    link_speed: str | None = None
    link_width: int | None = None
    host_hash: str | None = None


@fact_kind
class NcclTopoGpu(Fact):
    """``<gpu dev="0" sm="90" rank="0" gdr="1">`` inside its ``<pci>``."""

    kind: Literal["nccl_topo_gpu"] = "nccl_topo_gpu"
    pci_bus_id: str | None = None
    dev: int
    rank: int | None = None
    sm: int | None = None
    gdr: bool | None = None
    nvlinks: int = 0  # sum of <nvlink count=...>
    nvswitch: bool = False  # an nvlink target of ffffffff:ff:ff.0 is the NVSwitch fabric
    host_hash: str | None = None


@fact_kind
class NcclTopoNic(Fact):
    """``<net name="mlx5_0" dev="0" speed="200000" port="1" guid="0x..." gdr="1"/>``"""

    kind: Literal["nccl_topo_nic"] = "nccl_topo_nic"
    name: str
    dev: int | None = None
    port: int | None = None
    speed_mbps: int | None = None
    pci_bus_id: str | None = None  # the <pci> the <nic> hangs under, None for virtual NICs
    gdr: bool | None = None
    host_hash: str | None = None


@fact_kind
class NcclTopoNicLink(Fact):
    """A NIC in the topology NCCL prints (``NCCL_DEBUG_SUBSYS=GRAPH``): the PCIe link NCCL gives it
    and the network port under it, each as the bandwidth NCCL's model assigns (GB/s). NCCL models a
    PCIe link as width x per-lane rate / 80 (Gen3 x16: 12.0, Gen4 x16: 24.0, Gen5 x16: 48.0; an
    unreadable speed counts as Gen3, an unreadable width as x16) and a port as its speed in Mb/s /
    8000 (HDR 200 Gb/s: 25.0, NDR 400 Gb/s: 50.0)."""

    kind: Literal["nccl_topo_nic_link"] = "nccl_topo_nic_link"
    nic: str  # "NIC/5000" as NCCL prints the node ("NIC/0-5000" from 2.19: system id, local id)
    net: str  # "NET/0": the network device NCCL numbers in its "NET/IB : Using [0]mlx5_0:1" list
    pci_gbps: float  # the NIC's own PCIe link: "+ PCI[12.0] - NIC/5000"
    net_gbps: float  # the port's rate: "+ NET[25.0] - NET/0 (...)"
    ratio: float  # pci_gbps / net_gbps, rounded to 2 places
    pid: int | None = None


@fact_kind
class NcclRasIssue(Fact):
    """One entry of the Errors or Warnings section of NCCL's RAS status report (``ncclras``, NCCL
    2.24 and later; src/ras/client_support.cc): a job process RAS considers dead or that gave it no
    data, a communicator with missing ranks or with ranks that report errors, ranks that disagree
    (status, collective counts: :class:`NcclRasDisagreement`)."""

    kind: Literal["nccl_ras_issue"] = "nccl_ras_issue"
    #: dead: "N job process(es) considered dead (unreachable via the RAS network)"; unresponsive: the job-level
    #: "Missing communicator data from N job process(es)"; comm_incomplete / comm_error: a "#<group>-<comm> (<hash>)"
    #: INCOMPLETE (ranks that gave no data) or ERROR (ranks that report an initialization or asynchronous error) entry
    issue: Literal["dead", "unresponsive", "comm_incomplete", "comm_error"]
    comm: str | None = None  # "0-0": the summary table's group and the communicator within it
    comm_hash: str | None = None  # "cf264af53edbe986": the hash NCCL's INFO lines print for the communicator
    count: int | None = None  # the processes, ranks or timeouts the entry counts
    detail: str | None = None  # RAS's first line of the entry ("Communicator ranks have different AllGather operation counts")
    ranks: str | None = None  # "21" / "0, 2, 3": the communicator ranks RAS named
    processes: str | None = None  # "3487984": the process ids RAS named
    nodes: str | None = None  # "172.16.64.213": the nodes RAS named (its peers' addresses), in order, once each
    errors: str | None = None  # "remote process exited or there was a network error": what ranks reported (comm_error)


@fact_kind
class NcclRasDisagreement(NcclRasIssue):
    """An entry of RAS's report that is a fault only if it lasts: a communicator whose ranks have
    different status or have launched different numbers of collectives (MISMATCH: normal while a
    job runs or tears down, NCCL's user guide says, unless repeated queries show no change), or
    timeouts while RAS gathered its data (TIMEOUT)."""

    kind: Literal["nccl_ras_disagreement"] = "nccl_ras_disagreement"  # type: ignore[assignment]
    issue: Literal["status_mismatch", "count_mismatch", "timeout"]  # type: ignore[assignment]
