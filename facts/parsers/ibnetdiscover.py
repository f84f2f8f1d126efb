"""``ibnetdiscover`` (infiniband-diags): the fabric as the subnet manager sees it.

Sample content (format of the ibnetdiscover(8) man page and its topology files)::

    Switch  40 "S-b8599f0300e4c4f2"         # "MF0;leaf01:MQM8700/U1" enhanced port 0 lid 1 lmc 0
    [1]     "H-0c42a10300ac1e2a"[1](c42a10300ac1e2a)         # "node01 mlx5_0" lid 5 4xHDR
    Ca      1 "H-0c42a10300ac1e2a"          # "node01 mlx5_0"
    [1](c42a10300ac1e2a)    "S-b8599f0300e4c4f2"[1]          # lid 5 lmc 0 "MF0;leaf01:MQM8700/U1" lid 1 4xHDR

Facts: ``ib_fabric_node`` per ``Switch``/``Ca``/``Rt`` line and ``ib_fabric_link`` per port
line (each cable appears twice, once from each end; the topology graph merges them). The
``vendid=``/``devid=``/``*guid=`` lines are read past. A port line outside a node block is a
ParseError. Empty output: nothing discovered.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import IbFabricLink, IbFabricNode

KIND = "ibnetdiscover"

# Switch  40 "S-b8599f0300e4c4f2"         # "MF0;leaf01:MQM8700/U1" enhanced port 0 lid 1 lmc 0
# Ca      1 "H-0c42a10300ac1e2a"          # "node01 mlx5_0"
_NODE = re.compile(r'^(?P<type>Switch|Ca|Rt)\s+(?P<ports>\d+)\s+"(?P<guid>[^"]+)"\s*#\s*"(?P<desc>[^"]*)"(?P<rest>.*)$')
# [1]     "H-0c42a10300ac1e2a"[1](c42a10300ac1e2a)         # "node01 mlx5_0" lid 5 4xHDR
_SW_PORT = re.compile(r'^\[(?P<lport>\d+)\]\s+"(?P<rguid>[^"]+)"\[(?P<rport>\d+)\](?:\([0-9a-fA-F]+\))?\s*#\s*"(?P<rdesc>[^"]*)"(?P<rest>.*)$')
# [1](c42a10300ac1e2a)    "S-b8599f0300e4c4f2"[1]          # lid 5 lmc 0 "MF0;leaf01:MQM8700/U1" lid 1 4xHDR
_CA_PORT = re.compile(r'^\[(?P<lport>\d+)\](?:\([0-9a-fA-F]+\))?\s+"(?P<rguid>[^"]+)"\[(?P<rport>\d+)\]\s*#(?:\s*lid \d+ lmc \d+)?\s*"(?P<rdesc>[^"]*)"(?P<rest>.*)$')
# ... lid 1 4xHDR   /  ... lid 5 4xSDR
_SPEED = re.compile(r"\b(?P<width>\d+x)(?P<speed>[A-Z]+\d*)\b")
_LID = re.compile(r"\blid (?P<lid>\d+)")
_DETECT = re.compile(r'^(?:Switch|Ca)\s+\d+\s+"[SH]-[0-9a-fA-F]+"', re.M)


def detect(head: str) -> bool:
    return ('"S-' in head or '"H-' in head) and bool(_DETECT.search(head))  # a cheap gate


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    current: tuple[str, str, str] | None = None  # (type, guid, description)
    for n, line in enumerate(artefact.lines, 1):
        m = _NODE.match(line)
        if m:
            lid = _LID.search(m["rest"])
            current = (m["type"], m["guid"], m["desc"])
            fb.add(IbFabricNode, n, node_type=m["type"], guid=m["guid"], description=m["desc"], ports=int(m["ports"]), lid=int(lid["lid"]) if lid else None)
            result.lines_used += 1
            continue
        if not line.startswith("["):
            if not line.strip():
                current = None
            continue
        m = (_SW_PORT if current and current[0] == "Switch" else _CA_PORT).match(line) or _SW_PORT.match(line) or _CA_PORT.match(line)
        if current is None or m is None:
            fb.error(n, "ibnetdiscover: port line outside a node block" if current is None else "ibnetdiscover: unreadable port line")
            continue
        sp = _SPEED.search(m["rest"])
        fb.add(IbFabricLink, n, local_guid=current[1], local_description=current[2], local_port=int(m["lport"]),
               remote_guid=m["rguid"], remote_description=m["rdesc"], remote_port=int(m["rport"]),
               width=sp["width"] if sp else None, speed=sp["speed"] if sp else None)
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
