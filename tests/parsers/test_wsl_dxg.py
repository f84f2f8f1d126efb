"""wsl_dxg: WSL2's GPU bridge (dxgkrnl) kernel lines, on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import wsl_dxg as r

import parser_rows

ROWS = [
    # microsoft/WSL#41062 (WSL kernel 6.6.87.2: DXG_ERR names the function)
    ("[386702.754405] misc dxg: dxgk: dxgvmb_send_create_process: create_process failed -75",
     ("dxgvmb_send_create_process", "create_process failed -75", -75)),
    # CONSTRUCTED: the same line under journald's prefix (the kernel log's other form)
    ("Jul 12 10:01:02 pc kernel: misc dxg: dxgk: dxgvmb_send_create_process: create_process failed -75",
     ("dxgvmb_send_create_process", "create_process failed -75", -75)),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    assert parser_rows.line_fields(r, line, ("function", "message", "errno")) == [want]


@pytest.mark.parametrize("line", [
    # an ioctl's error returned to its caller (the user-mode driver probing the adapter at a WSL boot; the form
    # microsoft/WSL#13734's title names, CONSTRUCTED in DXG_ERR's "%s: " form): read, no fact
    "[    4.005108] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22",
    "[    4.006311] misc dxg: dxgk: dxgkio_is_feature_enabled: Ioctl failed: -22",
])
def test_an_ioctl_refused_to_its_caller_is_read_without_a_fact(line):
    assert parser_rows.read_without_fact(r, line)


def test_wsl41062_fixture():
    res = parser_rows.read_fixture(r, "wsl41062_create_process_failed.txt", "dmesg.txt")
    assert [(f.errno, f.evidence.line) for f in res.facts] == [(-75, 1), (-75, 2)]


@pytest.mark.parametrize("text", ["", "[    0.529547] hv_vmbus: registering driver dxgkrnl\n", "dmesg | grep -i dxg\n"])
def test_not_this_kind(text):
    assert not r.detect(text)
