"""A busbw chart as inline SVG, drawn from the data (no plotting library, no script): message
size on a log2 axis, bus bandwidth in GB/s on a linear one. Every text is XML-escaped."""
from __future__ import annotations

import math

from markupsafe import Markup, escape

from stethoscope.engine.baselines.busbw_curves import Chart, Curve, ratio_at_largest

W, H = 980, 430
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 14, 46
#: suspects get one strong colour each; healthy runs are grey so that the fault stands out
SUSPECT_COLOURS = ("#d50000", "#ff6d00", "#aa00ff", "#c51162", "#6d4c41", "#00838f")
RUN_COLOUR, MEDIAN_COLOUR, REFERENCE_COLOUR = "#9e9e9e", "#1565c0", "#212121"


def size_label(n: int) -> str:
    for unit, k in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k}{unit}"
    return f"{n}B"


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = span / ticks if span > 0 else 1.0
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)


def suspect_colour(i: int) -> str:
    return SUSPECT_COLOURS[i % len(SUSPECT_COLOURS)]


def busbw_svg(chart: Chart) -> Markup:
    pts = [p for c in chart.curves for p in c.points if p[0] > 0]
    if not pts:
        return Markup("")
    xs = [math.log2(s) for s, _ in pts]
    x0, x1 = math.floor(min(xs)), math.ceil(max(xs))
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    step = _nice_step(max(b for _, b in pts) * 1.08 or 1.0)
    ymax = step * math.ceil(max(b for _, b in pts) * 1.08 / step) or step
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def X(size: int) -> float:
        return LEFT + (math.log2(size) - x0) / (x1 - x0) * pw

    def Y(bw: float) -> float:
        return TOP + ph - bw / ymax * ph

    out = [f'<svg class="chart" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" xmlns="http://www.w3.org/2000/svg">',
           f"<title>{escape(chart.title)}: bus bandwidth (GB/s) against message size</title>",
           f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fff" stroke="#bbb"/>']
    every = max(1, math.ceil((x1 - x0) / 12))
    for e in range(x0, x1 + 1):
        if e % every:
            continue
        x = LEFT + (e - x0) / (x1 - x0) * pw
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" stroke="#eee"/>'
                   f'<text x="{x:.1f}" y="{TOP + ph + 16}" text-anchor="middle" class="tick">{size_label(2 ** e)}</text>')
    y = 0.0
    while y <= ymax + 1e-9:
        out.append(f'<line x1="{LEFT}" y1="{Y(y):.1f}" x2="{LEFT + pw}" y2="{Y(y):.1f}" stroke="#eee"/>'
                   f'<text x="{LEFT - 6}" y="{Y(y) + 4:.1f}" text-anchor="end" class="tick">{y:g}</text>')
        y += step
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 8}" text-anchor="middle" class="axis">message size (bytes, log scale)</text>'
               f'<text transform="translate(16 {TOP + ph / 2}) rotate(-90)" text-anchor="middle" class="axis">busbw (GB/s)</text>')
    order = {"run": 0, "median": 1, "reference": 2, "suspect": 3}
    suspects = chart.of_kind("suspect")
    for c in sorted(chart.curves, key=lambda c: order[c.kind]):
        out.append(_curve(c, X, Y, suspect_colour(suspects.index(c)) if c.kind == "suspect" else None))
    yard = chart.yardstick()
    for i, c in enumerate(suspects):  # name each suspect at its last point, with its share of the yardstick
        if not c.points:
            continue
        size, bw = c.points[-1]
        ratio = ratio_at_largest(c, yard)
        of = "the median" if yard is not None and yard.kind == "median" else "the reference"
        text = f"{bw:.1f} GB/s" + (f", {ratio:.0%} of {of}" if ratio is not None else "")
        below = Y(bw) + 30 + 16 * i
        y = below if (ratio is None or ratio < 1 or bw > ymax * 0.8) and below < TOP + ph - 8 else Y(bw) - 10 - 16 * i
        out.append(f'<text x="{X(size) - 6:.1f}" y="{y:.1f}" text-anchor="end" '
                   f'class="callout" fill="{suspect_colour(i)}">{escape(text)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def _curve(c: Curve, X, Y, colour: str | None) -> str:
    pts = [(s, b) for s, b in c.points if s > 0]
    if not pts:
        return ""
    style = {"run": f'stroke="{RUN_COLOUR}" stroke-width="1.2" opacity="0.8"',
             "median": f'stroke="{MEDIAN_COLOUR}" stroke-width="2.2" stroke-dasharray="7 4"',
             "reference": f'stroke="{REFERENCE_COLOUR}" stroke-width="2" stroke-dasharray="3 3"',
             "suspect": f'stroke="{colour}" stroke-width="3"'}[c.kind]
    title = f"<title>{escape(c.label)} ({escape(c.source)})</title>"
    path = " ".join(f"{X(s):.1f},{Y(b):.1f}" for s, b in pts)
    body = [f'<g class="curve {c.kind}">{title}']
    if len(pts) > 1:
        body.append(f'<polyline fill="none" {style} points="{path}"/>')
    if c.kind in ("suspect", "reference") or len(pts) == 1:
        fill = colour or (REFERENCE_COLOUR if c.kind == "reference" else RUN_COLOUR)
        for s, b in pts:
            shape = (f'<rect x="{X(s) - 4:.1f}" y="{Y(b) - 4:.1f}" width="8" height="8" transform="rotate(45 {X(s):.1f} {Y(b):.1f})"'
                     if c.kind == "reference" else f'<circle cx="{X(s):.1f}" cy="{Y(b):.1f}" r="3"')
            body.append(f'{shape} fill="{fill}"><title>{escape(c.label)}: {size_label(s)} {b:g} GB/s</title>'
                        f'{"</rect>" if c.kind == "reference" else "</circle>"}')
    body.append("</g>")
    return "".join(body)
