"""Ray's object store placed on disk, or refused, because /dev/shm is too small, and the disk it
spills to full. Ray prints these lines among a job's own output (``ray.init()``, ``ray start``, vLLM
or Modin starting Ray, the raylet's lines that Ray forwards as ``(raylet) ...``), so they are looked
for anywhere in a file.

Ray keeps its object store (plasma) in /dev/shm. When /dev/shm is smaller than the store
(``determine_plasma_store_config`` in python/ray/_private/services.py) Ray either falls back to a
disk directory with a warning (the store then pages through the disk: "This will harm
performance!"), or, for a store over 10 GB (Ray 1.3 on), refuses to start
with a ValueError unless ``RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE=1``. A container's /dev/shm is 64 MB
unless given ``--shm-size`` (docker, podman) or a memory ``emptyDir`` (Kubernetes).

Sample content (fixtures/artefacts/ray_object_store, sources in its README)::

    2021-03-11 01:20:22,471 WARNING services.py:1699 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! ...
    ValueError: The configured object store size (63.999983616 GB) exceeds /dev/shm size (63.999520768 GB).
    (raylet) [2025-12-23 23:06:29,336 E 133251 133275] (raylet) file_system_monitor.cc:116: /tmp/ray/session_2025-12-23_22-55-15_211286_132135 is over 95% full, available space: 46.5185 GB; capacity: 7096.47 GB. Object creation will fail if spilling is required.

The raylet watches the file system of its session directory (and of a filesystem spilling
config's directory_path): over RAY_local_fs_capacity_threshold (0.95) it logs the last line at
ERROR every 10 s (an "Out of Disk" event) and creating an object that has to be spilled fails.

Facts: ``ray_object_store_shm_short`` per such line: ``refused`` (the ValueError), ``directory``
(where the store went), ``shm_bytes`` (/dev/shm's size; from the ValueError's GB figure), ``store_gb``
(the ValueError's store size). ``ray_spill_disk_full`` per over-capacity line: ``path``,
``threshold_percent``, ``available_bytes`` and ``capacity_bytes`` (Ray 2.x prints GiB, older Rays
bytes). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import RayObjectStoreShmShort, RaySpillDiskFull  # noqa: F401 - the fact classes live in facts/kinds
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

# src/ray/common/file_system_monitor.cc OverCapacityImpl (Ray 2.x):
#   ostr << path << " is over " << capacity_threshold_ * 100 << "% full, available space: " << available_gb << " GB"
#        << "; capacity: " << capacity_gb << " GB" << ". Object creation will fail if spilling is required.";
#   RAY_LOG_EVERY_MS(ERROR, 10 * 1000) << ostr.str();      (GB: bytes / 1024^3)
# (APIServer pid=132135) (raylet) [2025-12-23 23:06:29,336 E 133251 133275] (raylet) file_system_monitor.cc:116: /tmp/ray/session_2025-12-23_22-55-15_211286_132135 is over 95% full, available space: 46.5185 GB; capacity: 7096.47 GB. Object creation will fail if spilling is required.   (vllm-project/vllm#26278)
# an older Ray printed the byte counts without a unit:
# (raylet) [2024-12-30 05:28:51,682 E 1256 1290] (raylet) file_system_monitor.cc:111: /tmp/ray/session_2024-12-27_07-51-19_644705_918 is over 95% full, available space: 133932761088; capacity: 3998267736064. Object creation will fa   (OpenRLHF/OpenRLHF#638)
# the message quoted as an issue's title, its last sentence left off:
# train GRPO /tmp/ray/session_2025-05-19_04-19-55_287964_976346 is over 95% full, available space: 2.03779 GB; capacity: 69.9336 GB.   (hiyouga/EasyR1#300)
# (the path is the word before the match, taken in Python: a leading "/\S{0,300}" is tried at every slash of a line)
_SPILL_FULL = re.compile(
    r"(?<=\S) is over (?P<pct>\d{1,3}(?:\.\d{1,6})?)% full, available space: "
    r"(?P<avail>\d{1,20}(?:\.\d{1,9})?)(?P<gb> GB)?; capacity: (?P<cap>\d{1,20}(?:\.\d{1,9})?)")
# python/ray/exceptions.py OutOfDiskError.__str__: super().__str__() + "\nThe object cannot be created because the local
#   object store is full and the local disk's utilization is over capacity (95% by default).Tip: Use `df` on this node
#   to check disk usage and `ray memory` to check object store memory usage."  (what a task or ray.put gets then)
# ray.exceptions.OutOfDiskError: ('50084993dcbe7a5cffffffffffffffffffffffff0200000083000000', b'\n\x1c...', '')
# The object cannot be created because the local object store is full and the local disk's utilization is over capacity (95% by default).Tip: Use `df` on this node to check disk usage and `ray memory` to check object store memory usage.   (ray-project/ray#50408)
_OUT_OF_DISK = re.compile(r"\bThe object cannot be created because the local object store is full and the local disk's"
                          r" utilization is over capacity")
_GIB = 1024 ** 3


def detect(head: str) -> bool:
    return any(p.search(head) is not None for p in (_FALLBACK, _REFUSED, _SPILL_FULL, _OUT_OF_DISK))


def _bytes(figure: str, gb: bool) -> int:
    return round(float(figure) * _GIB) if gb else int(float(figure))


def _word_before(text: str, end: int) -> str:
    """The run of non-blank characters of ``text`` that ends at ``end``."""
    start = max(text.rfind(c, 0, end) for c in " \t\n") + 1
    return text[start:end]


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
    for n, m in iter_matches(_SPILL_FULL, artefact):
        path = _word_before(artefact.text, m.start())
        if not path.startswith("/"):  # Ray prints the absolute directory it watches
            continue
        result.lines_used += 1
        gb = m["gb"] is not None
        fb.add(RaySpillDiskFull, n, path=path, threshold_percent=float(m["pct"]),
               available_bytes=_bytes(m["avail"], gb), capacity_bytes=_bytes(m["cap"], gb))
    for n, _m in iter_matches(_OUT_OF_DISK, artefact):
        result.lines_used += 1
        fb.add(RaySpillDiskFull, n, raised=True)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"The object store is using /\S* instead of /dev/shm because /dev/shm has only",
              r"The configured object store size \([\d.]+ GB\) exceeds /dev/shm size",
              r"/\S* is over [\d.]+% full, available space: [\d.]+(?: GB)?; capacity: ",
              r"The object cannot be created because the local object store is full and the local disk's utilization")
