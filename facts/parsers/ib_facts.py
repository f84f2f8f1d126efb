"""Fact classes of the InfiniBand parsers (ibstat, ibstatus, ibdev2netdev, perfquery,
ibnetdiscover, node_exporter's ``node_infiniband_*`` series) and the helpers they share.

A port is named canonically ``node/hca/port`` (``node17/mlx5_0/1``) by :func:`port_id`;
states are spelled as ``ibstat`` spells them, whatever tool reported them.
"""
from __future__ import annotations

from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    IbCounterGrowth, IbCounterTotal, IbFabricLink, IbFabricNode, IbHca, IbNetdev, IbNoHca, IbPort,
    IbPortCounters, IbPortSummary, IbToolPanic,
)

#: logical port states (IBTA PortInfo:PortState), as ibstat prints them
STATES = {1: "Down", 2: "Initializing", 3: "Armed", 4: "Active", 5: "ActiveDefer"}
#: physical port states (IBTA PortInfo:PortPhysicalState), as ibstat prints them
PHYS_STATES = {1: "Sleep", 2: "Polling", 3: "Disabled", 4: "PortConfigurationTraining", 5: "LinkUp", 6: "LinkErrorRecovery", 7: "PhyTest"}

#: perfquery field -> ib_port_counters field
COUNTER_FIELDS = {
    "SymbolErrorCounter": "symbol_errors",
    "LinkErrorRecoveryCounter": "link_error_recovery",
    "LinkDownedCounter": "link_downed",
    "PortRcvErrors": "rcv_errors",
    "PortRcvRemotePhysicalErrors": "rcv_remote_physical_errors",
    "PortXmitDiscards": "xmit_discards",
    "LocalLinkIntegrityErrors": "local_link_integrity_errors",
    "ExcessiveBufferOverrunErrors": "excessive_buffer_overrun_errors",
    "PortXmitData": "xmit_data",
    "PortRcvData": "rcv_data",
}


def port_id(node: str, hca: str, port: int) -> str:
    """Canonical port identifier: ``node/hca/port``."""
    return f"{node}/{hca}/{port}"


def state_name(raw: str) -> str:
    """``ACTIVE``, ``4: ACTIVE``, ``Active`` -> ``Active``; ``INIT`` -> ``Initializing``."""
    word = raw.split(":")[-1].strip()
    if word.isdecimal():
        return STATES.get(int(word), word)
    low = word.lower()
    if low.startswith("init"):
        return "Initializing"
    for name in STATES.values():
        if name.lower() == low.replace("_", ""):
            return name
    return word


def phys_state_name(raw: str) -> str:
    """``5: LinkUp`` / ``LinkUp`` / ``5`` -> ``LinkUp``."""
    word = raw.split(":")[-1].strip()
    if word.isdecimal():
        return PHYS_STATES.get(int(word), word)
    return word
