"""The fact base: every observation becomes a frozen pydantic model citing its source line.

A fact class declares its ``kind`` as a ``Literal`` default and registers itself with
:func:`fact_kind`, so that the rule loader can check every kind and field a rule names.
"""
from __future__ import annotations

from sys import intern
from typing import Any, ClassVar, Sequence

from pydantic import BaseModel, ConfigDict


#: text values up to this length are interned (node names, run ids, enum-like values)
INTERN_MAX = 64
#: one shared set per distinct set of given fields (see _share_fields_set)
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
#: id of a shared set (they live as long as the process) -> its key in _FIELDS_SETS
_KEY_OF: dict[int, frozenset[str]] = {}


def _share_fields_set(model: BaseModel) -> None:
    """Pydantic keeps, per instance, the set of field names it was given (``model_fields_set``):
    about 2 KB for a fact of 20 fields, a third of what the fact weighs. These models are frozen,
    so that set never changes after construction: instances given the same fields share one."""
    fs = model.__pydantic_fields_set__
    key = frozenset(fs)
    shared = _FIELDS_SETS.setdefault(key, fs)
    if shared is fs:
        _KEY_OF[id(fs)] = key
    else:
        object.__setattr__(model, "__pydantic_fields_set__", shared)
    # short text values repeat across facts (a node, a run id, a collective, a dtype): one copy
    d = model.__dict__
    for k, v in d.items():
        if type(v) is str and len(v) <= INTERN_MAX and k != "id":
            d[k] = intern(v)


class _Shared(BaseModel):
    """A frozen model whose ``model_fields_set`` is shared (built, copied or unpickled)."""

    model_config = ConfigDict(frozen=True)

    def model_post_init(self, context: Any, /) -> None:
        _share_fields_set(self)

    def __reduce__(self):  # facts from a parse worker
        # rebuilt by _rebuilt (a C-level __dict__ assignment), not pydantic's __setstate__ (Python
        # code per instance and per nested Evidence): unpickling the facts of a bench node cost the
        # parent ~12 CPU ms, now ~3.5 (bench/reader_costs.py, "unpickle the results"). The fields set travels as its
        # key, so the parent shares one per distinct set (one per chunk would be ~100 MB at 1,024
        # nodes); short strings are not interned again: the worker's were, and pickle's memo keeps
        # one copy of each per chunk (re-interning every field cost the parent ~10 us a fact)
        return _rebuilt, (type(self), self.__dict__, _fields_key(self), self.__pydantic_extra__, self.__pydantic_private__)


def _fields_key(model: BaseModel) -> frozenset[str]:
    """The key in _FIELDS_SETS of the fields set ``model`` was given."""
    fs = model.__pydantic_fields_set__
    key = _KEY_OF.get(id(fs))
    if key is None or _FIELDS_SETS.get(key) is not fs:
        key = frozenset(fs)
    return key


_new, _set = object.__new__, object.__setattr__
#: models of more fields than this get a key-sharing __dict__ (with_values); at 11 fields a
#: plain dict takes 464 bytes, a key-sharing one ~250, at 8 both ~270
SHARE_FROM = 8
#: whether with_values makes key-sharing dicts: not in a parse worker, whose facts are pickled
#: (the parent's _rebuilt makes them; in the worker they cost ~1.5 CPU ms a bench node for nothing)
_sharing = True


def share_keys(on: bool) -> None:
    """Whether models built from here on get key-sharing dicts (with_values): off in a process
    whose facts all go to another (engine/parse_pool.py's workers)."""
    global _sharing
    _sharing = on


def _rebuilt(cls: type[_Shared], values: dict[str, Any], key: frozenset[str], extra: Any, private: Any) -> _Shared:
    """An unpickled model (_Shared.__reduce__): its fields as they were validated where it was
    built, its fields set the one shared by every model given the same fields."""
    model = with_values(cls, values)
    _set(model, "__pydantic_fields_set__", _FIELDS_SETS.get(key) or shared_fields_set(key))
    _set(model, "__pydantic_extra__", extra)
    _set(model, "__pydantic_private__", private)
    return model


