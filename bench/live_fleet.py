"""A recorded fleet for bench/bench_live.py: N nodes x 8 GPUs, OpenMetrics that ``promtool tsdb
create-blocks-from openmetrics`` imports into a TSDB folder.

    .venv/bin/python bench/live_fleet.py /tmp/fleet.om --nodes 16     # just write the file

Label sets are those dcgm-exporter and node_exporter put on their series (as in
fixtures/series/make_series.py, whose README names the sources): dcgm-exporter's
``gpu, UUID, pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION`` plus the
scrape's ``instance``/``job``; Xid series carry ``err_code``/``err_msg`` (3.3.6+);
node_exporter's InfiniBand series ``device, port`` plus ``instance``/``job``. The families are
dcgm-exporter's default counters (etc/default-counters.csv: temperatures, power, SM clock,
utilisation, profiling activity, PCIe replays, NVLink bandwidth, row remapping, Xid) plus the
ones an operator enables for diagnosis (clock event reasons, volatile ECC totals), and
node_exporter's infiniband collector for 8 HCA ports a node (one per GPU rail).

Planted (and nothing else out of the ordinary; the healthy fleet has the noise a busy fleet
has: temperatures and power wobble, clocks idle or power-capped at times, counters grow):

- ``XID``: node0137, GPU 0000:5d:00.0, Xid 79 from T0+50 min (the gauge keeps it)
- ``HOT``: node0512, GPU 0000:9a:00.0 heats to 91 C, HW thermal slowdown (0x40) from T0+60 min
- ``IB``:  node0801, mlx5_3 port 1: LinkDownedCounter 0 -> 1 at T0+40 min -> 2 at T0+80 min
  (the port recovered between scrapes: its state series stays Active)
"""
from __future__ import annotations

import argparse
import math
import zlib
from pathlib import Path
from typing import TextIO

T0 = 1764547200  # 2025-12-01T00:00:00Z: a multiple of 2 h, so 2 h of samples fill one block
STEP = 15
DURATION = 7200
BUSES = ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db")
HCAS = tuple(f"mlx5_{i}" for i in range(8))
MODEL = "NVIDIA H100 80GB HBM3"
DRIVER = "550.54.15"

XID = ("node0137", "5d", 79, T0 + 50 * 60)
HOT = ("node0512", "9a", T0 + 60 * 60)
IB = ("node0801", "mlx5_3", (T0 + 40 * 60, T0 + 80 * 60))
PLANTED = {  # (cause, node, gpu or hca) the bench expects and nothing else
    ("gpu_fell_off_bus", XID[0], f"0000:{XID[1]}:00.0"),
    ("gpu_thermal_slowdown", HOT[0], f"0000:{HOT[1]}:00.0"),
    ("ib_link_flapping", IB[0], IB[1]),
}

GAUGES = ("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK",
          "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
          "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE")
ZEROS = ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
         "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
         "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL")


def nodes(n: int) -> list[str]:
    return [f"node{i:04d}" for i in range(1, n + 1)]


def _fmt(labels: dict[str, str]) -> str:
    return ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))


def gpu_labels(node: str, idx: int) -> dict[str, str]:
    bus = BUSES[idx]
    return {"gpu": str(idx), "UUID": f"GPU-{zlib.crc32((node + str(idx)).encode()):08x}-0000-4000-8000-{idx:012d}",
            "pci_bus_id": f"00000000:{bus.upper()}:00.0", "device": f"nvidia{idx}", "modelName": MODEL,
            "Hostname": node, "DCGM_FI_DRIVER_VERSION": DRIVER, "instance": f"{node}:9400", "job": "dcgm-exporter"}


class Patterns:
    """Value sequences shared by many series (each series picks one by a seed), as the text of
    ``" value ts\\n"`` lines: writing a series is then one join of its label prefix."""

    def __init__(self) -> None:
        self.times = list(range(T0, T0 + DURATION, STEP))
        self._cache: dict[tuple, list[str]] = {}

    def lines(self, key: tuple, values) -> list[str]:
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = [f" {_num(v)} {t}\n" for t, v in zip(self.times, values)]
        return got

    def wobble(self, name: str, base: float, amp: float, seed: int, digits: int = 0) -> list[str]:
        return self.lines((name, seed), [round(base + amp * math.sin(t / 97.0 + seed), digits) for t in self.times])

    def const(self, v: float) -> list[str]:
        return self.lines(("const", v), [v] * len(self.times))

    def ramp(self, name: str, per_s: float, seed: int) -> list[str]:
        start = 1e12 + seed * 7.3e9
        return self.lines((name, seed), [start + (t - T0) * per_s for t in self.times])


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


def _series(out: TextIO, metric: str, labels: dict[str, str], lines: list[str], keep=None) -> None:
    prefix = f"{metric}{{{_fmt(labels)}}}"
    if keep is None:
        out.write("".join([prefix + s for s in lines]))
    else:
        out.write("".join([prefix + s for t, s in zip(range(T0, T0 + DURATION, STEP), lines) if keep(t)]))


