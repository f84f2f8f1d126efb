"""One canonical form per identifier, made in one place."""
from __future__ import annotations

import re

# dmesg:      "NVRM: Xid (PCI:0000:a1:00): 79"          -> 0000:a1:00.0
# nvidia-smi: "Bus Id : 00000000:A1:00.0"                -> 0000:a1:00.0
# nccl-tests: "device  0 [0000:00:06] NVIDIA H200"       -> 0000:00:06.0
# NCCL:       "busId 70" / "busId 0x70"                 -> 0000:00:07.0 (nccl_busid)
_PCI = re.compile(
    r"^(?:PCI:)?(?:(?P<dom>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{1,2}):(?P<dev>[0-9a-fA-F]{1,2})(?:\.(?P<fn>[0-7]))?$"
)


def pci_bus_id(raw: str) -> str:
    """Canonical lowercase ``dddd:bb:dd.f`` PCI bus id; raises ValueError if ``raw`` is not one."""
    m = _PCI.match(raw.strip())
    if not m:
        raise ValueError(f"not a PCI bus id: {raw!r}")
    dom = int(m["dom"] or "0", 16)
    return f"{dom:04x}:{int(m['bus'], 16):02x}:{int(m['dev'], 16):02x}.{int(m['fn'] or '0')}"


def nccl_busid(raw: str) -> str:
    """NCCL prints busId as the hex digits of ``dddd:bb:dd.f`` run together, leading zeros
    dropped ("70" = 0000:00:07.0, "1b000" = 0000:1b:00.0; ``busIdToInt64`` in NCCL)."""
    raw = raw.strip()
    if ":" in raw:
        return pci_bus_id(raw)
    digits = f"{int(raw, 16):09x}"
    dom, bus, dev, fn = digits[:-5], digits[-5:-3], digits[-3:-1], digits[-1]
    return f"{int(dom, 16):04x}:{bus}:{dev}.{int(fn, 16)}"


def try_pci_bus_id(raw: str | None) -> str | None:
    if raw is None:
        return None
    try:
        return pci_bus_id(raw)
    except ValueError:
        return None
