"""What a rule's ``then.assert`` makes: a derived fact, the same for both evaluators."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stethoscope.engine.ruleengine.compile import REF, CompiledRule
import stethoscope.facts.kinds.derived  # noqa: F401 - derived kinds must be registered
from stethoscope.facts.model import FACT_KINDS, Fact


@dataclass(frozen=True)
class Firing:
    """One rule firing: the rule and the fact id bound to each alias, in pattern order."""

    rule: str
    bindings: tuple[tuple[str, str], ...]


def fill(value: Any, bound: dict[str, Fact]) -> Any:
    if isinstance(value, str):
        m = REF.match(value)
        if m:
            return getattr(bound[m[1]], m[2], None)
    return value


def make_derived(crule: CompiledRule, bound: dict[str, Fact]) -> Fact:
    spec = crule.rule.then.assert_
    assert spec is not None
    cls = FACT_KINDS[spec.kind]
    fields = {k: fill(v, bound) for k, v in spec.fields.items()}
    first = bound[spec.evidence[0]]
    ids = [bound[a].id for a in spec.evidence]
    fields.setdefault("node", first.node)
    return cls(
        id=f"derived:{crule.id}:{'+'.join(f.id for f in bound.values())}",
        evidence=first.evidence,
        sources=",".join(ids),
        **fields,
    )


_TEMPLATE = re.compile(r"\{([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\}")


def render(template: str, bound: dict[str, Fact]) -> str:
    """``{alias.field}`` substitution only: rules cannot run code through templates."""

    def sub(m: re.Match[str]) -> str:
        fact = bound.get(m[1])
        value = getattr(fact, m[2], None) if fact is not None else None
        return "?" if value is None else str(value)

    return _TEMPLATE.sub(sub, template)
