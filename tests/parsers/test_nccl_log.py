"""Tests of the NCCL debug log parser on real captures, public-report lines and negative rows."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact, ParseError

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "artefacts" / "nccl_log"
OBSERVATIONS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"


def parse_text(text: str, path: str = "nccl.log", node: str = "n0", from_folder: bool = False):
    return nccl_log.parse(Artefact(path=path, text=text, node=node, node_from_folder=from_folder))


def parse_fixture(name: str):
    return parse_text((FIX / name).read_text(), path=f"nccl_log/{name}")


def facts(result, kind: str) -> list[dict]:
    return [f.rule_view() | {"line": f.evidence.line} for f in result.facts if f.kind == kind]


def only(result, kind: str) -> dict:
    found = facts(result, kind)
    assert len(found) == 1, found
    return found[0]


# (line, kind or None, fields that fact must have); None: the line gives no fact of any kind
# beyond nccl_warn (WARN lines always give one).
LINE_CASES = [
    ("vm:1552:1552 [0] NCCL INFO NCCL version 2.28.9+cuda13.0",
     "nccl_version", {"version": "2.28.9", "cuda": "13.0", "pid": 1552, "local_device": 0, "node": "vm"}),
    ("NCCL version 2.19.3+cuda12.3", "nccl_version", {"version": "2.19.3", "cuda": "12.3", "node": "n0"}),
    ("vm:1552:1564 [1] NCCL INFO NCCL_P2P_DISABLE set by environment to 1",
     "nccl_env", {"name": "NCCL_P2P_DISABLE", "value": "1", "local_device": 1}),
    ("vm:1552:1563 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.",
     "nccl_env", {"name": "NCCL_SHM_DISABLE", "value": "1"}),
    ("vm:1552:1552 [0] NCCL INFO NCCL_SOCKET_IFNAME set to lo",
     "nccl_env", {"name": "NCCL_SOCKET_IFNAME", "value": "lo"}),
    ("vm:1552:1564 [1] NCCL INFO NET/Plugin: Could not find: libnccl-net.so",
     "nccl_net_plugin", {"event": "not_found", "name": "libnccl-net.so"}),
    ("worker:101542:101542 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
     "nccl_net_plugin", {"event": "not_found", "name": "libnccl-net.so"}),
    ("vm:1552:1564 [1] NCCL INFO Initialized NET plugin Socket", "nccl_net_plugin", {"event": "loaded", "name": "Socket"}),
    # the RDMA/SHARP plugin's own line (nccl-rdma-sharp-plugins p2p_plugin.c), nccl#988
    ("ad5b8ae33076:28331:28331 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so",
     "nccl_net_plugin", {"event": "loaded", "name": "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so"}),
    ("vm:1552:1564 [1] NCCL INFO Failed to initialize NET plugin IB", "nccl_net_plugin", {"event": "failed", "name": "IB"}),
    ("vm:1552:1564 [1] NCCL INFO Assigned NET plugin Socket to comm", "nccl_net_plugin", {"event": "assigned", "name": "Socket"}),
    ("vm:1552:1564 [1] NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so", None, {}),
    # a plugin a variable named and NCCL did not find (src/plugin/plugin_open.cc "%s/Plugin: Could not find:%s%s%s",
    # filled in as openPluginLib builds the names; 2.23-2.25's tuner.cc with its fallback sentence); NCCL's own unasked
    # try of libnccl-<type>.so (above, and RCCL's librccl-...) gives nothing
    ("vm:1552:1564 [1] NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler-myprof.so",
     "nccl_plugin_not_found", {"plugin": "PROFILER", "libraries": "libnccl-profiler-myprof.so", "pid": 1552}),
    ("vm:1552:1564 [1] NCCL INFO TUNER/Plugin: Could not find: libmytuner.so. Using internal tuner plugin.",
     "nccl_plugin_not_found", {"plugin": "TUNER", "libraries": "libmytuner.so"}),
    ("vm:1552:1564 [1] NCCL INFO NET/Plugin: Could not find: libnccl-net-ofi.so. Using internal net plugin.",
     "nccl_plugin_not_found", {"plugin": "NET", "libraries": "libnccl-net-ofi.so"}),
    ("vm:1552:1564 [1] NCCL INFO PROFILER/Plugin: Could not find: librccl-profiler.so. ", None, {}),
    ("vm:1552:1564 [1] NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so. Using internal tuner plugin.", None, {}),
    # 2.27.3-2.30.4's INFO for a connection that sent no NCCL magic (misc/socket.cc, os/linux.cc from 2.29), filled in:
    # the nccl_warn of the kind its WARN form had
    ("vm:1552:1564 [1] NCCL INFO socketFinalizeAccept: didn't receive a valid magic from 10.0.0.7<51234>",
     "nccl_warn", {"message_kind": "socket_foreign_connection", "message": "socketFinalizeAccept: didn't receive a valid magic from 10.0.0.7<51234>"}),
    ("vm:1552:1564 [1] NCCL INFO Using network Socket", "nccl_net_selected", {"network": "Socket"}),
    ("vm:1552:1564 [1] NCCL INFO NET/IB : No device found.", "nccl_no_ib_device", {"pid": 1552}),
    ("vm:1552:1564 [1] NCCL INFO NET/IB : Using [RO]; OOB lo:127.0.0.1<0>", None, {}),
    ("vm:1552:1564 [1] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>",
     "nccl_net_device", {"network": "Socket", "index": 0, "device": "lo", "address": "127.0.0.1"}),
    ("task272154-tz9m4:511:511 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.10.6.118<0>",
     "nccl_net_device", {"network": "IB", "index": 0, "device": "mlx5_0:1", "link_layer": "IB"}),
    ("vm:1708:1708 [0] NCCL INFO Bootstrap: Using eth0:192.0.2.2<0>",
     "nccl_bootstrap_interface", {"interface": "eth0", "address": "192.0.2.2"}),
    ("vm:1708:1708 [0] NCCL INFO Bootstrap timings total 0.044408 (create 0.000029, send 0.000113)", None, {}),
    ("[2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found",
     "nccl_bootstrap_failure", {"reason": "no_socket_interface", "retrying": False, "node": "vm", "pid": 1633}),
    ("[2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found",
     "nccl_warn", {"source_file": "bootstrap.cc", "source_line": 114, "message": "Bootstrap : no socket interface found"}),
    ("tj1-asr-train-v100-13:941227:943077 [0] include/socket.h:390 NCCL WARN Connect to 10.38.10.112<21724> failed : Connection refused",
     "nccl_bootstrap_failure", {"reason": "connection_refused", "peer": "10.38.10.112<21724>"}),
    ("worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, retrying",
     "nccl_bootstrap_failure", {"reason": "timeout", "retrying": True}),
    ("vm:1552:1570 [1] NCCL INFO Connected to proxy localRank 0 -> connection 0x7f3768000d20", None, {}),
    ("vm:1552:1564 [1] NCCL INFO ncclCommInitRankConfig comm 0x55b4d1f13be0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 70 commId 0xd0e572375164a3b6 - Init START",
     "nccl_rank", {"rank": 1, "nranks": 2, "cuda_dev": 1, "nvml_dev": 1, "bus_id": "0000:00:07.0",
                   "comm": "0x55b4d1f13be0", "comm_id": "0xd0e572375164a3b6", "init_complete": False}),
    ("machine-1:16194:18581 [1] NCCL INFO comm 0x7f4b34006640 rank 9 nranks 16 cudaDev 1 busId 1b000 - Init COMPLETE",
     "nccl_rank", {"rank": 9, "nranks": 16, "bus_id": "0000:1b:00.0", "init_complete": True}),
    # a split communicator: parent, color and key before the commId (sgl-project/sglang#3836), and 2.2x's form without it
    ("deepseek-yanfa:190:3197 [2] NCCL INFO ncclCommSplit comm 0x5601dc4ed8b0 rank 2 nranks 16 cudaDev 2 nvmlDev 2 busId 41000 "
     "parent 0x5601b34852c0 color 1197013201 key 2 commId 0x44d8628a425864f9 - Init COMPLETE",
     "nccl_rank", {"rank": 2, "nranks": 16, "bus_id": "0000:41:00.0", "comm_id": "0x44d8628a425864f9", "init_complete": True}),
    # 2.29+'s split/shrink/grow child: "childCount" where 2.2x said "splitCount", no commId (CONSTRUCTED from v2.30.7-1
    # src/init.cc's format: read as a parse problem before, an unexplained error on a healthy log)
    ("node-1:48213:48390 [3] NCCL INFO ncclCommSplit comm 0x55b4d1f13be0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 70 "
     "parent 0x5601b34852c0 childCount 1 color 7 key 3- Init START",
     "nccl_rank", {"rank": 3, "nranks": 8, "cuda_dev": 3, "comm": "0x55b4d1f13be0", "init_complete": False}),
    ("node-1:48213:48390 [3] NCCL INFO ncclCommSplit comm 0x55b4d1f13be0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 70 "
     "parent 0x5601b34852c0 childCount 1 color 7 key 3 - Init COMPLETE",
     "nccl_rank", {"rank": 3, "nranks": 8, "bus_id": "0000:00:07.0", "init_complete": True}),
    # NCCL 2.4 printed nvmlDev and no busId (NVIDIA/nccl#226): the rank is read, its GPU's bus id is not known
    ("ip-172-31-7-247:45553:45558 [0] NCCL INFO comm 0x7efe60002250 rank 15 nranks 64 cudaDev 0 nvmlDev 0 - Init COMPLETE",
     "nccl_rank", {"rank": 15, "nranks": 64, "nvml_dev": 0, "bus_id": None, "init_complete": True}),
    # a communicator's Destroy COMPLETE names its rank too (a log cut to its end still shows the job's size: nccl#1412)
    ("vm:1552:1552 [0] NCCL INFO comm 0x55b4d1e0b580 rank 0 nranks 2 cudaDev 0 busId 60 - Destroy COMPLETE",
     "nccl_rank", {"rank": 0, "nranks": 2, "init_complete": True}),
    ("vm:1552:1564 [1] NCCL INFO Init timings - ncclCommInitRankConfig: rank 1 nranks 2 total 0.43 (kernels 0.37)", None, {}),
    ("vm:1708:1708 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
     "nccl_transport", {"rank": 0, "peer_rank": 1, "transport": "P2P/CUMEM", "family": "P2P", "method": "CUMEM",
                        "channel_count": 1}),
    ("vm:1552:1570 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via NET/Socket/0",
     "nccl_transport", {"transport": "NET/Socket/0", "family": "NET", "method": "Socket", "direction": "receive"}),
    ("worker:101542:101934 [0] NCCL INFO Channel 00 : 0[18000] -> 1[18000] [receive] via NET/Socket/1",
     "nccl_transport", {"rank": 0, "peer_rank": 1, "transport": "NET/Socket/1"}),
    ("tj1-asr-train-v100-11:41449:43711 [6] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0",
     "nccl_transport", {"rank": 0, "peer_rank": 1, "direction": "send"}),
    ("vm:1708:1708 [0] NCCL INFO Channel 00/24 : 0 1", None, {}),
    ("vm:1633:1633 [0] NCCL INFO init.cc:126 -> 5", "nccl_error_return", {"source_file": "init.cc", "source_line": 126, "code": 5}),
    ("node1:1234:1290 [3] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.1.1.2<45678> with error 12, opcode 0, len 0, vendor err 129",
     "nccl_rdma_completion_error", {"peer": "10.1.1.2<45678>", "error": 12, "opcode": 0, "vendor_err": 129}),
    # the same line cut after its status, and retold without "with" and the colon (an issue's title: nccl#1170)
    ("node1:1234:1290 [3] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.1.1.2<45678> with error 12",
     "nccl_rdma_completion_error", {"peer": "10.1.1.2<45678>", "error": 12, "opcode": None}),
    ("NCCL WARN NET/IB Got completion error 12", "nccl_rdma_completion_error", {"peer": None, "error": 12, "opcode": None}),
    # NCCL_IB_RESILIENCY's handler (2.29.7+ p2p_resiliency.cc, at INFO; CONSTRUCTED from its format): no peer, the status
    # and opcode as ibvwrap.cc names them before their numbers
    ("node-1:48213:48390 [3] NCCL INFO NET/IB: ncclIbResiliencyHandleCompletionError: Got completion with error (devIndex=0, "
     "wc->status=(IBV_WC_RETRY_EXC_ERR)12, wc->opcode=(IBV_WC_RDMA_WRITE)1, wc->wr_id=17, wc->qp_num=4711, wc->byte_len=0)",
     "nccl_rdma_completion_error", {"peer": None, "error": 12, "status_text": "IBV_WC_RETRY_EXC_ERR", "opcode": 1,
                                    "opcode_text": "IBV_WC_RDMA_WRITE"}),
    # prefixes: mpirun --tag-output, pdsh, colour residue
    ("[1,5]<stdout>:swat1-04:2017630:2017699 [5] NCCL INFO Channel 03/0 : 5[5] -> 12[4] [send] via NET/IB/3",
     "nccl_transport", {"node": "swat1-04", "pid": 2017630, "local_device": 5, "transport": "NET/IB/3"}),
    ("rdma-gpu-train-worker-0: rdma-gpu-train-worker-0:19487:21056 [3] NCCL INFO Using network IBext",
     "nccl_net_selected", {"node": "rdma-gpu-train-worker-0", "network": "IBext", "family": "IB", "external": True,
                           "local_device": 3}),
    ("[0m ip-172-31-0-137:14605:14673 [0] NCCL INFO Using network Socket",
     "nccl_net_selected", {"node": "ip-172-31-0-137", "pid": 14605, "family": "Socket", "external": False}),
    ("[1,0]<stdout>:NCCL version 2.18.5+cuda12.0", "nccl_version", {"version": "2.18.5", "cuda": "12.0"}),
    # not NCCL's lines
    ("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3", None, {}),
    ("vm: Test NCCL failure common.cu:1550 'invalid usage (run with NCCL_DEBUG=WARN for details) / '", None, {}),
    ("#  Rank  0 Group  0 Pid   1633 on         vm device  0 [0000:00:06] NVIDIA H200", None, {}),
    ("W1129 18:30:26.245000 1668 torch/distributed/run.py:851] *****************************************", None, {}),
    ("[Sun Nov 29 18:28:40 2026] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04", None, {}),
]


@pytest.mark.parametrize("line,kind,fields", LINE_CASES)
def test_line(line, kind, fields):
    result = parse_text(line + "\n")
    assert result.errors == []
    if kind is None:
        assert [f.kind for f in result.facts if f.kind != "nccl_warn"] == []
        return
    fact = only(result, kind)
    for name, value in fields.items():
        assert fact.get(name) == value, (name, fact)
    assert fact["line"] == 1


def test_malformed_init_line_is_a_parse_error():
    text = ("vm:1552:1552 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
            "vm:1552:1564 [1] NCCL INFO ncclCommInitRankConfig comm 0x55b4d1f13be0 rank x nranks y"
            " cudaDev 1 nvmlDev 1 busId 70 commId 0xd0e5 - Init START\n")
    result = parse_text(text, path="node1/nccl.log")
    assert [f.kind for f in result.facts] == ["nccl_version"]
    [err] = result.errors
    assert isinstance(err, ParseError)
    assert (err.path, err.line) == ("node1/nccl.log", 2)
    assert result.lines_used == 2


@pytest.mark.parametrize("line", [
    "vm:1:1 [0] NCCL INFO Channel 00/0 : a[0] -> 1[1] via P2P/CUMEM",
    "vm:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId zz - Init COMPLETE",
    "vm:1:1 [0] net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<1> with error x, opcode 0",
    "vm:1:1 [0] NCCL INFO NCCL version two",
])
def test_malformed_lines(line):
    result = parse_text(line + "\n")
    assert len(result.errors) == 1 and result.errors[0].line == 1


def test_socket_only_capture():
    r = parse_fixture("allreduce_socket_only_g2.nccl.log")
    assert r.errors == [] and r.lines_used == 152
    env = {(f["name"], f["value"]) for f in facts(r, "nccl_env")}
    assert {("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1"), ("NCCL_SOCKET_IFNAME", "lo")} <= env
    # "NCCL_SOCKET_IFNAME set by environment to lo" appears 3 times in pid 1552: one fact
    assert len([f for f in facts(r, "nccl_env") if f["name"] == "NCCL_SOCKET_IFNAME"]) == 1
    assert only(r, "nccl_net_selected")["network"] == "Socket"
    assert only(r, "nccl_no_ib_device")["line"] == 12
    dev = only(r, "nccl_net_device")
    assert (dev["line"], dev["node"], dev["pid"], dev["local_device"]) == (16, "vm", 1552, 1)
    assert (dev["network"], dev["index"], dev["device"], dev["address"]) == ("Socket", 0, "lo", "127.0.0.1")
    assert {f["transport"] for f in facts(r, "nccl_transport")} == {"NET/Socket/0"}
    assert sorted((f["rank"], f["peer_rank"], f["direction"], f["channel_count"]) for f in facts(r, "nccl_transport")) == [
        (0, 1, "receive", 2), (0, 1, "send", 2), (1, 0, "receive", 2), (1, 0, "send", 2)]
    events = {(f["event"], f.get("name")) for f in facts(r, "nccl_net_plugin")}
    assert events == {("not_found", "libnccl-net.so"), ("failed", "IB"), ("loaded", "Socket"), ("assigned", "Socket")}
    assert {f["bus_id"] for f in facts(r, "nccl_rank")} == {"0000:00:06.0", "0000:00:07.0"}
    assert facts(r, "nccl_warn") == [] and facts(r, "nccl_bootstrap_failure") == []


def test_bad_ifname_capture():
    r = parse_fixture("allreduce_bad_ifname_g2.nccl.log")
    assert r.errors == [] and r.lines_used == 7  # the blank line before the WARN is not NCCL's
    failure = only(r, "nccl_bootstrap_failure")
    assert (failure["reason"], failure["line"], failure["node"], failure["pid"]) == ("no_socket_interface", 5, "vm", 1633)
    assert only(r, "nccl_warn")["source_line"] == 114
    assert only(r, "nccl_env")["value"] == "doesnotexist0"
    assert [(f["source_file"], f["source_line"], f["code"]) for f in facts(r, "nccl_error_return")] == [
        ("init.cc", 126, 5), ("init.cc", 160, 5)]
    assert facts(r, "nccl_rank") == []


@pytest.mark.parametrize("name,transport,channels", [
    ("allreduce_healthy_g2.nccl.log", "P2P/direct pointer", 24),
    ("sendrecv_healthy_g2.nccl.log", "P2P/direct pointer", 32),
    ("../torch_log/ddp_allreduce_ok.log", "P2P/CUMEM", 24),
])
def test_healthy_captures(name, transport, channels):
    r = parse_fixture(name)
    assert r.errors == []
    assert {f["version"] for f in facts(r, "nccl_version")} == {"2.28.9"}
    assert {(f["transport"], f["channel_count"]) for f in facts(r, "nccl_transport")} == {(transport, channels)}
    assert sorted((f["rank"], f["peer_rank"]) for f in facts(r, "nccl_transport")) == [(0, 1), (1, 0)]
    ranks = facts(r, "nccl_rank")
    assert sorted((f["rank"], f["bus_id"], f["init_complete"]) for f in ranks) == [
        (0, "0000:00:06.0", True), (1, "0000:00:07.0", True)]
    assert facts(r, "nccl_warn") == [] and facts(r, "nccl_bootstrap_failure") == []
    assert {f["network"] for f in facts(r, "nccl_net_selected")} == {"Socket"}


def test_torch_log_mixed_with_pytorch_lines():
    text = (FIX.parent / "torch_log" / "ddp_allreduce_ok.log").read_text()
    r = parse_text(text)
    assert r.lines_used == 141 and len(text.splitlines()) == 148
    assert {f["pid"] for f in facts(r, "nccl_version")} == {1708, 1709}
    assert {(f["interface"], f["address"]) for f in facts(r, "nccl_bootstrap_interface")} == {("eth0", "192.0.2.2")}
    assert {f["comm_id"] for f in facts(r, "nccl_rank")} == {"0x2d4fcfe9123fbf49"}


def test_terminal_session_mixed_kinds():
    r = parse_fixture("terminal_session_bad_ifname.txt")
    assert r.errors == [] and r.lines_used == 7
    assert only(r, "nccl_bootstrap_failure")["line"] == 12
    assert nccl_log.detect((FIX / "terminal_session_bad_ifname.txt").read_text())


def test_mpirun_tagged():
    r = parse_fixture("mpirun_tagged_ib.log")
    assert r.errors == [] and r.lines_used == 10
    by_rank = {(f["rank"], f["peer_rank"]): f for f in facts(r, "nccl_transport")}
    assert by_rank[(5, 12)]["channel_count"] == 2 and by_rank[(5, 12)]["direction"] == "send"
    assert by_rank[(7, 6)]["transport"] == "P2P/direct pointer/read"
    rank = only(r, "nccl_rank")
    assert (rank["node"], rank["rank"], rank["nranks"], rank["bus_id"]) == ("swat1-04", 6, 16, "0000:c8:00.0")


def test_sharp_plugin_and_two_ib_nodes():
    r = parse_fixture("ib_sharp_ibext_v6.log")  # nccl-tests#294: IB/SHARP devices, [RO], IBext_v6
    assert {(f["node"], f["device"], f["link_layer"]) for f in facts(r, "nccl_net_device")} == {
        ("h100-4", f"mlx5_{i}:1", "IB") for i in range(1, 9)}
    assert {(f["network"], f["family"], f["external"]) for f in facts(r, "nccl_net_selected")} == {("IBext_v6", "IB", True)}
    r = parse_fixture("ib_two_nodes_2.5.6.log")  # nccl-tests#36: two Azure nodes, bare version line
    assert {(f["node"], f["device"], f["link_layer"]) for f in facts(r, "nccl_net_device")} == {
        (n, "mlx4_0:1", "IB") for n in ("pkb-aa8dbd1b-0", "pkb-aa8dbd1b-1")}
    assert (only(r, "nccl_version")["version"], only(r, "nccl_version").get("pid")) == ("2.5.6", None)
    assert {f.get("name") for f in facts(r, "nccl_net_plugin")} == {"libnccl-net.so"}


def test_old_socket_format_and_ipv6_bootstrap_list():
    r = parse_fixture("socket_t4_2.8.3.log")  # nccl#428: NCCL 2.8.3, no libibverbs, two socket interfaces
    assert r.errors == []
    assert {(f["index"], f["device"], f["address"]) for f in facts(r, "nccl_net_device")} == {
        (0, "em1", "10.193.84.3"), (1, "tunl0", "10.227.47.12")}
    assert len(facts(r, "nccl_bootstrap_interface")) == 1
    assert only(r, "nccl_version")["version"] == "2.8.3"
    assert only(r, "nccl_warn")["message"] == "Failed to open libibverbs.so[.1]"
    r = parse_fixture("socket_connect_failures.log")  # oneflow#3586: "[1]veth...:fe80::...%veth...<0>"
    assert {(f["interface"], f["address"]) for f in facts(r, "nccl_bootstrap_interface")} >= {
        ("eno1", "172.18.40.41"), ("veth25f2e72", "fe80::380d:bfff:fe5b:54d2%veth25f2e72")}


def test_verbs_library_missing_at_info():
    """Later NCCL releases print the missing verbs library at INFO (nccl#1410): no IB device, each process once."""
    r = parse_fixture("ibverbs_missing_info_nccl1410.log")
    assert r.errors == []
    assert {(f["pid"], f["line"]) for f in facts(r, "nccl_no_ib_device")} == {(2340, 1), (2337, 2), (2338, 3)}
    assert not facts(r, "nccl_warn")


def test_socket_connect_failures():
    r = parse_fixture("socket_connect_failures.log")
    assert r.errors == []
    got = [(f["node"], f["reason"], f.get("peer"), f["retrying"]) for f in facts(r, "nccl_bootstrap_failure")]
    assert got == [
        ("worker", "timeout", None, True),  # two identical retry lines: one fact
        ("tj1-asr-train-v100-13", "connection_refused", None, True),
        ("tj1-asr-train-v100-13", "connection_refused", "10.38.10.112<21724>", False),
        ("ubuntu", "connection_aborted", "10.0.0.2<45763>", False),
        ("ubuntu", "connection_closed", "node1<57557>", False),
    ]
    assert len(facts(r, "nccl_warn")) == 5  # every WARN line, also "Connection closed" and "Bootstrap Root"
    assert ("SHM/direct/direct", 2) in {(f["transport"], f["channel_count"]) for f in facts(r, "nccl_transport")}
    assert {f.get("thread") for f in facts(r, "nccl_error_return")} == {None, "Async thread"}


def test_rdma_completion_errors_all_formats():
    r = parse_fixture("rdma_completion_errors.log")
    assert r.errors == []
    got = [(f.get("peer"), f["error"], f.get("status_text"), f.get("vendor_err"), f.get("opcode"),
            f.get("request"), f.get("hca")) for f in facts(r, "nccl_rdma_completion_error")]
    assert got == [
        ("172.36.143.59<44206>", 12, None, 129, 129, "Recv", None),
        ("172.36.143.59<44206>", 5, None, 249, 32656, "Recv", None),
        (None, 4, None, 81, 0, "Send", None),
        ("10.1.1.2<45678>", 12, None, 129, 0, None, None),
        ("10.1.1.2<45678>", 12, None, 129, 0, "Send", "mlx5_0"),
        ("10.1.1.2<45678>", 12, "IBV_WC_RETRY_EXC_ERR", 129, 0, "Send", "mlx5_0"),
    ]
    assert len(facts(r, "nccl_warn")) == 6


def test_folder_node_wins_over_host_on_line():
    r = parse_text("vm:1552:1564 [1] NCCL INFO Using network Socket\n", node="node7", from_folder=True)
    assert only(r, "nccl_net_selected")["node"] == "node7"


def test_empty_input():
    r = parse_text("")
    assert (r.facts, r.errors, r.lines_used) == ([], [], 0)
    assert not nccl_log.detect("")


def test_detect_on_fixtures():
    for path in FIX.iterdir():
        if path.suffix in (".log", ".txt"):
            assert nccl_log.detect(path.read_text()[:65536]), path.name


def test_detect_false_on_other_kinds():
    """No false positives on other artefacts; files that do hold NCCL lines (a PyTorch log
    copied by another parser's fixtures) are mixed-kind and rightly detected."""
    others = [p for p in (ROOT / "fixtures" / "artefacts").rglob("*") if p.is_file() and "nccl_log" not in p.parts
              and p.suffix != ".md"]
    if OBSERVATIONS.is_dir():
        others += [p for p in OBSERVATIONS.rglob("*") if p.is_file()]
    checked = 0
    for path in others:
        head = path.read_text(errors="replace")[:65536]
        if "NCCL INFO" in head or "NCCL WARN" in head:
            continue
        if "shared memory segment /dev/shm/nccl-" in head:  # NCCL's own message quoted bare ("Last error:"): nccl_log's by design
            continue
        if re.search(r"(?m)^NCCL_[A-Z0-9_]+ set by environment to ", head):  # NCCL's environment line bare (param.cc): nccl_log's by design
            continue
        assert not nccl_log.detect(head), path
        checked += 1
    assert checked > 0


@pytest.mark.skipif(not OBSERVATIONS.is_dir(), reason="observations folder not present")
def test_all_real_nccl_logs_parse_cleanly():
    for path in sorted((OBSERVATIONS / "nccl-logs").glob("*.nccl.log")) + [OBSERVATIONS / "torch/ddp_allreduce_ok.log"]:
        assert nccl_log.detect(path.read_text()[:65536]), path
        r = parse_text(path.read_text(), path=path.name)
        assert r.errors == [], path
        assert r.lines_used > 0


def test_init_line_without_bus_or_nvml_dev_is_a_parse_error():
    # neither the busId of 2.5+ nor the nvmlDev of 2.4: the rank's GPU cannot be placed
    result = parse_text("vm:1:2 [0] NCCL INFO comm 0x7efe60002250 rank 15 nranks 64 cudaDev 0 - Init COMPLETE\n")
    assert [f.kind for f in result.facts] == []
    assert len(result.errors) == 1
