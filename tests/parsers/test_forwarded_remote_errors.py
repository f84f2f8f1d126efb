"""NCCL's messages behind ncclRemoteError, in NCCL's own log and as PyTorch forwards them after
``Last error:`` (real lines: nccl#2076, nccl#1928; NCCL 2.14's socket.cc form filled in)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_log, nccl_log_socket, torch_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_log"


def _facts(mod, text: str, node: str = "n1"):
    art = Artefact(path="log", node=node, text=text)
    art.normalise()
    res = mod.parse(art)
    assert res.errors == []
    return res.facts


def test_call_to_recv_failed_is_a_peer_that_went_away():
    for msg in ("socketProgressOpt: Call to recv from 172.16.0.4<33759> failed : Connection reset by peer",
                "Net : Call to recv from 10.0.0.2<41234> failed : Broken pipe"):
        got = nccl_log_socket.read(msg)
        assert got["reason"] == "connection_closed" and got["peer"].endswith(">")
    assert nccl_log_socket.read("socketProgressOpt: Call to recv from 10.0.0.1<1> failed : Connection timed out")["reason"] == "timeout"


def test_call_to_recv_failed_in_nccls_own_log():
    line = "node1:1830:1832 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from 10.0.0.2<41234> failed : Broken pipe\n"
    boot = [f for f in _facts(nccl_log, line) if f.kind == "nccl_bootstrap_failure"]
    assert [(f.reason, f.peer) for f in boot] == [("connection_closed", "10.0.0.2<41234>")]


def test_forwarded_recv_reset_becomes_the_bootstrap_fact():
    facts = _facts(torch_log, (FIX / "remote_error_recv_reset_nccl2076.log").read_text())
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    assert err.nccl_error == "ncclRemoteError" and err.last_error.startswith("socketProgressOpt: Call to recv")
    assert [f.reason for f in facts if f.kind == "nccl_bootstrap_failure"] == ["connection_closed"]


def test_forwarded_ofi_request_error_under_a_rank_label():
    facts = _facts(torch_log, (FIX / "ofi_request_undeliverable_nccl1928.log").read_text())
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    assert err.rank == 3 and err.last_error.startswith("NET/OFI Request 0x7f14cc5b60c0")  # the [rank3]: label off
    ofi = [f for f in facts if f.kind == "nccl_net_plugin_error"]
    assert [(f.call, f.code, f.error) for f in ofi] == [("request_completion", 113, "UNDELIVERABLE (provider error 2)")]


def test_no_detail_keeps_last_error_empty():
    facts = _facts(torch_log, (FIX / "remote_error_no_detail_nccl934.log").read_text())
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    assert err.nccl_error == "ncclRemoteError" and err.last_error is None


def test_last_error_behind_the_wrapper_of_its_own_line():
    """vllm#3688: Ray's actor tag and vLLM's logger prefix repeat on the 'Last error:' line and
    the message after it; the message is read without them (NCCL's CUDA failure)."""
    facts = _facts(torch_log, (FIX / "vllm3688_ray_prefixed_last_error.log").read_text())
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    assert err.last_error == "Cuda failure 'invalid argument'" and "2.18.1" in err.message
    assert [(f.kind, f.error) for f in facts if f.kind == "nccl_cuda_failure"] == [("nccl_cuda_failure", "invalid argument")]


def test_config_rejected_with_the_unset_value_is_read_from_last_error():
    """vllm#1726: NCCL 2.14.3 refusing NCCL_CONFIG_UNDEF_INT in blocking (a newer torch's headers)."""
    facts = _facts(torch_log, (FIX / "vllm1726_invalid_config_blocking_undef.log").read_text())
    got = [(f.attribute, f.value, f.undefined) for f in facts if f.kind == "nccl_config_rejected"]
    assert got == [("blocking", -2147483648, True)]



def _own_line(rel: str, needle: str) -> str:
    """The message of a real line, NCCL's or PyTorch's prefix cut off (what a person pastes alone)."""
    line = next(ln for ln in (FIX.parent / rel).read_text().splitlines() if needle in ln)
    return line[line.index(needle):].strip() + "\n"


def test_nccl_messages_pasted_alone_are_read():
    """Issue 11, the key line alone: an NCCL message without NCCL's prefix, on its own line, is
    read as where PyTorch forwards it (SpursGoZmy/Table-LLaVA#4's last line; the messages of
    socket_connect_failures.log: oneflow#3586's retry, pytorch#38702, nccl-tests#166)."""
    cases = [("Invalid config blocking attribute value -2147483648\n", "nccl_config_rejected", None),
             (_own_line("nccl_log/socket_connect_failures.log", "Call to connect returned"), "nccl_bootstrap_failure", "timeout"),
             (_own_line("nccl_log/socket_connect_failures.log", "Connect to 10.38"), "nccl_bootstrap_failure",
              "connection_refused"),
             (_own_line("nccl_log/socket_connect_failures.log", "socketStartConnect"), "nccl_bootstrap_failure",
              "connection_aborted")]
    for text, kind, reason in cases:
        assert torch_log.detect(text), text
        [f] = [f for f in _facts(torch_log, text) if f.kind == kind]
        assert reason is None or f.reason == reason
    assert _facts(torch_log, cases[1][0])[0].retrying is True


def test_nccl_own_lines_and_other_connects_are_not_bare_messages():
    # near misses: NCCL's prefixed line is the NCCL reader's; another program's 'connect to' is not NCCL's
    assert not torch_log.detect("worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, retrying\n")
    assert not torch_log.detect("curl: (7) Failed to connect to example.com port 443 after 3 ms: Connection refused\n")
    assert not torch_log.detect("Invalid config value in /etc/foo.conf\n")


def test_forwarded_ofi_setup_failure():
    """aws-ofi-nccl's setup WARN as PyTorch quotes it under ``Last error:`` (the plugin's
    "Couldn't open AV. RC: %d, ERROR: %s", filled in under the DistBackendError of nccl#1928's form)."""
    text = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system "
            "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
            "Last error:\nNET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n")
    ofi = [f for f in _facts(torch_log, text) if f.kind == "nccl_net_plugin_error"]
    assert [(f.call, f.resource, f.code) for f in ofi] == [("libfabric_setup", "open AV", -22)]


