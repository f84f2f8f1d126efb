"""A driver older than the CUDA a PyTorch build wants keeps CUDA from initialising: the process that then finds no GPU
(torch_cuda_unavailable) is that root's cascade on the same node, one root, not two independent causes (round rS2);
alone, or beside an old driver on another node, PyTorch's finding keeps its own reading."""
from __future__ import annotations

from pathlib import Path

import small_bundle

ROOT = Path(__file__).resolve().parents[1]
# pytorch/pytorch#43058: PyTorch 1.6 built for CUDA 10.2, 'Is CUDA available: No', two V100s listed, driver 418.67
COLLECT_ENV = (ROOT / "fixtures/artefacts/python_packages/pytorch43058_collect_env_cu102_driver418.txt").read_text()
# skypilot-org/skypilot#2510: a task's own prints, no driver version anywhere
TASK = (ROOT / "fixtures/artefacts/torch_cpp_extension/skypilot2510_task_is_available_false.txt").read_text()


def test_the_old_driver_explains_cuda_unavailable(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"n1/collect_env.txt": COLLECT_ENV}, ruleset)
    first = rep.findings[0]
    assert (first.cause, first.role) == ("cuda_driver_too_old", "root_cause")
    torch = [f for f in rep.findings if f.rule == "torch_cuda_unavailable"]
    assert torch and torch[0].role == "cascade" and torch[0].explained_by == [first.rank]
    assert rep.verdict == "faulty"


def test_cuda_unavailable_alone_keeps_its_reading(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"n1/task.txt": TASK}, ruleset)
    torch = [f for f in rep.findings if f.rule == "torch_cuda_unavailable"]
    assert torch and torch[0].role != "cascade" and torch[0].explained_by == []


def test_an_old_driver_on_another_node_explains_nothing_here(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"n1/collect_env.txt": COLLECT_ENV, "n2/task.txt": TASK}, ruleset)
    torch = [f for f in rep.findings if f.rule == "torch_cuda_unavailable" and f.entity.node == "n2"]
    assert torch and torch[0].explained_by == []
