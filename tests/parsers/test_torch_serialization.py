"""torch_serialization: PyTorchStreamWriter (torch.save) failing to write, anywhere in a file."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import torch_serialization
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_serialization"


def parse_text(text: str):
    return torch_serialization.parse(Artefact(path="t.log", text=text, node="node1"))


@pytest.mark.parametrize("name,want", [
    ("chatglm6b1166_deepspeed_optim_states_write_failed.log", [(10, "writing_file", "data/3", "file wr")]),
    ("f5tts458_rank0_data_pkl_write_failed.log", [(7, "writing_file", "data.pkl", "file write failed")]),
    ("writer_failed_then_unexpected_pos.txt", [(1, "writing_file", "data/140", "file write failed"),
                                               (2, "unexpected_pos", None, None)]),
])
def test_real_files(name, want):
    text = (FIX / name).read_text()
    assert torch_serialization.detect(text)
    assert [(f.evidence.line, f.step, f.record, f.detail) for f in parse_text(text).facts] == want


@pytest.mark.parametrize("text,want", [
    # valid()'s other call, and its form without a miniz error (err_seen_ only)
    ("PytorchStreamWriter failed writing central directory for archive archive: file write failed\n",
     [("writing_central_directory", "archive", "file write failed")]),
    ("RuntimeError: PytorchStreamWriter failed writing file data/0.\n", [("writing_file", "data/0", None)]),
    # the words without inline_container.cc's throw: not this reader's
    ("ValueError: unexpected pos 12 vs 10 in the parser\n", []),
    # the enforce text with the blanks around its "." moved or dropped (a title, a retyped paste: verl-project/verl#3346's
    # ".unexpected"; "]. unexpected" CONSTRUCTED): the same throw
    ((FIX / "verl3346_title_unexpected_pos_no_blank.txt").read_text(), [("unexpected_pos", None, None)]),
    ("RuntimeError: [enforce fail at inline_container.cc:603]. unexpected pos 155797120 vs 155797008\n", [("unexpected_pos", None, None)]),
])
def test_forms(text, want):
    assert [(f.step, f.record, f.detail) for f in parse_text(text).facts] == want
    assert torch_serialization.detect(text) == bool(want)


@pytest.mark.parametrize("text,want", [
    ((FIX / "reader_failed_finding_central_directory.txt").read_text(), [("reading zip archive", "failed finding central directory")]),
    # valid()'s reading call, filled in
    ("RuntimeError: PytorchStreamReader failed reading file data/0: invalid header or archive is corrupted\n",
     [("reading file data/0", "invalid header or archive is corrupted")]),
    ("if 'PytorchStreamReader failed' in str(e):\n", []),
])
def test_reader_forms(text, want):
    facts = [f for f in parse_text(text).facts if f.kind == "torch_load_archive_unreadable"]
    assert [(f.step, f.detail) for f in facts] == want
    assert torch_serialization.detect(text) == bool(want)


@pytest.mark.parametrize("text,want", [
    # safetensors before 0.6: the error's variant name (huggingface/diffusers#5520, OpenMotionLab/MotionGPT3#4)
    ((FIX / "diffusers5520_safetensors_header_too_large.txt").read_text(), [(2, "header_too_large", None)]),
    ((FIX / "motiongpt3_4_from_pretrained_header_too_large.txt").read_text(), [(4, "header_too_large", None)]),
    # 0.6 on: its Display text (safetensors/safetensors#668, 0.6.2)
    ((FIX / "safetensors668_header_too_large_display.txt").read_text(), [(7, "header_too_large", None)]),
    # CONSTRUCTED: the binding's throw filled in with read_metadata's other variants and #616's texts (safetensors/src/tensor.rs)
    ("safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer\n",
     [(1, "metadata_incomplete_buffer", None)]),
    ("Error while deserializing header: incomplete metadata, file not fully covered\n", [(1, "metadata_incomplete_buffer", None)]),
    ("Error while deserializing header: InvalidHeaderDeserialization\n", [(1, "invalid_header_deserialization", None)]),
    ("Error while deserializing header: InvalidHeaderLength\n", [(1, "invalid_header_length", None)]),
    ("Error while deserializing header: InvalidOffset(\"model.embed.weight\")\n", [(1, "invalid_offset", '"model.embed.weight"')]),
    ("Error while deserializing header: invalid JSON in header: EOF while parsing a string at line 1 column 80\n",
     [(1, "invalid_header_deserialization", "EOF while parsing a string at line 1 column 80")]),
    # a variant name run on into another word, and another program's header error: not safetensors'
    ("Error while deserializing header: HeaderTooLargeForBuffer\n", []),
    ("Error while deserializing header: bad magic\n", []),
])
def test_safetensors_forms(text, want):
    facts = [f for f in parse_text(text).facts if f.kind == "safetensors_header_unreadable"]
    assert [(f.evidence.line, f.error, f.detail) for f in facts] == want
    assert torch_serialization.detect(text) == bool(want)
