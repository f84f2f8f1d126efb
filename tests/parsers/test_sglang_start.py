"""sglang_start: a multi-node SGLang start-up without the ready line is a capture limit, not a finding."""
from pathlib import Path

from stethoscope.facts.parsers import sglang_start
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "sglang_start"
STUCK = (FIX / "sglang4978_multinode_startup_stuck_paste.log").read_text()


def _parse(text: str):
    return sglang_start.parse(Artefact(path="sglang.log", text=text, node="node01"))


def test_detects_the_multinode_startup_line():
    assert sglang_start.detect(STUCK)


def test_no_ready_line_is_a_cut_short_limit_and_no_fact():
    r = _parse(STUCK)
    assert r.facts == [] and r.lines_used == 4
    assert [h.limit for h in r.limits] == ["cut_short"] and r.limits[0].line == 5


def test_ready_line_after_startup_is_no_limit():
    # SGLang's own ready line (sgl-project/sglang http_server.py _wait_and_warmup) after the start-up
    r = _parse(STUCK + "[2025-04-01 09:59:40] The server is fired up and ready to roll!\n")
    assert r.limits == []


def test_vllm_form_of_the_same_words_is_not_sglang():
    # vLLM's own logger prefix ("WARNING ... [custom_all_reduce.py:92]"), not SGLang's "[date TPn]"
    line = "WARNING [custom_all_reduce.py:92] Custom allreduce is disabled because this process group spans across nodes\n"
    assert not sglang_start.detect(line)


def test_stamp_taken_off_by_normalisation_is_read_from_the_line_as_written():
    # facts/lines.py takes SGLang's "[date TPn] " off before readers see the lines (round rM3)
    art = Artefact(path="sglang.log", text=STUCK, node="node01")
    art.normalise()
    assert "TP0] Custom" not in art.text and sglang_start.detect(art.text)
    r = sglang_start.parse(art)
    assert r.lines_used == 4 and [h.limit for h in r.limits] == ["cut_short"]


def test_vllm_line_of_the_same_words_normalised_is_not_sglang():
    # vLLM's worker tag and logger head over the same words (CONSTRUCTED from vllm/logger.py _FORMAT and the
    # custom_all_reduce.py warning): both come off, and the line as written has no SGLang stamp
    art = Artefact(path="vllm.log", node="node01", text="(VllmWorker rank=1 pid=2699412) WARNING 08-11 10:45:36 "
                   "[custom_all_reduce.py:92] Custom allreduce is disabled because this process group spans across nodes.\n")
    art.normalise()
    r = sglang_start.parse(art)
    assert r.lines_used == 0 and r.limits == []
