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
import inspect
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate
from operator import itemgetter
from sys import intern
from types import UnionType
from typing import Any, Callable, Iterator, Literal, Union, get_args, get_origin

from stethoscope.facts.limits import EVIDENCE_CHARS, FACTS_PER_KIND, MESSAGE_CHARS, Hit, cut
from stethoscope.facts import model as model_module
from stethoscope.facts.model import (INTERN_MAX, MISSING, SHARE_FROM, Evidence, Fact, model_as_validated,
                                     set_dict as _set_dict, shared_fields_set, view_value, with_slots)


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
    #: a stretch of a larger paste read on its own (engine/foreign_runs.py): its lines (1-based, its own) outside the
    #: paste's fenced code blocks, which the stretch alone cannot see (unrecognised_text.unfenced_lines); None: its own
    unfenced: frozenset[int] | None = field(default=None, repr=False, compare=False)
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
    #: (text, how many lines it holds) where a reader counted the lines of a text it found every line of
    #: a record (nccl_log: a log NCCL wrote alone, its lines counted as it reads): nonblank_lines takes it
    counted_lines: tuple[str, int] | None = field(default=None, repr=False, compare=False)
    #: what a whole-text scan that several readers share found, by the module that made it: (the text it
    #: scanned, its result), made by whichever reader asks first (nccl_log_scan.shared_candidates: one pass
    #: routes an NCCL log's lines to nccl_log, nccl_channels, nccl_nvls and nccl_net_oob); the text is
    #: compared by identity (normalise or unlabel replaces it)
    scans: dict[str, tuple[str, Any]] = field(default_factory=dict, repr=False, compare=False)

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
        from stethoscope.facts import classify
        from stethoscope.facts.lines import GLUE_GATE, INDENTED_GATE, PADDED_GATE, UNCUT_GATE, is_title, normalise, without_title_tag

        split: list[list[str]] = []
        # an issue's title: its template's tag ("[Bug]: ") off, as a label is (the line as read stays the evidence)
        text = without_title_tag(self.text) if is_title(self.path) else self.text
        # the classifier's pass over this text may have found every row a record: no cut to join
        gate = classify.gate
        norm = normalise(text, plain, split, gate(text, UNCUT_GATE), gate(text, GLUE_GATE), gate(text, PADDED_GATE),
                         gate(text, INDENTED_GATE))
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

    def unlabel(self, text: str) -> None:
        """``text`` (this text with a launcher's label off every line: facts/lines.without_line_labels)
        is read instead; evidence still quotes the lines as read."""
        if self.raw_text is None:
            self.raw_text = self.text
        self.text = text
        self._lines, self._offsets, self._last, self._back = None, None, (0, 1), 0

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
        if self._lines is None and self.text:
            from stethoscope.facts import classify
            from stethoscope.facts.lines import UNCUT_GATE

            # the classifier's pass found every row a record of NCCL's prefix (a log NCCL wrote alone):
            # none blank, their count the newlines' (splitting the text to count them: ~0.13 ms of a
            # 175 kB log, the count ~0.05)
            if classify.gate(self.text, UNCUT_GATE):
                known = self.counted_lines  # the same count where a reader made it (~0.06 ms of that log)
                if known is not None and known[0] is self.text:
                    return known[1]
                return self.text.count("\n") + (self.text[-1] != "\n")
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
    #: each FactBuilder's {(file line, kind): facts made there} (built, folded or capped alike): the lines the
    #: readers made facts of (engine/foreign_runs.py: what of a recognised file nobody read)
    seen: list[dict[tuple[int, str], int]] = field(default_factory=list)
    #: (first, last) file lines of each block a reader read whole, its rows read without a fact on each (an
    #: nvidia-smi -q block): read as well (engine/foreign_runs.py), so that another program's line after it is not
    #: taken for one of its rows
    spans: list[tuple[int, int]] = field(default_factory=list)
    #: file lines a reader read as part of an event it made a fact of elsewhere (an AER event's status lines under its
    #: header): no other reader's, and no unread kernel record (unrecognised_text.unread_failures' kernel check)
    read: set[int] = field(default_factory=set)


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


class _Ask:
    """How _asked reads a fact of one class given one set of field names: the given values of the
    names the router reads of its kind (the others are the class's defaults)."""

    __slots__ = ("reads", "get", "one", "two")

    def __init__(self) -> None:
        self.reads: tuple[str, ...] | None = None  # the router's names it was made for
        self.get: Callable[[dict], Any] | None = None
        self.one = False  # one name given: get returns its value, not a tuple
        self.two = False  # two names given


#: (class, the names given...) -> _Ask (FactBuilder.add)
_ASKS: dict[tuple, _Ask] = {}


