"""torch_elastic: torchrun's rendezvous failures and the nodes that took part, real captures."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import torch_elastic
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_elastic"


def parse(name: str, node: str = "n1"):
    return torch_elastic.parse(Artefact(path=name, text=(FIX / name).read_text(), node=node))


def test_torchrun_211_join_timeout_capture():
    r = parse("torchrun_2.11_rdzv_join_timeout_min2.log", node="h200a")
    errors = [f for f in r.facts if f.kind == "torch_rendezvous_error"]
    joins = [f for f in r.facts if f.kind == "torch_rendezvous_join"]
    assert {(f.error, f.min_nodes, f.endpoint, f.during_rendezvous) for f in errors} == {("timeout", 2, "localhost:29555", True)}
    assert [(f.host, f.event, f.evidence.line) for f in joins] == [("h200a", "attempt", 23)]
    assert r.errors == []


def test_store_timeout_alone_and_beside_the_agent():
    alone = [f for f in parse("store_client_timeout_1800000ms.log").facts if f.kind == "torch_rendezvous_error"]
    assert [(f.error, f.timeout_s, f.during_rendezvous) for f in alone] == [("store_timeout", 1800.0, False)]
    beside = [f for f in parse("pytorch79388_rdzv_connection.log").facts if f.error == "store_timeout"]
    assert [f.during_rendezvous for f in beside] == [True]


def test_store_timeout_cut_before_its_address():
    # kubeflow/sdk#142: the reporter's two c10d lines, indented in a list, the timeout's cut after "connect"
    r = parse("kubeflowsdk142_store_timeout_cut_before_to.log")
    assert [(f.error, f.timeout_s, f.endpoint) for f in r.facts if f.kind == "torch_rendezvous_error"] == [("store_timeout", 900.0, None)]
    assert torch_elastic.detect((FIX / "kubeflowsdk142_store_timeout_cut_before_to.log").read_text())
    # "connect" as the start of another word is not the message
    assert not torch_elastic.STORE.search("The client socket has timed out after 60s while trying to connection")


@pytest.mark.parametrize("line, expect", [
    # dynamic_rendezvous.py at INFO (public 1.9-era log line)
    ("[INFO] 2021-06-29 12:04:55,398 dynamic_rendezvous: The node 'master1_21848_0' attempts to join the next round of the rendezvous '11'.",
     ("master1", "attempt", None, None)),
    ("[INFO] 2021-06-29 12:05:25,632 dynamic_rendezvous: The node 'master1_21848_0' has joined round 0 of the rendezvous '11' as rank 0 in a world of size 1.",
     ("master1", "joined", 0, 1)),
])
def test_join_lines(line, expect):
    assert torch_elastic.detect(line)
    [f] = torch_elastic.parse(Artefact(path="x.log", text=line, node="n1")).facts
    assert (f.host, f.event, f.rank, f.world_size) == expect


def test_store_server_waiting_for_clients():
    (f,) = parse("openrlhf1040_store_clients_timeout.log").facts
    assert (f.error, f.timeout_s, f.clients_joined, f.clients_expected, f.during_rendezvous) == ("clients_timeout", 1801.0, 1, 3, False)


@pytest.mark.parametrize("line,expect", [
    ("torch.distributed.DistNetworkError: Connection reset by peer", "connection_lost"),  # pytorch/pytorch#118666
    ("torch.distributed.DistNetworkError: Broken pipe", "connection_lost"),
    # near misses: another strerror, and the store client's own timeout (store_timeout)
    ("torch.distributed.DistNetworkError: Connection refused", None),
    ("RuntimeError: Connection reset by peer", None),
    # Gloo's TCP pair (gloo/transport/tcp/pair.cc): EOF, ECONNRESET / EPIPE, a closed socket, ports with a "$seq"
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:10895", "connection_lost"),
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [192.168.70.92]:25266: Connection reset by peer",
     "connection_lost"),  # both RVC-Project/Retrieval-based-Voice-Conversion-WebUI#1882
    ("[rank3]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:332] writev [10.0.0.2]:41734$3: Broken pipe",
     "connection_lost"),
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:200] Socket unexpectedly closed [10.0.0.2]:41734", "connection_lost"),
    # near misses: another program's "Connection closed by peer", a Gloo read error of another errno, Gloo's own timeouts
    ("ssh: Connection closed by peer 10.0.0.2 port 22", None),
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [10.0.0.2]:25266: Connection timed out", None),
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:519] Read timeout [10.0.0.2]:25266", None),
    # c10d's TCPStore client finding the store's connection closed (TCPStore.cpp receiveValue, 2.4+ and 2.6+'s wording)
    ("[W304 19:44:41.898456436 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=73, addr=localhost:46764, remote=localhost:29500): "
     "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?", "connection_lost"),
    ("[rank6]:[W729 10:15:17.529361055 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=76, addr=[localhost]:60950, "
     "remote=[localhost]:29500): Connection reset by peer", "connection_lost"),
    # the same of TCPStore's wait with a timeout (receiveValueWithTimeout; NVIDIA/nccl#1762, PyTorch 2.8)
    ("[rank101]:[W703 01:01:05.364835151 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on SocketImpl(fd=90, "
     "addr=[cw-h100-220-057.dm1-compute-compute.tenant-slurm.svc.cluster.local]:43518, "
     "remote=[cw-h100-192-053.dm1-compute-compute.tenant-slurm.svc.cluster.local]:56789): Failed to recv, got 0 bytes. "
     "Connection was likely closed. Did the remote server shutdown or crash?", "connection_lost"),
    # near misses: the same warning of another errno (a store wait's timeout is socket.cpp's own line), prose
    ("[W304 19:44:41.898456436 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=73, addr=localhost:46764, remote=localhost:29500): "
     "Connection timed out", None),
    ("if recvValue failed on the socket, retry", None),
])
def test_connection_closed_by_the_other_end(line, expect):
    got = [f.error for f in torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts]
    assert got == ([expect] if expect else [])
    assert torch_elastic.detect(line) == bool(expect)


# the store's key, barrier, connect and listen failures, and the agent's signals (message forms 1.x-2.x)
@pytest.mark.parametrize("line, expect", [
    ("RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
     ("key_timeout", None, None)),  # 1.x spelling, zai-org/ChatGLM-6B#1232
    ("torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer",
     ("connection_lost", None, None)),
    # an issue title cut mid-word after "got error: " (hiyouga/LlamaFactory#2470): the error it begins; a cut
    # "Socket Time" stays a key timeout
    ("Deepspeed --hostfile running issue: RuntimeError: [11] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connecti",
     ("connection_lost", None, None)),
    ("RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Time",
     ("key_timeout", None, None)),
    ("RuntimeError: Socket Timeout", ("key_timeout", None, None)),
    ("RuntimeError: Wait timeout", ("key_timeout", None, None)),
    ("torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /default_pg//0//cuda//0", ("key_timeout", None, None)),
    # the same wait told without its keys (nvidia-cosmos/cosmos-transfer1#80's title), and socket.cpp's warnings as it runs out
    ("[Error] torch.distributed.DistStoreError: wait timeout after 1800000ms", ("key_timeout", None, None)),
    ("[rank7]:[W302 23:38:43.990204332 socket.cpp:462] [c10d] waitForInput: poll for socket SocketImpl(fd=96, addr=[localhost]:49430, remote=[localhost]:29501) returned 0, likely a timeout",
     ("key_timeout", None, None)),  # NVIDIA/cosmos#124
    ("[rank7]:[W410 21:36:52.177160212 socket.cpp:485] [c10d] waitForInput: socket timed out after 300000ms", ("key_timeout", None, None)),
    ("console.log(`[Albulk] Members list wait timeout after ${timeout}ms`);", None),  # another program's wait
    ("torch.distributed.DistStoreError: Timed out initializing process group in store based barrier on rank 3, for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=4, timeout=0:30:00 error=wait timeout after 1800000ms, keys: /store_based_barrier_key:1)",
     ("clients_timeout", 4, 8)),
    ("[W socket.cpp:601] [c10d] The client socket has failed to connect to [node12]:29500 (errno: 111 - Connection refused).", ("connect_failed", None, None)),
    ("RuntimeError: Address already in use", ("address_in_use", None, None)),
    # a bind refused with EACCES (a port below 1024), KimMeen/Time-LLM#158's form with another port
    ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:443 (errno: 13 - Permission denied).",
     ("bind_permission_denied", None, None)),
    ("torch.distributed.elastic.rendezvous.api.RendezvousError: Unexpected state of EtcdRendezvousHandler, worker needs to die.", ("rendezvous", None, None)),
    # near misses: a program's own socket error, a graceful exit, the words in prose
    ("OSError: [Errno 98] Address already in use", None),
    ("torch.distributed.elastic.rendezvous.api.RendezvousGracefulExitError: Node node12_4242_0 exited gracefully", None),
    ("the Socket Timeout option of our HTTP client", None),
])
def test_store_failure_forms(line, expect):
    facts = torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts if torch_elastic.detect(line) else []
    got = [(f.error, f.clients_joined, f.clients_expected) for f in facts]
    assert got == ([expect] if expect else [])


def test_store_based_barrier_real():
    (f,) = parse("metaseq52_store_based_barrier.log").facts
    assert (f.error, f.clients_joined, f.clients_expected, f.timeout_s) == ("clients_timeout", 1792, 2048, 1800.0)
    (g,) = parse("pytorch_distributed18_barrier_count_above_world.log").facts
    # 4 check-ins for a group of 2: more processes than the group on that key, not missing ranks
    assert (g.error, g.clients_joined, g.clients_expected) == ("barrier_overcount", 4, 2)


def test_store_based_barrier_waiting_real():
    # ultralytics/yolov5#4574: rank 0's progress line 8 times (the 9th cut): one fact, every whole line read
    r = parse("yolov5_4574_store_barrier_waiting_overcount.log")
    assert [(f.error, f.clients_joined, f.clients_expected, f.evidence.line) for f in r.facts] == [("barrier_overcount", 8, 4, 1)]
    assert r.lines_used == 8
    # Lightning-AI/pytorch-lightning#4420: every rank waits with 7 of 8 checked in: one fact for the count
    r = parse("lightning4420_store_barrier_waiting_7_of_8.log")
    assert [(f.error, f.clients_joined, f.clients_expected) for f in r.facts] == [("barrier_waiting", 7, 8)]


@pytest.mark.parametrize("text, expect", [
    # 2.0-2.1's num_workers_joined, with the error text one release appends
    ("Waiting in store based barrier to initialize process group for rank: 3, key: store_based_barrier_key:1 (world_size=8, num_workers_joined=5, timeout=0:30:00)error: Socket Timeout",
     [("barrier_waiting", 5, 8)]),
    # 2.2+'s debug line: the two literals joined without a space, the seconds waited first
    ("Waiting in store based barrier to initialize process group for 310.52 secondsrank: 3, key: store_based_barrier_key:1 (world_size=8, num_workers_joined=12, timeout=0:30:00 error=wait timeout after 10000ms, keys: /store_based_barrier_key:1)",
     [("barrier_overcount", 12, 8)]),
    # a wait the same file shows completed (1.12+'s line) was progress; 1.10-1.11's line names no key
    ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=4, worker_count=3, timeout=0:30:00)\n"
     "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes.", []),
    ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=4, worker_count=3, timeout=0:30:00)\n"
     "Rank 0: Completed store-based barrier for 4 nodes.", []),
    # ... but not another key's completion, and never an overcount (it cannot complete)
    ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:2 (world_size=4, worker_count=3, timeout=0:30:00)\n"
     "Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes.", [("barrier_waiting", 3, 4)]),
    # every rank arrived: nothing to report
    ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=4, worker_count=4, timeout=0:30:00)", []),
])
def test_store_based_barrier_waiting_forms(text, expect):
    assert torch_elastic.detect(text)
    r = torch_elastic.parse(Artefact(path="x", text=text + "\n", node="n1"))
    assert [(f.error, f.clients_joined, f.clients_expected) for f in r.facts] == expect
    # a wait that ended or reached world_size is not counted as read: such lines alone claim no check of the job
    assert r.lines_used == (1 if expect else 0)


def test_store_based_barrier_completion_alone_is_not_claimed():
    # the barrier's end alone says nothing of the job's health: not this reader's line
    line = "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 1 nodes."
    assert not torch_elastic.detect(line)


def test_port_in_use_real():
    (f,) = parse("tuneavideo90_port_in_use.log").facts
    assert (f.error, f.endpoint) == ("address_in_use", ":29500")


def test_agent_signals_real():
    (s,) = parse("chatglm2_238_signal_exception.log").facts
    assert (s.kind, s.event, s.signal, s.pid) == ("torch_agent_signal", "received", "1", 8665)
    got = [(f.event, f.signal, f.pid, f.evidence.line) for f in parse("pytorch150916_death_signal.log").facts]
    assert got == [("received", "15", None, 1), ("closing", "SIGTERM", 1365, 2)]
    # the handler's raise line as a traceback quotes it (modelscope/ms-swift#64's title): signalled, the number not printed
    (r,) = parse("msswift64_raise_signal_exception.log").facts
    assert (r.event, r.signal, r.pid, r.evidence.line) == ("received", "(not printed)", None, 1)


def test_waitforinput_timeout_real():
    """nvidia-cosmos/cosmos-transfer1#80: the store client's socket warning names the store it waited on."""
    facts = torch_elastic.parse(Artefact(path="x", text=(FIX / "cosmostransfer80_waitforinput_timed_out.log").read_text(), node="n1")).facts
    assert [(f.error, f.endpoint, f.timeout_s) for f in facts] == [("key_timeout", "localhost:29500", 1800.0)]


