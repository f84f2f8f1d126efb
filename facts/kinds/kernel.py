"""What the kernel log says about GPUs, PCIe and the host (Xid, SXid, NVRM, AER, oom-kill,
crashes), and the kernel modules loaded or failing to load.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
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
    #: the log it is in shows a minute or more of time (its first and last stamped lines: facts/parsers/kernel_log_time.py
    #: spans): time with the driver up in which its silence about other Xids, SXids and AER counts. False: the event's line
    #: pasted alone, a few lines of one moment, or no stamps to tell: a report of one event, which checks nothing
    #: (knowledge/coverage.yaml kernel_log; session 25: harvest 704's lone Xid 44 line, catalogue IGNORE, read HEALTHY,
    #: 'checked: driver, gpu, gpu_memory, nvlink, pcie'); None: not told (a fact made by other means)
    log_spans: bool | None = None


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
    #: unknown: a platform firmware's record (``firmware``) whose severity lines the log lost
    severity: Literal["corrected", "nonfatal", "fatal", "unknown"]
    error_type: str | None = None  # "Physical Layer", "Data Link Layer", "Transaction Layer"
    agent: str | None = None  # "Requester ID", "Receiver ID", "Transmitter ID"
    multiple: bool = False  # "Multiple Uncorrected (Fatal) error received"
    pci_device_id: str | None = None  # "8086:6f08" from "device [8086:6f08] error status/mask"
    error_status: str | None = None  # "00004020"
    errors: str | None = None  # error bit names, comma-joined: "SDES,CmpltTO"
    first_error: str | None = None  # the bit marked "(First)"
    #: the device's PCI address where the line names one: the kernel's lines always do, ras-mc-ctl's --errors rows do, its
    #: --summary rows ("\t1 Uncorrected (Non-Fatal) errors: Completion Timeout") name none (``device`` then says so)
    pci_bus_id: str | None = None
    #: what the device is, by the driver its own line names (kernel_log_pcie.device_roles): ``bridge`` its address where it
    #: is a PCIe port (driver pcieport: a root or switch port), ``gpu_bus_id`` its address where it may be a GPU (driver
    #: nvidia, or none named); neither for another driver's device (nvme, mlx5_core, xhci_hcd): a finding names the node
    bridge: str | None = None
    gpu_bus_id: str | None = None
    #: the platform firmware reported it through APEI (a GHES record the kernel printed, ``{N}[Hardware Error]: ...
    #: section_type: PCIe error``, :mod:`kernel_log_ghes`), not the kernel's AER driver: no layer, agent or error bits
    firmware: bool = False
    message: str


@fact_kind
class PcieAerRecovery(KernelLineFact):
    """How the kernel's recovery from an uncorrectable PCIe error (AER, DPC) ended, with the lines of that recovery
    before it (:mod:`kernel_log_pcie_recovery`): ``pcieport 0000:03:04.0: AER: device recovery failed``."""

    kind: Literal["pcie_aer_recovery"] = "pcie_aer_recovery"
    result: Literal["failed", "successful"]
    device: str  # the device the result line names: the bridge above the error's source (Linux 5.11 on), the source before
    device_driver: str | None = None  # the driver the result line names ("pcieport")
    bridge: str | None = None  # ``device`` where it is a PCIe port (as PcieAerError's)
    gpu_bus_id: str | None = None  # ``device`` where it may be a GPU (as PcieAerError's)
    #: the devices whose driver has no error callback, so the recovery could not ask them ("can't recover (no
    #: error_detected callback)", before 5.0 "device has no AER-aware driver"): "0000:05:00.0 (pci)"
    without_callback: str | None = None
    #: the link reset of the recovery, as printed: "Downstream Port link has been reset (0)"
    link_reset: str | None = None
    #: the two above in words for a summary: "no error callback in the drivers of 0000:05:00.0 (pci); Downstream Port link
    #: has been reset (0)", or that the log holds no other line of the recovery
    detail: str
    message: str


@fact_kind
class PcieLinkDown(KernelLineFact):
    """``pcieport 0000:89:02.0: pciehp: Slot(400): Link Down``"""

    kind: Literal["pcie_link_down"] = "pcie_link_down"
    device: str  # the hotplug port
    slot: str | None = None
    card_present: bool | None = None  # from a following "Card present" / "Card not present"


@fact_kind
class PcieBarUnassigned(KernelLineFact):
    """``pci 0000:04:00.0: BAR 7: failed to assign [mem size 0x01000000 64bit pref]``: the PCI core found no
    address window for one of a device's BARs (``no space``) and then gave up on it (``failed to assign``)"""

    kind: Literal["pcie_bar_unassigned"] = "pcie_bar_unassigned"
    device: str
    bar: str  # "BAR 7", "VF BAR 0", "bridge window"
    resource: str | None = None  # "[mem size 0x01000000 64bit pref]"
    gave_up: bool = False  # "failed to assign" (not only "no space", after which the firmware's address may be kept)
    gpu: bool = False  # the device is a GPU: enumerated with a display class in this log, or named by its NVRM lines


