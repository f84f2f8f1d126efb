"""The field names of ``nvidia-smi --query-gpu=...`` and how a CSV row becomes GPU-state facts.

Shared by :mod:`nvidia_smi_util` (not itself a parser). Field names are those of
``nvidia-smi --help-query-gpu``; a header prints each with its unit (``power.draw [W]``), and
``--format=csv,nounits`` drops the units from the values, not from the header. Sample row
(``--query-gpu=index,pci.bus_id,temperature.gpu,ecc.errors.uncorrected.volatile.total,
clocks_throttle_reasons.hw_slowdown,power.draw --format=csv``)::

    index, pci.bus_id, temperature.gpu, ecc.errors.uncorrected.volatile.total, clocks_throttle_reasons.hw_slowdown, power.draw [W]
    0, 00000000:00:06.0, 32, 0, Not Active, 78.81 W

A row becomes a :class:`GpuRecord` in the format-neutral keys of :mod:`gpu_state_facts`, so
the CSV gives the same fact kinds as ``nvidia-smi -q`` (``gpu_info``, ``gpu_temperature``,
``gpu_power``, ``gpu_ecc_count``, ``gpu_clock_reason``, ``gpu_retired_pages``,
``gpu_row_remap``, ``gpu_pcie_link``, ``gpu_fabric``, ...), plus ``gpu_usage`` for memory,
utilisation and modes. A row without ``pci.bus_id`` names no GPU and gives none of them.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.parsers.gpu_state_facts import GpuRecord, emit_gpu_facts, read_number
from stethoscope.facts.parsers.nvidia_smi_table import GpuUsage

#: query field (and its aliases) -> record key of gpu_state_facts
FIELDS: dict[str, str] = {
    "name": "info.name", "gpu_name": "info.name", "uuid": "info.uuid", "gpu_uuid": "info.uuid",
    "serial": "info.serial", "gpu_serial": "info.serial", "vbios_version": "info.vbios",
    "persistence_mode": "info.persistence",
    "reset_status.reset_required": "info.reset_required",
    "reset_status.drain_and_reset_recommended": "info.drain_and_reset",
    "temperature.gpu": "temp.gpu", "temperature.memory": "temp.memory",
    "temperature.gpu.tlimit": "temp.tlimit",
    "power.draw": "power.draw", "power.draw.instant": "power.instant", "power.draw.average": "power.average",
    "power.limit": "power.limit", "enforced.power.limit": "power.enforced_limit",
    "power.default_limit": "power.default_limit", "power.min_limit": "power.min_limit",
    "power.max_limit": "power.max_limit",
    "ecc.mode.current": "ecc_mode.current", "ecc.mode.pending": "ecc_mode.pending",
    "retired_pages.single_bit_ecc.count": "retired.sbe", "retired_pages.sbe": "retired.sbe",
    "retired_pages.double_bit.count": "retired.dbe", "retired_pages.dbe": "retired.dbe",
    "retired_pages.pending": "retired.pending_retirement",
    "remapped_rows.correctable": "remap.corr", "remapped_rows.uncorrectable": "remap.unc",
    "remapped_rows.pending": "remap.pending", "remapped_rows.failure": "remap.failure",
    "pcie.link.gen.current": "pcie.gen_current", "pcie.link.gen.max": "pcie.gen_max",
    "pcie.link.gen.gpucurrent": "pcie.gen_device_current", "pcie.link.gen.gpumax": "pcie.gen_device_max",
    "pcie.link.gen.hostmax": "pcie.gen_host_max",
    "pcie.link.width.current": "pcie.width_current", "pcie.link.width.max": "pcie.width_max",
    "fabric.state": "fabric.state", "fabric.status": "fabric.status",
}
#: fields read for gpu_usage and for identity
USAGE = ("memory.used", "memory.total", "utilization.gpu", "pstate", "fan.speed", "compute_mode", "mig.mode.current")
IDENTITY = ("index", "pci.bus_id", "gpu_bus_id", "driver_version", "timestamp")
# ecc.errors.uncorrected.volatile.total   |   ecc.errors.corrected.aggregate.device_memory
_ECC = re.compile(r"^ecc\.errors\.(?P<t>corrected|uncorrected)\.(?P<scope>volatile|aggregate)\.(?P<loc>[a-z_0-9]+)$")
# clocks_throttle_reasons.hw_slowdown   |   clocks_event_reasons.sw_power_cap   |   clocks_throttle_reasons.active
_REASON = re.compile(r"^clocks_(?P<sec>throttle|event)_reasons\.(?P<reason>[a-z_]+)$")
#: nvmlClocksThrottleReasons bits (nvml.h) of the ``clocks_throttle_reasons.active`` mask
REASON_BITS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
               0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
               0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting"}
_SECTION = {"throttle": "Clocks Throttle Reasons", "event": "Clocks Event Reasons"}


def field_name(header_cell: str) -> str:
    """``power.draw [W]`` -> ``power.draw``; ``clocks_event_reasons.active`` as is."""
    return header_cell.strip().split(" [", 1)[0].strip().lower()


def known(name: str) -> bool:
    return (name in FIELDS or name in USAGE or name in IDENTITY or _ECC.match(name) is not None
            or _REASON.match(name) is not None or name.startswith(("clocks.", "memory.", "utilization.")))


def emit_row(b: FactBuilder, line: int, names: list[str], values: list[str]) -> bool:
    """Facts of one CSV row; False when the row names no GPU (no ``pci.bus_id`` column)."""
    row = dict(zip(names, values))
    bus = try_pci_bus_id(row.get("pci.bus_id") or row.get("gpu_bus_id"))
    if bus is None:
        return False
    rec = GpuRecord(pci_bus_id=bus, line=line,
                    index=int(row["index"]) if row.get("index", "").isdecimal() else None,
                    driver_version=row.get("driver_version") or None)
    mask_fields: list[tuple[str, str]] = []
    for name, raw in row.items():
        if (key := FIELDS.get(name)) is not None:
            rec.values[key] = (raw, line)
        elif (e := _ECC.match(name)) is not None:
            loc = {"texture_shm": "texture_shared"}.get(e["loc"], e["loc"])
            rec.ecc.append((e["scope"], "correctable" if e["t"] == "corrected" else "uncorrectable", loc, raw, line))
        elif (r := _REASON.match(name)) is not None:
            if r["reason"] == "active":
                mask_fields.append((raw, _SECTION[r["sec"]]))
            elif r["reason"] != "supported":
                rec.reasons.append((r["reason"], raw, line, _SECTION[r["sec"]]))
    if mask_fields and not rec.reasons:
        _decode_mask(b, rec, line, *mask_fields[0])
    emit_gpu_facts(b, rec)
    _usage(b, line, bus, rec.index, row)
    return True


def _decode_mask(b: FactBuilder, rec: GpuRecord, line: int, raw: str, section: str) -> None:
    try:
        mask = int(raw.strip(), 16)
    except ValueError:
        if raw.strip().strip("[]").lower() not in ("n/a", "not supported"):
            b.error(line, f"clocks reasons mask {raw.strip()!r} is not a hex number")
        return
    for bit, reason in REASON_BITS.items():
        rec.reasons.append((reason, "Active" if mask & bit else "Not Active", line, section))


def _usage(b: FactBuilder, line: int, bus: str, index: int | None, row: dict[str, str]) -> None:
    if not any(k in row for k in USAGE):
        return

    def num(key: str) -> int | None:
        if key not in row:
            return None
        value = read_number(b, row[key], line, what=key, integer=False)
        return None if value is None else int(value)

    def text(key: str) -> str | None:
        raw = row.get(key, "").strip()
        return None if not raw or raw.strip("[]").lower() in ("n/a", "not supported") else raw

    b.add(GpuUsage, line, pci_bus_id=bus, index=index, memory_used_mib=num("memory.used"),
          memory_total_mib=num("memory.total"), utilization_pct=num("utilization.gpu"),
          performance_state=text("pstate"), fan_pct=num("fan.speed"), compute_mode=text("compute_mode"),
          mig_mode=text("mig.mode.current"))
