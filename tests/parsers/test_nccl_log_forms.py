"""NCCL lines as people paste them (issue 11): every prefix form, NCCL <= 2.3's WARN, bare
messages, error-return chains. Real lines from public threads (even-numbered) and the corpus."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"


def parse(text: str, node: str = "n0"):
    return nccl_log.parse(Artefact(path="nccl.log", text=text, node=node))


def kinds(result) -> list[str]:
    return [f.kind for f in result.facts]


FORMS = [
    # (line, node, pid, device, source file, message start)
    ("[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available",
     "ip-172-31-3-90", 1929, 0, "nccl_net_ofi_rdma_init", "NET/OFI"),
    ("[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>",
     "n0", None, 0, "misc/socket.cc", "socketProgress"),
    ("include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol",
     "n0", None, None, "include/socket.h", "Socket creation"),
    ("transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'", "n0", None, None, "transport/nvls.cc", "Cuda failure"),
    ("NCCL WARN NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129",
     "n0", None, None, None, "NET/IB"),
    ("[155] crow-ib-new-nccl-256-info-19:5330:7970 [3] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument",
     "crow-ib-new-nccl-256-info-19", 5330, 3, "misc/ibvwrap.cc", "Call to ibv_modify_qp"),
    ("...-48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error",
     "...-48", 34050, 0, "transport/net_ib.cc", "NET/IB"),
]


@pytest.mark.parametrize("line,node,pid,dev,src,msg", FORMS)
def test_prefix_forms(line, node, pid, dev, src, msg):
    assert nccl_log.detect(line)
    r = parse(line + "\n")
    assert r.errors == [] and r.lines_used == 1
    [w] = [f for f in r.facts if f.kind == "nccl_warn"]
    assert (w.node, w.pid, w.local_device, w.source_file) == (node, pid, dev, src)
    assert w.message.startswith(msg)


NOT_NCCL = [
    "2024-01-01 12:00:00 WARN something else entirely",  # a timestamp is not file:line
    "W1016 22:16:08.123 main.go:154] WARN nothing",
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error (run with NCCL_DEBUG=INFO for details)",
]


@pytest.mark.parametrize("line", NOT_NCCL)
def test_near_misses_are_not_nccl(line):
    assert not nccl_log.detect(line)
    assert parse(line + "\n").facts == []


MESSAGES = [
    ("Error while creating shared memory segment /dev/shm/nccl-pZafXL (size 7340384)", "nccl_shm_failure",
     {"op": "create", "size_bytes": 7340384}),
    ("init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39. "
     "You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs", "nccl_collective_mismatch", {"rank": 39}),
    # Lightning#8214: the same check's ncclDevSuspectedMismatch form
    ("[0] init.cc:1256 NCCL WARN Your program may be hanging, this may be caused by a collective mismatch around rank 1. "
     "Please check your collective calls at and around this rank. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to "
     "see the collective logs", "nccl_collective_mismatch", {"rank": 1, "suspected": True}),
    ("include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol", "nccl_bootstrap_failure",
     {"reason": "socket_creation_failed", "error": "Address family not supported by protocol"}),
    # nccl#1382: the listening socket's accept() errno (2.18-2.28 socketTryAccept; 2.29's ncclOs... and the proxy's, filled in)
    ("user-G493-ZB1-AAP1-000:275204:275658 [4] misc/socket.cc:415 NCCL WARN socketTryAccept: Accept failed: Bad file descriptor",
     "nccl_bootstrap_failure", {"reason": "accept_failed", "error": "Bad file descriptor", "peer": None}),
    ("n1:1:2 [0] misc/socket.cc:458 NCCL WARN ncclOsSocketTryAccept: Accept failed: Too many open files", "nccl_bootstrap_failure",
     {"reason": "accept_failed", "error": "Too many open files"}),
    ("ncivki7qpk7pmo1btv0h0:179:3087 [6] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource temporarily unavailable",
     "nccl_bootstrap_failure", {"reason": "accept_failed", "error": "Resource temporarily unavailable"}),  # nccl#1610
    # NCCL's SYSCHECK of accept() and bind() (src/include/checks.h "Call to %s failed : %s"; nccl#1882's bind line)
    ("n1:1:2 [0] bootstrap.cc:106 NCCL WARN Call to accept failed : Too many open files", "nccl_bootstrap_failure",
     {"reason": "accept_failed", "error": "Too many open files"}),
    ("misc/socket.cc:409 NCCL WARN Call to bind failed: Address already in use", "nccl_bootstrap_failure",
     {"reason": "bind_failed", "error": "Address already in use", "peer": None}),
    ("gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error", "nccl_cuda_failure",
     {"error": "unknown error", "error_code": 999, "nvls": True}),
    ("...-48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error", "nccl_ib_async_event",
     {"event": "port error", "fatal": None}),
    # nccl#1710 (2.22: device and port, no fatal/non-fatal word)
    ("node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error",
     "nccl_ib_async_event", {"event": "local access violation work queue error", "device": "mlx5_0", "port": 1, "fatal": None}),
    # the 2.23-2.28.3, 2.28 and 2.23+ formats of src/transport/net_ib.cc, filled in (no public sample found)
    ("n1:1:2 [0] transport/net_ib.cc:212 NCCL WARN NET/IB : mlx5_3:1 Got async error event: port error", "nccl_ib_async_event",
     {"event": "port error", "device": "mlx5_3", "port": 1, "fatal": False}),
    ("n1:1:2 [0] transport/net_ib.cc:198 NCCL WARN NET/IB : mlx5_3:1 GID table changed", "nccl_ib_async_event",
     {"event": "GID table change", "device": "mlx5_3", "port": 1, "unknown_to_nccl": False}),
    ("n1:1:2 [0] transport/net_ib.cc:217 NCCL WARN NET/IB : mlx5_3:1 unknown event type (18)", "nccl_ib_async_event",
     {"event": "GID table change", "device": "mlx5_3", "unknown_to_nccl": True}),
    ("n1:1:2 [0] transport/net_ib.cc:217 NCCL WARN NET/IB : mlx5_3:1 unknown event type (77)", "nccl_ib_async_event",
     {"event": "unknown event type (77)", "device": "mlx5_3", "unknown_to_nccl": True}),
    ("[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available",
     "nccl_net_plugin_error", {"plugin": "OFI", "call": "fi_getinfo", "error": "No data available"}),
    # aws-ofi-nccl giving up its setup (aws-ofi-nccl#174, #24; the other strings of its source, filled in)
    ("algo-1:249:249 [0] ofi_init:1288 NCCL WARN NET/OFI Only EFA provider is supported", "nccl_net_plugin_error",
     {"plugin": "OFI", "call": "provider", "error": "Only EFA provider is supported"}),
    ("n1:1:2 [0] get_ofi_provider:590 NCCL WARN NET/OFI Couldn't find any optimal provider", "nccl_net_plugin_error",
     {"call": "provider"}),
    ("algo-1:249:249 [0] ofi_init:1339 NCCL WARN NET/OFI aws-ofi-nccl initialization failed", "nccl_net_plugin_error",
     {"plugin": "OFI", "call": "init", "error": "aws-ofi-nccl initialization failed"}),
    ("n1:1:2 [0] nccl_net_ofi_create_plugin:1031 NCCL WARN NET/OFI Caught exception in plugin init: std::bad_alloc",
     "nccl_net_plugin_error", {"call": "init", "error": "Caught exception in plugin init: std::bad_alloc"}),
    ("[1,23]<stdout>:ip-172-32-45-165:72593:73427 [7] create_nccl_ofi_component:459 NCCL WARN NET/OFI Couldn't open AV. RC: -22, "
     "ERROR: Invalid argument", "nccl_net_plugin_error",
     {"plugin": "OFI", "call": "libfabric_setup", "resource": "open AV", "code": -22, "error": "Invalid argument"}),
    ("n1:1:2 [0] nccl_net_ofi_init:1201 NCCL WARN NET/OFI Couldn't open a fabric access domain. RC: -38, ERROR: Function not "
     "implemented", "nccl_net_plugin_error", {"resource": "open a fabric access domain", "code": -38}),
    # aws-ofi-nccl's functional tests' own logger (aws-ofi-nccl#22), and Ray's dedup suffix (awsome-distributed-ai#386)
    ("WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
     "nccl_net_plugin_error", {"call": "libfabric_setup", "resource": "open AV"}),
    ("(RayTrainWorker pid=954, ip=10.67.132.202) ini-worker-ray-worker-p5:954:3133 [6] nccl_net_ofi_create_plugin:1067 NCCL WARN "
     "NET/OFI aws-ofi-nccl initialization failed [repeated 15x across cluster]", "nccl_net_plugin_error",
     {"call": "init", "error": "aws-ofi-nccl initialization failed"}),
    # Google's GPUDirect-TCPX / TCPXO plugins (Megatron-LM#4660 with its time elided; the time absl::FormatTime prints, filled in)
    ("NCCL WARN NET/FasTrak ...: INVALID_ARGUMENT: Buffer registration request does not have a valid fd set.", "nccl_net_plugin_error",
     {"plugin": "FasTrak", "call": "INVALID_ARGUMENT", "error": "Buffer registration request does not have a valid fd set."}),
    ("a3m-0:77:90 [2] init.cc:55 NCCL WARN NET/FasTrak 2026-05-06T10:11:12.123456+00:00: FAILED_PRECONDITION: receive() error: 32: "
     "Broken pipe", "nccl_net_plugin_error", {"plugin": "FasTrak", "call": "FAILED_PRECONDITION", "error": "receive() error: 32: Broken pipe"}),
    ("n1:1:2 [0] nccl_cuda/cuda_common.cc:93 NCCL WARN NET/FasTrak: Number of GPUs (9) is larger than maximum number: 8",
     "nccl_net_plugin_error", {"plugin": "FasTrak", "call": None, "error": "Number of GPUs (9) is larger than maximum number: 8"}),
    ("n1:1:2 [0] connect.cc:416 NCCL WARN NET/GPUDirectTCPX failed to connect socket", "nccl_net_plugin_error",
     {"plugin": "GPUDirectTCPX", "call": None, "error": "failed to connect socket"}),
    ("n1:1:2 [0] cuda_wrapper.cu:59 NCCL WARN NET/GPUDirectTCPX/CUDA : no cuDevices found", "nccl_net_plugin_error",
     {"plugin": "GPUDirectTCPX", "error": "no cuDevices found"}),
    ("vm:1552:1552 [0] NCCL INFO NCCL_SOCKET_IFNAME set to lo", "nccl_env", {"name": "NCCL_SOCKET_IFNAME", "value": "lo"}),
    ("[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>", "nccl_bootstrap_failure",
     {"reason": "connection_closed", "peer": "10.10.1.3<36138>"}),
    ("[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>", "nccl_warn",
     {"message_kind": "socket_connection_closed"}),
    # the 2.12-2.15 and 2.7-2.9 forms of the same WARN (src/misc/socket.cc, include/socket.h), filled in
    ("n1:1:2 [0] misc/socket.cc:523 NCCL WARN Net : Connection closed by remote peer 10.0.0.2<43512>", "nccl_warn",
     {"message_kind": "socket_connection_closed"}),
    ("n1:1:2 [0] include/socket.h:416 NCCL WARN Net : Connection closed by remote peer", "nccl_warn",
     {"message_kind": "socket_connection_closed"}),
    # src/misc/ipcsocket.cc's WARN "UDS: Binding to socket %s failed : %s (%d)" (2.19 and later; 2.18: ": %d", errno
    # alone), filled in for EADDRINUSE; another errno is not this kind but the local IPC channel's failure (round rW4)
    ("n1:1:2 [3] misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket /tmp/nccl-socket-3-5f1c0a9e2b7d4c11 failed : "
     "Address already in use (98)", "nccl_warn", {"message_kind": "uds_bind_address_in_use"}),
    ("n1:1:2 [3] misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket /tmp/nccl-socket-3-5f1c0a9e2b7d4c11 failed : 98",
     "nccl_warn", {"message_kind": "uds_bind_address_in_use"}),
    ("n1:1:2 [3] misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket /tmp/nccl-socket-3-5f1c0a9e2b7d4c11 failed : "
     "Permission denied (13)", "nccl_warn", {"message_kind": "local_ipc_exchange_failed"}),
    # src/misc/socket.cc's WARN "socketFinalizeAccept: wrong magic %lx != %lx" (v2.16.2-1 to v2.26.6-1): a connection that is
    # not an NCCL rank's (NVIDIA/nccl#1808's line, its relay's "worker-9 >> " prefix and the second timestamp as pasted)
    ("2025-08-12 09:37:03.463948 worker-9 >> [2025-08-12 01:37:03] :166:1226 [0] misc/socket.cc:484 NCCL WARN socketFinalizeAccept: "
     "wrong magic 74656d2f20544547 != 7970663b906d70b9", "nccl_warn",
     {"message_kind": "socket_foreign_connection", "source_file": "misc/socket.cc", "source_line": 484}),
    # NCCL 2.8-2.11 src/bootstrap.cc's WARN "[Rem Allocator] Allocation failed (segment %d, fd %d)" (NVIDIA/nccl#844's line);
    # the same thread's poll failure is another kind
    ("696b7901f9044f23b786795c0ef7257b000000:39:298 [0] bootstrap.cc:279 NCCL WARN [Rem Allocator] Allocation failed "
     "(segment 0, fd 130)", "nccl_warn", {"message_kind": "rem_allocator_allocation_failed", "source_file": "bootstrap.cc"}),
    ("n1:1:2 [0] bootstrap.cc:264 NCCL WARN [Rem Allocator] Poll failed with error 1", "nccl_warn",
     {"message_kind": "rem_allocator_poll_failed"}),
    # the old releases' own forms (issue 11, round B3; the formats of the tags named, filled in):
    # v2.4.2-1 .. v2.9.9-1 include/socket.h WARN("Call to recv failed : %s", strerror(errno)): no peer named
    ("n1:1:2 [0] include/socket.h:424 NCCL WARN Call to recv failed : Connection reset by peer", "nccl_bootstrap_failure",
     {"reason": "connection_closed", "peer": None, "error": "Connection reset by peer"}),
    ("n1:1:2 [0] include/socket.h:424 NCCL WARN Call to recv failed : Connection timed out", "nccl_bootstrap_failure",
     {"reason": "timeout", "peer": None}),
    # v2.3.5-5 transport/net_socket.cu:121 WARN("No usable listening interface found"): none in the peer's subnet
    ("n1:1:2 [0] transport/net_socket.cu:121 NCCL WARN No usable listening interface found", "nccl_bootstrap_failure",
     {"reason": "no_subnet_interface", "peer": None}),
    # v2.3.5-5 .. v2.11.4-1 include/nvmlwrap.h NVMLCHECK WARN("NVML failure '%s'", nvmlErrorString(e)), and the other
    # wrappers' "nvml<Call>() failed: %s " (misc/nvmlwrap.cc)
    ("n1:1:2 [0] include/nvmlwrap.h:28 NCCL WARN NVML failure 'Driver/library version mismatch'", "nccl_warn",
     {"message_kind": "nvml_driver_library_mismatch"}),
    ("n1:1:2 [0] misc/nvmlwrap.cc:134 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Driver/library version mismatch ",
     "nccl_warn", {"message_kind": "nvml_driver_library_mismatch"}),
    # NVIDIA/nccl#1066 (2.12.12): another NVML error is not a version mismatch
    ("gcn6:1080061:1080359 [0] misc/nvmlwrap.cc:181 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found", "nccl_warn",
     {"message_kind": None}),
    ("n1:1:2 [0] include/nvmlwrap.h:28 NCCL WARN NVML failure 'Unknown Error'", "nccl_warn", {"message_kind": None}),
    # v2.9.9-1 .. v2.15.1-1 misc/strongstream.cc:26
    ("n1:1:2 [0] misc/strongstream.cc:26 NCCL WARN The installed CUDA driver is older than the minimum version (R465) "
     "required for NCCL's CUDA Graphs support", "nccl_warn", {"message_kind": "cuda_graphs_driver_too_old"}),
    # zai-org/VisualGLM-6B#272 (2.14.3): 2.13-2.15's dlopen of libcuda.so failing is no kind: NCCL goes on without it
    #   (init.cc "(void)ncclCudaLibraryInit();"), the job there was killed for another reason
    ("hgx-023:1910570:1910570 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA library in (null) (NCCL_CUDA_PATH=(null))",
     "nccl_warn", {"message_kind": None}),
]


@pytest.mark.parametrize("line,kind,fields", MESSAGES)
def test_message_forms(line, kind, fields):
    r = parse(line + "\n")
    [f] = [f for f in r.facts if f.kind == kind]
    assert {k: getattr(f, k) for k in fields} == fields


def test_version_line_alone_and_with_a_warn():
    r = parse("NCCL version 2.4.8+cuda10.0\n\ninit.cc:1247 NCCL WARN Mismatched collective detected, please check "
              "your collective calls at and around rank 39.\n")
    assert nccl_log.detect("NCCL version 2.4.8+cuda10.0\n")
    assert [f.version for f in r.facts if f.kind == "nccl_version"] == ["2.4.8"]


def test_chain_after_warn_cites_the_warn():
    r = parse((FIX / "nvls_invalid_argument_2.18.5.log").read_text())
    [c] = [f for f in r.facts if f.kind == "nccl_error_chain"]
    assert (c.first_file, c.first_line, c.code, c.result, c.frames, c.has_warn) == (
        "transport/nvls.cc", 324, 1, "ncclUnhandledCudaError", 4, True)
    assert c.evidence.line == 3 and c.warn_message == "Cuda failure 'invalid argument'"


def test_chain_through_async_thread_is_one_chain():
    r = parse((FIX / "bootstrap_closed_before_magic.log").read_text())
    [c] = [f for f in r.facts if f.kind == "nccl_error_chain"]
    assert c.frames == 10 and c.code == 6 and c.evidence.line == 1
    assert c.frame_list.split(",")[:2] == ["misc/socket.cc:80", "misc/socket.cc:474"]
    assert c.warn_message_kind == "socket_connection_closed"  # the WARN before it, by kind (nccl_warn_kinds)


def test_chain_without_warn_names_its_first_frame():
    r = parse((FIX / "error_chain_without_warn.log").read_text())
    [c] = [f for f in r.facts if f.kind == "nccl_error_chain"]
    assert (c.first_file, c.first_line, c.has_warn, c.meaning, c.evidence.line) == (
        "misc/socket.cc", 567, False, "unhandled system error", 2)


def test_frames_of_an_abort_make_no_chain():
    text = ("vm:745:753 [0] NCCL INFO comm 0x229774f0 rank 0 nRanks 2 cudaDev 0 busId 60 - Abort START\n"
            "vm:745:753 [0] NCCL INFO misc/socket.cc:64 -> 3\n"
            "vm:745:753 [0] NCCL INFO comm 0x229774f0 rank 0 nranks 2 cudaDev 0 busId 60 - Abort COMPLETE\n")
    assert "nccl_error_chain" not in kinds(parse(text))


# NCCL 2.4-2.5's socket transport on a virtual NIC (OpenNMT/OpenNMT-py#1606, a GCP pod): ncclSocketPciPath's INFO, then
# ncclNetPciPath's one frame (src/include/net.h:19), which netDistance / the topology ignore; NCCL goes on to its rings
_PCI_PATH = ("sfr-pod-rmeng:435:783 [0] NCCL INFO Could not find real path of /sys/class/net/eth0/device\n"
             "sfr-pod-rmeng:435:783 [0] NCCL INFO include/net.h:19 -> 2\n"
             "sfr-pod-rmeng:435:783 [0] NCCL INFO Ring 00 : 0 -> 8 [receive] via NET/Socket/0\n")


def test_the_ignored_pci_path_probe_of_a_virtual_nic_makes_no_chain():
    r = parse(_PCI_PATH)
    assert "nccl_error_chain" not in kinds(r)
    assert [(f.source_file, f.source_line, f.code) for f in r.facts if f.kind == "nccl_error_return"] == [("include/net.h", 19, 2)]


@pytest.mark.parametrize("text", [
    # the frame alone, no INFO before it: a chain (nothing says the failure was ignored)
    _PCI_PATH.split("\n", 1)[1],
    # the failure went on up past ncclNetPciPath: a chain after all
    _PCI_PATH.replace("Ring 00", "NCCL INFO transport/net.cc:83 -> 2\nsfr-pod-rmeng:435:783 [0] NCCL INFO Ring 00", 1)
    .replace("NCCL INFO NCCL INFO", "NCCL INFO"),
    # another process's INFO does not explain this one's frame
    _PCI_PATH.replace("sfr-pod-rmeng:435:783 [0] NCCL INFO Could", "sfr-pod-rmeng:436:784 [1] NCCL INFO Could", 1),
    # a frame of another file after the INFO (not ncclNetPciPath's)
    _PCI_PATH.replace("include/net.h:19", "misc/socket.cc:567", 1),
])
def test_pci_path_near_misses_still_make_a_chain(text):
    [c] = [f for f in parse(text).facts if f.kind == "nccl_error_chain"]
    assert c.has_warn is False and c.code == 2


def test_a_process_that_connects_channels_without_its_init_complete_is_a_capture_cut_short():
    # OpenNMT/OpenNMT-py#1606's paste: six ranks at Init COMPLETE, process 435 still connecting its rings when it ends
    done = ("sfr-pod-rmeng:438:786 [3] NCCL INFO comm 0x7f6594002560 rank 11 nranks 16 cudaDev 3 nvmlDev 3 - Init COMPLETE\n")
    r = parse(done + _PCI_PATH)
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 4)] and "sfr-pod-rmeng:435" in r.limits[0].detail
    # the same process with its own Init COMPLETE: nothing cut
    own = "sfr-pod-rmeng:435:783 [0] NCCL INFO comm 0x7f1a40002561 rank 8 nranks 16 cudaDev 0 nvmlDev 0 - Init COMPLETE\n"
    assert not parse(done + _PCI_PATH + own).limits


# NCCL 2.22+'s "Init timings" line follows a communicator's Init COMPLETE in the same function (src/init.cc):
# 2.22 "Init timings: rank %d nranks %d total %.2f (...)", 2.23+ "Init timings - %s: rank %d nranks %d total %.2f (...)"
_START_2 = ("swat1-04:2017630:2017671 [2] NCCL INFO ncclCommInitRank comm 0x8e0bd40 rank 2 nranks 16 cudaDev 2 nvmlDev 2"
            " busId 48000 commId 0x49bbd7790311d5eb - Init START\n")  # CONSTRUCTED from init.cc's Init START format
_TIMED_2 = ("swat1-04:2017630:2017671 [2] NCCL INFO Init timings: rank 2 nranks 16 total 1.08 (kernels 0.51, bootstrap 0.22,"
            " allgathers 0.01, topo 0.28, graphs 0.04, connections 0.02, rest 0.01)\n")  # NVIDIA/nccl#1412 (2.22), real


def test_init_timings_is_the_ranks_init_complete():
    r = parse(_START_2 + _TIMED_2)
    assert not r.limits
    assert [(f.rank, f.init_complete) for f in r.facts if f.kind == "nccl_rank"] == [(2, True)]
    # NVIDIA/nccl#1646 (2.23+ form): ranks 3 and 4 print their timings, their Init COMPLETE is outside the excerpt;
    # only process 1106801 (channels alone) is not seen finished
    r = parse((FIX / "nccl1646_init_timings_without_complete.log").read_text())
    assert [h.limit for h in r.limits] == ["cut_short"]
    assert "1106801" in r.limits[0].detail and "1106802" not in r.limits[0].detail and "1106803" not in r.limits[0].detail
    # vllm-project/aibrix#758: the head's timings line alone under Ray's prefix is a finished init; the workers'
    # processes, channels only, are not seen finished
    r = parse((FIX / "aibrix758_init_timings_ray_cut.txt").read_text())
    assert [h.limit for h in r.limits] == ["cut_short"] and "worker" in r.limits[0].detail
    assert "before any communicator" not in r.limits[0].detail


@pytest.mark.parametrize("text", [
    # another rank's timings, or the same rank of another communicator size: rank 2's init is not seen finished
    _START_2 + _TIMED_2.replace("rank 2 nranks 16", "rank 6 nranks 16"),
    _START_2 + _TIMED_2.replace("rank 2 nranks 16", "rank 2 nranks 8"),
    # another process's
    _START_2 + _TIMED_2.replace("2017630:2017671", "2017631:2017671"),
    # one timings line for two communicators of the same rank and size: one of them is left unfinished
    _START_2 + _START_2.replace("0x8e0bd40", "0x9e0bd40") + _TIMED_2,
    # words about timings, not NCCL's line
    _START_2 + "swat1-04:2017630:2017671 [2] NCCL INFO Init timings are slow on rank 2\n",
])
def test_init_timings_of_another_rank_does_not_complete_this_one(text):
    r = parse(text)
    assert [h.limit for h in r.limits] == ["cut_short"]
    assert False in [f.init_complete for f in r.facts if f.kind == "nccl_rank"]


def test_two_processes_interleaved_make_two_chains():
    # nccl-tests#166's lines, a second pid interleaved as mpirun's ranks print
    text = ("ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-KWfVyt (size 5967872)\n"
            "ubuntu:9622:9689 [4] NCCL INFO transport/shm.cc:114 -> 2\n"
            "ubuntu:9621:9688 [3] NCCL INFO transport/shm.cc:114 -> 2\n"
            "ubuntu:9621:9688 [3] NCCL INFO transport.cc:33 -> 2\n")
    chains = sorted((c.pid, c.frames, c.has_warn) for c in parse(text).facts if c.kind == "nccl_error_chain")
    assert chains == [(9621, 2, True), (9622, 1, False)]


PLUGIN_LOADS = [
    # (line, reason or None for an absent plugin)                      source thread
    (" [0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found "
     "(required by /fsx/lib/python3.10/site-packages/torch/lib/../../../../libnccl-net.so) No plugin found (libnccl-net.so), "
     "using internal implementation", "symbol_version"),                # awsome-distributed-ai#292
    ("n1:1:2 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory "
     "No plugin found (libnccl-net.so)", None),  # modelscope/FunCodec#44's title (2.19.3), NCCL's prefix constructed in front
    ("user:852750:852750 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open "
     "shared object file: No such file or directory", None),            # nccl-tests#188
    ("192-222-53-201:266345:266345 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared "
     "object file: No such file or directory : when loading libnccl-net.so", None),  # pytorch#146118 (2.21.5)
    ((FIX / "net_plugin_unable_to_load_2.3_title.log").read_text().strip(), None),  # nccl#162 (2.3, no prefix)
    ("n1:1:2 [0] NCCL INFO Unable to load libnccl-net.so : libnccl-net.so: cannot open shared object file: "
     "No such file or directory", None),                                 # the same 2.3 INFO with NCCL's prefix
    # the 2.21 line cut where the stored excerpt ended (vllm-project/vllm#9046): errno 2, ENOENT's text begun
    ("udc-an26-1:652693:652693 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open sh", None),
]


def test_plugin_load_cut_text_is_absent_only_with_enoent() -> None:
    # the same cut text under another errno (13, EACCES) is not known to be the absent plugin: a load failure
    line = "udc-an26-1:652693:652693 [0] NCCL INFO NET/Plugin: Plugin load returned 13 : libnccl-net.so: cannot open sh\n"
    assert [f.reason for f in parse(line).facts if f.kind == "nccl_net_plugin_load_failure"] == ["other"]
    # a dependency's file cut the same way is the plugin's missing dependency, not its absence
    line = "n1:1:2 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libfabric.so.1: cannot open shared obj\n"
    assert [f.reason for f in parse(line).facts if f.kind == "nccl_net_plugin_load_failure"] == ["missing_dependency"]


@pytest.mark.parametrize("line,reason", PLUGIN_LOADS)
def test_plugin_load_failure_only_when_the_plugin_is_there(line: str, reason: str | None) -> None:
    res = parse(line + "\n")
    failures = [f for f in res.facts if f.kind == "nccl_net_plugin_load_failure"]
    assert [f.reason for f in failures] == ([reason] if reason else [])
    assert any(f.kind == "nccl_net_plugin" and f.event == "not_found" for f in res.facts)
    assert not res.errors


# 2.3 and 2.22-2.28 name a plugin that is there and does not load (src/net.cc "NET/Plugin: %s", src/plugin/plugin_open.cc
# "%s/Plugin: %s: %s"), filled in with real dlerror texts (awsome-distributed-ai#292, aws-ofi-nccl's undefined symbol)
PLUGIN_OPEN_ERRORS = [
    ("n1:1:2 [0] NCCL INFO NET/Plugin: libnccl-net.so: /opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found "
     "(required by /opt/aws-ofi-nccl/lib/libnccl-net.so)", "symbol_version", "libnccl-net.so"),
    ("n1:1:2 [0] NCCL INFO Unable to load libnccl-net.so : libfabric.so.1: cannot open shared object file: "
     "No such file or directory", "missing_dependency", "libnccl-net.so"),  # 2.3: the plugin is there, a library it needs is not
    ("n1:1:2 [0] NCCL INFO NET/Plugin: /opt/aws-ofi-nccl/lib/libnccl-net.so: undefined symbol: fi_opx_ini", "undefined_symbol", None),
]


@pytest.mark.parametrize("line,reason,library", PLUGIN_OPEN_ERRORS)
def test_plugin_open_error_of_2_22_on(line: str, reason: str, library: str | None) -> None:
    res = parse(line + "\n")
    [f] = [f for f in res.facts if f.kind == "nccl_net_plugin_load_failure"]
    assert (f.reason, f.library) == (reason, library)
    assert not res.errors


@pytest.mark.parametrize("line", [
    "n1:1:2 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.",    # nccl#1292: not a failure (kiskra-nvidia)
    "n1:1:2 [0] NCCL INFO NET/Plugin: Plugin name set by env to libnccl-net-ofi.so",
    "n1:1:2 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)",
])
def test_plugin_lines_that_are_no_load_failure(line: str) -> None:
    assert not [f for f in parse(line + "\n").facts if f.kind == "nccl_net_plugin_load_failure"]


@pytest.mark.parametrize("line,name,value", [
    ((FIX / "p2p_level_loc_bare.log").read_text().strip(), "NCCL_P2P_LEVEL", "LOC"),   # nccl-tests#228, quoted alone
    ("NCCL_IB_DISABLE set by environment to 1.", "NCCL_IB_DISABLE", "1"),             # param.cc's form, no prefix
    ("NCCL_SOCKET_IFNAME set to ib0", "NCCL_SOCKET_IFNAME", "ib0"),                 # 2.12+ "%s set to %s", no prefix
])
def test_environment_line_without_prefix(line: str, name: str, value: str) -> None:
    res = parse(line + "\n")
    assert [(f.name, f.value) for f in res.facts if f.kind == "nccl_env"] == [(name, value)]
    assert not res.errors and nccl_log.detect(line + "\n")


def test_environment_words_inside_prose_are_not_nccl() -> None:
    assert not nccl_log.detect("we had NCCL_P2P_LEVEL set to LOC in the job script\n")


def test_a_bare_message_under_the_pastes_own_indentation_is_read() -> None:
    """xorbitsai/inference#1622: an e-mail reply indents every line of a forwarded log but its first, so
    facts/lines.py (which takes away only a margin every line shares) leaves the blank; NCCL's bare
    shared-memory WARN message is read as at a line start (wild sweep rK2)."""
    text = (FIX / "shm_create_email_indented_paste_xinference1622.log").read_text()
    assert nccl_log.detect(text)
    res = parse(text)
    [shm] = [f for f in res.facts if f.kind == "nccl_shm_failure"]
    assert (shm.op, shm.segment, shm.size_bytes, shm.evidence.line) == ("create", "/dev/shm/nccl-jaXv5Z", 5767520, 5)
    # the other bare messages likewise (NCCL's strings: init.cc's mismatched collective, a self-explaining WARN)
    for line in ("   Mismatched collective detected", "\tNET/IB : Unable to open device mlx5_0"):
        assert nccl_log.detect("x\n" + line + "\n") and [f.kind for f in parse("x\n" + line + "\n").facts] != []


@pytest.mark.parametrize("line", [
    # must not: the words without NCCL's segment path, an indented line that only mentions the message
    "  Error while creating shared memory segment for the cache",
    "  we saw 'Error while creating shared memory segment /dev/shm/nccl-jaXv5Z' yesterday",
])
def test_indented_near_misses_of_bare_messages_are_not_nccl(line: str) -> None:
    assert not nccl_log.detect("x\n" + line + "\n")
    assert [f.kind for f in parse("x\n" + line + "\n").facts] == []


def test_ofi_register_memory_failure_names_the_buffer_type() -> None:
    # aws-ofi-nccl#584's title line
    res = parse((FIX / "ofi_register_mr_cuda_einval.log").read_text())
    [e] = [f for f in res.facts if f.kind == "nccl_net_plugin_error"]
    assert (e.call, e.memory_type, e.code, e.error) == ("register_mr", "cuda", -22, "Invalid argument")


def test_ofi_test_logger_info_and_trace_give_no_fact():
    """aws-ofi-nccl's test logger's INFO lines (aws-ofi-nccl#22) are not failures; TRACE is not read."""
    r = parse("INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n"
              "TRACE: Function: ofi_init Line: 700: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n")
    assert nccl_log.detect("INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n")
    assert [f.kind for f in r.facts if f.kind in ("nccl_warn", "nccl_net_plugin_error")] == []


def test_message_ends_at_a_terminal_rows_padding() -> None:
    """DeepEP#106: rows padded to the terminal's width and joined without newlines: the WARN's
    message ends where the padding starts, so the completion status is read."""
    result = parse((FIX / "ib_completion_row_padded_deepep106.log").read_text())
    errors = [f for f in result.facts if f.kind == "nccl_rdma_completion_error"]
    assert errors and errors[0].error == 5 and errors[0].vendor_err == 249 and errors[0].opcode == 48
    warn = next(f for f in result.facts if f.kind == "nccl_warn")
    assert warn.message.endswith("vendor err 249")
    # a message with single blanks only is not cut
    one = parse("h:1:2 [0] ib_plugin.c:1075 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12, opcode 0, len 0, vendor err 129 (Send)")
    assert next(f for f in one.facts if f.kind == "nccl_warn").message.endswith("(Send)")


@pytest.mark.parametrize("line", [
    "n1:1:2 [0] NCCL INFO Call to accept returned Interrupted system call, retrying",  # a retry at INFO, not a failure
    "n1:1:2 [0] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3",  # a handshake, not accept()
    "n1:1:2 [0] misc/socket.cc:415 NCCL WARN socketTryAccept: Accept failed: ",  # no errno text
    "n1:1:2 [0] NCCL WARN UDS: Binding to socket /tmp/x failed : 98",  # the proxy's Unix socket: not a TCP port
    "n1:1:2 [0] NCCL WARN Call to posix_fallocate failed : No space left on device",  # another SYSCHECK
])
def test_accept_near_misses(line):
    assert not [f for f in parse(line + "\n").facts if f.kind == "nccl_bootstrap_failure" and f.reason in ("accept_failed", "bind_failed")]


@pytest.mark.parametrize("line,error", [
    # NCCL 2.23-2.26 misc/socket.cc socketPollConnect: the poll woke with an error event (the message of NVIDIA/nccl#1618)
    ("s12gn3064:3942408:3942500 [4] misc/socket.cc:586 NCCL WARN socketPollConnect poll() returned 1, no POLLOUT events",
     "poll() returned 1, no POLLOUT events"),
    # 2.22-2.26: poll() itself failed (EINTR is retried silently)
    ("n1:1:2 [0] misc/socket.cc:503 NCCL WARN socketPollConnect poll() failed with error Invalid argument", "Invalid argument"),
])
def test_poll_connect_gave_up(line, error):
    """NCCL 2.22-2.26 gave up on a connect whose poll failed or woke without POLLOUT, naming neither the peer nor the
    connect's errno: a connect_failed bootstrap failure with no peer."""
    got = [f for f in parse(line + "\n").facts if f.kind == "nccl_bootstrap_failure"]
    assert [(f.reason, f.peer, f.error, f.retrying) for f in got] == [("connect_failed", None, error, False)]


@pytest.mark.parametrize("line", [
    "n1:1:2 [0] NCCL INFO socketPollConnect poll() returned 1, no POLLOUT events",  # INFO: not NCCL's WARN
    "n1:1:2 [0] misc/socket.cc:617 NCCL WARN socketPollConnect to 10.0.0.2<4242> failed with error Bad file descriptor",  # 2.27's form: a peer
])
def test_poll_connect_near_misses(line):
    assert not [f for f in parse(line + "\n").facts if f.kind == "nccl_bootstrap_failure" and f.reason == "connect_failed"]


def test_async_event_cut_inside_its_name_on_the_last_line_is_cut_short() -> None:
    """deepspeedai/DeepSpeedExamples#310's excerpt (wild sweep 86): four whole 'client reregistration' WARNs, the
    fifth cut inside the event's name where the excerpt ends: a capture cut short (the verdict cannot be healthy),
    no nccl_warn that no rule could explain. Before, it was an unexplained_error and the paste read FAULTY."""
    text = (FIX / "dsexamples310_async_client_rereg_cut.log").read_text()
    r = parse(text, node="gpu1")
    events = [f.event for f in r.facts if f.kind == "nccl_ib_async_event"]
    assert events == ["client reregistration"] * 4
    assert [f.message for f in r.facts if f.kind == "nccl_warn" and "reregistr" in f.message and
            not f.message.endswith("reregistration")] == []
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 19)] and "client reregistr" in r.limits[0].detail
    # near misses: the same cut name with a line after it is read as before (an event the catalogue lacks, its WARN
    # kept); a whole name on the last line sets no limit; a name the catalogue does not begin with is read as before
    cut = text.rstrip().splitlines()[-1]
    for other in (text.rstrip() + "\n" + text.rstrip().splitlines()[-3] + "\n",):
        later = parse(other, node="gpu1")
        assert "client reregistr" in [f.event for f in later.facts if f.kind == "nccl_ib_async_event"]
        assert not [h for h in later.limits if h.limit == "cut_short" and "event's name" in h.detail]
    whole = parse(text.rstrip() + "ation\n", node="gpu1")
    assert [f.event for f in whole.facts if f.kind == "nccl_ib_async_event"] == ["client reregistration"] * 5
    assert not [h for h in whole.limits if "event's name" in h.detail]
    odd = parse(text.replace(cut, cut.replace("client reregistr", "zzz unlisted")), node="gpu1")
    assert "zzz unlisted" in [f.event for f in odd.facts if f.kind == "nccl_ib_async_event"]
    assert not [h for h in odd.limits if "event's name" in h.detail]


