"""PCIe AER and hotplug lines of the kernel log (used by :mod:`kernel_log`).

One AER event prints several lines; the first names the device, the next ones say what::

    pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0
    pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)
    pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000
    pcieport 0000:00:03.0:    [ 5] SDES
    pcieport 0000:00:03.0:    [14] CmpltTO                (First)

They become one ``pcie_aer_error`` fact whose evidence is the first line; the rest count as used.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.kinds.host import PcieLinkStatus
from stethoscope.facts.kinds.kernel import IommuFault, PciDeviceInaccessible, PcieAerError, PcieBarUnassigned, PcieLinkDown

_BDF = r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"

# pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0
# pcieport 0000:00:01.0: AER: Correctable error message received from 0000:00:01.0
# pcieport 0000:00:1d.0: AER: Multiple Corrected error received: id=00e8
_RECEIVED = re.compile(
    rf"(?<!\S)(?P<pdrv>[\w.-]+) (?P<port>{_BDF}): AER: (?P<multi>Multiple )?(?P<sev>Corrected|Correctable|Uncorrect(?:ed|able) \((?:Non-)?Fatal\)) "
    rf"error (?:message )?received(?::| from) (?:(?P<src>{_BDF})|id=(?P<id>[0-9a-fA-F]{{4}}))"
)
# nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)
# pcieport 0000:00:1d.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e8(Receiver ID)
_BUS_ERROR = re.compile(
    rf"(?<!\S)(?P<drv>[\w.-]+) (?P<dev>{_BDF}): (?:AER: )?PCIe Bus Error: (?:severity=)?(?P<sev>[^,]+), type=(?P<type>[^,]+)"
    r"(?:, (?:id=[0-9a-fA-F]{4})?\((?P<agent>[^)]*)\))?"
)
# pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000
# pcieport 0000:89:02.0: AER:   device [8086:347a] error status/mask=00000001/00000000
_STATUS = re.compile(
    rf"(?<!\S)[\w.-]+ {_BDF}: (?:AER: )?\s*device \[(?P<id>[0-9a-fA-F]{{4}}:[0-9a-fA-F]{{4}})\] error status/mask=(?P<status>[0-9a-fA-F]+)"
)
# pcieport 0000:00:03.0:    [14] CmpltTO                (First)
# pcieport 0000:00:1d.0:    [ 0] Receiver Error
_BIT = re.compile(rf"(?<!\S)[\w.-]+ {_BDF}: (?:AER: )?\s*\[\s*\d+\] (?P<name>\S.*?)\s*(?P<first>\(First\))?\s*$")
# pcieport 0000:00:00.0: AER:   TLP Header: 60000001 0100000f 000000ff ffffe000
_TLP = re.compile(rf"(?<!\S)[\w.-]+ {_BDF}: (?:AER: )?\s*TLP Header:")

# pcieport 0000:89:02.0: pciehp: Slot(400): Link Down
# pciehp 0000:13:01.0:pcie24: slot(1-5): Link Down event
_LINK_DOWN = re.compile(rf"(?<!\S)[\w.-]+ (?P<port>{_BDF})(?::pcie\d+)?: (?:pciehp: )?[Ss]lot\((?P<slot>[^)]*)\): Link Down(?: event)?\s*$")
# pcieport 0000:89:02.0: pciehp: Slot(400): Card not present
_CARD = re.compile(rf"(?<!\S)[\w.-]+ (?P<port>{_BDF})(?::pcie\d+)?: (?:pciehp: )?[Ss]lot\([^)]*\): Card (?P<not>not )?present")


# The PCI core giving up on a BAR (drivers/pci/setup-res.c pci_assign_resource, pci_info):
# pci 0000:04:00.0: BAR 7: no space for [mem size 0x01000000 64bit pref]        (Linux < 6.8, "BAR %d: no space for %pR";
# pci 0000:04:00.0: BAR 7: failed to assign [mem size 0x01000000 64bit pref]     Mellanox/mstflint#448, an SR-IOV VF BAR)
# pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: can't assign; no space    (6.8 on, "%s %pR: can't assign; no space",
# pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: failed to assign           "%s %pR: failed to assign")
_BAR_UNASSIGNED = re.compile(
    rf"(?<!\S)[\w.-]+ (?P<dev>{_BDF}): (?:(?P<bar>BAR \d+): (?P<old>no space for|failed to assign) (?P<res>\[[^\]]*\])"
    r"|(?P<bar2>(?:VF )?BAR \d+|bridge window) (?P<res2>\[[^\]]*\]): (?P<new>can't assign; no space|failed to assign))\s*$"
)


def parse_bar_unassigned(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], seen: dict) -> bool:
    """A BAR the PCI core could not place: one fact per device and BAR (its ``no space`` and
    ``failed to assign`` lines are one failure; ``seen`` maps (device, BAR) to its fact's fields)."""
    m = _BAR_UNASSIGNED.search(msg)
    if m is None:
        return False
    used.add(ln)
    dev, bar = try_pci_bus_id(m["dev"]) or m["dev"], m["bar"] or m["bar2"]
    gave_up = (m["old"] or m["new"]) == "failed to assign"
    if (dev, bar) in seen:
        seen[(dev, bar)]["gave_up"] |= gave_up
        return True
    seen[(dev, bar)] = dict(line=ln, device=dev, bar=bar, resource=m["res"] or m["res2"], gave_up=gave_up, **common)
    return True


# The PCI core's enumeration line of a display-class device (drivers/pci/probe.c pci_setup_device: pci_info
# "[%04x:%04x] type %02x class %#08x" and, 6.6 on, " %s" with the device type), class 0x0300 VGA, 0x0302 3D
# (an A100, an H100), 0x0380 other display: the GPUs whose unassigned BARs gpu_bar_unassigned judges
# pci 0000:01:00.0: [10de:2204] type 00 class 0x030000 PCIe Legacy Endpoint      (HeyMeco/Rockchip-pcie-devices#2)
# pci 0000:02:00.0: [10de:20f1] type 00 class 0x030200                            (kata-containers/kata-containers#4358, a guest)
DISPLAY_KEYWORD = r"\] type [0-9a-fA-F]{2} class 0x03"
_DISPLAY_DEVICE = re.compile(rf"(?<!\S)pci (?P<dev>{_BDF}): \[[0-9a-fA-F]{{4}}:[0-9a-fA-F]{{4}}\] type [0-9a-fA-F]{{2}} class 0x03(?:00|02|80)[0-9a-fA-F]{{2}}\b")


def note_display_device(msg: str, common: dict, gpus: set) -> bool:
    """A GPU's enumeration line: its (node, bus id) into ``gpus``."""
    if (m := _DISPLAY_DEVICE.search(msg)) is None:
        return False
    gpus.add((common["node"], try_pci_bus_id(m["dev"]) or m["dev"]))
    return True


def _gpus_of(b: FactBuilder, seen_gpus: set) -> set:
    """The (node, bus id) pairs this log shows to be GPUs: enumerated with a display class, or named by NVRM."""
    return seen_gpus | {(f.node, f.pci_bus_id) for f in b.result.facts if f.kind in ("xid_event", "kernel_gpu_seen")}


def emit_bar_unassigned(b: FactBuilder, seen: dict, seen_gpus: set) -> None:
    gpus = _gpus_of(b, seen_gpus)
    for rec in seen.values():
        rec = dict(rec)
        rec["gpu"] = (rec["node"], rec["device"]) in gpus
        b.add(PcieBarUnassigned, rec.pop("line"), **rec)


# A DMA the IOMMU refused. Intel VT-d (drivers/iommu/intel/dmar.c dmar_fault_do_one, pr_fmt "DMAR: "), by kernel version:
# DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x100000 [fault reason 0x71] SM: Present bit in first-level paging entry is clear
#     (5.13 on: "[%s NO_PASID] Request device [%02x:%02x.%d] fault addr 0x%llx [fault reason 0x%02x] %s"; tenstorrent/tt-umd#1814)
# DMAR: [DMA Read PASID 0x2] Request device [6a:01.0] fault addr 0x7fe0c9943000 [fault reason 0x3a] SM: Non-zero reserved field set in Root Entry
# DMAR: [DMA Read NO_PASID] Request device [0x00:0x02.0] fault addr 0x70ad5000 [fault reason 0x07] Next page table ptr is invalid
#     (5.10-5.12: "[0x%02x:0x%02x.%d]")
# DMAR: [DMA Read] Request device [00:02.0] PASID ffffffff fault addr 9c000000 [fault reason 06] PTE Read access is not set
#     (4.16-5.9: "[%s] Request device [%02x:%02x.%d] PASID %x fault addr %llx [fault reason %02d] %s")
# DMAR: [DMA Write] Request device [00:12.0] fault addr 0 [fault reason 05] PTE Write access is not set   (before 4.16)
# DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x0 [fault reason 0x25] Blocked a compatibility format interrupt request
# the lines kernel_log sends here (its keyword scan): the two fault forms, the fault interrupt's head, their rate limiting
KEYWORDS = (r"DMAR: ?\[(?:DMA |INTR-REMAP)|AMD-Vi: Event logged \[IO_PAGE_FAULT|DMAR: DRHD: handling fault"
            r"|(?:amd_iommu_report_page_fault|dmar_fault): \d{1,9} callbacks suppressed")
_DMAR_FAULT = re.compile(
    r"DMAR: ?\[(?:DMA (?P<rw>Read|Write)|(?P<intr>INTR-REMAP))[^\]]{0,24}\] Request device "
    r"\[(?:0x)?(?P<bus>[0-9a-fA-F]{2}):(?:0x)?(?P<slot>[0-9a-fA-F]{2})\.(?P<fn>[0-7])\]"
    r"(?: PASID [0-9a-fA-F]{1,8})? fault (?:addr|index) (?:0x)?(?P<addr>[0-9a-fA-F]{1,16})"
    r"(?: \[fault reason (?:0x)?[0-9a-fA-F]{1,3}h?\] ?(?P<reason>[^\n]{0,200}))?"
)
# AMD-Vi (drivers/iommu/amd/iommu.c amd_iommu_report_page_fault, pr_fmt "AMD-Vi: "): dev_err on the device when the
# IOMMU knows it, else pr_err naming it in the event:
# nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0x2bee0314000 flags=0x0020]   (ggml-org/llama.cpp#21908)
# AMD-Vi: Event logged [IO_PAGE_FAULT device=07:00.0 domain=0x0007 address=0xffffc02000 flags=0x0000]
_AMD_VI_FAULT = re.compile(
    r"AMD-Vi: Event logged \[IO_PAGE_FAULT (?:device=(?P<dev>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) )?"
    r"domain=0x[0-9a-fA-F]{1,4} address=0x(?P<addr>[0-9a-fA-F]{1,16})"
)
_AMD_VI_DEVICE = re.compile(rf"(?<!\S)(?P<drv>[\w.-]{{1,40}}) (?P<dev>{_BDF}): $")
# DMAR: DRHD: handling fault status reg 2          (the fault interrupt's head line, dmar.c dmar_fault)
# amd_iommu_report_page_fault: 6 callbacks suppressed / dmar_fault: 893 callbacks suppressed   (printk rate limiting)
_IOMMU_CONTEXT = re.compile(r"DMAR: DRHD: handling fault status reg [0-9a-fA-F]{1,8}|(?:amd_iommu_report_page_fault|dmar_fault): \d{1,9} callbacks suppressed")


def parse_iommu_fault(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], seen: dict) -> bool:
    """An IOMMU fault line: one ``iommu_fault`` per device (``seen`` maps the device to its fields); the
    fault-status and rate-limit lines around them count as used."""
    if (m := _DMAR_FAULT.search(msg)) is not None:
        dev = f"0000:{m['bus']}:{m['slot']}.{m['fn']}".lower()
        rec = dict(iommu="intel_vt_d", device=dev, access=m["rw"].lower() if m["rw"] else None, address="0x" + m["addr"].lower(),
                   reason=(m["reason"] or "").strip() or None, interrupt_remap=m["intr"] is not None)
    elif (m := _AMD_VI_FAULT.search(msg)) is not None:
        d = _AMD_VI_DEVICE.search(msg[: m.start()])
        dev = try_pci_bus_id(m["dev"]) or (try_pci_bus_id(d["dev"]) if d else None)
        if dev is None:
            return False
        rec = dict(iommu="amd_vi", device=dev, driver=d["drv"] if d else None, address="0x" + m["addr"].lower())
    else:
        if _IOMMU_CONTEXT.search(msg) is None:
            return False
        used.add(ln)
        return True
    used.add(ln)
    key = (rec["iommu"], rec["device"], rec["interrupt_remap"] if "interrupt_remap" in rec else False)
    if key in seen:
        seen[key]["count"] += 1
        return True
    seen[key] = dict(line=ln, count=1, **rec, **common)
    return True


