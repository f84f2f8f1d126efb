"""Link quality: each physical-layer counter that mlxlink or ``ethtool -S`` printed, set beside
its limit in knowledge/link_quality.yaml (the effective BER against the 1e-12 link objective,
error and link-down counts against zero, the mlx5 pause-storm guard's events).

This step does not judge: it emits one ``link_counter_vs_limit`` per counter that knowledge
lists, carrying the limit, the check it belongs to, the cause, severity and meaning from
knowledge; the rules of each check compare the value with the limit (rules/network/
link_ber_over_limit.yaml and its siblings). A BER is compared through the base-10 logarithms
the fact carries (a rule sees floats to 9 decimals). Counters knowledge does not list emit nothing.

A count that knowledge gives a ``per`` counter (rx_discards_phy per rx_packets_phy) is cumulative
since the driver loaded, so alone it says neither how often nor how much: it is judged as the
share of what the same port carried in the same span (the ``per`` counter of the same reading),
and ``value`` is that fraction (``printed`` says both counts). Without its ``per`` counter in the
reading it emits nothing (no rate to judge).
"""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact
from stethoscope.facts.kinds.network import LinkCounterVsLimit

LIMITS = "link_quality.yaml"


def _link_id(c: Fact) -> str:
    return f"{c.device}/{c.port}" if c.port is not None else c.device  # type: ignore[attr-defined]


def summarise(counters: list[Fact]) -> list[Fact]:
    if not counters:
        return []
    table = knowledge.load(LIMITS)
    # the same reading's counters by port, for a count judged per what the port carried
    by_port = {(c.node, c.tool, c.device, c.port, c.counter, c.evidence.path): c for c in counters}  # type: ignore[attr-defined]
    out: list[Fact] = []
    for c in counters:
        spec = table.entry(c.tool, c.counter)  # type: ignore[attr-defined]
        if spec is None:
            continue
        value, printed, sources = c.value, c.printed, c.id  # type: ignore[attr-defined]
        if spec.per:
            per = by_port.get((c.node, c.tool, c.device, c.port, spec.per, c.evidence.path))  # type: ignore[attr-defined]
            if per is None or not per.value:  # type: ignore[attr-defined]
                continue
            value = c.value / per.value  # type: ignore[attr-defined]
            printed = f"{c.printed} of {per.printed} {spec.per} ({value:.1e})"  # type: ignore[attr-defined]
            sources = f"{c.id},{per.id}"
        out.append(LinkCounterVsLimit(
            id=f"derived:link_quality:{c.id}", node=c.node, evidence=c.evidence, sources=sources,
            tool=c.tool, device=c.device, port=c.port, link_id=_link_id(c), counter=c.counter, value=value, printed=printed,  # type: ignore[attr-defined]
            limit=spec.limit, check=spec.check, cause=spec.cause, severity=spec.severity, meaning=spec.meaning))
    return out
