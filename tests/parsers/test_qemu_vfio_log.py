"""qemu_vfio_log: a VMM's VFIO DMA-mapping errors, table-driven on real lines."""
import pytest

from stethoscope.facts.parsers import qemu_vfio_log
from stethoscope.facts.parsers.base import Artefact

ROWS = [
    # (line, (errno, error, region, device) or None for no fact)
    ("❯ ERROR: qemu-system-x86_64: -device vfio-pci,host=0000:04:00.2,multifunction=on: vfio 0000:04:00.2: failed to setup container "
     "for group 39: memory listener initialization failed: Region pc.ram: vfio_container_dma_map(0x55d161902480, 0x0, 0x80000000, "
     "0x7fb94be00000) = -12 (Cannot allocate memory)", (12, "Cannot allocate memory", "pc.ram", "0000:04:00.2")),   # dockur/windows#22
    ("ctr: failed to create shim task: QMP command failed: vfio 0000:17:00.0: failed to setup container for group 57: memory listener "
     "initialization failed: Region dimm1: vfio_dma_map(0x3ea4e990, 0x40000000, 0x500000000, 0xfffaa3fff000) = -14 (Bad address): unknown",
     (14, "Bad address", "dimm1", "0000:17:00.0")),   # kata-containers/kata-containers#10354
    ("Jun 04 07:25:13 pve1 QEMU[3989106]: kvm: VFIO_MAP_DMA failed: Invalid argument", (22, "Invalid argument", None, None)),
    ("qemu-system-x86_64: -device vfio-pci,host=0000:41:10.1,bootindex=-1: VFIO_MAP_DMA: -22", (22, "-22", None, "0000:41:10.1")),
    ("2020-08-22T08:21:12.663319Z qemu-system-x86_64: -device vfio-pci,host=03:10.2,id=hostdev0: VFIO_MAP_DMA failed: Cannot allocate memory",
     (12, "Cannot allocate memory", None, "0000:03:10.2")),
    ("qemu-system-x86_64: -device vfio-pci,host=0000:85:00.0: vfio 0000:85:00.0: group 75 used in multiple address spaces", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = qemu_vfio_log.parse(Artefact(path="qemu.log", text=line + "\n")).facts
    if want is None:
        assert facts == []
        return
    (f,) = facts
    assert (f.errno, f.error, f.region, f.device) == want


def test_detect():
    assert qemu_vfio_log.detect("kvm: VFIO_MAP_DMA failed: Cannot allocate memory\n")
    assert not qemu_vfio_log.detect("vfio-pci 0000:01:00.0: enabling device (0000 -> 0003)\n")
