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

amdgpu's GPU page fault (the GPU memory hub's interrupt: gmc_v9_0.c, gmc_v10_0.c, gmc_v11_0.c, gmc_v12_0.c
``*_process_interrupt``), the kernel side of ROCm's "Memory access fault by GPU node-N" and amdgpu's counterpart of an
NVIDIA Xid 31: a process's GPU work touched an address its address space does not map. The head names the hub and the
address space (``"[%s] %s page fault (src_id:%u ring:%u vmid:%u pasid:%u, for process %s pid %d thread %s pid %d)"``,
gmc_v9's "retry"/"no-retry", gmc_v10's without it; since 6.9 the process on a line of its own from
amdgpu_vm_print_task_info: " for process %s pid %d thread %s pid %d)", " in process ...", 6.10 on " Process %s pid %d
thread %s pid %d"), then ``"  in page starting at address 0x%016llx from client 0x%x (%s)"`` ("from IH client", "from
client %d" in other versions) and the hub's status register and its bits. Real lines (ROCm/legacy-rocm-build#2804, an
RDNA GPU under PyTorch; ROCm/amdgpu#172, an MI-series GPU, 6.x)::

    [  629.844077] amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process python pid 1796 thread python pid 1796)
    [  629.844087] amdgpu 0000:0b:00.0: amdgpu:   in page starting at address 0x00007f5279bab000 from client 0x1b (UTCL2)
    [ 4778.915423] amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)
    [ 4778.916081] amdgpu 0000:c6:00.0: amdgpu:  for process pt_main_thread pid 12924 thread pt_main_thread pid 12924)
    [ 4778.916571] amdgpu 0000:c6:00.0: amdgpu:   in page starting at address 0x0000ae8570611000 from IH client 0x1b (UTCL2)
    [ 4778.917054] amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031

One ``amdgpu_vm_fault`` per node, device and address space (pasid): the first head cited, the process, the first
address and client, the count of heads; the lines that follow a head (process, address, status and its bits) are read
with it.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import AmdgpuRasError, AmdgpuRingTimeout, AmdgpuVmFault  # noqa: F401 - the fact classes live in facts/kinds
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

# amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process python pid 1796 thread python pid 1796)
#   (legacy-rocm-build#2804, gmc_v10's form)
# amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)     (ROCm/amdgpu#172, gmc_v9 6.9+)
# amdgpu 0000:88:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:24 vmid:8 pasid:32768, for process ipython3 pid 846049 thread ipython3 pid 846049)
#   (ROCm/amdgpu#150, gmc_v9 before 6.9)
# drmn0: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:3 pasid:32770, for process  pid 101779 thread  pid 101779)
#   (freebsd/drm-kmod#78: FreeBSD's device name; the process name may be empty)
# drmn0: [mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)      (FreeBSDDesktop/kms-drm#76: Linux 4.15's gmc_v9
#   form, "[%s] VMC page fault (src_id:%u ring:%u vm_id:%u pas_id:%u)", then "  at page 0x%016llx from %d")
_VM_FAULT = re.compile(r"\[(?P<hub>(?:gfx|mm)hub\d{0,2})\] (?:(?P<retry>retry|no-retry) |VMC )?page fault \(src_id:\d{1,5} ring:\d{1,5}"
                       r" vm_?id:(?P<vmid>\d{1,3}) pas_?id:(?P<pasid>\d{1,10})(?:, for process (?P<proc>\S*) {1,2}pid (?P<pid>\d{1,10})"
                       r" thread [^\n]{0,40}? {1,2}pid \d{1,10})?\)")
# the process on a line of its own (amdgpu_vm_print_task_info, 6.9 on):
# amdgpu 0000:c6:00.0: amdgpu:  for process pt_main_thread pid 12924 thread pt_main_thread pid 12924)   (ROCm/amdgpu#172)
# amdgpu 0000:0d:00.0: amdgpu:  in process cosmic-comp pid 4732 thread cosmic-com:cs0 pid 4753)          (6.10's form)
# amdgpu 0000:0e:00.0: amdgpu:  Process python3 pid 15615 thread python3 pid 15615                        (getsolus/packages#7986, 6.12+)
_VM_PROCESS = re.compile(r": {1,2}(?:for process|in process|Process) (?P<proc>\S*) {1,2}pid (?P<pid>\d{1,10}) thread ")
# amdgpu 0000:0b:00.0: amdgpu:   in page starting at address 0x00007f5279bab000 from client 0x1b (UTCL2)   (legacy-rocm-build#2804)
# amdgpu 0000:c6:00.0: amdgpu:   in page starting at address 0x0000ae8570611000 from IH client 0x1b (UTCL2)   (ROCm/amdgpu#172)
# amdgpu 0000:0e:00.0: amdgpu:   in page starting at address 0x00007febd6383000 from client 10          (getsolus/packages#7986)
# drmn0:   at page 0x00005b7199707000 from 18                                               (kms-drm#76, 4.15's form)
_VM_ADDRESS = re.compile(r"(?:\bin page starting at address|: {1,4}at page) (?P<addr>0x[0-9a-fA-F]{1,16}) from (?:IH )?(?:client )?"
                         r"(?:0x[0-9a-fA-F]{1,4} \((?P<cname>[\w/]{1,16})\)|(?P<cnum>(?:0x)?[0-9a-fA-F]{1,4})\b)")
