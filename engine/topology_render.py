"""Render the topology graph: a rich tree for the terminal, Graphviz DOT for SVG/PNG images,
with suspects (entities of findings) drawn in red."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import networkx as nx
from rich.tree import Tree

from stethoscope.engine.report import Finding

_SHAPE = {"host": "box3d", "hca": "component", "port": "ellipse", "switch": "hexagon", "gpu": "box", "pci": "cds", "nvswitch": "octagon"}


def suspects(graph: nx.Graph, findings: list[Finding]) -> dict[str, str]:
    """Graph node id -> the finding summary that suspects it (most precise element named)."""
    out: dict[str, str] = {}
    for f in findings:
        if f.severity not in ("warning", "critical", "fatal"):
            continue
        e = f.entity
        cands = []
        if e.node and e.hca and e.port:
            cands.append(f"port:{e.node}/{e.hca}/{e.port}")
        elif e.node and e.gpu:
            cands.append(f"gpu:{e.node}/{e.gpu}")
        elif e.node and e.switch:  # a PCIe switch (or NVSwitch) named by its bus id
            cands.append(f"pci:{e.node}/{e.switch}")
        elif e.switch:
            cands.append(f"switch:{e.switch}")
        elif e.link:
            cands += [f"host:{h.split('/')[0]}" for h in e.link]
        elif e.node:
            cands.append(f"host:{e.node}")
        for c in cands:
            if c in graph:
                out.setdefault(c, f.summary)
    return out


def text_tree(graph: nx.Graph, marked: dict[str, str]) -> Tree:
    root = Tree("[b]cluster[/b]")
    for h in sorted(n for n, d in graph.nodes(data=True) if d["type"] == "host"):
        hn = root.add(_label(graph, h, marked))
        for child in sorted(graph.neighbors(h)):
            if graph.nodes[child]["type"] in ("hca", "gpu", "pci"):
                cn = hn.add(_label(graph, child, marked))
                for sub in sorted(graph.neighbors(child)):
                    if sub != h and graph.nodes[sub]["type"] in ("port", "gpu", "pci"):
                        pn = cn.add(_label(graph, sub, marked))
                        for sw in sorted(graph.neighbors(sub)):
                            if graph.nodes[sw]["type"] == "switch":
                                pn.add(f"cable -> {_label(graph, sw, marked)}")
    rings = graph.graph.get("rings", {})
    if rings:
        rn = root.add("[b]NCCL rings[/b] (rank order per communicator)")
        for comm, orders in sorted(rings.items()):
            for order in orders:
                rn.add(f"comm {comm}: " + " -> ".join(map(str, order + order[:1])))
    sws = sorted(n for n, d in graph.nodes(data=True) if d["type"] == "switch")
    if sws:
        fab = root.add("[b]fabric switches[/b]")
        for s in sws:
            ups = sorted(graph.nodes[n]["label"] for n in graph.neighbors(s) if graph.nodes[n]["type"] == "switch")
            fab.add(_label(graph, s, marked) + (f" (links: {', '.join(ups)})" if ups else ""))
    return root


def _label(graph: nx.Graph, nid: str, marked: dict[str, str]) -> str:
    d = graph.nodes[nid]
    text = d["label"]
    if d["type"] == "port":
        bits = [d.get("state"), f"{d['rate_gbps']:g} Gb/s" if d.get("rate_gbps") else None]
        text += " (" + ", ".join(b for b in bits if b) + ")" if any(bits) else ""
    if nid in marked:
        return f"[bold red]{text}  <- SUSPECT: {marked[nid]}[/]"
    return text


def _q(s: str) -> str:
    """A DOT string literal; a newline becomes DOT's centred line break."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: nx.Graph, marked: dict[str, str]) -> str:
    lines = ["graph cluster {", '  graph [rankdir=LR, fontname="Helvetica", overlap=false, splines=true];',
             '  node [fontname="Helvetica", fontsize=10, style=filled, fillcolor="#f4f4f4"];', '  edge [color="#888888"];']
    for nid, d in sorted(graph.nodes(data=True)):
        label = d["label"]
        if d["type"] == "port" and d.get("rate_gbps"):
            label += f"\n{d.get('state', '')} {d['rate_gbps']:g} Gb/s"
        attrs = {"label": label, "shape": _SHAPE.get(d["type"], "ellipse"), "id": nid}
        if nid in marked:
            attrs.update(fillcolor="#ff4d4d", color="#b30000", penwidth="3", fontcolor="white", tooltip=marked[nid], **{"class": "suspect"})
        lines.append(f"  {_q(nid)} [" + ", ".join(f"{k}={_q(str(v))}" for k, v in attrs.items()) + "];")
    for a, b, d in sorted(graph.edges(data=True)):
        style = {"nvlink": 'color="#2e7d32", penwidth=2', "cable": 'color="#1565c0"', "uplink": 'color="#1565c0", style=dashed',
                 "ring": 'color="#ef6c00", style=dotted'}.get(d.get("type"), "")
        lines.append(f"  {_q(a)} -- {_q(b)}" + (f" [{style}]" if style else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


class RenderError(Exception):
    pass


def render_images(dot: str, out_prefix: Path) -> list[Path]:
    """Write ``PREFIX.dot``, ``PREFIX.svg`` and ``PREFIX.png`` with Graphviz's ``dot``."""
    exe = shutil.which("dot")
    out_prefix.parent.mkdir(parents=True, exist_ok=True)
    dot_path = out_prefix.with_suffix(".dot")
    dot_path.write_text(dot)
    if exe is None:
        raise RenderError(f"Graphviz 'dot' is not installed (apt-get install graphviz); the graph is in {dot_path}")
    written = [dot_path]
    for fmt in ("svg", "png"):
        target = out_prefix.with_suffix(f".{fmt}")
        proc = subprocess.run([exe, f"-T{fmt}", "-o", str(target), str(dot_path)], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RenderError(f"dot -T{fmt} failed: {proc.stderr.strip()[:300]}")
        written.append(target)
    return written
