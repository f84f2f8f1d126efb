"""The coordination service of a multi-process JAX job (XLA's, TensorFlow's before it) as its
tasks print it: registration and barrier timeouts, heartbeat timeouts, a lost leader.

``jax.distributed.initialize`` makes process 0 run the coordination service
(xla/tsl/distributed_runtime/coordination/coordination_service.cc; tensorflow/core/... and
tensorflow/tsl/... in older jaxlibs) and every process an agent
(coordination_service_agent.cc) that registers with it, heartbeats, waits at barriers and polls
for errors over gRPC. Sample content (real lines)::

    jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:
    /job:jax_worker/replica:0/task:1
    Additional GRPC error information from remote target unknown_target_for_coordination_leader while calling /tensorflow.CoordinationService/Barrier:
                                                                            (ayaka14732/llama-2-jax#20)
    Stopping coordination service as cluster registration failed. This may be due to 1) some tasks crashed earlier before connecting, 2) some tasks were never scheduled, or 3) scheduling delays. Consider setting a longer initialization timeout if such delays are expected, the timeout is currently set to: 1h.
    Original error: DEADLINE_EXCEEDED: Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0. This usually happens because a task triggered the barrier too early or too slowly. ...
                                                                            (AI-Hypercomputer/gpu-recipes#2)
    2022-11-15 16:03:15.140058: E external/org_tensorflow/tensorflow/core/distributed_runtime/coordination/coordination_service.cc:954] /job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. [type.googleapis.com/tensorflow.CoordinationServiceError='']
                                                                            (EleutherAI/architecture-objective#26)
    2024-01-31 10:21:35.025511: W external/tsl/tsl/distributed_runtime/preemption/preemption_sync_manager.cc:170] Failed to retrieve preemption notice from coordination service: UNAVAILABLE: Socket closed
    :{"created":"@1706696495.008693800","description":"Error received from peer ipv4:10.150.0.4:62464",...,"grpc_message":"Socket closed","grpc_status":14}. This is only expected if one of the tasks is unhealthy. ...
                                                                            (jax-ml/jax#19596)
    F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; ... absl::Status: UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was preempted/died/restarted unexpectedly or this task is experiencing network issues. ...
                                                                            (jax-ml/jax docs, fault tolerance)
    2023-02-17 06:08:24.084633: E external/org_tensorflow/tensorflow/tsl/distributed_runtime/coordination/coordination_service_agent.cc:481] Failed to disconnect from coordination service with status: DEADLINE_EXCEEDED: Deadline Exceeded
                                                                            (vwxyzjn/cleanrl#338)

The messages are the service's own format strings: "Barrier timed out. Barrier_id: %s" (TF 2.x
to jaxlib 0.4.2x) and "Barrier timed out. Id: %s. ... # of tasks that reached the barrier: %d/%d"
(later); "Task %s heartbeat timeout." and "The following tasks are unhealthy (stopped sending
heartbeats):" (CheckHeartbeatTimeout); "%s has been set to ERROR in coordination service: %s"
(SetTaskError); "Stopping coordination service as cluster registration failed. ... set to: %s."
(PassBarrier); "Failed to send RPC to coordination service. Either the leader task ..."
(coordination_service_error_util.cc TrimCoordinationErrorMessage); "Terminating process because
the JAX distributed service detected fatal errors" (xla/pjrt/distributed/client.h).

Facts: one ``coordination_service_error`` per event of a file (a message repeated by each task,
or quoted again in gRPC's details, is one event): the barrier, the task ids the messages list
(the ``/job:<name>/replica:0/task:<n>`` lines after them), the timeout, gRPC's reason and peer
address from the lines that follow. A preemption-notice poll CANCELLED at shutdown, the
service's INFO lines (a task that "has disconnected", the shutdown barrier that passed) and text
without these lines yield nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CoordinationServiceError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "xla_coordination"

#: the lines that report an event (detect(), and where a file's events start)
_GATES = (
    "Barrier timed out", "cluster registration failed", "heartbeat timeout", "stopped sending heartbeats",
    "has been set to ERROR in coordination service", "Incarnation ID mismatch", "with a different incarnation",
    "Failed to send RPC to coordination service", "preemption notice from coordination service",
    "Polled an error from coordination service", "JAX distributed service detected fatal errors",
    "Coordination service agent in error status", "Failed to disconnect from coordination service",
    "Shutdown barrier has failed", "GetKeyValue() timed out with key",
)
#: lines that add to an event: gRPC's details, a task list, the RPC called
_MORE = ("failed to connect to all addresses", "/tensorflow.CoordinationService/", "grpc_message",
         "Error received from peer", "/replica:", "# of tasks that reached the barrier")

# Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:
# Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0. This usually happens because ...
_BARRIER = re.compile(r"Barrier timed out\. (?:Barrier_id|Id): (?P<id>\S+?)\.?(?=\s|$|\\n|\")")
# # of tasks that reached the barrier: 1/8.
_REACHED = re.compile(r"# of tasks that reached the barrier: (?P<reached>\d+)/(?P<of>\d+)")
# ... the timeout is currently set to: 1h.
_REG_TIMEOUT = re.compile(r"timeout is currently set to: (?P<t>[\d.]+[a-z]+(?:[\d.]+[a-z]+)*)")
# /job:jax_worker/replica:0/task:37     (a task the message names; also inside gRPC's escaped text)
_TASK = re.compile(r"/job:[^\s/\\\"]+/replica:\d+/task:(?P<n>\d+)")
# a line that is only a task name: a list after "Timed out task names:"
_TASK_LINE = re.compile(r"^\s*/job:[^\s/]+/replica:\d+/task:\d+\s*$")
# Task /job:jax_worker/replica:0/task:37 heartbeat timeout.
_HEARTBEAT = re.compile(r"Task (/job:[^\s/]+/replica:\d+/task:\d+) heartbeat timeout")
# /job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service: UNAVAILABLE: ...
_SET_ERROR = re.compile(r"(/job:[^\s/]+/replica:\d+/task:\d+) has been set to ERROR in coordination service: (?P<status>.*)")
# Failed to retrieve preemption notice from coordination service: UNAVAILABLE: Socket closed
_PREEMPTION = re.compile(r"preemption notice from coordination service: (?P<code>[A-Z_]+)")
# Getting local topologies failed: GetKeyValue() timed out with key: cuda:local_topology/cuda/1 and duration: 2m
#   (the agent's "GetKeyValue() timed out with key: $0 and duration: $1"; the key of jax.distributed's device topology
#   exchange names the task that never published it)
_KEY_VALUE = re.compile(r"GetKeyValue\(\) timed out with key: (?P<key>.+?) and duration: (?P<dur>[\w.]+)")
_TOPOLOGY_KEY = re.compile(r"local_topology/\w+/(?P<task>\d+)$")
# Failed to disconnect from coordination service with status: DEADLINE_EXCEEDED: Deadline Exceeded
_DISCONNECT = re.compile(r"Failed to disconnect from coordination service with status: (?P<code>[A-Z_]+)")
# Coordination service agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded
_AGENT_STATUS = re.compile(r"Coordination service agent in error status: (?P<code>[A-Z_]+)")
# ... while calling /tensorflow.CoordinationService/RegisterTask:
_RPC = re.compile(r"/tensorflow\.CoordinationService/(?P<rpc>\w+)")
# "grpc_message":"Socket closed"        {grpc_message:"Socket closed", grpc_status:14}
_GRPC_MESSAGE = re.compile(r"\"?grpc_message\"?:\s?\"(?P<m>[^\"\\]{1,80})\"")
# "description":"Error received from peer ipv4:10.150.0.4:62464"
_PEER = re.compile(r"Error received from peer (?:ipv[46]:)?(?P<peer>[\w.:\[\]-]+?)\"?(?=[\s,}\"]|$)")
# UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:10.186.213.145:13305: Failed to connect to remote host: Connection refused
_CONNECT = re.compile(r"failed to connect to all addresses(?:; last error: \w+: (?:ipv[46]:)?(?P<peer>[\w.:\[\]-]+?): "
                      r"(?:Failed to connect to remote host: )?(?P<why>[A-Z][\w ]{2,40}))?")

_REGISTRATION_BARRIERS = ("PjRT_Client_Connect", "Wait_for_all_tasks")
_SHUTDOWN_BARRIERS = ("Shutdown", "PjRT_Client_Disconnect")


def detect(text: str) -> bool:
    return _SIG.search(text) is not None


class _Events:
    """The events of one file, merged by event (and barrier): {key: [line, fields, task ids]}."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str | None], list] = {}
        self.last: list | None = None  # the event the next continuation lines belong to
        self.last_line = 0

    def add(self, event: str, line: int, barrier: str | None = None, tasks: list[str] = (), **fields) -> list:
        key = (event, barrier if event in ("barrier_timeout", "shutdown_failed") else None)
        ev = self.by_key.get(key)
        if ev is None:
            ev = self.by_key[key] = [line, {"barrier": barrier}, []]
        slot = ev[1]
        if barrier and not slot.get("barrier"):
            slot["barrier"] = barrier
        for k, v in fields.items():
            if v is not None and slot.get(k) is None:
                slot[k] = v
        ev[2].extend(t for t in tasks if t not in ev[2])
        self.last, self.last_line = ev, line
        return ev


