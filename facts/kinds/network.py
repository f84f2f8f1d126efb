"""InfiniBand / RoCE / Ethernet: HCAs, ports, counters and the fabric (ibstat, ibnetdiscover,
perfquery, mlxlink, ethtool, show_gids), verbs, libfabric and UCX, mlx5_core.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class FiProvider(Fact):
    """One provider entry fi_info listed: that provider found a device."""

    kind: Literal["fi_provider"] = "fi_provider"
    provider: str
    fabric: str | None = None
    domain: str | None = None


@fact_kind
class FiInfoError(Fact):
    """fi_info's query failed (``fi_getinfo: -61``): ``provider`` is the one asked for (-p)."""

    kind: Literal["fi_info_error"] = "fi_info_error"
    code: int
    provider: str | None = None
    message: str | None = None


@fact_kind
class EfaSelfTest(Fact):
    """The EFA installer's self-test failed (``/opt/amazon/efa/test/efa_test.sh``, run by
    ``efa_installer.sh`` after installing): ``stage`` is the step that failed: ``binaries``
    (fi_info or fi_pingpong not found), ``provider`` (``fi_info -p efa`` found no EFA device) or
    ``pingpong`` (a loopback fi_pingpong over EFA timed out or failed: ``code`` its exit status,
    ``timed_out``); ``device_detected`` where the installer said it had seen an EFA device."""

    kind: Literal["efa_self_test"] = "efa_self_test"
    stage: Literal["binaries", "provider", "pingpong"]
    code: int | None = None
    timed_out: bool = False
    device_detected: bool | None = None


@fact_kind
class LibfabricWarning(Fact):
    """A ``<warn>`` line of libfabric's own log (``FI_LOG_LEVEL``): a provider reports a failure.

    E.g. the EFA provider's ``ibv_open_device failed! errno: 2`` (fi_getinfo's own lines are
    ``fi_info_error``), or its report of an operation that completed with an error: ``err: 5,
    message: Invalid address My EFA addr: ... Peer host id: i-0ce6d3d57139f053c (7)``."""

    kind: Literal["libfabric_warning"] = "libfabric_warning"
    provider: str | None = None  # the provider field of the line ("efa", "core")
    subsystem: str | None = None  # "core", "fabric", "ep_data", ...
    function: str
    message: str
    what: str | None = None  # device_open: a provider could not open an RDMA device (ibv_open_device failed);
    #                          operation_error: a send, receive or RMA of the EFA provider completed with an error
    error: int | None = None  # operation_error: the libfabric error number (FI_E*, "err: 5")
    prov_errno: int | None = None  # operation_error: the EFA completion status (< 4096) or provider error (>= 4096)
    error_text: str | None = None  # operation_error: the provider's text of it ("Invalid address", "Unresponsive remote ...")
    peer: str | None = None  # operation_error: the peer the provider names (its EC2 host id, else its EFA address)


@fact_kind
class RxdmError(Fact):
    """An E or F line of GPUDirect-TCPXO's receive-datapath manager (``fastrak_gpumem_manager``)."""

    kind: Literal["rxdm_error"] = "rxdm_error"
    source_file: str
    message: str
    fatal: bool = False
    gpus_pci: int | None = None  # the GPU-count check: GPUs RxDM found in the PCI tree
    gpus_cuda: int | None = None  # ... and those CUDA reports


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
    source: Literal["ibstat", "ibstatus", "node_exporter", "ibv_devinfo", "rdma_link"]


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
    source: Literal["perfquery", "node_exporter", "sysfs", "ibqueryerrors"] = "perfquery"


@fact_kind
class RdmaHwCounters(Fact):
    """One reading of an RDMA port's driver counters (mlx5's ``hw_counters`` in sysfs, the same
    set ``rdma statistic show`` prints): transport retries, sequence errors, completion errors,
    receive-buffer drops and RoCE congestion control, cumulative since the driver loaded.

    A field is None when the reading did not list that counter (older drivers, a trimmed paste).
    ``reading`` numbers the readings of one port in one file; ``time_s`` is the reading's time
    (Unix seconds) when the artefact says it. Names and meanings: knowledge/rdma_hw_counters.yaml.
    """

    kind: Literal["rdma_hw_counters"] = "rdma_hw_counters"
    hca: str | None = None  # None: a listing of bare names with no path or command naming the device
    port: int | None = None
    port_id: str
    reading: int = 0
    time_s: float | None = None
    source: Literal["sysfs", "rdma_statistic"]
    #: the reading listed a counter besides the traffic ones (rx_write/read/atomic_requests): False for a reading of
    #: traffic alone, which shows no retry, error or drop and so checks nothing (knowledge/coverage.yaml)
    errors_listed: bool = True
    # traffic (responder side)
    rx_write_requests: int | None = None
    rx_read_requests: int | None = None
    rx_atomic_requests: int | None = None
    # transport: loss, sequence and retries
    out_of_sequence: int | None = None
    packet_seq_err: int | None = None
    implied_nak_seq_err: int | None = None
    local_ack_timeout_err: int | None = None
    duplicate_request: int | None = None
    rnr_nak_retry_err: int | None = None
    out_of_buffer: int | None = None
    roce_adp_retrans: int | None = None
    roce_adp_retrans_to: int | None = None
    roce_slow_restart: int | None = None
    roce_slow_restart_cnps: int | None = None
    roce_slow_restart_trans: int | None = None
    req_transport_retries_exceeded: int | None = None
    # completions with error
    req_cqe_error: int | None = None
    resp_cqe_error: int | None = None
    req_cqe_flush_error: int | None = None
    resp_cqe_flush_error: int | None = None
    req_remote_access_errors: int | None = None
    req_remote_invalid_request: int | None = None
    resp_remote_access_errors: int | None = None
    resp_local_length_error: int | None = None
    # congestion control (ECN / DCQCN) and corruption
    np_cnp_sent: int | None = None
    np_ecn_marked_roce_packets: int | None = None
    rp_cnp_handled: int | None = None
    rp_cnp_ignored: int | None = None
    rx_icrc_encapsulated: int | None = None


