"""Hardware error records the platform firmware reported through APEI (ACPI Platform Error Interfaces), as the kernel
prints them (used by :mod:`kernel_log`).

On servers whose firmware handles errors first (Dell, HPE, Lenovo, Supermicro and most GPU servers' BIOS default),
PCIe AER, memory and processor errors reach Linux as Generic Hardware Error Source (GHES) records in the UEFI CPER
format, not through the kernel's own AER or EDAC drivers; ``ghes.c`` prints each record, one line per field, every
line under the record's sequence number ``{N}`` and the ``[Hardware Error]: `` tag. Real samples (the stored pages and
even-numbered threads)::

    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 514
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: It has been corrected by h/w and requires no further action
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: event severity: corrected
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: Error 0, type: corrected
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: section_type: PCIe error
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: port_type: 0, PCIe end point
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: device_id: 0000:43:00.0
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: vendor_id: 0x8086, device_id: 0x1563
    [Do Mär 26 07:38:49 2020] {2}[Hardware Error]: class_code: 020000
        (thomas-krenn.com wiki "Hardware error from APEI Generic Hardware Error Source": an Intel NIC's corrected error)
    [Thu Apr  9 04:50:00 2026] {3}[Hardware Error]:   device_id: 0000:01:00.0
    [Thu Apr  9 04:50:00 2026] {3}[Hardware Error]:   vendor_id: 0x10de, device_id: 0x2204
        (ikawrakow/ik_llama.cpp#1596: a 9-GPU box, the record of an NVIDIA GPU pasted without its head)
    [   85.355803] {1}[Hardware Error]:   device_id: 0000:c3:00.0
    [   85.355818] {1}[Hardware Error]:   aer_uncor_status: 0x00000000, aer_uncor_mask: 0x00010000
    [   85.355830] Kernel panic - not syncing: Fatal hardware error!
        (ROCm/legacy-rocm-build#1882: a W6800's fatal record, its head lost among "Dazed and confused" NMI lines)
    Nov 26 09:36:22 mo-srv-128 kernel: {7}[Hardware Error]: event severity: recoverable
    Nov 26 09:36:22 mo-srv-128 kernel: {7}[Hardware Error]:   section_type: memory error
    Nov 26 09:36:22 mo-srv-128 kernel: {7}[Hardware Error]:   error_type: 3, multi-bit ECC
        (matrixorigin/matrixone#20374: an uncorrected DIMM error, then the database's writes failed with EIO)

The kernel's format strings (Linux drivers/acpi/apei/ghes.c __ghes_print_estatus: ``"%s{%u}" HW_ERR`` prefix (HW_ERR is
``"[Hardware Error]: "``), ``"Hardware error from APEI Generic Hardware Error Source: %d\\n"``; __ghes_panic:
``panic("Fatal hardware error!")``; drivers/firmware/efi/cper.c cper_estatus_print: ``"It has been corrected by h/w and
requires no further action"``, ``"event severity: %s\\n"`` (cper_severity_str: recoverable, fatal, corrected, info,
unknown); cper_estatus_print_section: ``"Error %d, type: %s\\n"``, ``"fru_text: %.20s\\n"``, ``"section_type: %s\\n"``
(``general processor error``, ``memory error``, ``PCIe error``, ``ARM processor error``, ...); cper_print_pcie:
``"port_type: %d, %s\\n"``, ``"device_id: %04x:%02x:%02x.%x\\n"``, ``"vendor_id: 0x%04x, device_id: 0x%04x\\n"``,
``"class_code: %02x%02x%02x\\n"``, ``"aer_uncor_status: 0x%08x, aer_uncor_mask: 0x%08x\\n"``; cper_print_mem:
``"error_type: %d, %s\\n"`` (single-bit ECC, multi-bit ECC, ...), ``"DIMM location: %s %s "``).

Each section of a record becomes one fact: a PCIe section a ``pcie_aer_error`` (``firmware`` true; severity corrected,
nonfatal for recoverable, fatal, or ``unknown`` where the paste lost the record's severity lines and no "Fatal hardware
error!" panic follows it), so the PCIe rules and the GPU-loss rules read it as they read the kernel's own AER; any other
section a ``host_hardware_error`` of source ``ghes`` (its section, severity, location and error type). Informational
records (severity ``info``) make no fact. Every line of a record counts as read.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import HostHardwareError, PcieAerError
from stethoscope.facts.parsers.base import FactBuilder

#: the literal part of every line of a record (kernel_log's keyword scan and detect(); RE2-compatible)
KEYWORDS = r"\{\d{1,10}\}\[Hardware Error\]:"

# {2}[Hardware Error]: event severity: corrected        (a line's message; the part after the tag is the field)
_LINE = re.compile(r"\{(?P<seq>\d{1,10})\}\[Hardware Error\]:\s*(?P<field>.*?)\s*$")
# Hardware error from APEI Generic Hardware Error Source: 514
_HEAD = re.compile(r"Hardware error from APEI Generic Hardware Error Source: ?(?P<source>-?\d+)")
# event severity: recoverable
_EVENT_SEVERITY = re.compile(r"event severity: (?P<sev>\w+)")
# Error 0, type: recoverable          (a section's own severity)
_SECTION = re.compile(r"Error (?P<n>\d+), type: (?P<sev>\w+)")
# section_type: PCIe error   /   section type: unknown, <uuid>   (the latter for a section cper.c does not decode)
_SECTION_TYPE = re.compile(r"section[_ ]type: (?P<type>[^,]+)")
# device_id: 0000:01:00.0            (cper_print_pcie's device, the BDF; its "vendor_id: ..., device_id: 0x2204" is the id)
_DEVICE = re.compile(r"device_id: (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s*$")
# vendor_id: 0x10de, device_id: 0x2204
_VENDOR = re.compile(r"vendor_id: 0x(?P<vendor>[0-9a-fA-F]{4}), device_id: 0x(?P<device>[0-9a-fA-F]{4})")
# class_code: 030000
_CLASS = re.compile(r"class_code: (?P<cls>[0-9a-fA-F]{6})")
# port_type: 4, root port
_PORT_TYPE = re.compile(r"port_type: (?P<n>\d+)")
# aer_uncor_status: 0x00000020, aer_uncor_mask: 0x00000000
_UNCOR = re.compile(r"aer_uncor_status: 0x(?P<status>[0-9a-fA-F]{8})")
# fru_text: B2   /   DIMM location: CPU1_DIMM_B2 ...   /   node:1 card:4 module:0 rank:0 bank:6 device:0 row:24237 column:24
_FRU_TEXT = re.compile(r"fru_text: (?P<text>\S.*)")
_DIMM = re.compile(r"DIMM location: (?P<text>\S.*)")
_NODE_CARD = re.compile(r"(?P<text>node: ?\d+ card: ?\d+ module: ?\d+.*)")
# error_type: 3, multi-bit ECC   (memory)   /   error_type: 0x01 + "cache error" (processor: the code, then its words)
_ERROR_TYPE = re.compile(r"error_type: (?:0x)?[0-9a-fA-F]+(?:, (?P<words>\S.*))?")
# Kernel panic - not syncing: Fatal hardware error!   (__ghes_panic: the record before it was of severity panic)
_FATAL_PANIC = re.compile(r"Kernel panic - not syncing: Fatal hardware error!")

#: CPER severities (cper_severity_str) as a pcie_aer_error's severity
_PCIE_SEVERITY = {"corrected": "corrected", "recoverable": "nonfatal", "fatal": "fatal", "unknown": "unknown"}
#: cper_pcie_port_type_strs: 4 root port, 5 upstream switch port, 6 downstream switch port (a bridge, not an endpoint)
_PORT_TYPES = frozenset({4, 5, 6})
_NVIDIA = "10de"


class GhesRecords:
    """Collects the lines of each GHES record (by its sequence number) and makes one fact of each section."""

    def __init__(self, builder: FactBuilder, used: set[int]):
        self.b, self.used = builder, used
        self.open: dict[str, dict] = {}  # sequence number -> the record being read
        self.done: list[dict] = []
        self.panics: list[int] = []  # lines of "Fatal hardware error!" panics

    def note_panic(self, ln: int, msg: str) -> None:
        if "Fatal hardware error" in msg and _FATAL_PANIC.search(msg) is not None:
            self.panics.append(ln)

    def feed(self, ln: int, msg: str, common: dict) -> bool:
        """Read one line of a record; True when it is one."""
        m = _LINE.search(msg)
        if m is None:
            return False
        seq, field = m["seq"], m["field"]
        rec = self.open.get(seq)
        head = _HEAD.match(field)
        if rec is None or (head is not None and rec["lines"]):
            if rec is not None:
                self.done.append(rec)
            rec = self.open[seq] = {"seq": seq, "source": None, "severity": None, "sections": [], "lines": [],
                                    "common": dict(common)}
        rec["lines"].append(ln)
        self.used.add(ln)
        if head is not None:
            rec["source"] = head["source"]
            return True
        if field.startswith("It has been corrected by h/w"):
            rec["severity"] = rec["severity"] or "corrected"
            return True
        if (e := _EVENT_SEVERITY.match(field)) is not None:
            rec["severity"] = e["sev"].lower()
            return True
        if (s := _SECTION.match(field)) is not None:
            rec["sections"].append({"line": ln, "severity": s["sev"].lower()})
            return True
        sec = rec["sections"][-1] if rec["sections"] else None
        if sec is None or ("type" in sec and _SECTION_TYPE.match(field) is not None):
            # a section whose "Error N, type:" line was cut off (or a second section_type line: a new section)
            sec = {"line": ln, "severity": None}
            rec["sections"].append(sec)
        if (t := _SECTION_TYPE.match(field)) is not None:
            sec["type"] = t["type"].strip()
        elif (d := _DEVICE.match(field)) is not None:
            sec["device"] = try_pci_bus_id(d["bdf"])
        elif (v := _VENDOR.match(field)) is not None:
            sec["vendor"], sec["device_id"] = v["vendor"].lower(), v["device"].lower()
        elif (c := _CLASS.match(field)) is not None:
            sec["class"] = c["cls"].lower()
        elif (p := _PORT_TYPE.match(field)) is not None:
            sec["port_type"] = int(p["n"])
        elif (u := _UNCOR.match(field)) is not None:
            if int(u["status"], 16):
                sec["aer_status"] = u["status"]
        elif (f := _FRU_TEXT.match(field)) is not None:
            sec["fru"] = f["text"].strip()
        elif (d := _DIMM.match(field)) is not None:
            if not d["text"].startswith("not present"):
                sec["dimm"] = d["text"].strip()
        elif (n := _NODE_CARD.match(field)) is not None:
            sec["node_card"] = n["text"].strip()
        elif (et := _ERROR_TYPE.match(field)) is not None and et["words"]:
            sec["detail"] = et["words"].strip()
        return True

    def flush(self) -> None:
        for rec in [*self.done, *self.open.values()]:
            self._emit(rec)
        self.done, self.open = [], {}

    def _severity(self, rec: dict, sec: dict) -> str:
        sev = sec.get("severity") or rec["severity"]
        if sev in (None, "unknown") and any(0 < p - rec["lines"][-1] <= 8 for p in self.panics):
            return "fatal"  # ghes.c panics right after printing a record of severity panic
        return sev or "unknown"

    def _emit(self, rec: dict) -> None:
        common = rec["common"]
        sections = rec["sections"] or [{"line": rec["lines"][0], "severity": None}]
        for sec in sections:
            sev = self._severity(rec, sec)
            if sev == "info":
                continue  # an informational record: no error
            line = rec["lines"][0] if sec is sections[0] else sec["line"]
            kind = sec.get("type")
            message = _message(rec, sec, sev)
            if kind == "PCIe error" or (kind is None and ("device" in sec or "vendor" in sec)):
                self._pcie(line, sec, sev, message, common)
            else:
                corrected = True if sev == "corrected" else False if sev in ("recoverable", "fatal") else None
                location = sec.get("dimm") or sec.get("fru") or sec.get("node_card")
                self.b.add(HostHardwareError, line, source="ghes", corrected=corrected, location=location,
                           severity=sev if sev in ("corrected", "recoverable", "fatal") else "unknown",
                           section=kind, detail=sec.get("detail"), message=message, **common)

    def _pcie(self, line: int, sec: dict, sev: str, message: str, common: dict) -> None:
        device = sec.get("device")
        vendor, cls = sec.get("vendor"), sec.get("class")
        bridge = gpu = None
        if device is not None:
            if sec.get("port_type") in _PORT_TYPES or (cls or "").startswith("0604"):
                bridge = device
            elif (cls or "").startswith("03") or (cls is None and vendor in (None, _NVIDIA)):
                gpu = device  # a display controller, or an NVIDIA device (or one unnamed) that may be a GPU
        self.b.add(PcieAerError, line, device=device or "unnamed device", pci_bus_id=device,
                   severity=_PCIE_SEVERITY.get(sev, "unknown"), firmware=True,
                   pci_device_id=f"{vendor}:{sec['device_id']}" if vendor else None, error_status=sec.get("aer_status"),
                   bridge=bridge, gpu_bus_id=gpu, message=message, **common)


def _message(rec: dict, sec: dict, sev: str) -> str:
    what = sec.get("type") or ("PCIe error" if "device" in sec or "vendor" in sec else "hardware error")
    parts = [f"APEI GHES record {{{rec['seq']}}}" + (f" (error source {rec['source']})" if rec["source"] else ""),
             f"severity {sev}" + ("" if rec["severity"] or sec.get("severity") else " (its severity lines not in the log)"),
             what]
    if "device" in sec:
        parts.append(f"device {sec['device']}" + (f" [{sec['vendor']}:{sec['device_id']}]" if "vendor" in sec else ""))
    if sec.get("detail"):
        parts.append(sec["detail"])
    loc = sec.get("dimm") or sec.get("fru") or sec.get("node_card")
    if loc:
        parts.append(f"at {loc}")
    return ", ".join(parts)