def _asked(router: Any, cls: type[Fact], kind: str, node: str, fields: dict[str, Any]) -> bool | None:
    """_kept for a foldable fact, asked before any key of the fact's build is made: once per
    distinct set of the given values of the names the router reads, with their types (1 and True
    are told apart), the class fixing the defaults of the others. None where the router reads
    the id or the node (then _kept, given the id). A healthy node's nvidia-smi readings are
    ~200 such facts a file, of which the router keeps none."""
    names = router.reads.get(kind)
    if names is None:
        return False  # no keep_where and no pattern of the rules in use names the kind
    k = (cls, *fields)
    ask = _ASKS.get(k)
    if ask is None:
        if len(_ASKS) >= _TYPED_MAX:
            _ASKS.clear()
        ask = _ASKS[k] = _Ask()
    if ask.reads is not names:
        if "id" in names or "node" in names:
            return None
        present = [n for n in names if n in fields]
        ask.get = itemgetter(*present) if present else None
        ask.one, ask.two = len(present) == 1, len(present) == 2
        ask.reads = names
    get = ask.get
    if get is None:
        key: tuple = (ask,)
    elif ask.one:
        v = get(fields)
        key = (ask, v, type(v))
    elif ask.two:
        v = get(fields)
        key = (ask, v, type(v[0]), type(v[1]))  # ~190 ns less than map(type, v) (2 cores, 2026)
    else:
        v = get(fields)
        key = (ask, v, *map(type, v))
    answers = router.answers
    got = answers.get(key)
    if got is None:
        if len(answers) >= _ANSWERS_MAX:
            answers.clear()
        # the id is not among the names read: the view's is not looked at
        got = answers[key] = router.keeps(kind, _view(cls, kind, "", node, fields))
    return got


#: the annotations a value of the same type passes through pydantic's validation unchanged
_SIMPLE = (str, int, float, bool, type(None))


class _Items(frozenset):
    """What _allowed gives a tuple of any length whose items are of simple types (``tuple[float, ...]``,
    ``tuple[int | None, ...]``): the types its items may have. Validation stores such a tuple's items as
    given where each item's type is one of them (a float stays that float); another (an int in a tuple of
    floats, a bool in one of ints) it converts, so such a tuple is checked item by item (_Typed.build)."""


@dataclass(frozen=True)
class _Shape:
    """A fact class whose validation only checks types (and a Literal's values): _shape_of."""

    #: every field in the class's order with its default (None where the field is required)
    values: dict[str, Any]
    #: a Literal field -> the values it allows
    literals: dict[str, frozenset]
    #: the class's model_validator(mode="before"), or None
    before: Callable[[dict], Any] | None
    #: a tuple field (``tuple[X, ...]``, or an Optional one) -> the types its items may have
    tuples: dict[str, _Items] = field(default_factory=dict)


def _allowed(annotation: Any) -> frozenset | bool | None:
    """True: any value of this simple type (str, int, float, bool, None or a union of them) is
    stored as it is given; a set: a Literal of strings (or an Optional one), its values; an _Items:
    a tuple of any length of items of simple types (or an Optional one), their types; None: anything
    else (a list, a model, an Enum: validation may convert or refuse by value)."""
    if annotation in _SIMPLE:
        return True
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        return frozenset(args) if all(type(a) is str for a in args) else None
    if origin is tuple:
        if len(args) != 2 or args[1] is not Ellipsis:
            return None  # (a tuple of fixed length)
        item = args[0]
        types = (item,) if item in _SIMPLE else get_args(item) if get_origin(item) in (Union, UnionType) else ()
        return _Items(types) if types and all(t in _SIMPLE for t in types) else None
    if origin is Union or origin is UnionType:
        parts = [_allowed(a) for a in args if a is not type(None)]
        if all(p is True for p in parts):
            return True
        if len(parts) == 1 and type(parts[0]) is _Items:  # (None given: its type in _TYPED's key says)
            return parts[0]
        if len(parts) == 1 and type(parts[0]) is frozenset:
            return parts[0] | {None}
    return None


def _shape_of(cls: type[Fact]) -> _Shape | None:
    """How FactBuilder.add may build facts of ``cls`` from typed values, or None where pydantic's
    validation may do more than check types: a validator (other than one model_validator of mode
    "before" given the data alone), a config option besides frozen, extra and defer_build (when
    pydantic builds the validator, not what it does), private attributes,
    a field of another annotation than _allowed reads, with constraints or a default factory."""
    dec = cls.__pydantic_decorators__
    if dec.validators or dec.field_validators or dec.root_validators or len(dec.model_validators) > 1 \
            or set(cls.model_config) - {"frozen", "extra", "defer_build"} or cls.__private_attributes__ \
            or cls.model_post_init is not Fact.model_post_init:
        return None
    before = None
    for d in dec.model_validators.values():
        if d.info.mode != "before" or len(inspect.signature(d.func).parameters) != 1:
            return None
        before = d.func
    values: dict[str, Any] = {}
    literals: dict[str, frozenset] = {}
    tuples: dict[str, _Items] = {}
    for name, f in cls.model_fields.items():
        if name == "evidence":
            if f.annotation is not Evidence:
                return None
        else:
            allowed = _allowed(f.annotation)
            if allowed is None or f.metadata or f.default_factory is not None or f.alias or f.validation_alias:
                return None
            if type(allowed) is _Items:
                tuples[name] = allowed
            elif allowed is not True:
                literals[name] = allowed
        values[name] = None if f.is_required() else f.default
    return _Shape(values, literals, before, tuples)


