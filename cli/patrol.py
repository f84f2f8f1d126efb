"""``steth patrol``: run the suite of knowledge/patrol.yaml on a schedule, keep the history,
compare with the patrol baseline, export for Prometheus (docs/patrol.md).

Exit codes of ``run`` follow node-problem-detector's custom plugins (its
pkg/custompluginmonitor/types: OK 0, NonOK 1, Unknown 2): 0 every node healthy and no
metric below its baseline; 1 a node faulty or a metric below its baseline; 2 a node
inconclusive or unreachable (and none faulty); 3 bad usage, as every steth command.
"""
from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stethoscope.cli.exits import bad_usage

app = typer.Typer(help="Patrol: run health checks and benchmarks on a schedule, keep their history, alert below the baseline.",
                  no_args_is_help=True)
baseline_app = typer.Typer(help="Record and show patrol baselines.", no_args_is_help=True)
app.add_typer(baseline_app, name="baseline")
out = Console(highlight=False, emoji=False, soft_wrap=True)


class Fmt(str, Enum):
    text = "text"
    json = "json"


class Launcher(str, Enum):
    ssh = "ssh"
    pdsh = "pdsh"
    srun = "srun"


DbOpt = Annotated[Optional[Path], typer.Option("--db", help="History/baseline database (default: $STETH_BASELINE_DB, else $XDG_DATA_HOME/gpu-stethoscope/baselines.sqlite)")]


def _db(db: Path | None) -> Path:
    from stethoscope.engine.baselines.store import default_path

    return db or default_path()


