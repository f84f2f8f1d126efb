"""``nvidia-smi topo -m`` (or ``-mp``): how each GPU reaches each other GPU and each NIC.

Sample content (real, 2 x H200 NV18 host; the header is underlined with ANSI escapes)::

    \\x1b[4mGPU0	GPU1	CPU Affinity	NUMA Affinity	GPU NUMA ID\\x1b[0m
    GPU0	 X 	NV18	0-31	0		N/A
    GPU1	NV18	 X 	0-31	0		N/A

Pasted into issue threads the tabs become runs of spaces (deepseek-ai/DeepEP#128)::

            GPU0    GPU1    GPU2 ...  NIC0    NIC1 ...  CPU Affinity    NUMA Affinity   GPU NUMA ID
    GPU0     X      SYS     SYS  ...  PIX     SYS  ...  0-55,112-167    0               N/A

sometimes too few, so that two cells touch (``NIC4NIC5`` in the header, ``PIXSYS`` in a row).

Older drivers name NICs by their RDMA device (``mlx5_0`` columns and rows); newer ones say
``NIC0`` and add a ``NIC Legend:`` (``  NIC0: mlx5_0``). Cells come from a closed vocabulary
(``X``, ``NV#``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``, old ``SOC``), so a row is read
cell by cell from that vocabulary, not by splitting on tabs; the header gives the device of
each column and the names of the affinity columns that follow the cells.

Facts: ``gpu_topo_link`` per pair of devices (each pair once, evidence: the row of the first),
``connection`` as printed, ``nvlinks`` for ``NV#``, each NIC end's RDMA device from the
legend or its column name; ``gpu_topo_affinity`` per GPU row (CPU and NUMA affinity, GPU NUMA
id). A row with fewer cells than the header has devices is a ParseError. Rows before any
header (a fragment) are counted as unknown. Empty output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    GpuTopoAffinity, GpuTopoLink,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_smi_topo"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# GPU0	GPU1	NIC0	CPU Affinity	NUMA Affinity	GPU NUMA ID
# GPU0    GPU1 ... NIC3    NIC4NIC5    NIC6 ... CPU Affinity    NUMA Affinity   GPU NUMA ID
_HEADER = re.compile(r"^\s*GPU0\s*(?:(?:GPU|NIC)\d+|mlx\d+_\d+)[^\n]*?\bCPU Affinity")
_DEVICE = re.compile(r"GPU\d+|NIC\d+|mlx\d+_\d+")
_AFFINITY_COLUMNS = re.compile(r"CPU Affinity|NUMA Affinity|GPU NUMA ID")
# GPU0	 X 	NV18	0-31	0		N/A      |  mlx5_0	PXB	PXB	SYS ...
_ROW = re.compile(r"^(?P<dev>GPU\d+|NIC\d+|mlx\d+_\d+)(?=\s)")
# one cell: "PIXSYS" is two cells that a paste glued together
_CELL = re.compile(r"\s*(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)(?![a-z])")
#   NIC0: mlx5_0
_LEGEND = re.compile(r"^\s+(?P<nic>NIC\d+): (?P<name>\S+)\s*$")
_DETECT = re.compile(r"^(?:\x1b\[[0-9;]*m)?\s*GPU0\s+(?:GPU|NIC)\d+[^\n]*CPU Affinity|^\s+NV#\s+= Connection traversing a bonded set", re.M)


def detect(head: str) -> bool:
    # cheap gate: the first branch needs "GPU0" and "CPU Affinity", the second "NV#"
    if not (("GPU0" in head and "CPU Affinity" in head) or "NV#" in head):
        return False
    return bool(_DETECT.search(head))


def _rdma(dev: str, legend: dict[str, str]) -> str | None:
    return dev if dev.startswith("mlx") else legend.get(dev)


def _cells(rest: str, count: int) -> tuple[list[str], str]:
    """Up to ``count`` cells from the start of ``rest``, and what follows them."""
    out, pos = [], 0
    while len(out) < count:
        m = _CELL.match(rest, pos)
        if not m:
            break
        out.append(m[1])
        pos = m.end()
    return out, rest[pos:]


# nvidia-smi's own legend of the connection codes under the matrix (the same text whatever the machine; R3xx's
# "SOC" and "PCIe switch" wording too): its lines are read, no fact (a file of two GPUs or more left them an unread run)
#   Legend:
#     X    = Self
#     SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
#     NV#  = Connection traversing a bonded set of # NVLinks        (fixtures/artefacts/nvidia_smi_topo/h200_nv18_topo_m.txt;
#                                                                     noonghunna/club-3090#1140, 2 x RTX 5090)
#     X   = Self
#     SOC  = Connection traversing PCIe as well as the SMP link between CPU sockets(e.g. QPI)
#     PIX  = Connection traversing a single PCIe switch           (the older legend: tensorflow's contrib/gdr/README.md, 4 x K40m)
_CODE_LEGEND = re.compile(r"^\s*(?:Legend:|X\s+= Self|(?:SYS|SOC|NODE|PHB|PXB|PIX|NV#)\s+= Connection traversing [^\n]{1,120}?)\s*$")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = [_ANSI.sub("", ln) for ln in artefact.lines]
    legend = {m["nic"]: m["name"] for m in (_LEGEND.match(ln) for ln in lines) if m}
    devices: list[str] = []
    columns: list[str] = []
    cells: list[tuple[int, str, list[str]]] = []
    for n, line in enumerate(lines, 1):
        if _HEADER.match(line):
            head, _, tail = line.partition("CPU Affinity")
            devices = _DEVICE.findall(head)
            columns = ["CPU Affinity"] + _AFFINITY_COLUMNS.findall(tail)
            result.lines_used += 1
            continue
        m = _ROW.match(line)
        if m and devices and m["dev"] in devices:
            row, rest = _cells(line[m.end():], len(devices))
            if len(row) < len(devices):
                fb.error(n, f"nvidia-smi topo: row {m['dev']} has {len(row)} cells for {len(devices)} devices")
                continue
            cells.append((n, m["dev"], row))
            result.lines_used += 1
            if m["dev"].startswith("GPU") and rest.split():
                vals = dict(zip(columns, rest.split()))
                fb.add(GpuTopoAffinity, n, gpu=m["dev"], cpu_affinity=vals.get("CPU Affinity"),
                       numa_affinity=vals.get("NUMA Affinity"), gpu_numa_id=vals.get("GPU NUMA ID"), text=artefact.lines[n - 1])
        elif _LEGEND.match(line) or (devices and _CODE_LEGEND.match(line)):
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
                   b_rdma_device=_rdma(other, legend), a_rdma_device=_rdma(dev, legend), text=artefact.lines[n - 1])
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
