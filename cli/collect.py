"""``steth collect``: gather a bundle on this GPU host (thin layer over facts/collect.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from stethoscope.cli.exits import bad_usage


def collect_command(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the bundle into (<out>/<node>/...)")],
    node: Annotated[Optional[str], typer.Option("--node", help="Node name (default: this host's short name)")] = None,
    commands: Annotated[Optional[Path], typer.Option("--commands", help="YAML command list (default: the shipped knowledge/collect.yaml)")] = None,
    archive_to: Annotated[Optional[Path], typer.Option("--archive", help="Also write the bundle as this .tar.gz")] = None,
) -> None:
    """Run nvidia-smi, dmesg, ibstat, perfquery and friends on this host into a bundle for `steth diagnose`."""
    from pydantic import ValidationError

    from stethoscope.facts.collect import archive, collect, load_commands

    err = Console(stderr=True, highlight=False, emoji=False)
    try:
        cmds = load_commands(commands)
    except (OSError, ValidationError, ValueError) as exc:
        bad_usage(f"{commands}: not a valid command list: {str(exc).splitlines()[0]}")
    try:
        outcomes = collect(out, node, cmds)
    except OSError as exc:
        bad_usage(f"--out {out}: cannot write the bundle: {exc.strerror or exc}")
    for o in outcomes:
        mark = {"ok": "[green]ok[/]", "missing": "[dim]missing[/]"}.get(o.status, f"[yellow]{o.status}[/]")
        err.print(f"{mark:>20} {o.name:28} {o.bytes:>9} B  {escape(o.note)}")
    if archive_to is not None:
        folder = out
        archive(folder, archive_to)
        err.print(f"wrote {escape(str(archive_to))}")
    ok = sum(o.status == "ok" for o in outcomes)
    print(f"collected {ok} of {len(outcomes)} command(s) into {out}")
