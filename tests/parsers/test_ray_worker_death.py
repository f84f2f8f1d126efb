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


def test_gcs_marks_a_node_dead_with_the_address_redacted():
    # ray-project/ray#46548 (the reporter replaced the address with "<address>")
    text = (FIX / "ray46548_node_marked_dead.txt").read_text()
    assert r.detect(text)
    (f,) = facts(text)
    assert (f.evidence.line, f.what, f.ip) == (1, "node", None)


def test_node_death_forms_of_every_version():
    # 1.x-2.x, as the driver's logger prints it (a real line: 10.130.0.113, a TPU cluster's worker)
    line = ("2023-03-03 05:15:30,774 WARNING worker.py:1866 -- The node with node id: 9426f44574cce4866be798cfed308f2d3e21ba69487d422872cdd6e3 "
            "and address: 10.130.0.113 and node name: 10.130.0.113 has been marked dead because the detector has missed too many "
            "heartbeats from it. This can happen when a       (1) raylet crashes unexpectedly (OOM, preempted node, etc.)\n"
            "        (2) raylet has lagging heartbeats due to slow network or busy workload.\n")
    (f,) = facts(line)
    assert (f.what, f.ip) == ("node", "10.130.0.113")
    # 0.x: the monitor, a client ID
    (g,) = facts("2019-04-18 02:11:56,294\tERROR worker.py:1780 -- The node with client ID 37669ef11ddbd4e5fb6ae9e089dedc0475c3f89d "
                 "has been marked dead because the monitor has missed too many heartbeats from it.\n")
    assert (g.what, g.ip) == ("node", None)
    # 2.10+: the recorded death reason (gcs_node_manager.cc UNEXPECTED_TERMINATION)
    (h,) = facts("Unexpected termination: health check failed due to missing too many heartbeats\n")
    assert h.what == "node"


def test_heartbeat_lag_warning_is_not_a_dead_node():
    # the raylet's own warning before it is marked dead (node_manager.cc): no death yet
    assert facts("[2022-02-16 12:45:07,907 W 149 199] node_manager.cc:157: Last heartbeat was sent 6901 ms ago. "
                 "There might be resource pressure on this node.\n") == []


def _only(name: str):
    """The one fact of a fixture that detect() accepts."""
    text = (FIX / name).read_text()
    assert r.detect(text)
    (f,) = facts(text)
    return f


def test_actor_died_error_with_its_context_is_one_fact():
    # Ray 2.x: the exception, its tab-indented context, then the reason Ray recorded: one death
    f = _only("searchr1_actor_died_error_context.txt")
    assert (f.evidence.line, f.what, f.exit_type, f.pid, f.ip) == (2, "actor_worker", "SYSTEM_ERROR", 2370037, "172.18.103.5")
    assert f.exit_detail.startswith("Worker unexpectedly exits with a connection error code 2.")
    assert f.message.startswith("actor create_colocated_worker_cls.<locals>.WorkerDict died: worker exit SYSTEM_ERROR")


def test_driver_wrapper_alone_tells_of_an_actor_death():
    # verl-project/verl#5750: the paste stops before the ActorDiedError's text; the wrapper's pid/ip are the caller's
    f = _only("verl5750_driver_actor_died_wrapper_cut.txt")
    assert (f.evidence.line, f.what, f.pid, f.ip) == (17, "actor_worker", None, None)
    assert "ray::TaskRunner.run()" in f.message


def test_wrapper_with_the_actor_record_after_it_is_not_counted_twice():
    text = ("ray.exceptions.RayTaskError(ActorDiedError): ray::main_task() (pid=2368471, ip=172.18.103.5)\n"
            '  File "main_ppo.py", line 203, in main_task\n'
            + (FIX / "searchr1_actor_died_error_context.txt").read_text())
    assert [(f.what, f.pid) for f in facts(text)] == [("actor_worker", 2370037)]


def test_other_wrapped_errors_and_prose_are_no_death():
    text = ("ray.exceptions.RayTaskError(DistBackendError): ray::_Inner.train() (pid=249, ip=10.0.0.78, actor_id=ab)\n"
            "the actor died unexpectedly, we think\n")
    assert facts(text) == []


def test_actor_destroyed_because_its_owners_node_crashed():
    # hiyouga/EasyR1#324 (context lines indented with spaces): the actor's death, and the node of its owner, which the
    # GCS declared dead (gcs_actor_manager.cc OnNodeDead's "Owner's node has crashed.")
    fs = r.parse(Artefact(path="t.log", text=(FIX / "easyr1_324_actor_owner_node_crashed.txt").read_text(), node="node1")).facts
    assert [(f.what, f.evidence.line, f.exit_type, f.ip) for f in fs] == [
        ("node", 15, "SYSTEM_ERROR", "172.21.160.9"), ("actor_worker", 9, "SYSTEM_ERROR", "172.21.160.9")]
    assert fs[0].exit_detail == "Owner's node has crashed." and fs[1].exit_detail == "Owner's node has crashed."
    # the owner killed another way (ray.kill of the owner; CONSTRUCTED from GenOwnerDiedCause's format): no dead node
    text = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
            "\tclass_name: Actor\n"
            "The actor is dead because its owner has died. Owner Id: 02000000ffffffffffffffffffffffffffffffffffffffffffffffff"
            " Owner Ip address: 10.0.0.5 Owner worker exit type: INTENDED_USER_EXIT Worker exit detail: The process was killed by ray.kill.\n")
    assert [f.what for f in facts(text)] == ["actor_worker"]
