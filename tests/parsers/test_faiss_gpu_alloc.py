"""faiss_gpu_alloc: Faiss's GPU allocation failures, CUDA's number and text in its message."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import faiss_gpu_alloc as f
from stethoscope.facts.parsers.base import Artefact

# facebookresearch/faiss#2020 (1.7.0, k-means with gpu=True on an RTX 3090), the description's lines
FAISS_2020 = ("`RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::"
              "AllocRequest&) at /home/conda/feedstock_root/build_artifacts/faiss-split_1618468126454/work/faiss/gpu/"
              "StandardGpuResources.cpp:443: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc 536870912 bytes on "
              "device 1 (error 2 out of memory\nOutstanding allocations:`\n")
# RUCAIBox/NCL#22 (1.7.1 and later: StandardGpuResources' own wording)
NCL_22 = ("RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::"
          "AllocRequest&) at /__w/faiss-wheels/faiss-wheels/faiss/faiss/gpu/StandardGpuResources.cpp:452: Error: 'err == "
          "cudaSuccess' failed: StandardGpuResources: alloc fail type TemporaryMemoryBuffer dev 0 space Device stream "
          "0x55c6522666a0 size 1610612736 bytes (cudaMalloc error out of memory [2])\n")
# facebookresearch/deepcluster#38 (before 1.6: MemorySpace.cpp, no device)
DEEPCLUSTER_38 = ("RuntimeError: Error in void faiss::gpu::allocMemorySpaceV(faiss::gpu::MemorySpace, void**, size_t) at "
                  "gpu/utils/MemorySpace.cpp:27: Error: 'err == cudaSuccess' failed: failed to cudaMalloc 1610612736 bytes "
                  "(error 2 out of memory)\n")


def _errors(text):
    r = f.parse(Artefact(path="t.log", text=text, node="n1"))
    return [(x.code, x.catalogue_name, x.device, x.api_call, x.form) for x in r.facts], r.lines_used


@pytest.mark.parametrize("text, device, used", [(FAISS_2020, 1, 2), (NCL_22, 0, 1), (DEEPCLUSTER_38, None, 1)])
def test_allocation_failures_all_wordings(text, device, used):
    assert f.detect(text)
    assert _errors(text) == ([(2, "cudaErrorMemoryAllocation", device, "cudaMalloc", "faiss")], used)


@pytest.mark.parametrize("text", [
    # CONSTRUCTED near misses: a number and a text that name different errors; no error number at all
    "failed to cudaMalloc 1610612736 bytes (error 2 invalid argument)\n",
    "StandardGpuResources: alloc ok type FlatData dev 0 space Device stream 0x55dfe2df9eb0 size 4096 bytes ptr 0x7f00\n",
])
def test_not_read_where_number_and_text_disagree_or_nothing_failed(text):
    assert not f.detect(text)
    assert _errors(text) == ([], 0)
