"""The topology NCCL prints in an ``NCCL_DEBUG=INFO`` log (``NCCL_DEBUG_SUBSYS=GRAPH`` or ``ALL``):
the tree of CPUs, PCIe switches, GPUs and NICs it detected, each link with the bandwidth its model
gives it. Read here: each NIC's own PCIe link and the network port(s) under it.

Sample content (real: an A100 node with a 200 Gb/s RoCE NIC, NCCL 2.7.8, NVIDIA/nccl-tests#62; the
reporter's markdown bold left on the NET line)::

    [0] NCCL INFO               + PCI[12.0] - PCI/3000
    [0] NCCL INFO                             + PCI[12.0] - NIC/5000
    [0] NCCL INFO                                           **+ NET[25.0] - NET/0 (603cb0003723f04/1/25.000000)**

The strings, from src/graph/topo.cc ncclTopoPrintRec() of github.com/NVIDIA/nccl: a node
``%s/%lX`` (``%s/%lx-%lx`` from 2.19: system id, local id), a link ``+ %s[%2.1f] - `` then the
node it reaches, indented to the column where its parent node's name starts (``[%2d]`` before 2.8);
a NET node ``NET/%lX (%lx/%d/%f)`` (asic/port/bw; ``(%d/%lx/%d/%f)`` from 2.12, collnet first). The
bandwidths are GB/s in NCCL's model (ncclTopoAddPci: width x per-lane rate / 80 with the rate
15/30/60/120/240/480 for 2.5 to 64 GT/s, an unknown speed string counted as 60 (8 GT/s), a width
of 0 as x16; ncclTopoAddNet: the port's Mb/s / 8000). NCCL plans its rings and trees with these
figures: a NIC whose PCIe link is below its port's rate caps the inter-node bandwidth NCCL aims for.

Facts: ``nccl_topo_nic_link`` per (node, process, NIC, NET), citing the NET line: the NIC's own
PCIe link (the ``+ PCI[..] - NIC/..`` line above it, the latest such line of the same thread, by its
``host:pid:tid`` prefix or else the text before ``NCCL INFO``, at a shallower indentation) and the
port's rate. A NIC NCCL hangs under the CPU without a PCI device (a virtual or socket NIC) prints
``+ PCI[5000.0] - NIC/0-0``: its link is NCCL's local bandwidth, never the limit. ``lines_used`` is 0: the nccl_log parser counts
NCCL-prefixed lines of the same file.

Empty input, or a log without the topology print (``NCCL_DEBUG_SUBSYS`` without GRAPH): no facts.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.nccl import NcclTopoNicLink  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, lines_with
from stethoscope.facts.parsers import nccl_log_scan
from stethoscope.facts.parsers.nccl_log import line_counter

KIND = "nccl_topo_print"

__all__ = ["KIND", "detect", "parse", "NcclTopoNicLink"]

# one printed link, after NCCL's prefix (any text before "NCCL INFO "), with the node it reaches:
# [0] NCCL INFO                             + PCI[12.0] - NIC/5000                     (2.7.8, nccl-tests#62)
# [0] NCCL INFO                                           **+ NET[25.0] - NET/0 (603cb0003723f04/1/25.000000)**
# node2:1208:1249 [0] NCCL INFO + PCI[24.0] - PCI/1000                                  (2.x, nccl-tests#100)
# the 2.19+ node form NIC/0-5000 and the pre-2.8 integer bandwidth PCI[12] are taken as well (topo.cc formats)
_LINK = re.compile(
    r"^(?P<prefix>.*?)NCCL INFO (?P<pad> *)(?:\*\*)?\+ (?P<link>[A-Z0-9]+)\[(?P<bw>\d+(?:\.\d+)?)\] - "
    r"(?P<node>(?P<ntype>[A-Z]+)/[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)?)"
)
# NCCL's own prefix in the text before "NCCL INFO": host:pid:tid [dev]
# n013:101855:101885 [0] NCCL INFO ...
# (nccl_log_scan.PREFIX found at the end of that text, its host not the tail of a longer word)
_PREFIX = re.compile(r"(?<![\w.\-])" + nccl_log_scan.PREFIX + "$")
_DETECT = re.compile(r"NCCL INFO +(?:\*\*)?\+ NET\[\d+(?:\.\d+)?\] - NET/")


def detect(head: str) -> bool:
    return bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    text = artefact.text
    lines = list(lines_with(text, ("+ PCI[", "+ NET[")))  # found from each "+" (a rare character: base.lines_with)
    if not any("+ NET[" in line for _start, line in lines):
        return result
    line_of = line_counter(text)
    # per stream (the text before "NCCL INFO": one process's print): the latest NIC line, (column of its "+", bw, node)
    nic_of: dict[str, tuple[int, float, str]] = {}
    seen: set[tuple] = set()
    for start, line in lines:
        m = _LINK.match(line)
        if m is None:
            continue
        prefix, col, bw = m["prefix"], len(m["pad"]), float(m["bw"])
        p = _PREFIX.search(prefix)
        stream = f"{p['host']}:{p['pid']}:{p['tid']}" if p else prefix.strip()  # each thread prints its own tree
        if m["link"] == "PCI":
            if m["ntype"] == "NIC":
                nic_of[stream] = (col, bw, m["node"])
            elif stream in nic_of and col <= nic_of[stream][0]:
                del nic_of[stream]  # the print left the NIC's subtree
            continue
        if m["link"] != "NET" or m["ntype"] != "NET":
            continue
        nic = nic_of.get(stream)
        if nic is None or col <= nic[0] or bw <= 0:
            continue  # a NET whose NIC line was not in the paste
        node = artefact.node_for(p["host"]) if p else artefact.node
        key = (node, p["pid"] if p else stream, nic[2], m["node"])  # the process's threads print the same NIC
        if key in seen:
            continue
        seen.add(key)
        fb.add(NcclTopoNicLink, line_of(start), node=node, text=line[:-1] if line[-1:] == "\r" else line,
               nic=nic[2], net=m["node"], pci_gbps=nic[1], net_gbps=bw, ratio=round(nic[1] / bw, 2),
               pid=int(p["pid"]) if p else None)
    result.lines_used = 0  # see the module docstring: nccl_log counts these lines
    return result


#: the line signatures this reader owns (facts/classify.py)
SIGNATURES = (_DETECT,)
