"""Facts made from knowledge and from whole-log aggregations of kernel facts (no artefact kind).

Not a parser: :mod:`stethoscope.engine.catalogues.xid` builds these before the rules run, from
``knowledge/xid.yaml`` and from the ``xid_event``, ``kernel_boot``, ``pcie_aer_error`` and
``pcie_link_down`` facts of the kernel log parser. A rule joins them like any other fact:
the catalogue entry of an Xid is ``xid_catalogue_entry`` with ``xid: $x.xid``.

Knowledge facts have ``node=""`` (they belong to no node) and evidence pointing into the
knowledge file. Aggregation facts carry ``sources`` (ids of the kernel facts they sum up) so
that a finding quotes the original log lines.

This module also holds the one format detail the aggregation needs: the NVLink5 Xid line
(Xid 144-150), sample lines in the shape NVIDIA's decode table describes::

    NVRM: Xid (PCI:0000:04:00): 144, SAW_MVB Nonfatal XC0 i0 Link 00 (0x00000001 0x00000001 0x00000000 0x00000000)
    NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Fatal XC0 i0 Link 00 (0x00000004 0x00000040 0x00000000 0x00000000)
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.catalogues import (  # noqa: F401 - the fact classes live in facts/kinds
    GpuProduct, GspErrorContext, IbAsyncEventCatalogueEntry, IbWcStatusCatalogueEntry,
    NcclResultCatalogueEntry, NcclWarnMessageEntry, NvlinkXid74Detail, NvlinkXidDetail, NvrmMessageEntry,
    NvswitchSxidLinks, PcieGpuLoss, RecoveryActionEntry, SxidCatalogueEntry, Xid45Context, XidCatalogueEntry, XidCausedBy,
    XidRecoveryContext, XidRecurrence, XidRepeat, XidStale,
)


# Xid 45 as open kernel modules print it after another error:
# NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149
XID45_PREVIOUS = re.compile(r"caused by previous Xid (?P<code>\d+)")

# 144, SAW_MVB Nonfatal XC0 i0 Link 00 (0x00000001 0x00000002 0x00000000 0x00000000)
# 146, TLW_RX/TLW_RX_PIPE0 Fatal XC0 i0 Link 00 (0x0000000a 0x00000004 0x00000000 0x00000000)
# 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)   (leptonai/gpud#1174: no one link)
NVLINK5_MESSAGE = re.compile(
    r"^(?P<unit>[A-Z0-9_/]+) (?P<sev>Nonfatal|Non-fatal|Fatal)\b.*?\bLink (?P<link>-?\d+)"
    r"(?: \((?P<intr>0x[0-9a-fA-F]+) (?P<status>0x[0-9a-fA-F]+)[^)]*\))?"
)
