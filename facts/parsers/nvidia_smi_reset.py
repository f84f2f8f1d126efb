"""``nvidia-smi -r`` / ``nvidia-smi --gpu-reset [-i GPU]`` output: which GPUs were reset and
which the driver refused, and why.

Sample content, the forms of three driver generations (NVIDIA/gpu-operator#118, cupy/cupy#1930,
a public incident write-up of an 8-GPU node; the NVML error after the bus id is nvmlErrorString's
text: "In use by another client" is NVML_ERROR_IN_USE)::

    $ nvidia-smi --gpu-reset
    GPU 00000000:C1:00.0 is currently in use by another process.

    1 device is currently being used by one or more other processes (e.g., Fabric Manager, CUDA application, graphics application such as an X server, or a monitoring application such as another instance of nvidia-smi). Please first kill all processes using this device and all compute applications running in the system.
    $ sudo nvidia-smi -r
    The following GPUs could not be reset:
      GPU 00000000:17:00.0: In use by another client
    8 devices are currently being used by one or more other processes
    GPU 00000000:C1:00.0 was successfully reset.

and the oldest form, which names no GPU (nvidia-smi of the 3xx drivers)::

    Unable to reset this GPU because it's being used by some other process (e.g. CUDA application, graphics application like X server, monitoring application like other instance of nvidia-smi). Please first kill all processes using this GPU and all compute applications running in the system (even when they are running on other GPUs) and then try to reset the GPU again.

Facts emitted: ``gpu_reset_refused`` per GPU the reset did not reach (``pci_bus_id`` where
printed, ``reason`` from NVML's error text as :func:`nvml_init.nvml_reason` reads it:
``in_use``, ``not_supported``, ``insufficient_permissions``, ... ``other``; ``message`` as printed; ``clients_hint`` when the summary
line lists what may hold it); ``gpu_reset_done`` per "was successfully reset" line. The summary
("N devices are currently being used ...") belongs to the refusals above it. Empty input, or
text without these lines, yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    GpuResetDone, GpuResetRefused,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nvml_init import nvml_reason

KIND = "nvidia_smi_reset"

_BDF = r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]"
# GPU 00000000:C1:00.0 was successfully reset.
_DONE = re.compile(rf"\bGPU (?P<bdf>{_BDF}) was successfully reset\b")
# GPU 00000000:00:18.0 is currently in use by another process.
_IN_USE = re.compile(rf"\bGPU (?P<bdf>{_BDF}) is currently in use by another process\b")
# The following GPUs could not be reset:
_HEADER = re.compile(r"The following GPUs could not be reset:")
#   GPU 00000000:1A:00.0: In use by another client      (a row under the header)
_ROW = re.compile(rf"^\s*GPU (?P<bdf>{_BDF}):\s*(?P<msg>\S(?:[^\n]*?\S)??)\s*$")
#   GPU 00000000:17:00.0: In use by another client      (the row pasted without its header: NVML_ERROR_IN_USE's
#   text, what a reset is refused with, names the table on its own; the incident write-up's row above)
_IN_USE_ROW = re.compile(rf"^\s*GPU (?P<bdf>{_BDF}):\s*In use by another client\b", re.M)
# 1 device is currently being used by one or more other processes (e.g., Fabric Manager, CUDA application, ...
# 8 devices are currently being used by one or more other processes
_SUMMARY = re.compile(r"\b(?P<n>\d+) devices? (?:is|are) currently being used by one or more other processes(?P<rest>[^\n]*)")
# Unable to reset this GPU because it's being used by some other process (e.g. CUDA application, ...
_OLD = re.compile(r"Unable to reset this GPU because it(?:'s| is) being used by some other process[^\n]*")

_ANY = re.compile("|".join(re.sub(r"\(\?P<\w+>", "(?:", p.pattern) for p in (_DONE, _IN_USE, _HEADER, _SUMMARY, _OLD, _IN_USE_ROW)),
                  re.M)

#: rows under the header: at most this many lines after it (one per GPU of an 8- or 16-GPU node)
_MAX_ROWS = 32


def detect(head: str) -> bool:
    if not ("reset" in head or "being used by one or more other processes" in head
            or "in use by another process" in head or "In use by another client" in head):
        return False
    return _ANY.search(head) is not None


def _hint(rest: str) -> str | None:
    m = re.search(r"\(e\.g\.,? ([^)]*)\)", rest)
    return m[1].strip() if m else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    refused: list[tuple[int, dict]] = []  # waiting for the summary line's hint
    rows_until = 0
    for n, line in enumerate(lines, 1):
        if (m := _DONE.search(line)) is not None:
            bus = try_pci_bus_id(m["bdf"])
            if bus is None:
                b.error(n, f"bad PCI bus id {m['bdf']!r}")
                continue
            b.add(GpuResetDone, n, pci_bus_id=bus)
        elif (m := _IN_USE.search(line)) is not None:
            bus = try_pci_bus_id(m["bdf"])
            refused.append((n, dict(reason="in_use", message="is currently in use by another process",
                                    pci_bus_id=bus, gpu=bus or m["bdf"])))
        elif _HEADER.search(line) is not None:
            rows_until = n + _MAX_ROWS
        elif (n <= rows_until or _IN_USE_ROW.match(line)) and (m := _ROW.match(line)) is not None:
            bus = try_pci_bus_id(m["bdf"])
            msg = m["msg"].rstrip(".")
            refused.append((n, dict(reason=nvml_reason(msg), message=msg, pci_bus_id=bus, gpu=bus or m["bdf"])))
        elif (m := _SUMMARY.search(line)) is not None:
            rows_until = 0
            hint = _hint(m["rest"])
            for k, fields in refused:
                b.add(GpuResetRefused, k, clients_hint=hint, **fields)
            refused = []
        elif (m := _OLD.search(line)) is not None:
            b.add(GpuResetRefused, n, reason="in_use", message="being used by some other process",
                  gpu="this GPU", clients_hint=_hint(m[0]))
        else:
            if rows_until and line.strip() and not line.startswith((" ", "\t")):
                rows_until = 0  # the rows ended
            continue
        result.lines_used += 1
    for k, fields in refused:  # no summary line pasted
        b.add(GpuResetRefused, k, **fields)
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_ANY,)
