"""What is settled before durable: which rules can fire on the facts given (:func:`live_rules`; constant
tests read through :class:`FieldView`, no dict a fact), the order kinds under ``none:`` are asserted in
(:func:`none_first`), and the rules of one pattern resolved by a look-up (:func:`resolvable`, :func:`unblocked`).

Part of what :mod:`stethoscope.engine.ruleengine.session` does (it alone imports durable, and re-exports
every public name here; issue 12)."""
from __future__ import annotations

from itertools import compress
from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator

from stethoscope.engine.ruleengine.compile import SELF, CompiledRule, Ref, Test, test_passes
from stethoscope.engine.ruleengine.derive import Firing, derived_inputs
from stethoscope.facts.model import MISSING, Fact, view_value


def absent_first(rules: list[CompiledRule]) -> dict[str, set[str]]:
    """Kind a rule names under ``none:`` -> the kinds that must be asserted before that rule's:
    itself and, for a derived kind, the kinds its deriving rules match (the loader allows only
    observed ones): a derived fact is sent as soon as its last input is, so it is there first."""
    inputs = derived_inputs(r.rule for r in rules)
    return {n.kind: {n.kind, *inputs.get(n.kind, ())} for r in rules for n in r.none}


def none_first(rules: list[CompiledRule]) -> dict[str, int]:
    """Assertion rank of kinds: a kind a rule names under ``none:`` (or a kind it is derived
    from) goes before the kinds of that rule's ``all:`` patterns, also when it is itself matched
    by another rule's ``all`` (durable never retracts a firing, so the absent fact must be there
    first). On a cycle, no ranking (the plain none-kinds-first order)."""
    import graphlib

    ts: graphlib.TopologicalSorter = graphlib.TopologicalSorter()
    first = absent_first(rules)
    for r in rules:
        for n in r.none:
            for k in first[n.kind]:
                for p in r.all:
                    if k != p.kind:
                        ts.add(p.kind, k)
    try:
        return {k: i for i, k in enumerate(ts.static_order())}
    except graphlib.CycleError:
        return {}


def literal_tests(rules: list[CompiledRule], own: bool = False) -> dict[str, list[tuple[Test, ...]]]:
    """kind -> for each pattern (``all`` and ``none``) of that kind, its tests that compare a
    field with a constant (tests against another fact's field are left to the engine); ``own``:
    with those that compare two fields of the fact itself (``ratio: {lt: $c.below_limit}``),
    which it also passes or fails alone."""
    out: dict[str, list[tuple[Test, ...]]] = {}
    for r in rules:
        for p in (*r.all, *r.none):
            out.setdefault(p.kind, []).append(tuple(t for t in p.tests if _alone(t, own)))
    return out


def _alone(t: Test, own: bool = True) -> bool:
    """Whether the fact under test decides ``t`` alone: a constant, or with ``own`` another of its fields."""
    return not isinstance(t.value, Ref) or (own and t.value.alias == SELF)


def fields_read(tests: Iterable[Test]) -> tuple[str, ...]:
    """The fields of the fact under test that tests it decides alone read (a field compared with too)."""
    names = set()
    for t in tests:
        names.add(t.field)
        if isinstance(t.value, Ref) and t.value.alias == SELF:
            names.add(t.value.field)
    return tuple(sorted(names))


def can_bind(patterns: list[tuple[Test, ...]], view: dict[str, Any]) -> bool:
    """Whether a fact (its rule view) passes every constant test of at least one pattern of its
    kind. A fact that passes none can neither complete a match nor block one (``none``), so
    leaving it out of durable changes no firing (tests/test_engine_equivalence.py)."""
    return any(all(test_passes(t, view, {}) for t in tests) for tests in patterns)


def binding(facts: list[Fact], pats: list[tuple[Test, ...]]) -> Iterator[bool]:
    """Whether each fact passes every test of at least one of ``pats`` (each the tests of a
    pattern a fact decides alone: ``can_bind``), asked once per distinct set of the values those
    tests read: a healthy fleet's facts of one kind mostly repeat a few (``active=False``,
    ``wrong=0``), and one view and its tests per fact cost ~3 us."""
    names = fields_read(t for tests in pats for t in tests)
    keys, view = _distinct(facts, names)
    answer = {raw: can_bind(pats, _small(names, values)) for raw, values in view.items()}
    return map(answer.__getitem__, keys)


