"""``steth baseline``: record benchmark results of a healthy cluster (nccl-tests, gpu-burn,
nvbandwidth, STREAM, fio, iperf3, perftest, training throughput, dcgmi diag), compare later runs.

Exit codes: ``record``/``list``/``show`` 0, ``compare`` 0 when no band or figure is below the
baseline and 1 when one is (results taken on busy GPUs or unpinned clocks are shown as not
comparable and do not count); 3 for bad usage or unreadable input (one line on standard error).
"""
from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from stethoscope.cli.exits import bad_usage, internal

app = typer.Typer(help="Record benchmark baselines (SQLite: nccl-tests, gpu-burn, nvbandwidth, STREAM, fio, iperf3, perftest, "
                       "training throughput, dcgmi diag) and compare new runs with them.", no_args_is_help=True)
out = Console(highlight=False, emoji=False, soft_wrap=True)


class Fmt(str, Enum):
    text = "text"
    json = "json"


DbOpt = Annotated[Optional[Path], typer.Option("--db", help="Baseline database (default: $STETH_BASELINE_DB, else $XDG_DATA_HOME/gpu-stethoscope/baselines.sqlite)")]
FmtOpt = Annotated[Fmt, typer.Option("--format", "-f", help="Output format")]


def _db(db: Path | None) -> Path:
    from stethoscope.engine.baselines.store import default_path

    return db or default_path()


_fail = bad_usage


def _json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def _context_line(ctx: dict) -> str:
    keys = ("gpu_model", "gpus_per_node", "nodes", "topology", "driver", "cuda", "nccl", "nccl_cuda", "dcgm", "hca_firmware", "tools")
    text = ", ".join(f"{k} {ctx.get(k)}" for k in keys if ctx.get(k) is not None)
    env = ctx.get("env") or {}
    return text + (("; env " + ", ".join(f"{k}={v}" for k, v in env.items())) if env else "")


@app.command("record")
def record(
    results: Annotated[list[Path], typer.Argument(help="benchmark outputs (nccl-tests, gpu-burn, nvbandwidth, STREAM, fio, iperf3, perftest, training logs, dcgmi diag) or bundles holding them, with nvidia-smi -q for the context")],
    name: Annotated[str, typer.Option("--name", help="Name of the baseline (recording it again adds a newer version)")],
    db: DbOpt = None,
    format: FmtOpt = Fmt.text,
) -> None:
    """Store the results of every collective found, with their context."""
    from stethoscope.engine.baselines import run as baseline_run
    from stethoscope.engine.baselines.store import StoreError
    from stethoscope.facts.bundle import BundleError

    try:
        b = baseline_run.record(results, name, _db(db))
    except (StoreError, BundleError) as exc:
        _fail(str(exc))
    if format is Fmt.json:
        return _json(b.as_json())
    out.print(f"recorded baseline {escape(b.name)} (version {b.id}, {b.recorded_at}) in {_db(db)}")
    if not b.comparable:
        out.print(f"  [yellow]NOT COMPARABLE[/]: {escape(b.not_comparable or '')}")
    for coll, t in b.tables.items():
        best = max(t.rows, key=lambda r: r.busbw)
        out.print(f"  {coll}: {len(t.rows)} sizes, {t.nranks} ranks, peak busbw {best.busbw:.2f} GB/s at {best.size_bytes} B")
    for bench, n in sorted(_count(b.metrics).items()):
        out.print(f"  {bench}: {n} figures")
    out.print(f"  context: {escape(_context_line(b.context))}")


@app.command("compare")
def compare(
    results: Annotated[list[Path], typer.Argument(help="benchmark outputs or bundles of the run to check")],
    name: Annotated[str, typer.Option("--name", help="Baseline to compare with")],
    db: DbOpt = None,
    format: FmtOpt = Fmt.text,
) -> None:
    """Compare a run with a baseline: busbw ratio per size band, context changes, and the
    diagnosis of everything else in RESULTS (NCCL environment, transports, errors)."""
    from stethoscope.cli.render import render_text
    from stethoscope.engine.baselines import run as baseline_run
    from stethoscope.engine.baselines.store import StoreError
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.facts.bundle import BundleError

    ruleset = load_rules()
    if ruleset.errors:
        internal(f"shipped rules do not load: {ruleset.errors[0]}")
    try:
        cmp = baseline_run.compare(results, name, _db(db), ruleset)
    except (StoreError, BundleError) as exc:
        _fail(str(exc))
    below = cmp.below
    if format is Fmt.json:
        _json(cmp.as_json())
        raise typer.Exit(1 if below else 0)
    b = cmp.baseline
    out.print(f"baseline {escape(b.name)} (version {b.id}, {b.recorded_at}): {escape(_context_line(b.context))}")
    if not cmp.comparisons:
        out.print("no collective of RESULTS has sizes in common with the baseline")
    for c in cmp.comparisons:
        verdict = f"[red]BELOW ({c.factor_below}x)[/]" if cmp.band_below(c) else "[green]ok[/]"
        out.print(f"  {c.collective:15} {c.band:9} ratio {c.ratio:<8} over {c.sizes} sizes; at {c.size_text}: "
                  f"{c.measured_busbw} vs {c.reference_busbw} GB/s  {verdict}")
    if cmp.comparisons:
        out.print(f"  context changes: {escape(cmp.comparisons[0].context_diff)}")
        out.print(f"  NCCL environment of this run: {escape(cmp.comparisons[0].env_overrides)}")
    for v in cmp.validity:
        mark = "[green]comparable[/]" if v.comparable else "[yellow]NOT COMPARABLE[/]"
        out.print(f"  {escape(v.node)}: {mark} ({escape(v.reasons)}; checked {escape(v.checked)})")
    for s_ in cmp.sweeps:
        out.print(f"  [yellow]narrower sweep[/] {s_.collective} on {escape(s_.node)}: {escape(s_.missing)}: those sizes are not compared")
    _print_benchmarks(cmp.benchmarks)
    out.print()
    render_text(cmp.report, out)
    raise typer.Exit(1 if below else 0)


