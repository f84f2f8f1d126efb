"""The busbw curves of a report: nccl-tests bus bandwidth against message size, per kind of
run, with what each is measured against.

Runs are grouped by collective, ranks and hosts (the 28 pair runs of an 8-node pairwise test
are one chart). Each chart holds every run's curve (busbw recomputed from size and the best
of the out-of-place and in-place times, as :mod:`stethoscope.engine.baselines.perf_compare` compares
them), the reference that comparison uses (a recorded baseline, else the expected figure of
``knowledge/expected_perf.yaml``), and, for three runs or more, the median run per size: the
same yardstick pairwise localisation measures a slow pair by. A run is a suspect when a
finding (warning or worse, root cause or cascade) quotes its file or names its hosts as a link.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from stethoscope.engine.baselines import perf_compare
from stethoscope.engine.baselines import store
from stethoscope.engine.report import Finding
from stethoscope.facts.model import Fact
from stethoscope.facts.readings import records

CurveKind = Literal["run", "suspect", "median", "reference"]
_SERIOUS = ("warning", "critical", "fatal")


@dataclass(frozen=True)
class Curve:
    label: str
    kind: CurveKind
    points: tuple[tuple[int, float], ...]  # (size in bytes, busbw GB/s), sizes ascending
    source: str  # the file the run was read from, or what the reference is

    @property
    def peak(self) -> float:
        return max((b for _, b in self.points), default=0.0)

    @property
    def last(self) -> tuple[int, float] | None:
        return self.points[-1] if self.points else None


@dataclass
class Chart:
    collective: str
    nranks: int
    hosts: int
    curves: list[Curve] = field(default_factory=list)

    @property
    def title(self) -> str:
        runs = sum(1 for c in self.curves if c.kind in ("run", "suspect"))
        where = f"{self.hosts} host{'s' if self.hosts != 1 else ''}" if self.hosts else "hosts unknown"
        return f"{self.collective}, {self.nranks} ranks on {where}: {runs} run{'s' if runs != 1 else ''}"

    def of_kind(self, *kinds: CurveKind) -> list[Curve]:
        return [c for c in self.curves if c.kind in kinds]

    def yardstick(self) -> Curve | None:
        """What the runs are measured against in the table: the reference, else the median."""
        return next(iter(self.of_kind("reference")), None) or next(iter(self.of_kind("median")), None)


def _suspect_runs(facts: list[Fact], findings: list[Finding], hosts_of: dict[str, list[str]]) -> set[str]:
    quoted: set[str] = set()
    links: set[frozenset[str]] = set()
    for f in findings:
        if f.severity not in _SERIOUS:
            continue
        quoted.update(e.path for e in f.evidence)
        if f.entity.link and len(f.entity.link) == 2:
            links.add(frozenset(x.split("/")[0] for x in f.entity.link))
    return {f.id for f in facts if f.kind == "nccl_test_run"
            and (f.evidence.path in quoted or frozenset(hosts_of.get(f.id, ())) in links)}


def _run_label(run: Fact, hosts: list[str]) -> str:
    name = run.evidence.path.rsplit("/", 1)[-1]
    if 1 < len(hosts) <= 3:
        return " <-> ".join(hosts)
    return name if not hosts else f"{name} ({len(hosts)} host{'s' if len(hosts) != 1 else ''})"


def charts(facts: list[Fact], findings: list[Finding], baseline: store.Baseline | None = None) -> list[Chart]:
    """One chart per (collective, ranks, hosts) of the nccl-tests runs among ``facts``.
    ``baseline``: the reference (default: the one in force for the comparison, else expected)."""
    baseline = baseline or perf_compare.current_baseline()
    hosts_of: dict[str, list[str]] = defaultdict(list)
    for r in records(facts, "nccl_test_rank"):  # (the rank lines: their files' summaries' rows, fact_routing.yaml)
        if r.host not in hosts_of[r.run_id]:
            hosts_of[r.run_id].append(r.host)
    suspects = _suspect_runs(facts, findings, hosts_of)
    groups: dict[tuple[str, int, int], Chart] = {}
    refs: dict[tuple[str, int, int], tuple[dict[int, float], str] | None] = {}
    pair_links = perf_compare.nvlink_pair_links(facts)
    for run, table, ctx, _rows in perf_compare.runs_of(facts):
        if not table.rows:
            continue
        key = (run.collective, run.nranks, len(hosts_of.get(run.id, ())))
        chart = groups.setdefault(key, Chart(*key))
        if key not in refs:
            found = perf_compare.reference_for(run, ctx, baseline, pair_links.get(run.node), [r.size_bytes for r in table.rows])
            refs[key] = (found[0], found[1]) if found else None
        loc = f"{run.evidence.path}:{run.evidence.line}"
        chart.curves.append(Curve(_run_label(run, hosts_of.get(run.id, [])), "suspect" if run.id in suspects else "run",
                                  tuple((r.size_bytes, r.busbw) for r in table.rows), loc))
    for key, chart in groups.items():
        runs = chart.of_kind("run", "suspect")
        if len(runs) >= 3:
            per_size: dict[int, list[float]] = defaultdict(list)
            for c in runs:
                for size, bw in c.points:
                    per_size[size].append(bw)
            chart.curves.append(Curve(f"median of {len(runs)} runs", "median",
                                      tuple((s, round(statistics.median(v), 3)) for s, v in sorted(per_size.items()) if len(v) >= 3),
                                      "median busbw per size over the runs of this chart"))
        ref = refs.get(key)
        if ref is not None:
            points, label = ref
            chart.curves.append(Curve(label.split(" (", 1)[0], "reference", tuple(sorted(points.items())), label))
    # suspects first: the chart a reader needs is the one with the fault
    return sorted(groups.values(), key=lambda c: (not c.of_kind("suspect"), c.collective, c.nranks, c.hosts))


def ratio_at_largest(curve: Curve, yardstick: Curve | None) -> float | None:
    """busbw / the yardstick's at the largest size both have (None when they share none)."""
    if yardstick is None or yardstick is curve:
        return None
    ref = dict(yardstick.points)
    common = [s for s, _ in curve.points if s in ref and ref[s] > 0]
    if not common:
        return None
    size = max(common)
    return dict(curve.points)[size] / ref[size]