@fact_kind
class RdmaCounterVsLimit(Fact):
    """An RDMA port's driver counter beside what knowledge/rdma_hw_counters.yaml says of it
    (engine/combine/rdma_counters.py); rules judge it.

    ``value`` is the counter's count since the driver loaded in the last reading (for a
    completion-error counter, the errors that were not flushes); with two or more readings of
    the port, ``delta`` is its growth between the first and the last and ``window_s`` the time
    between them when both carry one. ``warn_total``: a single reading at or above it is worth a
    warning (None: a single reading is never more than information)."""

    kind: Literal["rdma_counter_vs_limit"] = "rdma_counter_vs_limit"
    hca: str | None = None
    port: int | None = None
    port_id: str
    counter: str
    check: str  # packet_loss | out_of_sequence | receive_buffer | completion_error | corruption
    cause: str
    value: int
    readings: int
    delta: int | None = None
    window_s: float | None = None
    warn_total: int | None = None
    severity: str  # warning | info, from the knowledge above (a large single count, or growth)
    meaning: str
    basis: str  # "since the driver loaded (one reading)" / "grew by N between two readings ..."
    sources: str


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
    #: most common rate of Active InfiniBand ports across nodes, when enough ports agree
    #: (knowledge/ib_port_comparison.yaml rate_vs_fleet.min_ports)
    fleet_rate_gbps: float | None = None
    expected_rate_gbps: float | None = None  # from the inventory
    width: str | None = None  # "4X", from ibstatus (ibstat prints no width)
    node_active_ports: int = 0  # Active ports of this node, any HCA and link layer
    width_lanes: int | None = None
    sibling_width_lanes: int | None = None  # widest of the node's other Active ports
    sources: str


class IbPortVsReference(Fact):
    """An Active port whose rate or width differs from one reference (no fact where they are
    equal). ``ratio`` is the port's value / the reference; ``below_ratio`` the limit of
    knowledge/ib_port_comparison.yaml; rules/network/ib_*_below_*.yaml compare the two.
    ``sources``: the port's ``ib_port_summary`` (and the sibling it is compared with)."""

    hca: str
    port: int
    port_id: str
    rate_gbps: float
    ratio: float
    below_ratio: float
    sources: str


@fact_kind
class IbPortRateVsSiblings(IbPortVsReference):
    """The port's rate against the best rate of its node's other Active ports of the same link layer."""

    kind: Literal["ib_port_rate_vs_siblings"] = "ib_port_rate_vs_siblings"
    sibling_rate_gbps: float
    sibling: str  # that sibling's port id


@fact_kind
class IbPortWidthVsSiblings(IbPortVsReference):
    """The port's width (lanes) against the widest of its node's other Active ports of the same link layer."""

    kind: Literal["ib_port_width_vs_siblings"] = "ib_port_width_vs_siblings"
    width: str  # "1X"
    width_lanes: int
    sibling_width_lanes: int
    sibling: str


@fact_kind
class IbPortRateVsFleet(IbPortVsReference):
    """The port's rate against the most common rate of the bundle's Active InfiniBand ports;
    ``fleet_ports`` agree on it, ``min_ports`` must (knowledge/ib_port_comparison.yaml)."""

    kind: Literal["ib_port_rate_vs_fleet"] = "ib_port_rate_vs_fleet"
    fleet_rate_gbps: float
    fleet_ports: int
    min_ports: int


@fact_kind
class IbPortRateVsInventory(IbPortVsReference):
    """The port's rate against the rate the inventory expects of it."""

    kind: Literal["ib_port_rate_vs_inventory"] = "ib_port_rate_vs_inventory"
    expected_rate_gbps: float


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


@fact_kind
class IbGid(Fact):
    """One entry of a port's GID table: ``GID[  3]: ::ffff:192.168.1.10, RoCE v2`` (ibv_devinfo -v)
    or a ``show_gids`` row. RoCE v2 GIDs that carry an IPv4 address are the routable ones."""

    kind: Literal["ib_gid"] = "ib_gid"
    hca: str
    port: int
    index: int
    gid: str
    ipv4: str | None = None  # the IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d)
    version: Literal["v1", "v2"] | None = None  # RoCE v1 / v2; None: IB or not shown
    netdev: str | None = None  # show_gids: the Ethernet device
    source: Literal["ibv_devinfo", "show_gids"]


@fact_kind
class VerbsCallFailed(Fact):
    """A program's report of a failed libibverbs call: its perror(3), or its words for a QP it could not create.

    ``ibv_modify_qp: Invalid argument``; ``Failed to create QP: Operation not supported [95]`` (``call`` ibv_create_qp)."""

    kind: Literal["verbs_call_failed"] = "verbs_call_failed"
    call: str  # "ibv_modify_qp"
    error: str  # strerror(errno): "Invalid argument"
    errno: int | None = None  # where the program printed the number too (glog's " [95]", Rust's " (os error 95)")
    device: str | None = None  # the RDMA device the program names for the call ("for device rdmap16s27"), where it does


@fact_kind
class VerbsWarning(Fact):
    """One ``libibverbs: Warning: ...`` line, or one of librdmacm's start-up lines (``rdmacm_*``)."""

    kind: Literal["verbs_warning"] = "verbs_warning"
    what: Literal["provider_not_loaded", "no_config_dir", "no_provider_for_device", "device_not_visible", "memlock_limit",
                  "provider_abi_mismatch", "rdmacm_abi_unreadable", "rdmacm_no_device_list", "other"]
    provider: str | None = None  # "libipathverbs-rdmav25.so", "rxe"; the provider's driver name ("bnxt_re") on an ABI mismatch
    device: str | None = None  # "/sys/class/infiniband_verbs/uverbs0", "/sys/class/infiniband/mlx5_13"
    memlock_bytes: int | None = None
    # provider_abi_mismatch: the kernel driver's uverbs ABI version and the range the installed provider supports
    kernel_abi: int | None = None  # 6
    provider_abi: str | None = None  # "1 to 1"
    message: str
    # the same output also says a device has no provider: this program's verbs are broken, and a
    # provider it could not load may be the one that device needs
    with_unusable_device: bool = False
    # the same output also says libibverbs could not open its config directory (/etc/libibverbs.d): it then loads no
    # provider at all (rdma-core libibverbs/init.c read_config), which is why a device has none
    with_no_config_dir: bool = False


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
class NicLinkSettings(Fact):
    """One interface's ``ethtool <iface>`` block (facts/parsers/ethtool_settings.py): its link
    state and speed beside the link modes it and its link partner can run."""

    kind: Literal["nic_link_settings"] = "nic_link_settings"
    interface: str
    link_detected: bool | None = None  # None: the paste has no "Link detected:" line
    link_state_detail: str | None = None  # netlink's extended state: "No cable", "Autoneg, No partner detected"
    speed_mbps: int | None = None  # None: "Speed: Unknown!" or no Speed line
    speed_printed: str | None = None
    duplex: str | None = None  # Full | Half | Unknown! (255)
    autoneg: bool | None = None
    supported_max_mbps: int | None = None
    advertised_max_mbps: int | None = None
    partner_max_mbps: int | None = None
    capable_mbps: int | None = None  # the fastest speed both ends can run (auto-negotiation on)
    capable_from: str | None = None  # which list gave it: "advertised", "supported", "advertised and partner"


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


