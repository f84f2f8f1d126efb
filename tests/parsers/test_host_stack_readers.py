"""Package listings, lsmod and nvidia-smi topo -p2p on real captures."""

import pytest

from stethoscope.facts.parsers import lsmod, nvidia_smi_topo_p2p, python_packages

from parse_helper import FIX, parse_fixture as _parse  # tests/parsers/parse_helper.py
from stethoscope.facts.parsers.base import Artefact


def _pkgs(r):
    return {(f.package, f.manager): (f.version, f.cuda_build, f.cuda_build_num) for f in r.facts if f.kind == "package_version"}


def test_pip_freeze_of_our_h200_host():
    r = _parse(python_packages, "python_packages/h200_pip_freeze_filtered.txt")
    got = _pkgs(r)
    assert got[("torch", "pip")] == ("2.11.0", None, None)  # the PyPI wheel carries no +cu tag
    assert got[("nvidia-cuda-runtime", "pip")] == ("13.0.96", "13.0", 13000)
    assert got[("nvidia-nccl-cu13", "pip")] == ("2.28.9", None, None)
    assert ("botorch", "pip") not in got and not r.errors  # not of the CUDA stack: read, no fact


@pytest.mark.parametrize("rel, key, want", [
    ("python_packages/pytorch137846_collect_env_numpy_warning_cpu.txt", ("torch", "collect_env"),
     ("2.8.0.dev20250528+cpu", None, None)),
    ("python_packages/torch_points3d66_collect_env_cu90_driver418.txt", ("torch", "collect_env"),
     ("1.1.0", "9.0", 9000)),
    ("python_packages/torch_points3d66_collect_env_cu90_driver418.txt", ("torch", "pip"), ("1.1.0", None, None)),
    ("python_packages/nanodet4_conda_list_grep_cuda.txt", ("cudatoolkit", "conda"), ("10.2.89", "10.2", 10020)),
    # MMEngine's collect_env (lmdeploy check_env): "PyTorch: 2.5.1+cu121"
    ("python_packages/lmdeploy3286_check_env_mmengine_cu121_4090d.txt", ("torch", "collect_env"), ("2.5.1+cu121", "12.1", 12010)),
    ("python_packages/nanodet4_conda_list_grep_cuda.txt", ("pytorch", "conda"), ("1.7.1", None, None)),
    # pytorch/pytorch#35646: PyTorch 1.4's conda build names the full CUDA release ("py3.7_cuda10.1.243_cudnn7.6.3_0")
    ("python_packages/pytorch35646_collect_env_conda_cuda10.1.243_build.txt", ("pytorch", "conda"), ("1.4.0", "10.1", 10010)),
    ("python_packages/pytorch35646_collect_env_conda_cuda10.1.243_build.txt", ("cudatoolkit", "conda"), ("10.1.243", "10.1", 10010)),
])
def test_collect_env_and_conda_list(rel, key, want):
    assert _pkgs(_parse(python_packages, rel))[key] == want


@pytest.mark.parametrize("line, want", [
    ("torch==2.4.0+cu121", ("torch", "pip", "12.1")),
    ("[conda] pytorch                   2.1.0           py3.11_cuda12.1_cudnn8.9.2_0    pytorch", ("pytorch", "conda", "12.1")),
    ("[pip3] torch==1.7.0a0+a9603c7", ("torch", "pip", None)),
    # a build string's CUDA is "cuda" then major.minor (and a patch), between underscores: not "cudnn7.6.3" nor "cu101"
    ("[conda] pytorch                   1.4.0           py3.7_cuda10.1.243_cudnn7.6.3_0    pytorch", ("pytorch", "conda", "10.1")),
    ("[conda] pytorch                   1.4.0           py3.7_cudnn7.6.3_0    pytorch", ("pytorch", "conda", None)),
    ("[conda] pytorch                   1.4.0           py3.7_cuda10.1.243x_0    pytorch", ("pytorch", "conda", None)),
])
def test_version_forms(line, want):
    (f,) = _parse(python_packages, text=line + "\n").facts
    assert (f.package, f.manager, f.cuda_build) == want


