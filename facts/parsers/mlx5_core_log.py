"""Kernel log lines of the ConnectX driver (``mlx5_core``, ``mlx5_ib``): firmware commands that
failed, the HCA's health poller declaring it in error, RDMA work completions that failed.

Sample content (leptonai/gpud#1164, journald; the mlx5 driver's ``mlx5_cmd_out_err`` /
older ``mlx5_cmd_check`` message, prefixed by ``mlx5_core_err``'s ``func:line:(pid N): ``)::

    Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)

The health poller (drivers/net/ethernet/mellanox/mlx5/core/health.c, through
``mlx5_core_err``'s ``func:line:(pid N): `` prefix) and the RDMA driver's failed completions
(drivers/infiniband/hw/mlx5/cq.c, ``mlx5_ib_warn``/``mlx5_ib_log``: ``infiniband <ibdev>: func:line:(pid N): ``;
before 4.x ``<ibdev>:func:line:(pid N): ``); real lines from the Linux kernel's own commit
messages and linux-rdma/netdev reports (no even-numbered issue thread quotes them)::

    [  204.791017] mlx5_core 0000:41:00.0: poll_health:478:(pid 0): Fatal error 1 detected
    [  131.239013] mlx5_core 0000:41:00.1: poll_health:471:(pid 0): device's health compromised - reached miss count
    [  131.239056] mlx5_core 0000:41:00.1: print_health_info:421:(pid 0): synd 0x10: High temperature
    [166755.330649] infiniband mlx5_0: mlx5_handle_error_cqe:333:(pid 0): WC error: 10, message: remote access error
    infiniband rocep8s0f0: dump_cqe:277:(pid 0): WC error: 6, Message: memory bind operation error

The line is found under any prefix (dmesg stamps, syslog, journald, Talos); the kernel log
parser reads the same file for NVIDIA's, the PCIe and the host's lines. Facts:
``mlx5_cmd_failed``, one per line, with the command, its opcode, ``op_mod`` (for ACCESS_REG 1
is a read, 0 a write), the firmware's status and syndrome, and the HCA's PCI bus id;
``mlx5_health_event`` (the health poller's fatal error, missed health counter, "Health issue
observed" or failed recovery, with the syndrome text of the ``synd`` line that follows);
``kernel_ib_completion_error`` (``WC error: <ib_wc_status>, Message: <ib_wc_status_msg>``, the
same numbering as libibverbs' ibv_wc_status). A log without such lines yields nothing.

A firmware command that timed out (cmd.c; openucx/ucx#7738, through pdsh's ``host: `` prefix)::

    b1360: [14280.445220] mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 141183): cmd[22]: CREATE_DCT(0x710) No done completion
    b1360: [14280.445226] mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak of a command resource

is a ``mlx5_health_event`` of event ``command_timeout`` (``command_recovered`` for "recovered after
timeout": the firmware did answer, its completion interrupt was lost) with its ``command``,
never ``fatal``: the health poller has not declared the device in error.

The Ethernet side's own transmit timeout (en_main.c mlx5e_tx_timeout, then the TX health reporter,
en/reporter_tx.c; the lines of the kernel's commit 5f29458b77d5's message)::

    mlx5_core 0000:08:00.1 enp8s0f1: TX timeout detected
    mlx5_core 0000:08:00.1 enp8s0f1: TX timeout on queue: 1, SQ: 0x11ec, CQ: 0x146d, SQ Cons: 0x0 SQ Prod: 0x1, usecs since last trans: 21565000

is a ``netdev_tx_timeout`` (driver mlx5_core, the interface, the queue) per queue line; the
"detected" line is read with them. The RDMA driver's error CQEs at debug level (cq.c
mlx5_poll_one, ``mlx5_ib_dbg``; linux-nvme/nvme-cli#3268, NVMe over RoCE)::

    infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:
    infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9

are a ``kernel_ib_completion_error`` whose status is the ib_wc_status that mlx5_handle_error_cqe
gives the CQE syndrome (0x5 WR flushed -> 5, 0x15 retry exceeded -> 12), one per burst of the
same device, syndrome and CQ (a flushed QP repeats the pair once per pending request).

An HCA the driver could not bring up at all (the kernel's driver core, drivers/base/dd.c: before
5.x ``"%s: probe of %s failed with error %d"`` with the driver's name, since then ``dev_err`` of
``"probe with driver %s failed with error %d"``; scitix/sichek#118, a BlueField-3 whose
``mlx5_core`` probe failed at boot)::

    mlx5_core: probe of 0000:69:01.0 failed with error -22

is a ``mlx5_health_event`` of event ``probe_failed`` (not ``fatal``: no health poller ran on it):
the device has no RDMA or network interface, so ibstat, ibv_devices and NCCL never list it.

The firmware's reading of the power its PCIe slot advertises (events.c mlx5_pcie_event, on the
PCI power change event and at load; leptonai/gpud#348, dmesg -T through syslog's ``host kernel: ``)::

    [Sun Dec  1 14:54:40 2024] ny2g1r12hh2 kernel: mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).

is a ``mlx5_slot_power_insufficient`` with the watts read. Its two siblings, ``PCIe slot advertised
sufficient power (%uW).`` and ``PCIe slot power capability was not advertised.`` (info level), are
left unread: neither is a fault, and neither is evidence that the NIC works.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import NetdevTxTimeout
from stethoscope.facts.lines import MONTH
from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    KernelIbCompletionError, Mlx5CmdFailed, Mlx5HealthEvent, Mlx5SlotPowerInsufficient,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "mlx5_core_log"

# mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)
_CMD = re.compile(
    r"mlx5_core (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): (?:(?P<func>\w+):\d+:\(pid \d+\): )?"
    r"(?P<cmd>[A-Z0-9_]+)\(0x(?P<opcode>[0-9a-fA-F]+)\) op_mod\(0x(?P<op_mod>[0-9a-fA-F]+)\) failed, "
    r"status (?P<status>[^(,]+?)\(0x(?P<status_code>[0-9a-fA-F]+)\), syndrome \(0x(?P<syndrome>[0-9a-fA-F]+)\)"
)
_BDF = r"(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
# health.c poll_health / print_health_info / health_recover (mlx5_core_err, mlx5_log):
#   "Fatal error %u detected\n" (%u: enum mlx5_sensor: 1 PCI communication lost, 2 PCI error,
#   3 NIC disabled, 4 NIC software reset, 5 firmware syndrome ready for reset)
#   "device's health compromised - reached miss count\n" (the firmware stopped its health counter)
#   "Health issue observed, %s, severity(%d) %s:\n" (5.17+: hsynd_str, the syslog level of the event)
#   "health recovery failed\n", "health recovery flow aborted, PCI reads still not working\n"
# mlx5_core 0000:41:00.0: poll_health:478:(pid 0): Fatal error 1 detected
# mlx5_core 0000:41:00.1: poll_health:471:(pid 0): device's health compromised - reached miss count
# mlx5_core 0000:41:00.0: health recovery flow aborted, PCI reads still not working
_HEALTH = re.compile(
    r"mlx5_core " + _BDF + r": (?:\w+:\d+:\(pid \d+\): |\w+:\S*: )?(?:Fatal error (?P<fatal>\d+) detected"
    r"|(?P<missed>device's health compromised - reached miss count)"
    r"|Health issue observed, (?P<issue>[^,]*), severity\((?P<sev>\d+)\)"
    r"|(?P<recovery>health recovery (?:failed|flow aborted\b.*)))"
)
# mlx5_core 0000:41:00.1: print_health_info:421:(pid 0): synd 0x10: High temperature   (read with the event above it)
_SYND = re.compile(r"mlx5_core " + _BDF + r": (?:\w+:\d+:\(pid \d+\): )?synd 0x(?P<synd>[0-9a-fA-F]+): (?P<text>.+)")
# cmd.c, the firmware command interface (mlx5_core_warn): a command the firmware did not complete in
# time (MLX5_CMD_TIMEOUT_MSEC, 60 s). 5.9+ (commit 1d5558b1f0de, wait_func_handle_exec_timeout / cb_timeout_handler):
#   "cmd[%d]: %s(0x%x) No done completion\n"   (then the command fails with -ETIMEDOUT)
#   "cmd[%d]: %s(0x%x) recovered after timeout\n", "cmd[%d]: %s(0x%x) Async, recovered after timeout\n"
#      (the completion was found by polling the command EQ: its interrupt was lost; the command succeeded late)
#   "cmd[%d]: %s(0x%x) Async, timeout. Will cause a leak of a command resource\n"
# every release since 4.x (wait_func): "%s(0x%x) timeout. Will cause a leak of a command resource\n"
# mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 141183): cmd[22]: CREATE_DCT(0x710) No done completion
# mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak of a command resource
#   (openucx/ucx#7738, pasted through pdsh: "b1360: [14280.445220] mlx5_core ...")
_CMD_TIMEOUT = re.compile(
    r"mlx5_core " + _BDF + r": (?:\w+:\d+:\(pid \d+\): )?(?:cmd\[\d+\]: )?(?P<cmd>[A-Z][A-Z0-9_]*)\(0x[0-9a-fA-F]+\) "
    r"(?:Async, )?(?:(?P<recovered>recovered after timeout)|(?:No done completion|timeout\. Will cause a leak of a command resource))"
)
# drivers/base/dd.c, the driver core's probe failure (before 5.x printk "%s: probe of %s failed with error %d";
#   since, dev_err "probe with driver %s failed with error %d", the device's own prefix before it)
# mlx5_core: probe of 0000:69:01.0 failed with error -22      (scitix/sichek#118, a BF3 ConnectX-7 lost at boot)
_ADDR = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_PROBE = re.compile(
    rf"\bmlx5_core(?:: probe of (?P<bdf>{_ADDR}) failed| (?P<bdf2>{_ADDR}): probe with driver mlx5_core failed)"
    r" with error (?P<err>-?\d{1,4})\b"
)
# events.c mlx5_pcie_event (mlx5_core_warn_rl, so "func:line:(pid N): " before it):
#   "Detected insufficient power on the PCIe slot (%uW).\n"   (MLX5_PCI_POWER_INSUFFICIENT_REPORTED;
#   the info-level "PCIe slot advertised sufficient power (%uW).\n" and "PCIe slot power capability was
#   not advertised.\n" are not read)
# mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).   (leptonai/gpud#348)
_SLOT_POWER = re.compile(
    r"mlx5_core " + _BDF + r": (?:\w+:\d+:\(pid \d+\): )?Detected insufficient power on the PCIe slot \((?P<watts>\d{1,4})W\)")
# infiniband mlx5_4: mlx5_handle_error_cqe:332:(pid 0): WC error: 4, Message: local protection error
# infiniband rocep8s0f0: dump_cqe:277:(pid 0): WC error: 6, Message: memory bind operation error
#   cq.c: mlx5_ib_warn(dev, "WC error: %d, Message: %s\n", wc->status, ib_wc_status_msg(wc->status))
_WC = re.compile(
    r"(?:infiniband (?P<dev>[\w.-]+): |(?P<olddev>mlx5_\d+):)(?P<func>\w+):\d+:\(pid \d+\): "
    r"WC error: (?P<status>\d+), [Mm]essage: (?P<text>[^\r\n]+)"
)
# en/reporter_tx.c mlx5e_reporter_tx_timeout (5.3+, printed by mlx5e_health_report's netdev_err "%s"):
#   "TX timeout on queue: %d, SQ: 0x%x, CQ: 0x%x, SQ Cons: 0x%x SQ Prod: 0x%x, usecs since last trans: %u"
# en_main.c mlx5e_tx_timeout before 5.3: netdev_err "TX timeout on queue: %d, SQ: 0x%x, CQ: 0x%x, SQ Cons: 0x%x SQ Prod: 0x%x\n"
# mlx5_core 0000:08:00.1 enp8s0f1: TX timeout on queue: 1, SQ: 0x11ec, CQ: 0x146d, SQ Cons: 0x0 SQ Prod: 0x1, usecs since last trans: 21565000
#   (the kernel's commit 5f29458b77d5 message, "net/mlx5e: Fix wrong dump of SQ ... in TX-timeout-recovery flow")
_TX_TIMEOUT = re.compile(
    r"mlx5_core " + _BDF + r" (?P<ifname>[^\s:]+): TX timeout on queue: (?P<queue>\d+), SQ: 0x[0-9a-fA-F]+, "
    r"CQ: 0x[0-9a-fA-F]+, SQ Cons: 0x[0-9a-fA-F]+ SQ Prod: 0x[0-9a-fA-F]+(?:, usecs since last trans: (?P<usecs>\d+))?"
)
# en_main.c mlx5e_tx_timeout: netdev_err(dev, "TX timeout detected\n")   (read with the queue lines after it)
# mlx5_core 0000:08:00.1 enp8s0f1: TX timeout detected
_TX_DETECTED = re.compile(r"mlx5_core " + _BDF + r" (?P<ifname>[^\s:]+): TX timeout detected\b")
# drivers/infiniband/hw/mlx5/cq.c mlx5_poll_one (mlx5_ib_dbg, dynamic debug on):
#   "%s error cqe on cqn 0x%x:\n" ("Requestor" | "Responder"), then "syndrome 0x%x, vendor syndrome 0x%x\n"
# infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:
# infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9      (linux-nvme/nvme-cli#3268)
_ERR_CQE = re.compile(
    r"(?:infiniband (?P<dev>[\w.-]+): |(?P<olddev>mlx5_\d+):)(?P<func>\w+):\d+:\(pid \d+\): "
    r"(?P<side>Requestor|Requester|Responder) error cqe on cqn 0x(?P<cqn>[0-9a-fA-F]+):"
)
_ERR_SYND = re.compile(
    r"(?:infiniband (?P<dev>[\w.-]+): |(?P<olddev>mlx5_\d+):)\w+:\d+:\(pid \d+\): "
    r"syndrome 0x(?P<synd>[0-9a-fA-F]+), vendor syndrome 0x[0-9a-fA-F]+"
)
#: cq.c mlx5_handle_error_cqe: CQE syndrome (include/linux/mlx5/device.h MLX5_CQE_SYNDROME_*) ->
#: enum ib_wc_status and its ib_wc_status_msg() text; any other syndrome is IB_WC_GENERAL_ERR
_CQE_SYNDROME = {
    0x01: (1, "local length error"), 0x02: (2, "local QP operation error"), 0x04: (4, "local protection error"),
    0x05: (5, "WR flushed"), 0x06: (6, "memory bind operation error"), 0x10: (7, "bad response error"),
    0x11: (8, "local access error"), 0x12: (9, "remote invalid request error"), 0x13: (10, "remote access error"),
    0x14: (11, "remote operation error"), 0x15: (12, "transport retry counter exceeded"),
    0x16: (13, "RNR retry counter exceeded"), 0x22: (16, "remote aborted error"),
}
_GENERAL_ERR = (21, "general error")
# Dec 02 09:56:04 node1 kernel: ...   /   2025-12-02T09:56:04+0000 node1 kernel: ...
_HOST = re.compile(r"^(?:" + MONTH + r" +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) (?P<host>\S+) kernel: ")


def detect(head: str) -> bool:
    if "mlx5_core " in head and " failed, status " in head and _CMD.search(head):
        return True
    if "mlx5_core " in head and _HEALTH.search(head):
        return True
    if "mlx5_core " in head and ("completion" in head or "timeout" in head) and _CMD_TIMEOUT.search(head):
        return True
    if "mlx5_core " in head and "TX timeout on queue: " in head and _TX_TIMEOUT.search(head):
        return True
    if " error cqe on cqn " in head and _ERR_CQE.search(head):
        return True
    if "mlx5_core" in head and "probe" in head and _PROBE.search(head):
        return True
    if "mlx5_core " in head and "insufficient power on the PCIe" in head and _SLOT_POWER.search(head):
        return True
    return "WC error: " in head and bool(_WC.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    _health(artefact, fb, result)
    _completions(artefact, fb, result)
    _tx_timeouts(artefact, fb, result)
    _error_cqes(artefact, fb, result)
    for n, line, m, bus in _device_lines(_CMD_TIMEOUT, artefact, fb):
        fb.add(Mlx5HealthEvent, n, node=_node(artefact, line), pci_bus_id=bus,
               event="command_recovered" if m["recovered"] else "command_timeout", fatal=False,
               command=m["cmd"], message=line[m.start():].strip())
        result.lines_used += 1
    for n, line in iter_lines(_PROBE, artefact):
        m = _PROBE.search(line)
        bus = try_pci_bus_id(m["bdf"] or m["bdf2"])
        if bus is None:
            fb.error(n, f"mlx5_core: unreadable PCI address {m['bdf'] or m['bdf2']!r}")
            continue
        fb.add(Mlx5HealthEvent, n, node=_node(artefact, line), pci_bus_id=bus, event="probe_failed", fatal=False,
               message=line[m.start():].strip())
        result.lines_used += 1
    for n, line, m, bus in _device_lines(_SLOT_POWER, artefact, fb):
        fb.add(Mlx5SlotPowerInsufficient, n, node=_node(artefact, line), pci_bus_id=bus, watts=int(m["watts"]),
               message=line[m.start():].strip())
        result.lines_used += 1
    for n, line, m, bus in _device_lines(_CMD, artefact, fb):
        op_mod = int(m["op_mod"], 16)
        fb.add(Mlx5CmdFailed, n, node=_node(artefact, line), pci_bus_id=bus,
               command=m["cmd"], opcode=int(m["opcode"], 16), op_mod=op_mod,
               register_read=m["cmd"] == "ACCESS_REG" and op_mod == 1, status=m["status"].strip(),
               status_code=int(m["status_code"], 16), syndrome=f"0x{m['syndrome'].lower()}", function=m["func"])
        result.lines_used += 1
    return result


def _node(artefact: Artefact, line: str) -> str:
    host = _HOST.match(line)
    return artefact.node_for(host["host"] if host else None)


def _device_lines(pattern: re.Pattern[str], artefact: Artefact, fb: FactBuilder):
    """(line number, line, match, PCI bus id) of each ``mlx5_core <bdf>: `` line ``pattern`` reads."""
    for n, line in iter_lines(pattern, artefact):
        m = pattern.search(line)
        bus = try_pci_bus_id(m["bdf"])
        if bus is None:
            fb.error(n, f"mlx5_core: unreadable PCI address {m['bdf']!r}")
            continue
        yield n, line, m, bus


def _health(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    lines = artefact.lines
    for n, line, m, bus in _device_lines(_HEALTH, artefact, fb):
        syndrome = m["issue"]
        for k in range(n, min(n + 16, len(lines))):  # print_health_info's "synd" line follows the event
            s = _SYND.search(lines[k])
            if s is not None and s["bdf"] == m["bdf"]:
                syndrome = syndrome or s["text"].strip()
                break
        event = ("fatal_error" if m["fatal"] else "health_compromised" if m["missed"]
                 else "health_issue" if m["issue"] is not None else "recovery_failed")
        fb.add(Mlx5HealthEvent, n, node=_node(artefact, line), pci_bus_id=bus, event=event,
               fatal=event != "health_issue" or int(m["sev"]) <= 3, sensor=int(m["fatal"]) if m["fatal"] else None,
               syndrome=syndrome, message=line[m.start():].strip())
        result.lines_used += 1


def _completions(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    for n, line in iter_lines(_WC, artefact):
        m = _WC.search(line)
        fb.add(KernelIbCompletionError, n, node=_node(artefact, line), device=m["dev"] or m["olddev"],
               status=int(m["status"]), status_text=m["text"].strip(), function=m["func"])
        result.lines_used += 1


def _tx_timeouts(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    timed_out: set[str] = set()  # interfaces with a queue line: their "TX timeout detected" line is read too
    for n, line, m, _bus in _device_lines(_TX_TIMEOUT, artefact, fb):
        fb.add(NetdevTxTimeout, n, node=_node(artefact, line), interface=m["ifname"], driver="mlx5_core",
               queue=int(m["queue"]), timeout_ms=int(m["usecs"]) // 1000 if m["usecs"] else None,
               message=line[m.start():].strip())
        timed_out.add(m["ifname"])
        result.lines_used += 1
    for _n, line in iter_lines(_TX_DETECTED, artefact):
        if _TX_DETECTED.search(line)["ifname"] in timed_out:
            result.lines_used += 1


def _error_cqes(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    lines = artefact.lines
    seen: set[tuple[str, str, str]] = set()  # (device, CQ, syndrome): a flushed QP repeats the pair per request
    for n, line in iter_lines(_ERR_CQE, artefact):
        m = _ERR_CQE.search(line)
        dev = m["dev"] or m["olddev"]
        result.lines_used += 1
        s = _ERR_SYND.search(lines[n]) if n < len(lines) else None  # the syndrome line follows it
        if s is None or (s["dev"] or s["olddev"]) != dev:
            fb.error(n, f"mlx5_ib: an error CQE on {dev} without its syndrome line")
            continue
        key = (dev, m["cqn"].lower(), s["synd"].lower())
        if key in seen:
            continue
        seen.add(key)
        status, text = _CQE_SYNDROME.get(int(s["synd"], 16), _GENERAL_ERR)
        fb.add(KernelIbCompletionError, n, node=_node(artefact, line), device=dev, status=status,
               status_text=text, function=m["func"])
    for _n, line in iter_lines(_ERR_SYND, artefact):
        result.lines_used += 1


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_CMD, _HEALTH, _WC, _CMD_TIMEOUT, _TX_TIMEOUT, _ERR_CQE, _PROBE, _SLOT_POWER)
