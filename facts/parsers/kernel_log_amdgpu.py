"""Kernel log lines of AMD's GPU driver (amdgpu) reporting a GPU hang or an uncorrectable hardware (RAS) error, for
:mod:`stethoscope.facts.parsers.kernel_log`. They give ``amdgpu_ring_timeout`` and ``amdgpu_ras_error`` facts.

amdgpu's job timeout handler (drivers/gpu/drm/amd/amdgpu/amdgpu_job.c ``amdgpu_job_timedout``) logs a ring whose
job ran past its timeout: ``DRM_ERROR("ring %s timeout, signaled seq=%u, emitted seq=%u\\n", ...)`` (Linux 4.x-6.x;
4.x before 4.19 wrote "last signaled seq", "last emitted seq"), ``dev_err(adev->dev, "ring %s timeout, ...")`` in 6.x
(the device's "amdgpu 0000:c2:00.0: " before it), FreeBSD's drm-kmod as ``[drm ERROR :amdgpu_job_timedout] ring ...``;
then the job's process ("Process information: process %s pid %d thread %s pid %d", in 6.x " Process %s pid %d thread
%s pid %d"), and the recovery: a ring reset ("Starting gfx_0.0.0 ring reset", "Ring gfx_0.0.0 reset succeeded|failed")
or a whole GPU reset (amdgpu_device.c: "GPU reset begin!", "GPU reset(%d) succeeded!", "GPU reset end with ret = %d",
"GPU Recovery Failed: %d"). Real lines (pop-os/cosmic-comp#2626, Linux 6.8; pop-os/cosmic-epoch#3764, Linux 7.0)::

    Jul 24 12:26:16 macross kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=5000163, emitted seq=5000165
    Jul 24 12:26:16 macross kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process cosmic-comp pid 3503 thread cosmic-com:cs0 pid 3539
    Jul 24 12:26:16 macross kernel: amdgpu 0000:08:00.0: amdgpu: GPU reset begin!
    Jul 24 12:26:20 macross kernel: amdgpu 0000:08:00.0: amdgpu: GPU reset(2) succeeded!
    [  312.522692] amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=57638, emitted seq=57641
    [  312.522700] amdgpu 0000:28:00.0:  Process cosmic-comp pid 2288 thread cosmic-com:cs0 pid 2316
    [  312.774528] amdgpu 0000:28:00.0: Ring gfx_0.0.0 reset failed
    [  312.774536] amdgpu 0000:28:00.0: GPU reset begin!. Source:  1

One fact per node, device and ring: the first timeout cited, their count, the process and reset that followed it.
radeon's "ring N stalled" (the older driver) is not read.

amdgpu's RAS code reports uncorrectable hardware errors (drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c): the fatal error
interrupt, after which the driver resets the GPU (``amdgpu_ras_global_ras_isr``: 5.3-5.4 ``DRM_WARN("RAS event of type
ERREVENT_ATHUB_INTERRUPT detected!")``, 5.5 on ``dev_info("uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT)
detected!")``, 6.10 on RAS_EVENT_LOG with the event's number ``{1}`` before it, the RAS manager's "Uncorrectable hardware
error(...)"), and the errors it counted in a block (``amdgpu_ras_query_error_status`` and its successors: "%ld
uncorrectable hardware errors detected in %s block", "socket: %d, die: %d, %ld new uncorrectable hardware errors
detected in %s block", "... detected in total in %s block"; amdgpu_umc.c's "amdgpu: %ld uncorrectable hardware errors
detected in UMC block"). Real lines (ROCm/legacy-rocm-build#1886, an MI50)::

    [Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!
    [Sat Jan  7 14:25:56 2023] amdgpu 0000:e3:00.0: amdgpu: GPU reset begin!

One ``amdgpu_ras_error`` per node, device and block (the fatal interrupt its own): the first line cited, the largest
count a line gave, the lines. Correctable and deferred counts ("1 correctable hardware errors detected in gfx block") and
the all-clear ("no uncorrectable hardware errors detected in umc block") make no fact.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import AmdgpuRasError, AmdgpuRingTimeout  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import FactBuilder

# amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!   (legacy-rocm-build#1886, 5.x)
# amdgpu 0000:dd:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!          (6.10+: the RAS event's number)
# RAS event of type ERREVENT_ATHUB_INTERRUPT detected!                                               (5.3-5.4's DRM_WARN)
_RAS_FATAL = re.compile(r"\b(?:[Uu]ncorrectable hardware error ?\((?P<ev>ERREVENT_\w{1,40})\) detected!"
                        r"|RAS event of type (?P<ev2>ERREVENT_\w{1,40}) detected!)")
# amdgpu 0000:01:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block               (5.x-6.x dev_info)
# amdgpu: 3 uncorrectable hardware errors detected in UMC block                                      (amdgpu_umc.c, 5.x)
# amdgpu 0000:c3:00.0: {3} socket: 0, die: 1, 2 new uncorrectable hardware errors detected in umc block   (6.x MI300's form,
#   then "... 5 uncorrectable hardware errors detected in total in umc block"). A count is required: the all-clear
#   "no uncorrectable hardware errors detected in umc block" is none.
_RAS_COUNT = re.compile(r"(?<![\w.-])(?P<n>\d{1,12}) (?:new )?uncorrectable hardware errors detected in (?:total in )?"
                        r"(?P<block>[A-Za-z][\w.]{0,23}) block\b")

#: the literal part of a timeout line and of a RAS error line: kernel_log's keyword scan and detection look for them
KEYWORDS = (r"\bring [\w.]{1,32} timeout, (?:last )?signaled seq=\d"
            r"|ncorrectable hardware error ?\(ERREVENT_|RAS event of type ERREVENT_|\d (?:new )?uncorrectable hardware errors detected in ")

# [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=5000163, emitted seq=5000165   (cosmic-comp#2626)
# amdgpu 0000:c2:00.0: ring gfx_0.0.0 timeout, signaled seq=166926, emitted seq=166928                       (ggml-org/llama.cpp#21724)
# [drm ERROR :amdgpu_job_timedout] ring gfx_0.0.0 timeout, signaled seq=12174921, emitted seq=12174923        (FreeBSD drm-kmod's form)
_TIMEOUT = re.compile(
    r"\bring (?P<ring>[\w.]{1,32}) timeout, (?:last )?signaled seq=(?P<sig>\d+), (?:last )?emitted seq=(?P<emit>\d+)")
# amdgpu 0000:08:00.0: amdgpu: GPU reset begin!      (the device, on the line or on the reset lines after it)
_DEVICE = re.compile(r"\bamdgpu (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):")
# [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process Xorg pid 2184 thread Xorg:cs0 pid 2284   (pop-os/pop#2132)
# amdgpu 0000:28:00.0:  Process cosmic-comp pid 2288 thread cosmic-com:cs0 pid 2316                          (cosmic-epoch#3764)
# [drm ERROR :amdgpu_job_timedout] Process information: process  pid 540118 thread  pid 540118                (no name: FreeBSD)
_PROCESS = re.compile(r"(?:Process information: process|: {1,2}Process) (?P<proc>\S*) {1,2}pid (?P<pid>\d+) thread ")
# the recovery's lines, in the order they come; the last one after a timeout says how it ended:
# amdgpu 0000:c2:00.0: Ring gfx_0.0.0 reset succeeded / amdgpu 0000:28:00.0: Ring gfx_0.0.0 reset failed
# amdgpu 0000:08:00.0: amdgpu: GPU reset(2) succeeded! / amdgpu 0000:c2:00.0: [drm] device wedged, but recovered through reset
# amdgpu 0000:03:00.0: amdgpu: GPU reset begin! / amdgpu 0000:28:00.0: GPU reset begin!. Source:  1
# amdgpu: GPU reset end with ret = -110 / amdgpu 0000:03:00.0: amdgpu: GPU Recovery Failed: -110   (amdgpu_device.c's forms)
_RECOVERED = re.compile(r"\bGPU reset\(\d+\) succeeded!|\b[Rr]ing [\w.]{1,32} reset succeeded|recovered through reset"
                        r"|\bGPU reset end with ret = 0\b")
_FAILED = re.compile(r"\bGPU Recovery Failed|\bGPU reset end with ret = -\d|\bGPU reset\(\d+\) failed|\b[Rr]ing [\w.]{1,32} reset failed")
_BEGUN = re.compile(r"\bGPU reset begin!|\bStarting [\w.]{1,32} ring reset|\bGPU reset succeeded, trying to resume")
#: lines after a timeout where its process and device are looked for
_NEAR = 6


def note_ring_timeout(ln: int, msg: str, common: dict, pending: list) -> bool:
    """Keep one timeout line for :func:`emit`; False when the message is not one."""
    if (m := _TIMEOUT.search(msg)) is None:
        return False
    pending.append((ln, m, dict(common)))
    return True


def emit(b: FactBuilder, pending: list, lines: list[str], used: set[int]) -> None:
    """One ``amdgpu_ring_timeout`` per node, device and ring of the kept timeout lines."""
    groups: dict[tuple, dict] = {}
    for ln, m, common in pending:
        bus, proc, pid = _device(lines[ln - 1]), None, None
        for k in range(ln + 1, min(ln + _NEAR, len(lines)) + 1):
            if _TIMEOUT.search(lines[k - 1]) is not None:
                break  # the next timeout's lines
            if proc is None and pid is None and (p := _PROCESS.search(lines[k - 1])) is not None:
                proc, pid = p["proc"] or None, int(p["pid"])
                used.add(k)
            if bus is None:
                bus = _device(lines[k - 1])
        used.add(ln)
        key = (common["node"], bus, m["ring"])
        g = groups.get(key)
        if g is not None:
            g["timeouts"] += 1
            continue
        groups[key] = {"line": ln, "common": common, "pci_bus_id": bus, "ring": m["ring"], "signaled_seq": int(m["sig"]),
                       "emitted_seq": int(m["emit"]), "process": proc, "pid": pid, "timeouts": 1,
                       "reset": _reset_after(lines, ln)}
    for g in groups.values():
        b.add(AmdgpuRingTimeout, g.pop("line"), **g.pop("common"), **g)


def _device(line: str) -> str | None:
    d = _DEVICE.search(line)
    return try_pci_bus_id(d["bdf"]) if d is not None else None


def _reset_after(lines: list[str], ln: int) -> str | None:
    """How the recovery after the timeout at ``ln`` ended: the last reset line before the next timeout says it."""
    state = None
    for k in range(ln, len(lines)):  # (0-based: the lines after ln)
        text = lines[k]
        if "reset" not in text and "Recovery" not in text:
            if _TIMEOUT.search(text) is not None:
                break
            continue
        if _RECOVERED.search(text) is not None:
            state = "recovered"
        elif _FAILED.search(text) is not None:
            state = "failed"
        elif _BEGUN.search(text) is not None:  # (a ring reset that failed, then the whole GPU's)
            state = "begun"
    return state


def note_ras_error(ln: int, msg: str, common: dict, pending: list) -> bool:
    """Keep one RAS error line for :func:`emit_ras`; False when the message is not one (or counts none)."""
    if (m := _RAS_FATAL.search(msg)) is not None:
        pending.append((ln, None, m["ev"] or m["ev2"], None, dict(common)))
        return True
    if (m := _RAS_COUNT.search(msg)) is not None:
        pending.append((ln, m["block"].lower(), None, int(m["n"]), dict(common)))
        return True
    return False


def emit_ras(b: FactBuilder, pending: list, lines: list[str], used: set[int]) -> None:
    """One ``amdgpu_ras_error`` per node, device and block (the fatal interrupt its own) of the kept lines."""
    groups: dict[tuple, dict] = {}
    for ln, block, event, count, common in pending:
        used.add(ln)
        bus = _device(lines[ln - 1])
        key = (common["node"], bus, block, event)
        g = groups.get(key)
        if g is not None:
            g["lines"] += 1
            if count is not None and (g["count"] is None or count > g["count"]):
                g["count"] = count
            continue
        groups[key] = {"line": ln, "common": common, "pci_bus_id": bus, "block": block, "interrupt": event,
                       "count": count, "memory_error": block == "umc", "lines": 1}
    for g in groups.values():
        b.add(AmdgpuRasError, g.pop("line"), **g.pop("common"), **g)
