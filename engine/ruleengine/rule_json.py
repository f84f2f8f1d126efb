"""A compiled rule and a fact as durable-rules' JSON: a rule's patterns and tests (joins closed so durable
keeps them), a fact with its id copied to :data:`JOIN_ID`, and how many conditions a rule costs.

Part of what :mod:`stethoscope.engine.ruleengine.session` does (it alone imports durable, and re-exports
every public name here; issue 12)."""
from __future__ import annotations

import json
from typing import Any

from stethoscope.engine.ruleengine.compile import SELF, CompiledRule, Pattern, Ref, Test


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