def _small(names: tuple[str, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    """The rule view of these fields (MISSING ones left out), for test_passes."""
    return {name: v for name, v in zip(names, values) if v is not MISSING}


def _distinct(facts: list[Fact], names: tuple[str, ...]) -> tuple[list[Any], dict[Any, tuple[Any, ...]]]:
    """(each fact's key, key -> the rule-view values of ``names`` it stands for). Facts of one
    class are keyed by their raw values, read by one attrgetter mapped in C (a bundle's ~100k
    facts, ~1 us each through a Python call); others, or unhashable values, by their view values."""
    classes = set(map(type, facts))
    if len(classes) == 1:
        get, to_view = _parts(classes.pop(), names)
        keys = list(map(get, facts))
        try:
            return keys, {raw: to_view(raw) for raw in set(keys)}
        except TypeError:  # a list or dict value: no hash
            pass
    keys = [_values(f, names) for f in facts]
    return keys, {k: k for k in keys}


class FieldView:
    """A fact's rule view (Fact.rule_view) read field by field, for the constant tests only: no
    dict is built for the many facts that fail them (a 1,024-node bundle's views held at once
    were ~200 MB)."""

    __slots__ = ("fact", "fields")

    def __init__(self, fact: Fact):
        self.fact, self.fields = fact, _model_fields(type(fact))

    def _value(self, name: str) -> Any:
        return _field_value(self.fact, self.fields, name)

    def value(self, name: str) -> Any:
        """The field's rule-view value, MISSING when the view leaves it out."""
        return self._value(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._value(name) is not MISSING

    def __getitem__(self, name: str) -> Any:
        value = self._value(name)
        if value is MISSING:
            raise KeyError(name)
        return value


def _field_value(fact: Fact, fields: dict, name: str) -> Any:
    """Field ``name`` of ``fact`` as its rule view has it (``fields``: its class's model_fields),
    MISSING when the view leaves it out."""
    if name == "evidence" or name not in fields:
        return MISSING
    return view_value(getattr(fact, name))


def _values(fact: Fact, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The rule-view values (MISSING where left out) of these fields of a fact. The fields its
    class has are read by one attrgetter (C), made once per class and names (_parts): a getter
    per field for each fact of a rule's kind (~340k at 1,024 bench nodes) cost the parent ~1 s."""
    get, to_view = _parts(type(fact), names)
    return to_view(get(fact))


def _parts(cls: type, names: tuple[str, ...]) -> tuple[Callable[[Fact], Any], Callable[[Any], tuple[Any, ...]]]:
    """(get, to_view) for facts of ``cls``: ``get`` reads the raw values of the fields it has
    (one attrgetter, C), ``to_view`` turns what it read into the rule-view values of ``names``."""
    made = _READERS.get((cls, names))
    if made is None:
        made = _READERS[(cls, names)] = _make_parts(cls, names)
    return made


def _make_parts(cls: type, names: tuple[str, ...]) -> tuple[Callable[[Fact], Any], Callable[[Any], tuple[Any, ...]]]:
    fields = _model_fields(cls)
    have = [n for n in names if n != "evidence" and n in fields]
    if not have:
        return (lambda _fact: ()), (lambda _raw: (MISSING,) * len(names))
    get = attrgetter(*have)
    if len(have) == 1:  # attrgetter of one name gives the value itself
        if len(names) == 1:
            return get, lambda raw: (view_value(raw),)
        at = names.index(have[0])
        return get, lambda raw: (MISSING,) * at + (view_value(raw),) + (MISSING,) * (len(names) - at - 1)
    if len(have) == len(names):
        return get, lambda raw: tuple(map(view_value, raw))
    slot = {n: i for i, n in enumerate(have)}
    where = [slot.get(n) for n in names]
    return get, lambda raw: tuple(MISSING if i is None else view_value(raw[i]) for i in where)


_READERS: dict[tuple[type, tuple[str, ...]], tuple[Callable[[Fact], Any], Callable[[Any], tuple[Any, ...]]]] = {}


_FIELDS: dict[type, dict] = {}


def _model_fields(cls: type) -> dict:
    """``cls.model_fields``, once per class (pydantic builds it anew at each access)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = cls.model_fields
    return fields


def live_rules(rules: list[CompiledRule], views: Iterable[Any] | dict[str, list[Fact]]) -> list[CompiledRule]:
    """The rules that can fire on facts with these rule views: each of whose ``all`` patterns
    some fact passes the tests it decides alone (``_alone``: constants, or its own fields) of,
    or names a kind a rule derives (``then.assert``: such facts appear only during the run). A
    rule one of whose patterns no fact can fill never fires, and a healthy fleet fills few:
    neither those rules nor the facts only they could take need go to durable
    (tests/test_engine_equivalence.py). ``views``: facts (read field by field), FieldViews or
    rule-view dicts; or facts by kind (what run() gives: each kind's distinct values read in C).

    A derived kind fills a pattern when facts of it are given or a rule that can fire derives it: the rules are
    taken from the least fixpoint (none deriving at first, then those the facts and the kinds
    of the rules found so far fill, until no more), so that a rule waiting on a derived fact no
    rule in use will make (nccl_socket_fallback's rdma_expected on a fleet whose NCCL names no
    IB device) loads nothing into durable: its facts cost durable ~8 KB each (a fixed-size
    message, whatever the fields; 3,072 nccl_net_selected of a 256-node bench bundle, ~25 MB)."""
    wanted: dict[str, dict[tuple[Test, ...], bool]] = {}  # kind -> tests it decides alone -> filled
    for r in rules:
        for p in r.all:
            wanted.setdefault(p.kind, {})[tuple(t for t in p.tests if _alone(t))] = False
    # a healthy fleet's facts of one kind mostly repeat the few values the tests read (wrong=0,
    # active=False): each distinct set of them is tested once
    fields_of = {kind: fields_read(t for tests in tests_of for t in tests) for kind, tests_of in wanted.items()}
    open_of = {kind: len(tests_of) for kind, tests_of in wanted.items()}  # kind -> its tests not yet filled
    for kind, values in _kind_values(views, fields_of, open_of):
        small = _small(fields_of[kind], values)
        tests_of = wanted[kind]
        for tests, filled in tests_of.items():
            if not filled and all(test_passes(t, small, {}) for t in tests):
                tests_of[tests] = True
                open_of[kind] -= 1
        if not any(open_of.values()):
            break

    def fillable(r: CompiledRule, derived: set[str]) -> bool:
        return all(p.kind in derived or wanted[p.kind][tuple(t for t in p.tests if _alone(t))] for p in r.all)

    derived: set[str] = set()
    while True:
        live = [r for r in rules if fillable(r, derived)]
        more = {r.rule.then.assert_.kind for r in live if r.rule.then.assert_ is not None}
        if more <= derived:
            return live
        derived |= more


def _kind_values(views: Iterable[Any] | dict[str, list[Fact]], fields_of: dict[str, tuple[str, ...]],
                 open_of: dict[str, int]) -> Iterable[tuple[str, tuple[Any, ...]]]:
    """(kind, values of its fields_of) once per distinct set, for the kinds with tests still open."""
    if isinstance(views, dict):
        for kind, facts in views.items():
            if open_of.get(kind) and facts:
                yield from ((kind, values) for values in _distinct(facts, fields_of[kind])[1].values())
        return
    tried: dict[str, set[tuple[Any, ...]]] = {kind: set() for kind in fields_of}
    for view in views:
        is_fact = isinstance(view, Fact)
        kind = view.kind if is_fact else view["kind"]
        if not open_of.get(kind):
            continue
        if is_fact:  # read field by field, as FieldView does (no view built)
            values = _values(view, fields_of[kind])
        else:
            get = view.value if isinstance(view, FieldView) else (lambda name, _v=view: _v.get(name, MISSING))
            values = tuple(get(name) for name in fields_of[kind])
        if values not in tried[kind]:
            tried[kind].add(values)
            yield kind, values


def resolvable(rules: list[CompiledRule]) -> list[CompiledRule]:
    """Rules of one ``all`` pattern with a ``none:`` clause over kinds no rule derives, deriving
    nothing themselves: whether one fires on a fact is its pattern's tests and a look-up in the
    facts of its ``none`` kinds, all given before the run (unblocked). In durable such a rule
    held every fact of those kinds that passed the tests they decide alone, and every fact it
    might fire on: nccl_tests_busbw_unjudged took each nccl-tests run and each busbw_comparison,
    ~2,560 facts of a 256-node bundle at ~8 KB each, to fire on none."""
    derivable = {r.rule.then.assert_.kind for r in rules if r.rule.then.assert_ is not None}
    return [r for r in rules if len(r.all) == 1 and r.none and r.rule.then.assert_ is None and not r.kinds & derivable]


def _passing(facts: list[Fact], tests: tuple[Test, ...]) -> list[Fact]:
    return list(compress(facts, binding(facts, [tests])))


def unblocked(rule: CompiledRule, groups: dict[str, list[Fact]]) -> list[Firing]:
    """The firings of a rule resolvable gives, as the reference evaluator has them: each fact
    that passes its pattern's tests and that no fact of a ``none`` pattern matches. A ``none``
    pattern's facts are indexed by the fields its equality joins read (``run_id: $r.id``); its
    other joins are tested on the facts of one key only."""
    p = rule.all[0]
    cands = _passing(groups.get(p.kind, []), p.tests)  # (one pattern: each test is decided alone)
    for q in rule.none:
        blockers = _passing(groups.get(q.kind, []), tuple(t for t in q.tests if _alone(t)))
        if not cands or not blockers:
            continue
        keys = tuple(t for t in q.tests if not _alone(t) and t.op == "eq")
        rest = tuple(t for t in q.tests if not _alone(t) and t.op != "eq")
        index: dict[tuple[Any, ...], list[Fact]] = {}
        for n in blockers:
            key = _values(n, tuple(t.field for t in keys))
            if all(v is not MISSING for v in key):  # an equality with a field the fact lacks is false
                index.setdefault(key, []).append(n)
        ref_fields = tuple(t.value.field for t in keys)

        def blocked(c: Fact) -> bool:
            bucket = index.get(_values(c, ref_fields), ())
            bound = {p.alias: FieldView(c)}
            return any(all(test_passes(t, FieldView(n), bound) for t in rest) for n in bucket)

        cands = [c for c in cands if not blocked(c)]
    return [Firing(rule.id, ((p.alias, c.id),)) for c in cands]
