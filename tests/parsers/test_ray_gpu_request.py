"""ray_gpu_request: Ray's autoscaler reporting a request with GPUs it cannot place."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ray_gpu_request
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_gpu_request"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return ray_gpu_request.parse(art)


def test_scheduler_warning_fractional_gpu():
    text = (FIX / "efficientzero44_gpu_request_pending.log").read_text()
    assert ray_gpu_request.detect(text)
    got = [(f.evidence.line, f.state, f.request, f.gpu) for f in parse_text(text).facts]
    assert got == [(1, "pending", "{'GPU': 0.125, 'CPU': 0.5}", 0.125)]


def test_autoscaler_status_then_warnings():
    # the status block's Demands line is the status's, not the warning: only the two warnings (the second cut) are read
    text = (FIX / "llm_applications58_autoscaler_status_gpu_pending.log").read_text()
    got = [(f.evidence.line, f.state, f.gpu) for f in parse_text(text).facts]
    assert got == [(21, "pending", 1.0), (22, "pending", 1.0)]


def test_infeasible_form():
    # CONSTRUCTED from the format string (autoscaler.py _report_pending_infeasible); no even thread's paste of it with GPUs
    line = ("(autoscaler +1m5s) Error: No available node types can fulfill resource request {'GPU': 8.0, 'CPU': 8.0}. "
            "Add suitable node types to this cluster to resolve this issue.")
    assert [(f.state, f.gpu) for f in parse_text(line).facts] == [("infeasible", 8.0)]


@pytest.mark.parametrize("text", [
    # secretflow/secretflow#192: CPUs and a custom resource, no GPU
    "(scheduler +38s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0, 'alice': 1.0}. "
    "This is likely due to all cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster.",
    # the status block's demand line alone, and a request of zero GPUs
    " {'CPU': 1.0, 'GPU': 1.0}: 1+ pending tasks/actors",
    "Warning: The following resource request cannot be scheduled right now: {'GPU': 0.0, 'CPU': 1.0}.",
    "",
])
def test_nothing_else(text):
    assert parse_text(text).facts == []
