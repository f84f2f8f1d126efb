"""A cgroup v1 device controller's ``devices.list``: which devices a container may open.

``cat /sys/fs/cgroup/devices/devices.list`` inside a container (or of the container's cgroup on
the host) prints one entry a line, ``TYPE MAJOR:MINOR ACCESS``: type ``a`` (all), ``c`` (char) or
``b`` (block), ``*`` for any number, access letters ``r`` (read), ``w`` (write), ``m`` (mknod)
(the kernel's Documentation/admin-guide/cgroup-v1/devices.rst). NVIDIA's GPU device nodes are
character devices of major 195 (/dev/nvidia0.., nvidiactl 195:255, nvidia-modeset 195:254); the
UVM and caps majors are assigned at load, so only 195 is judged.

Sample content (NVIDIA/nvidia-docker#1618: a Kubernetes GPU container's list hours after start, the
reporter's own ``...`` kept; NVIDIA/nvidia-container-toolkit#192 a whole list)::

    cat /sys/fs/cgroup/devices/devices.list
    ...
    c 195:* m
    c 507:* m
    ...

Facts emitted: one ``device_cgroup_nvidia_access`` per list (its evidence: the first entry that
names major 195, else the first entry): ``access`` the letters the entries covering major 195
grant together (``c 195:N``, ``c 195:*``, ``c *:*``, ``a *:*``), ``can_open`` when one entry grants
both r and w, ``names_nvidia`` when an entry names 195 itself, ``cut`` when the paste elides
entries (a ``...`` line). A list that never names 195 was given no GPU, or the GPUs are in what
was elided: the fact says so (``names_nvidia`` False) and no rule concludes from it. Other lines
(a shell prompt, the ``cat`` command, an ``ls -l /dev`` listing pasted after it) are skipped.
Empty input, or no entry line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import DeviceCgroupNvidiaAccess  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cgroup_devices_list"
NVIDIA_MAJOR = "195"

# c 195:* m            c 195:255 rw            c *:* m            b *:* m            a *:* rwm
_ENTRY = re.compile(r"^(?P<type>[abc]) (?P<major>\d+|\*):(?P<minor>\d+|\*) (?P<access>[rwm]{1,3})\s*$", re.M)
# ...          (the reporter's own elision of entries)
_ELIDED = re.compile(r"^\s*(?:\.\.\.|…)\s*$")
# cat /sys/fs/cgroup/devices/devices.list           # cat  /sys/fs/cgroup/devices//kubepods.slice/.../devices.list
_DETECT = _ENTRY


def detect(head: str) -> bool:
    entries = _ENTRY.findall(head)
    # one entry line is this file only beside the command that printed it; two or more alone
    return len(entries) >= 2 or (len(entries) == 1 and "devices.list" in head)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    access: set[str] = set()
    can_open = names = cut = False
    first = named = 0
    for n, line in enumerate(artefact.lines, 1):
        m = _ENTRY.match(line)
        if m is None:
            if _ELIDED.match(line):
                cut = True
            continue
        result.lines_used += 1
        first = first or n
        if m["type"] == "b" or m["major"] not in (NVIDIA_MAJOR, "*"):
            continue
        if m["major"] == NVIDIA_MAJOR:
            names = True
            named = named or n
        access.update(m["access"])
        can_open = can_open or {"r", "w"} <= set(m["access"])
    if first:
        FactBuilder(artefact, result).add(
            DeviceCgroupNvidiaAccess, named or first, access="".join(c for c in "rwm" if c in access),
            can_open=can_open, names_nvidia=names, cut=cut)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