def test_ras_client_socket_bind_is_its_own_kind_not_a_bootstrap_failure() -> None:
    # vllm-project/vllm#19204 (NCCL 2.26): rasClientInitSocket's SYSCHECKGOTO of bind() for localhost:28028, whose result
    # src/ras/ras.cc ignores; the same words from misc/socket.cc (a bootstrap listener, nccl#1882) stay a bootstrap failure
    result = nccl_log.parse(Artefact(path="nccl.log", text=(FIX / "vllm19204_ras_client_bind_in_use.log").read_text(),
                                     node="paula09"))
    warns = [f for f in result.facts if f.kind == "nccl_warn"]
    assert [(w.source_file, w.message_kind) for w in warns] == [("ras/client_support.cc", "ras_client_socket_failed")]
    assert "nccl_bootstrap_failure" not in kinds(result)
    other = parse("n1:1:1 [0] misc/socket.cc:409 NCCL WARN Call to bind failed: Address already in use\n")
    assert [f.reason for f in other.facts if f.kind == "nccl_bootstrap_failure"] == ["bind_failed"]
    assert [f.message_kind for f in other.facts if f.kind == "nccl_warn"] == [None]


# NCCL's verbs wrappers' WARN (src/misc/ibvwrap.cc) pasted without NCCL's prefix: "Call to <verb> failed with error"
# is their wording alone (wild sweep rR5). CONSTRUCTED from the format strings, as each comment says.
@pytest.mark.parametrize("line,verb,error,errno", [
    # IBV_INT_CHECK_RET_ERRNO, 2.19+: WARN("Call to " name " failed with error %s errno %d", strerror(ret), ret)
    ("Call to ibv_modify_qp failed with error No such device errno 19", "ibv_modify_qp", "No such device", 19),
    # IBV_PTR_CHECK_ERRNO, every release: WARN("Call to " name " failed with error %s", strerror(errno))
    ("Call to ibv_reg_mr failed with error Cannot allocate memory", "ibv_reg_mr", "Cannot allocate memory", None),
    # wrap_ibv_modify_qp, 2.25+: WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg)
    ("Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, "
     "local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2", "ibv_modify_qp", "Connection timed out", 110),
])
def test_a_bare_verbs_wrapper_warn_is_read(line: str, verb: str, error: str, errno: int | None) -> None:
    assert nccl_log.detect(line + "\n")
    res = parse(line + "\n")
    [v] = [f for f in res.facts if f.kind == "nccl_verbs_failure"]
    assert (v.verb, v.error, v.errno) == (verb, error, errno)
    assert [w.message for w in res.facts if w.kind == "nccl_warn"] == [line]


