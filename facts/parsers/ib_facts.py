"""Fact classes of the InfiniBand parsers (ibstat, ibstatus, ibdev2netdev, perfquery,
ibnetdiscover, node_exporter's ``node_infiniband_*`` series) and the helpers they share.

A port is named canonically ``node/hca/port`` (``node17/mlx5_0/1``) by :func:`port_id`;
states are spelled as ``ibstat`` spells them, whatever tool reported them.
"""
from __future__ import annotations

from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    IbCounterGrowth, IbCounterTotal, IbFabricLink, IbFabricNode, IbHca, IbNetdev, IbNoHca, IbPort,
    IbPortCounters, IbPortSummary, IbToolPanic, RdmaHwCounters,
)
from stethoscope.facts.kinds.ib_links import IbLinkInfo  # noqa: F401 - iblinkinfo's and ibqueryerrors'
from stethoscope.facts.model import Fact

#: Gb/s of data per lane of each InfiniBand speed generation (IBTA: SDR 2.5 ... XDR 200), as ibstat counts a rate
LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0, "EDR": 25.0, "HDR": 50.0, "NDR": 100.0, "XDR": 200.0}
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


#: /sys/class/infiniband/<hca>/ports/<n>/counters/<file> (the IBTA PortCounters the kernel reads
#: for the port: drivers/infiniband/core/sysfs.c) -> ib_port_counters field
SYSFS_COUNTER_FIELDS = {
    "symbol_error": "symbol_errors",
    "link_error_recovery": "link_error_recovery",
    "link_downed": "link_downed",
    "port_rcv_errors": "rcv_errors",
    "port_rcv_remote_physical_errors": "rcv_remote_physical_errors",
    "port_xmit_discards": "xmit_discards",
    "local_link_integrity_errors": "local_link_integrity_errors",
    "excessive_buffer_overrun_errors": "excessive_buffer_overrun_errors",
    "port_xmit_data": "xmit_data",
    "port_rcv_data": "rcv_data",
}
#: the other files of that folder: read and left
SYSFS_COUNTERS_OTHER = frozenset({
    "port_xmit_packets", "port_rcv_packets", "unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets",
    "multicast_rcv_packets", "port_xmit_wait", "port_rcv_constraint_errors", "port_xmit_constraint_errors",
    "port_rcv_switch_relay_errors", "VL15_dropped",
})
#: hw_counters files (and rdma statistic names) that are no RdmaHwCounters field: read and left
HW_COUNTERS_OTHER = frozenset({"lifespan", "rx_dct_connect", "cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts"})


#: the responder's request counters: traffic, no retry, error or drop
HW_TRAFFIC = frozenset({"rx_write_requests", "rx_read_requests", "rx_atomic_requests"})


def errors_listed(values: dict) -> bool:
    """Whether a reading's counters include any besides the traffic ones (``errors_listed``)."""
    return any(k not in HW_TRAFFIC for k in values)


def hw_counter_fields() -> frozenset[str]:
    """The counters an ``rdma_hw_counters`` fact has a field for (mlx5's hw_counters names)."""
    meta = {"kind", "hca", "port", "port_id", "reading", "time_s", "source", "errors_listed"}
    return frozenset(f for f in RdmaHwCounters.model_fields if f not in meta and f not in Fact.model_fields)


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
