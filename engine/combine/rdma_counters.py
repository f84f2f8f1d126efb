"""RDMA port driver counters (mlx5 hw_counters from sysfs or ``rdma statistic``) beside what
knowledge/rdma_hw_counters.yaml says of each.

Per port (node and port id), the readings in order: with one reading, each listed counter above
zero becomes one ``rdma_counter_vs_limit`` carrying its count since the driver loaded; with two
or more, each counter that grew between the first and the last does, with the growth and the
time between them (a counter that went down was reset: no growth). A completion-error counter is
judged less its flush counter. Knowledge gives the check, cause and meaning, the single-reading
total worth a warning and the severity of growth; the rules of each check report them
(rules/network/rdma_*_counted.yaml). Counters knowledge does not list emit nothing.
"""
from __future__ import annotations

from collections import defaultdict

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact
from stethoscope.facts.kinds.network import RdmaCounterVsLimit
from stethoscope.facts.parsers.ib_facts import HW_TRAFFIC

LIMITS = "rdma_hw_counters.yaml"


def _value(reading: Fact, spec: knowledge.RdmaHwCounter) -> int | None:
    v = getattr(reading, spec.counter)
    if v is None:
        return None
    flushed = getattr(reading, spec.flush) if spec.flush else None
    return max(0, v - flushed) if flushed else v


def _traffic(reading: Fact) -> int:
    """The responder's requests the port received since the driver loaded (ib_facts.HW_TRAFFIC)."""
    return sum(getattr(reading, f) or 0 for f in HW_TRAFFIC)


def _span(seconds: float | None) -> str:
    if seconds is None:
        return "between two readings with no time"
    if seconds < 120:
        return f"in {seconds:.0f} s between two readings"
    return f"in {seconds / 60:.0f} min between two readings"


def summarise(readings: list[Fact]) -> list[Fact]:
    if not readings:
        return []
    specs = knowledge.load(LIMITS).counters
    ports: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for r in readings:
        ports[(r.node, r.port_id)].append(r)  # type: ignore[attr-defined]
    out: list[Fact] = []
    for series in ports.values():
        series.sort(key=lambda r: (r.time_s or 0, r.reading))  # type: ignore[attr-defined]
        first, last = series[0], series[-1]
        many = len(series) > 1
        window = (last.time_s - first.time_s) if many and first.time_s is not None and last.time_s is not None else None  # type: ignore[attr-defined]
        for spec in specs:
            b = _value(last, spec)
            if b is None:
                continue
            delta = None
            if many:
                a = _value(first, spec)
                if a is None or b <= a:
                    continue
                delta = b - a
                over = spec.on_growth == "warning"
                basis = f"grew by {delta} {_span(window)} (now {b} since the driver loaded)"
            else:
                if b <= 0:
                    continue
                over = spec.warn_total is not None and b >= spec.warn_total
                basis = (f"{b} since the driver loaded, in the only reading: a count at least {spec.warn_total} is more than a transient's"
                         if over else f"{b} since the driver loaded, in the only reading (no rate: it may be old history)")
            traffic = _traffic(last) - (_traffic(first) if many else 0)
            if traffic > 0:  # what the port carried in the same span, to weigh the count by (responder side only)
                basis += f", while the port received {traffic} RDMA requests"
            what = f"{spec.counter} less {spec.flush}" if spec.flush and getattr(last, spec.flush) else spec.counter
            out.append(RdmaCounterVsLimit(
                id=f"derived:rdma_counters:{last.id}:{spec.counter}", node=last.node, evidence=last.evidence,
                sources=",".join(dict.fromkeys(r.id for r in (first, last))),
                hca=last.hca, port=last.port, port_id=last.port_id, counter=what, check=spec.check,  # type: ignore[attr-defined]
                cause=spec.cause, value=b, readings=len(series), delta=delta, window_s=window, warn_total=spec.warn_total,
                severity="warning" if over else "info", meaning=" ".join(spec.meaning.split()), basis=basis))
    return out
