"""``iblinkinfo`` (infiniband-diags): every port of the fabric, its width, speed, state and peer.

Sample content (824380210/Linpack edr76_linpack_WI.md, an EDR cluster's capture)::

    CA: n02 HCA-1:
          0xec0d9a03003d62be      4    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       2   17[  ] "MF0;SB7700:MSB7700/U1" ( )
    Switch: 0x506b4b0300820910 MF0;SB7700:MSB7700/U1:
               2    1[  ] ==(                Down/ Polling)==>             [  ] "" ( )
               2   17[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       4    1[  ] "n02 HCA-1" ( )

The line layout is iblinkinfo.c's print_port: ``%6d %4d[%2s] ==(%3s %18s %6s/%8s)==>  %6d %4d[%2s]
"%s" (%s %s)`` (a CA's line starts with its port GUID; ``-l`` puts the node's GUID and quoted
description first and the peer's GUID before its LID). The last parentheses hold iblinkinfo's own
verdict from ibdiag_common.c get_max_msg: ``Could be 4X`` / ``Could be 106.25 Gbps`` where both
ends support a wider or faster link than the one that trained (a cable or port fault, a wrong
cable), empty otherwise. A Down port prints no width or speed.

Facts: ``ib_link_info`` per port line (evidence: the line), with its node's header above it.
Ports of switches and of other hosts are the fabric's, not the bundle node's: nothing here is an
``ib_port`` of the node. A Down/Polling switch port with no peer is an unused port, no fault.
``ibqueryerrors -r`` prints the same link text after ``Link info:`` (facts/parsers/ibqueryerrors.py
reads it with :func:`link_fields`). A port line whose link text is unreadable is a ParseError.
Empty output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import LANE_GBPS, IbLinkInfo

KIND = "iblinkinfo"

# Switch: 0x506b4b0300820910 MF0;SB7700:MSB7700/U1:
# CA: n02 HCA-1:
_HEAD = re.compile(r"^(?P<type>Switch|CA|Router): (?:0x(?P<guid>[0-9a-fA-F]{1,16}) )?(?P<desc>[^\n]{0,200}?):\s*$")
#       0xec0d9a03003d62be      4    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       2   17[  ] "MF0;SB7700:MSB7700/U1" ( )
#            2    1[  ] ==(                Down/ Polling)==>             [  ] "" ( )
# 0xf452140300f55051 "              ib-test-7 mlx4_0"     37    1[  ] ==( 4X       14.0625 Gbps Active/  LinkUp)==>  0xf45214030067c630      5   16[  ] "MF0;switch-e1be74:SX6036/U1" ( )   (-l)
_PORT = re.compile(
    r'^[ \t]*(?:0x(?P<guid>[0-9a-fA-F]{1,16})[ \t]+)?(?:"[ \t]*(?P<ldesc>[^"]{0,200})"[ \t]+)?'
    r"(?P<lid>\d+)[ \t]+(?P<port>\d+)\[[ \d]{0,3}\] ==\((?P<link>[^\n]{1,120}?)\)==>[ \t]*(?P<peer>[^\n]{0,400})$")
#  4X      25.78125 Gbps Active/  LinkUp      /      Down/ Polling      /  4X  10.0 Gbps (FDR10) Active/  LinkUp) (HOQ:19 VL_Stall:7
_LINK = re.compile(
    r"^[ \t]*(?:(?P<width>\d{1,2}X)[ \t]+(?P<speed>\d{1,3}(?:\.\d{1,6})? Gbps(?: \(FDR10\))?)[ \t]+)?"
    r"(?P<state>[A-Za-z]{1,16})/[ \t]*(?P<phys>[A-Za-z]{1,32})")
#       2   17[  ] "MF0;SB7700:MSB7700/U1" ( )    /   0xf45214030067c630      5   16[  ] "..." (Could be 4X Could be 25.78125 Gbps)
_PEER = re.compile(
    r'^(?:0x[0-9a-fA-F]{1,16}[ \t]+)?(?P<lid>\d+)[ \t]+(?P<port>\d+)\[[ \d]{0,3}\] "(?P<desc>[^"]{0,200})" \((?P<msg>[^\n]{0,300})\)\s*$')
# Could be 4X        /  Could be 106.25 Gbps   /   Could be FDR10 (Found link at QDR but expected speed is FDR10)
_COULD_WIDTH = re.compile(r"Could be (?P<w>\d{1,2}X)\b")
_COULD_SPEED = re.compile(r"Could be (?P<s>\d{1,3}(?:\.\d{1,6})? Gbps|FDR10)")
_DETECT = re.compile(r"^[ \t]*(?:0x[0-9a-fA-F]{1,16}[ \t]+)?(?:\"[^\"\n]{0,200}\"[ \t]+)?\d+[ \t]+\d+\[[ \d]{0,3}\] ==\(", re.M)

#: iblinkinfo's per-lane speed (libibmad dump.c) -> its generation
_GENERATIONS = {
    "2.5 Gbps": "SDR", "5.0 Gbps": "DDR", "10.0 Gbps": "QDR", "10.0 Gbps (FDR10)": "FDR10", "14.0625 Gbps": "FDR",
    "25.78125 Gbps": "EDR", "53.125 Gbps": "HDR", "106.25 Gbps": "NDR", "212.5 Gbps": "XDR",
}
#: iblinkinfo's per-lane speed -> (generation, data rate of one lane in Gb/s as ibstat counts it: ib_facts.LANE_GBPS)
LANE_SPEEDS = {speed: (gen, LANE_GBPS[gen]) for speed, gen in _GENERATIONS.items()}


def detect(head: str) -> bool:
    return ")==>" in head and bool(_DETECT.search(head))  # a cheap gate


def link_fields(link: str, peer: str) -> dict | None:
    """The ``ib_link_info`` fields of one link text (``4X 25.78125 Gbps Active/  LinkUp``) and its
    peer part; None when the link text is unreadable."""
    m = _LINK.match(link)
    if m is None:
        return None
    width, speed = m["width"], m["speed"]
    gen, lane = LANE_SPEEDS.get(speed, (None, None)) if speed else (None, None)
    lanes = int(width[:-1]) if width else None
    out = {"state": m["state"], "physical_state": m["phys"], "width": width, "lane_speed": speed, "generation": gen,
           "rate_gbps": lanes * lane if lanes and lane else None}
    p = _PEER.match(peer.strip())
    if p:
        cw, cs = _COULD_WIDTH.search(p["msg"]), _COULD_SPEED.search(p["msg"])
        out.update(peer_lid=int(p["lid"]), peer_port=int(p["port"]), peer_description=p["desc"],
                   could_be_width=cw["w"] if cw else None, could_be_speed=cs["s"] if cs else None,
                   below_capability=bool(cw or cs), peer_note=p["msg"].strip() or None)
    return out


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    head: dict = {}
    for n, line in enumerate(artefact.lines, 1):
        h = _HEAD.match(line)
        if h:
            head = {"node_type": h["type"], "node_description": h["desc"].strip(), "node_guid": h["guid"]}
            result.lines_used += 1
            continue
        if "==(" not in line:
            continue
        m = _PORT.match(line)
        if m is None:
            continue
        fields = link_fields(m["link"], m["peer"])
        if fields is None:
            fb.error(n, f"iblinkinfo: unreadable link {m['link'].strip()!r}")
            continue
        where = dict(head)
        if m["ldesc"] is not None:  # -l: the node on the line itself
            where = {"node_type": None, "node_description": m["ldesc"].strip(), "node_guid": m["guid"]}
        elif m["guid"] and not where.get("node_guid"):
            where["node_guid"] = m["guid"]
        if where.get("node_type") == "Switch":
            where["switch"] = where["node_description"]
        fb.add(IbLinkInfo, n, lid=int(m["lid"]), port=int(m["port"]), source="iblinkinfo", **where, **fields)
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
