"""The host kernel's own fault lines (kernel_log_host_os via kernel_log): each form the kernel
prints across versions, under dmesg, dmesg -T, syslog and journald prefixes and bare, with near
misses of the same subsystems that must stay unread, and the OOM killer's "invoked" line read
as part of the kill that follows it."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log, mlx5_core_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"

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
    # 6.2+ __warn under panic_on_warn (kernel/panic.c check_panic_on_warn: "%s: panic_on_warn set ...", origin "kernel"):
    # its "kernel: " is the message's, not a syslog framing to cut at
    ("Kernel panic - not syncing: kernel: panic_on_warn set ...", "host_kernel_fault", "event", "panic"),
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
    ("LustreError: 11-0: scratch-OST0003-osc-ffff8d2e3c4a5000: operation ost_connect to node 10.0.0.5@o2ib failed: rc = -16", "shared_fs_error", "server", "scratch-OST0003 (10.0.0.5@o2ib)"),
    # wild sweep r45 (parallel / network file systems): the sources' forms (Lustre ptlrpc import.c / client.c, LNet o2iblnd, libceph)
    ("LustreError: 167-0: scratch-OST0003-osc-ffff8d2e3c4a5000: This client was evicted by scratch-OST0003; in progress operations using this service will fail.",
     "shared_fs_error", "event", "evicted"),
    ("LustreError: 167-0: This client was evicted by scratch-MDT0000; in progress operations using this service will fail.",
     "shared_fs_error", "server", "scratch-MDT0000"),  # Lustre < 2.4: no obd name
    ("Lustre: 10110:0:(client.c:2116:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent 1630583792/real 1630583792]  req@ffff8938c5083600 x1709089496416208/t0(0) o38->4vozvbmv-MDT0000-mdc-ffff88ddb2378000@10.0.205.151@tcp:12/10 lens 520/544 e 0 to 1 dl 1630583798 ref 1 fl Rpc:XN/0/ffffffff rc 0/-1",
     "shared_fs_error", "server", "4vozvbmv-MDT0000 (10.0.205.151@tcp)"),
    ("LNetError: 4316:0:(o2iblnd_cb.c:3335:kiblnd_check_conns()) Timed out RDMA with 10.0.0.5@o2ib (52): c: 0, oc: 0, rc: 8",
     "shared_fs_error", "event", "network_timeout"),
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
    # variants checked against the kernel's sources (issue 11, second pass)
    ("watchdog: CPU3: Watchdog detected hard LOCKUP on cpu 5", "host_kernel_fault", "cpu", 5),  # 6.6+ watchdog.c
    ("INFO: rcu_tasks detected stalls on tasks:", "host_kernel_fault", "event", "rcu_stall"),  # rcu/tasks.h
    ("rcu: INFO: rcu_tasks_trace detected stalls on tasks:", "host_kernel_fault", "hang", True),
    ("INFO: rcu_sched detected stall on CPU 3 (t=15000 jiffies)", "host_kernel_fault", "event", "rcu_stall"),  # < 3.7
    ("rcu: INFO: rcu_preempt detected stall, but suppressed full report due to a stuck CSD-lock.", "host_kernel_fault", "event", "rcu_stall"),
    ("Kernel BUG at skb_pull+0x25/0x30 [verbose debug info unavailable]", "host_kernel_fault", "event", "kernel_bug"),  # lib/bug.c
    ("Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI", "host_kernel_fault", "event", "oops"),  # 6.10+ __die_header
    ("divide error: 0000 [#1] SMP PTI", "host_kernel_fault", "hang", False),
    ("Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010", "host_kernel_fault", "event", "oops"),  # arm64
    ("Unable to handle kernel paging request at virtual address ffff800010003eb0", "host_kernel_fault", "event", "oops"),
    ("Internal error: Oops: 0000000096000004 [#1] PREEMPT SMP", "host_kernel_fault", "event", "oops"),  # arm64 die()
    ("python3[2345]: unhandled exception: DABT (lower EL), ESR 0x0000000092000006, level 2 translation fault in libfoo.so[ffff8a000000+1000]",
     "process_crash", "fault", "level 2 translation fault"),  # arm64_show_signal
    ("python3[2345]: unhandled exception: DABT (lower EL), ESR 0x0000000092000006, level 2 translation fault in libfoo.so[ffff8a000000+1000]",
     "process_crash", "library", "libfoo.so"),
    ("kworker/u8:2 invoked oom-killer: gfp_mask=0x15080c0(GFP_KERNEL_ACCOUNT|__GFP_ZERO), nodemask=(null),  order=1, oom_score_adj=0",
     "host_oom_invoked", "order", 1),  # 4.9-4.19 dump_header
    ("end_request: I/O error, dev sda, sector 2048", "storage_io_error", "device", "sda"),  # < 4.0
    ("blk_update_request: protection error, dev nvme0n1, sector 8", "storage_io_error", "device", "nvme0n1"),
    ("I/O error, dev sdb, sector 16 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 2", "storage_io_error", "event", "io_error"),
    ("device offline error, dev sdd, sector 0 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0", "storage_io_error", "device", "sdd"),
    ("mount: server 10.0.0.5 not responding, timed out", "shared_fs_error", "event", "timed_out"),  # cl_program->name
    ("CPU1: Temperature above threshold, cpu clock throttled (total events = 1)", "host_cpu_throttle", "scope", "core"),  # 2.6.2x
    ("mlx5_core 0000:5c:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, High Temperature",
     "nic_link_event", "pci_bus_id", "0000:5c:00.0"),  # mlx5_core_err prefix
    ("pci 0000:00:01.0: DPC: containment event, status:0x0009: unmasked uncorrectable error detected", "pcie_dpc_event", "status", "0x0009"),
    ("pcieport 0000:00:01.0: DPC: containment event, status:0x1f01, ERR_FATAL received from 0000:01:00.0", "pcie_dpc_event", "source", "0000:01:00.0"),
    ("pcieport 0000:00:03.1: DPC: unmasked uncorrectable error detected", "pcie_dpc_event", "port", "0000:00:03.1"),
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
    ("Oct 11 05:39:13 chi412 kernel: NMI watchdog: Watchdog detected hard LOCKUP on cpu 79",
     "host_kernel_fault", "cpu", 79, "chi412"),  # Open-CAS/ocf#408
    ("2026-01-15T09:47:08.194534+09:00 uranus kernel: Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010",
     "host_kernel_fault", "event", "oops", "uranus"),  # NVIDIA/aerial-cuda-accelerated-ran#18 (arm64)
    ("[    1.076797] Internal error: Oops: 96000004 [#1] PREEMPT SMP", "host_kernel_fault", "event", "oops", "n1"),  # libre-computer-project/libretech-linux#8
    ("[  415.118808] blk_update_request: I/O error, dev nvme1n1, sector 823872 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0",
     "storage_io_error", "device", "nvme1n1", "n1"),  # oxidecomputer/crucible#408 (5.3-5.15)
    ("[ 4700.639133] I/O error, dev nvme0n1, sector 131209936 op 0x0:(READ) flags 0x80700 phys_seg 25 prio class 0",
     "storage_io_error", "event", "io_error", "n1"),  # oxidecomputer/crucible#1844 (5.16+)
    ("[ 4730.850402] Buffer I/O error on device nvme0n1p1, logical block 1066386",
     "storage_io_error", "event", "buffer_io_error", "n1"),  # oxidecomputer/crucible#1844 (ext4 page-io.c)
    ("[ 1993.291923] print_req_error: I/O error, dev nvme0n1, sector 12534528 flags 104001",
     "storage_io_error", "device", "nvme0n1", "n1"),  # axboe/fio#862 (4.18-5.2)
    ("[ 1993.293424] Buffer I/O error on dev nvme0n1, logical block 1566816, lost async page write",
     "storage_io_error", "device", "nvme0n1", "n1"),  # axboe/fio#862
    ("[275808.417983] blk_update_request: operation not supported error, dev nvme0n1, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0",
     "storage_io_error", "event", "io_error", "n1"),  # spdk/spdk#1502
    ('[    0.339726] irq 32: nobody cared (try booting with the "irqpoll" option)',
     "host_hardware_error", "location", "irq 32", "n1"),  # openbmc/linux#210
    ('lis 02 20:23:06 tpgbox.localdomain kernel: irq 16: nobody cared (try booting with the "irqpoll" option)',
     "host_hardware_error", "location", "irq 16", "tpgbox.localdomain"),  # OpenMandrivaAssociation/distribution#260
    ("[Wed Sep 29 07:12:20 2021] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
     "host_oom_invoked", "process", "python3", "n1"),  # RTXteam/RTX#1680
    # wild sweep r45: jade-hpc-gpu/jade-hpc-gpu.github.io#14, ceph/ceph-csi#4050, a ceph-devel patch's syslog line
    ("[Mon Oct 16 10:06:17 2017] LustreError: 11-0: jmain01-MDT0000-mdc-ffff88203810d800: operation obd_ping to node 172.31.126.88@o2ib failed: rc = -107",
     "shared_fs_error", "rc", -107, "n1"),
    ("[Mon Oct 16 10:00:12 2017] Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) @@@ Request sent has failed due to network error: [sent 1508144508/real 1508144518]  req@ffff880eb14da700 x1570198182041824/t0(0) o250->MGC172.31.126.87@o2ib@172.31.126.87@o2ib:26/25 lens 520/544 e 0 to 1 dl 1508144563 ref 1 fl Rpc:eXN/0/ffffffff rc 0/-1",
     "shared_fs_error", "server", "MGC172.31.126.87@o2ib (172.31.126.87@o2ib)", "n1"),
    ("[Mon Oct 16 09:54:43 2017] LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for 172.31.126.87@o2ib: 403055 seconds",
     "shared_fs_error", "server", "172.31.126.87@o2ib", "n1"),
    ("[65324.056564] libceph: mon2 (1)10.0.0.247:6789 session lost, hunting for new mon", "shared_fs_error", "server", "mon2 (1)10.0.0.247:6789", "n1"),
    ("Apr 18 12:23:38 client1 kernel: libceph: mon0 (2)192.168.1.81:3300 session lost, hunting for new mon", "shared_fs_error", "filesystem", "ceph", "client1"),
]

# lines of the same subsystems that report no fault (or only detail one): left unread
NEAR_MISSES = [
    "CPU17: Core temperature/speed normal (total events = 4242)",
    "nfs: server nfs01 OK",
    "mlx5_core 0000:3b:00.0 ens1f0np0: Link up",
    "mlx5_core 0000:3b:00.0: Port module event: module 0, Cable plugged",
    "Lustre: scratch-OST0003-osc-ffff8d2e3c4a5000: Connection restored to 10.0.0.5@o2ib (at 10.0.0.5@o2ib)",
    "Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) Skipped 24 previous similar messages",
    "LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Skipped 24 previous similar messages",
    "libceph: mon1 (1)10.0.0.249:6789 session established",
    "libceph: osd2 (1)10.0.0.249:6801 socket closed (con state OPEN)",
    "pcieport 0000:00:03.1: DPC: error containment capabilities: Int Msg #0, RPExt+ PoisonedTLP+ SwTrigger+ RP PIO Log 4, DL_ActiveErr+",
    '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
    "Disabling IRQ #123",
    "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
    "rcu: Hierarchical RCU implementation.",
    "INFO: task python:12345 is blocked on a mutex likely owned by task python:12346.",  # 6.14+ hung_task detail
    "pcieport 0000:00:03.1: DPC: enabled with IRQ 122",
    "Oops: 0000 [1]",
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


# real oops reports (public threads, even-numbered): the opening line is the oops; the die() header after it details it
OOPS_REPORTS = [
    # NVIDIA/open-gpu-kernel-modules#276 (x86, 5.15)
    ("[    2.613694] BUG: kernel NULL pointer dereference, address: 0000000000000fa8\n"
     "[    2.615816] #PF: supervisor write access in kernel mode\n"
     "[    2.616883] #PF: error_code(0x0002) - not-present page\n"
     "[    2.617941] PGD 112897067 P4D 112897067 PUD 112898067 PMD 0 \n"
     "[    2.618999] Oops: 0002 [#1] PREEMPT SMP NOPTI\n"),
    # raspberrypi/linux#3222 (arm64, 5.15)
    ("[32185.008731] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000018\n"
     "[32185.008765] Mem abort info:\n"
     "[32185.008770]   ESR = 0x96000005\n"
     "[32185.008776]   EC = 0x25: DABT (current EL), IL = 32 bits\n"
     "[32185.008783]   SET = 0, FnV = 0\n"
     "[32185.008788]   EA = 0, S1PTW = 0\n"
     "[32185.008792]   FSC = 0x05: level 1 translation fault\n"
     "[32185.008798] Data abort info:\n"
     "[32185.008802]   ISV = 0, ISS = 0x00000005\n"
     "[32185.008807]   CM = 0, WnR = 0\n"
     "[32185.008813] user pgtable: 4k pages, 39-bit VAs, pgdp=00000000427aa000\n"
     "[32185.008820] [0000000000000018] pgd=0000000000000000, p4d=0000000000000000, pud=0000000000000000\n"
     "[32185.008840] Internal error: Oops: 96000005 [#1] PREEMPT SMP\n"),
]


@pytest.mark.parametrize("text", OOPS_REPORTS)
def test_oops_header_details_the_line_that_opened_it(text):
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [(f.kind, f.event, f.evidence.line) for f in r.facts] == [("host_kernel_fault", "oops", 1)]


def test_panic_closing_line_is_read_with_its_opening_line():
    text = ("[  100.000001] Kernel panic - not syncing: Fatal exception\n"
            "[  100.000002] Kernel Offset: disabled\n"
            "[  100.000003] ---[ end Kernel panic - not syncing: Fatal exception ]---\n")
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [(f.kind, f.event, f.evidence.line) for f in r.facts] == [("host_kernel_fault", "panic", 1)]
    alone = kernel_log.parse(Artefact(path="k.log", text=text.splitlines(True)[2], node="n1"))
    assert [(f.kind, f.event) for f in alone.facts] == [("host_kernel_fault", "panic")]


def test_dpc_reason_line_details_the_containment_line():
    text = ("[256236.152631] pcieport 0000:89:02.0: DPC: containment event, status:0x1f01 source:0x0000\n"
            "[256236.152632] pcieport 0000:89:02.0: DPC: unmasked uncorrectable error detected\n")
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [(f.kind, f.evidence.line) for f in r.facts] == [("pcie_dpc_event", 1)]
    assert r.lines_used == 2


def test_oom_kill_of_the_allocating_task():
    line = "Out of memory (oom_kill_allocating_task): Kill process 6344 (sh) score 0 or sacrifice child\n"
    assert kernel_log.detect(line)
    (f,) = _facts(line)
    assert (f.kind, f.pid, f.process) == ("host_oom_kill", 6344, "sh")


# a hung task's call trace in a network file system (wild sweep 5E)
_KFIX = __import__("pathlib").Path(__file__).resolve().parents[2] / "fixtures/artefacts/kernel_log"


def _hung(text: str) -> list:
    return [f for f in _facts(text) if f.kind == "host_kernel_fault" and f.event == "hung_task"]


def test_hung_task_in_nfs_built_in_arm_trace():
    # raspberrypi/linux#2482: "(nfs_file_fsync)" with no module tag
    (h,) = _hung((_KFIX / "rpilinux2482_hung_task_in_nfs_fsync.log").read_text())
    assert (h.process, h.waits_on, h.on_shared_fs) == ("objcopy", "nfs", True)


def test_frames_before_the_hung_line_belong_to_another_task():
    # aws/aws-parallelcluster#1150: [nfs] frames end the previous task's trace; this one's is cut
    (h,) = _hung((_KFIX / "parallelcluster1150_messages_nfs_trace_then_hung_task.log").read_text())
    assert (h.pid, h.waits_on, h.on_shared_fs) == (80601, None, False)


@pytest.mark.parametrize("frame, fs", [
    ("[<ffffffffc08f1b66>] nfs_file_flush+0x46/0x60 [nfs]", "nfs"),
    (" rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]", "nfs"),
    (" nfs4_proc_getattr+0x5b/0x80 [nfsv4]", "nfs"),
    (" ll_file_io_generic+0x2aa/0x8e0 [lustre]", "lustre"),
    (" ptlrpc_set_wait+0x4d8/0x7c0 [ptlrpc]", "lustre"),
    (" cxiWaitEventWait+0x1e1/0x2e0 [mmfslinux]", "gpfs"),
    (" ceph_mdsc_do_request+0x11f/0x290 [ceph]", "ceph"),
    (" request_wait_answer+0x133/0x210 [fuse]", "fuse"),
])
def test_network_file_system_frames(frame, fs):
    text = f"[  480.1] INFO: task python:1708 blocked for more than 120 seconds.\n[  480.2] Call Trace:\n[  480.3] {frame}\n"
    (h,) = _hung(text)
    assert h.waits_on == fs


@pytest.mark.parametrize("frame", [
    " ll_rw_block+0x26/0x30",  # the block layer's, not Lustre's
    " nfsd_dispatch+0xd7/0x1ba [nfsd]",  # the NFS server's thread: its wait is in the exported file system
    " zfs_vget+0x1a/0x40 [zfs]",
    " os_dump_stack+0xe/0x10 [nvidia]",
])
def test_local_frames_are_not_a_network_file_system(frame):
    text = f"[  480.1] INFO: task python:1708 blocked for more than 120 seconds.\n[  480.3] {frame}\n"
    (h,) = _hung(text)
    assert (h.waits_on, h.on_shared_fs) == (None, False)


# the RPC client's recovery line (net/sunrpc/clnt.c call_decode(): "%s: server %s OK") after a stall
@pytest.mark.parametrize("prefix", PREFIXES)
def test_nfs_server_ok_later_marks_the_stall_recovered(prefix):
    text = (prefix + "nfs: server nfs01 not responding, still trying\n" + prefix + "nfs: server nfs01 OK\n"
            + prefix + "nfs: server nfs01 not responding, timed out\n")
    first, last = [f for f in _facts(text) if f.kind == "shared_fs_error"]
    assert (first.recovered, first.event, last.recovered, last.recovered_at) == (True, "not_responding", False, None)
    assert first.recovered_at == (kernel_log._stamp_of(prefix + "x") if prefix else None)


def test_real_nfs_stall_and_recovery_linux_surface_1494_and_openzfs_15734():
    # linux-surface/linux-surface#1494 (its dmesg's last two lines) and openzfs/zfs#15734 (dmesg -T), verbatim
    a = _facts("[32956.142249] nfs: server thinkcentre not responding, still trying\n[32958.266147] nfs: server thinkcentre OK\n")
    assert [(f.server, f.recovered, f.recovered_at) for f in a] == [("thinkcentre", True, "32958.266147")]
    b = _facts("[Wed Apr 10 17:58:38 2024] nfs: server 192.168.0.1 not responding, still trying\n"
               "[Wed Apr 10 17:58:39 2024] nfs: server 192.168.0.1 OK\n")
    assert [(f.server, f.recovered, f.recovered_at) for f in b] == [("192.168.0.1", True, "Wed Apr 10 17:58:39 2024")]


@pytest.mark.parametrize("text", [
    "nfs: server nfs01 OK\nnfs: server nfs01 not responding, still trying\n",  # the OK came before the stall
    "nfs: server nfs01 not responding, still trying\nnfs: server nfs02 OK\n",  # another server
    "nfs: server nfs01 not responding, still trying\nlockd: server nfs01 OK\n",  # another RPC program
    "nfs: server nfs01 not responding, still trying\nnfs: server nfs01 OK for now, it said\n",  # not the kernel's line
])
def test_nfs_stall_not_recovered(text):
    (f,) = [f for f in _facts(text) if f.kind == "shared_fs_error"]
    assert f.recovered is False


def test_a_panic_names_the_function_and_module_of_its_rip():
    # siderolabs/talos#8624: mlx5_core's probe crashed in esw_port_metadata_get; the paste starts inside the trace
    text = (FIX / "kernel_log" / "talos8624_mlx5_core_probe_panic.log").read_text()
    (f,) = [f for f in kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts if f.kind == "host_kernel_fault"]
    assert (f.event, f.in_function, f.in_module, f.evidence.line) == ("panic", "esw_port_metadata_get", "mlx5_core", 27)


CRASH_IP_REPORTS = [
    # ntop/PF_RING#856 (dmesg -T, 5.10): the oops' RIP follows its opening line, in a module
    ("[Fri Feb  3 15:17:22 2023] BUG: kernel NULL pointer dereference, address: 0000000000000010\n"
     "[Fri Feb  3 15:17:22 2023] #PF: supervisor read access in kernel mode\n"
     "[Fri Feb  3 15:17:22 2023] #PF: error_code(0x0000) - not-present page\n"
     "[Fri Feb  3 15:17:22 2023] PGD 0 P4D 0\n"
     "[Fri Feb  3 15:17:22 2023] Oops: 0000 [#1] SMP NOPTI\n"
     "[Fri Feb  3 15:17:22 2023] CPU: 16 PID: 849 Comm: connmand Tainted: G           OE     5.10.0-16-amd64 #1 Debian 5.10.127-2\n"
     "[Fri Feb  3 15:17:22 2023] Hardware name: Dell Inc. PowerEdge R7525/0YHMCJ, BIOS 2.9.3 08/05/2022\n"
     "[Fri Feb  3 15:17:22 2023] RIP: 0010:i40e_setup_tx_descriptors+0x7/0xb0 [i40e]\n",
     "i40e_setup_tx_descriptors", "i40e"),
    # multipath-tcp/mptcp#30 (3.11): show_fault_oops' "IP: [<...>] <symbol>" right after the BUG line, in the core kernel
    ("[73727.941121] BUG: unable to handle kernel NULL pointer dereference at 0000000000000014\n"
     "[73727.941157] IP: [<ffffffff813a9e68>] mptcp_reqsk_find_tk+0x1c/0x27\n"
     "[73727.941186] PGD 0 \n"
     "[73727.941199] Oops: 0000 [#1] SMP \n",
     "mptcp_reqsk_find_tk", None),
]


@pytest.mark.parametrize("text, function, module", CRASH_IP_REPORTS)
def test_an_oops_names_the_function_and_module_of_its_rip(text, function, module):
    (f,) = kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts
    assert (f.kind, f.event, f.in_function, f.in_module, f.evidence.line) == ("host_kernel_fault", "oops", function, module, 1)


def test_a_user_mode_rip_or_a_hang_names_no_crash_site():
    from stethoscope.facts.parsers.kernel_log_host_os import _CRASH_IP
    # Aquantia/AQtion#32: the user-mode frame of a syscall (cs 0033) has an address, no symbol
    assert _CRASH_IP.search("lis 16 19:01:53 r6 kernel: RIP: 0033:0x7f54981d03fd") is None
    # an oops whose report has no RIP line within it names nothing (NVIDIA/open-gpu-kernel-modules#276's opening lines)
    (f,) = kernel_log.parse(Artefact(path="k.log", text=OOPS_REPORTS[0], node="n1")).facts
    assert (f.in_function, f.in_module) == (None, None)


BANDWIDTH_LIMITED = [
    # NVIDIA/l2fwd-nv#6 (5.0): a 100 GbE ConnectX-6 Dx behind an x8 Gen3 port, pci_speed_string without "PCIe"
    ("[10380.315885] mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link at 0000:b2:00.0"
     " (capable of 252.048 Gb/s with 16 GT/s x16 link)", "0000:b3:00.1", "nic", 8.0, 8, 16.0, 16),
    # openwrt/openwrt#24642 (6.18, syslog through logread): the newer "8.0 GT/s PCIe" form, a device without a driver yet
    ("Wed Aug 12 17:30:58 2026 kern.info kernel: [    3.027370] pci 0003:01:00.0: 7.876 Gb/s available PCIe bandwidth,"
     " limited by 8.0 GT/s PCIe x1 link at 0003:00:00.0 (capable of 15.752 Gb/s with 8.0 GT/s PCIe x2 link)",
     "0003:01:00.0", "unknown", 8.0, 1, 8.0, 2),
]


@pytest.mark.parametrize("line, device, dtype, speed, width, cap_speed, cap_width", BANDWIDTH_LIMITED)
def test_the_pci_cores_bandwidth_limited_notice_is_the_devices_link_status(line, device, dtype, speed, width, cap_speed, cap_width):
    (f,) = kernel_log.parse(Artefact(path="k.log", text=line + "\n", node="n1")).facts
    assert (f.kind, f.device, f.device_type, f.speed_gts, f.width, f.cap_speed_gts, f.cap_width) == (
        "pcie_link_status", device, dtype, speed, width, cap_speed, cap_width)
    assert f.width_below_cap and f.speed_below_cap == (speed < cap_speed) and not f.no_link


def test_a_full_bandwidth_notice_is_no_link_status():
    # geerlingguy/arm-nas#16: the info-level form of a link at its capability
    text = "[   10.643346] mlx5_core 0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)\n"
    assert [f.kind for f in kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts] == []


# A panic names the crash site of the report it ends (kernel_log_host_os._panic_ip). CONSTRUCTED from the kernel's
# format strings around real lines: the WARN of NVIDIA/open-gpu-kernel-modules#916 (its WARNING and RIP lines), x86
# arch/x86/mm/fault.c's "BUG: kernel NULL pointer dereference, address: %px", __die_header's "Oops: %04lx [#%d]",
# __show_regs' "RIP: %04x:%pS", print_oops_end_marker's "---[ end trace %016llx ]---", oops_end()'s
# panic("Fatal exception"), __warn's panic_on_warn panic (6.2+ check_panic_on_warn: "%s: panic_on_warn set ..."),
# kernel/watchdog.c's panic("softlockup: hung tasks").
_WARN_NVIDIA = ("[ 100.000001] ------------[ cut here ]------------\n"
                "[ 100.000002] WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]\n"
                "[ 100.000003] RIP: 0010:nvidia_dev_put+0xb1/0xc0 [nvidia]\n"
                "[ 100.000004] ---[ end trace 0000000000000000 ]---\n")
_WARN_EXT4 = ("[ 100.000001] ------------[ cut here ]------------\n"
              "[ 100.000002] WARNING: CPU: 3 PID: 812 at fs/ext4/inode.c:3600 ext4_set_page_dirty+0x3c/0x60 [ext4]\n"
              "[ 100.000003] RIP: 0010:ext4_set_page_dirty+0x3c/0x60 [ext4]\n"
              "[ 100.000004] ---[ end trace 0000000000000001 ]---\n")


def _oops(rip: str | None) -> str:
    return ("[ 200.000001] BUG: kernel NULL pointer dereference, address: 0000000000000028\n"
            "[ 200.000002] Oops: 0000 [#1] SMP NOPTI\n"
            "[ 200.000003] CPU: 3 PID: 812 Comm: python3 Tainted: P        W  OE     5.15.0 #1\n"
            + (f"[ 200.000004] RIP: 0010:{rip}\n" if rip else "[ 200.000004] Code: Unable to access opcode bytes\n")
            + "[ 200.000005] ---[ end trace 0000000000000002 ]---\n")


_PANIC = "[ 200.100000] Kernel panic - not syncing: Fatal exception\n"


def _panic(text: str):
    (f,) = [f for f in kernel_log.parse(Artefact(path="k.log", text=text, node="n1")).facts
            if f.kind == "host_kernel_fault" and f.event == "panic"]
    return f.in_function, f.in_module, f.in_gpu_driver or None


@pytest.mark.parametrize("text, site", [
    # a WARN in nvidia, then an oops in ext4 that the panic ends: the host's crash, not the driver's
    (_WARN_NVIDIA + _oops("ext4_es_lookup_extent+0x3c/0x2a0 [ext4]") + _PANIC, ("ext4_es_lookup_extent", "ext4", None)),
    # the same oops pasted without its RIP line: the panic names no site (before: the WARN's, nvidia's)
    (_WARN_NVIDIA + _oops(None) + _PANIC, (None, None, None)),
    # the reverse: a WARN in ext4, then an oops in nvidia_uvm (#1110's RIP): the driver's crash
    (_WARN_EXT4 + _oops("uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]") + _PANIC,
     ("uvm_hmm_unregister_gpu", "nvidia_uvm", True)),
    # a WARN printed between the oops and its panic (the dying task's exit path) is not what the panic ends
    (_oops("ext4_es_lookup_extent+0x3c/0x2a0 [ext4]") + _WARN_NVIDIA + _PANIC, ("ext4_es_lookup_extent", "ext4", None)),
    (_oops("uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]") + _WARN_EXT4 + _PANIC,
     ("uvm_hmm_unregister_gpu", "nvidia_uvm", True)),
    # panic_on_warn: the panic ends the WARN, whose RIP it takes
    (_WARN_EXT4 + _WARN_NVIDIA + "[ 100.000005] Kernel panic - not syncing: kernel: panic_on_warn set ...\n",
     ("nvidia_dev_put", "nvidia", True)),
    # a soft lockup's panic: a stuck CPU's registers are no crash site (the lockup names none either)
    ("[ 300.000001] watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python:12345]\n"
     "[ 300.000002] RIP: 0010:nvidia_dev_put+0xb1/0xc0 [nvidia]\n"
     "[ 300.000003] Kernel panic - not syncing: softlockup: hung tasks\n", (None, None, None)),
])
def test_a_panic_names_the_site_of_the_report_it_ends(text, site):
    assert _panic(text) == site


# lib/nmi_backtrace.c: "NMI backtrace for cpu %d" opens a CPU's dump asked for by a hang detector, a panic or sysrq-l
_NMI_FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"


def _kinds(text):

    res = kernel_log.parse(Artefact(path="dmesg", text=text, node="n1"))
    return res, [f for f in res.facts if f.kind in ("kernel_cpu_backtrace", "host_kernel_fault")]


def test_nmi_backtrace_after_its_request_is_the_reports_detail():
    # openzfs/zfs#1850 (verbatim): an RCU stall, the older "sending NMI to all CPUs:", CPU 0's dump: one fact, the stall's
    res, facts = _kinds((_NMI_FIX / "zfs1850_rcu_stall_nmi_backtrace.log").read_text())
    assert [(f.kind, getattr(f, "event", None)) for f in facts] == [("host_kernel_fault", "rcu_stall")]


def test_nmi_backtrace_alone_is_a_cpu_backtrace_fact():
    # NVIDIA/open-gpu-kernel-modules#456 (verbatim): the dump without the report that asked for it
    res, facts = _kinds((_NMI_FIX / "ogkm456_nmi_backtrace_without_request.log").read_text())
    (f,) = facts
    assert (f.kind, f.cpu, f.idle, f.asked_by, f.process, f.in_function, f.in_module) == (
        "kernel_cpu_backtrace", 12, False, None, "python", "pvclock_clocksource_read", None)


def test_every_cpus_dump_after_one_request_is_its_detail():
    # a soft lockup's all-CPU backtrace (kernel/watchdog.c, lib/nmi_backtrace.c; 6.x forms, CONSTRUCTED): three dumps,
    # an idle CPU's "skipped" line among them, more than the first dump's reach from the request
    dump = "".join(f"[  100.0{i:02d}] NMI backtrace for cpu {i}\n[  100.0{i:02d}] CPU: {i} UID: 0 PID: 0 Comm: swapper/{i} Not tainted 6.12.0 #1\n"
                   + "".join(f"[  100.0{i:02d}]  frame_{k}+0x1/0x2\n" for k in range(50)) for i in range(3))
    text = ("[   99.900000] watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python:4242]\n"
            "[   99.900100] Sending NMI from CPU 3 to CPUs 0-2:\n" + dump
            + "[  100.100000] NMI backtrace for cpu 4 skipped: idling at intel_idle+0x62/0xb0\n")
    res, facts = _kinds(text)
    assert [(f.kind, getattr(f, "event", None)) for f in facts] == [("host_kernel_fault", "soft_lockup")]


def test_nmi_backtrace_after_sysrq_is_the_operators():
    # drivers/tty/sysrq.c "Show backtrace of all active CPUs" (pr_fmt "sysrq: "), then an idle CPU (CONSTRUCTED)
    res, facts = _kinds("[  50.000000] sysrq: Show backtrace of all active CPUs\n"
                        "[  50.000100] NMI backtrace for cpu 1 skipped: idling at intel_idle+0x62/0xb0\n")
    assert [(f.kind, f.cpu, f.idle, f.asked_by) for f in facts] == [("kernel_cpu_backtrace", 1, True, "sysrq")]


def test_gpu_driver_crash_site_without_its_report_is_a_cut_capture():
    # NVIDIA/open-gpu-kernel-modules#270 (round rQ4): the RIP of a report in nvidia_modeset, its opening line not pasted
    from stethoscope.facts.parsers import kernel_log
    from stethoscope.facts.parsers.base import Artefact
    text = open("fixtures/artefacts/kernel_log/ogkm270_rip_nvidia_modeset_report_cut.log", encoding="utf-8").read()
    r = kernel_log.parse(Artefact(path="kernel_log/ogkm270.log", text=text, node="n1"))
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 4)]
    assert "GrabOwnership in nvidia_modeset" in r.limits[0].detail


@pytest.mark.parametrize("text", [
    # NVIDIA/open-gpu-kernel-modules#1110's oops: its opening line is there (the fault reads it, with the RIP)
    "BUG: kernel NULL pointer dereference, address: 00000000000000a8\nRIP: uvm_hmm_unregister_gpu+0x51/0x3a0 [nvidia_uvm]\n",
    # CONSTRUCTED from __warn's format: a WARN report in the driver, its RIP under it
    "[  5.0] WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 nvidia_dev_put+0xb1/0xc0 [nvidia]\n"
    "[  5.0] RIP: 0010:nvidia_dev_put+0xb1/0xc0 [nvidia]\n",
    # siderolabs/talos#8624's RIP in a NIC driver: not the GPU driver's (read by its own rules or not at all)
    "RIP: 0010:esw_port_metadata_get+0x19/0x30 [mlx5_core]\n",
    # a user-mode RIP has no symbol
    "[  5.0] RIP: 0033:0x7f54981d03fd\n",
])
def test_crash_sites_that_are_no_cut_gpu_driver_report(text):
    from stethoscope.facts.parsers import kernel_log
    from stethoscope.facts.parsers.base import Artefact
    r = kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1"))
    assert not [h for h in r.limits if "crash site in the GPU driver" in h.detail]


def test_the_whole_text_tests_are_answered_by_the_classifiers_set():
    """kernel_log's TEXT_GATES (the NVRM retagging's literals, "Xid", the crash site's and the NFS lines' literals:
    whole-text str searches of each log, ~1 ms of a bench node's dmesg) answer what the reader's own searches do, and
    its facts and limits are the same whether the classifier's pass answered them or the reader searched (a text it did
    not scan last); every real kernel log fixture, those with a colonless NVRM line, an untagged RmInitAdapter line, an
    oops's RIP and Xid lines among them (issue 12, round rBA8)."""
    from stethoscope.facts import classify
    from stethoscope.facts.parsers import kernel_log_host_os as host_os

    literals = {kernel_log._COLONLESS_FIND: ("NVRM ",), kernel_log._UNTAGGED_GATE: kernel_log._UNTAGGED_KEYS,
                kernel_log._XID_GATE: ("Xid",), host_os.CRASH_SITE_GATE: ("RIP", "pc : ", "IP: ", "NIP "),
                host_os.NFS_SERVER_GATE: (": server ",)}
    assert set(literals) == set(kernel_log.TEXT_GATES)
    held = set()
    paths = sorted(p for p in (FIX / "kernel_log").iterdir() if p.suffix != ".md" or p.name != "README.md")
    for path in paths:
        text = path.read_text(errors="replace")
        made = []
        for scanned in (True, False):
            if scanned:
                classify.classifier().scan(text)
                for g, lits in literals.items():
                    assert classify.gate(text, g) == any(lit in text for lit in lits), (path.name, g.pattern)
                    held.update([g.pattern] if classify.gate(text, g) else [])
            else:
                classify.forget()
            res = kernel_log.parse(Artefact(path=path.name, text=text, node="n"))
            made.append(([f.model_dump() for f in res.facts], [repr(x) for x in (*res.limits, *res.errors)]))
        assert made[0] == made[1], path.name
    classify.forget()
    assert held == {g.pattern for g in literals}  # (each gate holds in some fixture)
