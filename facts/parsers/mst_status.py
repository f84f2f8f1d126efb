"""``mst status -v`` (MFT / mstflint): the Mellanox devices of the node, their MST device files,
PCI addresses, RDMA devices, network interfaces and NUMA nodes.

Sample content (MrBr-github/lshca#28's module lines; the device rows of NVIDIA's MFT documentation, "mst Synopsis -
FreeBSD", as its stored page has them, blanks single)::

    MST modules:
    ------------
        MST PCI module is not loaded
        MST PCI configuration module is not loaded
    PCI devices:
    ------------
    DEVICE_TYPE MST PCI RDMA NET NUMA
    ConnectX4LX(rev:0) pci0:2:0:0 02:00.0 mlx5_0

A device row is ``<type>(rev:<n>)`` and the columns the ``DEVICE_TYPE`` header names (mstflint's
mst script / mstdevices_info; RDMA and NET empty or ``-`` where the device has none). The module
lines say whether the MST kernel modules are loaded (``mst start``): mlxconfig, mlxlink and flint
address devices through them or through the PCI address; they are context, no fault.

Facts: ``ib_hca`` per device row that names an RDMA device (``hca`` the RDMA name, ``ca_type`` the
device type): the same kind ibstat's ``CA '...'`` makes, the node's HCA with its verbs driver bound.
Rows without an RDMA device (a function bound to no RDMA driver) are read and make no fact. Empty
output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import IbHca

KIND = "mst_status"

# DEVICE_TYPE             MST                           PCI       RDMA            NET                                     NUMA
_HEADER = re.compile(r"^DEVICE_TYPE[ \t]{1,40}MST[ \t]{1,40}PCI\b(?P<rest>[^\n]{0,200})$")
# ConnectX7(rev:0)        /dev/mst/mt4129_pciconf8      e3:00.0   mlx5_10         net-ib7                                 3
_ROW = re.compile(r"^(?P<type>[A-Za-z][\w-]{1,40})\(rev:[0-9a-fA-F]{1,4}\)(?P<cols>(?:[ \t]{1,60}\S{1,80}){1,6})\s*$")
#     MST PCI module is not loaded   /   MST PCI configuration module loaded
_MODULE = re.compile(r"^\s{1,12}MST PCI (?:configuration )?module (?:is not )?loaded\s*$")
_DETECT = re.compile(r"^MST modules:\s*$|^DEVICE_TYPE[ \t]{1,40}MST[ \t]{1,40}PCI\b", re.M)


def detect(head: str) -> bool:
    return ("MST modules:" in head or "DEVICE_TYPE" in head) and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    names: list[str] | None = None
    for n, line in enumerate(artefact.lines, 1):
        if line.startswith(("MST modules:", "PCI devices:")) or _MODULE.match(line):
            result.lines_used += 1
            continue
        h = _HEADER.match(line)
        if h:
            names = ["MST", "PCI"] + h["rest"].split()
            result.lines_used += 1
            continue
        m = _ROW.match(line) if names else None
        if m is None:
            continue
        result.lines_used += 1
        row = dict(zip(names, m["cols"].split()))  # RDMA / NET left out of a row shift nothing before them
        rdma = row.get("RDMA")
        if rdma and rdma != "-" and not rdma.startswith("net-") and not rdma.isdigit():
            fb.add(IbHca, n, hca=rdma, ca_type=m["type"])
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