@pytest.mark.parametrize("rel, torch, driver, line", [
    # pytorch/pytorch#43058 (torch built for CUDA 10.2 on a 418 driver) and #37212 (quoted with '> ', Windows)
    ("python_packages/pytorch43058_collect_env_cu102_driver418.txt", ("1.6.0", "10.2", 10020), "418.67", 17),
    ("python_packages/pytorch37212_collect_env_cu101_driver442_windows.txt", ("1.5.0+cu101", "10.1", 10010), "442.92", 17),
    ("python_packages/torch_points3d66_collect_env_cu90_driver418.txt", ("1.1.0", "9.0", 9000), "418.67", 14),
])
def test_collect_env_driver_line(rel, torch, driver, line):
    a = Artefact(path=rel, text=(FIX / rel).read_text(), node="n1")
    a.normalise()  # the '> ' quoting stripped, as the pipeline does before its line classes pick the reader
    r = python_packages.parse(a)
    assert _pkgs(r)[("torch", "collect_env")] == torch and not r.errors
    drv = [f for f in r.facts if f.kind == "nvidia_driver_version"]
    assert [(f.version, f.open_module, f.evidence.line) for f in drv] == [(driver, None, line)]


def test_collect_env_in_vllms_padded_layout():
    # vllm-project/vllm#41864: vLLM's collect_env pads each name to a column ("PyTorch version              : ...")
    # under "=====" banners; its "Could not collect" fields are the report's own words, read, not errors
    rel = "python_packages/vllm41864_collect_env_vllm_layout_cu130_h200.txt"
    assert python_packages.detect((FIX / rel).read_text())
    r = _parse(python_packages, rel)
    assert _pkgs(r)[("torch", "collect_env")] == ("2.11.0+cu130", "13.0", 13000) and not r.errors
    assert not [f for f in r.facts if f.kind == "nvidia_driver_version"]  # cut at the driver line's name


@pytest.mark.parametrize("text, torch", [
    ("PyTorch version              : 2.6.0+cu124\nCUDA used to build PyTorch   : 12.4\n", ("2.6.0+cu124", "12.4", 12040)),
    ("PyTorch version              : 2.6.0+cpu\nCUDA used to build PyTorch   : None\n", ("2.6.0+cpu", None, None)),
])
def test_padded_collect_env_lines(text, torch):
    assert _pkgs(_parse(python_packages, text=text))[("torch", "collect_env")] == torch


def test_padded_field_alone_is_not_a_collect_env():
    # a padded name alone ("Clang version : Could not collect") without a PyTorch line: not this reader's
    assert not python_packages.detect("Clang version                : Could not collect\nCMake version : 3.28.3\n")


def test_cuda_line_without_pytorch_version_is_a_parse_error():
    r = _parse(python_packages, text="CUDA used to build PyTorch: 12.1\n")
    assert not r.facts and r.errors[0].line == 1


def test_not_a_package_listing():
    assert not python_packages.detect("NCCL INFO Bootstrap : Using eth0\nx = 1\n")


def test_lsmod_grep_lines_that_printed_nothing():
    r = _parse(lsmod, "lsmod/nccl988_lsmod_grep_peermem_empty.txt")
    assert [(f.kind, f.filter, f.shows_peermem) for f in r.facts] == [
        ("kernel_module_listing", "nvidia_peermem", True), ("kernel_module_listing", "nv_peer_mem", True)]


def test_lsmod_table():
    text = ("$ lsmod\nModule                  Size  Used by\nnvidia_peermem         16384  0\n"
            "ib_core               434176  9 rdma_cm,ib_ipoib,nvidia_peermem,iw_cm\nbroken_mod   12k  0\n")
    r = _parse(lsmod, text=text)
    mods = [(f.name, f.size, f.use_count, f.used_by) for f in r.facts if f.kind == "kernel_module"]
    assert mods == [("nvidia_peermem", 16384, 0, None), ("ib_core", 434176, 9, "rdma_cm,ib_ipoib,nvidia_peermem,iw_cm")]
    assert [f.filter for f in r.facts if f.kind == "kernel_module_listing"] == [None]  # the command, not the header too
    assert r.errors and r.errors[0].line == 5


