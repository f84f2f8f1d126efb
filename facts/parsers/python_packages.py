"""Python package listings: ``pip freeze``, ``pip list``, ``conda list`` and PyTorch's
``python -m torch.utils.collect_env``, read for the CUDA-related packages.

Sample content (``pip freeze | grep -i -E "torch|nccl|cuda"`` on our H200 host; ``conda list |
grep cuda`` from guo-pu/NanoDet-PyTorch#4; collect_env from pytorch/pytorch#137846 and
torch-points3d/torch-points3d#66; vLLM's own collect_env, its ``Name<padding>: value`` layout
under ``=====`` section banners, from vllm-project/vllm#41864; MMEngine's collect_env, as lmdeploy's
check_env prints it, from InternLM/lmdeploy#3286; the "- Name: value" environment report of
``transformers env`` / ``accelerate env`` / ``llamafactory-cli env``, from huggingface/accelerate#3446
and hiyouga/LlamaFactory#6608)::

    torch==2.11.0
    nvidia-cuda-runtime==13.0.96
    nvidia-nccl-cu13==2.28.9
    cudatoolkit               10.2.89              hfd86e86_1
    PyTorch version: 2.8.0.dev20250528+cpu
    CUDA used to build PyTorch: 9.0.176
    [pip3] torch==1.1.0
    PyTorch version              : 2.11.0+cu130
    sys.platform: linux
    PyTorch: 2.5.1+cu121
    - `Accelerate` version: 0.34.2
    - PyTorch version (GPU?): 2.3.0+cu121 (True)

The freeze lines and the list's rows pasted as a markdown list or table (``- torch==2.3.0``, ``- torch   2.3.0``,
``| torch | 2.3.0 |`` under ``| Package | Version |``) read as the plain forms (a row of the CUDA stack's packages, or
any row under the table's header).

Facts: ``package_version`` per listed package that belongs to the CUDA stack (torch, pytorch,
``nvidia-*``, ``cuda*``, ``cupy*``, ``jax-cuda*``, ``nccl``, ``tensorflow*``): ``package``
lowercased, ``version`` as printed, ``manager`` (pip | conda | collect_env | env_report) and, where the
listing says it, the CUDA the package was built for: ``cuda_build`` ("12.1" from ``+cu121``,
``CUDA used to build PyTorch: 12.1``, a conda build string ``cuda10.2_0`` or ``py3.11_cuda12.1_...``,
the version of a CUDA runtime package itself: ``nvidia-cuda-runtime==13.0.96``, ``cudatoolkit
10.2.89``), with ``cuda_build_num`` in CUDA's own integer form (major*1000 + minor*10: 12010,
as ``CUDA_VERSION`` and ``cudaDriverGetVersion`` give it) and ``cuda_build_major``;
``nvidia_driver_version`` for collect_env's ``Nvidia driver version: 418.67`` (the driver those
builds run on: engine/combine/version_compat.py checks them against it); ``torch_cuda_unavailable``
(``via`` collect_env, ``gpus_listed`` the GPUs its "GPU models and configuration" lists) for collect_env's
``Is CUDA available: No`` (1.x) / ``False`` of a CUDA build (a CPU build's wants no GPU). collect_env's
other fields (``OS:``, ``GCC version:``, the GPU list) and other package lines are counted as read; MMEngine's
``NVCC: Cuda compilation tools, release 12.4, V12.4.131`` is the toolkit's ``cuda-nvcc`` (as nvcc_version.py reads it). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TorchCudaUnavailable  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.host import AppGpuReport, PackageVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.host_info import NvidiaDriverVersion

KIND = "python_packages"

# torch==2.11.0      nvidia-nccl-cu13==2.28.9      [pip3] torch==1.1.0      [pip3] torch==1.7.0a0+a9603c7
# and the same lines pasted as a markdown list (issue 11, round rS1: a ticket's bullets, "- torch==2.3.0", "* ...";
# CONSTRUCTED from pip freeze's "name==version", the bullet a reporter's)
_FREEZE = re.compile(r"^\s*(?:[-*+][ \t]+)?(?:\[(?P<tag>pip3?|conda)\]\s+)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<ver>[^\s;#]+)\s*$")
# pip list's or conda list's rows as a markdown list or table (issue 11, round rS1; session 43's verl#184 pasted its pip
# list as bullets, "- package   version"; a table is how a ticket renders columns): read where the name is one of the
# CUDA stack's (_RELEVANT), the version a number, nothing else in the row but a build and a channel cell
# - torch                     2.3.0                                          (CONSTRUCTED, pip list's columns)
# | torch | 2.3.0+cu121 |       | nvidia-nccl-cu12 | 2.20.5 | pypi_0 | pypi |  (CONSTRUCTED, pip list's / conda list's)
_BULLET_COLUMNS = re.compile(r"^\s*[-*+][ \t]+(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)[ \t]+(?P<ver>\d[\w.+!-]*)\s*$")
_TABLE_ROW = re.compile(r"^\s*\|[ \t]*`?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)`?[ \t]*\|[ \t]*`?(?P<ver>\d[\w.+!-]*)`?[ \t]*\|"
                        r"(?:[ \t]*(?P<build>[^|\s]+)[ \t]*\|)?(?:[ \t]*(?P<channel>[^|\s]+)[ \t]*\|)?\s*$")
# | Package | Version |      | Name | Version | Build | Channel |      |---|---|      | :--- | ---: |   (its header and rule)
_TABLE_HEAD = re.compile(r"^\s*\|[ \t]*(?:Package|Name|package|name)[ \t]*\|[ \t]*(?:Version|version)[ \t]*\||^\s*\|(?:[ \t]*:?-{3,}:?[ \t]*\|){2,4}\s*$")
# cudatoolkit               10.2.89              hfd86e86_1
# torch                     2.1.0                    pypi_0    pypi          (conda list, pip list: name  version)
# [conda] pytorch                   2.1.0           py3.11_cuda12.1_cudnn8.9.2_0    pytorch
_COLUMNS = re.compile(r"^\s*(?:\[(?P<tag>conda|pip3?)\]\s+)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s+"
                      r"(?P<ver>\d[\w.+!-]*)(?:\s+(?P<build>\S+))?(?:\s+(?P<channel>\S+))?\s*$")
# Package            Version        (pip list's header)     # Name   Version   Build  Channel  (conda list's)
_PIP_LIST_HEADER = re.compile(r"^\s*Package\s+Version\b")
_CONDA_HEADER = re.compile(r"^#\s*Name\s+Version\s+Build\b")
# conda list | grep cuda       pip list | grep torch      (the command, as pasted)
_LIST_COMMAND = re.compile(r"\b(?P<tool>conda|pip3?)\s+list\b")
# PyTorch version: 2.8.0.dev20250528+cpu      (vLLM's collect_env pads the name to a column:)
# PyTorch version              : 2.11.0+cu130
_TORCH_VERSION = re.compile(r"^PyTorch version\s*: (?P<ver>\S+)\s*$")
# CUDA used to build PyTorch: 9.0.176      CUDA used to build PyTorch: None      ...: N/A
# CUDA used to build PyTorch   : 13.0
_TORCH_CUDA = re.compile(r"^CUDA used to build PyTorch\s*: (?P<cuda>\S+)\s*$")
# Nvidia driver version: 418.67      Nvidia driver version: 442.92      ...: Could not collect
# Nvidia driver version        : 580.95.05
_DRIVER = re.compile(r"^Nvidia driver version\s*: (?P<ver>\d+\.\d+(?:\.\d+)?)\s*$")
# Is CUDA available: No          (PyTorch 1.x: pretty_str's replace_bools(true='Yes', false='No'); pytorch/pytorch#43058)
# Is CUDA available: False       (2.x prints the bool)      Is CUDA available            : True   (vLLM's layout)
_CUDA_AVAILABLE = re.compile(r"^Is CUDA available\s*: (?P<answer>Yes|No|True|False)\s*$")
# collect_env's other fields (torch/utils/collect_env.py env_info_fmt, 1.x and 2.x): read as the report's own lines
# OS: Ubuntu 18.04.1 LTS      GCC version: (Ubuntu 7.4.0-1ubuntu1~18.04.1) 7.4.0      Python version: 3.7
# GPU models and configuration:        (then one "GPU 0: Quadro GP100" line per GPU: nvidia-smi -L without its UUIDs)
#   (pytorch/pytorch#25878: PyTorch 1.2's collect_env)
_ENV_KNOWN = re.compile(r"^(?:Is debug build|ROCM used to build PyTorch|OS|GCC version|Clang version|CMake version|Libc version|"
                        r"Python version|Python platform|CUDA runtime version|CUDA_MODULE_LOADING set to|"
                        r"GPU models and configuration|cuDNN version|HIP runtime version|MIOpen runtime version|"
                        r"Is XNNPACK available|Is XPU available|Versions of relevant libraries)\s*:")
# GPU 0: Quadro GP100      (a line of the GPU list; GPU models and configuration: GPU 0: GeForce RTX 2060 on one GPU)
_ENV_GPU = re.compile(r"^(?:GPU models and configuration\s*: )?GPU \d{1,3}: \S")
# vLLM's collect_env: a field its host could not give (``Clang version                : Could not collect``),
# a ``=====`` banner or a section title under it: read as the report's own lines, never as an error
_ENV_FIELD = re.compile(r"^[A-Za-z][\w ./()_-]*+\s*: (?:Could not collect|N/A|No CUDA|No XPU|None)\s*$|^={10,}\s*$")
# MMEngine's / MMCV's collect_env (mmengine/utils/dl_utils/collect_env.py: "{name}: {value}" per field, the PyTorch
# field torch.__version__), which lmdeploy's check_env and the OpenMMLab projects print; its first field names the platform:
# sys.platform: linux
# PyTorch: 2.5.1+cu121
#   (InternLM/lmdeploy#3286: lmdeploy check_env on 4 x RTX 4090 D)
_MM_PLATFORM = re.compile(r"^sys\.platform: \w{1,20}\s*$", re.M)
_MM_TORCH = re.compile(r"^PyTorch: (?P<ver>\d[\w.+]{0,40})\s*$")
# its other fields, read as the report's own lines: "CUDA available: True", "GPU 0,1,2,3: NVIDIA GeForce RTX 4090 D",
# "NVCC: Cuda compilation tools, release 12.4, V12.4.131", "numpy_random_seed: 2147483648"
_MM_FIELD = re.compile(r"^[A-Za-z][\w .,()/-]{0,60}: \S")
# its NVCC field, nvcc --version's release line (facts/parsers/nvcc_version.py): the toolkit installed beside torch
# NVCC: Cuda compilation tools, release 12.4, V12.4.131      (InternLM/lmdeploy#3286)
_MM_NVCC = re.compile(r"^NVCC: Cuda compilation tools, release (?P<release>\d{1,2}\.\d{1,2}), V(?P<version>\d{1,2}\.\d{1,2}\.\d{1,4})\s*$")
# Hugging Face-style environment reports ("Copy-and-paste the text below in your GitHub issue"): transformers'
# commands/env.py, accelerate's commands/env.py and LlamaFactory's extras/env.py (which "is inspired by" the first)
# each print a dict as "\n".join([f"- {prop}: {val}" ...]); the first key names the tool, in backticks
# ("`transformers` version", "`Accelerate` version", "`llamafactory` version"); torch's key differs by tool:
#   "PyTorch version (GPU?)": f"{pt_version} ({pt_cuda_available})"          (accelerate; transformers before 4.4x)
#   "PyTorch version (accelerator?)": f"{pt_version} ({pt_accelerator})"     (transformers now: CUDA / XPU / NA)
#   "PyTorch version": torch.__version__ (+ " (GPU)" when CUDA is available) (LlamaFactory)
# - `llamafactory` version: 0.9.2.dev0          (hiyouga/LlamaFactory#6608)
# - PyTorch version: 2.5.1+cu124 (GPU)
# - DeepSpeed version: 0.14.4
# - `Accelerate` version: 0.34.2                (huggingface/accelerate#3446)
# - PyTorch version (GPU?): 2.3.0+cu121 (True)
_HF_ENV_HEAD = re.compile(r"^- `[\w.-]{1,40}` version: \S", re.M)
# any field of such a report (accelerate's config under it is indented, "\t- key: value", after its own head
# "- `Accelerate` default config:"): read as the report's own line
_HF_FIELD = re.compile(r"^\s*- [^:\n]{1,80}:(?: |$)")
# a package's version field: "<Name> version[ (<what>?)]: <version>[ (<answer>)]"; "not installed" is no version
_HF_VERSION = re.compile(r"^- `?(?P<name>[A-Za-z][\w.-]{0,40})`? version(?: \([\w?/ ]{1,40}\))?: "
                         r"(?P<ver>\d[\w.+!-]{0,60})(?: \([\w ]{1,20}\))?\s*$")
# DeepSpeed's ds_report (deepspeed/env_report.py debug_report: print("DeepSpeed general environment info:"), then each
# field as print(name, "." * (max_dots - len(name)), value), max_dots 33; its op table before it, op_report: name, dots,
# installed and compatible as [YES] / [NO] / [OKAY]), issue 11 round rS1 (deepspeedai/DeepSpeed#2632):
# DeepSpeed general environment info:
# torch version .................... 1.12.1+cu113
# torch cuda version ............... 11.3
# nvcc version ..................... 11.4
# deepspeed info ................... 0.7.7, unknown, unknown
# deepspeed wheel compiled w. ...... torch 1.12, cuda 11.3
# cpu_adam ............... [NO] ....... [OKAY]
# torch's version (its CUDA build from "torch cuda version"), deepspeed's and the toolkit's nvcc as package_version
# (manager ds_report); the other fields and the op table's rows read as the report's own lines
_DS_HEAD = re.compile(r"^DeepSpeed general environment info:\s*$", re.M)
_DS_FIELD = re.compile(r"^(?P<name>[a-z][\w ./()-]{1,40}?) \.{1,40} (?P<value>\S.*?)\s*$")
_DS_OP = re.compile(r"^(?:[a-z][\w]{0,40} \.{1,40} \[(?:YES|NO|OKAY)\](?: \.{1,20} \[(?:OKAY|NO|YES)\])?"
                    r"|op name \.{1,40} installed \.{1,10} compatible|-{40,}|DeepSpeed C\+\+/CUDA extension op report"
                    r"|JIT compiled ops requires ninja)\s*$")
_LOCAL_CU = re.compile(r"\+cu(?P<maj>\d{1,2}?)(?P<min>\d)$")  # +cu121 +cu130 +cu92
# cuda10.2_0, py3.11_cuda12.1_cudnn8.9.2_0; py3.7_cuda10.1.243_cudnn7.6.3_0 (PyTorch 1.4's conda build names the full CUDA
# release: pytorch/pytorch#35646's collect_env, '[conda] pytorch  1.4.0  py3.7_cuda10.1.243_cudnn7.6.3_0  pytorch')
_BUILD_CUDA = re.compile(r"(?:^|_)cuda(?P<cuda>\d+\.\d+)(?:\.\d+)?(?:_|$)")
# packages whose version IS a CUDA release: the runtime a program loads
_CUDA_RUNTIME = re.compile(r"^(?:nvidia-cuda-runtime(?:-cu\d+)?|cudatoolkit|cuda-runtime|cuda-cudart)$")
_RELEVANT = re.compile(r"^(?:torch|pytorch|nvidia-[\w.-]+|cuda[\w.-]*|cupy[\w.-]*|jax-cuda[\w.-]*|jaxlib|nccl|"
                       r"tensorflow[\w.-]*|vllm|deepspeed|apex|flash-attn|triton)$")
_DETECT = re.compile(r"^(?:[-*+][ \t]+)?(?:\[(?:pip3?|conda)\]\s+)?(?:torch|nvidia-[\w-]+|cudatoolkit|pytorch)(?:==|\s+\d)|"
                     r"^\|[ \t]*`?(?:torch|nvidia-[\w-]+|cudatoolkit|pytorch)`?[ \t]*\|[ \t]*`?\d|^CUDA used to build PyTorch\s*:|^PyTorch version\s{2,}: |"
                     r"^#\s*Name\s+Version\s+Build|^sys\.platform: \w+\s*$|^- `[\w.-]{1,40}` version: \S"
                     r"|^Package {2,}Version(?: {2,}Editable project location)?[ \t\r]*$|^DeepSpeed general environment info:"
                     r"|==\(\(====\)\)==  Unsloth\b", re.M)


# unsloth's start banners (unslothai/unsloth unsloth/models/llama.py, vision.py, loader.py: the "statistics" f-string each
# from_pretrained prints; its trainer's at train()), an ASCII sloth at the left of each line, the fields at the right:
#   ==((====))==  Unsloth: Fast Llama patching release 2024.5                                  (2024.1-2024.7)
#      \\   /|    GPU: NVIDIA GeForce GTX 1080. Max memory: 7.915 GB. Platform = Linux.
#   O^O/ \_/ \    Pytorch: 2.3.0. CUDA = 6.1. CUDA Toolkit = 11.8.
#   \        /    Bfloat16 = FALSE. Xformers = 0.0.26.post1. FA = False.
#    "-____-"     Free Apache license: http://github.com/unslothai/unsloth                    (unslothai/unsloth#512)
#   ==((====))==  Unsloth 2025.3.9: Fast Qwen2 patching. Transformers: 4.49.0. vLLM: 0.7.3.   (2024.8 on: "Transformers = ",
#      \\   /|    NVIDIA GeForce GTX 1070. Num GPUs = 1. Max memory: 7.909 GB. Platform: Linux.  "GPU: " and " = " before 2025)
#   O^O/ \_/ \    Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0
#   \        /    Bfloat16 = FALSE. FA [Xformers = 0.0.28.post3. FA2 = False]
#    "-____-"     Free license: http://github.com/unslothai/unsloth                            (unslothai/unsloth#1998)
#   ==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = 1                     (the trainer's: counts only)
#      \\   /|    Num examples = 51,760 | Num Epochs = 1 | Total steps = 60
# "CUDA: 6.1" is the device's compute capability (gpu_stats.major.minor), "CUDA Toolkit" torch.version.cuda; the whole
# banner is context (app_gpu_report, package_version of unsloth, transformers, vLLM, torch, Triton, xformers)
_V = r"\d[\w+-]*(?:\.[\w+-]+)*"  # a version up to the sentence's full stop: "2.5.1+cu124", "0.0.28.post3"
_UNSLOTH_ART = re.compile(r"(?:^|\s)(?:==\(\(====\)\)==  Unsloth\b|\\\\   /\|    |O\^O/ \\_/ \\    |\\        /    |\"-____-\"     )")
_UNSLOTH_HEAD = re.compile(r"==\(\(====\)\)==  Unsloth(?:: Fast \S+ patching release (?P<old>" + _V + ")|"
                           r" (?P<ver>" + _V + r"): Fast \S+ patching\.(?: (?:Transformers|Diffusers)(?: =|:) (?P<tf>" + _V + r")\.)?"
                           r"(?: vLLM: (?P<vllm>" + _V + r")\.)?)")
_UNSLOTH_GPU = re.compile(r"\\\\   /\|    (?:GPU: )?(?:No GPU detected|(?P<gpu>\S.*?)\.(?: Num GPUs = (?P<n>\d+)\.)? "
                          r"Max memory: (?P<mem>\d+(?:\.\d+)?) GB)\. Platform(?: =|:) (?P<plat>\w+)")
_UNSLOTH_TORCH = re.compile(r"O\^O/ \\_/ \\    (?:Pytorch|Torch): (?P<torch>" + _V + r")\.(?: CUDA(?: =|:) (?P<cc>\d+\.\d+)\."
                            r" CUDA Toolkit(?: =|:) (?P<tk>\d+\.\d+|None)\.?(?: Triton: (?P<triton>" + _V + "))?)?")
_UNSLOTH_BF16 = re.compile(r"\\        /    Bfloat16 = (?P<bf16>TRUE|FALSE)\.(?: FA \[Xformers = (?P<xf>" + _V + r")\.| Xformers = (?P<xf2>"
                           + _V + r")\.)?")


def _unsloth(b: FactBuilder, n: int, line: str, banner: dict) -> None:
    """One line of an unsloth banner: its versions as package_version, its GPU as app_gpu_report (at the torch line or
    the banner's end)."""
    if (m := _UNSLOTH_HEAD.search(line)) is not None:
        banner.clear()
        if (ver := m["ver"] or m["old"]) is not None:
            add_package(b, n, "unsloth", ver, "unsloth", None)
        for name, group in (("transformers", "tf"), ("vllm", "vllm")):
            if m[group] is not None and "Diffusers" not in line:
                add_package(b, n, name, m[group], "unsloth", None)
    elif (m := _UNSLOTH_GPU.search(line)) is not None:
        banner.update(line=n, gpu_name=m["gpu"], gpu_count=int(m["n"]) if m["n"] else (0 if m["gpu"] is None else None),
                      memory_gb=float(m["mem"]) if m["mem"] else None, platform=m["plat"])
    elif (m := _UNSLOTH_TORCH.search(line)) is not None:
        tk = m["tk"] if m["tk"] not in (None, "None") else None
        add_package(b, n, "torch", m["torch"], "unsloth", _cuda_of("torch", m["torch"], None) or tk)
        if m["triton"]:
            add_package(b, n, "triton", m["triton"], "unsloth", None)
        banner["compute_capability"] = m["cc"]
    elif (m := _UNSLOTH_BF16.search(line)) is not None:
        banner["bf16"] = m["bf16"] == "TRUE"
        if xf := m["xf"] or m["xf2"]:
            add_package(b, n, "xformers", xf, "unsloth", None)
    if "line" in banner and ("-____-" in line or "bf16" in banner):
        fields = {k: v for k, v in banner.items() if k != "line"}
        b.add(AppGpuReport, banner["line"], source="unsloth", **fields)
        banner.clear()


def cuda_num(version: str) -> tuple[int, int] | None:
    """``"12.1"`` / ``"9.0.176"`` -> (12010, 12), CUDA's integer form and the major."""
    m = re.match(r"(\d+)\.(\d+)", version)
    if m is None:
        return None
    major, minor = int(m[1]), int(m[2])
    return major * 1000 + minor * 10, major


def _cuda_of(name: str, version: str, build: str | None) -> str | None:
    if (m := _LOCAL_CU.search(version)) is not None:
        return f"{int(m['maj'])}.{m['min']}"
    if build and (m := _BUILD_CUDA.search(build)) is not None:
        return m["cuda"]
    if _CUDA_RUNTIME.match(name) and (m := re.match(r"\d+\.\d+", version)):
        return m[0]
    return None


def detect(head: str) -> bool:
    if not ("==" in head or "PyTorch" in head or "cudatoolkit" in head or "Version" in head or "pytorch" in head
            or "DeepSpeed general" in head or "- torch" in head or "| torch" in head or "| nvidia-" in head or "- nvidia-" in head or "| `" in head
            or "sys.platform" in head or "` version: " in head or "==((====))==  Unsloth" in head):
        return False
    return _DETECT.search(head) is not None


def add_package(b: FactBuilder, n: int, name: str, version: str, manager: str, cuda: str | None, **more) -> None:
    """One ``package_version`` fact, its CUDA build in CUDA's integer form and major too (every
    package lister's reader: pip/conda here, dpkg/apt in debian_packages)."""
    num = cuda_num(cuda) if cuda else None
    b.add(PackageVersion, n, package=name, version=version, manager=manager, cuda_build=cuda,
          cuda_build_num=num[0] if num else None, cuda_build_major=num[1] if num else None, **more)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    columns: str | None = None  # after a pip list / conda list header or command: its manager
    torch_version: tuple[int, str] | None = None
    mm_env = _MM_PLATFORM.search(artefact.text) is not None  # MMEngine's collect_env: its "Name: value" fields
    hf_env = _HF_ENV_HEAD.search(artefact.text) is not None  # a Hugging Face-style "- Name: value" env report
    ds_env = _DS_HEAD.search(artefact.text) is not None  # DeepSpeed's ds_report: "name ..... value" fields
    ds_torch: tuple[int, str] | None = None  # its torch version line
    ds_cuda: str | None = None  # its "torch cuda version"
    torch_env = "CUDA used to build PyTorch" in artefact.text  # PyTorch's (or vLLM's) collect_env: its fields
    cuda_built: bool | None = None  # collect_env's "CUDA used to build PyTorch": a CUDA build (None: not said)
    unavailable: int | None = None  # the line of "Is CUDA available: No / False"
    gpus_listed = 0
    banner: dict = {}  # the unsloth banner's fields read so far (_unsloth)
    unsloth = "==((====))==  Unsloth" in artefact.text
    for n, line in enumerate(artefact.lines, 1):
        if unsloth and _UNSLOTH_ART.search(line) is not None:
            result.lines_used += 1
            _unsloth(b, n, line, banner)
            continue
        if _PIP_LIST_HEADER.match(line) or _CONDA_HEADER.match(line):
            columns = "pip" if _PIP_LIST_HEADER.match(line) else "conda"
            result.lines_used += 1
            continue
        if (c := _LIST_COMMAND.search(line)) is not None:
            columns = "conda" if c["tool"] == "conda" else "pip"
            continue
        if (m := _TORCH_VERSION.match(line)) is not None:
            torch_version = (n, m["ver"])
            result.lines_used += 1
            continue
        if (m := _TORCH_CUDA.match(line)) is not None:
            result.lines_used += 1
            if torch_version is None:
                b.error(n, "collect_env: 'CUDA used to build PyTorch' without a 'PyTorch version' line before it")
                continue
            num = re.match(r"\d+\.\d+", m["cuda"])  # "9.0.176" -> "9.0"; None / N/A: a CPU or ROCm build
            cuda = num[0] if num else None
            cuda_built = cuda is not None
            add_package(b, torch_version[0], "torch", torch_version[1], "collect_env", cuda)
            torch_version = None
            continue
        if (m := _DRIVER.match(line)) is not None:
            result.lines_used += 1
            b.add(NvidiaDriverVersion, n, version=m["ver"])
            continue
        if _ENV_FIELD.match(line):
            result.lines_used += 1
            continue
        if torch_env and (m := _CUDA_AVAILABLE.match(line)) is not None:
            result.lines_used += 1
            if m["answer"] in ("No", "False"):
                unavailable = n
            continue
        if torch_env and (_ENV_KNOWN.match(line) or _ENV_GPU.match(line)):
            result.lines_used += 1
            gpus_listed += _ENV_GPU.match(line) is not None
            continue
        if mm_env and (m := _MM_TORCH.match(line)) is not None:
            result.lines_used += 1
            add_package(b, n, "torch", m["ver"], "collect_env", _cuda_of("torch", m["ver"], None))
            cuda_built = _cuda_of("torch", m["ver"], None) is not None
            continue
        if mm_env and line.startswith("CUDA available: False"):  # MMEngine's: torch.cuda.is_available()
            result.lines_used += 1
            unavailable = n
            continue
        if mm_env and (m := _MM_NVCC.match(line)) is not None:
            result.lines_used += 1
            add_package(b, n, "cuda-nvcc", m["version"], "collect_env", m["release"])
            continue
        if mm_env and _MM_FIELD.match(line):
            result.lines_used += 1
            continue
        if ds_env and (_DS_HEAD.match(line) or _DS_OP.match(line)):
            result.lines_used += 1
            continue
        if ds_env and (m := _DS_FIELD.match(line)) is not None:
            result.lines_used += 1
            name, value = m["name"], m["value"]
            if name == "torch version":
                ds_torch = (n, value)
            elif name == "torch cuda version" and re.match(r"\d+\.\d+", value):
                ds_cuda = re.match(r"\d+\.\d+", value)[0]
            elif name == "nvcc version" and (v := re.match(r"\d+\.\d+(?:\.\d+)?", value)) is not None:
                add_package(b, n, "cuda-nvcc", v[0], "ds_report", re.match(r"\d+\.\d+", v[0])[0])
            elif name == "deepspeed info" and (v := re.match(r"\d[\w.+]{0,40}", value)) is not None:
                add_package(b, n, "deepspeed", v[0], "ds_report", None)
            continue
        if hf_env and _HF_FIELD.match(line):
            result.lines_used += 1
            if (m := _HF_VERSION.match(line)) is not None:
                name = {"pytorch": "torch"}.get(m["name"].lower(), m["name"].lower())
                if _RELEVANT.match(name):
                    add_package(b, n, name, m["ver"], "env_report", _cuda_of(name, m["ver"], None))
            continue
        m = _FREEZE.match(line)
        if m is None and (columns or (line.lstrip().startswith("[") and "[conda]" in line)):
            m = _COLUMNS.match(line)
        if m is None and "|" in line:
            if _TABLE_HEAD.match(line):
                result.lines_used += 1
                if "ersion" in line:  # the header, not its rule: a listing's rows follow
                    columns = "conda" if "Build" in line else "pip"
                continue
            m = _TABLE_ROW.match(line)
            if m is not None and not _RELEVANT.match(m["name"].lower().replace("_", "-")) and not columns:
                continue  # (another table's row: a package table's only where its header said so)
        if m is None and line.lstrip()[:1] in ("-", "*", "+"):
            m = _BULLET_COLUMNS.match(line)
            if m is not None and not _RELEVANT.match(m["name"].lower().replace("_", "-")) and not columns:
                continue  # ("- step 1" is a list's item; a package list's where it names the CUDA stack)
        if m is None:
            continue
        result.lines_used += 1
        name = m["name"].lower().replace("_", "-")
        if not _RELEVANT.match(name):
            continue
        build = m.groupdict().get("build")
        tag = m.groupdict().get("tag")
        manager = "conda" if tag == "conda" else "pip" if tag else ("pip" if "==" in line else columns or "pip")
        add_package(b, n, name, m["ver"], manager, _cuda_of(name, m["ver"], build))
    if ds_torch is not None:  # ds_report's torch, built for its "torch cuda version" (or its +cuXXX)
        add_package(b, ds_torch[0], "torch", ds_torch[1], "ds_report", _cuda_of("torch", ds_torch[1], None) or ds_cuda)
    if torch_version is not None:  # collect_env cut short after its PyTorch line
        add_package(b, torch_version[0], "torch", torch_version[1], "collect_env", _cuda_of("torch", torch_version[1], None))
    if unavailable is not None and cuda_built:  # a CUDA build of PyTorch that found no usable GPU (a CPU build: none wanted)
        b.add(TorchCudaUnavailable, unavailable, via="collect_env", gpus_listed=gpus_listed or None)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
