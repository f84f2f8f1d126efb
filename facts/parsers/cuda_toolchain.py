"""The CUDA toolkit's compiler (``nvcc``) and assembler (``ptxas``) refusing to build for a GPU.

A CUDA build (an extension's ``pip install``, a CMake project, a JIT such as Triton's that runs
ptxas at start-up) prints ptxas's and nvcc's own diagnostics into its output. Two of them say the
build cannot produce code for the architecture it was asked for, which is what later shows as "no
kernel image is available for execution on the device" on that GPU: a kernel that uses an
instruction the target does not have (code written for another architecture's features, such as
one an ``sm_90a`` build has, compiled for ``sm_120``), and a toolkit that does not know the target
at all (older than the GPU, or newer than an architecture it dropped). Sample lines (real, from
the public threads named)::

    ptxas /tmp/tmpxft_00001af0_00000000-6_sm90_q64n32.ptx, line 10531; error   : Instruction 'tensormap.replace' not supported on .target 'sm_120'    (InternLM/lmdeploy#3806, RTX 5090)
    ptxas fatal : Value 'sm_121a' is not defined for option 'gpu-name'       (gpustack/gpustack#4372, its title: NVIDIA GB10)
    nvcc fatal : Value 'sm_80' is not defined for option 'gpu-architecture'  (amazon-science/FeatGraph#12, its title: CUDA 10.1)
    nvcc fatal   : Unsupported gpu architecture 'compute_35'    (gadgetron/gadgetron#6: a CMake build's -gencode list)
    nvcc fatal   : Unsupported gpu architecture 'compute_20'    (rodschulz/BPA#6: an architecture newer toolkits dropped)

Fact: ``cuda_toolchain_error`` per tool, reason (``instruction_not_on_target``, ``target_unknown``,
``other``), target and instruction (a build prints the same refusal for every kernel: one fact,
``lines`` counting them), citing the first line. An error or fatal line of either tool in another
form is an ``other`` fact (no rule explains it, so it stays an unexplained error). ptxas's
``info`` and ``warning`` lines (register use, spills) are not read. Output without such lines
yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.build import CudaToolchainError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "cuda_toolchain"

# ptxas /tmp/tmpxft_00001af0_00000000-6_sm90_q64n32.ptx, line 10531; error   : Instruction 'tensormap.replace' not supported on .target 'sm_120'
#   (InternLM/lmdeploy#3806: ptxas's "<file>, line N; error   : <message>" form)
# ptxas fatal : Value 'sm_121a' is not defined for option 'gpu-name'            (gpustack/gpustack#4372)
# nvcc fatal : Value 'sm_80' is not defined for option 'gpu-architecture'       (amazon-science/FeatGraph#12)
_LINE = re.compile(r"\b(?P<tool>ptxas|nvcc)(?: [^\s,;]{1,400}, line \d{1,9};)? (?P<level>error|fatal) {0,8}: ?(?P<msg>\S[^\n]{0,1000})")
# Instruction 'tensormap.replace' not supported on .target 'sm_120'
_INSTRUCTION = re.compile(r"^Instruction '(?P<instruction>[^'\n]{1,80})' not supported on \.target '(?P<target>sm_\d{2,3}[a-z]?)'")
# Value 'sm_121a' is not defined for option 'gpu-name'  |  Value 'sm_80' is not defined for option 'gpu-architecture'
# Unsupported gpu architecture 'compute_35'     (gadgetron/gadgetron#6: nvcc's words for an -arch / -gencode arch= it does not know)
#   (a value of no sm_/compute_<digits> form stays "other")
_UNKNOWN = re.compile(r"^(?:Value '(?P<target>(?:sm|compute)_\d{2,3}[a-z]?)' is not defined for option '(?:gpu-name|gpu-architecture)'"
                      r"|Unsupported gpu architecture '(?P<arch>(?:sm|compute)_\d{2,3}[a-z]?)')")


def detect(head: str) -> bool:
    return ("ptxas" in head or "nvcc" in head) and _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    seen: dict[tuple, list] = {}  # (tool, reason, target, instruction, message) -> [first line, message, count]
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        if m is None:
            continue
        msg = m["msg"].strip()
        target = instruction = None
        if (i := _INSTRUCTION.match(msg)) is not None:
            reason, target, instruction = "instruction_not_on_target", i["target"], i["instruction"]
        elif (u := _UNKNOWN.match(msg)) is not None:
            reason, target = "target_unknown", u["target"] or u["arch"]
        else:
            reason = "other"
        key = (m["tool"], reason, target, instruction, msg if reason == "other" else None)
        if key in seen:
            seen[key][2] += 1
        else:
            seen[key] = [n, msg, 1]
        result.lines_used += 1
    for (tool, reason, target, instruction, _m), (n, msg, count) in seen.items():
        b.add(CudaToolchainError, n, tool=tool, reason=reason, message=msg, target=target,
              instruction=instruction, lines=count)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_LINE,)