#: fact class -> its kind, _shape_of and whether a reading may be folded unbuilt (FactBuilder.add's
#: cache: model_fields is a costly property)
_CLASSES: dict[type[Fact], tuple[str, _Shape | None, bool]] = {}


class _Typed:
    """How FactBuilder.add makes facts of one class given one set of field names with one set
    of value types (its key in _TYPED): built by C-level assignment of the values as given
    (as facts/model.py _rebuilt_row unpickles a fact) once validating the key's first fact has shown that validation
    stores each value as given. What depends only on the key is found here, once: the fields set,
    which given values are text (interned), the Literal fields to check, the slots' setters."""

    __slots__ = ("cls", "values", "first", "fields_set", "strs", "literals", "tuples", "same", "split")

    def __init__(self, cls: type[Fact], shape: _Shape, fields: dict[str, Any]):
        self.cls, self.values = cls, shape.values
        self.first = next(iter(shape.values))  # "kind"
        self.fields_set = shared_fields_set(frozenset((*fields, "id", "node", "evidence")))
        # short text values are interned as _share_fields_set does (all but the id; the node apart)
        self.strs = tuple(n for n, v in fields.items() if type(v) is str and n != "node")
        self.literals = tuple((n, a) for n, a in shape.literals.items() if n in fields)
        # the tuples given (a value of another type, None or a list, is the key's: its first fact's comparison says)
        self.tuples = tuple((n, a) for n, a in shape.tuples.items() if type(fields.get(n)) is tuple)
        #: whether building from the values as given makes what validation makes (None: not known
        #: yet: the key's first fact built is validated and compared)
        self.same: bool | None = None
        #: whether the fact's values go into a key-sharing __dict__ (facts/model.py with_values)
        self.split = len(shape.values) > SHARE_FROM

    def build(self, fid: str, node: str, ev: dict[str, Any] | None, fields: dict[str, Any],
              evidence: Evidence | None = None) -> Fact | None:
        """The fact, or None when a Literal field's value is not one it allows (then pydantic
        says why) or a tuple holds an item of another type than its field's (then pydantic converts
        it). The fact's values are those of facts/model.py with_values(cls, {**defaults,
        **fields, id, node, evidence}), in the class's order, filled in place (no dict of them
        made and copied). ``evidence``: one already built (as_given), kept as validation keeps it;
        else one is made of ``ev``."""
        for name, allowed in self.literals:
            if fields[name] not in allowed:
                return None
        for name, types in self.tuples:  # every item of a type validation stores as given (_Items)
            if not types.issuperset(map(type, fields[name])):
                return None
        if evidence is None:
            if len(text := ev["text"]) <= INTERN_MAX:
                ev["text"] = intern(text)
            evidence = model_as_validated(Evidence, ev, _EVIDENCE_SET)
        fact = _new(self.cls)
        split = self.split and model_module._sharing
        if split:  # with_values's key-sharing dict: one key first (an empty one would copy the defaults' table)
            values = fact.__dict__
            values[self.first] = None
            values.update(self.values)
        else:
            values = self.values.copy()
        values.update(fields)  # the class's order stays (every name given is a field: the key says)
        values["id"] = fid
        values["node"] = intern(node) if len(node) <= INTERN_MAX else node
        values["evidence"] = evidence
        for name in self.strs:
            if len(v := fields[name]) <= INTERN_MAX:
                values[name] = intern(v)
        if not split:
            _set_dict(fact, values)
        return with_slots(fact, self.fields_set)


def _same(a: Any, b: Any) -> bool:
    """Two models with the same fields set and values of the same types (NaN equals NaN; a tuple's
    items too: (1,) is not (1.0,))."""
    da, db = a.__dict__, b.__dict__
    if type(a) is not type(b) or list(da) != list(db) or a.__pydantic_fields_set__ != b.__pydantic_fields_set__ \
            or a.__pydantic_extra__ != b.__pydantic_extra__ or a.__pydantic_private__ != b.__pydantic_private__:
        return False
    return _same_values(da.values(), db.values())


