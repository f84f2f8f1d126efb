"""GPU state and events as the driver's tools report them: nvidia-smi (query, table, NVLink,
topology, reset, utilisation), NVML, nvtop, nvidia-persistenced and the fabric manager.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class FabricManagerVersionMismatch(Fact):
    """Fabric manager refuses to start: its driver interface version is not the loaded driver's."""

    kind: Literal["fabric_manager_version_mismatch"] = "fabric_manager_version_mismatch"
    fabric_manager_version: str  # "530.30.02"
    driver_version: str  # "530.41.03"


@fact_kind
class FabricManagerNoNvswitch(Fact):
    """``NV_WARN_NOTHING_TO_DO``: the NVSwitch driver has no NVSwitch to report."""

    kind: Literal["fabric_manager_no_nvswitch"] = "fabric_manager_no_nvswitch"
    message: str


@fact_kind
class FabricManagerError(Fact):
    """Another error fabric manager logged (``[ERROR]`` lines, failures in its journal)."""

    kind: Literal["fabric_manager_error"] = "fabric_manager_error"
    category: str  # nvlink_training | nvswitch_missing | multicast | config | gpu_nvlink_fatal | other
    message: str
    timestamp: str | None = None


@fact_kind
class ImexError(Fact):
    """An ``[ERROR]``/``[FATAL]`` line of the IMEX daemon (``nvidia-imex``) of a multi-node NVLink domain."""

    kind: Literal["imex_error"] = "imex_error"
    level: str  # ERROR | FATAL
    category: str  # memory_export_import | peer_connection | config | other
    message: str
    peer_node: int | None = None  # the IMEX peer ("node id N") the line names
    timestamp: str | None = None


@fact_kind
class ImexDomainStatus(Fact):
    """The IMEX domain as one node's daemon reports it (``nvidia-imex-ctl -N``): each listed node's
    daemon status, the connectivity matrix between the nodes and the domain's state."""

    kind: Literal["imex_domain_status"] = "imex_domain_status"
    state: str | None = None  # "Domain State:" UP | DOWN | DEGRADED (None: the paste stops before it)
    nodes: int = 0  # nodes listed under "Nodes:"
    nodes_ready: int = 0  # of them, whose daemon status is READY
    links: int = 0  # cells of the connectivity matrix read (from -> to)
    links_connected: int = 0  # of them, C (Connected - Ready for operation)
    #: the nodes not READY or with a cell not C in their row or column: "#1 1.1.1.2 UNAVAILABLE", "#2 (0->2 N)", ...
    problem_nodes: str = ""
    problem_count: int = 0  # how many nodes problem_nodes names
    versions: str = ""  # the daemons' versions the node rows print ("Version: 570.172"), distinct, joined with ", "


@fact_kind
class FabricManagerStatus(Fact):
    """The service's or its systemd unit's state as logged or shown by ``systemctl status``."""

    kind: Literal["fabric_manager_status"] = "fabric_manager_status"
    status: str  # configured | started | stopped | unit_failed | unit_active | unit_inactive
    detail: str | None = None  # "status=1/FAILURE", "exit-code", "running"
    #: a ``configured`` the same log shows the service stopping after ('Stopping ...', 'Stopped ...'): not its last state
    stopped_after: bool | None = None


class GpuFact(Fact):
    """Shared field of every GPU-state fact (not itself a fact kind)."""

    pci_bus_id: str


@fact_kind
class GpuInfo(GpuFact):
    """Identity of one GPU block: ``GPU 00000000:00:06.0``. Fields a ``-d`` output lacks are None."""

    kind: Literal["gpu_info"] = "gpu_info"
    index: int | None = None  # order in the file, when the file lists every attached GPU
    name: str | None = None
    uuid: str | None = None
    serial: str | None = None
    vbios: str | None = None
    driver_version: str | None = None
    cuda_version: str | None = None
    taken_at: str | None = None  # the reading's "Timestamp : Sun Nov 29 18:29:12 2026" (two readings make a rate)
    product_architecture: str | None = None
    persistence_mode: bool | None = None
    recovery_action: str | None = None  # "GPU Recovery Action : None" (R550+)
    reset_required: bool | None = None  # "GPU Reset Status / Reset Required"
    drain_and_reset_recommended: bool | None = None


