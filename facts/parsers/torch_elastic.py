"""torchrun (torch.distributed.elastic) rendezvous and c10d store failures.

Command: ``torchrun ...`` / ``python -m torch.distributed.run ...`` (its own log, or the job's).

Sample content (pytorch/pytorch#79388, the agent's launch configs then the failure)::

    rdzv_endpoint    : IP1:2222
    rdzv_configs     : {'timeout': 900}
    [E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).
        "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",

and the store client of PyTorch 2.x (modelscope/DiffSynth-Studio#538)::

    torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to

and its 1.x form, raised from ``TCPStore(...)`` in init_process_group's rendezvous (xh-liu/CC-FPSE#6)::

    RuntimeError: connect() timed out.

and the agent's own rendezvous lines (torchrun 2.11 on the H200 with --nnodes=2 and one node
started; the dynamic rendezvous of 1.9-2.x at INFO, torch/distributed/elastic/rendezvous/dynamic_rendezvous.py)::

    I1201 10:35:57.549000 440 torch/distributed/elastic/agent/server/api.py:693] [default] Rendezvous'ing worker group
    [INFO] 2021-06-29 12:04:55,398 dynamic_rendezvous: The node 'master1_21848_0' attempts to join the next round of the rendezvous '11'.
    [INFO] 2021-06-29 12:05:25,632 dynamic_rendezvous: The node 'master1_21848_0' has joined round 0 of the rendezvous '11' as rank 0 in a world of size 1.

and the c10d store's own errors in any PyTorch 2.x output: the store server that gave up waiting for
its clients (OpenRLHF/OpenRLHF#1040), and a store or peer connection closed from the other end
(pytorch/pytorch#118666, #128970)::

    torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.
    torch.distributed.DistNetworkError: Connection reset by peer

Facts: ``torch_rendezvous_error`` (``error``: timeout | connection | closed | store_timeout |
state | clients_timeout (``clients_joined`` of ``clients_expected``) | connection_lost (the
other end closed the socket: ECONNRESET, EPIPE; also a Gloo pair's "Connection closed by peer", and a joined node's
keep-alive or shutdown failing with RendezvousConnectionError, ``during_rendezvous`` false), the endpoint and timeout when printed; the launch config's ``rdzv_endpoint``, ``min_nodes``
when the file shows them); ``torch_rendezvous_join`` for each node that took part (``attempt``: the
agent began its rendezvous or a node asked to join; ``joined``: a node joined a round; ``host``
from the node descriptor ``{addr}_{pid}_{local_id}``, else the file's node). The exception names are PyTorch's own
(``torch/distributed/elastic/rendezvous/api.py``: RendezvousTimeoutError "did not complete on
time", RendezvousConnectionError "the connection to a rendezvous backend has failed",
RendezvousClosedError, RendezvousStateError).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    TorchAgentSignal, TorchRendezvousError, TorchRendezvousIncomplete, TorchRendezvousJoin, TorchWorkerGroupFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "torch_elastic"


# "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
# torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError
# torch.distributed.elastic.rendezvous.api.RendezvousError: Unexpected state of EtcdRendezvousHandler, worker needs to die.
#   (the base class, etcd_rendezvous.py and c10d_rendezvous_backend.py 1.9+; RendezvousGracefulExitError, 2.4+, is no failure)
RDZV = re.compile(r"\bRendezvous(?P<which>Timeout|Connection|Closed|State)?Error\b:?(?P<msg>[^\"\n]*)")
# a node that had joined, failing to reach the rendezvous afterwards: the dynamic rendezvous's keep-alive timer (every
# keep_alive_interval, 5 s) and its shutdown() on the agent's way out, each logger.warning with the error's class name
# (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py _keep_alive and shutdown, 1.9 on):
#   f"The node '{self._this_node}' has failed to send a keep-alive heartbeat to the rendezvous '{run_id}' due to an error of type {type(ex).__name__}."
#   f"The node '{self._this_node}' has failed to shutdown the rendezvous '{run_id}' due to an error of type {type(ex).__name__}."
# WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:The node 'docker.b_3427_0' has failed to send a keep-alive heartbeat to the rendezvous 'test' due to an error of type RendezvousConnectionError.   (pytorch/pytorch#67742)
# W0813 22:23:32.979031 140204091807488 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1267] The node 'xxxxx' has failed to send a keep-alive heartbeat to the rendezvous '100' due to an error of type RendezvousTimeoutError.
# The nodes had met: the store behind the rendezvous (the c10d backend's TCPStore, hosted by the agent at the endpoint)
# went away or stopped answering mid-run; not a failure to meet (torch_rendezvous_failed). RendezvousConnectionError is the
# store's connection lost (error connection_lost); another class is read as that error, outside the rendezvous.
POST_JOIN = re.compile(r"The node '[^'\n]{0,300}' has failed to (?P<op>send a keep-alive heartbeat to|shutdown) the rendezvous "
                       r"'[^'\n]{0,300}' due to an error of type Rendezvous(?P<which>Timeout|Connection|Closed|State)?Error\b")
# [E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).
# torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to
#   [E socket.cpp:1019] The client socket has timed out after 900000ms while trying to connect   (kubeflow/sdk#142: cut before "to")
STORE = re.compile(r"The client socket has timed out after (?P<n>\d+)(?P<unit>ms|s) while trying to connect\b"
                   r"(?: to(?: \(?(?P<host>[^,()\s]+)(?:, |:)(?P<port>\d+)\)?)?)?")
# the same client of PyTorch 1.x: TCPStore's connect to the store (torch/lib/c10d/Utils.cpp tcputil::connect, retried while
# the address refuses, then `throw std::runtime_error(kConnectTimeoutMsg)` once the timeout has passed or a poll ran out;
# `const std::string kConnectTimeoutMsg = "connect() timed out.";`), raised from init_process_group's rendezvous handler:
#   store = TCPStore(result.hostname, result.port, world_size, start_daemon)
# RuntimeError: connect() timed out.          (xh-liu/CC-FPSE#6, the traceback's last line; no address, no timeout printed)
#   (only as Python prints the C++ exception, the whole message: "provider.connect() timed out after 8s" is another program's)
OLD_STORE = re.compile(r"\bRuntimeError: connect\(\) timed out\.[ \t]*$", re.M)
# the store server (rank 0's TCPStore, torch/csrc/distributed/c10d/TCPStore.cpp waitForWorkers, PyTorch >= 2.2):
# torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.   (OpenRLHF/OpenRLHF#1040)
CLIENTS = re.compile(r"Timed out after (?P<n>\d+) seconds waiting for clients\. (?P<joined>\d+)/(?P<world>\d+) clients joined")
# the store's or a peer's socket closed from the other end: c10d's SYSCHECK throws DistNetworkError with
# strerror(errno) (torch/csrc/distributed/c10d/Utils.hpp; RuntimeError before 2.0, not read: too general alone):
# torch.distributed.DistNetworkError: Connection reset by peer      (pytorch/pytorch#118666, #128970)
# torch.distributed.DistNetworkError: Broken pipe
LOST = re.compile(r"\bDistNetworkError: (?P<err>Connection reset by peer|Broken pipe)\s*$", re.M)
# the same from Gloo's TCP pair (a gloo process group's peer rank): gloo/transport/tcp/pair.cc (and tcp/tls/pair.cc)
# signalException(GLOO_ERROR_MSG("Connection closed by peer ", peer_.str())) on EOF, "Read error "/"writev " with
# strerror(errno), "Socket closed "/"Socket unexpectedly closed "; peer_.str() is "[ip]:port", "$seq" after it when set:
# RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:10895
# RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [192.168.70.92]:25266: Connection reset by peer
#   (both RVC-Project/Retrieval-based-Voice-Conversion-WebUI#1882). A bare "Connection closed by peer" is many programs'
#   text: read only behind gloo's source path.
GLOO_LOST = re.compile(r"gloo/transport/tcp/(?:tls/)?pair\.cc:\d+\] (?:Connection closed by peer|Socket (?:unexpectedly )?closed"
                       r"|(?:Read error|writev) \[[^\]\s]*\]:\d+(?:\$\d+)?: (?:Connection reset by peer|Broken pipe))")
# c10d's TCPStore client finding its connection to the store closed under it (TCPStore.cpp receiveValue/receiveVector:
# C10D_WARNING("recvValue failed on {}: {}", socket_.repr(), e.what()), 2.4+; e.what() "failed to recv, got 0 bytes",
# 2.6+ "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?", or the errno):
# [W822 03:54:49.636977195 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=15, addr=[wcde03d70a73-node-0-1.wcde03d70a73.kubeflow-user-example-com.svc.cluster.local]:60560, remote=[wcde03d70a73-node-0-0.wcde03d70a73.kubeflow-user-example-com.svc.cluster.local]:29500): failed to recv, got 0 bytes Exception raised from recvBytes at ...   (kubeflow/website#4186: the stack run onto the same line)
# [W304 19:44:41.898456436 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=73, addr=localhost:46764, remote=localhost:29500): Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?
# the same of a wait with a timeout (TCPStore.cpp receiveValueWithTimeout, C10D_WARNING("recvValueWithTimeout failed on {}: {}")):
# [rank101]:[W703 01:01:05.364835151 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on SocketImpl(fd=90, addr=[cw-h100-220-057.dm1-compute-compute.tenant-slurm.svc.cluster.local]:43518, remote=[cw-h100-192-053.dm1-compute-compute.tenant-slurm.svc.cluster.local]:56789): Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?   (NVIDIA/nccl#1762, PyTorch 2.8)
# and its send to the store failing the same way (TCPStore.cpp:106, C10D_WARNING("sendBytes failed on {}: {}"), 2.4+):
# [rank0]:[W510 09:16:34.395619793 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=62, addr=[::ffff:172.20.14.147]:54761, remote=[::ffff:172.20.14.147]:46989): Broken pipe   (modal-labs/modal-examples#1558)
RECV_LOST = re.compile(r"\[c10d\] (?:recv(?:Value(?:WithTimeout)?|Vector)|sendBytes) failed on SocketImpl\(fd=-?\d{1,9}, addr=[^\s,()]{1,300}, "
                       r"remote=(?P<remote>[^\s,()]{1,300})\): (?:[Ff]ailed to recv, got 0 bytes|Connection reset by peer|Broken pipe)")
# ProcessGroupNCCL's heartbeat monitor polling the store for a flight-recorder dump request and finding the store gone
# (ProcessGroupNCCL.cpp, LOG(WARNING) "Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has
# shut down too early), with error: " << e.what(), 2.3+; "We give up for now assuming TCPStore has been torn down"):
# [rank0]:[W510 09:16:33.395368149 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 0] Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken pipe   (modal-labs/modal-examples#1558)
#   (2.6+ the error may be the 0-byte recv text of the TCPStore lines above)
SHOULD_DUMP = re.compile(r'Failed to check the "should dump" flag on TCPStore, \(maybe TCPStore server has shut down too early\),'
                         r" with error: (?P<err>[^\n]{0,300})")
# The same poll's failure told by its exception's stack alone (the warning's own line cut from the paste): handleError's
# e.what() is the c10::Error the store client raised, which ends with its C++ stack ("Exception raised from recvBytes at
# .../Utils.hpp:679 (most recent call first):", then "frame #N: ..."): the monitor's loop under the store's check.
# ProcessGroupNCCL.cpp 2.8+: void ProcessGroupNCCL::HeartbeatMonitor::runLoop() { ... checkExceptionDump =
# pg_->globalStore()->check({std::string(kStoreDumpKey)}); } catch (const std::exception& e) { handleError(e.what()); }
# (then pg_->globalStore()->get(kStoreDumpKey)); 2.3-2.7 the same poll in void ProcessGroupNCCL::heartbeatMonitor():
# frame #2: c10d::TCPStore::check(std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&) + 0x273 (0x7b0e0dba3413 in /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cpu.so)
# frame #3: c10d::ProcessGroupNCCL::HeartbeatMonitor::runLoop() + 0x4a5 (0x7b0df038f8c5 in /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so)
#   (sgl-project/sglang#28396, PyTorch 2.8: the store's server gone as SGLang's scheduler died)
# the monitor's frame, the store's frame among the frames above it in the same stack (MONITOR_SPAN rows up)
MONITOR_FRAME = re.compile(r"^\s*frame #\d{1,3}: c10d::ProcessGroupNCCL::(?:HeartbeatMonitor::runLoop|heartbeatMonitor)\(\)")
STORE_FRAME = re.compile(r"^\s*frame #\d{1,3}: c10d::(?:TCPStore|PrefixStore)::(?:check|get)\(")
MONITOR_SPAN = 8
#: the classifier's signature of the monitor's frame (facts/classify.py: one RE2 set over whole texts)
MONITOR_SIGNATURE = re.compile(r"(?m)^\s*frame #\d{1,3}: c10d::ProcessGroupNCCL::(?:HeartbeatMonitor::runLoop|heartbeatMonitor)\(\)")
# A store wait for a key another rank should have set timed out (TCPStore.cpp, c10d Utils.hpp, ProcessGroupNCCL.cpp):
# RuntimeError: Socket Timeout                                   (1.x-2.x recvBytes, TCPStore get/wait)
# RuntimeError: Wait timeout                                     (1.x TCPStore::wait)
# torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /default_pg//0//cuda//0     (2.4+ TCPStore doWait)
# barrier timeout after 1800000ms, key: /default_pg/barrier     (2.x TCPStore barrier)
# RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout   (zai-org/ChatGLM-6B#1232, 1.13)
# torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout   (bytedance/HLLM#20)
#   (2.x: "... NCCL communicators and retrieving ncclUniqueId(s) from roots via TCPStore by key '...'")
UNIQUE_ID = re.compile(r"\[(?P<rank>\d+)\] is setting up NCCL communicators? and retr(?:ie|ei)ving ncclUniqueIds? from"
                       r" (?:\[(?P<root>\d+)\]|roots) via (?:c10d key-value store|TCPStore) by key '(?P<key>[^'\n]{0,200})',"
                       r"(?: but store->get\('[^'\n]{0,200}'\))? got (?:error|exception): (?P<err>[^\n]{0,300})")
# the same store wait told without its keys (an issue title, nvidia-cosmos/cosmos-transfer1#80), and the
# warning the client's socket prints as the wait runs out (torch/csrc/distributed/c10d/socket.cpp
# SocketImpl::waitForInput, which TCPStore::doWait's receiveValueWithTimeout calls; 2.2+):
# [Error] torch.distributed.DistStoreError: wait timeout after 1800000ms
# rank0]:[W508 03:01:33.552938478 socket.cpp:489] [c10d] waitForInput: socket SocketImpl(fd=57, addr=[::ffff:127.0.0.1]:50790, remote=[localhost]:29500) timed out after 1800000ms   (cosmos-transfer1#80)
# [rank7]:[W302 23:38:43.990204332 socket.cpp:462] [c10d] waitForInput: poll for socket SocketImpl(fd=96, addr=[localhost]:49430, remote=[localhost]:29501) returned 0, likely a timeout   (NVIDIA/cosmos#124)
KEY_TIMEOUT = re.compile(r"\b(?:RuntimeError|DistStoreError|DistNetworkError|DistError): (?P<err>Socket Timeout|Wait timeout)\b"
                         r"|\b(?P<what>wait|barrier) timeout after (?P<ms>\d+)ms, keys?: (?P<key>\S{1,200})"
                         r"|\bDistStoreError: wait timeout after (?P<ms2>\d+)ms"
                         r"|\bwaitForInput: (?:poll for )?socket (?:[^\n]{0,300}?remote=\[(?P<rhost>[^\]\s]+)\]:(?P<rport>\d+)\) )?"
                         r"(?:timed out after (?P<ms3>\d+)ms|returned 0, likely a timeout)"
                         r"|\bTimeout waiting for key: (?P<key2>\S{1,200})")
# distributed_c10d.py _store_based_barrier (1.8 on; DistStoreError with num_workers_joined and the store's error from 2.2):
# RuntimeError: Timed out initializing process group in store based barrier on rank: 2, for key: store_based_barrier_key:1 (world_size=2, worker_count=4, timeout=0:30:00)   (tczhangzhi/pytorch-distributed#18)
# RuntimeError: Timed out initializing process group in store based barrier on rank: 4330, for key: store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)   (facebookresearch/metaseq#52)
BARRIER = re.compile(r"Timed out initializing process group in store based barrier on rank:? (?P<rank>\d+), for key: (?P<key>\S+)"
                     r" \(world_size=(?P<world>\d+), (?:worker_count|num_workers_joined)=(?P<joined>\d+), timeout=(?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d)")
# and the same barrier's progress line while it waits (logger.info every 10 s; 1.8-1.13: the loop `while worker_count !=
# world_size`, "logger.info("Waiting in store based barrier to initialize process group for " "rank: {}, key: {}
# (world_size={}, worker_count={}, timeout={})".format(...))"; 2.0-2.1: num_workers_joined=%s (" error: %s" after it in
# one release); 2.2+ at debug: "... process group for %s seconds" "rank: %s, key: %s (world_size=%s, num_workers_joined=%s,
# timeout=%s error=%s)", the two literals joined without a space):
# Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=4, worker_count=8, timeout=0:30:00)   (ultralytics/yolov5#4574)
# INFO:root:Waiting in store based barrier to initialize process group for rank: 6, key: store_based_barrier_key:1 (world_size=8, worker_count=7, timeout=0:30:00)   (Lightning-AI/pytorch-lightning#4420)
WAITING = re.compile(r"Waiting in store based barrier to initialize process ?group for (?:\d{1,12}(?:\.\d{1,12})? seconds ?)?"
                     r"rank:? (?P<rank>\d+), key: (?P<key>\S+) \(world_size=(?P<world>\d+), (?:worker_count|num_workers_joined)=(?P<joined>\d+),")
# and its end, once every rank checked in (1.10-1.11 "Rank {rank}: Completed store-based barrier for {world_size} nodes.";
# 1.12+ "Rank {rank}: Completed store-based barrier for key:{store_key} with {world_size} nodes."): looked for only to tell a
# wait that ended from one that did not; not a line this reader claims (alone it says nothing of the job's health):
# INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 1 nodes.
COMPLETED = re.compile(r"Rank \d+: Completed store-based barrier for (?:key:(?P<key>\S+) with )?\d+ nodes")
# the client that could not connect at all (socket.cpp, 1.12+; it retries until its timeout, then raises):
# [W socket.cpp:601] [c10d] The client socket has failed to connect to [node12]:29500 (errno: 111 - Connection refused).
# torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (node12, 29500).
# and its connect attempts that time out, retried until the store's timeout (socket.cpp SocketConnectOp::tryConnect, 2.2+:
# C10D_WARNING("The server socket on {} has timed out, will retry.", addr, err)), and TCPStore's client retrying its
# connect-and-validate (TCPStore.cpp TCPStore::TCPStore, 2.3+: C10D_WARNING("TCP client failed to connect/validate to
# host {}:{} - retrying (try={}, timeout={}ms, delay={}ms): {}"); "- timed out (try={}, timeout={}ms): {}" when it gives up):
# [W106 01:32:36.793651000 socket.cpp:942] [c10d] The server socket on [::ffff:10.253.40.30]:55872 has timed out, will retry.   (vllm-project/vllm-metal#58)
# ^C[W106 01:34:16.357373000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host 10.253.40.30:55872 - retrying (try=0, timeout=1800000ms, delay=1266ms): Interrupted system call   (vllm-project/vllm-metal#58)
#   (a reason that is the client socket's own timeout is STORE's; "Ping failed, invalid value returned from server" is a
#   store that answered with something else on its port: neither is read here)
CONNECT = re.compile(r"The client socket has failed to connect to (?:any network address of \((?P<host>[^,()\s]+), (?P<port>\d+)\)"
                     r"|\[(?P<host2>[^\]\s]+)\]:(?P<port2>\d+)(?: \(errno: (?P<errno>\d+) - (?P<strerr>[^)\n]{0,80})\))?)"
                     r"|The server socket on \[(?P<host3>[^\]\s]{1,253})\]:(?P<port3>\d{1,5}) has timed out, will retry"
                     r"|TCP client failed to connect/validate to host (?P<host4>[^\s:]{1,253}|\[[^\]\s]{1,253}\]):(?P<port4>\d{1,5})"
                     r" - (?:retrying|timed out) \(try=\d{1,9}, timeout=\d{1,12}ms(?:, delay=\d{1,12}ms)?\): (?P<why>[^\n]{0,80})")
#: the reasons of TCPStore's retry line read elsewhere or not a failed connect (see CONNECT)
_NOT_CONNECT = ("The client socket has timed out", "Ping failed")
# the store's server could not listen: its port is taken (socket.cpp 1.12+; c10d SYSCHECK's strerror before):
# RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).   (showlab/Tune-A-Video#90)
# torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use   (2.4+, the libuv store)
# RuntimeError: Address already in use    (1.x)
#   the error's "(<category>: <value> - <message>)" is c10d/error.h's formatter of std::error_code: "errno" for the
#   generic category (1.12+), "<name> error" before ("generic error", 1.10-1.11) and for any other category (Windows'
#   system category: WSAEADDRINUSE 10048, its message in the system's language); the value is the platform's
#   (Linux 98, macOS 48), so the message or Windows' code says it:
# 12:03:34   test_default_store_timeout_nccl (__main__.TimeoutTest) ... [W socket.cpp:334] The server socket has failed to bind to [::]:38655 (generic error: 98 - Address already in use).   (pytorch/pytorch#68716)
# [W socket.cpp:436] [c10d] The server socket has failed to bind to [DESKTOP-L9L2GVM]:10086 (system error: 10048 - 通常每 个套接字地址(协议/网络地址/端口)只允许使用一次。).   (YYuX-1145/Bert-VITS2-Integration-package#54)
IN_USE = re.compile(r"The server socket has failed to (?:listen|bind)[^\n]{0,400}?(?:\((?:errno|generic error): \d{1,5} - Address already in use\)"
                    r"|\(system error: 10048 - |name: EADDRINUSE)"
                    r"|\b(?:RuntimeError|DistNetworkError): Address already in use\s*$", re.M)
# the store's server could not bind its port for want of privilege: EACCES (13, "Permission denied") on bind, Linux
# letting only root (CAP_NET_BIND_SERVICE) bind a port below 1024 (a MASTER_PORT drawn from $RANDOM, a port number
# mistyped), or a security policy refusing it; c10d's same formatter (socket.cpp), the libuv store's uv_err_name:
# torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:98 (errno: 13 - Permission denied). The server socket has failed to bind to 0.0.0.0:98 (errno: 13 - Permission denied).   (KimMeen/Time-LLM#158)
#   (the libuv store's "port: 98, useIpv6: 0, code: -13, name: EACCES, message: permission denied" is the same refusal)
BIND_DENIED = re.compile(r"The server socket has failed to (?:listen|bind)[^\n]{0,400}?(?:\((?:errno|generic error): 13 - Permission denied\)"
                         r"|name: EACCES)")
#   the port after "[host]:", the libuv store's "port: ", or an unbracketed address or name ("bind to 0.0.0.0:22",
#   "bind to activate.adobe.com:10086" of the lines above)
PORT = re.compile(r"(?:\]:|port: |(?:bind to|listen on) [^\s\[\]():]{1,253}:)(?P<port>\d+)")
# torchrun's agent signalled from outside, and the agent shutting its workers down (multiprocessing/api.py, agent/server/api.py, 1.9+):
# torch.distributed.elastic.multiprocessing.api.SignalException: Process 8665 got signal: 1        (zai-org/ChatGLM2-6B#238)
# W0409 07:28:49.530000 1359 torch/distributed/elastic/agent/server/api.py:719] Received 15 death signal, shutting down workers   (pytorch/pytorch#150916)
# W0409 07:28:49.531000 1359 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1365 closing signal SIGTERM
SIGNALS = re.compile(r"\bSignalException: Process (?P<pid>\d+) got signal: (?P<sig>\w+)"
                     r"|\bReceived (?P<sig2>[\w.]+) death signal, shutting down workers"
                     r"|\bSending process (?P<pid3>\d+) closing signal (?P<sig3>SIG\w+)")
# the agent found its worker group failed and restarts it (agent/server/api.py _invoke_run, 1.9+: logger.info("[%s]
# Worker group %s. %s/%s attempts left; will restart worker group", role, state.name, remaining_restarts, max_restarts),
# the state FAILED or UNHEALTHY; forks such as DLRover's add ", is failure node: ..." and a closing dot):
# INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. 3/3 attempts left; will restart worker group   (shun-zheng/Doc2EDAG#24)
#   (with no restart left the agent stops the group and returns its failures, which the launcher reports: the
#   failures table, torch_worker_failed's)
GROUP_FAILED = re.compile(r"\] Worker group (?P<state>FAILED|UNHEALTHY)[.,] (?:is failure node: \w{1,10}, ?)?"
                          r"(?P<left>\d{1,6})/(?P<max>\d{1,6}) attempts left; will restart worker group")
# the same handler's raise as a traceback quotes its source (PyTorch's line, verbatim; an issue's title is often just it):
# raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)        (modelscope/ms-swift#64, title)
#   it names no signal (the exception's line after it does, where the paste kept it): the handler runs only for the
#   signals the agent traps (SIGTERM, SIGINT, SIGHUP, SIGQUIT), so the agent was signalled from outside
RAISED = re.compile(r"\braise SignalException\(f[\"']Process \{os\.\w{1,12}\(\)\} got ")

# I1201 10:35:57.549000 440 torch/distributed/elastic/agent/server/api.py:693] [default] Rendezvous'ing worker group
# The node 'master1_21848_0' attempts to join the next round of the rendezvous '11'.
# The node 'master1_21848_0' has joined round 0 of the rendezvous '11' as rank 0 in a world of size 1.
JOIN = re.compile(
    r"\[[\w\-]+\] Rendezvous'ing worker group"
    r"|The node '(?P<desc>[^']+)' (?:attempts to join the next round|has joined round (?P<round>\d+)) of the rendezvous '(?P<run>[^']*)'"
    r"(?: as rank (?P<rank>\d+) in a world of size (?P<world>\d+))?"
)
# rdzv_endpoint    : IP1:2222
# I1201 10:35:57.543000 440 torch/distributed/launcher/api.py:224]   rdzv_endpoint            : localhost:29555   (2.x, glog prefix)
ENDPOINT = re.compile(r"(?:^|\] )\s*rdzv_endpoint\s*:\s*(?P<ep>\S+)\s*$", re.M)
# min_nodes        : 2
# I1201 10:35:57.543000 440 torch/distributed/launcher/api.py:224]   min_nodes                : 2
MIN_NODES = re.compile(r"(?:^|\] )\s*min_nodes\s*:\s*(?P<n>\d+)\s*$", re.M)


_ANY = re.compile(r"Rendezvous(?:Timeout|Connection|Closed|State)?Error\b|client socket has timed out|RuntimeError: connect\(\) timed out\."
                  r"|seconds waiting for clients\. |DistNetworkError: (?:Connection reset by peer|Broken pipe)|" + GLOO_LOST.pattern +
                  r"|\[c10d\] (?:recv(?:Value(?:WithTimeout)?|Vector)|sendBytes) failed on SocketImpl\(|\"should dump\" flag on TCPStore" +
                  r"|ncclUniqueId|Socket Timeout|Wait timeout|wait timeout after|barrier timeout after|Timeout waiting for key: |waitForInput: "
                  r"|store based barrier|client socket has failed to connect|server socket has failed to|Address already in use"
                  r"|has timed out, will retry|TCP client failed to connect/validate"
                  r"|SignalException: Process|raise SignalException\(|death signal, shutting down|closing signal SIG"
                  r"|attempts left; will restart worker group")
#: the literals in front of each pattern of this reader (detect's cheap gate)
_GATES = ("Rendezvous", "client socket has", "waiting for clients", "DistNetworkError: ", "ncclUniqueId", "Socket Timeout",
          "Wait timeout", "wait timeout after", "barrier timeout after", "Timeout waiting for key", "waitForInput: ", "store based barrier",
          "server socket has failed", "Address already in use", "has timed out, will retry", "TCP client failed to connect/validate", "SignalException", "death signal", "closing signal", "attempts left; will restart",
          "] recvValue failed on ", "] recvVector failed on ", "] sendBytes failed on ", '"should dump" flag on TCPStore',
          "ProcessGroupNCCL::HeartbeatMonitor::runLoop()", "ProcessGroupNCCL::heartbeatMonitor()")


def detect(text: str) -> bool:
    if any(g in text for g in _GATES) and any(
            p.search(text) for p in (UNIQUE_ID, KEY_TIMEOUT, BARRIER, WAITING, CONNECT, IN_USE, BIND_DENIED, SIGNALS, GROUP_FAILED, RAISED)):
        return True
    return ("Rendezvous" in text and RDZV.search(text) is not None) or (
        "client socket has timed out" in text and STORE.search(text) is not None) or (
        "connect() timed out." in text and OLD_STORE.search(text) is not None) or (
        ("Rendezvous'ing" in text or "of the rendezvous '" in text) and JOIN.search(text) is not None) or (
        "waiting for clients" in text and CLIENTS.search(text) is not None) or (
        "DistNetworkError: " in text and LOST.search(text) is not None) or (
        "gloo/transport/tcp/" in text and GLOO_LOST.search(text) is not None) or (
        " failed on SocketImpl(" in text and RECV_LOST.search(text) is not None) or (
        '"should dump" flag on TCPStore' in text and SHOULD_DUMP.search(text) is not None) or (
        ("HeartbeatMonitor::runLoop()" in text or "::heartbeatMonitor()" in text) and bool(_monitor_store_frames(text.split("\n"))))


def _monitor_store_frames(lines: list[str]) -> list[tuple[int, str]]:
    """(1-based line, the store's frame) of each heartbeat monitor frame with a store check's frame above it in its stack
    (MONITOR_FRAME, STORE_FRAME): the monitor's "should dump" poll failing, the store gone."""
    found = []
    for n, line in enumerate(lines, 1):
        if "eartbeatMonitor" in line and MONITOR_FRAME.match(line) is not None:
            for k in range(n - 1, max(0, n - 1 - MONITOR_SPAN), -1):
                if STORE_FRAME.match(lines[k - 1]) is not None:
                    found.append((n, lines[k - 1]))
                    break
                if not lines[k - 1].lstrip().startswith("frame #"):
                    break
    return found


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    ep = ENDPOINT.search(text)
    mn = MIN_NODES.search(text)
    config = {"endpoint": ep["ep"] if ep else None, "min_nodes": int(mn["n"]) if mn else None}
    agent_error = "Rendezvous" in text and any(RDZV.search(raw) is not None and POST_JOIN.search(raw) is None
                                               for raw in text.split("\n") if "Rendezvous" in raw)
    # the barriers this file shows ended: completed (their waits were progress; key None: 1.10-1.11's line names none)
    # or timed out (the timeout's own line tells the same wait, with its count)
    ended = {m["key"] for m in COMPLETED.finditer(text)} if "Completed store-based" in text else set()
    if "Timed out initializing process group" in text:
        ended |= {m["key"] for m in BARRIER.finditer(text)}
    state: dict = {"ended": ended, "waits": set()}
    for pat in (ENDPOINT, MIN_NODES):
        result.lines_used += sum(1 for _ in pat.finditer(text))
    for line, raw in iter_lines(_ANY, artefact):
        if _store_or_agent(b, line, raw, config, agent_error, state):
            result.lines_used += 1
            continue
        m = CLIENTS.search(raw)
        if m:
            b.add(TorchRendezvousError, line, error="clients_timeout", message=raw.strip()[:300],
                  endpoint=config["endpoint"], timeout_s=float(m["n"]), min_nodes=config["min_nodes"],
                  during_rendezvous=agent_error, clients_joined=int(m["joined"]), clients_expected=int(m["world"]))
            result.lines_used += 1
            continue
        m = LOST.search(raw) or GLOO_LOST.search(raw) or RECV_LOST.search(raw) or SHOULD_DUMP.search(raw)
        if m:
            remote = m.groupdict().get("remote")
            b.add(TorchRendezvousError, line, error="connection_lost", message=raw.strip()[:300],
                  endpoint=remote.replace("[", "").replace("]", "") if remote else config["endpoint"],
                  during_rendezvous=agent_error)
            result.lines_used += 1
            continue
        m = STORE.search(raw) or OLD_STORE.search(raw)
        if m:
            n = m.groupdict().get("n")  # (1.x's message prints neither the timeout nor the address)
            secs = int(n) / (1000 if m["unit"] == "ms" else 1) if n else None
            endpoint = f"{m['host']}:{m['port']}" if m.groupdict().get("host") else config["endpoint"]
            b.add(TorchRendezvousError, line, error="store_timeout", message=raw.strip()[:300],
                  endpoint=endpoint, timeout_s=secs, min_nodes=config["min_nodes"], during_rendezvous=agent_error)
            result.lines_used += 1
            continue
        m = POST_JOIN.search(raw) if "has failed to" in raw else None
        if m:
            which = (m["which"] or "rendezvous").lower()
            b.add(TorchRendezvousError, line, error="connection_lost" if which == "connection" else which,
                  message=raw.strip()[:300], during_rendezvous=False, **config)
            result.lines_used += 1
            continue
        m = RDZV.search(raw)
        if m:
            b.add(TorchRendezvousError, line, error=(m["which"] or "rendezvous").lower(), message=raw.strip()[:300],
                  during_rendezvous=True, **config)
            result.lines_used += 1
    if "eartbeatMonitor" in text:
        for line, store in _monitor_store_frames(artefact.lines):
            call = store.split(": ", 1)[1].split("(", 1)[0]
            b.add(TorchRendezvousError, line, error="connection_lost", endpoint=config["endpoint"], during_rendezvous=agent_error,
                  message=f"ProcessGroupNCCL's heartbeat monitor could not poll the store's \"should dump\" flag ({call} "
                          f"raised: the TCPStore server gone): {artefact.lines[line - 1].strip()}"[:300])
            result.lines_used += 1
    _joins(artefact, b, result)
    return result


# the store's two connection-lost texts (strerror of ECONNRESET and EPIPE, Utils.hpp SYSCHECK)
LOST_WORDS = ("Connection reset by peer", "Broken pipe")


def _store_or_agent(b: FactBuilder, line: int, raw: str, config: dict, agent_error: bool, state: dict) -> bool:
    """The store's key, barrier, connect and listen failures and the agent's signals on one line (``state``: the
    barrier keys the file shows completed or timed out, the barrier waits already read)."""
    msg = raw.strip()[:300]
    m = UNIQUE_ID.search(raw)
    if m:
        # rank R waited for the NCCL id its root puts in the store: the root never got there, or the store went away;
        # an error text cut mid-word at the end of the line (an issue title: "... store->get('0') got error: Connecti",
        # hiyouga/LlamaFactory#2470) is the error it begins
        err = m["err"].rstrip()
        lost = (re.search(r"Connection reset by peer|Broken pipe", err) is not None
                or (len(err) >= 4 and m.end() == len(raw.rstrip()) and any(w.startswith(err) for w in LOST_WORDS)))
        b.add(TorchRendezvousError, line, error="connection_lost" if lost else "key_timeout", message=msg,
              endpoint=config["endpoint"], during_rendezvous=agent_error)
        return True
    m = BARRIER.search(raw)
    if m:
        joined, world = int(m["joined"]), int(m["world"])
        secs = int(m["h"]) * 3600 + int(m["m"]) * 60 + int(m["s"])
        # a count above world_size: more processes checked in at that key than the group has (barrier_overcount);
        # at world_size every rank had arrived (a key wait that timed out); below it, ranks that never came
        error = "clients_timeout" if joined < world else "barrier_overcount" if joined > world else "key_timeout"
        counts = error != "key_timeout"
        b.add(TorchRendezvousError, line, error=error, message=msg,
              endpoint=config["endpoint"], timeout_s=float(secs), during_rendezvous=agent_error,
              clients_joined=joined if counts else None, clients_expected=world if counts else None)
        return True
    m = WAITING.search(raw)
    if m:
        joined, world = int(m["joined"]), int(m["world"])
        # the count only grows while the barrier waits for exactly world_size: above it, it can never complete; below
        # it, ranks still missing, unless this file shows that barrier ended (completed: the line was progress; timed
        # out: the timeout's line is read)
        error = "barrier_overcount" if joined > world else "barrier_waiting" if joined < world else None
        seen = (error, m["key"], joined, world)
        if not error or m["key"] in state["ended"] or (error == "barrier_waiting" and None in state["ended"]):
            # a wait that ended (or at world_size) is no reading of anything: not counted as read, so a file of such
            # lines alone makes no claim that the job was checked
            return False
        if seen not in state["waits"]:
            state["waits"].add(seen)
            b.add(TorchRendezvousError, line, error=error, message=msg, endpoint=config["endpoint"],
                  during_rendezvous=agent_error, clients_joined=joined, clients_expected=world)
        return True
    m = KEY_TIMEOUT.search(raw)
    if m:
        ms = m["ms"] or m["ms2"] or m["ms3"]
        endpoint = f"{m['rhost']}:{m['rport']}" if m["rhost"] else config["endpoint"]
        b.add(TorchRendezvousError, line, error="key_timeout", message=msg, endpoint=endpoint,
              timeout_s=int(ms) / 1000 if ms else None, during_rendezvous=agent_error)
        return True
    m = IN_USE.search(raw)
    denied = m is None and BIND_DENIED.search(raw) is not None
    if m or denied:
        port = PORT.search(raw)
        b.add(TorchRendezvousError, line, error="bind_permission_denied" if denied else "address_in_use", message=msg,
              endpoint=f":{port['port']}" if port else config["endpoint"], during_rendezvous=agent_error)
        return True
    m = CONNECT.search(raw)
    if m and not (m["why"] and m["why"].startswith(_NOT_CONNECT)):
        host = m["host"] or m["host2"] or m["host3"] or (m["host4"] or "").strip("[]")
        port = m["port"] or m["port2"] or m["port3"] or m["port4"]
        if host.startswith("::ffff:"):  # an IPv4 address as the IPv6 socket prints it: the address the other forms name
            host = host[len("::ffff:"):]
        b.add(TorchRendezvousError, line, error="connect_failed", message=msg, endpoint=f"{host}:{port}",
              during_rendezvous=agent_error)
        return True
    m = SIGNALS.search(raw)
    if m:
        closing = m["sig3"] is not None
        pid = m["pid"] or m["pid3"]
        b.add(TorchAgentSignal, line, event="closing" if closing else "received",
              signal=m["sig"] or m["sig2"] or m["sig3"], pid=int(pid) if pid else None)
        return True
    m = GROUP_FAILED.search(raw)
    if m:
        b.add(TorchWorkerGroupFailed, line, state=m["state"], attempts_left=int(m["left"]), max_restarts=int(m["max"]))
        return True
    if RAISED.search(raw):
        # one fact per signal: the exception's own line, read above, names it where the paste holds it
        if not any(m["sig"] for m in SIGNALS.finditer(b.artefact.text)):
            b.add(TorchAgentSignal, line, event="received", signal="(not printed)")
        return True
    return False


def _joins(artefact: Artefact, b: FactBuilder, result: ParseResult) -> None:
    """One torch_rendezvous_join per node and event: the nodes that took part in the rendezvous."""
    seen: set[tuple[str, str]] = set()
    for line, raw in iter_lines(JOIN, artefact):
        m = JOIN.search(raw)
        result.lines_used += 1
        host = artefact.node_for(m["desc"].rsplit("_", 2)[0] if m["desc"] else None)
        event = "joined" if m["round"] is not None else "attempt"
        if (host, event) in seen:
            continue
        seen.add((host, event))
        b.add(TorchRendezvousJoin, line, node=host, host=host, event=event, run_id=m["run"],
              rank=int(m["rank"]) if m["rank"] else None, world_size=int(m["world"]) if m["world"] else None)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (RDZV, STORE, OLD_STORE, JOIN, CLIENTS, LOST, GLOO_LOST, RECV_LOST, SHOULD_DUMP, UNIQUE_ID, KEY_TIMEOUT, BARRIER, WAITING,
              CONNECT,
              IN_USE, BIND_DENIED, SIGNALS, GROUP_FAILED, RAISED, MONITOR_SIGNATURE)
