"""nccl-tests results against a reference: a recorded baseline or an expected figure.

Sizes fall in two bands that move for different reasons: ``latency`` (<= 64 KiB, bound by
launch and protocol latency) and ``bandwidth`` (>= 64 MiB, bound by the links). Middle sizes
mix both and are left out. Per band, the ratio is the median over the sizes both runs have
of measured busbw / reference busbw; busbw is recomputed from size and time with nccl-tests'
factor (:func:`busbw_factor`), so that sizes printed as ``0.00`` GB/s compare too.

Which reference: the baseline set by :func:`use_baseline` (``steth baseline compare``), else
the one named by ``$STETH_BASELINE`` (in ``$STETH_BASELINE_DB`` or the default store), else
the first matching platform of ``knowledge/expected_perf.yaml``, else, for two GPUs of one host
joined by NVLink bridges, the figure its ``nvlink_pairs`` gives for their link count; else, for the bandwidth band,
where the bundle holds other runs of the same test that none of these judged, the median of
those runs (:func:`siblings`, knowledge/bench_tolerances.yaml nccl_tests.siblings); none
matching: no facts (rules/nccl/nccl_tests_busbw_unjudged.yaml says the run was not judged).

No verdict is made here: each busbw_comparison carries its ratio and the limits that apply to
it, each with the knowledge file and key it came from; rules/nccl/busbw_below_baseline*.yaml
compare the one with the others (below the band's limit: warning; below the critical limit:
critical).

The parts, one job a module, each name re-exported here so no caller changes: ``busbw_bands`` (the
bands, their limits, size_text), ``nccl_runs`` (a bundle's runs: table, context, own NCCL settings),
``sibling_runs`` (runs judged against each other); this module picks each run's reference and compares.
"""
from __future__ import annotations

import logging
import os
import statistics
from collections import defaultdict
from contextlib import contextmanager
from contextvars import ContextVar
from operator import truediv
from typing import Iterable, Iterator, Sequence

from stethoscope.engine.baselines import store
from stethoscope.engine.baselines.busbw_bands import (  # noqa: F401 - re-exported
    BANDWIDTH_MIN, BELOW, CRITICAL_BELOW, LATENCY_MAX, band_of, size_text)
from stethoscope.engine.baselines.nccl_runs import Columns, RowsBySize, runs_of  # noqa: F401 - re-exported
from stethoscope.engine.baselines.sibling_runs import siblings
from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.kinds.nccl import BusbwComparison
from stethoscope.facts.parsers.base import as_given
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor

ENV_BASELINE = "STETH_BASELINE"
_CONTEXT_KEYS = ("gpu_model", "gpus_per_node", "nodes", "nranks", "topology", "driver", "cuda", "nccl", "env")

_reference: ContextVar[store.Baseline | None] = ContextVar("steth_baseline", default=None)


@contextmanager
def use_baseline(baseline: store.Baseline) -> Iterator[None]:
    token = _reference.set(baseline)
    try:
        yield
    finally:
        _reference.reset(token)


def current_baseline() -> store.Baseline | None:
    """The baseline in use: set by :func:`use_baseline`, else named by ``$STETH_BASELINE``."""
    return _reference.get() or _env_baseline()


def expected_platforms() -> list[knowledge.PerfPlatform]:
    """knowledge/expected_perf.yaml, validated (facts/knowledge/perf.py)."""
    return knowledge.load("expected_perf.yaml").platforms



def context_diff(base: dict, new: dict) -> str:
    parts = []
    for k in _CONTEXT_KEYS:
        a, b = base.get(k), new.get(k)
        if k == "env":
            if a is None or b is None:
                continue
            for name in sorted(set(a) | set(b)):
                if a.get(name) != b.get(name):
                    parts.append(f"{name} {a.get(name, 'unset')} -> {b.get(name, 'unset')}")
        elif a is not None and b is not None and a != b:
            parts.append(f"{k} {a} -> {b}")
    return "; ".join(parts) or "none"


def compare_tables(new: store.Table | Columns, ref: dict[int, float]) -> dict[str, tuple[float, int, int]]:
    """band -> (median ratio, sizes compared, largest common size); ``ref`` is size -> busbw."""
    if type(new) is Columns:
        return {band: (statistics.median(new.busbw(j) / r for j, r in at), len(at), size)
                for band, at, size, _j in _plan(new.sizes, ref)}
    ratios: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for size, busbw in ((r.size_bytes, r.busbw) for r in new.rows):
        band = band_of(size)
        if band and size in ref and ref[size] > 0:
            ratios[band].append((size, busbw / ref[size]))
    return {b: (statistics.median(x for _, x in v), len(v), max(s for s, _ in v)) for b, v in ratios.items()}