@pytest.mark.parametrize("line", [
    # the ECE probe's INFO for EOPNOTSUPP (IBV_INT_CHECK_RET_ERRNO_OPTIONAL, wrap_ibv_query_ece / wrap_ibv_set_ece, 2.19-2.25):
    # NCCL goes on without ECE, bare or under NCCL's INFO prefix
    "Call to ibv_set_ece failed with error Operation not supported errno 95",
    "node0:4744:4765 [0] NCCL INFO Call to ibv_set_ece failed with error Operation not supported errno 95",
    "Call to ibv_query_ece failed with error Operation not supported errno 95",
    # the INFO before a retry of the queue-pair transition (wrap_ibv_modify_qp, 2.25+)
    "Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, "
    "local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2, retrying 1/8 after 100 msec of sleep",
])
def test_the_verbs_wrappers_info_forms_are_no_failure(line: str) -> None:
    res = parse(line + "\n")
    assert [f.kind for f in res.facts if f.kind in ("nccl_verbs_failure", "nccl_warn")] == []


@pytest.mark.parametrize("line", [
    "Call to ibv_open_device failed",                      # IBV_PTR_CHECK's WARN: too generic to claim a file bare
    "the log said Call to ibv_modify_qp failed with error No such device errno 19 twice",   # inside a sentence, unquoted
    'he saw "Call to ibv_modify_qp failed with error No such device" and "NET/IB : Unable to open device mlx5_0"',  # two spans
])
def test_verbs_wrapper_near_misses_are_not_read(line: str) -> None:
    assert [f.kind for f in parse("x\n" + line + "\n").facts if f.kind in ("nccl_verbs_failure", "nccl_warn")] == []


