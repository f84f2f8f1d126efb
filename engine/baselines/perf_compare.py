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
"""
from __future__ import annotations

import logging
import os
import statistics
from collections import Counter, defaultdict
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import groupby
from functools import partial
from operator import attrgetter, le, lt, truediv
from typing import Iterable, Iterator, Sequence

from stethoscope.engine.baselines import store
from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.kinds.nccl import BusbwComparison
from stethoscope.facts.parsers.base import as_given
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor
from stethoscope.facts.readings import records

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
_positive = partial(lt, 0)
_host, _gpu_name, _run_id = attrgetter("host"), attrgetter("gpu_name"), attrgetter("run_id")
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

    def evidence(self, size: int):
        """The evidence of the row of that size, as its nccl_test_row has it (no row fact built: a
        comparison cites only the row's line; 2,560 rows built and validated at 512 bench nodes)."""
        return self.table.part_evidence(self.at[size])

    def __contains__(self, size: int) -> bool:
        return size in self.at

    def source(self, size: int) -> str:
        """The row of that size as a derived fact's ``sources`` names it (its table's part)."""
        return self.table.source(self.at[size])


class Columns:
    """A run's table as :func:`compare_bundle` reads it: its sizes with a measured time (each once, ascending),
    the table's row of each, and the busbw of a size made when asked (store.Row's value, no Row made: ~145k
    rows at 1,024 bench nodes, of which a comparison reads the few its reference has in a band)."""

    __slots__ = ("collective", "nranks", "sizes", "rows", "oops", "ips", "factor")

    def __init__(self, collective: str, nranks: int, sizes: Sequence[int], rows: Sequence[int],
                 oops: Sequence[float], ips: Sequence[float | None], factor: float):
        self.collective, self.nranks, self.sizes, self.rows = collective, nranks, sizes, rows
        self.oops, self.ips, self.factor = oops, ips, factor

    def busbw(self, j: int) -> float:
        """The busbw of ``sizes[j]``, as runs_of gives a Row's."""
        i = self.rows[j]
        return round(self.sizes[j] / _best_time(self.oops[i], self.ips[i]) / 1e3 * self.factor, 3)

    @property
    def busbws(self) -> list[float]:
        return list(map(self.busbw, range(len(self.sizes))))


def _best_time(oop: float | None, ip: float | None) -> float | None:
    """The best of the out-of-place and in-place times that were measured (> 0); None: neither was."""
    if oop and oop > 0:
        return ip if ip and 0 < ip < oop else oop
    if ip and ip > 0:
        return ip
    return None


def _in_order(sizes: Sequence[int], oops: Sequence[float],
              placed: dict[tuple, tuple | None] | None = None) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(the sizes shown, each once and ascending; the row of each) where a table's sizes never go down and
    every row has its out-of-place time measured (> 0): each size's first row, as runs_of's loop takes it
    (nccl-tests' all_gather and reduce_scatter print size 0 on several rows: counts under one element a
    rank), found by C-level passes, not a loop a row. None: the loop decides. ``placed``: what the sizes
    alone decide, by sizes (a bench bundle's 5,120 tables have ~5 lists of sizes), kept by the caller."""
    if None in oops or not all(map(_positive, oops)):  # (NaN is not > 0)
        return None
    key = sizes if type(sizes) is tuple else tuple(sizes)
    if placed is not None and key in placed:
        return placed[key]
    found = None
    if all(map(le, sizes, sizes[1:])):
        first = dict(zip(sizes[::-1], range(len(sizes) - 1, -1, -1)))  # a size's first row written last
        # tuples: compare_bundle keys its runs by their sizes (tuple() of a tuple is the tuple itself)
        found = tuple(reversed(first)), tuple(reversed(first.values()))
    if placed is not None:
        placed[key] = found
    return found


def runs_of(facts: list[Fact], columns: bool = False) -> list[tuple[Fact, store.Table | Columns, dict, RowsBySize]]:
    """(run fact, its table, its context, size -> row) for every run with a table (its
    nccl_test_table: the rows as columns, one fact a run). ``columns``: the table as :class:`Columns`."""
    by_run: dict[str, Fact] = {}
    for f in of_kind(facts, "nccl_test_table"):
        by_run.setdefault(f.run_id, f)
    ranks: dict[str, list] = defaultdict(list)
    # a run's rank lines lie together (its file's): grouped a stretch at a time, their run read in C (the rank lines:
    # their files' summaries' rows, fact_routing.yaml summary_rows)
    for run_id, stretch in groupby(records(facts, "nccl_test_rank"), _run_id):
        ranks[run_id].extend(stretch)
    gpus = of_kind(facts, "gpu_info")
    env_facts = [f for f in of_kind(facts, "nccl_env") if not f.name.startswith(_QUIET_ENV)]
    envs = {f.name: f.value for f in env_facts}
    topo = {f.connection for f in of_kind(facts, "gpu_topo_link") if f.b.startswith("GPU")}
    # (the healthy channels a process's file showed are one fact_summary listing their transports: fact_routing.yaml)
    seen = {f.transport for f in of_kind(facts, "nccl_transport")}
    seen.update(t for f in of_kind(facts, "fact_summary") if f.of_kind == "nccl_transport" for t in f.values)
    transports = {_transport_family(t) for t in seen}
    versions = [f.version for f in of_kind(facts, "nccl_version")]
    # what every run shares (the bundle's GPUs and topology): once, not per run; its NCCL settings below
    driver = next((g.driver_version for g in gpus if g.driver_version), None)
    cuda = next((g.cuda_version for g in gpus if g.cuda_version), None)
    topology = ", ".join(sorted(topo)) or (", ".join(sorted(transports)) or None)
    # without an NCCL INFO log the environment is unknown, not empty
    env = dict(sorted(envs.items())) if (envs or versions) else None
    # a run's own settings where its own lines show them (its ranks' NCCL lines, its file, its
    # command line: _run_settings), else the bundle's: two runs of one bundle made with different
    # NCCL settings each show and compare their own, not the union of both
    run_facts = of_kind(facts, "nccl_test_run")
    own = {} if _one_setting(facts, env_facts) else \
        _run_settings(facts, [(r, by_run[r.id]) for r in run_facts if r.id in by_run], ranks)
    out = []
    factors: dict[tuple[str, int], float | None] = {}  # (collective, nranks): a bench bundle's 5,120 runs have ~5
    row_ = store.Row
    placed_by_sizes: dict[tuple, tuple | None] = {}  # _in_order's
    for run in run_facts:
        rows = by_run.get(run.id)
        if rows is None or not run.collective or not run.nranks:
            continue
        key = (run.collective, run.nranks)
        if key not in factors:
            try:
                factors[key] = busbw_factor(run.collective, run.nranks)
            except ValueError:
                factors[key] = None
        factor = factors[key]
        if factor is None:
            continue
        sizes, oops, ips = rows.size_bytes, rows.oop_time_us, rows.ip_time_us
        placed = _in_order(sizes, oops, placed_by_sizes) if columns else None
        if placed is not None:
            # the common table: its sizes in order, every row timed; a busbw made only where compare_bundle asks
            at = dict(zip(*placed))
            table = Columns(run.collective, run.nranks, placed[0], placed[1], oops, ips, factor)
        else:
            at = {}
            shown: list[int] = []
            times: list[float] = []
            busbws: list[float] = []
            for i in sorted(range(len(sizes)), key=sizes.__getitem__):
                size = sizes[i]
                t = _best_time(oops[i], ips[i])
                if t is None:
                    continue
                if size in at:
                    continue
                shown.append(size)
                times.append(t)
                busbws.append(round(size / t / 1e3 * factor, 3))
                at[size] = i
            table = Columns(run.collective, run.nranks, shown, list(at.values()), oops, ips, factor) if columns else \
                store.Table(run.collective, run.nranks, list(map(row_, shown, times, busbws)))
        row_of = RowsBySize(rows, at)
        # its ranks' hosts and GPUs read in C (a bench bundle: 33,792 rank lines of 5,120 runs)
        mine = ranks.get(run.id, ())
        hosts = Counter(map(_host, mine))
        ctx = {
            "gpu_model": ", ".join(sorted(set(map(_gpu_name, mine)))) or None,
            "gpus_per_node": max(hosts.values(), default=None),
            "nodes": len(hosts) or None,
            "nranks": run.nranks,
            "topology": topology,
            "driver": driver,
            "cuda": cuda,
            "nccl": run.nccl_version or (versions[0] if versions else None),
            "nccl_tests": run.nccl_tests_version,
            "env": _own_env(own.get(run.id), env),
        }
        out.append((run, table, ctx, row_of))
    return out


def _process(f: Fact) -> tuple:
    """The process an NCCL line (nccl_env, nccl_version) came from: (node, pid), or its file where
    the line shows no pid."""
    return (f.node, f.pid if f.pid is not None else f.evidence.path)


def _one_setting(facts: list[Fact], env_facts: list[Fact]) -> bool:
    """Whether every process that printed its NCCL version printed the same NCCL settings (and no
    command line or job script sets any): then each run's own settings are the bundle's, and
    _run_settings need not be asked run by run (1,024 bench nodes: 0.13 CPU s)."""
    if of_kind(facts, "launcher_nccl_env"):
        return False
    procs = set(map(_process, of_kind(facts, "nccl_version")))
    where: dict[str, set] = defaultdict(set)
    value: dict[str, str] = {}
    for f in env_facts:
        if value.setdefault(f.name, f.value) != f.value:
            return False
        where[f.name].add(_process(f))
    return all(w == procs for w in where.values())


def _own_env(own: tuple | None, bundle: dict | None) -> dict | None:
    """A run's NCCL settings: its own (``_run_settings``: version, sorted pairs or None) where its
    own lines show them, else the bundle's (None: no NCCL INFO log, not known)."""
    if own is not None and own[1] is not None:
        return dict(own[1])
    return dict(bundle) if bundle is not None else None


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


def _best_busbw(table: Fact, min_bytes: int) -> dict[int, tuple[float, float, int]]:
    """size -> (printed busbw, busbw/algbw, row index) at sizes from ``min_bytes``: the better of
    out-of-place and in-place (the first row of a size)."""
    out: dict[int, tuple[float, float, int]] = {}
    for i, size in enumerate(table.size_bytes):
        if size < min_bytes or size in out:
            continue
        bus, alg = table.oop_busbw[i], table.oop_algbw[i]
        if table.ip_busbw[i] is not None and table.ip_algbw[i] is not None and table.ip_busbw[i] > bus:
            bus, alg = table.ip_busbw[i], table.ip_algbw[i]
        if bus > 0 and alg > 0:
            out[size] = (bus, bus / alg, i)
    return out


#: the facts that say which NCCL a run used and with which settings: its NCCL INFO lines
#: (the run's own, by process id, or in its own file) and its command line's or job script's
_SETTING_KINDS = ("nccl_env", "nccl_version", "launcher_nccl_env")


def _run_settings(facts: list[Fact], runs: list[tuple[Fact, Fact]], ranks: dict[str, list]) -> dict[str, tuple]:
    """run id -> (NCCL version or None, its NCCL settings as sorted (name, value) pairs, or None
    where no NCCL INFO line, command line or job script of the run's own shows them). A run's own:
    an NCCL line of one of its ranks' processes (node and pid: the same file or the log NCCL_DEBUG_FILE
    wrote), or a line of the run's file after the run before it and up to its last row (the last run
    of a file also takes the lines after it)."""
    setting = of_kind(facts, *_SETTING_KINDS)
    by_pid: dict[tuple[str, int], list[Fact]] = defaultdict(list)
    by_path: dict[str, list[Fact]] = defaultdict(list)
    for f in setting:
        pid = getattr(f, "pid", None)
        if pid is not None:
            by_pid[(f.node, pid)].append(f)
        by_path[f.evidence.path].append(f)
    in_file: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for run, table in runs:
        if run.evidence.path in by_path:
            in_file[run.evidence.path].append((table.lines[-1] if len(table) else run.evidence.line, run.id))
    own: dict[str, dict[str, Fact]] = defaultdict(dict)
    for path, ends in in_file.items():
        ends.sort()
        for f in by_path[path]:
            line = f.evidence.line
            # the first run of the file that ends at or after the line, else the file's last run
            run_id = next((rid for end, rid in ends if end >= line), ends[-1][1])
            own[run_id][f.id] = f
    out: dict[str, tuple] = {}
    for run, _table in runs:
        mine = own.get(run.id, {})
        # the ranks' processes, each once (nccl-tests -g 8: eight ranks, one process)
        for pid in {rk.pid for rk in ranks.get(run.id, ()) if rk.pid is not None}:
            mine.update((f.id, f) for f in by_pid.get((run.node, pid), ()))
        version = next((f.version for f in mine.values() if f.kind == "nccl_version"), None) or run.nccl_version
        env: dict[str, str] = {}
        # NCCL's own line wins over what the launcher asked for
        for f in sorted(mine.values(), key=lambda f: f.kind != "launcher_nccl_env"):
            if f.kind != "nccl_version" and not f.name.startswith(_QUIET_ENV):
                env[f.name] = f.value
        out[run.id] = (version, tuple(sorted(env.items())) if mine else None)
    return out


def _median_without(values: list[float], at: int) -> float:
    """The median of the sorted ``values`` less the one at ``at``, without copying them."""
    n = len(values) - 1
    pick = lambda j: values[j if j < at else j + 1]  # noqa: E731 - the j-th of the others
    return pick(n // 2) if n % 2 else (pick(n // 2 - 1) + pick(n // 2)) / 2


def siblings(facts: list[Fact], judged: set[str]) -> list[Fact]:
    """Runs of the same test in one bundle that nothing else judged, each against the median of
    the others at the bandwidth-bound sizes they share (knowledge/bench_tolerances.yaml
    nccl_tests.siblings). The same test: the same collective, ranks, GPUs per process, GPU models
    and devices (hosts may differ: one node against its peers), element type, reduction, NCCL
    version and NCCL settings as far as each run's own lines show them (runs whose settings
    differ were made different on purpose and are not compared; runs whose settings are not
    shown are compared, and the comparison says so) and busbw/algbw factor within
    ``factor_match`` (what tells collectives and rank counts apart where a header is cut).
    One pass: runs keyed in a dict, then sorted by factor and by busbw within a key; no pair of
    runs is looked at. A bundle whose every run was judged (a bench bundle's runs all meet their
    expected figure first) costs one look at its run facts."""
    cands = [r for r in of_kind(facts, "nccl_test_run") if r.id not in judged and not r.failed and r.rows]
    if len(cands) < 2:
        return []
    lim = _LIMITS.siblings
    ids = {r.id for r in cands}
    tables = {f.run_id: f for f in of_kind(facts, "nccl_test_table") if f.run_id in ids}
    ranks: dict[str, list] = defaultdict(list)
    hosts: dict[str, set[str]] = defaultdict(set)
    for f in records(facts, "nccl_test_rank"):
        hosts[f.run_id].add(f.host)
        if f.run_id in ids:
            ranks[f.run_id].append(f)
    # a sweep of host pairs (one run between two hosts each, as many pairs as the pairwise
    # tomography needs: knowledge/localisation.yaml pairwise.min_pairs) is judged there, pair
    # against pair, with its re-tests: its runs are not siblings here
    pairs = {frozenset(h) for h in hosts.values() if len(h) == 2}
    if len(pairs) >= knowledge.load("localisation.yaml").pairwise.min_pairs:
        cands = [r for r in cands if len(hosts.get(r.id, ())) != 2]
    runs = [(r, tables[r.id]) for r in cands if r.id in tables]
    settings = _run_settings(facts, runs, ranks)
    groups: dict[tuple, list[tuple[float, Fact, Fact, dict]]] = defaultdict(list)
    for run, t in runs:
        best = _best_busbw(t, lim.min_bytes)
        if not best:
            continue
        factor = statistics.median(v[1] for v in best.values())
        if any(abs(v[1] / factor - 1) > lim.factor_match for v in best.values()):
            continue  # not one collective's factor at every size: a table read wrong or mixed
        rk = ranks.get(run.id, [])
        gpus = tuple(sorted((r.device, r.gpu_name) for r in rk))
        key = (run.collective, run.nranks or len(rk), run.n_gpus, gpus, frozenset(t.dtype), frozenset(t.redop),
               settings[run.id])
        groups[key].append((factor, run, t, best))
    out: list[Fact] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        # runs of one factor (within factor_match of the cluster's first): sorted, then cut where it jumps
        members.sort(key=lambda m: m[0])
        clusters, cur = [], [members[0]]
        for m in members[1:]:
            if m[0] / cur[0][0] - 1 > lim.factor_match:
                clusters.append(cur)
                cur = []
            cur.append(m)
        clusters.append(cur)
        for cluster in clusters:
            if len(cluster) >= 2:
                out += _against_siblings(cluster, settings)
    return out


def _against_siblings(cluster: list[tuple[float, Fact, Fact, dict]], settings: dict[str, tuple]) -> list[Fact]:
    lim = _LIMITS.siblings
    # size -> the busbw of every run that has it, sorted, and each run's place in that list
    at_size: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for k, (_f, _run, _t, best) in enumerate(cluster):
        for size, (bus, _x, _i) in best.items():
            at_size[size].append((bus, k))
    sorted_bus: dict[int, list[float]] = {}
    place: dict[tuple[int, int], int] = {}
    for size, vals in at_size.items():
        vals.sort()
        sorted_bus[size] = [v for v, _ in vals]
        for p, (_v, k) in enumerate(vals):
            place[(size, k)] = p
    out: list[Fact] = []
    for k, (_f, run, t, best) in enumerate(cluster):
        ratios, ref = [], {}
        for size, (bus, _x, _i) in best.items():
            if len(sorted_bus[size]) < 2:
                continue
            ref[size] = _median_without(sorted_bus[size], place[(size, k)])
            ratios.append(bus / ref[size])
        if not ratios:
            continue
        ratio = statistics.median(ratios)
        size = max(ref)
        bus, _x, i = best[size]
        others = [m[1] for j, m in enumerate(cluster) if j != k]
        names = ", ".join(f"{o.evidence.path}:{o.evidence.line}" for o in others[:3])
        if len(others) > 3:
            names += f" and {len(others) - 3} more"
        version, env = settings[run.id]
        if env is None:
            diff = ("not known: neither run's own NCCL INFO log or command line is in the bundle, and a difference "
                    "in their NCCL settings (NCCL_ALGO, NCCL_PROTO, NCCL_P2P_DISABLE, ...) would explain it")
            env_text = "not known for these runs"
        else:
            diff = "none seen: the NCCL version and settings each run's own lines show (NCCL INFO log, command line) are the same"
            env_text = ", ".join(f"{n}={v}" for n, v in env) or "none"
        out.append(as_given(
            BusbwComparison, f"derived:summary:busbw_comparison:{run.id}:bandwidth", run.node, t.part_evidence(i),
            run_id=run.id, sources=f"{t.source(i)},{run.id}", collective=run.collective or "unnamed collective",
            band="bandwidth", ratio=round(ratio, 4), factor_below=round(1 / ratio, 1) if ratio > 0 else float("inf"),
            measured_busbw=round(bus, 2), reference_busbw=round(ref[size], 2), size_bytes=size,
            size_text=size_text(size), sizes=len(ratios),
            reference=(f"the same test's other run(s) in this bundle ({names}): the median of their printed busbw"
                       + (f", NCCL {version}" if version else "")),
            reference_kind="sibling run", context_diff=diff, env_overrides=env_text, below_limit=lim.below,
            below_limit_source=f"{_SOURCE}.siblings.below", critical_limit=CRITICAL_BELOW[0],
            critical_limit_source=CRITICAL_BELOW[1]))
    return out
