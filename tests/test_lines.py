"""Line normalisation (facts/lines.py): wrappers off, line for line, evidence keeps the original."""
from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers.base import Artefact

# real lines as posted in public threads (NVIDIA/nccl#296, #304; fal-ai video-diffusion-speedrun#2;
# awslabs/awsome-distributed-ai#192)
CASES = [
    ("`init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.`",
     "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39."),
    ("`ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-`",
     "ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"),
    ("```docker run --gpus all --rm -it video-diffusion /bin/bash```", "docker run --gpus all --rm -it video-diffusion /bin/bash"),
    ("```bash", ""),
    ("```", ""),
    ("> [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>",
     "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>"),
    ("> > `nvidia-smi`", "nvidia-smi"),
    ("[1,3]<stdout>:node2:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM",
     "node2:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM"),
    ("10: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled system error",
     "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled system error"),
    ("2024-05-01T12:00:00.123456789Z stdout F Failed to initialize NVML: could not load NVML library.",
     "Failed to initialize NVML: could not load NVML library."),
]

# lines whose prefix belongs to their format (the owning parser reads host, time or rank from it)
KEPT = [
    "2024-05-01T12:00:00.123456Z node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed",
    "[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout",
    "    GPU Current Temp                  : 32 C",
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN",
    "   134217728      33554432     float     sum      -1   5190.8   25.86   25.86      0   5186.6   25.88   25.88      0",
    "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error",
]


def test_wrappers_stripped():
    for raw, want in CASES:
        assert normalise(raw) == want, raw
    # many lines at once keep their count
    text = "\n".join(r for r, _ in CASES) + "\n"
    assert normalise(text).split("\n") == [w for _, w in CASES] + [""]


def test_format_prefixes_kept():
    text = "\n".join(KEPT)
    assert normalise(text) is text


def test_evidence_quotes_the_line_as_posted():
    raw = "Some notes:\n`node1:1633:1633 [0] init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.`\n"
    art = Artefact(path="nccl.log", text=raw)
    res = parse_one(art)
    warns = [f for f in res.facts if f.kind == "nccl_warn"]
    assert warns, "the WARN inside backticks is parsed"
    assert warns[0].evidence.line == 2
    assert warns[0].evidence.text.startswith("`node1:1633:1633 [0] init.cc:1247")


def test_links_a_rich_text_paste_leaves_inside_lines_are_unwrapped():
    """nccl#1710: GitHub turned file:line and addresses into links whose text is the address."""
    raw = ("> node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : mlx5_0:1 "
           "Got async event : local access violation work queue error\n"
           "> node023:10214:10303 [0] transport/[net_ib.cc:1909](http://net_ib.cc:1909/) NCCL WARN NET/IB : Got completion "
           "from peer [10.1.3.201](http://10.1.3.201/)<33057> with status=9 opcode=0 len=0 vendor err 138 (Send)\n")
    out = normalise(raw).splitlines()
    assert out[0] == ("node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : "
                      "local access violation work queue error")
    assert "from peer 10.1.3.201<33057> with status=9" in out[1]
    # a link whose text is not its address is the author's: kept
    own = "see [the NCCL docs](https://docs.nvidia.com/deeplearning/nccl/) for NCCL_IB_HCA"
    assert normalise(own) == own