def test_a_bare_message_quoted_in_a_sentence_is_read() -> None:
    """blog.gitcode.com's summary of a vLLM/NCCL 2.21.5 failure (pages corpus) quotes NCCL's messages in sentences:
    the verbs wrapper's WARN is read as the WARN it is, the ECE probe's INFO as no failure."""
    text = (FIX / "gitcode_ib_gid_quoted_in_prose.txt").read_text()
    assert nccl_log.detect(text)
    res = parse(text)
    [v] = [f for f in res.facts if f.kind == "nccl_verbs_failure"]
    assert (v.verb, v.error, v.errno, v.evidence.line) == ("ibv_modify_qp", "No such device", 19, 2)
    assert [w.evidence.line for w in res.facts if w.kind == "nccl_warn"] == [2]
    assert not res.errors


def test_a_bare_message_in_a_markdown_code_span_is_read() -> None:
    """The same WARN quoted in a Markdown code span after the reporter's words (nccl_warn_kinds.QUOTED's backtick;
    CONSTRUCTED around the verbs wrapper's message of the gitcode fixture); two spans on one line are not one message."""
    res = parse("x\nthe job fails with `Call to ibv_modify_qp failed with error No such device errno 19` at init\n")
    [v] = [f for f in res.facts if f.kind == "nccl_verbs_failure"]
    assert (v.verb, v.errno, v.evidence.line) == ("ibv_modify_qp", 19, 2)
    res = parse("x\n`a` and `Call to ibv_modify_qp failed with error No such device errno 19`\n")
    assert not [f for f in res.facts if f.kind == "nccl_verbs_failure"]


