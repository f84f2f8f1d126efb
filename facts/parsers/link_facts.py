"""Fact classes shared by the link-quality readers (``mlxlink``, ``ethtool -S``) and the
combiner that sets each beside its limit in knowledge/link_quality.yaml (engine/combine/link_quality.py).

A counter is named as its tool prints it ("Effective Physical BER", ``rx_crc_errors_phy``);
``device`` is what the tool was pointed at (``mlx5_0``, ``/dev/mst/mt41692_pciconf0``, ``ens1f0``).
"""
from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import model_validator

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
class LinkCounterVsLimit(Fact):
    """A link counter beside its limit in knowledge/link_quality.yaml; rules judge it.

    One for each counter that knowledge lists (engine/combine/link_quality.py); the rule of its
    ``check`` fires when ``value`` is above ``limit``.

    A BER such as 3E-12 is below what the rule engine sees of a float (9 decimals, facts/model.py
    view_value): its base-10 logarithm is not (-11.522878745), so ``value_log10`` and
    ``limit_log10`` carry both sides of a rate's comparison (None where the number is 0: no log)."""

    kind: Literal["link_counter_vs_limit"] = "link_counter_vs_limit"
    tool: str
    device: str
    port: int | None = None
    link_id: str  # "mlx5_0/1" (device/port) or the device alone: what findings name
    counter: str
    value: float
    printed: str
    limit: float
    value_log10: float | None = None  # log10(value), filled from value when above 0
    limit_log10: float | None = None  # log10(limit), filled from limit when above 0
    check: str  # ber | errors | link_down | pause_storm (knowledge/link_quality.yaml)
    cause: str
    severity: str
    meaning: str
    sources: str

    @model_validator(mode="before")
    @classmethod
    def _logs(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in ("value", "limit"):
                if data.get(f"{name}_log10") is None and isinstance(v := data.get(name), (int, float)) and v > 0:
                    data = {**data, f"{name}_log10": math.log10(v)}
        return data
