"""GPU health monitors: DCGM (dcgmi diag, health, discovery, dmon, dcgm-exporter), gpud and
the node health check (NHC).

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class DcgmExporterError(Fact):
    """dcgm-exporter logged an error: ``level=fatal msg="Error starting nv-hostengine: DCGM
    initialization error"``. ``exiting``: the exporter ends there (fatal, panic, or its main's
    ``Encountered a failure.``), so nothing it would export is scraped until it restarts."""

    kind: Literal["dcgm_exporter_error"] = "dcgm_exporter_error"
    level: str  # error | fatal | panic
    message: str
    exiting: bool = False
    #: the fields it was asked to watch are ones this node's DCGM cannot serve (_WATCH_UNSUPPORTED)
    watch_unsupported: bool = False
    #: the call failed on DCGM_ST_VER_MISMATCH ("API version mismatch"): the exporter's DCGM bindings and
    #: the DCGM library (or the remote nv-hostengine) disagree on a structure's version (_VER_MISMATCH)
    version_mismatch: bool = False
    #: the call failed on DCGM_ST_CONNECTION_NOT_VALID ("Host engine connection invalid/disconnected"): the
    #: nv-hostengine the exporter reads through is gone, restarted or not yet listening (_HOSTENGINE_LOST)
    hostengine_lost: bool = False
    #: the exporter's pod mapper (Kubernetes mode) could not list the kubelet's pod resources ("failure getting pod
    #: resources", its podMapper transform): the metrics request fails with it, so the scrape returns an error
    pod_resources_failed: bool = False


@fact_kind
class DcgmDiagResult(Fact):
    """One result of ``dcgmi diag``: a test on one GPU (or on all: ``gpu`` absent).

    ``| Memory | Fail - GPU: 0 |`` (DCGM 2-3), ``|  | GPU0: Fail |`` (DCGM 4), or a JSON result."""

    kind: Literal["dcgm_diag_result"] = "dcgm_diag_result"
    test: str  # as dcgmi names it: "Memory", "memory", "nvbandwidth", "PCIe"
    category: str | None = None  # "Deployment", "Hardware", "Integration", "Stress"
    result: Literal["Pass", "Fail", "Warn", "Skip", "Not Run"]
    gpu: int | None = None  # DCGM's GPU id
    gpu_name: str = "all GPUs"  # "GPU0", for entities and summaries
    reason: str | None = None  # the Warning text(s) of this test and GPU, joined
    component: str | None = None  # of a failure of this test (knowledge/dcgm.yaml)
    cause: str | None = None
    not_comparable: bool = False  # the reason says other work disturbed the test
    why: str | None = None
    source: Literal["text", "json"] = "text"
    cut: bool = False  # the table stops inside this result's section (no border after it): its other rows are not shown
    error_code: str | None = None  # the warnings' "error_id" as DCGM names it (-j only): "DCGM_FR_MEMORY_ALLOC", comma-joined
    error_text: str | None = None  # what dcgm_errors.h says of it: "Cannot allocate memory on the GPU" (knowledge/dcgm.yaml error_codes)


@fact_kind
class DcgmError(Fact):
    """A DCGM log line at ERROR level or a DCGM status/failure message printed by dcgmi or an
    exporter: ``09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (...)``,
    ``the third-party profiling module returned an unrecoverable error``."""

    kind: Literal["dcgm_error"] = "dcgm_error"
    message: str
    plugin: str | None = None  # "nvbandwidth"
    gpu: int | None = None
    not_comparable: bool = False
    why: str | None = None
    #: False where the reason matched names no cause of its own (knowledge/dcgm.yaml ``cause_shown``): the
    #: profiling library's unrecoverable error, which says profiling failed, not why
    cause_shown: bool = True
    #: DCGM refused a versioned structure (DCGM_ST_VER_MISMATCH, "API version mismatch"), or the line is
    #: the same failed call's error chain on that thread: DCGM's parts disagree, no GPU reading
    version_mismatch: bool = False


@fact_kind
class DcgmSelfMessage(Fact):
    """A DCGM ERROR line about DCGM itself, after which it goes on by itself (``knowledge/dcgm.yaml``
    self_messages): ``Could not read package diag config. Please ensure the ...-config package is
    installed`` (and its ``Exception: ...`` line), ``Error checking hang state for process 24299: -14``."""

    kind: Literal["dcgm_self_message"] = "dcgm_self_message"
    message: str
    why: str


@fact_kind
class DcgmProfilingRefused(Fact):
    """DCGM's profiling module would not profile a GPU (modules/profiling DcgmModuleProfiling.cpp:
    ValidateGpuArch's ``DCP metrics are supported for Volta, Turing, Ampere or Ada GPUs architectures
    only``, with its DEBUG ``gpuId 4 chip arch 9 is not Volta, Turing, Ampere or Ada.`` before it;
    InitLop's ``Unsupported GPU architecture: 8(device: 0, bus: 181, domain: 0)``; NVIDIA/DCGM#218).
    ``arch`` is DCGM's dcgmChipArchitecture_t number (dcgm_structs.h: 2 Kepler, 3 Maxwell, 4 Pascal,
    5 Volta, 6 Turing, 7 Ampere, 8 Ada, 9 Hopper, 10 Blackwell), None where the log does not give it."""

    kind: Literal["dcgm_profiling_refused"] = "dcgm_profiling_refused"
    arch: int | None = None
    arch_name: str  # "Hopper (architecture 9)"; "an architecture the log does not give" where arch is None
    profiled_generation: bool  # arch is Volta (5) or newer: a generation DCGM profiles
    gpu: int | None = None  # the gpuId of the chip-arch line, where given
    supported: str | None = None  # "Volta, Turing, Ampere or Ada" (the architectures this DCGM build profiles)
    message: str


@fact_kind
class DcgmHealthIncident(Fact):
    """One incident of a DCGM health watch, as nv-hostengine logs it:
    ``Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal
    violation in GPU 2. Verify that the cooling ...'`` (component and cause of its message in
    ``knowledge/dcgm.yaml``, else of its health system)."""

    kind: Literal["dcgm_health_incident"] = "dcgm_health_incident"
    result: Literal["WARNING", "FAILURE"]
    system: str  # as DCGM names it: "Thermal", "PCIe", "NVSwitch fatal errors"
    message: str
    reason: str | None = None  # DCGM_FR_CLOCKS_EVENT_THERMAL (None: a message knowledge lacks)
    gpu: int | None = None  # DCGM's entity id ("in GPU 2"); None for an NVSwitch or when not said
    gpu_name: str = "the GPU DCGM watched"  # "GPU 2", for entities and summaries
    component: str
    cause: str
    severity: str
    actions: str  # comma-separated action ids of its health system


@fact_kind
class DcgmDiscoveredGpu(Fact):
    """One GPU of ``dcgmi discovery -l``: ``| 0 | Name: NVIDIA H800 |`` and the rows below it."""

    kind: Literal["dcgm_discovered_gpu"] = "dcgm_discovered_gpu"
    gpu_id: int  # DCGM's GPU id
    name: str | None = None
    pci_bus_id: str | None = None
    uuid: str | None = None
    status: str | None = None  # DCGM 4 with -a, for a GPU that is not OK: "Lost", "Detached", ...
    last_known: bool = False  # the values are cached ones ("(last known)"): DCGM cannot read the GPU now
    name_unavailable: bool = False  # "Name: <<<NULL>>>"
    attributes_error: str | None = None  # "Error: Cannot get device attributes for GPU." and its Return


@fact_kind
class DcgmDiscoveryCount(Fact):
    """``8 GPUs found.`` / ``0 NvSwitches found.``: how many devices of a kind DCGM sees."""

    kind: Literal["dcgm_discovery_count"] = "dcgm_discovery_count"
    device: Literal["gpu", "nvswitch", "connectx", "cpu"]
    count: int
    active_only: bool | None = None  # DCGM 4: "(Active)" (without -a) or "(All)"


@fact_kind
class DcgmDmonSeries(Fact):
    """One field of one entity over a ``dcgmi dmon`` run; evidence is its first sample."""

    kind: Literal["dcgm_dmon_series"] = "dcgm_dmon_series"
    entity: str  # "GPU 0", "GPU 0 LINK 3", "SW 1"
    entity_group: str  # "GPU", "GPU-I", "SW", ...
    gpu: int | None = None  # DCGM's GPU id, for a GPU or its link
    field: str  # the short name dcgmi prints: "NVLTX", "PCITX", "SMACT", "POWER"
    samples: int
    missing: int  # N/A or N/W
    minimum: float | None = None
    maximum: float | None = None
    last: float | None = None


@fact_kind
class DcgmHealthCheck(Fact):
    """``dcgmi health -c``'s Overall Health: ``Healthy``, ``Warning`` or ``Failure`` over the watched systems."""

    kind: Literal["dcgm_health_check"] = "dcgm_health_check"
    overall: str
    incidents: int  # entity/system incidents shown


