"""CLI of the live side: ``steth watch``, ``steth calibrate``, ``steth rules export`` and the
``diagnose --prometheus`` branch. Thin: it parses options and calls engine functions."""
from __future__ import annotations

import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from stethoscope.cli.exits import bad_usage, internal

err = Console(stderr=True, emoji=False)


_bad = bad_usage


def _duration(text: str, what: str) -> int:
    from stethoscope.engine.live import parse_duration

    try:
        return parse_duration(text)
    except ValueError:
        _bad(f"{what}: not a duration: {text!r} (examples: 90s, 15m, 1h, 7d)")
    return 0


def _time(text: str | None) -> float:
    from stethoscope.engine.live import parse_time

    try:
        return parse_time(text)
    except ValueError:
        _bad(f"--at: not a time: {text!r} (Unix seconds or 2024-04-05T21:30:00Z)")
    return 0.0


def diagnose_live(url: str, at: str | None, window: str, timeout: float, ruleset, evaluator: str,
                  run_timeout: float | None = None):
    """The report of ``diagnose --prometheus`` (called by cli/main.py)."""
    from stethoscope.engine.live import diagnose_prometheus

    return diagnose_prometheus(url, at=_time(at) if at else None, window_s=_duration(window, "--window"),
                               timeout=timeout, ruleset=ruleset, evaluator=evaluator,
                               **({} if run_timeout is None else {"run_timeout": run_timeout}))


def render_live_notes(report, console: Console) -> None:
    """What a live report adds to the text: why it is inconclusive, which signals are missing."""
    if report.reason:
        console.print(f"reason: {escape(report.reason)}")
    if report.missing_signals:
        console.print(f"\nmissing signals ({len(report.missing_signals)}; a missing signal is not read as healthy):")
        for m in report.missing_signals:
            console.print(f"  {m.metric}: would show {escape(m.shows)}; {escape(m.enable)}")


def watch(
    prometheus: Annotated[str, typer.Option("--prometheus", help="Prometheus base URL")],
    listen: Annotated[str, typer.Option(help="host:port to serve /metrics on")] = "127.0.0.1:9402",
    every: Annotated[str, typer.Option(help="Time between runs")] = "60s",
    window: Annotated[str, typer.Option(help="How far back each run looks")] = "1h",
    timeout: Annotated[float, typer.Option(help="Seconds per Prometheus query")] = 10.0,
    runs: Annotated[Optional[int], typer.Option(help="Stop after this many runs (default: run until stopped)")] = None,
) -> None:
    """Re-diagnose on a schedule; expose one series per active finding on /metrics."""
    from stethoscope.engine.watch import Watcher

    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        _bad(f"--listen: expected host:port, got {listen!r}")
    w = Watcher(prometheus, _duration(window, "--window"), timeout)
    try:
        w.serve(host, int(port))
    except OSError as exc:
        _bad(f"--listen {listen}: cannot serve there: {exc.strerror or exc}")
    done = {"n": 0}

    def report(r) -> None:
        done["n"] += 1
        err.print(f"{time.strftime('%H:%M:%S')} {r.verdict}: {len(r.findings)} finding(s)"
                  + (f" ({escape(r.reason)})" if r.reason else ""), highlight=False)

    try:
        w.loop(_duration(every, "--every"), stop=lambda: runs is not None and done["n"] >= runs, on_report=report)
    except KeyboardInterrupt:
        pass


def calibrate(
    prometheus: Annotated[str, typer.Option("--prometheus", help="Prometheus base URL")],
    window: Annotated[str, typer.Option(help="History to learn from")] = "7d",
    at: Annotated[Optional[str], typer.Option(help="End of the window (default now)")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds per Prometheus query")] = 30.0,
) -> None:
    """Propose alert thresholds per GPU model from the fleet's observed range (YAML)."""
    import yaml

    from stethoscope.engine.calibrate import calibrate as run
    from stethoscope.facts.live.prom import LiveError

    try:
        proposal = run(prometheus, _time(at), _duration(window, "--window"), timeout)
    except LiveError as exc:
        _bad(str(exc))
    if not proposal["models"]:
        _bad(f"no DCGM temperature or power series in the window at {prometheus}")
    sys.stdout.write(yaml.safe_dump(proposal, sort_keys=False))


class ExportFormat(str, Enum):
    prometheus_rules = "prometheus-rules"


def rules_export(
    format: Annotated[ExportFormat, typer.Option("--format", help="Output format")] = ExportFormat.prometheus_rules,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="File to write (default: standard output)")] = None,
) -> None:
    """Export the rules that declare a PromQL form, plus the seed's alerts, as a Prometheus rule file."""
    from stethoscope.engine.loader import load_rules
    from stethoscope.engine.promrules import export

    rs = load_rules()
    if rs.errors:
        internal(f"shipped rules do not load: {rs.errors[0]}")
    text = export(rs)
    if output:
        try:
            output.write_text(text)
        except OSError as exc:
            _bad(f"{output}: cannot write: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)


def register(app: typer.Typer, rules_app: typer.Typer) -> None:
    app.command()(watch)
    app.command()(calibrate)
    rules_app.command("export")(rules_export)
