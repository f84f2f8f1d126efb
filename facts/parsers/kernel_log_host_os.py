"""The host kernel's own fault lines on a GPU node, for :mod:`stethoscope.facts.parsers.kernel_log`:
a hung task, a soft or hard lockup, an RCU stall, a panic, an oops or ``kernel BUG``, a process
killed by a fault, the OOM killer invoked, block-layer and buffer I/O errors, an NFS server
not responding, Lustre errors, CPU thermal throttling, a ConnectX port's link or module
going down, a pids cgroup refusing a fork, an interrupt disabled for want of a handler, a PCIe
port's downstream containment (DPC). Facts: ``host_kernel_fault``, ``process_crash``,
``host_oom_invoked``, ``storage_io_error`` (layer ``block``), ``shared_fs_error``,
``host_cpu_throttle``, ``nic_link_event``, ``cgroup_pids_limit``, ``host_hardware_error``
(source ``irq``), ``pcie_dpc_event``.

The kernel's format strings (Linux 3.10 ... 6.12; the pr_fmt prefix in brackets) each regex
below is written from, with a line filled from it beside the regex::

    kernel/hung_task.c check_hung_task: "INFO: task %s:%d blocked for more than %ld seconds."
    kernel/watchdog.c ("watchdog: ", 4.15+): "BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]"
    kernel/watchdog_hld.c ("NMI watchdog: ") / 6.x kernel/watchdog.c: "Watchdog detected hard LOCKUP on cpu %d"
      (6.6+ "CPU%u: Watchdog detected hard LOCKUP on cpu %u")
    kernel/rcu/tree_stall.h ("rcu: ", 4.20+): "INFO: %s self-detected stall on CPU", "INFO: %s detected stalls on CPUs/tasks:",
      "INFO: %s detected expedited stalls on CPUs/tasks: {", 6.12+ "INFO: %s detected stall, but suppressed full report due
      to a stuck CSD-lock."; kernel/rcu/tasks.h "INFO: rcu_tasks detected stalls on tasks:"; < 3.7 "INFO: %s detected stall
      on CPU %d (t=%lu jiffies)"
    kernel/panic.c: "Kernel panic - not syncing: %s" (and its closing "---[ end Kernel panic - not syncing: %s ]---")
    lib/bug.c / arch/x86/kernel/dumpstack.c: "kernel BUG at %s:%u!" ("Kernel BUG at %pB [verbose debug info unavailable]"
      without CONFIG_DEBUG_BUGVERBOSE)
    arch/x86/mm/fault.c: "BUG: unable to handle page fault for address: %px" (5.x+), "BUG: kernel NULL pointer
      dereference, address: %px" (5.x+), "BUG: unable to handle kernel paging request at %p" / "... kernel NULL pointer
      dereference at %p" (< 5.0); show_signal_msg: "%s%s[%d]: segfault at %lx ip %px sp %px error %lx" + " in %s[%lx+%lx]"
    arch/x86/kernel/traps.c ("traps: "): "%s[%d] general protection fault ip:%lx sp:%lx error:%lx", "%s[%d] trap %s ip:%lx sp:%lx
      error:%lx"; die(): "general protection fault: %04lx [#%d]" / 5.x "general protection fault, probably for non-canonical
      address 0x%lx: 0000 [#1] SMP" (6.10+ "Oops: " before it); the die() header "%s: %04lx [#%d]" of every oops (6.10+
      "Oops: %s: ..."; arm64 "Internal error: %s: %016lx [#%d]"), read alone for a kernel-mode trap, else a detail
    arch/arm64/mm/fault.c die_kernel_fault: "Unable to handle kernel %s at virtual address %016lx"; arch/arm64/kernel/traps.c
      arm64_show_signal: "%s[%d]: unhandled exception: " "%s, ESR 0x%016lx, " "%s" " in %s[%lx+%lx]" (a process's crash)
    mm/oom_kill.c dump_header: "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d, oom_score_adj=%hd" (4.9-4.19
      ", nodemask=%*pbl," before order; 2.6.x "oom_adj=%d")
    block/blk-core.c blk_print_req_error (5.3+; "blk_update_request: " before 5.16): "%s error, dev %s, sector %llu op 0x%x:(%s)
      flags 0x%x phys_seg %u prio class %u" (%s: "I/O", "critical medium", "timeout", ...); < 5.3 "blk_update_request: I/O error,
      dev %s, sector %llu" (4.18-5.2 "print_req_error: ... sector %llu flags %x", < 4.0 "end_request: ")
    fs/buffer.c: "Buffer I/O error on dev %pg, logical block %llu, async page read" / "lost async page write"
      (< 3.19, and fs/ext4/page-io.c's own: "Buffer I/O error on device %s, logical block %llu")
    net/sunrpc/clnt.c call_timeout / rpc_check_timeout: "%s: server %s not responding, still trying", "... timed out"
      (%s the RPC program: nfs, lockd, rpcbind, nfsacl, mount, statd)
    lustre (libcfs CERROR): "LustreError: %d:%d:(%s:%d:%s()) ..." and "LustreError: 11-0: %s: operation %s to node %s failed: rc = %d";
      ptlrpc import.c: "Lustre: %s: Connection to %s (at %s) was lost; in progress operations using this service will wait for
      recovery to complete"
    arch/x86/kernel/cpu/mce/therm_throt.c: "CPU%d: %s temperature above threshold, cpu clock throttled (total events = %lu)"
      (< 5.5), "CPU%d: %s temperature is above threshold, cpu clock is throttled (total events = %lu)" (5.5+),
      "CPU%d: Temperature above threshold, cpu clock throttled (total events = %lu)" (2.6.2x-2.6.3x)
    drivers/net/ethernet/mellanox/mlx5/core: en_main.c mlx5e_update_carrier netdev_info "Link down";
      events.c port_module_event "Port module event: module %u, %s" / "Port module event[error]: module %u, %s, %s"
      (mlx5_core_err: "%s:%d:(pid %d): " before it)
    kernel/cgroup/pids.c pids_event: "cgroup: fork rejected by pids controller in " + the cgroup's path
    kernel/irq/spurious.c __report_bad_irq: "irq %d: nobody cared (try booting with the \\"irqpoll\\" option)"
    drivers/pci/pcie/dpc.c ("DPC: "): "containment event, status:%#06x source:%#06x" (4.x "DPC containment event, status:%#06x
      source:%#06x"), then "%s detected" (the reason); the 2025 rework prints one line: "containment event, status:%#06x:
      %s detected" / "containment event, status:%#06x, %s received from %04x:%02x:%02x.%d"
    mm/oom_kill.c oom_kill_process (read by kernel_log): "%s: Killed process %d (%s) total-vm:..." with %s "Out of memory",
      "Memory cgroup out of memory" or "Out of memory (oom_kill_allocating_task)"; < 4.19 "... Kill process %d (%s) score %u
      or sacrifice child"

Real sample lines (public threads, even-numbered) of these forms::

    May  3 06:24:16 wendy kernel: [1588862.292994] watchdog: BUG: soft lockup - CPU#0 stuck for 23s! [frigate.output:1243199]   (blakeblackshear/frigate#6360)
    [   32.107804] NMI watchdog: BUG: soft lockup - CPU#113 stuck for 22s! [kopald:854]          (open-power/skiboot#136, 4.4)
    [70081.927348] INFO: task conda:11003 blocked for more than 120 seconds.                    (conda/conda#9306)
    [Wed Sep 26 00:30:18 2018] INFO: task python:19772 blocked for more than 120 seconds.  (ROCm/tensorflow-upstream#180)
    [ 8275.824319] zed-editor[11804]: segfault at 25c ip 000075b6d26f2e1a sp 00007ffc262183a0 error 4 in libnvidia-glcore.so.575.64.03[af2e1a,75b6d2000000+c00000] likely on CPU 10 (core 20, socket 0)   (zed-industries/zed#35758)
    [32495.562824] nfs: server thinkcentre not responding, timed out                          (linux-surface/linux-surface#1494)
    [Wed Apr 10 17:58:24 2024] nfs: server 192.168.0.1 not responding, still trying    (openzfs/zfs#15734)
    [76747.169397] mce: CPU2: Core temperature above threshold, cpu clock throttled (total events = 2675)   (erpalma/throttled#186)
    [14334.860099] CPU3: Core temperature above threshold, cpu clock throttled (total events = 57536)        (mbusb/multibootusb#164)
    cgroup: fork rejected by pids controller in /system.slice/nsncd.service              (twosigma/nsncd#24)
    May 14 09:28:44 10 kernel: [  582.073994] cgroup: fork rejected by pids controller in /user.slice/user-1000.slice/session-1.scope   (ColinIanKing/stress-ng#384)
    Oct 11 05:39:13 chi412 kernel: NMI watchdog: Watchdog detected hard LOCKUP on cpu 79   (Open-CAS/ocf#408)
    2026-01-15T09:47:08.194534+09:00 uranus kernel: Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010   (NVIDIA/aerial-cuda-accelerated-ran#18)
    [    1.076797] Internal error: Oops: 96000004 [#1] PREEMPT SMP                                (libre-computer-project/libretech-linux#8)
    [    2.618999] Oops: 0002 [#1] PREEMPT SMP NOPTI     (after its "BUG: kernel NULL pointer dereference" line: NVIDIA/open-gpu-kernel-modules#276)
    [  415.118808] blk_update_request: I/O error, dev nvme1n1, sector 823872 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0   (oxidecomputer/crucible#408)
    [ 4700.639133] I/O error, dev nvme0n1, sector 131209936 op 0x0:(READ) flags 0x80700 phys_seg 25 prio class 0   (oxidecomputer/crucible#1844)
    [ 4730.850402] Buffer I/O error on device nvme0n1p1, logical block 1066386                    (oxidecomputer/crucible#1844)
    [ 1993.291923] print_req_error: I/O error, dev nvme0n1, sector 12534528 flags 104001          (axboe/fio#862)
    [ 1993.293424] Buffer I/O error on dev nvme0n1, logical block 1566816, lost async page write   (axboe/fio#862)
    [275808.417983] blk_update_request: operation not supported error, dev nvme0n1, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0   (spdk/spdk#1502)
    [    0.339726] irq 32: nobody cared (try booting with the "irqpoll" option)                  (openbmc/linux#210)
    [Wed Sep 29 07:12:20 2021] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0   (RTXteam/RTX#1680)

A DPC containment line followed by the AER error it contained ("PCIe Bus Error: severity=
Uncorrected (Fatal) ...", read by kernel_log_pcie) only details that error: it is used, with no
fact of its own; alone (the AER lines not pasted, or not printed) it is the ``pcie_dpc_event``.
Likewise an "invoked oom-killer" line followed by its kill line is read with that kill.

A process's own crash (``segfault at``, a user-mode general protection fault or trap) is
``process_crash``: the kernel names the process that died of the signal; the kernel's own
oops in kernel mode is ``host_kernel_fault``. The lines that only detail an event (the call
trace, the registers, ``Disabling IRQ #N``, ``Code:`` bytes) are left unread.
"""
from __future__ import annotations