#: what a status the service attaches says happened: its words, then the event
_STATUS_EVENTS = (("heartbeat timeout", "heartbeat_timeout"), ("stopped sending heartbeats", "heartbeat_timeout"),
                  ("ncarnation", "task_restarted"), ("luster registration failed", "registration_timeout"),
                  ("Failed to send RPC to coordination service", "leader_unreachable"))
#: lines that are an event by their words alone (the agent's own reports)
_LINE_EVENTS = (("Failed to send RPC to coordination service", "leader_unreachable"),
                ("Polled an error from coordination service", "peer_failed"),
                ("Shutdown barrier has failed", "shutdown_failed"))


def _status_event(status: str) -> str:
    return next((event for words, event in _STATUS_EVENTS if words in status), "task_error")


def _read_line(ev: _Events, n: int, line: str, rpc: str | None) -> bool:
    """Read one line that reports an event; False when it reports none after all."""
    b = _BARRIER.search(line)
    if b is not None:
        bid = b["id"]
        after = line[b.end():]
        tasks = [m["n"] for m in _TASK.finditer(after)]
        event = ("registration_timeout" if any(r in bid for r in _REGISTRATION_BARRIERS)
                 else "shutdown_failed" if any(s in bid for s in _SHUTDOWN_BARRIERS) else "barrier_timeout")
        r = _REACHED.search(line)
        pending = int(r["of"]) - int(r["reached"]) if r else None
        ev.add(event, n, barrier=bid, tasks=tasks, task_count=pending)
        return True
    if "cluster registration failed" in line:
        t = _REG_TIMEOUT.search(line)
        ev.add("registration_timeout", n, timeout=t["t"] if t else None)
        return True
    s = _SET_ERROR.search(line)
    if s is not None:
        task = _TASK.search(s[1])["n"]
        event = _status_event(s["status"])
        if event == "registration_timeout":  # the service sets every task to ERROR: the tasks are no clue
            ev.add(event, n)
        else:
            ev.add(event, n, tasks=[task], status=s["status"].strip()[:160])
        return True
    h = _HEARTBEAT.search(line)
    if h is not None:
        ev.add("heartbeat_timeout", n, tasks=[_TASK.search(h[1])["n"]])
        return True
    if "stopped sending heartbeats" in line:
        ev.add("heartbeat_timeout", n, tasks=[m["n"] for m in _TASK.finditer(line)])
        return True
    if "Incarnation ID mismatch" in line or "with a different incarnation" in line:
        t = _TASK.search(line)
        ev.add("task_restarted", n, tasks=[t["n"]] if t else [])
        return True
    if "JAX distributed service detected fatal errors" in line:
        status = line.partition("absl::Status: ")[2]
        event = _status_event(status) if status else "peer_failed"
        ev.add("peer_failed" if event in ("task_error", "registration_timeout") else event, n,
               tasks=[m["n"] for m in _TASK.finditer(status)])
        return True
    p = _PREEMPTION.search(line)
    if p is not None:
        if p["code"] in ("CANCELLED", "OK"):  # the poll ended by its own shutdown: no failure
            return False
        ev.add("leader_unreachable" if p["code"] == "UNAVAILABLE" else "peer_failed", n, status=p["code"])
        return True
    a = _AGENT_STATUS.search(line)
    if a is not None:
        connecting = rpc == "RegisterTask" or "RegisterTask" in line or "failed to connect to all addresses" in line
        ev.add("connect_failed" if connecting else "peer_failed", n, status=a["code"])
        return True
    k = _KEY_VALUE.search(line)
    if k is not None:
        t = _TOPOLOGY_KEY.search(k["key"])
        ev.add("key_value_timeout", n, tasks=[t["task"]] if t else [], timeout=k["dur"], key=k["key"][:120])
        return True
    d = _DISCONNECT.search(line)
    if d is not None:
        ev.add("shutdown_failed", n, status=d["code"])
        return True
    event = next((event for words, event in _LINE_EVENTS if words in line), None)
    if event is not None:
        ev.add(event, n)
    return event is not None


