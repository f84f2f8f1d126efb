"""compute-sanitizer's report (cuda-memcheck's before CUDA 12), pasted beside a crash: which
kernel made an invalid memory access or ran an illegal instruction, and where. Every line of the
tool carries its ``=========`` prefix (a paste may lose it on a head line, see below). Sample content (real lines, the threads named)::

    ========= COMPUTE-SANITIZER
    ========= Invalid __global__ read of size 4 bytes                              (ORNL/HeCBench#132)
    =========     at compress(const unsigned int *, const unsigned int *, uint2 *, int)+0xb0
    =========     by thread (1,0,0) in block (5,0,0)
    =========     Access at 0x7f698ba00144 is out of bounds
    ========= Illegal instruction                                                  (pytorch/pytorch#104766)
    =========     at 0x1b50 in void attention_kernel_backward_batched<AttentionBackwardKernel<cutlass::arch::Sm80, float, (bool)1, (int)64>>(T1::Params)
    ========= Invalid __global__ read of size 8                                    (llnl/Quicksilver#48, cuda-memcheck)
    =========     at 0x000002e8 in CycleTrackingGuts(MonteCarlo*, int, ParticleVault*, ParticleVault*)
    =========     Address 0x7f153e0002e8 is out of bounds
    ========= Program hit cudaErrorIllegalAddress (error 700) due to "an illegal memory access was encountered" on CUDA API call to cudaDeviceSynchronize.    (triton-lang/triton#10486)

A report's head may stand elsewhere in its line, or without the prefix, where the paste cut it off or other output
was written before it (stdout and the tool's stderr interleaved); the prefixed ``at`` line under it says it is the
tool's (numba/numba#7284)::

    test_kernel_arg (numba.cuda.tests.cudapy.test_cuda_array_interface.TestCudaArrayInterface) ... ========= Invalid __global__ read of size 8 bytes
    =========     at 0xb0 in cudapy::numba::cuda::tests::cudapy::test_cuda_array_interface::TestCudaArrayInterface::test_kernel_arg::$3clocals$3e::mutate$241(Array<long long, (int)1, C, mutable, aligned>, long long)

A kernel report says the program's (or a library's) kernel did it: the tool checks each access
of the kernel against the program's allocations, so a report is a bug of that kernel or of what
its caller passed, not of the GPU. ``Program hit ...`` alone is the error an API call returned
after the fault (the kernel report, when the tool made one, is above it).

Facts: ``compute_sanitizer_error`` once per file: the first kernel report (``form`` kernel: its
head, the ``at`` line's function and file:line, the address's reason, how many reports), else the
first ``Program hit`` line (``form`` api). Text without these reports yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import ComputeSanitizerError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "compute_sanitizer"

# the head of one report (the tool's memcheck, racecheck-free forms; cuda-memcheck's "of size 8" without "bytes")
_KERNEL_ERR = (r"Invalid __(?:global|shared|local|generic)__ (?:read|write|atomic)[^\n]{0,80}"
               r"|Illegal instruction|Illegal address|Invalid PC|Hardware Exception|Lane User Stack Overflow"
               r"|Misaligned (?:PC|address|Shared or Local Address)[^\n]{0,40}|Out-of-range Shared or Local Address"
               r"|Warp (?:Illegal Instruction|Illegal Address|Misaligned Address|Out-of-range Address|Invalid PC|Hardware Stack Overflow)"
               r"|Uninitialized __global__ memory read of size \d+ bytes")
_HEAD = re.compile(
    r"^========= (?P<err>" + _KERNEL_ERR +
    r"|(?P<api>Program hit \w+ \(error \d+\)) due to \"[^\"\n]{0,200}\")", re.M)
# a kernel report's head not at the start of its line, the tool's prefix cut off or behind other output (the test
# runner's line and the tool's stderr interleaved), its "at" line right under it carrying the prefix:
# test_kernel_arg (numba.cuda.tests.cudapy.test_cuda_array_interface.TestCudaArrayInterface) ... ========= Invalid __global__ read of size 8 bytes
# =========     at 0xb0 in cudapy::numba::cuda::tests::cudapy::test_cuda_array_interface::TestCudaArrayInterface::test_kernel_arg::$3clocals$3e::mutate$241(Array<long long, (int)1, C, mutable, aligned>, long long)
#   (numba/numba#7284); the head text alone (no "at" line under it: prose naming the error, a title) is not read
_HEAD_LOOSE = re.compile(r"(?:(?<=[ \t])|^)(?:========= )?(?P<err>" + _KERNEL_ERR + r")[ \t]*\r?$", re.M)
_LOOSE_REACH = 2  # the "at" line is the next line (a wrapped head: the one after)
# =========     at 0x1b50 in void attention_kernel_backward_batched<...>(T1::Params)
# =========     at T1 wp::load<wp::vec_t<(unsigned int)3, float>>(T1 *)+0x1dd40 in array.h:908     (google-deepmind/mujoco_warp#664)
_AT = re.compile(r"^=========\s+at (?:0x[0-9a-fA-F]+ in )?(?P<fn>[^\n]*?\S(?:[^\S\n]+(?=\+0x[0-9a-fA-F]+(?: in [^\s]+:\d+)?\s*$| in [^\s]+:\d+\s*$))??)(?:\+0x[0-9a-fA-F]+)?(?: in (?P<src>[^\s]+:\d+))?\s*$")
# =========     Access at 0x7f698ba00144 is out of bounds / Address 0xffe6a8 is misaligned
_ADDR = re.compile(r"^=========\s+(?:Address|Access (?:at|to)) 0x[0-9a-fA-F]+ is (?P<why>out of bounds|misaligned)")
_FOLLOW = 4  # the "at" and address lines come right under the head


def detect(head: str) -> bool:
    return "=========" in head and (_HEAD.search(head) is not None or any(_loose(head.split("\n"), n) for n in _loose_lines(head)))


def _loose_lines(text: str) -> list[int]:
    """1-based lines whose text holds a kernel report's head anywhere (_loose keeps those _HEAD does not take)."""
    return sorted({text.count("\n", 0, m.start()) + 1 for m in _HEAD_LOOSE.finditer(text)})