import bisect
import re

import re2

from stethoscope.facts.kinds.kernel import (  # noqa: F401 - the fact classes live in facts/kinds
    CgroupPidsLimit, HostCpuThrottle, HostKernelFault, HostOomInvoked, KernelCpuBacktrace, NicLinkEvent, PcieDpcEvent,
    ProcessCrash, SharedFsError,
)
from stethoscope.facts import classify
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.parsers.kernel_log_host import StorageIoError, HostHardwareError
from stethoscope.facts.parsers.kernel_log_splat import gpu_driver_modules, is_warn_line

#: the literal part of each line: kernel_log's keyword scan and detect() look for these
KEYWORDS = (r"INFO: task [^\n]{1,80}? blocked for more than |BUG: soft lockup - CPU#|Watchdog detected hard LOCKUP"
            r"|INFO: [\w.-]+ (?:self-detected stall|detected (?:expedited )?stalls on|detected stall on CPU"
            r"|detected stall, but suppressed)|Kernel panic - not syncing: "
            r"|[Kk]ernel BUG at |BUG: unable to handle |BUG: kernel NULL pointer dereference|general protection fault"
            r"|Unable to handle kernel [^\n]{1,60}? at virtual address |: [0-9a-f]{4,16} \[#\d+\]"
            r"|segfault at [0-9a-f]+ ip |\] trap [\w ]+ ip:|\]: unhandled exception: |invoked oom-killer: "
            r"|error, dev [^\s,]+, sector \d|Buffer I/O error on dev|: server [^\n]{1,80}? not responding, "
            r"|LustreError: |Lustre: [^\n]{1,120}?: Connection to [^\n]{1,200}? was lost"
            r"|ptlrpc_expire_one_request\(\)\) @@@ Request sent has |LNet(?:Error)?: [^\n]{1,120}?Timed out (?:tx for|RDMA with) "
            r"|libceph: mon\d+[^\n]{1,80}? session lost, hunting for new mon"
            r"|[Tt]emperature (?:is )?above threshold, cpu clock |Port module event|mlx5_core [0-9a-fA-F:.]+ \S+: Link down"
            r"|fork rejected by pids controller|: nobody cared \(|DPC:? containment event"
            r"|DPC:? (?:unmasked uncorrectable error|ERR_NONFATAL|ERR_FATAL|RP PIO error|software trigger|reserved error) detected"
            r"|NMI backtrace for cpu \d")


_BDF = r"(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"

# INFO: task python:12345 blocked for more than 120 seconds.
# INFO: task kworker/u256:2:1234 blocked for more than 122 seconds.
_HUNG = re.compile(r"INFO: task (?P<comm>.{1,64}?):(?P<pid>\d+) blocked for more than (?P<s>\d+) seconds")
# the frames of a hung task's call trace (kernel/hung_task.c: sched_show_task() after the line) that name a
# network file system: a module tag, or a symbol of its client where it is built in
#  [<ffffffffc08f1b66>] nfs_file_flush+0x46/0x60 [nfs]                           (aws/aws-parallelcluster#1150)
#  [ 3438.637259] [<803db1c4>] (nfs_file_fsync) from [<802d5dcc>] (vfs_fsync+0x...)   (raspberrypi/linux#2482, ARM, NFS built in)
#  rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]      ll_file_io_generic+0x.. [lustre]      ... [mmfs26]   (GPFS)
#  (module tags for Lustre and GPFS: their symbols' prefixes are not their own alone, ll_rw_block is the block layer's)
_FS_FRAME = re.compile(r"\[(?P<mod>nfsv?[234]?|sunrpc|lustre|ptlrpc|osc|mdc|lov|lmv|llite|obdclass|mmfs26|mmfslinux|ceph|cifs|fuse"
                       r"|beegfs)\]|[\s(](?P<sym>nfs[34]?|rpc|ceph|cifs|fuse)_\w+(?:\+0x|\))")
