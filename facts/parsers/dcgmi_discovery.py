"""``dcgmi discovery -l`` (DCGM): the GPUs, NvSwitches and ConnectX devices the host engine sees.

Sample content (DCGM 3.1.8 on 8 x H800, liguodongiot/llm-action docs/llm-base/dcgmi.md; DCGM 4.x
prints ``N GPUs found (Active).`` and, with ``-a``, a ``Status:`` row and ``(last known)`` for a
GPU that is not OK: dcgmi/Query.cpp)::

    8 GPUs found.
    +--------+----------------------------------------------------------------------+
    | GPU ID | Device Information                                                   |
    +--------+----------------------------------------------------------------------+
    | 0      | Name: NVIDIA H800                                                    |
    |        | PCI Bus ID: 00000000:18:00.0                                         |
    |        | Device UUID: GPU-34bf77d1-c686-6821-79a8-32d326c5039c                |
    0 NvSwitches found.

Facts: ``dcgm_discovered_gpu`` per GPU block (DCGM's GPU id, name, bus id, UUID, the status
when shown, whether the values are the last known ones, whether DCGM could not read the name
``<<<NULL>>>`` or the attributes at all); ``dcgm_discovery_count`` per ``N <devices> found``
line (``gpu``, ``nvswitch``, ``connectx``, ``cpu``). An inventory: it says what DCGM sees, not
how healthy it is. No table: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.dcgm import (  # noqa: F401 - the fact classes live in facts/kinds
    DcgmDiscoveredGpu, DcgmDiscoveryCount,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "dcgmi_discovery"

# 8 GPUs found.   /   1 GPU found (Active).   /   0 NvSwitches found.   /   2 ConnectX found.
_COUNT = re.compile(r"^\s*(?P<n>\d+) (?P<what>GPUs?|NvSwitch(?:es)?|ConnectX|CPUs?) found(?: \((?P<scope>Active|All)\))?\.\s*$")
# | GPU ID | Device Information                                                   |
_TITLE = re.compile(r"^\s*\|\s*GPU ID\s*\|\s*Device Information\s*\|\s*$")
# | 0      | Name: NVIDIA H800                                                    |
# |        | PCI Bus ID: 00000000:18:00.0                                         |
_ROW = re.compile(r"^\s*\|\s*(?P<id>\d*)\s*\|\s*(?P<key>Name|PCI Bus ID|Device UUID|Status|Error)\s*: ?(?P<val>(?:.*\S)?)\s*\|\s*$")
# |        | Return: Host engine connection invalid/disconnected                   |
_OTHER_ROW = re.compile(r"^\s*\|\s*\d*\s*\|[^|]*\|\s*$|^\s*\+[-=+]+\+\s*$|^\s*\|\s*(?:Switch|ConnectX|CPU) ID\s*\|")
_DETECT = re.compile(r"^\s*\|\s*GPU ID\s*\|\s*Device Information\s*\|", re.M)
_LAST_KNOWN = " (last known)"


def detect(head: str) -> bool:
    return "Device Information" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    gpus: list[dict] = []
    cur: dict | None = None
    for n, line in enumerate(artefact.lines, 1):
        if (c := _COUNT.match(line)) is not None:
            what = c["what"].lower()
            device = "gpu" if what.startswith("gpu") else "nvswitch" if what.startswith("nvswitch") else "connectx" if what == "connectx" else "cpu"
            b.add(DcgmDiscoveryCount, n, device=device, count=int(c["n"]),
                  active_only=None if c["scope"] is None else c["scope"] == "Active")
            result.lines_used += 1
            cur = None
        elif _TITLE.match(line):
            result.lines_used += 1
        elif (r := _ROW.match(line)) is not None:
            result.lines_used += 1
            if r["id"]:
                cur = {"line": n, "gpu_id": int(r["id"])}
                gpus.append(cur)
            if cur is None:
                b.error(n, "dcgmi discovery: a device row before any GPU ID")
                continue
            _field(cur, r["key"], r["val"])
        elif cur is not None and (o := re.match(r"^\s*\|\s*\|\s*(?P<val>Return: .*?)\s*\|\s*$", line)):
            cur["attributes_error"] = f"{cur.get('attributes_error') or ''} {o['val']}".strip()
            result.lines_used += 1
        elif _OTHER_ROW.match(line):
            result.lines_used += 1
    for g in gpus:
        b.add(DcgmDiscoveredGpu, g.pop("line"), **g)
    return result


def _field(cur: dict, key: str, val: str) -> None:
    last = val.endswith(_LAST_KNOWN)
    val = val.removesuffix(_LAST_KNOWN).strip()
    cur["last_known"] = cur.get("last_known", False) or last
    if key == "Name":
        cur["name"], cur["name_unavailable"] = (None, True) if val in ("<<<NULL>>>", "") else (val, False)
    elif key == "PCI Bus ID":
        cur["pci_bus_id"] = try_pci_bus_id(val)
    elif key == "Device UUID":
        cur["uuid"] = val or None
    elif key == "Status":
        cur["status"] = val
    else:  # "Error: Cannot get device attributes for GPU."
        cur["attributes_error"] = val


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