def _loose(lines: list[str], n: int) -> re.Match[str] | None:
    """Line ``n``'s loose head, where a prefixed "at" line of the tool follows it within _LOOSE_REACH lines."""
    m = _HEAD_LOOSE.search(lines[n - 1]) if n <= len(lines) else None
    if m is None or _HEAD.match(lines[n - 1]):
        return None
    return m if any(_AT.match(lines[k]) for k in range(n, min(n + _LOOSE_REACH, len(lines)))) else None


def _heads(artefact: Artefact):
    """(line, text, match) of each report head, in line order: _HEAD's at a line's start, and the loose ones."""
    found = [(n, line, m) for n, line in iter_lines(_HEAD, artefact) if (m := _HEAD.match(line)) is not None]
    lines = artefact.lines
    found += [(n, lines[n - 1], m) for n in _loose_lines(artefact.text) if (m := _loose(lines, n)) is not None]
    return sorted(found, key=lambda t: t[0])


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    kernel: dict | None = None
    api: dict | None = None
    reports = 0
    for n, line, m in _heads(artefact):
        result.lines_used += 1
        if m.groupdict().get("api"):
            api = api or {"line": n, "error": m["api"]}
            continue
        reports += 1
        if kernel is not None:
            continue
        kernel = {"line": n, "error": m["err"].strip()}
        for k in range(n, min(n + _FOLLOW, len(lines))):  # lines[k] is line k + 1
            if (a := _AT.match(lines[k])) and "kernel" not in kernel:
                kernel["kernel"], kernel["source"] = a["fn"].strip(), a["src"]
                result.lines_used += 1
            elif (d := _ADDR.match(lines[k])) and "address" not in kernel:
                kernel["address"] = d["why"]
                result.lines_used += 1
    if kernel is not None:
        fb.add(ComputeSanitizerError, kernel["line"], form="kernel", error=kernel["error"], kernel=kernel.get("kernel"),
               source=kernel.get("source"), address=kernel.get("address"), reports=reports)
    elif api is not None:
        fb.add(ComputeSanitizerError, api["line"], form="api", error=api["error"])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)^========= (?:Invalid __|Illegal |Misaligned |Warp |Out-of-range |Uninitialized __global__|Invalid PC|Hardware Exception|Lane User|Program hit )",
              r"(?m)^=========[ \t]+at ")  # a report whose head is not at its line's start (_HEAD_LOOSE)