@fact_kind
class Mlx5CmdFailed(Fact):
    """``ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171)``:
    the HCA's firmware refused a command the driver passed on."""

    kind: Literal["mlx5_cmd_failed"] = "mlx5_cmd_failed"
    pci_bus_id: str
    command: str  # "ACCESS_REG"
    opcode: int  # 0x805
    op_mod: int
    register_read: bool  # ACCESS_REG with op_mod 1: a register read (a query), not a write
    status: str  # "bad operation", "bad parameter", ...
    status_code: int
    syndrome: str  # "0x9a6171"
    function: str | None = None  # "mlx5_cmd_out_err"


@fact_kind
class Mlx5HealthEvent(Fact):
    """The ConnectX driver's health poller found the HCA in error: ``Fatal error 1 detected``,
    ``device's health compromised - reached miss count``, ``Health issue observed, ...``, or the
    recovery after it failed. The device is reset or lost; every connection on it breaks. Also the
    command interface's timeouts (``cmd[22]: CREATE_DCT(0x710) No done completion``): the firmware
    did not answer a command the driver posted."""

    kind: Literal["mlx5_health_event"] = "mlx5_health_event"
    pci_bus_id: str
    #: fatal_error, health_compromised, health_issue, recovery_failed; from the command interface
    #: (cmd.c): command_timeout (the firmware did not complete a command), command_recovered (it did, late);
    #: probe_failed: the driver core could not bind mlx5_core to the device at all (it never came up)
    event: str
    fatal: bool  # the health poller's verdict: all its events but a "Health issue observed" below error (4 and up)
    sensor: int | None = None  # "Fatal error 1": 1 PCI communication lost, 2 PCI error, 3 NIC disabled, 4 NIC reset, 5 firmware
    syndrome: str | None = None  # "High temperature", "unrecoverable hardware error" (the synd line, or the issue's)
    command: str | None = None  # the firmware command of a command_timeout / command_recovered: "CREATE_DCT"
    message: str


@fact_kind
class Mlx5SlotPowerInsufficient(Fact):
    """``mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the
    PCIe slot (27W).``: the ConnectX firmware read the power its PCIe slot advertises (the MPEIN
    register) and found it below what the card needs at full function (events.c mlx5_pcie_event)."""

    kind: Literal["mlx5_slot_power_insufficient"] = "mlx5_slot_power_insufficient"
    pci_bus_id: str
    watts: int  # the slot power the firmware read: "(27W)"
    message: str


@fact_kind
class NicToolAccessFailed(Fact):
    """``FATAL - crspace read (0xf0014) failed: No such file or directory``: a firmware tool of MFT or
    mstflint (flint, mlxconfig, mstconfig, mlxlink, ...) could not read the NIC's device id from its
    configuration space through the access path it opened (dev_mgt/tools_dev_types.c dm_get_device_id)."""

    kind: Literal["nic_tool_access_failed"] = "nic_tool_access_failed"
    error: str  # strerror(errno): "No such file or directory", "Invalid argument", "Input/output error"
    #: the error says the tool's access path failed (no such file, not permitted, invalid argument, not supported),
    #: not that the device failed to answer (an I/O error, no such device, anything else)
    access_path: bool
    device: str | None = None  # the device the tool was given (-d), where the text names it: "0000:18:00.0"
    tool: str | None = None  # "mstconfig", "mlxconfig", "flint", ... where the text names it
    message: str


@fact_kind
class KernelIbCompletionError(Fact):
    """``infiniband mlx5_0: mlx5_handle_error_cqe:332:(pid 0): WC error: 12, Message: transport
    retry counter exceeded``: an RDMA work request of a kernel user (NVMe-oF, iSER, SRP, NFS over
    RDMA, IPoIB) completed in error on this HCA."""

    kind: Literal["kernel_ib_completion_error"] = "kernel_ib_completion_error"
    device: str  # the RDMA device: "mlx5_0", "rocep8s0f0"
    status: int  # enum ib_wc_status, numbered as libibverbs' ibv_wc_status
    status_text: str  # ib_wc_status_msg(): "transport retry counter exceeded"
    function: str | None = None


@fact_kind
class VerbsCompletionError(Fact):
    """A program's own line for a failed RDMA work completion, its status in libibverbs' words:
    ``CQE error, wr_id=3, status=2 (local QP operation error), ...`` (UCCL) or a bare
    ``IBV_WC_RETRY_EXC_ERR`` in an error line (NBS). One fact per status a file; the number and the
    ibv_wc_status_str() text agree with knowledge/ib_wc_status.yaml."""

    kind: Literal["verbs_completion_error"] = "verbs_completion_error"
    status: int  # libibverbs' enum ibv_wc_status
    status_text: str  # ibv_wc_status_str(): "local QP operation error"
    message: str  # the line, trimmed
    vendor_err: str | None = None  # "0x3", as printed
    count: int = 1  # lines of this status in the file


@fact_kind
class MlxlinkPort(Fact):
    """The "Operational Info" (and "Supported Info", "Troubleshooting Info") of one mlxlink port."""

    kind: Literal["mlxlink_port"] = "mlxlink_port"
    device: str
    port: int | None = None
    state: str  # Active | Polling | Disable | ...
    physical_state: str | None = None  # LinkUp | Polling | Disabled | ...
    link_up: bool  # Active and (where printed) LinkUp
    speed: str | None = None  # "100G", "IB-HDR", "N/A"
    width: str | None = None  # "4x"
    fec: str | None = None
    speed_gbps: float | None = None  # the whole port (lanes included where the speed says per lane)
    width_lanes: int | None = None
    enabled_max: str | None = None  # fastest of "Enabled Link Speed": "100G_4X", "HDR"
    enabled_max_gbps: float | None = None
    below_enabled: bool = False  # Active below the fastest enabled speed (InfiniBand: its lane rate)
    status_opcode: int | None = None
    recommendation: str | None = None


