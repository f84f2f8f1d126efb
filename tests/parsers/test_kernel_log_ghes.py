"""APEI GHES records in the kernel log (kernel_log_ghes via kernel_log): real records from public pages and threads,
under the prefixes people paste them with, and constructed ones from the kernel's format strings (cper.c, ghes.c)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"


def _facts(text: str, kind: str | None = None):
    art = Artefact(path="dmesg.log", node="n1", text=text)
    assert kernel_log.detect(text[:65536])
    res = kernel_log.parse(art)
    return [f for f in res.facts if kind is None or f.kind == kind], res


def _file(name: str) -> str:
    return (FIX / name).read_text()


def test_corrected_pcie_record_of_a_nic_under_a_german_dmesg_T():
    facts, res = _facts(_file("thomaskrenn_ghes_pcie_corrected_nic.log"), "pcie_aer_error")
    assert len(facts) == 1
    f = facts[0]
    assert (f.severity, f.firmware, f.device, f.pci_device_id) == ("corrected", True, "0000:43:00.0", "8086:1563")
    assert f.gpu_bus_id is None and f.bridge is None  # class 020000: a NIC, neither a GPU nor a port
    assert f.evidence.line == 1 and res.lines_used == 14  # every line of the record is read


def test_record_cut_before_its_severity_names_the_nvidia_gpu():
    facts, _ = _facts(_file("ikllama1596_ghes_pcie_nvidia_gpu_head_cut.log"), "pcie_aer_error")
    assert [(f.severity, f.device, f.gpu_bus_id, f.pci_device_id, f.timestamp) for f in facts] == [
        ("unknown", "0000:01:00.0", "0000:01:00.0", "10de:2204", "Thu Apr  9 04:50:00 2026")]


def test_record_followed_by_ghes_panic_is_fatal():
    facts, res = _facts(_file("rocm1882_ghes_pcie_fatal_panic.log"))
    aer = [f for f in facts if f.kind == "pcie_aer_error"]
    assert [(f.severity, f.device, f.gpu_bus_id) for f in aer] == [("fatal", "0000:c3:00.0", "0000:c3:00.0")]
    assert any(f.kind == "host_kernel_fault" and f.event == "panic" for f in facts)


def test_recoverable_memory_record():
    facts, _ = _facts(_file("matrixone20374_ghes_memory_recoverable.log"), "host_hardware_error")
    assert len(facts) == 1
    f = facts[0]
    assert (f.source, f.severity, f.corrected, f.section, f.detail, f.location, f.node) == (
        "ghes", "recoverable", False, "memory error", "multi-bit ECC", "B2", "mo-srv-128")


# CONSTRUCTED from drivers/firmware/efi/cper.c's format strings (cper_estatus_print_section, cper_print_pcie,
# cper_print_proc_generic) and ghes.c's prefix: a fatal record of a root port, a corrected processor record, an
# informational one, two records interleaved by their sequence numbers
CONSTRUCTED = """\
[ 1000.000001] {4}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 1
[ 1000.000002] {4}[Hardware Error]: event severity: fatal
[ 1000.000003] {5}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 2
[ 1000.000004] {4}[Hardware Error]:  Error 0, type: fatal
[ 1000.000005] {5}[Hardware Error]: It has been corrected by h/w and requires no further action
[ 1000.000006] {4}[Hardware Error]:   section_type: PCIe error
[ 1000.000007] {5}[Hardware Error]: event severity: corrected
[ 1000.000008] {4}[Hardware Error]:   port_type: 4, root port
[ 1000.000009] {5}[Hardware Error]:  Error 0, type: corrected
[ 1000.000010] {4}[Hardware Error]:   device_id: 0000:00:03.0
[ 1000.000011] {5}[Hardware Error]:   section_type: general processor error
[ 1000.000012] {4}[Hardware Error]:   aer_uncor_status: 0x00000020, aer_uncor_mask: 0x00000000
[ 1000.000013] {5}[Hardware Error]:   error_type: 0x01
[ 1000.000014] {6}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 3
[ 1000.000015] {6}[Hardware Error]: event severity: info
[ 1000.000016] {6}[Hardware Error]:  Error 0, type: info
[ 1000.000017] {6}[Hardware Error]:   section_type: memory error
"""


def test_constructed_records_by_sequence_number():
    facts, res = _facts(CONSTRUCTED)
    aer = [f for f in facts if f.kind == "pcie_aer_error"]
    host = [f for f in facts if f.kind == "host_hardware_error"]
    assert [(f.severity, f.device, f.bridge, f.gpu_bus_id, f.error_status, f.evidence.line) for f in aer] == [
        ("fatal", "0000:00:03.0", "0000:00:03.0", None, "00000020", 1)]
    assert [(f.source, f.severity, f.corrected, f.section, f.evidence.line) for f in host] == [
        ("ghes", "corrected", True, "general processor error", 3)]
    assert res.lines_used == 17  # the informational record is read too, and makes no fact


@pytest.mark.parametrize("line", [
    "mce: [Hardware Error]: Machine check events logged",   # the machine-check handler's: kernel_log_host's
    "[Hardware Error]: Corrected error, no action required.",   # AMD's MCE decoder, no sequence number
    "The kernel logged {2}[Hardware Error] lines earlier",   # a sentence naming the tag
])
def test_lines_that_are_no_ghes_record(line):
    art = Artefact(path="dmesg.log", node="n1", text=f"[    1.000000] {line}\n")
    res = kernel_log.parse(art)
    assert not [f for f in res.facts if f.kind == "pcie_aer_error" or getattr(f, "source", None) == "ghes"]
