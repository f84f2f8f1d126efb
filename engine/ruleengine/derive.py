"""What a rule's ``then.assert`` makes: a derived fact, the same for both evaluators."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from stethoscope.engine.ruleengine.compile import REF, CompiledRule
import stethoscope.facts.kinds.derived  # noqa: F401 - derived kinds must be registered
from stethoscope.engine.ruleengine.schema import Rule
from stethoscope.facts.model import FACT_KINDS, Fact


def derived_inputs(rules: Iterable[Rule]) -> dict[str, set[str]]:
    """Derived kind -> the kinds its deriving rules match (``all`` and ``none``): what the loader
    checks a ``none:`` on a derived kind against, and what the session asserts before it."""
    out: dict[str, set[str]] = {}
    for r in rules:
        if r.then.assert_ is not None:
            out.setdefault(r.then.assert_.kind, set()).update(c.fact for c in (*r.when.all, *r.when.none))
    return out


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
#: ``{? ... ?}``: a part of a summary said only where every field it names is known (a fact's optional fields:
#: torchrun's failures table gives a worker's exit code and signal, a bare ChildFailedError neither). Parts nest: an
#: inner part goes with its own fields only, the part around it with the fields it names outside the inner one
#: (``{? ({e.status}{?, rank {e.rank}?})?}``: '(S, rank R)', '(S)', or nothing where the status is unknown)
_MARK = re.compile(r"\{\?|\?\}")


#: what a field a fact lacks reads outside a ``{? ... ?}`` part (tests/test_template_render.py sets a mark of its own to
#: tell it from a '?' the template writes)
UNKNOWN = "?"


def outside_optional(template: str) -> str:
    """The text of ``template`` outside every ``{? ... ?}`` part (an unclosed ``{?`` or a stray ``?}`` stays text)."""
    return render_parts(template, lambda m: m[0], lambda _: True, every_part=False)


def render(template: str, bound: dict[str, Fact]) -> str:
    """``{alias.field}`` substitution only: rules cannot run code through templates. A field a fact lacks
    reads ``?``; inside ``{? ... ?}`` it drops that part (``worker{? rank {w.rank}?} failed``)."""

    def value(m: re.Match[str]) -> object:
        fact = bound.get(m[1])
        return getattr(fact, m[2], None) if fact is not None else None

    def sub(m: re.Match[str]) -> str:
        v = value(m)
        return UNKNOWN if v is None else str(v)

    return render_parts(template, sub, lambda m: value(m) is None)


def render_parts(template: str, sub: Callable[[re.Match[str]], str], unknown: Callable[[re.Match[str]], bool],
                 every_part: bool = True) -> str:
    """``template`` with each placeholder replaced by ``sub(match)``; a ``{? ... ?}`` part where ``unknown(match)`` holds
    for a placeholder of its own (not of a part inside it) reads nothing; so does every part unless ``every_part``."""
    frames: list[tuple[list[str], list[bool]]] = [([], [False])]  # per open part: its text so far, whether it drops
    pos = 0
    for mark in (*_MARK.finditer(template), None):
        text = template[pos:mark.start() if mark else len(template)]
        pieces, drop = frames[-1]
        for m in _TEMPLATE.finditer(text):
            drop[0] = drop[0] or unknown(m)
        pieces.append(_TEMPLATE.sub(sub, text))
        if mark is None:
            break
        pos = mark.end()
        if mark[0] == "{?":
            frames.append(([], [not every_part]))
        elif len(frames) > 1:
            done, gone = frames.pop()
            frames[-1][0].append("" if gone[0] else "".join(done))
        else:
            pieces.append(mark[0])
    while len(frames) > 1:  # an unclosed part: its mark and text as they are
        done, _ = frames.pop()
        frames[-1][0].append("{?" + "".join(done))
    return "".join(frames[0][0])
