"""Render the topology graph: a rich tree for the terminal, Graphviz DOT for SVG/PNG images,
with suspects (entities of findings) drawn in red."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import networkx as nx
from rich.text import Text
from rich.tree import Tree

from stethoscope.engine.localise.common_cause import is_bridge, devices_below
from stethoscope.engine.report import Finding

_SHAPE = {"host": "box3d", "hca": "component", "port": "ellipse", "switch": "hexagon", "gpu": "box", "pci": "cds", "nvswitch": "octagon"}


def suspects(graph: nx.Graph, findings: list[Finding]) -> dict[str, str]:
    """Graph node id -> the finding summary that suspects it (most precise element named)."""
    out: dict[str, str] = {}
    for f in findings:
        if f.severity not in ("warning", "critical", "fatal") or f.role == "cascade":
            continue
        e = f.entity
        cands = []
        if e.node and e.hca and e.port:
            cands.append(f"port:{e.node}/{e.hca}/{e.port}")
        elif e.node and e.gpu:
            cands.append(f"gpu:{e.node}/{e.gpu}")
        elif e.node and e.switch:  # a PCIe switch (or NVSwitch) named by its bus id
            cands.append(f"pci:{e.node}/{e.switch}")
        elif e.switch:  # one switch, or the switches a pair's traffic is split over ("spine01,spine02")
            cands += [f"switch:{s}" for s in e.switch.split(",")]
        elif e.link:
            cands += [f"host:{h.split('/')[0]}" for h in e.link]
        elif e.node:
            cands.append(f"host:{e.node}")
        for c in cands:
            if c in graph:
                out.setdefault(c, f.summary)
    return out


def affected(graph: nx.Graph, findings: list[Finding]) -> set[str]:
    """Elements that only cascade findings name: drawn apart from the suspects."""
    cascades = [f.model_copy(update={"role": "independent"}) for f in findings if f.role == "cascade"]
    return set(suspects(graph, cascades)) - set(suspects(graph, findings))


def _add(tree: Tree, markup: str) -> Tree:
    # bus ids such as 0000:ab:00.0 must not become emoji (":ab:")
    return tree.add(Text.from_markup(markup, emoji=False))


def text_tree(graph: nx.Graph, marked: dict[str, str]) -> Tree:
    root = Tree("[b]cluster[/b]")
    for h in sorted(n for n, d in graph.nodes(data=True) if d["type"] == "host"):
        hn = _add(root, _label(graph, h, marked))
        for child in sorted(graph.neighbors(h)):
            if graph.nodes[child]["type"] == "pci":
                _pci_branch(graph, hn, child, marked)
            elif graph.nodes[child]["type"] in ("hca", "gpu"):
                cn = _add(hn, _label(graph, child, marked))
                for sub in sorted(graph.neighbors(child)):
                    if sub != h and graph.nodes[sub]["type"] in ("port", "gpu", "pci"):
                        pn = _add(cn, _label(graph, sub, marked))
                        for sw in sorted(graph.neighbors(sub)):
                            if graph.nodes[sw]["type"] == "switch":
                                _add(pn, f"cable -> {_label(graph, sw, marked)}")
    rings = graph.graph.get("rings", {})
    if rings:
        rn = _add(root, "[b]NCCL rings[/b] (rank order per communicator)")
        for comm, orders in sorted(rings.items()):
            for order in orders:
                _add(rn, f"comm {comm}: " + " -> ".join(map(str, order + order[:1])))
    sws = sorted(n for n, d in graph.nodes(data=True) if d["type"] == "switch")
    if sws:
        fab = _add(root, "[b]fabric switches[/b]")
        for s in sws:
            ups = sorted(graph.nodes[n]["label"] for n in graph.neighbors(s) if graph.nodes[n]["type"] == "switch")
            _add(fab, _label(graph, s, marked) + (f" (links: {', '.join(ups)})" if ups else ""))
    return root


def _pci_branch(graph: nx.Graph, parent: Tree, top: str, marked: dict[str, str]) -> None:
    """A PCI subtree under a host as one line per PCIe switch with its GPUs and NICs below it
    (the bridges in between are the switch's own ports)."""
    node, bus = top[4:].split("/", 1)
    if f"gpu:{node}/{bus}" in graph:  # a GPU straight under the root complex
        _add(parent, _label(graph, f"gpu:{node}/{bus}", marked))
        return
    if not is_bridge(graph.nodes[top]):
        _add(parent, f"{bus} ({_pci_kind(graph.nodes[top])})")
        return
    sn = _add(parent, _label(graph, top, marked, f"PCIe switch {bus}"))
    for dev in devices_below(graph, top):
        gid = f"gpu:{dev[4:]}"
        _add(sn, _label(graph, gid, marked) if gid in graph else f"{dev.split('/', 1)[1]} ({_pci_kind(graph.nodes[dev])})")


def _pci_kind(d: dict) -> str:
    cls = str(d.get("pci_class") or "")
    return "NIC" if cls.startswith("0x02") else ("GPU" if cls.startswith("0x03") else f"class {cls or '?'}")


def _pci_layout(graph: nx.Graph, marked: dict[str, str], affected: set[str]) -> tuple[set[str], list[str], dict[str, str], dict[str, tuple[int, int]]]:
    """How NCCL's PCI tree is drawn: each top-level bridge is one PCIe switch box joined to its
    GPUs (its own ports, retimers and the NICs are not drawn, the NICs are counted); a switch
    that nothing suspects, with healthy GPUs, is folded into one box per host. Returns the
    hidden ids, extra DOT edge lines, new labels and per host (switches, GPUs) folded."""
    hidden: set[str] = set()
    edges: list[str] = []
    labels: dict[str, str] = {}
    folded: dict[str, tuple[int, int]] = {}
    for top, d in graph.nodes(data=True):
        if d["type"] != "pci" or d.get("parent"):
            continue
        node, bus = top[4:].split("/", 1)
        h = f"host:{node}"
        hidden.add(top)
        if not is_bridge(d):
            if f"gpu:{node}/{bus}" in graph:
                edges.append(f"  {_q(h)} -- {_q(f'gpu:{node}/{bus}')};")
            continue
        below = devices_below(graph, top)
        gpus = [f"gpu:{n[4:]}" for n in below if f"gpu:{n[4:]}" in graph]
        stack = [top]
        while stack:  # every pci node below the switch is drawn as part of it
            cur = stack.pop()
            for n in graph.neighbors(cur):
                if graph.nodes[n]["type"] == "pci" and graph.nodes[n].get("parent") == cur.split("/", 1)[1] and n not in hidden:
                    hidden.add(n)
                    stack.append(n)
        hot = top in marked or top in affected or any(g in marked or g in affected for g in gpus)
        if not hot:
            s_, g_ = folded.get(h, (0, 0))
            folded[h] = (s_ + 1, g_ + len(gpus))
            hidden.update(gpus)
            continue
        hidden.discard(top)
        nics = sum(1 for n in below if str(graph.nodes[n].get("pci_class")).startswith("0x02"))
        labels[top] = f"PCIe switch {bus}\n{len(gpus)} GPU(s)" + (f", {nics} NIC(s)" if nics else "")
        edges += [f"  {_q(top)} -- {_q(g)} [color=\"#555555\"];" for g in gpus]
    return hidden, edges, labels, folded


def _label(graph: nx.Graph, nid: str, marked: dict[str, str], text: str | None = None) -> str:
    d = graph.nodes[nid]
    text = text or d["label"]
    if d["type"] == "port":
        bits = [d.get("state"), f"{d['rate_gbps']:g} Gb/s" if d.get("rate_gbps") else None]
        text += " (" + ", ".join(b for b in bits if b) + ")" if any(bits) else ""
    if nid in marked:
        return f"[bold red]{text}  <- SUSPECT: {marked[nid]}[/]"
    return text


def _q(s: str) -> str:
    """A DOT string literal; a newline becomes DOT's centred line break."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _foldable(graph: nx.Graph, marked: dict[str, str], affected: set[str]) -> dict[tuple[str, str | None, bool], list[str]]:
    """Leaves drawn as one summary box each: per host, its unmarked GPUs, and its HCA ports
    that are unmarked, Active and cabled to at most one switch, grouped by that switch and by
    whether a cascade finding touches them. A picture of 64 nodes then shows the suspects
    instead of 500 identical ports."""
    groups: dict[tuple[str, str | None, bool], list[str]] = {}
    for h, d in graph.nodes(data=True):
        if d["type"] != "host":
            continue
        for child in graph.neighbors(h):
            cd = graph.nodes[child]
            if child in marked:
                continue
            if cd["type"] == "gpu" and all(graph.nodes[n]["type"] == "host" for n in graph.neighbors(child)):
                groups.setdefault((h, None, child in affected), []).append(child)
            elif cd["type"] == "hca":
                ports = [n for n in graph.neighbors(child) if n != h]
                keys = []
                for p in ports:
                    others = set(graph.neighbors(p)) - {child}
                    sws = [n for n in others if graph.nodes[n]["type"] == "switch"]
                    if (graph.nodes[p]["type"] != "port" or p in marked or graph.nodes[p].get("state") != "Active"
                            or len(sws) != len(others) or len(sws) > 1):
                        break
                    keys.append((p, sws[0] if sws else None))
                else:
                    if not keys:
                        continue
                    for p, sw in keys:
                        groups.setdefault((h, sw, p in affected), []).extend([child, p])
    return {k: v for k, v in groups.items() if len(v) > 2 or k[1] is not None or k[2]}


def _summary(graph: nx.Graph, leaves: list[str], affected: bool) -> str:
    gpus = [n for n in leaves if graph.nodes[n]["type"] == "gpu"]
    ports = [n for n in leaves if graph.nodes[n]["type"] == "port"]
    parts = []
    if gpus:
        parts.append(f"{len(gpus)} GPU(s)" + (" affected" if affected else " OK"))
    if ports:
        rates = sorted({graph.nodes[p].get("rate_gbps") for p in ports if graph.nodes[p].get("rate_gbps")})
        names = sorted({graph.nodes[p]["label"] for p in ports})
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        parts.append(f"{len(ports)} HCA port(s) Active" + (f" at {'/'.join(f'{r:g}' for r in rates)} Gb/s" if rates else "")
                     + f"\n({shown})")
        if affected:
            parts.append("affected: see the root cause")
    return "\n".join(parts)


def to_dot(graph: nx.Graph, marked: dict[str, str], slow_links: list[tuple[str, str, str]] | None = None,
           affected: set[str] | None = None) -> str:
    """DOT of the graph: suspects red, what their cascades touch orange, healthy leaves folded
    per host (and switch), slow host pairs as red dashed edges (``slow_links``: host, host, summary)."""
    affected = affected or set()
    lines = ["graph cluster {", '  graph [rankdir=LR, fontname="Helvetica", overlap=false, splines=true, nodesep=0.2, ranksep=0.6, pad=0.6, forcelabels=true];',
             '  node [fontname="Helvetica", fontsize=10, style=filled, fillcolor="#f4f4f4"];', '  edge [color="#888888", fontname="Helvetica"];']
    folded = _foldable(graph, marked, affected)
    pci_hidden, pci_edges, pci_labels, pci_folded = _pci_layout(graph, marked, affected)
    hidden = {n for leaves in folded.values() for n in leaves} | pci_hidden
    for nid, d in sorted(graph.nodes(data=True)):
        if nid in hidden:
            continue
        label = pci_labels.get(nid, d["label"])
        if d["type"] == "port" and d.get("rate_gbps"):
            label += f"\n{d.get('state', '')} {d['rate_gbps']:g} Gb/s"
        attrs = {"label": label, "shape": _SHAPE.get(d["type"], "ellipse"), "id": nid}
        if nid in marked:
            attrs.update(label=label + "\n" + _wrap(marked[nid]), fillcolor="#ff4d4d", color="#b30000", penwidth="3",
                         fontcolor="white", tooltip=marked[nid], **{"class": "suspect"})
        elif nid in affected:
            attrs.update(fillcolor="#ffcc80", **{"class": "affected"})
        lines.append(f"  {_q(nid)} [" + ", ".join(f"{k}={_q(str(v))}" for k, v in attrs.items()) + "];")
    for (h, sw, hit), leaves in sorted(folded.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2])):
        fid = f"group:{h}:{sw or '-'}:{'affected' if hit else 'ok'}"
        color = "#ffcc80" if hit else "#e8f5e9"
        lines.append(f"  {_q(fid)} [label={_q(_summary(graph, leaves, hit))}, shape=note, fillcolor={_q(color)}, id={_q(fid)}];")
        lines.append(f"  {_q(h)} -- {_q(fid)};")
        if sw is not None:
            lines.append(f"  {_q(fid)} -- {_q(sw)} [color=\"#1565c0\"];")
    for h, (n_sw, n_gpu) in sorted(pci_folded.items()):
        fid = f"group:{h}:pcie:ok"
        text = f"{n_sw} PCIe switch(es) OK" + "\n" + f"{n_gpu} GPU(s) behind them OK"
        lines.append(f"  {_q(fid)} [label={_q(text)}, shape=note, "
                     f"fillcolor=\"#e8f5e9\", id={_q(fid)}];")
        lines.append(f"  {_q(h)} -- {_q(fid)};")
    lines += pci_edges
    for a, b, d in sorted(graph.edges(data=True)):
        if a in hidden or b in hidden:
            continue
        style = {"nvlink": 'color="#2e7d32", penwidth=2', "cable": 'color="#1565c0"', "uplink": 'color="#1565c0", style=dashed',
                 "ring": 'color="#ef6c00", style=dotted'}.get(d.get("type"), "")
        lines.append(f"  {_q(a)} -- {_q(b)}" + (f" [{style}]" if style else "") + ";")
    for a, b, text in slow_links or []:
        if a in graph and b in graph:
            lines.append(f"  {_q(a)} -- {_q(b)} [color=\"#d50000\", penwidth=3, style=dashed, constraint=false, "
                         f"xlabel={_q(_wrap(text, 26))}, tooltip={_q(text)}, fontcolor=\"#d50000\", fontsize=9, class=\"slow-link\"];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int = 38) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)[:4])


def slow_links(graph: nx.Graph, findings: list[Finding]) -> list[tuple[str, str, str]]:
    """Host pairs that findings name as a slow link (entity ``link``)."""
    out = []
    for f in findings:
        if f.entity.link and len(f.entity.link) == 2 and f.severity in ("warning", "critical", "fatal"):
            a, b = (f"host:{x.split('/')[0]}" for x in f.entity.link)
            if a != b:
                out.append((a, b, f.summary))
    return out


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


def to_svg(dot: str, timeout: float = 120) -> str:
    """The graph as one SVG document (Graphviz ``dot -Tsvg``); RenderError without Graphviz."""
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError("Graphviz 'dot' is not installed (apt-get install graphviz)")
    proc = subprocess.run([exe, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RenderError(f"dot -Tsvg failed: {proc.stderr.strip()[:300]}")
    return proc.stdout
