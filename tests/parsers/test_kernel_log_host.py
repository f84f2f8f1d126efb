"""Host faults in the kernel log (kernel_log_host via kernel_log) and the ConnectX driver's
health and completion lines (mlx5_core_log): real lines from public threads, table-driven,
under dmesg, dmesg -T and journald prefixes, with near misses that must stay unread."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log, mlx5_core_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"

PREFIXES = ("", "[  265.311275] ", "[Mon Jan  8 10:00:01 2024] ", "Jan  8 10:00:01 node1 kernel: ",
            "2024-01-08T10:00:01+0000 node1 kernel: ")

# (real message, kind, field, value): each line as a public thread or the kernel's own report quotes it
HOST_LINES = [
    ("NETDEV WATCHDOG: eth0 (ftgmac100): transmit queue 0 timed out", "netdev_tx_timeout", "interface", "eth0"),
    ("NETDEV WATCHDOG: eth2 (igb): transmit queue 5 timed out", "netdev_tx_timeout", "queue", 5),
    ("r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out 5010 ms", "netdev_tx_timeout", "interface", "eth4"),
    ("ena 0000:00:05.0 ens5: Found a Tx that wasn't completed on time, qid 2, index 0. 5756000 usecs have passed since last napi execution. "
     "Missing Tx timeout value 5000 msecs", "netdev_tx_timeout", "timeout_ms", 5000),   # amzn/amzn-drivers#220
    ("ena 0000:00:05.0 eth0: Found a Tx that wasn't completed on time, qid 2, index 961.", "netdev_tx_timeout", "queue", 2),
    ("ena 0000:00:06.0 eth1: TX hasn't completed, qid 3, index 17. 5200000 usecs from last napi execution, napi scheduled: 1",
     "netdev_tx_timeout", "interface", "eth1"),   # ena_netdev.c 6.x format string
    ("ena 0000:00:05.0 eth0: Keep alive watchdog timeout.", "nic_keep_alive_timeout", "interface", "eth0"),   # ena_netdev.c check_for_missing_keep_alive
    ("vfio_pin_pages_remote: RLIMIT_MEMLOCK (65536) exceeded", "vfio_pin_memlock_exceeded", "limit_bytes", 65536),   # kubevirt/kubevirt#8472
    ("vfio_pin_page_external: Task qemu-system-x86 (2296) RLIMIT_MEMLOCK (65536) exceeded", "vfio_pin_memlock_exceeded", "task",
     "qemu-system-x86"),   # intel/gvt-linux#78
    ("nvme nvme1: I/O 775 QID 2 timeout, aborting", "storage_io_error", "event", "io_timeout"),
    ("nvme nvme2: I/O 0 QID 0 timeout, reset controller", "storage_io_error", "device", "nvme2"),
    ("nvme nvme0: I/O 309 (Write) QID 1 timeout, aborting", "storage_io_error", "event", "io_timeout"),   # sophgo/linux-riscv#92
    ("nvme nvme0: I/O tag 28 (401c) opcode 0x2 (Read) QID 3 timeout, aborting req_op:READ(0) size:4096", "storage_io_error", "event",
     "io_timeout"),   # 6.x pci.c nvme_timeout's tag/cid/opcode form (filled)
    ("nvme nvme2: Device not ready; aborting reset", "storage_io_error", "event", "controller_down"),
    ("nvme nvme2: Removing after probe failure status: -19", "storage_io_error", "event", "controller_removed"),
    ("EXT4-fs error (device sda2): __ext4_find_entry:1612: inode #187700: comm cleanup: reading directory lblock 0", "storage_io_error", "event", "fs_error"),
    ("EXT4-fs (sda2): I/O error while writing superblock", "storage_io_error", "event", "fs_io_error"),
    ("EXT4-fs warning (device dm-1): ext4_end_bio:316: I/O error -19 writing to inode 10223621 (offset 50331648 size 6148096 starting block 14409150)", "storage_io_error", "device", "dm-1"),
    ("XFS (dm-0): xfs_log_force: error -5 returned.", "storage_io_error", "event", "fs_io_error"),
    ("XFS (sdb6): log I/O error -5", "storage_io_error", "device", "sdb6"),
    ("XFS (dm-7): metadata I/O error: block 0x280000010 (\"xlog_bread_noalign\") error 5 numblks 8", "storage_io_error", "event", "fs_io_error"),
    ("XFS (xvdb): Log I/O Error Detected.  Shutting down filesystem", "storage_io_error", "event", "fs_shutdown"),
    ("XFS (sdb6): Filesystem has been shut down due to log error (0x2).", "storage_io_error", "event", "fs_shutdown"),
    ("XFS (nbd0): Metadata corruption detected at xfs_dinode_verify.part.0+0x172/0x640 [xfs], inode 0x14506b6d dinode", "storage_io_error", "event", "fs_corruption"),
    ("mce: [Hardware Error]: Machine check events logged", "host_hardware_error", "source", "mce"),
    ("EDAC MC1: 262 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x2031c14 offset:0x940 grain:32 syndrome:0x0 -  OVERFLOW area:DRAM err_code:0001:0091 socket:0 ha:0 channel_mask:2 rank:1)", "host_hardware_error", "count", 262),
    ("EDAC MC0: 4 CE error on CPU#0Channel#2_DIMM#0 (channel:2 slot:0 page:0x0 offset:0x0 grain:8 syndrome:0x0)", "host_hardware_error", "location", "CPU#0Channel#2_DIMM#0"),
]

# lines of the same drivers that report no fault (or only detail one): left unread
NEAR_MISSES = [
    "nvme nvme1: Abort status: 0x6",
    "nvme nvme0: I/O 309 (Write) QID 1 timeout, completion polled",   # a lost interrupt whose I/O completed
    "XFS (vda4): Mounting V5 Filesystem",
    "XFS (vda4): Ending clean mount",
    "EXT4-fs (sdb): mounted filesystem 0a1b6d61-93f8-486f-9f08-0f5af0d65db8 r/w with ordered data mode. Quota mode: none.",
    "EDAC sbridge MC1: HANDLING MCE MEMORY ERROR",
    "EDAC MC0: Giving out device to module sb_edac controller Haswell SrcID#0_Ha#0: DEV 0000:7f:12.0 (INTERRUPT)",
    "mlx5_core 0000:08:00.0 ens1: Link up",
    "ena 0000:00:05.0: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.4.0g",
    "ena 0000:00:03.0 eth0: Trigger reset is on",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "kind", "field", "value"), HOST_LINES)
def test_host_fault_lines(prefix, line, kind, field, value):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    (f,) = [f for f in r.facts if f.kind == kind]
    assert getattr(f, field) == value
    assert f.evidence.line == 1 and line in f.evidence.text
    assert f.node == ("node1" if "node1" in prefix else "n1")


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_misses_make_no_fact(line):
    r = kernel_log.parse(Artefact(path="k.log", text="[  265.311275] " + line + "\n", node="n1"))
    assert r.facts == []


def test_edac_detail_lines_are_left_and_the_ce_line_read():
    r = kernel_log.parse(Artefact(path="e.log", text=(FIX / "kernel_log" / "scicomp66_dmesg_T_edac_ce.log").read_text(), node="dunkel"))
    (f,) = r.facts
    assert (f.source, f.corrected, f.count, f.memory_controller, f.evidence.line) == ("edac", True, 262, "MC1", 7)
    assert f.timestamp == "Mon Oct  3 13:52:42 2022"


def test_mlx5_health_fatal_error_and_its_syndrome():
    text = ("[  204.791017] mlx5_core 0000:41:00.0: poll_health:478:(pid 0): Fatal error 1 detected\n"
            "[  204.791023] mlx5_core 0000:41:00.0: print_health_info:410:(pid 0): assert_var[0] 0xffffffff\n"
            "[  204.791044] mlx5_core 0000:41:00.0: print_health_info:421:(pid 0): synd 0xff: unrecognized error\n")
    assert mlx5_core_log.detect(text)
    (h,) = mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1")).facts
    assert (h.pci_bus_id, h.event, h.fatal, h.sensor, h.syndrome) == ("0000:41:00.0", "fatal_error", True, 1, "unrecognized error")


@pytest.mark.parametrize(("line", "event", "fatal"), [
    ("mlx5_core 0000:41:00.1: poll_health:471:(pid 0): device's health compromised - reached miss count", "health_compromised", True),
    ("mlx5_core 0000:41:00.0: health recovery flow aborted, PCI reads still not working", "recovery_failed", True),
    ("mlx5_core 0000:41:00.0: print_health_info:430:(pid 0): Health issue observed, High temperature, severity(4) WARNING:", "health_issue", False),
    ("mlx5_core 0000:41:00.0: print_health_info:430:(pid 0): Health issue observed, firmware internal error, severity(1) ALERT:", "health_issue", True),
])
def test_mlx5_health_forms(line, event, fatal):
    (h,) = mlx5_core_log.parse(Artefact(path="m.log", text="[  131.239013] " + line + "\n", node="n1")).facts
    assert (h.event, h.fatal) == (event, fatal)


def test_mlx5_probe_failure_is_an_hca_that_never_came_up():
    # scitix/sichek#118: a BF3 ConnectX-7 whose mlx5_core probe failed at boot (the firmware command before it stays unread)
    text = ("mlx5_core 0000:69:01.0: SET_HCA_CAP(0x109) failed, syndrome (0x722d0b), err(-22)\n"
            "mlx5_core: probe of 0000:69:01.0 failed with error -22\n")
    assert mlx5_core_log.detect(text)
    (h,) = mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1")).facts
    assert (h.kind, h.pci_bus_id, h.event, h.fatal, h.evidence.line) == ("mlx5_health_event", "0000:69:01.0", "probe_failed", False, 2)
    assert h.message == "mlx5_core: probe of 0000:69:01.0 failed with error -22"
    # another driver's probe failure is not the HCA's
    assert not mlx5_core_log.detect("nvidia: probe of 0000:5d:00.0 failed with error -1\n")


@pytest.mark.parametrize(("line", "device", "status", "text"), [
    ("infiniband mlx5_4: mlx5_handle_error_cqe:332:(pid 0): WC error: 4, Message: local protection error", "mlx5_4", 4, "local protection error"),
    ("infiniband mlx5_0: mlx5_handle_error_cqe:333:(pid 0): WC error: 10, message: remote access error", "mlx5_0", 10, "remote access error"),
    ("infiniband rocep8s0f0: dump_cqe:277:(pid 0): WC error: 6, Message: memory bind operation error", "rocep8s0f0", 6, "memory bind operation error"),
])
@pytest.mark.parametrize("prefix", PREFIXES)
def test_kernel_wc_error_forms(prefix, line, device, status, text):
    e = _only_mlx5_fact(prefix + line + "\n")
    assert (e.kind, e.device, e.status, e.status_text) == ("kernel_ib_completion_error", device, status, text)


def _only_mlx5_fact(body: str):
    """The one fact mlx5_core_log reads from ``body``, which it must recognise."""
    assert mlx5_core_log.detect(body)
    (fact,) = mlx5_core_log.parse(Artefact(path="m.log", text=body, node="n1")).facts
    return fact


def test_mlx5_debug_and_dump_lines_are_not_completion_errors():
    text = ("[ 4929.694628] infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9\n"
            "[  408.380181] infiniband mlx5_0: dump_cqe:272:(pid 0): dump error cqe\n")
    assert not mlx5_core_log.detect(text)
    assert mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1")).facts == []


def test_mlx5_command_timeouts_through_pdsh_prefix():
    # openucx/ucx#7738: dmesg of node b1360 through pdsh, CREATE_DCT never completed by the firmware
    path = FIX / "mlx5_core_log" / "ucx7738_pdsh_create_dct_command_timeout.log"
    text = path.read_text()
    assert mlx5_core_log.detect(text)
    facts = mlx5_core_log.parse(Artefact(path=str(path), text=text, node="b1360")).facts
    assert len(facts) == 8  # the ninth line is cut inside the command's name
    assert {(f.pci_bus_id, f.event, f.command, f.fatal) for f in facts} == {("0000:61:00.0", "command_timeout", "CREATE_DCT", False)}


@pytest.mark.parametrize(("line", "event", "command"), [
    # drivers/net/ethernet/mellanox/mlx5/core/cmd.c, every form of the command timeout
    ("mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 141183): cmd[22]: CREATE_DCT(0x710) No done completion", "command_timeout", "CREATE_DCT"),
    ("mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak of a command resource", "command_timeout", "CREATE_DCT"),
    ("mlx5_core 0000:3b:00.0: cb_timeout_handler:930:(pid 7): cmd[5]: QUERY_VPORT_COUNTER(0x770) Async, timeout. Will cause a leak of a command resource", "command_timeout", "QUERY_VPORT_COUNTER"),
    ("mlx5_core 0000:3b:00.0: wait_func_handle_exec_timeout:1027:(pid 9): cmd[3]: ACCESS_REG(0x805) recovered after timeout", "command_recovered", "ACCESS_REG"),
    ("mlx5_core 0000:3b:00.0: cb_timeout_handler:912:(pid 7): cmd[5]: QUERY_VPORT_COUNTER(0x770) Async, recovered after timeout", "command_recovered", "QUERY_VPORT_COUNTER"),
])
@pytest.mark.parametrize("prefix", PREFIXES)
def test_mlx5_command_timeout_forms(prefix, line, event, command):
    t = _only_mlx5_fact(prefix + line + "\n")
    assert (t.kind, t.event, t.command, t.fatal) == ("mlx5_health_event", event, command, False)


def test_mlx5_command_near_misses_stay_unread():
    text = ("[ 12.0] mlx5_core 0000:61:00.0: wait_func:1132:(pid 1): err 0, delivery status no errors(0)\n"
            "[ 12.1] mlx5_core 0000:61:00.0: mlx5_cmd_comp_handler:1580:(pid 0): command completed, timeout not reached\n")
    assert not mlx5_core_log.detect(text)
    assert mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1")).facts == []


@pytest.mark.parametrize("prefix", PREFIXES)
def test_mlx5e_tx_reporter_timeout_is_a_netdev_tx_timeout(prefix):
    # en_main.c mlx5e_tx_timeout + en/reporter_tx.c (the kernel's commit 5f29458b77d5 message); pre-5.3 form without usecs
    text = (prefix + "mlx5_core 0000:08:00.1 enp8s0f1: TX timeout detected\n"
            + prefix + "mlx5_core 0000:08:00.1 enp8s0f1: TX timeout on queue: 1, SQ: 0x11ec, CQ: 0x146d, SQ Cons: 0x0 SQ Prod: 0x1, usecs since last trans: 21565000\n"
            + prefix + "mlx5_core 0000:08:00.1 enp8s0f1: TX timeout on queue: 3, SQ: 0x11f0, CQ: 0x1471, SQ Cons: 0x8 SQ Prod: 0xa\n")
    assert mlx5_core_log.detect(text)
    r = mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1"))
    assert [(f.kind, f.interface, f.driver, f.queue, f.timeout_ms) for f in r.facts] == [
        ("netdev_tx_timeout", "enp8s0f1", "mlx5_core", 1, 21565), ("netdev_tx_timeout", "enp8s0f1", "mlx5_core", 3, None)]
    assert r.lines_used == 3


def test_mlx5e_tx_timeout_detected_alone_is_not_claimed():
    text = " mlx5_core 0000:08:00.1 enp8s0f1: TX timeout detected\n"
    r = mlx5_core_log.parse(Artefact(path="m.log", text=text, node="n1"))
    assert (r.facts, r.lines_used) == ([], 0)


@pytest.mark.parametrize(("side", "synd", "status", "text"), [
    ("Responder", "0x5", 5, "WR flushed"),                       # linux-nvme/nvme-cli#3268
    ("Requestor", "0x15", 12, "transport retry counter exceeded"),  # cq.c spells the requester "Requestor"
    ("Requestor", "0x16", 13, "RNR retry counter exceeded"),
    ("Responder", "0x13", 10, "remote access error"),
    ("Requestor", "0x22", 16, "remote aborted error"),
    ("Responder", "0x99", 21, "general error"),                  # mlx5_handle_error_cqe's default
])
@pytest.mark.parametrize("prefix", PREFIXES)
def test_mlx5_ib_error_cqe_debug_lines(prefix, side, synd, status, text):
    body = (prefix + f"infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): {side} error cqe on cqn 0x406:\n"
            + prefix + f"infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome {synd}, vendor syndrome 0xf9\n")
    e = _only_mlx5_fact(body)
    assert (e.kind, e.device, e.status, e.status_text, e.function) == ("kernel_ib_completion_error", "rocep33s0f0", status, text, "mlx5_poll_one")


def test_mlx5_ib_error_cqe_burst_is_one_fact_and_a_cut_pair_a_parse_error():
    # linux-nvme/nvme-cli#3268: seven flushed CQEs on one CQ, the paste cut inside the last syndrome line
    path = FIX / "mlx5_core_log" / "nvmecli3268_roce_responder_error_cqe_flush.log"
    r = mlx5_core_log.parse(Artefact(path=str(path), text=path.read_text(), node="n1"))
    (e,) = r.facts
    assert (e.device, e.status, e.evidence.line) == ("rocep33s0f0", 5, 1)
    assert [x.line for x in r.errors] == [13]


def test_ena_trigger_reset_is_read_with_its_reason_only():
    # ena_netdev.c ena_timer_service's "Trigger reset is on": the reset a keep-alive or lost-completion line asked for
    two = ("[ 8812.451260] ena 0000:00:05.0 eth0: Keep alive watchdog timeout.\n"
           "[ 8812.451300] ena 0000:00:05.0 eth0: Trigger reset is on\n")
    r = kernel_log.parse(Artefact(path="k.log", text=two, node="n1"))
    assert [f.kind for f in r.facts] == ["nic_keep_alive_timeout"]
    # alone, or after another interface's line, its reason is not in the paste: left unread
    alone = kernel_log.parse(Artefact(path="k.log", text=two.splitlines(keepends=True)[1], node="n1"))
    assert alone.facts == []
    other = kernel_log.parse(Artefact(path="k.log", text=two.replace("eth0: Trigger", "eth1: Trigger"), node="n1"))
    assert [f.kind for f in other.facts] == ["nic_keep_alive_timeout"]


def test_mlx5_insufficient_slot_power_is_read_and_its_info_siblings_are_not():
    # leptonai/gpud#348 (dmesg -T through syslog, in a comment's quote); events.c mlx5_pcie_event's warn-level form
    (p,) = mlx5_core_log.parse(Artefact(path="m.log", text=(FIX / "mlx5_core_log" / "gpud348_insufficient_slot_power.log").read_text(),
                                        node="n1")).facts
    assert (p.kind, p.pci_bus_id, p.watts, p.evidence.line) == ("mlx5_slot_power_insufficient", "0000:5c:00.0", 27, 1)
    assert p.message.endswith("Detected insufficient power on the PCIe slot (27W).")
    # the info-level siblings are no fault and not read: geerlingguy/arm-nas#16's healthy probe, and the third
    # status CONSTRUCTED from events.c's format string; another driver's device is not mlx5_core's
    for line in ("[   11.097626] mlx5_core 0004:01:00.0: mlx5_pcie_event:294:(pid 542): PCIe slot advertised sufficient power (75W).",
                 "mlx5_core 0000:3b:00.0: mlx5_pcie_event:299:(pid 0): PCIe slot power capability was not advertised.",
                 "nvme 0000:5c:00.0: Detected insufficient power on the PCIe slot (27W)."):
        assert not mlx5_core_log.detect(line + "\n")
        assert mlx5_core_log.parse(Artefact(path="m.log", text=line + "\n", node="n1")).facts == []
