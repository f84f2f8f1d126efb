"""``steth plan``: samples per day and Prometheus disk for a GPU fleet, with the retention
settings to use (engine/live/plan.py; figures and sources in knowledge/prometheus_storage.yaml)."""
from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from stethoscope.cli.exits import bad_usage


def plan_command(
    gpus: Annotated[int, typer.Option("--gpus", min=1, help="GPUs monitored")],
    metrics: Annotated[int, typer.Option("--metrics", min=1, help="Series per GPU (DCGM fields exported, plus per-GPU node series)")] = 50,
    interval: Annotated[str, typer.Option("--interval", help="Scrape interval (15s, 1m, ...)")] = "15s",
    days: Annotated[float, typer.Option("--days", min=0.01, help="Days of history to keep")] = 30,
    disk: Annotated[Optional[float], typer.Option("--disk", min=0.001, help="Also say how many days a disk of this many GB holds")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON")] = False,
) -> None:
    """Size Prometheus for GPU monitoring: samples per day, storage at 1-2 bytes a sample, retention advice."""
    from stethoscope.engine.live.observe import parse_duration
    from stethoscope.engine.live.plan import plan, text

    try:
        interval_s = parse_duration(interval)
    except ValueError:
        bad_usage(f"--interval: not a duration: {interval!r} (examples: 15s, 30s, 1m)")
    p = plan(gpus, metrics, interval_s, days, disk)
    if as_json:
        sys.stdout.write(p.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(text(p)) + "\n")
