"""Ray's reports of a dead process, in the driver's output, a worker's log or the raylet's.

The forms, from ray-project/ray's source:

- the raylet, on a worker that disconnected with a system error (src/ray/raylet/node_manager.cc
  ``DisconnectClient``; since Ray 1.x with the worker's identity and exit, printed by the driver
  behind ``(raylet)`` or a logger's ``WARNING worker.py:N -- ``; Ray 0.8's ``A worker died or was
  killed while executing task <id>.``)::

      (raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ... Worker PID: 870287 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker exits unexpectedly by a signal. ...

- ``ray.exceptions.ActorDiedError`` (python/ray/exceptions.py): ``The actor is dead because its
  worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: ...``;
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
# (pid=81331) E0328 01:02:03.123456 81331 81331 core_worker.cc:382] Raylet failed. Shutting down.
_RAYLET = re.compile(r"\bRaylet failed\. Shutting down\.")
# The node with node id: 9426f4... and address: 10.130.0.113 and node name: 10.130.0.113 has been marked dead because the detector has missed too many heartbeats from it.   (1.x-2.x)
# The node with client ID 37669ef11ddbd4e5fb6ae9e089dedc0475c3f89d has been marked dead because the monitor has missed too many heartbeats from it.   (0.x)
# Unexpected termination: health check failed due to missing too many heartbeats                                  (2.10+, the recorded death reason)
_NODE = re.compile(r"The node with (?:node id: (?P<id>\w+) and address: (?:(?P<addr>[\w.:\[\]-]+)|\S+) and node name: \S+|client ID (?P<cid>\w+))"
                   r" has been marked dead because the (?:detector|monitor) has missed too many heartbeats from it"
                   r"|\bhealth check failed due to missing too many heartbeats\b")
_EXIT_TYPE = re.compile(r"Worker exit type: (?P<t>[A-Z_]+)")
_EXIT_DETAIL = re.compile(r"Worker exit detail: (?P<d>.{1,600}?)\s*$", re.S)
_PID = re.compile(r"Worker PID: (?P<pid>\d+)")
_IP = re.compile(r"Worker IP address: (?:\[)?(?P<ip>[\d.]+)")
_DETECT = re.compile(r"A worker died or was killed while executing|The actor is dead because its worker process has died|Raylet failed\. Shutting down\."
                     r"|has been marked dead because the (?:detector|monitor) has missed too many heartbeats|health check failed due to missing too many heartbeats")


def detect(head: str) -> bool:
    if "died" not in head and "Raylet failed" not in head and "too many heartbeats" not in head:
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
    for n, line in enumerate(lines, 1):
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


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
