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