def gpu_values(p: Patterns, metric: str, node: str, idx: int) -> list[str]:
    seed = zlib.crc32(f"{node}/{idx}".encode()) % 32
    hot = (node, BUSES[idx]) == HOT[:2]
    if metric in ("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP"):
        off = 4 if metric == "DCGM_FI_DEV_MEMORY_TEMP" else 0
        if hot:  # climbs from 30 min on, pinned at 91 C under HW slowdown from 60 min
            return p.lines((metric, "hot"), [off + (min(91, 64 + (t - T0 - 1800) / 66) if t >= T0 + 1800 else 64)
                                             for t in p.times])
        return p.wobble(metric, 58 + off + seed % 8, 2, seed)
    if metric == "DCGM_FI_DEV_POWER_USAGE":
        return p.wobble(metric, 520 + 4 * seed, 40, seed, 2)
    if metric == "DCGM_FI_DEV_SM_CLOCK":
        if hot:
            return p.lines((metric, "hot"), [1410 if t >= HOT[2] else 1980 for t in p.times])
        return p.wobble(metric, 1975, 5, seed)
    if metric == "DCGM_FI_DEV_GPU_UTIL":
        return p.wobble(metric, 93, 4, seed)
    if metric == "DCGM_FI_DEV_MEM_COPY_UTIL":
        return p.wobble(metric, 38, 6, seed)
    if metric.startswith("DCGM_FI_PROF_"):
        return p.wobble(metric, {"GR": 0.9, "PI": 0.45, "DR": 0.5}[metric[13:15]], 0.04, seed, 3)
    raise KeyError(metric)


def reasons(p: Patterns, node: str, idx: int) -> list[str]:
    """Clock event reasons: a busy fleet is power-capped (0x4) now and then and idle (0x1) between
    steps; the hot GPU adds HW thermal slowdown (0x40)."""
    seed = zlib.crc32(f"{node}/{idx}".encode()) % 32
    if (node, BUSES[idx]) == HOT[:2]:
        return p.lines(("reasons", "hot"), [0x44 if t >= HOT[2] else 0x4 for t in p.times])
    return p.lines(("reasons", seed), [0x4 if (t // STEP + seed) % 11 == 0 else 0x1 if (t // STEP + seed) % 17 == 0 else 0
                                       for t in p.times])


def write(path: Path, n_nodes: int) -> Path:
    p = Patterns()
    fleet = nodes(n_nodes)
    with path.open("w", buffering=1 << 22) as out:
        for metric in (*GAUGES, *ZEROS, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"):
            out.write(f"# TYPE {metric} gauge\n")  # counters as gauges: promtool keeps the names as written
            for node in fleet:
                for idx in range(8):
                    lab = gpu_labels(node, idx)
                    if metric in ZEROS:
                        lines = p.const(0)
                    elif metric == "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL":
                        lines = p.ramp(metric, 4.0e7, idx)
                    elif metric == "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS":
                        lines = reasons(p, node, idx)
                    else:
                        lines = gpu_values(p, metric, node, idx)
                    _series(out, metric, lab, lines)
        out.write("# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n")
        for node in fleet:
            for idx in range(8):
                lab = gpu_labels(node, idx)
                if (node, BUSES[idx]) == XID[:2]:
                    code, since = XID[2], XID[3]
                    _series(out, "DCGM_FI_DEV_XID_ERRORS", {**lab, "err_code": "0", "err_msg": "No Error"}, p.const(0),
                            keep=lambda t: t < since)
                    _series(out, "DCGM_FI_DEV_XID_ERRORS", {**lab, "err_code": str(code), "err_msg": "GPU has fallen off the bus"},
                            p.const(code), keep=lambda t: t >= since)
                else:
                    _series(out, "DCGM_FI_DEV_XID_ERRORS", {**lab, "err_code": "0", "err_msg": "No Error"}, p.const(0))
        ib_families = ("node_infiniband_state_id", "node_infiniband_physical_state_id", "node_infiniband_rate_bytes_per_second",
                       "node_infiniband_port_data_received_bytes_total", "node_infiniband_link_downed_total",
                       "node_infiniband_link_error_recovery_total")
        for metric in ib_families:
            out.write(f"# TYPE {metric} gauge\n")
            for node in fleet:
                for i, hca in enumerate(HCAS):
                    lab = {"device": hca, "port": "1", "instance": f"{node}:9100", "job": "node"}
                    if metric == "node_infiniband_state_id":
                        lines = p.const(4)
                    elif metric == "node_infiniband_physical_state_id":
                        lines = p.const(5)
                    elif metric == "node_infiniband_rate_bytes_per_second":
                        lines = p.const(50000000000)
                    elif metric == "node_infiniband_port_data_received_bytes_total":
                        lines = p.ramp(metric, 1.1e9, i)
                    elif metric == "node_infiniband_link_downed_total" and (node, hca) == IB[:2]:
                        first, second = IB[2]
                        lines = p.lines(("downed", "ib"), [0 if t < first else 1 if t < second else 2 for t in p.times])
                    else:
                        lines = p.const(0)
                    _series(out, metric, lab, lines)
        out.write("# EOF\n")
    return path


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--nodes", type=int, default=1024)
    a = ap.parse_args()
    print(write(a.out, a.nodes))