def test_store_connection_closed_flattened_paste():
    # kubeflow/website#4186: the warning and its C++ stack on one line; the store's endpoint is node-0's port 29500
    (f,) = parse("kubeflow_website4186_recvvalue_got_0_bytes_flattened.log").facts
    assert (f.error, f.endpoint) == ("connection_lost",
                                     "wcde03d70a73-node-0-0.wcde03d70a73.kubeflow-user-example-com.svc.cluster.local:29500")


def test_heartbeat_monitor_finds_store_gone_and_send_broken_pipe():
    # modal-labs/modal-examples#1558: the "should dump" poll (2.3+) and the store client's sendBytes (2.4+), both EPIPE
    r = parse("modal1558_should_dump_send_broken_pipe.log")
    assert [(f.error, f.endpoint, f.evidence.line) for f in r.facts] == [
        ("connection_lost", None, 2), ("connection_lost", "::ffff:172.20.14.147:46989", 4)]
    assert torch_elastic.detect((FIX / "modal1558_should_dump_send_broken_pipe.log").read_text())


@pytest.mark.parametrize("line", [
    # the poll's other error text (2.6+: a recv of 0 bytes), CONSTRUCTED: ProcessGroupNCCL.cpp's LOG(WARNING) as
    # modal-labs/modal-examples#1558 shows it, with e.what() of TCPStore's 0-byte recv as the TCPStore.cpp lines print it
    '[rank0]:[W510 09:16:33.395368149 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 0] Failed to check the "should dump" '
    'flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Failed to recv, got 0 bytes. Connection was '
    'likely closed. Did the remote server shutdown or crash?',
])
def test_should_dump_poll_failure_forms(line):
    (f,) = torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts
    assert f.error == "connection_lost"


