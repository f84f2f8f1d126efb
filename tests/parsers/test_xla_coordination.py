"""xla_coordination: the coordination service of multi-process JAX jobs (real lines:
ayaka14732/llama-2-jax#20, AI-Hypercomputer/gpu-recipes#2, EleutherAI/architecture-objective#26,
jax-ml/jax#19596, vwxyzjn/cleanrl#338, jax-ml/jax's fault-tolerance docs; XLA's format strings)."""
import pytest

from stethoscope.facts.parsers import xla_coordination

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _events(rel=None, text=None):
    return [(f.event, f.barrier, f.tasks, f.task_count, f.timeout, f.grpc_message, f.peer, f.evidence.line)
            for f in _parse(xla_coordination, rel and f"xla_coordination/{rel}", text).facts]


def test_connect_barrier_lists_the_tasks_that_never_came():
    assert _events("llama2jax20_connect_barrier_tasks_missing.txt") == [
        ("registration_timeout", "PjRT_Client_Connect", "1, 2, 3, 4, 5, 6, 7", 7, None, None, None, 10)]


def test_cluster_registration_failed_and_its_barrier_are_one_event():
    assert _events("gpurecipes2_cluster_registration_failed.log") == [
        ("registration_timeout", "[Init]Wait_for_all_tasks_to_register::0", None, None, "1h", None, None, 1)]


def test_heartbeat_timeout_names_the_task():
    assert _events("architecture_objective26_heartbeat_timeout.log") == [
        ("heartbeat_timeout", None, "37", 1, None, None, None, 6)]


def test_preemption_notice_socket_closed_is_a_lost_leader_with_grpc_detail():
    assert _events("jax19596_preemption_notice_socket_closed.log") == [
        ("leader_unreachable", None, None, None, None, "Socket closed", "10.150.0.4:62464", 10)]


def test_the_survivors_of_a_killed_task_name_it():
    # "Polled an error" says no more than the status on the line after it
    assert _events("jax_docs_task_killed_peer_terminates.log") == [
        ("heartbeat_timeout", None, "3", 1, None, None, None, 2)]


def test_leader_died():
    assert _events("jax_docs_leader_died.log") == [("leader_unreachable", None, None, None, None, "Socket closed", None, 2)]


def test_disconnect_at_exit():
    assert _events("cleanrl338_disconnect_deadline.log") == [
        ("shutdown_failed", None, None, None, None, "Deadline Exceeded", "26.0.134.228:64719", 1)]


@pytest.mark.parametrize("line, event, tasks, count", [
    # xla coordination_service.cc CheckBarrierTimeout (later form), with its counts
    ("DEADLINE_EXCEEDED: Barrier timed out. Id: multihost_broadcast_sync0::0. This usually happens because a task triggered "
     "the barrier too early or too slowly. Please look at the task logs (both timed out and first task) to debug further.\n"
     "# of tasks that reached the barrier: 6/8.\nThe first task at the barrier: /job:jax_worker/replica:0/task:0. Some timed out task names:\n"
     "/job:jax_worker/replica:0/task:3\n/job:jax_worker/replica:0/task:5\n", "barrier_timeout", "3, 5", 2),
    # RecordHeartbeat: a restarted task
    ("/job:jax_worker/replica:0/task:2 Heartbeat: Incarnation ID mismatch: expecting 1 but got 2. The task has restarted and "
     "likely crashed earlier - check for any earlier errors or any scheduler events (e.g. preemption, eviction) to debug further.",
     "task_restarted", "2", 1),
    # the agent's key-value wait (coordination_service_agent.cc "GetKeyValue() timed out with key: $0 and duration: $1"),
    # in jax.distributed's topology exchange (the key as Perlmutter users quote it)
    ("INTERNAL: Getting local topologies failed: GetKeyValue() timed out with key: cuda:local_topology/cuda/1 and duration: 2m",
     "key_value_timeout", "1", 1),
    # the shutdown barrier
    ("INTERNAL: Shutdown barrier has failed.\nBarrier result: 'DEADLINE_EXCEEDED: Barrier timed out. Id: Shutdown::0.", "shutdown_failed", None, None),
    # a task that cannot reach the service (xla/pjrt/distributed/client.cc's "Coordination service agent in error status: %s"
    # with gRPC's connect failure, as marin-community/marin#7650 quotes it)
    ("Coordination service agent in error status: UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: "
     "ipv4:10.186.213.145:13305: Failed to connect to remote host: Connection refused", "connect_failed", None, None),
])
def test_forms_from_the_service_source(line, event, tasks, count):
    facts = _parse(xla_coordination, text=line + "\n").facts
    assert [(f.event, f.tasks, f.task_count) for f in facts][:1] == [(event, tasks, count)]


@pytest.mark.parametrize("line", [
    "I0000 00:00:1711301822.558010  981991 coordination_service.cc:686] /job:jax_worker/replica:0/task:3 has disconnected from coordination service.",
    "I0000 00:00:1711301822.557900  981991 coordination_service.cc:1195] Shutdown barrier in coordination service has passed.",
    "[rank144]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 144] Heartbeat monitor timed out! Process will be terminated after dumping debug info.",
    "raylet heartbeat timeout, marking node dead",
])
def test_no_event_in_normal_or_foreign_lines(line):
    assert not xla_coordination.detect(line)


def test_a_preemption_poll_cancelled_at_shutdown_is_no_failure():
    line = ("W0000 preemption_sync_manager.cc:170] Failed to retrieve preemption notice from coordination service: "
            "CANCELLED: Coordination service is shutting down. Cancelling PollForErrorAsync()")
    assert _parse(xla_coordination, text=line + "\n").facts == []
