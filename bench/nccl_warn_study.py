#!/usr/bin/env python3
"""NCCL WARN study: which of NCCL's own WARN messages does steth read? (issue 11, "every message
form across versions")

Real incidents arrive as NCCL WARN lines, often without their prefix. MESSAGES below lists the
``WARN("...")`` format strings of NCCL's source that an operator meets on a cluster (the IB and
socket transports, sockets, bootstrap, proxy, init, enqueue, shared memory, P2P, graph, the
ibverbs / CUDA / NVML wrappers, net plugin loading), each with the NCCL file:line it comes from
(NVIDIA/nccl at 5067397c, "Merge nccl4py v0.3.1 release to master", unless a tag is named: an
older form of the same message) and one realistic line made from it (its %s / %d filled with
plausible values). Each line is diagnosed in-process as a one-file bundle (``paste.txt``, as
``steth diagnose --from-logs DIR`` would read it) in two forms:

- ``prefixed``: with NCCL's ``host:pid:tid [dev] file.cc:NNN NCCL WARN `` prefix;
- ``bare``: the message alone, as people paste it.

Per message it prints the outcome of each form: the top serious finding's ``cause``, or
``unexplained_error`` (nothing explains the line, the verdict stays faulty), ``healthy`` or
``inconclusive``; then the counts. ``healthy`` is a bug: a WARN is never healthy.

    .venv/bin/python bench/nccl_warn_study.py            # every message, both forms
    .venv/bin/python bench/nccl_warn_study.py -k IB      # messages whose format holds IB
    .venv/bin/python bench/nccl_warn_study.py -q         # counts only

A benchmark script (it prints figures), not a test; it reads only the text below.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

SERIOUS = {"critical", "fatal", "error", "warning"}

# (NCCL source file:line, the WARN format string, one line made from it). HEAD = 5067397c.
MESSAGES: list[tuple[str, str, str]] = [
    # --- transport/net_ib ---
    ("src/transport/net_ib/p2p.cc:688",
     "NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u %s%s%s%s hca %s",
     "NET/IB: Got completion from peer 10.0.0.12<49152> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129 localGid ::ffff:10.0.0.11 remoteGidsfe80::1 hca mlx5_0"),
    ("v2.18.6-1 src/transport/net_ib.cc:1295",
     "NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d (%s)%s%s%s%s",
     "NET/IB : Got completion from peer 10.0.0.12<49152> with error 12, opcode 0, len 0, vendor err 129 (Send)"),
    ("src/transport/net_ib/p2p.cc:854",
     "NET/IB: Got CQE with error (devIndex=%d, req=%p, comm=%p (%s), wr_id=%lu, qp_num=%d)",
     "NET/IB: Got CQE with error (devIndex=0, req=0x7f3a2c001200, comm=0x7f3a2c000000 (send), wr_id=17, qp_num=4711)"),
    ("src/transport/net_ib/common.cc:123", "NET/IB : %s:%d async fatal event: %s",
     "NET/IB : mlx5_0:1 async fatal event: local catastrophic error"),
    ("src/transport/net_ib/common.cc:140", "NET/IB : %s:%d async fatal event on QP (%p) qpn=%u ...",
     "NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c1a2b3c0) qpn=4711 handle=3 send_cq=12 recv_cq=12 state=6 sq_psn=0 sq_draining=0: local work queue catastrophic error"),
    ("src/transport/net_ib/common.cc:153", "NET/IB : %s:%d GID table changed",
     "NET/IB : mlx5_0:1 GID table changed"),
    ("src/transport/net_ib/common.cc:179", "NET/IB : %s:%d Got non-fatal async event: %s(%d)",
     "NET/IB : mlx5_0:1 Got non-fatal async event: port error(10)"),
    ("src/transport/net_ib/common.cc:184", "NET/IB : %s:%d unknown event type (%d)",
     "NET/IB : mlx5_0:1 unknown event type (18)"),
    ("src/transport/net_ib/init.cc:334", "NET/IB : Unable to open device %s",
     "NET/IB : Unable to open device mlx5_0"),
    ("src/transport/net_ib/init.cc:350", "NET/IB : Unable to query device %s",
     "NET/IB : Unable to query device mlx5_1"),
    ("src/transport/net_ib/init.cc:360", "NET/IB : Unable to query port_num %d",
     "NET/IB : Unable to query port_num 1"),
    ("src/transport/net_ib/init.cc:307", "NET/IB : No IP interface found.",
     "NET/IB : No IP interface found."),
    ("src/transport/net_ib/init.cc:67", "Could not find real path of %s (%s)",
     "Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)"),
    ("src/transport/net_ib/connect.cc:987",
     "NET/IB : Attempted to connect incompatible devices: [%d]%s:%d/%s and [%d]%s:%d/%s. Try selecting NICs of only one link type using NCCL_IB_HCA",
     "NET/IB : Attempted to connect incompatible devices: [0]mlx5_0:1/IB and [1]mlx5_2:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA"),
    ("src/transport/net_ib/connect.cc:372", "NET/IB: mlx5dv_create_qp failed to create QP: %m",
     "NET/IB: mlx5dv_create_qp failed to create QP: Cannot allocate memory"),
    ("src/transport/net_ib/connect.cc:242", "NET/IB: open failed in ncclIbRoceGetVersionNum: %s",
     "NET/IB: open failed in ncclIbRoceGetVersionNum: No such file or directory"),
    ("src/transport/net_ib/p2p.cc:33", "NET/IB : unable to allocate requests",
     "NET/IB : unable to allocate requests"),
    ("src/transport/net_ib/reg.cc:116", "NET/IB: could not find mr %p inside cache of %d entries",
     "NET/IB: could not find mr 0x7f3a2c001200 inside cache of 12 entries"),
    ("src/transport/net_ib/p2p_resiliency.cc:47",
     "NET/IB: Fatal error. Detected %d failed devices out of %d devices on the %s communicator (comm=%p). No ...",
     "NET/IB: Fatal error. Detected 2 failed devices out of 2 devices on the send communicator (comm=0x7f3a2c000000). No functional devices left"),
    ("src/transport/net_ib/gin.cc:42",
     "Unable to use GIN: Peermem is not supported, and device %d does not support DMA-BUF.",
     "Unable to use GIN: Peermem is not supported, and device 0 does not support DMA-BUF."),
    # --- misc/ibvwrap, include/ibvwrap.h ---
    ("src/misc/ibvwrap.cc:42", "Call to " "ibv_reg_mr" " failed with error %s",
     "Call to ibv_reg_mr failed with error Cannot allocate memory"),
    ("src/misc/ibvwrap.cc:68", "Call to " "ibv_modify_qp" " failed with error %s errno %d",
     "Call to ibv_create_qp failed with error Cannot allocate memory errno 12"),
    ("src/misc/ibvwrap.cc:376", "Call to ibv_modify_qp failed with %d %s, %s",
     "Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.11, remote GID ::ffff:10.0.0.12"),
    ("src/misc/ibvwrap.cc:88", "Call to " "ibv_open_device" " failed",
     "Call to ibv_open_device failed"),
    ("v2.18.6-1 src/misc/ibvwrap.cc:52", "Call to " "ibv_reg_mr_iova2" " failed with error %s",
     "Call to ibv_reg_mr_iova2 failed with error Bad address"),
    ("src/misc/ibvwrap.cc:34", "lib wrapper not initialized.", "lib wrapper not initialized."),
    ("src/include/ibvwrap.h:63", "Call to ibv_poll_cq() returned %d", "Call to ibv_poll_cq() returned -5"),
    ("src/include/ibvwrap.h:80", "ibv_post_send() failed with error %s, Bad WR %p, First WR %p",
     "ibv_post_send() failed with error Cannot allocate memory, Bad WR 0x7f3a2c001200, First WR 0x7f3a2c001200"),
    ("src/include/ibvwrap.h:90", "ibv_post_recv() failed with error %s",
     "ibv_post_recv() failed with error Cannot allocate memory"),
    # --- transport/net_socket ---
    ("src/transport/net_socket.cc:61", "NET/Socket : no interface found", "NET/Socket : no interface found"),
    ("src/transport/net_socket.cc:325", "NET/Socket : socket progress error", "NET/Socket : socket progress error"),
    ("src/transport/net_socket.cc:636",
     "NET/Socket : peer %s message truncated : receiving %d bytes instead of %d. If you believe your socket network is in healthy state, there may be a mismatch in collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks",
     "NET/Socket : peer 10.0.0.12<37421> message truncated : receiving 1048576 bytes instead of 65536. If you believe your socket network is in healthy state, there may be a mismatch in collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks"),
    ("src/transport/net_socket.cc:411", "NET/Socket : ncclNetSocketListen dev=%d ncclNetIfs=%d",
     "NET/Socket : ncclNetSocketListen dev=1 ncclNetIfs=1"),
    # --- misc/socket, os/linux (sockets) ---
    ("src/misc/socket.cc:58", "socketProgress: Connection closed by remote peer %s",
     "socketProgress: Connection closed by remote peer node-2<51234>"),
    ("src/os/linux.cc:362", "ncclOsSocketProgressOpt: Call to %s %s failed : %s",
     "ncclOsSocketProgressOpt: Call to recv from 10.0.0.12<51234> failed : Connection reset by peer"),
    ("v2.18.6-1 src/misc/socket.cc:29", "socketProgressOpt: Call to recv from %s failed : %s",
     "socketProgressOpt: Call to recv from 10.0.0.12<51234> failed : Connection reset by peer"),
    ("src/os/linux.cc:302", "%s: connect to %s failed : %s",
     "ncclOsSocketStartConnect: connect to 10.0.0.12<40445> failed : Connection refused"),
    ("src/os/linux.cc:288", "%s: connect to %s returned %s, exceeded error retry count after %d attempts",
     "ncclOsSocketStartConnect: connect to 10.0.0.12<40445> returned Connection timed out, exceeded error retry count after 35 attempts"),
    ("v2.18.6-1 src/misc/socket.cc:483", "socketStartConnect: Connect to %s failed : %s",
     "socketStartConnect: Connect to 10.0.0.12<40445> failed : No route to host"),
    ("v2.18.6-1 src/misc/socket.cc:466", "socketStartConnect: exceeded retries (%d)",
     "socketStartConnect: exceeded retries (34)"),
    ("v2.18.6-1 src/misc/socket.cc:524", "socketPollConnect: exceeded timeouts (%d)",
     "socketPollConnect: exceeded timeouts (35)"),
    ("src/os/linux.cc:328", "ncclOsSocketPollConnect to %s failed with error %s",
     "ncclOsSocketPollConnect to 10.0.0.12<40445> failed with error Connection refused"),
    ("src/os/linux.cc:204", "ncclOsSocketTryAccept: Accept failed: %s",
     "ncclOsSocketTryAccept: Accept failed: Too many open files"),
    ("src/misc/socket.cc:246", "Net : No valid <IPv4_or_hostname>:<port> pair found",
     "Net : No valid <IPv4_or_hostname>:<port> pair found"),
    ("src/misc/socket.cc:257", "Net : error encountered when getting address info : %s",
     "Net : error encountered when getting address info : Name or service not known"),
    ("v2.18.6-1 src/misc/socket.cc:237", "Net : No interface found in the same subnet as remote address %s",
     "Net : No interface found in the same subnet as remote address 10.0.0.12<40445>"),
    ("v2.18.6-1 src/misc/socket.cc:723", "ncclSocketInit: Socket creation failed : %s",
     "ncclSocketInit: Socket creation failed : Address family not supported by protocol"),
    ("src/misc/socket.cc:629", "ncclSocketSend: socket state (%d) is not ready",
     "ncclSocketSend: socket state (7) is not ready"),
    # --- bootstrap ---
    ("src/bootstrap.cc:114", "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>",
     "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>"),
    ("src/bootstrap.cc:120", "NET/Socket : No usable listening interface found",
     "NET/Socket : No usable listening interface found"),
    ("src/bootstrap.cc:126", "Bootstrap : no socket interface found", "Bootstrap : no socket interface found"),
    ("src/bootstrap.cc:224", "Message truncated : received %d bytes instead of %d",
     "Message truncated : received 2048 bytes instead of 64"),
    ("src/bootstrap.cc:335", "Bootstrap Root : mismatch in info from procs, nranks %d vs %d, nroots %d vs %d, ...",
     "Bootstrap Root : mismatch in info from procs, nranks 16 vs 8, nroots 1 vs 1, iroot 0 vs 0, offset 0 vs 0"),
    ("src/bootstrap.cc:348", "Bootstrap Root : rank %d of %d ranks has already checked in",
     "Bootstrap Root : rank 3 of 8 ranks has already checked in"),
    ("src/bootstrap.cc:577", "no device found matching %s%s, verify NCCL_OOB_NET_IFNAME",
     "no device found matching eth9, verify NCCL_OOB_NET_IFNAME"),
    # --- proxy ---
    ("src/proxy.cc:1905", "[Proxy Service %d] Failed to execute operation %s from rank %d, retcode %d",
     "[Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 2"),
    ("src/proxy.cc:1861", "[Service thread] Error encountered progressing operation=%s, res=%d, closing connection",
     "[Service thread] Error encountered progressing operation=Connect, res=3, closing connection"),
    ("src/proxy.cc:1874", "[Service thread] Could not receive type from localRank %d, res=%u, closed=%d",
     "[Service thread] Could not receive type from localRank 2, res=6, closed=0"),
    ("src/proxy.cc:1385", "Socket recv failed while polling for opId=%p", "Socket recv failed while polling for opId=0x7f3a2c001200"),
    ("src/proxy.cc:1275", "ncclProxyCallBlockingUDS call to tpRank %d(%lx) failed : %d",
     "ncclProxyCallBlockingUDS call to tpRank 1(8f3e2a1b4c5d6e7f) failed : 2"),
    ("src/proxy.cc:1299", "ncclProxyClientGetFd call to tpRank %d handle 0x%lx failed : %d",
     "ncclProxyClientGetFd call to tpRank 1 handle 0x7f3a2c001200 failed : 2"),
    ("src/proxy.cc:1808", "[Proxy Service] Poll failed: %s", "[Proxy Service] Poll failed: Interrupted system call"),
    ("src/proxy.cc:1721", "[Proxy Service] Failed to set CUDA device %d", "[Proxy Service] Failed to set CUDA device 3"),
    ("src/proxy.cc:1816", "[Proxy service] Too many connections (%d max)", "[Proxy service] Too many connections (64 max)"),
    ("src/proxy.cc:585", "Rank %d has no transport for %s peer %d on channel %d/%d",
     "Rank 0 has no transport for send peer 1 on channel 0/1"),
    ("v2.18.6-1 src/proxy.cc:809", "Failed to create CUDA context on device %d", "Failed to create CUDA context on device 2"),
    # --- init ---
    ("v2.18.6-1 src/init.cc:795", "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx",
     "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000"),
    ("src/init.cc:1057", "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this ...",
     "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this feature"),
    ("src/init.cc:1043", "Mismatched NCCL version detected : rank %d version %d rank %d version %d",
     "Mismatched NCCL version detected : rank 0 version 22703 rank 4 version 21805"),
    ("src/init.cc:1339", "Detected mixed local Net device counts across ranks (min %d, max %d). Set NCCL_IGNORE_NET_MISMATCH=1 to ...",
     "Detected mixed local Net device counts across ranks (min 4, max 8). Set NCCL_IGNORE_NET_MISMATCH=1 to ignore this check"),
    ("src/init.cc:2314", "Invalid config blocking attribute value %d", "Invalid config blocking attribute value 2"),
    ("src/init.cc:2328", "Invalid config min/max channels attribute value %d/%d", "Invalid config min/max channels attribute value 64/32"),
    ("src/init.cc:2265", "ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER",
     "ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER"),
    ("src/init.cc:2501", "Invalid rank requested : %d/%d", "Invalid rank requested : 8/8"),
    ("src/init.cc:2607", "Invalid device %d (totalnDev=%d)", "Invalid device 8 (totalnDev=8)"),
    ("src/init.cc:430", "Attempt to use communicator before the previous operation returned ncclSuccess",
     "Attempt to use communicator before the previous operation returned ncclSuccess"),
    ("src/init.cc:1415", "Failed to determine local ranks rank %d hostHash %lx pidHash %lx localRank %d localRanks %d localRank0 %d",
     "Failed to determine local ranks rank 3 hostHash 8f3e2a1b4c5d6e7f pidHash 1a2b3c4d5e6f7a8b localRank -1 localRanks 4 localRank0 0"),
    ("src/init.cc:2895", "comm %p has already been destroyed", "comm 0x55d0c1a2b3c0 has already been destroyed"),
    # --- enqueue, group, argcheck ---
    ("src/enqueue.cc:81", "cudaArch %d dynamic smem %d exceeds device/fn maxSharedMem %d",
     "cudaArch 700 dynamic smem 90112 exceeds device/fn maxSharedMem 98304"),
    ("src/enqueue.cc:1160", "Trying to send to self without a matching recv", "Trying to send to self without a matching recv"),
    ("src/enqueue.cc:2063", "No algorithm/protocol available for function %s with datatype %s.%s%s",
     "No algorithm/protocol available for function AllReduce with datatype ncclBfloat16. NCCL_ALGO was set to NVLS."),
    ("src/enqueue.cc:3029", "FP8 reduction support begins with sm90 capable devices.",
     "FP8 reduction support begins with sm90 capable devices."),
    ("src/enqueue.cc:3129", "%s: communicator was revoked", "AllReduce: communicator was revoked"),
    ("src/enqueue.cc:1457", "hostStreamPlanCallback() failed : %s",
     "hostStreamPlanCallback() failed : unhandled system error (run with NCCL_DEBUG=INFO for details)"),
    ("src/group.cc:89", "ncclAsyncJobComplete: job %p failed, job error %d", "ncclAsyncJobComplete: job 0x55d0c1a2b3c0 failed, job error 2"),
    ("src/misc/argcheck.cc:16", "%s : %s %p is not a valid pointer", "AllReduce : sendbuff 0x7f3a2c001200 is not a valid pointer"),
    ("src/misc/argcheck.cc:24", "%s : %s allocated on device %d mismatchs with NCCL device %d",
     "AllReduce : sendbuff allocated on device 1 mismatchs with NCCL device 0"),
    ("src/misc/argcheck.cc:204", "%s : invalid root %d (root should be in the 0..%d range)",
     "Broadcast : invalid root 8 (root should be in the 0..8 range)"),
    # --- CUDA (checks.h, cudawrap), allocation ---
    ("src/include/checks.h:18", "Cuda failure '%s'", "Cuda failure 'out of memory'"),
    ("src/include/checks.h:18", "Cuda failure '%s'", "Cuda failure 'an illegal memory access was encountered'"),
    ("src/include/cudawrap.h:37", "Cuda failure %d '%s'", "Cuda failure 2 'out of memory'"),
    ("src/include/cudawrap.h:37", "Cuda failure %d '%s'", "Cuda failure 999 'unknown error'"),
    ("src/misc/cudawrap.cc:191", "Retrieve %s failed with %d status %d", "Retrieve cuMemCreate failed with 500 status 0"),
    ("src/misc/cudawrap.cc:292", "CUDA some PFN functions not found in the library", "CUDA some PFN functions not found in the library"),
    ("src/include/alloc.h:462", "Failed to CUDA malloc %ld bytes", "Failed to CUDA malloc 4194304 bytes"),
    ("src/include/alloc.h:159", "Failed to CUDA host alloc %ld bytes", "Failed to CUDA host alloc 2097152 bytes"),
    ("src/include/alloc.h:178", "Failed to malloc %ld bytes", "Failed to malloc 1048576 bytes"),
    ("src/include/checks.h:63", "Call to " "name" " failed: %s", "Call to posix_memalign failed: Cannot allocate memory"),
    ("v2.18.6-1 src/include/checks.h:49", "Call to " "name" " failed : %s", "Call to posix_fallocate failed : No space left on device"),
    ("src/include/checks.h:242", "Thread creation failed: %s", "Thread creation failed: Resource temporarily unavailable"),
    ("src/transport/nvls.cc:376", "Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d '%s'. ...",
     "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1073741824 : CUDA error 801 'operation not supported'."),
    # --- NVML ---
    ("src/misc/nvmlwrap.cc:142", "nvmlInit%s() failed: %s", "nvmlInit_v2() failed: Driver/library version mismatch"),
    ("src/misc/nvmlwrap.cc:166", "nvmlDeviceGetHandleByIndex(%d) failed: %s", "nvmlDeviceGetHandleByIndex(3) failed: Unknown Error"),
    ("src/misc/nvmlwrap.cc:187", "nvmlDeviceGetP2PStatus(%d,%d,NVML_P2P_CAPS_INDEX_READ) failed: %s",
     "nvmlDeviceGetP2PStatus(0,1,NVML_P2P_CAPS_INDEX_READ) failed: Unknown Error"),
    ("src/os/linux.cc:615", "Failed to open libnvidia-ml.so.1: %s",
     "Failed to open libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open shared object file: No such file or directory"),
    # --- shared memory (os/linux.cc; misc/shmutils.cc before) ---
    ("src/os/linux.cc:780", "Error: failed to create shared memory file %s, error %s (%d)",
     "Error: failed to create shared memory file /dev/shm/nccl-Xq3bL2, error Permission denied (13)"),
    ("src/os/linux.cc:795", "Error: failed to extend %s to %ld bytes, error: %s (%d)",
     "Error: failed to extend /dev/shm/nccl-Xq3bL2 to 9637892 bytes, error: No space left on device (28)"),
    ("v2.18.6-1 src/misc/shmutils.cc:71", "Error: failed to extend %s to %ld bytes",
     "Error: failed to extend /dev/shm/nccl-Xq3bL2 to 9637892 bytes"),
    ("src/os/linux.cc:806", "Error: Could not map %s size %zu, error: %s (%d)",
     "Error: Could not map /dev/shm/nccl-Xq3bL2 size 9637892, error: Cannot allocate memory (12)"),
    ("src/os/linux.cc:842", "Error while %s shared memory segment %s (size %ld), error: %s (%d)",
     "Error while creating shared memory segment /dev/shm/nccl-Xq3bL2 (size 9637888), error: No space left on device (28)"),
    ("v2.18.6-1 src/misc/shmutils.cc:112", "Error while %s shared memory segment %s (size %ld)",
     "Error while attaching to shared memory segment /dev/shm/nccl-Xq3bL2 (size 9637888)"),
    ("src/os/linux.cc:861", "unlink shared memory %s failed, error: %s (%d)",
     "unlink shared memory /dev/shm/nccl-Xq3bL2 failed, error: No such file or directory (2)"),
    ("src/proxy.cc:1492", "[Service thread] shm close failed", "[Service thread] shm close failed"),
    ("src/transport/shm.cc:308", "Invalid argument desc %p, hptr %p", "Invalid argument desc (nil), hptr 0x7f3a2c001200"),
    # --- P2P, transports ---
    ("src/transport/p2p.cc:250", "cudaIpcGetMemHandle failed : %s", "cudaIpcGetMemHandle failed : invalid argument"),
    ("src/transport/p2p.cc:355", "failed to peer with device %d(=%lx): %d %s",
     "failed to peer with device 1(=1b000): 217 peer access is not supported between these two devices"),
    ("src/transport/net.cc:476", "failed to peer with device %d: %d %s",
     "failed to peer with device 1: 217 peer access is not supported between these two devices"),
    ("src/transport.cc:39", "No transport found for rank %d[%lx] -> rank %d[%lx]",
     "No transport found for rank 0[1a000] -> rank 1[1b000]"),
    ("src/transport.cc:464", "Cannot initialize CollNet, using point-to-point network instead",
     "Cannot initialize CollNet, using point-to-point network instead"),
    # --- graph ---
    ("src/graph/paths.cc:396", "P2P is disabled between NVLINK connected GPUs %d and %d. This should not be the case given their ...",
     "P2P is disabled between NVLINK connected GPUs 0 and 1. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1."),
    ("src/graph/paths.cc:192", "Error : could not find CPU close to GPU %d", "Error : could not find CPU close to GPU 3"),
    ("src/graph/search.cc:138", "No path computed to go from %s/%d to %s/%d", "No path computed to go from GPU/0 to NET/0"),
    ("src/graph/topo.cc:882", "Add PCI Link error : could not find PCI SW %lx", "Add PCI Link error : could not find PCI SW 17000"),
    ("src/graph/topo.cc:977", "localHostHash = 0x%lx not found in the list of system hostHashes",
     "localHostHash = 0x8f3e2a1b4c5d6e7f not found in the list of system hostHashes"),
    ("src/graph/topo.cc:2048", "Could not find any local path from gpu %d to net.", "Could not find any local path from gpu 3 to net."),
    ("src/graph/topo.h:269", "Could not find NET with id %lx", "Could not find NET with id 4"),
    ("src/graph/rings.cc:64", "Error : ring %d does not contain rank %d", "Error : ring 0 does not contain rank 5"),
    # --- net plugin ---
    ("src/plugin/net.cc:349", "Failed to initialize any NET plugin", "Failed to initialize any NET plugin"),
    ("v2.18.6-1 src/net.cc:285", "Error: network %s not found.", "Error: network IB not found."),
    ("src/plugin/net.cc:153", "NCCL_DEVICE_UNPACK plugin has incompatible version %d, this NCCL build is compatible with %d, not using it",
     "NCCL_DEVICE_UNPACK plugin has incompatible version 2, this NCCL build is compatible with 1, not using it"),
    ("src/plugin/net.cc:361", "Comm config netName (%s) does not match the parent (%s)",
     "Comm config netName (Socket) does not match the parent (IB)"),
]

PREFIX = "node-1:48213:48390 [3] {src}:{line} NCCL WARN "


def prefixed(where: str, msg: str) -> str:
    """The line with NCCL's prefix: the source path as NCCL prints it (relative to src/)."""
    path, line = where.split()[-1].rsplit(":", 1)
    return PREFIX.format(src=path.removeprefix("src/"), line=line) + msg


