"""python_exception_ignored: CPython's 'Exception ignored in: ...' report of an exception raised in a finaliser, an
atexit or ctypes callback and ignored (real samples: fixtures/artefacts/python_exception_ignored/README.md; CONSTRUCTED
lines from CPython's formats say so)."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import python_exception_ignored as reader
from stethoscope.facts.parsers.base import Artefact
from tests.parsers.parse_helper import parse_fixture


def _facts(text: str):
    return reader.parse(Artefact(path="t.txt", text=text, node="n1")).facts


def test_real_firebird48_two_finalisers():
    facts = parse_fixture(reader, "python_exception_ignored/firebird48_del_attributeerror_py313.txt").facts
    assert [(f.evidence.line, f.context, f.target, f.exception_type, f.cut) for f in facts] == [
        (5, "finaliser", "Connection.__del__", "AttributeError", False), (12, "finaliser", "Cursor.__del__", "AttributeError", False)]
    assert facts[0].exception_message == "'Connection' object has no attribute 'logging_id'"


def test_real_espcn22_bound_method_form():
    (f,) = parse_fixture(reader, "python_exception_ignored/espcn22_dataloader_del_bound_method.txt").facts
    assert (f.evidence.line, f.context, f.target, f.exception_type, f.interrupted) == (
        11, "finaliser", "_DataLoaderIter.__del__", "RuntimeError", False)
    assert f.exception_message.startswith("Couldn't open shared event")


def test_real_mmnas8_interrupted_interleaved_and_cut():
    facts = parse_fixture(reader, "python_exception_ignored/mmnas8_interrupted_interleaved_cut.txt").facts
    assert [(f.evidence.line, f.target, f.exception_type, f.cut, f.interrupted) for f in facts] == [
        (2, "_DataLoaderIter.__del__", None, True, True), (5, "_DataLoaderIter.__del__", None, True, False)]


@pytest.mark.parametrize(("text", "context", "target", "etype"), [
    # CONSTRUCTED from Modules/atexitmodule.c (3.8-3.12, then 3.13's "%R:" form) and Modules/_ctypes/callbacks.c
    ("Exception ignored in atexit callback: <function _exit_function at 0x7f1b2c3d4e50>\nTraceback (most recent call last):\n"
     "  File \"/x.py\", line 3, in _exit_function\nRuntimeError: boom\n", "atexit", "_exit_function", "RuntimeError"),
    ("Exception ignored in atexit callback <function _exit_function at 0x7f1b2c3d4e50>:\nTraceback (most recent call last):\n"
     "  File \"/x.py\", line 3, in _exit_function\nRuntimeError: boom\n", "atexit", "_exit_function", "RuntimeError"),
    ("Exception ignored on calling ctypes callback function: <function cb at 0x7f1b2c3d4e50>\nTraceback (most recent call last):\n"
     "  File \"/x.py\", line 9, in cb\nValueError: bad\n", "ctypes_callback", "cb", "ValueError"),
    # CONSTRUCTED from Python 2.7's PyErr_WriteUnraisable ("Exception %s: %s in %s ignored")
    ("Exception AttributeError: \"'NoneType' object has no attribute 'info'\" in <bound method Parameters.__del__ of <p.Parameters object at 0x238e490>> ignored\n",
     "finaliser", "Parameters.__del__", "AttributeError"),
])
def test_other_forms(text, context, target, etype):
    assert reader.detect(text)
    (f,) = _facts(text)
    assert (f.context, f.target, f.exception_type) == (context, target, etype)


@pytest.mark.parametrize("text", [
    # CONSTRUCTED negatives: a sentence about the form, an exception raised and not ignored
    "I see 'Exception ignored in' warnings when the script ends, is that a problem?\n",
    "Traceback (most recent call last):\n  File \"/x.py\", line 3, in <module>\nAttributeError: 'X' object has no attribute 'y'\n",
])
def test_not_read(text):
    assert not reader.detect(text)
    assert _facts(text) == []