@fact_kind
class IommuFault(KernelLineFact):
    """A DMA the IOMMU refused (no mapping, or no permission, for the address a device read or wrote): Intel VT-d's
    ``DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x100000 [fault reason 0x71] ...`` or AMD-Vi's
    ``nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0xd0826240 flags=0x0020]``;
    one fact per device, counting its lines"""

    kind: Literal["iommu_fault"] = "iommu_fault"
    iommu: Literal["intel_vt_d", "amd_vi"]
    device: str  # "0000:03:00.0" (Intel's line names no PCI domain: 0000 assumed)
    driver: str | None = None  # the driver the kernel names the device by on AMD-Vi's line: "nvidia", "amdgpu", "vfio-pci"
    access: Literal["read", "write"] | None = None  # Intel's "DMA Read" / "DMA Write"
    address: str | None = None  # the first faulting I/O virtual address
    reason: str | None = None  # Intel's fault reason text: "PTE Read access is not set"
    interrupt_remap: bool = False  # Intel's "[INTR-REMAP]": an interrupt the remapping table refused, not a DMA
    gpu: bool = False  # the device is a GPU: a GPU driver named on the line, or a bus id the log's NVRM lines name
    count: int = 1  # lines of this device in the log (the kernel rate-limits them: "callbacks suppressed")


@fact_kind
class PciDeviceInaccessible(KernelLineFact):
    """A PCI device that stopped answering config reads: the PCI core could not bring it back to D0
    (``vfio-pci 0000:01:00.0: Unable to change power state from D3cold to D0, device inaccessible``) or gave up
    waiting for it after a reset or resume (``nvidia 0000:01:00.0: not ready 65535ms after resume; giving up``);
    one fact per device and kind of failure, counting its lines"""

    kind: Literal["pci_device_inaccessible"] = "pci_device_inaccessible"
    device: str  # "0000:01:00.0"
    driver: str | None = None  # the driver the kernel names it by: "vfio-pci", "nvidia", "pcieport"
    event: Literal["power_up", "reset_wait"]
    from_state: str | None = None  # power_up: the state it would not leave, "D3cold" / "D3hot"
    after: str | None = None  # reset_wait: what it was waited for after, "FLR", "bus reset", "resume"
    waited_ms: int | None = None  # reset_wait: how long the kernel waited
    gpu: bool = False  # a GPU driver named on the line, or a bus id the log enumerates as display class or NVRM names
    passthrough: bool = False  # bound to vfio-pci: handed to a VM (or a Kata/KubeVirt guest)
    count: int = 1


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
    #: the release is WSL2's kernel ("6.6.87.2-microsoft-standard-WSL2", before 5.10 "4.19.128-microsoft-standard"):
    #: the node is a WSL2 VM, whose GPU is the Windows host's, reached through /dev/dxg, not a server's with its module
    wsl: bool = False


