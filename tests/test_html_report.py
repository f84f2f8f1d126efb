"""``steth diagnose --format html``: one self-contained page, its structure on the seed's 8x8
pairwise bundle, hostile text escaped, and a screenshot in headless Chromium that shows the
topology picture with the suspect port and the busbw curves (skipped without Chromium)."""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.cli.render_html import render_html
from stethoscope.engine.report import Coverage, Entity, EvidenceLine, Finding, Report, Source

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures/bundles/seed-8x8-pairwise-rate100/bundle"
SUSPECT_FILL, SUSPECT_CURVE, FAULTY_BANNER = "ff4d4d", "d50000", "c62828"  # topology_render, svg_chart, the template


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        """Start tags named ``tag`` with these attributes (``class_``: classes it has, among others)."""
        def ok(a: dict[str, str | None]) -> bool:
            return all(set(v.split()) <= set((a.get("class") or "").split()) if k == "class_" else a.get(k) == v
                       for k, v in attrs.items())
        return [a for t, a in self.tags if t == tag and ok(a)]


@pytest.fixture(scope="module")
def seed_html() -> str:
    res = CliRunner().invoke(app, ["diagnose", "--from-logs", str(SEED), "--format", "html", "--quiet"])
    assert res.exit_code == 1, res.output[-2000:]  # faulty
    return res.stdout


def _self_contained(html: str) -> None:
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    # the only URLs are XML namespace names, which nothing fetches
    refs = re.findall(r'\b(?:src|href|xlink:href|action|poster|data)\s*=\s*"([^"#][^"]*)"', html)
    assert refs == [], refs
    assert not re.search(r"url\(\s*['\"]?(?!#)", html)


def test_seed_page_structure(seed_html):
    html = seed_html
    _self_contained(html)
    p = _Tags()
    p.feed(html)
    assert p.find("div", class_="faulty", id="verdict")
    for section in ("summary", "topology", "busbw", "details", "coverage"):
        assert p.find("h2", id=section), section
    # topology: Graphviz's drawing inline, the degraded port marked as the suspect
    assert [a["id"] for a in p.find("g", class_="node suspect")] == ["port:node03/mlx5_2/1"]
    assert p.find("g", class_="slow-link") or "node03&lt;-&gt;node06 bus" in html
    # busbw curves: 27 healthy pairs, the slow pair, and the median they are measured by
    assert len(p.find("g", class_="curve run")) == 27
    assert len(p.find("g", class_="curve suspect")) == 1 and len(p.find("g", class_="curve median")) == 1
    assert "<title>node03 &lt;-&gt; node06 (nccl-tests/pair_node03_node06.txt:1)</title>" in html
    assert re.search(r"node03 &lt;-&gt; node06</td><td class=\"num\">2G</td><td class=\"num\">101\.2</td>.*?56%", html, re.S)
    # findings with evidence and actions (the third: nccl_tests_busbw_unjudged, info: the pairs are judged
    # against one another only); the coverage of all 36 files
    assert len(p.find("section", class_="card")) == 3
    assert "node03/ibstat.txt:45:</span> \t\tRate: 100" in html
    assert "CHECK_IB_CABLE" in html and "Check the port&#39;s cable and transceiver" in html
    assert re.search(r"<b>36</b>files read", html) and html.count('<td><code>node0') >= 8


def test_hostile_text_is_escaped():
    evil = '<script>alert(1)</script><img src=x onerror="fetch(\'http://evil\')">'
    f = Finding(rank=1, rule="r", title=evil, cause="gpu_fell_off_bus", component="gpu", severity="fatal", confidence=0.9,
                role="root_cause", entity=Entity(node=evil, label=evil), summary=evil, actions=["RESTART_BM"], action_text=evil,
                evidence=[EvidenceLine(path=evil, line=3, text=evil)], evidence_total=1, placed_by=[evil])
    rep = Report(source=Source(kind="bundle", path=evil), verdict="faulty", findings=[f],
                 coverage=Coverage(unrecognised=[evil]), nodes=[evil])
    html = render_html(rep, [])
    _self_contained(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<img" not in html


def _png_rows(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """(width, height, bytes per pixel, rows) of an 8-bit RGB/RGBA PNG (Chromium's screenshots)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body, pos = data[pos + 8:pos + 8 + n], pos + 12 + n
        if typ == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat.append(body)
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(b"".join(idat)), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride) if f else ():
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def _pixels(rows: list[bytes], bpp: int, hex_rgb: str) -> int:
    px = bytes.fromhex(hex_rgb) + (b"\xff" if bpp == 4 else b"")
    return sum(sum(1 for i in range(0, len(r), bpp) if r[i:i + bpp] == px) if px in r else 0 for r in rows)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed (tests/setup_venv.sh installs it as root)")
def test_chromium_screenshot_shows_suspect_port_and_curves(seed_html, tmp_path):
    page, shot = tmp_path / "report.html", tmp_path / "report.png"
    page.write_text(seed_html, encoding="utf-8")
    proc = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1400,2400",
                           "--hide-scrollbars", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists(), proc.stderr[-2000:]
    w, h, bpp, rows = _png_rows(shot.read_bytes())
    assert (w, h) == (1400, 2400)
    # the verdict banner, the suspect port's red node (an ellipse of thousands of pixels: the
    # legend's swatch is 100) and the slow pair's red curve are on the page as drawn
    assert _pixels(rows[:200], bpp, FAULTY_BANNER) > 20_000
    assert _pixels(rows, bpp, SUSPECT_FILL) > 5_000
    assert _pixels(rows, bpp, SUSPECT_CURVE) > 800
