"""A plain-Python evaluator of the same compiled rules: the reference durable must match.

Joins are evaluated pattern by pattern over facts indexed by kind; derived facts are added
until nothing new appears (forward chaining to a fixed point).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Iterator

from stethoscope.engine.ruleengine.compile import CompiledRule, Pattern, test_passes
from stethoscope.engine.ruleengine.derive import Firing, make_derived
from stethoscope.facts.model import Fact


def _matches(p: Pattern, view: dict[str, Any], bound: dict[str, dict[str, Any]]) -> bool:
    return all(test_passes(t, view, bound) for t in p.tests)


def _joins(
    rule: CompiledRule, index: dict[str, list[tuple[Fact, dict[str, Any]]]]
) -> Iterator[list[Fact]]:
    def walk(i: int, chosen: list[Fact], bound: dict[str, dict[str, Any]]) -> Iterator[list[Fact]]:
        if i == len(rule.all):
            for p in rule.none:  # (the loader keeps 'none' kinds apart from 'all' kinds)
                if any(_matches(p, v, bound) for _, v in index.get(p.kind, ())):
                    return
            yield list(chosen)
            return
        p = rule.all[i]
        for fact, view in index.get(p.kind, ()):
            if any(fact is c for c in chosen) or not _matches(p, view, bound):
                continue
            chosen.append(fact)
            bound[p.alias] = view
            yield from walk(i + 1, chosen, bound)
            chosen.pop()
            del bound[p.alias]

    yield from walk(0, [], {})


def run(rules: list[CompiledRule], facts: Iterable[Fact]) -> tuple[list[Firing], list[Fact]]:
    index: dict[str, list[tuple[Fact, dict[str, Any]]]] = defaultdict(list)
    seen: set[str] = set()
    for f in facts:
        index[f.kind].append((f, f.rule_view()))
        seen.add(f.id)
    firings: dict[Firing, None] = {}
    derived: list[Fact] = []
    # a rule whose 'none:' names a derived kind waits until the other rules derived all they can
    # (the loader allows it only where those derive it from observed kinds)
    made = {r.rule.then.assert_.kind for r in rules if r.rule.then.assert_ is not None}
    late = [r for r in rules if any(p.kind in made for p in r.none)]
    for stratum in ([r for r in rules if r not in late], rules) if late else (rules,):
        _fixed_point(stratum, index, seen, firings, derived)
    return list(firings), derived


def _fixed_point(rules: list[CompiledRule], index: dict[str, list[tuple[Fact, dict[str, Any]]]], seen: set[str],
                 firings: dict[Firing, None], derived: list[Fact]) -> None:
    changed = True
    while changed:
        changed = False
        for rule in rules:
            aliases = [p.alias for p in rule.all]
            for chosen in _joins(rule, index):
                firing = Firing(rule.id, tuple(zip(aliases, (f.id for f in chosen))))
                if firing in firings:
                    continue
                firings[firing] = None
                if rule.rule.then.assert_ is not None:
                    new = make_derived(rule, dict(zip(aliases, chosen)))
                    if new.id not in seen:
                        seen.add(new.id)
                        derived.append(new)
                        index[new.kind].append((new, new.rule_view()))
                        changed = True
