"""The schemas of knowledge/expected_perf.yaml, nvlink_expected.yaml, pcie_host_copy.yaml, bench_tolerances.yaml,
straggler.yaml, torch_watchdog.yaml, input_pipeline.yaml and gpu_power.yaml: expected performance and the
limits a measured figure is judged by.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from stethoscope.facts.knowledge.base import ComponentId, Record as _M


# --- expected_perf.yaml ----------------------------------------------------------------------

class PerfCurve(_M):
    points: dict[int, float] = Field(min_length=1)  # message size (bytes) -> busbw (GB/s)


class PerfPlatform(_M):
    id: str
    title: str
    gpu_names: list[str] = Field(min_length=1)
    nranks: int = Field(gt=0)
    nodes: int = Field(gt=0)
    min_ratio: float = Field(gt=0, le=1)
    collectives: dict[str, PerfCurve] = Field(min_length=1)
    source: str


class NvlinkPairProduct(_M):
    gpu_names: list[str] = Field(min_length=1)  # as CUDA names the device, without a leading "NVIDIA "
    link_gbps: float = Field(gt=0)  # line rate of one NVLink, GB/s in each direction
    source: str


class NvlinkPairs(_M):
    collectives: list[str] = Field(min_length=1)
    min_bytes: int = Field(gt=0)
    efficiency: float = Field(gt=0, le=1)
    efficiency_source: str
    min_ratio: float = Field(gt=0, le=1)
    products: list[NvlinkPairProduct] = Field(min_length=1)


class ExpectedPerf(_M):
    platforms: list[PerfPlatform]
    nvlink_pairs: NvlinkPairs | None = None


class PcieHostCopyProduct(_M):
    patterns: list[str] = Field(min_length=1)
    generation: Literal[3, 4, 5, 6] | None


class PcieHostCopy(_M):
    """knowledge/pcie_host_copy.yaml: what a GPU's pinned host copy reaches over its PCIe link."""

    source: str = Field(min_length=20)
    below_ratio: float = Field(gt=0, le=1)
    lanes: int = Field(gt=0)
    generations: dict[int, float] = Field(min_length=1)
    products: list[PcieHostCopyProduct] = Field(min_length=1)


# --- nvlink_expected.yaml, torch_warnings.yaml -----------------------------------------------

class NvlinkProduct(_M):
    match: str
    form: Literal["sxm", "bridge"]
    wired_links: list[int] | None = None
    source: str


class NvlinkExpected(_M):
    products: list[NvlinkProduct] = Field(min_length=1)


# --- bench_tolerances.yaml, compat.yaml (issue 15) ------------------------------------------

class BenchTolerance(_M):
    benchmark: str = Field(pattern=r"^[a-z0-9_]+$")
    metric: str = Field(min_length=1)  # a metric name, or "*"
    tolerance: float = Field(gt=0, lt=1)


class BenchValidity(_M):
    busy_utilization_pct: int = Field(ge=0, le=100)
    max_compute_processes: int = Field(ge=0)


class NcclTestsBands(_M):
    bandwidth: float = Field(gt=0, le=1)
    latency: float = Field(gt=0, le=1)


class NcclTestsSiblings(_M):
    source: str = Field(min_length=20)
    min_bytes: int = Field(gt=0)
    factor_match: float = Field(gt=0, lt=0.5)
    below: float = Field(gt=0, le=1)


class NcclTestsLimits(_M):
    source: str = Field(min_length=20)
    latency_max_bytes: int = Field(gt=0)
    bandwidth_min_bytes: int = Field(gt=0)
    below: NcclTestsBands
    critical_below: float = Field(gt=0, le=1)
    siblings: NcclTestsSiblings

    @model_validator(mode="after")
    def _ordered(self) -> "NcclTestsLimits":
        if self.latency_max_bytes >= self.bandwidth_min_bytes:
            raise ValueError("the latency band must end below the bandwidth band")
        if self.critical_below > min(self.below.bandwidth, self.below.latency, self.siblings.below):
            raise ValueError("critical_below must not exceed a band's or the siblings' `below` limit")
        if self.siblings.min_bytes <= self.latency_max_bytes:
            raise ValueError("siblings.min_bytes must lie above the latency band")
        return self


class PeerBenchmark(_M):
    benchmark: str = Field(min_length=1)
    metric: str = Field(min_length=1)


class PeerLimits(_M):
    source: str = Field(min_length=20)
    benchmarks: list[PeerBenchmark] = Field(min_length=1)
    below_ratio: float = Field(gt=0, lt=1)
    min_peers: int = Field(ge=2)


class BenchTolerances(_M):
    source: str = Field(min_length=20)
    critical_below: float = Field(gt=0, lt=1)
    validity: BenchValidity
    components: dict[str, ComponentId] = Field(min_length=1)
    tolerances: list[BenchTolerance] = Field(min_length=1)
    nccl_tests: NcclTestsLimits
    peers: PeerLimits

    @model_validator(mode="after")
    def _known(self) -> "BenchTolerances":
        unknown = sorted({t.benchmark for t in self.tolerances} - set(self.components))
        if unknown:
            raise ValueError(f"tolerances for benchmarks without a component: {unknown}")
        if any(1 - t.tolerance < self.critical_below for t in self.tolerances):
            raise ValueError("critical_below must not exceed a figure's `below` limit (1 - tolerance)")
        return self


class StragglerLimits(_M):
    """knowledge/straggler.yaml: how far below its reference a rank's performance score must be
    for a straggler report to make it a straggler."""
    source: str = Field(min_length=20)
    below_score: float = Field(gt=0, lt=1)
    min_ranks: int = Field(ge=2)


class TorchWatchdogLimits(_M):
    """knowledge/torch_watchdog.yaml: how late ProcessGroupNCCL's watchdog may report a timeout
    (ran-for minus the work's timeout) before the watchdog itself is judged blocked, and below which
    work timeout the timeout itself is the likely cause of a collective timing out."""
    source: str = Field(min_length=20)
    late_at_least_ms: int = Field(gt=0)
    short_source: str = Field(min_length=20)
    short_below_ms: int = Field(gt=0)


class InputPipelineLimits(_M):
    """knowledge/input_pipeline.yaml: from what share of the iteration spent waiting for data the
    input pipeline starves the GPU, and over how many log lines."""
    source: str = Field(min_length=20)
    at_least_share: float = Field(gt=0, lt=1)
    min_lines: int = Field(ge=2)


class GpuPowerLimits(_M):
    """knowledge/gpu_power.yaml: from what ratio of reported power draw to the enforced power limit
    the reading is no draw a board makes (a sensor or driver misreport)."""
    source: str = Field(min_length=20)
    implausible_draw_to_limit: float = Field(gt=1)
