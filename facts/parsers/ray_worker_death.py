"""Ray's reports of a dead process, in the driver's output, a worker's log or the raylet's.

The forms, from ray-project/ray's source:

- the raylet, on a worker that disconnected with a system error (src/ray/raylet/node_manager.cc
  ``DisconnectClient``; since Ray 1.x with the worker's identity and exit, printed by the driver
  behind ``(raylet)`` or a logger's ``WARNING worker.py:N -- ``; Ray 0.8's ``A worker died or was
  killed while executing task <id>.``)::

      (raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ... Worker PID: 870287 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker exits unexpectedly by a signal. ...

- ``ray.exceptions.ActorDiedError`` (python/ray/exceptions.py): ``The actor is dead because its
  worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: ...``;
- the same death as its caller meets it (python/ray/exceptions.py): ``ActorDiedError: The actor died
  unexpectedly before finishing this task.`` (``RayActorError`` in 1.x), its context on tab-indented
  lines (``\tpid: 2370037``, ``\tip: 172.18.103.5``) and then the recorded reason above, one death;
  where a paste keeps only the driver's wrapper, ``RayTaskError(ActorDiedError): ray::TaskRunner.run()
  (pid=..., ip=...)`` (the caller's pid and address, not the dead actor's) stands for it;
- a core worker whose raylet died (src/ray/core_worker/core_worker.cc ``CheckForRayletFailure``,
  ``RAY_LOG(ERROR) << "Raylet failed. Shutting down."``, glog-prefixed:
  ``(pid=81331) E0328 ... core_worker.cc:382] Raylet failed. Shutting down.``);
- the GCS declaring a whole node dead when its health checks went unanswered, as the driver prints
  it (Ray 0.x ``The node with client ID <id> has been marked dead because the monitor has missed too
  many heartbeats from it.``; 1.x-2.x ``The node with node id: <id> and address: <ip> and node name:
  <name> has been marked dead because the detector has missed too many heartbeats from it. This can
  happen when a (1) raylet crashes unexpectedly (OOM, preempted node, etc.) (2) raylet has lagging
  heartbeats due to slow network or busy workload.``), and the death reason the GCS records since
  2.10 (src/ray/gcs/gcs_server/gcs_node_manager.cc: UNEXPECTED_TERMINATION, ``health check failed
  due to missing too many heartbeats``, shown as the dashboard's ``Unexpected termination: ...`` and
  in an actor's ``the actor's node was terminated unexpectedly: ...``)::

      The node with node id: 510c08bfbe1181a04dfcf3cc7c256a189ea984a70293efbe2257c20a and address: <address> and node name: <address> has been marked dead because the detector has missed too many heartbeats from it. This can happen when a 	(1) raylet crashes unexpectedly (OOM, etc.)    (ray-project/ray#46548)

- an actor the GCS destroyed because the node of its owner (the worker that created it) died: the caller's
  ``ActorDiedError`` with the recorded reason ``The actor is dead because its owner has died. Owner Id: <id> Owner Ip
  address: <ip> Owner worker exit type: SYSTEM_ERROR Worker exit detail: Owner's node has crashed.``
  (src/ray/gcs/gcs_server/gcs_actor_manager.cc OnNodeDead, GenOwnerDiedCause; hiyouga/EasyR1#324): the actor's death
  and, beside it, that node's (``what`` node, ``ip`` the owner's address).

A terminal that wrapped the long line is read over the next lines up to the exit detail.
Sample content (verl-project/verl#1986, Unakar/Logic-RL#18).

Facts: ``ray_process_died`` per report: ``what`` (worker, actor_worker, raylet, node), ``exit_type``
(rpc::WorkerExitType: SYSTEM_ERROR, USER_ERROR, NODE_OUT_OF_MEMORY, ...), ``exit_detail``,
``pid``, ``ip`` (a dead node's address where the line gives one). Ray's memory monitor's kills are :mod:`ray_memory_monitor`'s. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import RayProcessDied  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ray_worker_death"

# A worker died or was killed while executing a task by an unexpected system error. ...      (Ray >= 1.x)
# A worker died or was killed while executing task 00000000ffffffff....                       (Ray 0.8)
_WORKER = re.compile(r"A worker died or was killed while executing (?:a task|task \w+)")
# The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: ...
_ACTOR = re.compile(r"The actor is dead because its worker process has died\.")
# the reason when the GCS destroyed the actor with its owner (src/ray/gcs/gcs_server/gcs_actor_manager.cc GenOwnerDiedCause,
# Ray 1.x-2.x): "The actor is dead because its owner has died. Owner Id: %s Owner Ip address: %s Owner worker exit type: %s
# Worker exit detail: %s"; OnNodeDead gives every actor a worker of the dead node owned the detail "Owner's node has crashed."
# The actor is dead because its owner has died. Owner Id: 01000000ffffffffffffffffffffffffffffffffffffffffffffffff Owner Ip address: 172.21.160.9 Owner worker exit type: SYSTEM_ERROR Worker exit detail: Owner's node has crashed.   (hiyouga/EasyR1#324)
_OWNER = re.compile(r"The actor is dead because its owner has died\.(?: Owner Id: \w+)?(?: Owner Ip address: (?P<ip>[\d.]{7,15}|[\w:.\[\]-]{2,64}))?")
_OWNER_NODE = "Owner's node has crashed"
# (pid=81331) E0328 01:02:03.123456 81331 81331 core_worker.cc:382] Raylet failed. Shutting down.
_RAYLET = re.compile(r"\bRaylet failed\. Shutting down\.")
# The node with node id: 9426f4... and address: 10.130.0.113 and node name: 10.130.0.113 has been marked dead because the detector has missed too many heartbeats from it.   (1.x-2.x)
# The node with client ID 37669ef11ddbd4e5fb6ae9e089dedc0475c3f89d has been marked dead because the monitor has missed too many heartbeats from it.   (0.x)
# Unexpected termination: health check failed due to missing too many heartbeats                                  (2.10+, the recorded death reason)
_NODE = re.compile(r"The node with (?:node id: (?P<id>\w+) and address: (?:(?P<addr>[\w.:\[\]-]+)|\S+) and node name: \S+|client ID (?P<cid>\w+))"
                   r" has been marked dead because the (?:detector|monitor) has missed too many heartbeats from it"
                   r"|\bhealth check failed due to missing too many heartbeats\b")
# the exception a caller gets when the actor it called died (python/ray/exceptions.py; RayActorError in 1.x, ActorDiedError
# in 2.x), its context on tab-indented lines after it, then the reason Ray recorded (the _ACTOR text above):
# ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.
# 	class_name: create_colocated_worker_cls.<locals>.WorkerDict
# 	pid: 2370037
# 	ip: 172.18.103.5
_ACTOR_DIED = re.compile(r"\b(?:ActorDiedError|RayActorError): The actor died unexpectedly before finishing this task\.")
_CONTEXT = re.compile(r"^\s+(?P<k>class_name|actor_id|pid|name|namespace|ip): (?P<v>\S[^\n]{0,200})$")
# the caller's caller: Ray wraps that exception in RayTaskError(<its class>) when it re-raises it in the driver, the
# wrapper naming the task that called the dead actor (its pid and ip are that task's, not the dead actor's):
# ray.exceptions.RayTaskError(ActorDiedError): ray::TaskRunner.run() (pid=4030, ip=10.0.2.100, actor_id=3c87465a346071ce4fca78a401000000, repr=<main_ppo.TaskRunner object at 0x7123673b92b0>)   (verl-project/verl#5750)
_WRAPPED = re.compile(r"\bRayTaskError\((?:ActorDiedError|RayActorError)\): ray::(?P<task>[\w.<>]{1,200})\(\)")
_EXIT_TYPE = re.compile(r"(?:Owner w|W)orker exit type: (?P<t>[A-Z_]+)")  # (the owner's: GenOwnerDiedCause's "Owner worker exit type: ")
_EXIT_DETAIL = re.compile(r"Worker exit detail: (?P<d>.(?:.{0,598}?\S)??)\s*$", re.S)
_PID = re.compile(r"Worker PID: (?P<pid>\d+)")
_IP = re.compile(r"Worker IP address: (?:\[)?(?P<ip>[\d.]+)")
_DETECT = re.compile(r"A worker died or was killed while executing|The actor is dead because its (?:worker process|owner) has died|Raylet failed\. Shutting down\."
                     r"|(?:ActorDiedError|RayActorError): The actor died unexpectedly before finishing this task\."
                     r"|RayTaskError\((?:ActorDiedError|RayActorError)\): ray::"
                     r"|has been marked dead because the (?:detector|monitor) has missed too many heartbeats|health check failed due to missing too many heartbeats")


def detect(head: str) -> bool:
    if "died" not in head and "Raylet failed" not in head and "too many heartbeats" not in head and "ActorError)" not in head \
            and "DiedError)" not in head:
        return False
    return _DETECT.search(head) is not None


# a line that starts another record: a worker's "(Name pid=N)" prefix, a log prefix, a traceback, an error
_OTHER = re.compile(r"^\s*$|^[(\[]|^Traceback|^\w*(?:Error|Exception)\b|\s--\s")


def _record(lines: list[str], i: int) -> str:
    """The report at line ``i`` with the lines a terminal wrapped it onto: before its exit detail a
    wrap falls anywhere (joined as is), after it between the detail's sentences (joined by a space)."""
    text = lines[i]
    for nxt in lines[i + 1:i + 4]:
        if _OTHER.search(nxt) or _DETECT.search(nxt):
            break
        text += (" " + nxt.strip()) if "Worker exit detail:" in text else nxt
    return text


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    said = set()  # lines an ActorDiedError's record already told
    for n, line in enumerate(lines, 1):
        if n in said:
            continue
        if "Error" in line and _actor_died(b, result, lines, n, said):
            continue
        if _RAYLET.search(line):
            b.add(RayProcessDied, n, what="raylet", message="Raylet failed. Shutting down.")
            result.lines_used += 1
            continue
        if "too many heartbeats" in line and (m := _NODE.search(line)) is not None:
            b.add(RayProcessDied, n, node=artefact.node_for(m["addr"]), what="node", ip=m["addr"],
                  message=line.strip()[:400])
            result.lines_used += 1
            continue
        worker, actor = _WORKER.search(line), _ACTOR.search(line)
        if worker is None and actor is None:
            continue
        text = _record(lines, n - 1)
        t, d = _EXIT_TYPE.search(text), _EXIT_DETAIL.search(text)
        pid, ip = _PID.search(text), _IP.search(text)
        detail = " ".join(d["d"].split()) if d else None
        b.add(RayProcessDied, n, what="worker" if worker else "actor_worker", exit_type=t["t"] if t else None,
              exit_detail=detail, pid=int(pid["pid"]) if pid else None, ip=ip["ip"] if ip else None,
              message=(f"worker exit {t['t']}: {detail}" if t else (worker or actor)[0])[:400])
        result.lines_used += 1
    return result


