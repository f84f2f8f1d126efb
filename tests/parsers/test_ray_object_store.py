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


@pytest.mark.parametrize("text", [
    # Ray's note when /dev/shm was big enough, and a user's plasma_directory (not verified)
    "2023-11-15 00:41:41,352 INFO worker.py:1625 -- Started a local Ray instance.",
    "object_store_memory is not verified when plasma_directory is set.",
    "",
])
def test_nothing_else(text):
    assert not ray_object_store.detect(text)
    assert parse_text(text).facts == []