@fact_kind
class NvidiaDriverLoaded(KernelLineFact):
    """``NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ...``"""

    kind: Literal["nvidia_driver_loaded"] = "nvidia_driver_loaded"
    version: str
    open_module: bool
    arch: str | None = None
    #: no line follows it and no boot banner precedes it: a paste of the load line, not a log, which
    #: shows no time after the driver came up, so its silence about Xids says nothing (knowledge/
    #: coverage.yaml kernel_log checks); a log from the boot that ends at it: runs_on
    alone: bool = False
    #: the log runs on a minute or more past the load line (its stamps: facts/parsers/kernel_log_time.py): False for
    #: a capture of the boot (the load line, then the boot's other lines), which shows no time with the GPUs in use
    #: and checks nothing (knowledge/coverage.yaml); None: not told (a fact made by other means)
    runs_on: bool | None = None


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
    #: the message_kind entries of knowledge/xid_nvrm_messages.yaml: rm_init_adapter_failed, api_mismatch,
    #: assert_failed, gsp_rpc_timeout, gsp_crash_report, gsp_heartbeat_timeout, gsp_stalled_marked_for_reset,
    #: rc_watchdog_timeout, gsp_rpc_failed, gsp_boot_failed, gpu_lost, no_gpu_found, probe_failed, bar_invalid, va_space_exhausted,
    #: va_update_failed, bar_map_overrun,
    #: open_module_unsupported, open_module_required, gpu_unsupported_by_release, gpu_unsupported_spurious,
    #: gsp_firmware_missing, gsp_firmware_load_failed, gsp_firmware_version_mismatch, region_busy, modeset_rm_call_failed (nvidia-modeset's line,
    #: kernel_log_modeset); or other
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
    kernel_version: str | None = None  # API mismatch: kernel module version; GSP firmware: the version of its path (the module's); unsupported GPU: the release
    pci_id: str | None = None  # unsupported GPU: "10de:2330" (vendor:device)
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


@fact_kind
class GdsIoError(KernelLineFact):
    """nvidia-fs (GPUDirect Storage) failed a read or write between storage and GPU memory."""

    kind: Literal["gds_io_error"] = "gds_io_error"
    step: str  # rw_verify_area (the file range check) | io (the file system's read/write) | the function that completed it
    operation: str | None = None  # read | write (the "%s IO failed" form names it)
    error: int  # the negative errno nvidia-fs printed: -14
    error_name: str  # EFAULT, EIO, ERESTARTSYS, ... ("" for a number no table names)
    message: str


@fact_kind
class NvidiaDrmError(KernelLineFact):
    """nvidia-drm (the NVIDIA driver's DRM/KMS module: display, buffer sharing) logged an error."""

    kind: Literal["nvidia_drm_error"] = "nvidia_drm_error"
    function: str | None = None  # the kernel function DRM_ERROR names: __nv_drm_nvkms_gem_obj_init
    gpu_id: str | None = None  # nvidia-drm's "GPU ID 0x00000200" (the RM GPU id, not a bus id)
    message: str
    #: the GEM buffer's memory could not be allocated ("Failed to allocate NVKMS memory for GEM object", or the
    #: info line "... video memory for GEM object, trying to fall back to sysmem"): video memory full
    alloc_failed: bool = False
    #: the line was the sysmem fallback's ("trying to fall back to sysmem"): video memory full, system memory tried next
    sysmem_fallback: bool = False


@fact_kind
class AmdgpuRingTimeout(KernelLineFact):
    """AMD's kernel GPU driver (amdgpu) found a ring's job past its timeout: the GPU stopped making progress
    (drivers/gpu/drm/amd/amdgpu/amdgpu_job.c amdgpu_job_timedout, "ring gfx_0.0.0 timeout, signaled seq=5000163,
    emitted seq=5000165"), then reset the ring or the whole GPU. Another vendor's GPU, out of gpu-stethoscope's scope
    (NVIDIA GPUs): recognised and reported as that GPU's hang, never health, never left unread."""

    kind: Literal["amdgpu_ring_timeout"] = "amdgpu_ring_timeout"
    pci_bus_id: str | None = None  # "0000:08:00.0": the line's device, or the reset lines' after it; None where no line names it
    ring: str  # "gfx_0.0.0", "gfx", "sdma0", "comp_1.0.0"
    signaled_seq: int  # the last fence the GPU signalled
    emitted_seq: int  # the last fence the driver emitted (the work it was waiting for)
    process: str | None = None  # the job's process ("Process information: process Xorg pid 2184 ...")
    pid: int | None = None
    #: what followed: recovered (a ring or GPU reset that succeeded, "GPU reset(2) succeeded!"), failed (the reset
    #: failed: "GPU Recovery Failed", "GPU reset end with ret = -N", a ring reset that failed with nothing after it),
    #: begun (a reset began, the log ends or says no more); None where no reset line follows
    reset: Literal["recovered", "failed", "begun"] | None = None
    timeouts: int = 1  # the timeout lines of this device and ring in the file