# NCCL 2.32's ATTN level ("noteworthy, not an error": src/include/debug.h NCCL_LOG_ATTN, printed by src/debug.cc with
# WARN's prefix, "[%d] %s:%d (%s) NCCL ATTN %s", ncclLastError left alone). CONSTRUCTED from the 2.32 format strings:
# plugin/profiler.cc's ATTN("Profiler init failed with error '%d': %s. Continue without profiler.", ...), the
# parameter loader's ATTN("Invalid value %s for %s, using default %lld.", ...), the TLS hello's ATTN("TLS handshake
# from %s failed, discarding peer connection", ...), GIN's ATTN("Found %d local devices, but GIN supports at most %d
# connections. Using the first %d connections.", ...); no public paste of an ATTN line found.
_ATTN_PROFILER = ("[2026-11-29 18:30:18] vm:1633:1640 [0] plugin/profiler.cc:140 (ncclProfilerPluginInit) NCCL ATTN "
                  "Profiler init failed with error '1': Operation not permitted. Continue without profiler.")
_ATTN_INFO = (
    "[2026-11-29 18:30:18] vm:1633:1640 [0] misc/param.cc:60 (ncclLoadParam) NCCL ATTN Invalid value abc for NCCL_IB_TIMEOUT, using default 20.",
    "vm:1633:1640 [0] misc/socket.cc:1022 (cryptAcceptHello) NCCL ATTN TLS handshake from 10.0.0.7<51234> failed, discarding peer connection",
    "vm:1633:1640 [0] gin/gin_host.cc:310 (ncclGinConnect) NCCL ATTN Found 16 local devices, but GIN supports at most 8 connections. Using the first 8 connections.",
)
_ATTN_LOG = ("vm:1633:1633 [0] NCCL INFO NCCL version 2.32.1+cuda13.0\n" + _ATTN_PROFILER + "\n" + "\n".join(_ATTN_INFO)
             + "\nvm:1633:1640 [0] NCCL INFO Init COMPLETE\n")


