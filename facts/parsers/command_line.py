"""Command lines people paste with their output: ``docker run``, ``torchrun``, ``srun``, ...

A ticket often starts with the command that failed; it says how the job was started (the
container's /dev/shm and IPC namespace, GPUs asked for, the launcher). Read as context facts
(state polarity): rules join them with what went wrong.

Sample content (fal-ai-community/video-diffusion-speedrun#2; facebookresearch/msn#24;
NVIDIA/nvidia-container-toolkit#394, #210; an inference server's launcher by its serve
subcommand, InternLM/lmdeploy#3286)::

    ```docker run --gpus all --rm -it video-diffusion /bin/bash```
    python main.py --fname configs/pretrain/msn_vits16.yaml --devices cuda:1 cuda:0
    $ docker run --rm --gpus all nvidia/cuda:12.3.2-base-ubuntu22.04 nvidia-smi
    podman run --rm --group-add=27 --device nvidia.com/gpu=all ubuntu nvidia-smi -L
    docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 \\
      -it --rm -v $(pwd):/workspace nvcr.io/nvidia/pytorch:latest
    lmdeploy serve api_server /tmp/models --model-name=XXX --backend=turbomind --tp=4

Facts: ``command_line`` per command: the program, its arguments, and for a container run
whether GPUs were asked for and whether /dev/shm is the engine's default (64 MB: no
``--shm-size`` and no ``--ipc=host``); for an Open MPI launch, whether it allows any network
transport (``--mca pml ob1 --mca btl sm,self``: none, openucx/ucx#8746). For a container run, how
many GPUs ``--gpus`` gives it and the CUDA_VISIBLE_DEVICES its ``-e``/``--env`` sets: the GPUs passed in
are numbered from 0 inside the container, so the host's index of a GPU passed alone names none there
(huggingface/text-embeddings-inference#208)::

    docker run -d --name embedding --gpus '"device=2"' --env CUDA_VISIBLE_DEVICES=2 -p 7862:80 ...

A container run given
the NVIDIA device nodes with ``--device`` but no GPU request of the NVIDIA runtime and no volume of the driver's
libraries has ``nvidia_devices_without_runtime``: the container sees the devices and has no libcuda or
libnvidia-ml to use them (NVIDIA/nvidia-docker#24)::

    docker run --device /dev/nvidia-uvm:/dev/nvidia/uvm --device /dev/nvidia0:/dev/nvidia0 --device  \\
    /dev/nvidiactl:/dev/nvidiactl -it nvidia/cuda:7.0-cudnn3-devel bash

A command continued
with a trailing backslash is read whole; its evidence is its first line.
"""
from __future__ import annotations

import re
import shlex

from stethoscope.facts.kinds.host import CommandLine  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.unrecognised_text import FAILURE_WORDS

KIND = "command_line"


# $ docker run --rm --gpus all nvidia/cuda:12.3.2-base-ubuntu22.04 nvidia-smi
# python main.py --fname configs/pretrain/msn_vits16.yaml --devices cuda:1 cuda:0
# root@host:~# torchrun --nproc_per_node=8 train.py
# An inference server's own launcher, by its serve subcommand (a line that starts with the bare name is prose as often):
# lmdeploy serve api_server /tmp/models --model-name=XXX --server-port=23333 ... --backend=turbomind --tp=4 ...   (InternLM/lmdeploy#3286)
# vllm serve "${HF_HOME}/hub/models--${SNAPSHOT_DIR}/snapshots/$SNAPSHOT" \      (vLLM's CLI, vllm/entrypoints/cli/serve.py)
# dynamo serve graphs.disagg:Frontend -f ./configs/disagg.yaml      (ai-dynamo/dynamo's CLI before 0.4)
# trtllm-serve <model> --tp_size 8 ...                              (TensorRT-LLM's serve entry point)
# Not a command: a program's log label, its name and " | " before the message (nvidia-docker 1.x's Go logger,
# log.SetPrefix(os.Args[0] + " | ") in src/nvidia-docker/main.go; docker compose's service column is the same shape):
# nvidia-docker | 2017/09/27 22:08:44 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?   (NVIDIA/nvidia-docker#480)
#   (no command's arguments start with a pipe: the arguments start with anything but a blank or "|")
_COMMAND = re.compile(
    r"^(?:[\w.@-]*(?::[^\s$#]*)?[$#]\s+|>\s+)?(?:sudo\s+(?:-E\s+)?)?(?:\S*/)?"
    r"(?P<program>docker|podman|nvidia-docker|torchrun|deepspeed|accelerate|srun|sbatch|salloc|mpirun|mpiexec|"
    r"python3?(?:\.\d+)?|kubectl|trtllm-serve|(?:vllm|lmdeploy|dynamo)[ \t]+serve)[ \t]+(?P<args>[^\s|][^\n]*)$", re.M)
