"""A VMM's VFIO errors (DMA mapping; getting a device from its IOMMU group, below): QEMU (as
libvirt, KubeVirt's virt-launcher, kata's shim or a container's entrypoint reports them) failing
to map a VM's memory through the IOMMU for a passed-through device (a GPU, a vGPU, a NIC's VF).
The VM does not start or the device is not attached; the errno says why (ENOMEM: pinning
refused, most often the VMM's locked-memory limit; EFAULT: memory the kernel could not pin;
EINVAL: an IOVA outside the IOMMU's usable range).

QEMU's format strings (hw/vfio/common.c, container.c; util/vfio-helpers.c)::

    error_report("VFIO_MAP_DMA failed: %s", strerror(errno))        (QEMU 5.0+; before: "VFIO_MAP_DMA: %d", -errno)
    "vfio_dma_map(%p, 0x%"HWADDR_PRIx", 0x%"HWADDR_PRIx", %p) = %d (%s)"   (QEMU 8.2+: vfio_container_dma_map)
    error_propagate_prepend(errp, ..., "memory listener initialization failed: ")  after "Region %s: "

Sample lines (real, from even-numbered public threads)::

    ERROR: qemu-system-x86_64: -device vfio-pci,host=0000:04:00.2,multifunction=on: vfio 0000:04:00.2: failed to setup container for group 39: memory listener initialization failed: Region pc.ram: vfio_container_dma_map(0x55d161902480, 0x0, 0x80000000, 0x7fb94be00000) = -12 (Cannot allocate memory)   (dockur/windows#22)
    ctr: failed to create shim task: QMP command failed: vfio 0000:17:00.0: failed to setup container for group 57: memory listener initialization failed: Region dimm1: vfio_dma_map(0x3ea4e990, 0x40000000, 0x500000000, 0xfffaa3fff000) = -14 (Bad address): unknown   (kata-containers/kata-containers#10354)

QEMU's VFIO device-get failures (hw/vfio/common.c vfio_get_group / vfio_get_device; the device's
name before them from ``VFIO_MSG_PREFIX`` "vfio %s: ", a PCI address or a mediated device's UUID)::

    error_setg_errno(errp, errno, "error getting device from group %d", group->groupid);
    error_append_hint(errp, "Verify all devices in group %d are bound to vfio-<bus> or pci-stub and not already in use\\n", ...)
    error_setg(errp, "group %d is not viable", groupid);
    error_append_hint(errp, "Please ensure all devices within the iommu_group are bound to their vfio bus driver.\\n");

Sample lines (real)::

    kvm: -device vfio-pci,sysfsdev=/sys/bus/mdev/devices/00000000-0000-0000-0000-000000000108,id=hostpci0,bus=pci.0,addr=0x10: vfio 00000000-0000-0000-0000-000000000108: error getting device from group 106: Input/output error   (wvthoog/proxmox-vgpu-installer#30, a vGPU's mdev on Proxmox)
    Verify all devices in group 106 are bound to vfio-<bus> or pci-stub and not already in use
    ... qemu-kvm: -device vfio-pci,host=0000:01:00.0,id=ua-gpu1,bus=pci.5,addr=0x0: vfio 0000:01:00.0: group 1 is not viable\\nPlease ensure all devices within the iommu_group are bound to their vfio bus driver.   (kubevirt/kubevirt#6718, a GPU in a KubeVirt VMI's libvirt error)

Facts: ``vfio_dma_map_failure`` per DMA-mapping line (errno, error text, region, device);
``vfio_device_get_failure`` per device-get line (group, step, errno, error, device, mediated); QEMU's
hint lines under them are read as theirs.
"""
from __future__ import annotations

import errno
import os
import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.host import VfioDmaMapFailure  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.kernel import VfioDeviceGetFailure
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "qemu_vfio_log"

# Region pc.ram: vfio_container_dma_map(0x55d161902480, 0x0, 0x80000000, 0x7fb94be00000) = -12 (Cannot allocate memory)
# Region dimm1: vfio_dma_map(0x3ea4e990, 0x40000000, 0x500000000, 0xfffaa3fff000) = -14 (Bad address)
_DMA_MAP = re.compile(
    r"(?:Region (?P<region>[^\s:]{1,80}): )?vfio_(?:container_)?dma_map\(0x[0-9a-fA-F]{1,16}, 0x[0-9a-fA-F]{1,16}, "
    r"0x[0-9a-fA-F]{1,16}, 0x[0-9a-fA-F]{1,16}\) = (?P<ret>-\d{1,3}) \((?P<err>[^)\n]{1,60})\)"
)
# qemu-system-x86_64: -device vfio-pci,host=0000:85:00.0,...: VFIO_MAP_DMA failed: Cannot allocate memory   (QEMU 5.0+)
# qemu-system-x86_64: -device vfio-pci,host=0000:41:10.1,bootindex=-1: VFIO_MAP_DMA: -22   (before 5.0; quoted in a Linux
#   vfio_iommu_type1 IOVA-range patch, code index file id 27856507117)
_MAP_DMA = re.compile(r"VFIO_MAP_DMA(?: failed: (?P<err>[A-Z][A-Za-z ]{1,40}[a-z])|: (?P<ret>-\d{1,3})\b)")
# vfio 0000:04:00.2: failed to setup container for group 39   /   -device vfio-pci,host=0000:85:00.0,
_DEVICE = re.compile(r"vfio (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): |host=(?P<host>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b")

