"""``steth topology show BUNDLE [--inventory FILE] [--image PREFIX]``: the cluster graph as a
text tree and, on request, as SVG and PNG images with the suspects highlighted."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from stethoscope.cli.exits import bad_usage

topology_app = typer.Typer(help="Show the cluster topology built from a bundle.", no_args_is_help=True)
err = Console(stderr=True)


@topology_app.command("show")
def show(
    bundle: Annotated[Path, typer.Argument(help="Incident bundle: a folder, .tar, .tar.gz/.tgz or .zip")],
    inventory: Annotated[Optional[Path], typer.Option("--inventory", help="Inventory YAML (kind: steth-inventory) for cabling the bundle lacks")] = None,
    image: Annotated[Optional[Path], typer.Option("--image", help="Also write PREFIX.dot, PREFIX.svg and PREFIX.png (needs Graphviz)")] = None,
) -> None:
    """Print the topology as a tree, suspects in red; exit 3 on unreadable input."""
    from stethoscope.engine.pipeline import diagnose_bundle, parse_artefacts
    from stethoscope.engine.localise.graph import build
    from stethoscope.engine.localise.render import RenderError, affected, render_images, slow_links, suspects, text_tree, to_dot
    from stethoscope.facts.bundle import BundleError, artefacts, read_bundle
    from stethoscope.facts.inventory import InventoryError, load_inventory

    try:
        inv = load_inventory(inventory.read_text(), str(inventory)) if inventory else None
        report = diagnose_bundle(bundle)
        facts = parse_artefacts(artefacts(read_bundle(bundle))[0]).facts
    except (BundleError, InventoryError, OSError) as exc:
        bad_usage(str(exc))
    graph = build(facts, inv)
    marked = suspects(graph, report.findings)
    Console(highlight=False).print(text_tree(graph, marked))
    if image is not None:
        try:
            for p in render_images(to_dot(graph, marked, slow_links(graph, report.findings), affected(graph, report.findings)), image):
                err.print(f"wrote {p}", highlight=False)
        except RenderError as exc:
            bad_usage(str(exc))
