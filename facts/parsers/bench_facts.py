"""Fact classes shared by the benchmark readers (gpu-burn, nvbandwidth, STREAM, fio, iperf3,
perftest, training throughput lines): one ``bench_result`` per number a benchmark reports,
in one shape, so that ``steth baseline record/compare`` (engine/baselines/bench.py) stores and
compares every kind the same way.

A result is keyed by ``(benchmark, test, entity, metric)``: ``("nvbandwidth",
"device_to_device_memcpy_read_ce", "gpu0->gpu1", "bandwidth")``, ``("stream", "Triad", "host",
"best_rate")``, ``("perftest", "ib_write_bw", "mlx5_0 8388608B", "bw_average")``. Two runs of the
same benchmark on the same entities give the same keys; that is what a baseline compares.
"""
from __future__ import annotations

from stethoscope.facts.kinds.bench import (  # noqa: F401 - the fact classes live in facts/kinds
    BenchResult, BenchmarkSweepNarrower, BenchmarkValidity, BenchmarkVsBaseline, BenchmarkVsPeers, DcgmDiagRun, GpuBurnVerdict,
    GpuBurnWorkerFailure, VersionCompat,
)

#: the benchmarks with a reader; also the ``benchmark`` names of knowledge/bench_tolerances.yaml
BENCHMARKS = ("gpu_burn", "nvbandwidth", "bandwidth_test", "stream", "fio", "iperf3", "perftest", "training", "dcgm_diag", "ubergemm", "gpu_fryer")


# --- derived: engine/baselines/bench.py --------------------------------------------------------
