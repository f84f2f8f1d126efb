"""nccl-tests results against a reference: a recorded baseline or an expected figure.

Sizes fall in two bands that move for different reasons: ``latency`` (<= 64 KiB, bound by
launch and protocol latency) and ``bandwidth`` (>= 64 MiB, bound by the links). Middle sizes
mix both and are left out. Per band, the ratio is the median over the sizes both runs have
of measured busbw / reference busbw; busbw is recomputed from size and time with nccl-tests'
factor (:func:`busbw_factor`), so that sizes printed as ``0.00`` GB/s compare too.

Which reference: the baseline set by :func:`use_baseline` (``steth baseline compare``), else
the one named by ``$STETH_BASELINE`` (in ``$STETH_BASELINE_DB`` or the default store), else
the first matching platform of ``knowledge/expected_perf.yaml``, else, for two GPUs of one host
joined by NVLink bridges, the figure its ``nvlink_pairs`` gives for their link count; none
matching: no facts (rules/nccl/nccl_tests_busbw_unjudged.yaml says the run was not judged).

No verdict is made here: each busbw_comparison carries its ratio and the limits that apply to
it, each with the knowledge file and key it came from; rules/nccl/busbw_below_baseline*.yaml
compare the one with the others (below the band's limit: warning; below the critical limit:
critical).
"""
from __future__ import annotations

import logging
import os
import statistics
from collections import defaultdict
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator

from stethoscope.engine.baselines import store
from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.kinds.nccl import BusbwComparison
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor

#: the bands and their limits: knowledge/bench_tolerances.yaml's nccl_tests section (sources there)
_LIMITS = knowledge.load("bench_tolerances.yaml").nccl_tests
LATENCY_MAX = _LIMITS.latency_max_bytes
BANDWIDTH_MIN = _LIMITS.bandwidth_min_bytes
_SOURCE = "knowledge/bench_tolerances.yaml nccl_tests"
#: band -> (the ratio under which a band is below its reference, where it is set); latency is noisier
BELOW = {band: (getattr(_LIMITS.below, band), f"{_SOURCE}.below.{band}") for band in ("latency", "bandwidth")}
#: the ratio under which a band is far below (critical), and where it is set
CRITICAL_BELOW = (_LIMITS.critical_below, f"{_SOURCE}.critical_below")
ENV_BASELINE = "STETH_BASELINE"
#: NCCL variables that say where output goes, not how NCCL moves data
_QUIET_ENV = ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE")
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
    """knowledge/expected_perf.yaml, validated (facts/knowledge.py)."""
    return knowledge.load("expected_perf.yaml").platforms


def band_of(size: int) -> str | None:
    if size <= LATENCY_MAX:
        return "latency"
    if size >= BANDWIDTH_MIN:
        return "bandwidth"
    return None


def size_text(n: int) -> str:
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


def _transport_family(transport: str) -> str:
    """"NET/IB/0/GDRDMA" -> "NET/IB", "P2P/CUMEM" -> "P2P": the part a run's topology names."""
    parts = transport.split("/")
    return parts[0] + ("/" + parts[1] if transport.startswith("NET/") else "")


class RowsBySize:
    """size -> the row of that size of a run's table, as its nccl_test_row (built when asked: a
    comparison cites one row a band)."""

    __slots__ = ("table", "at")

    def __init__(self, table: Fact, at: dict[int, int]):
        self.table, self.at = table, at

    def __getitem__(self, size: int) -> Fact:
        return self.table.row(self.at[size])

    def __contains__(self, size: int) -> bool:
        return size in self.at

    def source(self, size: int) -> str:
        """The row of that size as a derived fact's ``sources`` names it (its table's part)."""
        return self.table.source(self.at[size])


