"""Fact kinds of the monitoring stack's own state (facts/live/stack.py): what Prometheus itself
says about the exporters a live diagnosis reads. Each quotes the PromQL query and its row."""
from __future__ import annotations

from stethoscope.facts.kinds.live import (  # noqa: F401 - the fact classes live in facts/kinds
    ExporterAbsent, ExporterVariant, ScrapeTargetDown, StaleSeries,
)
