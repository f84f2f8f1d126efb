"""XLA's warning that the ptxas it found cannot compile for this GPU, in a JAX or TensorFlow
program's output (the PTX compiler of a CUDA toolkit older than the GPU generation).

XLA compiles its kernels from PTX with the toolkit's ``ptxas``; one that does not know the GPU's
compute capability makes XLA fall back to the driver's JIT compiler, and kernels it could not
build then fail to load (``CUDA_ERROR_NOT_FOUND: named symbol not found``, ``Could not find the
corresponding function``, ``CUDA_ERROR_INVALID_IMAGE``). Sample content (real lines)::

    2022-12-08 11:37:51.345475: W external/org_tensorflow/tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9    (jax-ml/jax#13570)
    2022-12-08 11:37:51.345499: W external/org_tensorflow/tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:234] Used ptxas at ptxas
    2023-09-26 23:49:25.317533: W external/xla/xla/stream_executor/gpu/redzone_allocator.cc:322] UNIMPLEMENTED: ptxas ptxas too old. Falling back to the driver to compile.    (openxla/xla#5932)

(xla/stream_executor/cuda/subprocess_compilation.cc, formerly gpu/asm_compiler.cc: LOG(WARNING) <<
"Falling back to the CUDA driver for PTX compilation; ptxas does not support CC " << cc_major <<
"." << cc_minor; absl::UnimplementedError(absl::StrFormat("%s ptxas too old. Falling back to the
driver to compile.", ptxas_path)).)

Facts: ``xla_ptxas_unsupported`` once per file (the first such line; ``cc`` and ``ptxas`` from the
lines that name them). Text without these lines yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import XlaPtxasUnsupported  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "xla_ptxas"

_LINE = re.compile(r"ptxas does not support CC (?P<cc>\d{1,2}\.\d{1,2})|(?P<path>\S{0,255}ptxas) ptxas too old\. Falling back to the driver"
                   r"|Used ptxas at (?P<used>\S{1,255})")


def detect(head: str) -> bool:
    return "ptxas" in head and ("does not support CC" in head or "ptxas too old" in head)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    first: int | None = None
    cc = ptxas = None
    for n, line in iter_lines(_LINE, artefact):
        for m in _LINE.finditer(line):
            result.lines_used += 1
            if m["used"]:
                ptxas = ptxas or m["used"]
                continue
            first = first or n
            cc = cc or m["cc"]
            ptxas = ptxas or m["path"]
    if first is not None:
        fb.add(XlaPtxasUnsupported, first, cc=cc, ptxas=ptxas)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"ptxas does not support CC \d|ptxas too old\. Falling back to the driver",)
