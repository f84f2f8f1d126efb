"""ray_memory_monitor: Ray's memory monitor killing workers when the node's host memory runs low."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ray_memory_monitor
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_memory_monitor"


def parse_text(text: str, normalise: bool = True):
    art = Artefact(path="t.log", text=text, node="node1")
    if normalise:
        art.normalise()
    return ray_memory_monitor.parse(art)


@pytest.mark.parametrize("name,line,ip,killed", [
    ("ray45894_raylet_summary_oom.txt", 1, "172.19.0.10", 1),
])
def test_raylet_summary(name, line, ip, killed):
    text = (FIX / name).read_text()
    assert ray_memory_monitor.detect(text)
    got = [(f.evidence.line, f.ip, f.killed, f.used_gb) for f in parse_text(text).facts]
    assert got == [(line, ip, killed, None)]


def test_raylet_summary_hard_wrapped():
    # vllm-project/vllm#1160: the summary wrapped at a fixed width; its count ends the first line
    text = (FIX / "vllm1160_summary_wrapped_syslog_escapes.txt").read_text()
    assert ray_memory_monitor.detect(text)
    assert [(f.evidence.line, f.killed) for f in parse_text(text).facts] == [(1, 2)]
    # wrapped with nothing killed, or without the count before it: no kill of the monitor's
    zero = text.replace(": 2 Workers (tasks /", ": 0 Workers (tasks /")
    assert parse_text(zero).facts == []
    assert parse_text("\n".join(text.splitlines()[1:]) + "\n").facts == []


def test_eviction_line_of_ray_2_1():
    text = (FIX / "ray28774_system_memory_low_eviction.txt").read_text()
    got = [(f.evidence.line, f.ip, f.used_gb, f.total_gb, f.threshold) for f in parse_text(text).facts]
    assert got == [(1, "172.31.66.10", 54.90, 57.60, 0.95)]


def test_task_error_takes_the_detail_below():
    text = (FIX / "ray28776_task_oom_error.txt").read_text()
    got = [(f.evidence.line, f.ip, f.used_gb, f.total_gb, f.threshold) for f in parse_text(text).facts]
    assert got == [(1, "172.31.69.247", 54.86, 57.60, 0.95)]


def test_task_error_alone():
    line = "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."
    assert [(f.ip, f.used_gb) for f in parse_text(line).facts] == [(None, None)]


@pytest.mark.parametrize("text", [
    # the summary when nothing was killed for memory (only crashes): no kill of the monitor's
    "(raylet) node_manager.cc:3040: 0 Workers (tasks / actors) killed due to memory pressure (OOM), 2 Workers crashed "
    "due to other reasons at node (ID: 2c82620270df6b9dd7ae2791ef51ee4b5a9d5df9f795986c10dd219c, IP: 172.31.183.172) "
    "over the last time period.",
    # a worker that died for another reason names the OOM killer only as a possibility
    "(raylet) A worker died or was killed while executing a task by an unexpected system error. (1) The process is "
    "killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called.",
    "",
])
def test_no_kill(text):
    assert parse_text(text).facts == []
