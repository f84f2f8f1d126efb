"""Fact classes of the InfiniBand parsers (ibstat, ibstatus, ibdev2netdev, perfquery,
ibnetdiscover, node_exporter's ``node_infiniband_*`` series) and the helpers they share.

A port is named canonically ``node/hca/port`` (``node17/mlx5_0/1``) by :func:`port_id`;
states are spelled as ``ibstat`` spells them, whatever tool reported them.
"""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind

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


@fact_kind
class IbHca(Fact):
    """``CA 'mlx5_0'`` block header of ibstat (or node_exporter's ``node_infiniband_info``)."""

    kind: Literal["ib_hca"] = "ib_hca"
    hca: str
    ca_type: str | None = None  # "MT4129" (ConnectX-7)
    firmware: str | None = None
    node_guid: str | None = None
    ports: int | None = None


@fact_kind
class IbPort(Fact):
    """One HCA port's state: ``State: Active``, ``Physical state: LinkUp``, ``Rate: 200``."""

    kind: Literal["ib_port"] = "ib_port"
    hca: str
    port: int
    port_id: str  # node/hca/port
    state: str  # Down | Initializing | Armed | Active
    physical_state: str | None = None  # LinkUp | Polling | Disabled | ...
    rate_gbps: float | None = None
    width: str | None = None  # "4X", from ibstatus / ibnetdiscover
    link_layer: str | None = None  # "InfiniBand" | "Ethernet"
    lid: int | None = None
    sm_lid: int | None = None  # the subnet manager's LID: non-zero once an SM has configured the port
    port_guid: str | None = None
    source: Literal["ibstat", "ibstatus", "node_exporter", "ibv_devinfo"]


@fact_kind
class IbNoHca(Fact):
    """``ibstat`` ran and listed no HCA: the node has none (or none is visible in the container)."""

    kind: Literal["ib_no_hca"] = "ib_no_hca"
    source: str


@fact_kind
class IbToolPanic(Fact):
    """``ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory``:
    an infiniband-diags tool gave up; ``missing`` when it could not find the named device."""

    kind: Literal["ib_tool_panic"] = "ib_tool_panic"
    tool: str  # "ibstat", as far as the artefact says
    function: str | None = None  # "main"
    hca: str | None = None
    message: str
    missing: bool = False  # "No such file or directory" / "not found": the device is gone


@fact_kind
class IbNetdev(Fact):
    """``mlx5_0 port 1 ==> ibp26s0 (Up)``: the network interface of an HCA port (ibdev2netdev)."""

    kind: Literal["ib_netdev"] = "ib_netdev"
    hca: str
    port: int
    port_id: str
    netdev: str
    netdev_up: bool


@fact_kind
class IbPortCounters(Fact):
    """One reading of a port's counters (perfquery, perfquery -x, node_exporter).

    perfquery names the port by LID only; ``hca`` is filled when the command line names it
    (``perfquery -C mlx5_0 -P 1``), else the fabric summary finds it by LID on the node.
    ``reading`` numbers the readings of one port in one file (0, 1, ...); ``time_s`` is the
    reading's time (Unix seconds) when the artefact says it.
    """

    kind: Literal["ib_port_counters"] = "ib_port_counters"
    hca: str | None = None
    port: int
    port_id: str | None = None
    lid: int | None = None
    extended: bool = False
    reading: int = 0
    time_s: float | None = None
    symbol_errors: int | None = None
    link_error_recovery: int | None = None
    link_downed: int | None = None
    rcv_errors: int | None = None
    rcv_remote_physical_errors: int | None = None
    xmit_discards: int | None = None
    local_link_integrity_errors: int | None = None
    excessive_buffer_overrun_errors: int | None = None
    xmit_data: int | None = None  # 4-octet words (PortXmitData counts dwords)
    rcv_data: int | None = None
    source: Literal["perfquery", "node_exporter"] = "perfquery"


@fact_kind
class IbFabricNode(Fact):
    """A switch or channel adapter of ``ibnetdiscover``: ``Switch 40 "S-..." # "desc" ... lid 1``."""

    kind: Literal["ib_fabric_node"] = "ib_fabric_node"
    node_type: Literal["Switch", "Ca", "Rt"]
    guid: str  # "S-b8599f0300e4c4f2" / "H-0c42a10300ac1e2a", as ibnetdiscover names it
    description: str
    ports: int
    lid: int | None = None


@fact_kind
class IbFabricLink(Fact):
    """One cable of ``ibnetdiscover``: ``[1] "H-..."[1](...) # "node01 mlx5_0" lid 5 4xHDR``."""

    kind: Literal["ib_fabric_link"] = "ib_fabric_link"
    local_guid: str
    local_description: str
    local_port: int
    remote_guid: str
    remote_description: str
    remote_port: int
    width: str | None = None  # "4x"
    speed: str | None = None  # "HDR", "EDR", "NDR"


# Derived by engine/combine/fabric.py (they compare many facts at once); declared here so that the
# registry knows their kinds before any rule is loaded.
@fact_kind
class IbPortSummary(Fact):
    kind: Literal["ib_port_summary"] = "ib_port_summary"
    hca: str
    port: int
    port_id: str
    state: str
    physical_state: str | None = None
    rate_gbps: float | None = None
    link_layer: str | None = None
    lid: int | None = None
    sm_lid: int | None = None
    expected_up: bool = False
    expected_up_reason: str | None = None
    sibling_rate_gbps: float | None = None  # best rate of the node's other Active ports
    below_siblings: bool = False
    fleet_rate_gbps: float | None = None  # most common rate of Active ports across nodes
    below_fleet: bool = False
    expected_rate_gbps: float | None = None  # from the inventory
    below_expected: bool = False
    width: str | None = None  # "4X", from ibstatus (ibstat prints no width)
    node_active_ports: int = 0  # Active ports of this node, any HCA and link layer
    width_lanes: int | None = None
    sibling_width_lanes: int | None = None  # widest of the node's other Active ports
    width_below_siblings: bool = False
    sources: str


@fact_kind
class IbCounterGrowth(Fact):
    kind: Literal["ib_counter_growth"] = "ib_counter_growth"
    hca: str | None = None
    port: int
    port_id: str
    counter: str  # perfquery's name: SymbolErrorCounter, LinkDownedCounter, ...
    cause: str  # ib_link_errors | ib_link_flapping (knowledge/ib_counters.yaml)
    first: int
    last: int
    delta: int
    window_s: float | None = None
    per_hour: float | None = None  # None: the readings carry no times (no rate)
    #: knowledge/ib_counters.yaml's limit for the counter; rules compare per_hour with it
    #: (rules/network/ib_counter_errors_over_ber_limit*.yaml)
    limit_per_hour: float
    sources: str


@fact_kind
class IbCounterTotal(Fact):
    """A port's error counter read once only: its value since the counters were last cleared
    (reboot, driver reload or ``perfquery -R``), with no time to turn it into a rate."""

    kind: Literal["ib_counter_total"] = "ib_counter_total"
    hca: str | None = None
    port: int
    port_id: str
    counter: str  # perfquery's name
    cause: str  # ib_link_errors | ib_link_flapping (knowledge/ib_counters.yaml)
    value: int
    bits: int  # width of the counter in PortCounters (IBTA)
    saturated: bool  # at its maximum: the true count is at least this, maybe far more
    meaning: str  # what the count says, in words
    sources: str