_FS_OF = {"nfs": "nfs", "nfsv2": "nfs", "nfsv3": "nfs", "nfsv4": "nfs", "nfs3": "nfs", "nfs4": "nfs", "sunrpc": "nfs",
          "rpc": "nfs", "lustre": "lustre", "ptlrpc": "lustre", "osc": "lustre", "mdc": "lustre", "lov": "lustre",
          "lmv": "lustre", "llite": "lustre", "obdclass": "lustre", "mmfs26": "gpfs", "mmfslinux": "gpfs", "ceph": "ceph", "cifs": "cifs", "fuse": "fuse", "beegfs": "beegfs"}
#: how far a hung task's call trace runs (its frames, the task's state and registers): up to the next report
_TRACE_LINES = 60


def shared_fs_of(frame: str) -> str | None:
    """The network file system a call-trace frame sits in (``nfs``, ``lustre``, ``gpfs``, ...), or None."""
    m = _FS_FRAME.search(frame)
    return _FS_OF[m["mod"] or m["sym"]] if m is not None else None


def _waits_on(lines: list[str], ln: int) -> str | None:
    """The network file system the call trace under the hung-task line ``ln`` (1-based) sits in."""
    for line in lines[ln:ln + _TRACE_LINES]:
        if "blocked for more than" in line or "INFO: task " in line:
            break  # the next task's report
        if (m := _FS_FRAME.search(line)) is not None:
            return _FS_OF[m["mod"] or m["sym"]]
    return None
# watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python:12345]
# BUG: soft lockup - CPU#12 stuck for 23s! [nvidia-smi:4321]          (< 4.15: no "watchdog: ")
_SOFT = re.compile(r"BUG: soft lockup - CPU#(?P<cpu>\d+) stuck for (?P<s>\d+)s! \[(?P<comm>.{1,64}?):(?P<pid>\d+)\]")
# NMI watchdog: Watchdog detected hard LOCKUP on cpu 3                   (watchdog_hld.c, 4.13-6.5; kernel/watchdog.c WARN before)
# watchdog: CPU3: Watchdog detected hard LOCKUP on cpu 3                  (6.6+ kernel/watchdog.c: "CPU%u: Watchdog detected hard LOCKUP on cpu %u")
# Oct 11 05:39:13 chi412 kernel: NMI watchdog: Watchdog detected hard LOCKUP on cpu 79       (real: Open-CAS/ocf#408)
_HARD = re.compile(r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)")
# rcu: INFO: rcu_sched self-detected stall on CPU
# INFO: rcu_sched detected stalls on CPUs/tasks: { 3} (detected by 5, t=60002 jiffies, g=123, c=122, q=456)
# rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 12-... } 21002 jiffies s: 1234 root: 0x1/.
# INFO: rcu_tasks detected stalls on tasks:                   (kernel/rcu/tasks.h, update.c: "INFO: %s detected stalls on tasks:")
# INFO: rcu_sched detected stall on CPU 3 (t=15000 jiffies)   (< 3.7 print_cpu_stall: "INFO: %s detected stall on CPU %d (t=%lu jiffies)")
# rcu: INFO: rcu_preempt detected stall, but suppressed full report due to a stuck CSD-lock.   (6.12+ check_cpu_stall)
_RCU = re.compile(r"INFO: (?P<flavour>[\w.-]+) (?:self-detected stall on CPU|detected (?:expedited )?stalls on (?:CPUs|tasks)"
                  r"|detected stall on CPU \d|detected stall, but suppressed full report)")
# Kernel panic - not syncing: Fatal exception
# Kernel panic - not syncing: softlockup: hung tasks
# ---[ end Kernel panic - not syncing: Fatal exception ]---    (panic.c's closing line: the same panic when its opening line is there)
_PANIC = re.compile(r"Kernel panic - not syncing: ?(?P<why>.*)")
_PANIC_LOOKBACK = 400  # lines between a panic's opening line and its "---[ end" line (the dump between them)
# kernel BUG at mm/slub.c:4153!
# Kernel BUG at skb_pull+0x25/0x30 [verbose debug info unavailable]   (lib/bug.c without CONFIG_DEBUG_BUGVERBOSE: "Kernel BUG at %pB [verbose debug info unavailable]")
_KBUG = re.compile(r"[Kk]ernel BUG at (?P<where>[^\s!]+?)(?:!| \[verbose debug info unavailable\])")
# BUG: unable to handle page fault for address: ffffb8c5c0a1b000
# BUG: kernel NULL pointer dereference, address: 0000000000000008
# BUG: unable to handle kernel NULL pointer dereference at 0000000000000010        (< 5.0)
# BUG: unable to handle kernel paging request at ffffc90001234000                   (< 5.0)
# general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP NOPTI
# Oops: general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: 0000 [#1] PREEMPT SMP  (6.x)
# general protection fault: 0000 [#1] SMP PTI                                      (< 5.5)
# Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010   (arm64/arm/riscv mm/fault.c
#   die_kernel_fault: "Unable to handle kernel %s at virtual address %016lx": NULL pointer dereference, paging request,
#   execute from non-executable memory, write to read-only memory, ...; a Grace (GH200/GB200) node's oops)
# 2026-01-15T09:47:08.194534+09:00 uranus kernel: Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010
#                                                  (real: NVIDIA/aerial-cuda-accelerated-ran#18, arm64, in mlx5_ib)
_OOPS = re.compile(
    r"BUG: (?:unable to handle (?:page fault for address|kernel (?:NULL pointer dereference|paging request) at)"
    r"|kernel NULL pointer dereference, address)"
    r"|Unable to handle kernel [a-zA-Z][\w -]{2,60}? at virtual address [0-9a-f]"
)
# The die() header of every oops (x86 __die_header "%s: %04lx [#%d]%s%s%s%s%s", 6.10+ "Oops: %s: %04lx [#%d]...";
# arm64 die() "Internal error: %s: %016lx [#%d]"), %s the trap: "Oops" (a page fault), "general protection fault[, probably
# for non-canonical address 0x...]", "invalid opcode", "divide error", "stack segment", "double fault", "Oops - BUG", ...:
# general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP NOPTI
# Oops: general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: 0000 [#1] PREEMPT SMP  (6.10+)
# divide error: 0000 [#1] SMP PTI                         Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI (6.10+)
# Oops: 0002 [#1] PREEMPT SMP NOPTI                       Oops: Oops: 0000 [#1] PREEMPT SMP (6.10+; after a "BUG: ..." line)
# Internal error: Oops: 0000000096000005 [#2] PREEMPT SMP (arm64; real: raspberrypi/linux#6792, after "Unable to handle kernel ...")
# It opens the report alone for a kernel-mode trap; after a "BUG: ..." / "kernel BUG at" / "Unable to handle kernel" line
# (within _DIE_AFTER lines: #PF, PGD, arm64's abort decode) it only details that line's oops.
_DIE = re.compile(r"(?:Oops: |Internal error: )?(?P<what>[A-Za-z][^:\[\]\n]{0,120}?): [0-9a-f]{4,16} \[#\d+\]")
_DIE_AFTER = 20
# Where a crash happened: the report's instruction pointer, printed with %pS ("<function>+0x<off>/0x<size>[ [<module>]]"):
#   x86 show_ip(): "%sRIP: %04x:%pS\n"; before 4.x "RIP: %04x:[<%016lx>] " then printk_address's "[<%p>] %pS", the
#   closing " RIP  [<%016lx>] %pS", and show_fault_oops()'s "IP:" + printk_address right after the "BUG: unable to
#   handle ..." line; arm64 __show_regs(): "pc : %pS\n"; powerpc show_regs(): "NIP [%lx] %pS\n"
# RIP: 0010:esw_port_metadata_get+0x19/0x30 [mlx5_core]                          (siderolabs/talos#8624, a Talos console)
# [Fri Feb  3 15:17:22 2023] RIP: 0010:i40e_setup_tx_descriptors+0x7/0xb0 [i40e]  (ntop/PF_RING#856)
# [73727.941157] IP: [<ffffffff813a9e68>] mptcp_reqsk_find_tk+0x1c/0x27           (multipath-tcp/mptcp#30, 3.11)
# pc : mlx5_ib_create_qp+0x1c/0x1a0 [mlx5_ib]
# RIP: uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]        (NVIDIA/open-gpu-kernel-modules#1110: a quote without the segment)
# RIP: 0010:uvm_va_space_destroy+0x5d4/0x6a0 [nvidia_uvm 5f0c6a1e3b9d4c2a]   (CONSTRUCTED: %pS with the module's build id)
# A user-mode RIP ("RIP: 0033:0x7f54981d03fd", Aquantia/AQtion#32) has no symbol and is not read.
#: whether a crash site's literal occurs in the text (RIP / pc : / IP: / NIP, as above), answered by the classifier's
#: pass over the text (kernel_log's TEXT_GATES, facts/classify.py gate()): the four str searches of a bench node's
#: 206 kB dmesg, holding none, cost 0.64 ms a pass (~0.75 ns a character each; RE2's search for the four 0.30)
CRASH_SITE_GATE = re2.compile("RIP|pc : |IP: |NIP ")
_CRASH_IP = re.compile(
    r"(?:\bRIP: (?:[0-9a-f]{4}:)?(?:\[<[0-9a-f]+>\] +\[<[0-9a-f]+>\] )?|\b(?:RIP +|IP: )\[<[0-9a-f]+>\] |(?<![\w-])pc : "
    r"|\bNIP +\[[0-9a-f]+\] )"
    r"(?P<fn>[A-Za-z_][\w.]{0,120})\+0x[0-9a-f]{1,16}/0x[0-9a-f]{1,16}(?: \[(?P<mod>[\w-]{1,60})(?: [0-9a-f]{8,64})?\])?")
