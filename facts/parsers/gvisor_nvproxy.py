"""gVisor's GPU proxy (nvproxy, ``runsc --nvproxy``: GKE Sandbox, Modal, a docker or containerd
RuntimeClass ``runsc``) refusing a driver call the sandboxed program made, as runsc's log says.

nvproxy forwards the application's ioctls on /dev/nvidiactl, /dev/nvidia# and /dev/nvidia-uvm to
the host driver, but only those it implements for the host's exact driver version; any other it
answers with EINVAL (a frontend or UVM ioctl), NV_ERR_NOT_SUPPORTED (an RM control command) or
NV_ERR_INVALID_CLASS (an RM allocation class) and logs a warning. The program then sees CUDA find
no device, 'OS call failed or operation not supported on this OS', NVML fields it cannot read, or
a collective that hangs; the GPU and the host driver are fine. A host driver version nvproxy has no
ABI for stops the sandbox before the program starts.

runsc's format strings (gvisor pkg/sentry/devices/nvproxy; glog prefix ``W0412 15:55:45.690854
1008391 frontend.go:180] [  15:  42]`` in runsc.log.*.boot.txt, the warnings printed without
``--debug`` too)::

    nvproxy: unknown frontend ioctl %d == %#x (argSize=%d, cmd=%#x)     frontend.go, 2023-2024
    nvproxy: unknown control command %#x (paramsSize=%d)                 frontend.go (2023: without paramsSize)
    nvproxy: unknown allocation class %#08x                              frontend.go, 2023-2024
    nvproxy: unknown uvm ioctl %d = %#x                                  uvm.go (2023: "%d" alone)
    nvproxy: %v for frontend ioctl %d == %#x (argSize=%d, cmd=%#x)       frontend.go since 2024 (handlers.go errHandler:
    nvproxy: %v for control command %#x (paramsSize=%d)                    "handler is undefined" | "missing capability":
    nvproxy: %v for allocation class %v                                    the call is implemented but gated on a driver
    nvproxy: %s for NV_ESC_RM_ALLOC_MEMORY class %v                        capability the sandbox did not enable)
    unsupported Nvidia driver version: %s                                nvproxy.go Register (runsc refuses to start)

Sample lines (real, from even-numbered public threads)::

    W0412 15:55:45.690854  1008391 frontend.go:180] [  15:  42] nvproxy: unknown frontend ioctl 212 == 0xd4 (argSize=128, cmd=0xc08046d4)   (google/gvisor#10272, DDP training on H100)
    W0913 23:53:26.567551   12244 frontend.go:786] [  56:  56] nvproxy: unknown allocation class 0x000000f8   (google/gvisor#9372, text-generation-inference on A100)
    At the same time gvisor's debug logs show `nvproxy: unknown control command 0xcb33010c`.   (google/gvisor#10824, 'No CUDA GPUs are available')

Fact: ``sandbox_gpu_call_refused`` per line (sandbox gvisor; call: frontend_ioctl, control_command,
allocation_class, uvm_ioctl, memory_class or driver_version; code as printed; reason unimplemented,
missing_capability or unsupported_driver_version). The debug lines that name every call nvproxy
handles (``nvproxy: control command 0x2080122b``, ``nvproxy: frontend ioctl: nr = ...``) and
runsc's strace lines (``strace.go:605] [  15:  42] python X ioctl(...)``) are read as the run's
context: no fact. Empty input, or text without these
lines, is not this kind; a runsc log of only the debug lines is read (it checks nothing).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import SandboxGpuCallRefused  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gvisor_nvproxy"

# nvproxy: unknown frontend ioctl 212 == 0xd4 (argSize=128, cmd=0xc08046d4)      (google/gvisor#10272)
# nvproxy: unknown allocation class 0x000000f8                                   (google/gvisor#9372)
# nvproxy: unknown control command 0xcb33010c                                    (google/gvisor#10824, 2023's form)
# nvproxy: unknown control command %#x (paramsSize=%d)                           (frontend.go rmControl, 2024)
# nvproxy: unknown uvm ioctl %d = %#x                                            (uvm.go, 2024; 2023: "%d" alone)
# nvproxy: handler is undefined for frontend ioctl %d == %#x (argSize=%d, cmd=%#x)   (frontend.go since 2024:
#   "nvproxy: %v for ..." with handlers.go's errHandler "handler is undefined" / "missing capability")
# nvproxy: missing capability for control command %#x (paramsSize=%d)
# nvproxy: handler is undefined for NV_ESC_RM_ALLOC_MEMORY class %v              (rmAllocMemory: "%s for ...")
_REFUSED = re.compile(
    r"nvproxy: (?:unknown|(?P<err>handler is undefined|missing capability) for) "
    r"(?P<call>frontend ioctl|control command|allocation class|uvm ioctl|NV_ESC_RM_ALLOC_MEMORY class) "
    r"(?P<code>(?:\d{1,10} ==? )?0x[0-9a-fA-F]{1,16}|\d{1,10})\b"
)
# registering nvproxy driver: unsupported Nvidia driver version: %s   (runsc/boot vfs.go's "registering nvproxy driver: %w"
#   around nvproxy.go Register's "unsupported Nvidia driver version: %s": the host driver's version as its module reports it)
_DRIVER = re.compile(r"unsupported Nvidia driver version: (?P<version>\d{2,4}\.\d{1,4}(?:\.\d{1,4})?)\b")

_CALL = {"frontend ioctl": "frontend_ioctl", "control command": "control_command",
         "allocation class": "allocation_class", "uvm ioctl": "uvm_ioctl",
         "NV_ESC_RM_ALLOC_MEMORY class": "memory_class"}
# D1229 09:57:11.030417   13265 frontend.go:488] [   2:   2] nvproxy: control command 0x2080122b   (google/gvisor#9846)
# D0412 15:55:45.690841  1008391 frontend.go:154] [  15:  42] nvproxy: frontend ioctl: nr = 0x000000d4, argSize = 0x00000080
# D0913 23:53:26.567544   12244 frontend.go:746] [  56:  56] nvproxy: allocation class 0x000000f8
# nvproxy: uvm ioctl %d = %#x          (uvm.go's Debugf before its handler runs)
#   (debug lines naming each call nvproxy handles: the run's context, no fault)
_DEBUG = re.compile(r"\] \[ {0,6}\d{1,7}: {0,6}\d{1,7}\] nvproxy: (?:control command |frontend ioctl: |allocation class |uvm ioctl \d{1,10} = )")
# I0412 15:55:45.690863  1008391 strace.go:605] [  15:  42] python X ioctl(0x44 /dev/nvidiactl, 0xc08046d4, 0x7f5c573fcb90) = 0 (0x0) errno=22 (invalid argument) (21.739µs)
#   (google/gvisor#10272: runsc --strace's lines of the sandboxed program's system calls, E on entry, X on exit: context)
_STRACE = re.compile(r"strace\.go:\d{1,5}\] \[ {0,6}\d{1,7}: {0,6}\d{1,7}\] \S{1,64} [EX] \w{1,32}\(")


def detect(head: str) -> bool:
    if "nvproxy: " in head and (_REFUSED.search(head) is not None or _DEBUG.search(head) is not None):
        return True
    return "unsupported Nvidia driver version: " in head and "nvproxy" in head and _DRIVER.search(head) is not None


def _code(raw: str) -> str:
    """The call's number as nvproxy names it in hex: '212 == 0xd4' -> '0xd4'; a bare decimal as printed."""
    return raw.rsplit(" ", 1)[-1]


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "nvproxy" not in line and "Nvidia driver version" not in line:
            if "strace.go:" in line and _STRACE.search(line) is not None:
                result.lines_used += 1
            continue
        if (m := _REFUSED.search(line)) is not None:
            reason = "missing_capability" if m["err"] == "missing capability" else "unimplemented"
            b.add(SandboxGpuCallRefused, n, sandbox="gvisor", call=_CALL[m["call"]], code=_code(m["code"]),
                  reason=reason, message=line.strip()[:400])
            result.lines_used += 1
        elif (m := _DRIVER.search(line)) is not None:
            b.add(SandboxGpuCallRefused, n, sandbox="gvisor", call="driver_version", code=None,
                  reason="unsupported_driver_version", driver_version=m["version"], message=line.strip()[:400])
            result.lines_used += 1
        elif _DEBUG.search(line) is not None:
            result.lines_used += 1
    return result


#: the line signatures this reader owns
SIGNATURES = (_REFUSED, _DRIVER, _DEBUG, _STRACE)