_GPU_DRIVERS = ("nvidia", "nouveau", "amdgpu")


def emit_iommu_faults(b: FactBuilder, seen: dict, seen_gpus: set) -> None:
    """The faults of ``seen``, each marked ``gpu`` when its device is one: a GPU driver's name on the line, or a bus
    id this log enumerates with a display class or its NVRM lines name (Intel's DMAR line names no driver)."""
    gpus = _gpus_of(b, seen_gpus)
    for rec in seen.values():
        rec = dict(rec)
        rec["gpu"] = rec.get("driver") in _GPU_DRIVERS or (rec["node"], rec["device"]) in gpus
        b.add(IommuFault, rec.pop("line"), **rec)


# A device that stopped answering config reads: the PCI core could not bring it back to D0, or it gave up waiting
# for it after a reset (drivers/pci/pci.c). Power-up, by kernel version:
# vfio-pci 0000:01:00.0: Unable to change power state from D3cold to D0, device inaccessible
#     (5.19 on, pci_power_up: pci_err "Unable to change power state from %s to D0, device inaccessible";
#      kata-containers/kata-containers#11708, a GPU bound to vfio-pci for a Kata guest)
# nvme 0000:01:00.0: can't change power state from D3hot to D0 (config space inaccessible)
#     (before: pci_err "can't change power state from %s to D0 (config space inaccessible)"; an lkml report's line)
# The wait after a reset or resume (pci_dev_wait: pci_warn "not ready %dms after %s; giving up", the %s "FLR",
# "bus reset", "resume", "PM D3hot->D0", ...; its "; waiting" lines are pci_info progress, left alone):
# igc 0000:02:00.0: not ready 65535ms after bus reset; giving up      (an lkml report's line)
UNREACHABLE_KEYWORDS = r"change power state from \w{1,8} to D0|ms after [^;\n]{1,24}; giving up"
_POWER_UP = re.compile(
    rf"(?<!\S)(?P<drv>[\w.-]{{1,40}}) (?P<dev>{_BDF}): (?:Unable to|can't) change power state from (?P<from>\w{{1,8}}) to D0"
    r"(?:, device inaccessible| \(config space inaccessible\))"
)
_NOT_READY = re.compile(rf"(?<!\S)(?P<drv>[\w.-]{{1,40}}) (?P<dev>{_BDF}): not ready (?P<ms>\d{{1,7}})ms after (?P<after>[^;\n]{{1,24}}); giving up")


