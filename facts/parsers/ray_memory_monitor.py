"""Ray's memory monitor: the raylet killed workers because the node's host memory ran low. Ray
prints its lines among a job's own output (the driver echoes the raylet's with a ``(raylet)``
prefix), so they are looked for anywhere in a file.

The raylet's memory monitor (Ray 2.0 on) kills a task or actor process when the node's memory
use passes ``RAY_memory_usage_threshold`` (0.95 by default), before the kernel's OOM killer
would. Its forms, as Ray prints them (Ray's doc/source/ray-core/scheduling/ray-oom-prevention.rst
quotes each; the samples are real lines from the public threads named):

- the periodic summary (2.2 on, node_manager.cc)::

    (raylet) node_manager.cc:2963: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: effcf9ebbdbb07348e8e854f957c89b8d8425c62407725df832963a2, IP: 172.19.0.10) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip 172.19.0.10`    (ray-project/ray#45894)

- the killed task's error (``ray.exceptions.OutOfMemoryError``, or a worker's exit detail)::

    ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.    (ray-project/ray#30312, the new message)
    Memory on the node (IP: 172.17.0.2, ID: 8c5a1410013588601db2a6344fa1e07476f4378155083682818ebb94) where the task (task ID: 41617bc740ae9ca27726b37f8578c02f4cf1698d01000000, name=allocate_memory, pid=548, memory used=12.18GB) was running was 21.91GB / 33.28GB (0.658192), which exceeds the memory usage threshold of 0.65. Ray killed this worker ...

- the eviction line of 2.0/2.1 (the raylet's, before the summary existed)::

    (raylet, ip=172.31.66.10) [2022-09-22 16:02:34,214 E 138 138] (raylet) node_manager.cc:2966: System memory low at node with IP 172.31.66.10. Used memory (54.90GB) / total capacity (57.60GB) (0.95307) exceeds threshold 0.95, killing latest task with name  and task ID NIL_ID to avoid running out of memory.    (ray-project/ray#28774)

Facts: ``ray_memory_monitor_kill`` per line that says the monitor killed work: ``ip`` (the node
as Ray names it, when the line does), ``killed`` (the summary's count, else None),
``used_gb``/``total_gb``/``threshold`` (when the line gives them). The summary's "0 Workers
killed ..." (nothing killed) is not a kill. The "Memory on the node ..." line that follows an
``OutOfMemoryError`` adds its figures to that fact rather than making a second one. Empty input,
or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    RayMemoryMonitorKill,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "ray_memory_monitor"

_IP = r"[0-9A-Fa-f.:]{3,45}"
# (raylet) node_manager.cc:2963: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: effcf9...2a2, IP: 172.19.0.10) over the last time period.
_SUMMARY = re.compile(
    r"\b(?P<n>\d{1,9}) Workers \(tasks / actors\) killed due to memory pressure \(OOM\), \d{1,9} Workers crashed "
    r"due to other reasons at node \(ID: \w{1,64}, IP: (?P<ip>" + _IP + r")\)")
# The same summary hard-wrapped by the log's viewer or syslog (a fixed width, mid-word), its count left on the line before:
# #033[2m#033[33m(raylet)#033[0m [DATE] (raylet) node_manager.cc:3007: 2 Workers (tasks /
#  actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: abd406d415bd2b74a5
#   (vllm-project/vllm#1160: rsyslog's #033 for ESC, wrapped at 116 columns); the node's IP is on the third line
_SUMMARY_WRAPPED = re.compile(r"\bkilled due to memory pressure \(OOM\), \d{1,9} Workers crashed due to other reasons at node\b")
_WRAPPED_COUNT = re.compile(r"\b(?P<n>\d{1,9}) Workers(?: \(tasks(?: /)?)?[ \t]*$")
# ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.
# ... Worker exit type: SYSTEM_ERROR Worker exit detail: Task was killed due to the node running low on memory.
_TASK = re.compile(r"\bTask was killed due to the node running low on memory\.")
# Memory on the node (IP: 172.17.0.2, ID: 8c5a14...bb94) where the task (...) was running was 21.91GB / 33.28GB (0.658192), which exceeds the memory usage threshold of 0.65.
# Memory on the node (IP: 172.31.69.247, ID: 5bf8d2...661b) where the task was running was 54.86GB / 57.60GB (0.952354), which exceeds the memory usage threshold of 0.95.
_DETAIL = re.compile(
    r"\bMemory on the node \(IP: (?P<ip>" + _IP + r"), ID: \w{1,64}\) where the task[^\n]{0,600}? was running was "
    r"(?P<used>\d+(?:\.\d+)?)GB / (?P<total>\d+(?:\.\d+)?)GB \([\d.]+\), which exceeds the memory usage threshold of "
    r"(?P<thr>\d*\.?\d+)")
# System memory low at node with IP 172.31.66.10. Used memory (54.90GB) / total capacity (57.60GB) (0.95307) exceeds threshold 0.95, killing latest task ...
_EVICT = re.compile(
    r"\bSystem memory low at node with IP (?P<ip>" + _IP + r")\. Used memory \((?P<used>\d+(?:\.\d+)?)GB\) / total "
    r"capacity \((?P<total>\d+(?:\.\d+)?)GB\) \([\d.]+\) exceeds threshold (?P<thr>\d*\.?\d+), killing")


def detect(head: str) -> bool:
    return any(p.search(head) for p in (_SUMMARY, _TASK, _EVICT, _SUMMARY_WRAPPED))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    details = {n: m for n, m in iter_matches(_DETAIL, artefact)}
    whole: set[int] = set()
    for n, m in iter_matches(_SUMMARY, artefact):
        whole.add(n)
        result.lines_used += 1
        if int(m["n"]) > 0:
            fb.add(RayMemoryMonitorKill, n, node=artefact.node_for(m["ip"]), ip=m["ip"], killed=int(m["n"]))
    lines = artefact.lines
    for n, _ in iter_matches(_SUMMARY_WRAPPED, artefact):
        # a wrapped summary: its count ends the line before (without it, "0 killed" could not be told apart)
        if n in whole or n < 2 or (c := _WRAPPED_COUNT.search(lines[n - 2])) is None:
            continue
        result.lines_used += 2
        if int(c["n"]) > 0:
            fb.add(RayMemoryMonitorKill, n - 1, killed=int(c["n"]))
    for n, m in iter_matches(_EVICT, artefact):
        result.lines_used += 1
        fb.add(RayMemoryMonitorKill, n, node=artefact.node_for(m["ip"]), ip=m["ip"], used_gb=float(m["used"]),
               total_gb=float(m["total"]), threshold=float(m["thr"]))
    used: set[int] = set()
    for n, _ in iter_matches(_TASK, artefact):
        result.lines_used += 1
        # its figures: the "Memory on the node ..." line itself or one of the next two
        d_line = next((k for k in (n, n + 1, n + 2) if k in details and k not in used), None)
        if d_line is None:
            fb.add(RayMemoryMonitorKill, n)
            continue
        used.add(d_line)
        d = details[d_line]
        result.lines_used += d_line != n
        fb.add(RayMemoryMonitorKill, n, node=artefact.node_for(d["ip"]), ip=d["ip"], used_gb=float(d["used"]),
               total_gb=float(d["total"]), threshold=float(d["thr"]))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Workers \(tasks / actors\) killed due to memory pressure \(OOM\)",
              r"killed due to memory pressure \(OOM\), \d+ Workers crashed due to other reasons at node",
              r"Task was killed due to the node running low on memory",
              r"System memory low at node with IP ")
