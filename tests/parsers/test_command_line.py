"""command_line: what a pasted launch command says of the run (Open MPI's transport selection)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import command_line
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]


def commands(text: str):
    art = Artefact(path="app.txt", text=text, node="node1")
    art.normalise()
    return command_line.parse(art).facts


def test_shared_memory_only_open_mpi_launch_is_read_from_the_real_paste():
    # openucx/ucx#8746 (harvest case 402): the OSU benchmark run over shared memory only
    text = (ROOT / "fixtures/harvest/cases/402-healthy-ucx-memlock-message-on-node-without-infiniband/app.txt").read_text()
    (c,) = commands(text)
    assert (c.program, c.mpi_shared_memory_only, c.evidence.line) == ("mpirun", True, 1)


@pytest.mark.parametrize("cmd", [
    # Open MPI over UCX, or with a network BTL allowed, or a '^' list (it excludes, so it allows the rest); real
    # launch line: NVIDIA/nccl#348 (-mca pml ob1 -mca btl ^openib)
    "mpirun --allow-run-as-root -tag-output  -np 16  -H  192.168.0.138:8,192.168.0.238:8 -bind-to none -map-by slot -mca pml ob1 -mca btl ^openib -x NCCL_SOCKET_IFNAME=eth1 -x CUDA_DEVICE_ORDER=PCI_BUS_ID all_reduce_perf -g 1 -t 1",
    "mpirun -n 2 --mca pml ucx --mca btl sm,self osu_bcast",
    "mpirun -n 2 --mca pml ob1 --mca btl tcp,self osu_bcast",
    "mpirun -n 2 --mca btl sm,self osu_bcast",
])
def test_launches_that_allow_a_network_transport(cmd):
    (c,) = commands(cmd + "\n")
    assert c.mpi_shared_memory_only is False


@pytest.mark.parametrize("line, program, args_start", [
    # InternLM/lmdeploy#3286 (the reproduction as posted)
    ("lmdeploy serve api_server /tmp/models --model-name=XXX --server-port=23333 --chat-template=qwen2d5 "
     "--cache-max-entry-count=0.8 --log-level=INFO --backend=turbomind --tp=4 --session-len=32768 --max-batch-size=6",
     "lmdeploy", "serve api_server /tmp/models"),
    ("$ vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8", "vllm", "serve meta-llama/"),
    ("dynamo serve graphs.disagg:Frontend -f ./configs/disagg.yaml", "dynamo", "serve graphs.disagg:Frontend"),
    ("trtllm-serve /models/llama --tp_size 8", "trtllm-serve", "/models/llama"),
])
def test_inference_server_launchers(line, program, args_start):
    (c,) = commands(line + "\n")
    assert (c.program, c.args.startswith(args_start)) == (program, True)


@pytest.mark.parametrize("line", [
    "vllm is slower than sglang on this model",   # prose that starts with a server's name: no serve subcommand
    "lmdeploy got nccl error",
    "dynamo serves the graph when etcd is up",
])
def test_server_name_in_prose_is_no_command(line):
    assert not command_line.detect(line + "\n")


def test_container_visible_devices_beyond_the_gpus_passed():
    # huggingface/text-embeddings-inference#208: --gpus '"device=2"' gives the container one GPU, its index 0 there,
    # and --env CUDA_VISIBLE_DEVICES=2 names the host's index: none inside
    (f,) = commands((ROOT / "fixtures/artefacts/command_line/tei208_docker_run_gpus_device_with_visible_devices.txt").read_text())
    assert (f.gpus, f.gpus_passed, f.cuda_visible_devices, f.visible_devices_beyond_gpus) == ('"device=2"', 1, "2", True)


@pytest.mark.parametrize("cmd, passed, visible, beyond", [
    # CONSTRUCTED variants of the real command: the options as Docker's run reference spells them
    ("docker run --gpus '\"device=1,2\"' -e CUDA_VISIBLE_DEVICES=0,1 img", 2, "0,1", False),
    ("docker run --gpus 2 --env=CUDA_VISIBLE_DEVICES=1,3 img", 2, "1,3", True),
    ("docker run --gpus all -e CUDA_VISIBLE_DEVICES=5 img", None, "5", False),  # all the host's GPUs: the host's numbering
    ("docker run --gpus '\"device=3\",capabilities=utility' -e NCCL_DEBUG=INFO -e CUDA_VISIBLE_DEVICES=3 img", 1, "3", True),
    ("docker run --gpus '\"device=3\"' img", 1, None, False),
    ("docker run -e CUDA_VISIBLE_DEVICES=3 img", None, "3", False),  # no --gpus said
])
def test_gpus_passed_and_visible_devices(cmd, passed, visible, beyond):
    (f,) = commands(cmd + "\n")
    assert (f.gpus_passed, f.cuda_visible_devices, f.visible_devices_beyond_gpus) == (passed, visible, beyond)



@pytest.mark.parametrize("line", [
    # NVIDIA/nvidia-docker#480: nvidia-docker 1.x's Go logger writes its name and " | " before every message
    # (log.SetPrefix(os.Args[0] + " | ")): a log line, no command (no command's arguments start with a pipe)
    "nvidia-docker | 2017/09/27 22:08:44 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?",
    "docker | 2024/01/02 03:04:05 something the program logged",  # constructed: the same label on another program
])
def test_program_log_label_is_no_command(line):
    assert not command_line.detect(line + "\n") and commands(line + "\n") == []
    # a command that pipes its output is still one (constructed)
    assert [f.program for f in commands("nvidia-docker run --rm nvidia/cuda nvidia-smi | tee out.txt\n")] == ["nvidia-docker"]
