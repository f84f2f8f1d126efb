"""Fact classes shared by the nccl-tests text parser (:mod:`nccl_tests`) and its JSON twin
(:mod:`nccl_tests_json`), and the small helpers both need.

One ``*_perf`` invocation is one ``nccl_test_run``; its ranks, table rows and failure lines
point back at it through ``run_id`` (the run fact's ``id``). Its rows are one ``nccl_test_table``
(every row, as columns) and an ``nccl_test_row`` each, which the rules' router keeps only where a
rule can bind it (:func:`emit_rows`).
"""
from __future__ import annotations

import os
from typing import Any

from stethoscope.facts.kinds.bench import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclTestFailure, NcclTestRank, NcclTestRow, NcclTestRun, NcclTestTable,
)
from stethoscope.facts.parsers.base import FactBuilder


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


def emit_rows(builder: FactBuilder, rows: list[tuple[int, dict[str, Any], str | None]], node: str | None,
              run_id: str) -> None:
    """A run's rows, each ``(line, nccl_test_row fields, the reader's quote or None)``: an
    nccl_test_row each (FactBuilder.add: with the rules' router, only a row some rule can bind is
    built, the others are counted into the file's summary), then the run's nccl_test_table, which
    holds every row with the id and quote its row fact has or would have had."""
    if not rows:
        return
    offset = builder.artefact.line_offset
    texts, nth = builder.add_each(NcclTestRow, rows, node, run_id=run_id)  # nth: 0 but where a line holds several rows (one-line JSON)
    lines = [line + offset for line, _, _ in rows]
    # the rows' ids when some are not <path>:<line>:nccl_test_row (NcclTestTable.row_id)
    ids = tuple(builder.fact_id(line, "nccl_test_row", n) for (line, _, _), n in zip(rows, nth)) if any(nth) else None
    first_line, first, first_text = rows[0]
    builder.add(NcclTestTable, first_line, node=node, text=first_text, run_id=run_id,
                collective=first.get("collective"), lines=tuple(lines), texts=tuple(texts), ids=ids,
                **NcclTestTable.columns_of([f for _, f, _ in rows]))