def parse_inaccessible(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], seen: dict) -> bool:
    """A power-up or reset-wait failure: one ``pci_device_inaccessible`` per device and kind of failure (``seen`` maps
    (node, device, event) to its fields, counting repeats)."""
    if (m := _POWER_UP.search(msg)) is not None:
        rec = dict(event="power_up", from_state=m["from"], after=None, waited_ms=None)
    elif (m := _NOT_READY.search(msg)) is not None:
        rec = dict(event="reset_wait", from_state=None, after=m["after"].strip(), waited_ms=int(m["ms"]))
    else:
        return False
    used.add(ln)
    dev = try_pci_bus_id(m["dev"]) or m["dev"]
    key = (common["node"], dev, rec["event"])
    if key in seen:
        seen[key]["count"] += 1
        return True
    seen[key] = dict(line=ln, count=1, device=dev, driver=m["drv"], **rec, **common)
    return True


def emit_inaccessible(b: FactBuilder, seen: dict, seen_gpus: set) -> None:
    """The devices of ``seen``, each marked ``gpu`` (a GPU driver's name on the line, or a bus id this log enumerates
    with a display class or its NVRM lines name) and ``passthrough`` (bound to vfio-pci, handed to a VM)."""
    gpus = _gpus_of(b, seen_gpus)
    for rec in seen.values():
        rec = dict(rec)
        rec["gpu"] = rec["driver"] in _GPU_DRIVERS or (rec["node"], rec["device"]) in gpus
        rec["passthrough"] = rec["driver"] == "vfio-pci"
        b.add(PciDeviceInaccessible, rec.pop("line"), **rec)


