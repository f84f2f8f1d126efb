"""The durable-rules session: the only module that imports durable.

durable-rules 2.0.28 loses data silently unless guarded, so this module:
- asserts facts one at a time (``assert_facts`` batches lose firings);
- gives every fact its own unique ``id`` (durable's own identity is a 32-bit hash);
- asserts only kinds some rule names, and treats MessageNotHandled as "no rule matched";
- never lets an action raise (durable swallows it into the state), and still reads the
  state for an ``exception`` afterwards;
- uses a fresh host per diagnosis with its timer threads disabled (actions run
  synchronously inside ``assert_fact``);
- splits rules over several rulesets so none holds more than MAX_CONDITIONS conditions
  (a ruleset much larger than ~500 hangs), and sends derived facts to every ruleset;
- deletes each ruleset's state after a run (``_free_states``): deleting the ruleset alone
  keeps it in C memory, ~150 kB a `steth watch` cycle (bench/watch_memory.py).
Facts of kinds named in a ``none:`` clause are asserted first, so "absent" means absent
from the whole bundle, as in the reference evaluator. A rule of one pattern whose ``none:``
names only given kinds is resolved before durable (``_resolvable``): durable would hold every
fact it might fire on or be blocked by (~8 KB each) to find what one look-up finds.
"""
from __future__ import annotations

import functools
import json
from collections import deque
from itertools import chain, compress
from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator, Sequence

from stethoscope.engine.ruleengine.compile import SELF, CompiledRule, Pattern, Ref, Test, test_passes
from stethoscope.engine.ruleengine.derive import Firing, derived_inputs, make_derived
from stethoscope.facts.model import MISSING, Fact, view_value

try:
    import durable.engine as durable_engine
    import durable_rules_engine
except ImportError as exc:  # not installed, or built for another Python (3.13: PyEval_CallObject)
    durable_engine = durable_rules_engine = None
    _IMPORT_ERROR: ImportError | None = exc
else:
    _IMPORT_ERROR = None

MAX_CONDITIONS = 400


class EngineError(RuntimeError):
    pass


class EngineUnavailable(RuntimeError):
    """durable-rules does not import here; the message is one line that names the way out."""


def unavailable_reason() -> str | None:
    """Why durable-rules cannot run here, as one line naming the way out; None when it can."""
    if _IMPORT_ERROR is None:
        return None
    import sys

    why = " ".join(str(_IMPORT_ERROR).split()) or type(_IMPORT_ERROR).__name__
    return (f"the rule engine durable-rules does not import on Python {sys.version.split()[0]} ({why}); "
            "reinstall with `bash tests/setup_venv.sh` (it installs a wheel for CPython 3.11-3.13 from vendor/wheels, "
            "or builds one with the Python 3.13 shim), or run with `--evaluator reference`")


@functools.cache
def _host_class() -> type:
    reason = unavailable_reason()
    if reason is not None:
        raise EngineUnavailable(reason)

    class _SyncHost(durable_engine.Host):
        """A host without the background dispatch threads: we never use timers or queues."""

        def _run(self) -> None:  # noqa: D401 - durable's hook
            return None

    return _SyncHost


def _host() -> Any:
    """A fresh durable host; EngineUnavailable where durable-rules does not import."""
    return _host_class()()


#: durable keys its facts by ``id`` and cannot join on it (a ``run_id: $r.id`` test never
#: matched while the reference evaluator fired); each fact is sent with its id copied here, and
#: tests name this field wherever a rule names ``id``
JOIN_ID = "fact_id"


def _field(name: str) -> str:
    return JOIN_ID if name == "id" else name


def _test_json(t: Test) -> list[dict[str, Any]]:
    def val(v: Any) -> Any:
        return {v.alias: _field(v.field)} if isinstance(v, Ref) else v

    t = Test(_field(t.field), t.op, t.value)

    if t.op == "exists":
        return [{"$ex" if t.value else "$nex": {t.field: 1}}]
    guard = [{"$ex": {t.field: 1}}]
    if isinstance(t.value, Ref) and t.value.alias == SELF:
        # durable compares with a field the fact lacks as if it held something: the reference does not
        guard.append({"$ex": {_field(t.value.field): 1}})
    if t.op == "eq":
        return [*guard, {t.field: val(t.value)}]
    if t.op == "in":
        return [*guard, {"$or": [{t.field: v} for v in t.value]}]
    op = {"ne": "$neq", "gt": "$gt", "gte": "$gte", "lt": "$lt", "lte": "$lte"}[t.op]
    return [*guard, {op: {t.field: val(t.value)}}]


