"""NCCL's WARN kinds of its network side: the IB transport (devices, verbs, work completions, NCCL_IB_RESILIENCY),
the socket transport and NCCL's sockets, GIN, CollNet / SHARP and the UCX plugin, Windows' Winsock. A part of
:mod:`nccl_warn_kinds` (what a kind is, where its meaning lives, how the patterns are written; its ``_KINDS`` puts the
areas' lists in one order: the first pattern that matches names the kind)."""
from __future__ import annotations

import re

KINDS: list[tuple[str, re.Pattern[str]]] = [
    # WARN("NET/IB : Unable to open device %s", devices[d]->name)        (transport/net_ib/init.cc:334; net_ib.cc before 2.29)
    # NET/IB : Unable to open device mlx5_0
    # WARN("Call to " name " failed") of wrap_ibv_open_device               (misc/ibvwrap.cc:88)
    # Call to ibv_open_device failed
    ("ib_device_open_failed", re.compile(r"^NET/IB\w* ?: ?Unable to open device \S+|^Call to ibv_open_device failed\b")),
    # WARN("NET/IB : Unable to query device %s", ...)  WARN("NET/IB : Unable to query port_num %d", ...)   (net_ib/init.cc:350, 360;
    # "Unable to query port %d" in v2.18.6-1 net_ib.cc:207)
    # NET/IB : Unable to query device mlx5_1          NET/IB : Unable to query port_num 1
    ("ib_device_query_failed", re.compile(r"^NET/IB\w* ?: ?Unable to query (?:device \S+|port(?:_num)? \d+)")),
    # WARN("NET/IB: Got CQE with error (devIndex=%d, req=%p, comm=%p (%s), wr_id=%lu, qp_num=%d)", ...)   (net_ib/p2p.cc:854)
    # NET/IB: Got CQE with error (devIndex=0, req=0x7f3a2c001200, comm=0x7f3a2c000000 (send), wr_id=17, qp_num=4711)
    #   (v2.29.7-1 .. v2.30.4-1 p2p.cc:783: "NET/IB: %s: Got CQE with error (...)", __func__ first)
    ("ib_cqe_error", re.compile(r"^NET/IB\w* ?: ?(?:\S+: )?Got CQE with error \(")),
    # WARN("Call to %s failed with error %s errno %d", "ibv_set_ece", ...) of IBV_INT_CHECK_RET_ERRNO_OPTIONAL in wrap_ibv_set_ece
    #   (misc/ibvwrap.cc, 2.19+; EOPNOTSUPP is an INFO there and NCCL goes on without ECE): the HCA refused the connection options
    # Call to ibv_set_ece failed with error Invalid argument errno 22      (NVIDIA/JAX-Toolbox#740, quoted by XLA)
    ("ib_ece_rejected", re.compile(r"^Call to ibv_set_ece failed with error (?!Operation not supported)")),
    # WARN("communicator encountered a fatal error (detected in %s)", funcName)   (transport/net_ib/common.cc:24 in 2.23-2.29.3,
    #   :32 since: ncclIbStatsCheckFatalCount, after an async fatal event on the device, a CQ or a QP of this communicator)
    # communicator encountered a fatal error (detected in ncclIbTest)
    ("ib_comm_fatal_async_event", re.compile(r"^communicator encountered a fatal error \(detected in \w+\)")),
    # WARN("NET/IB: %s: Fatal error. Detected %d failed devices out of %d devices on the %s communicator (comm=%p). No ...")
    # WARN("NET/IB: %s: The error is fatal (%s). Cannot continue.")  (transport/net_ib/p2p_resiliency.cc:47, 64; "%s: " the
    #   device, 2.29.7-2.30.4: NCCL_IB_RESILIENCY, after work completions in error on the devices of one communicator)
    # NET/IB: Fatal error. Detected 2 failed devices out of 2 devices on the send communicator (comm=0x7f3a2c000000). No support ...
    # NET/IB: mlx5_0: The error is fatal (No functional devices left). Cannot continue.
    ("ib_resiliency_fatal", re.compile(r"^NET/IB: (?:\S+: )?(?:Fatal error\. Detected \d+ failed devices out of \d+ devices"
                                       r"|The error is fatal \([^)]*\)\. Cannot continue)")),
    # WARN("NET/IB: %s: Device %d marked as failed. (%s comm=%p)", __func__, ...)   (v2.29.7-1 p2p_resiliency.cc:312)
    # WARN("NET/IB: %s: Device %d marked as failed. Initiating recovery? %s (%s comm=%p, outstandingRecovery=%d)", __func__, ...)
    #   (v2.30.4-1 :325; v2.30.7-1 :376 without the function name): a work completion failed (retry exceeded, flushed) on
    #   one device of a communicator's merged NIC; NCCL moves its queue pairs to the others and goes on, slower
    # NET/IB: ncclIbResiliencyHandleDeviceFailure: Device 0 marked as failed. Initiating recovery? Yes (send comm=0x7f3a2c000000, outstandingRecovery=0)
    #   (v2.30.4-1's format filled: __func__, devIndex, "Yes"/"No", "send"/"recv", the comm, the count)
    ("ib_resiliency_device_failed", re.compile(r"^NET/IB: (?:\w+: )?Device \d+ marked as failed\. ")),
    # WARN("NET/Socket : no interface found")   (transport/net_socket.cc:61: ncclFindInterfaces found none for the socket transport)
    # WARN("NET/IB : No IP interface found.")   (transport/net_ib/init.cc:307: none for the IB transport's out-of-band address)
    ("socket_transport_no_interface", re.compile(r"^NET/Socket ?: ?no interface found\s*$|^NET/IB ?: ?No IP interface found\.?\s*$")),
    # WARN("DOCA failure %d", err)   (v2.30.7-1 transport/net_ib/gdaki/gin_host_gdaki.cc:35, 45, DOCACHECK / DOCACHECKGOTO: a DOCA
    #   GPUNetIO call of GIN's GDAKI backend (NCCL_GIN_TYPE=3: the GPU drives the NIC's queue pairs) returned a doca_error_t;
    #   ncclSystemError follows. v2.28.9-1 .. v2.29.x printed only INFO "%s:%d -> %d" there, which nothing here reads)
    #   (printf's %d of the doca_error_t: "DOCA failure 21" for DOCA_ERROR_DRIVER)
    #   WARN("DOCA Error %d", docaStatus)   (v2.30.3-1 .. v2.30.7-1 gin_host_gdaki.cc:638: doca_gpu_verbs_create_qp_hl failed
    #   with every doorbell mode NCCL retries, ncclSystemError)   DOCA Error 4
    ("gin_gdaki_doca_failure", re.compile(r"^DOCA (?:failure|Error) -?\d+\s*$")),
    # WARN("Error: network %s not found.", netName)   (plugin/net.cc:232, 2.18-2.26 ncclNetInit: no usable network of that name)
    # Error: network IB not found.
    ("named_network_not_found", re.compile(r"^Error: network \S+ not found\.")),
    # WARN("Failed to open libibverbs.so[.1]")   (misc/ibvwrap.cu / ibvwrap.cc: a WARN in 2.4-2.7 at least, :63 in 2.7.8; neither libibverbs.so nor
    #   libibverbs.so.1 could be dlopen'ed; by 2.23 the same words are INFO(NCCL_INIT, ...) and NCCL goes on): no IB
    #   verbs library where NCCL runs, so its IB transport is off and it uses sockets
    # [1,0]<stdout>:mlc-cluster-22:7617:7635 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]   (horovod/horovod#1122)
    # (no entry in knowledge/nccl_warn_messages.yaml: whether RDMA was expected cannot be told from the line, rule
    #  nccl_ibverbs_library_not_loaded says so)
    ("ibverbs_library_not_loaded", re.compile(r"^Failed to open libibverbs\.so")),
    # Round rT4 (issue 11): the WARN forms NCCL 2.29-2.30 added, grouped by what the operator must do. Each is NCCL's
    # WARN("...") format of v2.30.7-1 (the 2.29.7-2.30.4 forms of net_ib/p2p_resiliency*.cc and p2p.cc print
    # "NET/IB: %s: ", __func__, before the same words; (?:\S+: )? takes it). The lines under each are the formats filled
    # in (CONSTRUCTED; bench/nccl_warn_formats.yaml holds every one with its file:line).
    # IB resiliency (NCCL_IB_RESILIENCY) recovering a failed device: the job goes on, slower
    #   WARN("NET/IB: Encountered a stale CQE with error for slot=%ld. Slot was already handled (...)")  (p2p_resiliency.cc:350, returns ncclSuccess)
    #   WARN("NET/IB: Unrecognized request. It might be a CTS message for which the request was already completed. Continue.")  (:330)
    #   WARN("NET/IB: Cannot replace QP with qpIndex=%d because the new QP (...) is not on a functional device (state=%d)")  (:98, tries the next QP)
    #   WARN("NET/IB: There are still %d outstanding recovery operations on the resiliency context (comm=%p) being destroyed.")  (:975)
    # NET/IB: Encountered a stale CQE with error for slot=3. Slot was already handled (comm=0x7f3a2c000000, wc.wr_id=3, wc.status=IBV_WC_RETRY_EXC_ERR(12), wc.opcode=IBV_WC_SEND(0)).
    ("ib_resiliency_recovering", re.compile(
        r"^NET/IB: (?:\S+: )?(?:Encountered a stale CQE with error for slot=\d+\. Slot was already handled"
        r"|Unrecognized request\. It might be a CTS message for which the request was already completed"
        r"|Cannot replace QP with qpIndex=\d+ because the new QP \(.*\) is not on a functional device"
        r"|There are still \d+ outstanding recovery operations on the resiliency context)")),
    # IB resiliency giving up: the failed device could not be replaced or probed back, ncclRemoteError / ncclInternalError follows
    #   WARN("NET/IB: Unsupported completion status %s (%d)")  (p2p_resiliency.cc:42: a status other than flush / retry exceeded,
    #   then "The error is fatal (Fatal error status in work completion)")
    #   WARN("NET/IB: Maximum number of probing attempts (%ld) reached for request %p (id=%ld). Cannot post another probe.")  (:460)
    #   WARN("NET/IB: Could not find a functional device to post the probe for request %p (id=%ld)")  (:488)
    #   WARN("NET/IB: Could not find a replacement QP for the failed QP with qpIndex=%d (devIndex=%d)")  (:116)
    #   WARN("NET/IB: Failed to initialize a resiliency send request (req=%p, ..., wc.status=%s(%d), ...)")  (:360)
    # NET/IB: Maximum number of probing attempts (10) reached for request 0x7f3a2c001200 (id=42). Cannot post another probe.
    ("ib_resiliency_recovery_failed", re.compile(
        r"^NET/IB: (?:\S+: )?(?:Unsupported completion status \S+ \(-?\d+\)|Maximum number of probing attempts \(\d+\) reached"
        r"|Could not find a functional device to post the probe|Could not find a replacement QP for the failed QP"
        r"|Failed to initialize a resiliency send request \()")),
    # GIN without GPUDirect RDMA   WARN("Unable to use GIN: Peermem is not supported, and device %d does not support DMA-BUF.")  (net_ib/gin.cc:42)
    # Unable to use GIN: Peermem is not supported, and device 0 does not support DMA-BUF.
    ("gin_no_gpudirect_rdma", re.compile(r"^Unable to use GIN: Peermem is not supported, and device \d+ does not support DMA-BUF")),
    # NCCL on Windows (src/os/windows*.cc, the Windows side of NCCL's OS layer, compiled with CMake's NCCL_OS_WINDOWS from
    # v2.29.2-1 on; GIN and DOCA left out). Its forms whose Windows error code says what the Linux twin's errno says:
    #   WARN("WSAStartup failed with error: %d", result)   (os/windows.cc:161, v2.29.7-1 on, ncclOsInitialize: ncclSystemError)
    #     for WSASYSNOTREADY 10091 ("the underlying network subsystem is not ready"): Winsock has no network service at all
    #   WARN("ncclOsSocketResetFd: socket() failed with error %d: %s", wsaError, getWSAErrorMessage(wsaError))   (:283) for
    #     WSAEAFNOSUPPORT 10047: the twin of Linux's "ncclSocketInit: Socket creation failed : Address family not supported
    #     by protocol" (rule nccl_socket_creation_failed)
    #   WARN("GetAdaptersAddresses failed with error: %ld", result)   (:437, :451, :601, :615, ncclFindInterfaces) for
    #     ERROR_NO_DATA 232 (GetAdaptersAddresses: no address of the family asked for): the twin of "no socket interface found"
    # WSAStartup failed with error: 10091
    # ncclOsSocketResetFd: socket() failed with error 10047: An address incompatible with the requested protocol was used.
    # GetAdaptersAddresses failed with error: 232
    ("windows_no_usable_socket_interface", re.compile(
        r"^(?:WSAStartup failed with error: 10091|ncclOsSocketResetFd: socket\(\) failed with error 10047\b"
        r"|GetAdaptersAddresses failed with error: 232)\s*(?::|$)")),
    # Kinds without an entry in knowledge/nccl_warn_messages.yaml (what they mean depends on the NCCL version:
    # knowledge/nccl_known_issues.yaml's symptoms name them):
    # WARN("socketProgress: Connection closed by remote peer %s", ...)   (misc/socket.cc, 2.16 and later; 2.12-2.15
    #   "Net : Connection closed by remote peer %s"; 2.7-2.9 include/socket.h "Net : Connection closed by remote peer",
    #   no address): a read found the other end closed
    # socketProgress: Connection closed by remote peer 10.10.1.3<36138>
    ("socket_connection_closed", re.compile(r"^(?:socketProgress|Net) ?: Connection closed by remote peer(?: \S+)?\s*$")),
    # WARN("socketFinalizeAccept: wrong type %d != %d", type, sock->type)   (misc/socket.cc, 2.12 on: the type the connecting
    #   side sent, then the listening socket's; enum ncclSocketType of include/socket.h: 1 Bootstrap, 2 Proxy, 3 NetSocket,
    #   4 NetIb, 5 RasNetwork from 2.24). 3 against 4 is a NET/Socket connection reaching an NET/IB listener or the reverse:
    #   the ranks chose different network transports (only the net pair; a stray bootstrap/proxy connection is another fault)
    # socketFinalizeAccept: wrong type 4 != 3        (NVIDIA/nccl-tests#188)
    ("socket_net_type_mismatch", re.compile(r"^socketFinalizeAccept: wrong type (?:3 != 4|4 != 3)\s*$")),
    # WARN("socketFinalizeAccept: wrong magic %lx != %lx", magic, sock->magic)   (misc/socket.cc, v2.16.2-1 to v2.26.6-1: the
    #   first 8 bytes the connecting side sent, then the listener's magic; NCCL closes that connection and accepts again.
    #   v2.27.3-1 to v2.30.4-1 say it at INFO, "socketFinalizeAccept: didn't receive a valid magic from %s"; the proxy's and
    #   RAS's accept loops stop retrying after it in v2.30.7-1, commit 8fdd98c, NVIDIA/nccl#1834): something that is not
    #   one of the job's NCCL ranks connected to an NCCL listening socket (74656d2f20544547 is "GET /met" little-endian:
    #   an HTTP metrics scraper)
    # socketFinalizeAccept: wrong magic 74656d2f20544547 != 7970663b906d70b9        (NVIDIA/nccl#1808)
    ("socket_foreign_connection", re.compile(r"^socketFinalizeAccept: wrong magic [0-9a-f]{1,16} != [0-9a-f]{1,16}\s*$")),
    # INFO(NCCL_NET|NCCL_INIT, "socketFinalizeAccept: didn't receive a valid magic from %s", ncclSocketToString(&sock->addr, line))
    #   (misc/socket.cc socketResetAccept v2.27.3-1 to v2.28.9-1, os/linux.cc ncclOsSocketResetAccept v2.29.2-1 to v2.30.4-1):
    #   the same event NCCL moved to INFO, with the peer's address instead of the bytes; the same accept loops retry after it
    #   (v2.30.7-1 says "socketFinalizeAccept from %s: socket magic mismatch (...), discarding peer connection" and no
    #   longer retries: not read). nccl_log reads this INFO line as the WARN it was (INFO_AS_WARN)
    # socketFinalizeAccept: didn't receive a valid magic from 10.0.0.7<51234>        (the format, filled in as ncclSocketToString writes an address)
    ("socket_foreign_connection", re.compile(r"^socketFinalizeAccept: didn't receive a valid magic from \S{1,300}\s*$")),
    # WARN("Cannot initialize CollNet, using point-to-point network instead")   (transport.cc ncclTransportCollNetCheck,
    #   2.9 on, local rank 0 of each node: a rank's CollNet setup failed; NCCL goes on without CollNet, and the
    #   "transport.cc:N -> 2" chains around it are that fallback, not a failure)
    # Cannot initialize CollNet, using point-to-point network instead        (NVIDIA/nccl#1050)
    ("collnet_fallback_p2p", re.compile(r"^Cannot initialize CollNet, using point-to-point network instead")),
    # WARN("NET/IB : SHARP coll init error: %s(%d)\n", sharp_coll_strerror(ret), ret)   (Mellanox/nccl-rdma-sharp-plugins
    #   src/sharp_plugin.c ncclSharpConnect; "NET/IB :SHARP coll init error" in older releases): the SHARP library
    #   could not create the job (no aggregation manager, no SHARP resources or switches): CollNet falls back
    # NET/IB : SHARP coll init error: Cannot create SHARP job(-11)        (NVIDIA/nccl#1050)
    ("sharp_coll_init_failed", re.compile(r"^NET/IB ?: ?SHARP coll init error: ")),
    # WARN("SHARP group create: %s(%d)\n", sharp_coll_strerror(ret), ret)   (Mellanox/nccl-rdma-sharp-plugins src/sharp_plugin.c
    #   ncclSharpConnect, c151aad 2021-05 on; "SHARP group create failed: %s(%d)" in v2.0.0 to v2.1.0 / hpcx-v2.8.0):
    #   sharp_coll_comm_init failed after the library started: the job's SHARP group (its tree's resources) was not
    #   created, the plugin returns ncclInternalError and CollNet falls back
    # SHARP group create: Error(-1)        (CONSTRUCTED from the format; the text is sharp_coll_strerror's)
    ("sharp_group_create_failed", re.compile(r"^SHARP group create(?: failed)?: ")),
    # WARN("sharp_coll_caps_query failed : %s(%d)\n", sharp_coll_strerror(ret), ret)   (the same file, bae3b44 2022-08 on,
    #   builds with SHARP's v3 datatypes): the library started but could not report its capabilities; CollNet falls back
    # sharp_coll_caps_query failed : Error(-1)        (CONSTRUCTED from the format)
    ("sharp_caps_query_failed", re.compile(r"^sharp_coll_caps_query failed : ")),
    # WARN("Cannot use cuda/gdr transports as part of specified UCX_TLS")   (Mellanox/nccl-rdma-sharp-plugins src/ucx_plugin.c
    #   ucx_config_no_cuda, a0432ad 2023-10 on: with NCCL_UCX_CUDA_DISABLE=1, the default, the UCX net plugin
    #   (NCCL_PLUGIN_P2P=ucx) keeps UCX's CUDA transports out; a positive NCCL_UCX_TLS, else UCX_TLS, naming one
    #   (cuda_copy, cuda_ipc, gdr_copy) is refused and ucx_init_context returns ncclInternalError for the device)
    # NCCL WARN Cannot use cuda/gdr transports as part of specified UCX_TLS        (NVIDIA/nccl-tests#222, its title)
    ("ucx_tls_cuda_refused", re.compile(r"^Cannot use cuda/gdr transports as part of specified UCX_TLS")),
]
