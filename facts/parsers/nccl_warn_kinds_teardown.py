"""NCCL's WARN kinds of tearing a communicator down, of NCCL's own consistency checks and of lines that follow an
earlier failure: communicators destroyed twice or failing to free, resources not released at close, internal errors,
threads. A part of :mod:`nccl_warn_kinds` (what a kind is, where its meaning lives, how the patterns are written; its
``_KINDS`` puts these after the other areas' lists: the first pattern that matches names the kind)."""
from __future__ import annotations

import re

KINDS: list[tuple[str, re.Pattern[str]]] = [
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
    # Round rT4 (issue 11): the WARN forms NCCL 2.29-2.30 added, grouped by what the operator must do. Each is NCCL's
    # WARN("...") format of v2.30.7-1 (the 2.29.7-2.30.4 forms of net_ib/p2p_resiliency*.cc and p2p.cc print
    # "NET/IB: %s: ", __func__, before the same words; (?:\S+: )? takes it). The lines under each are the formats filled
    # in (CONSTRUCTED; bench/nccl_warn_formats.yaml holds every one with its file:line).
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
    # WARN("NET/IB: Resiliency context is NULL. Nothing to destroy.")  (p2p_resiliency.cc:956, returns ncclSuccess: nothing to do)
    ("ib_resiliency_nothing_to_destroy", re.compile(r"^NET/IB: (?:\S+: )?Resiliency context is NULL\. Nothing to destroy")),
    # round rW4 (issue 11): the forms 2.29-2.30 left unexplained, and their twins of other releases. The sample line under
    # each group is CONSTRUCTED from the format above it (bench/nccl_warn_formats.yaml has each with its file:line).
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
]