def outcome(report: dict) -> str:
    findings = sorted(report.get("findings") or [], key=lambda f: f.get("rank", 99))
    serious = [f for f in findings if f.get("severity") in SERIOUS]
    if serious:
        return serious[0].get("cause", "?")
    return report.get("verdict", "?")


def diagnose_text(text: str, ruleset) -> dict:
    from stethoscope.engine.pipeline import diagnose, observe_bundle

    with tempfile.TemporaryDirectory(prefix="tmp-nccl-warn-") as tmp:
        (Path(tmp) / "paste.txt").write_text(text + "\n", encoding="utf-8")
        rep = diagnose(observe_bundle(tmp, 1, ruleset=ruleset), ruleset)
    return json.loads(rep.model_dump_json(exclude_none=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only messages whose format string holds this text")
    ap.add_argument("-q", "--quiet", action="store_true", help="counts only")
    args = ap.parse_args()
    from stethoscope.engine.ruleengine.loader import load_rules

    ruleset = load_rules()
    started = time.time()
    counts = {"prefixed": collections.Counter(), "bare": collections.Counter()}
    healthy: list[str] = []
    rows = [m for m in MESSAGES if args.k.lower() in m[1].lower()]
    for where, fmt, msg in rows:
        got = {}
        for form, text in (("prefixed", prefixed(where, msg)), ("bare", msg)):
            got[form] = outcome(diagnose_text(text, ruleset))
            kind = got[form] if got[form] in ("unexplained_error", "healthy", "inconclusive") else "explained"
            counts[form][kind] += 1
            if got[form] == "healthy":
                healthy.append(f"{form}: {text}")
        if not args.quiet:
            print(f"{where:40s} {got['prefixed']:28s} {got['bare']:28s} {msg[:90]}")
    print(f"\n{len(rows)} messages; {time.time() - started:.0f}s")
    for form, c in counts.items():
        print(f"{form:9s} explained {c['explained']:3d}  unexplained_error {c['unexplained_error']:3d}  "
              f"inconclusive {c['inconclusive']:3d}  healthy {c['healthy']:3d}")
    for text in healthy:
        print(f"  HEALTHY {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
