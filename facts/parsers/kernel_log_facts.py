"""Fact classes of the kernel log parser (:mod:`stethoscope.facts.parsers.kernel_log`).

Every event fact carries ``timestamp`` (the stamp as printed, None when the line has none)
and ``boot`` (0-based index of the boot the line belongs to within the file).
"""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


class KernelLineFact(Fact):
    """Shared fields of facts read from one kernel log line (not itself a fact kind)."""

    timestamp: str | None = None
    boot: int = 0


@fact_kind
class XidEvent(KernelLineFact):
    """``NVRM: Xid (PCI:0000:00:06): 31, pid=1883, name=python3, ...``"""

    kind: Literal["xid_event"] = "xid_event"
    pci_bus_id: str
    xid: int
    pid: int | None = None
    process: str | None = None
    message: str
    gpc: str | None = None  # "GPC1" (Xid 13 "(GPC 1, ...", Xid 31 "ENGINE GRAPHICS GPC1")
    tpc: str | None = None  # "TPC3"
    sm: str | None = None  # "SM0"
    channel: str | None = None  # "0x0000000a" ("channel 0x0000000a", "Ch 0000000a")
    mmu_engine: str | None = None  # Xid 31 "ENGINE GRAPHICS"
    mmu_client: str | None = None  # Xid 31 "GPCCLIENT_T1_8"
    mmu_fault_type: str | None = None  # Xid 31 "FAULT_PDE"
    mmu_access_type: str | None = None  # Xid 31 "ACCESS_TYPE_VIRT_WRITE"
    recovery_action: str | None = None  # Xid 154 "GPU Reset Required"
    previous_xid: int | None = None  # "... caused by previous Xid 149" (Xid 45 after another error)
    nvlink_link: int | None = None  # Xid 74 "on link 14", Xid 144-150 "Link 07" ("Link -1": None)
    nvlink_unit: str | None = None  # Xid 144-150 "RLW_REMAP", "NETIR_LINK_EVT"
    nvlink_fatal: bool | None = None  # "fatal error" / "Fatal" vs "Nonfatal" on the line
    # the hex registers in parentheses, comma-joined: Xid 74 seven as printed ("0x0,0x0,0x10000,...");
    # Xid 144-150 intrinfo, error status, ... as 8-digit hex
    nvlink_registers: str | None = None


@fact_kind
class GpuRecoveryAction(KernelLineFact):
    """Xid 154: ``GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)``"""

    kind: Literal["gpu_recovery_action"] = "gpu_recovery_action"
    pci_bus_id: str
    action: str
    action_code: int | None = None
    previous_action: str | None = None


@fact_kind
class GpuFellOffBus(KernelLineFact):
    """A "fallen off the bus" line that is not an Xid line."""

    kind: Literal["gpu_fell_off_bus"] = "gpu_fell_off_bus"
    pci_bus_id: str
    pci_device_id: str | None = None  # "10de:2330" where the line names it


@fact_kind
class PcieAerError(KernelLineFact):
    """One AER event: the ``error received`` line, enriched by the ``PCIe Bus Error`` and
    status lines that follow it (those count as used, they make no fact of their own)."""

    kind: Literal["pcie_aer_error"] = "pcie_aer_error"
    device: str  # the device the error is about (the source named by the port)
    reporter: str | None = None  # the port that printed "error received"
    device_driver: str | None = None  # the driver bound to the device, where a line names it ("nvidia", "pcieport")
    severity: Literal["corrected", "nonfatal", "fatal"]
    error_type: str | None = None  # "Physical Layer", "Data Link Layer", "Transaction Layer"
    agent: str | None = None  # "Requester ID", "Receiver ID", "Transmitter ID"
    multiple: bool = False  # "Multiple Uncorrected (Fatal) error received"
    pci_device_id: str | None = None  # "8086:6f08" from "device [8086:6f08] error status/mask"
    error_status: str | None = None  # "00004020"
    errors: str | None = None  # error bit names, comma-joined: "SDES,CmpltTO"
    first_error: str | None = None  # the bit marked "(First)"
    message: str


