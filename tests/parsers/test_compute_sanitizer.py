"""compute_sanitizer: compute-sanitizer / cuda-memcheck reports (real lines: the threads in the fixtures' README)."""
import pytest

from stethoscope.facts.parsers import compute_sanitizer
from stethoscope.facts.parsers.base import Artefact

from parse_helper import FIX
from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


@pytest.mark.parametrize("rel, error, kernel, address", [
    ("pytorch104766_h100_illegal_instruction.txt", "Illegal instruction",
     "void attention_kernel_backward_batched<AttentionBackwardKernel<cutlass::arch::Sm80, float, (bool)1, (int)64>>(T1::Params)", None),
    ("hecbench132_invalid_global_read.txt", "Invalid __global__ read of size 4 bytes",
     "compress(const unsigned int *, const unsigned int *, uint2 *, int)", "out of bounds"),
    ("quicksilver48_cuda_memcheck.txt", "Invalid __global__ read of size 8",
     "CycleTrackingGuts(MonteCarlo*, int, ParticleVault*, ParticleVault*)", "out of bounds"),
])
def test_kernel_reports(rel, error, kernel, address):
    facts = _parse(compute_sanitizer, f"compute_sanitizer/{rel}").facts
    assert [(f.form, f.error, f.kernel, f.address, f.reports) for f in facts] == [("kernel", error, kernel, address, 1)]


def test_source_line_and_report_count():
    text = ("========= Invalid __global__ read of size 4 bytes\n"
            "=========     at T1 wp::load<wp::vec_t<(unsigned int)3, float>>(T1 *)+0x1dd40 in array.h:908\n"
            "=========     by thread (0,0,0) in block (0,0,0)\n"
            "=========     Access at 0x327f6c26d4 is out of bounds\n"
            "========= Invalid __global__ read of size 4 bytes\n"
            "=========     at T1 wp::load<wp::vec_t<(unsigned int)3, float>>(T1 *)+0x1dd40 in array.h:908\n")  # mujoco_warp#664
    (f,) = _parse(compute_sanitizer, text=text).facts
    assert (f.kernel, f.source, f.address, f.reports) == ("T1 wp::load<wp::vec_t<(unsigned int)3, float>>(T1 *)", "array.h:908", "out of bounds", 2)


def test_program_hit_alone_is_the_api_form():
    (f,) = _parse(compute_sanitizer, "compute_sanitizer/triton10486_program_hit.txt").facts
    assert (f.form, f.error, f.kernel) == ("api", "Program hit cudaErrorIllegalAddress (error 700)", None)


@pytest.mark.parametrize("line", [
    "========= ERROR SUMMARY: 0 errors",
    "========= COMPUTE-SANITIZER",
    "=====================  Illegal instruction in the banner",
    "Invalid __global__ read of size 4 bytes",  # without the tool's prefix
])
def test_near_misses(line):
    assert not compute_sanitizer.detect(line)


def test_head_behind_other_output_on_its_line():
    # the test runner's line and the tool's head on one line (numba/numba#7284): the prefixed "at" line under it says
    # it is the tool's report
    (f,) = _parse(compute_sanitizer, "compute_sanitizer/numba7284_head_after_test_output.txt").facts
    assert (f.evidence.line, f.form, f.error, f.address, f.reports) == (2, "kernel", "Invalid __global__ read of size 8 bytes",
                                                                        "out of bounds", 1)
    assert f.kernel.startswith("cudapy::numba::cuda::tests::cudapy::")


def test_loose_head_needs_the_tools_at_line_under_it():
    # the same paste cut after its head line: the head alone is no report
    text = "".join((FIX / "compute_sanitizer" / "numba7284_head_after_test_output.txt").read_text().splitlines(keepends=True)[:2])
    assert not compute_sanitizer.detect(text)
    assert compute_sanitizer.parse(Artefact(path="t.txt", text=text, node="n1")).facts == []
