"""cuda_toolchain: nvcc's and ptxas's refusals to build for a GPU architecture (real lines:
InternLM/lmdeploy#3806, gpustack/gpustack#4372, amazon-science/FeatGraph#12, gadgetron/gadgetron#6, rodschulz/BPA#6)."""
import pytest

from stethoscope.facts.parsers import cuda_toolchain

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _rows(res):
    return [(f.tool, f.reason, f.target, f.instruction, f.lines, f.evidence.line) for f in res.facts]


def test_instruction_not_on_target_is_one_fact_for_the_build():
    # eight whole lines of the same refusal, then one cut at "line 141" (the stored excerpt's end)
    res = _parse(cuda_toolchain, "cuda_toolchain/lmdeploy3806_rtx5090_tensormap_sm120.log")
    assert _rows(res) == [("ptxas", "instruction_not_on_target", "sm_120", "tensormap.replace", 8, 2)]
    assert res.lines_used == 8


def test_ptxas_does_not_know_the_target():
    res = _parse(cuda_toolchain, "cuda_toolchain/gpustack4372_gb10_sm121a_title.txt")
    assert _rows(res) == [("ptxas", "target_unknown", "sm_121a", None, 1, 1)]


def test_nvcc_does_not_know_the_target():
    res = _parse(cuda_toolchain, "cuda_toolchain/featgraph12_nvcc_sm80_title.txt")
    assert _rows(res) == [("nvcc", "target_unknown", "sm_80", None, 1, 1)]
    assert res.facts[0].message == "Value 'sm_80' is not defined for option 'gpu-architecture'"


def test_nvcc_unsupported_gpu_architecture_is_an_unknown_target():
    # gadgetron/gadgetron#6: a CMake build's make output, nvcc's "Unsupported gpu architecture" among its lines
    res = _parse(cuda_toolchain, "cuda_toolchain/gadgetron6_nvcc_unsupported_compute35.log")
    assert _rows(res) == [("nvcc", "target_unknown", "compute_35", None, 1, 8)]
    assert res.facts[0].message == "Unsupported gpu architecture 'compute_35'"
    # rodschulz/BPA#6 (an architecture newer toolkits dropped)
    res = _parse(cuda_toolchain, text="nvcc fatal   : Unsupported gpu architecture 'compute_20'\n")
    assert _rows(res) == [("nvcc", "target_unknown", "compute_20", None, 1, 1)]


def test_another_error_form_is_read_as_other():
    # EnzymeAD/Enzyme.jl#428 (a Julia CUDA kernel on sm_86): an error of no architecture form, read and kept
    # as "other" (no rule explains it: an unexplained error); the ptxas info line after it is not read
    text = ("ERROR: LoadError: Failed to compile PTX code (ptxas exited with code 255)\n"
            "ptxas error   : Entry function '_Z23julia_grad_kernel__579813CuDeviceArrayI7Float32Li2ELi1EES_IS0_Li2ELi1EES_I6SArrayI5TupleILi3EES0_Li1ELi3EELi1ELi1EES_IS1_IS2_ILi3EES0_Li1ELi3EELi1ELi1EES_I4AtomIS0_S0_S0_S0_ELi1ELi1EES_IS3_IS0_S0_S0_S0_ELi1ELi1EES_IS2_I5Int64S4_ELi1ELi1EE3ValILi2000EE' uses too much shared data (0xfa00 bytes, 0xc000 max)\n"
            "ptxas info    : 292 bytes gmem\n")
    res = _parse(cuda_toolchain, text=text)
    assert _rows(res) == [("ptxas", "other", None, None, 1, 2)]
    assert res.facts[0].message.endswith("uses too much shared data (0xfa00 bytes, 0xc000 max)")


@pytest.mark.parametrize("line", [
    "ptxas info    : Used 32 registers, 360 bytes cmem[0]",
    "[ 75%] Building CUDA object src/turbomind/kernels/gemm/CMakeFiles/gemm2.dir/kernel/sm90_q64n32.cu.o",
    "2022-12-08 11:37:51.345475: W asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9",
    "no kernel image is available for execution on the device",
])
def test_near_misses(line):
    assert not cuda_toolchain.detect(line)