def test_heartbeat_monitor_stack_under_the_store_check_is_the_store_gone():
    # sgl-project/sglang#28396 (PyTorch 2.8): the "should dump" poll's exception told by its C++ stack alone (the warning's
    # line cut off): the monitor's frame (HeartbeatMonitor::runLoop) under TCPStore::check's, read at the monitor's frame
    name = "sglang28396_heartbeat_monitor_store_check_frames.txt"
    assert torch_elastic.detect((FIX / name).read_text())
    (f,) = parse(name).facts
    assert (f.error, f.evidence.line) == ("connection_lost", 5) and "c10d::TCPStore::check" in f.message


@pytest.mark.parametrize("text", [
    # must not: the monitor's frame with no store frame above it (CONSTRUCTED: the frames of 2.3-2.7's monitor, another
    # call under it), a store check's frame under another caller, prose naming the frame
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d (0x7b0fd3f7305d in libc10.so)\n"
    "frame #1: c10d::ProcessGroupNCCL::heartbeatMonitor() + 0x4a5 (0x7b0df038f8c5 in libtorch_cuda.so)\n",
    "frame #2: c10d::TCPStore::check(std::vector<std::string> const&) + 0x273 (0x7b0e0dba3413 in libtorch_cpu.so)\n"
    "frame #3: c10d::ProcessGroupNCCL::Watchdog::runLoop() + 0x4a5 (0x7b0df038f8c5 in libtorch_cuda.so)\n",
    "frame #2: c10d::TCPStore::check(std::vector<std::string> const&) + 0x273 (0x7b0e0dba3413 in libtorch_cpu.so)\n"
    "some other line\n"
    "frame #3: c10d::ProcessGroupNCCL::HeartbeatMonitor::runLoop() + 0x4a5 (0x7b0df038f8c5 in libtorch_cuda.so)\n",
    "the frame c10d::ProcessGroupNCCL::HeartbeatMonitor::runLoop() appears under c10d::TCPStore::check( in our logs\n",
])
def test_heartbeat_monitor_frame_without_the_store_check_is_no_fact(text):
    assert not torch_elastic.detect(text)
    assert torch_elastic.parse(Artefact(path="x", text=text, node="n1")).facts == []


