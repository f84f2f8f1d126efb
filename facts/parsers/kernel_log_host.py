"""Kernel log lines of host faults pasted beside GPU trouble, for
:mod:`stethoscope.facts.parsers.kernel_log`: a NIC's transmit queue stuck (NETDEV WATCHDOG),
NVMe timeouts and controller resets, EXT4 and XFS errors of the file systems under a job's
data, machine checks and EDAC memory errors of the host, a VM's memory pinning for VFIO
passthrough refused at the locked-memory limit. They give ``netdev_tx_timeout``,
``storage_io_error``, ``host_hardware_error`` and ``vfio_pin_memlock_exceeded`` facts; the GPU
is named by none of them.

Real sample lines (the public thread each comes from, even-numbered) and the kernel's format
strings they were printed by::

    NETDEV WATCHDOG: eth0 (ftgmac100): transmit queue 0 timed out          (openbmc/openbmc#2228)
      net/sched/sch_generic.c dev_watchdog: "NETDEV WATCHDOG: %s (%s): transmit queue %u timed out\\n"
      (5.x: "... timed out %u ms\\n"; 6.8+: netdev_crit(dev, "NETDEV WATCHDOG: CPU: %d: transmit queue %u timed out %u ms\\n"))
    ena 0000:00:05.0 ens5: Found a Tx that wasn't completed on time, qid 2, index 0. 5756000 usecs have passed since last napi execution. Missing Tx timeout value 5000 msecs   (amzn/amzn-drivers#220)
      drivers/net/ethernet/amazon/ena/ena_netdev.c check_missing_comp_in_tx_queue: netif_notice "Found a Tx that wasn't
      completed on time, qid %d, index %d.\\n" (later + " %u usecs have passed since last napi execution. Missing Tx
      timeout value %u msecs"; 6.x "TX hasn't completed, qid %d, index %d. %u usecs from last napi execution, napi
      scheduled: %d\\n"): the AWS ENA NIC's own transmit watchdog, one line per stuck buffer of a queue.
      Its check_missing_comp_in_tx_queue threshold line, "The number of lost tx completion(s) is above the threshold
      (%d > %d). Reset the device" (2.x: "completions"; 6.x netif_err "Lost TX completions are above the threshold (%d >
      %d). Completion transmission timeout: %u."), names no queue: where a queue line of the same interface came before
      it is that incident's close (read, no second fact); alone (a paste that kept only it) it gives a
      netdev_tx_timeout of no queue.
    ena 0000:00:05.0 eth0: Keep alive watchdog timeout.
      ena_netdev.c check_for_missing_keep_alive: netif_err "Keep alive watchdog timeout.\\n" (every version since 1.x; the
      FreeBSD and DPDK drivers print the same words), ENA_REGS_RESET_KEEP_ALIVE_TO: the device sent no keep-alive
      admin event within its keep_alive_timeout: the device (or the host side of the virtual NIC) hung, not a transmit
      queue; gives nic_keep_alive_timeout. ena_timer_service's "Trigger reset is on" after it (or after a lost-completions
      line) is that reset's announcement: read with it, left unread alone (a reset for a reason the paste lacks).
    vfio_pin_pages_remote: RLIMIT_MEMLOCK (65536) exceeded                  (kubevirt/kubevirt#8472)
    vfio_pin_page_external: Task qemu-system-x86 (569647) RLIMIT_MEMLOCK (1048576) exceeded   (intel/gvt-linux#120)
      drivers/vfio/vfio_iommu_type1.c: pr_warn("%s: RLIMIT_MEMLOCK (%ld) exceeded\\n", __func__, limit << PAGE_SHIFT)
      (vfio_pin_pages_remote; vfio_pin_pages before 4.10), vfio_lock_acct / vfio_pin_page_external: pr_warn("%s: Task %s
      (%d) RLIMIT_MEMLOCK (%ld) exceeded\\n", __func__, comm, pid, rlimit): a VM's pinning of its RAM for a passed-through
      device refused (-ENOMEM), the VMM's locked-memory limit too small.
    nvme nvme1: I/O 775 QID 2 timeout, aborting                             (oxidecomputer/propolis#578)
      drivers/nvme/host/pci.c nvme_timeout: "I/O %d QID %d timeout, aborting\\n" (", reset controller", ", disable controller";
      6.x "I/O tag %d (%04x) opcode %#x (%s) QID %d timeout, aborting req_op:%s(%u) size:%u\\n");
      nvme_warn_reset: "controller is down; will reset: CSTS=0x%x, PCI_STATUS=0x%hx\\n";
      "Device not ready; aborting reset, CSTS=0x%x\\n"; "Removing after probe failure status: %d\\n"
    EXT4-fs error (device sda2): __ext4_find_entry:1612: inode #187700: comm cleanup: reading directory lblock 0   (alexforencich/verilog-ethernet#146)
    EXT4-fs (sda2): I/O error while writing superblock                      (the same thread)
      fs/ext4/super.c: "EXT4-fs error (device %s): %s:%d: [inode #%lu: ]comm %s: %pV\\n",
      "EXT4-fs error (device %s) in %s:%d: %s\\n", "EXT4-fs (%s): Remounting filesystem read-only\\n"
    XFS (vda4): metadata I/O error in "xfs_dquot_disk_read+0x14a/0x220 [xfs]" at daddr 0x1478 len 8 error 74   (coreos/fedora-coreos-tracker#784)
    XFS (xvdb): Log I/O Error Detected.  Shutting down filesystem          (coreos/bugs#1396)
    XFS (nbd0): Metadata corruption detected at xfs_dinode_verify.part.0+0x172/0x640 [xfs], inode 0x14506b6d dinode   (vitalif/vitastor#14)
      fs/xfs (xfs_printk "XFS (%s): "): "log I/O error %d", "%s: error %d returned." (xfs_log_force),
      "metadata I/O error in \\"%pS\\" at daddr 0x%llx len %d error %d", "... Shutting down filesystem",
      "Filesystem has been shut down due to log error (0x%x).", "Metadata corruption detected at %pS, ..."
    mce: [Hardware Error]: Machine check events logged                      (andikleen/mcelog#116)
      arch/x86/kernel/cpu/mce/core.c: pr_info(HW_ERR "Machine check events logged\\n") (HW_ERR "[Hardware Error]: ", pr_fmt "mce: ");
      print_mce: HW_ERR "CPU %d: Machine Check%s: %Lx Bank %d: %016Lx\\n"
    EDAC MC1: 262 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x2031c14 offset:0x940 grain:32 syndrome:0x0 -  OVERFLOW area:DRAM err_code:0001:0091 socket:0 ha:0 channel_mask:2 rank:1)   (illinois-scicomp/machine-shop-maintenance#66)
    EDAC MC0: 4 CE error on CPU#0Channel#2_DIMM#0 (channel:2 slot:0 page:0x0 offset:0x0 grain:8 syndrome:0x0)   (openstreetmap/operations#300)
      drivers/edac/edac_mc.c edac_raw_mc_handle_error: "%d CE %s%son %s (%s%s%s)\\n" (KERN_WARNING), "%d UE ..." (KERN_EMERG)

Lines that only detail such an event (``mce: [Hardware Error]: TSC ...``, ``EDAC sbridge MC1:
HANDLING MCE MEMORY ERROR``) are left unread: the event's own line is the evidence.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import (  # noqa: F401 - the fact classes live in facts/kinds
    HostHardwareError, NetdevTxTimeout, NicKeepAliveTimeout, StorageIoError, VfioPinMemlockExceeded,
)
from stethoscope.facts.parsers.base import FactBuilder

#: the literal part of each line: kernel_log's keyword scan looks for these
#: (only the fault forms: a log full of "EXT4-fs (sda1): mounted filesystem" stays on the fast path)
KEYWORDS = (r"NETDEV WATCHDOG: |ena \S+ [^\s:]+: (?:Found a Tx that wasn't completed on time|TX hasn't completed), qid "
            r"|ena \S+ [^\s:]+: (?:The number of lost tx completions? is|Lost TX completions are) above the threshold"
            r"|ena \S+ [^\s:]+: (?:Keep alive watchdog timeout|Trigger reset is on)"
            r"|vfio_\w+: (?:Task [^\n]{1,64}? \(\d+\) )?RLIMIT_MEMLOCK \(\d+\) exceeded|nvme nvme\d+: (?:I/O |controller is down|Device not ready|Removing after probe)"
            r"|EXT4-fs error |EXT4-fs \([^)\s]+\): (?:I/O error|Remounting)|EXT4-fs warning [^\n]{0,160}?(?:I/O error|error -5)"
            r"|XFS(?: \([^)\s]+\))?: (?:log I/O error|\w+: error -?\d+ returned|metadata I/O error|(?:Log )?I/O Error Detected"
            r"|Filesystem has been shut down|Corruption|Metadata (?:corruption|CRC)|Internal error)"
            r"|mce: \[Hardware Error\]: |EDAC (?:\w+ )?MC\d+: \d+ [CU]E ")


# NETDEV WATCHDOG: eth0 (ftgmac100): transmit queue 0 timed out
# NETDEV WATCHDOG: eth2 (igb): transmit queue 5 timed out 5010 ms                 (5.x form)
# r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out 5010 ms   (6.8+ form)
_NETDEV = re.compile(
    r"(?:(?P<pdrv>[\w-]+) (?P<pdev>\S+) (?P<pif>[^\s:]+): )?NETDEV WATCHDOG: "
    r"(?:(?P<ifname>\S+) \((?P<driver>[^)]*)\)|CPU: \d+): transmit queue (?P<queue>\d+) timed out(?: (?P<ms>\d+) ms)?"
)
# ena 0000:00:05.0 ens5: Found a Tx that wasn't completed on time, qid 2, index 0. 5756000 usecs have passed since last napi execution. Missing Tx timeout value 5000 msecs   (amzn/amzn-drivers#220)
# ena 0000:00:05.0 eth0: Found a Tx that wasn't completed on time, qid 2, index 961.   (ena_netdev.c before 2.2; amzn/amzn-drivers#134's form)
# ena 0000:00:05.0 eth0: TX hasn't completed, qid 3, index 17. 5200000 usecs from last napi execution, napi scheduled: 1   (6.x format string)
_ENA = re.compile(
    r"ena (?P<dev>\S+) (?P<ifname>[^\s:]+): (?:Found a Tx that wasn't completed on time|TX hasn't completed), qid (?P<queue>\d+), "
    r"index \d+\.(?:[^\n]{0,80}?Missing Tx timeout value (?P<ms>\d+) msecs)?"
)
# ena 0000:00:05.0 ens5: The number of lost tx completions is above the threshold (1019 > 128). Reset the device   (amzn/amzn-drivers#220)
# ena 0000:00:05.0 eth0: Lost TX completions are above the threshold (129 > 128). Completion transmission timeout: 5000.   (6.x netif_err format string)
_ENA_LOST = re.compile(
    r"ena (?P<dev>\S+) (?P<ifname>[^\s:]+): (?:The number of lost tx completions? is|Lost TX completions are) above the threshold "
    r"\((?P<lost>\d+) > (?P<limit>\d+)\)(?:\. Completion transmission timeout: (?P<ms>\d+))?"
)
# ena 0000:00:05.0 eth0: Keep alive watchdog timeout.    (ena_netdev.c check_for_missing_keep_alive, netif_err)
# ena 0000:00:05.0 eth0: Trigger reset is on              (ena_netdev.c ena_timer_service, netif_err, before the stats dump)
_ENA_RESET = re.compile(r"ena (?P<dev>\S+) (?P<ifname>[^\s:]+): (?:(?P<ka>Keep alive watchdog timeout\.?)|Trigger reset is on)\s*$")
#: how far back "Trigger reset is on" looks for the line that asked for the reset (the timer checks once a second)
_ENA_RESET_BACK = 8
# vfio_pin_pages_remote: RLIMIT_MEMLOCK (65536) exceeded                                   (kubevirt/kubevirt#8472)
# vfio_pin_page_external: Task qemu-system-x86 (2296) RLIMIT_MEMLOCK (65536) exceeded      (intel/gvt-linux#78)
_VFIO_MEMLOCK = re.compile(
    r"(?P<func>vfio_\w+): (?:Task (?P<task>[^\n]{1,64}?) \((?P<pid>\d+)\) )?RLIMIT_MEMLOCK \((?P<limit>\d+)\) exceeded"
)
# nvme nvme1: I/O 775 QID 2 timeout, aborting
# nvme nvme2: I/O 0 QID 0 timeout, reset controller
# nvme nvme0: I/O tag 28 (401c) opcode 0x2 (Read) QID 3 timeout, aborting req_op:READ(0) size:4096   (6.x)
# [53111.370408] nvme nvme0: I/O 309 (Write) QID 1 timeout, aborting   (sophgo/linux-riscv#92, a 6.x vendor kernel: the tag,
#   then the command's name as nvme_get_opcode_str gives it, before the tag/cid/opcode form above)
# nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0xffff
# nvme nvme2: Device not ready; aborting reset
# nvme nvme2: Removing after probe failure status: -19
# ("... timeout, completion polled" is a lost interrupt whose I/O completed: not read here)
_NVME = re.compile(
    r"nvme (?P<ctrl>nvme\d+): (?:I/O (?:tag )?\d+ (?:\((?:[0-9a-fA-F]{1,8}|[A-Z][A-Za-z ]{0,31})\) )?(?:opcode \S+ \([^)]*\) )?QID \d+ timeout, "
    r"(?P<timeout>aborting|reset controller|disable controller)"
    r"|(?P<down>controller is down; will reset|Device not ready; aborting reset)"
    r"|(?P<removed>Removing after probe failure status: -?\d+))"
)
# EXT4-fs error (device sda2): __ext4_find_entry:1612: inode #187700: comm cleanup: reading directory lblock 0
# EXT4-fs error (device sda1) in ext4_reserve_inode_write:5863: IO failure
# EXT4-fs (sda2): I/O error while writing superblock
# EXT4-fs (sda2): Remounting filesystem read-only
# EXT4-fs warning (device dm-1): ext4_end_bio:316: I/O error -19 writing to inode 10223621 (offset 50331648 size 6148096 starting block 14409150)
_EXT4 = re.compile(
    r"EXT4-fs (?:error \(device (?P<edev>[^)\s]+)\)(?::| in) (?P<error>.+)"
    r"|\((?P<dev>[^)\s]+)\): (?P<what>I/O error while writing superblock|Remounting filesystem read-only)"
    r"|warning \(device (?P<wdev>[^)\s]+)\): \w+:\d+: (?P<warn>.*?\b(?:I/O error|error -5)\b.*))"
)
# XFS (sdb6): log I/O error -5
# XFS (dm-0): xfs_log_force: error -5 returned.
# XFS (vda4): metadata I/O error in "xfs_dquot_disk_read+0x14a/0x220 [xfs]" at daddr 0x1478 len 8 error 74
# XFS (dm-7): metadata I/O error: block 0x280000010 ("xlog_bread_noalign") error 5 numblks 8
# XFS (xvdb): Log I/O Error Detected.  Shutting down filesystem
# XFS (sdb6): Filesystem has been shut down due to log error (0x2).
# XFS (nbd0): Metadata corruption detected at xfs_dinode_verify.part.0+0x172/0x640 [xfs], inode 0x14506b6d dinode
# XFS (dm-4): Corruption detected. Unmount and run xfs_repair
# XFS: Internal error XFS_WANT_CORRUPTED_RETURN at line 342 of file fs/xfs/xfs_alloc.c.  Caller 0xffffffffa01e76c2
_XFS = re.compile(
    r"XFS(?: \((?P<dev>[^)\s]+)\))?: (?:"
    r"(?P<io>log I/O error -?\d+|\w+: error -?\d+ returned|metadata I/O error\b)"
    r"|(?P<shutdown>(?:Log )?I/O Error Detected\.\s+Shutting down filesystem|Filesystem has been shut down\b"
    r"|Corruption of in-memory data\b.*Shutting down filesystem)"
    r"|(?P<corrupt>Metadata (?:corruption|CRC error) detected\b|Corruption detected\b|Internal error \S+ at line \d+))"
)
# mce: [Hardware Error]: Machine check events logged
# mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 7: cc00418000010091
# mce: [Hardware Error]: Machine check: Processor context corrupt
_MCE = re.compile(r"mce: \[Hardware Error\]: (?P<what>Machine check events logged|CPU \d+: Machine Check\b.*|Machine check: .*)")
# EDAC MC1: 262 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 ...)
# EDAC MC0: 4 CE error on CPU#0Channel#2_DIMM#0 (channel:2 slot:0 page:0x0 offset:0x0 grain:8 syndrome:0x0)
# EDAC MC0: 1 UE memory read error on CPU_SrcID#0_MC#0_Chan#0_DIMM#0 (channel:0 slot:0 page:0xe16677 ...)
_EDAC = re.compile(r"EDAC (?:\w+ )?(?P<mc>MC\d+): (?P<count>\d+) (?P<sev>CE|UE) (?:.*? )?on (?P<label>\S+)")


def parse_host_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one host-fault line; False when the message is none of them."""
    msg = msg.strip()
    if "NETDEV WATCHDOG" in msg and (m := _NETDEV.search(msg)) is not None:
        b.add(NetdevTxTimeout, ln, interface=m["ifname"] or m["pif"], driver=m["driver"] or m["pdrv"],
              queue=int(m["queue"]), timeout_ms=int(m["ms"]) if m["ms"] else None, message=msg, **common)
    elif msg.startswith("ena ") and (m := _ENA.search(msg)) is not None:
        b.add(NetdevTxTimeout, ln, interface=m["ifname"], driver="ena", queue=int(m["queue"]),
              timeout_ms=int(m["ms"]) if m["ms"] else None, message=msg, **common)
    elif msg.startswith("ena ") and (m := _ENA_LOST.search(msg)) is not None:
        # a queue line of this interface before it (this file) already gave the incident's fact
        if not any(f.kind == "netdev_tx_timeout" and f.driver == "ena" and f.interface == m["ifname"]
                   and (common.get("node") is None or f.node == common["node"]) for f in b.result.facts):
            b.add(NetdevTxTimeout, ln, interface=m["ifname"], driver="ena", queue=None,
                  timeout_ms=int(m["ms"]) if m["ms"] else None, message=msg, **common)
    elif msg.startswith("ena ") and (m := _ENA_RESET.search(msg)) is not None:
        if m["ka"]:
            b.add(NicKeepAliveTimeout, ln, interface=m["ifname"], driver="ena", message=msg, **common)
        elif not any(f.kind in ("nic_keep_alive_timeout", "netdev_tx_timeout") and f.driver == "ena"
                     and f.interface == m["ifname"]
                     and 0 < ln + b.artefact.line_offset - f.evidence.line <= _ENA_RESET_BACK
                     and (common.get("node") is None or f.node == common["node"]) for f in b.result.facts):
            return False  # a reset whose reason is not in the paste: left unread
    elif "RLIMIT_MEMLOCK" in msg and (m := _VFIO_MEMLOCK.search(msg)) is not None:
        b.add(VfioPinMemlockExceeded, ln, function=m["func"], task=m["task"], pid=int(m["pid"]) if m["pid"] else None,
              limit_bytes=int(m["limit"]), message=msg, **common)
    elif msg.startswith("nvme ") and (m := _NVME.search(msg)) is not None:
        event = "io_timeout" if m["timeout"] else ("controller_down" if m["down"] else "controller_removed")
        b.add(StorageIoError, ln, device=m["ctrl"], layer="nvme", filesystem=False, event=event, message=msg, **common)
    elif "EXT4-fs" in msg and (m := _EXT4.search(msg)) is not None:
        what = m["what"] or ""
        event = ("fs_read_only" if what.startswith("Remounting") else
                 "fs_io_error" if what or m["warn"] else "fs_error")
        b.add(StorageIoError, ln, device=m["edev"] or m["dev"] or m["wdev"], layer="ext4", filesystem=True,
              event=event, message=msg, **common)
    elif "XFS" in msg and (m := _XFS.search(msg)) is not None:
        event = "fs_io_error" if m["io"] else ("fs_shutdown" if m["shutdown"] else "fs_corruption")
        b.add(StorageIoError, ln, device=m["dev"] or "xfs", layer="xfs", filesystem=True, event=event,
              message=msg, **common)
    elif "mce: " in msg and (m := _MCE.search(msg)) is not None:
        b.add(HostHardwareError, ln, source="mce", message=msg, **common)
    elif "EDAC" in msg and (m := _EDAC.search(msg)) is not None:
        b.add(HostHardwareError, ln, source="edac", corrected=m["sev"] == "CE", count=int(m["count"]),
              memory_controller=m["mc"], location=m["label"], message=msg, **common)
    else:
        return False
    used.add(ln)
    return True
