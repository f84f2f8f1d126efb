"""Which NCCL WARN message a line is: ``message_kind`` of the ``nccl_warn`` fact (:mod:`nccl_log`),
for the WARN messages whose meaning is NCCL's own and needs no other fact, and for those a rule or
a known issue names (the kinds at the end of _KINDS). What each self-explaining kind means (cause,
component, severity, actions) is knowledge, ``knowledge/nccl_warn_messages.yaml``, joined by the
rule ``rules/nccl/nccl_warn_message.yaml``; a kind without an entry there is no finding of that
rule (the rule or the symptom of knowledge/nccl_known_issues.yaml that names it reads it). A WARN
no pattern here matches keeps ``message_kind`` None: another reader explains it, or it stays an
unexplained error.

Each pattern is NCCL's ``WARN("...")`` format string (``git grep -n 'WARN(' -- src`` in
NVIDIA/nccl at 5067397c, "Merge nccl4py v0.3.1 release to master", or the tag named), filled in
as the comment line under it shows (bench/nccl_warn_study.py diagnoses each)::

    >>> kind("NET/IB : Unable to open device mlx5_0")
    'ib_device_open_failed'
    >>> kind("nvmlInit_v2() failed: Driver/library version mismatch")
    'nvml_driver_library_mismatch'
    >>> kind("NVML failure 'Driver/library version mismatch'")
    'nvml_driver_library_mismatch'
    >>> kind("NVML failure 'Unknown Error'") is None
    True
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

_KINDS: list[tuple[str, re.Pattern[str]]] = [
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
    # WARN("Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this ...")
    #   (init.cc:1057; v2.30.3-1 .. v2.30.4-1 graph/topo.cc:1977 "Multiple ranks detected using the same GPU on this node. Set
    #   NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration."; "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" before it, read by nccl_log_setup)
    # Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this feature
    ("multiple_ranks_same_gpu", re.compile(r"^Multiple Ranks are using the same GPU"
                                           r"|^Multiple ranks detected using the same GPU on this node\. Set NCCL_MULTI_RANK_GPU_ENABLE=1")),
    # WARN("Mismatched NCCL version detected : rank %d version %d rank %d version %d", ...)   (init.cc:1043)
    # Mismatched NCCL version detected : rank 0 version 22703 rank 4 version 21805
    ("nccl_version_mismatch", re.compile(r"^Mismatched NCCL version detected : rank \d+ version \d+ rank \d+ version \d+")),
    # WARN("Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>")   (bootstrap.cc:114, 443)
    ("nccl_comm_id_invalid", re.compile(r"^Invalid NCCL_COMM_ID, please use format")),
    # WARN("Net : error encountered when getting address info : %s", gai_strerror(rv))   (misc/socket.cc:257: NCCL_COMM_ID's host)
    # Net : error encountered when getting address info : Name or service not known
    ("comm_id_host_unresolved", re.compile(r"^Net ?: error encountered when getting address info ?: ")),
    # WARN("Failed to CUDA malloc %ld bytes", ...)  ("Failed to CUDA calloc %ld bytes", "Failed to CUDA calloc async %ld bytes")
    #   (include/alloc.h:462, 493, 520: the device allocation returned no memory)
    # Failed to CUDA malloc 4194304 bytes
    ("cuda_malloc_failed", re.compile(r"^Failed to CUDA (?:malloc|calloc(?: async)?) \d+ bytes")),
    # WARN("nvmlInit%s() failed: %s", have_v2 ? "_v2" : "", pfn_nvmlErrorString(res1))   (misc/nvmlwrap.cc:142)
    # nvmlInit_v2() failed: Driver/library version mismatch
    # WARN("NVML failure '%s'", nvmlErrorString(e))   (v2.3.5-5 .. v2.11.4-1 include/nvmlwrap.h:19/28, NVMLCHECK of every
    #   wrapped call, nvmlInit first)   WARN("nvmlShutdown() failed: %s ", ...), WARN("nvmlDeviceGetIndex() failed: %s ", ...)
    #   ... (v2.3.5-5 misc/nvmlwrap.cu:109-197, misc/nvmlwrap.cc to v2.11.4-1): NVML's string of the same return code
    # NVML failure 'Driver/library version mismatch'        nvmlDeviceGetHandleByPciBusId() failed: Driver/library version mismatch
    ("nvml_driver_library_mismatch",
     re.compile(r"^(?:nvml\w{1,60}\(\) failed: |NVML failure ')Driver/library version mismatch")),
    # WARN("Retrieve %s version %d failed with %d status %d", ...)  WARN("Retrieve %s failed with %d status %d", ...)
    #   (misc/cudawrap.cc:179, 191: cuGetProcAddress returned 500 CUDA_ERROR_NOT_FOUND, the driver lacks the entry point)
    # Retrieve cuMemCreate failed with 500 status 0
    # WARN("CUDA some PFN functions not found in the library")   (misc/cudawrap.cc:292)
    # WARN("Failed to load CUDA missing symbol %s")   (misc/cudawrap.cc:198, 204, 225, 2.18-2.20: dlsym on libcuda found no cuInit,
    #   cuDriverGetVersion or cuGetProcAddress)
    # Failed to load CUDA missing symbol cuGetProcAddress
    ("cuda_driver_entry_point_missing",
     re.compile(r"^Retrieve \w+ (?:version \d+ )?failed with 500\b|^CUDA some PFN functions not found in the library"
                r"|^Failed to load CUDA missing symbol \w+")),
    # WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errno), errno)   (os/linux.cc:780)
    # Error: failed to create shared memory file /dev/shm/nccl-Xq3bL2, error No space left on device (28)
    ("shm_create_no_space", re.compile(r"^Error: failed to create shared memory file \S+, error No space left on device")),
    # WARN("failed to peer with device %d(=%lx): %d %s", ...)  WARN("failed to peer with device %d: %d %s", ...)
    #   (transport/p2p.cc:355, transport/net.cc:476; 217 cudaErrorPeerAccessUnsupported)
    # failed to peer with device 1(=1b000): 217 peer access is not supported between these two devices
    # WARN("failed to open CUDA IPC handle : %d %s", err, cudaGetErrorString(err))   (transport/p2p.cc p2pSendConnect /
    #   p2pRecvConnect, v2.4 .. v2.18: cudaIpcOpenMemHandle of the peer's buffer refused with 217; a Ray worker's "(pid=N) " before it)
    # failed to open CUDA IPC handle : 217 peer access is not supported between these two devices   (ray-project/ray_lightning#24)
    ("peer_access_unsupported", re.compile(r"^failed to peer with device \d+(?:\(=[0-9a-fA-F]+\))?: 217 "
                                           r"|^failed to open CUDA IPC handle : 217 peer access is not supported\b")),
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
    # WARN("rank %d failed to IPC register userbuff %p buffSize %ld nPeers %d isLegacyIpc %p", ...)   (transport/p2p.cc:942 in
    #   v2.24.3-1, :944 in v2.25.1-1, ipcRegisterBuffer's fail label: user-buffer registration for direct IPC access was not
    #   done, most often because legacy cudaIpc registration is off (NCCL_LEGACY_CUDA_REGISTER) or in direct mode, a path that
    #   returns ncclSuccess; NCCL then copies through its own buffers. v2.26.2-1 on logs it at INFO(NCCL_REG, "... isLegacyIpc
    #   %d type %s"), which nothing here reads; a CUDA failure behind it is its own WARN)
    # rank 0 failed to IPC register userbuff 0x7f3f56000000 buffSize 37748736 nPeers 2 isLegacyIpc 0x7ffe49900be0   (NVIDIA/nccl#1684)
    #   (glibc prints a NULL %p as "(nil)")
    ("ipc_userbuff_register_failed", re.compile(r"^rank \d+ failed to IPC register userbuff (?:0x[0-9a-fA-F]+|\(nil\)) buffSize \d+ nPeers \d+")),
    # RCCL's start-up checks of the host (ROCm/rccl src/init.cc ncclInit, every release with them; init.cpp before 2.8):
    #   WARN("Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!")   (/proc/cmdline read)
    #   WARN("Missing \"amd_iommu=on\" from kernel command line which can lead to system instablity or hang!")  (older releases)
    #   WARN("Missing \"HSA_FORCE_FINE_GRAIN_PCIE=1\" from environment which can lead to low RCCL performance, system instablity
    #     or hang!")   (before ROCm 5.7 / where HIP_UNCACHED_MEMORY is not defined)
    #   a remark on a setting, printed on healthy hosts too (no /proc/cmdline check in some VMs, kernels that pass through by
    #   default): the iommu one goes on to run; ROCm's install FAQ ties it to multi-GPU hangs, which are their own lines
    # g1072:1263985:1263985 [0] .../src/extlibs/rccl/build/src/init.cpp:122 NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!
    # g1072:1263988:1263988 [3] .../init.cpp:126 NCCL WARN Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment which can lead to low RCCL performance, system instablity or hang!
    #   (ROCm/rccl#1026, an MI250X node)
    ("rccl_host_setting_advisory", re.compile(r'^Missing "(?:iommu=pt|amd_iommu=on)" from kernel command line\b'
                                              r'|^Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment\b')),
    # WARN("DOCA failure %d", err)   (v2.30.7-1 transport/net_ib/gdaki/gin_host_gdaki.cc:35, 45, DOCACHECK / DOCACHECKGOTO: a DOCA
    #   GPUNetIO call of GIN's GDAKI backend (NCCL_GIN_TYPE=3: the GPU drives the NIC's queue pairs) returned a doca_error_t;
    #   ncclSystemError follows. v2.28.9-1 .. v2.29.x printed only INFO "%s:%d -> %d" there, which nothing here reads)
    #   (printf's %d of the doca_error_t: "DOCA failure 21" for DOCA_ERROR_DRIVER)
    #   WARN("DOCA Error %d", docaStatus)   (v2.30.3-1 .. v2.30.7-1 gin_host_gdaki.cc:638: doca_gpu_verbs_create_qp_hl failed
    #   with every doorbell mode NCCL retries, ncclSystemError)   DOCA Error 4
    ("gin_gdaki_doca_failure", re.compile(r"^DOCA (?:failure|Error) -?\d+\s*$")),
    # WARN("Allocation failed. No suitable space found to accommodate size=0x%lx within limit=0x%lx", ...)   (allocator.cc
    #   ncclSpaceAlloc, :218 v2.28.3-1 .. :228 v2.30.7-1: a fixed range NCCL carves up is full; its callers: dev_runtime.cc's
    #   symmetric window registration (the per-rank symmetric virtual-address space, as large as the largest GPU's memory
    #   rounded up to 4 GiB unless NCCL_WIN_STRIDE sets it) and, 2.29 on, GIN's signal and counter spaces (gin/gin_host.cc))
    ("symmetric_space_exhausted",
     re.compile(r"^Allocation failed\. No suitable space found to accommodate size=0x[0-9a-fA-F]+ within limit=0x[0-9a-fA-F]+")),
    # WARN("Error: network %s not found.", netName)   (plugin/net.cc:232, 2.18-2.26 ncclNetInit: no usable network of that name)
    # Error: network IB not found.
    ("named_network_not_found", re.compile(r"^Error: network \S+ not found\.")),
    # WARN("NCCL_NVLS_ENABLE has been set to \"1\" and communicator has multiple ranks using the same NVML device. ...")  (transport/nvls.cc:254)
    # WARN("Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to \"1\". ...")  (init.cc:1123, 2.30.3-2.30.4)
    ("nvls_forced_shared_gpu", re.compile(r"^NCCL_NVLS_ENABLE has been set to \"1\" and communicator has multiple ranks using the same"
                                          r"|^Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set")),
    # WARN("NCCL version mismatch with remote peer %s (local: %d, remote %d)", ...)   (ras/ras.cc:430, 2.24-2.29; "%s" versions 2.30)
    # NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 22703, remote 22605)
    ("ras_version_mismatch", re.compile(r"^NCCL version mismatch with remote peer \S+ \(local: [^,]+, remote [^)]+\)")),
    # WARN("Detected mixed local Net device counts across ranks (min %d, max %d). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.")
    #   (init.cc:1339, 2.30: the ranks' nodes see different numbers of network devices)
    # Detected mixed local Net device counts across ranks (min 4, max 8). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.
    ("net_device_count_mismatch", re.compile(r"^Detected mixed local Net device counts across ranks \(min \d+, max \d+\)")),
    # WARN("Failed to find CUDA library %s (NCCL_CUDA_PATH='%s') : %s", ...)   (misc/cudawrap.cc:188, 2.18-2.20: dlopen of libcuda failed)
    # Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory
    ("cuda_library_not_found", re.compile(r"^Failed to find CUDA library \S+ \(NCCL_CUDA_PATH=")),
    # WARN("The installed CUDA driver is older than the minimum version (R465) required for NCCL's CUDA Graphs support")
    #   (v2.9.9-1 .. v2.15.1-1 misc/strongstream.cc:26, ncclCudaGetCapturingGraph: a stream under CUDA graph capture and
    #   a driver below 11.3; the call returns ncclInvalidUsage)
    ("cuda_graphs_driver_too_old",
     re.compile(r"^The installed CUDA driver is older than the minimum version \(R\d+\) required for NCCL's CUDA Graphs support")),
    # WARN("[Rem Allocator] Poll failed with error %d", error)   (NCCL 2.7-2.8 src/bootstrap.cc, ncclRemoteMemAllocationService:
    #   `if (int error = poll(...) < 0)` holds the comparison, so the number is always 1; the service thread then returns)
    # [Rem Allocator] Poll failed with error 1
    # (no entry in knowledge/nccl_warn_messages.yaml: whether it mattered cannot be told from the line, rule
    #  nccl_rem_allocator_poll_failed says so)
    ("rem_allocator_poll_failed", re.compile(r"^\[Rem Allocator\] Poll failed with error -?\d+")),
    # WARN("[Rem Allocator] Allocation failed (segment %d, fd %d)", s, pollfds[s].fd)   (NCCL 2.8-2.11 src/bootstrap.cc:274/279,
    #   ncclRemoteMemAllocationService: remoteAlloc() could not serve a connection accepted on the service's listening socket:
    #   the socketRecv of the size failed (bootstrap.cc:229 -> 2, the other end closed) or ncclCudaCalloc of the size it read
    #   failed (include/alloc.h "Cuda failure ...", bootstrap.cc:231 -> 1); the service closes that connection and goes on;
    #   the service is gone from 2.12; rules nccl_rem_allocator_allocation_failed and nccl_rem_allocator_out_of_memory read it)
    # [Rem Allocator] Allocation failed (segment 0, fd 130)
    ("rem_allocator_allocation_failed", re.compile(r"^\[Rem Allocator\] Allocation failed \(segment \d+, fd -?\d+\)")),
    # WARN("Bootstrap Root : rank %d of %d ranks has already checked in", info.rank, nranks)   (bootstrap.cc:348; :131 in
    #   v2.18.1-1; the same words since 2.4's bootstrapRoot: a second process sent the root the rank one already sent, and
    #   the root thread gives up on the communicator)
    # Bootstrap Root : rank 1 of 8 ranks has already checked in        (Lightning-AI/pytorch-lightning#14986)
    ("bootstrap_rank_checked_in_twice", re.compile(r"^Bootstrap Root : rank \d+ of \d+ ranks has already checked in")),
    # WARN("Invalid rank requested : %d/%d", myrank, nranks)   (init.cc ncclCommInitRankDev, "if (nranks < 1 || myrank < 0 ||
    #   myrank >= nranks)", res = ncclInvalidArgument; the same words in v2.7.8-1's ncclCommInitRank and in 5067397c): the
    #   rank and the communicator size the caller passed disagree; no communicator is created
    # job-pytorch-distr-nccl-1612503130-4b919e08-worker-1:25:25 [0] init.cc:981 NCCL WARN Invalid rank requested : 2/2   (Azure/AML-Kubernetes#58)
    ("rank_out_of_range", re.compile(r"^Invalid rank requested : -?\d+/-?\d+")),
    # WARN("comm %p has already been destroyed", comm)   (init.cc ncclCommDestroy, "Try and prevent a double free of the comm
    #   struct (user error)": the struct's rank, nRanks, cudaDev or busId already -1, as a destroy leaves it; the call returns
    #   ncclInvalidArgument; v2.14.3-1 init.cc:1479, v2.23.4-1 :2104, v2.27.3-1 :2169, v2.29.7-1 :2572, the same words)
    # e53955024127:2088762:2088762 [1] init.cc:1969 NCCL WARN comm 0x55ec10690820 has already been destroyed        (NVIDIA/nccl#1482)
    ("comm_destroyed_twice", re.compile(r"^comm 0x[0-9a-fA-F]{1,16} has already been destroyed\b")),
    # WARN("commReclaim: cleanup comm %p rank %d failed in destroy/abort, error %d", ...)   (init.cc commReclaim, v2.18.1-1 ..
    #   v2.30.7-1 :2869: commCleanup of a communicator being destroyed or aborted returned an ncclResult_t other than success)
    # WARN("commReclaim: comm %p (rank = %d) in commDestroySync, error %d", ...)   (v2.22.3-1 .. v2.30.7-1 init.cc:2854)
    # WARN("commReclaim: comm %p (rank = %d) in abort, error %d" | "... destroys proxy resource error %d", ...)   (v2.18-2.21)
    # WARN("commDestroySync: comm %p rank %d sync hostStream error %d " | "... sync deviceStream error %d ", ...)   (v2.23.4-1 ..)
    # WARN("Legacy IPC cleanup callback failed comm %p (rank = %d) cb %p", ...)   (v2.23.4-1 .. v2.30.7-1 init.cc:2757)
    #   All print while ncclCommDestroy/ncclCommAbort frees a communicator: a call of the teardown failed (the WARN before it
    #   on the process names it: a CUDA failure freeing peer memory, a stream that would not synchronise); the error is the
    #   ncclResult_t (1 unhandled CUDA error, 2 system error, 3 internal error, 5 invalid usage, 6 remote error)
    # [2025-06-17 21:49:04] devvm5552:3355146:3355146 [0] init.cc:2143 NCCL WARN commReclaim: cleanup comm 0x9801e10 rank 0 failed in destroy/abort, error 1   (pytorch/pytorch#155740, NCCL 2.27)
    ("comm_teardown_failed", re.compile(
        r"^(?:commReclaim: (?:cleanup comm 0x[0-9a-fA-F]{1,16} rank \d+ failed in destroy/abort, |comm 0x[0-9a-fA-F]{1,16} "
        r"\(rank = \d+\) (?:in (?:abort|commDestroySync), |destroys proxy resource ))error -?\d+"
        r"|commDestroySync: comm 0x[0-9a-fA-F]{1,16} rank \d+ sync (?:host|device)Stream error -?\d+"
        r"|Legacy IPC cleanup callback failed comm 0x[0-9a-fA-F]{1,16} \(rank = \d+\))")),
    # WARN("MNNVL (cliqueSize %d) is available but not working on this system. Check the IMEX channel configuration "
    #      "(/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.", ...)   (mnnvl.cc:74, v2.27.3-1 ..
    #   v2.30.7-1: NVML names a multi-node NVLink clique for the GPUs but ncclCuMemAlloc of CU_MEM_HANDLE_TYPE_FABRIC memory
    #   failed: no IMEX channel the process may open; ncclSystemError, the communicator is not made)
    # MNNVL (cliqueSize 4) is available but not working on this system. Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.   (CONSTRUCTED from the format)
    ("mnnvl_fabric_alloc_failed", re.compile(
        r"^MNNVL \(cliqueSize \d+\) is available but not working on this system\. Check the IMEX channel configuration")),
    # WARN("MNNVL (cliqueSize %d) is available but not working on this system. Check the IMEX configuration "
    #      "(nvidia-imex-ctl -N). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.", ...)   (mnnvl.cc:86, v2.27.3-1 .. v2.30.7-1)
    # WARN("MNNVL (cliqueSize %d) is available but not supported on this system. Check the IMEX configuration.", ...)
    #   (mnnvl.cc:69, v2.25.1-1 .. v2.26.6-1): the fabric memory was made but cuMemExportToShareableHandle or
    #   cuMemImportFromShareableHandle of its FABRIC handle failed: IMEX does not serve the domain on this node
    # MNNVL (cliqueSize 4) is available but not working on this system. Check the IMEX configuration (nvidia-imex-ctl -N). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.   (CONSTRUCTED from the format)
    ("mnnvl_fabric_handle_unusable", re.compile(
        r"^MNNVL \(cliqueSize \d+\) is available but not (?:working|supported) on this system\. Check the IMEX configuration\b")),
    # WARN("Profiler init failed with error (%d). Continue without profiler.", err)   (src/misc/profiler.cc
    #   ncclProfilerPluginInit, v2.23: the profiler plugin NCCL_PROFILER_PLUGIN named, or libnccl-profiler.so, loaded and
    #   its init() returned an error; NCCL drops it and goes on, no profiler events)
    # WARN/ATTN("Profiler init failed with error '%d': %s. Continue without profiler.", err, strerror(errno))
    #   (src/plugin/profiler.cc, later releases: ATTN from 2.32, read as this WARN form: nccl_log NcclLogState.line)
    # Profiler init failed with error (1). Continue without profiler.     (CONSTRUCTED from the v2.23 format)
    ("profiler_plugin_init_failed", re.compile(
        r"^Profiler init failed with error (?:\(-?\d+\)|'-?\d+': [^\n]{0,200}?)\. Continue without profiler\.")),
    # INFO(NCCL_INIT, "External profiler plugin %s is unsupported", profilerName) (src/plugin/profiler.cc ncclProfilerPluginLoad,
    #   2.23-2.31: the library NCCL_PROFILER_PLUGIN named loaded, but it exports no ncclProfiler_vN NCCL knows, a plugin
    #   built for another profiler API or not a profiler plugin at all; NCCL unloads it and goes on without a profiler);
    #   ATTN from 2.32 (round rT5). Read at either level as this WARN form (INFO_AS_WARN; the ATTN by its kind)
    # External profiler plugin libnccl-profiler-inspector.so is unsupported           (CONSTRUCTED from the format)
    ("profiler_plugin_unsupported", re.compile(r"^External profiler plugin \S{1,300} is unsupported\s*$")),
    # WARN("Failed to open libibverbs.so[.1]")   (misc/ibvwrap.cu / ibvwrap.cc: a WARN in 2.4-2.7 at least, :63 in 2.7.8; neither libibverbs.so nor
    #   libibverbs.so.1 could be dlopen'ed; by 2.23 the same words are INFO(NCCL_INIT, ...) and NCCL goes on): no IB
    #   verbs library where NCCL runs, so its IB transport is off and it uses sockets
    # [1,0]<stdout>:mlc-cluster-22:7617:7635 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]   (horovod/horovod#1122)
    # (no entry in knowledge/nccl_warn_messages.yaml: whether RDMA was expected cannot be told from the line, rule
    #  nccl_ibverbs_library_not_loaded says so)
    ("ibverbs_library_not_loaded", re.compile(r"^Failed to open libibverbs\.so")),
    # NCCL's topology detection finding a node, link or path missing from the system it built out of /sys
    #   (src/graph/*.cc, ncclInternalError, v2.7.8-1 .. 5067397c; the formats as the tags print them):
    # WARN("Failed to find reverse path from remNode %d/%lx nlinks %d to node %d/%lx", ...)   (graph/paths.cc:108)
    # Failed to find reverse path from remNode 0/41000 nlinks 2 to node 0/61000       (vllm-project/vllm#4062, after torch's Last error:)
    # WARN("Could not find node of type %d id %lx", t, id)                 (graph/paths.cc:32)
    # WARN("Error : could not find CPU close to GPU %d", gpu)              (graph/paths.cc:192)
    # WARN("Could not find intermediate GPU between GPU rank %d and NIC %lx", ...)   (graph/paths.cc:657; "NIC %d" before 2.20)
    # WARN("Could not find rev link for %d/%ld -> %d/%ld", ...)            (graph/search.cc:74; "%d/%d" in 2.7)
    # WARN("No path computed to go from %s/%d to %s/%d", ...)              (graph/search.cc:138, 2.19 on)
    # WARN("Add NVLink error : could not find DEV for GPU %s", ...)        (graph/topo.cc:820; "could not find GPU %lx" 2.7-2.2x;
    #   "Add PCI Link error : could not find PCI SW %lx", "Add C2c error : could not find DEV for GPU %s": topo.cc:882, 914)
    # WARN("Could not find any local path from gpu %d to net.", gpu)       (graph/topo.cc:2048)
    # WARN("GetXmlFromCpu : could not find CPU numa ID.")                  (graph/xml.cc:478: the device's numa_node in sysfs)
    # WARN("Attribute %s of node %s not found", attrName, node->name)     (graph/xml.h:107)
    # Attribute busid of node nic not found
    ("topology_detection_failed", re.compile(
        r"^Failed to find reverse path from remNode \d+/[0-9a-fA-F]+ nlinks \d+ to node \d+/[0-9a-fA-F]+"
        r"|^Could not find node of type \d+ id [0-9a-fA-F]+|^Error : could not find CPU close to GPU \d+"
        r"|^Could not find intermediate GPU between GPU rank \d+ and NIC [0-9a-fA-F]+|^Could not find rev link for -?\d+/-?\d+ -> "
        r"|^No path computed to go from \w+/\d+ to \w+/\d+|^Add (?:NVLink|PCI Link|C2c) error : could not find (?:DEV for GPU|GPU|PCI SW) \S"
        r"|^Could not find any local path from gpu \d+ to net\.|^GetXmlFromCpu : could not find CPU numa ID\."
        r"|^Attribute \w+ of node \w+ not found")),
    # WARN("Could not find real path of %s", busPath)    (graph/xml.cc:332 in 2.6-2.9, include/topo.h and misc/topo.cc in 2.4, os/linux.cc:637 now:
    #   a PCI device's sysfs path; not the IB device's "Could not find real path of %s (%s)", transport/net_ib, after which
    #   NCCL goes on). Before 2.10.3 its caller returned the error and the communicator was not made; 2.10.3 ("Fix topology
    #   detection error in WSL2", its release notes; graph/xml.cc: ncclDebugNoWarn = NCCL_GRAPH; getPciPath(busId, &path))
    #   prints it as INFO and goes on: a GPU with no PCI device in /sys, as WSL2's paravirtualised GPU has
    # DESKTOP:36629:36635 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:21/../../0000:21:00.0   (NVIDIA/nccl#442, WSL)
    ("pci_sysfs_path_missing", re.compile(r"^Could not find real path of /sys/class/pci_bus/\S+\s*$")),
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
    # NCCL_IB_* settings the IB transport refuses (ncclInvalidArgument / ncclInternalError; the connection fails)
    #   WARN("NET/IB: NCCL_IB_SUBNET_PREFIX_LEN=%d is out of range [1,32]")  (net_ib/connect.cc:529)
    #   WARN("NET/IB: OOO RQ is force enabled but AR is not enabled, ...")  ("... but not supported on both sides ...", "... but size %u
    #   is less than the required recv work request size %u ...": connect.cc:1191-1205, NCCL_IB_OOO_RQ=1 on a device or peer without it)
    #   WARN("NET/IB: Requested alive message batch size %d exceeds maximum supported %d")  (p2p_resiliency_recovery.cc:767)
    #   WARN("No algorithm/protocol available for function %s with datatype %s.%s%s")  (enqueue.cc:2063, with " NCCL_ALGO was set
    #   to %s." or " NCCL_PROTO was set to %s.": ncclInvalidUsage; without them ncclInternalError, left unread here)
    #   WARN("Requested number of exclusive GIN contexts (%d) exceeds the unallocated count (%d). Use NCCL_GIN_NCONTEXTS ...")
    #   WARN("No shared contexts are available (%d requested) as all have been allocated for exclusive use. Use NCCL_GIN_NCONTEXTS ...")  (dev_runtime.cc:882, 889)
    #   WARN("VA represented by {userPtr = %p, size = %zu} contains CPU-backed physical segments, but NCCL_ELASTIC_BUFFER_REGISTER is set to 0. ...")  (dev_runtime_segments.cc:46)
    # NET/IB: OOO RQ is force enabled but AR is not enabled, which is required for OOO RQ (device=mlx5_0)
    ("nccl_setting_refused", re.compile(
        r"^NET/IB: (?:\S+: )?(?:NCCL_IB_SUBNET_PREFIX_LEN=-?\d+ is out of range|OOO RQ is force enabled but "
        r"|Requested alive message batch size -?\d+ exceeds maximum supported)"
        r"|^No algorithm/protocol available for function \w+ with datatype \w+\. NCCL_(?:ALGO|PROTO) was set to "
        r"|^(?:Requested number of exclusive GIN contexts \(\d+\) exceeds|No shared contexts are available \(\d+ requested\))"
        r".*Use NCCL_GIN_NCONTEXTS"
        r"|^VA represented by \{userPtr = \S+, size = \d+\} contains CPU-backed physical segments, but NCCL_ELASTIC_BUFFER_REGISTER is set to 0"
        # round rW4: the plane ids NCCL_IB_HCA's entries give ("mlx5_0:1:<rail>:<plane>", misc/utils.cc parseStringList):
        # more distinct planes than NCCL keeps, or one with its virtual-device bit (1<<14) set (net_ib/init.cc:103, 107, v2.30.7-1)
        #   NCCL cannot use more than 14 plane IDs.        NCCL cannot use a plane ID that is 16384.
        r"|^NCCL cannot use (?:more than \d+ plane IDs|a plane ID that is -?\d+)\.")),
    # a setting NCCL replaced with another value and went on (the operator's setting did not take effect)
    #   WARN("NCCL_NET_MERGE_POLICY: unknown value '%s', defaulting to ALL")  (graph/topo.cc:1757)
    #   WARN("Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (%d). Unsetting POLICY_EFFICIENCY.")  (init.cc:2219)
    #   WARN("graphStreamOrdering=0 with graphUsageMode=2 (graph mixing) is not supported; falling back to graphStreamOrdering=1 ...")  (init.cc:2460)
    #   WARN("NET/IB: %s: Resiliency requires pre-posted receive work requests. Enabling pre-posting.")  (v2.29.7-1 net_ib/common.cc:71,
    #   NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS=0 overridden)
    #   WARN("NET/IB: Resiliency is enabled on a %s communicator (comm=%p) with a single device. This does not make sense ...")  (p2p_resiliency.cc:778)
    # NCCL_NET_MERGE_POLICY: unknown value 'SAME_NUMA', defaulting to ALL
    ("nccl_setting_overridden", re.compile(
        r"^NCCL_NET_MERGE_POLICY: unknown value '.*', defaulting to ALL"
        r"|^Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy \(-?\d+\)\. Unsetting POLICY_EFFICIENCY"
        r"|^graphStreamOrdering=0 with graphUsageMode=2 \(graph mixing\) is not supported; falling back"
        r"|^NET/IB: (?:\S+: )?(?:Resiliency requires pre-posted receive work requests\. Enabling pre-posting"
        r"|Resiliency is enabled on a \w+ communicator \(comm=\S+\) with a single device)")),
    # the application's NCCL calls refused: an argument, a config attribute or a call order NCCL does not accept
    #   (ncclInvalidArgument / ncclInvalidUsage; enqueue.cc:2827-2905 ncclPutSignal / ncclSignal / ncclWaitSignal, init.cc:2385-2404
    #   ncclConfig_t attributes ("Invalig" is NCCL's spelling), init.cc:3230-3286 ncclCommGrow, dev_runtime.cc's device-API and window
    #   calls, rma/rma_ce.cc:300, net_ib/gin.cc:631, bootstrap.cc:335, 343, 437, 464, misc/argcheck.cc:104-172 (ranks passing differently registered buffers),
    #   mem_manager.cc:405, 537 (ncclCommSuspend / ncclCommResume out of order), dev_runtime_segments.cc:95, 114 (Elastic GIN:
    #   ranks registering different segments))
    # ncclPutSignal: peerWin is NULL
    # Invalig config graphUsageMode attribute value 7
    ("nccl_invalid_usage", re.compile(
        r"^(?:Context|Signal index) -?\d+ is invalid \(must be 0\)|^Flags \d+ is invalid \(must be 0\)"
        r"|^ncclPutSignal: (?:peerWin is NULL|srcBuff is NULL|srcWinHost is not in a valid symmetric window)"
        r"|^ncclSignal: count must be 0|^ncclWaitSignal: (?:invalid arguments|descriptor -?\d+ has invalid)"
        r"|^Invali[dg] config \w+ attribute value -?\d+"
        r"|^ncclCommGrow: (?:total ranks must be positive|total ranks -?\d+ is less than current ranks|existing ranks must pass rank=-1"
        r"|new ranks must pass (?:valid rank|non-NULL uniqueId)|new rank -?\d+ exceeds total ranks)"
        r"|^Cannot (?:get communicator properties|create device communicator): \w+ argument must be initialized via"
        r"|^(?:\w+: )?invalid pointer (?:0x[0-9a-fA-F]+|\(nil\)) / size \d+"
        r"|^The provided lsaRank -?\d+ is not in the valid lsaSize|^peer -?\d+ is not within valid range of ranks"
        r"|^MCBasePtr \S+ needs to be valid|^Could not find communicator matching window |^RMA CE: peerBuff is NULL after "
        r"|^ncclRmaIbProxyIPutSignal: Unsupported signalOp "
        r"|^User requested GIN resources but did not request GIN to be enabled|^Cannot create worldGinBarrier with NCCL_GIN_CONNECTION_RAIL"
        r"|^ncclCommGetUniqueId should not be called when NCCL_COMM_ID is set|^bcastGrowHandle: parent comm and handle must be provided"
        r"|^Bootstrap Root : (?:localId -?\d+ is out of range|mismatch in info from procs)"
        r"|^Coll \w+ size \d+ symmetric registration check failed on rank \d+"
        r"|^MemManager: (?:Already suspended|Not in suspended state)\s*$"
        r"|^Elastic GIN: rank \d+ (?:segment \d+ size \d+ differs|has \d+ segments but another rank has)"
        # round rW4: ncclCommGrow's handle from another grow than this rank's (init.cc:3266, ncclInvalidArgument), an RMA
        # operation to a peer the communicator's RMA proxy has no connection to (net_ib/gin.cc:515, ncclInvalidUsage)
        #   ncclCommGrow: magic mismatch computed by the root, got 5c1f0e2a9b3d4471 expected 7e2a1b4c5d6e7f80
        #   RMA: trying to send to non-connected peer 5
        r"|^ncclCommGrow: magic mismatch computed by the root|^RMA: trying to send to non-connected peer \d+")),
    # a feature the program asked NCCL for that this system, NCCL build, network or plugin does not offer (the call fails)
    #   WARN("Multimem pointer requested but system does not support multimem.")  (dev_runtime.cc:1670)
    #   WARN("One sided RMA: host RMA is not supported in this communicator.")  (enqueue.cc:2813; "symmetric registration" / "RMA proxy" 2.29.2-2.29.3)
    #   WARN("RMA not supported.") WARN("No RMA-capable devices found.") WARN("Rma connect : min local net count is zero")  (rma/rma_proxy.cc:379-415)
    #   WARN("Hierarchical CE collective not supported for %s")  (ce_coll.cc:1380)
    #   WARN("Window registration of addresses that span multiple physical segments ...")  (dev_runtime.cc:664, gin/gin_host.cc:383)
    #   WARN("ncclPutSignal currently does not support VAs backed by multiple physical cuMem segments" | "... with host-backed cuMem segments")
    #   WARN("Segment %d has unsupported location type %d. ...")  WARN("VA represented by ... but the LSA team does not support multi-node IPC ...")
    #   WARN("User requested GIN but not all ranks in the communicator support GIN")  ("... NCCL_GIN_CONNECTION_FULL but the communicator
    #   supports only NCCL_GIN_CONNECTION_RAIL"); WARN("GIN strong signals are required, but the GIN plugin does not support them.");
    #   WARN("GIN plugin v11 does not support multiple contexts"); WARN("GIN plugin does not support GET"); WARN("GIN_IB_PROXY does not
    #   support specifying qp depth"); WARN("RMA v13 (%s) requires GIN PROXY type, got netDeviceType %d")
    #   WARN("MemManager: Suspend not supported, memory manager is disabled")  (mem_manager.cc:397-1018, NCCL_MEM_MANAGER off or no
    #   MemStats); WARN("Memory suspend not supported with split_share communicators (refCount=%d)")
    #   WARN("Fusing NET devices from different NUMA domains is not supported.")  (graph/topo.cc:1566)
    # Multimem pointer requested but system does not support multimem.
    ("nccl_feature_unsupported", re.compile(
        r"^Multimem pointer requested but system does not support multimem"
        r"|^One[ -]sided RMA: (?:symmetric registration|RMA proxy|host RMA) is not supported in this communicator"
        r"|^RMA not supported\.|^No RMA-capable devices found\.|^(?:Rma|Gin) connect : min local net count is zero"
        r"|^RMA proxy backend type mismatch|^GIN Proxy: RMA backend not found|^RMA v\d+ \(.*\) requires GIN PROXY type"
        r"|^Hierarchical CE collective not supported for "
        r"|^Window registration of addresses that (?:span multiple physical segments|contain CPU-backed physical segments) "
        r"|^ncclPutSignal currently does not support VAs |^Segment -?\d+ has unsupported location type"
        r"|^VA represented by \{userPtr = \S+, size = \d+\} contains CPU-backed physical segments, but the LSA team does not support"
        r"|^User requested GIN (?:but not all ranks in the communicator support GIN|connection type NCCL_GIN_CONNECTION_FULL but)"
        r"|^GIN (?:strong|VA) signals are required, but the GIN plugin does not support them"
        r"|^GIN plugin (?:v\d+ )?does not support |^GIN_IB_PROXY does not support specifying qp depth"
        r"|^MemManager: (?:MemStats|Suspend|Resume) not supported, memory manager is disabled"
        r"|^MemManager: (?:Suspend|Resume) failed, memory manager is disabled"
        r"|^Memory (?:suspend|resume) not supported with split_share communicators"
        r"|^Fusing NET devices from different NUMA domains is not supported"
        # round rW4: NCCL built for a CPU architecture its topology code names none for (graph/xml.cc:498, v2.30.7-1: not
        # ppc64, arm64 or x86_64; ncclInternalError, the communicator is not made)
        #   getXmlFromCpu: Unknown CPU architecture
        r"|^getXmlFromCpu: Unknown CPU architecture")),
    # GIN without GPUDirect RDMA   WARN("Unable to use GIN: Peermem is not supported, and device %d does not support DMA-BUF.")  (net_ib/gin.cc:42)
    # Unable to use GIN: Peermem is not supported, and device 0 does not support DMA-BUF.
    ("gin_no_gpudirect_rdma", re.compile(r"^Unable to use GIN: Peermem is not supported, and device \d+ does not support DMA-BUF")),
    # the application built against another NCCL than the library it runs with (dev_runtime.cc:1428, 1444; devcomm_v22907.cc:89;
    # 2.29's dev_runtime.cc:1153, 1157, 1364): the device API's ABI differs
    # NCCL library is too old. This application was compiled with NCCL version 2.30.7, but is running with NCCL library version 2.29.7.
    ("nccl_app_built_for_other_nccl", re.compile(
        r"^NCCL library (?:version )?is too old\. This application was compiled with NCCL version "
        r"|^NCCL library is not backwards compatible\. This application was compiled with NCCL version "
        r"|^The application was compiled with too old version of NCCL\. It was compiled with NCCL version ")),
    # WARN("One-sided RMA requires CUDA driver 12.5 or later (found %d.%d).")  (enqueue.cc:2820)
    ("rma_driver_too_old", re.compile(r"^One-sided RMA requires CUDA driver \d+\.\d+ or later \(found \d+\.\d+\)")),
    # WARN("Detected mixed local CollNet device counts across ranks (min %d, max %d). Set NCCL_IGNORE_COLLNET_MISMATCH=1 to continue.")  (init.cc:1362)
    ("collnet_device_count_mismatch", re.compile(r"^Detected mixed local CollNet device counts across ranks \(min \d+, max \d+\)")),
    # MemManager's resume re-exporting GPU memory as a FABRIC handle through IMEX   WARN("MemManager: cuMemExportToShareableHandle
    # (FABRIC) failed for ptr=%p")  (mem_manager.cc:627)
    ("mem_manager_fabric_export_failed", re.compile(r"^MemManager: cuMemExportToShareableHandle \(FABRIC\) failed for ptr=")),
    # host memory NCCL could not allocate (malloc / calloc / new returned NULL): checks.h NEW_NOTHROW's WARN("Allocation failed")
    #   ("Allocation failed at %s:%d" 2.29-2.30.4), misc/utils.cc:318 ncclMemoryStack ("... Unrecoverable error detected:
    #   malloc(size=%llu) returned null.", then abort()), utils.cc:429, 446, mem_manager.cc:155-680, p2p_resiliency_recovery.cc:226,
    #   net_socket.cc:103, os/windows.cc:1566
    # Unrecoverable error detected: malloc(size=1073741824) returned null.
    ("host_alloc_failed", re.compile(
        r"^Allocation failed(?: at \S+:\d+)?\s*$|^Unrecoverable error detected: malloc\(size=\d+\) returned null"
        r"|^Intrusive address map (?:initialization|resize) failed: (?:c|m)alloc\(\d+ entries\) returned null"
        r"|^MemManager: Failed to (?:allocate memory entry|grow exportedPeerRanks array|allocate allCounts|allocate CPU backup for offload)"
        r"|^NET/IB: (?:\S+: )?Failed to allocate failure queue node|^Failed to allocate memory for adapter addresses"
        r"|^ncclOsGetPciDeviceParent: Failed to allocate memory")),
    # WARN("Thread creation failed: %s", e.what())   (include/checks.h:242 STDTHREADCREATE: std::thread threw std::system_error)
    # Thread creation failed: Resource temporarily unavailable
    ("thread_create_failed", re.compile(r"^Thread creation failed: Resource temporarily unavailable")),
    # NCCL's own consistency checks: a state NCCL's code does not expect (an unknown request or descriptor type, an index out of
    # bounds, a NULL internal pointer, an uninitialised plugin slot, a duplicate parameter registration); ncclInternalError follows.
    # Nothing the operator set explains them: a bug of the NCCL release (or memory corrupted under it)
    #   net_ib/p2p_resiliency.cc:152-334, p2p_resiliency_recovery.cc:998, net_ib/p2p.cc:73-800, net_ib/p2p.h:33; rma/rma_proxy_launch.cc,
    #   rma/rma_proxy_progress.cc, rma/rma_ce.cc:391; gin/gin_host.cc; dev_runtime.cc:1611, 1623; bootstrap.cc:740; proxy.cc:1148-1179; transport/p2p.cc:1042, 1049;
    #   misc/utils.cc; include/utils.h:83; include/param/parser_common.h:93, param/param_registry.cc:20; plugin/net.cc, gin.cc, rma.cc;
    #   mem_manager.cc:136-858; graph/topo.cc, topo.h, xml.cc; misc/socket.cc; os/*ipcsocket.cc
    # NET/IB: Attempting to repost an unused request (id=42).
    ("nccl_internal_error", re.compile(
        r"^NET/IB: (?:\S+: )?(?:Attempting to (?:initiate a replay using an old request|initiate a failed request using a"
        r"|free a non-existent failed request|repost an unused request)|Unsupported type of request reposting"
        r"|Invalid wr_id \(-?\d+\)\. Unable to retrieve a request|Unrecognized request type\. request->type="
        r"|Unexpected GoToPrevState result|\w+ comm could not retreive a request found for a successful completion"
        r"|(?:Sender|Receiver) expected a '(?:send|recv)' request but got|No format specified for opcode="
        r"|sendReq\(\S+\)->events=\{|Unknown completion \(req=|Invalid request index -?\d+\. Not in the range)"
        r"|^ncclRmaProxy\w+: (?:unknown desc type|descriptor is not a )|^RMA proxy iput/iputSignal returned success with NULL request"
        r"|^RMA proxy completed request with no inflight credit|^RMA CE is not initialized"
        r"|^Dev comm not found\s*$"
        r"|^ncclTopoDevToRank could not find rank|^ncclProxyConnect: \w+ -?\d+ out of bounds"
        r"|^rank \d+ invalid IPC peer(?:Rank|Index) "
        r"|^(?:Intrusive address map|Output object|Object) pointer is NULL|^Invalid key size -?\d+ \(must be"
        r"|^getRandomData: buffer is NULL|^ncclSocket(?:SetFd: pass NULL socket|Listen: socket is invalid|Connect: socket is invalid)"
        r"|^ncclIpcSocketGetFd: pass NULL socket|^PARAM: Duplicate (?:registration for key|option name) "
        r"|^(?:\w+: )?trying to access the number of devices of an uninitialized (?:net|gin|rma)Plugin"
        r"|^failed to set the number of devices for netPlugin|^Unknown device code index "
        r"|^MemManager: (?:Unknown handle type|FABRIC handle not valid|Could not find matching handle info"
        r"|Cannot (?:track|untrack) allocation ptr=\S+, manager not initialized|Cannot mark export for ptr=\S+(?:, manager not initialized| - )"
        r"|Buffer ptr=\S+ already exported to peer rank)"
        r"|^Cannot get backend version for invalid GIN type|^Cannot get gin type: ncclGin is not null"
        r"|^Invalid GIN (?:gdaki|proxy) backend version|^GIN plugin \S+ returned invalid context"
        r"|^ncclTopoGetDevNodes : too many DEV nodes|^MLOPart index -?\d+ out of range|^BusId 0x\S+ has non-zero bits in MLOPart mask"
        r"|^ncclTopoGetSystemFromXml: system node not found|^ncclTopoFillNet: parent is NULL"
        r"|^ncclCheckMultiRank exceeded number of local ranks"
        r"|^window has a NULL user pointer|^ncclDevrWorldToLsaRank: world rank -?\d+ is not a member of the LSA team"
        r"|^bootstrapInit: handles and parent are NULL"
        # round rW4: a socket or pipe NCCL had not created, a name NCCL builds of fixed length ("/tmp/nccl-socket-%d-%lx",
        # "\\\\.\\pipe\\nccl-socket-%d-%llx") too long for its buffer, std::thread::join / pthread_join refusing
        # (EDEADLK, EINVAL, ESRCH: a thread joined twice or from itself), the RMA proxy used before it connected, the
        # GDAKI NIC index or RMA rank stride NCCL's core passed its own IB plugin
        #   IPC: Invalid socket handle (os/windows_ipcsocket.cc:103)   IPC: Pipe name too long (:66, :186)
        #   UDS: Cannot bind provided name to socket. Name too large (os/linux_ipcsocket.cc:50; :192 "Cannot connect to provided name for socket")
        #   ncclOsSocketSetFlags: invalid socket (os/windows.cc:235)   Thread join failed: Invalid argument (include/utils.h:717)
        #   asyncJobLaunch: failed to join thread for job (group.cc:498)   Error waiting for pthread_join : Invalid argument (v2.18.1-1 group.cc:345)
        #   RMA proxy is not connected (rma/rma_proxy_launch.cc:652)
        #   NET/IB : Requested properties for GIN GDAKI NIC 2, only 2 GIN GDAKI NICs have been created (net_ib/gin.cc:251)
        #   Rma Proxy create context: invalid rank stride 3, must be >= 0 and nranks (8) must be a multiple of the stride (net_ib/gin.cc:373)
        r"|^IPC: (?:Invalid socket handle|Pipe name too long)\s*$|^UDS: Cannot (?:bind|connect to) provided name (?:to|for) socket\. Name too large"
        r"|^ncclOsSocketSetFlags: invalid socket\s*$|^Thread join failed: \S|^asyncJobLaunch: failed to join thread for job"
        r"|^Error waiting for pthread_join ?: \S|^RMA proxy is not connected\s*$"
        r"|^NET/IB ?: Requested properties for GIN GDAKI NIC \d+, only \d+ GIN GDAKI NICs have been created"
        r"|^Rma Proxy create context: invalid rank stride -?\d+")),
    # NCCL's GDRCopy wrapper (v2.30.3-1 .. v2.30.7-1 misc/gdrwrap.cc, NCCL_GDRCOPY_ENABLE): the pin through gdrdrv failing
    #   WARN("gdr_pin_buffer_v2(addr %lx, size %zu, flags %u) failed: %d")  (:175, ncclSystemError), and the library too old
    #   for that call  WARN("gdr_pin_buffer_v2 not available; GDRCopy >= 2.5 required")  (:169, ncclInternalError)
    # gdr_pin_buffer_v2(addr 7f3a2c000000, size 65536, flags 1) failed: -22
    ("gdrcopy_pin_v2_failed", re.compile(r"^gdr_pin_buffer_v2\(addr [0-9a-fA-F]+, size \d+, flags \d+\) failed: -?\d+")),
    ("gdrcopy_too_old", re.compile(r"^gdr_pin_buffer_v2 not available; GDRCopy >= \d+\.\d+ required")),
    # WARN("NET/IB: Resiliency context is NULL. Nothing to destroy.")  (p2p_resiliency.cc:956, returns ncclSuccess: nothing to do)
    ("ib_resiliency_nothing_to_destroy", re.compile(r"^NET/IB: (?:\S+: )?Resiliency context is NULL\. Nothing to destroy")),
    # round rV5 (issue 11): the memory manager's suspend and resume (v2.29.7-1 .. v2.30.7-1 src/mem_manager.cc, the same
    #   formats in both; ncclCommSuspend / ncclCommResume with NCCL_DISABLE_MEM_MANAGER unset). The call fails:
    #   WARN("MemManager: Failed to copy to CPU backup: %s", cudaGetErrorString(err))   (:473, suspend: ncclUnhandledCudaError)
    #   WARN("MemManager: Failed to restore from CPU backup: %s (backup preserved)", ...)   (:612, resume: ncclUnhandledCudaError)
    #   WARN("MemManager: Barrier failed during resume")  WARN("MemManager: Final barrier failed during resume")   (:653, :902)
    #   WARN("MemManager: AllGather counts failed")   (:690)
    #   WARN("MemManager: Send to rank %d failed - handle exchange incomplete")  WARN("MemManager: Recv from rank %d failed - ...")   (:766, :781)
    # MemManager: Barrier failed during resume
    # MemManager: Recv from rank 3 failed - handle exchange incomplete
    # MemManager: Failed to restore from CPU backup: an illegal memory access was encountered (backup preserved)
    ("mem_manager_resume_failed", re.compile(
        r"^MemManager: (?:Failed to (?:copy to|restore from) CPU backup: \S|(?:Final b|B)arrier failed during resume"
        r"|AllGather counts failed|(?:Send to|Recv from) rank \d+ failed - handle exchange incomplete)")),
    #   ncclCommResume goes on without one buffer it had imported from a peer (the loop's `continue`: it stays unmapped):
    #   WARN("MemManager: Cannot re-import peer buffer from rank %d (different node) using POSIX FD - skipping", ...)   (:832)
    #   WARN("MemManager: Failed to get FD from rank %d for ptr=%p", ...)   (:845, the owner's proxy did not hand the FD over)
    #   WARN("MemManager: cuMemImportFromShareableHandle failed for ptr=%p (curet=%d)", ...)   (:864, POSIX FD or FABRIC)
    #   WARN("MemManager: ncclCuMemMapAndSetAccess failed for re-imported ptr=%p", entry->ptr)   (:874)
    # MemManager: cuMemImportFromShareableHandle failed for ptr=0x7f3a2c001200 (curet=1)
    ("mem_manager_peer_buffer_not_reimported", re.compile(
        r"^MemManager: (?:Cannot re-import peer buffer from rank \d+ \(different node\) using POSIX FD"
        r"|Failed to get FD from rank \d+ for ptr=|cuMemImportFromShareableHandle failed for ptr=\S+ \(curet=-?\d+\)"
        r"|ncclCuMemMapAndSetAccess failed for re-imported ptr=)")),
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
    #   WARN("Error: failed to create shared memory mapping %s, error code: %lu", shmPath, GetLastError())   (os/windows.cc:851)
    #   WARN("Error: Could not map view of file %s size %zu, error code: %lu", ...)   (:878; v2.30.3-1 on, ncclOsShmOpen)
    #     for ERROR_NOT_ENOUGH_MEMORY 8, ERROR_OUTOFMEMORY 14, ERROR_NO_SYSTEM_RESOURCES 1450, ERROR_COMMITMENT_LIMIT 1455
    #     ("The paging file is too small for this operation to complete."): NCCL's segments are sections backed by the
    #     paging file (CreateFileMappingA(INVALID_HANDLE_VALUE, ...)), so the host's commit limit or the process's address
    #     space ran out; Linux's twin is /dev/shm's ENOSPC (shm_create_no_space). Other codes (5 access denied, 2 not
    #     found on open) are not read here
    # Error: failed to create shared memory mapping Local\nccl-shm-4312-1, error code: 1455   (the name: os/windows.cc:838)
    ("windows_shm_out_of_memory", re.compile(
        r"^Error: (?:failed to create shared memory mapping \S+|Could not map view of file \S+ size \d+), error code: (?:8|14|1450|1455)\s*$")),
    #   WARN("Failed to load nvml.dll, error code: %lu", err)   (os/windows.cc:755, v2.30.3-1 on, ncclOsNvmlOpen: nvml.dll
    #     neither on PATH nor in C:\Windows\System32; ncclSystemError): Linux's twin "Failed to open libnvidia-ml.so.1: ..."
    # Failed to load nvml.dll, error code: 126
    ("windows_nvml_dll_not_loaded", re.compile(r"^Failed to load nvml\.dll, error code: \d+\s*$")),
    #   WARN("SetupDiGetClassDevs failed: %lu", GetLastError())   (os/windows.cc:1273, v2.30.7-1, ncclOsTopoGetStrFromSys: the
    #     PCI device list NCCL reads instead of /sys), WARN("Failed to get PCI info from NVML device")   (:1511),
    #   WARN("Invalid PCI bus ID format: %s", busId)   (:1100, ncclOsGetPciPath)
    #   WARN("ncclOsGetPciDeviceClassByBusId: Failed to parse PCI bus ID: %s")  WARN("ncclOsGetPciDeviceParent: Failed to parse PCI bus ID: %s")
    #     (:1430, :1537): each ncclSystemError while NCCL builds the node's topology (graph/topo.cc)
    # SetupDiGetClassDevs failed: 13
    # ncclOsGetPciDeviceParent: Failed to parse PCI bus ID: 00000000:3B:00.0.1
    ("windows_pci_topology_failed", re.compile(
        r"^(?:SetupDiGetClassDevs failed: \d+|Failed to get PCI info from NVML device|Invalid PCI bus ID format: "
        r"|ncclOsGetPci\w+: Failed to parse PCI bus ID: )")),
    #   WARN("Failed to set environment variable %s to %s: error %lu", name, value, GetLastError())   (os/windows.cc:138,
    #     v2.29.2-1 on, ncclOsSetEnv: SetEnvironmentVariableA refused a line of NCCL_CONF_FILE, ~/.nccl.conf or /etc/nccl.conf
    #     that the environment did not set already (misc/param.cc setEnvFile); NCCL goes on without it)
    # Failed to set environment variable NCCL_SOCKET_IFNAME to Ethernet 2: error 87
    ("windows_conf_setting_not_applied", re.compile(r"^Failed to set environment variable \w+ to .{0,1100}: error \d+\s*$")),
    # round rW4 (issue 11): the forms 2.29-2.30 left unexplained, and their twins of other releases. The sample line under
    # each group is CONSTRUCTED from the format above it (bench/nccl_warn_formats.yaml has each with its file:line).
    # NCCL's handle exchange between the processes of one node over its local IPC channel (os/linux_ipcsocket.cc, 2.19 on;
    # misc/ipcsocket.cc 2.18, errno as a number; os/windows_ipcsocket.cc v2.30.3-1 on, a named pipe per rank), each ncclSystemError:
    #   WARN("UDS: Socket creation error : %s (%d)")  (:40; EMFILE/ENFILE left to the open-file limit)
    #   WARN("UDS: Binding to socket %s failed : %s (%d)")  (:68; EADDRINUSE is uds_bind_address_in_use, below)
    #   WARN("UDS: Receiving data over socket failed : %d")  (:142)  WARN("UDS: Receiving data over socket failed")  (:152, no SCM_RIGHTS)
    #   WARN("UDS: Receiving data over socket %s failed")  (:158, no descriptor in the message)
    #   WARN("UDS: Sending data over socket %s failed : %s (%d)")  (:233)
    #   WARN("IPC: Failed to create named pipe %s: error %d")  (:66)  WARN("IPC: Failed to connect named pipe: error %d")  (:117)
    #   WARN("IPC: ReadFile failed: error %d")  (:141)  WARN("IPC: DuplicateHandle failed: error %d")  (:165)
    #   WARN("IPC: Failed to connect to pipe %s: error %d")  (:210)  WARN("IPC: SetNamedPipeHandleState failed: error %d")  (:226)
    #   WARN("IPC: WriteFile failed: error %d, wrote %d of %zu bytes")  (:250)
    # UDS: Sending data over socket /tmp/nccl-socket-3-8f3e2a1b4c5d6e7f failed : Connection refused (111)
    # IPC: Failed to connect to pipe \\.\pipe\nccl-socket-3-8f3e2a1b4c5d6e7f: error 5
    ("local_ipc_exchange_failed", re.compile(
        r"^UDS: (?:Socket creation error : (?!Too many open files)\S"
        r"|Binding to socket \S+ failed : (?!Address already in use \(98\)|98\s*$)\S"
        r"|Receiving data over socket (?:\S+ )?failed\b|Sending data over socket \S+ failed : \S)"
        r"|^IPC: (?:Failed to create named pipe \S+|Failed to connect named pipe|ReadFile failed|DuplicateHandle failed"
        r"|Failed to connect to pipe \S+|SetNamedPipeHandleState failed|WriteFile failed): error -?\d+")),
    #   WARN("sched_getaffinity failed with error: %s")  WARN("sched_setaffinity failed with error: %s")   (os/linux.cc:591, 600)
    #   WARN("GetProcessAffinityMask failed with error: %ld")  WARN("SetProcessAffinityMask failed with error: %ld")  (os/windows.cc:718, 728)
    #   (v2.29.2-1 on; init.cc:1160-1161 fails the communicator on them, group.cc and proxy.cc go on unpinned)
    # sched_setaffinity failed with error: Invalid argument
    ("cpu_affinity_refused", re.compile(
        r"^sched_(?:get|set)affinity failed with error: \S|^(?:Get|Set)ProcessAffinityMask failed with error: -?\d+")),
    #   WARN("cudaArch %d dynamic smem %d exceeds device/fn maxSharedMem %d")  (v2.29.7-1 .. v2.30.7-1 enqueue.cc:81)
    #   WARN("cudaArch %d ncclMaxSharedMem %d exceeds device/fn maxSharedMem %d")  (v2.26.2-1 .. v2.29.3-1 enqueue.cc:71)
    #   ncclSystemError: NCCL's kernels need more shared memory per block than this GPU lets its functions have
    # cudaArch 1200 dynamic smem 82240 exceeds device/fn maxSharedMem 79856
    ("nccl_kernels_exceed_shared_memory", re.compile(
        r"^cudaArch \d+ (?:dynamic smem|ncclMaxSharedMem) \d+ exceeds device/fn maxSharedMem \d+")),
    #   WARN("Failed to open %s - %s", GDRAPI_LIBNAME, ncclOsDlerror())  (v2.30.3-1 .. misc/gdrwrap.cc:73; "Failed to open %s" before)
    #   WARN("ncclOsDlsym failed on %s - %s", symbol, ...)  (:47; "dlsym failed on %s - %s" v2.18.1-1 .. v2.29.7-1): with
    #   NCCL_GDRCOPY_ENABLE=1 NCCL could not load libgdrapi.so or a symbol of it and goes on without GDRCopy (init.cc initGdrCopy)
    # Failed to open libgdrapi.so - libgdrapi.so: cannot open shared object file: No such file or directory
    ("gdrcopy_library_unusable", re.compile(r"^Failed to open libgdrapi\.so\b|^(?:ncclOsDlsym|dlsym) failed on gdr_\w+ - ")),
    #   resources NCCL could not release when it closed them (each after the communicator's work; the WARN before it, if
    #   any, names why): munmap of a shared-memory segment (os/linux.cc:871 2.22 on; misc/shmutils.cc:142 2.18-2.21),
    #   UnmapViewOfFile / CloseHandle of one (os/windows.cc:944, 952), the RAS notification pipe's close (os/linux_socket_pair.cc:26,
    #   os/windows_socket_pair.cc:83), a network registration of a user buffer (register/register.cc:101, regCleanup)
    # munmap of shared memory 0x7f3a2c001200 size 9637888 failed, error: Invalid argument (22)
    # rank 3 deregister NET buffer handle 0x7f3a2c001200 proxy rank 3 failed
    ("teardown_release_failed", re.compile(
        r"^munmap of shared memory \S+ size \d+ failed, error: |^UnmapViewOfFile of shared memory \S+ size \d+ failed, error code: \d+"
        r"|^CloseHandle for shared memory \S+ failed, error code: \d+|^close failed: \S|^Failed to close socket: -?\d+"
        r"|^rank \d+ deregister NET buffer handle \S+ proxy rank \d+ failed")),
    #   lines that follow a failure and add none of their own: the abort flag seen while waiting on a local peer's pipe
    #   (os/windows_ipcsocket.cc:216: ncclCommAbort, or an error elsewhere, is tearing the communicator down), the clean-up
    #   of a shared-memory set-up that had already failed (os/windows.cc:916, 922: the CUDA failure before it is the cause)
    # IPC: Operation aborted
    # SHM legacy: failed to restore CUDA stream capture mode: operation not permitted when stream is capturing
    ("follow_on_of_earlier_failure", re.compile(
        r"^IPC: Operation aborted\s*$"
        r"|^SHM legacy: (?:cudaHostUnregister after setup failure failed|failed to restore CUDA stream capture mode): ")),
    # Kinds without an entry in knowledge/nccl_warn_messages.yaml (what they mean depends on the NCCL version:
    # knowledge/nccl_known_issues.yaml's symptoms name them):
    # WARN("UDS: Binding to socket %s failed : %s (%d)", temp, strerror(errno), errno)   (misc/ipcsocket.cc:57-58, 2.19-2.29;
    #   os/linux_ipcsocket.cc:68 2.30; 2.18: "UDS: Binding to socket %s failed : %d", errno alone), for EADDRINUSE (98):
    #   another process's proxy socket of the same name (/tmp/nccl-socket-<rank>-<hash>)
    # UDS: Binding to socket /tmp/nccl-socket-0-1a2b3c4d5e6f7081 failed : Address already in use (98)
    ("uds_bind_address_in_use", re.compile(r"^UDS: Binding to socket \S+ failed : (?:Address already in use \(98\)|98)\s*$")),
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
                   r"|UnmapViewOfFile|CloseHandle for|close failed|Failed to close socket|deregister NET buffer|SHM legacy")


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
#: (straight or typographic; nccl_log.QUOTED_BARE takes the one quoted span of such a line, its words around it off):
#:   - IB网络初始化失败:"Call to ibv_modify_qp failed with error No such device errno 19"
#:     (blog.gitcode.com/86e4dc9e758b0e85e1d334da2806c617.html, a summary of a vLLM/NCCL 2.21.5 failure)
QUOTED = "[\"\u201c](?:" + BARE + ")"
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
