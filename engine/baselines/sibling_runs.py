"""Runs of the same test in one bundle that no baseline, expected figure or NVLink pair judged,
each against the median of the others at the bandwidth-bound sizes they share
(knowledge/bench_tolerances.yaml nccl_tests.siblings).

Part of :mod:`stethoscope.engine.baselines.perf_compare`, which re-exports every public name (issue 12)."""
from __future__ import annotations

import statistics
from collections import defaultdict

from stethoscope.engine.baselines.busbw_bands import CRITICAL_BELOW, LIMITS as _LIMITS, SOURCE as _SOURCE, size_text
from stethoscope.engine.baselines.nccl_runs import run_settings as _run_settings
from stethoscope.facts import knowledge
from stethoscope.facts.kinds.nccl import BusbwComparison
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.base import as_given
from stethoscope.facts.readings import records


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
