"""What every parser shares: the artefact it reads, the context that builds facts, its result.

A parser module defines its fact classes (``@fact_kind``), a ``KIND`` string naming the
artefact kind, a ``detect(head: str) -> bool`` that recognises the kind from the first
kilobytes of a file, and ``parse(artefact: Artefact) -> ParseResult``. A file may mix kinds
(a pasted terminal session): every parser whose ``detect`` accepts the head, or whose
``SIGNATURE`` pattern occurs anywhere in the text, parses the whole text and takes the lines
it knows; ``lines_used`` counts them so that coverage can report what nobody read.
"""
from __future__ import annotations

import bisect
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Callable, Iterator

from stethoscope.facts.limits import EVIDENCE_CHARS, FACTS_PER_KIND, MESSAGE_CHARS, Hit, cut
from stethoscope.facts.model import MISSING, Fact, view_value


#: how many times Artefact.line_of counts from the start for an earlier offset before it
#: makes a table of line starts (each count is one C pass over the text up to the offset)
BACK_COUNTS = 8


class ParseError(Exception):
    """A recognised but malformed line: names the file and the 1-based line."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = path, line, message


@dataclass
class Artefact:
    """One file of a bundle, read once. ``node`` comes from its folder, else its content."""

    path: str  # relative to the bundle root, '/'-separated
    text: str
    node: str = "unknown"
    node_from_folder: bool = False
    #: lines of the file before ``text`` (a window of a large file: facts/bundle.py); the
    #: builder adds it to every line number, so facts and errors name the file's own lines
    line_offset: int = 0
    #: the text as read when ``text`` is its normalised form (facts/lines.py); evidence quotes it
    raw_text: str | None = field(default=None, repr=False)
    _raw_lines: list[str] | None = field(default=None, repr=False)
    _joined: dict[int, int] | None = field(default=None, repr=False)  # {line: rows joined after it}
    _lines: list[str] | None = field(default=None, repr=False)
    _offsets: list[int] | None = field(default=None, repr=False)
    _last: tuple[int, int] = field(default=(0, 1), repr=False)  # (offset, line) of line_of's last answer
    _back: int = field(default=0, repr=False)  # line_of's answers for an offset before the last one
    #: the facts' router (engine/ruleengine/routing.py Router, set where the file is parsed):
    #: a healthy reading no rule in use can bind is counted, never built (FactBuilder.add),
    #: and a reader may leave unread the lines that give only kinds in ``router.dead``
    router: Any = field(default=None, repr=False, compare=False)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            # split on "\n" only, as line_of() counts: str.splitlines() would also split on
            # "\r" (progress bars) and shift every later line number
            lines = self.text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if "\r" in self.text:  # most files have none: no per-line pass then
                lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
            self._lines = lines
        return self._lines

    def normalise(self, plain: bool | None = None) -> None:
        """Strip pasting and launcher wrappers (facts/lines.py) from ``text``, line for line;
        the original stays in ``raw_text`` for evidence. ``plain``: the wrapper gate's answer
        when the caller's scan already has it (facts/lines.normalise)."""
        from stethoscope.facts.lines import normalise

        split: list[list[str]] = []
        norm = normalise(self.text, plain, split)
        if norm is self.text:
            if split and self._lines is None:  # the rows the gate split: the same as ``lines`` would
                lines = split[0]
                if lines and lines[-1] == "":
                    lines.pop()
                self._lines = lines
        else:
            self.raw_text, self.text = self.text, norm
            self._lines, self._offsets, self._last, self._back = None, None, (0, 1), 0
            # a line a terminal had cut lives on its first row, the rows after it blank
            self._joined = getattr(norm, "joined", None)

    def raw_line(self, line: int) -> str:
        """The 1-based line as it was read (before normalisation): what evidence quotes."""
        if self.raw_text is None:
            return self.lines[line - 1]
        if self._raw_lines is None:
            raw = self.raw_text.split("\n")
            self._raw_lines = [ln[:-1] if ln.endswith("\r") else ln for ln in raw]
        rows = self._joined.get(line) if self._joined else None
        return "".join(self._raw_lines[line - 1:line + rows]) if rows else self._raw_lines[line - 1]

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset (for whole-text regex scans).

        Scans ask in increasing order, so the common case counts the newlines since the last
        answer (one C call). An earlier offset (a second reader's scan of the same text) counts
        from the text's start, also in C, the first few times; a text asked backwards more often
        gets a table of line starts, made by C calls too, and a bisect."""
        last_off, last_line = self._last
        if offset >= last_off:
            line = last_line + self.text.count("\n", last_off, offset)
            self._last = (offset, line)
            return line
        if self._offsets is None:
            self._back += 1
            if self._back <= BACK_COUNTS:
                line = 1 + self.text.count("\n", 0, offset)
                self._last = (offset, line)
                return line
            # start of each row: 0, then the running sum of (row length + its newline)
            self._offsets = [0, *accumulate(map((1).__add__, map(len, self.text.split("\n"))))]
        return bisect.bisect_right(self._offsets, offset)

    def nonblank_lines(self) -> int:
        """How many lines hold something other than whitespace (coverage's denominator)."""
        if self._lines is not None:
            lines = self._lines
        else:
            lines = self.text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
        # a line is blank when empty or all whitespace (str.strip() would leave nothing)
        return len(lines) - lines.count("") - sum(map(str.isspace, lines))

    def node_for(self, host: str | None) -> str:
        """The node of a line: the folder wins; else a host named on the line; else the file's."""
        if self.node_from_folder or not host:
            return self.node
        return host


@dataclass
class ParseResult:
    facts: list[Fact] = field(default_factory=list)
    lines_used: int = 0
    errors: list[ParseError] = field(default_factory=list)
    #: facts made past FACTS_PER_KIND of their kind, counted, not kept: kind -> (count, first line)
    capped: dict[str, list[int]] = field(default_factory=dict)
    #: limits that bit while parsing (an XML nested past its depth limit): facts/limits.py
    limits: list[Hit] = field(default_factory=list)
    #: healthy readings the artefact's router left unbuilt: (node, kind) -> [id, evidence, count]
    #: of the first one (its fact_summary: engine/ruleengine/routing.py)
    folded: dict[tuple[str, str], list] = field(default_factory=dict)


#: fact class -> its kind (FactBuilder.add's cache)
_KIND_OF: dict[type[Fact], str] = {}
#: fact class -> the rule view of its defaults (non-None, evidence left out): FactBuilder._view
_DEFAULT_VIEW: dict[type[Fact], dict[str, Any]] = {}


def _plain(cls: type[Fact]) -> bool:
    """A class without validators: its rule view is its fields as given (else it is built)."""
    plain = _PLAIN.get(cls)
    if plain is None:
        d = cls.__pydantic_decorators__
        plain = _PLAIN[cls] = not (d.validators or d.field_validators or d.model_validators or d.root_validators)
    return plain


_PLAIN: dict[type[Fact], bool] = {}


def _default_view(cls: type[Fact]) -> dict[str, Any]:
    view = _DEFAULT_VIEW.get(cls)
    if view is None:
        view = _DEFAULT_VIEW[cls] = {n: f.default for n, f in cls.model_fields.items()
                                     if n != "evidence" and isinstance(f.default, (str, int, bool, float))}
    return view


def _view(cls: type[Fact], kind: str, fid: str, node: str, fields: dict[str, Any]) -> dict[str, Any]:
    """What ``cls(...).rule_view()`` would give, without building the fact (Fact.rule_view)."""
    out = dict(_default_view(cls))
    out.update(kind=kind, id=fid, node=node)
    for name, value in fields.items():
        if (value := view_value(value)) is MISSING:
            out.pop(name, None)
        else:
            out[name] = value
    return out


#: the answers a router keeps at most (FactBuilder._kept): then it starts again
_ANSWERS_MAX = 4096


def _kept(router: Any, cls: type[Fact], kind: str, fid: str, node: str, fields: dict[str, Any]) -> bool:
    """``router.keeps(kind, <the fact's rule view>)``, asked once per distinct set of the view
    values it reads (Router.reads; each with its type: 1 and True are told apart), the view
    built only then: a healthy fleet's readings of one kind repeat a few (``active=False``)."""
    names = router.reads.get(kind)
    if names is None:
        return False  # no keep_where and no pattern of the rules in use names the kind
    default = _default_view(cls)
    values = []
    for name in names:
        if name in fields:  # as _view sets them: the given fields over kind, id and node over defaults
            v = view_value(fields[name])
        elif name in ("kind", "id", "node"):
            v = kind if name == "kind" else fid if name == "id" else node
        else:
            v = default.get(name, MISSING)
        values.append(None if v is MISSING else (type(v), v))
    key = (kind, tuple(values))
    answers = router.answers
    got = answers.get(key)
    if got is None:
        if len(answers) >= _ANSWERS_MAX:
            answers.clear()
        got = answers[key] = router.keeps(kind, _view(cls, kind, fid, node, fields))
    return got


class FactBuilder:
    """Builds facts with evidence and ids unique within the diagnosis.

    Ids are ``<path>:<line>:<kind>`` with ``#n`` appended when one line yields several facts
    of one kind, so they are stable across runs and readable in reports.
    """

    def __init__(self, artefact: Artefact, result: ParseResult):
        self.artefact = artefact
        self.result = result
        self._seen: Counter[str] = Counter()
        self._kinds: dict[str, int] = {}

    def add(self, cls: type[Fact], line: int, node: str | None = None, text: str | None = None, **fields: Any) -> Fact | None:
        kind = _KIND_OF.get(cls)
        if kind is None:  # model_fields is a costly property: once per class
            kind = _KIND_OF[cls] = cls.model_fields["kind"].default
        art = self.artefact
        if text is None:
            text = art.raw_line(line)
        elif art.raw_text is not None and 0 < line <= len(art.lines) and text == art.lines[line - 1]:
            # a reader that quotes the line it read quotes the normalised one: evidence is the line
            # as read, its wrapper (a rank label, a pod prefix, a quote mark) included
            text = art.raw_line(line)
        line += art.line_offset
        base = f"{self.artefact.path}:{line}:{kind}"
        n = self._seen[base]
        self._seen[base] = n + 1
        fid = base if n == 0 else f"{base}#{n}"
        if len(text) > EVIDENCE_CHARS:  # a 250 MiB line is quoted by its first few KiB
            text = cut(text)
        # evidence as a dict: validated into an Evidence by the fact's own (single) validation
        kept = self._kinds[kind] = self._kinds.get(kind, 0) + 1
        node = node or self.artefact.node
        router = self.artefact.router
        if router is not None and kept <= FACTS_PER_KIND and kind in router.summarised and _plain(cls) \
                and not _kept(router, cls, kind, fid, node, fields):
            # a healthy reading no rule in use can bind: counted for its summary, not built
            slot = self.result.folded.get((node, kind))
            if slot is None:
                self.result.folded[(node, kind)] = [fid, {"path": self.artefact.path, "line": line, "text": text}, 1]
            else:
                slot[2] += 1
            return None
        fact = cls(
            id=fid,
            node=node,
            evidence={"path": self.artefact.path, "line": line, "text": text},
            **fields,
        )
        if kept > FACTS_PER_KIND:  # a table of distinct messages is capped, its rest counted
            c = self.result.capped.setdefault(kind, [0, line])
            c[0] += 1
        else:
            self.result.facts.append(fact)
        return fact

    def limit(self, line: int, limit: str, detail: str) -> None:
        """A limit of facts/limits.py bit at ``line``: what was not read, for the coverage."""
        self.result.limits.append(Hit(limit, self.artefact.path, line + self.artefact.line_offset, detail))

    def error(self, line: int, message: str) -> None:
        self.result.errors.append(ParseError(self.artefact.path, line + self.artefact.line_offset,
                                             cut(message, MESSAGE_CHARS)))

    def error_unless_last(self, line: int, message: str, what: str) -> None:
        """A line of ``what`` the reader cannot read: a parse problem, unless no text follows it.
        A capture that stops inside its last line (a paste cut where a stored excerpt or a
        terminal's scrollback ended: ``#  Rank 13 Group``, an lspci ``ACSCtl:`` line cut inside
        its flags) is incomplete, not wrong: ``cut_short`` (never a healthy verdict), not an
        error nobody can explain. Only the error path pays for finding the last line."""
        lines = self.artefact.lines
        last = len(lines)
        while last and not lines[last - 1].strip():
            last -= 1
        if line >= last:
            self.limit(line, "cut_short", f"{what} on the text's last line is cut short ({message})")
        else:
            self.error(line, message)


#: what walking a JSON document of another shape than its format's raises: ``.get`` of a list,
#: ``float("x")``, ``int(1e999)``, ``"x"["name"]``, a value a fact model refuses (pydantic's
#: ValidationError is a ValueError)
JSON_SHAPE_ERRORS = (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError)

@contextmanager
def json_shape(fb: FactBuilder, what: str, line: int = 1) -> Iterator[None]:
    """Around the walk of a JSON document: a value of another type than the format's (a list
    where an object was, a string for a number, ``null`` for a name) is one parse problem at
    ``line``, never an exception. The facts read before it are kept."""
    try:
        yield
    except JSON_SHAPE_ERRORS as exc:
        why = " ".join(str(exc).splitlines()[:2])
        fb.error(line, f"{what}: a value is not of the type the format has ({type(exc).__name__}: {why})")


def iter_matches(pattern: re.Pattern[str], artefact: Artefact) -> Iterator[tuple[int, re.Match[str]]]:
    """Scan the whole text once with a compiled multiline pattern; yield (1-based line, match)."""
    line_of = artefact.line_of
    for m in pattern.finditer(artefact.text):
        yield line_of(m.start()), m


def iter_lines(pattern: re.Pattern[str], artefact: Artefact) -> Iterator[tuple[int, str]]:
    """Yield (1-based line, line text) of each line in which ``pattern`` matches, once per line.

    For patterns that start with a literal (``"; OOB "``, ``"NCCL WARN"``): the regex engine
    then skips ahead with a fast substring search, where a ``^.*?X``-style multiline pattern
    would be tried at every position of every line. The line is as ``str.split("\n")`` gives
    it (a trailing ``"\r"`` kept)."""
    text = artefact.text
    search, find, rfind = pattern.search, text.find, text.rfind
    line_of = artefact.line_of
    m = search(text)
    while m:
        start = rfind("\n", 0, m.start()) + 1
        end = find("\n", m.start())
        if end == -1:
            end = len(text)
        yield line_of(start), text[start:end]
        m = search(text, end + 1)


def lines_with(text: str, literals: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """(offset of the line's start, line) of each line holding one of ``literals``, in text
    order, once per line. Substring searches only: the fast way to find the few lines a reader
    wants when what they share is a literal (a regex alternation of them is tried at every
    position)."""
    starts: set[int] = set()
    for lit in literals:
        find, rfind = text.find, text.rfind
        pos = find(lit)
        while pos != -1:
            start = rfind("\n", 0, pos) + 1
            starts.add(start)
            end = find("\n", pos)
            if end == -1:
                break
            pos = find(lit, end + 1)
    for start in sorted(starts):
        end = text.find("\n", start)
        yield start, text[start:] if end == -1 else text[start:end]


def iter_lines_with(literals: tuple[str, ...], artefact: Artefact) -> Iterator[tuple[int, str]]:
    """:func:`iter_lines` for lines holding one of ``literals`` (see :func:`lines_with`)."""
    line_of = artefact.line_of
    for start, line in lines_with(artefact.text, literals):
        yield line_of(start), line


Detector = Callable[[str], bool]
