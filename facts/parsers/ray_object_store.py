"""Ray's object store placed on disk, or refused, because /dev/shm is too small. Ray prints these
lines among a job's own output (``ray.init()``, ``ray start``, vLLM or Modin starting Ray), so they
are looked for anywhere in a file.

Ray keeps its object store (plasma) in /dev/shm. When /dev/shm is smaller than the store
(``determine_plasma_store_config`` in python/ray/_private/services.py) Ray either falls back to a
disk directory with a warning (the store then pages through the disk: "This will harm
performance!"), or, for a store over 10 GB (Ray 1.3 on), refuses to start
with a ValueError unless ``RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE=1``. A container's /dev/shm is 64 MB
unless given ``--shm-size`` (docker, podman) or a memory ``emptyDir`` (Kubernetes).

Sample content (fixtures/artefacts/ray_object_store, sources in its README)::

    2021-03-11 01:20:22,471 WARNING services.py:1699 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! ...
    ValueError: The configured object store size (63.999983616 GB) exceeds /dev/shm size (63.999520768 GB).

Facts: ``ray_object_store_shm_short`` per such line: ``refused`` (the ValueError), ``directory``
(where the store went), ``shm_bytes`` (/dev/shm's size; from the ValueError's GB figure), ``store_gb``
(the ValueError's store size). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import RayObjectStoreShmShort  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "ray_object_store"

# 2021-03-11 01:20:22,471 WARNING services.py:1699 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! ...   (ray-project/ray#14616)
# 2026-09-11 17:36:10,895	WARNING services.py:2248 -- WARNING: The object store is using /tmp/ray instead of /dev/shm because /dev/shm has only 67108864 bytes available. ...   (Ray 2.x: the directory is get_user_temp_dir(), /tmp/ray)
_FALLBACK = re.compile(
    r"\bThe object store is using (?P<dir>/\S{0,200}) instead of /dev/shm because /dev/shm has only (?P<shm>\d{1,20}) bytes available")
# ValueError: The configured object store size (63.999983616 GB) exceeds /dev/shm size (63.999520768 GB).   (ray-project/ray#23034)
# raise ValueError('The configured object store size ({} GB) exceeds /dev/shm size ({} GB). This will harm performance. ...'   (services.py, quoted in ray-project/ray#16308)
_REFUSED = re.compile(
    r"\bThe configured object store size \((?P<store>\d+(?:\.\d+)?) GB\) exceeds /dev/shm size \((?P<shm>\d+(?:\.\d+)?) GB\)")


def detect(head: str) -> bool:
    return _FALLBACK.search(head) is not None or _REFUSED.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_FALLBACK, artefact):
        result.lines_used += 1
        fb.add(RayObjectStoreShmShort, n, directory=m["dir"], shm_bytes=int(m["shm"]))
    for n, m in iter_matches(_REFUSED, artefact):
        result.lines_used += 1
        fb.add(RayObjectStoreShmShort, n, refused=True, shm_bytes=round(float(m["shm"]) * 1e9),
               store_gb=float(m["store"]))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"The object store is using /\S* instead of /dev/shm because /dev/shm has only",
              r"The configured object store size \([\d.]+ GB\) exceeds /dev/shm size")
