"""Facts only a time series gives: periodic idle GPUs, nodes below their peers, gauge
trends toward the GPU's own limits, NVLink links that went down, GPU error counters growing within the window (InfiniBand counter growth is
left to :mod:`stethoscope.engine.combine.fabric`, as for perfquery readings) (the seed's decision tree on live data).

Thresholds here decide what counts as an *observation* (a dip is a run of zero samples);
whether an observation is a fault is for the rules to say.
"""
from __future__ import annotations

import statistics
import time
from collections import defaultdict

from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.live.series import Series
from stethoscope.facts.stats import zero_runs
from stethoscope.facts.kinds.live import CounterGrowth, GpuMetricTrend, GpuUtilStall, LinkStateChange, NodeBelowPeers

#: counters whose growth is reported: our signal key -> counter name in CounterGrowth
GPU_COUNTERS = ("ecc_sbe_vol", "ecc_dbe_vol", "pcie_replay", "nvlink_crc_flit", "nvlink_crc_data",
                "nvlink_replay", "nvlink_recovery")
TRENDS = {"gpu_temp": "gpu_temp_c", "memory_temp": "memory_temp_c", "power": "power_w", "sm_clock": "sm_clock_mhz"}
#: trend key -> the signal holding that GPU's limit for it
LIMITS = {"gpu_temp": "slowdown_temp", "memory_temp": "mem_max_op_temp", "power": "power_limit"}
MIN_SAMPLES = 6  # fewer samples say nothing about a pattern or a trend


def util_facts(series: list[Series], out: LiveFacts, window_s: int) -> None:
    """Input stalls per GPU, then nodes whose mean utilisation is below their peers (every
    series of the fleet: a saved scrape, tests)."""
    stall_facts(series, out, window_s)
    node_vals: dict[str, list[float]] = defaultdict(list)
    node_ev: dict[str, Series] = {}
    for s in series:
        node_vals[s.node].extend(v for _, v in s.samples)
        node_ev.setdefault(s.node, s)
    means = {n: (statistics.fmean(v), node_ev[n]) for n, v in node_vals.items() if len(v) >= MIN_SAMPLES}
    below_peers_facts(means, out, window_s)


def stall_facts(series: list[Series], out: LiveFacts, window_s: int) -> None:
    """GPUs busy most of the window whose utilisation fell to zero again and again."""
    for s in series:
        vals = [v for _, v in s.samples]
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


def below_peers_facts(means: dict[str, tuple[float, Series]], out: LiveFacts, window_s: int,
                      keep=lambda ratio: True) -> None:
    """``means``: node -> (its mean over the window, the series that shows it). The median is
    over every node given; ``keep`` picks the nodes a fact is made for (the server-side
    screen's ratio bound, engine/live/observe.py), all of them by default."""
    if len(means) < 3:  # a median of two says nothing about who is slow
        return
    median = statistics.median(m for m, _ in means.values())
    if median <= 0:
        return
    for node, (mean, s) in sorted(means.items()):
        if not keep(mean / median):
            continue
        out.add(NodeBelowPeers, node, s.evidence(), s.metric, metric=s.metric, node_mean=round(mean, 2),
                fleet_median=round(median, 2), ratio=round(mean / median, 3), peers=len(means), window_s=window_s)


def iso_time(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def growth_of(s: Series) -> float:
    """A summarised counter's growth in the window: max - min when it never reset (exact for
    a counter), else PromQL's increase (extrapolated to the window's edges)."""
    st = s.stats
    if st.get("resets", 0) == 0 and "max" in st and "min" in st:
        return st["max"] - st["min"]
    return round(st.get("increase", 0.0), 1)


def trend_facts(fam: dict[str, list[Series]], out: LiveFacts, window_s: int) -> None:
    """One ``gpu_metric_trend`` per GPU and gauge, with the GPU's limit when it is published."""
    limits = {key: {(s.node, s.gpu): s for s in fam.get(lkey, []) if s.gpu} for key, lkey in LIMITS.items()}
    for key, metric in TRENDS.items():
        for s in fam.get(key, []):
            st = s.stats
            if s.gpu is None or st.get("count", 0) < MIN_SAMPLES or "slope" not in st:
                continue
            slope = st["slope"] * 3600.0
            fields: dict = {}
            lim = limits.get(key, {}).get((s.node, s.gpu))
            if lim is not None and lim.stats["last"] > 0:
                limit = lim.stats["last"]
                headroom = limit - st["last"]
                hours = headroom / slope if slope > 0 and headroom > 0 else None
                fields = dict(limit=limit, limit_metric=lim.metric, headroom=round(headroom, 2),
                              p25_of_limit=round(st["p25"] / limit, 3) if "p25" in st else None,
                              hours_to_limit=None if hours is None else round(hours, 2),
                              windows_to_limit=None if hours is None else round(hours * 3600 / window_s, 2))
            top = st["max"]
            out.add(GpuMetricTrend, s.node, s.stat_evidence("last", "min", "max", "slope", "p25"), f"{s.gpu}:{key}",
                    pci_bus_id=s.gpu, metric=metric, slope_per_h=round(slope, 2), min=st["min"], max=top,
                    last=st["last"], p25=st.get("p25"), window_s=window_s,
                    drop_from_max_pct=round((top - st["last"]) / top * 100, 1) if top > 0 else None, **fields)


def growth_facts(key: str, series: list[Series], out: LiveFacts, window_s: int) -> None:
    for s in series:
        grew = growth_of(s)
        if grew <= 0:
            continue
        if s.gpu is None:
            out.skipped += 1
            continue
        out.add(CounterGrowth, s.node, s.stat_evidence("min", "max", "last", "resets", "increase"), f"{s.gpu}:{key}",
                counter=key, pci_bus_id=s.gpu, increase=grew, window_s=window_s)


def nvlink_state_facts(series: list[Series], out: LiveFacts, window_s: int) -> None:
    """NVLink link entities (label ``nvlink``) that were inactive at some point in the window."""
    for s in series:
        st = s.stats
        if s.gpu is None or "down_from" not in st:
            continue
        link = s.labels.get("nvlink", "")
        up = st["last"] == 1
        out.add(LinkStateChange, s.node, s.stat_evidence("last", "min", "changes", "down_from", "down_until"),
                f"{s.gpu}:nvlink{link}", link_type="nvlink", pci_bus_id=s.gpu,
                nvlink=int(link) if link.isdecimal() else None, changes=int(st.get("changes", 0)),
                down_from=iso_time(st["down_from"]), down_until=iso_time(st["down_until"]),
                state_now={0: "Inactive", 1: "Active", 2: "Sleep"}.get(int(st["last"]), str(int(st["last"]))),
                up_now=up, window_s=window_s)
