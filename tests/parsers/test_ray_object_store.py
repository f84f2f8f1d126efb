"""ray_object_store: Ray's object store put on disk, or refused, because /dev/shm is too small."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ray_object_store
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_object_store"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return ray_object_store.parse(art)


def test_fallback_to_tmp_in_docker():
    text = (FIX / "ray14616_fallback_then_valueerror.txt").read_text()
    assert ray_object_store.detect(text)
    got = [(f.evidence.line, f.refused, f.directory, f.shm_bytes, f.store_gb) for f in parse_text(text).facts]
    assert got == [(8, False, "/tmp", 67108864, None)]


def test_valueerror_store_exceeds_dev_shm():
    text = (FIX / "ray23034_valueerror_exceeds_dev_shm.txt").read_text()
    got = [(f.refused, f.directory, f.shm_bytes, f.store_gb) for f in parse_text(text).facts]
    assert got == [(True, None, 63999520768, 63.999983616)]


def test_ray_2_temp_dir_and_tab_separated_prefix():
    # Ray 2.x names its own temp dir; its logger separates the time from the level with a tab
    line = ("2026-09-11 17:36:10,895\tWARNING services.py:2248 -- WARNING: The object store is using /tmp/ray instead of "
            "/dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance!")
    assert [(f.directory, f.shm_bytes) for f in parse_text(line).facts] == [("/tmp/ray", 67108864)]


def test_raylet_disk_over_capacity_ray_2_gib():
    # Ray 2.x's raylet (file_system_monitor.cc) every 10 s under vLLM's API server (the fifth cut by the paste after its capacity)
    text = (FIX / "vllm26278_raylet_disk_over_95_percent.log").read_text()
    assert ray_object_store.detect(text)
    got = [(f.evidence.line, f.path, f.threshold_percent, f.available_bytes, f.capacity_bytes) for f in parse_text(text).facts]
    path = "/tmp/ray/session_2025-12-23_22-55-15_211286_132135"
    assert got == [(n, path, 95.0, round(46.5185 * 1024 ** 3), round(7096.47 * 1024 ** 3)) for n in (1, 2, 3, 4, 5)]


def test_raylet_disk_over_capacity_older_ray_bytes():
    text = (FIX / "openrlhf638_raylet_disk_over_95_percent_bytes.log").read_text()
    got = [(f.path, f.threshold_percent, f.available_bytes, f.capacity_bytes) for f in parse_text(text).facts]
    assert got == [("/tmp/ray/session_2024-12-27_07-51-19_644705_918", 95.0, 133932761088, 3998267736064)]


def test_raylet_disk_line_quoted_as_a_title():
    # hiyouga/EasyR1#300's title: the message without its last sentence, after the reporter's words
    line = ("train GRPO /tmp/ray/session_2025-05-19_04-19-55_287964_976346 is over 95% full, available space: "
            "2.03779 GB; capacity: 69.9336 GB.")
    got = [(f.path, f.available_bytes) for f in parse_text(line).facts]
    assert got == [("/tmp/ray/session_2025-05-19_04-19-55_287964_976346", round(2.03779 * 1024 ** 3))]


def test_out_of_disk_error_raised():
    # ray.exceptions.OutOfDiskError's message (python/ray/exceptions.py), as ray-project/ray#50408 pasted it
    text = (FIX / "ray50408_out_of_disk_error.txt").read_text()
    assert ray_object_store.detect(text)
    got = [(f.evidence.line, f.raised, f.path, f.available_bytes) for f in parse_text(text).facts]
    assert got == [(2, True, None, None)]


@pytest.mark.parametrize("text", [
    # Ray's note when /dev/shm was big enough, and a user's plasma_directory (not verified)
    "2023-11-15 00:41:41,352 INFO worker.py:1625 -- Started a local Ray instance.",
    "object_store_memory is not verified when plasma_directory is set.",
    # ray memory's object store usage, and df's usage of the disk: no threshold crossed by Ray
    "Plasma memory usage 50 MiB, 1 objects, 50.0% full",
    "/dev/nvme0n1p1  1.8T  1.7T   93G  95% /",
    # the object store full without the disk (python/ray/exceptions.py ObjectStoreFullError): not the disk's
    "The local object store is full of objects that are still in scope and cannot be evicted. Tip: Use the `ray memory` command to list active objects in the cluster.",
    "",
])
def test_nothing_else(text):
    assert not ray_object_store.detect(text)
    assert parse_text(text).facts == []
