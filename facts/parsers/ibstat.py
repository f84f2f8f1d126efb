"""``ibstat`` (infiniband-diags): every HCA and the state of each of its ports.

Sample content (imbue-ai/cluster-health#4, leptonai/gpud#752, rdma-core#847)::

    CA 'mlx5_0'
            CA type: MT4129
            Number of ports: 1
            Firmware version: 28.39.1002
            Node GUID: 0x58a2e10300dae626
            Port 1:
                    State: Active
                    Physical state: LinkUp
                    Rate: 200
                    Base lid: 13305
                    Port GUID: 0x5aa2e1fffedae626
                    Link layer: InfiniBand

Facts: ``ib_hca`` per ``CA '...'`` line (its evidence), ``ib_port`` per ``Port N:`` block
(evidence: its ``State:`` line; rate, physical state, LID and link layer are fields).
``ibwarn``/``ibpanic`` lines are read past.

Empty output means the node has no HCA (or none is visible inside the container): that is
no error. Empty output can only be recognised where the command line was captured with it (a
pasted session: ``$ ibstat`` followed by the next prompt or the end), and yields ``ib_no_hca``.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import IbHca, IbNoHca, IbPort, phys_state_name, port_id, state_name

KIND = "ibstat"

# CA 'mlx5_0'
_CA = re.compile(r"^\s*CA '(?P<hca>[^']+)'\s*$")
#         CA type: MT4129 / Firmware version: 28.39.1002 / Port 1: / State: Active / Rate: 200
_FIELD = re.compile(r"^\s+(?P<key>[A-Za-z][A-Za-z ]*?):\s*(?P<value>.*?)\s*$")
# Port 1:
_PORT = re.compile(r"^\s+Port (?P<port>\d+):\s*$")
# root@node1:~# ibstat     /  $ ibstat
_PROMPT = re.compile(r"^(?:\S*[#$]|[#$])\s*(?:sudo\s+)?ibstat\s*$")
_ANY_PROMPT = re.compile(r"^\S*[#$] ")
_DETECT = re.compile(r"^CA '[^']+'\s*\n\s+CA type:|^(?:\S*[#$]|[#$])\s*(?:sudo\s+)?ibstat\s*$", re.M)


def detect(head: str) -> bool:
    if "CA type:" not in head and "ibstat" not in head:  # cheap gate: each branch needs one
        return False
    return bool(_DETECT.search(head))


def _int(value: str) -> int | None:
    try:
        return int(value, 0)
    except ValueError:
        return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    hca: str | None = None
    hca_line = 0
    hca_fields: dict[str, str] = {}
    port: dict[str, str] | None = None
    port_num = 0
    port_line = 0
    state_line = 0
    rate_line = 0

    def flush_port() -> None:
        nonlocal port, rate_line
        if port is None or hca is None:
            port = None
            return
        if "State" not in port:
            fb.error(port_line, f"ibstat: port {port_num} of {hca} has no State line")
            port = None
            return
        rate = port.get("Rate")
        try:
            rate_gbps = float(rate) if rate else None
        except ValueError:
            fb.error(state_line, f"ibstat: rate {rate!r} is not a number")
            rate_gbps = None
        # an Active port is judged by its rate, any other by its state: quote that line
        active = state_name(port["State"]) == "Active"
        fb.add(
            IbPort, rate_line if active and rate_line else state_line, hca=hca, port=port_num, port_id=port_id(artefact.node, hca, port_num),
            state=state_name(port["State"]), physical_state=phys_state_name(port["Physical state"]) if "Physical state" in port else None,
            rate_gbps=rate_gbps, link_layer=port.get("Link layer"), lid=_int(port.get("Base lid", "")),
            port_guid=port.get("Port GUID"), source="ibstat",
        )
        port = None

    def flush_hca() -> None:
        nonlocal hca
        flush_port()
        if hca is not None:
            fb.add(IbHca, hca_line, hca=hca, ca_type=hca_fields.get("CA type"), firmware=hca_fields.get("Firmware version"),
                   node_guid=hca_fields.get("Node GUID"), ports=_int(hca_fields.get("Number of ports", "")))
        hca = None

    pending_prompt = 0  # line of an "ibstat" prompt whose output has shown no CA yet
    for n, line in enumerate(lines, 1):
        m = _CA.match(line)
        if m:
            flush_hca()
            pending_prompt = 0
            hca, hca_line, hca_fields = m["hca"], n, {}
            result.lines_used += 1
            continue
        if _PROMPT.match(line):
            flush_hca()
            if pending_prompt:
                fb.add(IbNoHca, pending_prompt, source="ibstat")
            pending_prompt = n
            result.lines_used += 1
            continue
        if _ANY_PROMPT.match(line):
            flush_hca()
            if pending_prompt:
                fb.add(IbNoHca, pending_prompt, source="ibstat")
                pending_prompt = 0
            continue
        if hca is None:
            continue
        m = _PORT.match(line)
        if m:
            flush_port()
            port, port_num, port_line, state_line, rate_line = {}, int(m["port"]), n, n, 0
            result.lines_used += 1
            continue
        m = _FIELD.match(line)
        if m:
            result.lines_used += 1
            if port is not None:
                port[m["key"]] = m["value"]
                if m["key"] == "State":
                    state_line = n
                elif m["key"] == "Rate":
                    rate_line = n
            else:
                hca_fields[m["key"]] = m["value"]
        elif line.strip() and not line.startswith(("ibwarn", "ibpanic")):
            flush_hca()
    flush_hca()
    if pending_prompt:
        fb.add(IbNoHca, pending_prompt, source="ibstat")
    return result