#: what a container engine's ``run`` takes before the image, for the options read here
_CONTAINER = ("docker", "podman", "nvidia-docker")
#: Open MPI's byte-transfer layers that move no data over a network (vader was renamed sm in 5.0;
#: smcuda is sm with CUDA buffers): https://docs.open-mpi.org/en/v5.0.x/tuning-apps/networking/shared-memory.html
_SHM_BTLS = frozenset({"self", "sm", "vader", "smcuda"})


def detect(text: str) -> bool:
    return _COMMAND.search(text) is not None


#: the options of a container run read here that take a value as the next token
_VALUED = ("--gpus", "--shm-size", "--ipc", "--device", "--runtime", "--network", "--name", "-v", "--volume",
           "-e", "--env", "--group-add", "-p", "-w", "--user", "-u", "--mount", "--cap-add", "--ulimit")


def _options(tokens: list[str]) -> dict[str, str]:
    """--name value / --name=value pairs of the options before the image name."""
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if not t.startswith("-"):
            break
        if "=" in t:
            k, v = t.split("=", 1)
            out.setdefault(k, v)
        elif t in _VALUED:
            if i + 1 < len(tokens):
                out.setdefault(t, tokens[i + 1])
                if t == "--device" and "gpu" in tokens[i + 1]:
                    out["--device-gpu"] = tokens[i + 1]
            i += 1
        i += 1
    return out


# docker run -d --name embedding --gpus '"device=2"' --env CUDA_VISIBLE_DEVICES=2 -p 7862:80 ...
#   (huggingface/text-embeddings-inference#208, after shlex: the value keeps its inner double quotes, '"device=2"')
# docker run --gpus 2 ... / --gpus '"device=1,2"' / --gpus 'all,capabilities=utility'   (Docker's --gpus syntax: a count,
#   a device list, or all; options after a comma)
_GPU_DEVICES = re.compile(r'^"?device=(?P<list>[^",=]+(?:,[^",=]+)*?)"?(?:,\w+=|$)')


def _gpus_passed(value: str) -> int | None:
    """How many GPUs ``--gpus VALUE`` gives the container (None: all of them, or not said)."""
    v = value.strip().strip("'")
    if v.strip('"').isdigit():
        return int(v.strip('"'))
    if v.startswith("count="):
        n = v[len("count="):].split(",", 1)[0]
        return int(n) if n.isdigit() else None
    m = _GPU_DEVICES.match(v)
    return len(m["list"].split(",")) if m else None