@pytest.mark.parametrize("pad, stamped", [(0, True), (400, True), (400, False)],
                         ids=["fragment", "fast_path", "fast_path_all_prefixed"])
def test_attn_lines_are_read_a_known_warn_form_as_its_warn(pad: int, stamped: bool) -> None:
    # "pad" lines of NCCL INFO make the text long enough for the RE2 fast path (nccl_log_scan._FAST_FROM); without
    # the timestamps (NCCL_DEBUG_TIMESTAMP_LEVELS empty) every line starts with NCCL's prefix (its runs' path)
    log = _ATTN_LOG if stamped else _ATTN_LOG.replace("[2026-11-29 18:30:18] ", "")
    text = "".join(f"vm:1633:1640 [0] NCCL INFO Connected to proxy localRank {i % 8}\n" for i in range(pad)) + log
    r = parse(text)
    warns = [f for f in r.facts if f.kind == "nccl_warn"]
    assert [(w.message_kind, w.node, w.source_file) for w in warns] == [
        ("profiler_plugin_init_failed", "vm", "plugin/profiler.cc")]
    assert r.lines_used == text.count("\n")  # every ATTN line counted as read, none an unexplained WARN


def test_attn_is_nccl_prefix_for_detection() -> None:
    assert nccl_log.detect(_ATTN_INFO[1] + "\n")