def test_should_dump_flag_prose_is_no_fact():
    text = 'we saw the "should dump" flag on TCPStore warnings after the job ended\n'
    assert not torch_elastic.detect(text)
    assert torch_elastic.parse(Artefact(path="x", text=text, node="n1")).facts == []


@pytest.mark.parametrize("line, endpoint", [
    # socket.cpp's connect attempt that timed out and is retried; TCPStore's client retrying (vllm-project/vllm-metal#58, 2.x on macOS)
    ("[W106 01:32:36.793651000 socket.cpp:942] [c10d] The server socket on [::ffff:10.253.40.30]:55872 has timed out, will retry.",
     "10.253.40.30:55872"),
    ("^C[W106 01:34:16.357373000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host 10.253.40.30:55872 - retrying "
     "(try=0, timeout=1800000ms, delay=1266ms): Interrupted system call", "10.253.40.30:55872"),
])
def test_store_connect_retries(line, endpoint):
    assert torch_elastic.detect(line)
    (f,) = torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts
    assert (f.error, f.endpoint) == ("connect_failed", endpoint)


def test_store_retry_with_a_socket_timeout_stays_a_store_timeout():
    # the retry line whose reason is the client socket's own timeout (lzhxmu/CPPO#6's line) is STORE's, as before
    line = ("[E521 15:43:02.707888867 TCPStore.cpp:318] [c10d] TCP client failed to connect/validate to host 172.18.21.4:37907 - timed out "
            "(try=1, timeout=600000ms): The client socket has timed out after 600000ms while trying to connect to (172.18.21.4, 37907).")
    (f,) = torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts
    assert f.error == "store_timeout"


