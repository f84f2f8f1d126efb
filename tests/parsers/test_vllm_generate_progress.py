"""vllm_generate_progress: vLLM's generate bar stopped at 0/N is a capture limit, not a finding."""
from pathlib import Path

from stethoscope.facts.parsers import vllm_generate_progress
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "vllm_generate_progress"
STALL = (FIX / "vllm9920_tp2_stall_first_generate_paste.log").read_text()
# tqdm's finished state of the same bar (vllm/entrypoints/llm.py _run_engine's desc and postfix), filled in
DONE = ("Processed prompts: 100%|██████████| 16/16 [00:03<00:00,  4.80it/s, est. speed input: 62.40 toks/s, "
        "output: 610.11 toks/s]\n")


def _parse(text: str, offset: int = 0):
    return vllm_generate_progress.parse(Artefact(path="vllm.log", text=text, node="z8", line_offset=offset))


def test_detects_the_bar():
    assert vllm_generate_progress.detect(STALL)
    assert not vllm_generate_progress.detect("Processed prompts: see the docs\n")


def test_bar_stopped_at_zero_is_a_cut_short_limit_and_no_fact():
    r = _parse(STALL)
    assert r.facts == [] and r.lines_used == 1
    assert [h.limit for h in r.limits] == ["cut_short"] and r.limits[0].line == 9
    assert "0/16" in r.limits[0].detail


def test_bar_that_finished_or_moved_is_no_limit():
    assert _parse(STALL + DONE).limits == []
    # redraws joined by carriage returns on one line: the last state counts
    moved = STALL.rstrip("\n") + "\rProcessed prompts:  25%|██▌       | 4/16 [00:01<00:03,  3.10it/s]\n"
    assert _parse(moved).limits == []


def test_later_window_is_not_asked():
    assert _parse(STALL, offset=5000).limits == []
