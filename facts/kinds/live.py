"""Facts of live diagnosis from Prometheus series, and the monitoring stack's own state.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class GpuUtilStall(Fact):
    """A GPU busy most of the window whose utilisation fell to zero again and again
    (``DCGM_FI_DEV_GPU_UTIL``): the pattern of a training step waiting for its input."""

    kind: Literal["gpu_util_stall"] = "gpu_util_stall"
    pci_bus_id: str
    dips: int  # separate runs of zero samples
    zero_fraction: float  # share of samples at zero
    busy_mean_pct: float  # mean utilisation of the non-zero samples
    window_s: int


@fact_kind
class IbPortTraffic(Fact):
    """An InfiniBand port that received data within the window
    (``node_infiniband_port_data_received_bytes_total`` grew): it was in use, so it is expected
    up (engine/combine/fabric.py), as a port NCCL names or the inventory lists is."""

    kind: Literal["ib_port_traffic"] = "ib_port_traffic"
    hca: str
    port: int
    port_id: str
    rx_bytes: float  # growth of the received-bytes counter over the window
    window_s: int


@fact_kind
class NodeBelowPeers(Fact):
    """A node whose GPUs' mean activity is well below the fleet median of node means."""

    kind: Literal["node_below_peers"] = "node_below_peers"
    metric: str  # the exporter metric compared
    node_mean: float
    fleet_median: float
    ratio: float  # node_mean / fleet_median
    peers: int  # nodes compared
    window_s: int


@fact_kind
class GpuMetricTrend(Fact):
    """A GPU gauge over the window, summarised by the server: least-squares slope
    (``deriv``), range, lower quartile and the last value; with the GPU's own limit for it
    when the exporter publishes one (slowdown temperature, memory max operating temperature,
    enforced power limit), and where the slope leads: hours until the limit is reached."""

    kind: Literal["gpu_metric_trend"] = "gpu_metric_trend"
    pci_bus_id: str
    metric: Literal["gpu_temp_c", "memory_temp_c", "power_w", "sm_clock_mhz"]
    slope_per_h: float
    min: float
    max: float
    last: float
    window_s: int
    p25: float | None = None  # a quarter of the window's samples were at or below this
    limit: float | None = None
    limit_metric: str | None = None  # the exporter metric the limit came from
    headroom: float | None = None  # limit - last (negative: over the limit)
    p25_of_limit: float | None = None  # p25 / limit: 0.97 = pinned at the limit three quarters of the window
    hours_to_limit: float | None = None  # headroom / slope, when rising and below the limit
    windows_to_limit: float | None = None  # hours_to_limit in windows: <= 1 reaches it within one more window
    drop_from_max_pct: float | None = None  # (max - last) / max * 100: how far it fell from the window's top


@fact_kind
class LinkStateChange(Fact):
    """A link whose state series left its up state within the window (node_exporter
    ``node_infiniband_state_id`` < 4, DCGM ``DCGM_FI_DEV_NVLINK_GET_STATE`` == 0): how many
    times the state changed, when it was first and last seen down, and its state now."""

    kind: Literal["link_state_change"] = "link_state_change"
    link_type: Literal["ib_port", "nvlink"]
    changes: int  # state changes within the window (PromQL changes())
    down_from: str  # first time seen down (ISO 8601, at the query's step resolution)
    down_until: str  # last time seen down
    state_now: str  # Active, Down, Polling, ... (IB) / Active, Inactive (NVLink)
    up_now: bool
    window_s: int
    hca: str | None = None
    port: int | None = None
    port_id: str | None = None
    pci_bus_id: str | None = None
    nvlink: int | None = None
    counted_by_link_downed: bool = False  # IB: LinkDownedCounter grew too (its own rule reports it)


@fact_kind
class CounterGrowth(Fact):
    """An error counter that grew within the window (resets handled like PromQL increase)."""

    kind: Literal["counter_growth"] = "counter_growth"
    counter: str  # ecc_sbe_vol, ecc_dbe_vol, pcie_replay, nvlink_crc_flit, nvlink_crc_data, nvlink_replay, nvlink_recovery
    pci_bus_id: str
    increase: float
    window_s: int
    rate_per_h: float | None = None  # increase per hour over the window (filled in when not given)
    location: str | None = None  # ECC counters read from nvidia-smi -q: dram, sram, device_memory
    sources: str | None = None  # two nvidia-smi -q readings: the ids of their count lines

    @model_validator(mode="after")
    def _rate(self) -> "CounterGrowth":
        if self.rate_per_h is None and self.window_s > 0:
            object.__setattr__(self, "rate_per_h", round(self.increase / self.window_s * 3600, 1))
        return self


