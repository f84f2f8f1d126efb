"""The schemas of knowledge/gpu_products.yaml and gpu_pci_ids.yaml (generated): GPU products that never sit on an
NVSwitch board, and the first driver release that lists each PCI device ID.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from pydantic import Field

from stethoscope.facts.knowledge.base import Record as _M


# --- gpu_products.yaml: products that never sit on an NVSwitch board -------------------------

class GpuProducts(_M):
    source: str = Field(min_length=10)
    no_nvswitch_words: list[str] = Field(min_length=1)


# --- gpu_pci_ids.yaml: the first driver release that lists each PCI device ID (generated) ---

_RELEASE = r"^\d+\.\d+(\.\d+)*$"


class GpuPciId(_M):
    name: str = Field(min_length=2)
    first_release: str = Field(pattern=_RELEASE)


class GpuPciIds(_M):
    source: str = Field(min_length=10)
    latest_release: str = Field(pattern=_RELEASE)
    devices: dict[str, GpuPciId] = Field(min_length=1)

    def first_release(self, device_id: str) -> str | None:
        """The lowest release whose README lists PCI device ``device_id`` ("2330"), or None."""
        entry = self.devices.get(device_id.lower())
        return entry.first_release if entry is not None else None