def _plan(sizes: Sequence[int], ref: dict[int, float]) -> list[tuple[str, list[tuple[int, float]], int, int]]:
    """What :func:`compare_tables` compares in a table of these sizes (ascending, each once) against ``ref``:
    per band, in band order, (band, [(the size's place, its reference busbw)], the largest size compared, its
    place). The same for every run of the same sizes and reference (a bench bundle's 5,120 runs: ~5), so
    :func:`compare_bundle` makes it once for them, and a run's busbw is made only at these sizes."""
    at: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for j, size in enumerate(sizes):
        band = band_of(size)
        if band and size in ref and ref[size] > 0:
            at[band].append((j, ref[size]))
    # sizes ascending: a band's largest size compared is its last
    return [(band, v, sizes[v[-1][0]], v[-1][0]) for band, v in sorted(at.items())]


def _bands(sizes: Sequence[int], ref: dict[int, float], limits: dict[str, tuple[float, str]],
           texts: dict[int, str]) -> list[tuple]:
    """:func:`_plan` as compare_bundle reads it, a band's values that are the same for every run of these sizes
    and reference made once: (band, the places compared, their reference busbw, the largest size compared, its
    reference busbw rounded, its size_text (``texts``: by size), the band's limit and its source)."""
    return [(band, [j for j, _r in at], [r for _j, r in at], size, round(ref[size], 2),
             texts.get(size) or texts.setdefault(size, size_text(size)), *limits[band])
            for band, at, size, _j in _plan(sizes, ref)]


def _env_baseline() -> store.Baseline | None:
    name = os.environ.get(ENV_BASELINE)
    if not name:
        return None
    try:
        return store.load(store.default_path(), name)
    except store.StoreError as exc:  # say so and fall back to the expected figures
        logging.getLogger(__name__).warning("%s=%s: %s", ENV_BASELINE, name, exc)
        return None


def _expected_for(run: Fact, ctx: dict) -> knowledge.PerfPlatform | None:
    for p in expected_platforms():
        if (ctx["gpu_model"] in p.gpu_names and p.nranks == run.nranks and p.nodes == ctx["nodes"]
                and run.collective in p.collectives):
            return p
    return None


def nvlink_pair_links(facts: list[Fact]) -> dict[str, int]:
    """node -> the NVLinks joining its two GPUs, for each node whose ``nvidia-smi topo -m`` lists
    exactly two GPUs and shows them joined by NV<n> (knowledge/expected_perf.yaml nvlink_pairs)."""
    gpus: dict[str, set[str]] = defaultdict(set)
    links: dict[str, int] = {}
    for f in of_kind(facts, "gpu_topo_link"):
        if f.a.startswith("GPU") and f.b.startswith("GPU"):
            gpus[f.node].update((f.a, f.b))
            if f.nvlinks:
                links[f.node] = f.nvlinks
    return {node: n for node, n in links.items() if len(gpus[node]) == 2}


def _nvlink_pair(run: Fact, ctx: dict, links: int | None, sizes: Iterable[int]) -> tuple[dict[int, float], str, float] | None:
    """(size -> expected busbw, label, min_ratio) of a 2-rank run on one host whose two GPUs are
    joined by ``links`` NVLinks of a product knowledge/expected_perf.yaml nvlink_pairs lists."""
    pairs = knowledge.load("expected_perf.yaml").nvlink_pairs
    if pairs is None or not links or run.nranks != 2 or ctx["nodes"] != 1 or run.collective not in pairs.collectives:
        return None
    name = (ctx["gpu_model"] or "").removeprefix("NVIDIA ").strip()
    product = next((p for p in pairs.products if name in p.gpu_names), None)
    if product is None:
        return None
    busbw = round(links * product.link_gbps * pairs.efficiency, 2)
    points = {s: busbw for s in sizes if s >= pairs.min_bytes}
    if not points:
        return None
    label = (f"expected for 2 x {name} joined by NV{links}: {links} x {product.link_gbps} GB/s x {pairs.efficiency} "
             f"(knowledge/expected_perf.yaml nvlink_pairs; {product.source})")
    return points, label, pairs.min_ratio