@pytest.mark.parametrize("cmd, shows", [
    ("# lsmod | grep peer", True), ("# lsmod | grep mlx5", False), ("# lsmod | grep -i NVIDIA", True),
    ("# lsmod | grep 'nvidia\\|ib_'", True), ("$ lsmod", True),
])
def test_lsmod_filter_decides_what_absence_means(cmd, shows):
    (f,) = _parse(lsmod, text=cmd + "\n").facts
    assert f.shows_peermem is shows


def test_p2p_matrix_two_gpus_gns():
    r = _parse(nvidia_smi_topo_p2p, "nvidia_smi_topo_p2p/club3090_1124_2x5090_p2p_rw_gns.txt")
    assert [(f.evidence.line, f.a, f.b, f.status, f.supported) for f in r.facts] == [
        (2, "GPU0", "GPU1", "GNS", False), (3, "GPU1", "GPU0", "GNS", False)]
    assert not r.errors


def test_p2p_matrix_one_gpu_and_command():
    r = _parse(nvidia_smi_topo_p2p, "nvidia_smi_topo_p2p/h200_one_gpu_p2p_r.txt")
    assert r.facts == [] and not r.errors and r.lines_used >= 3


def test_p2p_matrix_pasted_alone_is_read():
    # NCCL's troubleshooting guide: a healthy 8-GPU PCIe system's `topo -p2p p` matrix, no legend and no command
    text = (FIX / "nvidia_smi_topo_p2p/nccl_docs_8gpu_p2p_p_all_ok.txt").read_text()
    assert nvidia_smi_topo_p2p.detect(text)
    r = _parse(nvidia_smi_topo_p2p, "nvidia_smi_topo_p2p/nccl_docs_8gpu_p2p_p_all_ok.txt")
    assert len(r.facts) == 56 and not r.errors
    assert {(f.status, f.supported, f.capability) for f in r.facts} == {("OK", True, None)}


@pytest.mark.parametrize("rel", ["nvidia_smi_topo/h200_nv18_topo_m.txt", "nvidia_smi_topo/lmdeploy1944_2gpu_mlx5_rows_tabs.txt"])
def test_topo_m_matrix_is_not_a_p2p_matrix(rel):
    # topo -m's rows carry link types (NV18, PIX, SYS), not the p2p legend's codes
    assert not nvidia_smi_topo_p2p.detect((FIX / rel).read_text())


def test_p2p_bad_cell_is_a_parse_error():
    text = "nvidia-smi topo -p2p n\n \tGPU0\tGPU1\n GPU0\tX\tOK\n GPU1\tOK\n"
    r = _parse(nvidia_smi_topo_p2p, text=text)
    assert [(f.a, f.b, f.capability) for f in r.facts] == [("GPU0", "GPU1", "nvlink")]
    assert r.errors[0].line == 4


def test_lsmod_rows_without_the_command():
    # NVIDIA/open-gpu-kernel-modules#246: `lsmod | grep nvidia`'s rows pasted without the command: the modules,
    # no listing fact (what the grep kept is unknown, so nothing is said of a missing module)
    r = _parse(lsmod, "lsmod/ogkm246_lsmod_rows_without_command.txt")
    assert [(f.kind, f.name) for f in r.facts][:3] == [("kernel_module", "nvidia_drm"), ("kernel_module", "nvidia_modeset"),
                                                        ("kernel_module", "nvidia")]
    assert not any(f.kind == "kernel_module_listing" for f in r.facts)


@pytest.mark.parametrize("text", [
    "nvidia_drm             61440  0\n",  # one row alone: too little to call a listing
    "eth0      1500  0  0\nnvidia 42 2\n",  # a table that opens with another row
    "drm_kms_helper        278528  2 nvidia_drm,i915\ndrm                   622592  5 drm_kms_helper\n",  # no GPU driver's row
])
def test_lsmod_rows_alone_near_misses(text):
    assert not lsmod.detect(text)