_CRASH_IP_SPAN = 80  # lines between an oops' opening line and its RIP (the trap decode, registers) or a panic's RIP and it
_REPORT_END = "---[ end trace"


def _crash_ip(lines: list[str], ln: int, event: str) -> dict:
    """The function (and module) the crash opened or closed at line ``ln`` (1-based) happened in: an oops' or
    kernel BUG's RIP follows its opening line, before the report's end; a panic's is that of the report it ends."""
    if event == "panic":
        return _panic_ip(lines, ln)
    for line in lines[ln:ln + _CRASH_IP_SPAN]:
        if (m := _CRASH_IP.search(line)) is not None:
            return {"in_function": m["fn"], "in_module": m["mod"]}
        if _REPORT_END in line:
            break
    return {}


def cut_gpu_driver_crash_site(b: FactBuilder, text: str, lines: list[str]) -> None:
    """A report's crash site (the x86 ``RIP:`` / arm64 ``pc :`` line, :data:`_CRASH_IP`) in a GPU driver module with no
    report line it belongs to in reach above it (an oops, WARN, hang, panic or NMI backtrace opening line within
    :data:`_CRASH_IP_SPAN` lines): the paste starts inside the report, its event (oops, WARN or a stuck CPU) cut off.
    Read as the limit ``cut_short`` (never a healthy verdict), the first such line of the log. Real (the stored
    excerpt of NVIDIA/open-gpu-kernel-modules#270, 515.43.04 open modules, after nvidia-drm's load errors)::

        [  136.672490] RIP: 0010:GrabOwnership+0x4/0x40 [nvidia_modeset]
    """
    site = classify.gate(text, CRASH_SITE_GATE)  # (None: not the text the classifier scanned last)
    if site is False or site is None and "RIP" not in text and "pc : " not in text and "IP: " not in text \
            and "NIP " not in text:
        return
    mods = gpu_driver_modules()
    for ln, line in enumerate(lines, 1):
        if ("RIP" not in line and "pc : " not in line and "IP: " not in line and "NIP " not in line) \
                or (m := _CRASH_IP.search(line)) is None or m["mod"] not in mods:
            continue
        if any(_opens(up) is not None or "NMI backtrace for cpu" in up or "Kernel panic" in up
               for up in _before(lines, ln, _CRASH_IP_SPAN)):
            continue
        b.limit(ln, "cut_short", f"kernel log: a kernel report's crash site in the GPU driver ({m['fn']} in {m['mod']}) "
                "without the report's opening line (an oops, a WARN or a stuck CPU): the report is cut, its event not shown")
        return


def _opens(line: str) -> str | None:
    """The report ``line`` opens: "oops" (a BUG / page fault / kernel BUG / die() header), "warn" (a WARN), "hang"
    (a soft or hard lockup, a hung task, an RCU stall: their registers are a stuck CPU's, not a crash site), or None."""
    if "WARNING: " in line and is_warn_line(line):
        return "warn"
    if any(h in line for h in ("soft lockup", "hard LOCKUP", "INFO: ")) and (
            _SOFT.search(line) or _HARD.search(line) or _HUNG.search(line) or _RCU.search(line)):
        return "hang"
    if _OOPS.search(line) or _KBUG.search(line) or (" [#" in line and _DIE.search(line)):
        return "oops"
    return None


def _panic_ip(lines: list[str], ln: int) -> dict:
    """A panic's crash site: the RIP of the report it ends. die() panics ("Fatal exception") after the oops' end
    marker; a WARN printed between them (the dying task's exit path) or before the oops is not the panic's, unless
    the panic is panic_on_warn's. Read back from the panic to the report's opening line, then the first RIP after
    that line (an oops in an interrupt prints the interrupted context's registers after its own); with no opening
    line in reach (a paste that starts inside the trace), the first RIP after the last WARN above the panic."""
    on_warn = "panic_on_warn" in lines[ln - 1]
    site = None  # the earliest RIP read so far that lies after every WARN passed
    for line in reversed(_before(lines, ln, _CRASH_IP_SPAN)):
        if (m := _CRASH_IP.search(line)) is not None:
            site = m
        elif (opens := _opens(line)) == "warn" and not on_warn:
            site = None  # that RIP was the WARN's
        elif opens == "hang":
            return {}  # a panic of a lockup or hung task: no crash site, as the hang has none
        elif opens is not None:
            break
    return {"in_function": site["fn"], "in_module": site["mod"]} if site is not None else {}


