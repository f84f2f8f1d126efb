"""Tests of the NCCL log's resource set-up lines (facts/parsers/nccl_log_setup.py) on lines
from public reports and the H200 captures, with negative rows."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"


def parse_text(text: str, node: str = "n0"):
    return nccl_log.parse(Artefact(path="nccl.log", text=text, node=node, node_from_folder=False))


def of_kind(result, kind: str) -> list[dict]:
    return [f.rule_view() | {"line": f.evidence.line} for f in result.facts if f.kind == kind]


SETUP_KINDS = ("nccl_gdr_state", "nccl_p2p_unavailable", "nccl_shm_failure", "nccl_shm_refused", "nccl_verbs_failure",
               "nccl_duplicate_gpu", "nccl_cuda_failure")

# (line, kind or None, fields); None: no fact of any set-up kind
LINES = [
    ("learn01:2228637:2230195 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
     "nccl_gdr_state", {"scope": "hca", "network": "IB", "hca": "mlx5_0", "hca_index": 0, "enabled": False,
                        "node": "learn01", "pid": 2228637, "local_device": 3}),
    ("vm:1552:1564 [1] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'lo'",
     "nccl_gdr_state", {"network": "Socket", "hca": "lo", "enabled": False}),
    ("n1:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)",
     "nccl_gdr_state", {"hca": "mlx5_1", "reason": "no_module"}),
    ("n1:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_0",
     "nccl_gdr_state", {"hca": "mlx5_0", "enabled": True, "mechanism": "nvidia-peermem"}),
    ("n1:1:2 [0] NCCL INFO NET/NCCL RDMA Plugin v10 : GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'",
     "nccl_gdr_state", {"network": "NCCL RDMA Plugin v10", "hca": "rocep1s0f0", "enabled": False}),
    ("n1:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 0 / HCA 1 (distance 5 > 3)",
     "nccl_gdr_state", {"scope": "gpu_hca_pair", "gpu": 0, "hca": "1", "distance": 5, "limit": 3, "reason": "distance"}),
    ("ault44:1424216:1424273 [1] NCCL INFO Could not enable P2P between dev 1(=81000) and dev 0(=41000)",
     "nccl_p2p_unavailable", {"dev": 1, "peer_dev": 0, "bus_id": "0000:81:00.0", "peer_bus_id": "0000:41:00.0"}),
    ("node5:20117:20190 [5] graph/paths.cc:327 NCCL WARN P2P is disabled between NVLINK connected GPUs 5 and 4. This should not be the case",
     "nccl_p2p_unavailable", {"dev": 5, "peer_dev": 4, "nvlink": True}),
    # vllm-project/vllm#3710 (two RTX 4090): the PCIe pair's INFO, NCCL going on without P2P
    ("c6dc028e7d4d:7178:7317 [1] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.",
     "nccl_p2p_unavailable", {"dev": 1, "peer_dev": 0, "nvlink": False}),
    ("ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-KWfVyt (size 5967872)",
     "nccl_shm_failure", {"op": "create", "segment": "/dev/shm/nccl-KWfVyt", "size_bytes": 5967872}),
    ("ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes",
     "nccl_shm_failure", {"op": "extend", "size_bytes": 5967876}),
    ("5135fc87695d:126319:126336 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
     "nccl_shm_failure", {"op": "fallocate", "error": "No space left on device"}),
    # NCCL 2.4-2.11's shm_open refused (NVIDIA/nccl#328): the job may not create the segment at all
    ("node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied",
     "nccl_shm_refused", {"call": "shm_open", "error": "Permission denied", "errno_name": "EACCES"}),
    # NCCL 2.3's own words (v2.3.5-5 include/shm.h:19, 26, formats filled in): a full /dev/shm, a refused shm_open
    ("n1:1:2 [0] include/shm.h:26 NCCL WARN Unable to allocate shared memory (9637888 bytes) : No space left on device",
     "nccl_shm_failure", {"op": "fallocate", "size_bytes": 9637888, "error": "No space left on device", "errno_name": "ENOSPC",
                          "other_reason": False}),
    # NCCL 2.3's posix_fallocate interrupted by a signal: EINTR, no full /dev/shm (marian-nmt/marian-dev
    # src/training/communicator_nccl.h quotes it; rules/nccl/nccl_shm_alloc_interrupted.yaml)
    ("include/shm.h:26 NCCL WARN Unable to allocate shared memory (4263936 bytes) : Interrupted system call",
     "nccl_shm_failure", {"op": "fallocate", "size_bytes": 4263936, "errno_name": "EINTR", "other_reason": True}),
    ("n1:1:2 [0] include/shm.h:19 NCCL WARN shm_open failed to open nccl-shm-recv-1b000-0-1 : Permission denied",
     "nccl_shm_refused", {"call": "shm_open", "errno_name": "EACCES", "segment": "nccl-shm-recv-1b000-0-1"}),
    # 2.12+ puts the errno after the segment (shmutils.cc's format filled in): refused, not a shm failure
    ("n1:1:2 [0] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size 9637888), error: Read-only file system (30)",
     "nccl_shm_refused", {"call": "create", "errno_name": "EROFS", "segment": "/dev/shm/nccl-WU88OE"}),
    # the paste's closing backtick (vllm-project/production-stack#276); a message cut inside its size (sglang#5096's excerpt)
    ("Error while creating shared memory segment /dev/shm/nccl-F9ffgB (size 9637888)`",
     "nccl_shm_failure", {"op": "create", "segment": "/dev/shm/nccl-F9ffgB", "size_bytes": 9637888}),
    ("Error while creating shared memory segment /dev/shm/nccl-lNPZ0f (size 734038",
     "nccl_shm_failure", {"op": "create", "segment": "/dev/shm/nccl-lNPZ0f", "size_bytes": None}),
    ("g148:14937:69361 [0] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-glnlGK (size 14156128), error: No such file or directory (2)",
     "nccl_shm_failure", {"op": "attach", "error": "No such file or directory (2)"}),
    # the segment already gone when its last peer unlinks it (NCCL troubleshooting guide, Systemd: RemoveIPC; wild sweep A3)
    ((FIX / "shm_unlink_removeipc_nccl_docs.log").read_text().strip(),
     "nccl_shm_failure", {"op": "unlink", "segment": "/dev/shm/nccl-d5rTd0", "error": "No such file or directory"}),
    # current releases print it at INFO with the errno (misc/shmutils.cc INFO(NCCL_ALLOC, "unlink shared memory %s failed,
    # error: %s (%d)"), filled in
    ("n1:1:2 [0] NCCL INFO unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such file or directory (2)",
     "nccl_shm_failure", {"op": "unlink", "error": "No such file or directory (2)"}),
    ("node1:20480:20533 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
     "nccl_verbs_failure", {"verb": "ibv_reg_mr_iova2", "error": "Cannot allocate memory"}),
    ("spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed",
     "nccl_verbs_failure", {"verb": "ibv_create_cq"}),
    # NCCL 2.19+ adds the errno; 2.25+ says where a queue-pair transition failed (ibvwrap.cc formats, filled in)
    ("n1:1:2 [0] misc/ibvwrap.cc:79 NCCL WARN Call to ibv_create_qp failed with error Cannot allocate memory errno 12",
     "nccl_verbs_failure", {"verb": "ibv_create_qp", "error": "Cannot allocate memory", "errno": 12}),
    ("n1:1:2 [5] misc/ibvwrap.cc:302 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, "
     "curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2",
     "nccl_verbs_failure", {"verb": "ibv_modify_qp", "error": "Connection timed out", "errno": 110, "device": "mlx5_0", "port": 1,
                            "qp_state": "INIT", "next_state": "RTR", "gid_index": 3, "local_gid": "::ffff:10.0.0.1",
                            "remote_gid": "::ffff:10.0.0.2"}),
    ("n1:1:2 [0] misc/ibvwrap.cc:380 NCCL WARN Call to ibv_modify_qp failed with 19 No such device, on dev N/A:-1, "
     "curr state RESET, next state INIT, local GID index -1, local GID N/A, remote GID N/A",
     "nccl_verbs_failure", {"error": "No such device", "errno": 19, "device": "N/A", "port": None, "gid_index": None,
                            "local_gid": None, "remote_gid": None, "next_state": "INIT"}),
    ("[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000",
     "nccl_duplicate_gpu", {"rank": 2, "other_rank": 0, "bus_id": "0000:01:00.0", "node": "smc-gpu-03"}),
    ("gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'",
     "nccl_cuda_failure", {"error": "named symbol not found", "source_file": "enqueue.cc"}),
    ("gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error",
     "nccl_cuda_failure", {"error": "unknown error", "error_code": 999, "nvls": True}),
    # CUDA's own text of cudaErrorSyncDepthExceeded holds an apostrophe: the error runs to the quote that ends the line
    # (include/checks.h WARN("Cuda failure '%s'") filled with cudaGetErrorString(68); bench/message_audit.py's sample)
    ("n1:1:2 [0] enqueue.cc:58 NCCL WARN Cuda failure 'cudaDeviceSynchronize failed because caller's grid depth exceeds "
     "cudaLimitDevRuntimeSyncDepth'", "nccl_cuda_failure",
     {"error": "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth"}),
    # the NVLS bind message goes through the same message table as PyTorch's forward of it (DCGM#304)
    ((FIX / "nvls_bind_cuda401_func_prefix.log").read_text().strip(),
     "nccl_cuda_failure", {"error": "the operation cannot be performed in the present state", "error_code": 401, "nvls": True,
                           "source_file": "transport/nvls.cc", "node": "gpu-stress-dgc86-xfpt6", "pid": 420, "local_device": 5}),
    # negative rows: near wording, other subsystems, not NCCL's prefix
    # 2.27+ INFO when NVLS was not forced on: NCCL goes on without NVLS (src/transport/nvls.cc format, filled in)
    ("n1:1:2 [0] NCCL INFO Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 "
     "'the operation cannot be performed in the present state'. Proceeding without NVLS support.", None, {}),
    ("vm:1552:1564 [1] NCCL INFO P2P Chunksize set to 131072", None, {}),
    ("vm:1552:1564 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", None, {}),
    ("dgxh100-3:225140:225355 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer dgxh100-3<41109>", None, {}),
    ("worker:1:2 [0] NCCL INFO Call to connect returned Connection timed out, retrying", None, {}),
    # the INFO before a retry of the same transition is not the failure (ibvwrap.cc 2.25+)
    ("n1:1:2 [0] NCCL INFO Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT, "
     "next state RTR, local GID index 3, local GID ::ffff:10.0.0.1, remote GID ::ffff:10.0.0.2, retrying 1/8 after 100 msec of sleep",
     None, {}),
    ("torch.distributed.DistBackendError: Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000", None, {}),
    # an unlink refused for another errno is not a segment someone else deleted (the same format, filled in)
    ("n1:1:2 [0] NCCL INFO unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: Permission denied (13)", None, {}),
]


@pytest.mark.parametrize("line,kind,fields", LINES)
def test_line(line, kind, fields):
    result = parse_text(line + "\n")
    assert result.errors == []
    got = [f for k in SETUP_KINDS for f in of_kind(result, k)]
    if kind is None:
        assert got == []
        return
    [fact] = of_kind(result, kind)
    assert len(got) == 1
    for name, value in fields.items():
        assert fact.get(name) == value, (name, fact)


def test_repeated_cuda_failure_is_one_fact_per_process_and_call_site():
    result = parse_text((FIX / "cuda_named_symbol_not_found.log").read_text())
    got = sorted((f["node"], f["pid"], f["source_file"]) for f in of_kind(result, "nccl_cuda_failure"))
    # noodle-4090-0 prints it from enqueue.cc:47 and :58: one fact for the process and file
    assert got == [("gcn75", 2336636, "enqueue.cc"), ("noodle-4090-0", 1896106, "enqueue.cc")]
    assert len(of_kind(result, "nccl_warn")) == 3  # every WARN line keeps its own nccl_warn


def test_cuda_failure_is_one_fact_per_device_of_a_process():
    # NVIDIA/nccl#1338 (nccl-tests -g 8 on an H800 node, one process): each device prints its own NVLS failure,
    # its error chain under it; a device's repeat of the same line is still one fact
    text = ("node2:242431:242479 [5] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'\n"
            "node2:242431:242475 [1] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'\n"
            "node2:242431:242475 [1] NCCL INFO transport/nvls.cc:330 -> 1\n"
            "node2:242431:242474 [0] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'\n"
            "node2:242431:242475 [1] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'\n")
    got = [(f["local_device"], f["line"], f["nvls"]) for f in of_kind(parse_text(text), "nccl_cuda_failure")]
    assert got == [(5, 1, True), (1, 2, True), (0, 4, True)]


def test_transport_family():
    text = ("a:1:2 [0] NCCL INFO Channel 00 : 3[81000] -> 2[41000] via SHM/direct/direct\n"
            "a:1:2 [0] NCCL INFO Channel 00 : 1[89000] -> 0[3d000] via direct shared memory\n"
            "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
            "a:1:2 [0] NCCL INFO Channel 01/1 : 0[0] -> 8[0] [send] via NET/IB/9/GDRDMA/Shared\n")
    fams = [(f["peer_rank"], f["family"]) for f in of_kind(parse_text(text), "nccl_transport")]
    assert sorted(fams) == [(0, "SHM"), (1, "P2P"), (2, "SHM"), (8, "NET")]


def test_real_socket_only_capture_has_only_socket_gdr_lines():
    result = parse_text((FIX / "allreduce_socket_only_g2.nccl.log").read_text(), node="vm")
    states = of_kind(result, "nccl_gdr_state")
    assert states and {(s["network"], s["enabled"], s["hca"]) for s in states} == {("Socket", False, "lo")}
    assert result.errors == []


def test_modify_qp_rtr_timeout_real_line():
    """alibaba/Pai-Megatron-Patch#612: NCCL 2.25+'s ibv_modify_qp failure behind NCCL_DEBUG_TIMESTAMP_FORMAT's stamp,
    read whole (device, transition, GIDs); its `-> 2` chain adds no second failure."""
    result = parse_text((FIX / "paimegatron612_modify_qp_rtr_timeout.log").read_text())
    assert result.errors == []
    [v] = of_kind(result, "nccl_verbs_failure")
    assert (v["verb"], v["error"], v["errno"], v["device"], v["port"]) == ("ibv_modify_qp", "Connection timed out", 110, "mlx5_bond_1", 1)
    assert (v["qp_state"], v["next_state"], v["gid_index"]) == ("INIT", "RTR", 3)
    assert (v["local_gid"], v["remote_gid"]) == ("::ffff:172.168.20.71", "::ffff:172.16.20.65")
    assert v["local_device"] == 0 and v["pid"] == 1360625