def test_mmengine_collect_env_every_line_read():
    """lmdeploy check_env / MMEngine's collect_env: the PyTorch field makes the fact, its other fields are read;
    "PyTorch: x" outside such a report (no sys.platform field) is nobody's field."""
    r = _parse(python_packages, "python_packages/lmdeploy3286_check_env_mmengine_cu121_4090d.txt")
    assert python_packages.detect((FIX / "python_packages/lmdeploy3286_check_env_mmengine_cu121_4090d.txt").read_text())
    assert r.lines_used == 10 and not r.errors
    lone = "PyTorch: 2.5.1+cu121\n"
    assert not python_packages.detect(lone)
    assert not python_packages.parse(Artefact(path="t.txt", text=lone, node="n1")).facts


@pytest.mark.parametrize("rel, key, want, used", [
    # llamafactory-cli env (hiyouga/LlamaFactory#6608): "- PyTorch version: 2.5.1+cu124 (GPU)", "- DeepSpeed version: 0.14.4"
    ("python_packages/llamafactory6608_env_report_cu124_a100.txt", ("torch", "env_report"), ("2.5.1+cu124", "12.4", 12040), 11),
    ("python_packages/llamafactory6608_env_report_cu124_a100.txt", ("deepspeed", "env_report"), ("0.14.4", None, None), 11),
    # accelerate env (huggingface/accelerate#3446): "- PyTorch version (GPU?): 2.3.0+cu121 (True)"; its config's
    # "Not found" under "- `Accelerate` default config:" is no field
    ("python_packages/accelerate3446_accelerate_env_cu121_a6000.txt", ("torch", "env_report"), ("2.3.0+cu121", "12.1", 12010), 13),
])
def test_hf_env_report(rel, key, want, used):
    """A Hugging Face-style '- Name: value' env report: the torch field (every tool's key form) and the CUDA-stack
    packages make facts; every other field is read as the report's own line."""
    assert python_packages.detect((FIX / rel).read_text())
    r = _parse(python_packages, rel)
    assert _pkgs(r)[key] == want
    assert r.lines_used == used and not r.errors


@pytest.mark.parametrize("text, want", [
    # transformers' current key (commands/env.py): "PyTorch version (accelerator?)": f"{pt_version} ({pt_accelerator})"
    # (CONSTRUCTED from that format string; the head line as it prints it)
    ("- `transformers` version: 4.57.1\n- PyTorch version (accelerator?): 2.8.0+cu128 (CUDA)\n", ("2.8.0+cu128", "12.8")),
    ("- `transformers` version: 4.57.1\n- PyTorch version (accelerator?): not installed (NA)\n", None),
])
def test_hf_env_report_key_forms(text, want):
    facts = python_packages.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    got = [(f.version, f.cuda_build) for f in facts if f.package == "torch"]
    assert got == ([want] if want else [])


def test_hf_env_fields_without_the_report_head_are_nobodys():
    """A hand-written '- PyTorch version: 2.1' list (no backticked '`<tool>` version' head) is prose: no fact, not detected."""
    text = "- OS: Ubuntu 22.04\n- PyTorch version: 2.1.0\n- CUDA: 12.1\n"
    assert not python_packages.detect(text)
    assert not python_packages.parse(Artefact(path="t.txt", text=text, node="n1")).facts


def test_collect_env_1x_layout_every_line_read():
    """PyTorch 1.2's collect_env (pytorch/pytorch#25878): OS, GCC, CMake, 'Is CUDA available: Yes', the GPU list
    under 'GPU models and configuration:' are its own fields, read; CUDA available: no torch_cuda_unavailable."""
    rel = "python_packages/pytorch25878_collect_env_1.2_two_gp100_driver410.txt"
    r = _parse(python_packages, rel)
    text = (FIX / rel).read_text()
    assert r.lines_used == sum(1 for line in text.splitlines()[1:] if line.strip()) and not r.errors
    assert not [f for f in r.facts if f.kind == "torch_cuda_unavailable"]
    assert _pkgs(r)[("torch", "collect_env")] == ("1.2.0a0+8554416", "10.0", 10000)


