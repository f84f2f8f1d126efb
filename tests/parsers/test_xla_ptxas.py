"""xla_ptxas: XLA's ptxas that cannot compile for the GPU (real lines: jax#13570, openxla#5932)."""
import pytest

from stethoscope.facts.parsers import xla_ptxas

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_cc_89_and_the_ptxas_used():
    facts = _parse(xla_ptxas, "xla_ptxas/jax13570_rtx4080_cc89.log").facts
    assert [(f.cc, f.ptxas, f.evidence.line) for f in facts] == [("8.9", "ptxas", 1)]


def test_too_old_beside_the_cc_line_is_one_fact():
    facts = _parse(xla_ptxas, "xla_ptxas/openxla5932_h800_cc90.log").facts
    assert [(f.cc, f.ptxas) for f in facts] == [("9.0", "ptxas")]


def test_too_old_alone_names_its_path():
    line = "RuntimeError: /usr/local/cuda/bin/ptxas ptxas too old. Falling back to the driver to compile."
    facts = _parse(xla_ptxas, text=line + "\n").facts
    assert [(f.cc, f.ptxas) for f in facts] == [(None, "/usr/local/cuda/bin/ptxas")]


@pytest.mark.parametrize("line", [
    "2023-02-21 16:06:06.202993: W asm_compiler.cc:111] *** WARNING *** You are using ptxas 11.0.194, which is older than 11.1.",
    "W asm_compiler.cc:234] Used ptxas at /usr/local/cuda/bin/ptxas",
    "ptxas info    : Used 32 registers, 360 bytes cmem[0]",
])
def test_near_misses(line):
    assert not xla_ptxas.detect(line)
