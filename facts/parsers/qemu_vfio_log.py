"""A VMM's VFIO DMA-mapping errors: QEMU (as libvirt, KubeVirt's virt-launcher, kata's shim or a
container's entrypoint reports them) failing to map a VM's memory through the IOMMU for a
passed-through device (a GPU, a vGPU, a NIC's VF). The VM does not start or the device is not
attached; the errno says why (ENOMEM: pinning refused, most often the VMM's locked-memory limit;
EFAULT: memory the kernel could not pin; EINVAL: an IOVA outside the IOMMU's usable range).

QEMU's format strings (hw/vfio/common.c, container.c; util/vfio-helpers.c)::

    error_report("VFIO_MAP_DMA failed: %s", strerror(errno))        (QEMU 5.0+; before: "VFIO_MAP_DMA: %d", -errno)
    "vfio_dma_map(%p, 0x%"HWADDR_PRIx", 0x%"HWADDR_PRIx", %p) = %d (%s)"   (QEMU 8.2+: vfio_container_dma_map)
    error_propagate_prepend(errp, ..., "memory listener initialization failed: ")  after "Region %s: "

Sample lines (real, from even-numbered public threads)::

    ERROR: qemu-system-x86_64: -device vfio-pci,host=0000:04:00.2,multifunction=on: vfio 0000:04:00.2: failed to setup container for group 39: memory listener initialization failed: Region pc.ram: vfio_container_dma_map(0x55d161902480, 0x0, 0x80000000, 0x7fb94be00000) = -12 (Cannot allocate memory)   (dockur/windows#22)
    ctr: failed to create shim task: QMP command failed: vfio 0000:17:00.0: failed to setup container for group 57: memory listener initialization failed: Region dimm1: vfio_dma_map(0x3ea4e990, 0x40000000, 0x500000000, 0xfffaa3fff000) = -14 (Bad address): unknown   (kata-containers/kata-containers#10354)

Fact: ``vfio_dma_map_failure`` per line (errno, error text, region, device).
"""
from __future__ import annotations

import errno
import os
import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.host import VfioDmaMapFailure  # noqa: F401 - the fact classes live in facts/kinds
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

#: the C library's strerror texts, read back to their errno (QEMU prints strerror(-ret)), as verbs_perror reads them
_ERRNO = {os.strerror(n): n for n in sorted(errno.errorcode)}


def detect(head: str) -> bool:
    return ("VFIO_MAP_DMA" in head or "dma_map(0x" in head) and (
        _MAP_DMA.search(head) is not None or _DMA_MAP.search(head) is not None)


def _device(line: str) -> str | None:
    m = _DEVICE.search(line)
    return None if m is None else try_pci_bus_id(m["bdf"] or m["host"])


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "VFIO_MAP_DMA" not in line and "dma_map(0x" not in line:
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
    return result


#: the line signatures this reader owns
SIGNATURES = (_DMA_MAP, _MAP_DMA)