def with_values(cls: type[_Shared], values: dict[str, Any]) -> _Shared:
    """A new instance of ``cls`` holding ``values`` (its fields, all of them, validated or known
    to be what validation stores; the caller sets the pydantic slots).

    Values of more than SHARE_FROM fields go into the instance's own ``__dict__``, which CPython
    makes a key-sharing dict (PEP 412: the names stored once for the class, each instance holding
    only its values) as long as they come in the order of the class's other instances, which
    validation, FactBuilder and unpickling (_rebuilt) all keep: the fields' order. A fact of 22
    fields (nccl_test_row) then holds a 248-byte dict instead of 832 (a 64-node bench bundle's
    parent: 43.7 -> 34.4 MB after reading), for ~1.4 us more a fact. Fewer fields keep ``values``
    itself (an Evidence's 3: 184 bytes plain, ~250 key-sharing)."""
    model = _new(cls)
    if _sharing and len(values) > SHARE_FROM:
        d = model.__dict__  # empty, sharing the class's keys
        d[next(iter(values))] = None  # one key first: updating an empty dict copies the other's table
        d.update(values)
    else:
        _set(model, "__dict__", values)
    return model


def shared_fields_set(names: frozenset[str]) -> set[str]:
    """The fields set every model given exactly ``names`` shares (see _share_fields_set)."""
    shared = _FIELDS_SETS.get(names)
    if shared is None:
        shared = _FIELDS_SETS[names] = set(names)
        _KEY_OF[id(shared)] = names
    return shared


class Evidence(_Shared):
    """Where a fact came from: bundle-relative path, 1-based line, the verbatim line."""

    model_config = ConfigDict(frozen=True)

    path: str
    line: int
    text: str


#: the fields set of an Evidence given all its fields (every reader's; _rebuilt_fact's)
_EVIDENCE_SET = shared_fields_set(frozenset(Evidence.model_fields))


class Fact(_Shared):
    """Base of every fact. ``id`` is unique within one diagnosis."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: str
    id: str
    node: str = "unknown"
    evidence: Evidence

    def __reduce__(self):  # facts from a parse worker
        # the evidence travels inside its fact as (path, line, text), rebuilt with it by one call
        # (_rebuilt_fact) instead of a reduce and a _rebuilt of its own: a bench node's FileResults
        # (chunks of 32 files) took the worker 16.3 -> 13.6 M instructions to pickle (callgrind),
        # the parent 20.7 -> 18.6 M to unpickle, 164 -> 150 kB. The values travel as a tuple in the
        # order of the class's field names, which travel once a chunk (pickle's memo), not as a
        # dict of names and values a fact (_rebuilt_row)
        values = self.__dict__
        ev = values["evidence"]
        if type(ev) is not Evidence or ev.__pydantic_fields_set__ is not _EVIDENCE_SET \
                or self.__pydantic_extra__ is not None or self.__pydantic_private__ is not None \
                or ev.__pydantic_extra__ is not None or ev.__pydantic_private__ is not None:
            return super().__reduce__()
        e = ev.__dict__
        cls = type(self)
        names = _NAMES.get(cls) or _names_of(cls)
        key = _fields_key(self)
        if tuple(values) != names:  # (never seen: every fact holds its class's fields in their order)
            values = values.copy()  # the fact's own dict stays as it is (a worker may pickle it again)
            values["evidence"] = (e["path"], e["line"], e["text"])
            return _rebuilt_fact, (cls, values, key)
        row = list(values.values())
        row[_EVIDENCE_AT] = None  # (a Fact's fields start kind, id, node, evidence)
        return _rebuilt_row, (cls, names, key, row, e["path"], e["line"], e["text"])

    #: field names that are bookkeeping, not observations (rules may still match ``node``)
    META_FIELDS: ClassVar[frozenset[str]] = frozenset({"kind", "id", "evidence"})

    def rule_view(self) -> dict[str, Any]:
        """The fact as the rule engine sees it: scalar fields only, None left out."""
        out: dict[str, Any] = {}
        for name, value in self:
            if name != "evidence" and (value := view_value(value)) is not MISSING:
                out[name] = value
        return out


def _rebuilt_fact(cls: type[Fact], values: dict[str, Any], key: frozenset[str]) -> Fact:
    """An unpickled fact (Fact.__reduce__) whose ``values`` hold its evidence as (path, line, text): built as
    _rebuilt_row builds one, its names the dict's order."""
    path, line, text = values["evidence"]
    return _rebuilt_row(cls, tuple(values), key, list(values.values()), path, line, text)


