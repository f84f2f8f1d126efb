"""Which NCCL WARN message a line is: ``message_kind`` of the ``nccl_warn`` fact (:mod:`nccl_log`),
for the WARN messages whose meaning is NCCL's own and needs no other fact, and for those a rule or
a known issue names (the kinds at the ends of the net and local areas' lists). What each self-explaining kind means (cause,
component, severity, actions) is knowledge, ``knowledge/nccl_warn_messages.yaml``, joined by the
rule ``rules/nccl/nccl_warn_message.yaml``; a kind without an entry there is no finding of that
rule (the rule or the symptom of knowledge/nccl_known_issues.yaml that names it reads it). A WARN
no pattern here matches keeps ``message_kind`` None: another reader explains it, or it stays an
unexplained error.

Each pattern is NCCL's ``WARN("...")`` format string (``git grep -n 'WARN(' -- src`` in
NVIDIA/nccl at 5067397c, "Merge nccl4py v0.3.1 release to master", or the tag named), filled in
as the comment line under it shows (bench/nccl_warn_study.py diagnoses each). The patterns live by area, each
module a list: :mod:`nccl_warn_kinds_net` (IB, sockets, GIN, CollNet/SHARP, UCX), :mod:`nccl_warn_kinds_local`
(CUDA, NVML, memory, shared memory and IPC within a node, GDRCopy), :mod:`nccl_warn_kinds_init` (versions, bootstrap,
topology, settings, usage, features, plugins) and :mod:`nccl_warn_kinds_teardown` (teardown, NCCL's internal checks,
follow-on lines); this module joins them (``_KINDS``) and holds the gates, the bare and quoted forms and the INFO
lines read as WARN kinds::

    >>> kind("NET/IB : Unable to open device mlx5_0")
    'ib_device_open_failed'
    >>> kind("nvmlInit_v2() failed: Driver/library version mismatch")
    'nvml_driver_library_mismatch'
    >>> kind("NVML failure 'Driver/library version mismatch'")
    'nvml_driver_library_mismatch'
    >>> kind("NVML failure 'Unknown Error'") is None
    True
    >>> kind("No NVML device handle. Skipping nvlink detection.")
    'nvml_no_device_handle'
    >>> kind("The installed CUDA driver is older than the minimum version (R465) required for NCCL's CUDA Graphs support")
    'cuda_graphs_driver_too_old'
    >>> kind("Failed to CUDA malloc 4194304 bytes")
    'cuda_malloc_failed'
    >>> kind("socketProgress: Connection closed by remote peer 10.10.1.3<36138>")
    'socket_connection_closed'
    >>> kind("socketFinalizeAccept: wrong type 4 != 3")
    'socket_net_type_mismatch'
    >>> kind("socketFinalizeAccept: wrong type 1 != 2") is None
    True
    >>> kind("socketFinalizeAccept: wrong magic 74656d2f20544547 != 7970663b906d70b9")
    'socket_foreign_connection'
    >>> kind("socketFinalizeAccept: didn't receive a valid magic from 10.0.0.7<51234>")
    'socket_foreign_connection'
    >>> kind("NET/IB : SHARP coll init error: Cannot create SHARP job(-11)")
    'sharp_coll_init_failed'
    >>> kind("SHARP group create: Error(-1)")
    'sharp_group_create_failed'
    >>> kind("SHARP group create failed: Error(-1)")
    'sharp_group_create_failed'
    >>> kind("NET/IB: Device 1 marked as failed. Initiating recovery? Yes (send comm=0x7f3a2c000000, outstandingRecovery=0)")
    'ib_resiliency_device_failed'
    >>> kind("commReclaim: cleanup comm 0x9801e10 rank 0 failed in destroy/abort, error 1")
    'comm_teardown_failed'
    >>> kind("MNNVL (cliqueSize 4) is available but not working on this system. Check the IMEX configuration (nvidia-imex-ctl -N).")
    'mnnvl_fabric_handle_unusable'
    >>> kind("Call to bind failed: Address already in use", "ras/client_support.cc")
    'ras_client_socket_failed'
    >>> kind("Call to bind failed: Address already in use", "misc/socket.cc") is None
    True
    >>> kind("NET/IB : Got completion from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, vendor err 129") is None
    True
    >>> kind("failed to open CUDA IPC handle : 217 peer access is not supported between these two devices")
    'peer_access_unsupported'
    >>> kind("failed to open CUDA IPC handle : 1 invalid argument") is None
    True
    >>> kind('Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!')
    'rccl_host_setting_advisory'
    >>> kind('Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment which can lead to low RCCL performance, system instablity or hang!')
    'rccl_host_setting_advisory'
    >>> kind("rank 0 failed to IPC register userbuff 0x7f3f56000000 buffSize 37748736 nPeers 2 isLegacyIpc 0x7ffe49900be0")
    'ipc_userbuff_register_failed'
    >>> kind("Profiler init failed with error (1). Continue without profiler.")
    'profiler_plugin_init_failed'
    >>> kind("DOCA failure 21")
    'gin_gdaki_doca_failure'
    >>> kind("comm 0x55ec10690820 has already been destroyed")
    'comm_destroyed_twice'
    >>> kind("Invalid rank requested : 2/2")
    'rank_out_of_range'
    >>> kind("Cannot use cuda/gdr transports as part of specified UCX_TLS")
    'ucx_tls_cuda_refused'
    >>> kind("NET/IB: Encountered a stale CQE with error for slot=3. Slot was already handled (comm=0x7f3a2c000000, wc.wr_id=3, wc.status=IBV_WC_RETRY_EXC_ERR(12), wc.opcode=IBV_WC_SEND(0)).")
    'ib_resiliency_recovering'
    >>> kind("NET/IB: Attempting to repost an unused request (id=42).")
    'nccl_internal_error'
    >>> kind("ncclPutSignal: peerWin is NULL")
    'nccl_invalid_usage'
    >>> kind("Thread creation failed: Invalid argument") is None
    True
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers import (nccl_warn_kinds_init, nccl_warn_kinds_local, nccl_warn_kinds_net,
                                      nccl_warn_kinds_teardown)

# The areas' patterns in one list; the first that matches names the kind. Within an area they keep the order of
# the one list they were until round rW7 (aac21dbe); the areas' order flips no two patterns a message could both
# match (rW7 compared the anchored literal prefixes of every flipped pair): a pattern that can match what another
# area's does goes in the area that keeps the one meant to win first
_KINDS: list[tuple[str, re.Pattern[str]]] = [*nccl_warn_kinds_net.KINDS, *nccl_warn_kinds_local.KINDS,
                                             *nccl_warn_kinds_init.KINDS, *nccl_warn_kinds_teardown.KINDS]

#: a literal each pattern above needs (a WARN with none of them is no kind here)
_GATE = re.compile(r"Unable to|ibv_open_device|ibv_set_ece|CQE with error|same GPU|Mismatched NCCL version|NCCL_COMM_ID|address info"
                   r"|Failed to CUDA|nvmlInit|Driver/library|CUDA Graphs support|Retrieve|PFN functions|shared memory file|failed to peer|CUDA IPC handle|Rem Allocator"
                   r"|fatal error|Fatal error|error is fatal|marked as failed|interface found|not found\.|NCCL_NVLS_ENABLE|version mismatch"
                   r"|mixed local Net|CUDA library|missing symbol|already checked in|already been destroyed|Invalid rank requested"
                   r"|UDS: Binding|closed by remote peer|open libibverbs|wrong type|wrong magic|valid magic|initialize CollNet|SHARP coll init|SHARP group create|sharp_coll_caps_query|specified UCX_TLS"
                   r"|reverse path|ould not find|No path computed|of node \w+ not found|IPC register userbuff|DOCA failure|^Missing \""
                   r"|No suitable space found|commReclaim|commDestroySync|Legacy IPC cleanup|MNNVL \(cliqueSize|Profiler init failed|External profiler plugin"
                   # round rT4: the 2.29-2.30 forms
                   r"|^NET/IB: |NCCL_NET_MERGE_POLICY|NCCL_CTA_POLICY|graphStreamOrdering|is invalid \(must be|ncclPutSignal|ncclSignal"
                   r"|ncclWaitSignal|config \w+ attribute|ncclCommGrow|must be initialized via|NULL user pointer|invalid pointer"
                   r"|lsaRank|valid range of ranks|MCBasePtr|LSA team|GIN|NCCL_COMM_ID is set|bcastGrowHandle|bootstrapInit"
                   r"|Bootstrap Root|symmetric registration check|MemManager|Elastic|Multimem|RMA|Rma |CE collective"
                   r"|Window registration|location type|split_share|Fusing NET|DMA-BUF|NCCL library|too old version of NCCL"
                   r"|CUDA driver \d|CollNet device counts|Allocation failed|returned null|Failed to allocate|Thread creation failed"
                   r"|No algorithm/protocol|ncclRma|Dev comm not found|communicator matching window|ncclTopo|ncclProxyConnect"
                   r"|invalid IPC peer|pointer is NULL|Invalid key size|getRandomData|ncclSocket|ncclIpcSocketGetFd|PARAM: Duplicate"
                   r"|uninitialized \w+Plugin|number of devices for netPlugin|device code index|MLOPart|ncclCheckMultiRank|NCCL_ELASTIC|Gin connect|gin type|gdr_pin_buffer_v2"
                   # round rV5: Windows
                   r"|WSAStartup|socket\(\) failed|GetAdaptersAddresses|shared memory mapping|map view of file|nvml\.dll|SetupDiGetClassDevs"
                   r"|PCI info from NVML|PCI bus ID|set environment variable"
                   # round rW4
                   r"|^UDS: |^IPC: |invalid socket|join|plane ID|Unknown CPU architecture|DOCA Error|affinity|AffinityMask|maxSharedMem|libgdrapi|failed on gdr_|munmap of"
                   r"|UnmapViewOfFile|CloseHandle for|close failed|Failed to close socket|deregister NET buffer|SHM legacy"
                   # round rZ4
                   r"|NVML device handle")


# The kinds above whose wording no other program prints, pasted alone without NCCL's prefix (at a
# line start): nccl_log reads such a line as the WARN it is (the others, "nvmlInit_v2() failed: ...",
# "Call to ibv_open_device failed", are too generic to claim a file as NCCL's).
#   NET/IB : Unable to open device mlx5_0          Failed to CUDA malloc 4194304 bytes
#   Allocation failed. No suitable space found to accommodate size=0x%lx within limit=0x%lx   (allocator.cc's WARN format above)
# NCCL's verbs wrappers (src/misc/ibvwrap.cc) name the call and the error; "Call to <verb> failed with error" is their
# wording alone (RCCL's and the NCCL-derived transports', DeepEP's and torchcomms', copy it), read bare as their WARN:
#   IBV_PTR_CHECK_ERRNO, every release:       WARN("Call to " name " failed with error %s", strerror(errno))
#   IBV_INT_CHECK_RET_ERRNO, 2.19 and later:  WARN("Call to " name " failed with error %s errno %d", strerror(ret), ret)
#   wrap_ibv_modify_qp, 2.25 and later:       WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg)
# Call to ibv_modify_qp failed with error No such device errno 19        (CONSTRUCTED from the 2.19+ format; a blog's summary
#                                                                          of a vLLM/NCCL 2.21.5 failure quotes it in a sentence)
# The same words are two INFOs too, read bare as the INFO they are (BARE_INFO_FORMS): IBV_INT_CHECK_RET_ERRNO_OPTIONAL's
# for ENOTSUP/EOPNOTSUPP, whose only callers are wrap_ibv_query_ece and wrap_ibv_set_ece (2.19-2.25: "Call to ibv_set_ece
# failed with error Operation not supported errno 95", NCCL goes on without the option) and the one before a modify_qp retry (", retrying 1/8 after 100 msec of sleep"); the bare "Call to
# <verb> failed" of IBV_PTR_CHECK stays unclaimed (too generic, as above). (BARE joins the classifier's RE2 set: no lookaround.)
BARE = (r"Call to ibv_\w+ failed with (?:error \S|\d+ \S)|"
        r"NET/IB\w* ?: ?Unable to (?:open|query) device \S|Multiple Ranks are using the same GPU/Partition"
        r"|Mismatched NCCL version detected : rank \d|Invalid NCCL_COMM_ID, please use format|Failed to CUDA (?:malloc|calloc)"
        r"|Retrieve \w+ (?:version \d+ )?failed with 500\b|Net ?: error encountered when getting address info"
        r"|communicator encountered a fatal error \(detected in \w|NET/Socket ?: ?no interface found"
        r"|NCCL version mismatch with remote peer \S|Detected mixed local Net device counts across ranks"
        r"|Failed to find CUDA library \S+ \(NCCL_CUDA_PATH=|Failed to load CUDA missing symbol \w"
        r"|Bootstrap Root : rank \d+ of \d+ ranks has already checked in"
        r"|Allocation failed\. No suitable space found to accommodate size=0x")
#: a BARE message quoted in a sentence, as tickets and blogs quote what NCCL said: the span's opening quote before it
#: (straight or typographic, or a Markdown code span's backtick; nccl_log.QUOTED_BARE takes the one quoted span of
#: such a line, its words around it off; torch_nccl_forwarded.QUOTED the same for its messages):
#:   - IB网络初始化失败:"Call to ibv_modify_qp failed with error No such device errno 19"
#:     (blog.gitcode.com/86e4dc9e758b0e85e1d334da2806c617.html, a summary of a vLLM/NCCL 2.21.5 failure)
QUOTED = "[\"`\u201c](?:" + BARE + ")"
#: the bare "Call to ibv_..." lines BARE admits that NCCL prints at INFO (above)
BARE_INFO_FORMS = re.compile(r"^Call to ibv_(?:query|set)_ece failed with error Operation not supported\b"
                             r"|^Call to ibv_modify_qp failed with \d+ [^\n]*, retrying \d")
#: a literal each BARE branch holds (nccl_log.detect's cheap gate)
BARE_GATES = ("Call to ibv_", "Unable to open device", "Unable to query device", "Multiple Ranks are using", "Mismatched NCCL version",
              "Invalid NCCL_COMM_ID", "Failed to CUDA ", "failed with 500", "getting address info",
              "communicator encountered a fatal", "no interface found", "NCCL version mismatch", "mixed local Net device",
              "NCCL_CUDA_PATH", "missing symbol", "already checked in", "No suitable space found")

#: the INFO messages that say what a WARN of an older release said (NCCL moved them down a level; the fault did not
#: change): nccl_log gives such an INFO line the ``nccl_warn`` fact of its kind, as it gave the WARN
#:   socketFinalizeAccept: didn't receive a valid magic from 10.0.0.7<51234>        (2.27.3-2.30.4; WARN "wrong magic" before)
#:   External profiler plugin libnccl-profiler-inspector.so is unsupported             (2.23-2.31; NCCL 2.32 prints it as
#:     ATTN, read by its kind as this WARN form: the profiler NCCL was told to use is not used either way)
#:   NET/IB: ncclIbResiliencyTransitionQpsToError: Transitioning QP 3 on device 1 to ERROR state (comm=0x7f3a2c000000, devIndex=1, qp_num=4711)
#:     (2.29.7-2.30.7 NCCL_IB_RESILIENCY's recovery steps and give-ups at INFO: the device failure the WARN "Device %d marked
#:     as failed" reports; only the kinds above claim such a line, any other "NET/IB: " INFO stays information)
INFO_AS_WARN = ("socketFinalizeAccept: didn't receive a valid magic", "External profiler plugin ")

# INFO lines no release printed as a WARN that report what a WARN kind above reports (round rW4): NCCL_IB_RESILIENCY's
# recovery steps and give-ups (v2.29.7-1 .. v2.30.7-1, "NET/IB: %s: ", __func__, first). Only these patterns claim an INFO
# line, never the WARN patterns (an INFO in a WARN's words stays information)
#   INFO(NCCL_NET, "NET/IB: %s: Transitioning QP %u on device %d to ERROR state (comm=%p, devIndex=%d, qp_num=%u)")  (p2p_resiliency_recovery.cc:165)
#   INFO(NCCL_NET, "NET/IB: %s: Failed to transition QPs to ERROR state for device %d (comm=%p)")  (:255)
#   the failed device's queue pairs moved to the error state to flush them: the recovery the WARN "Device %d marked as failed" begins
# NET/IB: ncclIbResiliencyTransitionQpsToError: Transitioning QP 3 on device 1 to ERROR state (comm=0x7f3a2c000000, devIndex=1, qp_num=4711)   (CONSTRUCTED)
#   INFO(NCCL_NET, "NET/IB: %s: Recovery for device %d failed (%s comm=%p)")  ("... failed due to max attempts reached", :927-1152)
#   INFO(NCCL_NET, "NET/IB: %s: Port recovery attempt #%d failed for devIndex=%d (comm=%p)")  ("Port recovery failed for %s comm=%p devIndex=%d", :1036-1206)
#   INFO(NCCL_NET, "NET/IB: %s: Marking device %d as permanently failed (%s comm=%p)")  (p2p_resiliency.cc:390, recovery.cc:1211):
#   NCCL gave up on one device of a merged NIC; the communicator goes on over the others (the WARN's kind, the same finding)
# NET/IB: ncclIbResiliencyPortRecovery: Recovery for device 1 failed due to max attempts reached (send comm=0x7f3a2c000000)   (CONSTRUCTED)
_INFO_KINDS: list[tuple[str, re.Pattern[str]]] = [
    ("ib_resiliency_recovering", re.compile(
        r"^NET/IB: (?:\w+: )?(?:Transitioning QP \d+ on device \d+ to ERROR state \(|Failed to transition QPs to ERROR state for device \d+)")),
    ("ib_resiliency_device_failed", re.compile(
        r"^NET/IB: (?:\w+: )?(?:Marking device \d+ as permanently failed \(|Recovery for device \d+ failed\b"
        r"|Port recovery (?:attempt #\d+ )?failed for )")),
]
#: a literal each INFO line nccl_log reads as a WARN kind starts with (the cheap gate of info_kind)
INFO_GATE = INFO_AS_WARN + ("NET/IB: ",)


# The RAS client listener's socket calls (src/ras/client_support.cc rasClientInitSocket, 2.24.3-1 on: socket, setsockopt,
# bind and listen of "localhost:28028" or NCCL_RAS_ADDR, each a SYSCHECKGOTO whose WARN is checks.h's
# "Call to " name " failed: %s"): its caller ignores the result (src/ras/ras.cc ncclRasCommInit
# "(void)rasClientInitSocket();"), so only this process's RAS client port is missing; the WARN names the file:
# [2025-06-05 10:45:19] paula09:2528103:2528103 [0] ras/client_support.cc:160 NCCL WARN Call to bind failed: Address already in use
# paula09:2528103:2528103 [0] NCCL INFO RAS failed to establish a client listening socket at localhost:28028   (vllm-project/vllm#19204, 2.26)
_RAS_CLIENT_SOURCE = "ras/client_support.cc"


def info_kind(msg: str) -> str | None:
    """The WARN kind an INFO message reports (INFO_AS_WARN's moved WARNs, _INFO_KINDS), or None::

        >>> info_kind("NET/IB: ncclIbResiliencyPortRecovery: Port recovery attempt #2 failed for devIndex=1 (comm=0x7f3a2c000000)")
        'ib_resiliency_device_failed'
        >>> info_kind("NET/IB: Attempting to repost an unused request (id=42).") is None
        True
    """
    if msg.startswith(INFO_AS_WARN):
        return kind(msg)
    if msg.startswith("NET/IB: "):
        return next((name for name, pat in _INFO_KINDS if pat.search(msg)), None)
    return None


def kind(msg: str, source: str | None = None) -> str | None:
    """The message kind of one WARN message (NCCL's prefix removed), or None; ``source`` is the
    prefix's source file where the line has one (``ras/client_support.cc``)."""
    if source is not None and source.endswith(_RAS_CLIENT_SOURCE) and msg.startswith("Call to "):
        return "ras_client_socket_failed"
    if not _GATE.search(msg):
        return None
    msg = msg.strip()
    for name, pat in _KINDS:
        if pat.search(msg):
            return name
    return None
