"""HPL (High-Performance Linpack: netlib/ICL HPL 2.x, and the builds that keep its output: NVIDIA's HPL in the HPC
Benchmarks container, AMD's rocHPL, HPL-AI): each solve's result row, its residual check, the closing count.

HPL solves a random dense system and checks its own answer: testing/ptest/HPL_pdtest.c prints the result row
(``W%c%1d%c%c%1d%c%1d%12d %5d %5d %5d %18.2f    %19.4e``: variant, N, NB, P, Q, time, Gflops), then the scaled residual
against HPL.dat's threshold (``"%s%16.7f%s%s", "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= ", resid1, " ......
", resid1 < thrsh ? "PASSED" : "FAILED"``; HPL 2.3 prints ``%16.8e``), and HPL_pddriver.c the count of its tests.
Sample content (real: EESSI/docs docs/blog/posts/2026/07/risc-v-x60-openblas-hpl.md, HPL 2.3 on eight RISC-V cores:
the stock OpenBLAS's broken dgemv kernel, then the fixed one)::

    WR11C2R4        8000   256     1     8              40.05             8.5251e+00
    ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=              nan ...... FAILED
                  0 tests completed and passed residual checks,
                  1 tests completed and failed residual checks,
    ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   4.04326757e-03 ...... PASSED

Facts: ``hpl_residual_check`` per residual line (PASSED or FAILED, the residual, nan/inf as None, the figures of the
result row above it); ``hpl_tests_summary`` per closing count (the counts of the lines the paste holds; a count of
tests ``completed without checking`` is a run whose threshold was 0 or less: it compared nothing). The banner,
parameters and timing lines are HPL's too and carry no fact. Text without these lines: nothing.
"""
from __future__ import annotations

import math
import re

from stethoscope.facts.kinds.bench import HplResidualCheck, HplTestsSummary  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "hpl"

# ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=              nan ...... FAILED       (HPL 2.x, EESSI/docs blog)
# ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=        0.0013903 ...... PASSED       (HPL 2.2's %16.7f)
# ||Ax-b||_oo / ( eps * ||A||_1  * N        ) =        0.0393488 ...... PASSED        (HPL 1.0's three checks, one form)
_RESID = re.compile(r"^[ \t]{0,8}(?P<lhs>\|\|Ax-b\|\|_oo ?/ ?\(?[^\n=]{4,80}\)?) ?= {0,30}(?P<val>[-+]?(?:nan|inf|\d{1,20}(?:\.\d{0,12})?(?:[eE][-+]?\d{1,3})?))"
                    r" \.{6} (?P<res>PASSED|FAILED)\b", re.I | re.M)
# WR11C2R4        8000   256     1     8              40.05             8.5251e+00   (HPL_pdtest.c's row; NVIDIA's adds
# "( per GPU)" after the rate, rocHPL the same row)
_ROW = re.compile(r"^[ \t]{0,8}(?P<var>W[RC]\w{4,12})[ \t]+(?P<n>\d{1,9})[ \t]+(?P<nb>\d{1,6})[ \t]+(?P<p>\d{1,5})[ \t]+(?P<q>\d{1,5})"
                  r"[ \t]+(?P<t>\d{1,12}(?:\.\d{1,4})?)[ \t]+(?P<g>\d{1,3}(?:\.\d{1,8})?[eE][-+]?\d{1,3})", re.M)
#               1 tests completed and failed residual checks,        (HPL_pddriver.c: "         %6d %s\n")
#               0 tests skipped because of illegal input values.
#               1 tests completed without checking,                   (a threshold of 0 or less in HPL.dat)
_COUNT = re.compile(r"^[ \t]{0,20}(?P<k>\d{1,7}) tests (?P<how>completed and passed residual checks|completed and failed residual checks"
                    r"|skipped because of illegal input values|completed without checking)[,.]", re.M)
# T/V                N    NB     P     Q               Time                 Gflops      (the rows' header), and the rules of
# dashes and equals signs around them: HPL's, read without a fact
_FRAME = re.compile(r"^[ \t]{0,8}(?:T/V[ \t]+N[ \t]+NB[ \t]+P[ \t]+Q[ \t]+Time[ \t]+Gflops\b.{0,40}|[-=]{40,})[ \t]*$")
_FIELD = {"completed and passed residual checks": "passed", "completed and failed residual checks": "failed",
          "skipped because of illegal input values": "skipped", "completed without checking": "unchecked"}


def detect(head: str) -> bool:
    if "||Ax-b||_oo" not in head and " tests " not in head:
        return False
    return _RESID.search(head) is not None or _COUNT.search(head) is not None


def _float(text: str) -> float | None:
    v = float(text)
    return v if math.isfinite(v) else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    row: re.Match[str] | None = None
    counts: dict[str, int] = {}
    lines: dict[str, int] = {}  # each count's line
    for n, line in enumerate(artefact.lines, 1):
        if line.lstrip().startswith("W") and (m := _ROW.match(line)) is not None:
            row = m
            result.lines_used += 1
        elif "||Ax-b||_oo" in line and (m := _RESID.match(line)) is not None:
            figures = {} if row is None else {"variant": row["var"], "n": int(row["n"]), "nb": int(row["nb"]),
                                              "p": int(row["p"]), "q": int(row["q"]), "gflops": float(row["g"])}
            b.add(HplResidualCheck, n, passed=m["res"].upper() == "PASSED", residual=_float(m["val"]),
                  residual_text=m["val"], **figures)
            row = None
            result.lines_used += 1
        elif ("T/V" in line or "-----" in line or "=====" in line) and _FRAME.match(line):
            result.lines_used += 1
        elif " tests " in line and (m := _COUNT.match(line)) is not None:
            field = _FIELD[m["how"]]
            if field in counts:  # a second run's count (two outputs pasted one after the other)
                _summary(b, counts, lines)
                counts, lines = {}, {}
            counts[field], lines[field] = int(m["k"]), n
            result.lines_used += 1
    if counts:
        _summary(b, counts, lines)
    return result


def _summary(b: FactBuilder, counts: dict[str, int], lines: dict[str, int]) -> None:
    """One count, cited at the line that says what went wrong where one does (failed, unchecked, skipped), else its first."""
    cite = next((lines[k] for k in ("failed", "unchecked", "skipped") if counts.get(k)), min(lines.values()))
    b.add(HplTestsSummary, cite, uncompared=counts.get("unchecked", 0) + counts.get("skipped", 0), **counts)


#: the line signatures this reader owns (facts/classify.py: one pass over every reader's)
SIGNATURES = (_RESID, _COUNT)
