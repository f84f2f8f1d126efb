"""Baselines of every benchmark beyond nccl-tests (issue 15 items 1-2), as plain functions.

``results_of(facts)`` turns the readers' ``bench_result`` facts (and dcgmi diag's results, Pass
1 / Warn 0.5 / Fail 0) into :class:`baseline_store.Metric` rows; ``context_of(facts)`` is the
versioned context they ran in (GPU model, driver, CUDA, NCCL, DCGM, HCA firmware, topology, the
tools' versions); ``validity(facts)`` says per node whether the GPUs were idle and their clocks
pinned (``benchmark_validity``); ``record(...)`` stores them as a new version of a baseline;
``compare(baseline, facts)`` gives one ``benchmark_vs_baseline`` per figure both have and a
``benchmark_sweep_narrower`` per nccl-tests run that does not reach the ends of the baseline's
sweep. ``compare_bundle(facts)`` is what the pipeline calls (engine/combine/nccl_summary.py): validity
whenever a bundle holds benchmark results, comparisons when a baseline is in use
(``steth baseline compare``, ``diagnose --baseline``, ``$STETH_BASELINE``).

Tolerances, the idle limits and the component a regression points at are in
knowledge/bench_tolerances.yaml. A figure of a node the baseline does not have is compared with
the median of the baseline's nodes for it (a baseline recorded on healthy nodes of one model
serves the others).
"""
from __future__ import annotations

import fnmatch
import statistics
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from stethoscope.engine.baselines import store
from stethoscope.engine.baselines.perf_compare import size_text
from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.bench_facts import BenchmarkSweepNarrower, BenchmarkValidity, BenchmarkVsBaseline, BenchmarkVsPeers
from stethoscope.facts.readings import readings

#: dcgmi diag results as numbers, so that a test that passed in the baseline and fails now is a drop
DCGM_SCORE = {"Pass": 1.0, "Warn": 0.5, "Fail": 0.0}
#: context keys compared between a baseline and a run, in the order they are reported
CONTEXT_KEYS = ("gpu_model", "driver", "cuda", "nccl", "nccl_cuda", "dcgm", "hca_firmware", "topology", "tools")


@lru_cache(maxsize=1)
def tolerances() -> knowledge.BenchTolerances:
    return knowledge.load("bench_tolerances.yaml")


def tolerance_for(benchmark: str, metric: str) -> float:
    """The first row of knowledge/bench_tolerances.yaml that names the benchmark and metric."""
    for t in tolerances().tolerances:
        if t.benchmark == benchmark and fnmatch.fnmatchcase(metric, t.metric):
            return t.tolerance
    return 0.10


def results_of(facts: list[Fact]) -> list[store.Metric]:
    """Every benchmark figure of ``facts`` (the last of each key: a log that repeats a report)."""
    out: dict[tuple, store.Metric] = {}
    for f in facts:
        if f.kind == "bench_result":
            m = store.Metric(f.node, f.benchmark, f.test, f.entity, f.metric, f.size_bytes, f.value, f.unit,
                             f.higher_is_better, f.tool_version)
        elif f.kind == "dcgm_diag_result" and f.result in DCGM_SCORE:
            m = store.Metric(f.node, "dcgm_diag", f.test, f.gpu_name, "result", None, DCGM_SCORE[f.result], "score")
        else:
            continue
        out[m.key] = m
    return list(out.values())


def context_of(facts: list[Fact]) -> dict:
    """What can move a figure: versions and topology, each as the sorted set the bundle shows."""
    sets: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        k = f.kind
        if k == "gpu_info":
            if f.name:
                sets["gpu_model"].add(f.name)
            if f.driver_version:
                sets["driver"].add(f.driver_version)
            if f.cuda_version:
                sets["cuda"].add(f.cuda_version)
        elif k == "nvidia_driver_version":
            sets["driver"].add(f.version)
        elif k == "nccl_version":
            sets["nccl"].add(f.version)
            if f.cuda:
                sets["nccl_cuda"].add(f.cuda)
        elif k == "nccl_test_run" and f.nccl_version:
            sets["nccl"].add(f.nccl_version)
        elif k == "dcgm_diag_run":
            if f.dcgm_version:
                sets["dcgm"].add(f.dcgm_version)
            if f.driver_version:
                sets["driver"].add(f.driver_version)
        elif k == "ib_hca" and f.firmware:
            sets["hca_firmware"].add(f"{f.hca} {f.firmware}")
        elif k == "gpu_topo_link" and f.a.startswith("GPU") and f.b.startswith("GPU"):
            sets["topology"].add(f.connection)
        elif k == "bench_result" and f.tool_version:
            sets["tools"].add(f"{f.benchmark} {f.tool_version}")
    return {key: ", ".join(sorted(sets[key])) for key in CONTEXT_KEYS if sets.get(key)}


