"""An Xid quoted outside the kernel log (the fallback: runs only on files no reader recognises).

The driver logs an Xid as ``NVRM: Xid (PCI:0000:dc:00): 149, pid=..., name=..., <message>``
(facts/parsers/kernel_log_nvrm.py reads that). An alert, a provider's ticket or an incident note
often quotes only the code and the message, ``Xid <code>, <message>``: the pair the kernel line
ends with. This reader takes that pair from a file that no other reader recognises, so an Xid a
person or a monitoring system passed on is read by NVIDIA's catalogue (knowledge/xid.yaml) as the
kernel line would be, on the node (the bus id is not quoted).

Only the code-comma-message shape is read: an Xid named in prose ("Xid 13 is an application
fault", "Xid 119, 120: GSP RPC Timeout", a list of codes from NVIDIA's documentation) is not an
event, and a code followed by another code is a list; nor is a pair whose words define the code ("Xid 143, marked as
critical in GPUd, indicates GPU initialization failure.": facts/parsers/prose_codes.py ``defines``).

Sample content (fixtures/artefacts/xid_quoted, sources in its README)::

    On 2026-09-10 08:08:46 `s9jvxs64` GPU 0 reported `Xid 149, NETIR_LINK_DOWN Fatal XC0 i0 Link 14`, and CoreWeave moved the node to `production-reboot` at 08:09:21.

Facts: ``xid_quoted`` per quoted pair: ``xid``, ``message`` (up to the closing quote mark),
``gpu_index`` (a ``GPU <n>`` earlier on the line). Empty input, or no such pair: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import XidQuoted  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.prose_codes import defines

KIND = "xid_quoted"
#: run only on files that no other parser recognised (facts/registry.py)
FALLBACK = True

# On 2026-09-10 08:08:46 `s9jvxs64` GPU 0 reported `Xid 149, NETIR_LINK_DOWN Fatal XC0 i0 Link 14`, and CoreWeave moved ...   (marin-community/marin#9086)
# (not "Xid 119, 120: GSP RPC Timeout / GSP Error": NVIDIA's documentation heading, a list of codes; not "SXid 12028, ...")
PAIR = re.compile(r"(?<![\w-])Xid (?P<xid>\d{1,3}), (?P<msg>[A-Za-z_][^`'\"\n]{2,300})")
# GPU 0 reported ...
_GPU = re.compile(r"\bGPU (?P<i>\d{1,2})\b")


def quoted(m: re.Match) -> bool:
    """A pair, not a sentence that defines the code ("Xid 143, marked as critical in GPUd, indicates GPU initialization
    failure.", leptonai/gpud#614: a catalogue's wording, no event)."""
    return not defines(m.string[m.start("msg") - 1:m.end("msg")])


def detect(text: str) -> bool:
    return any(quoted(m) for m in PAIR.finditer(text))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    text = artefact.text
    for n, m in iter_matches(PAIR, artefact):
        if not quoted(m):
            continue
        result.lines_used += 1
        gpus = _GPU.findall(text, text.rfind("\n", 0, m.start()) + 1, m.start())  # a "GPU <n>" before it on its line
        fb.add(XidQuoted, n, xid=int(m["xid"]), message=m["msg"].strip().rstrip(".,;"),
               gpu_index=int(gpus[-1]) if gpus else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Xid \d{1,3}, [A-Za-z_]",)