#: fact class -> its field names in their order (Fact.__reduce__)
_NAMES: dict[type, tuple[str, ...]] = {}


def _names_of(cls: type[Fact]) -> tuple[str, ...]:
    names = tuple(cls.model_fields)
    if names.index("evidence") != _EVIDENCE_AT:  # (never: a subclass's fields come after its base's)
        names = ()
    _NAMES[cls] = names
    return names


_EVIDENCE_AT = tuple(Fact.model_fields).index("evidence")


set_dict, set_fields, set_extra, set_private = (
    BaseModel.__dict__[name].__set__ for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))


def model_as_validated(cls: type[BaseModel], values: dict[str, Any], fields_set: set[str],
                       private: dict[str, Any] | None = None) -> BaseModel:
    """A ``cls`` holding ``values`` as its ``__dict__`` (each of the type validation stores, in the
    fields' order), ``fields_set`` as the fields set, no extra and ``private`` as its private values,
    built without validation: what _rebuilt_row, evidence_at and engine/parse_pool's file coverage
    rows each need (pydantic's ``__init__`` costs 10-25 us a model). The caller vouches for the types.

    >>> ev = model_as_validated(Evidence, {"path": "dmesg", "line": 3, "text": "NVRM: Xid"}, {"path", "line", "text"})
    >>> ev == Evidence(path="dmesg", line=3, text="NVRM: Xid")
    True
    """
    model = _new(cls)
    set_dict(model, values)
    return with_slots(model, fields_set, private)


def with_slots(model: BaseModel, fields_set: set[str], private: dict[str, Any] | None = None) -> BaseModel:
    """``model`` (made by ``object.__new__``, its ``__dict__`` filled) given the pydantic slots
    validation would: ``fields_set``, no extra, ``private``."""
    set_fields(model, fields_set)
    set_extra(model, None)
    set_private(model, private)
    return model


def _rebuilt_row(cls: type[Fact], names: tuple[str, ...], key: frozenset[str], row: list, path: str, line: int, text: str) -> Fact:
    """An unpickled fact (Fact.__reduce__): its ``row`` of values in the order of ``names``, its
    evidence's (path, line, text) apart (what ``row`` holds in the evidence's place is not used)."""
    ev = model_as_validated(Evidence, {"path": path, "line": line, "text": text}, _EVIDENCE_SET)
    model = _new(cls)
    if _sharing and len(names) > SHARE_FROM:  # with_values's key-sharing dict, filled name by name
        d = model.__dict__
        d.update(zip(names, row))
    else:
        d = dict(zip(names, row))
        set_dict(model, d)
    d["evidence"] = ev
    return with_slots(model, _FIELDS_SETS.get(key) or shared_fields_set(key))


