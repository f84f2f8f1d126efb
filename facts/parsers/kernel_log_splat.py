"""The kernel's WARN report, for :mod:`stethoscope.facts.parsers.kernel_log`: a ``kernel_warning`` fact (where the
WARN_ON fired: module, function, source file and line, the taint). Which modules are the GPU driver's is knowledge
(knowledge/gpu_driver_modules.yaml, read by :func:`gpu_driver_modules`; kernel_log_host_os uses it for an oops's
``in_module``): a WARN or an oops in ext4 or a NIC's driver is not the GPU's; the rules read ``in_gpu_driver``.

The kernel's format strings (kernel/panic.c ``__warn``, lib/bug.c; %pS prints ``<function>+0x<off>/0x<size>``
and, for code in a module, `` [<module>]``, or `` [<module> <build id>]`` with CONFIG_STACKTRACE_BUILD_ID)::

    include/asm-generic/bug.h CUT_HERE: "------------[ cut here ]------------"
    __warn (3.x .. 6.18): "WARNING: CPU: %d PID: %d at %s:%d %pS"; without a file: "WARNING: CPU: %d PID: %d at %pS"
    __warn (6.19+, commit 28ea295f941e): "WARNING: %s:%d at %pS, CPU#%d: %s/%d" (file, line, caller, cpu, comm, pid);
      without a file: "WARNING: at %pS, CPU#%d: %s/%d"
    then print_modules() "Modules linked in: ...", the registers (x86 __show_regs "RIP: %04x:%pS"; arm64 "pc : %pS"),
      dump_stack_print_info "CPU: %d PID: %d Comm: %.20s %s ..." (6.x "CPU: %d UID: %u PID: %d Comm: ...", the taint as
      print_tainted(): "Not tainted" or "Tainted: " and one letter a flag, a blank where unset), and
      print_oops_end_marker "---[ end trace %016llx ]---"

Real sample lines (public threads, even-numbered)::

    WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]      (NVIDIA/open-gpu-kernel-modules#916)
    [  455.826722] WARNING: CPU: 7 PID: 49 at drivers/gpu/drm/drm_atomic_helper.c:1612 drm_atomic_helper_commit_hw_done+0x89/0x90
    [  455.826735] CPU: 7 PID: 49 Comm: kworker/u16:1 Tainted: P        W  O    4.12.14-ck-w530-ck #1       (NVIDIA/egl-wayland#6)
    [   12.043224] WARNING: arch/x86/kernel/cpu/bugs.c:3736 at __warn_thunk+0x10/0x20, CPU#1: (udev-worker)/728   (pop-os/pop#4036)
    RIP: uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]     (NVIDIA/open-gpu-kernel-modules#1110, after "BUG: kernel NULL pointer dereference")
    uvm_va_space_destroy+0x5d4/0x6a0 [nvidia_uvm 5f0c6a1e3b9d4c2a]   (CONSTRUCTED: %pS with the module's build id)

A WARN's caller in the DRM core or arch code while the NVIDIA modules are loaded (egl-wayland#6, pop-os/pop#4036)
is not the driver's WARN: the modules listed in "Modules linked in:" are every module loaded, so only the caller's
own module is read.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.kernel import KernelWarning
from stethoscope.facts.parsers.base import FactBuilder

@lru_cache(maxsize=1)
def gpu_driver_modules() -> frozenset[str]:
    """The kernel modules of the NVIDIA GPU driver stack (knowledge/gpu_driver_modules.yaml: nvidia, nvidia_uvm,
    nvidia_drm, nvidia_modeset, nvidia_peermem, nvidia_vgpu_vfio, nvidia_fs, gdrdrv, nv_peer_mem), as the kernel
    prints module names (underscores); read when a WARN or a crash site is first found, not at import."""
    return knowledge.load("gpu_driver_modules.yaml").names


#: the literal part of the WARN line: kernel_log's keyword scan and detect() look for these
KEYWORDS = r"WARNING: CPU: \d+ PID: \d+ at |WARNING: (?:[^\s:]+:\d+ )?at [\w.$]+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\w+[^\]\n]*\])?, CPU#\d"

# %pS: "nvidia_dev_put+0xb1/0xc0 [nvidia]", "follow_pte+0x1de/0x200", "uvm_va_space_destroy+0x5d4/0x6a0 [nvidia_uvm 5f0c6a1e...]"
_SYM = r"(?P<func>[\w.$]+)\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[(?P<mod>\w+)(?: [0-9a-f]{8,64})?\])?"
# WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]
_WARN = re.compile(r"WARNING: CPU: (?P<cpu>\d+) PID: (?P<pid>\d+) at (?:(?P<file>[^\s:]+):(?P<line>\d+) )?" + _SYM)
# WARNING: arch/x86/kernel/cpu/bugs.c:3736 at __warn_thunk+0x10/0x20, CPU#1: (udev-worker)/728     (6.19+)
_WARN_619 = re.compile(r"WARNING: (?:(?P<file>[^\s:]+):(?P<line>\d+) )?at " + _SYM
                       + r", CPU#(?P<cpu>\d+): (?P<comm>[^\n]{1,64}?)/(?P<pid>\d+)")
# CPU: 7 PID: 49 Comm: kworker/u16:1 Tainted: P        W  O    4.12.14-ck-w530-ck #1
# CPU: 12 UID: 0 PID: 48211 Comm: python3 Tainted: P           OE      6.12.0 #1      (CONSTRUCTED: 6.x's UID field)
# CPU: 3 PID: 812 Comm: python3 Kdump: loaded Tainted: P           OE     5.15.0 #1    (CONSTRUCTED: with kdump loaded)
_CPU_INFO = re.compile(r"CPU: \d+ (?:UID: \d+ )?PID: \d+ Comm: (?P<comm>[^\n]{1,20}?) (?:Kdump: loaded )?"
                       r"(?:Not tainted|Tainted: (?P<taint>[A-Z ]{1,40}?)) +\d")
#: how far the lines of one report run: its "Comm:" line and "cut here" near the WARN line, its end marker after the trace
_REPORT_LINES = 40
_END_LINES = 200


def is_warn_line(line: str) -> bool:
    """Whether ``line`` is a WARN report's opening line (either form): the report a panic that ends an oops is not."""
    return "WARNING: " in line and (_WARN.search(line) is not None or _WARN_619.search(line) is not None)


