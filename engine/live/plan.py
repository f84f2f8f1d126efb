"""``steth plan``: how many samples the GPU monitoring writes and how much disk Prometheus needs
for them, with the retention settings to use.

The figures (bytes per sample, default retention, retention-size margin, WAL segments, block
compaction, the exporters' own collection intervals) come from
``knowledge/prometheus_storage.yaml`` with their sources; this module only does the sums:
Prometheus's ``needed_disk_space = retention_time_seconds * ingested_samples_per_second *
bytes_per_sample``, at the low and high ends of the documented 1-2 bytes a sample.
"""
from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from stethoscope.facts import knowledge

DAY_S = 86_400
GB = 1e9  # storage figures are decimal gigabytes; the retention.size flag is in powers of 2


class Range(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low: float
    high: float


class Plan(BaseModel):
    """What ``steth plan --json`` prints."""

    model_config = ConfigDict(extra="forbid")
    gpus: int
    metrics_per_gpu: int
    interval_s: float
    days: float
    series: int
    samples_per_series_per_day: float
    samples_per_day: float
    samples_per_second: float
    bytes_per_sample: Range
    gb_per_day: Range
    gb_retained: Range = Field(description="the blocks for `days` of retention")
    gb_block_overhang: Range = Field(description="time retention drops whole blocks: up to one block span more is on disk")
    wal_min_bytes: int
    wal_raw_samples: float = Field(description="samples the WAL holds raw (its last hours), on top of the blocks")
    disk_gb: float = Field(description="disk to provision: the high estimate, overhang and WAL, inside the retention-size margin")
    retention_time_flag: str
    retention_size_flag: str
    advice: list[str]
    sources: list[str]
    measure: dict[str, str]
    disk_given_gb: float | None = None
    days_that_fit: Range | None = None


def _gb(n: float) -> str:
    return f"{n:,.2f}" if n < 10 else f"{n:,.1f}" if n < 1000 else f"{n:,.0f}"


def plan(gpus: int, metrics: int, interval_s: float, days: float, disk_gb: float | None = None) -> Plan:
    if gpus < 1 or metrics < 1 or interval_s <= 0 or days <= 0:
        raise ValueError("gpus, metrics, interval and days must be positive")
    k = knowledge.load("prometheus_storage.yaml")
    bps = k.bytes_per_sample
    series = gpus * metrics
    per_series_day = DAY_S / interval_s
    per_day = series * per_series_day
    per_s = series / interval_s
    day = Range(low=per_day * bps.low / GB, high=per_day * bps.high / GB)
    kept = Range(low=day.low * days, high=day.high * days)
    block_days = min(k.compaction_block_fraction * days, k.compaction_block_max_days)
    over = Range(low=0.0, high=day.high * block_days)
    wal = k.wal_min_segments * k.wal_segment_bytes
    margin = k.retention_size_fraction
    disk = (kept.high + over.high + wal / GB) / margin.low
    size_units = disk * GB * margin.low / k.retention_size_unit_bytes
    retention_size = f"--storage.tsdb.retention.size={math.floor(size_units):d}GB" if size_units >= 1 else \
        f"--storage.tsdb.retention.size={math.floor(size_units * 1024):d}MB"
    advice = [
        f"Keep {days:g} days: --storage.tsdb.retention.time={days:g}d"
        + (f" (the default is {k.default_retention_days:g}d: without the flag only {k.default_retention_days:g} days are kept)"
           if days > k.default_retention_days else "") + ".",
        f"Provision at least {_gb(disk)} GB of local disk (not NFS) and cap the blocks with {retention_size} "
        f"({margin.low:.0%} of it: Prometheus advises at most {margin.low:.0%}-{margin.high:.0%} of the disk, and its "
        "'GB' is 2^30 bytes), so the oldest blocks go before the disk fills; whichever of the two limits comes first applies.",
    ]
    for e in k.exporters:
        if interval_s < e.collect_interval_s:
            ratio = e.collect_interval_s / interval_s
            advice.append(
                f"{e.name} collects every {e.collect_interval_s:g} s by default: a {interval_s:g} s scrape stores each of its "
                f"values {ratio:g} times. Set {e.setting} to {interval_s * 1000:g}, or scrape it every {e.collect_interval_s:g} s "
                f"(1/{ratio:g} of the samples above for its series).")
    advice.append("Fewer series saves more than a longer interval (samples within a series compress); drop the fields "
                  "no dashboard or rule reads from the exporter's counter list.")
    advice.append("Check the estimate on the running server: samples/s = " + k.measure.samples_per_second
                  + "; bytes/sample = " + k.measure.bytes_per_sample + "; then plan again with those figures.")
    fit = None
    if disk_gb is not None:
        usable = disk_gb * margin.low - wal / GB
        fit = Range(low=max(usable, 0) / day.high, high=max(usable, 0) / day.low)
        advice.append(f"A {disk_gb:g} GB disk holds {fit.low:,.0f}-{fit.high:,.0f} days at this rate"
                      f" ({margin.low:.0%} of it for blocks, less the WAL)"
                      + (": too small for the retention asked" if fit.low < days else "") + ".")
    return Plan(
        gpus=gpus, metrics_per_gpu=metrics, interval_s=interval_s, days=days, series=series,
        samples_per_series_per_day=per_series_day, samples_per_day=per_day, samples_per_second=per_s,
        bytes_per_sample=Range(low=bps.low, high=bps.high), gb_per_day=day, gb_retained=kept, gb_block_overhang=over,
        wal_min_bytes=wal, wal_raw_samples=per_s * k.wal_raw_hours * 3600, disk_gb=round(disk, 3),
        retention_time_flag=f"--storage.tsdb.retention.time={days:g}d", retention_size_flag=retention_size,
        advice=advice, sources=sorted({k.bytes_per_sample_source, k.default_retention_source, k.retention_size_source,
                                       k.wal_source, k.compaction_source, *(e.source for e in k.exporters)}),
        measure={"samples_per_second": k.measure.samples_per_second, "bytes_per_sample": k.measure.bytes_per_sample,
                 "head_series": k.measure.head_series},
        disk_given_gb=disk_gb, days_that_fit=fit)


def _count(n: float) -> str:
    for unit, k in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= k:
            return f"{n / k:,.3g} {unit}"
    return f"{n:,.0f}"


def text(p: Plan) -> list[str]:
    """The plan in words, one line each."""
    bps = p.bytes_per_sample
    return [
        f"series:            {p.gpus:,} GPUs x {p.metrics_per_gpu:,} metrics = {p.series:,}",
        f"samples per day:   {p.series:,} x {p.samples_per_series_per_day:,.0f} (one every {p.interval_s:g} s) = "
        f"{p.samples_per_day:,.0f} ({_count(p.samples_per_day)}), {p.samples_per_second:,.0f} a second",
        f"storage per day:   {_gb(p.gb_per_day.low)}-{_gb(p.gb_per_day.high)} GB at {bps.low:g}-{bps.high:g} bytes a sample",
        f"{f'for {p.days:g} days:':19}{_gb(p.gb_retained.low)}-{_gb(p.gb_retained.high)} GB of blocks, up to "
        f"{_gb(p.gb_block_overhang.high)} GB more until the oldest block expires whole, and the WAL "
        f"(at least {p.wal_min_bytes / 2**20:,.0f} MiB; it holds the last {p.wal_raw_samples:,.0f} samples raw)",
        f"disk:              {_gb(p.disk_gb)} GB",
        "",
        "retention advice:",
        *(f"  - {a}" for a in p.advice),
        "",
        "sources:",
        *(f"  - {s}" for s in p.sources),
    ]
