"""The kernel's WARN report (kernel_log_splat via kernel_log) and whether an oops faulted in the GPU driver: each WARN
form the kernel prints (3.x .. 6.18, 6.19+), under the log prefixes and bare; the report's taint and
command; the GPU driver's modules told apart from the rest; near misses that are no WARN report."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = ("", "[12345.678901] ", "Dec  1 10:00:01 node1 kernel: ", "2026-12-01T10:00:01+0000 node1 kernel: ")


def _facts(text: str, kind: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.log", node="n1", text=text)).facts if f.kind == kind]


# (line, module, function, file, line number, in the GPU driver)
WARNS = [
    # real: NVIDIA/open-gpu-kernel-modules#916
    ("WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]", "nvidia", "nvidia_dev_put", "nvidia/nv.c", 5039, True),
    # real: NVIDIA/egl-wayland#6 (the DRM core)
    ("WARNING: CPU: 7 PID: 49 at drivers/gpu/drm/drm_atomic_helper.c:1612 drm_atomic_helper_commit_hw_done+0x89/0x90", None,
     "drm_atomic_helper_commit_hw_done", "drivers/gpu/drm/drm_atomic_helper.c", 1612, False),
    # real: pop-os/pop#4036 (6.19+ form, arch code)
    ("WARNING: arch/x86/kernel/cpu/bugs.c:3736 at __warn_thunk+0x10/0x20, CPU#1: (udev-worker)/728", None, "__warn_thunk",
     "arch/x86/kernel/cpu/bugs.c", 3736, False),
    # CONSTRUCTED from __warn's formats: no file; a module with its build id; another GPU module; a NIC's driver
    ("WARNING: CPU: 3 PID: 1 at nv_drm_atomic_commit+0x2c/0x50 [nvidia_drm]", "nvidia_drm", "nv_drm_atomic_commit", None, None, True),
    ("WARNING: kernel-open/nvidia-uvm/uvm_va_space.c:612 at uvm_va_space_destroy+0x5d4/0x6a0 [nvidia_uvm 5f0c6a1e3b9d4c2a], CPU#12: python3/48211",
     "nvidia_uvm", "uvm_va_space_destroy", "kernel-open/nvidia-uvm/uvm_va_space.c", 612, True),
    ("WARNING: at gdrdrv_mmap+0x1f0/0x2a0 [gdrdrv], CPU#0: python/77", "gdrdrv", "gdrdrv_mmap", None, None, True),
    ("WARNING: CPU: 5 PID: 0 at net/sched/sch_generic.c:525 dev_watchdog+0x21f/0x230", None, "dev_watchdog", "net/sched/sch_generic.c", 525, False),
    ("WARNING: CPU: 9 PID: 811 at fs/ext4/inode.c:3902 ext4_set_page_dirty+0x44/0x60 [ext4]", "ext4", "ext4_set_page_dirty", "fs/ext4/inode.c", 3902, False),
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("line,module,func,file,lineno,gpu", WARNS)
def test_warn_lines(prefix, line, module, func, file, lineno, gpu):
    (w,) = _facts(prefix + line + "\n", "kernel_warning")
    assert (w.module, w.function, w.source_file, w.source_line, w.in_gpu_driver) == (module, func, file, lineno, gpu)


def test_the_reports_taint_and_command_and_its_marker_lines():
    text = (ROOT / "fixtures/artefacts/kernel_log/eglwayland6_warn_in_drm_core.log").read_text()
    result = kernel_log.parse(Artefact(path="dmesg.log", node="n1", text=text))
    (w,) = [f for f in result.facts if f.kind == "kernel_warning"]
    assert (w.taint, w.process, w.cpu, w.pid, w.evidence.line) == ("PWO", "kworker/u16:1", 7, 49, 2)
    assert result.lines_used >= 3  # the WARN, its "cut here" and "Modules linked in:"


def test_the_drivers_own_lines_between_cut_here_and_the_warn():
    text = (ROOT / "fixtures/artefacts/kernel_log/ogkm916_warn_nvidia_dev_put.log").read_text()
    (w,) = _facts(text, "kernel_warning")
    assert (w.module, w.in_gpu_driver, w.evidence.line, w.taint) == ("nvidia", True, 18, None)


@pytest.mark.parametrize("line", [
    "WARNING: infoROM is corrupted at gpu 0000:3B:00.0",  # nvidia-smi's
    "WARNING: CPU: 3 PID: 1 at 0xffffffffc0a1b2c3",  # no symbol: nothing to say where
    "W1129 18:30:26.245000 1668 torch/distributed/run.py:851] WARNING: at most one of ...",
    "WARNING: The NVIDIA Driver was not detected. GPU functionality will not be available.",
])
def test_near_misses_are_no_warn_report(line):
    assert _facts("[12345.678901] " + line + "\n", "kernel_warning") == []


# (the oops's lines, the module, in the GPU driver)
OOPSES = [
    # real: NVIDIA/open-gpu-kernel-modules#1110 (the PR's quote: RIP without its segment)
    ("BUG: kernel NULL pointer dereference, address: 00000000000000a8\nRIP: uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]\n", "nvidia_uvm", True),
    # CONSTRUCTED from __show_regs: x86 5.x+, 3.x, arm64, and built-in code
    ("general protection fault: 0000 [#1] SMP PTI\nCPU: 3 PID: 12 Comm: python3 Tainted: P           OE     5.15.0 #1\n"
     "RIP: 0010:nv_dma_map_pages+0x64/0x1b0 [nvidia]\n", "nvidia", True),
    ("BUG: unable to handle kernel NULL pointer dereference at 0000000000000010\n"
     "RIP: 0010:[<ffffffffa0123456>]  [<ffffffffa0123456>] nvkms_close_common+0x2c/0x70 [nvidia_modeset]\n", "nvidia_modeset", True),
    ("Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010\npc : mlx5_ib_post_send+0x88/0x1c0 [mlx5_ib]\n", "mlx5_ib", False),
    ("BUG: kernel NULL pointer dereference, address: 0000000000000008\nOops: 0000 [#1] SMP PTI\nRIP: 0010:kmem_cache_alloc+0x8a/0x2a0\n", None, False),
]


@pytest.mark.parametrize("text,module,gpu", OOPSES)
def test_the_module_an_oops_faulted_in(text, module, gpu):
    (h,) = _facts(text, "host_kernel_fault")
    assert (h.event, h.in_module, h.in_gpu_driver) == ("oops", module, gpu)


def test_a_warns_rip_line_gives_no_oops_its_module():
    # a WARN's register line is the WARN's: the oops printed after its end marker faulted in built-in code
    text = ("WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]\n"
            "RIP: 0010:nvidia_dev_put+0xb1/0xc0 [nvidia]\n---[ end trace 0000000000000000 ]---\n"
            "BUG: kernel NULL pointer dereference, address: 0000000000000008\nRIP: 0010:__fput+0x3c/0x2d0\n")
    (h,) = _facts(text, "host_kernel_fault")
    assert (h.in_module, h.in_gpu_driver) == (None, False)


def test_the_gpu_driver_modules_are_knowledge(monkeypatch):
    # knowledge/gpu_driver_modules.yaml says which modules are the GPU driver's: a module an expert adds there is read
    # so, with no code change (here, as if mlx5_core were listed; the WARN and RIP lines CONSTRUCTED from the formats)
    from stethoscope.facts.parsers import kernel_log_splat
    assert {"nvidia", "nvidia_uvm", "gdrdrv"} <= kernel_log_splat.gpu_driver_modules()
    text = ("WARNING: CPU: 3 PID: 812 at drivers/net/ethernet/mellanox/mlx5/core/eq.c:734 mlx5_eq_cleanup+0x1c/0x40 [mlx5_core]\n"
            "BUG: kernel NULL pointer dereference, address: 0000000000000010\n"
            "RIP: 0010:esw_port_metadata_get+0x19/0x30 [mlx5_core]\n")
    before = [getattr(f, "in_gpu_driver") for f in kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts]
    monkeypatch.setattr(kernel_log_splat.knowledge, "load", lambda name: type("T", (), {"names": frozenset({"mlx5_core"})})())
    kernel_log_splat.gpu_driver_modules.cache_clear()
    try:
        after = [getattr(f, "in_gpu_driver") for f in kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts]
    finally:
        monkeypatch.undo()
        kernel_log_splat.gpu_driver_modules.cache_clear()
    assert (before, after) == ([False, False], [True, True])
