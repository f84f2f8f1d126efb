"""XLA's GPU autotuner reporting a candidate kernel whose output differs from the reference, in a JAX or
TensorFlow program's output.

While it compiles, XLA's autotuner (gemm_fusion_autotuner.cc, gemm_algorithm_picker.cc, conv_algorithm_picker.cc)
runs each candidate configuration of a GEMM or convolution on the GPU and compares its output with a reference
run's (BufferComparator, ``--xla_gpu_autotune_gemm_rtol``); a candidate whose output differs is logged and
disqualified, and the autotuner picks among the others::

    const char kMessage[] = "Results do not match the reference. This is likely a bug/unexpected loss of precision.";
    LOG(ERROR) << kMessage;  ...  res.mutable_failure()->set_kind(AutotuneResult::DISQUALIFIED);

BufferComparator logs the first elements that differ, ``Difference at <index>: <value>, expected <value>`` (up
to 2023: ``Difference at <index>: <value> vs <value>``). A candidate's numerics (a Triton tiling, a ROCm kernel),
not the GPU's: the maintainers read it as a candidate excluded from the pool (jax-ml/jax#26846); only wrong
final results would say more. Sample content (real lines, openxla/xla#23934, jax-ml/jax#24036)::

    E0317 05:01:29.217242  712317 buffer_comparator.cc:156] Difference at 6: 8.18504, expected 7.16615
    2025-03-17 05:01:29.217365: E external/xla/xla/service/gpu/autotuning/gemm_fusion_autotuner.cc:1138] Results do not match the reference. This is likely a bug/unexpected loss of precision.
    2024-09-30 16:07:48.549145: E external/xla/xla/service/gpu/gemm_fusion_autotuner.cc:958] Results do not match the reference. This is likely a bug/unexpected loss of precision.

Facts: one ``xla_autotuner_mismatch`` per file (its first line; ``candidates``: the 'Results do not match' lines,
``differences``: the comparator's lines, ``autotuner``: the source file that said it). Text without these lines
yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import XlaAutotunerMismatch  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "xla_autotuner"

# 2025-03-17 05:01:29.217365: E external/xla/xla/service/gpu/autotuning/gemm_fusion_autotuner.cc:1138] Results do not match the reference. This is likely a bug/unexpected loss of precision.
# E0930 16:07:48.549549  167714 buffer_comparator.cc:157] Difference at 32: 400, expected 772
# 2023-05-29 13:29:52.106943: E external/xla/xla/service/gpu/buffer_comparator.cc:731] Difference at 45: 346.347 vs 387.222   (the 2023 form)
_LINE = re.compile(r"(?:(?P<src>\w{1,80}(?:autotuner|picker)\w{0,40})\.cc:\d{1,6}\] )?(?P<mismatch>Results do not match the reference\. "
                   r"This is likely a bug/unexpected loss of precision)"
                   r"|buffer_comparator\.cc:\d{1,6}\] (?P<diff>Difference at \d{1,12}: \S{1,40}(?:, expected | vs )\S{1,40})")


def detect(text: str) -> bool:
    # asked only where SIGNATURES matched (facts/classify.py)
    return "Results do not match the reference" in text or "buffer_comparator.cc:" in text


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    first: int | None = None
    candidates = differences = 0
    autotuner: str | None = None
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        result.lines_used += 1
        first = first or n
        if m["mismatch"]:
            candidates += 1
            autotuner = autotuner or m["src"]
        else:
            differences += 1
    if first is not None:
        fb.add(XlaAutotunerMismatch, first, candidates=candidates, differences=differences, autotuner=autotuner)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Results do not match the reference\. This is likely a bug|buffer_comparator\.cc:\d{1,6}\] Difference at \d",)
