"""NCCL's WARN kinds of one node's GPUs and memory: CUDA and NVML, device and host allocations, shared memory, CUDA
IPC and NCCL's handle exchange between a node's processes (UDS socket, Windows named pipe), MNNVL fabric memory,
GDRCopy, the memory manager's suspend and resume. A part of :mod:`nccl_warn_kinds` (what a kind is, where its meaning
lives, how the patterns are written; its ``_KINDS`` puts the areas' lists in one order: the first pattern that matches
names the kind)."""
from __future__ import annotations

import re

KINDS: list[tuple[str, re.Pattern[str]]] = [
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
    # WARN("No NVML device handle. Skipping nvlink detection.")   (graph/xml.cc ncclTopoGetXmlFromGpu: the GPU's
    #   NVML handle is NULL, so NCCL reads none of its NVLinks; later releases print the same words at INFO(NCCL_GRAPH))
    # No NVML device handle. Skipping nvlink detection.        (a paste cut after "Skip": NVIDIA/nccl#726)
    ("nvml_no_device_handle", re.compile(r"^No NVML device handle\. Skip")),
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
    # WARN("rank %d failed to IPC register userbuff %p buffSize %ld nPeers %d isLegacyIpc %p", ...)   (transport/p2p.cc:942 in
    #   v2.24.3-1, :944 in v2.25.1-1, ipcRegisterBuffer's fail label: user-buffer registration for direct IPC access was not
    #   done, most often because legacy cudaIpc registration is off (NCCL_LEGACY_CUDA_REGISTER) or in direct mode, a path that
    #   returns ncclSuccess; NCCL then copies through its own buffers. v2.26.2-1 on logs it at INFO(NCCL_REG, "... isLegacyIpc
    #   %d type %s"), which nothing here reads; a CUDA failure behind it is its own WARN)
    # rank 0 failed to IPC register userbuff 0x7f3f56000000 buffSize 37748736 nPeers 2 isLegacyIpc 0x7ffe49900be0   (NVIDIA/nccl#1684)
    #   (glibc prints a NULL %p as "(nil)")
    ("ipc_userbuff_register_failed", re.compile(r"^rank \d+ failed to IPC register userbuff (?:0x[0-9a-fA-F]+|\(nil\)) buffSize \d+ nPeers \d+")),
    # WARN("Allocation failed. No suitable space found to accommodate size=0x%lx within limit=0x%lx", ...)   (allocator.cc
    #   ncclSpaceAlloc, :218 v2.28.3-1 .. :228 v2.30.7-1: a fixed range NCCL carves up is full; its callers: dev_runtime.cc's
    #   symmetric window registration (the per-rank symmetric virtual-address space, as large as the largest GPU's memory
    #   rounded up to 4 GiB unless NCCL_WIN_STRIDE sets it) and, 2.29 on, GIN's signal and counter spaces (gin/gin_host.cc))
    ("symmetric_space_exhausted",
     re.compile(r"^Allocation failed\. No suitable space found to accommodate size=0x[0-9a-fA-F]+ within limit=0x[0-9a-fA-F]+")),
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
    # Round rT4 (issue 11): the WARN forms NCCL 2.29-2.30 added, grouped by what the operator must do. Each is NCCL's
    # WARN("...") format of v2.30.7-1 (the 2.29.7-2.30.4 forms of net_ib/p2p_resiliency*.cc and p2p.cc print
    # "NET/IB: %s: ", __func__, before the same words; (?:\S+: )? takes it). The lines under each are the formats filled
    # in (CONSTRUCTED; bench/nccl_warn_formats.yaml holds every one with its file:line).
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
    # NCCL's GDRCopy wrapper (v2.30.3-1 .. v2.30.7-1 misc/gdrwrap.cc, NCCL_GDRCOPY_ENABLE): the pin through gdrdrv failing
    #   WARN("gdr_pin_buffer_v2(addr %lx, size %zu, flags %u) failed: %d")  (:175, ncclSystemError), and the library too old
    #   for that call  WARN("gdr_pin_buffer_v2 not available; GDRCopy >= 2.5 required")  (:169, ncclInternalError)
    # gdr_pin_buffer_v2(addr 7f3a2c000000, size 65536, flags 1) failed: -22
    ("gdrcopy_pin_v2_failed", re.compile(r"^gdr_pin_buffer_v2\(addr [0-9a-fA-F]+, size \d+, flags \d+\) failed: -?\d+")),
    ("gdrcopy_too_old", re.compile(r"^gdr_pin_buffer_v2 not available; GDRCopy >= \d+\.\d+ required")),
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
    # Kinds without an entry in knowledge/nccl_warn_messages.yaml (what they mean depends on the NCCL version:
    # knowledge/nccl_known_issues.yaml's symptoms name them):
    # WARN("UDS: Binding to socket %s failed : %s (%d)", temp, strerror(errno), errno)   (misc/ipcsocket.cc:57-58, 2.19-2.29;
    #   os/linux_ipcsocket.cc:68 2.30; 2.18: "UDS: Binding to socket %s failed : %d", errno alone), for EADDRINUSE (98):
    #   another process's proxy socket of the same name (/tmp/nccl-socket-<rank>-<hash>)
    # UDS: Binding to socket /tmp/nccl-socket-0-1a2b3c4d5e6f7081 failed : Address already in use (98)
    ("uds_bind_address_in_use", re.compile(r"^UDS: Binding to socket \S+ failed : (?:Address already in use \(98\)|98)\s*$")),
]
