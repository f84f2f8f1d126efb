"""``steth diagnose --format html``: the report as one self-contained page to share in a ticket.

Inline CSS and SVG only: no script, no external URL, readable in any browser and in print.
Sections: the verdict, the findings at a glance, the topology picture with the suspects
marked (engine/localise/render.py's graph through Graphviz), the nccl-tests busbw curves
against their reference (engine/baselines/busbw_curves.py, drawn by cli/svg_chart.py), each finding
with its evidence lines and actions, what was not checked, and the coverage. The template is
Jinja2 with autoescape on: evidence lines, summaries and file names are hostile input.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from stethoscope.cli.render import safe, verdict_line
from stethoscope.cli.svg_chart import busbw_svg, size_label, suspect_colour
from stethoscope.engine.baselines import busbw_curves
from stethoscope.engine.report import Report
from stethoscope.facts.model import Fact

_TEMPLATES = Path(__file__).parent / "templates"
#: what Graphviz writes around the drawing, and anything that could run or fetch: never kept
_SVG_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_SVG_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SVG_UNSAFE = re.compile(r"<script|<foreignObject|\bon[a-z]+\s*=|javascript:|(?:xlink:)?href\s*=\s*\"(?!#)", re.I)
#: coverage tables longer than this are closed (<details>) so the page leads with the diagnosis
OPEN_ROWS = 60


@dataclass
class Topology:
    svg: Markup | None
    note: str  # why there is no picture, or what it shows
    suspects: list[tuple[str, str]]  # (element label, why)


def topology(facts: list[Fact], report: Report) -> Topology:
    """The topology picture of the facts, suspects red; without Graphviz or a graph, the reason."""
    from stethoscope.engine.localise.graph import build
    from stethoscope.engine.localise import render as tr

    graph = build(facts)
    if graph.number_of_nodes() == 0:
        return Topology(None, "no topology in the input (no ibstat, nvidia-smi topo, NCCL topology dump or PCI tree)", [])
    marked = tr.suspects(graph, report.findings)
    slow = tr.slow_links(graph, report.findings)
    named = [(f"{n.split(':', 1)[0]} {n.split(':', 1)[1]}", why) for n, why in sorted(marked.items())]
    named += [(f"link {a.split(':', 1)[1]} <-> {b.split(':', 1)[1]}", why) for a, b, why in slow]
    try:
        svg = tr.to_svg(tr.to_dot(graph, marked, slow, tr.affected(graph, report.findings)))
    except tr.RenderError as exc:
        return Topology(None, f"picture not drawn: {exc}", named)
    svg = _SVG_COMMENT.sub("", _SVG_PROLOG.sub("", svg, count=1)).strip()
    if _SVG_UNSAFE.search(svg):  # Graphviz escapes labels; this is the belt to that brace
        return Topology(None, "picture not drawn: the SVG held active content", named)
    return Topology(Markup(svg), f"{graph.number_of_nodes()} elements; healthy leaves folded per host", named)


def _shown(value: object) -> object:
    """Every text the page prints with its control characters shown as ``\\x1b`` (a file name
    or a log line may hold escapes, bells, newlines); the page's own markup is left alone."""
    return safe(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def _env() -> Environment:
    env = Environment(loader=FileSystemLoader(str(_TEMPLATES)), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=_shown)
    env.filters["size"] = size_label
    return env


def _steth_version() -> str:
    try:
        return version("gpu-stethoscope")
    except PackageNotFoundError:
        return "unknown"


def render_html(report: Report, facts: list[Fact] | None = None, baseline=None) -> str:
    """The page. ``facts``: the observation's facts (topology and nccl-tests runs); without
    them (a live report) those sections say there was nothing to draw. ``baseline``: the
    recorded baseline the curves are measured against (default: the one in force, else the
    expected figures)."""
    facts = facts or []
    charts = []
    for ch in busbw_curves.charts(facts, report.findings, baseline):
        yard = ch.yardstick()
        rows = sorted(((c, busbw_curves.ratio_at_largest(c, yard)) for c in ch.of_kind("run", "suspect")),
                      key=lambda cr: (cr[0].kind != "suspect", cr[1] if cr[1] is not None else 9.0, cr[0].label))
        suspects = ch.of_kind("suspect")
        charts.append({"chart": ch, "svg": busbw_svg(ch), "yardstick": yard, "rows": rows,
                       "legend": [(suspect_colour(i), c) for i, c in enumerate(suspects)]})
    cov = report.coverage
    return _env().get_template("report.html.j2").render(
        report=report, verdict=verdict_line(report), topology=topology(facts, report) if facts else None,
        charts=charts, version=_steth_version(), open_rows=OPEN_ROWS,
        skipped_lines=sum(f.skipped_lines for f in cov.files),
    )
