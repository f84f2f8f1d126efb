"""The host kernel's own fault lines (kernel_log_host_os via kernel_log): each form the kernel
prints across versions, under dmesg, dmesg -T, syslog and journald prefixes and bare, with near
misses of the same subsystems that must stay unread, and the OOM killer's "invoked" line read
as part of the kill that follows it."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import kernel_log, mlx5_core_log
from stethoscope.facts.parsers.base import Artefact

PREFIXES = ("", "[12345.678901] ", "[Tue Dec  1 10:00:01 2026] ", "Dec  1 10:00:01 node1 kernel: ",
            "2026-12-01T10:00:01+0000 node1 kernel: ")

# (line as the kernel prints it, kind, field, value)
LINES = [
    ("INFO: task python:12345 blocked for more than 120 seconds.", "host_kernel_fault", "seconds", 120),
    ("INFO: task kworker/u256:2:1234 blocked for more than 122 seconds.", "host_kernel_fault", "process", "kworker/u256:2"),
    ("watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python:12345]", "host_kernel_fault", "cpu", 3),
    ("BUG: soft lockup - CPU#12 stuck for 23s! [nvidia-smi:4321]", "host_kernel_fault", "process", "nvidia-smi"),
    ("NMI watchdog: Watchdog detected hard LOCKUP on cpu 3", "host_kernel_fault", "event", "hard_lockup"),
    ("rcu: INFO: rcu_sched self-detected stall on CPU", "host_kernel_fault", "event", "rcu_stall"),
    ("INFO: rcu_sched detected stalls on CPUs/tasks: { 3} (detected by 5, t=60002 jiffies, g=123, c=122, q=456)", "host_kernel_fault", "hang", True),
    ("rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 12-... } 21002 jiffies s: 1234 root: 0x1/.", "host_kernel_fault", "event", "rcu_stall"),
    ("Kernel panic - not syncing: Fatal exception", "host_kernel_fault", "event", "panic"),
    ("kernel BUG at mm/slub.c:4153!", "host_kernel_fault", "event", "kernel_bug"),
    ("BUG: unable to handle page fault for address: ffffb8c5c0a1b000", "host_kernel_fault", "event", "oops"),
    ("BUG: kernel NULL pointer dereference, address: 0000000000000008", "host_kernel_fault", "hang", False),
    ("BUG: unable to handle kernel NULL pointer dereference at 0000000000000010", "host_kernel_fault", "event", "oops"),
    ("general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP NOPTI", "host_kernel_fault", "event", "oops"),
    ("Oops: general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b: 0000 [#1] PREEMPT SMP", "host_kernel_fault", "event", "oops"),
    ("general protection fault: 0000 [#1] SMP PTI", "host_kernel_fault", "event", "oops"),
    ("python[12345]: segfault at 0 ip 00007f3a2c0a1b2c sp 00007ffd1c2b3a40 error 4 in libc.so.6[7f3a2c000000+195000]", "process_crash", "library", "libc.so.6"),
    ("pt_main_thread[4321]: segfault at 18 ip 00007f0e8c3f2a10 sp 00007ffc2e1d8a80 error 4 in libcuda.so.535.129.03[7f2a10,7f0e8bc00000+1a9d000] likely on CPU 7 (core 3, socket 0)", "process_crash", "library", "libcuda.so.535.129.03"),
    ("traps: python[12345] general protection fault ip:7f3a2c0a1b2c sp:7ffd1c2b3a40 error:0 in libfoo.so[7f3a2c000000+1000]", "process_crash", "fault", "general protection fault"),
    ("traps: python3[2345] trap invalid opcode ip:7f12a4b5c6d7 sp:7ffd3e4f5a60 error:0 in libtorch_cpu.so[7f12a0000000+1e2f000]", "process_crash", "fault", "invalid opcode"),
    ("python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0", "host_oom_invoked", "process", "python"),
    ("I/O error, dev nvme0n1, sector 123456 op 0x1:(WRITE) flags 0x8800 phys_seg 1 prio class 2", "storage_io_error", "device", "nvme0n1"),
    ("blk_update_request: I/O error, dev sda, sector 123456 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0", "storage_io_error", "layer", "block"),
    ("blk_update_request: critical medium error, dev sdb, sector 2048", "storage_io_error", "device", "sdb"),
    ("print_req_error: I/O error, dev sdc, sector 0", "storage_io_error", "event", "io_error"),
    ("Buffer I/O error on dev sda1, logical block 0, async page read", "storage_io_error", "event", "buffer_io_error"),
    ("Buffer I/O error on device sdb1, logical block 1234", "storage_io_error", "device", "sdb1"),
    ("nfs: server nfs01 not responding, still trying", "shared_fs_error", "event", "not_responding"),
    ("nfs: server 10.0.0.5 not responding, timed out", "shared_fs_error", "event", "timed_out"),
    ("lockd: server 10.0.0.5 not responding, still trying", "shared_fs_error", "server", "10.0.0.5"),
    ("LustreError: 11-0: scratch-OST0003-osc-ffff8d2e3c4a5000: operation ost_connect to node 10.0.0.5@o2ib failed: rc = -16", "shared_fs_error", "server", "scratch-OST0003-osc-ffff8d2e3c4a5000"),
    ("LustreError: 3042:0:(client.c:1187:ptlrpc_import_delay_req()) @@@ IMP_CLOSED   req@ffff8d2e3c4a5000 x1745/t0(0)", "shared_fs_error", "filesystem", "lustre"),
    ("Lustre: scratch-OST0003-osc-ffff8d2e3c4a5000: Connection to scratch-OST0003 (at 10.0.0.5@o2ib) was lost; in progress operations using this service will wait for recovery to complete", "shared_fs_error", "event", "connection_lost"),
    ("CPU3: Core temperature above threshold, cpu clock throttled (total events = 1)", "host_cpu_throttle", "scope", "core"),
    ("CPU17: Package temperature is above threshold, cpu clock is throttled (total events = 4242)", "host_cpu_throttle", "events", 4242),
    ("mlx5_core 0000:3b:00.0 ens1f0np0: Link down", "nic_link_event", "interface", "ens1f0np0"),
    ("mlx5_core 0000:3b:00.0: Port module event: module 0, Cable unplugged", "nic_link_event", "event", "cable_unplugged"),
    ("mlx5_core 0000:3b:00.0: Port module event[error]: module 1, Cable error, High Temperature", "nic_link_event", "event", "module_error"),
    ("cgroup: fork rejected by pids controller in /kubepods.slice/kubepods-burstable.slice", "cgroup_pids_limit", "cgroup", "/kubepods.slice/kubepods-burstable.slice"),
    ('irq 123: nobody cared (try booting with the "irqpoll" option)', "host_hardware_error", "source", "irq"),
    ("pcieport 0000:00:03.1: DPC: containment event, status:0x1f01 source:0x0000", "pcie_dpc_event", "port", "0000:00:03.1"),
    ("pcieport 0000:00:1c.0: DPC containment event, status:0x1f03 source:0x0000", "pcie_dpc_event", "status", "0x1f03"),
]

# real lines, verbatim, whole (public threads, even-numbered): (line, kind, field, value, node)
REAL = [
    ("May  3 06:24:16 wendy kernel: [1588862.292994] watchdog: BUG: soft lockup - CPU#0 stuck for 23s! [frigate.output:1243199]",
     "host_kernel_fault", "process", "frigate.output", "wendy"),  # blakeblackshear/frigate#6360
    ("[   32.107804] NMI watchdog: BUG: soft lockup - CPU#113 stuck for 22s! [kopald:854]", "host_kernel_fault", "cpu", 113, "n1"),  # open-power/skiboot#136
    ("[70081.927348] INFO: task conda:11003 blocked for more than 120 seconds.", "host_kernel_fault", "pid", 11003, "n1"),  # conda/conda#9306
    ("[Wed Sep 26 00:30:18 2018] INFO: task python:19772 blocked for more than 120 seconds.", "host_kernel_fault", "event", "hung_task", "n1"),  # ROCm/tensorflow-upstream#180
    ("[ 8275.824319] zed-editor[11804]: segfault at 25c ip 000075b6d26f2e1a sp 00007ffc262183a0 error 4 in libnvidia-glcore.so.575.64.03[af2e1a,75b6d2000000+c00000] likely on CPU 10 (core 20, socket 0)",
     "process_crash", "library", "libnvidia-glcore.so.575.64.03", "n1"),  # zed-industries/zed#35758
    ("[32495.562824] nfs: server thinkcentre not responding, timed out", "shared_fs_error", "event", "timed_out", "n1"),  # linux-surface/linux-surface#1494
    ("[Wed Apr 10 17:58:24 2024] nfs: server 192.168.0.1 not responding, still trying", "shared_fs_error", "server", "192.168.0.1", "n1"),  # openzfs/zfs#15734
    ("[76747.169397] mce: CPU2: Core temperature above threshold, cpu clock throttled (total events = 2675)", "host_cpu_throttle", "events", 2675, "n1"),  # erpalma/throttled#186
    ("[14334.860099] CPU3: Core temperature above threshold, cpu clock throttled (total events = 57536)", "host_cpu_throttle", "cpu", 3, "n1"),  # mbusb/multibootusb#164
    ("cgroup: fork rejected by pids controller in /system.slice/nsncd.service", "cgroup_pids_limit", "cgroup", "/system.slice/nsncd.service", "n1"),  # twosigma/nsncd#24
    ("May 14 09:28:44 10 kernel: [  582.073994] cgroup: fork rejected by pids controller in /user.slice/user-1000.slice/session-1.scope",
     "cgroup_pids_limit", "cgroup", "/user.slice/user-1000.slice/session-1.scope", "10"),  # ColinIanKing/stress-ng#384
]

# lines of the same subsystems that report no fault (or only detail one): left unread
NEAR_MISSES = [
    "CPU17: Core temperature/speed normal (total events = 4242)",
    "nfs: server nfs01 OK",
    "mlx5_core 0000:3b:00.0 ens1f0np0: Link up",
    "mlx5_core 0000:3b:00.0: Port module event: module 0, Cable plugged",
    "Lustre: scratch-OST0003-osc-ffff8d2e3c4a5000: Connection restored to 10.0.0.5@o2ib (at 10.0.0.5@o2ib)",
    "pcieport 0000:00:03.1: DPC: error containment capabilities: Int Msg #0, RPExt+ PoisonedTLP+ SwTrigger+ RP PIO Log 4, DL_ActiveErr+",
    '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
    "Disabling IRQ #123",
    "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
    "rcu: Hierarchical RCU implementation.",
]


def _facts(text: str) -> list:
    return kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "kind", "field", "value"), LINES)
def test_host_os_fault_lines(prefix, line, kind, field, value):
    assert kernel_log.detect(prefix + line + "\n")
    (f,) = _facts(prefix + line + "\n")  # one fact per line: no second reader of kernel_log claims it
    node = "node1" if "node1" in prefix else "n1"
    assert (f.kind, getattr(f, field), f.evidence.line, f.node) == (kind, value, 1, node)
    assert line in f.evidence.text


@pytest.mark.parametrize(("line", "kind", "field", "value", "node"), REAL)
def test_real_lines(line, kind, field, value, node):
    assert kernel_log.detect(line + "\n")
    (f,) = _facts(line + "\n")
    assert (f.kind, getattr(f, field), f.node) == (kind, value, node)


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_misses_stay_unread(line):
    assert _facts("[  265.311275] " + line + "\n") == []


@pytest.mark.parametrize("line", [ln for ln, *_ in LINES if ln.startswith("mlx5_core")])
def test_the_connectx_reader_leaves_link_lines_to_the_kernel_reader(line):
    text = "[12345.678901] " + line + "\n"
    assert mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1")).facts == []


def test_oom_invoked_line_is_read_with_the_kill_that_follows():
    text = ("[12345.678901] python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n"
            "[12345.678950] Mem-Info:\n"
            "[12345.679001] Out of memory: Killed process 12345 (python) total-vm:123456789kB, anon-rss:98765432kB, "
            "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:193456kB oom_score_adj:0\n")
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [f.kind for f in r.facts] == ["host_oom_kill"]
    assert r.lines_used == 2


def test_dpc_line_details_the_aer_error_printed_after_it():
    text = ("[256236.152631] pcieport 0000:89:02.0: DPC: containment event, status:0x1f01 source:0x0000\n"
            "[256236.152632] pcieport 0000:89:02.0: DPC: unmasked uncorrectable error detected reason 0 ext_reason 0\n"
            "[256236.152634] pcieport 0000:89:02.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)\n")
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [f.kind for f in r.facts] == ["pcie_aer_error"]
