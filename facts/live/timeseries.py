"""Facts only a time series gives: periodic idle GPUs, nodes below their peers, gauge
trends, GPU error counters growing within the window (InfiniBand counter growth is
left to :mod:`stethoscope.engine.fabric`, as for perfquery readings) (the seed's decision tree on live data).

Thresholds here decide what counts as an *observation* (a dip is a run of zero samples);
whether an observation is a fault is for the rules to say.
"""
from __future__ import annotations

import statistics
from collections import defaultdict

from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.live.prom import Series
from stethoscope.facts.live.series_facts import CounterGrowth, GpuMetricTrend, GpuUtilStall, NodeBelowPeers

#: counters whose growth is reported: our signal key -> counter name in CounterGrowth
GPU_COUNTERS = ("ecc_sbe_vol", "ecc_dbe_vol", "pcie_replay", "nvlink_crc_flit", "nvlink_crc_data",
                "nvlink_replay", "nvlink_recovery")
TRENDS = {"gpu_temp": "gpu_temp_c", "memory_temp": "memory_temp_c", "power": "power_w"}
MIN_SAMPLES = 6  # fewer samples say nothing about a pattern or a trend


def increase(samples: list[tuple[float, float]]) -> float:
    """Growth of a counter, counting a drop as a reset (as PromQL's increase() does)."""
    total = 0.0
    for (_, a), (_, b) in zip(samples, samples[1:]):
        total += b - a if b >= a else b
    return total


def slope_per_h(samples: list[tuple[float, float]]) -> float:
    ts = [t for t, _ in samples]
    vs = [v for _, v in samples]
    mt, mv = statistics.fmean(ts), statistics.fmean(vs)
    den = sum((t - mt) ** 2 for t in ts)
    return 0.0 if den == 0 else sum((t - mt) * (v - mv) for t, v in zip(ts, vs)) / den * 3600.0


def zero_runs(values: list[float]) -> int:
    runs, prev = 0, False
    for v in values:
        z = v <= 0
        runs += z and not prev
        prev = z
    return runs


def util_facts(series: list[Series], out: LiveFacts, window_s: int) -> None:
    """Input stalls per GPU, then nodes whose mean utilisation is below their peers."""
    node_vals: dict[str, list[float]] = defaultdict(list)
    node_ev: dict[str, Series] = {}
    for s in series:
        vals = [v for _, v in s.samples]
        node_vals[s.node].extend(vals)
        node_ev.setdefault(s.node, s)
        if s.gpu is None or len(vals) < MIN_SAMPLES:
            continue
        busy = [v for v in vals if v > 0]
        dips = zero_runs(vals)
        # dips that begin after a busy stretch: a job that merely ended or began is one run
        if dips >= 3 and busy:
            last_zero = max((ts, v) for ts, v in s.samples if v <= 0)
            out.add(GpuUtilStall, s.node, s.evidence(*last_zero), s.gpu, pci_bus_id=s.gpu, dips=dips,
                    zero_fraction=round(1 - len(busy) / len(vals), 3),
                    busy_mean_pct=round(statistics.fmean(busy), 1), window_s=window_s)
    means = {n: statistics.fmean(v) for n, v in node_vals.items() if len(v) >= MIN_SAMPLES}
    if len(means) < 3:  # a median of two says nothing about who is slow
        return
    median = statistics.median(means.values())
    if median <= 0:
        return
    for node, mean in means.items():
        s = node_ev[node]
        out.add(NodeBelowPeers, node, s.evidence(), s.metric, metric=s.metric, node_mean=round(mean, 2),
                fleet_median=round(median, 2), ratio=round(mean / median, 3), peers=len(means), window_s=window_s)


def trend_facts(key: str, series: list[Series], out: LiveFacts, window_s: int) -> None:
    for s in series:
        if s.gpu is None or len(s.samples) < MIN_SAMPLES:
            continue
        out.add(GpuMetricTrend, s.node, s.evidence(), f"{s.gpu}:{key}", pci_bus_id=s.gpu, metric=TRENDS[key],
                slope_per_h=round(slope_per_h(s.samples), 2), first=s.samples[0][1], last=s.samples[-1][1],
                window_s=window_s)


def growth_facts(key: str, series: list[Series], out: LiveFacts, window_s: int) -> None:
    for s in series:
        grew = increase(s.samples)
        if grew <= 0:
            continue
        # the evidence is the first sample above the window's first value: where growth shows
        first = s.samples[0][1]
        ts, v = next(((t, v) for t, v in s.samples if v != first), s.last)
        if s.gpu is None:
            out.skipped += 1
            continue
        out.add(CounterGrowth, s.node, s.evidence(ts, v), f"{s.gpu}:{key}", counter=key,
                pci_bus_id=s.gpu, increase=grew, window_s=window_s)
