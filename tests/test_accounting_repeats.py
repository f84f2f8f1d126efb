"""A line that repeats an explained error word for word on the same node is explained with it
(engine/accounting.py unexplained): every rank and every retry prints its own copy."""
from __future__ import annotations

import shutil
from pathlib import Path

from stethoscope.engine.pipeline import diagnose_bundle

ROOT = Path(__file__).resolve().parent.parent


def _report(tmp_path: Path, text: str, ruleset):
    node = tmp_path / "b" / "VM-0-16-ubuntu"
    node.mkdir(parents=True)
    (node / "nccl.log").write_text(text)
    return diagnose_bundle(tmp_path / "b", ruleset, jobs=1)


def test_repeated_cuda_failures_are_explained_once(tmp_path, ruleset):
    text = (ROOT / "fixtures/artefacts/nccl_log/cuda_oom_repeated_trtllm1670.log").read_text()
    rep = _report(tmp_path, text, ruleset)
    assert [f.cause for f in rep.findings if f.rule == "unexplained_error"] == []
    assert rep.findings[0].cause == "cuda_out_of_memory"


def test_a_different_message_on_the_same_node_stays_unexplained(tmp_path, ruleset):
    text = (ROOT / "fixtures/artefacts/nccl_log/cuda_oom_repeated_trtllm1670.log").read_text()
    text += "VM-0-16-ubuntu:392:494 [2] enqueue.cc:99 NCCL WARN Something nobody has seen before\n"
    rep = _report(tmp_path, text, ruleset)
    assert [f.summary for f in rep.findings if f.rule == "unexplained_error"] == [
        "VM-0-16-ubuntu: an error that no rule explains (nccl_warn): Something nobody has seen before"]
