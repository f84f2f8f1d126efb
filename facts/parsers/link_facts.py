"""Fact classes shared by the link-quality readers (``mlxlink``, ``ethtool -S``) and the
combiner that sets each beside its limit in knowledge/link_quality.yaml (engine/combine/link_quality.py).

A counter is named as its tool prints it ("Effective Physical BER", ``rx_crc_errors_phy``);
``device`` is what the tool was pointed at (``mlx5_0``, ``/dev/mst/mt41692_pciconf0``, ``ens1f0``).
"""
from __future__ import annotations

from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    LinkCounter, LinkCounterVsLimit,
)
