"""Kernel log lines of the EFA driver (``efa``, AWS's Elastic Fabric Adapter RDMA driver) reporting
an error, for :mod:`stethoscope.facts.parsers.kernel_log`. They give ``efa_driver_error`` facts.

The driver reports a failed admin command to the device (efa_com.c: ``"Failed to process command
%s (opcode %u) comp_status %d err %d"``, from 2026 ``"... (opcode %u) err %d"``; ``"Failed to
submit command %s (opcode %u) err %d"``), then the verb that needed it (efa_com_cmd.c:
``"Failed to allocate pd[%d]"``, ``"Failed to create qp [%d]"``, ``"Failed to register mr [%d]"``,
``"Failed to create ah for %pI6 [%d]"``...) through ``ibdev_err``/``ibdev_err_ratelimited``, and its
probe failures through ``dev_err`` (efa_main.c: ``"EFA device init failed"``, ``"Failed to enable
MSI-X. error %d"``...). The prefix depends on the kernel: amzn-drivers' kcompat.h maps ibdev_err to
``dev_err(&ibdev->dev)`` (``infiniband efa_0: ``), the kernel's own ibdev_printk names the parent
(``efa 0000:00:06.0 efa_0: ``), dev_err the PCI device (``efa 0000:4f:00.0: ``); udev may rename
the device (``rdmap16s27``: the rdma naming scheme's prefix for a device that is neither IB nor
RoCE, which on EC2 is EFA). Strings from amzn/amzn-drivers kernel/linux/efa (efa_com.c,
efa_com_cmd.c, efa_main.c, efa_verbs.c), the same as Linux drivers/infiniband/hw/efa. Real lines
(aws/aws-ofi-nccl#22, the NCCL net plugin's EFA endpoint failing to open its address vector)::

    [ 1632.420956] infiniband efa_0: Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12
    [ 1632.420957] infiniband efa_0: Failed to allocate pd[-12]

comp_status is the device's answer (efa_admin_defs.h: 1 resource allocation failure, read as
-ENOMEM; 2 bad opcode, 3 unsupported opcode, 4 malformed request, 5 illegal parameter, 6 unknown
error, 7 resource busy). Its info lines (``Elastic Fabric Adapter (EFA) v2.6.0g``, ``enabling
device``, ``Setup irq:...``) give nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import EfaDriverError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import FactBuilder

#: the literal part of each line: kernel_log's keyword scan looks for these
KEYWORDS = r"infiniband (?:efa_\d+|rdmap\w+): |efa [0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7](?: (?:efa_\d+|rdmap\w+))?: "

# infiniband efa_0: Failed to allocate pd[-12]                       (kcompat.h: ibdev_err = dev_err on the ib_device)
# efa 0000:00:06.0 efa_0: Failed to create qp [-12]                  (the kernel's ibdev_printk: driver, parent, ib_device)
# efa 0000:4f:00.0: EFA device init failed                           (dev_err on the PCI device)
_LINE = re.compile(
    r"(?:infiniband (?P<ibdev>efa_\d+|rdmap\w+)"
    r"|efa (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])(?: (?P<ibdev2>efa_\d+|rdmap\w+))?): "
    r"(?P<msg>(?:[^\n]*\S)?)\s*$"
)
# the driver's error formats (efa_com.c, efa_com_cmd.c, efa_main.c, efa_verbs.c; dbg and info lines left out):
# Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12
# Failed to create ah for fe80:0000:0000:0000:04e3:2dff:fe8b:2b5b [-22]
# The device didn't send any completion for admin cmd CREATE_QP(1) status 0 (id: 5, sq producer: 9, sq consumer: 8, cq consumer: 8)
# EFA device init failed  /  Failed to enable MSI-X. error -28  /  BARs unavailable. Requested 0x5, available 0x1
_ERROR = re.compile(
    r"(?:Failed |Fail |Unable to |Couldn't |Device isn't ready|Reading register |Wait for completion \(polling\) timeout"
    r"|The device (?:sent a completion|didn't send)|Received completion with unexpected|Completion (?:context|event on non-existent)"
    r"|Admin queue is closed|Unknown event|EFA (?:ctrl )?version is lower|EFA device init failed|DMA width illegal"
    r"|Invalid timeout|Reset indication|Feature \d+ isn't supported|Trying to set unsupported|aenq handlers pointer is NULL"
    r"|(?:Doorbells )?BARs? unavailable|pci_\w+\(?\)? (?:for bar \d+ )?failed|dma_set_mask\w* failed|chunk\[\d+\] dma_map_failed"
    r"|Device alloc failed)"
)
# Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12   /   Failed to submit command CREATE_QP (opcode 1) err -28
_COMMAND = re.compile(r"command (?P<cmd>[A-Z][A-Z0-9_]*) \(opcode (?P<opcode>\d+)\)(?: comp_status (?P<status>-?\d+))?")
# ... pd[-12]  /  ... qp [-12]  /  ... err -12  /  error: -22  /  MSI-X. error -28  /  attributes %d
_ERRNO = re.compile(r"(?:\[|\berr(?:or)?:? |attributes\d? |attributes: |hints )(?P<errno>-\d+)\]?$")


def parse_efa_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one EFA driver error line; False when the message is not one."""
    if "efa" not in msg and "rdmap" not in msg:
        return False
    m = _LINE.search(msg)
    if m is None or _ERROR.match(m["msg"]) is None:
        return False
    text = m["msg"]
    c = _COMMAND.search(text)
    e = _ERRNO.search(text)
    b.add(EfaDriverError, ln, device=m["ibdev"] or m["ibdev2"],
          pci_bus_id=try_pci_bus_id(m["bdf"]) if m["bdf"] else None, message=text,
          command=c["cmd"] if c else None, opcode=int(c["opcode"]) if c else None,
          comp_status=int(c["status"]) if c and c["status"] else None,
          errno=int(e["errno"]) if e else None, **common)
    used.add(ln)
    return True
