"""TensorFlow's collective ops refusing a device that joins a group under another size, in a
TensorFlow program's output (MirroredStrategy, MultiWorkerMirroredStrategy, collective_ops).

The collective parameter resolver (tensorflow/core/common_runtime/collective_param_resolver_local.cc)
makes a group the first time a group key is used and checks every later member against it::

    errors::Internal("Device ", device.name(), " is joining a group with size", group_size,
                     ", but that group has size ", gr->group.group_size, " (group_key=", key, ")")   (TF 2.4 on)
    errors::Internal("Collective Op ", cp->name, " has group_size ", ..., " and group_key", ...,
                     " but that group has size ", gr->group.group_size)                            (TF 1.x - 2.3)

Sample content (real lines; the first as a TensorFlow maintainer quoted it in
tensorflow/tensorflow#61314, where two ``tf.distribute`` strategies made in one process shared a
collective key)::

    `Device /job:localhost/replica:0/task:0/device:GPU:1 is joining a group with size 2, but that group has size 3 (group_key=1)` means that ...

Facts: one ``tf_collective_group_mismatch`` per distinct (sizes, key) of a file. Text without these
lines yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TfCollectiveGroupMismatch  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "tf_collective"

# Device /job:localhost/replica:0/task:0/device:GPU:1 is joining a group with size 2, but that group has size 3 (group_key=1)
# Collective Op  has group_size 8 and group_key2 but that group has size 4
_LINE = re.compile(
    r"(?:Device (?P<device>\S+) is joining a group with size ?(?P<joining>\d+), but"
    r"|Collective Op \S* ?has group_size (?P<old_joining>\d+) and group_key ?(?P<old_key>\d+) but) that group has size (?P<size>\d+)"
    r"(?: \(group_key=(?P<key>\d+)\))?")


def detect(text: str) -> bool:
    return _LINE.search(text) is not None  # asked only where SIGNATURES matched (facts/classify.py)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple[int, int, int | None]] = set()
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        result.lines_used += 1
        joining = int(m["joining"] or m["old_joining"])
        key = m["key"] or m["old_key"]
        sig = (joining, int(m["size"]), int(key) if key else None)
        if sig in seen:  # every member and every step repeats it
            continue
        seen.add(sig)
        fb.add(TfCollectiveGroupMismatch, n, device=m["device"], joining_size=sig[0], group_size=sig[1], group_key=sig[2])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"is joining a group with size ?\d+, but that group has size \d|has group_size \d+ and group_key ?\d+ but that group has size \d",)