# the device QEMU names after "vfio ": a PCI address, a mediated device's UUID, or another name without blanks
_VFIO_NAME = r"vfio (?P<name>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]|[0-9a-fA-F-]{36}|[^\s:]{1,80}): "
# vfio 00000000-0000-0000-0000-000000000108: error getting device from group 106: Input/output error   (proxmox-vgpu-installer#30)
_GET_DEVICE = re.compile(_VFIO_NAME + r"error getting device from group (?P<group>\d{1,6})(?:: (?P<err>[A-Z][A-Za-z /]{1,40}[a-z]))?")
# vfio 0000:01:00.0: group 1 is not viable   (kubevirt/kubevirt#6718)
_NOT_VIABLE = re.compile(_VFIO_NAME + r"group (?P<group>\d{1,6}) is not viable")
# Verify all devices in group 106 are bound to vfio-<bus> or pci-stub and not already in use
# Please ensure all devices within the iommu_group are bound to their vfio bus driver.
_HINT = re.compile(r"Verify all devices in group \d{1,6} are bound to vfio-<bus> or pci-stub"
                   r"|Please ensure all devices within the iommu_group are bound to their vfio bus driver")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

#: the C library's strerror texts, read back to their errno (QEMU prints strerror(-ret)), as verbs_perror reads them
_ERRNO = {os.strerror(n): n for n in sorted(errno.errorcode)}


def detect(head: str) -> bool:
    if ("VFIO_MAP_DMA" in head or "dma_map(0x" in head) and (
            _MAP_DMA.search(head) is not None or _DMA_MAP.search(head) is not None):
        return True
    return ("error getting device from group " in head or " is not viable" in head) and (
        _GET_DEVICE.search(head) is not None or _NOT_VIABLE.search(head) is not None)


def _get_failure(b: FactBuilder, n: int, line: str) -> bool:
    """QEMU's device-get failure on this line, as a vfio_device_get_failure fact."""
    m = _GET_DEVICE.search(line) if "error getting device from group " in line else None
    step = "device_fd"
    if m is None and " is not viable" in line:
        m, step = _NOT_VIABLE.search(line), "not_viable"
    if m is None:
        return False
    name = m["name"]
    uuid = _UUID.fullmatch(name) is not None
    err = m["err"] if step == "device_fd" else None
    b.add(VfioDeviceGetFailure, n, group=int(m["group"]), step=step, errno=_ERRNO.get(err) if err else None,
          error=err, device=name.lower() if uuid else (try_pci_bus_id(name) or name),
          mediated=uuid or "/sys/bus/mdev/" in line, message=line.strip()[:400])
    return True


def _device(line: str) -> str | None:
    m = _DEVICE.search(line)
    return None if m is None else try_pci_bus_id(m["bdf"] or m["host"])


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    hints = 0
    for n, line in enumerate(artefact.lines, 1):
        if "VFIO_MAP_DMA" not in line and "dma_map(0x" not in line:
            if _get_failure(b, n, line):
                result.lines_used += 1
            elif "vfio" in line and _HINT.search(line) is not None:
                hints += 1
            continue
        if (m := _DMA_MAP.search(line)) is not None:
            errno, error, region = -int(m["ret"]), m["err"], m["region"]
        elif (m := _MAP_DMA.search(line)) is not None:
            error, region = m["err"] or m["ret"], None
            errno = _ERRNO.get(m["err"]) if m["err"] else -int(m["ret"])
        else:
            continue
        b.add(VfioDmaMapFailure, n, errno=errno, error=error, region=region, device=_device(line),
              message=line.strip()[:400])
        result.lines_used += 1
    if hints and any(f.kind == "vfio_device_get_failure" for f in result.facts):
        result.lines_used += hints  # QEMU's hint under its device-get failure: that failure's own line
    return result


#: the line signatures this reader owns
SIGNATURES = (_DMA_MAP, _MAP_DMA, _GET_DEVICE, _NOT_VIABLE)