@fact_kind
class OpenmpiBtlNoNics(Fact):
    """Open MPI's ``btl:no-nics``: a messaging module found no interface it can use on the host,
    and Open MPI uses another transport."""

    kind: Literal["openmpi_btl_no_nics"] = "openmpi_btl_no_nics"
    module: str | None = None  # "OpenFabrics (openib)"; None on the launcher's aggregation line
    count: int = 1  # the copies the aggregation line stands for


@fact_kind
class OpenmpiOscUcxDeclined(Fact):
    """Open MPI 5's osc/ucx ``OSC UCX component priority set inside component query failed``: UCX
    could not serve a one-sided window, another osc component does."""

    kind: Literal["openmpi_osc_ucx_declined"] = "openmpi_osc_ucx_declined"


@fact_kind
class OpenmpiTcpConnectFailed(Fact):
    """Open MPI's TCP BTL could not open its connection to a peer process: ``connect() to <ip> failed:
    <strerror> (<errno>)`` (BTL_ERROR, 1.x-2.x) or the ``client connect fail`` help block (3.x-5.x,
    its Message ``connect() to <ip>:<port> failed`` and Error ``<strerror> (<errno>)``)."""

    kind: Literal["openmpi_tcp_connect_failed"] = "openmpi_tcp_connect_failed"
    address: str | None = None  # "172.17.0.1"
    port: int | None = None  # the help block's (3.x-5.x); the 1.x-2.x line names none
    error: str | None = None  # "Connection refused"
    errno: int | None = None  # 111
    #: the address is on Docker's default bridge (172.17.0.0/16), which every Docker host has as its own
    docker_bridge: bool = False


@fact_kind
class OpenmpiTcpUnexpectedPeer(Fact):
    """Open MPI's TCP BTL ``received unexpected process identifier``: the process that answered a connection
    is not the peer it dialled (the peer's address also names another host's process)."""

    kind: Literal["openmpi_tcp_unexpected_peer"] = "openmpi_tcp_unexpected_peer"
    got: str | None = None  # "[[39817,1],3]"


@fact_kind
class OpenmpiOpenibQueueCreateFailed(Fact):
    """Open MPI's openib BTL ``init-fail-create-q`` help block: a verbs call that creates one of its
    queues (``ibv_create_cq()``, ``ibv_create_srq()``, ...) failed on an HCA with an errno other than
    ENOMEM (that one prints ``init-fail-no-mem``)."""

    kind: Literal["openmpi_openib_queue_create_failed"] = "openmpi_openib_queue_create_failed"
    device: str | None = None  # the HCA (mlx4_0)
    function: str | None = None  # the verbs call, without its "()"
    error: str | None = None  # strerror(errno) as printed
    errno: int | None = None
    source: str | None = None  # OMPI source file:line


@fact_kind
class OpenmpiOpenibDeviceSkipped(Fact):
    """Open MPI 4.x's openib BTL leaving an HCA out: help-mpi-btl-openib.txt ``ib port not selected``
    (an InfiniBand port, which 4.0 and later leave to UCX unless btl_openib_allow_ib is true) or
    ``error in device init`` (the device's set-up in the openib BTL failed; printed after the first
    for the same device), or the launcher's count of further copies of either."""

    kind: Literal["openmpi_openib_device_skipped"] = "openmpi_openib_device_skipped"
    reason: str  # "ib_port_not_selected" | "device_init_error"
    device: str | None = None  # the HCA (mlx5_0); None on an aggregation line or a quoted head line
    port: int | None = None
    count: int = 1  # the copies an aggregation line stands for


@fact_kind
class OpenmpiDaemonFailure(Fact):
    """mpirun's runtime (ORTE in Open MPI 1.x-4.x, PRRTE in 5.x) could not start or lost one of its
    daemons on a remote node: the errmgr help blocks ``failed-daemon-launch`` ("ORTE was unable to
    reliably start one or more daemons."), ``failed-daemon`` ("An ORTE daemon has unexpectedly
    failed after launch ..."), ``node-died`` ("ORTE has lost communication with a remote daemon.",
    < 2.0 "... with its daemon located on node:"), and the remote shell's "orted: command not found"
    that usually comes before the first."""

    kind: Literal["openmpi_daemon_failure"] = "openmpi_daemon_failure"
    event: Literal["launch_failed", "daemon_failed", "daemon_lost", "daemon_not_found"]
    runtime: str | None = None  # "ORTE", "PRTE" (or the tool name PRRTE filled in)
    remote_node: str | None = None  # the node of the lost daemon, when the block names it


@fact_kind
class SshConnectionFailed(Fact):
    """OpenSSH's client could not open a session to a host, as a launcher that runs it (mpirun's rsh/ssh
    agent, DeepSpeed's pdsh, horovodrun, a script) passes its stderr on: the name did not resolve
    (ssh.c), the TCP connect failed (sshconnect.c "ssh: connect to host %s port %s: %s"), sshd closed
    the connection before its banner (kex_/ssh_exchange_identification), the host key was unknown or
    changed ("Host key verification failed."), or authentication was refused (sshconnect2.c
    "%s@%s: Permission denied (%s)."). The fact's node is the one ssh ran on; ``host`` the target."""

    kind: Literal["ssh_connection_failed"] = "ssh_connection_failed"
    reason: Literal["name_resolution", "connection_refused", "timed_out", "no_route", "connection_closed", "host_key",
                    "auth_denied", "unknown"]
    host: str | None = None  # the host ssh was asked to reach, where the line names it
    port: int | None = None
    user: str | None = None
    detail: str | None = None  # ssh's own words after the host: the strerror, resolver error or auth methods


@fact_kind
class UcxGidEmpty(Fact):
    """UCX found the GID it was to use empty (all zero) on a port: ``ib_device.c:918  UCX  ERROR Invalid gid[0] on
    mlx5_6:1`` (src/uct/ib/base/ib_device.c uct_ib_device_query_gid, ib_iface.c uct_ib_iface_init_gid before it:
    ``ucs_error("Invalid gid[%d] on %s:%d", gid_index, uct_ib_device_name(dev), port_num)``)."""

    kind: Literal["ucx_gid_empty"] = "ucx_gid_empty"
    device: str  # "mlx5_6"
    port: int
    gid_index: int  # the index UCX read (UCX_IB_GID_INDEX, or the one it chose)


