"""How the kernel's recovery from an uncorrectable PCIe error ended (used by :mod:`kernel_log`).

After an uncorrectable AER error (or a DPC containment, which calls the same code) Linux asks
the drivers below the bridge what to do, resets the link, and prints the result
(drivers/pci/pcie/err.c ``pcie_do_recovery``, ``#define dev_fmt(fmt) "AER: " fmt`` since 4.19;
before, drivers/pci/pcie/aer/aerdrv_core.c ``do_recovery`` with ``"AER: "`` in each string)::

    pci 0000:05:00.0: AER: can't recover (no error_detected callback)
    pcieport 0000:03:04.0: AER: Downstream Port link has been reset (0)
    pcieport 0000:03:04.0: AER: device recovery failed

and, from 4.x kernels, the link reset's failure without the prefix (``pcieport 0000:89:02.0: link reset at
upstream device 0000:89:02.0 failed``, before ``AER: Device recovery failed``)
(https://access.redhat.com/solutions/7128107, a PCIe switch port's fatal SDES error). The result
line makes one ``pcie_aer_recovery`` fact; the lines of the same recovery before it (the devices
it could not ask, the link reset, the broadcast steps) are read into it and count as used.

- ``device recovery failed``: the devices below the bridge are left disconnected
  (``pci_walk_bridge(bridge, report_perm_failure_detected)``, a DISCONNECT uevent): lost until
  a reboot, worse than the error itself.
- ``device recovery successful``: the drivers resumed. It follows only an uncorrectable error:
  corrected errors are cleared without a recovery (aer.c ``handle_error_source``).
- ``can't recover (no error_detected callback)`` (5.0 on; before, ``device has no AER-aware
  driver`` / ``device has no driver``): a driver without error callbacks. It does not decide the
  result alone (a frozen link's reset may still recover: the same line before ``device recovery
  successful`` in a DPC event on lkml), so without a result line after it, it makes no fact.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import PcieAerRecovery
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.parsers.kernel_log_pcie import device_roles

_BDF = r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"

# err.c pci_info(bridge, "device recovery failed\n") / "device recovery successful\n" (dev_fmt "AER: "); aerdrv_core.c
# dev_info(&dev->dev, "AER: Device recovery failed\n"):
# pcieport 0000:03:04.0: AER: device recovery failed                (RH solutions 7128107)
# pcieport 0000:89:02.0: AER: Device recovery failed                (fixtures/artefacts/kernel_log/dmesg_aer_hotplug_link_down.log)
_RESULT = re.compile(rf"(?<!\S)(?P<drv>[\w.-]{{1,40}}) (?P<dev>{_BDF}): AER: [Dd]evice recovery (?P<result>failed|successful)\b")
# err.c report_error_detected: pci_info(dev, "can't recover (no error_detected callback)\n"); aerdrv_core.c
# report_error_detected: dev_printk(KERN_DEBUG, &dev->dev, "device has %s\n", dev->driver ? "no AER-aware driver" : "no driver")
# (3.x "no error-aware driver"):
# pci 0000:05:00.0: AER: can't recover (no error_detected callback)          (RH solutions 7128107)
# nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)       (rwth-i6/returnn#1500)
_NO_CALLBACK = re.compile(rf"(?<!\S)(?P<drv>[\w.-]{{1,40}}) (?P<dev>{_BDF}): (?:AER: can't recover \(no error_detected callback\)"
                          r"|device has no (?:AER-aware |error-aware )?driver\b)")
# aer.c aer_root_reset: pci_info(dev, "%s Port link has been reset (%d)\n", "Root" : "Downstream", rc) (earlier "Root Port
# link has been reset\n"); err.c: pci_dbg(dev, "broadcast %s message\n"), pci_info(dev, "subordinate device reset failed\n"):
# pcieport 0000:03:04.0: AER: Downstream Port link has been reset (0)       (RH solutions 7128107)
# pcieport 0000:00:03.0: AER: Root Port link has been reset (0)             (rwth-i6/returnn#1500)
# pcieport 0000:00:1d.0: AER: broadcast error_detected message
# and the link reset's own failure, printed without "AER: " (err.c reset_link 4.18-5.6, pci_printk(KERN_DEBUG, dev, "link reset
# at upstream device %s failed\n", pci_name(dev)) / "no link-reset support at upstream device %s\n" - pci_printk takes no
# dev_fmt; aerdrv_core.c before 4.18 dev_printk(KERN_DEBUG, &dev->dev, the same strings, pci_name(udev)); 5.7 on
# reset_subordinates: "subordinate device reset failed", with "AER: ", above):
# pcieport 0000:89:02.0: link reset at upstream device 0000:89:02.0 failed     (fixtures/artefacts/kernel_log/dmesg_aer_hotplug_link_down.log)
_STEP = re.compile(rf"(?<!\S)[\w.-]{{1,40}} {_BDF}: (?:AER: (?P<step>(?:Root|Downstream) Port link has been reset\b(?: \(-?\d{{1,4}}\))?"
                   rf"|broadcast \w{{1,20}} message|subordinate device reset failed)"
                   rf"|(?P<upstream>link reset at upstream device {_BDF} failed|no link-reset support at upstream device {_BDF}))")
#: the words of the steps printed without "AER: ": kernel_log's keyword scan looks for these
KEYWORDS = r"link reset at upstream device |no link-reset support at upstream device "
#: how many lines before a result line its recovery's own lines may be (a switch with many functions below it
#: prints one can't-recover line for each)
_BACK = 40


class AerRecovery:
    """Collects the lines of one recovery until its result line, which makes the fact."""

    def __init__(self, builder: FactBuilder, used: set[int]):
        self.b, self.used = builder, used
        self.pending: list[tuple[int, str, re.Match[str]]] = []  # (line, "callback" | "step", match)

    def feed(self, ln: int, msg: str, common: dict) -> bool:
        """Read one line holding ``AER: ``, ``device has no`` or ``upstream device``; True if it is a recovery's."""
        if ln in self.used:
            return True
        if "recovery" in msg and (r := _RESULT.search(msg)) is not None:
            self._result(ln, msg, r, common)
            return True
        if (c := _NO_CALLBACK.search(msg)) is not None:
            self.pending.append((ln, "callback", c))
            return True
        if (s := _STEP.search(msg)) is not None:
            self.pending.append((ln, "step", s))
            return True
        return False

    def _result(self, ln: int, msg: str, r: re.Match[str], common: dict) -> None:
        mine = [(k, what, m) for k, what, m in self.pending if ln - k <= _BACK]
        self.pending = []
        device = try_pci_bus_id(r["dev"]) or r["dev"]
        callbacks = [f"{try_pci_bus_id(m['dev']) or m['dev']} ({m['drv']})" for _, what, m in mine if what == "callback"]
        resets = [m["step"] or m["upstream"] for _, what, m in mine if what == "step" and "reset" in (m["step"] or m["upstream"])]
        for k, _, _ in mine:
            self.used.add(k)
        self.used.add(ln)
        without = ", ".join(dict.fromkeys(callbacks)) or None
        reset = resets[-1] if resets else None
        detail = "; ".join(([f"no error callback in the drivers of {without}"] if without else []) + ([reset] if reset else []))
        self.b.add(PcieAerRecovery, ln, result=r["result"], device=device, device_driver=r["drv"],
                   **device_roles(device, r["drv"]), without_callback=without, link_reset=reset,
                   detail=detail or "no other line of this recovery in the log", message=msg[r.start("drv"):].strip(), **common)

    def flush(self) -> None:
        """Lines of a recovery whose result was not pasted make no fact (they stay unread)."""
        self.pending = []
