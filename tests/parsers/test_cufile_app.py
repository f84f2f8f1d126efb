"""cufile_app: a program's own report that cuFile refused to register a file (gdsio, GDS samples, DALI)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import cufile_app
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/cufile_app"


def facts_of(text: str):
    return [(f.evidence.line, f.event, f.component, f.message, f.count)
            for f in cufile_app.parse(Artefact(path="out.txt", text=text, node="n")).facts]


def test_gds_nvidia_fs_70_gdsio_file_not_supported():
    text = (FIX / "gdsnvidiafs70_gdsio_file_not_supported.txt").read_text()
    assert cufile_app.detect(text)
    assert facts_of(text) == [(4, "file_not_supported", "gds_tools",
                               "file register error: GPUDirect Storage not supported on current file filename:/root/gds_test/gdsio.0", 1)]


def test_dali_3972_older_gdsio_form():
    text = (FIX / "dali3972_gdsio_file_not_supported.txt").read_text()
    assert cufile_app.detect(text)
    assert [f[:3] for f in facts_of(text)] == [(2, "file_not_supported", "gds_tools")]


def test_dali_4718_numpy_reader_internal_error():
    text = (FIX / "dali4718_numpy_reader_cufile_import_internal_error.txt").read_text()
    assert cufile_app.detect(text)
    r = cufile_app.parse(Artefact(path="out.txt", text=text, node="n"))
    assert [(f.evidence.line, f.event, f.component) for f in r.facts] == [(2, "handle_register_failed", "dali")]
    assert r.facts[0].message == "CUFile import failed: datasets/mnist/train/7 - seven/16712.npy. internal error."
    assert r.lines_used == 2  # DALI's operator header is read with it


@pytest.mark.parametrize("line,event", [
    ("File register error: nvidia-fs driver is not loaded", "nvidia_fs_not_loaded"),          # cufile_sample_*.cc's form
    ("file register error:GPUDirect Storage not supported on current file", "file_not_supported"),
    ("file register error: internal error", "handle_register_failed"),
])
def test_sample_forms(line: str, event: str):
    assert [f[1] for f in facts_of(line + "\n")] == [event]


def test_other_register_errors_are_not_cufile():
    # an application's own word for another library's failure: no cuFile status text after it
    text = 'Backtest file register error: {"message":"duplicate key value violates unique constraint"}\n'
    assert not cufile_app.detect(text)
    assert facts_of(text) == []
    assert facts_of("CUFile import failed: a.npy. something else.\n") == []
