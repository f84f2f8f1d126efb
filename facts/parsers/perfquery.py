"""``perfquery`` and ``perfquery -x`` (infiniband-diags): a port's error and data counters.

Sample content (``perfquery -x``, netdata/netdata#2620)::

    # Port extended counters: Lid 21 port 1 (CapMask: 0x1600 CapMask2: 0x0000000)
    PortSelect:......................1
    PortXmitData:....................13672645927
    SymbolErrorCounter:..............0
    LinkDownedCounter:...............0

Plain ``perfquery`` prints ``# Port counters: Lid 21 port 1 (CapMask: 0x1600)`` and the same
``Name:....value`` lines (32-bit data counters). A file may hold several readings (a capture
run twice, ``date`` printed before each): each block is one ``ib_port_counters`` fact
(evidence: its ``# Port ... counters`` line) numbered by ``reading`` per (LID, port), with
``time_s`` from the last ``date`` / ``date -Iseconds`` line above it, so that the fabric
summary can compute rates. perfquery names the port by LID; the HCA comes from a captured
command line (``perfquery -x -C mlx5_0 -P 1``) when there is one. A counter line whose value
is not a number is a ParseError. Empty output: nothing read.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import COUNTER_FIELDS, IbPortCounters, port_id

KIND = "perfquery"

# # Port counters: Lid 21 port 1 (CapMask: 0x1600)
# # Port extended counters: Lid 21 port 1 (CapMask: 0x1600 CapMask2: 0x0000000)
_HEAD = re.compile(r"^# Port (?P<ext>extended )?counters: Lid (?P<lid>\d+) port (?P<port>\d+)")
# SymbolErrorCounter:..............0
_FIELD = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9]*):\.+(?P<value>\S*)\s*$")
# root@node3:~# perfquery -x -C mlx5_0 -P 1
_CMD = re.compile(r"perfquery\b(?P<args>[^\n]*)$")
_CA_ARG = re.compile(r"(?:-C|--Ca)\s+(?P<hca>\S+)")
# Tue Mar  5 10:00:00 UTC 2024   (date)       2024-03-05T10:00:00+00:00   (date -Iseconds)
_DATE = re.compile(r"^(?:\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d (?:UTC|GMT) \d{4}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:?\d\d))\s*$")
_DETECT = re.compile(r"^# Port (?:extended )?counters: Lid \d+ port \d+", re.M)


def detect(head: str) -> bool:
    return "counters: Lid " in head and bool(_DETECT.search(head))  # a cheap gate


def _time(text: str) -> float:
    text = text.strip()
    if text[:4].isdecimal():  # ISO 8601 (date -Iseconds); "Tue Mar  5 ..." has a T too
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    return datetime.strptime(text.replace("GMT", "UTC"), "%a %b %d %H:%M:%S UTC %Y").replace(tzinfo=timezone.utc).timestamp()


#: a ``date`` / ``date -Iseconds`` line and its time, for the other readers of counter snapshots
#: (sysfs_ib_counters, rdma_statistic): one reading of the clock, one way
DATE_LINE = _DATE
date_time = _time


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    readings: dict[tuple[int, int], int] = {}
    hca: str | None = None
    when: float | None = None
    block: dict | None = None

    def flush() -> None:
        if block is None:
            return
        key = (block["lid"], block["port"])
        block["reading"] = readings.get(key, 0)
        readings[key] = block["reading"] + 1
        line = block.pop("_line")
        if block.get("hca"):
            block["port_id"] = port_id(artefact.node, block["hca"], block["port"])
        fb.add(IbPortCounters, line, **block)

    for n, line in enumerate(artefact.lines, 1):
        m = _HEAD.match(line)
        if m:
            flush()
            block = {"_line": n, "lid": int(m["lid"]), "port": int(m["port"]), "extended": bool(m["ext"]), "hca": hca, "time_s": when, "source": "perfquery"}
            result.lines_used += 1
            continue
        if _DATE.match(line):
            try:
                when = _time(line)
            except ValueError:  # "2026-13-40T..." or "Mon Feb 30 ...": no calendar time
                fb.error(n, f"perfquery: {line.strip()!r} is not a date and time")
                continue
            result.lines_used += 1
            continue
        m = _CMD.search(line)
        if m and not line.startswith("#"):
            flush()
            block = None
            ca = _CA_ARG.search(m["args"])
            hca = ca["hca"] if ca else None
            continue
        if block is None:
            continue
        m = _FIELD.match(line)
        if not m:
            if line.strip():
                flush()
                block = None
            continue
        result.lines_used += 1
        field = COUNTER_FIELDS.get(m["key"])
        if field is None:
            continue
        try:
            block[field] = int(m["value"], 0)
        except ValueError:
            fb.error(n, f"perfquery: {m['key']} value {m['value']!r} is not a number")
    flush()
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
