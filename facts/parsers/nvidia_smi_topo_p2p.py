"""``nvidia-smi topo -p2p r|w|n|a|p``: whether each pair of GPUs supports CUDA peer access.

Sample content (2 x RTX 5090, noonghunna/club-3090#1124; the header is underlined with ANSI
escapes on a terminal, our H200 capture)::

     	GPU0	GPU1
     GPU0	X	GNS
     GPU1	GNS	X

    Legend:

      X    = Self
      OK   = Status Ok
      CNS  = Chipset not supported
      GNS  = GPU not supported
      TNS  = Topology not supported
      NS   = Not supported
      DR   = Disabled by regkey
      U    = Unknown

The matrix pasted alone, without its legend or the command (NCCL's troubleshooting guide, "GPU
troubleshooting", a healthy 8-GPU PCIe system under ``nvidia-smi topo -p2p p``)::

              GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7
    GPU0      X       OK      OK      OK      OK      OK      OK      OK
    GPU1      OK      X       OK      OK      OK      OK      OK      OK

is recognised by its rows: a GPU name and two or more cells, every one of them a legend code
(``topo -m``'s rows carry NV#, PIX, PXB, PHB, NODE, SYS), under a header of GPU names only.

The capability is the one the command asked for (``r`` read, ``w`` write, ``n`` NVLink, ``a``
atomics, ``p`` prop; ``rw`` both): taken from a pasted command line before the matrix, else
None. ``topo -m`` (the link matrix) is :mod:`nvidia_smi_topo`'s.

Facts: ``gpu_p2p_status`` per ordered pair of distinct GPUs (row ``a``, column ``b``):
``status`` as printed, ``supported`` (True for OK, False for NS/CNS/GNS/TNS/DR, None for U),
``capability``. A row with a cell outside the legend, or fewer cells than the header has GPUs,
is a ParseError. A one-GPU matrix (only ``X``) yields no pair. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import GpuP2pStatus  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_smi_topo_p2p"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#  	GPU0	GPU1	          (a header of GPU names only: topo -m's has "CPU Affinity" after them)
_HEADER = re.compile(r"^\s*(?:GPU\d+\s*)+$")
#  GPU1	GNS	X
_ROW = re.compile(r"^\s*(?P<gpu>GPU\d+)\s+(?P<cells>[A-Z]+(?:\s+[A-Z]+)*)\s*$")  # cells apart by blanks: linear
# $ nvidia-smi topo -p2p r       nvidia-smi topo -p2p rw
_COMMAND = re.compile(r"nvidia-smi\s+topo\s+-p2p\s+(?P<cap>[rwnap]+)\b")
#   CNS  = Chipset not supported
_LEGEND = re.compile(r"^\s+CNS\s+= Chipset not supported", re.M)
# a row of the matrix pasted alone: a GPU, then two or more legend codes (one cell a GPU: the self X)
# GPU0      X       OK      OK      OK      OK      OK      OK      OK          (NCCL troubleshooting guide)
_BARE_ROW = re.compile(r"^[ \t]*GPU\d+(?:[ \t]+(?:X|OK|NS|CNS|GNS|TNS|DR|U)){2,}[ \t]*$", re.M)
#           GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7
_BARE_HEADER = re.compile(r"^[ \t]*GPU\d+(?:[ \t]+GPU\d+)+[ \t]*$", re.M)
STATUS_SUPPORTED: dict[str, bool | None] = {"OK": True, "NS": False, "CNS": False, "GNS": False, "TNS": False,
                                            "DR": False, "U": None}
CAPABILITY = {"r": "read", "w": "write", "rw": "read_write", "n": "nvlink", "a": "atomics", "p": "prop"}


def detect(head: str) -> bool:
    if "Chipset not supported" not in head and "-p2p" not in head:
        # the matrix pasted alone: its header of GPU names and a row of legend codes
        return "GPU" in head and _BARE_ROW.search(head) is not None and _BARE_HEADER.search(head) is not None
    return _LEGEND.search(head) is not None or _COMMAND.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    columns: list[str] = []
    capability: str | None = None
    for n, raw in enumerate(artefact.lines, 1):
        line = _ANSI.sub("", raw) if "\x1b" in raw else raw
        if "-p2p" in line and (c := _COMMAND.search(line)):
            capability = CAPABILITY.get(c["cap"], c["cap"])
            result.lines_used += 1
            continue
        if "GPU" not in line:
            if columns and line.strip().startswith(("Legend", "X ", "OK", "CNS", "GNS", "TNS", "NS", "DR", "U ")):
                result.lines_used += 1
            continue
        if _HEADER.match(line):
            columns = line.split()
            result.lines_used += 1
            continue
        if not columns or (r := _ROW.match(line)) is None:
            continue
        cells = r["cells"].split()
        if len(cells) < len(columns) or any(c != "X" and c not in STATUS_SUPPORTED for c in cells):
            b.error(n, f"nvidia-smi topo -p2p row {r['gpu']}: cells {cells} do not fit the header {columns}")
            continue
        result.lines_used += 1
        for col, cell in zip(columns, cells):
            if cell == "X" or col == r["gpu"]:
                continue
            b.add(GpuP2pStatus, n, a=r["gpu"], b=col, status=cell, supported=STATUS_SUPPORTED[cell],
                  capability=capability)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_LEGEND, _COMMAND, _BARE_ROW)