@fact_kind
class AmdgpuVmFault(KernelLineFact):
    """AMD's kernel GPU driver (amdgpu) took a GPU page fault of a process's work: the GPU's memory hub (gfxhub, mmhub)
    found no valid mapping for an address a kernel touched ("[gfxhub] page fault (src_id:0 ring:24 vmid:8
    pasid:32770, for process python pid 1796 thread python pid 1796)", "in page starting at address 0x00007f5279bab000
    from client 0x1b (UTCL2)"). amdgpu's counterpart of an NVIDIA Xid 31 (the kernel side of ROCm's "Memory access
    fault by GPU node-N"). Another vendor's GPU, out of gpu-stethoscope's scope (NVIDIA GPUs): recognised and reported
    as that GPU's program fault, never health, never left unread."""

    kind: Literal["amdgpu_vm_fault"] = "amdgpu_vm_fault"
    pci_bus_id: str | None = None  # "0000:0b:00.0": the line's device; None where the line names none (FreeBSD's "drmn0:")
    hub: str  # the memory hub that faulted, as printed: "gfxhub", "gfxhub0", "mmhub0"
    retry: bool | None = None  # a retry fault (gmc_v9's "retry page fault", recoverable by the driver); None where unsaid
    vmid: int
    pasid: int  # the process address space id: one per process
    process: str | None = None  # the faulting process ("for process python pid 1796 ..."); None where not printed
    pid: int | None = None
    address: str | None = None  # the first faulting page ("in page starting at address 0x00007f5279bab000")
    client: str | None = None  # the GPU client that faulted, as printed ("UTCL2", "VMC", "10"); None where unsaid
    faults: int = 1  # the fault lines of this device and address space in the file


@fact_kind
class AmdgpuRasError(KernelLineFact):
    """AMD's kernel GPU driver (amdgpu) reported an uncorrectable hardware error through its RAS code: the fatal error
    interrupt ("uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!", after which it resets the GPU) or
    the uncorrectable errors it counted in a block ("2 uncorrectable hardware errors detected in umc block"). Another
    vendor's GPU, out of gpu-stethoscope's scope (NVIDIA GPUs): recognised and reported as that GPU's error, never
    health, never left unread."""

    kind: Literal["amdgpu_ras_error"] = "amdgpu_ras_error"
    pci_bus_id: str | None = None  # "0000:e3:00.0": the line's device; None where the line names none
    block: str | None = None  # the RAS block counted, lower case: "umc" (the GPU memory's controller), "gfx", "sdma", ...; None for the interrupt
    interrupt: str | None = None  # "ERREVENT_ATHUB_INTERRUPT": the fatal error interrupt's event; None for a block's count
    count: int | None = None  # the largest count a line of this block gave ("2 uncorrectable ..."); None for the interrupt
    memory_error: bool = False  # the block is umc: the errors are the GPU memory's (ECC)
    lines: int = 1  # the lines of this device and block in the file


@fact_kind
class EfaDriverError(KernelLineFact):
    """The EFA kernel driver (AWS Elastic Fabric Adapter) logged an error: an admin command the
    device failed (``Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12``), the
    verb that needed it (``Failed to allocate pd[-12]``), or a probe failure."""

    kind: Literal["efa_driver_error"] = "efa_driver_error"
    device: str | None = None  # the ib_device: efa_0, rdmap16s27 (None in a dev_err line on the PCI device)
    pci_bus_id: str | None = None  # the PCI device when the prefix names it: "efa 0000:4f:00.0: "
    message: str
    command: str | None = None  # the admin command: ALLOC_PD, CREATE_QP, REG_MR ...
    opcode: int | None = None
    comp_status: int | None = None  # the device's status: 1 resource allocation failure, 2-6 bad request/unknown, 7 busy
    errno: int | None = None  # the negative errno printed: -12 (ENOMEM)


