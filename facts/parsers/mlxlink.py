"""``mlxlink -d <dev> [-p <port>] [-c] [-m] [-e]`` (NVIDIA MFT / mstflint): a port's link report.

Sample content (``mlxlink -d /dev/mst/mt41692_pciconf0 -p 1 -m -c`` on a BlueField-3, public
README of fchamicapereira/sigcomm26-tutorial-bluefield; field names as mstflint's
mlxlink_commander.cpp prints them)::

    Operational Info
    ----------------
    State                              : Active
    Physical state                     : LinkUp
    Speed                              : 100G
    Width                              : 4x
    Enabled Link Speed (Ext.)          : 0x00000200 (100G_4X)
    Effective Physical Errors          : 0
    Effective Physical BER             : 15E-255
    Link Down Counter                  : 0

Facts: one ``mlxlink_port`` per "Operational Info" section (evidence its ``State`` line) with
the state, physical state, speed, width, FEC, the fastest enabled speed, the troubleshooting
status and recommendation; one ``link_counter`` per line of "Physical Counters and BER Info"
whose value is a number (``N/A`` is skipped). The device and port come from the command line
when it was captured (``mlxlink -d mlx5_0``), else the device is ``unknown``.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import MlxlinkPort  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import LANE_GBPS
from stethoscope.facts.kinds.network import LinkCounter

KIND = "mlxlink"


# sudo mlxlink -d /dev/mst/mt41692_pciconf0 -p 1 -m -c
# mlxlink -d mlx5_0 -c -e
_COMMAND = re.compile(r"^(?:.*?[$#]\s*)?(?:sudo\s+)?(?:\S*/)?mlxlink\s+(?P<args>-.*)$")
_DEV_ARG = re.compile(r"(?:-d|--device)[ =](?P<dev>\S+)")
_PORT_ARG = re.compile(r"(?:-p|--port)[ =](?P<port>\d+)")
# Operational Info
# ----------------
_SECTION = re.compile(r"^(?P<name>[A-Z](?:[A-Za-z ()]*[A-Za-z()]|[ ]))\s*$")
_RULE = re.compile(r"^-{4,}\s*$")
# State                              : Active
# Effective Physical BER             : 15E-255
_FIELD = re.compile(r"^(?P<key>[A-Za-z][^:]{0,100}?)\s+: (?P<value>(?:.*\S)?)\s*$")
# Enabled Link Speed (Ext.)          : 0x00000200 (100G_4X)
# Enabled Link Speed                 : 0x000003ff (HDR,EDR,FDR,FDR10,QDR,DDR,SDR)
# (the list bounded, 500 characters: mlxlink names a dozen speeds at most; an unbounded run scanned a long value to
# its end once per '(' in it when no ')' closed it, 1.2 s CPU on bench/redos.py's 120,000-character line -> 1 ms)
_SPEED_LIST = re.compile(r"\((?P<list>[^)]{0,500}+)\)")
# 100G_4X, 400G_8X, 50G_2X, 100G, 25G, 1G; older MFT: 25GbE, 100GbE
_ETH_SPEED = re.compile(r"^(?P<g>\d+(?:\.\d+)?)G(?:BE)?(?:_(?P<lanes>\d+)X)?$", re.I)
_DETECT = re.compile(r"^(?:Operational Info|Physical Counters and BER Info)\s*\n-{4,}", re.M)
_COUNTERS = "Physical Counters and BER Info"


def detect(head: str) -> bool:
    return ("Operational Info" in head or _COUNTERS in head) and bool(_DETECT.search(head))


def _lanes(width: str | None) -> int | None:
    """``4x`` -> 4."""
    m = re.match(r"^(\d+)x$", (width or "").strip(), re.I)
    return int(m[1]) if m else None


def _gbps(speed: str | None, lanes: int | None) -> float | None:
    """``100G`` -> 100; ``100G_4X`` -> 100; ``IB-HDR`` / ``HDR`` -> 50 x lanes (4 when unsaid)."""
    if not speed:
        return None
    word = speed.strip().upper().removeprefix("IB-")
    if m := _ETH_SPEED.match(word):
        return float(m["g"])
    if word in LANE_GBPS:
        return LANE_GBPS[word] * (lanes or 4)
    return None


def _ib_lane(speed: str | None) -> float | None:
    """``IB-HDR`` / ``HDR`` -> 50 (Gb/s per lane); an Ethernet speed -> None."""
    return LANE_GBPS.get((speed or "").strip().upper().removeprefix("IB-"))


def _fastest(value: str) -> tuple[str | None, float | None]:
    m = _SPEED_LIST.search(value)
    if not m:
        return None, None
    best: tuple[str | None, float | None] = (None, None)
    for name in (s.strip() for s in m["list"].split(",")):
        g = _gbps(name, None)
        if g is not None and (best[1] is None or g > best[1]):
            best = (name, g)
    return best


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    device, port = "unknown", None
    section: str | None = None
    block: dict | None = None
    since: float | None = None

    def flush() -> None:
        nonlocal block
        if block is not None and "state" in block:
            line = block.pop("_line")
            active = block["state"] == "Active"
            # mlxlink prints "N/A" for a physical state it cannot read (mstflint#1102): not a fault
            block["link_up"] = active and block.get("physical_state") in (None, "LinkUp", "N/A")
            lanes = _lanes(block.get("width"))
            block["width_lanes"] = lanes
            block["speed_gbps"] = _gbps(block.get("speed"), lanes)
            top = block.get("enabled_max_gbps")
            speed_ib, top_ib = _ib_lane(block.get("speed")), _ib_lane(block.get("enabled_max"))
            if speed_ib and top_ib:
                # InfiniBand names a lane rate: a port split to 2x or 1x by design is not slow, so
                # compare the lane rates, and give the enabled maximum the port's own width
                block["enabled_max_gbps"] = top_ib * (lanes or 4)
                block["below_enabled"] = bool(active and speed_ib < top_ib)
            else:
                block["below_enabled"] = bool(active and top and block["speed_gbps"] and block["speed_gbps"] < top)
            fb.add(MlxlinkPort, line, device=device, port=port, **block)
        block = None

    for n, raw in enumerate(artefact.lines, 1):
        line = raw.rstrip()
        if m := _COMMAND.match(line):
            flush()
            section, since = None, None
            d, p = _DEV_ARG.search(m["args"]), _PORT_ARG.search(m["args"])
            device = d["dev"] if d else "unknown"
            port = int(p["port"]) if p else None
            result.lines_used += 1
            continue
        if _RULE.match(line) and n > 1 and _SECTION.match(artefact.lines[n - 2]):
            section = artefact.lines[n - 2].strip()
            if section == "Operational Info":
                flush()
                block, since = {}, None
            result.lines_used += 2
            continue
        m = _FIELD.match(line)
        if not m or section is None:
            continue
        key, value = m["key"].strip(), m["value"]
        result.lines_used += 1
        if section == "Operational Info" and block is not None:
            field = {"State": "state", "Physical state": "physical_state", "Speed": "speed", "Width": "width", "FEC": "fec"}.get(key)
            if field:
                block[field] = value
                if field == "state":
                    block["_line"] = n
        elif section == "Supported Info" and block is not None and key.startswith("Enabled Link Speed"):
            block["enabled_max"], block["enabled_max_gbps"] = _fastest(value)
        elif section == "Troubleshooting Info" and block is not None:
            if key == "Status Opcode" and value.isdigit():
                block["status_opcode"] = int(value)
            elif key == "Recommendation":
                block["recommendation"] = value
        elif section == _COUNTERS:
            if key == "Time Since Last Clear [Min]":
                since = _number(value)
                continue
            number = _number(value)
            if number is None:
                continue  # N/A, or a per-lane list ("0,0,0,0")
            fb.add(LinkCounter, n, tool="mlxlink", device=device, port=port, counter=key, value=number, printed=value, minutes_since_clear=since)
    flush()
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