_OOPS_OPENERS = ("BUG: ", "kernel BUG at ", "Kernel BUG at ", "Unable to handle kernel ")
# A CPU's stack printed on request through an NMI (lib/nmi_backtrace.c nmi_cpu_backtrace: pr_warn("NMI backtrace for cpu
# %d\n", cpu), then the registers and stack; an idle CPU: pr_warn("NMI backtrace for cpu %d skipped: idling at %pS\n",
# ...), before 5.x "... skipped: idling at pc %#lx"). What asks for it prints first: a hang detector (the hung-task,
# soft- and hard-lockup watchdogs' *_all_cpu_backtrace, an RCU stall's rcu_dump_cpu_stacks), panic's panic_print, or the
# operator's sysrq-l (drivers/tty/sysrq.c "Show backtrace of all active CPUs", pr_fmt "sysrq: "; < 4.x "SysRq : "), then
# nmi_trigger_cpumask_backtrace's "Sending NMI from CPU %d to CPUs %*pbl:" (< 4.x arch/x86/kernel/apic/hw_nmi.c
# "sending NMI to all CPUs:"). Real lines:
# [47056.277731] NMI backtrace for cpu 12                                                    (NVIDIA/open-gpu-kernel-modules#456)
# Nov  9 15:19:50 storage1 kernel: NMI backtrace for cpu 0    (openzfs/zfs#1850, after an RCU stall and "sending NMI to all CPUs:")
_NMI_BT = re.compile(r"NMI backtrace for cpu (?P<cpu>\d{1,5})(?P<idle> skipped: idling at)?")
_SYSRQ_BT = re.compile(r"(?:sysrq|SysRq ?): Show backtrace of all active CPUs")
#: how far back from a CPU's stack its request is looked for (the request, then every CPU's dump: ~30 lines a CPU);
#: an earlier CPU's stack on the way answers for this one (memoised: each dump is read back once)
_NMI_LOOKBACK = 8000
_NMI_DUMP = 60  # lines of one CPU's dump after its line (registers, the stack) read for its task and RIP
_NMI_MEMO: dict = {}


def _asked_by(lines: list[str], ln: int) -> str | None:
    """What asked for the CPU stack at line ``ln`` (1-based): "hang" (a hung task, lockup or RCU stall report above it),
    "panic", "sysrq", or None (nothing in the log above it)."""
    key = (id(lines), len(lines))
    if _NMI_MEMO.get("key") != key:
        _NMI_MEMO.clear()
        _NMI_MEMO["key"] = key
    for i in range(ln - 2, max(-1, ln - 2 - _NMI_LOOKBACK), -1):
        line = lines[i]
        if "NMI backtrace for cpu" in line and i + 1 in _NMI_MEMO:
            answer = _NMI_MEMO[i + 1]  # the dump before this one: the same request
            break
        if "Kernel panic - not syncing" in line:
            answer = "panic"
            break
        if "Show backtrace of all active CPUs" in line and _SYSRQ_BT.search(line):
            answer = "sysrq"
            break
        if _opens(line) == "hang":
            answer = "hang"
            break
    else:
        answer = None
    _NMI_MEMO[ln] = answer
    return answer


def _cpu_dump(lines: list[str], ln: int) -> dict:
    """The task and the RIP of the CPU dump that the NMI backtrace line ``ln`` (1-based) opens."""
    out: dict = {}
    for line in lines[ln:ln + _NMI_DUMP]:
        if "NMI backtrace for cpu" in line or _REPORT_END in line:
            break
        if "process" not in out and (c := _COMM.search(line)) is not None:
            out["process"] = c["comm"]
        if (m := _CRASH_IP.search(line)) is not None:
            out["in_function"], out["in_module"] = m["fn"], m["mod"]
            break
    return out


# CPU: 12 PID: 30404 Comm: python Tainted: P           OE   4.14.252-195.483.amzn2.x86_64 #1   (#456)
# CPU: 10 UID: 0 PID: 0 Comm: swapper/10 Not tainted 6.12.0 #1                                   (6.12+: UID)
_COMM = re.compile(r"\bCPU: \d{1,5} (?:UID: \d{1,10} )?PID: \d{1,10} Comm: (?P<comm>\S{1,64})")


def _nmi_backtrace(b: FactBuilder, ln: int, msg: str, m: re.Match, common: dict, lines: list[str]) -> None:
    """A CPU's NMI stack: the detail of the hang or panic report that asked for it (no fact); else a
    KernelCpuBacktrace (the request not in the log, or the operator's sysrq-l)."""
    asked = _asked_by(lines, ln)
    if asked in ("hang", "panic"):
        return
    b.add(KernelCpuBacktrace, ln, cpu=int(m["cpu"]), idle=m["idle"] is not None, asked_by=asked,
          message=msg, **_cpu_dump(lines, ln), **common)
# python[12345]: segfault at 0 ip 00007f3a2c0a1b2c sp 00007ffd1c2b3a40 error 4 in libc.so.6[7f3a2c000000+195000]
# pt_main_thread[4321]: segfault at 18 ip 00007f0e8c3f2a10 sp 00007ffc2e1d8a80 error 4 in libcuda.so.535.129.03[7f2a10,7f0e8bc00000+1a9d000] likely on CPU 7 (core 3, socket 0)
# traps: python[12345] general protection fault ip:7f3a2c0a1b2c sp:7ffd1c2b3a40 error:0 in libfoo.so[7f3a2c000000+1000]
# traps: python3[2345] trap invalid opcode ip:7f12a4b5c6d7 sp:7ffd3e4f5a60 error:0 in libtorch_cpu.so[7f12a0000000+1e2f000]
_SEGV = re.compile(r"(?P<comm>[^\s\[\]][^\[\]]{0,63})\[(?P<pid>\d+)\]: segfault at [0-9a-f]+ ip ")
_TRAP = re.compile(r"(?P<comm>[^\s\[\]][^\[\]]{0,63})\[(?P<pid>\d+)\] (?P<fault>general protection fault|trap [\w ]+?) ip:")
# arm64 arm64_show_signal (4.19+): "%s[%d]: unhandled exception: " + "%s, ESR 0x%016lx, " (the exception class) + the fault +
# print_vma_addr " in %s[%lx+%lx]": a Grace node's segfault
# python3[2345]: unhandled exception: DABT (lower EL), ESR 0x0000000092000006, level 2 translation fault in libfoo.so[ffff8a000000+1000]
_ARM64_SIGNAL = re.compile(r"(?P<comm>[^\s\[\]][^\[\]]{0,63})\[(?P<pid>\d+)\]: unhandled exception: "
                           r"(?:[^,\n]{1,40}, ESR 0x[0-9a-f]+, )?(?P<fault>[^\n]+?)(?= in \S+\[|$)")
# " in libnvidia-glcore.so.575.64.03[af2e1a,75b6d2000000+c00000]" (6.1+ print_vma_addr: "%s[%lx,%lx+%lx]", the offset first)
_IN_LIB = re.compile(r" in (?P<lib>[^\s\[]+)\[(?:[0-9a-f]+,)?[0-9a-f]+\+[0-9a-f]+\]")
# python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0
# pt_data_worker invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
# kworker/u8:2 invoked oom-killer: gfp_mask=0x15080c0(GFP_KERNEL_ACCOUNT|__GFP_ZERO), nodemask=(null),  order=1, oom_score_adj=0
#                                                  (4.9-4.19 dump_header: "..., nodemask=%*pbl, order=%d, oom_score_adj=%hd")
# apt-check invoked oom-killer: gfp_mask=0x201da, order=0, oom_adj=0                 (2.6.x: oom_adj)
_OOM_INVOKED = re.compile(r"(?P<comm>\S.{0,63}?) invoked oom-killer: gfp_mask=[^,\s]+(?:,[^\n]*?\border=(?P<order>-?\d+))?")
# I/O error, dev nvme0n1, sector 123456 op 0x1:(WRITE) flags 0x8800 phys_seg 1 prio class 2
# blk_update_request: I/O error, dev sda, sector 123456 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0
# blk_update_request: critical medium error, dev sdb, sector 2048
# print_req_error: I/O error, dev sdc, sector 0                                     (4.18-5.2)
# end_request: I/O error, dev sda, sector 2048                                      (< 4.0)
# (%s error: blk-core.c blk_errors[].name, 4.13+: "operation not supported", "timeout", "critical space allocation",
#  "recoverable transport", "critical target", "critical nexus" (< 6.5; then "reservation conflict"), "critical medium",
#  "protection", "kernel resource", "device resource", "nonblocking retry", "device offline", "dm internal retry",
#  "open zones exceeded", "active zones exceeded", "duration limit exceeded", "invalid", "I/O"; before 4.13 the
#  errno switch of blk_update_request / end_request: the same names for ENOLINK .. ENODATA, else "I/O")
_BLK = re.compile(
    r"(?P<what>I/O|critical medium|critical target|critical nexus|reservation conflict|timeout|recoverable transport"
    r"|critical space allocation|protection|operation not supported|kernel resource|device resource|nonblocking retry"
    r"|device offline|dm internal retry|open zones exceeded|active zones exceeded|duration limit exceeded|invalid) error, "
    r"dev (?P<dev>[^\s,]+), sector (?P<sector>\d+)")
