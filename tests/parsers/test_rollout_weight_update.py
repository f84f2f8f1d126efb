"""rollout_weight_update: SGLang's report that its rollout engine failed to take an RL trainer's weights."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import rollout_weight_update as p
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/rollout_weight_update"


def read(text: str):
    return p.parse(Artefact(path="t.log", text=text, node="n1")).facts


def test_the_real_update_refused_cut_as_pasted():
    text = (FIX / "sglang26032_update_parameter_online_failed.log").read_text()
    assert p.detect(text)
    (f,) = read(text)
    assert (f.step, f.error, f.tp_rank, f.evidence.line) == (
        "update", "start out of range (expected to be in ra", 6, 6)


def test_the_whole_message_and_the_group_set_up():
    # CONSTRUCTED from model_runner.py's two messages (the update's closing advice is left off the error)
    (u,) = read("[2026-01-05 10:00:00 TP3] Failed to update parameter online: 'model.visual.blocks.0.mlp.gate_up_proj.weight'. "
                "The full weights of the ModelRunner are partially updated. Please discard the whole weights.\n")
    assert (u.step, u.error, u.tp_rank) == ("update", "'model.visual.blocks.0.mlp.gate_up_proj.weight'", 3)
    (g,) = read("Failed to initialize custom process group: NCCL error: unhandled system error.\n")
    assert (g.step, g.error, g.tp_rank) == ("group_init", "NCCL error: unhandled system error", None)


def test_no_message_in_code_or_success():
    # CONSTRUCTED near misses: the f-string a traceback quotes, the success line, an empty file
    for text in ('                f"Failed to update parameter online: {e}. "\n',
                 "[2026-01-05 10:00:00 TP0] Succeeded to update parameter online.\n", ""):
        assert not p.detect(text)
        assert read(text) == []