def test_forwarded_gpudirecttcpx_message_cut():
    """container-engine-accelerators#414: PyTorch's rank label and the TCPX plugin's message cut where the paste ends."""
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_log/gpudirecttcpx_failed_forwarded_cut.log").read_text()
    got = [(f.plugin, f.error) for f in _facts(torch_log, text) if f.kind == "nccl_net_plugin_error"]
    assert got == [("GPUDirectTCPX", "failed t")]


def test_forwarded_topology_detection_failure_is_nccls_warn_of_its_kind():
    # vllm-project/vllm#4062: graph/paths.cc's "Failed to find reverse path ..." after torch's Last error:
    facts = _facts(torch_log, (FIX / "vllm4062_topology_reverse_path.log").read_text())
    warns = [f for f in facts if f.kind == "nccl_warn"]
    assert warns and {w.message_kind for w in warns} == {"topology_detection_failed"}
    assert warns[0].message.startswith("Failed to find reverse path from remNode 0/41000 nlinks 2 to node 0/61000")
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    assert err.evidence.line == warns[0].evidence.line  # the torch error cites NCCL's message


def test_topology_family_by_format_and_near_misses():
    from stethoscope.facts.parsers.nccl_warn_kinds import kind
    # NVIDIA/nccl src/graph WARN formats (v2.7.8-1 .. 5067397c), filled in
    for msg in ("Could not find node of type 1 id 3b000", "Error : could not find CPU close to GPU 0",
                "Could not find intermediate GPU between GPU rank 0 and NIC 0", "Could not find rev link for 1/0 -> 0/-1",
                "No path computed to go from GPU/0 to NET/1", "Add NVLink error : could not find GPU 1b000",
                "Add PCI Link error : could not find PCI SW 8000", "Could not find any local path from gpu 2 to net.",
                "GetXmlFromCpu : could not find CPU numa ID.", "Attribute busid of node nic not found"):
        assert kind(msg) == "topology_detection_failed", msg
    for msg in ("Could not find a path for pattern 4, falling back to simple order",
                "Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)", "Could not find NET with id 3"):
        assert kind(msg) is None, msg


def test_a_gpus_missing_pci_path_is_its_own_kind():
    # NVIDIA/nccl#442 (NCCL 2.8.3 under WSL): getPciPath's WARN, which NCCL before 2.10.3 stops at (knowledge/nccl_known_issues.yaml)
    from stethoscope.facts.parsers.nccl_warn_kinds import kind
    assert kind("Could not find real path of /sys/class/pci_bus/0000:21/../../0000:21:00.0") == "pci_sysfs_path_missing"
    assert kind("Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)") is None  # the NIC's: NCCL goes on


