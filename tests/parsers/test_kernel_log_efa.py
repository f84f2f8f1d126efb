"""The EFA driver's error lines in a kernel log (kernel_log via kernel_log_efa): the ibdev_err /
dev_err formats of amzn/amzn-drivers kernel/linux/efa (efa_com.c, efa_com_cmd.c, efa_main.c) under
each prefix the kernels give them (kcompat's ``infiniband efa_0: ``, ibdev_printk's ``efa <bdf>
efa_0: ``, dev_err's ``efa <bdf>: ``, a udev-renamed ``rdmap16s27``), the real lines of
aws/aws-ofi-nccl#22 (fixture), and the driver's info lines that must stay unread (amzn/amzn-drivers#308)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"
PREFIXES = ("", "[ 1632.420956] ", "May 29 10:00:01 host kernel: ", "2026-05-29T10:00:01.123456+00:00 host kernel: ")


def _efa(text: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts if f.kind == "efa_driver_error"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "device", "bus", "command", "opcode", "status", "errno"), [
    ("infiniband efa_0: Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12", "efa_0", None, "ALLOC_PD", 14, 1, -12),
    ("infiniband efa_0: Failed to allocate pd[-12]", "efa_0", None, None, None, None, -12),
    ("efa 0000:00:06.0 efa_0: Failed to create qp [-12]", "efa_0", "0000:00:06.0", None, None, None, -12),
    ("efa 0000:00:06.0 rdmap0s6: Failed to process command REG_MR (opcode 3) err -14", "rdmap0s6", "0000:00:06.0", "REG_MR", 3, None, -14),
    ("infiniband rdmap16s27: Failed to submit command CREATE_AH (opcode 9) err -28", "rdmap16s27", None, "CREATE_AH", 9, None, -28),
    ("efa 0000:4f:00.0: EFA device init failed", None, "0000:4f:00.0", None, None, None, None),
    ("efa 0000:4f:00.0: Failed to enable MSI-X. error -28", None, "0000:4f:00.0", None, None, None, -28),
    ("infiniband efa_0: Wait for completion (polling) timeout", "efa_0", None, None, None, None, None),
])
def test_error_forms(prefix, line, device, bus, command, opcode, status, errno):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    (f,) = _efa(text)
    assert (f.device, f.pci_bus_id, f.command, f.opcode, f.comp_status, f.errno, f.evidence.line) == (
        device, bus, command, opcode, status, errno, 1)


def test_real_ofinccl22():
    text = (FIXTURES / "ofinccl22_efa_alloc_pd_failed.log").read_text()
    assert kernel_log.detect(text)
    first, second = _efa(text)
    assert (first.command, first.comp_status, first.errno, first.timestamp) == ("ALLOC_PD", 1, -12, "1632.420956")
    assert second.message == "Failed to allocate pd[-12]" and second.device == "efa_0"


def test_real_amzndrivers308_info_lines_give_nothing():
    assert _efa((FIXTURES / "amzndrivers308_efa_probe_info_lines.log").read_text()) == []


@pytest.mark.parametrize("line", [
    "[68998.526165] Elastic Fabric Adapter (EFA) v2.6.0g",
    "[68998.526276] efa 0000:4f:00.0: enabling device (0000 -> 0002)",
    "[68998.638853] efa 0000:4f:00.0: Setup irq:1861 name:efa-mgmnt@pci:0000:4f:00.0",
    "[166755.330649] infiniband mlx5_0: mlx5_handle_error_cqe:333:(pid 0): WC error: 10, message: remote access error",
    "[  12.1] infiniband irdma0: Failed to create qp [-12]",
])
def test_not_efa_errors(line):
    assert _efa(line + "\n") == []