def _read_more(ev: _Events, n: int, line: str) -> bool:
    """A line that adds to an event: a task of its list, gRPC's reason and peer, a failed connect."""
    c = _CONNECT.search(line)
    if c is not None:
        ev.add("connect_failed", n, peer=c["peer"], grpc_message=c["why"])
        return True
    last = ev.last
    if last is None or n - ev.last_line > 3:
        return False
    r = _REACHED.search(line)
    if r is not None:  # the barrier's count, on the line after it
        last[1].setdefault("task_count", int(r["of"]) - int(r["reached"]))
        ev.last_line = n
        return True
    if "task names:" in line:  # "The first task at the barrier: <task>. Some timed out task names:" (the first is no straggler)
        last[2].extend(t["n"] for t in _TASK.finditer(line.partition("task names:")[2]) if t["n"] not in last[2])
        ev.last_line = n
        return True
    if _TASK_LINE.match(line):
        if n - ev.last_line != 1:
            return False
        t = _TASK.search(line)["n"]
        if t not in last[2]:
            last[2].append(t)
        ev.last_line = n
        return True
    used = False
    m = _GRPC_MESSAGE.search(line)
    if m is not None and "Barrier" not in m["m"]:
        last[1].setdefault("grpc_message", m["m"].strip())
        used = True
    p = _PEER.search(line)
    if p is not None:
        last[1].setdefault("peer", p["peer"])
        used = True
    if used or _RPC.search(line):
        ev.last_line = n
        return True
    return False