@fact_kind
class LivePopulation(Fact):
    """One exporter metric the server holds in the window, and what the screens made of it
    (engine/live/observe.py): the healthy population, counted, so that a GPU or port nobody looked at
    is never read as healthy (a metric with no series is a missing signal instead). The counts
    are those of each source's anchor metric (a GPU's temperature, a port's state), at the
    evaluation time; other metrics say only that they exist."""

    kind: Literal["live_population"] = "live_population"
    metric: str  # the exporter metric name
    signal: str  # steth's short name for it (facts/live/signals.py)
    screened: bool  # a screen filtered the family on the server (False: read whole, or only for flagged targets)
    flagged: int  # series the screens returned
    window_s: int
    series: int | None = None  # anchor metrics: series reporting at the evaluation time
    instances: int | None = None  # anchor metrics: scrape targets (exporters) among them
    fewest_per_instance: int | None = None  # anchor metrics: the fewest series one target reports


@fact_kind
class ScrapeTargetDown(Fact):
    """A scrape target of an exporter job whose ``up`` was 0 in the window: Prometheus could
    not scrape it, so its GPUs or ports are not seen (``up{job="dcgm",instance="node3:9400"} 0``)."""

    kind: Literal["scrape_target_down"] = "scrape_target_down"
    job: str
    instance: str
    exporter: str | None = None  # "dcgm-exporter" | "node_exporter", from what the job serves or its name
    down_now: bool  # up is 0 at the end of the window
    up_fraction: float  # mean of up over the window (1: always scraped)
    window_s: int


@fact_kind
class ExporterAbsent(Fact):
    """An exporter with no target: none in the whole fleet (``scope: fleet``), or a host that
    has a node_exporter and no dcgm-exporter in a fleet that has GPUs (``scope: node``)."""

    kind: Literal["exporter_absent"] = "exporter_absent"
    exporter: str
    scope: Literal["fleet", "node"]
    host: str | None = None
    anchor: str  # the series every target of the exporter serves
    window_s: int


@fact_kind
class StaleSeries(Fact):
    """A target that is scraped but whose exporter series had samples in the window and have
    none now: GPUs (or ports) that stopped reporting while the exporter still answers."""

    kind: Literal["stale_series"] = "stale_series"
    job: str
    instance: str
    metric: str  # the anchor series counted
    stale: int  # series with no sample at the end of the window
    series: int  # series of that metric the target had in the window
    gone: bool  # every one of them
    window_s: int


@fact_kind
class ExporterVariant(Fact):
    """Which of an exporter's version-dependent names the fleet reports: a renamed metric
    (``DCGM_FI_DEV_CLOCK_THROTTLE_REASONS``, deprecated alias of
    ``DCGM_FI_DEV_CLOCKS_EVENT_REASONS``, field 112), the metric namespace (``dcgm_gpu_temp``
    in dcgm-exporter's 1.x namespace, ``DCGM_FI_DEV_GPU_TEMP`` otherwise) or the node label
    (``Hostname`` up to dcgm-exporter 4.5.3-4.8.2, ``hostname`` after dcgm-exporter commit d5e5f51).
    ``mixed``: the fleet reports more than one, so a dashboard or alert on one name misses
    the targets of the other. facts/live/stack.py says where the versions come from."""

    kind: Literal["exporter_variant"] = "exporter_variant"
    exporter: str
    aspect: Literal["metric_name", "metric_namespace", "node_label"]
    variant: str
    means: str  # what the names are of ("the clock event reasons metric (DCGM field 112)")
    newest: bool
    instances: int  # targets reporting this variant
    only_instances: int  # of them, those reporting no other variant of the aspect
    example_instances: str  # up to five of them (those with this variant only, if any), comma-separated
    mixed: bool
    others: str  # the other variants the fleet reports, comma-separated


@fact_kind
class AlertmanagerAlert(Fact):
    """One alert of an Alertmanager notification an operator pasted (the alert's state, its labels and
    annotations as the receiver printed them): ``* firing`` / ``- alertname = DiskRunningFull``. What
    broke is what the alerting rule watches: its name, labels and annotations say it."""

    kind: Literal["alertmanager_alert"] = "alertmanager_alert"
    alertname: str
    state: Literal["firing", "resolved"]
    firing: bool
    severity_label: str = ""  # the alert's own ``severity`` label ("page", "critical", "none"; "" without one)
    subject: str  # what the labels name: "gpu" (gpu/UUID/pci_bus_id/DCGM), "ib_port" (device+port), "node"
    component: str  # the taxonomy component of the subject
    gpu: str | None = None  # the GPU the labels name (pci_bus_id canonical, else UUID, else "GPU <index>")
    labels: str  # "k=v" pairs as printed, comma-separated
    summary: str = ""  # the summary (or description, message, info) annotation
