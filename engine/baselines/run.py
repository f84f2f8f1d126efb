"""What ``steth baseline record/compare`` do, as plain functions over result files.

RESULTS are nccl-tests outputs (text or ``-J`` JSON), the other benchmarks' outputs (gpu-burn,
nvbandwidth, STREAM, fio, iperf3, perftest, training logs, dcgmi diag; engine/baselines/bench.py),
or whole bundles (a folder or archive) holding them, optionally with ``nvidia-smi -q`` (driver,
CUDA, clocks, load: whether the result is comparable), ``nvidia-smi topo -m``, ``ibstat`` (HCA
firmware) and NCCL INFO logs (environment, transports) for the context.
"""
from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from stethoscope.engine.baselines import store
from stethoscope.engine import pipeline
from stethoscope.engine.baselines import bench as bench_baseline
from stethoscope.engine.baselines import perf_compare
from stethoscope.engine.ruleengine import reference
from stethoscope.engine.ruleengine.loader import RuleSet
from stethoscope.engine.pipeline import Observation
from stethoscope.engine.report import Report


def observe(paths: list[os.PathLike[str] | str], baseline: store.Baseline | None = None) -> Observation:
    """Every file of every path read as one bundle and combined (compared with ``baseline``,
    when given, instead of the expected figures)."""
    obs = pipeline.observe_results(paths)
    with perf_compare.use_baseline(baseline) if baseline is not None else nullcontext():
        return pipeline.combine(obs)


def tables_of(obs: Observation) -> tuple[list[store.Table], dict]:
    """One table per collective (the run with most sizes) and the context of the first."""
    best: dict[str, tuple[store.Table, dict]] = {}
    for _run, table, ctx, _rows in perf_compare.runs_of(obs.facts):
        old = best.get(table.collective)
        if old is None or len(table.rows) > len(old[0].rows):
            best[table.collective] = (table, ctx)
    if not best:
        return [], {}
    context = dict(next(iter(best.values()))[1])
    context["collectives"] = sorted(best)
    return [t for t, _ in best.values()], context


def record(paths: list[Path], name: str, db: Path) -> store.Baseline:
    """Every benchmark of RESULTS as a new version of ``name`` (nccl-tests tables and the other
    benchmarks' figures), with the versioned context; busy GPUs or unpinned clocks are recorded
    as the reason the baseline is not comparable."""
    obs = observe(paths)
    tables, context = tables_of(obs)
    return bench_baseline.record(db, name, obs.facts, [str(p) for p in paths], tables, context)


#: the rules that report a busbw_comparison below its limits (critical, warning, small sizes),
#: and the one that sets such a band aside as taken on busy GPUs or unpinned clocks
BELOW_RULES = frozenset({"busbw_below_baseline", "busbw_below_baseline_warning", "busbw_below_baseline_latency",
                         "busbw_below_siblings", "busbw_below_siblings_warning"})
SET_ASIDE_RULES = frozenset({"busbw_not_comparable"})


def bands_below(ruleset: RuleSet, facts: list) -> tuple[set[str], set[str]]:
    """The ids of the busbw_comparison facts that the rules find below their limits: (reported,
    set aside as not comparable). The rules judge (the reference evaluator over the facts those
    rules read), so that the per-band verdict and the exit status say what the report says."""
    rules = [r for r in ruleset.rules if r.id in BELOW_RULES | SET_ASIDE_RULES]
    kinds = frozenset().union(*(r.kinds for r in rules))
    facts = [f for f in facts if f.kind in kinds]
    by_id = {f.id: f for f in facts}
    reported: set[str] = set()
    set_aside: set[str] = set()
    for firing in reference.run(rules, facts)[0]:
        ids = {fid for _, fid in firing.bindings if by_id[fid].kind == "busbw_comparison"}
        (reported if firing.rule in BELOW_RULES else set_aside).update(ids)
    return reported, set_aside


@dataclass
class Comparison:
    baseline: store.Baseline
    report: Report
    comparisons: list  # busbw_comparison facts
    benchmarks: list = field(default_factory=list)  # benchmark_vs_baseline facts
    sweeps: list = field(default_factory=list)  # benchmark_sweep_narrower facts
    validity: list = field(default_factory=list)  # benchmark_validity facts
    reported: set = field(default_factory=set)  # ids of comparisons the rules report below (bands_below)
    set_aside: set = field(default_factory=set)  # ids of those below but not comparable

    def band_below(self, c) -> bool:
        """A busbw band under its limit, comparable or not (the rules' judgement)."""
        return c.id in self.reported or c.id in self.set_aside

    @property
    def below(self) -> bool:
        """A band or figure below the baseline (comparable results only)."""
        return bool(self.reported) or any(b.outcome == "below" for b in self.benchmarks)

    def as_json(self) -> dict:
        def dump(c):
            return c.model_dump(exclude={"evidence", "sources", "id"}) | {"evidence": c.evidence.model_dump()}

        return {
            "baseline": {"name": self.baseline.name, "id": self.baseline.id, "recorded_at": self.baseline.recorded_at,
                         "context": self.baseline.context, "comparable": self.baseline.comparable,
                         "not_comparable": self.baseline.not_comparable},
            "comparisons": [dump(c) | {"below": self.band_below(c)} for c in self.comparisons],
            "benchmarks": [dump(c) for c in self.benchmarks],
            "sweeps_narrower": [dump(c) for c in self.sweeps],
            "validity": [dump(c) for c in self.validity],
            "report": self.report.model_dump(exclude_none=True),
        }


def compare(paths: list[Path], name: str, db: Path, ruleset: RuleSet) -> Comparison:
    """The whole diagnosis of RESULTS (engine/pipeline.py) with the named baseline as the reference."""
    baseline = store.load(db, name)
    obs = observe(paths, baseline)
    report = pipeline.diagnose(obs, ruleset)
    def kind(k):
        return [f for f in obs.facts if f.kind == k]

    return Comparison(baseline, report, kind("busbw_comparison"), kind("benchmark_vs_baseline"),
                      kind("benchmark_sweep_narrower"), kind("benchmark_validity"), *bands_below(ruleset, obs.facts))


def diagnose_with_baseline(path: os.PathLike[str] | str, name: str, db: Path | None, ruleset: RuleSet,
                           evaluator: str = "durable", jobs: int | None = None, progress=None) -> Report:
    """``steth diagnose --baseline NAME``: the whole diagnosis of a bundle, its nccl-tests runs
    compared with the named baseline instead of the expected figures. Raises StoreError when
    the baseline is not in the store."""
    baseline = store.load(db or store.default_path(), name)
    return pipeline.diagnose_bundle(path, ruleset, evaluator, jobs=jobs, baseline=baseline,  # type: ignore[arg-type]
                                    **({"progress": progress} if progress is not None else {}))
