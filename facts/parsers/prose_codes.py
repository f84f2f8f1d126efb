"""A fault code a person names in a sentence of a ticket ("dmesg shows Xid 79 on GPU 0000:3b:00.0"), for
facts/parsers/ticket_prose.py (not a reader: no KIND).

Tickets often carry no log, only the reporter's sentence naming the driver's code. The code is read as a
``reported_fault_code`` (facts/kinds/prose.py): the kind of code (``xid``, ``sxid``), the code, and the GPU's bus id,
the ``GPU <n>`` and the ``node <name>`` the same sentence names. Rules join it with NVIDIA's catalogue
(knowledge/xid.yaml) for the cause, and say that it was reported, not observed (rules/gpu/xid_reported_in_prose.yaml,
rules/nvlink/sxid_reported_in_prose.yaml).

A code named is a report only where the sentence tells that it was seen (a verb of observing, "events", or the code
placed on a device: "Xid 79 on GPU ..."), and not where it is:

- denied: "no Xid 79 in dmesg", "we did not see Xid 79", "Xid 79 was never logged";
- asked: "is it Xid 79?", a sentence that ends with a question mark;
- explained: the code the subject of a definition ("Xid 64 (...) reports a row-remapping failure: ...", "Xid:8
  generally means that ...", "Xid 143, marked as critical in GPUd, indicates ..."), or a sentence about a catalogue, a
  tool's handling or a change ("... are added to the `azure_gpu_xid` test", "Addresses XID 79 ... by changing ...
  severity", "NVIDIA only mentions that it's a driver error");
- hypothetical or a monitoring recipe: "if you see Xid 79, reboot", "watch dmesg for Xid 79 events".

Real sentences (tests/parsers/test_prose_codes.py holds them with their sources)::

    Our fleet has **1,175 XID 154 events in 30 days and zero of them produced `CONTACT_SUPPORT`**, ...   (NVIDIA/NVSentinel#1888: reported)
    Xid 64 (`INFOROM_DRAM_RETIREMENT_FAILURE`) reports a row-remapping **failure**: ...                 (awslabs/awsome-distributed-ai#1190: explained)
    Xid:8 generally means that there was some kind of timeout problem, ...                              (forums.developer.nvidia.com/t/2574: explained)
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from stethoscope.facts.ids import try_pci_bus_id

# Our fleet has **1,175 XID 154 events in 30 days and zero of them produced `CONTACT_SUPPORT`** ...     (NVIDIA/NVSentinel#1888)
# To allow a better identification of this error the Xid codes 119 and 120 are added to the `azure_gpu_xid` test.   (Azure/azurehpc#714)
# Xid:8 generally means that there was some kind of timeout problem, ...                                 (forums.developer.nvidia.com/t/2574)
# For "Xid 44", NVIDIA only mentions that it's a driver error but ...                                   (leptonai/gpud#100)
#   SXid as the NVSwitch driver prints its code: "nvidia-nvswitch%d: SXid (PCI:%s): %05d, ..." (open-gpu-kernel-modules
#   src/common/nvswitch); a list of codes after one name ("Xid codes 119 and 120", "Xid 48 / Xid 63") gives each
_CODE = re.compile(r"(?<![\w/-])(?P<s>S)?XIDs?\b[`'\"*]{0,2}(?:[ \t]{1,2}(?:error|code|event)s?)?[ \t]{0,2}[:#=]?[ \t]{0,2}[`'\"]?"
                   r"(?P<codes>\d{1,5}(?:[ \t]{0,2}(?:/|,|&|and|or)[ \t]{0,2}(?:S?XID[ \t]{0,2})?\d{1,5}){0,8})(?:s\b)?(?![\w:]|\.\d)",
                   re.I)
_NUM = re.compile(r"\d{1,5}")
# a sentence ends at a full stop, ! or ? before a blank ("0000:3b:00.0" stays whole)
#   (and its closing markup: "... it fail.** Our fleet has ...", NVIDIA/NVSentinel#1888)
_SENTENCE_END = re.compile(r"(?<=[.!?])[*_`'\")\]]{0,3}[ \t]+(?=\S)")
# where a clause starts: punctuation, or a conjunction that turns the sentence ("I'm not sure why, but dmesg shows ...")
_CLAUSE = re.compile(r"[.;:!?][*_`'\")\]]{0,3}[ \t]|,[ \t]|\b(?:but|however|although|though|whereas|while)\b", re.I)
# no Xid 79 in dmesg / we did not see Xid 79 / without any Xid 79 since the reboot
_NEG_BEFORE = re.compile(r"\b(?:no|not|never|without|none|nor|neither|zero)\b|n't\b", re.I)
# Xid 79 was not seen again / Xid 79 never appeared
_NEG_AFTER = re.compile(r"^[^.;:!?]{0,40}?\b(?:not|never|n't)\b[ \t]{1,3}(?:\w+[ \t]{1,3}){0,2}?(?:seen|found|observed|appear\w*|occur\w*"
                        r"|report\w*|logged|present|show\w*|happen\w*|visible|there)\b", re.I)
# if you see Xid 79 ... / watch dmesg for Xid 79 events / check for Xid errors such as Xid 48
_HYPOTHETICAL = re.compile(r"\b(?:if|whether|unless|in case|whenever|watch\w*|check\w*|look\w*[ \t]for|grep\w*|search\w*|monitor\w*"
                           r"|alert\w*|detect\w*|catch\w*|handl\w*|ignor\w*|filter\w*|inject\w*|trigger\w*|simulat\w*|expect\w*"
                           r"|such as|e\.g\.|for example)\b", re.I)
# Xid 64 (`INFOROM_DRAM_RETIREMENT_FAILURE`) reports a ...   Xid:8 generally means ...   Xid 143, marked as critical ...
_DEFINED = re.compile(r"^[ \t]{0,3}(?:\([^()\n]{0,80}\))?[ \t]{0,3}[,:-]?[ \t]{0,3}(?:\w+ly[ \t]{1,3})?(?:means?|indicates?|is|are|was|were"
                      r"|reports?|signals?|implies|suggests?|refers|stands|describes?|marks?|marked|corresponds|points?|denotes?)\b",
                      re.I)
# what a sentence about a catalogue, a tool's handling or a change says (no report of this system's fault)
_CATALOGUE_TALK = re.compile(r"\b(?:catalog(?:ue)?s?|documentation|docs?|documented|NVIDIA[ \t](?:only[ \t])?(?:says|mentions|lists|documents)"
                             r"|classif\w*|reclassif\w*|severity|remediation|action[ \t]type|added[ \t]to|mark(?:ed)?[ \t]as|scenarios?"
                             r"|workflow|bucket)\b", re.I)
# what says it was seen: a verb of observing, events counted, the code in a log
_OBSERVED = re.compile(r"\b(?:show(?:s|ed|ing|n)?|see|saw|seeing|seen|get|gets|got|getting|gotten|hit|hits|hitting|threw|throws?|throwing"
                       r"|report(?:s|ed|ing)?|logs|logged|found|observ\w*|notic\w*|occur\w*|happen\w*|appear\w*|encounter\w*|experienc\w*"
                       r"|print(?:s|ed|ing)?|spew\w*|had|has|have|having|there[ \t](?:is|are|was|were)|came|coming|raised|fired"
                       r"|events?|crash\w*|died|dies|fell|failed|fails)\b", re.I)
# the code placed on a device or in a log: "Xid 79 on GPU 0000:3b:00.0", "SXid 20034 on the NVSwitch", "Xid 48 in dmesg"
_PLACED = re.compile(r"^(?:[ \t]{0,2}(?:errors?|events?|faults?))?[ \t]{1,3}(?:on|from|at|in)[ \t]{1,3}(?:the[ \t]{1,3}|our[ \t]{1,3}|one[ \t]of[ \t]"
                     r"(?:the|our)[ \t]{1,3})?(?:GPUs?|nodes?|hosts?|servers?|machines?|cards?|nvswitch\w*|switch\w*|racks?|dmesg|syslog"
                     r"|journal\w*|kern(?:el)?[ \t.]log|[a-z][\w-]{0,40}\d)\b", re.I)
# asked: "is it Xid 79?"; a sentence opened by a question word
_QUESTION_START = re.compile(r"^\W{0,3}(?:is|are|was|were|do|does|did|could|can|should|would|will|has|have|what|why|how|which|where|any)\b",
                             re.I)
# the entity the sentence names: a bus id, a GPU index, a node
_BUS = re.compile(r"(?<![\w:])(?:PCI:)?(?P<bus>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)(?![\w:])")
_GPU_INDEX = re.compile(r"\bGPU[ \t]?#?(?P<i>\d{1,2})\b(?![:.]\w)")
_NODE = re.compile(r"\b(?:node|host|server|machine)[ \t]{1,2}[`'\"]?(?P<node>[A-Za-z][\w.-]{0,62}\d[\w.-]{0,20}|[A-Za-z0-9][\w-]{0,62}-\d{1,6})"
                   r"(?<![.-])")


# what may stand before a definition's subject: markup, an article ("The Xid 64 ..." / "**Xid 64** ...")
_SUBJECT_LEAD = re.compile(r"^[\W_]{0,6}(?:(?:the|an?)[ \t]{1,3})?[\W_]{0,3}$", re.I)
#: the words around a code looked at, each side (a hostile line's long clause is not searched once per code)
_WINDOW = 200


@dataclass(frozen=True)
class ReportedCode:
    code_kind: str  # xid | sxid
    code: int
    words: str  # the phrase that names it: "Xid 79"
    pci_bus_id: str | None = None
    gpu_index: int | None = None
    named_node: str | None = None


def defines(after_code: str) -> bool:
    """Whether the words right after a code make it the subject of a definition ("Xid 143, marked as critical in GPUd,
    indicates ...", leptonai/gpud#614; "Xid:8 generally means ..."): what a catalogue or a person explaining says,
    not the driver's message (which opens with a field, a name or a capital: "pid=...", "GPU has fallen off the bus")."""
    return _DEFINED.match(after_code[:_WINDOW]) is not None


def _told_as_seen(sentence: str, m: re.Match, observed: bool) -> bool:
    """Whether the code named at ``m`` is told as seen on this system (not denied, explained or supposed); the
    sentence-wide tests (asked, about a catalogue, a verb of observing) are the caller's."""
    lo = max(0, m.start() - _WINDOW)
    begin = lo
    for c in _CLAUSE.finditer(sentence, lo, m.start()):
        begin = c.end()
    before = sentence[begin:m.start()]
    tail = sentence[m.end():m.end() + _WINDOW]
    end = _CLAUSE.search(tail)
    after = tail[:end.start()] if end else tail
    if _NEG_BEFORE.search(before) or _NEG_AFTER.match(after) or _HYPOTHETICAL.search(before):
        return False
    if _SUBJECT_LEAD.match(before) and defines(tail):
        return False  # the code is the subject of a definition
    return observed or _PLACED.match(tail) is not None


def reported_codes(line: str) -> list[ReportedCode]:
    """The Xid and SXid codes ``line`` tells were seen, each once, in the order written."""
    if "xid" not in line.lower():
        return []
    out: dict[tuple[str, int], ReportedCode] = {}
    for sentence in _SENTENCE_END.split(line):
        found = [m for m in _CODE.finditer(sentence)]
        if not found or sentence.rstrip(" \t*_`'\")").endswith("?") or _QUESTION_START.match(sentence) \
                or _CATALOGUE_TALK.search(sentence):
            continue  # asked, or about a catalogue, a tool or a change
        observed = _OBSERVED.search(sentence) is not None
        told = [m for m in found if _told_as_seen(sentence, m, observed)]
        if not told:
            continue
        bus = next((b for b in (try_pci_bus_id(x["bus"]) for x in _BUS.finditer(sentence)) if b), None)
        gpu = _GPU_INDEX.search(sentence)
        node = _NODE.search(sentence)
        for m in told:
            kind = "sxid" if m["s"] else "xid"
            for raw in _NUM.findall(m["codes"]):
                code = int(raw)
                if (kind == "xid" and not 0 < code < 1000) or (kind == "sxid" and not 1000 <= code < 100000):
                    continue
                out.setdefault((kind, code), ReportedCode(
                    code_kind=kind, code=code, words=" ".join(m[0].split())[:80], pci_bus_id=bus,
                    gpu_index=int(gpu["i"]) if gpu else None, named_node=node["node"] if node else None))
    return list(out.values())
