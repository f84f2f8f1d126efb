"""gvisor_nvproxy: runsc's log of gVisor's GPU proxy refusing driver calls, table-driven on real lines
(even-numbered google/gvisor threads) and, for the forms no such thread pastes, nvproxy's format strings."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import gvisor_nvproxy
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "gvisor_nvproxy"

ROWS = [
    # (line, (call, code, reason) or None for no fact)
    ("W0412 15:55:45.690854  1008391 frontend.go:180] [  15:  42] nvproxy: unknown frontend ioctl 212 == 0xd4 (argSize=128, cmd=0xc08046d4)",
     ("frontend_ioctl", "0xd4", "unimplemented")),   # google/gvisor#10272
    ("W0913 23:53:26.567551   12244 frontend.go:786] [  56:  56] nvproxy: unknown allocation class 0x000000f8",
     ("allocation_class", "0x000000f8", "unimplemented")),   # google/gvisor#9372
    ("At the same time gvisor's debug logs show `nvproxy: unknown control command 0xcb33010c`.",
     ("control_command", "0xcb33010c", "unimplemented")),   # google/gvisor#10824, quoted in prose
    # the debug lines of calls nvproxy passed (google/gvisor#9846, #10272, #9372): context, no fact
    ("D1229 09:57:11.030417   13265 frontend.go:488] [   2:   2] nvproxy: control command 0x2080122b", None),
    ("D0412 15:55:45.690841  1008391 frontend.go:154] [  15:  42] nvproxy: frontend ioctl: nr = 0x000000d4, argSize = 0x00000080", None),
    ("D0913 23:53:26.567544   12244 frontend.go:746] [  56:  56] nvproxy: allocation class 0x000000f8", None),
    ("I0412 15:55:45.690863  1008391 strace.go:605] [  15:  42] python X ioctl(0x44 /dev/nvidiactl, 0xc08046d4, 0x7f5c573fcb90) = 0 (0x0) "
     "errno=22 (invalid argument) (21.739µs)", None),
]

# nvproxy's format strings of forms no even-numbered thread pastes (frontend.go, uvm.go, nvproxy.go), filled in
FORMATS = [
    ("nvproxy: unknown control command %#x (paramsSize=%d)", "nvproxy: unknown control command 0x2080122b (paramsSize=4)",
     ("control_command", "0x2080122b", "unimplemented")),
    ("nvproxy: unknown uvm ioctl %d = %#x", "nvproxy: unknown uvm ioctl 75 = 0x4b", ("uvm_ioctl", "0x4b", "unimplemented")),
    ("nvproxy: %v for frontend ioctl %d == %#x (argSize=%d, cmd=%#x)",
     "nvproxy: handler is undefined for frontend ioctl 212 == 0xd4 (argSize=128, cmd=0xc08046d4)", ("frontend_ioctl", "0xd4", "unimplemented")),
    ("nvproxy: %v for control command %#x (paramsSize=%d)", "nvproxy: missing capability for control command 0x2080122b (paramsSize=4)",
     ("control_command", "0x2080122b", "missing_capability")),
    ("nvproxy: %s for NV_ESC_RM_ALLOC_MEMORY class %v", "nvproxy: handler is undefined for NV_ESC_RM_ALLOC_MEMORY class 0x0000003e",
     ("memory_class", "0x0000003e", "unimplemented")),
    ("unsupported Nvidia driver version: %s", "registering nvproxy driver: unsupported Nvidia driver version: 535.104.05",
     ("driver_version", None, "unsupported_driver_version")),
]


def _facts(text):
    return gvisor_nvproxy.parse(Artefact(path="runsc.log", text=text + "\n")).facts


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = _facts(line)
    if want is None:
        assert facts == []
        return
    (f,) = facts
    assert (f.sandbox, f.call, f.code, f.reason) == ("gvisor", *want)


@pytest.mark.parametrize("fmt,line,want", FORMATS)
def test_format_string(fmt, line, want):
    (f,) = _facts(line)
    assert (f.call, f.code, f.reason) == want
    if f.reason == "unsupported_driver_version":
        assert f.driver_version == "535.104.05"


def test_fixtures_read_whole():
    for name, code in (("gvisor10272_unknown_frontend_ioctl.log", "0xd4"), ("gvisor9372_unknown_allocation_class.log", "0x000000f8")):
        text = (FIXTURES / name).read_text()
        assert gvisor_nvproxy.detect(text)
        result = gvisor_nvproxy.parse(Artefact(path=name, text=text))
        assert [f.code for f in result.facts] == [code]


def test_detect():
    assert gvisor_nvproxy.detect("W0913 23:53:26.567551   12244 frontend.go:786] [  56:  56] nvproxy: unknown allocation class 0x000000f8\n")
    assert gvisor_nvproxy.detect("D1229 09:57:11.030417   13265 frontend.go:488] [   2:   2] nvproxy: control command 0x2080122b\n")
    # another program's "unsupported driver version" (no nvproxy), and prose about nvproxy, are not this kind
    assert not gvisor_nvproxy.detect("Error: Unsupported NVIDIA driver version 418.\n")
    assert not gvisor_nvproxy.detect("runsc --nvproxy forwards the driver's ioctls to the host\n")
