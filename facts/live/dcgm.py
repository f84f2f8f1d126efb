"""DCGM exporter series -> the fact kinds the nvidia-smi and kernel log parsers emit.

Sample series (dcgm-exporter 3.3.6+, one line each)::

    DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-b6c3...",pci_bus_id="00000000:91:00.0",Hostname="node1",
        modelName="NVIDIA H100 80GB HBM3",err_code="79",err_msg="GPU has fallen off the bus"} 79
    DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="0",pci_bus_id="00000000:1C:00.0",hostname="node2",...} 64

A series without a ``pci_bus_id`` label (very old exporters) cannot be tied to a GPU and is
skipped; the builder counts it. Values are the last in the window (``last_over_time``), except
Xid (every distinct non-zero code seen in the window, from the non-zero points only) and clock
reasons (a reason active at any point of the window: facts/live/promql.py ``bits``).
"""
from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from stethoscope.facts.live.series import Series
from stethoscope.facts.model import Evidence, Fact
from stethoscope.facts.parsers.gpu_state_facts import (
    GpuClockReason, GpuClockReasons, GpuEccCount, GpuInfo, GpuPcieLink, GpuPower, GpuRetiredPages, GpuRowRemap, GpuTemperature,
)
from stethoscope.facts.kinds.kernel import XidEvent

#: NVML clocks event reason bits (nvmlClocksEventReason*), named as the nvidia-smi parser names them
CLOCK_REASON_BITS = {
    0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
    0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting",
}

ECC = {"ecc_sbe_vol": ("volatile", "correctable"), "ecc_dbe_vol": ("volatile", "uncorrectable"),
       "ecc_sbe_agg": ("aggregate", "correctable"), "ecc_dbe_agg": ("aggregate", "uncorrectable")}


class LiveFacts:
    """Collects facts with ids unique within one diagnosis."""

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.skipped = 0
        self._n: dict[str, int] = defaultdict(int)

    def add(self, cls: type[Fact], node: str, evidence: Evidence, key: str, **fields: Any) -> Fact:
        kind = cls.model_fields["kind"].default
        base = f"prom:{node}:{key}:{kind}"
        n = self._n[base]
        self._n[base] += 1
        fact = cls(id=base if n == 0 else f"{base}#{n}", node=node, evidence=evidence, **fields)
        self.facts.append(fact)
        return fact


def _gpus(series: list[Series], out: LiveFacts) -> dict[tuple[str, str], Series]:
    """(node, bus id) -> series; one per GPU (the first, should an exporter repeat one)."""
    got: dict[tuple[str, str], Series] = {}
    for s in series:
        if s.gpu is None:
            out.skipped += 1
            continue
        got.setdefault((s.node, s.gpu), s)
    return got


def xid_facts(series: list[Series], out: LiveFacts) -> None:
    for s in series:
        if s.gpu is None:
            out.skipped += 1
            continue
        seen: set[int] = set()
        for ts, value in s.samples:
            code = int(value)
            # the gauge keeps the last Xid until the exporter restarts: each code once per window
            if code <= 0 or code in seen:
                continue
            seen.add(code)
            out.add(XidEvent, s.node, s.evidence(ts, value), s.gpu, pci_bus_id=s.gpu, xid=code,
                    message=s.labels.get("err_msg") or f"Xid {code} (DCGM_FI_DEV_XID_ERRORS)",
                    timestamp=s.sample_text(ts, value).rsplit("(", 1)[1].rstrip(")"))


def clock_reason_facts(series: list[Series], out: LiveFacts) -> None:
    """From the ``bits`` query: per GPU the last value and, per reason bit, the last time it
    was set in the window (absent: never set)."""
    for (node, gpu), s in _gpus(series, out).items():
        for bit, reason in CLOCK_REASON_BITS.items():
            when = s.stats.get(f"bit:{bit}")
            text = (f"{s.metric}{{{_labels(s)}}} bit {bit:#x} ({reason}) set, last at @{when:.0f} "
                    f"({time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(when))})") if when else None
            ev = Evidence(path=s.query, line=s.row, text=text) if text else s.evidence()
            out.add(GpuClockReason, node, ev, gpu, pci_bus_id=gpu, reason=reason,
                    active=bool(when), section_name=s.metric)
        # the GPU's reasons in one fact, as the nvidia-smi readers give a block's (gpu_clock_reasons)
        out.add(GpuClockReasons, node, s.evidence(), gpu, pci_bus_id=gpu, section_name=s.metric,
                **{reason: bool(s.stats.get(f"bit:{bit}")) for bit, reason in CLOCK_REASON_BITS.items()})


