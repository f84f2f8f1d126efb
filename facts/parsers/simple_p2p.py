"""CUDA's simpleP2P (NVIDIA/cuda-samples, Samples/0_Introduction/simpleP2P): the acceptance check
that two GPUs can read each other's memory through peer mappings and get the right values.

Sample content (real, aikitoria/open-gpu-kernel-modules#8, two RTX 4090, a patched P2P driver;
tinygrad/open-gpu-kernel-modules#22 for the peer-access table)::

    > Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : Yes
    Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...
    Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...
    Copy data back to host from GPU0 and verify results...
    Verification error @ element 0: val = nan, ref = 0.000000
    Verification error @ element 1: val = nan, ref = 4.000000

The lines are simpleP2P.cu's printf formats (the same since the CUDA 4 SDK, and in its HIP and
SYCL ports): ``[%s] - Starting...``, ``> Peer access from %s (GPU%d) -> %s (GPU%d) : %s`` (Yes/No,
cudaDeviceCanAccessPeer), ``Run kernel on GPU%d, taking source data from GPU%d and writing to
GPU%d...``, ``Verification error @ element %i: val = %f, ref = %f`` (at most 12, then ``Test
failed!``) and ``Test passed``. Each kernel reads its input from the other GPU's buffer through the
peer mapping, so a wrong value is data that came back wrong over the peer path.

Facts: one ``gpu_copy_verification_failed`` (tool simpleP2P, peer True, the kernels' GPU pair,
the count of wrong values and the first) per run with a verification error. The peer-access
table is read as context and makes no fact: ``No`` is a property of the platform (GeForce, a PCIe
topology without P2P), not a failure, and ``Peer to Peer access is not available ... waiving
test`` is simpleP2P's own waiver.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.bench import GpuCopyVerificationFailed
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "simple_p2p"

# [./simpleP2P] - Starting...
_START = re.compile(r"^\[[^\]\n]{0,300}simpleP2P\] - Starting\.\.\.\s*$")
# > Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : Yes
_PEER = re.compile(r"^> Peer access from [^\n]{0,200}\(GPU\d{1,3}\) -> [^\n]{0,200}\(GPU\d{1,3}\) : (?:Yes|No)\s*$")
# Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...
_KERNEL = re.compile(r"^Run kernel on GPU(?P<on>\d{1,3}), taking source data from GPU(?P<src>\d{1,3}) and writing to GPU\d{1,3}\.\.\.\s*$")
# Verification error @ element 0: val = nan, ref = 0.000000     (and an excerpt cut after "element")
_VERIFY = re.compile(r"^Verification error @ element(?: (?P<first>\d{1,12}: val = \S{1,40}, ref = \S{1,40}))?")
# Checking GPU(s) for support of peer to peer memory access...   /   Test failed!   /   Test passed
_CONTEXT = re.compile(r"^(?:Checking GPU\(s\) for support of peer to peer memory access\.\.\.|Checking for multiple GPUs\.\.\."
                      r"|Test failed!|Test passed|Copy data back to host from GPU\d{1,3} and verify results\.\.\.)\s*$")
_DETECT = re.compile(r"^\[[^\]\n]{0,300}simpleP2P\] - Starting|^> Peer access from [^\n]{0,200}\(GPU\d{1,3}\) -> "
                     r"|^Verification error @ element \d", re.M)


def detect(head: str) -> bool:
    return ("simpleP2P" in head or "Peer access from" in head or "Verification error @" in head) and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    gpus: list[str] = []
    first_line = count = 0
    first = None
    for n, line in enumerate(artefact.lines, 1):
        if m := _VERIFY.match(line):
            count += 1
            if not first_line:
                first_line = n
            if first is None and m["first"]:
                first = f"element {m['first']}"
            result.lines_used += 1
        elif m := _KERNEL.match(line):
            for g in (f"GPU{m['src']}", f"GPU{m['on']}"):
                if g not in gpus:
                    gpus.append(g)
            result.lines_used += 1
        elif _START.match(line) or _PEER.match(line) or _CONTEXT.match(line):
            result.lines_used += 1
    if count:
        fb.add(GpuCopyVerificationFailed, first_line, tool="simpleP2P", test="simpleP2P", peer=True,
               gpus=", ".join(gpus) or None, errors=count, first=first or "element (cut)")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
