"""torch_fr_trace: PyTorch's flight-recorder analyser output (torchfrtrace / fr_trace), every version's heads."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import torch_fr_trace
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/torch_fr_trace"


def _facts(text: str):
    return [(f.evidence.line, f.issue, f.seq_num, f.pg, f.op_type, f.ranks, f.first_rank, f.error_type, f.state, f.world_size)
            for f in torch_fr_trace.parse(Artefact(path="fr.txt", text=text, node="node1")).facts]


def test_tutorial_rank1_missing_25_form():
    text = (FIX / "tutorial_rank1_missing.txt").read_text()
    assert torch_fr_trace.detect(text)
    assert _facts(text) == [(2, "ranks_missing", 5, "0:default_pg", "nccl:all_reduce", "1", 1, None, "scheduled", None)]


def test_size_mismatch_27_form():
    assert _facts((FIX / "size_mismatch_27.txt").read_text()) == [
        (1, "mismatch", 39, "0:default_pg", "nccl:all_reduce", "2", 2, "SIZE_OR_SYNTAX_MISMATCH", "scheduled", 4)]


def test_state_mismatch_real_paste_pytorch151666():
    # the analyser's 2.7 form as posted (two ranks): the first block names rank 1 and the state mismatch; the second
    # block is cut before its error msg by the stored copy, so it names no rank and no type
    assert _facts((FIX / "pytorch151666_state_mismatch.txt").read_text()) == [
        (1, "mismatch", 1487, "0:default_pg", "nccl:all_reduce", "1", 1, "COLLECTIVE_STATE_MISMATCH", "scheduled", 2),
        (16, "mismatch", 1488, "0:default_pg", "nccl:all_reduce", None, None, None, None, 2)]


def test_undecided_missing_dumps():
    assert _facts((FIX / "undecided_missing_dumps.txt").read_text()) == [
        (1, "dumps_missing", None, None, None, "3", 3, None, None, None)]


def test_27_missing_ranks_with_logger_prefix_and_several_culprits():
    # builder.py 2.7+ heads, the analyser's logger prefix kept as some pastes show it
    text = ("INFO:fr:Not all ranks joining collective, sequence number: 31117\n"
            "INFO:fr:internal record id: 31116\nINFO:fr:group info: 0:default_pg\nINFO:fr:collective: nccl:all_reduce\n"
            "INFO:fr:missing ranks: {3, 4, 5}\nINFO:fr:world size: 8\nINFO:fr:collective state: scheduled\n"
            "Collective 12 at entry 11 errors\ngroup info: 1:tp\ncollective: nccl:_all_gather_base\n"
            "error message: Culprit rank 7; Error type: COLLECTIVE_TYPE_MISMATCH, Culprit rank 5; Error type: COLLECTIVE_TYPE_MISMATCH\n"
            "Input/output mismatch in the collective sequence number: 9\n"
            "No errors found for this collective entry, There could be some other reasons why we see collective timeout.\n")
    assert _facts(text) == [
        (1, "ranks_missing", 31117, "0:default_pg", "nccl:all_reduce", "3, 4, 5", 3, None, "scheduled", 8),
        (8, "mismatch", 12, "1:tp", "nccl:_all_gather_base", "5, 7", 5, "COLLECTIVE_TYPE_MISMATCH", None, None),
        (12, "io_mismatch", 9, None, None, None, None, None, None, None),
        (13, "no_errors", None, None, None, None, None, None, None, None)]


def test_24_one_line_print():
    text = "Not all ranks joining collective for group 0:default_pg collective nccl:all_reduce  Missing ranks are {1, 2}\n"
    assert _facts(text) == [(1, "ranks_missing", None, "0:default_pg", "nccl:all_reduce", "1, 2", 1, None, None, None)]


def test_prose_and_junk_make_no_fact():
    assert not torch_fr_trace.detect("the collective timed out on rank 3\n")
    assert _facts("collective: nccl:all_reduce\nmissing ranks: {1}\n") == []
    assert torch_fr_trace.parse(Artefact(path="fr.txt", text="\x00\xff" * 50, node="n")).facts == []