class FactRows(list):
    """Facts that a parse worker sends to its parent (engine/parse_pool._parse_chunk) as one flat list, three items a
    fact (its class, its fields set's _FieldsSetRef, a copy of its ``__dict__`` whose evidence is the Evidence's
    ``__dict__``), rebuilt by one call (_rebuilt_rows) instead of a reduce each: pickle then neither calls each
    fact's ``__reduce_ex__`` from C nor memoises it, nor a tuple of its arguments (the worker's pickling 8.6 % fewer
    instructions: bench/speed_rQ8.md). Pickle makes the dicts (its SETITEMS), not the parent's Python code, and the
    fields set arrives as the parent's shared one (bench/speed_rBA7.md). Unpickled, a plain list."""

    __slots__ = ()

    def __reduce__(self):
        flat: list = []  # three items a fact: no tuple of them to pickle, memoise and unpickle
        extend = flat.extend
        refs = _REFS
        for fact in self:
            values = fact.__dict__
            ev = values.get("evidence")
            if type(ev) is not Evidence or ev.__pydantic_fields_set__ is not _EVIDENCE_SET \
                    or fact.__pydantic_extra__ is not None or fact.__pydantic_private__ is not None \
                    or ev.__pydantic_extra__ is not None or ev.__pydantic_private__ is not None \
                    or not isinstance(fact, Fact):  # (never seen: a fact of other slots)
                return list, (list(self),)
            key = _fields_key(fact)
            values = values.copy()  # the fact's own dict stays as it is (a worker may pickle it again)
            values["evidence"] = ev.__dict__
            extend((type(fact), refs.get(key) or refs.setdefault(key, _FieldsSetRef(key)), values))
        return _rebuilt_rows, (flat,)


class _FieldsSetRef:
    """A fields set's key as FactRows sends it: unpickled, the receiving process's shared set of those fields
    (shared_fields_set), once a message (pickle's memo), not a frozenset each fact compared to the key in
    _FIELDS_SETS (~1,800 instructions a fact: bench/speed_rBA7.md)."""

    __slots__ = ("key",)

    def __init__(self, key: frozenset[str]) -> None:
        self.key = key

    def __reduce__(self):
        return shared_fields_set, (self.key,)


#: a fields set's key -> its _FieldsSetRef (FactRows.__reduce__)
_REFS: dict[frozenset[str], _FieldsSetRef] = {}


def _rebuilt_rows(flat: list) -> list[Fact]:
    """The facts of FactRows.__reduce__'s flat list, three items a fact, in order: each built as _rebuilt_row builds
    one (an Evidence and the fact, their pydantic slots set as validation would), in this one loop, over the dicts
    pickle made: the parent's manager thread rebuilds every fact a worker sends (295k at 1,024 bench nodes) in
    its serial path."""
    out: list[Fact] = []
    append = out.append
    new, ev_set, sharing = _new, _EVIDENCE_SET, _sharing
    for cls, fields, values in zip(*[iter(flat)] * 3):
        ev = new(Evidence)
        set_dict(ev, values["evidence"])
        set_fields(ev, ev_set)
        set_extra(ev, None)
        set_private(ev, None)
        values["evidence"] = ev
        model = new(cls)
        if sharing and len(values) > SHARE_FROM:  # with_values's key-sharing dict: one key first, as there (an
            d = model.__dict__                       # empty one updated from a dict copies its table: twice the
            d[next(iter(values))] = None             # memory, +55 MB at 1,024 bench nodes)
            d.update(values)
        else:
            set_dict(model, values)
        set_fields(model, fields)
        set_extra(model, None)
        set_private(model, None)
        append(model)
    return out


def evidence_at(path: str, line: int, text: str) -> Evidence:
    """``Evidence(path=path, line=line, text=text)`` of values validation stores as given (a str, an int, a
    str: a fact's own validated ones), built as _rebuilt_row builds one, without validation (~13 us a
    call on this VM): a part of a fact cited (an nccl_test_table's row: 5,120 at 1,024 bench nodes)."""
    return model_as_validated(Evidence, {"path": intern(path) if len(path) <= INTERN_MAX else path, "line": line,
                                         "text": intern(text) if len(text) <= INTERN_MAX else text}, _EVIDENCE_SET)