# A setting NCCL could not read, its default used (src/misc/param.cc ncclLoadParam): 2.32's ATTN (a value not starting
# with a number, or out of range) and 2.4-2.31's INFO of the same format (out of range): an nccl_env_ignored fact on
# every reading path. CONSTRUCTED from "Invalid value %s for %s, using default %lld." and the two prefixes.
_INVALID_INFO = "vm:1633:1640 [1] NCCL INFO Invalid value 99999999999999999999 for NCCL_IB_RETRY_CNT, using default 7."


@pytest.mark.parametrize("pad, stamped", [(0, True), (400, True), (400, False)],
                         ids=["fragment", "fast_path", "fast_path_all_prefixed"])
def test_invalid_setting_value_is_an_ignored_setting(pad: int, stamped: bool) -> None:
    log = _ATTN_LOG.replace("Init COMPLETE\n", "Init COMPLETE\n" + _INVALID_INFO + "\n")
    log = log if stamped else log.replace("[2026-11-29 18:30:18] ", "")
    text = "".join(f"vm:1633:1640 [0] NCCL INFO Connected to proxy localRank {i % 8}\n" for i in range(pad)) + log
    got = [(f.name, f.value, f.default, f.node, f.local_device) for f in parse(text).facts if f.kind == "nccl_env_ignored"]
    assert got == [("NCCL_IB_TIMEOUT", "abc", "20", "vm", 0), ("NCCL_IB_RETRY_CNT", "99999999999999999999", "7", "vm", 1)]