def _count(metrics) -> dict[str, int]:
    n: dict[str, int] = {}
    for m in metrics:
        n[m.benchmark] = n.get(m.benchmark, 0) + 1
    return n


_MARK = {"below": "[red]BELOW[/]", "within": "[green]ok[/]", "above": "[green]above[/]", "not_comparable": "[yellow]not comparable[/]"}


def _print_benchmarks(comps: list) -> None:
    """Per benchmark: how many figures fell in each outcome, then every figure not within."""
    by: dict[str, list] = {}
    for c in comps:
        by.setdefault(c.benchmark, []).append(c)
    for bench, cs in sorted(by.items()):
        counts = {o: sum(c.outcome == o for c in cs) for o in _MARK}
        worst = min(cs, key=lambda c: c.ratio)
        out.print(f"  {bench:12} {len(cs)} figures: " + ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in counts.items() if n)
                  + f"; lowest ratio {worst.ratio} ({escape(worst.test)} {escape(worst.entity)} {worst.metric})")
        for c in cs:
            if c.outcome in ("below", "not_comparable"):
                size = f" {c.size_bytes} B" if c.size_bytes is not None else ""
                out.print(f"    {escape(c.test)} {escape(c.entity)}{size} {c.metric}: {c.value} vs {c.baseline_value} {escape(c.unit)}"
                          f" ratio {c.ratio} (tolerance {c.tolerance}) {_MARK[c.outcome]}" + (f": {escape(c.why)}" if c.why else ""))


@app.command("list")
def list_(db: DbOpt = None, format: FmtOpt = Fmt.text) -> None:
    """List recorded baselines (newest version of each name)."""
    from stethoscope.engine.baselines.store import StoreError, list_all

    try:
        rows = list_all(_db(db))
    except StoreError as exc:
        _fail(str(exc))
    if format is Fmt.json:
        return _json(rows)
    if not rows:
        out.print(f"no baselines in {_db(db)}")
    for r in rows:
        kinds = ", ".join(r["collectives"] + r.get("benchmarks", [])) + ("" if r.get("comparable", True) else " (NOT COMPARABLE)")
        out.print(f"{escape(r['name']):24} {r['recorded_at']}  versions {r['versions']}  {kinds}  "
                  f"{escape(_context_line(r['context']))}")


@app.command("show")
def show(
    name: Annotated[str, typer.Argument(help="Baseline name")],
    db: DbOpt = None,
    format: FmtOpt = Fmt.text,
) -> None:
    """Show a baseline: its context, every recorded version and the newest tables."""
    from stethoscope.engine.baselines.store import StoreError, load, versions

    try:
        b = load(_db(db), name)
        vers = versions(_db(db), name)
    except StoreError as exc:
        _fail(str(exc))
    if format is Fmt.json:
        return _json(b.as_json() | {"versions": vers})
    out.print(f"baseline {escape(b.name)}, version {b.id} of {len(vers)}, recorded {b.recorded_at}")
    out.print(f"  context: {escape(_context_line(b.context))}")
    out.print(f"  sources: {escape(', '.join(b.sources))}")
    for v in vers:
        out.print(f"  version {v['id']}: {v['recorded_at']}  {escape(_context_line(v['context']))}")
    if not b.comparable:
        out.print(f"  NOT COMPARABLE: {escape(b.not_comparable or '')}")
    for m in b.metrics:
        size = f" {m.size_bytes} B" if m.size_bytes is not None else ""
        out.print(f"  {m.benchmark} {escape(m.test)} {escape(m.entity)}{size} {m.metric}: {m.value} {escape(m.unit)} ({escape(m.node)})")
    for coll, t in b.tables.items():
        out.print(f"  {coll} ({t.nranks} ranks)")
        out.print(f"    {'size (B)':>12} {'time (us)':>11} {'busbw (GB/s)':>13}")
        for r in t.rows:
            out.print(f"    {r.size_bytes:>12} {r.time_us:>11.2f} {r.busbw:>13.2f}")