def _severity(raw: str) -> str:
    raw = raw.lower()
    if raw.startswith("correct"):
        return "corrected"
    return "nonfatal" if "non-fatal" in raw else "fatal"


def _from_requester_id(port: str, rid: str) -> str:
    """Old kernels print the source as a 16-bit requester id (bus << 8 | devfn), in the reporting
    port's PCI domain: all of it, a VMD domain has five digits (``10003:00:02.0``), not the first four."""
    v = int(rid, 16)
    return f"{port.split(':', 1)[0]}:{v >> 8:02x}:{(v >> 3) & 0x1f:02x}.{v & 7}"


# what a device is, by the driver its own line names ("<driver> <bdf>: ..." is dev_printk's form): the PCIe port service
# driver binds every root and switch port (drivers/pci/pcie/portdrv.c, "pcieport"); a GPU's line names nvidia's driver,
# or "pci" where no driver is bound (a GPU whose driver failed to load, an unknown device), and a head line whose device
# printed nothing names none: any of those may be the GPU
_PORT_DRIVERS = frozenset({"pcieport"})
_MAYBE_GPU_DRIVERS = frozenset({None, "pci", "nvidia"})


def device_roles(device: str | None, driver: str | None) -> dict[str, str | None]:
    """The ``bridge`` and ``gpu_bus_id`` fields of a PCIe error fact: the device's address under the one that says what it
    is (a PCIe port, a device that may be a GPU); neither for a device of another driver (an NVMe drive, a NIC)."""
    if device is None or driver in _PORT_DRIVERS:
        return {"bridge": device, "gpu_bus_id": None}
    return {"bridge": None, "gpu_bus_id": device if driver in _MAYBE_GPU_DRIVERS else None}


