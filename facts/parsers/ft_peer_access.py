"""The start-up warning of the FasterTransformer allocator and its descendants (TurboMind of lmdeploy, TensorRT-LLM)
that a GPU cannot use CUDA peer access to another.

When it opens a GPU's memory pool to the other GPUs of the process, the allocator asks CUDA whether each pair may use
peer access and warns for every pair where it may not, then goes on without it (FasterTransformer
src/fastertransformer/utils/allocator.h, TurboMind src/turbomind/utils/allocator.h, TensorRT-LLM's runtime)::

    check_cuda_error(cudaDeviceCanAccessPeer(&peer_access_available, device_id, i));
    if (!peer_access_available) {
        FT_LOG_WARNING("Device " + std::to_string(device_id) + " peer access Device " + std::to_string(i)
                       + " is not available.");

(earlier FasterTransformer: "... is not avaiable. This may lead to peer access errors when doing tensor/pipeline
parallel!"). A property of the platform (GeForce cards, GPUs under a PCIe host bridge or in a VM without P2P), as
nvidia-smi topo -p2p's NS says: what assumed peer access (a custom all-reduce kernel, IPC memory) fails on its own.
Sample content (real lines: InternLM/lmdeploy#2076, two GPUs under TurboMind; NVIDIA/TensorRT-LLM#1034, a TP=4 engine
on a g5.48xlarge's A10Gs, harvest 1504)::

    [TM][WARNING] Device 0 peer access Device 1 is not available.
    [TensorRT-LLM][WARNING] Device 2 peer access Device 5 is not available.

Facts: one ``cuda_peer_access_unavailable`` per (device, peer) pair (its first line; ``lines``: how many lines say it,
``framework``: the logger's tag). Text without such a line yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import CudaPeerAccessUnavailable  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "ft_peer_access"

# [TM][WARNING] Device 0 peer access Device 1 is not available.     (InternLM/lmdeploy#2076)
# [TensorRT-LLM][WARNING] Device 2 peer access Device 5 is not available.   (NVIDIA/TensorRT-LLM#1034, harvest 1504)
# [FT][WARNING] Device 0 peer access Device 1 is not avaiable. This may lead to peer access errors when doing tensor/pipeline parallel!
#   (FasterTransformer's earlier wording, CONSTRUCTED from its allocator.h FT_LOG_WARNING)
_LINE = re.compile(r"(?:\[(?P<fw>FT|TM|TensorRT-LLM)\]\[WARNING\] )?\bDevice (?P<dev>\d{1,4}) peer access Device (?P<peer>\d{1,4}) "
                   r"is not ava(?:il|i)able\b")
#: the literal the lines hold, for the scan (iter_lines: a pattern that starts with a literal)
_FIND = re.compile(r" peer access Device \d")


def detect(text: str) -> bool:
    # asked only where SIGNATURES matched (facts/classify.py)
    return " peer access Device " in text and _LINE.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    pairs: dict[tuple[int, int], list] = {}  # (device, peer) -> [first line, lines, framework]
    for n, line in iter_lines(_FIND, artefact):
        if (m := _LINE.search(line)) is None:
            continue
        result.lines_used += 1
        got = pairs.setdefault((int(m["dev"]), int(m["peer"])), [n, 0, m["fw"] or "untagged"])
        got[1] += 1
    for (dev, peer), (n, count, fw) in pairs.items():
        fb.add(CudaPeerAccessUnavailable, n, device=dev, peer=peer, framework=fw, lines=count)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Device \d{1,4} peer access Device \d{1,4} is not ava",)
