"""Fact classes shared by the nccl-tests text parser (:mod:`nccl_tests`) and its JSON twin
(:mod:`nccl_tests_json`), and the small helpers both need.

One ``*_perf`` invocation is one ``nccl_test_run``; its ranks, table rows and failure lines
point back at it through ``run_id`` (the run fact's ``id``).
"""
from __future__ import annotations

import os

from stethoscope.facts.kinds.bench import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclTestFailure, NcclTestRank, NcclTestRow, NcclTestRun,
)


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
