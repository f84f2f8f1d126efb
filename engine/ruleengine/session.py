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

The JSON durable is given is :mod:`rule_json`'s; what is settled before durable (the live rules, the
order of absent kinds, the rules resolved by a look-up) is :mod:`prefilter`'s.
"""
from __future__ import annotations

import functools
import json
from collections import deque
from itertools import chain, compress
from typing import Any, Callable, Iterable, Sequence

from stethoscope.engine.ruleengine.compile import CompiledRule
from stethoscope.engine.ruleengine.derive import Firing, make_derived
from stethoscope.engine.ruleengine.prefilter import (  # noqa: F401 - re-exported
    FieldView, absent_first as _absent_first, binding as _binding, can_bind, literal_tests, live_rules,
    none_first as _none_first, resolvable as _resolvable, unblocked as _unblocked)
from stethoscope.engine.ruleengine.rule_json import JOIN_ID, condition_count, fact_json, ruleset_json  # noqa: F401 - re-exported
from stethoscope.facts.model import Fact

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
