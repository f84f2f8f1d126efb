"""Fact classes shared by the nccl-tests text parser (:mod:`nccl_tests`) and its JSON twin
(:mod:`nccl_tests_json`), and the small helpers both need.

One ``*_perf`` invocation is one ``nccl_test_run``; its ranks, table rows and failure lines
point back at it through ``run_id`` (the run fact's ``id``).
"""
from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class NcclTestRun(Fact):
    """One run of an nccl-tests binary: its settings, its footer and a summary of its table."""

    kind: Literal["nccl_test_run"] = "nccl_test_run"
    collective: str | None = None  # "all_reduce"; None when the output does not name the binary
    nccl_tests_version: str | None = None  # "2.19.6"
    nccl_version: str | None = None  # "2.28.9", from nccl-library=22809
    n_threads: int | None = None
    n_gpus: int | None = None  # GPUs per process (-g)
    min_bytes: int | None = None
    max_bytes: int | None = None
    iters: int | None = None
    warmup_iters: int | None = None
    validation: int | None = None  # -c; 0 means no #wrong column values (N/A)
    nranks: int = 0  # rank lines listed
    hosts: int = 0  # distinct hosts among them
    rows: int = 0  # table rows read
    avg_busbw: float | None = None  # "# Avg bus bandwidth    : 88.3838"
    avg_busbw_check: str | None = None  # "OK" | "FAILED" when run with -G/--check-bw, else None
    out_of_bounds: int | None = None
    status: str | None = None  # "OK" | "FAILED" from "# Out of bounds values"; None: no footer
    wrong_total: int = 0  # sum of #wrong over all rows, N/A counted as 0
    failed: bool = False
    failure_message: str | None = None
    max_busbw: float | None = None  # over out-of-place and in-place
    max_busbw_size: int | None = None


@fact_kind
class NcclTestRank(Fact):
    """``#  Rank  0 Group  0 Pid   1633 on         vm device  0 [0000:00:06] NVIDIA H200``"""

    kind: Literal["nccl_test_rank"] = "nccl_test_rank"
    run_id: str
    rank: int
    group: int | None = None  # absent before nccl-tests 2.13
    pid: int | None = None  # absent in nccl-tests v1.0.0 ("#   Rank  0 on  host device  0 [0x06] ...")
    host: str
    device: int  # CUDA device ordinal in that process
    pci_bus_id: str  # canonical dddd:bb:dd.f; before 2.17 only the bus was printed ([0x1b])
    gpu_name: str


@fact_kind
class NcclTestRow(Fact):
    """One line of the results table: out-of-place and in-place timings for one size."""

    kind: Literal["nccl_test_row"] = "nccl_test_row"
    run_id: str
    collective: str | None = None
    size_bytes: int
    count: int
    dtype: str
    redop: str | None = None
    root: int | None = None
    oop_time_us: float
    oop_algbw: float
    oop_busbw: float
    oop_wrong: int | None = None  # None: N/A (no validation) or an older max-error column
    oop_max_error: float | None = None  # nccl-tests < 2.13 printed the max deviation ("error")
    ip_time_us: float | None = None
    ip_algbw: float | None = None
    ip_busbw: float | None = None
    ip_wrong: int | None = None
    ip_max_error: float | None = None
    #: out-of-place plus in-place #wrong (None when neither was validated), so one rule
    #: can ask "did this size return wrong values"
    wrong: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _sum_wrong(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("wrong") is None:
            parts = [data.get("oop_wrong"), data.get("ip_wrong")]
            if any(p is not None for p in parts):
                data = {**data, "wrong": sum(p or 0 for p in parts)}
        return data


@fact_kind
class NcclTestFailure(Fact):
    """``vm: Test NCCL failure common.cu:1550 'invalid usage ...'`` or its trace lines."""

    kind: Literal["nccl_test_failure"] = "nccl_test_failure"
    run_id: str | None = None
    host: str | None = None
    pid: int | None = None
    failure_type: str  # "nccl" | "cuda" | "test" (the " .. host pid N: Test failure" trace) | "timeout" (-T)
    source_file: str | None = None
    source_line: int | None = None
    message: str  # the quoted error, or "Test failure" for a trace line
    nccl_error: str | None = None  # "invalid usage (run with NCCL_DEBUG=WARN for details)"
    last_error: str | None = None  # ncclGetLastError() after " / ", None when empty


def busbw_factor(collective: str, nranks: int) -> float:
    """busbw / algbw as nccl-tests defines it (doc/PERFORMANCE.md, each test's ``GetBw``).

    >>> busbw_factor("all_reduce", 8)
    1.75
    >>> busbw_factor("all_gather", 2), busbw_factor("sendrecv", 2)
    (0.5, 1.0)
    """
    name = normalise_collective(collective) or collective
    if nranks < 1:
        raise ValueError(f"nranks must be >= 1, got {nranks}")
    if name == "all_reduce":
        return 2.0 * (nranks - 1) / nranks
    if name in ("all_gather", "reduce_scatter", "alltoall"):
        return (nranks - 1) / nranks
    if name in ("broadcast", "reduce", "sendrecv"):
        return 1.0
    raise ValueError(f"no bus bandwidth factor known for {collective!r}")


def normalise_collective(program: str | None) -> str | None:
    """``/opt/nccl-tests/build/all_reduce_perf_mpi`` -> ``all_reduce``; None stays None."""
    if not program:
        return None
    name = os.path.basename(program.strip())
    for suffix in ("_mpi", "_perf"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name or None


def nccl_version_str(code: int) -> str:
    """``NCCL_VERSION_CODE`` -> "2.28.9": major*10000+minor*100+patch from 2.9, before that
    major*1000+minor*100+patch (2708 = 2.7.8)."""
    if code >= 10000:
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    return f"{code // 1000}.{code // 100 % 10}.{code % 100}"


def summarise_rows(rows: list[dict]) -> dict:
    """Run-level figures from row field dicts: wrong_total, max_busbw and its size."""
    wrong = 0
    best: float | None = None
    best_size: int | None = None
    for r in rows:
        wrong += (r.get("oop_wrong") or 0) + (r.get("ip_wrong") or 0)
        for bw in (r.get("oop_busbw"), r.get("ip_busbw")):
            if bw is not None and bw == bw and (best is None or bw > best):
                best, best_size = bw, r["size_bytes"]
    return {"wrong_total": wrong, "max_busbw": best, "max_busbw_size": best_size, "rows": len(rows)}