@fact_kind
class UcxShmAllocFailed(Fact):
    """UCX could not create a System V shared-memory segment (ucs/sys/sys.c ``ucs_sysv_alloc``:
    "shmget(size=%zu flags=0x%x) for %s failed: %s" and the limit it names). With SHM_HUGETLB in
    the flags (0x800) UCX was trying huge pages and retries without them."""

    kind: Literal["ucx_shm_alloc_failed"] = "ucx_shm_alloc_failed"
    purpose: str | None = None  # what the segment was for ("mm_recv_desc", "ucp_am_bufs")
    size: int | None = None  # bytes
    flags: int | None = None
    hugetlb: bool = False  # SHM_HUGETLB (0x800) among the flags
    error: str  # strerror(errno) ("Operation not permitted", "No space left on device")
    detail: str | None = None  # UCX's words after it: the limit it checked ("shmmax", "shmall", "ipcs -l")


@fact_kind
class PerftestFailure(Fact):
    """perftest (ib_write_bw, ib_send_lat, ...) stopping on an error of its own (linux-rdma/perftest
    src/perftest_communication.c, perftest_resources.c, perftest_parameters.c): ``stage`` says where.
    connection: the TCP side channel to the other side ("Couldn't connect to %s:%d", "Unable to init
    the socket connection", "Couldn't listen to port %d", "Failed to exchange data between server and
    clients"); device: the HCA or its port ("IB device %s not found", "No IB devices found", "Port
    number %d state is %s", "Couldn't get context for the device"); resources: a verbs object
    ("Couldn't allocate MR", "failed to create mr", "Couldn't create IB resources", "Couldn't create
    QP/CQ"); qp_transition ("Failed to modify QP %d to RTR", "... to INIT", "... to RTS"); completion:
    a failed work completion ("Completion with error at client|server", then "Failed status-%s (%d):
    wr_id %d syndrom 0x%x"; "Poll send CQ error status=%u qp %d"; -R's "Bad wc status -- %d -- %d"),
    ``status`` its ibv_wc_status number."""

    kind: Literal["perftest_failure"] = "perftest_failure"
    stage: Literal["connection", "device", "resources", "qp_transition", "completion"]
    message: str  # perftest's own words
    peer: str | None = None  # host:port of "Couldn't connect to"
    side: str | None = None  # "client" / "server" of a completion error
    status: int | None = None  # ibv_wc_status of the failed completion
    status_name: str | None = None
    syndrome: int | None = None  # the vendor syndrome perftest printed
    #: a resources failure after perftest allocated its buffer in GPU memory (--use_cuda, --use_rocm):
    #: "cuMemAlloc() of a %d bytes GPU buffer", "allocated GPU buffer ...", "allocated %lu bytes of GPU
    #: buffer at %p" earlier in the output (src/cuda_memory.c, rocm_memory.c, musa_memory.c): the memory
    #: region that failed is GPU memory, which the HCA registers only through a peer-memory client
    #: (nvidia-peermem / nv_peer_mem) or DMA-BUF
    gpu_buffer: bool = False
    dmabuf: bool = False  # perftest said "using DMA-BUF for GPU buffer" (--use_cuda_dmabuf)
    #: a queue pair's transition that failed after perftest printed its local GID as all zeros (" GID:
    #: 00:00:...:00" under " local address:", an Ethernet link): the port's GID table has no entry at the index
    #: used (-x, 0 by default), so the QP has no RoCE address to move to RTR with
    gid_zero: bool = False


@fact_kind
class EfaProviderAbort(Fact):
    """libfabric's EFA provider reporting an error it could not hand to the application (no event
    queue bound) and aborting: ``efa_base_ep_write_eq_error`` (1.16+: "Libfabric EFA provider has
    encountered an internal error: ... Libfabric error: (%zd) %s / EFA internal error: (%zd) %s";
    before 1.16 rxr's "Unable to write to EQ: %s. err: %s (%zd) prov_errno: %s (%zd) %s:%d")."""

    kind: Literal["efa_provider_abort"] = "efa_provider_abort"
    error: int | None = None  # the libfabric error code (FI_E*)
    error_text: str | None = None
    prov_errno: int | None = None  # the EFA completion status (< 4096) or provider error (>= 4096)
    prov_text: str | None = None  # efa_strerror() / fi_strerror() of it as printed


@fact_kind
class OpenmpiComponentMissing(Fact):
    """Open MPI's, PMIx's or PRRTE's ``find-available:not-valid`` help block: a component (plugin) it
    was told or configured to use could not be found or opened ("A requested component was not
    found, or was unable to be opened ... Framework: psec Component: munge")."""

    kind: Literal["openmpi_component_missing"] = "openmpi_component_missing"
    project: str | None = None  # who stopped checking: "PMIx", "PMIX", "Open MPI", "ORTE", "PRTE"
    framework: str
    component: str


@fact_kind
class OpenmpiInitFailed(Fact):
    """Open MPI's or PMIx's ``...:startup:internal-failure`` help block: "It looks like <layer> failed
    for some reason; your parallel process is likely to abort", with the step and value it names."""

    kind: Literal["openmpi_init_failed"] = "openmpi_init_failed"
    layer: str  # pmix_init, opal_init, orte_init, MPI_INIT, ...
    failed: str | None = None  # "pmix_psec_base_open failed"
    returned: str | None = None  # "-46"


@fact_kind
class OpenmpiPmlMismatch(Fact):
    """Open MPI's MPI_INIT check that all processes chose the same point-to-point layer (PML) failed:
    ``[[64574,1],8] selected pml cm, but peer [[64574,1],0] on ndv2-1 selected pml ucx``; the
    processes cannot talk to each other and MPI_INIT fails."""

    kind: Literal["openmpi_pml_mismatch"] = "openmpi_pml_mismatch"
    local_pml: str  # "cm", "ob1", "ucx"
    peer_pml: str
    peer_host: str | None = None  # None when Open MPI printed "unknown"


@fact_kind
class OpenmpiCudaCallFailed(Fact):
    """Open MPI's CUDA support (common/cuda, the smcuda BTL) reports a CUDA driver call that failed on the
    ranks' GPU buffers (help-mpi-common-cuda.txt: ``The call to cuIpcOpenMemHandle failed. This is an
    unrecoverable error ...``), or mpirun's count of processes that printed the same help message."""

    kind: Literal["openmpi_cuda_call_failed"] = "openmpi_cuda_call_failed"
    call: str  # the CUDA driver function: "cuIpcGetMemHandle", "cuIpcOpenMemHandle", "cuMemHostRegister"
    topic: str | None = None  # the help file's tag, when read from mpirun's aggregation line ("cuIpcGetMemHandle failed")
    return_value: int | None = None  # the CUresult the block prints
    return_name: str | None = None  # its name (CUDA_ERROR_INVALID_VALUE), by knowledge/cuda_errors.yaml
    aborts: bool = False  # the help text says the error is unrecoverable and the program aborts
    copies: int = 0  # further copies mpirun's aggregation lines count (summed over its reports), 0 for a block
    host: str | None = None  # the host of mpirun's "[host:pid]" prefix
    detail: str = ""  # the above in words, for the report