def _pattern_json(p: Pattern) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"kind": p.kind}]
    # durable drops a join test that follows an ``$or`` (an ``in:`` test) in the same ``$and``
    # (``{op_type: {in: [A, B]}, numel_in: {ne: $t.numel_in}}`` matched equal numel_in while the
    # reference did not; a constant after it is kept): the ``in:`` tests go last
    for t in sorted(p.tests, key=lambda t: t.op == "in"):
        parts.extend(_test_json(t))
    if any(isinstance(t.value, Ref) for t in p.tests):
        parts.append(_close_joins(p.kind))
    return {"$and": parts}


def _close_joins(kind: str) -> dict[str, Any]:
    """A group closing a pattern's join tests, always true (the fact's own kind).
    durable-rules 2.0.28 reads past the end of a pattern's join tests when the last one fails
    (events.c reduceExpressionSequence: an ``$and`` that short-circuits skips forward to the
    next OP_END *after* stepping past the failed test, and the failed test was the last before
    the group's own OP_END) until it meets an OP_END byte in whatever memory follows: usually a
    wrong-but-harmless stop, a SIGSEGV in assert_fact when it walks off the heap first (the
    crashes of sessions 26-27 in tests/test_rule_files.py; torch_watchdog_ranks_out_of_step's
    last test fails in its own cases). Join tests compile into that sequence, constants and
    ``in:`` alternatives into the alpha network, so a trailing ``$or`` of one constant test puts
    an empty group (OP_OR, OP_END) last: a failed join test then stops at that group's OP_END.
    Checked with durable built from its 2.0.28 source with that loop bounded by an abort():
    tests/test_durable_overrun.py."""
    return {"$or": [{"kind": kind}]}


def fact_json(view: dict[str, Any]) -> str:
    """The fact as durable's JSON. durable's parser rejects exponents ("2e-06" -> error 204),
    so floats are written in fixed notation (rule_view already rounded them to 9 places).
    Most facts hold no float that repr() writes with an exponent: one C-level dumps then."""
    if all(not isinstance(v, float) or v == 0 or 1e-4 <= abs(v) < 1e16 for v in view.values()):
        return json.dumps(view, ensure_ascii=False)
    parts = []
    for k, v in view.items():
        if isinstance(v, float):
            num = format(v, ".9f").rstrip("0")
            val = num + "0" if num.endswith(".") else num
        else:
            val = json.dumps(v, ensure_ascii=False)
        parts.append(f"{json.dumps(k)}:{val}")
    return "{" + ",".join(parts) + "}"


def condition_count(rule: CompiledRule) -> int:
    return sum(1 + 2 * len(p.tests) for p in rule.all + rule.none)


def ruleset_json(rule: CompiledRule) -> dict[str, Any]:
    """The durable-rules definition of one rule (without its action)."""
    conds: list[dict[str, Any]] = [{p.alias: _pattern_json(p)} for p in rule.all]
    conds += [{f"{p.alias}$not": _pattern_json(p)} for p in rule.none]
    return {"all": conds}


def _chunks(rules: list[CompiledRule]) -> list[list[CompiledRule]]:
    out: list[list[CompiledRule]] = [[]]
    size = 0
    for r in rules:
        n = condition_count(r)
        if out[-1] and size + n > MAX_CONDITIONS:
            out.append([])
            size = 0
        out[-1].append(r)
        size += n
    return out


def _absent_first(rules: list[CompiledRule]) -> dict[str, set[str]]:
    """Kind a rule names under ``none:`` -> the kinds that must be asserted before that rule's:
    itself and, for a derived kind, the kinds its deriving rules match (the loader allows only
    observed ones): a derived fact is sent as soon as its last input is, so it is there first."""
    inputs = derived_inputs(r.rule for r in rules)
    return {n.kind: {n.kind, *inputs.get(n.kind, ())} for r in rules for n in r.none}


def _none_first(rules: list[CompiledRule]) -> dict[str, int]:
    """Assertion rank of kinds: a kind a rule names under ``none:`` (or a kind it is derived
    from) goes before the kinds of that rule's ``all:`` patterns, also when it is itself matched
    by another rule's ``all`` (durable never retracts a firing, so the absent fact must be there
    first). On a cycle, no ranking (the plain none-kinds-first order)."""
    import graphlib

    ts: graphlib.TopologicalSorter = graphlib.TopologicalSorter()
    first = _absent_first(rules)
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


def _reads(tests: Iterable[Test]) -> tuple[str, ...]:
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


