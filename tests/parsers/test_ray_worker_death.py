"""ray_worker_death: Ray's dead worker, actor worker and raylet reports."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import ray_worker_death as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_worker_death"


def facts(text: str):
    return r.parse(Artefact(path="t.log", text=text, node="node1")).facts


def test_raylet_report_wrapped_by_the_terminal():
    text = (FIX / "verl1986_raylet_worker_died_sigterm.txt").read_text()
    assert r.detect(text)
    (f,) = facts(text)
    assert (f.evidence.line, f.what, f.exit_type, f.pid, f.ip) == (1, "worker", "SYSTEM_ERROR", 870287, "159.226.47.239")
    assert f.exit_detail.endswith("Exit code: 1. The process receives a SIGTERM.")


def test_actor_died_error():
    (f,) = facts((FIX / "logicrl18_actor_died_connection_error.txt").read_text())
    assert (f.what, f.exit_type, f.pid) == ("actor_worker", "SYSTEM_ERROR", None)
    assert f.exit_detail.startswith("Worker unexpectedly exits with a connection error code 2. End of file.")


def test_raylet_failed_and_ray_0_8_form():
    # core_worker.cc CheckForRayletFailure behind the driver's (pid=N) prefix; node_manager.cc of Ray 0.8
    text = ("(pid=81331) E0328 01:02:03.123456 81331 81331 core_worker.cc:382] Raylet failed. Shutting down.\n"
            "A worker died or was killed while executing task 00000000ffffffff0c2dcdae01000000.\n")
    assert [(f.what, f.exit_type) for f in facts(text)] == [("raylet", None), ("worker", None)]


def test_next_record_is_not_joined():
    text = ((FIX / "logicrl18_actor_died_connection_error.txt").read_text()
            + "Error executing job with overrides: ['algorithm.adv_estimator=grpo']\n")
    (f,) = facts(text)
    assert "overrides" not in f.exit_detail
