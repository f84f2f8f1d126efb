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


GET_ROWS = [
    # (line, (group, step, errno, error, device, mediated) or None for no fact)
    ("kvm: -device vfio-pci,sysfsdev=/sys/bus/mdev/devices/00000000-0000-0000-0000-000000000108,id=hostpci0,bus=pci.0,addr=0x10: "
     "vfio 00000000-0000-0000-0000-000000000108: error getting device from group 106: Input/output error",
     (106, "device_fd", 5, "Input/output error", "00000000-0000-0000-0000-000000000108", True)),   # wvthoog/proxmox-vgpu-installer#30
    ("  Warning  SyncFailed        7s    virt-handler, k8s-master   server error. command SyncVMI failed: \"LibvirtError(Code=1, "
     "Domain=10, Message='internal error: qemu unexpectedly closed the monitor: 2021-11-03T08:06:48.563014Z qemu-kvm: -device "
     "vfio-pci,host=0000:01:00.0,id=ua-gpu1,bus=pci.5,addr=0x0: vfio 0000:01:00.0: group 1 is not viable\\nPlease ensure all devices "
     "within the iommu_group are bound to their vfio bus driver.')\"",
     (1, "not_viable", None, None, "0000:01:00.0", False)),   # kubevirt/kubevirt#6718
    # QEMU's hint alone, without the failure it follows, is not read as one
    ("Verify all devices in group 106 are bound to vfio-<bus> or pci-stub and not already in use", None),
]


@pytest.mark.parametrize("line,want", GET_ROWS)
def test_device_get_line(line, want):
    facts = qemu_vfio_log.parse(Artefact(path="qemu.log", text=line + "\n")).facts
    if want is None:
        assert facts == []
        return
    (f,) = facts
    assert (f.group, f.step, f.errno, f.error, f.device, f.mediated) == want


def test_device_get_with_hint_reads_both_lines():
    text = open("fixtures/artefacts/qemu_vfio_log/proxmox_vgpu_installer30_mdev_group_eio.log").read()
    assert qemu_vfio_log.detect(text)
    r = qemu_vfio_log.parse(Artefact(path="task.txt", text=text))
    assert [f.kind for f in r.facts] == ["vfio_device_get_failure"]
    assert r.lines_used == 2   # the failure and QEMU's "Verify all devices in group 106 ..." under it