@fact_kind
class IbGidCount(Fact):
    """``n_gids_found=N``: how many GID entries show_gids found on all ports."""

    kind: Literal["ib_gid_count"] = "ib_gid_count"
    count: int


@fact_kind
class UcxVerbsFailure(Fact):
    """One failed verbs call as UCX logged it."""

    kind: Literal["ucx_verbs_failure"] = "ucx_verbs_failure"
    verb: str  # "ibv_create_cq", "ibv_reg_mr", "mlx5dv_create_cq"
    device: str | None = None  # "mlx5_0" (UCX 1.13 and later)
    error: str  # "Cannot allocate memory"
    memlock_kb: int | None = None  # the locked-memory limit UCX printed with an ENOMEM
    qp_type: str | None = None  # "UD", "RC", "SRD": the transport's QP UCX could not create (verb ibv_create_qp)
    returned: int | None = None  # the call's return value where UCX printed it ("ibv_query_device(%s) returned %d: %m")
    #: an MLNX_OFED legacy experimental verb (ibv_exp_*): UCX built against the experimental verbs API that MLNX_OFED
    #: 5.x and upstream rdma-core no longer provide
    experimental: bool = False
    #: what UCX printed between the call's parentheses: "cqe=4096", an address handle's attributes ("dlid=49152 sl=0
    #: port=1 src_path_bits=0 dgid=... sgid_index=3 traffic_class=106"); None where it printed none
    arguments: str | None = None
    purpose: str | None = None  # what the call was for, where UCX says (1.12+ "for UD verbs connect")


@fact_kind
class OpenmpiUcxPeerFailed(Fact):
    """Open MPI's UCX components could not reach a peer rank (ompi/mca/pml/ucx/pml_ucx.c,
    oshmem/mca/spml/ucx/spml_ucx.c; MCA_COMMON_UCX_ERROR's "<file>:<line> Error: "): ``stage``
    endpoint: "ucp_ep_create(proc=N) failed: <ucs_status_string>" (UCX found no transport to the
    peer's worker address, or could not connect it); address: "Failed to receive UCX worker address:
    <opal_strerror> (<code>)" (the peer's address was not in the job's key-value exchange); resolve:
    "Failed to resolve UCX endpoint for rank N" / "add procs FAILED rc=N" with neither before it in
    the file."""

    kind: Literal["openmpi_ucx_peer_failed"] = "openmpi_ucx_peer_failed"
    stage: Literal["endpoint", "address", "resolve"]
    layer: str  # "pml" (MPI point-to-point), "spml" (OpenSHMEM), "osc", "common"
    peer_rank: int | None = None  # proc=N of ucp_ep_create, "for rank N"
    status: str | None = None  # "Destination is unreachable", "Not found"


@fact_kind
class UcxEndpointError(Fact):
    """UCX reported an error on a UCP endpoint to a peer through the endpoint's error callback, as UCX-Py logs it
    (ucp/_libs/ucx_endpoint.pyx _err_cb, 0.21 and later: "Error callback for endpoint %s called with status %d: %s",
    the ucs_status_t and ucs_status_string): the endpoint is closed and its pending messages are cancelled."""

    kind: Literal["ucx_endpoint_error"] = "ucx_endpoint_error"
    status_code: int  # the ucs_status_t: -6 UCS_ERR_UNREACHABLE, -25 UCS_ERR_CONNECTION_RESET, -80 UCS_ERR_ENDPOINT_TIMEOUT
    status: str  # ucs_status_string's text: "Destination is unreachable"
    endpoint: str | None = None  # the ucp_ep_h, "0x2b492843d3c8"
    binding: str = "ucx-py"


@fact_kind
class UcxNoUsableTransport(Fact):
    """UCX could not create its context: none of the transports and devices it was asked for is on this node
    (src/ucp/core/ucp_context.c ucp_check_resources: "no usable transports/devices (asked %s)", UCS_ERR_NO_DEVICE).
    UCX_TLS (or the MPI's default for it) names transports this node or this UCX build lacks (rc, dc_x, ud without an
    InfiniBand device whose port is up, knem without its kernel module), or UCX_NET_DEVICES names a device it does not
    have; the warning before it says which ("transports 'knem','dc_x','rc' are not available, please use one or more
    of: ..."). The MPI using UCX then fails in MPI_Init."""

    kind: Literal["ucx_no_usable_transport"] = "ucx_no_usable_transport"
    asked: str  # what UCX printed it was asked: "knem,dc_x,rc on all devices"
    asked_transports: str | None = None  # UCX_TLS's names as printed, "knem,dc_x,rc"; None when it allowed all
    asked_devices: str = "all devices"  # "all devices", or "network:mlx5_ib0:1"
    unavailable: str | None = None  # the asked transports the warning says this node lacks, "knem, dc_x, rc"
    available: str | None = None  # the transports the warning says it has, "mm, posix, self, ..."
    warning: str = "no warning before it"  # the two lists in words, for the report


@fact_kind
class UcxDeviceLaneMissing(Fact):
    """UCX's GPU-initiated (device) API found no transport lane for a GPU's memory on an endpoint
    (src/ucp/core/ucp_device.c): UCX 1.20's "failed to select lane for local device %s" (the GPU
    as UCX's topology names it, "GPU0") and 1.21's "no lane found for ep=%p"; UCX_TLS left out
    the transports that reach GPU memory (cuda_ipc over NVLink / multi-node NVLink, the
    GPUDirect RDMA ones), or this UCX has none. The device memory handle the caller asked for
    (NIXL EP, a GPU-initiated kernel) is not created ("failed to create handle: No such device")."""

    kind: Literal["ucx_device_lane_missing"] = "ucx_device_lane_missing"
    device: str | None = None  # "GPU0" (1.20's form); 1.21's names the endpoint only