def _labels(s: Series) -> str:
    return ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()) if k != "__name__")


def gpu_state_facts(fam: dict[str, list[Series]], out: LiveFacts) -> None:
    """Temperature, power, ECC, row remapping, retired pages, PCIe replays and identity, one fact per GPU."""
    by = {key: _gpus(fam.get(key, []), out) for key in (
        "gpu_temp", "memory_temp", "power", "remap_unc", "remap_corr", "remap_failure",
        "remap_pending", "retired_sbe", "retired_dbe", "retired_pending", "pcie_replay", "slowdown_temp",
        "mem_max_op_temp", "power_limit", *ECC)}

    def last(key: str, gpu_key: tuple[str, str]) -> float | None:
        s = by[key].get(gpu_key)
        return s.last[1] if s else None

    for key, (scope, etype) in ECC.items():
        for (node, gpu), s in by[key].items():
            out.add(GpuEccCount, node, s.evidence(), f"{gpu}:{key}", pci_bus_id=gpu, scope=scope,
                    error_type=etype, location="total", count=int(s.last[1]))
    for (node, gpu) in set(by["gpu_temp"]) | set(by["memory_temp"]):
        s = by["gpu_temp"].get((node, gpu)) or by["memory_temp"][(node, gpu)]
        t, m = last("gpu_temp", (node, gpu)), last("memory_temp", (node, gpu))
        slow, mmax = last("slowdown_temp", (node, gpu)), last("mem_max_op_temp", (node, gpu))
        out.add(GpuTemperature, node, s.evidence(), gpu, pci_bus_id=gpu,
                gpu_temp_c=None if t is None else int(t), memory_temp_c=None if m is None else int(m),
                slowdown_c=None if slow is None else int(slow), max_memory_c=None if mmax is None else int(mmax))
    for (node, gpu), s in by["power"].items():
        out.add(GpuPower, node, s.evidence(), gpu, pci_bus_id=gpu, draw_w=s.last[1],
                enforced_limit_w=last("power_limit", (node, gpu)))
    def per_gpu(keys: tuple[str, ...]):
        """(node, gpu, the first of its series, its last value of each key) of every GPU with one of ``keys``."""
        for node, gpu in set().union(*(by[k] for k in keys)):
            s = next(by[k][(node, gpu)] for k in keys if (node, gpu) in by[k])
            yield node, gpu, s, {k: last(k, (node, gpu)) for k in keys}

    for node, gpu, s, vals in per_gpu(("remap_pending", "remap_unc", "remap_corr", "remap_failure")):
        out.add(GpuRowRemap, node, s.evidence(), gpu, pci_bus_id=gpu,
                pending=None if vals["remap_pending"] is None else vals["remap_pending"] > 0,
                failure=None if vals["remap_failure"] is None else vals["remap_failure"] > 0,
                uncorrectable_rows=None if vals["remap_unc"] is None else int(vals["remap_unc"]),
                correctable_rows=None if vals["remap_corr"] is None else int(vals["remap_corr"]))
    # fields 392, 390, 391: as nvidia-smi -q's Retired Pages
    for node, gpu, s, vals in per_gpu(("retired_pending", "retired_sbe", "retired_dbe")):
        pending, sbe, dbe = vals["retired_pending"], vals["retired_sbe"], vals["retired_dbe"]
        out.add(GpuRetiredPages, node, s.evidence(), gpu, pci_bus_id=gpu,
                pending=None if pending is None else pending > 0, sbe_pages=None if sbe is None else int(sbe),
                dbe_pages=None if dbe is None else int(dbe),
                retired_pages=None if sbe is None or dbe is None else int(sbe) + int(dbe))
    for (node, gpu), s in by["pcie_replay"].items():
        out.add(GpuPcieLink, node, s.evidence(), gpu, pci_bus_id=gpu, replay_counter=int(s.last[1]))


def gpu_info_facts(fam: dict[str, list[Series]], out: LiveFacts) -> None:
    """Identity from the labels every DCGM series carries (first family that has the GPU)."""
    seen: set[tuple[str, str]] = set()
    for key in ("gpu_temp", "power", "gpu_util", "xid"):
        for s in fam.get(key, []):
            if s.gpu is None or (s.node, s.gpu) in seen:
                continue
            seen.add((s.node, s.gpu))
            idx = s.labels.get("gpu")
            out.add(GpuInfo, s.node, s.evidence(), s.gpu, pci_bus_id=s.gpu,
                    index=int(idx) if idx and idx.isdecimal() else None, name=s.labels.get("modelName"),
                    uuid=s.labels.get("UUID"), driver_version=s.labels.get("DCGM_FI_DRIVER_VERSION"))