def _binding(facts: list[Fact], pats: list[tuple[Test, ...]]) -> Iterator[bool]:
    """Whether each fact passes every test of at least one of ``pats`` (each the tests of a
    pattern a fact decides alone: ``can_bind``), asked once per distinct set of the values those
    tests read: a healthy fleet's facts of one kind mostly repeat a few (``active=False``,
    ``wrong=0``), and one view and its tests per fact cost ~3 us."""
    names = _reads(t for tests in pats for t in tests)
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
    fields_of = {kind: _reads(t for tests in tests_of for t in tests) for kind, tests_of in wanted.items()}
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


def _resolvable(rules: list[CompiledRule]) -> list[CompiledRule]:
    """Rules of one ``all`` pattern with a ``none:`` clause over kinds no rule derives, deriving
    nothing themselves: whether one fires on a fact is its pattern's tests and a look-up in the
    facts of its ``none`` kinds, all given before the run (_unblocked). In durable such a rule
    held every fact of those kinds that passed the tests they decide alone, and every fact it
    might fire on: nccl_tests_busbw_unjudged took each nccl-tests run and each busbw_comparison,
    ~2,560 facts of a 256-node bundle at ~8 KB each, to fire on none."""
    derivable = {r.rule.then.assert_.kind for r in rules if r.rule.then.assert_ is not None}
    return [r for r in rules if len(r.all) == 1 and r.none and r.rule.then.assert_ is None and not r.kinds & derivable]


def _passing(facts: list[Fact], tests: tuple[Test, ...]) -> list[Fact]:
    return list(compress(facts, _binding(facts, [tests])))


