"""NCCL's WARN kinds of setting a communicator up: versions, NCCL_COMM_ID and the bootstrap, ranks and GPUs,
topology detection, settings NCCL refuses or overrides, the application's calls it refuses, features this system
lacks, plugins, CPU affinity, RCCL's host-setting remarks, Windows' PCI and config lines. A part of
:mod:`nccl_warn_kinds` (what a kind is, where its meaning lives, how the patterns are written; its ``_KINDS`` puts the
areas' lists in one order: the first pattern that matches names the kind)."""
from __future__ import annotations

import re

KINDS: list[tuple[str, re.Pattern[str]]] = [
    # WARN("Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this ...")
    #   (init.cc:1057; v2.30.3-1 .. v2.30.4-1 graph/topo.cc:1977 "Multiple ranks detected using the same GPU on this node. Set
    #   NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration."; "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" before it, read by nccl_log_setup)
    # Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this feature
    ("multiple_ranks_same_gpu", re.compile(r"^Multiple Ranks are using the same GPU"
                                           r"|^Multiple ranks detected using the same GPU on this node\. Set NCCL_MULTI_RANK_GPU_ENABLE=1")),
    # WARN("Mismatched NCCL version detected : rank %d version %d rank %d version %d", ...)   (init.cc:1043)
    # Mismatched NCCL version detected : rank 0 version 22703 rank 4 version 21805
    #   (no entry in knowledge/nccl_warn_messages.yaml: torch_nccl_forwarded.read_setup reads both ranks and versions,
    #   nccl_peer_version_mismatch, and rule nccl_peer_version_mismatch names them)
    ("nccl_version_mismatch", re.compile(r"^Mismatched NCCL version detected : rank \d+ version \d+ rank \d+ version \d+")),
    # WARN("Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>")   (bootstrap.cc:114, 443)
    ("nccl_comm_id_invalid", re.compile(r"^Invalid NCCL_COMM_ID, please use format")),
    # WARN("Net : error encountered when getting address info : %s", gai_strerror(rv))   (misc/socket.cc:257: NCCL_COMM_ID's host)
    # Net : error encountered when getting address info : Name or service not known
    ("comm_id_host_unresolved", re.compile(r"^Net ?: error encountered when getting address info ?: ")),
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
    # WARN("NCCL_NVLS_ENABLE has been set to \"1\" and communicator has multiple ranks using the same NVML device. ...")  (transport/nvls.cc:254)
    # WARN("Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to \"1\". ...")  (init.cc:1123, 2.30.3-2.30.4)
    ("nvls_forced_shared_gpu", re.compile(r"^NCCL_NVLS_ENABLE has been set to \"1\" and communicator has multiple ranks using the same"
                                          r"|^Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set")),
    # WARN("NCCL version mismatch with remote peer %s (local: %d, remote %d)", ...)   (ras/ras.cc:430, 2.24-2.29; "%s" versions 2.30)
    # NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 22703, remote 22605)
    #   (no entry in knowledge/nccl_warn_messages.yaml: torch_nccl_forwarded.read_setup reads the peer and both versions,
    #   nccl_peer_version_mismatch, and rule nccl_peer_version_mismatch names them, as for init.cc's check above)
    ("ras_version_mismatch", re.compile(r"^NCCL version mismatch with remote peer \S+ \(local: [^,]+, remote [^)]+\)")),
    # WARN("Detected mixed local Net device counts across ranks (min %d, max %d). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.")
    #   (init.cc:1339, 2.30: the ranks' nodes see different numbers of network devices)
    # Detected mixed local Net device counts across ranks (min 4, max 8). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.
    ("net_device_count_mismatch", re.compile(r"^Detected mixed local Net device counts across ranks \(min \d+, max \d+\)")),
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
    # NCCL on Windows (src/os/windows*.cc, the Windows side of NCCL's OS layer, compiled with CMake's NCCL_OS_WINDOWS from
    # v2.29.2-1 on; GIN and DOCA left out). Its forms whose Windows error code says what the Linux twin's errno says:
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
    #   WARN("sched_getaffinity failed with error: %s")  WARN("sched_setaffinity failed with error: %s")   (os/linux.cc:591, 600)
    #   WARN("GetProcessAffinityMask failed with error: %ld")  WARN("SetProcessAffinityMask failed with error: %ld")  (os/windows.cc:718, 728)
    #   (v2.29.2-1 on; init.cc:1160-1161 fails the communicator on them, group.cc and proxy.cc go on unpinned)
    # sched_setaffinity failed with error: Invalid argument
    ("cpu_affinity_refused", re.compile(
        r"^sched_(?:get|set)affinity failed with error: \S|^(?:Get|Set)ProcessAffinityMask failed with error: -?\d+")),
]