def reference_for(run: Fact, ctx: dict, baseline: store.Baseline | None, pair_links: int | None = None,
                  sizes: Iterable[int] = ()) -> tuple[dict[int, float], str, str, str, dict[str, tuple[float, str]]] | None:
    """What a run is compared with: (size -> reference busbw, label, kind, context diff,
    band -> (limit, its source)), from ``baseline`` when given, else the expected figure (whose
    ``min_ratio`` is the bandwidth band's limit), else, for two GPUs joined by ``pair_links``
    NVLinks, the figure of knowledge/expected_perf.yaml nvlink_pairs at ``sizes``; None when
    none applies."""
    if baseline is not None:
        bt = baseline.tables.get(run.collective)
        if bt is None:
            return None
        factor = busbw_factor(run.collective, bt.nranks)
        # the baseline's busbw at each size, in this run's terms when nranks differ
        ref = {r.size_bytes: r.busbw for r in bt.rows} if bt.nranks == run.nranks else \
            {r.size_bytes: r.size_bytes / r.time_us / 1e3 * factor for r in bt.rows}
        return (ref, f"baseline {baseline.name} ({baseline.recorded_at[:10]})", "baseline",
                context_diff(baseline.context, ctx), BELOW)
    plat = _expected_for(run, ctx)
    if plat is None:
        pair = _nvlink_pair(run, ctx, pair_links, sizes)
        if pair is None:
            return None
        return (pair[0], pair[1], "expected", "n/a (expected figure)",
                {**BELOW, "bandwidth": (pair[2], "knowledge/expected_perf.yaml nvlink_pairs.min_ratio")})
    points = dict(plat.collectives[run.collective].points)
    # a figure at the largest size the source gives is the plateau: a larger size reaches at least it
    # (harvest 1603: 8 x H200 at 16 GiB, the figure given at 4 GiB, was compared with nothing)
    top = max(points)
    points.update({s: points[top] for s in sizes if s > top})
    return (points, f"expected for {plat.id} ({plat.source})", "expected",
            "n/a (expected figure)", {**BELOW, "bandwidth": (plat.min_ratio, f"knowledge/expected_perf.yaml {plat.id}.min_ratio")})


def compare_bundle(facts: list[Fact]) -> list[Fact]:
    baseline = current_baseline()
    pair_links = nvlink_pair_links(facts)
    out: list[Fact] = []
    # without a baseline, what a run is compared with depends on these of it alone (_expected_for, _nvlink_pair):
    # a bench bundle's 5,120 runs ask ~5 times (its answers are only read)
    refs: dict[tuple, tuple | None] = {}
    texts: dict[int, str] = {}  # size_text by size
    envs: dict[tuple | None, str] = {}  # a run's env_overrides by its settings (a bench bundle's runs share one)
    for run, table, ctx, row_of in runs_of(facts, columns=True):
        links = pair_links.get(run.node)
        if baseline is None:
            key = (run.collective, run.nranks, ctx["gpu_model"], ctx["nodes"], links, tuple(table.sizes))
            if key in refs:
                found = refs[key]
            else:
                found = refs[key] = reference_for(run, ctx, None, links, table.sizes)
                if found is not None:  # what its runs compare: once for them all
                    found = refs[key] = (*found, _bands(table.sizes, found[0], found[4], texts))
        else:
            found = reference_for(run, ctx, baseline, links, table.sizes)
            if found is not None:
                found = (*found, _bands(table.sizes, found[0], found[4], texts))
        if found is None:
            continue
        _ref, label, kind, diff, _limits, plan = found
        settings = None if ctx["env"] is None else tuple(ctx["env"].items())
        env = envs.get(settings)
        if env is None:
            env = envs[settings] = "unknown (no NCCL INFO log)" if settings is None else \
                (", ".join(f"{k}={v}" for k, v in settings) or "none")
        busbw = table.busbw
        for band, places, ref_busbws, size, reference_busbw, text, limit, limit_source in plan:
            # the band's largest size is its last compared: its busbw made once
            measured = list(map(busbw, places))
            ratio = statistics.median(map(truediv, measured, ref_busbws))
            measured = measured[-1]
            out.append(as_given(  # built as a reader's facts are (bench/speed_rP7.md, rQ9)
                BusbwComparison, f"derived:summary:busbw_comparison:{run.id}:{band}", run.node, row_of.evidence(size), run_id=run.id,
                sources=f"{row_of.source(size)},{run.id}", collective=run.collective, band=band, ratio=round(ratio, 4),
                factor_below=round(1 / ratio, 1) if ratio > 0 else float("inf"), measured_busbw=round(measured, 2),
                reference_busbw=reference_busbw, size_bytes=size, size_text=text, sizes=len(places),
                reference=label, reference_kind=kind, context_diff=diff, env_overrides=env, below_limit=limit,
                below_limit_source=limit_source, critical_limit=CRITICAL_BELOW[0], critical_limit_source=CRITICAL_BELOW[1]))
    judged = {c.run_id for c in out if c.band == "bandwidth"}
    return out + siblings(facts, judged)