def _same_values(xs: Any, ys: Any) -> bool:
    for x, y in zip(xs, ys):
        if isinstance(x, Evidence):
            if not _same(x, y):
                return False
        elif type(x) is not type(y):
            return False
        elif type(x) is tuple:
            if len(x) != len(y) or not _same_values(x, y):
                return False
        elif not (x == y or (x != x and y != y)):
            return False
    return True


_EVIDENCE_SET = shared_fields_set(frozenset(("path", "line", "text")))
_new = object.__new__
#: (class, the names given..., their values' types...) -> _Typed (FactBuilder.add)
_TYPED: dict[tuple, _Typed] = {}
#: the keys _TYPED keeps at most (the readers give a few hundred): then it starts again
_TYPED_MAX = 4096


def _class_info(cls: type[Fact]) -> tuple[str, _Shape | None, bool]:
    """_CLASSES's entry of ``cls``, made."""
    shape = _shape_of(cls)
    # whether a reading of it may be folded unbuilt: built from its values as given, or plain
    known = _CLASSES[cls] = (cls.model_fields["kind"].default, shape,
                             shape is not None and shape.before is None or _plain(cls))
    return known


def _typed_of(cls: type[Fact], shape: _Shape, fields: dict[str, Any]) -> _Typed:
    """_TYPED's entry for a fact of ``cls`` given ``fields`` (its names, then their values' types), made."""
    key = (cls, *fields, *map(type, fields.values()))
    typed = _TYPED.get(key)
    if typed is None:
        if len(_TYPED) >= _TYPED_MAX:
            _TYPED.clear()
        typed = _TYPED[key] = _Typed(cls, shape, fields)
    return typed


def as_given(cls: type[Fact], fid: str, node: str, evidence: Evidence, /, **fields: Any) -> Fact:
    """A fact made outside a reader (a combiner's, engine/combine and engine/baselines: its id
    and evidence its own) as FactBuilder.add makes a reader's: from its values as given where its
    class and their types allow (_Typed: the first fact of each set of names and types validated
    and compared), else validated. The same fact as ``cls(id=fid, node=node, evidence=evidence,
    **fields)``; a 1,024-node bench bundle gives 10,240 (validation 5-14 us each: bench/speed_rP7.md, rQ9)."""
    kind, shape, _foldable = _CLASSES.get(cls) or _class_info(cls)
    if shape is None or shape.before is not None or type(node) is not str or type(evidence) is not Evidence:
        return cls(id=fid, node=node, evidence=evidence, **fields)
    typed = _typed_of(cls, shape, fields)
    if typed.same and (fact := typed.build(fid, node, None, fields, evidence)) is not None:
        return fact
    fact = cls(id=fid, node=node, evidence=evidence, **fields)
    if typed.same is None:
        mine = typed.build(fid, node, None, fields, evidence)
        typed.same = mine is not None and _same(mine, fact)
    return fact


def _fold_plan(router: Any, rows: list, swap: dict[type[Fact], dict[str, Any]], common: dict[str, Any]) -> list | None:
    """FactBuilder.add_rows's plan: (cls, below, fields, its kind where the router folds the row
    whatever its line, node, ``common`` and ``swap`` are, else None, and then the kind's summary rows
    (the router's ``series`` of it, or None)) of each row; None where the
    router reads the id or node or a name of ``common`` of a kind it summarises (the answer may
    differ from add to add: each row goes to add)."""
    plan = []
    for cls, below, fields in rows:
        kind, shape, foldable = _CLASSES.get(cls) or _class_info(cls)
        fold = series = None
        if foldable and shape is not None and kind in router.summarised and cls not in swap \
                and kind not in router.listed:  # (a kind whose summary lists a field's values: add folds it)
            # (a kind whose summary keeps rows: add_rows gives each row's fields to its fold)
            names = router.reads.get(kind, ())
            if any(n in common or n in ("id", "node") for n in names):
                return None
            if not any(n in fields for n in common) and _asked(router, cls, kind, "", {**common, **fields}) is False:
                fold, series = kind, router.series.get(kind)
        plan.append((cls, below, fields, fold, series))
    return plan


def fold_value(slot: list, value: Any) -> None:
    """Note ``value`` (a folded reading's value of the field its summary lists: fact_routing.yaml summary_values)
    in its (node, kind) slot ([id, evidence, count, values]): the distinct values as strings, in the order first
    seen (None: none)."""
    if value is not None and (value := str(value)) not in slot[3]:
        slot[3].append(value)


class Rows(list):
    """The rows a summary keeps of its folded readings (fact_routing.yaml summary_rows), as the fourth item
    of their (node, kind) slot: each the reading's values of the fields named, then its line and text."""