def _unblocked(rule: CompiledRule, groups: dict[str, list[Fact]]) -> list[Firing]:
    """The firings of a rule _resolvable gives, as the reference evaluator has them: each fact
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


def run(rules: list[CompiledRule], facts: Iterable[Fact]) -> tuple[list[Firing], list[Fact]]:
    """Assert ``facts`` into a fresh durable host; return the firings and derived facts.
    Only the rules that can fire on them are loaded (``live_rules``), and only facts that can
    bind some pattern of those are asserted (``can_bind``); a rule of one pattern whose
    ``none:`` needs only given facts is resolved here instead (``_resolvable``)."""
    every = {k for r in rules for k in r.kinds}
    known = getattr(facts, "positions", None)  # each kind's, where the caller indexed them
    grouped = getattr(facts, "by_kind", None) if known is not None else None  # and its facts, where it grouped them
    facts = facts if isinstance(facts, list) else list(facts)
    positions: dict[str, Sequence[int]] = {}  # kind -> where its facts are, in the order of their first
    if known is not None:  # pipeline.evaluate_all: no pass over the bundle's ~500k facts
        positions = {k: known[k] for k in sorted((k for k in every if known.get(k)), key=lambda k: known[k][0])}
    else:
        for i, f in enumerate(facts):
            kind = f.kind
            if kind in every:
                if kind in positions:
                    positions[kind].append(i)
                else:
                    positions[kind] = [i]
    # each kind's facts: as the caller grouped them where it did (pipeline.combine's FactIndex),
    # else from their positions
    groups = {kind: list(grouped[kind]) if grouped is not None else list(map(facts.__getitem__, at))
              for kind, at in positions.items()}
    rules = live_rules(rules, groups)
    resolved = _resolvable(rules)
    firings: list[Firing] = [f for r in resolved for f in _unblocked(r, groups)]
    if resolved:
        gone = {r.id for r in resolved}
        rules = [r for r in rules if r.id not in gone]
    if not rules:
        return firings, []
    by_id: dict[str, Fact] = {}
    derived: list[Fact] = []
    queue: deque[Fact] = deque()
    errors: list[str] = []
    none_kinds = set().union(*_absent_first(rules).values())

    def action(crule: CompiledRule):
        aliases = [p.alias for p in crule.all]

        def fire(c: Any) -> None:
            try:
                # read the matched facts from the closure's message dict: attribute access
                # would return the closure's own members for aliases such as 's' or 'host'
                ids = tuple(c._m[a]["id"] for a in aliases)
                if len(set(ids)) < len(ids):
                    return  # one fact may not fill two patterns
                firings.append(Firing(crule.id, tuple(zip(aliases, ids))))
                if crule.rule.then.assert_ is not None:
                    new = make_derived(crule, {a: by_id[i] for a, i in zip(aliases, ids)})
                    if new.id not in by_id:
                        by_id[new.id] = new
                        derived.append(new)
                        queue.append(new)
            except Exception as exc:  # durable would swallow it; we report it
                errors.append(f"rule {crule.id}: {type(exc).__name__}: {exc}")

        return fire

    host = _host()
    chunks = _chunks(rules)
    names: list[str] = []
    kinds_of: dict[str, frozenset[str]] = {}
    defs: dict[str, dict[str, Any]] = {}
    for i, chunk in enumerate(chunks):
        name = f"steth{i}"
        names.append(name)
        kinds_of[name] = frozenset().union(*(r.kinds for r in chunk)) if chunk else frozenset()
        defs[name] = {r.id: {**ruleset_json(r), "run": action(r)} for r in chunk}
    ended: set[str] = set()  # rulesets whose end rule ran (their state may be deleted)

    def end(name: str) -> Callable[[Any], None]:
        def ran(c: Any) -> None:  # one parameter: durable takes an action of two as asynchronous
            ended.add(name)
        return ran

    for name in names:
        defs[name][END_RULE] = {"all": [{"e": {"$and": [{"kind": END_KIND}]}}], "run": end(name)}
    host.set_rulesets(defs)
    handles = [host.get_ruleset(n)._handle for n in names]

    asserted: set[str] = set()

    def send(fact: Fact, view: dict[str, Any] | None = None) -> None:
        view = fact.rule_view() if view is None else view
        text = fact_json({**view, JOIN_ID: view["id"]})
        for name in names:
            if fact.kind in kinds_of[name]:
                asserted.add(name)
                _assert(host, name, text)

    try:
        rank = _none_first(rules)
        used = frozenset().union(*kinds_of.values()) if kinds_of else frozenset()
        literal = literal_tests(rules, own=True)
        # only facts some pattern can take go to durable (the rest never could), in their order,
        # sorted after being picked: the bundle's other facts (~95%) need no sort key
        at = sorted(chain.from_iterable(compress(positions[kind], _binding(groups[kind], literal[kind]))
                                        for kind in used if kind in groups))
        kept = list(map(facts.__getitem__, at))
        ordered = sorted(kept, key=lambda f: (f.kind not in none_kinds, rank.get(f.kind, len(rank))))
        for fact in ordered:
            view = fact.rule_view()
            by_id[fact.id] = fact
            send(fact, view)
            while queue:
                send(queue.popleft())
        for name in names:
            if name not in asserted:
                continue  # durable has no state for a ruleset that never saw a fact
            state = host.get_state(name)
            if isinstance(state, dict) and state.get("exception"):
                errors.append(f"{name}: {state['exception']}")
        _free_states(host, asserted, ended)
    finally:
        for h in handles:
            try:
                durable_rules_engine.delete_ruleset(h)
            except Exception:  # pragma: no cover - cleanup only
                pass
    if errors:
        raise EngineError("; ".join(errors))
    return firings, derived


def _assert(host: Any, name: str, text: str) -> bool:
    """Assert one fact's JSON into ruleset ``name``, its actions run at once; False where no rule
    of the ruleset matched it (durable's MessageNotHandled: not an error)."""
    rs = host.get_ruleset(name)
    try:
        host._handle_function(rs, lambda t: rs._handle_result(durable_rules_engine.assert_fact(rs._handle, t), t), text, None)
    except durable_engine.MessageNotHandledException:
        return False
    return True


#: the kind of the one fact sent to each ruleset after a run's facts, and the rule that takes it:
#: no rule file can name it (fact kinds and rule ids are snake_case words; this one has hyphens)
END_KIND = "steth-run-end"
END_RULE = "steth-run-end"


def _free_states(host: Any, asserted: set[str], ended: set[str]) -> None:
    """Free what a run left in durable's C memory: delete_ruleset frees a ruleset's tables but
    not the state its facts filled (its message pool, beta and connector frames: ~100 kB a
    `steth watch` cycle, kept for the life of the process). durable 2.0.28's deleteState frees
    an action context it never initialised when no action ever ran in that state (state.c
    createStateNode leaves ``context.messages`` as malloc gave it; events.c freeActionContext
    sets it NULL after each action): so every ruleset first takes one END_KIND fact, whose rule
    runs an action, and only a ruleset whose end rule ran has its state deleted."""
    text = fact_json({"kind": END_KIND, "id": END_KIND, JOIN_ID: END_KIND})
    for name in asserted:
        if _assert(host, name, text) and name in ended:  # (the end rule takes it: its action ran)
            host.get_ruleset(name).delete_state(None)


def describe(rule: CompiledRule) -> str:
    """The durable JSON of a rule, for `steth rules show` and debugging."""
    return json.dumps(ruleset_json(rule), indent=2)
