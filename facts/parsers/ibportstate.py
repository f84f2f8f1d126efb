"""``ibportstate <lid> <port>`` / ``smpquery portinfo`` (infiniband-diags): one port's PortInfo, and
ibportstate's check of the link against its peer.

Sample content (tuananh0788/Exadata#2, an Exadata leaf switch's disabled ports; the rest in ibportstate.c's format)::

    # Port info: Lid 1 port 28
    LinkState:.......................Down
    PhysLinkState:...................Disabled
    LinkWidthActive:.................4X
    LinkSpeedActive:.................2.5 Gbps
    Peer PortInfo:
    # Port info: Lid 1 DR path slid 2; dlid 65535; 0,6 port 1

ibportstate.c prints ``# Port info: %s port %d`` and the PortInfo fields (libibmad's ``Name:....value``
dump); for a switch port it also reads the peer's PortInfo (``Peer PortInfo:``) and warns where the
link trained below what both ends support: ``ibwarn: [pid] validate_width: Peer ports operating at
active width 1 rather than 2 (4x)``, ``validate_speed`` / ``validate_extended_speed`` likewise. A
Down port's width and speed are not valid (IBTA C14-24.2.1) and are left unknown.

Facts: ``ib_link_info`` (source ibportstate) per ``# Port info:`` block that is not a peer's
(evidence: its header line), ``below_capability`` where a validate warning follows it. ``smpquery
portinfo`` prints the same block under ``# Port info: Lid 13 port 1``. A block with no LinkState is
read past. Empty output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.ib_links import IbLinkInfo
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.iblinkinfo import LANE_SPEEDS

KIND = "ibportstate"

# # Port info: Lid 1 port 28      /     # Port info: Lid 1 DR path slid 2; dlid 65535; 0,6 port 1
_HEAD = re.compile(r"^# Port info: (?:Lid (?P<lid>\d{1,5})\b)?(?P<rest>[^\n]{0,120}?) port (?P<port>\d{1,3})\s*$")
# LinkState:.......................Active     /    LinkSpeedActive:.................10.0 Gbps
# (the blanks after the value bounded: an unbounded \s*$ after the lazy value rescanned a long run of blanks once per
# step of the value, bench/redos.py 0.5 s at 120,000 characters)
_FIELD = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9]{1,40}):\.{2,60}+(?P<value>[^\n]{0,120}?)\s{0,200}$")
# ibwarn: [4242] validate_width: Peer ports operating at active width 1 rather than 2 (4x)
# ibwarn: [4242] validate_extended_speed: Peer ports operating at active extended speed 4 rather than 8 (106.25 Gbps)
_VALIDATE = re.compile(r"Peer ports operating at active (?P<what>width|speed|extended speed) \d{1,3} rather than \d{1,3} \((?P<best>[^)\n]{1,20})\)")
_DETECT = re.compile(r"^# Port info: (?:Lid \d{1,5}\b)?[^\n]{0,120}? port \d{1,3}\s*$", re.M)


def detect(head: str) -> bool:
    return "# Port info: " in head and "LinkState:" in head and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    blocks: list[dict] = []
    block: dict | None = None
    peer_next = False
    for n, line in enumerate(artefact.lines, 1):
        h = _HEAD.match(line)
        if h:
            block = {"_line": n, "lid": int(h["lid"]) if h["lid"] else 0, "port": int(h["port"]), "peer": peer_next, "f": {}}
            peer_next = False
            if not block["peer"]:
                blocks.append(block)
            result.lines_used += 1
            continue
        if line.strip() == "Peer PortInfo:":
            peer_next = True
            result.lines_used += 1
            continue
        v = _VALIDATE.search(line) if "Peer ports operating" in line else None
        if v and blocks:
            local = blocks[-1]
            best = v["best"]
            if v["what"] == "width":
                local["could_w"] = best.upper()
            else:
                local["could_s"] = best
            local["note"] = line.split(": ", 2)[-1].strip() if "validate_" in line else v.group(0)
            result.lines_used += 1
            continue
        m = _FIELD.match(line)
        if m and block is not None:
            block["f"][m["key"]] = m["value"].strip()
            result.lines_used += 1
    for b in blocks:
        f = b["f"]
        state, phys = f.get("LinkState"), f.get("PhysLinkState")
        if not state or not phys:
            continue
        width = speed = None
        if state != "Down":  # C14-24.2.1: a Down port's width and speed are not valid
            width = f.get("LinkWidthActive") or None
            ext = f.get("LinkSpeedExtActive")
            speed = ext if ext in LANE_SPEEDS else f.get("LinkSpeedActive") or None
        gen, lane = LANE_SPEEDS.get(speed, (None, None)) if speed else (None, None)
        lanes = int(width[:-1]) if width and width[:-1].isdigit() else None
        fb.add(IbLinkInfo, b["_line"], lid=b["lid"], port=b["port"], state=state, physical_state=phys, width=width,
               lane_speed=speed, generation=gen, rate_gbps=lanes * lane if lanes and lane else None,
               could_be_width=b.get("could_w"), could_be_speed=b.get("could_s"),
               below_capability=bool(b.get("could_w") or b.get("could_s")), peer_note=b.get("note"), source="ibportstate")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
