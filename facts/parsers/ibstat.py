"""``ibstat`` (infiniband-diags): every HCA and the state of each of its ports.

Sample content (imbue-ai/cluster-health#4, leptonai/gpud#752, Hurray0/rdma_test's README)::

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

Fragments as people paste them are read too: fields indented by tabs, by any number of
spaces or not at all (a field belongs to the HCA or the port by its name), a ``Log ibstat:``
/ ``=======`` banner, ``...`` lines where the author cut lines, values redacted as ``...``
(read as unknown), markdown's inline-code backticks around the paste, field names in another case (``Base LID``, ``SM LID``), a ``Port 1:`` block
with no ``CA '...'`` line above it (an unnamed HCA, ``unnamed1``, ...), and a block that has only
a ``Physical state`` line (``ibstat | grep 'Physical state'``: no port fact, no error). A port block with neither
state line (the paste ends right under ``Port 1:``, or keeps only ``Link layer``) is a ``cut_short`` limit, not an
error: its state is not shown (raids-lab.github.io/crater's RDMA page)::

        Port 1:
                Link layer: InfiniBand

A paste that starts
inside a port's block, below its ``Port N:`` and ``State:`` lines (a ``Physical state`` line, then more of the
port's fields), shows no port's state: a ``cut_short`` limit (dev corpus 005's ibstat from its ``Physical state:
Polling`` on, pasted before an NCCL log's Init COMPLETE, read HEALTHY, session 26 A8)::

            Physical state: Polling
            Rate: 10
            Base lid: 868

Facts: ``ib_hca`` per ``CA '...'`` line (its evidence), ``ib_port`` per ``Port N:`` block
(evidence: its ``State:`` line; rate, physical state, LIDs and link layer are fields),
``ib_tool_panic`` per ``ibpanic:`` line (ibstat stopped there: leptonai/gpud#752)::

    ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory

``ibwarn`` lines are read past.

Empty output means the node has no HCA (or none is visible inside the container): that is
no error. Empty output can only be recognised where the command line was captured with it (a
pasted session: ``$ ibstat`` followed by the next prompt or the end), and yields ``ib_no_hca``.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import (
    IbHca, IbNoHca, IbPort, IbToolPanic, phys_state_name, port_id, state_name,
)

KIND = "ibstat"

#: the fields ibstat prints for an HCA and for a port (infiniband-diags ibstat.c)
_HCA_KEYS = frozenset({"CA type", "Number of ports", "Firmware version", "Hardware version", "Node GUID", "System image GUID"})
_PORT_KEYS = frozenset({"State", "Physical state", "Rate", "Base lid", "LMC", "SM lid", "Capability mask", "Port GUID", "Link layer"})
#: field names as people retype them ("Base LID", "SM LID", "Link Layer"): the canonical name by its lower case
_CANONICAL = {k.lower(): k for k in _PORT_KEYS | _HCA_KEYS}

# CA 'mlx5_0'
# `CA 'mlx5_0'      (pasted in markdown's inline code: a backtick opens it, nccl#1524; one may close the last line)
_CA = re.compile(r"^\s*`?CA '(?P<hca>[^']+)'\s*$")
#         CA type: MT4129 / Firmware version: 28.39.1002 / State: Active / Rate: 200 / CA type: ...
_FIELD = re.compile(r"^\s*(?P<key>[A-Z][A-Za-z ]*?):[ \t]*(?P<value>(?:.*\S)?)\s*$")
#     Port 1:
_PORT = re.compile(r"^\s*Port (?P<port>\d+):\s*$")
# ...            (the author cut lines here)    /    Log ibstat:    /    =======
_SKIP = re.compile(r"^\s*(?:\.{3,}|…|=+|-+|Log ibstat:?|ibwarn: .*)\s*$")
# ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory
_PANIC = re.compile(r"ibpanic: \[\d+\] (?:(?P<func>\w+): )?(?P<msg>(?:.*\S)?)\s*$")
_PANIC_DEV = re.compile(r"(?:IB device|[Cc][Aa]) '(?P<hca>[^']+)'")
_MISSING = re.compile(r"No such file or directory|not found|No such device", re.I)
# root@node1:~# ibstat     /  $ ibstat
_PROMPT = re.compile(r"^(?:\S*[#$]|[#$])\s*(?:sudo\s+)?ibstat\s*$")
_ANY_PROMPT = re.compile(r"^\S*[#$] ")
_DETECT = re.compile(
    r"^\s*`?CA '[^']+'\s*\n\s*(?:CA type|Number of ports):|^\s*Physical state: \w+"
    r"|ibpanic: \[\d+\] \w+: .*IB device|^(?:\S*[#$]|[#$])\s*(?:sudo\s+)?ibstat\s*$", re.M)


def detect(head: str) -> bool:
    if "CA '" not in head and "Physical state:" not in head and "ibstat" not in head and "ibpanic" not in head:
        return False
    return bool(_DETECT.search(head))


def _int(value: str | None) -> int | None:
    try:
        return int(value, 0) if value else None
    except ValueError:
        return None


def _known(value: str | None) -> str | None:
    """A value the author redacted (``...``) is unknown."""
    return None if value is None or value.strip(". …") == "" else value


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
    unnamed = 0
    headed = False  # the open port block began at its "Port N:" line (not at a field: a paste cut inside it)

    def flush_port() -> None:
        nonlocal port, rate_line
        if port is None or hca is None:
            port = None
            return
        if "State" not in port:
            if "Physical state" not in port:
                # neither state line: the paste leaves both out (cut inside the block, or only some fields kept):
                # not an error of the port, and not its state either (raids-lab.github.io/crater's RDMA page, the
                # host's ibstat before its move: "CA 'mlx5_0'" / "Port 1:" / "Link layer: InfiniBand" / "CA 'mlx5_1'"
                # / "Port 1:", the page's end; a 'has no State line' parse error made it FAULTY unexplained_error)
                fb.limit(port_line, "cut_short", f"ibstat: port {port_num} of {hca} shown without its State and "
                                                 "Physical state lines (the paste leaves them out): that port's state "
                                                 "is not known")
            elif not headed and len(port) > 1:  # the block's head (Port N:, State:) above the paste's first line
                fb.limit(port_line, "cut_short", f"ibstat: a port's fields from its Physical state "
                                                 f"({port['Physical state']}) on, without its Port and State lines "
                                                 "(the paste starts inside the block): that port's state is not known")
            port = None
            return
        rate = _known(port.get("Rate"))
        try:
            rate_gbps = float(rate) if rate else None
        except ValueError:
            fb.error(state_line, f"ibstat: rate {rate!r} is not a number")
            rate_gbps = None
        # an Active port is judged by its rate, any other by its state: quote that line
        active = state_name(port["State"]) == "Active"
        phys = _known(port.get("Physical state"))
        fb.add(
            IbPort, rate_line if active and rate_line else state_line, hca=hca, port=port_num, port_id=port_id(artefact.node, hca, port_num),
            state=state_name(port["State"]), physical_state=phys_state_name(phys) if phys else None,
            rate_gbps=rate_gbps, link_layer=_known(port.get("Link layer")), lid=_int(_known(port.get("Base lid"))),
            sm_lid=_int(_known(port.get("SM lid"))), port_guid=_known(port.get("Port GUID")), source="ibstat",
        )
        port = None

    def flush_hca() -> None:
        nonlocal hca
        flush_port()
        if hca is not None and hca_line:
            fb.add(IbHca, hca_line, hca=hca, ca_type=_known(hca_fields.get("CA type")), firmware=_known(hca_fields.get("Firmware version")),
                   node_guid=_known(hca_fields.get("Node GUID")), ports=_int(_known(hca_fields.get("Number of ports"))))
        hca = None

    def open_port(n: int, num: int, header: bool = False) -> None:
        nonlocal port, port_num, port_line, state_line, rate_line, hca, hca_line, hca_fields, unnamed, headed
        flush_port()
        headed = header
        if hca is None:  # a port block pasted without its CA line
            unnamed += 1
            hca, hca_line, hca_fields = f"unnamed{unnamed}", 0, {}
        port, port_num, port_line, state_line, rate_line = {}, num, n, n, 0

    pending_prompt = 0  # line of an "ibstat" prompt whose output has shown no CA yet
    for n, line in enumerate(lines, 1):
        m = _CA.match(line)
        if m:
            flush_hca()
            pending_prompt = 0
            hca, hca_line, hca_fields = m["hca"], n, {}
            result.lines_used += 1
            continue
        if "ibpanic:" in line and (m := _PANIC.search(line)):
            flush_hca()
            dev = _PANIC_DEV.search(m["msg"])
            fb.add(IbToolPanic, n, tool="ibstat", function=m["func"], hca=dev["hca"] if dev else None, message=m["msg"],
                   missing=bool(dev and _MISSING.search(m["msg"])))
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
        if _SKIP.match(line):
            result.lines_used += 1
            continue
        m = _PORT.match(line)
        if m:
            open_port(n, int(m["port"]), header=True)
            pending_prompt = 0
            result.lines_used += 1
            continue
        m = _FIELD.match(line)
        key = _CANONICAL.get(m["key"].lower(), m["key"]) if m else ""
        if key in _PORT_KEYS and (port is not None or key == "State" or key == "Physical state"):
            if port is None:  # "State:" with neither a CA nor a Port line above: port 1 of an unnamed HCA
                open_port(n, 1)
            result.lines_used += 1
            if key in port:  # a second State line: the next port of a pasted run of blocks
                open_port(n, port_num + 1)
            port[key] = m["value"].rstrip("`").rstrip()  # the backtick closing a markdown code span
            if key == "State":
                state_line = n
            elif key == "Rate":
                rate_line = n
            continue
        if key in _HCA_KEYS and hca is not None:
            flush_port()
            hca_fields[key] = m["value"].rstrip("`").rstrip()
            result.lines_used += 1
            continue
        if line.strip():
            flush_hca()
    flush_hca()
    if pending_prompt:
        fb.add(IbNoHca, pending_prompt, source="ibstat")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