@fact_kind
class NetdevTxTimeout(KernelLineFact):
    """``NETDEV WATCHDOG: eth0 (mlx5_core): transmit queue 3 timed out``: a NIC stopped
    completing the packets queued to it; the driver resets the device."""

    kind: Literal["netdev_tx_timeout"] = "netdev_tx_timeout"
    interface: str | None = None  # "eth0" (the 6.8+ form names it in the device prefix)
    driver: str | None = None  # "mlx5_core"
    queue: int | None = None  # None: a line naming no queue (ENA's lost-completions threshold line alone)
    timeout_ms: int | None = None
    message: str


@fact_kind
class NicKeepAliveTimeout(KernelLineFact):
    """``ena 0000:00:05.0 eth0: Keep alive watchdog timeout.``: a NIC's device stopped sending the
    keep-alive events its driver waits for (ENA: the device's keep-alive AENQ event, about once a
    second); the driver resets the device ("Trigger reset is on")."""

    kind: Literal["nic_keep_alive_timeout"] = "nic_keep_alive_timeout"
    interface: str | None = None  # "eth0"
    driver: str  # "ena"
    message: str


@fact_kind
class VfioPinMemlockExceeded(KernelLineFact):
    """``vfio_pin_pages_remote: RLIMIT_MEMLOCK (65536) exceeded``: the kernel's VFIO type1 IOMMU
    driver refused to pin a VM's memory for a passed-through device (ENOMEM) because the VMM
    process (QEMU, cloud-hypervisor, kata's hypervisor) would pass its locked-memory limit."""

    kind: Literal["vfio_pin_memlock_exceeded"] = "vfio_pin_memlock_exceeded"
    function: str  # vfio_pin_pages_remote | vfio_pin_page_external | vfio_lock_acct | vfio_pin_pages
    task: str | None = None  # the VMM's comm, "qemu-system-x86" (the "Task %s (%d)" forms)
    pid: int | None = None
    limit_bytes: int  # the limit the kernel printed, in bytes
    message: str


@fact_kind
class VfioDeviceGetFailure(Fact):
    """A VMM (QEMU under Proxmox, libvirt or KubeVirt) could not get a passed-through or mediated
    device from its VFIO group, as QEMU reports it: ``vfio <device>: error getting device from group
    <N>: <strerror>`` (the kernel refused VFIO_GROUP_GET_DEVICE_FD: EBUSY - another VM or process holds
    it; EIO for an mdev - its vendor driver, NVIDIA's vGPU manager, refused to open it) or ``vfio
    <device>: group <N> is not viable`` (a device of the IOMMU group is bound to a host driver, not
    vfio-pci). The VM does not start with the device. (Here, not in host.py beside
    vfio_dma_map_failure, for a commit of its own; the kernel's VFIO driver is what refused.)"""

    kind: Literal["vfio_device_get_failure"] = "vfio_device_get_failure"
    group: int  # the IOMMU group's number
    #: "device_fd" (error getting device from group) or "not_viable" (group is not viable)
    step: str
    errno: int | None = None  # the strerror text read back to its number (5 EIO, 16 EBUSY); None where none is printed
    error: str | None = None  # the strerror text as printed, "Input/output error"
    device: str | None = None  # the device QEMU names: a PCI address "0000:01:00.0" or a mediated device's UUID
    mediated: bool = False  # the device is a mediated device (an mdev UUID, sysfsdev=/sys/bus/mdev/...): a vGPU
    message: str


@fact_kind
class StorageIoError(KernelLineFact):
    """A disk or file system under the host failed I/O: an NVMe command timed out or its
    controller went down, EXT4 or XFS reported an error, an I/O error or shut itself down."""

    kind: Literal["storage_io_error"] = "storage_io_error"
    device: str  # "nvme0" (the controller), "sda2", "md0", "nvme0n1p1"
    layer: Literal["nvme", "ext4", "xfs", "block"]  # block: the block layer, any disk (kernel_log_host_os)
    filesystem: bool  # ext4 / xfs: the file system's error, not the disk's own
    #: io_timeout, controller_down, controller_removed (nvme); fs_error, fs_io_error, fs_read_only,
    #: fs_shutdown, fs_corruption (ext4, xfs); io_error, io_timeout, buffer_io_error (block)
    event: str
    message: str


