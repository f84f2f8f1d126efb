"""Faiss's GPU allocation failures (faiss-gpu: vector search and k-means on the GPU, under Milvus, RAG toolkits,
clustering code), in any program's output, usually inside a Python ``RuntimeError: Error in ... faiss::gpu::...``.

Faiss throws when ``cudaMalloc`` fails and puts CUDA's error number and text in the message, in three wordings
(sample lines, real, from the threads named):

1.7.0 (faiss/gpu/StandardGpuResources.cpp allocMemory, as the line names it: the size, the device, CUDA's number and
text, then ``Outstanding allocations:`` and the list on the lines after), facebookresearch/faiss#2020 (k-means with
gpu=True)::

    RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at /home/conda/feedstock_root/build_artifacts/faiss-split_1618468126454/work/faiss/gpu/StandardGpuResources.cpp:443: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc 536870912 bytes on device 1 (error 2 out of memory
    Outstanding allocations:

1.7.1 and later (``"StandardGpuResources: alloc fail " << adjReq.toString() << " (cudaMalloc error " <<
cudaGetErrorString(err) << " [" << (int)err << "])\\n"``, the request as ``type <T> dev <N> space <S> stream <p> size
<n> bytes``), RUCAIBox/NCL#22 (faiss k-means)::

    RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at /__w/faiss-wheels/faiss-wheels/faiss/faiss/gpu/StandardGpuResources.cpp:452: Error: 'err == cudaSuccess' failed: StandardGpuResources: alloc fail type TemporaryMemoryBuffer dev 0 space Device stream 0x55c6522666a0 size 1610612736 bytes (cudaMalloc error out of memory [2])

before 1.6 (faiss/gpu/utils/MemorySpace.cpp allocMemorySpaceV, no device), facebookresearch/deepcluster#38::

    RuntimeError: Error in void faiss::gpu::allocMemorySpaceV(faiss::gpu::MemorySpace, void**, size_t) at gpu/utils/MemorySpace.cpp:27: Error: 'err == cudaSuccess' failed: failed to cudaMalloc 1610612736 bytes (error 2 out of memory)

Facts: ``cuda_error`` (form ``faiss``) for each such line whose number and text name the same entry of the CUDA
catalogue (2 ``out of memory``: cudaErrorMemoryAllocation), with the device where printed and ``api_call`` the
allocation call; the CUDA error catalogue judges it. A number and a text that disagree are not read.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CudaError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "faiss_gpu_alloc"

# Failed to cudaMalloc 536870912 bytes on device 1 (error 2 out of memory                (facebookresearch/faiss#2020)
# failed to cudaMalloc 1610612736 bytes (error 2 out of memory)                           (facebookresearch/deepcluster#38)
OLD = re.compile(r"\b[Ff]ailed to (?P<call>cudaMalloc(?:Managed)?) (?P<bytes>\d{1,20}) bytes(?: on device (?P<dev>\d{1,3}))?"
                 r" \(error (?P<code>\d{1,4}) (?P<text>[^()\n]{1,80})")
# StandardGpuResources: alloc fail type TemporaryMemoryBuffer dev 0 space Device stream 0x55c6522666a0 size 1610612736 bytes (cudaMalloc error out of memory [2])
#                                                                                         (RUCAIBox/NCL#22)
NEW = re.compile(r"StandardGpuResources: alloc fail type \w{1,40} dev (?P<dev>\d{1,3}) space \w{1,20} stream"
                 r" (?:0x)?[0-9a-fA-F]{1,16} size (?P<bytes>\d{1,20}) bytes(?: failed)? \((?P<call>cudaMalloc(?:Managed)?)"
                 r" error (?P<text>[^\[\]\n]{1,80}) \[(?P<code>\d{1,4})\]\)")
_MARKERS = ("ailed to cudaMalloc", "StandardGpuResources: alloc fail ")


def _agree(m: re.Match) -> catalogue.Entry | None:
    """The runtime entry of the printed number when the printed text is its text (case and blanks aside)."""
    e = catalogue.by_code(int(m["code"]), "runtime")
    if e is None or m["text"].strip().lower() != e.text.lower():
        return None
    return e


def _read(line: str):
    for pattern in (NEW, OLD):
        for m in pattern.finditer(line):
            if (e := _agree(m)) is not None:
                yield m, e


def detect(text: str) -> bool:
    return any(True for _n, line in iter_lines_with(_MARKERS, Artefact(path="", text=text)) for _ in _read(line))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    used: set[int] = set()
    for n, line in iter_lines_with(_MARKERS, artefact):
        for m, e in _read(line):
            used.add(n)
            fb.add(CudaError, n, error_name=e.name, catalogue_name=e.name, runtime_name=e.name, code=e.code,
                   printed_code=int(m["code"]), message=m.group(0)[:300], form="faiss", api_call=m["call"],
                   device=int(m["dev"]) if m["dev"] else None)
            if n < len(artefact.lines) and artefact.lines[n].lstrip().startswith("Outstanding allocations:"):
                used.add(n + 1)
            break  # one allocation a line
    result.lines_used = len(used)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"[Ff]ailed to cudaMalloc(?:Managed)? \d+ bytes(?: on device \d+)? \(error \d+ ",
              r"StandardGpuResources: alloc fail type \w+ dev \d+ space \w+ stream [^\n]* bytes(?: failed)? \(cudaMalloc")
