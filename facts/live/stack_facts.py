"""Fact kinds of the monitoring stack's own state (facts/live/stack.py): what Prometheus itself
says about the exporters a live diagnosis reads. Each quotes the PromQL query and its row."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


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
    (``Hostname`` up to dcgm-exporter 4.5.3-4.8.2, ``hostname`` after dcgm-exporter#655).
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
