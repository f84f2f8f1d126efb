"""amdgpu's ring timeouts in a kernel log (kernel_log via kernel_log_amdgpu): amdgpu_job.c's DRM_ERROR and 6.x
dev_err forms, FreeBSD drm-kmod's, 4.x's "last signaled seq"; the process and reset lines after them; the real
pastes of four public threads (fixtures), and lines that must stay unread."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"
PREFIXES = ("", "[37937.168911] ", "May 29 10:00:01 host kernel: ", "Feb  2 08:03:20 kernel: [37937.168911] ")


def _amd(text: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts if f.kind == "amdgpu_ring_timeout"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "ring", "sig", "emit", "bus"), [
    # real (pop-os/cosmic-comp#2626)
    ("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=5000163, emitted seq=5000165",
     "gfx_0.0.0", 5000163, 5000165, None),
    # real (ggml-org/llama.cpp#21724, Linux 6.x's dev_err)
    ("amdgpu 0000:c2:00.0: ring gfx_0.0.0 timeout, signaled seq=166926, emitted seq=166928", "gfx_0.0.0", 166926, 166928, "0000:c2:00.0"),
    # CONSTRUCTED from FreeBSD drm-kmod's framing of the same DRM_ERROR, and from 4.x's "last signaled seq" wording
    ("[drm ERROR :amdgpu_job_timedout] ring sdma0 timeout, signaled seq=12, emitted seq=14", "sdma0", 12, 14, None),
    ("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, last signaled seq=1138, last emitted seq=1140", "gfx", 1138, 1140, None),
])
def test_timeout_forms(prefix, line, ring, sig, emit, bus):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    (f,) = _amd(text)
    assert (f.ring, f.signaled_seq, f.emitted_seq, f.pci_bus_id, f.reset, f.evidence.line) == (ring, sig, emit, bus, None, 1)


@pytest.mark.parametrize(("name", "bus", "proc", "pid", "reset"), [
    ("cosmiccomp2626_amdgpu_ring_timeout_reset.log", "0000:08:00.0", "cosmic-comp", 3503, "recovered"),
    ("cosmicepoch3764_amdgpu_ring_reset_failed.log", "0000:28:00.0", "cosmic-comp", 2288, "begun"),
    ("pop2132_amdgpu_ring_timeout_syslog_no_host.log", "0000:03:00.0", "Xorg", 2184, "begun"),
    ("llamacpp21724_amdgpu_ring_reset_journal.log", "0000:c2:00.0", "llama-server", 12519, "recovered"),
])
def test_real_threads(name, bus, proc, pid, reset):
    text = (FIXTURES / name).read_text()
    assert kernel_log.detect(text)
    (f,) = _amd(text)
    assert (f.ring, f.pci_bus_id, f.process, f.pid, f.reset, f.timeouts) == ("gfx_0.0.0", bus, proc, pid, reset, 1)


def test_repeated_timeouts_one_fact_and_a_failed_recovery():
    # CONSTRUCTED from amdgpu_device.c's "GPU Recovery Failed: %d" after two timeouts of one ring
    text = ("[  10.000001] amdgpu 0000:03:00.0: ring comp_1.0.0 timeout, signaled seq=5, emitted seq=7\n"
            "[  10.000002] amdgpu 0000:03:00.0: GPU reset begin!\n"
            "[  20.000001] amdgpu 0000:03:00.0: ring comp_1.0.0 timeout, signaled seq=9, emitted seq=11\n"
            "[  20.000002] amdgpu 0000:03:00.0: GPU reset begin!\n"
            "[  21.000002] amdgpu 0000:03:00.0: amdgpu: GPU Recovery Failed: -110\n")
    (f,) = _amd(text)
    assert (f.ring, f.timeouts, f.signaled_seq, f.reset, f.evidence.line) == ("comp_1.0.0", 2, 5, "begun", 1)


@pytest.mark.parametrize("line", [
    # CONSTRUCTED negatives: a reset line alone, radeon's older stall, a sentence about a timeout
    "[  312.774536] amdgpu 0000:28:00.0: GPU reset begin!. Source:  1",
    "[  100.000000] radeon 0000:01:00.0: ring 0 stalled for more than 10000msec",
    "the ring buffer timeout, as we saw, was the problem",
])
def test_not_ring_timeouts(line):
    assert _amd(line + "\n") == []


# --- amdgpu's uncorrectable RAS errors (kernel_log_amdgpu.note_ras_error / emit_ras) ---------------------------------

def _ras(text: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts if f.kind == "amdgpu_ras_error"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "block", "interrupt", "count", "memory", "bus"), [
    # real (ROCm/legacy-rocm-build#1886, 5.x dev_info)
    ("amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
     None, "ERREVENT_ATHUB_INTERRUPT", None, False, "0000:e3:00.0"),
    # CONSTRUCTED from amdgpu_ras.c's other versions: 6.10+'s event number, 5.3's DRM_WARN, a block's count, MI300's form
    ("amdgpu 0000:15:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
     None, "ERREVENT_ATHUB_INTERRUPT", None, False, "0000:15:00.0"),
    ("[drm] RAS event of type ERREVENT_ATHUB_INTERRUPT detected!", None, "ERREVENT_ATHUB_INTERRUPT", None, False, None),
    ("amdgpu 0000:01:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block", "umc", None, 2, True, "0000:01:00.0"),
    ("amdgpu: 3 uncorrectable hardware errors detected in UMC block", "umc", None, 3, True, None),
    ("amdgpu 0000:c3:00.0: {3} socket: 0, die: 1, 4 new uncorrectable hardware errors detected in gfx block",
     "gfx", None, 4, False, "0000:c3:00.0"),
])
def test_ras_forms(prefix, line, block, interrupt, count, memory, bus):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    (f,) = _ras(text)
    assert (f.block, f.interrupt, f.count, f.memory_error, f.pci_bus_id, f.evidence.line) == (block, interrupt, count, memory, bus, 1)


def test_ras_fixture_and_grouping():
    text = (FIXTURES / "rocmbuild1886_amdgpu_ras_athub_interrupt.log").read_text()
    (f,) = _ras(text)
    assert (f.interrupt, f.pci_bus_id, f.evidence.line) == ("ERREVENT_ATHUB_INTERRUPT", "0000:e3:00.0", 3)
    # CONSTRUCTED: a new count then the total of the same block: one fact, the largest count
    (g,) = _ras("amdgpu 0000:c3:00.0: {3} socket: 0, die: 1, 2 new uncorrectable hardware errors detected in umc block\n"
                "amdgpu 0000:c3:00.0: {3} socket: 0, die: 1, 5 uncorrectable hardware errors detected in total in umc block\n")
    assert (g.count, g.lines, g.memory_error) == (5, 2, True)


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: the all-clear, correctable and deferred counts, PCIe DPC's own "uncorrectable error" make no RAS fact
    "amdgpu 0000:c3:00.0: amdgpu: no uncorrectable hardware errors detected in umc block",
    "amdgpu 0000:0b:00.0: 1048560 correctable hardware errors detected in umc block",
    "amdgpu 0000:0b:00.0: 2 deferred hardware errors detected in umc block",
    "pcieport 0000:00:03.1: DPC: unmasked uncorrectable error detected",
])
def test_ras_not_read(line):
    assert _ras(line + "\n") == []


# --- amdgpu's GPU page faults (kernel_log_amdgpu.note_vm_fault / emit_vm_faults) ---------------------------------------

def _vm(text: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts if f.kind == "amdgpu_vm_fault"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("lines", "hub", "retry", "pasid", "process", "pid", "address", "client", "bus"), [
    # real (ROCm/legacy-rocm-build#2804, gmc_v10's form, the process on the head)
    (["amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process python pid 1796 thread python pid 1796)",
      "amdgpu 0000:0b:00.0: amdgpu:   in page starting at address 0x00007f5279bab000 from client 0x1b (UTCL2)"],
     "gfxhub", None, 32770, "python", 1796, "0x00007f5279bab000", "UTCL2", "0000:0b:00.0"),
    # real (ROCm/amdgpu#172, gmc_v9 6.9+: the process on its own line, "from IH client")
    (["amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)",
      "amdgpu 0000:c6:00.0: amdgpu:  for process pt_main_thread pid 12924 thread pt_main_thread pid 12924)",
      "amdgpu 0000:c6:00.0: amdgpu:   in page starting at address 0x0000ae8570611000 from IH client 0x1b (UTCL2)",
      "amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031"],
     "gfxhub0", False, 32769, "pt_main_thread", 12924, "0x0000ae8570611000", "UTCL2", "0000:c6:00.0"),
    # real (getsolus/packages#7986, 6.12's " Process ..." line, "from client 10")
    (["amdgpu 0000:0e:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:173 vmid:8 pasid:32791)",
      "amdgpu 0000:0e:00.0: amdgpu:  Process python3 pid 15615 thread python3 pid 15615",
      "amdgpu 0000:0e:00.0: amdgpu:   in page starting at address 0x00007febd6383000 from client 10"],
     "gfxhub", None, 32791, "python3", 15615, "0x00007febd6383000", "10", "0000:0e:00.0"),
    # real (FreeBSDDesktop/kms-drm#76: Linux 4.15's gmc_v9 form under FreeBSD's device name, "at page ... from 18")
    (["drmn0: [mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)",
      "drmn0:   at page 0x00005b7199707000 from 18",
      "drmn0: VM_L2_PROTECTION_FAULT_STATUS:0x00000000"],
     "mmhub", None, 0, None, None, "0x00005b7199707000", "18", None),
    # real (freebsd/drm-kmod#78: FreeBSD's device name, a retry fault, an empty process name)
    (["drmn0: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:3 pasid:32770, for process  pid 101779 thread  pid 101779)"],
     "gfxhub0", True, 32770, None, 101779, None, None, None),
])
def test_vm_fault_forms(prefix, lines, hub, retry, pasid, process, pid, address, client, bus):
    text = "".join(prefix + line + "\n" for line in lines)
    assert kernel_log.detect(text)
    result = kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1"))
    (f,) = [f for f in result.facts if f.kind == "amdgpu_vm_fault"]
    assert (f.hub, f.retry, f.pasid, f.process, f.pid, f.address, f.client, f.pci_bus_id, f.evidence.line) == (
        hub, retry, pasid, process, pid, address, client, bus, 1)
    assert result.lines_used == len(lines)


@pytest.mark.parametrize(("name", "faults", "process", "hub"), [
    ("rocmbuild2804_amdgpu_gfxhub_page_fault.log", 1, "python", "gfxhub"),
    ("amdgpu172_amdgpu_noretry_page_fault.log", 2, "pt_main_thread", "gfxhub0"),
    ("amdgpu150_amdgpu_mmhub_page_fault.log", 2, "ipython3", "mmhub0"),
])
def test_vm_fault_fixtures(name, faults, process, hub):
    (f,) = _vm((FIXTURES / name).read_text())
    assert (f.faults, f.process, f.hub) == (faults, process, hub)


@pytest.mark.parametrize("line", [
    # CONSTRUCTED negatives: the CPU's page fault, a status line alone, a sentence naming the fault
    "BUG: unable to handle page fault for address: ffffa0e1c0000000",
    "amdgpu 0000:c6:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031",
    "we keep getting a gfxhub page fault when training",
])
def test_vm_fault_not_read(line):
    assert _vm(line + "\n") == []


def test_vm_faults_of_two_gpus_interleaved():
    # real (ROCm/legacy-rocm-build#2480: two GPUs' faults printed line by line between each other, dmesg -T's stamps)
    text = ("[Tue Sep 19 15:03:01 2023] amdgpu 0000:83:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:40 vmid:8 pasid:32776, for process python pid 4277 thread python pid 4277)\n"
            "[Tue Sep 19 15:03:01 2023] amdgpu 0000:03:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:40 vmid:8 pasid:32775, for process python pid 4278 thread python pid 4278)\n"
            "[Tue Sep 19 15:03:01 2023] amdgpu 0000:03:00.0: amdgpu:   in page starting at address 0x0000000000000000 from IH client 0x1b (UTCL2)\n"
            "[Tue Sep 19 15:03:01 2023] amdgpu 0000:83:00.0: amdgpu:   in page starting at address 0x0000000000000000 from IH client 0x1b (UTCL2)\n"
            "[Tue Sep 19 15:03:01 2023] amdgpu 0000:03:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00841051\n"
            "[Tue Sep 19 15:03:01 2023] amdgpu 0000:83:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00841051\n")
    result = kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1"))
    fs = sorted((f.pci_bus_id, f.pid, f.address, f.evidence.line) for f in result.facts if f.kind == "amdgpu_vm_fault")
    assert fs == [("0000:03:00.0", 4278, "0x0000000000000000", 2), ("0000:83:00.0", 4277, "0x0000000000000000", 1)]
    assert result.lines_used == 6
