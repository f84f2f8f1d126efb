"""PCIe AER and hotplug lines of the kernel log (used by :mod:`kernel_log`).

One AER event prints several lines; the first names the device, the next ones say what::

    pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0
    pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)
    pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000
    pcieport 0000:00:03.0:    [ 5] SDES
    pcieport 0000:00:03.0:    [14] CmpltTO                (First)

They become one ``pcie_aer_error`` fact whose evidence is the first line; the rest count as used.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.kinds.kernel import PcieAerError, PcieBarUnassigned, PcieLinkDown

_BDF = r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"

# pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0
# pcieport 0000:00:01.0: AER: Correctable error message received from 0000:00:01.0
# pcieport 0000:00:1d.0: AER: Multiple Corrected error received: id=00e8
_RECEIVED = re.compile(
    rf"(?<!\S)(?P<pdrv>[\w.-]+) (?P<port>{_BDF}): AER: (?P<multi>Multiple )?(?P<sev>Corrected|Correctable|Uncorrect(?:ed|able) \((?:Non-)?Fatal\)) "
    rf"error (?:message )?received(?::| from) (?:(?P<src>{_BDF})|id=(?P<id>[0-9a-fA-F]{{4}}))"
)
# nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)
# pcieport 0000:00:1d.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e8(Receiver ID)
_BUS_ERROR = re.compile(
    rf"(?<!\S)(?P<drv>[\w.-]+) (?P<dev>{_BDF}): (?:AER: )?PCIe Bus Error: (?:severity=)?(?P<sev>[^,]+), type=(?P<type>[^,]+)"
    r"(?:, (?:id=[0-9a-fA-F]{4})?\((?P<agent>[^)]*)\))?"
)
# pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000
# pcieport 0000:89:02.0: AER:   device [8086:347a] error status/mask=00000001/00000000
_STATUS = re.compile(
    rf"(?<!\S)[\w.-]+ {_BDF}: (?:AER: )?\s*device \[(?P<id>[0-9a-fA-F]{{4}}:[0-9a-fA-F]{{4}})\] error status/mask=(?P<status>[0-9a-fA-F]+)"
)
# pcieport 0000:00:03.0:    [14] CmpltTO                (First)
# pcieport 0000:00:1d.0:    [ 0] Receiver Error
_BIT = re.compile(rf"(?<!\S)[\w.-]+ {_BDF}: (?:AER: )?\s*\[\s*\d+\] (?P<name>\S.*?)\s*(?P<first>\(First\))?\s*$")
# pcieport 0000:00:00.0: AER:   TLP Header: 60000001 0100000f 000000ff ffffe000
_TLP = re.compile(rf"(?<!\S)[\w.-]+ {_BDF}: (?:AER: )?\s*TLP Header:")

# pcieport 0000:89:02.0: pciehp: Slot(400): Link Down
# pciehp 0000:13:01.0:pcie24: slot(1-5): Link Down event
_LINK_DOWN = re.compile(rf"(?<!\S)[\w.-]+ (?P<port>{_BDF})(?::pcie\d+)?: (?:pciehp: )?[Ss]lot\((?P<slot>[^)]*)\): Link Down(?: event)?\s*$")
# pcieport 0000:89:02.0: pciehp: Slot(400): Card not present
_CARD = re.compile(rf"(?<!\S)[\w.-]+ (?P<port>{_BDF})(?::pcie\d+)?: (?:pciehp: )?[Ss]lot\([^)]*\): Card (?P<not>not )?present")


# The PCI core giving up on a BAR (drivers/pci/setup-res.c pci_assign_resource, pci_info):
# pci 0000:04:00.0: BAR 7: no space for [mem size 0x01000000 64bit pref]        (Linux < 6.8, "BAR %d: no space for %pR";
# pci 0000:04:00.0: BAR 7: failed to assign [mem size 0x01000000 64bit pref]     Mellanox/mstflint#448, an SR-IOV VF BAR)
# pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: can't assign; no space    (6.8 on, "%s %pR: can't assign; no space",
# pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: failed to assign           "%s %pR: failed to assign")
_BAR_UNASSIGNED = re.compile(
    rf"(?<!\S)[\w.-]+ (?P<dev>{_BDF}): (?:(?P<bar>BAR \d+): (?P<old>no space for|failed to assign) (?P<res>\[[^\]]*\])"
    r"|(?P<bar2>(?:VF )?BAR \d+|bridge window) (?P<res2>\[[^\]]*\]): (?P<new>can't assign; no space|failed to assign))\s*$"
)


def parse_bar_unassigned(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], seen: dict) -> bool:
    """A BAR the PCI core could not place: one fact per device and BAR (its ``no space`` and
    ``failed to assign`` lines are one failure; ``seen`` maps (device, BAR) to its fact's fields)."""
    m = _BAR_UNASSIGNED.search(msg)
    if m is None:
        return False
    used.add(ln)
    dev, bar = try_pci_bus_id(m["dev"]) or m["dev"], m["bar"] or m["bar2"]
    gave_up = (m["old"] or m["new"]) == "failed to assign"
    if (dev, bar) in seen:
        seen[(dev, bar)]["gave_up"] |= gave_up
        return True
    seen[(dev, bar)] = dict(line=ln, device=dev, bar=bar, resource=m["res"] or m["res2"], gave_up=gave_up, **common)
    return True


def emit_bar_unassigned(b: FactBuilder, seen: dict) -> None:
    for rec in seen.values():
        rec = dict(rec)
        b.add(PcieBarUnassigned, rec.pop("line"), **rec)


def _severity(raw: str) -> str:
    raw = raw.lower()
    if raw.startswith("correct"):
        return "corrected"
    return "nonfatal" if "non-fatal" in raw else "fatal"


def _from_requester_id(port: str, rid: str) -> str:
    """Old kernels print the source as a 16-bit requester id (bus << 8 | devfn)."""
    v = int(rid, 16)
    return f"{port[:4]}:{v >> 8:02x}:{(v >> 3) & 0x1f:02x}.{v & 7}"


class AerEvents:
    """Groups the lines of one AER event into one fact."""

    def __init__(self, builder: FactBuilder, used: set[int], prefix: re.Pattern[str]):
        self.b, self.used, self.prefix = builder, used, prefix
        self.pending: dict | None = None

    def flush(self) -> None:
        p, self.pending = self.pending, None
        if p is None:
            return
        ln = p.pop("line")
        p.pop("last")
        names = p.pop("names")
        p["errors"] = ",".join(names) or None
        self.b.add(PcieAerError, ln, **p)

    def feed(self, ln: int, line: str, msg: str, common: dict, lines: list[str]) -> bool:
        """Read one line holding an AER keyword; True if it belongs to an AER event."""
        if ln in self.used:
            return True
        if (r := _RECEIVED.search(msg)) is not None:
            self.flush()
            port = try_pci_bus_id(r["port"])
            device = try_pci_bus_id(r["src"]) if r["src"] else _from_requester_id(port, r["id"])
            self.pending = dict(line=ln, last=ln, device=device, reporter=port, severity=_severity(r["sev"]),
                                device_driver=r["pdrv"] if device == port else None,
                                multiple=r["multi"] is not None, message=msg[r.start("port"):].split(": ", 1)[1], names=[],
                                **common)
            self.used.add(ln)
            self._continuations(ln, lines)
            return True
        if (e := _BUS_ERROR.search(msg)) is not None:
            p = self.pending
            if p is None or p.get("error_type") or ln - p["last"] > 3:
                self.flush()
                self.pending = p = dict(line=ln, device=try_pci_bus_id(e["dev"]), severity=_severity(e["sev"]),
                                        message=msg[e.start("dev"):].split(": ", 1)[1], names=[], **common)
            p.update(error_type=e["type"].strip(), agent=e["agent"], last=ln)
            if try_pci_bus_id(e["dev"]) == p["device"]:
                p["device_driver"] = e["drv"]
            self.used.add(ln)
            self._continuations(ln, lines)
            return True
        if _STATUS.search(msg) or _BIT.search(msg) or _TLP.search(msg):
            self.used.add(ln)  # an orphan detail line (its head was cut off)
            return True
        return False

    def _continuations(self, ln: int, lines: list[str]) -> None:
        p = self.pending
        k = ln
        while k < len(lines) and k - ln < 40:
            raw = lines[k]
            pm = self.prefix.match(raw)
            msg = raw[pm.end():] if pm else raw
            if (s := _STATUS.search(msg)) is not None:
                p["pci_device_id"], p["error_status"] = s["id"].lower(), s["status"]
            elif (bit := _BIT.search(msg)) is not None:
                p["names"].append(bit["name"])
                if bit["first"]:
                    p["first_error"] = bit["name"]
            elif _TLP.search(msg) is None:
                break
            k += 1
            self.used.add(k)
            p["last"] = k


def parse_link_down(b: FactBuilder, ln: int, msg: str, common: dict, lines: list[str], used: set[int]) -> bool:
    if ln in used:
        return True
    m = _LINK_DOWN.search(msg)
    if m is None:
        return False
    card = None
    if ln < len(lines) and (c := _CARD.search(lines[ln])) is not None and c["port"] == m["port"]:
        card = c["not"] is None
        used.add(ln + 1)
    b.add(PcieLinkDown, ln, device=try_pci_bus_id(m["port"]), slot=m["slot"], card_present=card, **common)
    used.add(ln)
    return True
