"""Fact classes shared by the link-quality readers (``mlxlink``, ``ethtool -S``) and the
combiner that judges them against knowledge/link_quality.yaml (engine/combine/link_quality.py).

A counter is named as its tool prints it ("Effective Physical BER", ``rx_crc_errors_phy``);
``device`` is what the tool was pointed at (``mlx5_0``, ``/dev/mst/mt41692_pciconf0``, ``ens1f0``).
"""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class LinkCounter(Fact):
    """One counter line of a port's physical-layer report: ``Link Down Counter : 3`` (mlxlink),
    ``rx_crc_errors_phy: 12`` (ethtool -S). ``value`` is a float: BERs are (``15E-255``)."""

    kind: Literal["link_counter"] = "link_counter"
    tool: Literal["mlxlink", "ethtool"]
    device: str
    port: int | None = None
    counter: str
    value: float
    printed: str  # the value as the tool printed it ("2E-11", "3")
    minutes_since_clear: float | None = None  # mlxlink's "Time Since Last Clear [Min]", when printed


@fact_kind
class LinkCounterOverLimit(Fact):
    """A link counter above its limit in knowledge/link_quality.yaml (engine/combine/link_quality.py)."""

    kind: Literal["link_counter_over_limit"] = "link_counter_over_limit"
    tool: str
    device: str
    port: int | None = None
    link_id: str  # "mlx5_0/1" (device/port) or the device alone: what findings name
    counter: str
    value: float
    printed: str
    limit: float
    check: str  # ber | errors | link_down | pause_storm (knowledge/link_quality.yaml)
    cause: str
    severity: str
    meaning: str
    sources: str
