"""deepspeed_aio: DeepSpeed's async I/O refusing a swap file of the wrong size, on real lines."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import deepspeed_aio
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/deepspeed_aio"


def _facts(text: str):
    return deepspeed_aio.parse(Artefact(path="out.txt", text=text, node="n")).facts


def test_size_report_then_assert():
    # deepspeedai/DeepSpeed#1070: the size report, then the assert cut over two lines by a continuation
    text = (FIX / "deepspeed1070_swap_file_short.txt").read_text()
    assert deepspeed_aio.detect(text)
    a, b = _facts(text)
    assert (a.evidence.line, a.path, a.buffer_bytes, a.file_bytes, a.assertion) == (
        1, "/nvme/zero_stage_3/fp16params/rank24/0_param.tensor.swp", 28824000, 28311552, False)
    assert (b.evidence.line, b.assertion, b.buffer_bytes) == (3, True, None)


def test_interleaved_ranks():
    # deepspeedai/DeepSpeed#3376: eight ranks' lines interleaved; a size report cut by another rank's assert keeps its
    # path without the sizes
    facts = _facts((FIX / "deepspeed3376_interleaved_asserts.txt").read_text())
    assert [(f.evidence.line, f.assertion, f.buffer_bytes, f.file_bytes) for f in facts] == [
        (1, True, None, None), (2, False, 4001366016, 3426746368), (3, True, None, None),
        (4, False, 4001366016, 3599761408), (5, False, None, None)]
    assert facts[4].path == "/nvme/zero_stage_3/optimizer/rank1/140296723433568.tensor.swp"


def test_nothing_in_other_text():
    assert not deepspeed_aio.detect("Assertion `x == y' failed.\n")
    assert _facts("") == []
