"""``nvidia-smi topo -m``: how each GPU reaches each other GPU and each NIC.

Sample content (real, 2 x H200 NV18 host; the header is underlined with ANSI escapes)::

    \\x1b[4mGPU0	GPU1	CPU Affinity	NUMA Affinity	GPU NUMA ID\\x1b[0m
    GPU0	 X 	NV18	0-31	0		N/A
    GPU1	NV18	 X 	0-31	0		N/A

With NICs the matrix has ``NIC0 ...`` columns and rows and a legend (``  NIC0: mlx5_0``).

Facts: ``gpu_topo_link`` per pair of devices (each pair once, evidence: the row of the first),
``connection`` as printed (``NV18``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``), ``nvlinks``
for ``NV#``, the NIC's RDMA device from the legend. A row with fewer cells than the header
has devices is a ParseError. Empty output: nothing read.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_smi_topo"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# GPU0	GPU1	NIC0	CPU Affinity	NUMA Affinity	GPU NUMA ID
_HEADER = re.compile(r"^\s*(?:GPU|NIC)\d+(?:\s+(?:GPU|NIC)\d+)*\s+CPU Affinity")
# GPU0	 X 	NV18	0-31	0		N/A
_ROW = re.compile(r"^(?P<dev>(?:GPU|NIC)\d+)\t(?P<cells>.*)$")
#   NIC0: mlx5_0
_LEGEND = re.compile(r"^\s+(?P<nic>NIC\d+): (?P<name>\S+)\s*$")
_DETECT = re.compile(r"^(?:\x1b\[[0-9;]*m)?\s*GPU0\s+(?:GPU|NIC)\d+[^\n]*CPU Affinity|^\s+NV#\s+= Connection traversing a bonded set", re.M)


@fact_kind
class GpuTopoLink(Fact):
    """One cell of ``nvidia-smi topo -m``: how device ``a`` reaches device ``b``."""

    kind: Literal["gpu_topo_link"] = "gpu_topo_link"
    a: str  # "GPU0"
    b: str  # "GPU1" | "NIC0"
    connection: str  # NV18 | PIX | PXB | PHB | NODE | SYS
    nvlinks: int | None = None
    b_rdma_device: str | None = None  # "mlx5_0" for a NIC, from the legend


def detect(head: str) -> bool:
    # cheap gate: the first branch needs "GPU0" and "CPU Affinity", the second "NV#"
    if not (("GPU0" in head and "CPU Affinity" in head) or "NV#" in head):
        return False
    return bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = [_ANSI.sub("", ln) for ln in artefact.lines]
    legend = {m["nic"]: m["name"] for m in (_LEGEND.match(ln) for ln in lines) if m}
    devices: list[str] = []
    cells: list[tuple[int, str, list[str]]] = []
    for n, line in enumerate(lines, 1):
        if _HEADER.match(line):
            devices = re.findall(r"\b(?:GPU|NIC)\d+\b", line.split("CPU Affinity")[0])
            result.lines_used += 1
            continue
        m = _ROW.match(line)
        if m and devices:
            row = [c.strip() for c in m["cells"].split("\t")]
            if len(row) < len(devices):
                fb.error(n, f"nvidia-smi topo: row {m['dev']} has {len(row)} cells for {len(devices)} devices")
                continue
            cells.append((n, m["dev"], row[: len(devices)]))
            result.lines_used += 1
        elif _LEGEND.match(line):
            result.lines_used += 1
    seen: set[frozenset[str]] = set()
    for n, dev, row in cells:
        for other, conn in zip(devices, row):
            pair = frozenset((dev, other))
            if other == dev or conn == "X" or pair in seen:
                continue
            seen.add(pair)
            nv = re.fullmatch(r"NV(\d+)", conn)
            fb.add(GpuTopoLink, n, a=dev, b=other, connection=conn, nvlinks=int(nv[1]) if nv else None,
                   b_rdma_device=legend.get(other), text=artefact.lines[n - 1])
    return result