@fact_kind
class GpuClockReason(GpuFact):
    """``SW Power Cap : Active`` under ``Clocks Event Reasons`` (older: ``Clocks Throttle Reasons``)."""

    kind: Literal["gpu_clock_reason"] = "gpu_clock_reason"
    reason: str  # gpu_idle, sw_power_cap, hw_slowdown, hw_thermal_slowdown, ...
    active: bool
    counter_us: int | None = None  # time spent in this reason, from "... Reasons Counters"
    section_name: str  # "Clocks Event Reasons" or "Clocks Throttle Reasons"
    # hw_slowdown only: whether the GPU's block gave either sub-reason ("HW Thermal Slowdown",
    # "HW Power Brake Slowdown") as Active / Not Active; False where they are absent or "N/A"
    # (older drivers and GPUs: NVIDIA/nvidia-docker#1090); None for every other reason
    sub_reasons_read: bool | None = None
    #: whether the GPU's block gave a reason of power or heat (SW Power Cap, HW Slowdown, SW / HW Thermal
    #: Slowdown, HW Power Brake Slowdown): False where it did not (a block cut after its first rows, 'Idle',
    #: 'Applications Clocks Setting'), which says nothing of throttling (knowledge/coverage.yaml); None: not told
    power_thermal_read: bool | None = None


@fact_kind
class GpuClockReasons(GpuFact):
    """A GPU block's clocks event reasons as one fact: each True (Active), False (Not Active), None (not shown).

    Issue 12's summary for a healthy entity: the reasons of NVML's mask, "N/A" as None. Rules that
    need a reason Not Active (HW Slowdown's sub-reasons) and engine code (a benchmark's pinned
    clocks) read this; a ``gpu_clock_reason`` is kept only where a rule binds it (an active reason).
    Evidence: the block's first reason line."""

    kind: Literal["gpu_clock_reasons"] = "gpu_clock_reasons"
    section_name: str  # "Clocks Event Reasons" or "Clocks Throttle Reasons"
    gpu_idle: bool | None = None
    applications_clocks_setting: bool | None = None
    sw_power_cap: bool | None = None
    hw_slowdown: bool | None = None
    sync_boost: bool | None = None
    sw_thermal_slowdown: bool | None = None
    hw_thermal_slowdown: bool | None = None
    hw_power_brake_slowdown: bool | None = None
    display_clock_setting: bool | None = None


@fact_kind
class GpuTemperature(GpuFact):
    """``GPU Current Temp : 32 C``. R565+ prints the limits only relative to T.Limit
    (``GPU Shutdown T.Limit Temp : -8 C``); those go to the ``*_tlimit_c`` fields, and the
    absolute ``shutdown_c``/``slowdown_c``/... stay None."""

    kind: Literal["gpu_temperature"] = "gpu_temperature"
    gpu_temp_c: int | None = None
    memory_temp_c: int | None = None
    shutdown_c: int | None = None
    slowdown_c: int | None = None
    max_operating_c: int | None = None
    max_memory_c: int | None = None
    tlimit_c: int | None = None  # margin below the slowdown limit ("GPU T.Limit Temp")
    shutdown_tlimit_c: int | None = None
    slowdown_tlimit_c: int | None = None
    max_operating_tlimit_c: int | None = None
    max_memory_tlimit_c: int | None = None