def test_store_connect_timeout_1x_real():
    # PyTorch 1.x's TCPStore client (torch/lib/c10d/Utils.cpp kConnectTimeoutMsg), xh-liu/CC-FPSE#6's traceback
    r = parse("ccfpse6_tcpstore_connect_timed_out.log")
    assert torch_elastic.detect((FIX / "ccfpse6_tcpstore_connect_timed_out.log").read_text())
    assert [(f.error, f.timeout_s, f.endpoint, f.during_rendezvous, f.evidence.line) for f in r.facts] == [
        ("store_timeout", None, None, False, 13)]
    assert r.errors == []


@pytest.mark.parametrize("line", [
    # another program's connect timeout (not the C++ exception as Python prints it)
    "Error: provider.connect() timed out after 8s",
    "[Wallet] Timeout or error: provider.connect() timed out after 8s",
    # the message inside prose, not the exception's line
    "RuntimeError: connect() timed out. Any idea why this happens?",
])
def test_other_connect_timeouts_are_not_the_store(line):
    assert not torch_elastic.detect(line + "\n")
    assert torch_elastic.parse(Artefact(path="x", text=line + "\n", node="n1")).facts == []


def test_keepalive_heartbeat_failure_is_a_lost_store_after_the_nodes_met():
    # pytorch/pytorch#67742: node.b's keep-alive after node.a (the store's host) was killed; the cut shutdown line stays unread
    r = parse("pytorch67742_keepalive_heartbeat_connection_error.log", node="node-b")
    errors = [f for f in r.facts if f.kind == "torch_rendezvous_error"]
    assert [(f.error, f.during_rendezvous, f.evidence.line) for f in errors] == [("connection_lost", False, 1)]


def test_keepalive_or_shutdown_failure_of_another_class_is_outside_the_rendezvous():
    # CONSTRUCTED from dynamic_rendezvous.py's two f-strings (_keep_alive and shutdown); a store timeout beside them is the
    # store client's own (during_rendezvous false), not the agent's
    text = ("W0813 22:23:32.979031 140204091807488 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1267] The node "
            "'node1_1234_0' has failed to send a keep-alive heartbeat to the rendezvous '100' due to an error of type "
            "RendezvousTimeoutError.\n"
            "W0813 22:24:02.000000 140204091807488 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1300] The node "
            "'node1_1234_0' has failed to shutdown the rendezvous '100' due to an error of type RendezvousConnectionError.\n"
            "[E socket.cpp:1019] The client socket has timed out after 900000ms while trying to connect to (10.0.0.1, 29400).\n")
    errors = [f for f in torch_elastic.parse(Artefact(path="a.log", text=text, node="n1")).facts if f.kind == "torch_rendezvous_error"]
    assert [(f.error, f.during_rendezvous) for f in errors] == [
        ("timeout", False), ("connection_lost", False), ("store_timeout", False)]
