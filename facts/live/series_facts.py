"""Fact kinds only a time series gives, built by :mod:`stethoscope.facts.live.timeseries`.
(InfiniBand ports from node_exporter become the parsers' ``ib_port`` / ``ib_port_counters``;
their traffic, which a saved ibstat lacks, ``ib_port_traffic``.)

Every one names the PromQL query it came from in its evidence (path = query, text = sample).
"""
from __future__ import annotations

from stethoscope.facts.kinds.live import (  # noqa: F401 - the fact classes live in facts/kinds
    CounterGrowth, GpuMetricTrend, GpuUtilStall, IbPortTraffic, LinkStateChange, LivePopulation,
    NodeBelowPeers,
)