def _actor_died(b: FactBuilder, result: ParseResult, lines: list[str], n: int, said: set[int]) -> bool:
    """An actor's death as its caller sees it: the exception with its context and recorded reason
    (one fact), or, where the paste keeps only the driver's wrapper, the wrapper."""
    line = lines[n - 1]
    if _ACTOR_DIED.search(line):
        ctx: dict[str, str] = {}
        j = n
        while j < len(lines) and j < n + 8 and (m := _CONTEXT.match(lines[j])) is not None:
            ctx[m["k"]] = m["v"].strip()
            j += 1
        t = d = owner = None
        if j < len(lines) and (_ACTOR.search(lines[j]) or (owner := _OWNER.search(lines[j]))):
            text = _record(lines, j)
            t, d = _EXIT_TYPE.search(text), _EXIT_DETAIL.search(text)
            said.add(j + 1)
        detail = " ".join(d["d"].split()) if d else None
        if owner is not None and detail and detail.startswith(_OWNER_NODE):
            # the GCS declared the owner's node dead and destroyed the actors its workers owned: that node's loss
            b.add(RayProcessDied, j + 1, what="node", exit_type=t["t"] if t else None, exit_detail=detail, ip=owner["ip"],
                  message=f"the node of the actor's owner{' (' + owner['ip'] + ')' if owner['ip'] else ''} died: {detail}"[:400])
            result.lines_used += 1
        pid = ctx.get("pid", "")
        b.add(RayProcessDied, n, what="actor_worker", exit_type=t["t"] if t else None, exit_detail=detail,
              pid=int(pid) if pid.isdigit() else None, ip=ctx.get("ip"),
              message=(f"actor {ctx.get('class_name', '?')} died: " + (f"worker exit {t['t']}: {detail}" if t
                       else "The actor died unexpectedly before finishing this task."))[:400])
        result.lines_used += 1
        return True
    m = _WRAPPED.search(line)
    if m is None:
        return False
    if not any(_ACTOR_DIED.search(x) or _ACTOR.search(x) for x in lines[n:]):
        # the exception itself is cut from the paste: the wrapper is all that tells of the death
        b.add(RayProcessDied, n, what="actor_worker",
              message=f"an actor that ray::{m['task']}() called died (the driver's RayTaskError; the actor's record is not in the paste)")
    result.lines_used += 1
    return True


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