def test_collect_env_cuda_not_available_of_a_cuda_build():
    """'Is CUDA available: No' of a CUDA 10.2 build with two V100s listed (pytorch/pytorch#43058): the process
    does not see the GPUs that are there; a CPU build's 'False' (pytorch/pytorch#137846) wants no GPU."""
    r = _parse(python_packages, "python_packages/pytorch43058_collect_env_cu102_driver418.txt")
    [f] = [f for f in r.facts if f.kind == "torch_cuda_unavailable"]
    assert (f.via, f.gpus_listed, f.evidence.line) == ("collect_env", 2, 11)
    r = _parse(python_packages, "python_packages/pytorch137846_collect_env_numpy_warning_cpu.txt")
    assert not [f for f in r.facts if f.kind == "torch_cuda_unavailable"]


@pytest.mark.parametrize("text, unavailable", [
    # vLLM's padded layout (CONSTRUCTED from vllm#41864's fixture, the answer False)
    ("PyTorch version              : 2.11.0+cu130\nCUDA used to build PyTorch   : 13.0\nIs CUDA available            : False\n", True),
    ("PyTorch version: 2.4.0\nCUDA used to build PyTorch: 12.1\nIs CUDA available: True\n", False),
    # MMEngine's collect_env (CONSTRUCTED from lmdeploy#3286's fixture): "CUDA available: False" of a +cu121 build
    ("sys.platform: linux\nCUDA available: False\nPyTorch: 2.5.1+cu121\n", True),
    ("sys.platform: linux\nCUDA available: False\nPyTorch: 2.5.1+cpu\n", False),
])
def test_collect_env_cuda_available_forms(text, unavailable):
    r = _parse(python_packages, text=text)
    assert bool([f for f in r.facts if f.kind == "torch_cuda_unavailable"]) is unavailable


def test_mmengine_collect_env_nvcc_field():
    # InternLM/lmdeploy#3286: "NVCC: Cuda compilation tools, release 12.4, V12.4.131", the toolkit beside torch
    r = _parse(python_packages, "python_packages/lmdeploy3286_check_env_mmengine_cu121_4090d.txt")
    assert _pkgs(r)[("cuda-nvcc", "collect_env")] == ("12.4.131", "12.4", 12040)


# issue 11 (round rS1): pip freeze's and pip list's / conda list's lines pasted as a markdown list or table (CONSTRUCTED
# from pip's "name==version" and its columns, the bullets and cells a ticket's; session 43's verl#184 pasted its pip list
# as bullets): the CUDA stack's versions as the plain forms give them
@pytest.mark.parametrize("text, want", [
    ("- torch==2.3.0+cu121\n- nvidia-nccl-cu12==2.20.5\n- transformers==4.41.2\n",
     {("torch", "pip"): ("2.3.0+cu121", "12.1", 12010), ("nvidia-nccl-cu12", "pip"): ("2.20.5", None, None)}),
    ("* torch==2.1.0\n", {("torch", "pip"): ("2.1.0", None, None)}),
    ("- torch                     2.3.0\n- nvidia-nccl-cu12          2.20.5\n- numpy                     1.26.4\n",
     {("torch", "pip"): ("2.3.0", None, None), ("nvidia-nccl-cu12", "pip"): ("2.20.5", None, None)}),
    ("| Package | Version |\n|---|---|\n| torch | 2.3.0+cu121 |\n| nvidia-nccl-cu12 | 2.20.5 |\n| numpy | 1.26.4 |\n",
     {("torch", "pip"): ("2.3.0+cu121", "12.1", 12010), ("nvidia-nccl-cu12", "pip"): ("2.20.5", None, None)}),
    ("| Name | Version | Build | Channel |\n| :--- | :--- | :--- | :--- |\n| pytorch | 2.1.0 | py3.11_cuda12.1_cudnn8.9.2_0 | pytorch |\n",
     {("pytorch", "conda"): ("2.1.0", "12.1", 12010)}),
    ("| `torch` | `2.2.1` |\n", {("torch", "pip"): ("2.2.1", None, None)}),
])
def test_markdown_package_lists(text, want):
    assert python_packages.detect(text)
    r = _parse(python_packages, text=text)
    assert _pkgs(r) == want
    assert r.lines_used >= len(want)


