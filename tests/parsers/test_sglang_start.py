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