# Buffer I/O error on dev sda1, logical block 0, async page read
# Buffer I/O error on device sdb1, logical block 1234                                (< 3.19; ext4 page-io.c still)
_BUFFER = re.compile(r"Buffer I/O error on dev(?:ice)? (?P<dev>[^\s,]+), logical block \d+")
# nfs: server nfs01 not responding, still trying
# nfs: server 10.0.0.5 not responding, timed out
# lockd: server 10.0.0.5 not responding, still trying
# (%s: the RPC program's name, cl_program->name: nfs, nfsacl, lockd, mount, rpcbind, statd, nfs4_cb; portmap < 2.6.25)
_NFS = re.compile(r"(?P<prog>[a-z][\w]{1,15}): server (?P<server>\S+) not responding, (?P<how>still trying|timed out)")
# its recovery, once a reply comes for a request that had hit a major timeout (net/sunrpc/clnt.c call_decode():
# printk(KERN_NOTICE "%s: server %s OK\n") since 2.6, pr_notice_ratelimited from 4.x; the same program and server names):
# [32958.266147] nfs: server thinkcentre OK                        (linux-surface/linux-surface#1494, after its "still trying")
# [Wed Apr 10 17:58:39 2024] nfs: server 192.168.0.1 OK            (openzfs/zfs#15734)
_NFS_OK = re.compile(r"(?P<prog>[a-z]\w{1,15}): server (?P<server>\S+) OK[ \t\r]*$", re.M)
#: whether ": server " occurs (the two lines' common literal), answered by the classifier's pass (as CRASH_SITE_GATE:
#: its search and " OK"'s cost that dmesg 0.11 ms)
NFS_SERVER_GATE = re2.compile(": server ")
# LustreError: 11-0: scratch-OST0003-osc-ffff8d2e3c4a5000: operation ost_connect to node 10.0.0.5@o2ib failed: rc = -16
# LustreError: 3042:0:(client.c:1187:ptlrpc_import_delay_req()) @@@ IMP_CLOSED   req@ffff... x1745/t0(0) o101->...
# Lustre: scratch-OST0003-osc-ffff8d2e3c4a5000: Connection to scratch-OST0003 (at 10.0.0.5@o2ib) was lost; in progress operations using this service will wait for recovery to complete
#   (obd_name of a client import: <fsname>-<TARGET>-<mdc|osc|mgc>-<superblock address>; the target is the server side)
# LustreError: 167-0: scratch-OST0003-osc-ffff8d2e3c4a5000: This client was evicted by scratch-OST0003; in progress operations using this service will fail.
#   (ptlrpc import.c LCONSOLE_ERROR_MSG(0x167, "%s: This client was evicted by %.*s; in progress operations using this service will fail.");
#    Lustre < 2.4 prints it without the "%s: " obd name)
_LUSTRE = re.compile(
    r"LustreError: (?:\d+-\d+: (?:(?P<target>[\w.-]+): )?(?:operation (?P<op>\w+) to node (?P<nid>\S+) failed: rc = (?P<rc>-?\d+)"
    r"|This client was evicted by (?P<evictor>[\w.-]+))?|\d+:\d+:\()"
    r"|Lustre: [\w.-]+: Connection to (?P<lost>\S+) \(at [^)]*\) was lost")
#  Lustre's ptlrpc client.c ptlrpc_expire_one_request(): DEBUG_REQ(D_WARNING, req, "Request sent has %s: [sent %lld/real %lld]",
#  "failed due to network error" | "timed out for sent delay" | "timed out for slow reply"); the request names its import and peer NID
#  ("o<opc>-><import obd name>@<nid>:<portals>"):
# Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) @@@ Request sent has failed due to network error: [sent 1508144508/real 1508144518]  req@ffff880eb14da700 x1570198182041824/t0(0) o250->MGC172.31.126.87@o2ib@172.31.126.87@o2ib:26/25 lens 520/544 e 0 to 1 dl 1508144563 ref 1 fl Rpc:eXN/0/ffffffff rc 0/-1
#                                                                          (jade-hpc-gpu/jade-hpc-gpu.github.io#14)
# Lustre: 10110:0:(client.c:2116:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent 1630583792/real 1630583792]  req@ffff8938c5083600 x1709089496416208/t0(0) o38->4vozvbmv-MDT0000-mdc-ffff88ddb2378000@10.0.205.151@tcp:12/10 lens 520/544 e 0 to 1 dl 1630583798 ref 1 fl Rpc:XN/0/ffffffff rc 0/-1
_PTLRPC = re.compile(
    r"@@@ Request sent has (?P<how>failed due to network error|timed out for sent delay|timed out for slow reply)"
    r"[^\n]{0,200}? o\d+->(?P<imp>[^\s@]{1,120}(?:@[^\s@:]{1,40})?)@(?P<nid>[^\s@:]{1,60}@\w{1,16}):")
#  LNet's o2iblnd (o2iblnd_cb.c kiblnd_check_conns / kiblnd_check_txs_locked): a transmit to a peer NID got no completion in time
# LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for 172.31.126.87@o2ib: 403055 seconds    (jade-hpc-gpu#14)
# LNetError: 4316:0:(o2iblnd_cb.c:3335:kiblnd_check_conns()) Timed out RDMA with 10.0.0.5@o2ib (52): c: 0, oc: 0, rc: 8
_LNET = re.compile(r"LNet(?:Error)?: [^\n]{0,120}?Timed out (?:tx for|RDMA with) (?P<nid>[^\s:@]{1,60}@\w{1,16})")
#  libceph (net/ceph/mon_client.c reopen_session(): pr_info("mon%d %s session lost, hunting for new mon\n"); 6.x may add
#  "(fsid=...)" after mon%d, later kernels " (fsid %pU client%lld)" at the end):
# libceph: mon2 (1)10.0.0.247:6789 session lost, hunting for new mon                              (ceph/ceph-csi#4050)
# libceph: mon0 (2)192.168.1.81:3300 session lost, hunting for new mon
_CEPH_MON = re.compile(r"libceph: mon(?P<mon>\d+)(?:\(fsid=[0-9a-f-]{1,40}\))? (?P<addr>\S+) session lost, hunting for new mon")
# scratch-OST0003-osc-ffff8d2e3c4a5000 -> scratch-OST0003; MGC172.31.126.87@o2ib stays (the MGS's import)
_IMPORT_SUFFIX = re.compile(r"-(?:osc|mdc|lwp|osp|mgc)-[0-9a-f]{8,16}$")


