"""``devlink health show`` (iproute2): a NIC driver's health reporters, each with its state and
how many errors it reported and recovered since the driver loaded.

Sample content (the kernel's mlx5 devlink documentation and iproute2's own commit messages; the
``name`` form is iproute2 before 5.4, Aya Levin's "devlink: Print health reporter's name as
reporter"; a port reporter's handle ends in its port index)::

    $ devlink health show
    pci/0000:04:00.0:
      reporter tx
        state healthy error 0 recover 0 grace_period 500 auto_recover true auto_dump true
      reporter fw_fatal
        state error error 1 recover 0 last_dump_date 2024-03-17
            last_dump_time 09:29:29 grace_period 1200000 auto_recover true auto_dump true
    pci/0000:04:00.0:
       name tx
         state healthy error 0 recover 0 grace_period 500 auto_recover true

Facts: one ``devlink_health_reporter`` per reporter line with its state line: the handle and its
PCI bus id, the reporter's name, ``state`` (healthy | error), ``errors``, ``recovered`` and
``auto_recover``. mlx5's reporters (Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
devlink.rst): tx (TX timeouts and error completions, each recovered by resetting the send queue),
rx (receive queue timeouts and error completions), fw (firmware syndromes, no recovery), fw_fatal
(the firmware's fatal errors, recovered by resetting the whole device). A reporter line whose
state line is not there is a parse error.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.network import DevlinkHealthReporter
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "devlink_health"

# pci/0000:04:00.0:        pci/0000:00:0a.0/1:        auxiliary/mlx5_core.eth.0:
_HANDLE = re.compile(r"^(?P<handle>(?:pci|auxiliary)/(?P<addr>[\w.:-]+?)(?:/(?P<port>\d+))?):\s*$")
#   reporter tx              name tx   (iproute2 < 5.4)
_REPORTER = re.compile(r"^\s+(?:reporter|name) (?P<name>[\w-]+)\s*$")
#     state healthy error 0 recover 0 grace_period 500 auto_recover true auto_dump true
_STATE = re.compile(r"^\s+state (?P<state>healthy|error) error (?P<errors>\d+) recover (?P<recovered>\d+)(?P<rest>.*)$")
_AUTO = re.compile(r"\bauto_recover (?P<auto>true|false)\b")
#: detection: a handle line, a reporter line, its state line
_BLOCK = re.compile(r"^(?:pci|auxiliary)/[\w.:/-]+:[ \t]*\n[ \t]+(?:reporter|name) [\w-]+[ \t]*\n[ \t]+state (?:healthy|error) error \d+ recover \d+", re.M)


def detect(head: str) -> bool:
    return "recover " in head and bool(_BLOCK.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    handle = addr = None
    for n, line in enumerate(lines, 1):
        if m := _HANDLE.match(line):
            handle, addr = m["handle"], m["addr"]
            result.lines_used += 1
            continue
        if handle is None or not (r := _REPORTER.match(line)):
            continue
        result.lines_used += 1
        s = _STATE.match(lines[n]) if n < len(lines) else None
        if s is None:
            fb.error(n, f"devlink health: reporter {r['name']} of {handle} without its state line")
            continue
        result.lines_used += 1
        auto = _AUTO.search(s["rest"]) or (_AUTO.search(lines[n + 1]) if n + 1 < len(lines) else None)
        fb.add(DevlinkHealthReporter, n, handle=handle, pci_bus_id=try_pci_bus_id(addr) if handle.startswith("pci/") else None,
               reporter=r["name"], state=s["state"], errors=int(s["errors"]), recovered=int(s["recovered"]),
               auto_recover=auto["auto"] == "true" if auto else None)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_BLOCK,)
