"""The schemas of knowledge/ib_counters.yaml, ib_port_comparison.yaml, link_quality.yaml, rdma_hw_counters.yaml,
nic_line_rate.yaml, ib_async_events.yaml and ib_wc_status.yaml: the network's counters, their limits and what
verbs' events and statuses mean.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from stethoscope.facts.knowledge.base import ActionId, CauseId, ComponentId, Record as _M, Severity


# --- ib_counters.yaml, nic_line_rate.yaml ----------------------------------------------------

class IbCounter(_M):
    counter: str
    field: str
    limit_per_hour: int = Field(ge=0)
    cause: CauseId
    bits: int = Field(gt=0)


class IbCounters(_M):
    source: str
    counters: list[IbCounter] = Field(min_length=1)


class IbPortLimit(_M):
    """When a port is below one reference: ``ratio`` (its value / the reference) < ``below_ratio``.
    A port equal to its reference makes no comparison fact, so the limit may not exceed 1."""
    below_ratio: float = Field(gt=0, le=1)
    min_ports: int | None = Field(default=None, ge=2)  # rate_vs_fleet: ports that must agree on the usual rate
    why: str = Field(min_length=10)
    source: str = Field(min_length=10)


class IbPortComparison(_M):
    source: str = Field(min_length=10)
    comparisons: dict[Literal["rate_vs_siblings", "width_vs_siblings", "rate_vs_fleet", "rate_vs_inventory"], IbPortLimit]

    @model_validator(mode="after")
    def _all_four(self) -> "IbPortComparison":
        missing = {"rate_vs_siblings", "width_vs_siblings", "rate_vs_fleet", "rate_vs_inventory"} - set(self.comparisons)
        if missing:
            raise ValueError(f"comparisons: missing {', '.join(sorted(missing))}")
        if self.comparisons["rate_vs_fleet"].min_ports is None:
            raise ValueError("comparisons.rate_vs_fleet: min_ports is required")
        return self


class LinkQualityCounter(_M):
    tool: Literal["mlxlink", "ethtool"]
    counter: str = Field(min_length=3)
    limit: float = Field(ge=0)
    check: Literal["ber", "errors", "link_down", "pause_storm", "drops", "host_rx_buffer"]
    cause: CauseId
    severity: Severity
    meaning: str = Field(min_length=20)
    # a cumulative count judged as a share: the counter of the same port it is divided by (what
    # the port carried in the same span), the limit then being that fraction
    per: str | None = Field(default=None, min_length=3)

    @model_validator(mode="after")
    def _rate_limit_has_a_log(self) -> "LinkQualityCounter":
        # rule link_ber_over_limit compares log10(value) with log10(limit): a rate's limit of 0 has none
        if self.check == "ber" and self.limit <= 0:
            raise ValueError(f"{self.counter}: a BER limit must be above 0 (the rule compares logarithms)")
        return self


class LinkQuality(_M):
    """knowledge/link_quality.yaml: the limits of the link-quality counters (mlxlink, ethtool -S)."""

    source: str = Field(min_length=20)
    counters: list[LinkQualityCounter] = Field(min_length=1)

    def entry(self, tool: str, counter: str) -> LinkQualityCounter | None:
        return next((c for c in self.counters if c.tool == tool and c.counter == counter), None)


class RdmaHwCounter(_M):
    counter: str = Field(min_length=3)  # the hw_counters file name, as rdma statistic prints it too
    check: Literal["packet_loss", "out_of_sequence", "receive_buffer", "completion_error", "corruption"]
    cause: CauseId
    warn_total: int | None = Field(default=None, gt=0)  # a single reading at or above it: a warning
    on_growth: Literal["info", "warning"]  # the severity when it grew between two readings
    flush: str | None = None  # the flush counter of the same side, subtracted before judging
    meaning: str = Field(min_length=20)


class RdmaHwCounters(_M):
    """knowledge/rdma_hw_counters.yaml: what an RDMA port's mlx5 hw_counters mean and when they matter."""

    source: str = Field(min_length=20)
    counters: list[RdmaHwCounter] = Field(min_length=1)


class NicLineRate(_M):
    min_ratio: float = Field(gt=0, le=1)
    large_size_bytes: int = Field(gt=0)
    multi_node_min_ranks: int = Field(gt=1)
    sources: list[str] = Field(min_length=1)


# --- ib_async_events.yaml: what each HCA async event means ------------------------------------

class IbAsyncEventEntry(_M):
    event: str = Field(min_length=2)  # ibv_event_type_str(), exact
    ibv: str = Field(pattern=r"^IBV_EVENT_[A-Z_]+$")
    meaning: str = Field(min_length=10)
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId] = Field(min_length=1)
    specific_rule: bool = False  # a dedicated rule reads this event; the catalogue rule skips it
    number: int | None = Field(default=None, ge=0)  # its value in libibverbs' enum ibv_event_type (verbs.h)


class IbAsyncEvents(_M):
    source: str = Field(min_length=10)
    events: list[IbAsyncEventEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "IbAsyncEvents":
        names = [e.event for e in self.events]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"events listed twice: {dup}")
        return self

    def entry(self, event: str) -> IbAsyncEventEntry | None:
        """The entry of an event as NCCL printed it (case and spacing as libibverbs' string)."""
        key = " ".join(event.split()).lower()
        return next((e for e in self.events if e.event.lower() == key), None)

    def by_number(self, number: int) -> IbAsyncEventEntry | None:
        """The entry of an event NCCL printed only by its number ("unknown event type (18)")."""
        return next((e for e in self.events if e.number == number), None)


# --- ib_wc_status.yaml: what each failed RDMA work completion status means --------------------

class IbWcStatusEntry(_M):
    status: int = Field(ge=0, le=255)
    ibv: str = Field(pattern=r"^IBV_WC_[A-Z_]+$")
    name: str = Field(min_length=2)  # ibv_wc_status_str(), exact
    meaning: str = Field(min_length=10)
    severity: Severity
    cause: CauseId
    component: ComponentId = "network"
    actions: list[ActionId] = Field(min_length=1)
    specific_rule: bool = False  # a dedicated rule reads this status; the catalogue rule skips it


class IbWcStatuses(_M):
    source: str = Field(min_length=10)
    statuses: list[IbWcStatusEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "IbWcStatuses":
        nums = [s.status for s in self.statuses]
        dup = sorted({n for n in nums if nums.count(n) > 1})
        if dup:
            raise ValueError(f"statuses listed twice: {dup}")
        return self

    def entry(self, status: int) -> IbWcStatusEntry | None:
        return next((s for s in self.statuses if s.status == status), None)

    def leading_name(self, text: str) -> IbWcStatusEntry | None:
        """The status whose ibv_wc_status_str() name ``text`` starts with (exact case, the longest
        such name): a status a program printed only by libibverbs' string, maybe with more after it."""
        return max((s for s in self.statuses if text.startswith(s.name)), key=lambda s: len(s.name), default=None)
