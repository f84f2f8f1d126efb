"""thread_create_failed: a library's own report that pthread_create() failed, from real pastes
(fixtures/artefacts/thread_create_failed/README.md) and the lines the reader's docstring quotes."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import thread_create_failed
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/thread_create_failed"


def facts(text: str):
    return thread_create_failed.parse(Artefact(path="app.log", text=text, node="n1")).facts


@pytest.mark.parametrize("name,line,soft,hard,failures", [
    ("detectron2_3900_openblas_rlimit_nproc.txt", 1, 1287654, 1287654, 8),
    ("sdnext2642_openblas_rlimit_unlimited.txt", 4, -1, -1, 5),
])
def test_openblas_thread_pool(name, line, soft, hard, failures):
    text = (FIX / name).read_text()
    assert thread_create_failed.detect(text)
    got = [(f.evidence.line, f.program, f.error, f.errno_name, f.rlimit_nproc, f.rlimit_nproc_max, f.failures)
           for f in facts(text)]
    assert got == [(line, "openblas", "Resource temporarily unavailable", "EAGAIN", soft, hard, failures)]


@pytest.mark.parametrize("text,want", [
    # google-research/meta-dataset#84 (TF's named form, glog's fatal prefix)
    ("[F tensorflow/core/platform/default/env.cc:73] Check failed: ret == 0 (11 vs. 0)Thread tf_data_iterator_resource "
     "creation via pthread_create() failed.\n", [("tensorflow", "11", "EAGAIN", "tf_data_iterator_resource")]),
    # tensorflow/tensorflow#41532's title (TF 2.3, unnamed)
    ("2.3.0-rc2: Check failed: ret == 0 (11 vs. 0) Thread creation via pthread_create() failed. Aborted\n",
     [("tensorflow", "11", "EAGAIN", None)]),
    # Alexander-H-Liu/End-to-end-ASR-Pytorch#50
    ("libgomp: Thread creation failed: Resource temporarily unavailable\n",
     [("libgomp", "Resource temporarily unavailable", "EAGAIN", None)]),
    # CPython Modules/_threadmodule.c: PyErr_SetString(ThreadError, "can't start new thread"), ThreadError = RuntimeError
    ("RuntimeError: can't start new thread\n", [("python", "can't start new thread", None, None)]),
    ("RuntimeError: can't start new thread\r\nRuntimeError: can't start new thread\n",
     [("python", "can't start new thread", None, None)]),
    # willsheffler/worms#2 (OpenBLAS before 0.2.20), its RLIMIT_NPROC line before it
    ("OpenBLAS blas_thread_init: RLIMIT_NPROC 512 current, 1031280 max\n"
     "OpenBLAS blas_thread_init: pthread_create: Resource temporarily unavailable\n",
     [("openblas", "Resource temporarily unavailable", "EAGAIN", None)]),
])
def test_forms(text, want):
    assert thread_create_failed.detect(text)
    assert [(f.program, f.error, f.errno_name, f.thread) for f in facts(text)] == want


@pytest.mark.parametrize("text", [
    "",
    # OpenBLAS's other warning (driver/others/blas_server.c), and its limit line alone: no thread refused
    "OpenBLAS Warning : Detect OpenMP Loop and this application may hang. Please rebuild the library with USE_OPENMP=1 option.\n",
    "OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max\n",
    # CPython's message quoted in code, not raised (not at a line's end)
    "        if \"can't start new thread\" in str(exc).lower() or \"thread\" in str(exc).lower():\n",
    # a glog check about something else
    "F0718 21:29:32.310794 1234 env.cc:73] Check failed: ret == 0 (11 vs. 0)\n",
])
def test_not_a_refused_thread(text):
    assert not thread_create_failed.detect(text)
    assert facts(text) == []