@fact_kind
class NvsentinelHealthEvent(Fact):
    """One unhealthy event of an NVSentinel health monitor as its platform connector writes it into a node
    condition or a node event: ``GpuPowerWatchIsNotHealthy ... ErrorCode:DCGM_FR_CLOCK_THROTTLE_POWER GPU:0
    PCI:0000:0f:00.0 GPU_UUID:GPU-8598... Detected clocks event due to power violation in GPU 0. ...
    Recommended Action=NONE;``. ``reason`` a DCGM_FR_* code (its component and cause in
    ``knowledge/dcgm.yaml``), ``xid`` a numeric code of an Xid check (read in ``knowledge/xid.yaml`` by the
    rule); ``severity`` and ``actions`` of its recommended action (``knowledge/nvsentinel.yaml``)."""

    kind: Literal["nvsentinel_health_event"] = "nvsentinel_health_event"
    check: str | None = None  # "GpuPowerWatch" (the condition type / event type); None when not on the line
    codes: str  # the ErrorCode values, comma-separated: "DCGM_FR_CLOCK_THROTTLE_POWER", "79"
    reason: str | None = None  # the DCGM_FR_* code among them
    xid: int | None = None  # the numeric code of an Xid check
    gpu: int | None = None  # "GPU:0" / "gpu:0"
    pci_bus_id: str | None = None  # "PCI:0000:0f:00.0", canonical
    gpu_uuid: str | None = None  # "GPU_UUID:GPU-8598..."
    gpu_name: str = "the GPU NVSentinel named"  # "GPU 0", the bus id, or the UUID, for entities and summaries
    hca: str | None = None  # "NIC:mlx5_3": the RDMA device its nic-health-monitor named
    port: int | None = None  # "NICPort:1": that device's port
    message: str  # the monitor's own message ("" when it gave none)
    action: str  # the recommended action: "NONE", "RESTART_BM", ...
    fault: bool  # the action asks for something (knowledge/nvsentinel.yaml); NONE does not
    severity: str
    actions: str  # comma-separated action ids of the recommended action
    component: str | None = None  # of the code, else of the check (None: an Xid, or a code nobody names)
    cause: str | None = None