@fact_kind
class GpuPower(GpuFact):
    """``GPU Power Readings`` (older ``Power Readings``); evidence is the section line."""

    kind: Literal["gpu_power"] = "gpu_power"
    draw_w: float | None = None  # instantaneous draw, else "Power Draw", else the average
    average_draw_w: float | None = None
    current_limit_w: float | None = None  # "Current Power Limit" (older: "Power Limit")
    requested_limit_w: float | None = None  # "Requested Power Limit" (older: "Power Limit")
    enforced_limit_w: float | None = None  # "Enforced Power Limit" (newer: "Current Power Limit")
    default_limit_w: float | None = None
    min_limit_w: float | None = None
    max_limit_w: float | None = None
    #: the reported draw (the average where one is given, else ``draw_w``) over the enforced limit, else the
    #: current one, to 3 decimals; None where either is missing or the limit is 0
    draw_to_limit: float | None = None
    #: knowledge/gpu_power.yaml: from this ratio up the reading is no real draw (a sensor or driver misreport);
    #: set with ``draw_to_limit``
    implausible_draw_to_limit: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _ratio(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("draw_to_limit") is not None:
            return data
        draw = data.get("average_draw_w")
        draw = data.get("draw_w") if draw is None else draw
        limit = data.get("enforced_limit_w")
        limit = data.get("current_limit_w") if limit is None else limit
        if not isinstance(draw, (int, float)) or not isinstance(limit, (int, float)) or limit <= 0:
            return data
        if data.get("implausible_draw_to_limit") is None:
            from stethoscope.facts import knowledge  # lazy: kinds import no knowledge at import time (test_import_contract)

            data = {**data, "implausible_draw_to_limit": knowledge.load("gpu_power.yaml").implausible_draw_to_limit}
        return {**data, "draw_to_limit": round(draw / limit, 3)}


@fact_kind
class GpuEccMode(GpuFact):
    """``ECC Mode`` / ``Current : Enabled``; evidence is the ``Current`` line."""

    kind: Literal["gpu_ecc_mode"] = "gpu_ecc_mode"
    current_enabled: bool | None = None
    pending_enabled: bool | None = None


@fact_kind
class GpuEccCount(GpuFact):
    """One ECC counter line: ``DRAM Uncorrectable : 0`` under ``Volatile``; older drivers
    ``Device Memory : 3`` under ``Single Bit`` (correctable) / ``Double Bit`` (uncorrectable)."""

    kind: Literal["gpu_ecc_count"] = "gpu_ecc_count"
    scope: Literal["volatile", "aggregate"]
    error_type: Literal["correctable", "uncorrectable"]
    location: str  # sram, dram, sram_parity, sram_secded, device_memory, l2_cache, total, ...
    count: int | None = None
    #: whether the GPU's ECC Errors block gave an uncorrectable count of its device memory ('DRAM Uncorrectable';
    #: older: 'Double Bit' / 'Device Memory'): False where it did not (a block cut after its SRAM counters), which
    #: says nothing of the memory (knowledge/coverage.yaml); None: not told
    device_memory_read: bool | None = None


@fact_kind
class GpuEccThreshold(GpuFact):
    """``SRAM Threshold Exceeded : No`` (aggregate SRAM uncorrectable errors over the RMA threshold)."""

    kind: Literal["gpu_ecc_threshold"] = "gpu_ecc_threshold"
    sram_threshold_exceeded: bool | None = None


@fact_kind
class GpuMemoryRepair(GpuFact):
    """``Channel Repair Pending`` / ``TPC Repair Pending`` / ``Unrepairable Memory`` (R575+)."""

    kind: Literal["gpu_memory_repair"] = "gpu_memory_repair"
    channel_repair_pending: bool | None = None
    tpc_repair_pending: bool | None = None
    unrepairable_memory: bool | None = None


@fact_kind
class GpuRetiredPages(GpuFact):
    """``Retired Pages`` (pre-Ampere page retirement); evidence is the section line."""

    kind: Literal["gpu_retired_pages"] = "gpu_retired_pages"
    sbe_pages: int | None = None
    dbe_pages: int | None = None
    #: both counts added (what DCGM's retired-pages limit counts), when both were read
    retired_pages: int | None = None
    pending: bool | None = None


@fact_kind
class GpuRowRemap(GpuFact):
    """``Remapped Rows`` (Ampere and later); evidence is the ``Pending`` line."""

    kind: Literal["gpu_row_remap"] = "gpu_row_remap"
    correctable_rows: int | None = None
    uncorrectable_rows: int | None = None
    inactive_correctable_rows: int | None = None
    inactive_uncorrectable_rows: int | None = None
    pending: bool | None = None
    failure: bool | None = None
    bank_max: int | None = None
    bank_high: int | None = None
    bank_partial: int | None = None
    bank_low: int | None = None
    bank_none: int | None = None
    #: whether the reading tells if a bank ran out of spare rows (what row_remap_spares_exhausted judges): True where its
    #: Bank Remap Availability Histogram was read, or where every count of remapped rows it shows is 0 with both the
    #: correctable and the uncorrectable one shown (no spare row used: each bank at Max, NVML nvmlRowRemapperHistogramValues_t
    #: 'all reserved rows are available'); False where rows were remapped, or a count is not shown, and no histogram was
    #: read (a block cut before it, or pasted from below its head: session 26 A8), which says nothing of the spares
    #: (knowledge/coverage.yaml); None: not told
    banks_known: bool | None = None


@fact_kind
class GpuPcieLink(GpuFact):
    """``PCIe Generation`` / ``Link Width`` and replay counters; evidence is the generation
    ``Current`` line. None where nvidia-smi printed N/A (e.g. inside some VMs)."""

    kind: Literal["gpu_pcie_link"] = "gpu_pcie_link"
    gen_current: int | None = None
    gen_max: int | None = None
    gen_device_current: int | None = None
    gen_device_max: int | None = None
    gen_host_max: int | None = None
    width_current: int | None = None  # "16x" -> 16
    width_max: int | None = None
    #: the link trained narrower than the GPU's maximum (width, unlike generation, does not fall at idle)
    width_below_max: bool | None = None
    replay_counter: int | None = None
    replay_rollover: int | None = None


@fact_kind
class GpuFabric(GpuFact):
    """``Fabric`` (NVLink fabric / IMEX registration); evidence is the ``State`` line."""

    kind: Literal["gpu_fabric"] = "gpu_fabric"
    state: str | None = None  # Completed, In Progress, Not Started, N/A
    status: str | None = None  # Success, N/A, or an error text
    clique_id: str | None = None
    cluster_uuid: str | None = None
    health_summary: str | None = None
    #: whether the section shows its Health (newer drivers' 'Summary' line, 'N/A' included): True; None where it does not but the
    #: GPU's block is whole (a product named: the section as the driver prints it, older drivers print no Health); False
    #: where neither (a grep's or a paste's Fabric cut before its Health), which says nothing of the links (coverage.yaml)
    health_shown: bool | None = None


@fact_kind
class GpuPlatform(GpuFact):
    """Where a GPU sits in a rack-scale system (GB200 / GB300 NVL): ``nvidia-smi -q``'s ``Platform Info``
    (nvmlDeviceGetPlatformInfo, nvmlDeviceGetModuleId). Made only where the block places the GPU (a chassis
    serial, slot, tray or host ID given): other boards print it with every row N/A but a Module Id. Says
    nothing of the GPU's health; a finding may name the place."""

    kind: Literal["gpu_platform"] = "gpu_platform"
    chassis_serial: str | None = None  # "1823825185529"
    slot_number: str | None = None  # the chassis slot of the compute tray ("5"; switch trays counted)
    tray_index: str | None = None  # the compute tray's index ("4")
    host_id: str | None = None  # the host of the tray ("1")
    peer_type: str | None = None  # "Switch Connected" (NVLink through NVSwitch trays)
    module_id: str | None = None  # the GPU's module on its tray ("2"; not in PCI order)
    fabric_guid: str | None = None  # "0x21ac5b6a528f7cf5"


@fact_kind
class GpuClocks(GpuFact):
    """A GPU's clocks as ``nvidia-smi -q`` (``Clocks``, ``Applications Clocks``, ``Default
    Applications Clocks``, ``Max Clocks``) or ``--query-gpu=clocks.*`` shows them: whether
    application clocks were set away from their default says whether a benchmark ran at
    pinned clocks (issue 15: a result taken at unpinned clocks is not comparable)."""

    kind: Literal["gpu_clocks"] = "gpu_clocks"
    graphics_mhz: int | None = None
    sm_mhz: int | None = None
    memory_mhz: int | None = None
    app_graphics_mhz: int | None = None
    app_memory_mhz: int | None = None
    default_app_graphics_mhz: int | None = None
    default_app_memory_mhz: int | None = None
    max_graphics_mhz: int | None = None
    max_memory_mhz: int | None = None
    #: application clocks differ from their defaults (``nvidia-smi -ac``)
    app_clocks_set: bool | None = None


@fact_kind
class PersistencedError(Fact):
    """nvidia-persistenced could not reach the driver or a GPU, or its unit failed to start."""

    kind: Literal["persistenced_error"] = "persistenced_error"
    #: device_query_failed, no_devices, library_missing, device_open_failed, init_failed, unit_failed
    event: str
    pci_bus_id: str | None = None
    message: str


@fact_kind
class VgpuManagerError(Fact):
    """NVIDIA's vGPU manager daemon on a vGPU host (nvidia-vgpu-mgr, the vGPU-KVM driver's) logged an
    error: ``nvidia-vgpu-mgr[20000]: error: vmiop_env_log: Failed to initialize RM client: 0x26``. A
    manager that cannot reach the resource manager starts no vGPU: VMs with a vGPU do not start."""

    kind: Literal["vgpu_manager_error"] = "vgpu_manager_error"
    source: str  # the manager's log channel: "vmiop_env_log"
    error: str  # the error's words, the status code left out: "Failed to initialize RM client"
    status: int | None = None  # the NV_STATUS the line ends with (0x26 = 38)
    status_name: str | None = None  # its NV_ERR_* name (knowledge/nv_status_codes.yaml): "NV_ERR_INVALID_DEVICE"
    message: str


@fact_kind
class VgpuLicenseEvent(Fact):
    """What nvidia-gridd, the vGPU guest's licensing daemon, said about its license: acquired, failed, or a request it
    could not make (``nvidia-gridd: License acquired successfully. (Info: ...)``, ``nvidia-gridd: Failed to acquire
    license from 10.0.0.5``, ``nvidia-gridd: Invalid feature type requested``)."""

    kind: Literal["vgpu_license_event"] = "vgpu_license_event"
    #: acquired | failed | invalid_feature
    event: str
    #: the last event of the file, the state the guest was left in
    last: bool = False
    server: str | None = None  # the license server the line names
    message: str


@fact_kind
class GpuVgpuLicense(GpuFact):
    """A vGPU guest's (or a GRID / vCS driver's) license state as ``nvidia-smi -q`` prints it under ``vGPU Software
    Licensed Product`` (``License Status : Unlicensed (Restricted)``) and ``-q -x`` as ``<license_status>``."""

    kind: Literal["gpu_vgpu_license"] = "gpu_vgpu_license"
    #: licensed | unlicensed_unrestricted (the grace period) | unlicensed_restricted | unlicensed | unknown (NVML's
    #: nvmlGridLicenseState, as DCGM's ConvertNvmlGridLicenseStateToString names it)
    status: str
    license_text: str  # the value as printed: "Licensed (Expiry: 2026-7-7 16:1:44 GMT)"


@fact_kind
class GpuListed(Fact):
    """One GPU as ``nvidia-smi -L`` lists it."""

    kind: Literal["gpu_listed"] = "gpu_listed"
    index: int
    name: str
    uuid: str
    task: str | None = None  # the label of the task that printed it ("PROCID=1", srun -l's "1")
    #: the MIG devices listed under it ("  MIG 1g.5gb     Device  0: (UUID: MIG-...)"); 0 where none is
    mig_devices: int = 0


@fact_kind
class NvlinkLinkState(Fact):
    """One NVLink link's state as ``nvidia-smi nvlink -s`` (or a health check quoting it) shows it."""

    kind: Literal["nvlink_link_state"] = "nvlink_link_state"
    gpu: str | None = None  # "GPU0" (nvidia-smi's index), or the bus id where the source gives one
    gpu_index: int | None = None
    gpu_name: str | None = None  # "NVIDIA H100 PCIe"
    gpu_uuid: str | None = None
    link: int | None = None  # None: the line speaks for all links of the GPU
    all_links: bool = False
    state: Literal["active", "inactive"]
    speed_gbps: float | None = None
    expected: str | None = None  # wired | bridge | unwired | None (product not named or not listed)
    gpu_active_links: int | None = None  # active links of this GPU in the same listing (None: the source shows only some)
    elided: bool = False  # the listing shows only some of this GPU's links: the poster left some out ('......', '[...]'), or the paste stops inside its list
    source: str = "nvidia-smi"  # nvidia-smi | nhc


@fact_kind
class NvlinkErrorCount(Fact):
    """``Link 0: Replay Errors: 0`` of ``nvidia-smi nvlink -e``: one reading of one counter."""

    kind: Literal["nvlink_error_count"] = "nvlink_error_count"
    gpu: str | None = None
    gpu_index: int | None = None
    gpu_name: str | None = None
    gpu_uuid: str | None = None
    link: int
    counter: Literal["replay", "recovery", "crc"]
    value: int
    elided: bool = False  # the listing shows only some of this GPU's links (as nvlink_link_state's)


@fact_kind
class GpuResetRefused(Fact):
    """``nvidia-smi -r`` did not reset a GPU: another client holds it, or the reset is not possible."""

    kind: Literal["gpu_reset_refused"] = "gpu_reset_refused"
    reason: str  # in_use | not_supported | insufficient_permissions | ... | other (nvml_init.REASONS)
    message: str  # as printed: "In use by another client", "is currently in use by another process"
    pci_bus_id: str | None = None  # canonical dddd:bb:dd.f; None for the old form, which names no GPU
    gpu: str  # the bus id, or "this GPU" (old form)
    clients_hint: str | None = None  # what the summary line names as possible holders ("Fabric Manager, CUDA application, ...")


@fact_kind
class GpuResetDone(Fact):
    """``GPU 00000000:C1:00.0 was successfully reset.``"""

    kind: Literal["gpu_reset_done"] = "gpu_reset_done"
    pci_bus_id: str


@fact_kind
class GpuProcInformation(Fact):
    """One GPU as the NVIDIA kernel driver describes it in ``/proc/driver/nvidia/gpus/<bus id>/information``: facts of
    inventory (model, IRQ, UUID, VBIOS, bus, device minor), nothing of the GPU's health. The UUID and VBIOS read as
    question marks ("GPU-????????-...", "??.??.??.??.??") where the driver has not initialised the GPU since it loaded
    (no client opened it, persistence off): no fault by itself."""

    kind: Literal["gpu_proc_information"] = "gpu_proc_information"
    pci_bus_id: str | None = None  # the "Bus Location" line's, else the /proc path's; None where neither was pasted
    model: str | None = None  # "GeForce GTX 650"; "Unknown" where the driver's table does not name the device
    irq: int | None = None
    uuid: str | None = None  # None where the driver printed question marks (not initialised) or the line is missing
    vbios: str | None = None  # "80.07.35.00.80"; None where question marks (not initialised) or missing
    bus_type: str | None = None  # "PCIe", "PCI", "AGP" (older drivers' "Card Type: PCI-E")
    device_minor: int | None = None  # /dev/nvidiaN's N (drivers from about 2015 on)
    firmware: str | None = None  # "GPU Firmware" (GSP firmware's version, R510 on)
    excluded: bool | None = None  # "GPU Excluded: Yes" (NVreg_ExcludedGpus; "Blacklisted" in older drivers)
    initialised: bool  # the driver read the GPU's UUID or VBIOS (no question marks)


@fact_kind
class GpuUsage(Fact):
    """What the summary table shows of a GPU's load: memory, utilisation, performance state, modes."""

    kind: Literal["gpu_usage"] = "gpu_usage"
    pci_bus_id: str
    index: int | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    utilization_pct: int | None = None
    performance_state: str | None = None  # "P0"
    fan_pct: int | None = None
    compute_mode: str | None = None  # Default | Exclusive_Process | Prohibited
    mig_mode: str | None = None  # Enabled | Disabled | None (N/A)
    unreadable_fields: int = 0  # cells nvidia-smi printed as ERR!
    compute_processes: int | None = None  # processes nvidia-smi -q lists under the GPU (its ``Processes`` section)


@fact_kind
class GpuProcessPanel(Fact):
    """The ``Processes:`` table of one nvidia-smi output: how many rows it had."""

    kind: Literal["gpu_process_panel"] = "gpu_process_panel"
    process_rows: int
    says_none_running: bool = False  # "No running processes found"
    printed_empty: bool = False  # neither a row nor that line: processes hidden (another PID namespace)


@fact_kind
class GpuProcess(Fact):
    """One row of the process table: a process holding a GPU."""

    kind: Literal["gpu_process"] = "gpu_process"
    gpu_index: int
    pci_bus_id: str | None = None  # from the GPU rows of the same table
    pid: int
    process_type: str  # C (compute), G (graphics), C+G, M (MPS)
    process_name: str
    used_memory_mib: int | None = None


@fact_kind
class GpuTopoLink(Fact):
    """One cell of ``nvidia-smi topo -m``: how device ``a`` reaches device ``b``."""

    kind: Literal["gpu_topo_link"] = "gpu_topo_link"
    a: str  # "GPU0" | "NIC0" | "mlx5_0"
    b: str  # "GPU1" | "NIC0" | "mlx5_0"
    connection: str  # NV18 | PIX | PXB | PHB | NODE | SYS
    nvlinks: int | None = None
    b_rdma_device: str | None = None  # "mlx5_0" for a NIC, from the legend or the column name
    a_rdma_device: str | None = None


@fact_kind
class GpuTopoAffinity(Fact):
    """The affinity columns of one GPU row of ``nvidia-smi topo -m``, as printed."""

    kind: Literal["gpu_topo_affinity"] = "gpu_topo_affinity"
    gpu: str  # "GPU0"
    cpu_affinity: str | None = None  # "0-47,96-143" | "N/A"
    numa_affinity: str | None = None  # "0" | "6-7" | "N/A"
    gpu_numa_id: str | None = None  # "N/A" except on GPUs with their own NUMA node (Grace)


@fact_kind
class GpuP2pStatus(Fact):
    """One cell of ``nvidia-smi topo -p2p``: may GPU ``a`` use peer access to GPU ``b``."""

    kind: Literal["gpu_p2p_status"] = "gpu_p2p_status"
    a: str  # "GPU0"
    b: str  # "GPU1"
    status: str  # OK | NS | CNS | GNS | TNS | DR | U
    supported: bool | None = None
    capability: str | None = None  # read | write | read_write | nvlink | atomics | prop


@fact_kind
class AccelerateP2pCheck(Fact):
    """Hugging Face Accelerate's check that several RTX 40-series GPUs cannot use NCCL's P2P and InfiniBand
    transports (utils/environment.py ``check_cuda_p2p_ib_support``, 0.27+): refused (``AcceleratorState``
    raises NotImplementedError "Using RTX 4000 series doesn't support faster communication broadband via P2P
    or IB. Please set ..." where NCCL_P2P_DISABLE or NCCL_IB_DISABLE is unset) or warned (``dispatch_model``:
    "We've detected an older driver with an RTX 4000 series GPU. These drivers have issues with P2P.")
    (facts/parsers/accelerate_p2p.py)."""

    kind: Literal["accelerate_p2p_check"] = "accelerate_p2p_check"
    form: Literal["refused", "old_driver"]


@fact_kind
class CudaPeerAccessUnavailable(Fact):
    """CUDA peer access from one GPU to another is not available (cudaDeviceCanAccessPeer said 0), as the
    FasterTransformer allocator and its descendants (TurboMind of lmdeploy, TensorRT-LLM) warn at start-up:
    "Device 0 peer access Device 1 is not available." (facts/parsers/ft_peer_access.py)."""

    kind: Literal["cuda_peer_access_unavailable"] = "cuda_peer_access_unavailable"
    device: int  # the GPU (CUDA ordinal) whose memory pool was being opened to its peers
    peer: int  # the GPU it cannot reach by peer access
    framework: str = "untagged"  # the logger's tag: "TM" (TurboMind), "FT", "TensorRT-LLM"; "untagged" where none
    lines: int = 1  # lines of the file saying it of this pair


@fact_kind
class GpuUtilSeries(Fact):
    """One GPU's utilisation samples in one file, summed up (``nvidia-smi dmon`` / ``--query-gpu -l``)."""

    kind: Literal["gpu_util_series"] = "gpu_util_series"
    index: int
    pci_bus_id: str | None = None  # the CSV's pci.bus_id; None for dmon (index only)
    samples: int
    dips: int  # separate runs of zero samples
    zero_fraction: float
    busy_mean_pct: float  # mean of the non-zero samples (0 when none)
    mean_pct: float  # mean of all samples
    interval_s: float  # seconds between samples (1 unless timestamps say otherwise)
    source: str  # "dmon" or "query-gpu"


@fact_kind
class NvmlInitFailure(Fact):
    """A tool could not initialise NVML (or nvidia-smi could not reach the driver)."""

    kind: Literal["nvml_init_failure"] = "nvml_init_failure"
    reason: str  # driver_library_mismatch | library_not_found | driver_not_loaded | ... | other
    message: str  # as printed: "Driver/library version mismatch"
    source: str  # nvml | nvidia-smi | loader (the dynamic linker) | nvidia-container-cli
    library_version: str | None = None  # "565.57" from a following "NVML library version:" line
    #: printed inside a container: by dcgm-exporter (its own message form, or a log that holds its start
    #: line), which runs as a container
    container: bool = False
    #: the label of the task that printed it, where each task of a step labels its output ("PROCID=2")
    task: str | None = None


@fact_kind
class NvmlDeviceError(Fact):
    """NVML works but cannot reach one GPU: nvidia-smi cannot get its handle, or a tool's query of
    it returned a lost-device error."""

    kind: Literal["nvml_device_error"] = "nvml_device_error"
    reason: str  # gpu_lost | unknown_error | reset_required | insufficient_power | irq_issue | ... | other
    message: str  # the error as printed: "Unknown Error", "ERROR_GPU_IS_LOST"
    source: str  # nvidia-smi | tool
    gpu: str  # the GPU as best named: its bus id, else its UUID, else "GPU1" (nvidia-smi's index)
    query: str | None = None  # "device handle" (nvidia-smi), "remapped rows" (what the tool asked)
    pci_bus_id: str | None = None  # canonical dddd:bb:dd.f
    gpu_index: int | None = None  # nvidia-smi's "GPU1"
    gpu_uuid: str | None = None  # "GPU-ac896b35-5782-c478-4b2a-a661de07770f"


@fact_kind
class NvmlLibraryVersion(Fact):
    """``NVML library version: 565.57``: the user-space library's version, printed on a mismatch."""

    kind: Literal["nvml_library_version"] = "nvml_library_version"
    version: str


@fact_kind
class NvtopDevice(Fact):
    """A GPU as nvtop shows it: ``Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x``."""

    kind: Literal["nvtop_device"] = "nvtop_device"
    index: int  # nvtop's device number
    name: str
    pcie_gen_current: int
    pcie_width_current: int
    temperature_c: int | None = None
    power_draw_w: int | None = None
    power_limit_w: int | None = None


@fact_kind
class GpustatGpu(Fact):
    """A GPU as gpustat shows it, one line: ``[0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |``.
    gpustat names a GPU by NVML's index only; a value it could not read ("??") is None."""

    kind: Literal["gpustat_gpu"] = "gpustat_gpu"
    index: int  # NVML's index (gpustat: "GPUindex (starts from 0) as PCI_BUS_ID")
    name: str
    temperature_c: int | None = None
    fan_pct: int | None = None  # --show-fan
    utilization_pct: int | None = None
    power_draw_w: int | None = None  # --show-power
    power_limit_w: int | None = None  # --show-power (its enforced limit)
    memory_used_mib: int | None = None  # gpustat's "MB" are MiB (bytes // 1024**2)
    memory_total_mib: int | None = None
    processes: int | None = None  # processes listed after the memory column; None: the column not shown


@fact_kind
class MigModeChange(Fact):
    """A MIG mode change asked of one GPU, and where it stood when the artefact ends: mig-parted's
    (k8s-mig-manager's) ``Mode change pending: true``, nvidia-smi's ``Warning: MIG mode is in
    pending enable state for GPU 00000000:07:00.0:In use by another client``, or mig-manager's
    ``MIG mode change did not take effect after rebooting`` (facts/parsers/mig_mode_log.py)."""

    kind: Literal["mig_mode_change"] = "mig_mode_change"
    gpu: str | None = None  # "GPU0" (mig-parted's index) or the canonical PCI bus id; None: the node's
    pci_bus_id: str | None = None
    target_mode: str | None = None  # enabled | disabled, where the artefact says
    state: Literal["pending", "applied", "failed"]
    reason: str | None = None  # nvidia-smi's reason the change is pending ("In use by another client")