def _default_out() -> Path:
    if os.environ.get("STETH_PATROL_DIR"):
        return Path(os.environ["STETH_PATROL_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "gpu-stethoscope" / "patrol"


@app.command("run")
def run(
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Folder for the raw outputs, <out>/<UTC stamp>/<node>/ (default: $STETH_PATROL_DIR, else ~/.local/state/gpu-stethoscope/patrol)")] = None,
    db: DbOpt = None,
    baseline: Annotated[str, typer.Option("--baseline", help="Patrol baseline to compare with (steth patrol baseline record)")] = "patrol",
    textfile: Annotated[Optional[Path], typer.Option("--textfile", help="Write the results for node_exporter's textfile collector here (e.g. /var/lib/node_exporter/textfile_collector/steth_patrol.prom)")] = None,
    include: Annotated[Optional[list[str]], typer.Option("--include", help="Also run the steps of this schedule (nightly: dcgmi diag -r 3)")] = None,
    only: Annotated[Optional[list[str]], typer.Option("--only", help="Run only this step (repeatable)")] = None,
    python: Annotated[Optional[str], typer.Option("--python", help="Interpreter with PyTorch for the probes (default: $STETH_PATROL_PYTHON, else python3)")] = None,
    suite_file: Annotated[Optional[Path], typer.Option("--suite", help="A suite of the schema of knowledge/patrol.yaml (default: the shipped one)")] = None,
    node: Annotated[Optional[str], typer.Option("--node", help="Node name (default: this host's short name)")] = None,
    launcher: Annotated[Optional[Launcher], typer.Option("--launcher", help="Run on --hosts through the site's launcher")] = None,
    hosts: Annotated[Optional[str], typer.Option("--hosts", help="Comma-separated hosts for --launcher (srun also takes a Slurm host list)")] = None,
    remote_steth: Annotated[str, typer.Option("--remote-steth", help="The steth command on the hosts")] = "steth",
    launch_timeout: Annotated[float, typer.Option("--launch-timeout", help="Seconds to wait for the launcher")] = 3600.0,
    emit_record: Annotated[bool, typer.Option("--emit-record", help="Print this node's record as one line for a launcher's caller; store nothing", hidden=True)] = False,
    npd: Annotated[bool, typer.Option("--npd", help="Print one line only (node-problem-detector reads the first line of a plugin's output)")] = False,
    format: Annotated[Fmt, typer.Option("--format", "-f", help="Output format")] = Fmt.text,
) -> None:
    """Run the patrol suite here (or on --hosts through --launcher), store it, compare with the
    baseline. Exit 0 ok, 1 problem, 2 unknown (node-problem-detector's codes), 3 bad usage."""
    from stethoscope.engine.patrol import run as patrol
    from stethoscope.engine.patrol import export as patrol_export
    from stethoscope.engine.patrol import launch as patrol_launch
    from stethoscope.engine.patrol import store as patrol_store
    from stethoscope.engine.baselines.store import StoreError
    from stethoscope.facts.knowledge import KnowledgeError

    try:
        suite = patrol.load_suite(suite_file)
    except (OSError, KnowledgeError) as exc:
        bad_usage(f"{suite_file}: not a valid patrol suite: {str(exc).splitlines()[0]}")
    names = {s.name for s in suite.steps}
    unknown = [n for n in (only or []) if n not in names]
    if unknown:
        bad_usage(f"--only {', '.join(unknown)}: no such step (steps: {', '.join(sorted(names))})")
    if (launcher is None) != (hosts is None):
        bad_usage("--launcher and --hosts go together")
    folder = out_dir or _default_out()
    if launcher is not None:
        remote = [remote_steth, "patrol", "run", "--emit-record"]
        for flag, values in (("--include", include), ("--only", only)):
            for v in values or []:
                remote += [flag, v]
        if python:
            remote += ["--python", python]
        if out_dir:
            remote += ["--out", str(out_dir)]
        host_list = [h.strip() for h in hosts.split(",") if h.strip()]  # type: ignore[union-attr]
        if not host_list:
            bad_usage("--hosts names no host")
        records = patrol_launch.run(launcher.value, host_list, remote, launch_timeout)
    else:
        try:
            records = [patrol.run_node(suite, folder, node, python, set(include or []), set(only) if only else None)]
        except OSError as exc:
            bad_usage(f"--out {folder}: cannot write the patrol's files: {exc.strerror or exc}")
    if emit_record:
        sys.stdout.write(patrol_launch.MARK + json.dumps(records[0].as_json(), separators=(",", ":")) + "\n")
        raise typer.Exit(records[0].problem)
    path = _db(db)
    try:
        base = patrol_store.load_baseline(path, baseline)
        comparisons = []
        for r in records:
            if base is not None and r.verdict != "unreachable":
                comparisons += patrol_store.compare(r, base[1], suite)
            patrol_store.store(path, r)
    except StoreError as exc:
        bad_usage(str(exc))
    if textfile is not None:
        try:
            patrol_export.write_textfile(textfile, suite, records, comparisons)
        except OSError as exc:
            bad_usage(f"--textfile {textfile}: cannot write: {exc.strerror or exc}")
    code = _exit_code(records, comparisons)
    if npd:
        below = [c for c in comparisons if c.below]
        line = "; ".join(f"{r.node} {r.summary}" for r in records)
        if below:
            line = f"{len(below)} metric(s) below baseline {baseline!r}: " + ", ".join(
                f"{c.node} {c.metric} {c.value:g} vs {c.reference:g}" for c in below[:3]) + "; " + line
        sys.stdout.write(line.replace("\n", " ") + "\n")
        raise typer.Exit(code)
    if format is Fmt.json:
        sys.stdout.write(json.dumps({"exit_code": code, "baseline": base[0] if base else None,
                                     "records": [r.as_json() for r in records],
                                     "comparisons": [c.as_json() for c in comparisons]}, indent=2) + "\n")
        raise typer.Exit(code)
    _render_run(records, comparisons, baseline if base else None, path, textfile)
    raise typer.Exit(code)


def _exit_code(records, comparisons) -> int:
    from stethoscope.engine.patrol.run import OK, PROBLEM, UNKNOWN

    problems = [r.problem for r in records]
    if PROBLEM in problems or any(c.below for c in comparisons):
        return PROBLEM
    return UNKNOWN if UNKNOWN in problems else OK


def _render_run(records, comparisons, baseline: str | None, db: Path, textfile: Path | None) -> None:
    for r in records:
        colour = {"healthy": "green", "faulty": "red"}.get(r.verdict, "yellow")
        out.print(f"[bold]{escape(r.node)}[/] run {r.run_id} {r.started_at} [{colour}]{r.verdict.upper()}[/] "
                  f"in {r.seconds:.1f} s: {escape(r.summary)}")
        t = Table("step", "status", "seconds", "file", "note", box=None, pad_edge=False)
        for s in r.steps:
            st = {"ok": "[green]ok[/]", "skipped": "[dim]skipped[/]"}.get(s.status, f"[red]{s.status}[/]")
            t.add_row(s.step, st, f"{s.seconds:.1f}", s.file or "", escape(s.note))
        out.print(t)
        for f in r.findings:
            out.print(f"  finding [{f['severity']}] {escape(f['rule'])}: {escape(f['summary'])}")
        ctx = ", ".join(f"{k} {v}" for k, v in r.context.items() if k in ("gpu_model", "gpus", "driver", "cuda_runtime", "nccl", "torch"))
        out.print(f"  context: {escape(ctx)}")
    mine = [c for c in comparisons]
    if baseline is None:
        out.print("no patrol baseline yet: record one from a healthy run with `steth patrol baseline record`")
    elif mine:
        t = Table("node", "metric", "series", "value", "baseline", "ratio", "", box=None, pad_edge=False)
        for c in mine:
            series = ",".join(f"{k}={v}" for k, v in sorted(c.labels.items()))
            t.add_row(c.node, c.metric, escape(series), f"{c.value:g}", f"{c.reference:g}",
                      f"{c.ratio}" if c.ratio is not None else "-", "[red]BELOW[/]" if c.below else "[green]ok[/]")
        out.print(f"compared with baseline {escape(baseline)} (context changes: {escape(mine[0].context_changes)})")
        out.print(t)
    out.print(f"stored in {db}" + (f"; textfile {textfile}" if textfile else ""))


@app.command("history")
def history(
    db: DbOpt = None,
    node: Annotated[Optional[str], typer.Option("--node", help="Only this node")] = None,
    metric: Annotated[Optional[str], typer.Option("--metric", help="Only this metric")] = None,
    last: Annotated[int, typer.Option("--last", min=1, help="The newest N runs")] = 10,
    format: Annotated[Fmt, typer.Option("--format", "-f", help="Output format")] = Fmt.text,
) -> None:
    """The runs and the trend of every metric over them."""
    from stethoscope.engine.patrol import store as patrol_store
    from stethoscope.engine.baselines.store import StoreError

    try:
        data = patrol_store.trend(_db(db), node, metric, last)
    except StoreError as exc:
        bad_usage(str(exc))
    if format is Fmt.json:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    if not data["runs"]:
        out.print(f"no patrol runs in {_db(db)}")
        return
    runs = Table("run", "node", "started (UTC)", "seconds", "verdict", "summary", title="patrol runs", box=None, pad_edge=False)
    for r in data["runs"]:
        runs.add_row(str(r["id"]), r["node"], r["started_at"], f"{r['seconds']:.1f}", r["verdict"], escape(r["summary"]))
    out.print(runs)
    ids = [r["id"] for r in data["runs"]]
    t = Table("node", "metric", "series", "unit", *[f"run {i}" for i in ids], "change", title="trend per metric", box=None, pad_edge=False)
    for s in data["series"]:
        vals = [s["values"].get(str(i), s["values"].get(i)) for i in ids]
        present = [v for v in vals if v is not None]
        change = ""
        if len(present) >= 2 and present[0]:
            change = f"{(present[-1] - present[0]) / abs(present[0]) * 100:+.1f} %"
        series = ",".join(f"{k}={v}" for k, v in sorted(s["labels"].items()))
        t.add_row(s["node"], s["metric"], escape(series), s["unit"], *[("-" if v is None else f"{v:g}") for v in vals], change)
    out.print(t)


@baseline_app.command("record")
def baseline_record(
    name: Annotated[str, typer.Option("--name", help="Baseline name (recording it again makes a newer version)")] = "patrol",
    run_ids: Annotated[Optional[list[int]], typer.Option("--run", help="Patrol run id (repeatable; default: the newest run of every node)")] = None,
    db: DbOpt = None,
) -> None:
    """Record healthy patrol runs as the baseline later runs are compared with."""
    from stethoscope.engine.patrol import store as patrol_store
    from stethoscope.engine.baselines.store import StoreError

    try:
        b = patrol_store.record_baseline(_db(db), name, run_ids)
    except StoreError as exc:
        bad_usage(str(exc))
    out.print(f"recorded patrol baseline {escape(b['name'])} (version {b['id']}, {b['recorded_at']}) from run(s) "
              f"{', '.join(map(str, b['run_ids']))} in {_db(db)}")


@baseline_app.command("show")
def baseline_show(
    name: Annotated[str, typer.Option("--name", help="Baseline name")] = "patrol",
    db: DbOpt = None,
) -> None:
    """The newest version of a patrol baseline: its runs, context and metrics."""
    from stethoscope.engine.patrol import store as patrol_store

    got = patrol_store.load_baseline(_db(db), name)
    if got is None:
        bad_usage(f"no patrol baseline named {name!r} in {_db(db)}")
    meta, runs = got
    out.print(f"patrol baseline {escape(meta['name'])} version {meta['id']}, recorded {meta['recorded_at']}")
    for r in runs:
        out.print(f"  run {r.run_id} of {escape(r.node)} ({r.started_at}, {r.verdict}): "
                  + escape(", ".join(f"{k} {v}" for k, v in r.context.items() if k != "env")))
        for m in r.metrics:
            out.print(f"    {m.metric} {escape(','.join(f'{k}={v}' for k, v in sorted(m.labels.items())))}: {m.value:g} {m.unit}")
