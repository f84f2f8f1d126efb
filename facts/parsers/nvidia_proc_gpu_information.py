"""``/proc/driver/nvidia/gpus/<bus id>/information``: the NVIDIA kernel driver's description of one GPU, as people paste
it (``cat /proc/driver/nvidia/gpus/*/information``) to say which GPUs the driver holds: inventory, nothing of health.

The driver's format (open-gpu-kernel-modules kernel-open/nvidia/nv-procfs.c ``nv_procfs_read_gpu_info``; older drivers
the same lines, "Bus Location" as ``%04x:%02x.%02x.%x``, "Card Type: PCI-E" before "Bus Type", "Blacklisted" before
"GPU Excluded", no "Device Minor" before about 2015, "GPU Firmware" from R510)::

    Model: \\t\\t %s
    IRQ:   \\t\\t %d
    GPU UUID: \\t %s                   (GPU-????????-????-????-????-???????????? before the GPU is initialised)
    Video BIOS: \\t %02x.%02x.%02x.%02x.%02x   (??.??.??.??.?? before the GPU is initialised)
    Bus Type: \\t PCIe
    DMA Size: \\t %d bits
    DMA Mask: \\t 0x%llx
    Bus Location: \\t %04x:%02x:%02x.%x
    Device Minor: \\t %u
    GPU Firmware: \\t %s
    GPU Excluded:\\t Yes|No

Sample content (real, canonical/lxd#3950: a GTX 650; the prompt and command its paste's, the tabs as spaces)::

    [sf@pongo ~]$ cat /proc/driver/nvidia/gpus/0000\\:04\\:00.0/information
    Model:           GeForce GTX 650
    IRQ:             44
    GPU UUID:        GPU-e3f822b9-8c5f-95a5-b379-8dfdeefd7758
    Video BIOS:      80.07.35.00.80
    Bus Type:        PCIe
    DMA Size:        40 bits
    DMA Mask:        0xffffffffff
    Bus Location:    0000:04:00.0

Facts: one ``gpu_proc_information`` per GPU block (a ``Model:`` line and the lines after it): the bus id from its "Bus
Location" line, else from the /proc path of the command before it; a block cut short keeps what it shows. It checks no
component (knowledge/coverage.yaml): a bundle of it alone is inconclusive.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import GpuProcInformation  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_proc_gpu_information"

# Model:           GeForce GTX 650          (canonical/lxd#3950, the tabs as the paste's spaces)
# IRQ:             44
# Model: \t\t Unknown / IRQ:   \t\t 35        (kata-containers/runtime#2546, the driver's tabs kept)
_HEAD = re.compile(r"^Model:[ \t]{1,24}[^\n]{1,80}\r?\nIRQ:[ \t]{1,24}\d{1,5}[ \t]*\r?$", re.M)
# Bus Location:    0000:04:00.0             (canonical/lxd#3950; older drivers "0000:04.00.0")
_LOCATION = re.compile(r"^Bus Location:[ \t]{1,24}[0-9a-fA-F]{4}:[0-9a-fA-F]{2}[:.][0-9a-fA-F]{2}\.[0-7][ \t]*\r?$", re.M)
# one line of a block: its key and value
_FIELD = re.compile(r"^(?P<key>Model|IRQ|GPU UUID|Video BIOS|Bus Type|Card Type|DMA Size|DMA Mask|Bus Location|Device Minor"
                    r"|GPU Firmware|GPU Excluded|Blacklisted):[ \t]{0,24}(?P<value>[^\n]*?)[ \t]*\r?$")
# [sf@pongo ~]$ cat /proc/driver/nvidia/gpus/0000\:04\:00.0/information      (a shell escapes the colons, or quotes them)
_PATH = re.compile(r"/proc/driver/nvidia/gpus/(?P<bdf>[0-9a-fA-F]{4}\\?:[0-9a-fA-F]{2}\\?:[0-9a-fA-F]{2}\.[0-7])/information")


def detect(head: str) -> bool:
    return ("Model:" in head and "IRQ:" in head and _HEAD.search(head) is not None) or (
        "Bus Location:" in head and _LOCATION.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    block: dict | None = None
    path_bus = None
    for n, line in enumerate(artefact.lines, 1):
        if (p := _PATH.search(line)) is not None:
            if block is not None:
                _emit(b, block)
                block = None
            path_bus = try_pci_bus_id(p["bdf"].replace("\\", ""))
            result.lines_used += 1
            continue
        m = _FIELD.match(line)
        if m is None:
            if not line.strip() and block is not None:
                _emit(b, block)
                block = None
            continue
        key, value = m["key"], m["value"].strip()
        if key == "Model" or block is None:
            if block is not None:
                _emit(b, block)
            block = {"line": n, "path_bus": path_bus, "fields": {}}
            path_bus = None
        block["fields"][key] = value
        result.lines_used += 1
    if block is not None:
        _emit(b, block)
    return result


def _emit(b: FactBuilder, block: dict) -> None:
    f = block["fields"]
    location = f.get("Bus Location")
    bus = try_pci_bus_id(location.replace(".", ":", 1) if location and location.count(".") == 2 else location) or block["path_bus"]
    uuid = f.get("GPU UUID") or None
    vbios = f.get("Video BIOS") or None
    uuid = None if uuid is None or "?" in uuid else uuid
    vbios = None if vbios is None or "?" in vbios else vbios
    excluded = f.get("GPU Excluded", f.get("Blacklisted"))
    irq, minor = f.get("IRQ", ""), f.get("Device Minor", "")
    bus_type = f.get("Bus Type") or {"PCI-E": "PCIe"}.get(f.get("Card Type", ""), f.get("Card Type"))
    b.add(GpuProcInformation, block["line"], pci_bus_id=bus, model=f.get("Model") or None,
          irq=int(irq) if irq.isdigit() else None, uuid=uuid, vbios=vbios, bus_type=bus_type or None,
          device_minor=int(minor) if minor.isdigit() else None, firmware=f.get("GPU Firmware") or None,
          excluded=None if excluded not in ("Yes", "No") else excluded == "Yes",
          initialised=uuid is not None or vbios is not None)


#: line signatures (facts/classify.py)
SIGNATURES = (_HEAD, _LOCATION)
