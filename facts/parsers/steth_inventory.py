"""A cluster inventory file placed in the bundle (``kind: steth-inventory``, see
:mod:`stethoscope.facts.inventory`): the cabling and expected rates artefacts lack.

Sample content::

    kind: steth-inventory
    hosts:
      node01:
        addresses: [10.0.0.1]
        ports:
          mlx5_0/1: {switch: leaf01, switch_port: 1, rate_gbps: 200}

Facts: ``inventory_host`` per host, ``inventory_port`` per cabled port,
``inventory_uplink`` per switch uplink, each citing the line of its key. A file that does
not validate is one ParseError naming the field.
"""
from __future__ import annotations

import re

from stethoscope.facts.inventory import InventoryError, load_inventory
from stethoscope.facts.kinds.steth import (  # noqa: F401 - the fact classes live in facts/kinds
    InventoryHost, InventoryPort, InventoryUplink,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import port_id

KIND = "steth_inventory"

# kind: steth-inventory
_DETECT = re.compile(r"^kind:\s*steth-inventory\s*$", re.M)


def detect(head: str) -> bool:
    return "steth-inventory" in head and bool(_DETECT.search(head))  # a cheap gate


def _line_of(lines: list[str], key: str, start: int = 0) -> int:
    pat = re.compile(rf"^\s*{re.escape(key)}\s*:")
    for i in range(start, len(lines)):
        if pat.match(lines[i]):
            return i + 1
    return max(1, start)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    try:
        inv = load_inventory(artefact.text, artefact.path)
    except InventoryError as exc:
        fb.error(1, str(exc))
        return result
    except RecursionError:  # YAML nested thousands deep
        fb.error(1, "steth inventory: nested too deep to read")
        return result
    lines = artefact.lines
    for host, spec in inv.hosts.items():
        hl = _line_of(lines, host)
        fb.add(InventoryHost, hl, node=host, addresses=",".join(spec.addresses), gpus=spec.gpus)
        for key, cab in spec.ports.items():
            hca, port = key.rsplit("/", 1)
            fb.add(InventoryPort, _line_of(lines, key, hl - 1), node=host, hca=hca, port=int(port), port_id=port_id(host, hca, int(port)),
                   switch=cab.switch, switch_port=cab.switch_port, expected_rate_gbps=cab.rate_gbps)
    for sw, spec in inv.switches.items():
        sl = _line_of(lines, sw)
        for up in spec.uplinks:
            fb.add(InventoryUplink, sl, node="fabric", switch=sw, uplink=up)
    result.lines_used = sum(1 for ln in lines if ln.strip())
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