def fold_row(slot: list, spec: tuple, get: Callable[[str], Any], line: int, text: str | None,
             quote: Callable[[], str] | None = None) -> None:
    """Keep the row of a folded reading (``get``: its field values; ``spec``: (the row's fields, the (field,
    value) pairs a reading kept as a row has)) in its slot's Rows, its evidence's line and text (``quote``:
    the text where the caller has not made it yet) last."""
    fields, where = spec
    for name, want in where:
        if get(name) != want:
            return
    if quote is not None:
        text = quote()
    if len(text) <= INTERN_MAX:  # (a file's zero counts quote a few lines: one string each in the pipe)
        text = intern(text)
    slot[3].append((*map(get, fields), line, text))


def merge_folded(into: list, more: list) -> None:
    """Add the readings folded in ``more`` (the (node, kind) slot of another reader of the same file, or of
    another window of it) to ``into``: their count, and the values a summary lists."""
    into[2] += more[2]
    if len(more) > 3:
        if len(into) <= 3:
            into.append(type(more[3])())
        if type(more[3]) is Rows:
            into[3].extend(more[3])
            return
        for v in more[3]:
            fold_value(into, v)


class FactBuilder:
    """Builds facts with evidence and ids unique within the diagnosis.

    Ids are ``<path>:<line>:<kind>`` with ``#n`` appended when one line yields several facts
    of one kind, so they are stable across runs and readable in reports.

    A fact is validated by pydantic, except where its values are of the types its fields
    store as given (str, int, float, bool, None, a Literal's value): it is then built from
    them as they are (_Typed), the first fact of each set of names and types validated and
    compared to make sure (validation cost ~10 us a fact; a bench node builds ~500).
    """

    def __init__(self, artefact: Artefact, result: ParseResult):
        self.artefact = artefact
        self.result = result
        path = artefact.path
        self._path = intern(path) if type(path) is str else path  # every evidence's, interned once
        self._seen: dict[tuple[int, str], int] = {}
        self._kinds: dict[str, int] = {}
        result.seen.append(self._seen)

    def add(self, cls: type[Fact], line: int, node: str | None = None, text: str | None = None, /, **fields: Any) -> Fact | None:
        # ``node`` and ``text`` are given by place or by name: CPython 3.11 compares each keyword a
        # call gives that is not a parameter's name (every field) with each parameter that may be
        # named, as text (its "slow fallback" after the pointer test: ~100 instructions a pair), so
        # with none that may be named a fact of 10 fields skips ~50 comparisons; the two names are
        # looked up in the fields instead
        if "node" in fields:
            node = fields.pop("node")
        if "text" in fields:
            text = fields.pop("text")
        kind, shape, foldable = _CLASSES.get(cls) or _class_info(cls)
        art = self.artefact
        at = line + art.line_offset
        seen = (at, kind)  # the fid's base (path:at:kind) is made only for a fact built or cited
        n = self._seen.get(seen, 0)
        self._seen[seen] = n + 1
        kept = self._kinds[kind] = self._kinds.get(kind, 0) + 1
        node = node or art.node
        router = art.router
        asked = False
        if foldable and router is not None and kept <= FACTS_PER_KIND and kind in router.summarised:
            keep = _asked(router, cls, kind, node, fields) if shape is not None else None
            if keep is None:  # a class of other values than _shape_of's, or the router reads the id or node
                keep = _kept(router, cls, kind, self._fid(at, kind, n), node, fields)
            asked = keep
            if not keep:
                # a healthy reading no rule in use can bind: counted for its summary, not built
                self._fold(line, at, kind, n, node, text, fields, router)
                return None
        fid = self._fid(at, kind, n)
        typed = None
        if shape is not None and shape.before is None:
            typed = _typed_of(cls, shape, fields)
        text = self.quote(line, text)
        ev = {"path": self._path, "line": at, "text": text}
        fact = None
        if shape is not None and shape.before is not None:
            # its "before" validator (a field filled from others) runs here, then the key sees
            # what validation would check
            try:
                data = shape.before({"id": fid, "node": node, "evidence": ev, **fields})
            except Exception:  # validation below says why, as a ValidationError
                data = None
            if type(data) is dict and data.pop("id", None) is fid and data.pop("node", None) is node \
                    and data.pop("evidence", None) is ev:
                typed = _typed_of(cls, shape, data)
                built_from = data
        else:
            built_from = fields
        if typed is not None and typed.same and type(node) is str and type(text) is str:
            fact = typed.build(fid, node, ev, built_from)
        if fact is None:  # validated: evidence as a dict, validated into an Evidence by the fact's own validation
            fact = cls(id=fid, node=node, evidence=dict(ev), **fields)
            if typed is not None and typed.same is None and type(node) is str and type(text) is str:
                # the first fact of this key is validated, then built from its values as given:
                # the key's facts are built that way only if both are the same
                mine = typed.build(fid, node, ev, built_from)
                typed.same = mine is not None and _same(mine, fact)
        if kept > FACTS_PER_KIND:  # a table of distinct messages is capped, its rest counted
            c = self.result.capped.setdefault(kind, [0, at])
            c[0] += 1
        else:
            self.result.facts.append(fact)
            if asked:  # Router.route keeps it without asking again
                router.passed[id(fact)] = fact
        return fact

    def add_rows(self, rows: list[tuple[type[Fact], int, dict[str, Any]]], at: int, node: str | None,
                 memo: dict[int, tuple], swap: dict[type[Fact], dict[str, Any]] | None = None,
                 **common: Any) -> None:
        """``add(cls, at + below, node=node, **common, **fields)`` for each ``(cls, below, fields)``
        of ``rows`` (``swap``: fields that replace a row's, for the rows of its classes), a list a
        reader keeps and gives again (a GPU's state readings, the same on every GPU of a fleet:
        gpu_state_facts._emit_state). ``memo``, kept as long as ``rows``: which rows the router
        folds whatever ``at``, ``node``, ``common`` and ``swap`` are (it reads none of their names),
        found once; those rows are then counted as add counts a reading it folds, without a call
        to add or a key of their values (~0.5 us a row against ~2)."""
        swap = swap or {}
        router = self.artefact.router
        plan = None
        if router is not None:
            got = memo.get(id(router))
            if got is None or got[0] is not router or got[1] != swap.keys():
                if len(memo) >= 8:
                    memo.clear()
                got = memo[id(router)] = (router, set(swap), _fold_plan(router, rows, swap, common))
            plan = got[2]
        if plan is None:
            plan = [(cls, below, fields, None, None) for cls, below, fields in rows]
        art = self.artefact
        node = node or art.node
        seen, kinds, folded, add = self._seen, self._kinds, self.result.folded, self.add
        offset = art.line_offset
        for cls, below, fields, kind, series in plan:
            if kind is None or kinds.get(kind, 0) >= FACTS_PER_KIND:  # built (or past the cap: add counts it)
                if cls in swap:
                    fields = {**fields, **swap[cls]}
                add(cls, at + below, node=node, **common, **fields)
                continue
            # counted and folded as _fold_unbuilt and _fold do it, without their two calls and the router's
            # look-ups of the kind (made once, in the plan): a GPU's 26 readings, -8.5 us a GPU (bench/speed_rBA8.md)
            line = at + below
            k = (line + offset, kind)
            n = seen.get(k, 0)
            seen[k] = n + 1
            kinds[kind] = kinds.get(kind, 0) + 1
            slot = folded.get((node, kind))
            if slot is None:
                slot = self._slot(line, k[0], kind, n, node, None, None, series)
            else:
                slot[2] += 1
            if series is not None:
                fold_row(slot, series, {**common, **fields}.get, k[0], None, lambda line=line: self._text(line, None))

    def add_each(self, cls: type[Fact], rows: list[tuple[int, dict[str, Any], str | None]], node: str | None,
                 **common: Any) -> tuple[list[str], list[int]]:
        """``add(cls, line, node=node, text=text, **common, **fields)`` for each ``(line, fields, text)`` of
        ``rows``, in order (a table's rows: nccl_tests_facts.emit_rows), and per row the evidence text its
        fact has (or, folded, would have had) and how many facts of its kind add was given at its line
        before it. A row the router folds (asked as add asks it, of the same names in the same order) is
        counted as add counts it, without the call (bench/speed_rN7.md: ~1.6 us a row less)."""
        kind, shape, foldable = _CLASSES.get(cls) or _class_info(cls)
        art = self.artefact
        router = art.router
        node = node or art.node
        offset = art.line_offset
        fold = foldable and shape is not None and router is not None and kind in router.summarised
        seen, kinds, add, quote, unbuilt = self._seen, self._kinds, self.add, self.quote, self._fold_unbuilt
        texts: list[str] = []
        nth: list[int] = []
        for line, fields, text in rows:
            at = line + offset
            if fold and kinds.get(kind, 0) < FACTS_PER_KIND and _asked(router, cls, kind, node, {**common, **fields}) is False:
                nth.append(unbuilt(line, at, kind, node, text, {**common, **fields}, router))
                texts.append(quote(line, text))
                continue
            fact = add(cls, line, node=node, text=text, **common, **fields)
            texts.append(fact.evidence.text if fact is not None else quote(line, text))
            nth.append(seen[(at, kind)] - 1)
        return texts, nth

    def _fold_unbuilt(self, line: int, at: int, kind: str, node: str, text: str | None,
                      fields: dict[str, Any] | None = None, router: Any = None) -> int:
        """What add does with a reading the router folds, for add_rows and add_each (which ask the
        router themselves): counted at its line and of its kind, then folded (_fold); how many facts
        of its kind its line had before it."""
        k = (at, kind)
        n = self._seen.get(k, 0)
        self._seen[k] = n + 1
        self._kinds[kind] = self._kinds.get(kind, 0) + 1
        self._fold(line, at, kind, n, node, text, fields, router)
        return n

    def _fold(self, line: int, at: int, kind: str, n: int, node: str, text: str | None,
              fields: dict[str, Any] | None = None, router: Any = None) -> None:
        """Count a reading of ``kind`` that is folded unbuilt into its (node, kind) summary: the first
        one's id and line (``at``, the file's) are kept for the summary to cite; where the ``router`` lists
        a field of the kind (fact_routing.yaml summary_values), the reading's value of it too, and where it
        keeps rows of the kind (summary_rows), the reading's row (``fields``: the reading's)."""
        slot = self.result.folded.get((node, kind))
        listed = router.listed.get(kind) if router is not None else None
        series = router.series.get(kind) if router is not None else None
        if slot is None:
            slot = self._slot(line, at, kind, n, node, text, listed, series)
        else:
            slot[2] += 1
        if listed is not None:
            fold_value(slot, fields.get(listed) if fields is not None else None)
        elif series is not None and fields is not None:
            fold_row(slot, series, fields.get, at, None, lambda: self._text(line, text))

    def _slot(self, line: int, at: int, kind: str, n: int, node: str, text: str | None,
              listed: str | None, series: tuple | None) -> list:
        """The (node, kind) slot of the first reading of ``kind`` folded (_fold): its id and evidence, a
        count of 1, and where the router lists a field of the kind (``listed``) or keeps its rows
        (``series``), their list."""
        slot = self.result.folded[(node, kind)] = [self._fid(at, kind, n),
                                                   {"path": self.artefact.path, "line": at,
                                                    "text": self._text(line, text)}, 1]
        if listed is not None:
            slot.append([])
        elif series is not None:
            slot.append(Rows())
        return slot

    def quote(self, line: int, text: str | None = None) -> str:
        """The evidence text add() gives a fact of ``line`` (``text``: the reader's quote, else the line as read)."""
        art = self.artefact
        if text is None and art.raw_text is None and art._lines is not None:  # the line as read
            text = art._lines[line - 1]
            return cut(text) if len(text) > EVIDENCE_CHARS else text
        return self._text(line, text)

    def seen(self, line: int, kind: str) -> int:
        """How many facts of ``kind`` add() was given at ``line`` so far (built or folded)."""
        return self._seen.get((line + self.artefact.line_offset, kind), 0)

    def fact_id(self, line: int, kind: str, n: int) -> str:
        """The id add() gives (or, for a reading the router folds, would give) the (n+1)-th fact
        of ``kind`` at ``line``."""
        return self._fid(line + self.artefact.line_offset, kind, n)

    def _fid(self, at: int, kind: str, n: int) -> str:
        """The id of the (n+1)-th fact of ``kind`` at file line ``at``."""
        base = f"{self.artefact.path}:{at}:{kind}"
        return base if n == 0 else f"{base}#{n}"

    def _text(self, line: int, text: str | None) -> str:
        """The evidence quote of ``line`` (a reader's ``text``, else the line as read)."""
        art = self.artefact
        if text is None:
            text = art.raw_line(line)
        elif art.raw_text is not None and 0 < line <= len(art.lines) and text == art.lines[line - 1]:
            # a reader that quotes the line it read quotes the normalised one: evidence is the line
            # as read, its wrapper (a rank label, a pod prefix, a quote mark) included
            text = art.raw_line(line)
        if len(text) > EVIDENCE_CHARS:  # a 250 MiB line is quoted by its first few KiB
            text = cut(text)
        return text

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
        if line >= last_line(self.artefact.lines):
            self.limit(line, "cut_short", f"{what} on the text's last line is cut short ({message})")
        else:
            self.error(line, message)