# src/plugin/profiler.cc's "External profiler plugin %s is unsupported": an INFO in 2.23-2.31, ATTN from 2.32 (round
# rT5). CONSTRUCTED from the format and the two prefixes: read on every path as the nccl_warn of its kind
_PROFILER_UNSUPPORTED = (
    "vm:1633:1633 [0] plugin/profiler.cc:118 (ncclProfilerPluginLoad) NCCL ATTN External profiler plugin libnccl-profiler-inspector.so is unsupported",
    "vm:1633:1633 [1] NCCL INFO External profiler plugin libnccl-profiler-example.so is unsupported",
)


@pytest.mark.parametrize("pad", [0, 400], ids=["fragment", "fast_path"])
def test_profiler_plugin_unsupported_at_attn_and_info(pad: int) -> None:
    text = ("".join(f"vm:1633:1640 [0] NCCL INFO Connected to proxy localRank {i % 8}\n" for i in range(pad))
            + "vm:1633:1633 [0] NCCL INFO NCCL version 2.32.1+cuda13.0\n" + "\n".join(_PROFILER_UNSUPPORTED) + "\n")
    r = parse(text)
    warns = [(f.message_kind, f.local_device) for f in r.facts if f.kind == "nccl_warn"]
    assert warns == [("profiler_plugin_unsupported", 0), ("profiler_plugin_unsupported", 1)]
    assert r.lines_used == text.count("\n")


@pytest.mark.parametrize("line", [
    # CONSTRUCTED from NCCL's formats (enqueue.cc): v2.26.2-1 .. v2.29.3-1, then v2.29.7-1 on
    "n1:4312:4312 [0] enqueue.cc:71 NCCL WARN cudaArch 1200 ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856",
    "n1:4312:4312 [0] enqueue.cc:81 NCCL WARN cudaArch 1200 dynamic smem 82240 exceeds device/fn maxSharedMem 79856",
])
def test_shared_memory_check_in_both_wordings(line):
    facts = [f for f in parse(line + "\n").facts if f.kind == "nccl_shared_mem_exceeds"]
    assert [(f.cuda_arch, f.requested, f.available) for f in facts] == [(1200, 82240, 79856)]


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED from NCCL's format (src/init.cc: the peer's rank and NCCL_VERSION_CODE first, the printing rank's
    # second); the codes decoded as NCCL encodes them, major*10000+minor*100+patch from 2.9, major*1000+... before
    ("node2:2231:2301 [0] init.cc:1043 NCCL WARN Mismatched NCCL version detected : rank 0 version 21003 rank 4 version 21602\n",
     (4, 21602, "2.16.2", 0, 21003, "2.10.3")),
    ("Mismatched NCCL version detected : rank 3 version 2708 rank 0 version 22703\n", (0, 22703, "2.27.3", 3, 2708, "2.7.8")),
    ("  Mismatched NCCL version detected : rank 0 version 21805 rank 1 version 30001\n", (1, 30001, "3.0.1", 0, 21805, "2.18.5")),
])
def test_version_mismatch_read_with_both_versions(text, want):
    facts = [f for f in parse(text).facts if f.kind == "nccl_peer_version_mismatch"]
    assert [(f.rank, f.version_code, f.version, f.peer_rank, f.peer_version_code, f.peer_version) for f in facts] == [want]


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED from NCCL RAS's formats (src/ras/ras.cc rasMsgHandleConnInit): 2.24-2.29 print NCCL_VERSION_CODE, 2.30 on
    # ncclVersionToString's "major.minor.patch"; the peer named by its RAS socket, no rank
    ("node1:4821:4900 [0] ras/ras.cc:430 NCCL WARN NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 22703, remote 22605)\n",
     (22703, "2.27.3", "10.0.0.12<49152>", 22605, "2.26.5")),
    ("node1:4821:4900 [0] ras/ras.cc:415 NCCL WARN NCCL version mismatch with remote peer fd00::7<38211> (local: 2.30.3, remote 2.29.7)\n",
     (23003, "2.30.3", "fd00::7<38211>", 22907, "2.29.7")),
    ("NCCL version mismatch with remote peer 10.0.0.7<38211> (local: 22804, remote 22703)\n",
     (22804, "2.28.4", "10.0.0.7<38211>", 22703, "2.27.3")),
])
def test_ras_version_mismatch_read_as_the_peer_version_fact(text, want):
    facts = [f for f in parse(text).facts if f.kind == "nccl_peer_version_mismatch"]
    assert [(f.version_code, f.version, f.peer_address, f.peer_version_code, f.peer_version, f.rank, f.peer_rank)
            for f in facts] == [(*want, None, None)]