def runs_of(facts: list[Fact]) -> list[tuple[Fact, store.Table, dict, RowsBySize]]:
    """(run fact, its table, its context, size -> row) for every run with a table (its
    nccl_test_table: the rows as columns, one fact a run)."""
    by_run: dict[str, Fact] = {}
    for f in of_kind(facts, "nccl_test_table"):
        by_run.setdefault(f.run_id, f)
    ranks: dict[str, list[Fact]] = defaultdict(list)
    for f in of_kind(facts, "nccl_test_rank"):
        ranks[f.run_id].append(f)
    gpus = of_kind(facts, "gpu_info")
    envs = {f.name: f.value for f in of_kind(facts, "nccl_env") if not f.name.startswith(_QUIET_ENV)}
    topo = {f.connection for f in of_kind(facts, "gpu_topo_link") if f.b.startswith("GPU")}
    transports = {_transport_family(t) for t in {f.transport for f in of_kind(facts, "nccl_transport")}}
    versions = [f.version for f in of_kind(facts, "nccl_version")]
    # what every run shares (the bundle's GPUs, topology and NCCL environment): once, not per run
    driver = next((g.driver_version for g in gpus if g.driver_version), None)
    cuda = next((g.cuda_version for g in gpus if g.cuda_version), None)
    topology = ", ".join(sorted(topo)) or (", ".join(sorted(transports)) or None)
    # without an NCCL INFO log the environment is unknown, not empty
    env = dict(sorted(envs.items())) if (envs or versions) else None
    out = []
    for run in of_kind(facts, "nccl_test_run"):
        rows = by_run.get(run.id)
        if rows is None or not run.collective or not run.nranks:
            continue
        try:
            factor = busbw_factor(run.collective, run.nranks)
        except ValueError:
            continue
        table = store.Table(run.collective, run.nranks)
        at: dict[int, int] = {}
        sizes, oops, ips = rows.size_bytes, rows.oop_time_us, rows.ip_time_us
        for i in sorted(range(len(sizes)), key=sizes.__getitem__):
            size, oop, ip = sizes[i], oops[i], ips[i]
            # the best of the out-of-place and in-place times that were measured (> 0)
            if oop and oop > 0:
                t = ip if ip and 0 < ip < oop else oop
            elif ip and ip > 0:
                t = ip
            else:
                continue
            if size in at:
                continue
            table.rows.append(store.Row(size, t, round(size / t / 1e3 * factor, 3)))
            at[size] = i
        row_of = RowsBySize(rows, at)
        hosts: dict[str, int] = defaultdict(int)
        for rk in ranks.get(run.id, []):
            hosts[rk.host] += 1
        ctx = {
            "gpu_model": ", ".join(sorted({rk.gpu_name for rk in ranks.get(run.id, [])})) or None,
            "gpus_per_node": max(hosts.values(), default=None),
            "nodes": len(hosts) or None,
            "nranks": run.nranks,
            "topology": topology,
            "driver": driver,
            "cuda": cuda,
            "nccl": run.nccl_version or (versions[0] if versions else None),
            "nccl_tests": run.nccl_tests_version,
            "env": dict(env) if env is not None else None,
        }
        out.append((run, table, ctx, row_of))
    return out


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


def compare_tables(new: store.Table, ref: dict[int, float]) -> dict[str, tuple[float, int, int]]:
    """band -> (median ratio, sizes compared, largest common size); ``ref`` is size -> busbw."""
    ratios: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for r in new.rows:
        band = band_of(r.size_bytes)
        if band and r.size_bytes in ref and ref[r.size_bytes] > 0:
            ratios[band].append((r.size_bytes, r.busbw / ref[r.size_bytes]))
    return {b: (statistics.median(x for _, x in v), len(v), max(s for s, _ in v)) for b, v in ratios.items()}


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
    for run, table, ctx, row_of in runs_of(facts):
        found = reference_for(run, ctx, baseline, pair_links.get(run.node), [r.size_bytes for r in table.rows])
        if found is None:
            continue
        ref, label, kind, diff, limits = found
        env = "unknown (no NCCL INFO log)" if ctx["env"] is None else (", ".join(f"{k}={v}" for k, v in ctx["env"].items()) or "none")
        for band, (ratio, n, size) in sorted(compare_tables(table, ref).items()):
            measured = next(r.busbw for r in table.rows if r.size_bytes == size)
            row = row_of[size]
            limit, limit_source = limits[band]
            out.append(BusbwComparison(
                id=f"derived:summary:busbw_comparison:{run.id}:{band}", node=run.node, evidence=row.evidence, run_id=run.id,
                sources=f"{row_of.source(size)},{run.id}", collective=run.collective, band=band, ratio=round(ratio, 4),
                factor_below=round(1 / ratio, 1) if ratio > 0 else float("inf"), measured_busbw=round(measured, 2),
                reference_busbw=round(ref[size], 2), size_bytes=size, size_text=size_text(size), sizes=n,
                reference=label, reference_kind=kind, context_diff=diff, env_overrides=env, below_limit=limit,
                below_limit_source=limit_source, critical_limit=CRITICAL_BELOW[0], critical_limit_source=CRITICAL_BELOW[1]))
    return out