def last_line(lines: list[str]) -> int:
    """The number (1-based) of the last line of ``lines`` that is not blank; 0 when every line is."""
    last = len(lines)
    while last and not lines[last - 1].strip():
        last -= 1
    return last


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


#: printable ASCII by its share of the project's real texts, most frequent first: every file under fixtures/
#: (3,100 readable as UTF-8, session 48), each weighted alike. lines_with looks for a literal from its rarest
#: character when that is one of the last ones here (_RARE_FROM on) or not ASCII.
_BY_FREQUENCY = " etroinas0dcl:u-1p.mh2gf/bv_453C86yN,kwI97=xPRAD()E\"UG]T[L'SMOBF|V`#H>W*;zqX<+j^K{\\%}Y@$!Z~?JQ&"
_RARE_FROM = 70  # from "W" on: W * ; z q X < + j ^ K { \\ % } Y @ $ ! Z ~ ? J Q &, each ~1 per 1,000 characters or fewer
_RANK = {c: i for i, c in enumerate(_BY_FREQUENCY)}
#: an anchor's misses (the character where no literal stands) allowed before its literals are searched whole: this many,
#: and one more per 2**_MISS_SHIFT characters of the text (a miss costs a Python step, ~0.3 us; a whole-text find of a
#: literal costs ~0.2-0.6 ns a character on real logs: bench/speed_rX2.md)
_MISS_BASE, _MISS_SHIFT = 4, 13
_Plan = tuple[tuple[tuple[str, tuple[tuple[str, int], ...]], ...], tuple[str, ...]]
_PLANS: dict[tuple[str, ...], _Plan] = {}
#: a text shorter than this is searched whole for every literal (a plan costs more than the finds save there)
_ANCHOR_FROM = 2048