@fact_kind
class HostHardwareError(KernelLineFact):
    """The CPU or host memory reported a hardware error: the machine-check summary line, a
    machine check printed in full, or an EDAC corrected (CE) / uncorrected (UE) memory error."""

    kind: Literal["host_hardware_error"] = "host_hardware_error"
    #: irq: an interrupt nobody handled, disabled (kernel_log_host_os); ghes: a record the platform firmware reported
    #: through APEI (``{7}[Hardware Error]: section_type: memory error``, :mod:`kernel_log_ghes`)
    source: Literal["mce", "edac", "irq", "ghes"]
    corrected: bool | None = None  # EDAC CE: True, UE: False; a machine check: not said
    count: int | None = None  # EDAC: errors reported by the line
    memory_controller: str | None = None  # "MC1"
    location: str | None = None  # "CPU_SrcID#0_Ha#0_Chan#1_DIMM#0"; a GHES record's DIMM location, FRU text or node/card/module
    #: a GHES record's severity (cper.c: corrected, recoverable, fatal; unknown where the log lost its severity lines)
    severity: Literal["corrected", "recoverable", "fatal", "unknown"] | None = None
    section: str | None = None  # a GHES record's section type: "memory error", "general processor error", ...
    detail: str | None = None  # a GHES record's error type: "multi-bit ECC", "cache error"
    message: str


@fact_kind
class HostKernelFault(KernelLineFact):
    """The host kernel hung, locked up or crashed: a task blocked in D state, a CPU stuck in
    the kernel (soft or hard lockup, RCU stall), a panic, ``kernel BUG``, an oops."""

    kind: Literal["host_kernel_fault"] = "host_kernel_fault"
    #: hung_task, soft_lockup, hard_lockup, rcu_stall (hangs); panic, kernel_bug, oops (crashes)
    event: Literal["hung_task", "soft_lockup", "hard_lockup", "rcu_stall", "panic", "kernel_bug", "oops"]
    hang: bool  # the first four: the kernel stopped making progress, it did not crash
    cpu: int | None = None
    process: str | None = None  # hung task, soft lockup: the task named
    pid: int | None = None
    seconds: int | None = None  # how long it was blocked or stuck
    #: hung task: the network file system its call trace waits in (nfs, lustre, gpfs, ceph, cifs, fuse, beegfs)
    waits_on: str | None = None
    on_shared_fs: bool = False  # waits_on is set: the stall is the file system's, read by its own rule
    #: a crash (panic, kernel BUG, oops): the function the faulting instruction was in and its module when
    #: the report's RIP / pc / NIP line names them ("esw_port_metadata_get", "mlx5_core"; None for the core kernel)
    in_function: str | None = None
    in_module: str | None = None
    #: in_module is one of the NVIDIA GPU driver stack's (knowledge/gpu_driver_modules.yaml): the
    #: driver's crash, read by gpu_driver_kernel_crash, not host_kernel_crashed
    in_gpu_driver: bool = False
    message: str


@fact_kind
class KernelCpuBacktrace(KernelLineFact):
    """The kernel printed one CPU's registers and stack on request, through an NMI (lib/nmi_backtrace.c
    nmi_cpu_backtrace: ``NMI backtrace for cpu %d``, ``NMI backtrace for cpu %d skipped: idling at %pS``), and no hang
    report that asks for it (a hung task, a soft or hard lockup, an RCU stall, a panic) is in the same log: those
    read such stacks as their own detail and make no fact of them. ``asked_by`` "sysrq" where the operator's sysrq-l
    line is there; None where nothing in the log says who asked. The stack names no fault by itself."""

    kind: Literal["kernel_cpu_backtrace"] = "kernel_cpu_backtrace"
    cpu: int
    idle: bool = False  # "skipped: idling at ...": the CPU was idle (no stack printed)
    asked_by: Literal["sysrq"] | None = None
    process: str | None = None  # the task on that CPU (the "CPU: N PID: N Comm: <comm>" line after it)
    in_function: str | None = None  # the RIP / pc line's function in that CPU's dump
    in_module: str | None = None
    message: str