def _env(tokens: list[str]) -> dict[str, str]:
    """Every -e/--env NAME=VALUE of the options before the image (_options keeps only the first)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens) and tokens[i].startswith("-"):
        t = tokens[i]
        val = None
        if t in ("-e", "--env") and i + 1 < len(tokens):
            val = tokens[i + 1]
            i += 1
        elif t.startswith("--env="):
            val = t[len("--env="):]
        elif "=" not in t and t in _VALUED:
            i += 1  # its value
        if val is not None and "=" in val:
            k, v = val.split("=", 1)
            out[k] = v.strip("'\"")
        i += 1
    return out


def _beyond(visible: str, passed: int) -> bool:
    """Whether a CUDA_VISIBLE_DEVICES list names an index >= the GPUs passed in (CUDA stops at the first
    invalid index: before it the devices are visible, after it none)."""
    return any(e.strip().isdigit() and int(e) >= passed for e in visible.split(","))


# docker run --device /dev/nvidia-uvm:/dev/nvidia/uvm --device /dev/nvidia0:/dev/nvidia0 --device  \
#     /dev/nvidiactl:/dev/nvidiactl -it nvidia/cuda:7.0-cudnn3-devel bash          (NVIDIA/nvidia-docker#24)
# The device nodes alone give a container no driver: libcuda.so and libnvidia-ml.so are the host driver's user-space
# half, which the NVIDIA runtime's hook (--gpus, --runtime=nvidia, a CDI device, nvidia-docker 1.x's volume) mounts in;
# a run that binds them itself names them in a volume (-v /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1:..., a driver
# folder such as /usr/local/nvidia: utkuozdemir/nvidia_gpu_exporter's documented run). A run that sets NVIDIA_VISIBLE_DEVICES
# itself (-e NVIDIA_VISIBLE_DEVICES=all) counts on the NVIDIA runtime being the engine's default, whose hook then mounts them.
_NVIDIA_NODE = re.compile(r"^/dev/nvidia(?:\d+|ctl|-uvm|-uvm-tools|-modeset)?(?::|$)")
_DRIVER_VOLUME = re.compile(r"libcuda|libnvidia|/nvidia(?:/|-driver|$)|nvidia_driver|/usr/local/nvidia")


def _nvidia_devices_without_runtime(tokens: list[str]) -> bool:
    """Whether the options before the image pass NVIDIA device nodes (--device) and bind no driver library."""
    devices = volumes = False
    i = 0
    while i < len(tokens) and tokens[i].startswith("-"):
        t, val = tokens[i], None
        if "=" in t:
            t, val = t.split("=", 1)
        elif t in _VALUED and i + 1 < len(tokens):
            val = tokens[i + 1]
            i += 1
        if val is not None and t == "--device" and _NVIDIA_NODE.match(val):
            devices = True
        elif val is not None and t in ("-v", "--volume", "--mount") and _DRIVER_VOLUME.search(val):
            volumes = True
        i += 1
    return devices and not volumes


def _shared_memory_only(tokens: list[str]) -> bool:
    """``mpirun -n 2 --mca pml ob1 --mca btl sm,self ...`` (openucx/ucx#8746): the ob1 PML with only shared-memory
    and loopback BTLs (a ``^`` list excludes, so it allows the rest)."""
    mca: dict[str, str] = {}
    for i, t in enumerate(tokens[:-2]):
        if t in ("--mca", "-mca", "--gmca", "-gmca"):
            mca.setdefault(tokens[i + 1], tokens[i + 2])
    btl = mca.get("btl", "")
    return mca.get("pml") == "ob1" and bool(btl) and not btl.startswith("^") and set(btl.split(",")) <= _SHM_BTLS


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, m in iter_matches(_COMMAND, artefact):
        if FAILURE_WORDS.search(m[0]):  # the launcher's report of a process ("mpirun noticed that process rank 1
            continue                    # ... exited on signal 9 (Killed)."): a failure line, not a command
        program, args = m["program"], m["args"].strip().rstrip("`").strip()
        if " " in program or "\t" in program:  # "vllm serve": the program, its subcommand first of the arguments
            program, sub = program.split(None, 1)
            args = f"{sub} {args}"
        i = n  # a command continued over lines with a trailing backslash is one command
        while args.endswith("\\") and i < len(lines):
            args = args[:-1].rstrip() + " " + lines[i].strip().rstrip("`").strip()
            i += 1
        fields: dict = {}
        if program in _CONTAINER or program in ("mpirun", "mpiexec"):
            try:
                tokens = shlex.split(args)
            except ValueError:  # an unbalanced quote: split on blanks
                tokens = args.split()
            if program in ("mpirun", "mpiexec"):
                fields = dict(mpi_shared_memory_only=_shared_memory_only(tokens))
            elif tokens and tokens[0] == "run":
                opts = _options(tokens[1:])
                gpus = opts.get("--gpus") or opts.get("--device-gpu") or (
                    "runtime=nvidia" if opts.get("--runtime") == "nvidia" or program == "nvidia-docker" else None)
                fields = dict(container_run=True, gpus=gpus, shm_size=opts.get("--shm-size"), ipc=opts.get("--ipc"),
                              dev_shm_default=opts.get("--shm-size") is None and opts.get("--ipc") != "host")
                visible = _env(tokens[1:]).get("CUDA_VISIBLE_DEVICES")
                passed = _gpus_passed(opts["--gpus"]) if opts.get("--gpus") else None
                fields.update(cuda_visible_devices=visible, gpus_passed=passed,
                              visible_devices_beyond_gpus=visible is not None and passed is not None and _beyond(visible, passed),
                              nvidia_devices_without_runtime=gpus is None and _nvidia_devices_without_runtime(tokens[1:])
                              and _env(tokens[1:]).get("NVIDIA_VISIBLE_DEVICES", "void") in ("void", "none", ""))
        b.add(CommandLine, n, program=program, args=args[:400], **fields)
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_COMMAND,)
