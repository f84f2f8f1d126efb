"""Time-based observations from the readings a bundle holds, as the live side's fact kinds:
``counter_growth`` (correctable ECC counters between two ``nvidia-smi -q`` readings, with the
rate per hour) and ``gpu_util_stall`` (from ``gpu_util_series`` of ``nvidia-smi dmon`` /
``--query-gpu -l``), so that bundle and live diagnoses reach the same rules.

The stall criterion is the live one (facts/live/timeseries.py util_facts): three or more
separate runs of zero samples in a series that is otherwise busy.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from functools import lru_cache

from stethoscope.facts.kinds.live import CounterGrowth, GpuUtilStall
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.readings import Reading, readings

STALL_MIN_DIPS = 3  # as the live util_facts
MIN_SAMPLES = 6  # as the live MIN_SAMPLES
_STAMP = "%a %b %d %H:%M:%S %Y"  # nvidia-smi -q "Timestamp : Sun Nov 29 18:29:12 2026"


@lru_cache(maxsize=1024)  # one stamp per nvidia-smi -q reading, asked for each of its GPUs and counts
def _when(text: str | None) -> float | None:
    try:
        return datetime.strptime(" ".join((text or "").split()), _STAMP).timestamp()
    except ValueError:
        return None


def ecc_growth(facts: list[Fact]) -> list[Fact]:
    """Volatile correctable ECC counts of one GPU in two or more timed readings: their growth."""
    counts: dict[tuple[str, str, str], list[Reading]] = defaultdict(list)
    for r in readings(facts, "gpu_ecc_count"):  # (bus id, location, count) of the volatile correctable ones
        if r.values[2] is not None:
            counts[(r.of.node, r.values[0], r.values[1])].append(r)
    # counts of one value (a healthy GPU's 0s, its .txt and .xml readings alike) grow nothing: the
    # readings' stamps are read only where some count moved (4,096 gpu_info at 512 bench nodes)
    moved = {key: rs for key, rs in counts.items() if len({r.values[2] for r in rs}) >= 2}
    infos: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for f in of_kind(facts, "gpu_info") if moved else ():
        if _when(f.taken_at) is not None:  # type: ignore[attr-defined]
            infos[(f.node, f.evidence.path, f.pci_bus_id)].append(f)  # type: ignore[attr-defined]
    timed: dict[tuple[str, str, str], list[tuple[float, Reading]]] = defaultdict(list)
    for key, rs in moved.items():
        for r in rs:
            ev = r.evidence
            # the reading a count belongs to: the last GPU header above it in its file
            heads = [i for i in infos.get((key[0], ev.path, key[1]), []) if i.evidence.line <= ev.line]
            if heads:
                t = _when(max(heads, key=lambda i: i.evidence.line).taken_at)  # type: ignore[attr-defined]
                timed[key].append((t, r))  # type: ignore[arg-type]
    out: list[Fact] = []
    for (node, bus, loc), ts in sorted(timed.items()):
        ts.sort(key=lambda r: r[0])
        (t0, a), (t1, z) = ts[0], ts[-1]
        grew = z.values[2] - a.values[2]
        if t1 <= t0 or grew <= 0:  # volatile counts reset with the driver: a drop is no growth
            continue
        window = t1 - t0
        out.append(CounterGrowth(
            id=f"agg:ecc_growth:{node}:{bus}:{loc}", node=node, evidence=z.evidence, counter="ecc_sbe_vol",
            pci_bus_id=bus, increase=float(grew), window_s=int(window), rate_per_h=round(grew / window * 3600, 1),
            location=loc, sources=f"{a.id},{z.id}",
        ))
    return out


def util_stalls(facts: list[Fact]) -> list[Fact]:
    """``gpu_util_stall`` for series with the live criterion; dmon's indexes mapped to bus ids
    with the node's ``nvidia-smi -q`` (its GPU order), else left as ``index:N``."""
    index_bus: dict[tuple[str, int], str] | None = None  # made when a stalled series first lacks its bus id
    out: list[Fact] = []
    for s in of_kind(facts, "gpu_util_series"):
        if s.samples < MIN_SAMPLES:  # type: ignore[attr-defined]
            continue
        if s.dips < STALL_MIN_DIPS or s.busy_mean_pct <= 0:  # type: ignore[attr-defined]
            continue
        if not s.pci_bus_id and index_bus is None:  # type: ignore[attr-defined]
            index_bus = {(f.node, f.index): f.pci_bus_id for f in of_kind(facts, "gpu_info") if f.index is not None}  # type: ignore[attr-defined]
        bus = s.pci_bus_id or (index_bus or {}).get((s.node, s.index)) or f"index:{s.index}"  # type: ignore[attr-defined]
        out.append(GpuUtilStall(
            id=f"agg:util_stall:{s.id}", node=s.node, evidence=s.evidence, pci_bus_id=bus, dips=s.dips,  # type: ignore[attr-defined]
            zero_fraction=s.zero_fraction, busy_mean_pct=s.busy_mean_pct,  # type: ignore[attr-defined]
            window_s=int(s.samples * s.interval_s),  # type: ignore[attr-defined]
        ))
    return out


def summarise(facts: list[Fact]) -> list[Fact]:
    return ecc_growth(facts) + util_stalls(facts)