@fact_kind
class GpudCheck(Fact):
    """``✔ NVSwitch not detected, skipping fabric manager check``: a component gpud found healthy."""

    kind: Literal["gpud_check"] = "gpud_check"
    component: str | None = None  # "fabric-manager" (the caller of the log line before it)
    summary: str
    #: the summary says gpud skipped the check ("NVSwitch not detected, skipping fabric manager check"): it checked nothing
    skipped: bool = False


@fact_kind
class GpudCheckFailed(Fact):
    """``✘ <summary>``: something gpud judged unhealthy (or could not check)."""

    kind: Literal["gpud_check_failed"] = "gpud_check_failed"
    component: str | None = None
    summary: str


@fact_kind
class GpudHealthState(Fact):
    """A GPUd component state ``"health": "Healthy"`` whose check ran (its /v1/states JSON)."""

    kind: Literal["gpud_health_state"] = "gpud_health_state"
    component: str | None = None  # gpud's name: "accelerator-nvidia-fabric-manager"
    state_name: str | None = None
    reason: str | None = None
    checks: str | None = None  # the taxonomy component gpud's component watches; None for one steth does not know


@fact_kind
class GpudHealthUnchecked(Fact):
    """A GPUd state that checked nothing: ``Initializing``, or ``Healthy`` with a reason that says
    the check was skipped ("NVSwitch not detected, skipping ...", "NVML library is not loaded", "no data yet")."""

    kind: Literal["gpud_health_unchecked"] = "gpud_health_unchecked"
    component: str | None = None
    state_name: str | None = None
    health: str
    reason: str | None = None


