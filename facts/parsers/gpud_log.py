"""GPUd (leptonai/gpud) event and health-state messages: the Xid and SXid it detected.

GPUd reads the kernel log and NVML and reports what it found as its own one-line messages, in
``gpud`` logs, ``/v1/events`` and ``/v1/states`` JSON, and the reasons its CLI prints. Sample
content (leptonai/gpud#604; gpud's docs/TUTORIALS.md; the format strings of
components/accelerator/nvidia/xid/health_state.go and sxid/health_state.go)::

    XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00
    "message": "XID 74(NVLINK Error) detected on PCI:0000:04:00"
    "reason": "XID 74 (NVLINK Error) detected on PCI:0000:04:00",
    SXID 123 detected on PCI:0000:9b:00

Newer GPUd writes ``XID <n> <mnemonic> <description> detected on GPU <bus id> UUID:<uuid>``,
and for NVLink Xids 144-150 ``XID <n>.<sub> (err status 0x...)``; both are read. GPUd 0.1-0.4
wrote ``xid <n> detected by <source> (<when>)`` in its ``error_xid`` events and ``xid <n>
detected by <source>`` in the XID component's state (components/accelerator/nvidia/error/xid:
the events' message, the state's reason or error; leptonai/gpud#192)::

    "message": "xid 119 detected by dmesg (47 minutes ago)",

which names no GPU: ``gpud_xid_reported`` (the Xid and gpud's data source), once per line.

Facts emitted: ``xid_event`` per Xid message that names the GPU's bus id (``message`` is the
name GPUd gives the code; no pid, no boot: GPUd does not print them); ``nvswitch_sxid`` per
SXid message that names its switch. A message that names its GPU only by UUID is a parse error
(the bus id is what every Xid rule joins on). Other GPUd lines ("XIDComponent is healthy",
component reasons) are not read here; NVML errors in them are :mod:`nvml_init`'s. Empty input:
nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.dcgm import GpudXidReported
from stethoscope.facts.kinds.kernel import NvswitchSxid, XidEvent

KIND = "gpud"

_DEV = r"(?:GPU )?(?P<dev>PCI:[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?|GPU-[0-9a-fA-F-]{36})"
# XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00
# XID 74 (NVLINK Error) detected on PCI:0000:04:00
# XID 144.3 (err status 0x00000040) NVLINK_... detected on GPU PCI:0000:04:00 UUID:GPU-...   (health_state.go)
_XID = re.compile(
    r"(?<![\w.])(?P<s>S)?XID (?P<code>\d+)(?:\.\d+)?(?: \(err status 0x[0-9a-fA-F]+\))?"
    # bounded (300 characters: the descriptions are a few words): an unbounded lazy run scanned a
    # long line to its end once per "XID" in it; the description ends on a non-blank (as the shortest did), so
    # that a run of blanks before "detected on" is scanned once, not once per step of the run (1.7 s CPU on
    # bench/redos.py's 120,000-character line split by blanks -> under 0.01 s)
    r"\s*(?:\((?P<name>[^)\n]{0,300})\)\s*|(?P<desc>(?:[^\n\"]{0,299}?[^\s\"])??)\s++)detected on " + _DEV
)
_DETECT = re.compile(r"\bS?XID \d+[^\n]{0,300}? detected on (?:GPU )?(?:PCI:|GPU-)"
                     # "message": "xid 119 detected by dmesg (47 minutes ago)"   (gpud 0.1-0.4, leptonai/gpud#192)
                     r"|\bxid \d+ detected by \w+")
# "message": "xid 119 detected by dmesg (47 minutes ago)",   "reason": "xid 48 detected by dmesg"   (gpud 0.1-0.4)
_XID_BY = re.compile(r"(?<![\w.])xid (?P<code>\d+) detected by (?P<src>\w+)(?: \([^)\n\"]{0,80}\))?")


def detect(head: str) -> bool:
    if "detected on" not in head and "detected by" not in head:
        return False
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "xid " in line and "detected by" in line and (m := _XID_BY.search(line)) is not None:
            b.add(GpudXidReported, n, xid=int(m["code"]), source=m["src"], message=m[0])
            result.lines_used += 1
            continue
        if "detected on" not in line or "XID" not in line:
            continue
        for m in _XID.finditer(line):
            name = (m["name"] if m["name"] is not None else m["desc"] or "").strip()
            bus = try_pci_bus_id(m["dev"]) if m["dev"].startswith("PCI:") else None
            if m["s"]:
                b.add(NvswitchSxid, n, switch=bus or m["dev"], sxid=int(m["code"]), message=name or m[0])
            elif bus is None:
                b.error(n, f"GPUd Xid {m['code']} names its GPU only by UUID ({m['dev']}): no bus id to place it")
                continue
            else:
                b.add(XidEvent, n, pci_bus_id=bus, xid=int(m["code"]), message=name or m[0])
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
