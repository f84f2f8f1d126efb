"""nvhpc_accel_error: the NVIDIA HPC SDK's (PGI's) accelerator runtime reporting a failed CUDA driver call."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvhpc_accel_error as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvhpc_accel_error"
# mccode-dev/McCode#942 (an OpenACC build of McStas' ISIS moderator, PGI 19.4), the comment's <pre> block
MCCODE_942 = ("Failing in Thread:1\ncall to cuStreamSynchronize returned error 700: Illegal address during kernel execution\n\n"
              "Failing in Thread:1\ncall to cuMemFreeHost returned error 700: Illegal address during kernel execution\n")
# alpaka-group/alpaka#1550 (the OpenACC back-end's CI test under ctest, nvhpc 21.9), ctest's "9: " before each line
ALPAKA_1550 = ("9: Failing in Thread:1\n"
               "9: call to cuStreamSynchronize returned error 700: Illegal address during kernel execution\n")


def _read(text):
    res = r.parse(Artefact(path="t.log", text=text, node="n1"))
    return [(f.code, f.catalogue_name, f.api_call, f.form) for f in res.facts], res.lines_used


def test_ops54_one_fault_the_call_after_it_the_same():
    text = (FIX / "ops54_mpi_openacc_illegal_address_700.log").read_text()
    assert r.detect(text)
    assert _read(text) == ([(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cuStreamSynchronize", "nvhpc_accel")], 2)


def test_e3sm2074_pinned_host_allocations():
    text = (FIX / "e3sm2074_pinned_host_alloc_205_201.log").read_text()
    assert r.detect(text)
    assert _read(text) == ([(205, "CUDA_ERROR_MAP_FAILED", "cuMemAllocHost", "nvhpc_accel"),
                            (201, "CUDA_ERROR_INVALID_CONTEXT", "cuMemHostAlloc", "nvhpc_accel")], 4)


@pytest.mark.parametrize("text, used", [(MCCODE_942, 4), (ALPAKA_1550, 2)])
def test_thread_lines_and_ctest_label(text, used):
    assert _read(text) == ([(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cuStreamSynchronize", "nvhpc_accel")], used)


@pytest.mark.parametrize("text", [
    # NVHPC 20+ names the CUresult: cuda_app reads it by that name (a README's real output, code index file 26503144066)
    "Accelerator Fatal Error: call to cuStreamSynchronize returned error 700 (CUDA_ERROR_ILLEGAL_ADDRESS): Illegal address "
    "during kernel execution\n",
    # CONSTRUCTED near misses: a number no CUresult has; a runtime (cuda*) call; the thread line alone
    "call to cuStreamSynchronize returned error 9999: Illegal address during kernel execution\n",
    "call to cudaStreamSynchronize returned error 700: an illegal memory access was encountered\n",
    "Failing in Thread:1\n",
])
def test_not_read(text):
    assert not r.detect(text)
    assert _read(text) == ([], 0)
