"""torch_dataloader: the DataLoader's own timeout and descriptor-limit errors, anywhere in a file."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import torch_dataloader
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_dataloader"


def parse_text(text: str):
    return [(f.evidence.line, f.event, f.seconds) for f in
            torch_dataloader.parse(Artefact(path="t.log", text=text, node="node1")).facts]


@pytest.mark.parametrize("name,want", [
    ("timeout_120s.txt", [(1, "timeout", 120.0)]),
    ("too_many_open_files_workers.txt", [(1, "open_files_limit", None)]),
    # multiprocessing's own error for the same exhaustion (before PyTorch 1.5's check; DonsetPG/graph-physics#22)
    ("graphphysics22_received_0_items_of_ancdata.txt", [(1, "open_files_limit", None)]),
])
def test_real_lines(name, want):
    text = (FIX / name).read_text()
    assert torch_dataloader.detect(text)
    assert parse_text(text) == want


@pytest.mark.parametrize("text,want", [
    ("[rank3]: RuntimeError: DataLoader timed out after 1800.0 seconds\n", [(1, "timeout", 1800.0)]),
    # MXNet's Gluon DataLoader says it otherwise, and a DataLoader's timeout argument is no failure
    ("Worker timed out after 120 seconds. This might be caused by \n", []),
    ("DataLoader(dataset, num_workers=8, timeout=120)\n", []),
    # CONSTRUCTED: the error behind a rank's label; the words in a sentence, not raised, are no error
    ("[rank0]: RuntimeError: received 0 items of ancdata\n", [(1, "open_files_limit", None)]),
    ("DataLoader RunTime error (received 0 items of ancdata) : pbm w/ FD sharing strategy\n", []),
])
def test_forms(text, want):
    assert parse_text(text) == want
    assert torch_dataloader.detect(text) == bool(want)


def exited(text: str):
    return [(f.evidence.line, f.pids, f.exit_code) for f in
            torch_dataloader.parse(Artefact(path="t.log", text=text, node="node1")).facts if f.kind == "dataloader_worker_exited"]


@pytest.mark.parametrize("name,want", [
    # the quoted raise statement (line 10) names no pid: only the raised line (xuebinqin/BASNet#32)
    ("basnet32_worker_exited_unexpectedly.txt", [(11, "16732", None)]),
    ("gdrnet16_bus_error_then_exited.txt", [(5, "3216", None)]),
])
def test_worker_exited_real(name, want):
    text = (FIX / name).read_text()
    assert torch_dataloader.detect(text)
    assert exited(text) == want


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED: two workers; the SIGCHLD handler's exit-code form (torch/csrc/DataLoader.cpp)
    ("RuntimeError: DataLoader worker (pid(s) 10116, 14052) exited unexpectedly\n", [(1, "10116,14052", None)]),
    ("RuntimeError: DataLoader worker (pid 109) exited unexpectedly with exit code 1. Details are lost due to multiprocessing.\n",
     [(1, "109", 1)]),
    # a signal named is torch_log's; the source line, a redacted pid: not read
    ("RuntimeError: DataLoader worker (pid 1817) is killed by signal: Killed.\n", []),
    ("    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str))\n", []),
])
def test_worker_exited_forms(text, want):
    assert exited(text) == want
