"""The series ``steth`` reads from Prometheus: exporter metric names, DCGM field ids, whether
dcgm-exporter collects them out of the box, and what each would show when it is missing.

Sources: DCGM ``dcgm_fields.h`` (field ids), dcgm-exporter ``etc/default-counters.csv``
(``default_on``: the line is not commented out there), node_exporter
``collector/infiniband_linux.go`` (``node_infiniband_*``, labels ``device`` and ``port``).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signal:
    key: str  # our short name, used by the fact builders
    metrics: tuple[str, ...]  # exporter names, newest first (one PromQL query ORs them)
    source: str  # "dcgm-exporter" or "node_exporter"
    field_id: int | None
    default_on: bool
    shows: str
    mode: str = "gauge"  # how it is queried: facts/live/promql.py
    down: str | None = None  # state signals: the comparison true in the down state

    @property
    def query_selector(self) -> str:
        if len(self.metrics) == 1:
            return self.metrics[0]
        return '{__name__=~"%s"}' % "|".join(self.metrics)


def _d(key: str, metric: str, fid: int, on: bool, shows: str, *older: str, mode: str = "gauge", down: str | None = None) -> Signal:
    return Signal(key, (metric, *older), "dcgm-exporter", fid, on, shows, mode, down)


def _n(key: str, metric: str, shows: str, mode: str = "gauge", down: str | None = None) -> Signal:
    return Signal(key, (metric,), "node_exporter", None, True, shows, mode, down)


C = "counter"


SIGNALS: tuple[Signal, ...] = (
    _d("xid", "DCGM_FI_DEV_XID_ERRORS", 230, True, "the last Xid error of each GPU (err_code/err_msg labels since dcgm-exporter 3.3.6)", mode="events"),
    _d("gpu_temp", "DCGM_FI_DEV_GPU_TEMP", 150, True, "GPU temperature and its trend"),
    _d("memory_temp", "DCGM_FI_DEV_MEMORY_TEMP", 140, True, "HBM temperature"),
    _d("power", "DCGM_FI_DEV_POWER_USAGE", 155, True, "power draw and its trend"),
    _d("clock_reasons", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 112, False,
       "why clocks are held down (HW/SW thermal slowdown, power brake, power cap)", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", mode="bits"),
    _d("ecc_sbe_vol", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 310, False, "correctable ECC errors since the driver loaded, and their growth", mode=C),
    _d("ecc_dbe_vol", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 311, False, "uncorrectable ECC errors since the driver loaded", mode=C),
    _d("ecc_sbe_agg", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", 312, False, "lifetime correctable ECC errors"),
    _d("ecc_dbe_agg", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", 313, False, "lifetime uncorrectable ECC errors"),
    _d("retired_sbe", "DCGM_FI_DEV_RETIRED_SBE", 390, False, "pages retired for single-bit errors (pre-Ampere page retirement)"),
    _d("retired_dbe", "DCGM_FI_DEV_RETIRED_DBE", 391, False, "pages retired for double-bit errors (pre-Ampere page retirement)"),
    _d("retired_pending", "DCGM_FI_DEV_RETIRED_PENDING", 392, False, "a page waiting for a GPU reset to be retired (pre-Ampere)"),
    _d("remap_unc", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 393, True, "rows remapped for uncorrectable errors"),
    _d("remap_corr", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 394, True, "rows remapped for correctable errors"),
    _d("remap_failure", "DCGM_FI_DEV_ROW_REMAP_FAILURE", 395, True, "whether row remapping failed"),
    _d("remap_pending", "DCGM_FI_DEV_ROW_REMAP_PENDING", 396, False, "a remapped row waiting for a GPU reset"),
    _d("pcie_replay", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 202, True, "PCIe replays and their growth (signal integrity)", mode=C),
    _d("nvlink_bw", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", 449, True, "NVLink traffic (a drop against peers)", mode=C),
    _d("nvlink_crc_flit", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", 409, False, "NVLink flow-control CRC errors growing", mode=C),
    _d("nvlink_crc_data", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", 419, False, "NVLink data CRC errors growing", mode=C),
    _d("nvlink_replay", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", 429, False, "NVLink replays growing", mode=C),
    _d("nvlink_recovery", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", 439, False, "NVLink recoveries growing", mode=C),
    _d("slowdown_temp", "DCGM_FI_DEV_SLOWDOWN_TEMP", 158, False, "the GPU temperature at which HW slowdown starts (how close a rising temperature is to it)"),
    _d("mem_max_op_temp", "DCGM_FI_DEV_MEM_MAX_OP_TEMP", 151, False, "the highest memory temperature for normal operation (how close a rising HBM temperature is to it)"),
    _d("power_limit", "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", 164, False, "the enforced power limit (whether the draw is pinned at it)"),
    _d("sm_clock", "DCGM_FI_DEV_SM_CLOCK", 100, True, "SM clocks falling while power is pinned at its limit"),
    _d("nvlink_state", "DCGM_FI_DEV_NVLINK_GET_STATE", 1508, False,
       "per-link NVLink state (0 inactive, 1 active; link entities, label nvlink): links that went down and up",
       mode="state", down="== 0"),
    _d("gpu_util", "DCGM_FI_DEV_GPU_UTIL", 203, True, "periodic idle GPUs (input stall) and nodes below their peers (straggler)", mode="raw"),
    _d("mem_copy_util", "DCGM_FI_DEV_MEM_COPY_UTIL", 204, True, "memory copy engine activity"),
    _d("gr_engine_active", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", 1001, True, "graphics engine activity, finer than GPU_UTIL"),
    _d("sm_active", "DCGM_FI_PROF_SM_ACTIVE", 1002, False, "SM activity: a node's GPUs computing less than their peers"),
    _d("tensor_active", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1004, True, "tensor pipe activity"),
    _d("dram_active", "DCGM_FI_PROF_DRAM_ACTIVE", 1005, True, "HBM interface activity"),
    _n("ib_state", "node_infiniband_state_id", "HCA port state (1 down, 2 init, 3 armed, 4 active) and ports that went down and up",
       mode="state", down="< 4"),
    _n("ib_phys_state", "node_infiniband_physical_state_id", "HCA port physical state (5 LinkUp, 2 Polling, 3 Disabled)"),
    _n("ib_rate", "node_infiniband_rate_bytes_per_second", "HCA port signalling rate"),
    _n("ib_rx_bytes", "node_infiniband_port_data_received_bytes_total", "whether a port carried traffic", mode=C),
    _n("ib_link_downed", "node_infiniband_link_downed_total", "links that failed recovery and went down", mode=C),
    _n("ib_link_error_recovery", "node_infiniband_link_error_recovery_total", "link error recoveries growing", mode=C),
    _n("ib_rcv_errors", "node_infiniband_port_errors_received_total", "received packets with errors growing", mode=C),
)

BY_KEY: dict[str, Signal] = {s.key: s for s in SIGNALS}


def enable_hint(sig: Signal) -> str:
    """What an operator does to get a missing signal."""
    if sig.source == "dcgm-exporter":
        names = " (older DCGM: ".join(sig.metrics) + (")" if len(sig.metrics) > 1 else "")
        return f"add {names}, DCGM field {sig.field_id}, to dcgm-exporter's counters CSV (-f) and restart it"
    return "run node_exporter with its infiniband collector (on by default; needs /sys/class/infiniband)"