class AerEvents:
    """Groups the lines of one AER event into one fact."""

    def __init__(self, builder: FactBuilder, used: set[int], prefix: re.Pattern[str]):
        self.b, self.used, self.prefix = builder, used, prefix
        self.pending: dict | None = None

    def flush(self) -> None:
        p, self.pending = self.pending, None
        if p is None:
            return
        ln = p.pop("line")
        p.pop("last")
        names = p.pop("names")
        p["errors"] = ",".join(names) or None
        self.b.add(PcieAerError, ln, pci_bus_id=p["device"], **device_roles(p["device"], p.get("device_driver")), **p)

    def feed(self, ln: int, line: str, msg: str, common: dict, lines: list[str]) -> bool:
        """Read one line holding an AER keyword; True if it belongs to an AER event."""
        if ln in self.used:
            return True
        if (r := _RECEIVED.search(msg)) is not None:
            self.flush()
            port = try_pci_bus_id(r["port"])
            device = try_pci_bus_id(r["src"]) if r["src"] else _from_requester_id(port, r["id"])
            self.pending = dict(line=ln, last=ln, device=device, reporter=port, severity=_severity(r["sev"]),
                                device_driver=r["pdrv"] if device == port else None,
                                multiple=r["multi"] is not None, message=msg[r.start("port"):].split(": ", 1)[1], names=[],
                                **common)
            self.used.add(ln)
            self._continuations(ln, lines)
            return True
        if (e := _BUS_ERROR.search(msg)) is not None:
            p = self.pending
            if p is None or p.get("error_type") or ln - p["last"] > 3:
                self.flush()
                self.pending = p = dict(line=ln, device=try_pci_bus_id(e["dev"]), severity=_severity(e["sev"]),
                                        message=msg[e.start("dev"):].split(": ", 1)[1], names=[], **common)
            p.update(error_type=e["type"].strip(), agent=e["agent"], last=ln)
            if try_pci_bus_id(e["dev"]) == p["device"]:
                p["device_driver"] = e["drv"]
            self.used.add(ln)
            self._continuations(ln, lines)
            return True
        if _STATUS.search(msg) or _BIT.search(msg) or _TLP.search(msg):
            self.used.add(ln)  # an orphan detail line (its head was cut off)
            return True
        return False

    def _continuations(self, ln: int, lines: list[str]) -> None:
        p = self.pending
        k = ln
        while k < len(lines) and k - ln < 40:
            raw = lines[k]
            pm = self.prefix.match(raw)
            msg = raw[pm.end():] if pm else raw
            if (s := _STATUS.search(msg)) is not None:
                p["pci_device_id"], p["error_status"] = s["id"].lower(), s["status"]
            elif (bit := _BIT.search(msg)) is not None:
                p["names"].append(bit["name"])
                if bit["first"]:
                    p["first_error"] = bit["name"]
            elif _TLP.search(msg) is None:
                break
            k += 1
            self.used.add(k)
            p["last"] = k