#: what view_value gives for a value the rule engine does not see
MISSING: Any = object()


def view_value(value: Any) -> Any:
    """A field's value as the rule engine sees it (Fact.rule_view), or MISSING: None, NaN and the
    infinities are left out (not representable for the engine), floats carry 9 decimals (the
    engine's JSON), and only str, int, bool and float values are seen."""
    if value is None:
        return MISSING
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return MISSING
        return round(value, 9)
    return value if isinstance(value, (str, int, bool)) else MISSING


#: kind -> fact class; filled by :func:`fact_kind` when parser modules are imported
FACT_KINDS: dict[str, type[Fact]] = {}


def fact_kind(cls: type[Fact]) -> type[Fact]:
    """Class decorator: register a fact class under its ``kind`` default."""
    kind = cls.model_fields["kind"].default
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{cls.__name__} needs a string default for 'kind'")
    if kind in FACT_KINDS and FACT_KINDS[kind] is not cls:
        raise TypeError(f"fact kind {kind!r} registered twice ({FACT_KINDS[kind].__name__}, {cls.__name__})")
    FACT_KINDS[kind] = cls
    return cls


def rule_fields(kind: str) -> dict[str, Any]:
    """Fields a rule may match on for ``kind``: name -> annotation."""
    cls = FACT_KINDS[kind]
    return {n: f.annotation for n, f in cls.model_fields.items() if n not in ("evidence",)}


class FactIndex(tuple):
    """Facts in their order, with where each kind's facts are: :func:`of_kind` reads one kind
    without a pass over all of them. The catalogue joins of a diagnosis (engine/catalogues/xid.py
    knowledge_facts) each read a few kinds of a 1,024-node bundle's ~500k facts; one pass over
    all of them costs ~35 ms per 70k facts, and they made about twenty."""

    positions: dict[str, Sequence[int]]
    #: node -> the position of its first fact, where the caller noted them (else None)
    first_at: dict[str, int] | None = None
    #: kind -> its facts, in order (the facts at its ``positions``), where the caller grouped them
    #: (else None): :func:`of_kind` and the rules' run (ruleengine/session.run) take a kind's list
    #: as it is instead of building it again from the positions
    by_kind: dict[str, list] | None = None
    #: what facts/readings.records made of these facts, by kind and the counts of its facts and summaries
    memo: dict

    def __new__(cls, facts, positions: dict[str, Sequence[int]] | None = None, first_at: dict[str, int] | None = None,
                by_kind: dict[str, list] | None = None, memo: dict | None = None):
        """``positions``: each kind's positions in ``facts``, where the caller indexed them as it
        made the list (engine/pipeline.combine): no pass over the facts here; ``first_at``: each
        node's first position, and ``by_kind``: each kind's facts, where it noted them too; ``memo``:
        the records made of them (engine/pipeline.Combined's: the same facts)."""
        self = super().__new__(cls, facts)
        self.memo = {} if memo is None else memo
        if positions is not None:
            self.positions, self.first_at, self.by_kind = positions, first_at, by_kind
            return self
        positions = {}
        for i, f in enumerate(self):
            kind = f.kind
            if kind in positions:
                positions[kind].append(i)
            else:
                positions[kind] = [i]
        self.positions = positions
        return self


def of_kind(facts, *kinds: str) -> list:
    """The facts of these kinds, in their order; a :class:`FactIndex` answers from its positions,
    any other sequence by one pass."""
    positions = getattr(facts, "positions", None)
    if positions is None:
        return [f for f in facts if f.kind in kinds]
    if len(kinds) == 1:
        by_kind = getattr(facts, "by_kind", None)  # engine/pipeline.Combined: each kind's facts, in order
        if by_kind is not None:
            return list(by_kind.get(kinds[0], ()))
        return [facts[i] for i in positions.get(kinds[0], ())]
    return [facts[i] for i in sorted(i for k in kinds for i in positions.get(k, ()))]
