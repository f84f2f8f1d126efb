"""A container started without the host's driver (an NVIDIA image's entrypoint: 'The NVIDIA Driver was not detected',
rule container_driver_not_detected): the CUDA errors inside it (the stub or compat libcuda's 35 'CUDA driver version is
insufficient') are that cause's cascade, not an old driver; alone, the CUDA error keeps its own reading."""
from __future__ import annotations

from pathlib import Path

import small_bundle

# a Triton container's log as a public repository stores it (code index file 31098906817), verbatim: the entrypoint's
# warning, then Triton's pinned memory pool refused with cudaGetErrorString(35)
BANNER = ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
          "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
          "   https://docs.nvidia.com/datacenter/cloud-native/ .\n\n")
PINNED = ("W1120 06:52:12.808096 1 pinned_memory_manager.cc:237] Unable to allocate pinned system memory, pinned memory "
          "pool will not be available: CUDA driver version is insufficient for CUDA runtime version\n"
          "I1120 06:52:12.808154 1 cuda_memory_manager.cc:117] CUDA memory pool disabled\n"
          "E1120 06:52:12.808219 1 server.cc:243] CudaDriverHelper has not been initialized.\n")


def _report(tmp_path: Path, text: str, ruleset):
    return small_bundle.diagnose(tmp_path, {"n1/triton.log": text}, ruleset)


def test_the_missing_driver_explains_the_cuda_error(tmp_path, ruleset):
    rep = _report(tmp_path, BANNER + PINNED, ruleset)
    first, *rest = rep.findings
    assert (first.rule, first.cause, first.role) == ("container_driver_not_detected", "container_gpu_driver_not_bound", "root_cause")
    cuda = [f for f in rest if f.rule == "cuda_error_catalogue"]
    assert cuda and cuda[0].role == "cascade" and cuda[0].explained_by == [first.rank]
    assert rep.verdict == "faulty"


def test_the_cuda_error_alone_keeps_its_reading(tmp_path, ruleset):
    rep = _report(tmp_path, PINNED, ruleset)
    assert (rep.findings[0].rule, rep.findings[0].cause) == ("cuda_error_catalogue", "cuda_driver_too_old")
    assert rep.verdict == "faulty"
