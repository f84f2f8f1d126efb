"""xla_autotuner: XLA's autotuner's candidate whose output differs from the reference (real lines: openxla#23934, jax#24036)."""
import pytest

from stethoscope.facts.parsers import xla_autotuner

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_differences_then_the_candidates_line_are_one_fact():
    res = _parse(xla_autotuner, "xla_autotuner/openxla23934_a100_gemm_fusion_mismatch.log")
    assert [(f.candidates, f.differences, f.autotuner, f.evidence.line) for f in res.facts] == [(1, 10, "gemm_fusion_autotuner", 1)]
    assert res.lines_used == 11


def test_the_candidates_line_first():
    facts = _parse(xla_autotuner, "xla_autotuner/jax24036_gemm_fusion_mismatch_first.log").facts
    assert [(f.candidates, f.differences, f.autotuner, f.evidence.line) for f in facts] == [(1, 10, "gemm_fusion_autotuner", 1)]


def test_the_2023_form():
    # the comparator's 'vs' form, up to 2023 (CONSTRUCTED as its lines printed it: '... Difference at 45: 346.347 vs 387.222')
    line = "2023-05-29 13:29:52.106943: E external/xla/xla/service/gpu/buffer_comparator.cc:731] Difference at 45: 346.347 vs 387.222\n"
    assert [(f.candidates, f.differences) for f in _parse(xla_autotuner, text=line).facts] == [(0, 1)]


@pytest.mark.parametrize("line", [
    "assert buffers equal: Difference at 3: 1 vs 2",  # another program's comparison
    "# Workaround \" Results do not match the reference\" FIXME",  # a comment naming the message without its sentence
])
def test_near_misses(line):
    assert not xla_autotuner.detect(line) or not _parse(xla_autotuner, text=line + "\n").facts
