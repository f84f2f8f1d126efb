"""hpl: HPL's result rows, residual checks and closing counts."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import hpl
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/hpl"


def read(text: str):
    return hpl.parse(Artefact(path="t.log", text=text, node="node1"))


def test_eessi_x60_nan_failed_with_its_row_and_count():
    text = (FIX / "eessi_x60_openblas0330_nan_failed.txt").read_text()
    assert hpl.detect(text)
    r = read(text)
    c, s = r.facts
    assert (c.kind, c.evidence.line, c.passed, c.residual, c.residual_text, c.variant, c.n, c.nb, c.p, c.q, c.gflops) == (
        "hpl_residual_check", 4, False, None, "nan", "WR11C2R4", 8000, 256, 1, 8, 8.5251)
    # the count is cited at its failed line
    assert (s.kind, s.evidence.line, s.passed, s.failed, s.skipped, s.unchecked, s.uncompared) == (
        "hpl_tests_summary", 7, 0, 1, None, None, 0)
    assert r.lines_used == 7  # the header and the dashes too


def test_eessi_x60_fixed_passed():
    c, s = read((FIX / "eessi_x60_openblas_fixed_passed.txt").read_text()).facts
    assert (c.passed, c.residual, c.gflops, s.passed) == (True, pytest.approx(4.04326757e-03), 7.6719, 1)


# CONSTRUCTED from HPL_pdtest.c's and HPL_pddriver.c's formats (HPL 2.2's "%16.7f"; a threshold of 0 or less: no residual
# line, "tests completed without checking"; one skipped)
def test_fixed_point_residual_and_unchecked_count():
    text = ("||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=        0.0051173 ...... PASSED\n"
            "Finished      2 tests with the following results:\n"
            "              1 tests completed without checking,\n"
            "              1 tests skipped because of illegal input values.\n")
    c, s = read(text).facts
    assert (c.passed, c.residual, c.n) == (True, pytest.approx(0.0051173), None)
    assert (s.evidence.line, s.unchecked, s.skipped, s.uncompared) == (3, 1, 1, 2)


def test_two_runs_pasted_give_two_counts():
    text = ("              1 tests completed and passed residual checks,\n"
            "              0 tests completed and failed residual checks,\n"
            "              0 tests completed and passed residual checks,\n"
            "              1 tests completed and failed residual checks,\n")
    a, b = read(text).facts
    assert (a.passed, a.failed, b.passed, b.failed, b.evidence.line) == (1, 0, 0, 1, 4)


@pytest.mark.parametrize("text", [
    "the residual check ...... FAILED\n",
    "||Ax-b||/(||x||*||A||*eps*N)        0.0123456\n",  # ScaLAPACK's drivers: another form, no verdict
    "5 tests were run\n",
])
def test_other_text_is_not_hpl(text):
    assert not hpl.detect(text)
    assert read(text).facts == []