# the hub's status register and its decoded bits after the address line:
# amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031 / GCVM_L2_PROTECTION_FAULT_STATUS:0x00841B5B
# amdgpu 0000:c6:00.0: amdgpu: \t Faulty UTCL2 client ID: TCP (0x8) / MORE_FAULTS: 0x1 / WALKER_ERROR: 0x0 / RW: 0x0
_VM_DETAIL = re.compile(r"VM_L2_PROTECTION_FAULT_STATUS:0x[0-9a-fA-F]{1,8}|: \s{0,8}(?:Faulty UTCL2 client ID: |MORE_FAULTS: 0x"
                        r"|WALKER_ERROR: 0x|PERMISSION_FAULTS: 0x|MAPPING_ERROR: 0x|RW: 0x)")
#: lines after a fault's head where its process, address and status are looked for
_VM_NEAR = 12

#: the literal part of a timeout line, of a RAS error line and of a page fault's head: kernel_log's keyword scan and
#: detection look for them
KEYWORDS = (r"\bring [\w.]{1,32} timeout, (?:last )?signaled seq=\d"
            r"|ncorrectable hardware error ?\(ERREVENT_|RAS event of type ERREVENT_|\d (?:new )?uncorrectable hardware errors detected in "
            r"|hub\d{0,2}\] (?:(?:no-)?retry |VMC )?page fault \(src_id:")

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


def note_vm_fault(ln: int, msg: str, common: dict, pending: list) -> bool:
    """Keep one page fault head for :func:`emit_vm_faults`; False when the message is not one."""
    if (m := _VM_FAULT.search(msg)) is None:
        return False
    pending.append((ln, m, dict(common)))
    return True


def emit_vm_faults(b: FactBuilder, pending: list, lines: list[str], used: set[int]) -> None:
    """One ``amdgpu_vm_fault`` per node, device and address space (pasid) of the kept heads, with the process, address
    and status lines that follow each head."""
    groups: dict[tuple, dict] = {}
    heads = {ln for ln, _m, _c in pending}
    for ln, m, common in pending:
        used.add(ln)
        bus = _device(lines[ln - 1])
        proc, pid = (m["proc"] or None, int(m["pid"])) if m["pid"] is not None else (None, None)
        address = client = None
        for k in range(ln + 1, min(ln + _VM_NEAR, len(lines)) + 1):
            text = lines[k - 1]
            other = _device(text)
            if bus is not None and other is not None and other != bus:
                continue  # another GPU's fault lines, printed between this one's (ROCm/legacy-rocm-build#2480)
            if k in heads:
                break  # the next fault's lines
            if pid is None and (p := _VM_PROCESS.search(text)) is not None:
                proc, pid = p["proc"] or None, int(p["pid"])
            elif address is None and (a := _VM_ADDRESS.search(text)) is not None:
                address, client = a["addr"], a["cname"] or a["cnum"]
            elif _VM_DETAIL.search(text) is None:
                continue
            used.add(k)
        key = (common["node"], bus, int(m["pasid"]))
        g = groups.get(key)
        if g is not None:
            g["faults"] += 1
            for field, value in (("process", proc), ("pid", pid), ("address", address), ("client", client)):
                if g[field] is None and value is not None:
                    g[field] = value
            continue
        groups[key] = {"line": ln, "common": common, "pci_bus_id": bus, "hub": m["hub"],
                       "retry": None if m["retry"] is None else m["retry"] == "retry", "vmid": int(m["vmid"]),
                       "pasid": int(m["pasid"]), "process": proc, "pid": pid, "address": address, "client": client,
                       "faults": 1}
    for g in groups.values():
        b.add(AmdgpuVmFault, g.pop("line"), **g.pop("common"), **g)