def _lustre_target(obd_name: str | None) -> str | None:
    """The server target of a client import's obd name."""
    return _IMPORT_SUFFIX.sub("", obd_name) if obd_name else obd_name


# CPU3: Core temperature above threshold, cpu clock throttled (total events = 1)
# mce: CPU2: Core temperature above threshold, cpu clock throttled (total events = 2675)          (pr_fmt "mce: ", 4.x-5.4)
# CPU17: Package temperature is above threshold, cpu clock is throttled (total events = 4242)      (5.5+)
# CPU1: Temperature above threshold, cpu clock throttled (total events = 1)                        (2.6.2x-2.6.3x: no scope)
_THERM = re.compile(
    r"CPU(?P<cpu>\d+): (?:(?P<scope>Core|Package) t|T)emperature (?:is )?above threshold, cpu clock (?:is )?throttled"
    r"(?: \(total events = (?P<n>\d+)\))?")
# mlx5_core 0000:3b:00.0 ens1f0np0: Link down
_MLX5_DOWN = re.compile(r"mlx5_core " + _BDF + r" (?P<ifname>[^\s:]+): Link down\b")
# mlx5_core 0000:3b:00.0: Port module event: module 0, Cable unplugged
# mlx5_core 0000:3b:00.0: Port module event[error]: module 1, Cable error, High Temperature
# mlx5_core 0000:5c:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, High Temperature
#   (mlx5_core_err: "%s:%d:(pid %d): " before the format, the function, line and pid; mlx5_core_info has none)
_MLX5_MODULE = re.compile(
    r"(?:mlx5_core " + _BDF + r": (?:\w+:\d+:\(pid \d+\): )?)?"
    r"Port module event(?P<err>\[error\])?: module (?P<module>\d+), (?P<status>[^\n]+)")
# cgroup: fork rejected by pids controller in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice
_PIDS = re.compile(r"fork rejected by pids controller in (?P<cg>\S+)?")
# irq 123: nobody cared (try booting with the "irqpoll" option)
_IRQ = re.compile(r"irq (?P<irq>\d+): nobody cared \(")
# pcieport 0000:00:03.1: DPC: containment event, status:0x1f01 source:0x0000
# pcieport 0000:00:1c.0: DPC containment event, status:0x1f03 source:0x0000      (4.x)
# pci 0000:00:01.0: DPC: containment event, status:0x0009: unmasked uncorrectable error detected   (2025 dpc.c rework, B. Helgaas:
# pcieport 0000:00:01.0: DPC: containment event, status:0x1f01, ERR_FATAL received from 0000:01:00.0   one line, the source only when valid)
_DPC = re.compile(r"(?:\S+ " + _BDF + r": )?DPC:? containment event, status:(?P<status>0x[0-9a-fA-F]+)"
                  r"(?: source:(?P<src>0x[0-9a-fA-F]+)|, ERR_(?:NON)?FATAL received from (?P<from>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:"
                  r"[0-9a-fA-F]{2}\.[0-7])|: [\w ]+ detected)")
# the reason line dpc_process_error prints after the containment line (pci_warn "%s detected"; 4.x dev_warn "DPC %s detected,
# remove downstream devices"): a detail of that line, the event itself when it is pasted without it
# pcieport 0000:00:03.1: DPC: unmasked uncorrectable error detected
_DPC_REASON = re.compile(r"(?:\S+ " + _BDF + r": )?DPC:? (?:unmasked uncorrectable error|ERR_NONFATAL|ERR_FATAL|RP PIO error"
                         r"|software trigger|reserved error) detected")

_HANG = {"hung_task", "soft_lockup", "hard_lockup", "rcu_stall"}


def _before(lines: list[str], ln: int, n: int) -> list[str]:
    """The ``n`` lines before line ``ln`` (1-based), nearest last."""
    return lines[max(0, ln - 1 - n):ln - 1]


def _fault(b: FactBuilder, ln: int, msg: str, common: dict, lines: list[str]) -> bool | None:
    """The kernel's own hang or crash line: a HostKernelFault (True); None for a line that only
    details an oops or panic read from an earlier line; False when it is none of them."""
    m = None
    if "INFO: task " in msg and (m := _HUNG.search(msg)) is not None:
        fs = _waits_on(lines, ln)
        event, fields = "hung_task", {"process": m["comm"], "pid": int(m["pid"]), "seconds": int(m["s"]),
                                      "waits_on": fs, "on_shared_fs": fs is not None}
    elif "soft lockup" in msg and (m := _SOFT.search(msg)) is not None:
        event, fields = "soft_lockup", {"cpu": int(m["cpu"]), "process": m["comm"], "pid": int(m["pid"]),
                                        "seconds": int(m["s"])}
    elif "hard LOCKUP" in msg and (m := _HARD.search(msg)) is not None:
        event, fields = "hard_lockup", {"cpu": int(m["cpu"])}
    elif "stall" in msg and (m := _RCU.search(msg)) is not None:
        event, fields = "rcu_stall", {}
    elif "Kernel panic" in msg and (m := _PANIC.search(msg)) is not None:
        if msg.startswith("---[ end ") and any("Kernel panic - not syncing" in line and "---[ end" not in line
                                               for line in _before(lines, ln, _PANIC_LOOKBACK)):
            return None  # the closing line of a panic read from its opening line
        event, fields = "panic", {}
    elif "ernel BUG at " in msg and (m := _KBUG.search(msg)) is not None:
        event, fields = "kernel_bug", {}
    elif ("BUG: " in msg or "Unable to handle kernel " in msg) and (m := _OOPS.search(msg)) is not None:
        event, fields = "oops", {}
    elif " [#" in msg and (m := _DIE.match(msg)) is not None:
        if any(o in line for line in _before(lines, ln, _DIE_AFTER) for o in _OOPS_OPENERS):
            return None  # the die() header of the oops an earlier line opened
        event, fields = "oops", {}
    else:
        return False
    if event not in _HANG:
        fields.update(_crash_ip(lines, ln, event))
        if fields.get("in_module") in gpu_driver_modules():  # the NVIDIA driver's crash (knowledge/gpu_driver_modules.yaml)
            fields["in_gpu_driver"] = True
    b.add(HostKernelFault, ln, event=event, hang=event in _HANG, message=msg, **fields, **common)
    return True


def _process(b: FactBuilder, ln: int, msg: str, common: dict) -> bool:
    """A user process killed by a fault (segfault, general protection, trap): ProcessCrash."""
    if "segfault at " in msg and (m := _SEGV.search(msg)) is not None:
        fault = "segfault"
    elif " ip:" in msg and (m := _TRAP.search(msg)) is not None:
        fault = m["fault"].removeprefix("trap ")
    elif "unhandled exception: " in msg and (m := _ARM64_SIGNAL.search(msg)) is not None:
        fault = m["fault"].strip()
    else:
        return False
    lib = _IN_LIB.search(msg, m.end())
    b.add(ProcessCrash, ln, process=m["comm"].removeprefix("traps: "), pid=int(m["pid"]), fault=fault,
          library=lib["lib"] if lib else None, message=msg, **common)
    return True


def _kill_follows(lines: list[str], ln: int) -> bool:
    """Whether the OOM killer's kill line follows an "invoked oom-killer" line (line ``ln``)
    within its report (the memory and task dump between them is a few hundred lines at most)."""
    return any("of memory" in line and ": Kill" in line for line in lines[ln:ln + _OOM_REPORT_LINES])


