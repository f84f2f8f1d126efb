"""A ConnectX NIC's firmware configuration as ``mlxconfig`` / ``mstconfig`` query it."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class MlxconfigSetting(Fact):
    """One line of ``mlxconfig -e -d <dev> query`` whose Next Boot value differs from its Current
    value: a setting changed in the firmware's non-volatile configuration that the running NIC
    does not use yet (it takes effect at the next firmware reset: a cold reboot or mlxfwreset).

    ``device``: the ``Device:`` the block names (a PCI address, ``0000:02:00.1``) or the ``-d``
    argument; ``device_type``: ``ConnectX5``; values as printed (``ROCE_ENABLE(2)``, ``True(1)``)."""

    kind: Literal["mlxconfig_setting"] = "mlxconfig_setting"
    device: str | None = None
    device_type: str | None = None
    name: str  # SRIOV_EN, NUM_OF_VFS, LINK_TYPE_P1, ATS_ENABLED, ROCE_CONTROL, ...
    default: str | None = None
    current: str
    next_boot: str
    pending: bool  # Next Boot differs from Current
