"""The two bands nccl-tests' sizes fall in (``latency`` up to ``LATENCY_MAX``, ``bandwidth`` from
``BANDWIDTH_MIN``), the ratios under which a band is below its reference and far below it, each with
the key of knowledge/bench_tolerances.yaml it is set by, and how a size is written.

Part of :mod:`stethoscope.engine.baselines.perf_compare`, which re-exports every public name (issue 12)."""
from __future__ import annotations

from stethoscope.facts import knowledge

#: the bands and their limits: knowledge/bench_tolerances.yaml's nccl_tests section (sources there)
LIMITS = knowledge.load("bench_tolerances.yaml").nccl_tests
LATENCY_MAX = LIMITS.latency_max_bytes
BANDWIDTH_MIN = LIMITS.bandwidth_min_bytes
SOURCE = "knowledge/bench_tolerances.yaml nccl_tests"
#: band -> (the ratio under which a band is below its reference, where it is set); latency is noisier
BELOW = {band: (getattr(LIMITS.below, band), f"{SOURCE}.below.{band}") for band in ("latency", "bandwidth")}
#: the ratio under which a band is far below (critical), and where it is set
CRITICAL_BELOW = (LIMITS.critical_below, f"{SOURCE}.critical_below")


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