@fact_kind
class KernelWarning(KernelLineFact):
    """The kernel's WARN report (kernel/panic.c __warn): a WARN_ON check in kernel code found a state it
    did not expect, and the kernel went on. ``WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039
    nvidia_dev_put+0xb1/0xc0 [nvidia]``, 6.19+ ``WARNING: <file>:<line> at <function>, CPU#1: <comm>/<pid>``."""

    kind: Literal["kernel_warning"] = "kernel_warning"
    module: str | None = None  # the module of the function that warned ("nvidia"); None: built-in kernel code
    function: str  # "nvidia_dev_put"
    source_file: str | None = None  # "nvidia/nv.c" (a WARN without file and line prints none)
    source_line: int | None = None
    cpu: int
    pid: int
    process: str | None = None  # the task's comm (6.19+ on the line; before, the report's "Comm:" line)
    taint: str | None = None  # the report's taint flags ("POE"; "" for "Not tainted"; None: that line not pasted)
    in_gpu_driver: bool = False  # module is one of the NVIDIA GPU driver stack's (knowledge/gpu_driver_modules.yaml)
    message: str


@fact_kind
class ProcessCrash(KernelLineFact):
    """A user process died of a fault the kernel reports: ``segfault at``, a general
    protection fault or another trap (invalid opcode, divide error) in user mode."""

    kind: Literal["process_crash"] = "process_crash"
    process: str
    pid: int
    fault: str  # "segfault", "general protection fault", "invalid opcode", ...
    library: str | None = None  # "libc.so.6": the mapping the faulting ip lies in
    message: str


@fact_kind
class HostOomInvoked(KernelLineFact):
    """``python invoked oom-killer: gfp_mask=...``: memory ran out and the OOM killer ran (the
    kill line that names its victim usually follows)."""

    kind: Literal["host_oom_invoked"] = "host_oom_invoked"
    process: str  # the task that asked for memory, not necessarily the victim
    order: int | None = None
    message: str


@fact_kind
class SharedFsError(KernelLineFact):
    """A network file system the node mounts failed: an NFS (RPC) server not responding, a
    Lustre error, a Lustre target's connection lost, the client evicted, an RPC or LNet transmit
    to a server timed out, a Ceph client's monitor session lost."""

    kind: Literal["shared_fs_error"] = "shared_fs_error"
    filesystem: Literal["nfs", "lustre", "ceph"]
    #: "nfs01", "scratch-OST0003", "jmain01-MDT0000 (172.31.126.88@o2ib)", "172.31.126.87@o2ib", "mon2 (1)10.0.0.247:6789"
    server: str | None = None
    #: not_responding (still trying), timed_out (soft mount: the I/O failed), connection_lost, error,
    #: evicted (Lustre: the server dropped this client's locks; in-flight I/O fails), request_timeout / network_error
    #: (Lustre ptlrpc: a request got no reply / could not be sent), network_timeout (LNet: a transmit to a peer NID timed out)
    event: Literal["not_responding", "timed_out", "connection_lost", "error", "evicted", "request_timeout",
                   "network_error", "network_timeout"]
    rc: int | None = None  # Lustre "rc = -107": the negative errno the operation failed with
    operation: str | None = None  # Lustre "operation obd_ping": the RPC that failed
    #: NFS (RPC) not_responding / timed_out: whether the same program's "server <name> OK" follows later in the
    #: same log (the server answered again: a stall that ended), and that line's stamp
    recovered: bool | None = None
    recovered_at: str | None = None
    message: str


@fact_kind
class HostCpuThrottle(KernelLineFact):
    """``CPU3: Core temperature above threshold, cpu clock throttled``: a CPU core or package
    hit its thermal limit and runs at reduced clocks."""

    kind: Literal["host_cpu_throttle"] = "host_cpu_throttle"
    cpu: int
    scope: Literal["core", "package"]
    events: int | None = None  # total events so far
    message: str


@fact_kind
class NicLinkEvent(KernelLineFact):
    """A ConnectX port's link went down or its cable/module was unplugged or failed."""

    kind: Literal["nic_link_event"] = "nic_link_event"
    pci_bus_id: str | None = None
    interface: str | None = None
    event: Literal["link_down", "cable_unplugged", "module_error"]
    module: int | None = None
    detail: str | None = None  # "Cable error, High Temperature"
    message: str


@fact_kind
class CgroupPidsLimit(KernelLineFact):
    """``cgroup: fork rejected by pids controller in /kubepods...``: a container or job hit its
    process/thread limit (pids.max) and a fork or thread creation failed."""

    kind: Literal["cgroup_pids_limit"] = "cgroup_pids_limit"
    cgroup: str | None = None
    message: str


