"""script_local_rank_rejected: argparse's 'unrecognized arguments: --local_rank=N' of a launched training script (real
samples: fixtures/artefacts/script_local_rank_rejected/README.md)."""
from __future__ import annotations

import parser_rows
import pytest

from parse_helper import parse_fixture
from stethoscope.facts.parsers import script_local_rank_rejected as reader

FIELDS = ("program", "argument", "local_rank")


def test_megatron_deepspeed178_title_in_double_quotes():
    (f,) = parse_fixture(reader, "script_local_rank_rejected/megatron_deepspeed178_title.txt").facts
    assert (f.program, f.argument, f.local_rank) == ("pretrain_gpt.py", "--local_rank", 1)


@pytest.mark.parametrize("line,want", [
    # CONSTRUCTED from argparse's format and the launchers' arguments: DeepSpeed's spelling, PyTorch 2.0's, every
    # leftover joined with the launcher's argument among them, no value
    ("generate.py: error: unrecognized arguments: --local_rank=3", [("generate.py", "--local_rank", 3)]),
    ("pretrain.py: error: unrecognized arguments: --local-rank=1", [("pretrain.py", "--local-rank", 1)]),
    ("train.py: error: unrecognized arguments: --foo --local_rank=0", [("train.py", "--local_rank", 0)]),
    ("train.py: error: unrecognized arguments: --local_rank", [("train.py", "--local_rank", None)]),
    # not read: the user's own argument, one that only starts alike, prose quoting the message without argparse's prog
    ("train.py: error: unrecognized arguments: --lr=0.1", []),
    ("train.py: error: unrecognized arguments: --local_rank_offset=2", []),
    ("I got 'error: unrecognized arguments: --local_rank=1' when I ran it", []),
    ("", []),
])
def test_forms(line, want):
    assert parser_rows.line_fields(reader, line, FIELDS) == want