def context_diff(base: dict, new: dict) -> str:
    parts = [f"{k} {base[k]} -> {new[k]}" for k in CONTEXT_KEYS if base.get(k) and new.get(k) and base[k] != new[k]]
    return "; ".join(parts) or "none"


# ---- valid benchmarks only -------------------------------------------------------------------

def validity(facts: list[Fact]) -> list[Fact]:
    """One ``benchmark_validity`` per node that has benchmark results (bench_result, dcgmi diag
    results or an nccl-tests run): busy when a GPU's utilisation is above the limit or it has a
    compute process; clocks ``pinned`` when application clocks were set (``nvidia-smi -ac``) or
    the ``Applications Clocks Setting`` clocks-event reason is active (clocks held by ``-ac``/``-lgc``),
    ``not_pinned`` when nvidia-smi showed the clocks and neither holds, else ``unknown``."""
    lim = tolerances().validity
    by_node: dict[str, dict[str, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    for f in of_kind(facts, "bench_result", "nccl_test_run", "dcgm_diag_result", "gpu_process", "gpu_clock_reasons"):
        by_node[f.node][f.kind].append(f)
    for kind in ("gpu_usage", "gpu_clocks"):  # (the kept facts' and their files' summaries' rows: fact_routing.yaml)
        for r in readings(facts, kind):
            by_node[r.of.node][kind].append(r)
    out: list[Fact] = []
    for node, kinds in sorted(by_node.items()):
        results = kinds["bench_result"] + kinds["nccl_test_run"] + kinds["dcgm_diag_result"]
        if not results:
            continue
        reasons, busy, seen = [], False, []
        usage = kinds["gpu_usage"]
        if usage:
            seen.append("utilisation")
        for u in usage:
            gpu, util, computing = u.values
            if util is not None and util > lim.busy_utilization_pct:
                busy = True
                reasons.append(f"GPU {gpu} at {util}% utilisation (limit {lim.busy_utilization_pct}%)")
            if computing is not None and computing > lim.max_compute_processes:
                busy = True
                reasons.append(f"GPU {gpu} had {computing} compute process(es)")
        procs = [p for p in kinds["gpu_process"] if "C" in p.process_type]
        if procs or any(u.values[2] is not None for u in usage):
            seen.append("processes")
        if len(procs) > lim.max_compute_processes:
            busy = True
            names = ", ".join(sorted({f"{p.process_name} (pid {p.pid}) on GPU {p.gpu_index}" for p in procs}))
            reasons.append(f"compute processes on the GPUs: {names}")
        clocks = kinds["gpu_clocks"]
        # each GPU block's reasons (gpu_clock_reasons): 'Applications Clocks Setting' shown Active or Not Active
        app_reason = [r for r in kinds["gpu_clock_reasons"] if r.applications_clocks_setting is not None]
        if any(c.values[0] for c in clocks) or any(r.applications_clocks_setting for r in app_reason):
            state = "pinned"
        elif any(c.values[0] is False for c in clocks):
            state = "not_pinned"
            reasons.append("clocks not pinned: application clocks at their defaults and no clocks-event reason "
                           "'Applications Clocks Setting' (pin them with nvidia-smi -lgc / -ac before benchmarking)")
        else:
            state = "unknown"
        if clocks or app_reason:
            seen.append("clocks")
        comparable = not busy and state != "not_pinned"
        if comparable and not reasons:
            reasons.append("idle GPUs, pinned clocks" if state == "pinned" and usage else
                           "unverified: " + ("no GPU load or clock reading with the results" if not seen else
                                             f"only {', '.join(seen)} shown"))
        evidence = next((f for f in results), results[0])
        shown = (usage or procs or clocks or [evidence])[0]
        out.append(BenchmarkValidity(
            id=f"derived:bench:benchmark_validity:{node}", node=node, evidence=shown.evidence, comparable=comparable,
            reasons="; ".join(dict.fromkeys(reasons)), busy=busy, clocks=state,
            checked=("nvidia-smi (" + ", ".join(seen) + ")") if seen else "nothing", results=len(results),
            sources=",".join(dict.fromkeys(f.id for f in [shown, evidence]))))
    return out


def not_comparable_reason(valid: list[Fact]) -> str | None:
    bad = [v for v in valid if not v.comparable]
    return "; ".join(f"{v.node}: {v.reasons}" for v in bad) or None


# ---- record and compare ----------------------------------------------------------------------

def record(db: Path, name: str, facts: list[Fact], sources: list[str], tables: list[store.Table] | None = None,
           context: dict | None = None) -> store.Baseline:
    """Store ``facts``' benchmark figures (and the nccl-tests ``tables``) as a new version of
    ``name``, with their context; a result taken on busy GPUs or unpinned clocks is stored, and
    marked not comparable with the reason."""
    ctx = {**(context or {}), **context_of(facts)}
    why = not_comparable_reason(validity(facts))
    return store.record(db, name, ctx, sources, tables or [], results_of(facts), not_comparable=why)


def _reference(baseline: store.Baseline) -> dict[tuple, list[store.Metric]]:
    ref: dict[tuple, list[store.Metric]] = defaultdict(list)
    for m in baseline.metrics:
        ref[m.key[1:]].append(m)
    return ref


def compare(baseline: store.Baseline, facts: list[Fact], valid: list[Fact] | None = None) -> list[Fact]:
    """``benchmark_vs_baseline`` per figure of ``facts`` the baseline also has, and
    ``benchmark_sweep_narrower`` per nccl-tests run narrower than the baseline's sweep."""
    valid = validity(facts) if valid is None else valid
    bad = {v.node: v.reasons for v in valid if not v.comparable}
    ref = _reference(baseline)
    ctx = context_of(facts)
    diff = context_diff(baseline.context, ctx)
    comps = tolerances().components
    evidence = {}
    for f in facts:
        if f.kind in ("bench_result", "dcgm_diag_result"):
            m = results_of([f])
            if m:
                evidence[m[0].key] = f
    out: list[Fact] = []
    for m in results_of(facts):
        rows = ref.get(m.key[1:])
        if not rows:
            continue
        same = [r for r in rows if r.node == m.node]
        base = same[0].value if same else statistics.median(r.value for r in rows)
        if base <= 0 and m.benchmark != "dcgm_diag":
            continue
        if m.benchmark == "dcgm_diag":
            ratio = m.value / base if base > 0 else (1.0 if m.value >= base else 0.0)
        else:
            ratio = m.value / base if m.higher_is_better else (base / m.value if m.value > 0 else 0.0)
        tol = tolerance_for(m.benchmark, m.metric)
        why = None
        if m.node in bad:
            why = f"this run: {bad[m.node]}"
        if not baseline.comparable:
            why = (why + "; " if why else "") + f"the baseline: {baseline.not_comparable}"
        outcome = "not_comparable" if why else ("below" if ratio < 1 - tol else ("above" if ratio > 1 + tol else "within"))
        f = evidence[m.key]
        out.append(BenchmarkVsBaseline(
            id=f"derived:bench:benchmark_vs_baseline:{f.id}:{m.metric}", node=m.node, evidence=f.evidence,
            benchmark=m.benchmark, test=m.test, entity=m.entity, metric=m.metric, size_bytes=m.size_bytes, unit=m.unit,
            value=m.value, baseline_value=round(base, 4), ratio=round(ratio, 4), tolerance=tol, outcome=outcome,
            comparable=why is None, why=why, baseline=baseline.label + ("" if same else " (median of its nodes)"),
            context_diff=diff, critical_limit=tolerances().critical_below, critical_limit_source="knowledge/bench_tolerances.yaml critical_below",
            component=comps.get(m.benchmark, "gpu"), tolerance_source="knowledge/bench_tolerances.yaml", sources=f.id))
    out += sweep_narrower(baseline, facts)
    return out


def sweep_narrower(baseline: store.Baseline, facts: list[Fact]) -> list[Fact]:
    """Per node and collective, the sizes all its nccl-tests runs covered against the baseline's
    range (several partial runs that together cover it are not narrower)."""
    rows: dict[str, list[int]] = defaultdict(list)
    for f in facts:
        if f.kind == "nccl_test_table":
            rows[f.run_id].extend(f.size_bytes)
    runs: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for run in (f for f in facts if f.kind == "nccl_test_run" and f.collective):
        runs[(run.node, run.collective)].append(run)
    out: list[Fact] = []
    for (node, coll), rs in sorted(runs.items()):
        table = baseline.tables.get(coll)
        sizes = [s for r in rs for s in (rows.get(r.id) or [x for x in (r.min_bytes, r.max_bytes) if x is not None])]
        if table is None or not table.rows or not sizes:
            continue
        lo, hi = min(sizes), max(sizes)
        blo, bhi = table.rows[0].size_bytes, table.rows[-1].size_bytes
        missing = ([f"sizes below {size_text(lo)} (the baseline starts at {size_text(blo)})"] if lo > blo else []) + \
                  ([f"sizes above {size_text(hi)} (the baseline reaches {size_text(bhi)})"] if hi < bhi else [])
        if missing:
            run = max(rs, key=lambda r: len(rows.get(r.id, [])))
            out.append(BenchmarkSweepNarrower(
                id=f"derived:bench:benchmark_sweep_narrower:{run.id}", node=node, evidence=run.evidence,
                collective=coll, min_bytes=lo, max_bytes=hi, baseline_min_bytes=blo, baseline_max_bytes=bhi,
                missing="; ".join(missing), baseline=baseline.label, sources=",".join(r.id for r in rs)))
    return out


def compare_bundle(facts: list[Fact]) -> list[Fact]:
    """The pipeline's step: validity of every node with benchmark results, and the comparison
    with the baseline in use, if any (engine/baselines/perf_compare.py's reference)."""
    from stethoscope.engine.baselines import perf_compare

    valid = validity(facts)
    baseline = perf_compare.current_baseline()
    return valid + peers(facts) + (compare(baseline, facts, valid) if baseline is not None else [])


def peers(facts: list[Fact]) -> list[Fact]:
    """Each per-GPU compute figure (knowledge/bench_tolerances.yaml ``peers.benchmarks``) under
    ``peers.below_ratio`` of the median of at least ``peers.min_peers`` other GPUs of the same node,
    benchmark, test and GPU name (gpu-burn's detail names the model; a run that names none is taken
    as one model): ``benchmark_vs_peers``."""
    limits = tolerances().peers
    wanted = {(b.benchmark, b.metric) for b in limits.benchmarks}
    groups: dict[tuple, dict[str, Fact]] = defaultdict(dict)
    for f in of_kind(facts, "bench_result"):  # (not a pass over every fact: 217k at 512 bench nodes)
        if (f.benchmark, f.metric) in wanted and f.value > 0 and f.higher_is_better:
            model = (f.detail or "").split(";")[0] if f.benchmark == "gpu_burn" and not (f.detail or "").startswith("GPU ") else ""
            groups[(f.node, f.benchmark, f.test, f.metric, model)][f.entity] = f
    out: list[Fact] = []
    for (node, benchmark, test, metric, model), by_gpu in groups.items():
        if len(by_gpu) < limits.min_peers + 1:
            continue
        for entity, f in by_gpu.items():
            med = statistics.median(g.value for e, g in by_gpu.items() if e != entity)
            ratio = f.value / med
            if ratio < limits.below_ratio:
                out.append(BenchmarkVsPeers(
                    id=f"derived:bench:benchmark_vs_peers:{f.id}", node=node, evidence=f.evidence, benchmark=benchmark,
                    test=test, entity=entity, metric=metric, unit=f.unit, value=f.value, peer_median=round(med, 1),
                    peers=len(by_gpu) - 1, ratio=round(ratio, 3), below_ratio=limits.below_ratio, gpu_model=model, sources=f.id))
    return out


def baseline_from(facts: list[Fact], name: str, recorded_at: str = "1970-01-01T00:00:00+00:00") -> store.Baseline:
    """A baseline built in memory from facts, as ``record`` would store it (rule tests give a
    case its baseline as real artefacts: engine/ruletests.py)."""
    from stethoscope.engine.baselines import perf_compare

    tables: dict[str, store.Table] = {}
    context: dict = {}
    for _run, table, ctx, _rows in perf_compare.runs_of(facts):
        if table.collective not in tables or len(table.rows) > len(tables[table.collective].rows):
            tables[table.collective], context = table, dict(ctx)
    why = not_comparable_reason(validity(facts))
    return store.Baseline(name=name, recorded_at=recorded_at, context={**context, **context_of(facts)}, sources=[],
                          tables=tables, metrics=results_of(facts), comparable=why is None, not_comparable=why)