@pytest.mark.parametrize("text", [
    "- step 1 done\n- node 2 failed\n",            # a list's items
    "| GPU | 0 |\n| node | 7 |\n",                 # another table's rows
    "- torch version 2.3.0 crashes\n",              # a sentence in a bullet
])
def test_markdown_lists_that_are_no_package_list(text):
    assert not python_packages.detect(text) or not _parse(python_packages, text=text).facts


def test_ds_report_environment_block():
    # deepspeedai/DeepSpeed#2632 (verbatim): DeepSpeed's ds_report, its "name ..... value" fields
    r = _parse(python_packages, "python_packages/deepspeed2632_ds_report_torch1.12_cu113.txt")
    assert _pkgs(r) == {("torch", "ds_report"): ("1.12.1+cu113", "11.3", 11030),
                        ("cuda-nvcc", "ds_report"): ("11.4", "11.4", 11040),
                        ("deepspeed", "ds_report"): ("0.7.7", None, None)}
    assert r.lines_used == 9


def test_pip_list_known_by_its_header():
    # deepspeedai/DeepSpeed#3318 (verbatim): pip 23's list, cut before torch: its header says what it is
    text = (FIX / "python_packages/deepspeed3318_pip_list_header_cut.txt").read_text()
    assert python_packages.detect(text)
    r = _parse(python_packages, "python_packages/deepspeed3318_pip_list_header_cut.txt")
    assert _pkgs(r) == {("deepspeed", "pip"): ("0.8.3", None, None), ("flash-attn", "pip"): ("1.0.4", None, None)}


@pytest.mark.parametrize("rel,gpu,packages", [
    # unsloth's banners, both generations (unslothai/unsloth#1998: 2025.3.9; #512: 2024.5): context read as facts
    ("python_packages/unsloth1998_banner_gtx1070_cc61.txt", ("NVIDIA GeForce GTX 1070", 1, 7.909, "6.1", False),
     {"unsloth": "2025.3.9", "transformers": "4.49.0", "vllm": "0.7.3", "torch": "2.5.1+cu124", "triton": "3.1.0",
      "xformers": "0.0.28.post3"}),
    ("python_packages/unsloth512_banner_2024.5_gtx1080.txt", ("NVIDIA GeForce GTX 1080", None, 7.915, "6.1", False),
     {"unsloth": "2024.5", "torch": "2.3.0", "xformers": "0.0.26.post1"}),
])
def test_unsloth_banner(rel, gpu, packages):
    r = _parse(python_packages, rel)
    (g,) = [f for f in r.facts if f.kind == "app_gpu_report"]
    assert (g.gpu_name, g.gpu_count, g.memory_gb, g.compute_capability, g.bf16) == gpu
    assert {f.package: f.version for f in r.facts if f.kind == "package_version" and f.manager == "unsloth"} == packages
    torch = next(f for f in r.facts if f.kind == "package_version" and f.package == "torch")
    assert torch.cuda_build == ("12.4" if "1998" in rel else "11.8")  # its +cu124, else "CUDA Toolkit = 11.8"


def test_unsloth_trainer_banner_and_no_gpu_form():
    # CONSTRUCTED from unsloth's f-strings: the trainer's counts (no versions) and the no-GPU form of the diffusion loader
    text = ("==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = 1\n"
            "   \\\\   /|    Num examples = 51,760 | Num Epochs = 1 | Total steps = 60\n"
            "==((====))==  Unsloth 2025.6.1: Fast DiffusionModel patching. Diffusers: 0.33.1\n"
            "   \\\\   /|    No GPU detected. Platform: Linux.\n"
            "O^O/ \\_/ \\    Torch: 2.7.0. Bfloat16 = FALSE.\n"
            ' "-____-"     Free license: http://github.com/unslothai/unsloth\n')
    r = _parse(python_packages, text=text)
    (g,) = [f for f in r.facts if f.kind == "app_gpu_report"]
    assert (g.gpu_name, g.gpu_count) == (None, 0)
    assert {f.package for f in r.facts if f.kind == "package_version"} == {"unsloth", "torch"}
    assert r.lines_used == 6