@fact_kind
class UcxSocketConnectFailed(Fact):
    """UCX's ``connect(fd=N, dest_addr=<ip>:<port>) failed: <strerror>``: a TCP connection to a peer's
    address (its tcp transport, sockcm, the peers' wire-up) did not open."""

    kind: Literal["ucx_socket_connect_failed"] = "ucx_socket_connect_failed"
    address: str  # "172.17.0.1"
    port: int
    error: str  # "Connection refused"
    #: the address is on Docker's default bridge (172.17.0.0/16), which every Docker host has as its own
    docker_bridge: bool = False


@fact_kind
class NixlError(Fact):
    """NIXL (NVIDIA's inference transfer library: the KV-cache transfer between prefill and decode engines of
    vLLM, SGLang, TensorRT-LLM and Dynamo) raised one of its status exceptions to Python (src/bindings/python/nixl_bindings.cpp:
    ``py::register_exception<nixlBackendError>(m, "nixlBackendError")``, ..., the message the status's name):
    ``nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND`` as a traceback ends, ``nixlBackendError('NIXL_ERR_BACKEND')``
    as an engine logs the exception's repr. NIXL_ERR_BACKEND says only that the backend (UCX, GDS, ...) failed:
    creating it, registering memory or connecting to a peer; the backend's own line beside it says which."""

    kind: Literal["nixl_error"] = "nixl_error"
    exception: str  # "nixlBackendError"
    status: str  # "NIXL_ERR_BACKEND"
    #: the NIXL call the traceback's last frame shows raising it, its source line right above the exception's line
    #: ("    self.agent.registerMem(reg_descs, handle_list)": "registerMem"); None: no frame shown
    call: str | None = None


@fact_kind
class UcxCompletionError(Fact):
    """One failed work completion as UCX's mlx5 transport logged it (the error CQE's syndrome)."""

    kind: Literal["ucx_completion_error"] = "ucx_completion_error"
    status: int  # libibverbs' ibv_wc_status: 12 for synd 0x15 or "transport retry counter exceeded"
    syndrome: int | None = None  # 0x15 (mlx5 transports; the verbs transports print none)
    vendor_err: int | None = None  # 0x81 (when printed)
    message: str  # UCX's text: "Transport retry count exceeded", or ibv_wc_status_str(): "transport retry counter exceeded"
    transport: Literal["mlx5", "verbs"] = "mlx5"  # the mlx5 transports' CQE syndrome, or the verbs transports' status string
    device: str | None = None  # "mlx5_0" (v1.5 and later)
    port: int | None = None
    link_layer: str | None = None  # "IB" or "RoCE" (v1.8 and later)
    qp_type: str | None = None  # "RC", "DCI", "UD" (v1.8+'s second line)
    opcode: str | None = None  # "SEND", "RDMA_READ", "RDMA_WRITE"


@fact_kind
class UcxRkeyEndpointMismatch(Fact):
    """UCX's parameter check refused a one-sided operation (put, get, atomic) whose remote key the program
    unpacked on another endpoint than the one it used it on (src/ucp/rma/rma.inl UCP_RKEY_RESOLVE, built with
    ENABLE_PARAMS_CHECK: "cannot use a remote key on a different endpoint than it was unpacked on", returning
    UCS_ERR_INVALID_PARAM; the protocol v2 scatter-gather check: "sgl[N]: rkey 0x.. was unpacked on ep 0x.., but
    sgl[0] rkey 0x.. was unpacked on ep 0x.., all rkeys must belong to the same endpoint"): a misuse of UCX's API
    by the program or its library (an MPI one-sided window, OpenSHMEM), no fault of the network."""

    kind: Literal["ucx_rkey_endpoint_mismatch"] = "ucx_rkey_endpoint_mismatch"
    form: Literal["resolve", "sgl"] = "resolve"


@fact_kind
class UcxMemtypeCopyMissing(Fact):
    """UCX found no transport that copies between host and GPU memory when it set up a worker or an
    endpoint (src/ucp/wireup/select.c: "no copy across memory types transport to %s: %s", the peer
    and each transport's reason after it). The process has GPU memory types in play (UCX's CUDA or
    ROCm memory domain detected it), but no cuda_copy / rocm_copy transport is usable: UCX_TLS left
    it out, or this UCX's CUDA/ROCm transport module was not built or did not load. Open MPI's
    pml ucx then fails "Failed to create UCP worker" and "PML ucx cannot be selected"."""

    kind: Literal["ucx_memtype_copy_missing"] = "ucx_memtype_copy_missing"
    peer: str | None = None  # "prm-dgx-10:9574"; None for UCX 1.3's "<no debug data>"
    reason: str | None = None  # "Unsupported operation", or the first transport's reason
    pml_not_selected: bool = False  # Open MPI's "Failed to create UCP worker" / "PML ucx cannot be selected" followed


@fact_kind
class UcxCudaIpcOpenFailed(Fact):
    """UCX's cuda_ipc transport could not map a peer process's GPU buffer (src/uct/cuda/cuda_ipc/cuda_ipc_cache.c):
    "<cache>: failed to open ipc mem handle. addr:%p len:%lu[ (<ucs status>)]" (ucs_fatal: the process aborts),
    or the driver call under it, "cuIpcOpenMemHandle() failed: <CUDA error string>". ``status``
    "Element already exists" is CUDA_ERROR_ALREADY_MAPPED (UCS_ERR_ALREADY_EXISTS): that peer's handle
    is already open in this process's context (the program or another library opened it itself;
    CUDA allows one open per context per peer process), and UCX's purge-and-retry did not help."""

    kind: Literal["ucx_cuda_ipc_open_failed"] = "ucx_cuda_ipc_open_failed"
    cache: str | None = None  # the cache's name: "dest:5221" (the peer's pid), or the cache name newer releases print
    address: str | None = None  # "0x7f7647415c00"
    length: int | None = None  # bytes
    status: str | None = None  # "Element already exists", or the CUDA error string of cuIpcOpenMemHandle()
    already_mapped: bool = False  # status says the handle is open already (UCS_ERR_ALREADY_EXISTS / CUDA_ERROR_ALREADY_MAPPED)


