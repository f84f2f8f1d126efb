"""Rules compiled to a normal form that both evaluators run: durable-rules and the reference.

A rule becomes patterns (alias, fact kind, tests); a test compares one field with a literal,
with a field of an earlier alias (a join), or with another field of the same fact, named by the
pattern's own alias (``ratio: {lt: $c.below_limit}`` under ``as: c``: a limit the fact carries
from a knowledge file). One field may take several operators (``{gte: 0.5, lt: 0.8}``: a range).
Any test on a field the fact lacks is false, except ``exists: false``; so is a comparison
with a field the other fact lacks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stethoscope.engine.ruleengine.schema import Condition, Rule

REF = re.compile(r"^\$([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$")
#: the alias of a Ref to another field of the fact under test (durable's name for the message)
SELF = "$m"


class CompileError(ValueError):
    """A rule that is well-formed YAML but cannot be compiled (bad operator, unknown alias)."""

    def __init__(self, message: str, where: tuple[Any, ...] = ()):
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class Ref:
    alias: str
    field: str


@dataclass(frozen=True)
class Test:
    field: str
    op: str
    value: Any  # a scalar, a tuple for 'in', a bool for 'exists', or a Ref


@dataclass(frozen=True)
class Pattern:
    alias: str
    kind: str
    tests: tuple[Test, ...]


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    source: str
    all: tuple[Pattern, ...]
    none: tuple[Pattern, ...] = ()
    kinds: frozenset[str] = field(default=frozenset())

    @property
    def id(self) -> str:
        return self.rule.id


def _value(raw: Any, known: set[str], where: tuple[Any, ...], own: str | None = None) -> Any:
    if isinstance(raw, str):
        m = REF.match(raw)
        if m:
            if m[1] == own:
                return Ref(SELF, m[2])
            if m[1] not in known:
                raise CompileError(f"'{raw}' names alias '{m[1]}' that is not matched earlier", where)
            return Ref(m[1], m[2])
    if isinstance(raw, (dict, list)):
        raise CompileError(f"expected a scalar or $alias.field, got {raw!r}", where)
    if isinstance(raw, float) and ("e" in repr(raw) or raw != raw):
        # durable-rules' JSON parser rejects exponents: keep thresholds in plain notation
        raise CompileError(f"{raw!r}: write numbers between 0.0001 and 1e16 (or integers) in rules", where)
    return raw


def _tests(cond: Condition, known: set[str], where: tuple[Any, ...], own: str | None) -> tuple[Test, ...]:
    """``own``: the pattern's alias, which a value may name to compare two fields of one fact."""
    out: list[Test] = []
    for fname, spec in cond.match.items():
        at = where + ("match", fname)
        if not isinstance(spec, dict):
            out.append(Test(fname, "eq", _value(spec, known, at, own)))
            continue
        if not spec:
            raise CompileError("an operator mapping holds at least one operator", at)
        for op, raw in spec.items():
            if op not in ("eq", "ne", "gt", "gte", "lt", "lte", "in", "exists"):
                raise CompileError(f"unknown operator '{op}'", at)
            if op == "in":
                if not isinstance(raw, list) or not raw:
                    raise CompileError("'in' takes a non-empty list", at)
                value: Any = tuple(_value(v, set(), at) for v in raw)
            elif op == "exists":
                if not isinstance(raw, bool):
                    raise CompileError("'exists' takes true or false", at)
                value = raw
            else:
                value = _value(raw, known, at, own)
            if isinstance(value, Ref) and value.alias == SELF and value.field == fname:
                raise CompileError(f"'{raw}' compares the field with itself", at)
            out.append(Test(fname, op, value))
    return tuple(out)


def compile_rule(rule: Rule, source: str) -> CompiledRule:
    known: set[str] = set()
    pats: list[Pattern] = []
    for i, cond in enumerate(rule.when.all):
        alias = cond.as_ or f"m{i}"
        if alias in known:
            raise CompileError(f"alias '{alias}' used twice", ("when", "all", i))
        pats.append(Pattern(alias, cond.fact, _tests(cond, known, ("when", "all", i), alias)))
        known.add(alias)
    for i, cond in enumerate(rule.when.none):
        if cond.as_ in known:
            raise CompileError(f"alias '{cond.as_}' used twice", ("when", "none", i))
    nones = tuple(
        Pattern(cond.as_ or f"n{i}", cond.fact, _tests(cond, known, ("when", "none", i), cond.as_))
        for i, cond in enumerate(rule.when.none)
    )
    kinds = frozenset(p.kind for p in pats) | frozenset(p.kind for p in nones)
    return CompiledRule(rule, source, tuple(pats), nones, kinds)


def compile_condition(cond: Condition, where: tuple[Any, ...] = ()) -> Pattern:
    """One condition on its own, in the rules' form (a fact kind and field tests, no joins):
    what a knowledge table may hold where it names facts (knowledge/cases' signature.match)."""
    return Pattern(cond.as_ or "m0", cond.fact, _tests(cond, set(), where, None))


def pattern_matches(p: Pattern, view: dict[str, Any]) -> bool:
    """Whether one fact's rule view (Fact.rule_view) passes every test of an unjoined pattern."""
    return all(test_passes(t, view, {}) for t in p.tests)


def test_passes(test: Test, fact: dict[str, Any], bound: dict[str, dict[str, Any]]) -> bool:
    """The reference semantics of one test (durable's compiled form must agree)."""
    present = test.field in fact
    if test.op == "exists":
        return present is test.value
    if not present:
        return False
    have = fact[test.field]
    want = test.value
    if isinstance(want, Ref):
        other = fact if want.alias == SELF else bound.get(want.alias, {})
        if want.field not in other:
            return False
        want = other[want.field]
    if test.op == "eq":
        return have == want
    if test.op == "ne":
        return have != want
    if test.op == "in":
        return have in want
    try:
        if test.op == "gt":
            return have > want
        if test.op == "gte":
            return have >= want
        if test.op == "lt":
            return have < want
        if test.op == "lte":
            return have <= want
    except TypeError:
        return False
    raise AssertionError(test.op)
