"""``<gpu>`` elements of one ``nvidia-smi -q -x`` document that repeat the first one's layout,
read without expat's callbacks (issue 12: a healthy fleet node's 8 GPUs cost ~0.5 ms each in
per-element Python; what differs between them is the text of their one-line leaves).

The first ``<gpu>`` element is parsed on its own (expat, the reader's paths: nvidia_smi_xml._Path)
into a plan: which of its one-line leaves (by place) gives which record key, on which line, and
the lines of the sections whose start is evidence. Every ``<gpu>`` element whose layout (all but
the gpu id and the text of its one-line leaves) is the first one's, character for character, is
then read from its leaves by one regex split, and expat is handed its newlines in its place (its
line numbers, errors and the elements around it stay those of the whole document). A layout equal
to a well-formed element's, with leaf text that holds no markup, no line end and no character
XML forbids, is well formed and gives expat the same callbacks with other text: the record is the
one the callbacks make. Anything else (a comment or processing instruction anywhere, an element
whose layout differs, text between elements that is not plain tags, a limit within reach) goes to
expat as before.

Sample (``nvidia-smi -q -x``, 8 x H200, driver 580.159.04: fixtures/bundles/h200-healthy/bundle/vm/smi.xml)::

    	<gpu id="00000000:00:06.0">
    		<temperature>
    			<gpu_temp>32 C</gpu_temp>
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any
from xml.parsers import expat

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.gpu_state_facts import GpuRecord

# 			<gpu_temp>32 C</gpu_temp>     (one line; its text without markup, line ends, "]" of "]]>",
# or a character XML 1.0 forbids: such text is character data as it stands)
LEAF = re.compile(r"<([A-Za-z_][\w.-]*)>([^<&\]\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]*)</\1>")
# 	<gpu id="00000000:00:06.0">
GPU_START = re.compile(r'<gpu id="([0-9A-Za-z:._-]*)">')
# a start or end tag with nothing odd in it (the text between two <gpu> elements, the head)
# 	<attached_gpus>8</attached_gpus>
PLAIN_TAG = re.compile(r'</?[A-Za-z_][\w.-]*(?:\s+[A-Za-z_][\w.-]*="[^"<&]*")*\s*>')
GPU_END = "</gpu>"
#: leaf ops of a plan: a record key, or nvidia_smi_xml._take's path; a section's start line
_KEY, _TAKE, _SECTION = 0, 1, 2


@dataclass
class _Plan:
    #: the layout: the text between one-line leaves, and the leaves' names
    between: list[str]
    names: list[str]
    #: (op, record key or path, leaf number, line below the <gpu> line, the text where the leaf
    #: number is -1: a section's, or a leaf's over lines) in callback order
    ops: list[tuple[int, Any, int, int, str | None]]
    elements: int
    newlines: int


def _plan(block: str, body: list[str], max_depth: int, gpu: Any) -> _Plan | None:
    """The plan of one ``<gpu>`` element (``block``; ``body``: LEAF.split of what follows its
    start tag; ``gpu``: the reader's path of a <gpu>), or None where it is not well formed on its
    own, nests within reach of the depth limit, or a leaf a fact reads is not one of its one-line leaves."""
    ops: list[tuple[int, Any, int, str, str | None]] = []  # (op, what, start line, name, text of a leaf over lines)
    stack: list[tuple[Any, int, int]] = []  # (path, or None where nothing below is read; line; elements before)
    chars: list[str] = []
    count = deepest = 0
    parser = expat.ParserCreate()

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal count, deepest
        count += 1
        deepest = max(deepest, len(stack))
        chars.clear()
        line = parser.CurrentLineNumber - 1
        if not stack:
            node = gpu
        elif (parent := stack[-1][0]) is None:
            node = None
        else:
            node = parent.children.get(name, _UNPLANNED)
            if node is _UNPLANNED:
                node = parent.child(name)
            if node is not None and node.section:
                ops.append((_SECTION, node.section, line, name, ""))
        stack.append((node, line, count))

    def end(name: str) -> None:
        node, line, before = stack.pop()
        if before == count and stack and node is not None and (node.key or node.taken):
            # a leaf over several lines (<processes> with blanks only) is no one-line leaf: its text is
            # part of the layout, the same in every element laid out alike
            text = "".join(chars).strip() if parser.CurrentLineNumber - 1 != line else None
            ops.append((_KEY, node.key, line, name, text) if node.key else (_TAKE, node.path, line, name, text))
        chars.clear()

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars.append
    try:
        parser.Parse(block, True)
    except expat.ExpatError:
        return None
    if count < 2 or deepest + 1 >= max_depth:  # a <gpu> without elements is a top-level leaf to the reader
        return None
    # each one-line leaf's line below the <gpu> line: a line with two of them is no one's
    at: dict[int, int] = {}
    line = 0
    for i in range(len(body) // 3):
        line += body[3 * i].count("\n")
        at[line] = -1 if line in at else i
    planned = []
    for op, what, line, name, text in ops:
        i = -1
        if text is None and ((i := at.get(line, -1)) < 0 or body[3 * i + 1] != name):
            return None
        planned.append((op, what, i, line, text))
    return _Plan(between=body[0::3], names=body[1::3], ops=planned, elements=count, newlines=block.count("\n"))


#: plans by layout, kept a process: a fleet's documents repeat one or two layouts
_PLANS: dict[tuple, _Plan | None] = {}
_PLANS_KEPT = 64
_UNPLANNED = object()


def _plain(text: str) -> bool:
    """Every ``<`` of ``text`` opens a plain start or end tag that ends in it."""
    return text.count("<") == len(PLAIN_TAG.findall(text))


def feed(reader: Any, doc: str, final: bool, first_line: int, limits: tuple[int, int], gpu: Any,
         take: Callable[[GpuRecord, tuple[str, ...], str, int], None]) -> None:
    """``reader.parser.Parse(doc, final)`` (nvidia_smi_xml._Reader), with each ``<gpu>`` element
    that repeats the first one's layout read from its plan (module docstring). ``limits``: the
    depth and element limits; ``gpu``: the reader's path of a ``<gpu>``; ``take``: what it does
    with a leaf whose path is no record key."""
    max_depth, max_elements = limits
    parse = reader.parser.Parse
    s = doc.find('<gpu id="')
    if s == -1 or "<!" in doc or "<?" in doc:
        parse(doc, final)
        return
    plan: _Plan | None = None
    pos, line = 0, first_line  # the line of doc[pos]
    while s != -1:
        m = GPU_START.match(doc, s)
        e = doc.find(GPU_END, s)
        if m is None or e == -1:
            break
        e += len(GPU_END)
        body = LEAF.split(doc[m.end():e])
        if plan is None:
            key = (tuple(body[0::3]), tuple(body[1::3]), max_depth)
            if (plan := _PLANS.get(key, _UNPLANNED)) is _UNPLANNED:
                if len(_PLANS) >= _PLANS_KEPT:
                    _PLANS.clear()
                plan = _PLANS[key] = _plan(doc[s:e], body, max_depth, gpu)
            if plan is None:
                break
        head = doc[pos:s]
        if not _plain(head):
            break
        parse(head, False)
        line += head.count("\n")
        depth, elements = reader.state()
        if depth == 1 and elements + plan.elements <= max_elements and body[1::3] == plan.names \
                and body[0::3] == plan.between:
            reader.records.append(rec := GpuRecord(pci_bus_id=try_pci_bus_id(m[1]) or "unknown", line=line))
            values, texts = rec.values, body[2::3]
            for op, what, i, below, text in plan.ops:
                if i >= 0:
                    text = texts[i].strip()
                if op == _TAKE:
                    take(rec, what, text, line + below)
                else:
                    values[what] = (text, line + below)
            reader.count(plan.elements)
            parse("\n" * plan.newlines, False)
            line += plan.newlines
        else:  # not at the top of the log, past a limit, or laid out otherwise: expat reads it
            parse(doc[s:e], False)
            line += doc.count("\n", s, e)
        pos = e
        s = doc.find('<gpu id="', pos)
    parse(doc[pos:], final)