def test_link_local_peer():
    """verl-project/verl#726's forwarded connect to 169.254.0.1 on AWS; routable, loopback and IPv6 link-local peers are not."""
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_log/verl726_bootstrap_link_local_aws.log").read_text()
    (f,) = [f for f in _facts(torch_log, text) if f.kind == "nccl_bootstrap_failure"]
    assert (f.peer, f.peer_link_local, f.peer_loopback) == ("169.254.0.1<40815>", True, False)
    for peer, ll in (("10.0.0.2<45763>", False), ("127.0.0.1<1>", False), ("fe80::1%eth0<1>", False), ("node1<1>", False),
                     (None, False), ("169.254.169.254<80>", True)):
        assert nccl_log_socket.link_local_address(peer) is ll, peer


def test_shm_segment_after_last_error_is_nccls_own_and_cited():
    """vllm-project/production-stack#276: the shm message after "Last error:" closes a backtick span; nccl_log reads it
    (one fact), the torch error cites its line, so the finding for the shm fact explains both."""
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_log/shm_last_error_backtick_productionstack276.log").read_text()
    (shm,) = [f for f in _facts(nccl_log, text) if f.kind == "nccl_shm_failure"]
    assert (shm.op, shm.segment, shm.size_bytes, shm.evidence.line) == ("create", "/dev/shm/nccl-F9ffgB", 9637888, 4)
    facts = _facts(torch_log, text)
    assert not [f for f in facts if f.kind.startswith("nccl_shm")]  # nccl_log's, not torch_log's: one fact a line
    (err,) = [f for f in facts if f.kind == "torch_nccl_error"]
    assert err.evidence.line == shm.evidence.line  # the torch error cites NCCL's message


def test_shm_segment_message_forms():
    """NCCL's ncclShmOpen WARN as pasted: cut inside the size (sgl-project/sglang#5096's excerpt), closed by the paste's
    quote or backtick; not a segment message: the title's prose without a segment, text after the size."""
    from stethoscope.facts.parsers import torch_nccl_forwarded as fwd
    cls, fields = fwd.read_shm("Error while creating shared memory segment /dev/shm/nccl-lNPZ0f (size 734038")
    assert (cls.__name__, fields["segment"], fields["size_bytes"]) == ("NcclShmFailure", "/dev/shm/nccl-lNPZ0f", None)
    cls, fields = fwd.read_shm("Error while creating shared memory segment /dev/shm/nccl-F9ffgB (size 9637888)`")
    assert fields["size_bytes"] == 9637888
    cls, fields = fwd.read_shm("Error while creating shared memory segment /dev/shm/nccl-x (size 10), error: Permission denied (13)'")
    assert (cls.__name__, fields["error"], fields["errno_name"]) == ("NcclShmRefused", "Permission denied (13)", "EACCES")
    assert fwd.read_shm("Error at the end of generation: Error while creating shared memory segment") is None
    assert fwd.read_shm("Error while creating shared memory segment") is None
    assert fwd.read_shm("Error while creating shared memory segment /dev/shm/nccl-x (size 10) and then it hung") is None


def test_forwarded_proxy_service_thread_failure():
    """verl#108: the proxy's '[Service thread] Error encountered progressing operation=Connect, res=3, closing
    connection' after 'Last error:' becomes the nccl_proxy_failure nccl_log makes of it; the torch error cites it."""
    text = (FIX / "proxy_service_thread_connect_verl108.log").read_text()
    facts = _facts(torch_log, text)
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    proxy = [f for f in facts if f.kind == "nccl_proxy_failure"]
    assert [(f.what, f.operation, f.retcode) for f in proxy] == [("service_thread", "Connect", 3)]
    assert err.nccl_error == "ncclSystemError" and err.evidence.line == proxy[0].evidence.line


def test_forwarded_rdma_completion_is_cited_not_read_twice():
    """NCCL's completion error forwarded after 'Last error:' is nccl_log's (read bare); torch_log cites that line and
    makes no second fact of it. CONSTRUCTED from two real pieces: PyTorch's DistBackendError block as nccl#2076 shows
    it (fixtures/artefacts/torch_log/nccl_error_forms.log lines 1-3) and, as its last error, the message of an HPC-X
    ib_plugin.c WARN of nccl#1814 without NCCL's prefix (ncclGetLastError keeps the WARN's text)."""
    text = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
            "remote process exited or there was a network error, NCCL version 2.21.5\n"
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
            "Last error:\n"
            "NET/IB : Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) "
            "localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221\n")
    facts = _facts(torch_log, text)
    err = next(f for f in facts if f.kind == "torch_nccl_error")
    last = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("NET/IB : Got completion"))
    assert err.nccl_error == "ncclRemoteError" and err.evidence.line == last
    assert not [f for f in facts if f.kind == "nccl_rdma_completion_error"]
    assert [f.error for f in _facts(nccl_log, text) if f.kind == "nccl_rdma_completion_error" and f.evidence.line == last] == [12]