@fact_kind
class GpudUnhealthyState(Fact):
    """A GPUd component state ``"health": "Unhealthy"`` or ``"Degraded"``, with gpud's reason."""

    kind: Literal["gpud_unhealthy_state"] = "gpud_unhealthy_state"
    component: str | None = None
    state_name: str | None = None
    health: str  # Unhealthy | Degraded
    reason: str | None = None
    error: str | None = None
    checks: str | None = None  # as GpudHealthState
    message: str  # "<component>: <reason or error>"


@fact_kind
class GpudLogError(Fact):
    """GPUd's own log line at warn or error level (its zap JSON through the journal: ``gpud[3567]:
    {"level":"warn",...,"msg":"error getting processes","error":"failed to get process 2748003 environ:
    open /proc/2748003/environ: no such process"}``): what gpud itself failed to do."""

    kind: Literal["gpud_log_error"] = "gpud_log_error"
    level: str  # warn | error | dpanic | panic | fatal (zap's levels)
    msg: str  # gpud's message: the reason its component state then gives ("error getting processes")
    error: str | None = None
    #: the error says a /proc/<pid> entry gpud read was gone (ESRCH "no such process", ENOENT): the process had exited
    process_exited: bool = False
    #: the error is gpud's ErrNoData: a component asked for its state before its poller's first collection (start-up)
    no_data_yet: bool = False


@fact_kind
class GpudXidReported(Fact):
    """GPUd 0.1-0.4 reporting an Xid in its own words, without naming the GPU: the ``error_xid``
    event's message ``xid 119 detected by dmesg (47 minutes ago)`` (``/v1/events``), the state's
    reason or error ``xid 119 detected by dmesg``. The bus id is not in the message (the event's
    escaped ``extra_info`` JSON has at most a ``device_uuid``, often empty)."""

    kind: Literal["gpud_xid_reported"] = "gpud_xid_reported"
    xid: int
    source: str | None = None  # "dmesg" (gpud's data source), "nvml"
    message: str


@fact_kind
class XidQuoted(Fact):
    """An Xid quoted as the driver's code-and-message pair without the kernel line's
    ``NVRM: Xid (PCI:...):`` prefix, in a file that no reader recognises (an alert, a ticket, an
    incident note): ``Xid 149, NETIR_LINK_DOWN Fatal XC0 i0 Link 14``. The GPU's bus id is not in
    it; ``gpu_index`` is the ``GPU <n>`` the same line names before it, if any."""

    kind: Literal["xid_quoted"] = "xid_quoted"
    xid: int
    message: str  # what follows the code: "NETIR_LINK_DOWN Fatal XC0 i0 Link 14"
    gpu_index: int | None = None