def parse_link_down(b: FactBuilder, ln: int, msg: str, common: dict, lines: list[str], used: set[int]) -> bool:
    if ln in used:
        return True
    m = _LINK_DOWN.search(msg)
    if m is None:
        return False
    card = None
    if ln < len(lines) and (c := _CARD.search(lines[ln])) is not None and c["port"] == m["port"]:
        card = c["not"] is None
        used.add(ln + 1)
    b.add(PcieLinkDown, ln, device=try_pci_bus_id(m["port"]), slot=m["slot"], card_present=card, **common)
    used.add(ln)
    return True


# drivers/pci/pci.c __pcie_print_link_status() (a driver's probe calls pcie_print_link_status: mlx5_core, ice, bnxt_en, ...):
#   "%u.%03u Gb/s available PCIe bandwidth, limited by %s x%d link at %s (capable of %u.%03u Gb/s with %s x%d link)\n"
#   (pci_speed_string: "8.0 GT/s PCIe" since 5.x, "8 GT/s" before; the link that limits is at the device after "at", the
#   device itself or a port above it; the info-level "%u.%03u Gb/s available PCIe bandwidth (%s x%d link)" is a full link)
# mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s x16 link)
#                                                               (NVIDIA/l2fwd-nv#6: a 100 GbE ConnectX-6 Dx capped near 55 Gb/s)
# pci 0003:01:00.0: 7.876 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x1 link at 0003:00:00.0 (capable of 15.752 Gb/s with 8.0 GT/s PCIe x2 link)
#                                                               (openwrt/openwrt#24642)
_BW_LIMITED = re.compile(
    rf"(?<!\S)(?P<drv>[\w.-]+) (?P<dev>{_BDF}): \d{{1,6}}\.\d{{3}} Gb/s available PCIe bandwidth, limited by (?P<speed>\d{{1,3}}(?:\.\d{{1,2}})?) GT/s"
    rf" (?:PCIe )?x(?P<width>\d{{1,2}}) link at (?:{_BDF}|<unknown>) \(capable of \d{{1,6}}\.\d{{3}} Gb/s with"
    rf" (?P<cspeed>\d{{1,3}}(?:\.\d{{1,2}})?) GT/s (?:PCIe )?x(?P<cwidth>\d{{1,2}}) link\)")
#: drivers that print the line for a network adapter; "nvidia" does not call pcie_print_link_status
_NIC_DRIVERS = frozenset({"mlx5_core", "mlx4_core", "bnxt_en", "ice", "i40e", "ixgbe", "idpf", "ena", "efa", "irdma",
                          "qede", "cxgb4", "nfp", "hfi1"})


def parse_bandwidth_limited(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """The PCI core's notice that a device's path trained below what it can use: a PcieLinkStatus of the device."""
    m = _BW_LIMITED.search(msg)
    if m is None:
        return False
    speed, cap_speed, width, cap_width = float(m["speed"]), float(m["cspeed"]), int(m["width"]), int(m["cwidth"])
    drv = m["drv"]
    kind = "nic" if drv in _NIC_DRIVERS else "bridge" if drv == "pcieport" else "unknown" if drv == "pci" else "other"
    bus = try_pci_bus_id(m["dev"])
    b.add(PcieLinkStatus, ln, node=common["node"], device=bus or m["dev"], pci_bus_id=bus, device_type=kind, name=drv,
          speed_gts=speed, width=width, cap_speed_gts=cap_speed, cap_width=cap_width, speed_below_cap=speed < cap_speed,
          width_below_cap=width < cap_width)
    used.add(ln)
    return True
