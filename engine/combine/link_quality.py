"""Link quality: each physical-layer counter that mlxlink or ``ethtool -S`` printed, judged
against its limit in knowledge/link_quality.yaml (the effective BER against the 1e-12 link
objective, error and link-down counts against zero, the mlx5 pause-storm guard's events).

Rules compare a fact's fields with constants, and a BER is a number like 1.5e-13 that a rule
file cannot hold: this step emits one ``link_counter_over_limit`` per counter above its limit,
with the limit, the check it belongs to, the cause, severity and meaning from knowledge;
counters knowledge does not list, and those within their limit, emit nothing.
"""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.link_facts import LinkCounterOverLimit

LIMITS = "link_quality.yaml"


def _link_id(c: Fact) -> str:
    return f"{c.device}/{c.port}" if c.port is not None else c.device  # type: ignore[attr-defined]


def summarise(counters: list[Fact]) -> list[Fact]:
    if not counters:
        return []
    table = knowledge.load(LIMITS)
    out: list[Fact] = []
    for c in counters:
        spec = table.entry(c.tool, c.counter)  # type: ignore[attr-defined]
        if spec is None or not c.value > spec.limit:  # type: ignore[attr-defined]
            continue
        out.append(LinkCounterOverLimit(
            id=f"derived:link_quality:{c.id}", node=c.node, evidence=c.evidence, sources=c.id,
            tool=c.tool, device=c.device, port=c.port, link_id=_link_id(c), counter=c.counter, value=c.value, printed=c.printed,  # type: ignore[attr-defined]
            limit=spec.limit, check=spec.check, cause=spec.cause, severity=spec.severity, meaning=spec.meaning))
    return out