@fact_kind
class NhcCheckFailed(Fact):
    """One failed NHC check, as NHC reports it."""

    kind: Literal["nhc_check_failed"] = "nhc_check_failed"
    check: str | None = None  # "check_nvlink_status"; None where the message does not name it
    message: str
    fault_code: str | None = None  # Azure's "NHC2016"
    #: an NCCL all-reduce check's own figures: "NCCL allreduce, BUS BW (expected >=431.0 GB/s, but measured
    #: 15.1043 GB/s)"; ``loopback``: its IB/EFA loopback variant (one node's NICs, not its NVLinks)
    busbw_gbps: float | None = None
    expected_busbw_gbps: float | None = None
    loopback: bool = False
    returned: int | None = None  # NHC's "Check <check> ... returned N": the check's exit code, no message of its own
    #: the check could not run: a command it calls is not installed or not on its PATH (exit status 127, the
    #: shell's "command not found"; dash's "<cmd>: not found"); ``missing_command`` names it where the message does
    could_not_run: bool = False
    missing_command: str | None = None
    #: Azure's health checks ran no check for want of a configuration for this machine: run-health-checks.sh's "The vm
    #: SKU 'standard_<sku>' is currently not supported by Azure health checks." (then exit 0) or "The conf file <path>
    #: does not exist."; ``sku`` the VM size it named
    no_config: bool = False
    sku: str | None = None
    #: NHC itself did not finish: "watchdog" (could not kill a hung NHC), "timeout" (Script timed out), "signal"
    aborted: str | None = None
    gpu_check: bool = False  # a check of the node's GPUs, by its name (check_nv_*, check_nvsmi_*, check_gpu*, check_dcgm*)
    #: NHC's memory checks (check_hw_physmem, check_hw_mem, check_hw_swap: "Actual RAM size (1961032660 kB) greater than
    #: maximum allowed (928858388 kB)."): what the node has, the configuration's bound, and which bound ("min", "max")
    measured_kb: int | None = None
    limit_kb: int | None = None
    bound: str | None = None
    #: check_hw_ib's "No IB port mlx5_ib0:1 is ACTIVE (LinkUp 200 Gb/sec).": no port (that port, where the configuration
    #: names one) is Active and LinkUp at the configured rate; ``ib_port`` "mlx5_ib0:1", its ``hca`` and ``port``, and
    #: ``expected_rate_gbps`` where the line names them (None where the configuration names none, or the line is cut)
    ib_port_not_active: bool = False
    ib_port: str | None = None
    hca: str | None = None
    port: int | None = None
    expected_rate_gbps: float | None = None
    #: the same NHC output finds more memory on this node than its configuration's maximum (``bound`` "max" of a memory
    #: check): that configuration's hardware lines are another machine's, so this failure's expectation may be too
    config_other_machine: bool = False


@fact_kind
class NhcCheckWarning(Fact):
    """One NHC check that passed near its failure threshold, as Azure's NHC warns of it
    (``WARNING:  nhc:  Nearing a failure threshold:  check_gpu_bw: ...``)."""

    kind: Literal["nhc_check_warning"] = "nhc_check_warning"
    check: str | None = None  # "check_gpu_bw"; None where the message does not name it
    message: str
    gpu_check: bool = False  # a check of the node's GPUs, by its name (as NhcCheckFailed's)


@fact_kind
class NhcChecksSummary(Fact):
    """NHC's count of failed checks at the end of a run that checked all (``nhc -a``): ``ERROR:  nhc:  3 health checks
    failed.`` (its log and stdout), ``3 health checks failed.`` (its syslog line), with how many of those failures the
    same file shows before it (facts/parsers/nhc_log.py). Where it shows them, the count is their summary; alone it is
    the node failing its health checks, the checks unnamed."""

    kind: Literal["nhc_checks_summary"] = "nhc_checks_summary"
    failed: int  # NHC's $FAIL_CNT
    listed: int = 0  # the failed checks read in the same file since the previous summary


@fact_kind
class DcgmModuleState(Fact):
    """One row of ``dcgmi modules -l``: ``| 8 | Profiling | Failed to load |`` (facts/parsers/dcgmi_modules.py)."""

    kind: Literal["dcgm_module_state"] = "dcgm_module_state"
    module_id: int
    module: str  # "Profiling", as dcgmi names it
    state: str  # loaded, not_loaded, failed, denylisted, unloaded, paused