@fact_kind
class UcxAssertionFailed(Fact):
    """UCX stopped the process on one of its own checks (src/ucs/debug/assert.h: ucs_assert / ucs_assert_always
    "Assertion `%s' failed", ucs_assertv "Assertion `%s' failed: <fmt>", ucs_bug "Bug: <fmt>"; assert.c
    ucs_fatal_error_message prints "%13s:%-4u %s" behind log.c's "[host:pid:thread:tid] " prefix, then
    ucs_handle_error's backtrace, then abort()). ``frame`` is the backtrace's first frame past UCX's own error
    handling (ucs_handle_error, ucs_fatal_error_*, __ucs_abort): where the check sits; ``cuda_transport`` says the
    backtrace runs through UCX's CUDA transports (libuct_cuda: cuda_copy, cuda_ipc, gdr_copy)."""

    kind: Literal["ucx_assertion_failed"] = "ucx_assertion_failed"
    check: Literal["assertion", "bug"] = "assertion"
    source: str  # the source file's base name: "rndv.c", "ucp_ep.inl"
    source_line: int
    condition: str | None = None  # the expression of an assertion: "mem_type_rma_lane != ((ucp_lane_index_t)-1)"
    message: str | None = None  # ucs_assertv's text after "failed: ", or ucs_bug's text
    frame: str | None = None  # "ucp_rndv_rtr_handler", "libucp.so.0+0x444f0"
    cuda_transport: bool = False


@fact_kind
class MpichAbort(Fact):
    """An MPICH-derived MPI aborted a rank with its error line (src/mpi/errhan: MPIR_Handle_fatal_error;
    Cray MPICH's "MPICH ERROR [Rank N] [job id J] [<date>] [<host>] - Abort(<code>) (rank N in comm C):
    <function>: <message>", then "aborting job:" and the message again). ``reason`` names what the
    message says where a rule needs it: ``gtl_not_linked`` for Cray MPICH's "MPIDI_CRAY_init:
    GPU_SUPPORT_ENABLED is requested, but GTL library is not linked" (MPICH_GPU_SUPPORT_ENABLED=1 in a
    program not linked with the GPU Transport Layer, libmpi_gtl_cuda / libmpi_gtl_hsa)."""

    kind: Literal["mpich_abort"] = "mpich_abort"
    rank: int | None = None
    function: str | None = None  # "MPIDI_CRAY_init"
    message: str  # "GPU_SUPPORT_ENABLED is requested, but GTL library is not linked"
    code: int | None = None  # Abort(<code>)
    job_id: str | None = None
    reason: Literal["gtl_not_linked", "other"] = "other"
    #: MPICH's error stack after "Fatal error in <function>: ..., error stack:": its deepest frame's message
    #: ("ucx function returned with failed status(ucx_init.c 219 MPIDI_UCX_init_local No such device)")
    stack_error: str | None = None
    in_init: bool = False  # the fatal error was in MPI_Init / MPI_Init_thread (MPICH's internal_Init*, PMPI_Init*)


@fact_kind
class DevlinkHealthReporter(Fact):
    """One health reporter of ``devlink health show`` (facts/parsers/devlink_health.py): a NIC
    driver's error class (mlx5: tx, rx, fw, fw_fatal), its state and how many errors it reported
    and recovered since the driver loaded."""

    kind: Literal["devlink_health_reporter"] = "devlink_health_reporter"
    handle: str  # "pci/0000:04:00.0", a port's "pci/0000:00:0a.0/1"
    pci_bus_id: str | None = None
    reporter: str  # "tx", "rx", "fw", "fw_fatal"
    state: str  # "healthy" | "error"
    errors: int
    recovered: int
    auto_recover: bool | None = None  # None: the reporter has no recover callback (fw) or the paste omits it


@fact_kind
class ExporterCollectorFailed(Fact):
    """node_exporter's report that its InfiniBand collector failed (facts/parsers/node_exporter_ib.py):
    ``infiniband collector failed after 0.000929s: strconv.ParseUint: parsing "N/A (no PMA)": invalid
    syntax``. Every series of that collector is missing from the scrape it failed in; the error is the
    exporter's, and says nothing of the ports' health."""

    kind: Literal["exporter_collector_failed"] = "exporter_collector_failed"
    exporter: str  # "node_exporter"
    collector: str  # "infiniband"
    error: str  # the collector's error text
    #: the error quotes the kernel's "N/A (no PMA)", the value sysfs gives for a port counter when the
    #: device has no performance management agent (iWARP, RoCE-only and EFA devices) or it did not answer
    counter_unavailable: bool = False


@fact_kind
class SharpError(Fact):
    """An error of NVIDIA SHARP (the in-network reduction NCCL's CollNet uses through the RDMA/SHARP net plugin)
    in its own log form (facts/parsers/sharp_log.py): the SHARP library's (libsharp / libsharp_coll, linked into
    every rank: ``[snail01:0:3745196 unique id 9370583446459220315][2024-09-24 16:15:29] ERROR Job error in
    sharp_get_job_data_len.``) or the SHARP Aggregation Manager's (sharp_am, beside the subnet manager: ``[snail01][Sep
    24 16:15:29 847428][GENERAL][3745742][warn ] - Begin job id: ... failed with status: No resource``). The job's
    SHARP resources were not granted or its trees not set up: CollNet falls back to the point-to-point network."""

    kind: Literal["sharp_error"] = "sharp_error"
    source: Literal["libsharp", "sharp_am"]
    level: str  # "ERROR" (libsharp), "error" / "warn" (sharp_am: only a job's failure is read at warn)
    message: str  # the text after the level ("Job error in sharp_get_job_data_len."), may be empty (a cut paste)
    job_id: str | None = None  # libsharp's "unique id N", sharp_am's "job id: N"
    status: str | None = None  # sharp_am's "failed with status: No resource"
    hca: str | None = None  # "mlx5_0" where the message names a device ("device mlx5_0 port 1")
    port: int | None = None


@fact_kind
class MpiCmaCopyFailed(Fact):
    """Open MPI's shared-memory transport failing to copy a message straight from (or into) its peer's memory with CMA
    (cross-memory attach: process_vm_readv / process_vm_writev): the vader BTL's ``Read -1, expected 549888, errno = 14``
    / ``Wrote ...`` (Open MPI 2.x-4.x, opal_output), Open MPI 5's smsc/cma ``CMA wrote -1, expected N, errno = E`` /
    ``CMA read ...``. One fact per host and errno, the lines counted; the copy fails and the transfer with it."""

    kind: Literal["mpi_cma_copy_failed"] = "mpi_cma_copy_failed"
    op: Literal["read", "write"]
    errno: int  # 1 EPERM (the kernel refused the peer's memory), 14 EFAULT (an address not readable there), 3 ESRCH
    expected_bytes: int | None = None  # the first failing copy's size
    count: int = 1  # the lines of this host and errno
