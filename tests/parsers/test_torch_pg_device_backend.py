"""torch_pg_device_backend: c10d's 'No backend type associated with device type <t>' (ProcessGroup::getBackend; real
samples: fixtures/artefacts/torch_pg_device_backend/README.md)."""
from __future__ import annotations

import parser_rows
import pytest

from parse_helper import parse_fixture
from stethoscope.facts.parsers import torch_pg_device_backend as reader

FIELDS = ("device_type", "rank")


def test_unsloth2584_the_message_in_backticks_in_the_reporters_sentence():
    (f,) = parse_fixture(reader, "torch_pg_device_backend/unsloth2584_no_backend_for_cpu.txt").facts
    assert (f.device_type, f.rank, f.evidence.line) == ("cpu", 0, 2)


@pytest.mark.parametrize("line,want", [
    # CONSTRUCTED from ProcessGroup::getBackend's format: unlabelled, torchrun's label, the c10::Error from C++, another class
    ("RuntimeError: No backend type associated with device type cpu", [("cpu", None)]),
    ("[rank5]: RuntimeError: No backend type associated with device type cpu", [("cpu", 5)]),
    ("  what():  No backend type associated with device type xpu", [("xpu", None)]),
    ("torch.distributed.DistBackendError: No backend type associated with device type npu", [("npu", None)]),
    # not read: a comment in source code quoting it, the device type on the next line; getBackend's other check
    ('    # raises "No backend type associated with device type', []),
    ("RuntimeError: Could not retrieve or create the backend 2 for device type cuda", []),
    ("", []),
])
def test_forms(line, want):
    assert parser_rows.line_fields(reader, line, FIELDS) == want