@fact_kind
class PcieDpcEvent(KernelLineFact):
    """``pcieport 0000:00:03.1: DPC: containment event, status:0x1f01 source:0x0000``: a PCIe
    port's Downstream Port Containment cut the link below it after an uncorrectable error."""

    kind: Literal["pcie_dpc_event"] = "pcie_dpc_event"
    port: str | None = None  # the downstream port that contained the error
    status: str | None = None
    source: str | None = None
    message: str


@fact_kind
class KernelModule(Fact):
    """One loaded kernel module, as ``lsmod`` lists it."""

    kind: Literal["kernel_module"] = "kernel_module"
    name: str  # "nvidia_peermem"
    size: int | None = None  # bytes
    use_count: int | None = None
    used_by: str | None = None  # "rdma_cm,ib_ipoib,nvidia_peermem"


@fact_kind
class KernelModuleListing(Fact):
    """An ``lsmod`` listing in the bundle (its header or the pasted command): what it could show."""

    kind: Literal["kernel_module_listing"] = "kernel_module_listing"
    filter: str | None = None  # the grep pattern; None: the whole list
    shows_peermem: bool  # would nvidia_peermem / nv_peer_mem appear in it if loaded


@fact_kind
class PeermemInvalidContext(KernelLineFact):
    """nvidia-peermem's ``nv_get_p2p_free_callback:<line> ERROR detected invalid context, skipping
    further processing``: the GPU driver's free callback found a context already torn down and
    skipped it (a mitigation of driver issue 4272659 in R535-R555; gone from R560 on)."""

    kind: Literal["peermem_invalid_context"] = "peermem_invalid_context"
    module: str  # "nvidia_peermem" (dashes as underscores)
    function: str  # "nv_get_p2p_free_callback"
    message: str


@fact_kind
class KernelModuleLoadFailure(Fact):
    """A kernel module that could not be loaded: ``modprobe: ERROR: could not insert 'nv_peer_mem':
    Unknown symbol in module ...`` or the kernel's ``nv_peer_mem: Unknown symbol
    ib_register_peer_memory_client (err 0)``."""

    kind: Literal["kernel_module_load_failure"] = "kernel_module_load_failure"
    module: str  # "nv_peer_mem", "nvidia_peermem" (dashes as underscores)
    reason: Literal["unknown_symbol", "symbol_version", "version_magic", "gpl_only_symbols", "invalid_format", "signature",
                    "not_permitted", "no_device", "invalid_argument", "already_loaded", "not_found", "other"]
    symbol: str | None = None  # kernel log: the symbol the running kernel does not export
    message: str
    source: Literal["modprobe", "modinfo", "kernel", "nvidia-installer", "openibd"]


@fact_kind
class DriverInstallerRefusal(Fact):
    """nvidia-installer's own word of why the driver cannot go on this node or drive its GPUs, other than a
    module that would not load (that is ``kernel_module_load_failure``): no GPU this release supports on the
    PCI bus, the nouveau driver in use, or an NVIDIA kernel module already loaded (in use)."""

    kind: Literal["driver_installer_refusal"] = "driver_installer_refusal"
    refusal: Literal["no_supported_gpu", "nouveau_in_use", "module_in_use"]
    module: str | None = None  # module_in_use: the loaded module, as the kernel names it ("nvidia_drm")
    driver_version: str | None = None  # no_supported_gpu: the release the installer carries ("410.48")
    message: str


@fact_kind
class KernelModuleSignatureRejected(KernelLineFact):
    """The kernel refused a module for its signature, in the forms that do not name the module
    (kernel/module/signing.c ``Loading of unsigned module is rejected``; lockdown's ``Lockdown:
    modprobe: unsigned module loading is restricted; see man kernel_lockdown.7``). A form that names
    the module (``nvidia: loading of unsigned module is rejected``) is a ``kernel_module_load_failure``
    with reason ``signature``."""

    kind: Literal["kernel_module_signature_rejected"] = "kernel_module_signature_rejected"
    check: Literal["unsigned", "unavailable_key", "unsupported_crypto", "lockdown"]
    process: str | None = None  # lockdown: the program that asked (modprobe, insmod, systemd-udevd)
    message: str