def _report_ends(line: str) -> bool:
    return "---[ end trace" in line or "[ cut here ]" in line or "WARNING: " in line


def parse_warn_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], lines: list[str]) -> bool:
    """Add the ``kernel_warning`` fact of a WARN line; False when the message is not one. The report's
    "cut here", "Modules linked in:" and end-marker lines are read with it."""
    if "WARNING: " not in msg:
        return False
    m = _WARN.search(msg) or _WARN_619.search(msg)
    if m is None:
        return False
    comm, taint = m.groupdict().get("comm"), None
    for i, line in enumerate(lines[ln:ln + _REPORT_LINES], start=ln + 1):
        if _report_ends(line):
            break
        if "Modules linked in:" in line:
            used.add(i)
        elif "Comm: " in line and (c := _CPU_INFO.search(line)) is not None:
            comm = comm or c["comm"]
            taint = (c["taint"] or "").replace(" ", "")
            break
    for i in range(ln - 1, max(0, ln - 1 - _REPORT_LINES), -1):  # its "cut here" (the driver's own lines may come between)
        if "[ cut here ]" in lines[i - 1]:
            used.add(i)
            break
        if "WARNING: " in lines[i - 1] or "---[ end trace" in lines[i - 1]:
            break
    for i, line in enumerate(lines[ln:ln + _END_LINES], start=ln + 1):
        if "---[ end trace" in line:
            used.add(i)
            break
        if "[ cut here ]" in line or "WARNING: " in line:
            break
    module = m["mod"]
    b.add(KernelWarning, ln, module=module, function=m["func"], source_file=m["file"],
          source_line=int(m["line"]) if m["line"] else None, cpu=int(m["cpu"]), pid=int(m["pid"]), process=comm,
          taint=taint, in_gpu_driver=module in gpu_driver_modules(), message=msg.strip(), **common)
    used.add(ln)
    return True
