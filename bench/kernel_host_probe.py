#!/usr/bin/env python3
"""Probe: the host kernel's own fault lines on a GPU node, pasted alone (issue 11, "every message form").

Each form below is the kernel's (or Lustre's) format string filled with placeholder values, one
line per variant the sources print across versions (the source named beside it; the regexes and
real samples are in facts/parsers/kernel_log_host_os.py). Every line is diagnosed alone under
four framings: bare, a ``dmesg`` stamp, a ``dmesg -T`` stamp and a syslog/journald prefix, with
bench/probe_lines.py's runner; the table gives the verdict and the top finding's rule, cause,
component and severity per framing. Lines marked ``ok`` report no fault: they must not come out
with a fault finding (a bare one may stay inconclusive), and a fault line must never come out
``healthy`` or inconclusive.

    .venv/bin/python bench/kernel_host_probe.py
    .venv/bin/python bench/kernel_host_probe.py --only lockup

A benchmark script (it prints a table), not a test.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_lines import diagnose_text, make_runner, top  # noqa: E402

PREFIXES = {
    "bare": "",
    "dmesg": "[12345.678901] ",
    "dmesg -T": "[Tue Dec  1 10:00:01 2026] ",
    "syslog": "Dec  1 10:00:01 gpu-node-07 kernel: ",
}

# (name, line, fault?): the forms as the kernel prints them
LINES: list[tuple[str, str, bool]] = [
    # mm/oom_kill.c dump_header
    ("oom invoked", "python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0", True),
    # kernel/hung_task.c
    ("hung task", "INFO: task python:12345 blocked for more than 120 seconds.", True),
    ("hung task kworker", "INFO: task kworker/u256:2:1234 blocked for more than 122 seconds.", True),
    # kernel/watchdog.c (pr_fmt "watchdog: " since 4.15)
    ("soft lockup", "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python:12345]", True),
    ("soft lockup < 4.15", "BUG: soft lockup - CPU#12 stuck for 23s! [nvidia-smi:4321]", True),
    # kernel/watchdog_hld.c / 6.x kernel/watchdog.c
    ("hard lockup", "NMI watchdog: Watchdog detected hard LOCKUP on cpu 3", True),
    ("hard lockup 6.x", "watchdog: Watchdog detected hard LOCKUP on cpu 17", True),
    ("hard lockup 6.6+", "watchdog: CPU3: Watchdog detected hard LOCKUP on cpu 5", True),
    # kernel/rcu/tree_stall.h (pr_fmt "rcu: " since 4.20)
    ("rcu stall self", "rcu: INFO: rcu_sched self-detected stall on CPU", True),
    ("rcu stall others", "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", True),
    ("rcu stall < 4.20", "INFO: rcu_sched detected stalls on CPUs/tasks: { 3} (detected by 5, t=60002 jiffies, g=123, c=122, q=456)", True),
    ("rcu tasks stall", "INFO: rcu_tasks detected stalls on tasks:", True),
    ("rcu stall < 3.7", "INFO: rcu_sched detected stall on CPU 3 (t=15000 jiffies)", True),
    ("rcu stall csd-lock", "rcu: INFO: rcu_preempt detected stall, but suppressed full report due to a stuck CSD-lock.", True),
    ("rcu expedited stall", "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 12-... } 21002 jiffies s: 1234 root: 0x1/.", True),
    # kernel/panic.c
    ("kernel panic", "Kernel panic - not syncing: Fatal exception", True),
    ("kernel panic hard lockup", "Kernel panic - not syncing: Hard LOCKUP", True),
    # lib/bug.c
    ("kernel BUG", "kernel BUG at mm/slub.c:4153!", True),
    ("kernel BUG no verbose", "Kernel BUG at skb_pull+0x25/0x30 [verbose debug info unavailable]", True),
    # arch/x86/mm/fault.c show_fault_oops
    ("oops page fault", "BUG: unable to handle page fault for address: ffffb8c5c0a1b000", True),
    ("oops NULL 5.x", "BUG: kernel NULL pointer dereference, address: 0000000000000008", True),
    ("oops NULL < 5.0", "BUG: unable to handle kernel NULL pointer dereference at 0000000000000010", True),
    ("oops paging < 5.0", "BUG: unable to handle kernel paging request at ffffc90001234000", True),
    # arch/x86/kernel/traps.c die()
    ("oops gp 5.x", "general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP NOPTI", True),
    ("oops gp 6.x", "Oops: general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: 0000 [#1] PREEMPT SMP", True),
    ("oops gp < 5.5", "general protection fault: 0000 [#1] SMP PTI", True),
    ("oops trap 6.10+", "Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI", True),
    ("oops divide error", "divide error: 0000 [#1] SMP PTI", True),
    ("oops arm64 NULL", "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010", True),
    ("oops arm64 paging", "Unable to handle kernel paging request at virtual address ffff800010003eb0", True),
    ("oops arm64 die", "Internal error: Oops: 0000000096000004 [#1] PREEMPT SMP", True),
    # arch/x86/mm/fault.c show_signal_msg, arch/x86/kernel/traps.c
    ("segfault", "python[12345]: segfault at 0 ip 00007f3a2c0a1b2c sp 00007ffd1c2b3a40 error 4 in libc.so.6[7f3a2c000000+195000]", True),
    ("segfault 6.x", "pt_main_thread[4321]: segfault at 18 ip 00007f0e8c3f2a10 sp 00007ffc2e1d8a80 error 4 in libcuda.so.535.129.03[7f2a10,7f0e8bc00000+1a9d000] likely on CPU 7 (core 3, socket 0)", True),
    ("user gp fault", "traps: python[12345] general protection fault ip:7f3a2c0a1b2c sp:7ffd1c2b3a40 error:0 in libfoo.so[7f3a2c000000+1000]", True),
    ("user trap", "traps: python3[2345] trap invalid opcode ip:7f12a4b5c6d7 sp:7ffd3e4f5a60 error:0 in libtorch_cpu.so[7f12a0000000+1e2f000]", True),
    # arch/arm64/kernel/traps.c arm64_show_signal
    ("segfault arm64", "python3[2345]: unhandled exception: DABT (lower EL), ESR 0x0000000092000006, level 2 translation fault in libfoo.so[ffff8a000000+1000]", True),
    # mm/oom_kill.c 4.9-4.19 dump_header; oom_kill_process with vm.oom_kill_allocating_task
    ("oom invoked 4.x", "kworker/u8:2 invoked oom-killer: gfp_mask=0x15080c0(GFP_KERNEL_ACCOUNT|__GFP_ZERO), nodemask=(null),  order=1, oom_score_adj=0", True),
    ("oom kill allocating", "Out of memory (oom_kill_allocating_task): Kill process 6344 (sh) score 0 or sacrifice child", True),
    # block/blk-core.c blk_print_req_error
    ("blk io error 6.x", "I/O error, dev nvme0n1, sector 123456 op 0x1:(WRITE) flags 0x8800 phys_seg 1 prio class 2", True),
    ("blk io error 5.x", "blk_update_request: I/O error, dev sda, sector 123456 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0", True),
    ("blk medium error", "blk_update_request: critical medium error, dev sdb, sector 2048", True),
    ("blk io error 4.18", "print_req_error: I/O error, dev sdc, sector 0", True),
    ("blk io error < 4.0", "end_request: I/O error, dev sda, sector 2048", True),
    ("blk protection error", "blk_update_request: protection error, dev nvme0n1, sector 8", True),
    ("blk device offline", "device offline error, dev sdd, sector 0 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0", True),
    # fs/buffer.c
    ("buffer io error", "Buffer I/O error on dev sda1, logical block 0, async page read", True),
    ("buffer io error old", "Buffer I/O error on device sdb1, logical block 1234", True),
    # net/sunrpc/clnt.c
    ("nfs not responding", "nfs: server nfs01 not responding, still trying", True),
    ("nfs timed out", "nfs: server nfs01 not responding, timed out", True),
    ("lockd not responding", "lockd: server 10.0.0.5 not responding, still trying", True),
    ("mount not responding", "mount: server 10.0.0.5 not responding, timed out", True),
    ("nfs back ok", "nfs: server nfs01 OK", False),
    # Lustre
    ("lustre error", "LustreError: 11-0: scratch-OST0003-osc-ffff8d2e3c4a5000: operation ost_connect to node 10.0.0.5@o2ib failed: rc = -16", True),
    ("lustre CERROR", "LustreError: 3042:0:(client.c:1187:ptlrpc_import_delay_req()) @@@ IMP_CLOSED   req@ffff8d2e3c4a5000 x1745/t0(0) o101->scratch-MDT0000-mdc-ffff8d2e3c4a5000@10.0.0.4@o2ib:12/10 lens 376/0 e 0 to 0 dl 0 ref 1 fl Rpc:/0/ffffffff rc 0/-1", True),
    ("lustre connection lost", "Lustre: scratch-OST0003-osc-ffff8d2e3c4a5000: Connection to scratch-OST0003 (at 10.0.0.5@o2ib) was lost; in progress operations using this service will wait for recovery to complete", True),
    # arch/x86/kernel/cpu/mce/therm_throt.c
    ("cpu thermal < 5.5", "CPU3: Core temperature above threshold, cpu clock throttled (total events = 1)", True),
    ("package thermal < 5.5", "CPU3: Package temperature above threshold, cpu clock throttled (total events = 1)", True),
    ("cpu thermal 5.5+", "CPU17: Core temperature is above threshold, cpu clock is throttled (total events = 4242)", True),
    ("cpu thermal 2.6", "CPU1: Temperature above threshold, cpu clock throttled (total events = 1)", True),
    ("cpu thermal normal", "CPU17: Core temperature/speed normal (total events = 4242)", False),
    # drivers/net/ethernet/mellanox/mlx5/core
    ("mlx5 link down", "mlx5_core 0000:3b:00.0 ens1f0np0: Link down", True),
    ("mlx5 link up", "mlx5_core 0000:3b:00.0 ens1f0np0: Link up", False),
    ("mlx5 cable unplugged", "mlx5_core 0000:3b:00.0: Port module event: module 0, Cable unplugged", True),
    ("mlx5 module error", "mlx5_core 0000:3b:00.0: Port module event[error]: module 1, Cable error, High Temperature", True),
    ("mlx5 module err func", "mlx5_core 0000:5c:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, High Temperature", True),
    ("mlx5 cable plugged", "mlx5_core 0000:3b:00.0: Port module event: module 0, Cable plugged", False),
    # kernel/cgroup/pids.c
    ("pids fork rejected", "cgroup: fork rejected by pids controller in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice", True),
    # kernel/irq/spurious.c
    ("irq nobody cared", 'irq 123: nobody cared (try booting with the "irqpoll" option)', True),
    # drivers/pci/pcie/dpc.c
    ("dpc", "pcieport 0000:00:03.1: DPC: containment event, status:0x1f01 source:0x0000", True),
    ("dpc 4.x", "pcieport 0000:00:1c.0: DPC containment event, status:0x1f03 source:0x0000", True),
    ("dpc one-line uncor", "pci 0000:00:01.0: DPC: containment event, status:0x0009: unmasked uncorrectable error detected", True),
    ("dpc one-line fatal", "pcieport 0000:00:01.0: DPC: containment event, status:0x1f01, ERR_FATAL received from 0000:01:00.0", True),
    ("dpc reason alone", "pcieport 0000:00:03.1: DPC: unmasked uncorrectable error detected", True),
    ("dpc enabled", "pcieport 0000:00:03.1: DPC: enabled with IRQ 122", False),
    # kernel/hung_task.c 6.14+ debug_show_blocker: a detail of the hung-task line
    ("hung task blocker", "INFO: task python:12345 is blocked on a mutex likely owned by task python:12346.", False),
    # NVIDIA/nvidia-persistenced (syslog, not the kernel's: the same paste)
    ("persistenced query", "nvidia-persistenced[1234]: Failed to query NVIDIA devices. Please ensure that the NVIDIA device files (/dev/nvidia*) exist, and that user 0 has read and write permissions for those files.", True),
    ("persistenced started", "nvidia-persistenced[1234]: Started (1234)", False),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="lines whose name holds this")
    ap.add_argument("--steth", default="", help="run through this steth executable instead of in-process")
    args = ap.parse_args()
    run = make_runner(args.steth)
    bad = 0
    for name, line, fault in LINES:
        if args.only and args.only not in name:
            continue
        seen = []
        for pname, prefix in PREFIXES.items():
            rep = diagnose_text(prefix + line, run)
            f = top(rep)
            verdict = rep.get("verdict")
            wrong = (verdict in ("healthy", "inconclusive") or f.get("cause") == "unexplained_error") if fault \
                else (f.get("severity") in ("warning", "critical", "fatal"))
            bad += wrong
            seen.append((pname, verdict, f.get("rule", "-"), f.get("cause", "-"), f.get("component", "-"),
                         f.get("severity", "-"), wrong))
        rows = {s[1:6] for s in seen}
        if len(rows) == 1:  # the same under every framing: one row
            v, r, c, comp, sev = rows.pop()
            flag = " WRONG" if any(s[6] for s in seen) else ""
            print(f"{name:24} {'all':9} {v:13} {r:30} {c:28} {comp:13} {sev}{flag}")
        else:
            for pname, v, r, c, comp, sev, wrong in seen:
                print(f"{name:24} {pname:9} {v:13} {r:30} {c:28} {comp:13} {sev}{' WRONG' if wrong else ''}")
    print(f"\n{bad} wrong (a fault line healthy, inconclusive or unexplained; a no-fault line with a fault finding)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
