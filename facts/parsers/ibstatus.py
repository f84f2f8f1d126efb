"""``ibstatus`` (infiniband-diags script over /sys/class/infiniband): one block per port.

Sample content (SoftRoCE/rxe-dev#52; field layout of infiniband-diags' ibstatus)::

    Infiniband device 'mlx5_0' port 1 status:
            default gid:     fe80:0000:0000:0000:b859:9f03:00e4:c4f2
            base lid:        0x5
            sm lid:          0x1
            state:           4: ACTIVE
            phys state:      5: LinkUp
            rate:            200 Gb/sec (4X HDR)
            link_layer:      InfiniBand

Facts: ``ib_port`` per block (evidence: its ``state:`` line), with the width from the rate's
parenthesis. A block without a ``state:`` line is a ParseError. Empty output: no HCA listed,
nothing said (ibstatus prints nothing when /sys/class/infiniband is empty). ``Fatal error:  No devices``
(the script's fatal() where /sys/class/infiniband lists no device; before rdma-core 347a1a40, 2020, its
``exit -1`` made dash add ``exit: Illegal number: -1``) gives ``ib_no_hca``. A port's ``state:`` line
with no block header above it (a paste cut inside the block) names no port: where the state is not
ACTIVE, a ``cut_short`` capture limit, so that a port shown DOWN is never read as checked.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import IbNoHca, IbPort, phys_state_name, port_id, state_name

KIND = "ibstatus"

# Infiniband device 'mlx5_0' port 1 status:
_HEAD = re.compile(r"^Infiniband device '(?P<hca>[^']+)' port (?P<port>\d+) status:\s*$")
#         rate:            200 Gb/sec (4X HDR)
_RATE = re.compile(r"^(?P<gbps>\d+(?:\.\d+)?) Gb/sec(?: \((?P<width>\d+X)(?: (?P<speed>\w+))?\))?")
#         phys state:      5: LinkUp
_FIELD = re.compile(r"^\s+(?P<key>[a-z_ ]+):\s*(?P<value>(?:.*\S)?)\s*$")
# Fatal error:  No devices
# ./ibstatus: 21: exit: Illegal number: -1           (dash refusing the script's "exit -1" after it)
#   rdma-core infiniband-diags/scripts/ibstatus before 347a1a40 (2020-11-14, 'exit 255' since): fatal() { echo
#   "Fatal error: " $*; exit -1 } at lines 19-22, called with "No devices" when /sys/class/infiniband lists none
#   (echo's two arguments: two spaces). Both lines are that script's output when run under dash (/bin/sh on
#   Debian/Ubuntu) with its /sys/class/infiniband absent; an installed script names itself /usr/sbin/ibstatus
_NO_DEVICES = re.compile(r"^Fatal error:  No devices\s*$")
_EXIT_REFUSED = re.compile(r"^\S*ibstatus: \d+: exit: Illegal number: -1\s*$")
# A port's state line without its block's header above it (a paste cut inside the block, one line grepped out of
# it): the script's echo "\tstate:\t\t" `cat $port_dir/state` of the kernel's sysfs "%d: %s" (ib_port_state_to_str:
# NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER); which HCA and port it is, only the header said:
# <TAB>state:<TAB><TAB> 1: DOWN        (rdma-core infiniband-diags/scripts/ibstatus port_status(), that format filled in)
_LONE_STATE = re.compile(r"^[ \t]{0,16}state:[ \t]{1,16}(?P<value>[0-5]: (?:NOP|DOWN|INIT|ARMED|ACTIVE|ACTIVE_DEFER))[ \t]*$")
_DETECT = re.compile(r"^Infiniband device '[^']+' port \d+ status:|^Fatal error:  No devices\s*$"
                     r"|^[ \t]{0,16}state:[ \t]{1,16}[0-5]: (?:NOP|DOWN|INIT|ARMED|ACTIVE|ACTIVE_DEFER)[ \t]*$", re.M)


def detect(head: str) -> bool:
    return ("Infiniband device '" in head or "No devices" in head or "state:" in head) and bool(_DETECT.search(head))  # a cheap gate


def _lid(text: str) -> int | None:
    """``0x2a`` or ``42`` (not int(text, 0): it refuses ``010``)."""
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return int(text, 16)
    return int(text) if text.isdecimal() else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    block: dict[str, tuple[int, str]] | None = None
    hca, port, head_line = "", 0, 0

    def flush() -> None:
        if block is None:
            return
        if "state" not in block:
            fb.error(head_line, f"ibstatus: {hca} port {port} has no state line")
            return
        rate_gbps = width = None
        if "rate" in block:
            m = _RATE.match(block["rate"][1])
            if not m:
                fb.error(block["rate"][0], f"ibstatus: unreadable rate {block['rate'][1]!r}")
            else:
                rate_gbps, width = float(m["gbps"]), m["width"]
        lid = block.get("base lid", (0, ""))[1]
        sm_lid = block.get("sm lid", (0, ""))[1]
        fb.add(
            IbPort, block["state"][0], hca=hca, port=port, port_id=port_id(artefact.node, hca, port),
            state=state_name(block["state"][1]), physical_state=phys_state_name(block["phys state"][1]) if "phys state" in block else None,
            rate_gbps=rate_gbps, width=width, link_layer=block.get("link_layer", (0, None))[1],
            lid=_lid(lid), sm_lid=_lid(sm_lid), source="ibstatus",
        )

    for n, line in enumerate(artefact.lines, 1):
        if _NO_DEVICES.match(line):
            flush()
            block = None
            fb.add(IbNoHca, n, source="ibstatus")
            result.lines_used += 1
            continue
        if _EXIT_REFUSED.match(line):
            result.lines_used += 1
            continue
        m = _HEAD.match(line)
        if m:
            flush()
            block, hca, port, head_line = {}, m["hca"], int(m["port"]), n
            result.lines_used += 1
            continue
        if block is not None and (m := _FIELD.match(line)) and m["key"].strip() in block:
            flush()  # a field the block holds already: another port's block, its header cut (blank lines end no block)
            block = None
        if block is None:
            if m := _LONE_STATE.match(line):  # a block cut above its state line: no port to name
                if not m["value"].endswith(("ACTIVE", "ACTIVE_DEFER")):  # a port not up is never read as checked
                    fb.limit(n, "cut_short", f"ibstatus: a port's state line ({m['value']}) without its block's header "
                             "(the paste is cut above it): which HCA port it is is not shown")
                result.lines_used += 1
            continue
        m = _FIELD.match(line)
        if m:
            block[m["key"].strip()] = (n, m["value"])
            result.lines_used += 1
        elif line.strip():
            flush()
            block = None
    flush()
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
