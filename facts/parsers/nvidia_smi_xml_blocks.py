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
from stethoscope.facts.parsers.gpu_state_facts import Columns, GpuRecord

# 			<gpu_temp>32 C</gpu_temp>     (the text between a ">" and the next "</" on one line: without
# markup, line ends, "]" of "]]>", a character XML 1.0 forbids, or a quote or ">" that an attribute
# value may hold, such text is character data as it stands; the tags around it are the layout's.
# A search for ">" rather than for a leaf's whole start and end tags: half the time of one that
# names the element twice, ~50 us of a 12 KB <gpu> element on 2 cores)
LEAF = re.compile(r""">([^<>&"'\]\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]*)</""")
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
    #: the layout: what lies between the one-line texts (LEAF), their tags included
    between: list[str]
    #: (op, record key or path, leaf number, line below the <gpu> line, the text where the leaf
    #: number is -1: a section's, or a leaf's over lines) in callback order
    ops: list[tuple[int, Any, int, int, str | None]]
    elements: int
    newlines: int
    #: the ops as columns, where every leaf read is a one-line leaf (else None: ops one by one)
    columns: Columns | None = None

    @property
    def end_from(self) -> int:
        """Where, after its start tag, the end tag of an element laid out alike is at the earliest
        (its texts empty): its one ``</gpu>`` (the layout's last characters) is sought from there."""
        return sum(map(len, self.between)) - len(GPU_END)


def _columns(ops: list[tuple[int, Any, int, int, str | None]], target: Callable) -> Columns | None:
    """The ops of a plan as columns (``target``: nvidia_smi_xml's, where _take puts a leaf of a
    path), or None where a leaf read into a column is a leaf over lines (read op by op)."""
    entries, sections, others = [], [], []
    for op, what, i, below, text in ops:
        if op == _SECTION:
            sections.append((what, below))
            continue
        column, payload = ("keys", what) if op == _KEY else (target(what) or ("", None))
        if not column:
            others.append((what, i, below, text))
        elif i < 0:
            return None
        else:
            entries.append((column, payload, i, below))
    return Columns.of(entries, sections, others)


def _plan(block: str, body: list[str], max_depth: int, gpu: Any, target: Callable) -> _Plan | None:
    """The plan of one ``<gpu>`` element (``block``; ``body``: LEAF.split of what follows its
    start tag, layout and one-line texts in turn; ``gpu``: the reader's path of a <gpu>), or None
    where it is not well formed on its own, nests within reach of the depth limit, or a leaf a
    fact reads is not one of its one-line leaves."""
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
    for i in range(len(body) // 2):
        line += body[2 * i].count("\n")
        at[line] = -1 if line in at else i
    planned = []
    for op, what, line, name, text in ops:
        i = -1
        # the leaf's whole text: right after its start tag (no attributes), right before its end tag
        if text is None and ((i := at.get(line, -1)) < 0 or not body[2 * i].endswith(f"<{name}")
                             or not body[2 * i + 2].startswith(f"{name}>")):
            return None
        planned.append((op, what, i, line, text))
    return _Plan(between=body[0::2], ops=planned, elements=count, newlines=block.count("\n"),
                 columns=_columns(planned, target))


#: plans by layout, kept a process: a fleet's documents repeat one or two layouts
_PLANS: dict[tuple, _Plan | None] = {}
_PLANS_KEPT = 64
_UNPLANNED = object()


#: <gpu id="00000000:18:00.0"> -> 0000:18:00.0: a fleet's nodes repeat the same bus ids
_BUS_IDS: dict[str, str] = {}


def _bus_id(raw: str) -> str:
    if (bus := _BUS_IDS.get(raw)) is None:
        if len(_BUS_IDS) >= 4096:
            _BUS_IDS.clear()
        bus = _BUS_IDS[raw] = try_pci_bus_id(raw) or "unknown"
    return bus


def _plain(text: str) -> bool:
    """Every ``<`` of ``text`` opens a plain start or end tag that ends in it."""
    return text.count("<") == len(PLAIN_TAG.findall(text))


def feed(reader: Any, doc: str, final: bool, first_line: int, limits: tuple[int, int], gpu: Any,
         take: Callable[[GpuRecord, tuple[str, ...], str, int], None], target: Callable) -> int | None:
    """``reader.parser.Parse(doc, final)`` (nvidia_smi_xml._Reader), with each ``<gpu>`` element
    that repeats the first one's layout read from its plan (module docstring). ``limits``: the
    depth and element limits; ``gpu``: the reader's path of a ``<gpu>``; ``take``: what it does
    with a leaf whose path is no record key; ``target``: where ``take`` puts a leaf of a path
    (nvidia_smi_xml._target: a plan's columns). Returns the line ends of ``doc``, counted as it
    went (a plan knows its element's), or None where it handed all of ``doc`` to expat."""
    max_depth, max_elements = limits
    parse = reader.parser.Parse
    s = doc.find('<gpu id="')
    # (a one-character search first: memchr, where "<!" in a 200 kB document costs ~0.15 ms)
    if s == -1 or ("!" in doc and "<!" in doc) or ("?" in doc and "<?" in doc):
        parse(doc, final)
        return None
    plan: _Plan | None = None
    pos, line = 0, first_line  # the line of doc[pos]
    while s != -1:
        if (m := GPU_START.match(doc, s)) is None:
            break
        # past a plan, from where an element laid out as its own would end at the earliest: str.find
        # skips on a needle's last character, and nearly every line ends in ">" (15 us a 12 kB element,
        # against 2 us for its texts). An element laid out otherwise may end earlier, and then what is
        # found holds more than it: its layout is not the plan's, and expat reads the same characters.
        e = doc.find(GPU_END, s if plan is None else m.end() + end_from)
        if e == -1:
            break
        e += len(GPU_END)
        body = LEAF.split(doc[m.end():e])
        if plan is None:
            key = (tuple(body[0::2]), max_depth)
            if (plan := _PLANS.get(key, _UNPLANNED)) is _UNPLANNED:
                if len(_PLANS) >= _PLANS_KEPT:
                    _PLANS.clear()
                plan = _PLANS[key] = _plan(doc[s:e], body, max_depth, gpu, target)
            if plan is None:
                break
            end_from = plan.end_from
        head = doc[pos:s]
        if not _plain(head):
            break
        parse(head, False)
        line += head.count("\n")
        depth, elements = reader.state()
        if depth == 1 and elements + plan.elements <= max_elements and body[0::2] == plan.between:
            reader.records.append(rec := GpuRecord(pci_bus_id=_bus_id(m[1]), line=line))
            values, texts = rec.values, body[1::2]
            if (cols := plan.columns) is not None:
                cols.fill(rec, texts, line, str.strip, take)
            else:
                for op, what, i, below, text in plan.ops:
                    if i >= 0:
                        text = texts[i].strip()
                    if op == _TAKE:
                        take(rec, what, text, line + below)
                    else:
                        values[what] = (text, line + below)
            reader.count(plan.elements)
            reader.skip(plan.newlines)
            line += plan.newlines
        else:  # not at the top of the log, past a limit, or laid out otherwise: expat reads it
            parse(doc[s:e], False)
            line += doc.count("\n", s, e)
        pos = e
        s = doc.find('<gpu id="', pos)
    parse(tail := doc[pos:], final)
    return line - first_line + tail.count("\n")