@fact_kind
class PcieLinkDown(KernelLineFact):
    """``pcieport 0000:89:02.0: pciehp: Slot(400): Link Down``"""

    kind: Literal["pcie_link_down"] = "pcie_link_down"
    device: str  # the hotplug port
    slot: str | None = None
    card_present: bool | None = None  # from a following "Card present" / "Card not present"


@fact_kind
class NvswitchSxid(KernelLineFact):
    """``nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up``"""

    kind: Literal["nvswitch_sxid"] = "nvswitch_sxid"
    switch: str
    switch_name: str | None = None  # "nvidia-nvswitch1"
    sxid: int
    fatal: bool | None = None
    link: int | None = None
    message: str


@fact_kind
class KernelBoot(KernelLineFact):
    """The first boot marker of a boot (``Linux version``, else ``Command line:``)."""

    kind: Literal["kernel_boot"] = "kernel_boot"
    kernel_release: str | None = None  # "6.8.0-48-generic" from "Linux version ..."


@fact_kind
class NvidiaDriverLoaded(KernelLineFact):
    """``NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ...``"""

    kind: Literal["nvidia_driver_loaded"] = "nvidia_driver_loaded"
    version: str
    open_module: bool
    arch: str | None = None


@fact_kind
class KernelGpuSeen(KernelLineFact):
    """``NVRM: GPU at PCI:0000:00:06: GPU-5cc6...`` plus the serial line that follows it."""

    kind: Literal["kernel_gpu_seen"] = "kernel_gpu_seen"
    pci_bus_id: str
    uuid: str | None = None
    serial: str | None = None


@fact_kind
class NvrmError(KernelLineFact):
    """An NVRM driver message other than Xid that reports a failure
    (:mod:`kernel_log_nvrm`): ``NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)``."""

    kind: Literal["nvrm_error"] = "nvrm_error"
    #: rm_init_adapter_failed, api_mismatch, assert_failed, gsp_rpc_timeout, gpu_lost,
    #: no_gpu_found, probe_failed, bar_invalid, other
    message_kind: str
    status: str = ""  # the NV_ERR_* an assertion printed ("NV_ERR_RESET_REQUIRED") or RmInitAdapter's rmStatus names, else ""
    pci_bus_id: str | None = None  # where the line names the GPU
    code: str | None = None  # "0x24:0x65:1185" (RmInitAdapter), "0x00000062" (assert), "-1" (probe)
    detail: str | None = None  # "kernel_channel.c:2827", "BAR0 is 0M", "6s", "_kgspBootGspRm: unexpected WPR2 already up, ..."
    #: RmInitAdapter: the RM_INIT_* group of its first field (os, gpu_init, vbios, core_rm, firmware)
    init_stage: str | None = None
    #: RmInitAdapter: the driver printed "(the GPU ... may need to be reset)" just before it
    reset_hint: bool = False
    client: str | None = None  # API mismatch: the client program, where named ("gnome-shell")
    client_version: str | None = None  # API mismatch: user-space driver version
    kernel_version: str | None = None  # API mismatch: kernel module version
    message: str


@fact_kind
class HostOomKill(KernelLineFact):
    """The kernel's OOM killer killed a process (mm/oom_kill.c): ``Out of memory: Killed process
    629 (python) total-vm:...kB, anon-rss:...kB, ...`` (the host's memory ran out), ``Memory cgroup
    out of memory: Killed process ...`` (a container's or job's memory limit), or before Linux
    4.19 ``Out of memory: Kill process 629 (python) score 912 or sacrifice child``."""

    kind: Literal["host_oom_kill"] = "host_oom_kill"
    pid: int
    process: str
    cgroup: bool  # "Memory cgroup out of memory": the container's / job's limit, not the host's RAM
    ran_out: str  # what ran out, in words: "the host's memory" or "a memory cgroup's limit (container or job)"
    anon_rss_kb: int | None = None
    anon_rss_mib: int | None = None  # the same, rounded, for the report
    total_vm_kb: int | None = None