def _detail(event: str, f: dict, tasks: str | None) -> str:
    barrier, timeout = f.get("barrier"), f.get("timeout")
    why = f.get("grpc_message")
    via = f" ({why}{' from ' + f['peer'] if f.get('peer') else ''})" if why else ""
    named = f"task {tasks}" if tasks and "," not in tasks else f"tasks {tasks}" if tasks else None
    if event == "registration_timeout":
        return ("not every task joined the coordination service"
                + (f" within the {timeout} initialization timeout" if timeout else "")
                + (f" at barrier {barrier}" if barrier else "")
                + (f": {named} never arrived" if named else ""))
    if event == "connect_failed":
        return f"this task could not reach the coordination service{' at ' + f['peer'] if f.get('peer') else ''}{via if not f.get('peer') else ' (' + why + ')' if why else ''}"
    if event == "heartbeat_timeout":
        return f"{named or 'a task'} stopped sending heartbeats to the coordination service (failed, preempted, hung or crashed)"
    if event == "task_restarted":
        return f"{named or 'a task'} came back with a new incarnation: it restarted after crashing or being rescheduled"
    if event == "task_error":
        return f"the coordination service set {named or 'a task'} to ERROR: {f.get('status', '')}"
    if event == "key_value_timeout":
        return (f"{named or 'a participant'} never published the key {f.get('key')} within {timeout}: it did not reach "
                "that step (not started, crashed, hung, or a different set of local devices)")
    if event == "barrier_timeout":
        return f"barrier {barrier} timed out" + (f": {named} did not arrive" if named else "")
    if event == "leader_unreachable":
        return f"this task lost the coordination service{via}: the leader (task 0) exited, died or restarted, or the network to it failed"
    if event == "peer_failed":
        return "the coordination service reported an error (this task's or another's) and the process terminates"
    return (f"the shutdown {'barrier ' + barrier if barrier else 'disconnect'} did not complete"
            + (f" ({f['status']})" if f.get("status") else "") + ": a task was still running or already gone")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    ev = _Events()
    rpc: str | None = None
    for n, line in iter_lines_with(_GATES + _MORE, artefact):
        r = _RPC.search(line)
        if r is not None:
            rpc = r["rpc"]
        if _SIG.search(line) is not None and _read_line(ev, n, line, rpc):
            result.lines_used += 1
            if r is not None:  # the RPC of the event on its own line
                _read_more(ev, n, line)
        elif _read_more(ev, n, line):
            result.lines_used += 1
    events = sorted(ev.by_key.items(), key=lambda kv: kv[1][0])
    if any(event != "peer_failed" for (event, _), _v in events):  # "Polled an error" said no more than the line after it
        events = [e for e in events if e[0][0] != "peer_failed"]
    for (event, _), (line, fields, ids) in events:
        tasks = ", ".join(sorted(ids, key=int)[:16]) + (", ..." if len(ids) > 16 else "") if ids else None
        count = fields.get("task_count") or (len(ids) if ids else None)
        fb.add(CoordinationServiceError, line, event=event, barrier=fields.get("barrier"), tasks=tasks,
               task_count=count, timeout=fields.get("timeout"), grpc_message=fields.get("grpc_message"),
               peer=fields.get("peer"), detail=_detail(event, fields, tasks))
    return result


#: line signatures (facts/classify.py): one of them occurs in any text detect() accepts
SIGNATURES = (r"Barrier timed out\. (?:Barrier_id|Id): |cluster registration failed|/task:\d+ heartbeat timeout|stopped sending heartbeats"
              r"|has been set to ERROR in coordination service"
              r"|Incarnation ID mismatch|with a different incarnation|(?:Failed to send RPC to|preemption notice from|Polled an error from"
              r"|Failed to disconnect from) coordination service|JAX distributed service detected fatal errors"
              r"|Coordination service agent in error status|Shutdown barrier has failed|GetKeyValue\(\) timed out with key: ",)
_SIG = re.compile(SIGNATURES[0])