_OOM_REPORT_LINES = 600
#: dpc_process_error prints the containment line, "unmasked uncorrectable error detected" and then
#: the AER error it contained (aer_print_error: "PCIe Bus Error: severity=Uncorrected (Fatal) ...")
_DPC_DETAIL_LINES = 3


def nfs_recoveries(text: str, line_of, stamp_of) -> dict[tuple[str, str], list[tuple[int, str | None]]]:
    """The RPC client's "<prog>: server <name> OK" lines of a log: (program, server) -> their (line, stamp), in order."""
    out: dict[tuple[str, str], list[tuple[int, str | None]]] = {}
    # (the longer needle first: the test of both took 0.17 ms of a bench node's 206 kB dmesg, this order 0.10; rT7)
    server = classify.gate(text, NFS_SERVER_GATE)
    if server is False or server is None and ": server " not in text or " OK" not in text:
        return out
    for m in _NFS_OK.finditer(text):
        ln = line_of(m.start())
        out.setdefault((m["prog"], m["server"]), []).append((ln, stamp_of(text[text.rfind("\n", 0, m.start()) + 1:m.end()])))
    return out


def _recovered_after(nfs_ok: dict | None, prog: str, server: str, ln: int) -> tuple[int, str | None] | None:
    """The first "server X OK" line after line ``ln`` for the same program and server, if the log has one."""
    oks = nfs_ok.get((prog, server)) if nfs_ok else None
    if not oks:
        return None
    i = bisect.bisect_right(oks, ln, key=lambda o: o[0])
    return oks[i] if i < len(oks) else None


def parse_os_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], lines: list[str],
                  nfs_ok: dict | None = None) -> bool:
    """Add the fact of one line of the host kernel's own faults; False when it is none of them.
    An "invoked oom-killer" line whose kill line follows is read as part of that kill (kernel_log's
    ``host_oom_kill``): used, no fact of its own. ``nfs_ok``: the log's NFS recovery lines (nfs_recoveries):
    a "not responding" line records whether its server answered again later in the same log."""
    msg = msg.strip()
    if "NMI backtrace for cpu" in msg and (m := _NMI_BT.search(msg)) is not None:
        _nmi_backtrace(b, ln, msg, m, common, lines)
    elif (read := _fault(b, ln, msg, common, lines)) is None:
        pass  # a detail of an oops or panic read from an earlier line
    elif read or _process(b, ln, msg, common):
        pass
    elif "oom-killer" in msg and (m := _OOM_INVOKED.search(msg)) is not None:
        if not _kill_follows(lines, ln):
                b.add(HostOomInvoked, ln, process=m["comm"], order=int(m["order"]) if m["order"] else None,
                  message=msg, **common)
    elif "error, dev " in msg and (m := _BLK.search(msg)) is not None:
        b.add(StorageIoError, ln, device=m["dev"], layer="block", filesystem=False,
              event="io_timeout" if m["what"] == "timeout" else "io_error", message=msg, **common)
    elif "Buffer I/O error" in msg and (m := _BUFFER.search(msg)) is not None:
        b.add(StorageIoError, ln, device=m["dev"], layer="block", filesystem=False, event="buffer_io_error",
              message=msg, **common)
    elif "not responding" in msg and (m := _NFS.search(msg)) is not None:
        ok = _recovered_after(nfs_ok, m["prog"], m["server"], ln)
        if ok is not None:
            used.add(ok[0])
        b.add(SharedFsError, ln, filesystem="nfs", server=m["server"],
              event="not_responding" if m["how"] == "still trying" else "timed_out", recovered=ok is not None,
              recovered_at=ok[1] if ok is not None else None, message=msg, **common)
    elif "Lustre" in msg and "@@@ Request sent has " in msg and (m := _PTLRPC.search(msg)) is not None:
        b.add(SharedFsError, ln, filesystem="lustre", server=f"{_lustre_target(m['imp'])} ({m['nid']})",
              event="network_error" if m["how"].startswith("failed") else "request_timeout", message=msg, **common)
    elif "Lustre" in msg and (m := _LUSTRE.search(msg)) is not None:
        if m["evictor"]:
            server, event = m["evictor"], "evicted"
        elif m["lost"]:
            server, event = m["lost"], "connection_lost"
        elif m["nid"]:
            server, event = f"{_lustre_target(m['target'])} ({m['nid']})", "error"
        else:
            server, event = m["target"], "error"
        b.add(SharedFsError, ln, filesystem="lustre", server=server, event=event,
              rc=int(m["rc"]) if m["rc"] else None, operation=m["op"], message=msg, **common)
    elif "LNet" in msg and (m := _LNET.search(msg)) is not None:
        b.add(SharedFsError, ln, filesystem="lustre", server=m["nid"], event="network_timeout", message=msg, **common)
    elif "libceph" in msg and (m := _CEPH_MON.search(msg)) is not None:
        b.add(SharedFsError, ln, filesystem="ceph", server=f"mon{m['mon']} {m['addr']}", event="connection_lost",
              message=msg, **common)
    elif "threshold" in msg and (m := _THERM.search(msg)) is not None:
        b.add(HostCpuThrottle, ln, cpu=int(m["cpu"]), scope=(m["scope"] or "core").lower(),  # < 2.6.3x: per core
              events=int(m["n"]) if m["n"] else None, message=msg, **common)
    elif "Link down" in msg and (m := _MLX5_DOWN.search(msg)) is not None:
        b.add(NicLinkEvent, ln, pci_bus_id=m["bdf"].lower(), interface=m["ifname"], event="link_down",
              message=msg, **common)
    elif "Port module event" in msg and (m := _MLX5_MODULE.search(msg)) is not None:
        status = m["status"].strip()
        if not m["err"] and status.startswith("Cable plugged"):
            return False  # the module came back: no fault
        b.add(NicLinkEvent, ln, pci_bus_id=m["bdf"].lower() if m["bdf"] else None,
              event="module_error" if m["err"] or "error" in status.lower() else "cable_unplugged",
              module=int(m["module"]), detail=status, message=msg, **common)
    elif "pids controller" in msg and (m := _PIDS.search(msg)) is not None:
        b.add(CgroupPidsLimit, ln, cgroup=m["cg"], message=msg, **common)
    elif "nobody cared" in msg and (m := _IRQ.search(msg)) is not None:
        b.add(HostHardwareError, ln, source="irq", location=f"irq {m['irq']}", message=msg, **common)
    elif "containment event" in msg and (m := _DPC.search(msg)) is not None:
        if any("PCIe Bus Error" in line for line in lines[ln:ln + _DPC_DETAIL_LINES]):
            pass  # the AER lines it prints next are the event (kernel_log_pcie reads them): a detail here
        else:
            b.add(PcieDpcEvent, ln, port=m["bdf"].lower() if m["bdf"] else None, status=m["status"],
                  source=m["src"] or m["from"], message=msg, **common)
    elif " detected" in msg and "DPC" in msg and (m := _DPC_REASON.search(msg)) is not None:
        if any("containment event" in line for line in _before(lines, ln, 2)) \
                or any("PCIe Bus Error" in line for line in lines[ln:ln + _DPC_DETAIL_LINES]):
            pass  # the reason of the containment line before it, or the AER error printed after it
        else:
            b.add(PcieDpcEvent, ln, port=m["bdf"].lower() if m["bdf"] else None, message=msg, **common)
    else:
        return False
    used.add(ln)
    return True
