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
from typing import NamedTuple

from stethoscope.facts.kinds.live import CounterGrowth, GpuUtilStall
from stethoscope.facts.model import Evidence, Fact, of_kind

STALL_MIN_DIPS = 3  # as the live util_facts
MIN_SAMPLES = 6  # as the live MIN_SAMPLES
_STAMP = "%a %b %d %H:%M:%S %Y"  # nvidia-smi -q "Timestamp : Sun Nov 29 18:29:12 2026"


@lru_cache(maxsize=1024)  # one stamp per nvidia-smi -q reading, asked for each of its GPUs and counts
def _when(text: str | None) -> float | None:
    try:
        return datetime.strptime(" ".join((text or "").split()), _STAMP).timestamp()
    except ValueError:
        return None


class _Count(NamedTuple):
    """A volatile correctable ECC count as ecc_growth reads it: of a kept gpu_ecc_count (``of``), or row ``row`` of
    a file's fact_summary (knowledge/fact_routing.yaml summary_rows: a healthy GPU's counts, one series a file)."""
    value: int
    path: str
    line: int
    of: Fact
    row: int | None

    @property
    def id(self) -> str:
        return self.of.id if self.row is None else self.of.part_id(self.row)  # type: ignore[attr-defined]

    @property
    def evidence(self) -> Evidence:
        return self.of.evidence if self.row is None else self.of.part_evidence(self.row)  # type: ignore[attr-defined]


def _ecc_counts(facts: list[Fact]) -> dict[tuple[str, str, str], list[_Count]]:
    """(node, bus id, location) -> its volatile correctable counts, in the order they were read (a file's by
    line, the files in the observation's order): the kept facts' and their files' summaries' rows."""
    counts: dict[tuple[str, str, str], list[tuple[int, int, _Count]]] = defaultdict(list)
    block, path = -1, None
    for f in of_kind(facts, "gpu_ecc_count", "fact_summary"):  # (in the facts' order: a file's kept ones, then its summaries)
        if f.kind == "gpu_ecc_count":
            if f.scope != "volatile" or f.error_type != "correctable" or f.count is None:  # type: ignore[attr-defined]
                continue
            ev = f.evidence
            if ev.path != path:
                block, path = block + 1, ev.path
            counts[(f.node, f.pci_bus_id, f.location)].append(  # type: ignore[attr-defined]
                (block, ev.line, _Count(f.count, ev.path, ev.line, f, None)))  # type: ignore[attr-defined]
        elif f.of_kind == "gpu_ecc_count" and f.rows:  # type: ignore[attr-defined]
            if f.evidence.path != path:
                block, path = block + 1, f.evidence.path
            for i, (bus, location, count, line, _text) in enumerate(f.rows):  # type: ignore[attr-defined]
                if count is not None:
                    counts[(f.node, bus, location)].append((block, line, _Count(count, path, line, f, i)))
    return {key: [c for _b, _l, c in sorted(rs, key=lambda r: (r[0], r[1]))] for key, rs in counts.items()}


def ecc_growth(facts: list[Fact]) -> list[Fact]:
    """Volatile correctable ECC counts of one GPU in two or more timed readings: their growth."""
    counts = _ecc_counts(facts)
    # counts of one value (a healthy GPU's 0s, its .txt and .xml readings alike) grow nothing: the
    # readings' stamps are read only where some count moved (4,096 gpu_info at 512 bench nodes)
    moved = {key: cs for key, cs in counts.items() if len({c.value for c in cs}) >= 2}
    infos: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for f in of_kind(facts, "gpu_info") if moved else ():
        if _when(f.taken_at) is not None:  # type: ignore[attr-defined]
            infos[(f.node, f.evidence.path, f.pci_bus_id)].append(f)  # type: ignore[attr-defined]
    readings: dict[tuple[str, str, str], list[tuple[float, _Count]]] = defaultdict(list)
    for key, cs in moved.items():
        for c in cs:
            # the reading a count belongs to: the last GPU header above it in its file
            heads = [i for i in infos.get((key[0], c.path, key[1]), []) if i.evidence.line <= c.line]
            if heads:
                t = _when(max(heads, key=lambda i: i.evidence.line).taken_at)  # type: ignore[attr-defined]
                readings[key].append((t, c))  # type: ignore[arg-type]
    out: list[Fact] = []
    for (node, bus, loc), rs in sorted(readings.items()):
        rs.sort(key=lambda r: r[0])
        (t0, a), (t1, z) = rs[0], rs[-1]
        grew = z.value - a.value
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
