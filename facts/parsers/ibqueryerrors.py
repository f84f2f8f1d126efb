"""``ibqueryerrors`` (infiniband-diags): the fabric's ports whose error counters are above threshold.

Sample content (guilbaults/infiniband-exporter#48 and #20; formats of ibqueryerrors.c)::

    Errors for "maestro-3002 HCA-1"
       GUID 0xc42a1030079989c port 1: [PortXmitWait == 2544] [PortXmitData == 6399401 (24.412MB)] ...
    GUID 0xc42a10300dcf8e2 port 1: [SymbolErrorCounter == 3] [PortXmitWait == 12097916]

    ## Summary: 1 nodes checked, 0 bad nodes found
    ##          1 ports checked, 0 ports have errors beyond threshold

A switch's header is ``Errors for 0x<guid> "<description>"``, a CA's ``Errors for "<description>"``;
each port line lists ``[Name == value]`` for the counters above the threshold (0 unless a threshold
file says otherwise), a 64-bit extended counter with its human-readable value after it
(``[SymbolErrorCounter == 70000 (68.359K)]``). ``-r`` adds a ``Link info:`` line in iblinkinfo's
layout (read as ``ib_link_info``, source ibqueryerrors); ``--data`` adds the data counters.

Facts: ``ib_port_counters`` per port line (source ibqueryerrors), the same kind perfquery and
sysfs readings make, so the port-counter rules judge it: one reading, a count since the counters
were cleared. The port is named ``<node>/<description or GUID>/<port>``: it is a port of the fabric
(a switch or another host's HCA), not necessarily of the node the tool ran on. A counter not listed
was at or below its threshold and is left unknown (None). ``PortXmitWait`` counts congestion
(time a port had data and no credit to send), not errors: read past, as the other counters that
have no ``ib_port_counters`` field. A ``port ALL:`` line (a switch's aggregate) is read past. A
``## Summary`` with ``0 ports have errors`` is a clean reading (lines used, no fact). A counter
whose value is not a number is a ParseError. Empty output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import COUNTER_FIELDS, IbLinkInfo, IbPortCounters, port_id
from stethoscope.facts.parsers.iblinkinfo import link_fields

KIND = "ibqueryerrors"

# Errors for 0x0002c90200429160 "l-2-3 IS5030"        /      Errors for "maestro-3002 HCA-1"
_HEAD = re.compile(r'^(?:Errors|Data Counters) for (?:0x(?P<guid>[0-9a-fA-F]{1,16}) )?"(?P<desc>[^"\n]{0,200})"\s*$')
#    GUID 0xc42a10300dcf8e2 port 1: [SymbolErrorCounter == 3] [PortXmitWait == 12097916]
_PORT = re.compile(r"^[ \t]*GUID 0x(?P<guid>[0-9a-fA-F]{1,16}) port (?P<port>\d+|ALL):(?P<rest>[^\n]{0,4000})$")
# [SymbolErrorCounter == 3]   /   [PortXmitData == 6399401 (24.412MB)]
_COUNTER = re.compile(r"\[(?P<name>[A-Za-z0-9]{1,40}) == (?P<value>[^\]\s]{1,24})(?P<human> \([^)\]]{0,20}\))?\]")
#        Link info:    122   1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>  0x0002c90200429160      2   34[  ] "l-2-3 IS5030" ( )
_LINK_INFO = re.compile(r"^[ \t]*Link info:[ \t]+(?P<lid>\d+)[ \t]+(?P<port>\d+)\[[ \d]{0,3}\] ==\((?P<link>[^\n]{1,120}?)\)==>[ \t]*(?P<peer>[^\n]{0,400})$")
# ## Summary: 1 nodes checked, 0 bad nodes found   /   ##          1 ports checked, 0 ports have errors beyond threshold
_SUMMARY = re.compile(r"^## (?:Summary: \d+ nodes checked|[ \t]+\d+ ports checked|Thresholds:|Suppressed:|[ \t]+\d+ PMA query failures)")
_DETECT = re.compile(r'^(?:Errors for (?:0x[0-9a-fA-F]{1,16} )?"|[ \t]*GUID 0x[0-9a-fA-F]{1,16} port (?:\d+|ALL): \[|## Summary: \d+ nodes checked)', re.M)


def detect(head: str) -> bool:
    return ("GUID 0x" in head or "Errors for" in head or "## Summary:" in head) and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    desc: str | None = None
    last: tuple[str | None, int] | None = None  # the node and port of the last port line, for its Link info
    for n, line in enumerate(artefact.lines, 1):
        h = _HEAD.match(line)
        if h:
            desc = h["desc"].strip() or None
            result.lines_used += 1
            continue
        m = _PORT.match(line)
        if m:
            result.lines_used += 1
            if m["port"] == "ALL":
                continue
            port = int(m["port"])
            name = desc or f"0x{m['guid']}"
            fields: dict = {}
            extended = False
            for c in _COUNTER.finditer(m["rest"]):
                field = COUNTER_FIELDS.get(c["name"])
                if field is None:
                    continue  # PortXmitWait (congestion), VL15Dropped, the data counters
                try:
                    fields[field] = int(c["value"], 0)
                except ValueError:
                    fb.error(n, f"ibqueryerrors: {c['name']} value {c['value']!r} is not a number")
                    continue
                if field not in ("xmit_data", "rcv_data"):  # --data prints the short form on every data counter
                    extended = extended or bool(c["human"])  # an error counter prints it only when 64-bit (extended)
            last = (name, port)
            if any(k not in ("xmit_data", "rcv_data") for k in fields):  # data counters alone judge nothing
                fb.add(IbPortCounters, n, hca=name, port=port, port_id=port_id(artefact.node, name, port),
                       extended=extended, source="ibqueryerrors", **fields)
            continue
        m = _LINK_INFO.match(line)
        if m:
            fields = link_fields(m["link"], m["peer"])
            if fields is None:
                fb.error(n, f"ibqueryerrors: unreadable link {m['link'].strip()!r}")
                continue
            fb.add(IbLinkInfo, n, node_description=last[0] if last else desc, lid=int(m["lid"]), port=int(m["port"]),
                   source="ibqueryerrors", **fields)
            result.lines_used += 1
            continue
        if _SUMMARY.match(line):
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