def _plan(literals: tuple[str, ...]) -> _Plan:
    """lines_with's plan for ``literals``: (anchor, ((literal, the anchor's first index in it), ...)) for the literals
    holding a rare character (their rarest is the anchor; literals sharing one are looked for in one pass), and
    the others, searched whole."""
    try:
        plan = _PLANS.get(literals)
    except TypeError:  # a list of them
        literals = tuple(literals)
        plan = _PLANS.get(literals)
    if plan is None:
        groups: dict[str, list[tuple[str, int]]] = {}
        whole: list[str] = []
        rare = len(_BY_FREQUENCY)  # a character not in the table (not printable ASCII) counts as the rarest
        for lit in dict.fromkeys(literals):
            ch = max(lit, key=lambda c: _RANK.get(c, rare), default="")
            if not ch or "\n" in lit or _RANK.get(ch, rare) < _RARE_FROM:
                whole.append(lit)
            else:
                groups.setdefault(ch, []).append((lit, lit.index(ch)))
        plan = tuple((ch, tuple(g)) for ch, g in groups.items()), tuple(whole)
        if len(_PLANS) < 4096:
            _PLANS[literals] = plan
    return plan


def lines_with(text: str, literals: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """(offset of the line's start, line) of each line holding one of ``literals``, in text order, once per
    line. Substring searches only: the fast way to find the few lines a reader wants when what they share is a
    literal (a regex alternation of them is tried at every position).

    A literal holding a rare character (``+ NET[``: "+") is looked for from that character: a memchr to each,
    the literal compared around it. A whole-text ``str.find`` of a literal costs ~0.6 ns a character of an
    NCCL log, whose every line's blanks and "[" defeat find's skip table (~0.25 ms a 175 kB log for ``+ PCI[``
    and ``+ NET[``; the memchr steps ~40 us). Where the character turns out common in the text (more than
    _MISS_BASE misses and one per 2**_MISS_SHIFT characters), the rest of the text is searched whole for its
    literals. The other literals, and every literal of a text shorter than _ANCHOR_FROM, are searched whole,
    one find each (bench/speed_rX2.md)."""
    groups, whole = _plan(literals) if len(text) >= _ANCHOR_FROM else ((), literals)
    starts: list[int] = []
    add = starts.append
    find, rfind = text.find, text.rfind
    left: dict[str, int] = {}  # an anchor's literals left to whole finds: the offset each one's search starts from
    for ch, lits in groups:
        startswith, budget = text.startswith, _MISS_BASE + (len(text) >> _MISS_SHIFT)
        pos, misses = find(ch), 0
        while pos != -1:
            for lit, k in lits:
                if pos >= k and startswith(lit, pos - k):
                    add(rfind("\n", 0, pos) + 1)
                    pos = find("\n", pos)  # the line's other literals: it is taken
                    break
            else:
                misses += 1
                if misses > budget:  # every literal starting before pos - k was seen
                    left.update((lit, max(pos - k, 0)) for lit, k in lits)
                    whole += tuple(lit for lit, _k in lits)
                    break
            if pos == -1:
                break
            pos = find(ch, pos + 1)
    for lit in whole:
        pos = find(lit, left.get(lit, 0)) if left else find(lit)
        while pos != -1:
            add(rfind("\n", 0, pos) + 1)
            end = find("\n", pos)
            if end == -1:
                break
            pos = find(lit, end + 1)
    if len(groups) + len(whole) > 1:  # one search's lines come in order, once each
        starts = sorted(set(starts))
    for start in starts:
        end = find("\n", start)
        yield start, text[start:] if end == -1 else text[start:end]


def iter_lines_with(literals: tuple[str, ...], artefact: Artefact) -> Iterator[tuple[int, str]]:
    """:func:`iter_lines` for lines holding one of ``literals`` (see :func:`lines_with`)."""
    line_of = artefact.line_of
    for start, line in lines_with(artefact.text, literals):
        yield line_of(start), line


Detector = Callable[[str], bool]
