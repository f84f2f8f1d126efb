"""What ``steth baseline record/compare`` do, as plain functions over result files.

RESULTS are nccl-tests outputs (text or ``-J`` JSON), or whole bundles (a folder or archive)
holding them, optionally with ``nvidia-smi -q`` (driver, CUDA), ``nvidia-smi topo -m`` and
NCCL INFO logs (environment, transports) for the context.
"""
from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from stethoscope.engine import baseline_store as store
from stethoscope.engine import perf_compare, pipeline
from stethoscope.engine.loader import RuleSet
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
    obs = observe(paths)
    tables, context = tables_of(obs)
    return store.record(db, name, context, [str(p) for p in paths], tables)


@dataclass
class Comparison:
    baseline: store.Baseline
    report: Report
    comparisons: list  # busbw_comparison facts

    def as_json(self) -> dict:
        return {
            "baseline": {"name": self.baseline.name, "id": self.baseline.id, "recorded_at": self.baseline.recorded_at,
                         "context": self.baseline.context},
            "comparisons": [c.model_dump(exclude={"evidence", "sources", "id"}) | {"evidence": c.evidence.model_dump()}
                            for c in self.comparisons],
            "report": self.report.model_dump(exclude_none=True),
        }


def compare(paths: list[Path], name: str, db: Path, ruleset: RuleSet) -> Comparison:
    """The whole diagnosis of RESULTS (engine/pipeline.py) with the named baseline as the reference."""
    baseline = store.load(db, name)
    obs = observe(paths, baseline)
    report = pipeline.diagnose(obs, ruleset)
    comps = [f for f in obs.facts if f.kind == "busbw_comparison"]
    return Comparison(baseline, report, comps)


def diagnose_with_baseline(path: os.PathLike[str] | str, name: str, db: Path | None, ruleset: RuleSet,
                           evaluator: str = "durable", jobs: int | None = None, progress=None) -> Report:
    """``steth diagnose --baseline NAME``: the whole diagnosis of a bundle, its nccl-tests runs
    compared with the named baseline instead of the expected figures. Raises StoreError when
    the baseline is not in the store."""
    baseline = store.load(db or store.default_path(), name)
    return pipeline.diagnose_bundle(path, ruleset, evaluator, jobs=jobs, baseline=baseline,  # type: ignore[arg-type]
                                    **({"progress": progress} if progress is not None else {}))
