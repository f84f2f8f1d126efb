"""A record a paste hard-wrapped into indented continuation rows is read whole (issue 11, round rX8): facts/lines.py
_indented_tails. Real pastes joined, real near misses kept apart; CONSTRUCTED values say so."""
from pathlib import Path

import pytest

from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def _rows(text: str) -> list[str]:
    return [ln for ln in normalise(text).split("\n") if ln.strip()]


def test_an_xid_line_wrapped_into_indented_rows_is_read_whole():
    # open-gpu-kernel-modules#1208 (its "Kernel log" block, verbatim)
    text = (FIX / "artefacts" / "kernel_log" / "okm1208_xid31_wrapped_indented_rows.log").read_text()
    norm = normalise(text)
    assert norm.joined == {1: 2}
    assert norm.split("\n")[0] == ("NVRM: Xid (PCI:0000:01:00): 31, pid=<varies>, name=python3, channel 0x00000002, "
                                   "intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted "
                                   "@ 0x0_00019000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")
    xids = [f for f in parse_one(Artefact(path="dmesg.txt", text=text)).facts if f.kind == "xid_event"]
    assert len(xids) == 1  # (before: the Xid alone, its MMU fault's engine, client and type on rows not read)
    x = xids[0]
    assert (x.xid, x.mmu_engine, x.mmu_client, x.mmu_fault_type) == (31, "GRAPHICS", "GPCCLIENT_T1_0", "FAULT_PDE")
    assert x.evidence.line == 1 and "FAULT_PDE" in x.evidence.text


def test_the_driver_s_not_supported_message_wrapped_is_read_whole():
    # NVIDIA/aicr#1858 (fixtures/artefacts/kernel_log, verbatim): the continuation without its NVRM: prefix
    text = (FIX / "artefacts" / "kernel_log" / "aicr1858_h100_not_supported_by_580_release.log").read_text()
    assert _rows(text)[0] == ("NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system "
                              "is not supported by the NVIDIA 580.126.09 driver release.")


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED: a stamped kernel line, an NCCL WARN and a Python exception's message, each wrapped so
    ("[ 4564.303884] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>,\n"
     "    GPU has fallen off the bus.\n[ 4564.303990] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n",
     "[ 4564.303884] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
    ("node1:1633:1700 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local\n"
     "  access violation work queue error\nnode1:1633:1700 [0] NCCL INFO Connected all rings\n",
     "node1:1633:1700 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local "
     "access violation work queue error"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of\n"
     "  79.10 GiB of which 1.12 GiB is free.\n",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
     "79.10 GiB of which 1.12 GiB is free."),
])
def test_records_of_each_form_wrapped_into_indented_rows_are_joined(text, want):
    assert _rows(text)[0] == want


@pytest.mark.parametrize("rel", [
    "cuda_app/jax3568_kernel_dso_version_mismatch.log",      # a Python warning and its source row ('  warnings.warn(')
    "torch_log/gpustack5218_sglang_no_gpu_platform.log",     # the same, several
    "torch_log/horovod3618_nccl_allreduce_failed_unhandled_cuda.log",  # an exception's message, then '    raise ...('
    "launcher_exit/tgi866_shard0_oom_failed_to_start.log",   # a tracing field after the message, one blank in
    "torch_log/cppo6_childfailed_sigkill.log",               # torchrun's failure table ('[0]:' / '  time      : ...')
    "go_runtime_crash/dcgm_exporter_cgo_sigsegv_dcgmexporter412.txt",  # a Go traceback: frames, tab-indented rows
    "kernel_log/amdgpu172_amdgpu_noretry_page_fault.log",    # amdgpu's process row, one blank in, read on its own
])
def test_real_indented_rows_that_continue_no_record_are_kept(rel):
    text = (FIX / "artefacts" / rel).read_text()
    norm = normalise(text)
    rows = text.split("\n")
    for first, n in (getattr(norm, "joined", None) or {}).items():  # another reading's joins (a terminal's cut) only
        assert not any(rows[k].startswith("  ") for k in range(first, first + n)), (rel, first)


@pytest.mark.parametrize("text", [
    # a markdown list item's prose rows around a quoted line (fixtures/bundles/xid79-cleared-by-reboot/README.md)
    "- `NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.` with kernel stamp\n"
    "  `[155044.078590]`: NVIDIA developer forum thread\n",
    # CONSTRUCTED near misses: a record ending a sentence ('.', ':', ')'), a Java/JS frame, code, a caret row, a
    # capitalised row (a record of its own), a tab, rows of two indentations, a row under a line of no record's form
    "RuntimeError: CUDA error: an illegal memory access was encountered.\n  continued here\n",
    "RuntimeError: something failed with:\n  the detail\n",
    "java.lang.IllegalStateException: no device found\n    at com.example.Main.run(Main.java:10)\n",
    "ValueError: bad value in\n    x = foo(bar)\n",
    "SyntaxError: invalid syntax in\n    ^^^^^^\n",
    "NVRM: Xid (PCI:0000:01:00): 31, pid=1, name=python3,\n  Channel 00000008\n",
    "NVRM: Xid (PCI:0000:01:00): 31, pid=1, name=python3,\n\tchannel 0x2\n",
    "some prose that mentions a device,\n  and goes on indented\n",
    # a report's key row under a kernel line that ends in a word (tests/test_lines.py KEPT: an nvidia-smi -q row)
    "Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) failed\n"
    "    GPU Current Temp                  : 32 C\n",
    # CONSTRUCTED: the driver's own multi-line report as dmesg prints it, each row its "NVRM:" (nv.c's nv_printf)
    "[ 2231.104412] NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330) installed in this system\n"
    "               NVRM: is not supported by the NVIDIA 470.82.01 driver release.\n",
])
def test_near_misses_stay_apart(text):
    assert getattr(normalise(text), "joined", None) is None
