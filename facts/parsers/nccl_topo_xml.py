"""NCCL's topology dump (``NCCL_TOPO_DUMP_FILE=topo.xml``): the PCI tree, GPUs, NICs and
NVLinks as NCCL detected them.

Sample content (real, 2 x H200 NV18 host, NCCL 2.28.9)::

    <system version="1">
      <cpu host_hash="0xa8a956a6eaa3c774" numaid="-1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
        <pci busid="0000:00:06.0" class="0x030200" vendor="0x10de" device="0x2335" ... link_speed="32.0 GT/s PCIe" link_width="0">
          <gpu dev="0" sm="90" rank="0" gdr="1">
            <nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/>
        <nic>
          <net name="eth0" dev="0" latency="0" speed="10000" port="0" guid="0x0" maxconn="65536" gdr="0"/>

Facts: ``nccl_topo_pci`` per ``<pci>`` element (a bridge/PCIe switch has children; ``parent``
is the enclosing ``<pci>`` bus id, None under the CPU), ``nccl_topo_gpu`` per ``<gpu>``,
``nccl_topo_nic`` per ``<net>``, each citing its line. The XML is read with the standard
library's expat parser with DTDs and entities refused; malformed XML is a ParseError at the
line expat names.
"""
from __future__ import annotations

import re
import xml.parsers.expat

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclTopoGpu, NcclTopoNic, NcclTopoPci,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, last_line

KIND = "nccl_topo_xml"

# <system version="1">   followed by <cpu host_hash=... (NCCL >= 2.12) or <cpu numaid=... (older dumps)
_DETECT = re.compile(r'^\s*<system version="\d+">\s*\n\s*<cpu [^>]*(?:host_hash|numaid)=', re.M)


def detect(head: str) -> bool:
    return "<system version=" in head and bool(_DETECT.search(head))  # a cheap gate


def _int(v: str | None) -> int | None:
    try:
        return int(v, 0) if v is not None else None
    except ValueError:
        return None


# Where the dump starts and ends in a text that holds more (a ticket: prose, a command, then the dump inside a code
# fence, NVIDIA/nccl-tests#154):
# topology
# ```
# <system version="1">
#   <cpu numaid="0" affinity="000000ff,ffff0000,00ffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="106">
#     <pci busid="0000:4b:00.          (the stored excerpt ends here)
_START = re.compile(r'^[ \t]*<system version="\d+">', re.M)
_END = "</system>"
# ``` or ~~~ on a line of its own after the dump's start: a markdown fence closing the paste of a dump that did not close
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)

#: a CR not followed by LF (fuzz input fixtures/fuzz/nccl_topo_xml_lone_cr.xml):
#:   <pci busid="0000:11:00.0" class="0x060400" vendor="0x1000" device="0xc010" ... link_width="16">\r          <pci busid="0000:13:00.0" ...
_LONE_CR = re.compile(r"\r(?!\n)")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    p = xml.parsers.expat.ParserCreate()
    pci_stack: list[str | None] = [None]
    host = [None]
    gpu: dict | None = None

    def refuse(*_a):
        raise ValueError("DTDs and entities are not accepted")

    p.StartDoctypeDeclHandler = refuse
    p.EntityDeclHandler = refuse

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal gpu
        line = p.CurrentLineNumber
        if tag == "cpu":
            host[0] = attrs.get("host_hash")
        elif tag == "pci":
            bus = try_pci_bus_id(attrs.get("busid"))
            if bus is None:
                fb.error(line, f"NCCL topology: bad busid {attrs.get('busid')!r}")
            else:
                fb.add(NcclTopoPci, line, pci_bus_id=bus, pci_class=attrs.get("class"), parent=pci_stack[-1],
                       link_speed=attrs.get("link_speed"), link_width=_int(attrs.get("link_width")), host_hash=host[0])
                result.lines_used += 1
            pci_stack.append(bus)
            return
        elif tag == "gpu":
            gpu = {"line": line, "pci_bus_id": pci_stack[-1], "dev": _int(attrs.get("dev")) or 0, "rank": _int(attrs.get("rank")),
                   "sm": _int(attrs.get("sm")), "gdr": attrs.get("gdr") == "1" if "gdr" in attrs else None, "nvlinks": 0, "nvswitch": False}
        elif tag == "nvlink" and gpu is not None:
            gpu["nvlinks"] += _int(attrs.get("count")) or 0
            if attrs.get("target", "").lower().startswith("fffffff"):
                gpu["nvswitch"] = True
            result.lines_used += 1
        elif tag == "net":
            fb.add(NcclTopoNic, line, name=attrs.get("name", "?"), dev=_int(attrs.get("dev")), port=_int(attrs.get("port")),
                   speed_mbps=_int(attrs.get("speed")), pci_bus_id=pci_stack[-1], gdr=attrs.get("gdr") == "1" if "gdr" in attrs else None,
                   host_hash=host[0])
            result.lines_used += 1
        if tag != "pci":
            pci_stack.append(pci_stack[-1])

    def end(tag: str) -> None:
        nonlocal gpu
        if tag == "gpu" and gpu is not None:
            line = gpu.pop("line")
            fb.add(NcclTopoGpu, line, host_hash=host[0], **gpu)
            result.lines_used += 1
            gpu = None
        pci_stack.pop()

    p.StartElementHandler = start
    p.EndElementHandler = end
    text = artefact.text
    if "\r" in text:  # expat counts a lone CR as a line end, the artefact's lines do not
        text = _LONE_CR.sub(" ", text)
    # the dump alone: the text before its root as that many line ends (expat's lines stay the artefact's), none after
    # its end; a dump whose root never closes runs to a closing fence or the text's end
    m = _START.search(text)
    start = m.start() if m is not None else 0
    close = text.find(_END, start)
    if close >= 0:
        end = close + len(_END)
    else:
        fence = _FENCE.search(text, start)
        end = fence.start() if fence is not None else len(text)
    body = "\n" * text.count("\n", 0, start) + text[start:end]
    try:
        p.Parse(body, True)
    except xml.parsers.expat.ExpatError as exc:
        # expat counts a line after a lone "\r" or the last newline; cite a line that exists
        line = min(exc.lineno, max(1, len(artefact.lines)))
        message = f"NCCL topology XML: {xml.parsers.expat.errors.messages.get(exc.code, exc)}"
        if close < 0 and line >= last_line(body.split("\n")):
            # the dump stops before its root closes, at the paste's end: cut where an excerpt or a scrollback ended,
            # incomplete, not wrong (never a healthy verdict)
            fb.limit(line, "cut_short", f"the topology dump stops before </system> ({message}): what came after is not in the paste")
        else:
            fb.error(line, message)
    except ValueError as exc:
        fb.error(p.CurrentLineNumber, f"NCCL topology XML: {exc}")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
