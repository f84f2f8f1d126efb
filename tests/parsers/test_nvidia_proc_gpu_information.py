"""/proc/driver/nvidia/gpus/<bus id>/information (nvidia_proc_gpu_information): the driver's inventory of a GPU, as
pasted (two public threads' fixtures), nv-procfs.c's other versions, and texts that are not it."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_proc_gpu_information as info
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvidia_proc_gpu_information"


def _facts(text: str):
    assert info.detect(text)
    return info.parse(Artefact(path="information", text=text, node="n1")).facts


def test_lxd3950_fixture():
    (f,) = _facts((FIXTURES / "lxd3950_gtx650_information.txt").read_text())
    assert (f.pci_bus_id, f.model, f.irq, f.uuid, f.vbios, f.bus_type, f.device_minor, f.initialised, f.evidence.line) == (
        "0000:04:00.0", "GeForce GTX 650", 44, "GPU-e3f822b9-8c5f-95a5-b379-8dfdeefd7758", "80.07.35.00.80", "PCIe", None, True, 2)


def test_kata2546_cut_block_takes_the_path_bus_id():
    (f,) = _facts((FIXTURES / "kataruntime2546_unknown_model_cut.txt").read_text())
    assert (f.pci_bus_id, f.model, f.irq, f.uuid, f.initialised) == ("0000:00:08.0", "Unknown", 35, None, False)


def test_two_gpus_current_driver_form():
    # CONSTRUCTED from nv-procfs.c's current format (Device Minor, GPU Firmware, GPU Excluded), two GPUs concatenated by
    # `cat /proc/driver/nvidia/gpus/*/information`, the second not initialised since the driver loaded
    text = ("Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 0\nGPU UUID: \t GPU-1b2c3d4e-0000-1111-2222-333344445555\n"
            "Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\n"
            "Bus Location: \t 0000:18:00.0\nDevice Minor: \t 0\nGPU Firmware: \t 570.124.06\nGPU Excluded:\t No\n"
            "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 0\nGPU UUID: \t GPU-????????-????-????-????-????????????\n"
            "Video BIOS: \t ??.??.??.??.??\nBus Type: \t PCIe\nBus Location: \t 0000:2a:00.0\nDevice Minor: \t 1\nGPU Excluded:\t Yes\n")
    a, c = _facts(text)
    assert (a.pci_bus_id, a.device_minor, a.firmware, a.excluded, a.initialised) == ("0000:18:00.0", 0, "570.124.06", False, True)
    assert (c.pci_bus_id, c.uuid, c.vbios, c.excluded, c.initialised) == ("0000:2a:00.0", None, None, True, False)


def test_older_driver_forms():
    # CONSTRUCTED from older nv-procfs.c: "Card Type: PCI-E", "Bus Location: %04x:%02x.%02x.%x", "Blacklisted"
    (f,) = _facts("Model: \t\t Tesla K80\nIRQ:   \t\t 64\nVideo BIOS: \t 80.21.1b.00.01\nCard Type: \t PCI-E\n"
                  "Bus Location: \t 0000:05.00.0\nBlacklisted:\t No\n")
    assert (f.pci_bus_id, f.bus_type, f.excluded) == ("0000:05:00.0", "PCIe", False)


@pytest.mark.parametrize("text", [
    # CONSTRUCTED negatives: nvidia-smi -q's indented keys, a prose line naming a model, /proc/cpuinfo's lines
    "    GPU UUID                        : GPU-3e865575-1329-5058-ec63-87ef0726a5dd\n    VBIOS Version                   : 80.28.92.00.10\n",
    "Model: the card we bought last year\nand the IRQ: it shares with the NIC\n",
    "model name\t: AMD EPYC 7763 64-Core Processor\nstepping\t: 1\n",
])
def test_not_information(text):
    assert not info.detect(text)
