"""``nvtop`` (Syllo/nvtop, the interactive GPU monitor) as people paste its screen: each GPU's
header lines.

Sample content (Syllo/nvtop#6, nvtop 0.x; the same first line in 3.x, src/interface.c prints
``Device %u [%s] PCIe GEN %u@%2ux RX: ... TX: ...`` and then the clocks line)::

    Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x
    Device 1 [GeForce GTX 1080 Ti] _**PCIe GEN 1@16x**_
    Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 4@16x RX: 1.953 MiB/s TX: 2.930 MiB/s
     GPU 210MHz  MEM 405MHz  TEMP  35°C FAN  30% POW  25 / 350 W

Facts: ``nvtop_device`` per device line: nvtop's index, the name, the PCIe generation and
width it shows, which are the link's *current* ones (an idle GPU trains its link down to a
lower generation to save power, so a low generation alone is no fault: nvtop never prints
the maximum), and from the clocks line after it the temperature and power draw/limit when
shown. Markdown emphasis a poster wrapped round a cell (``_**...**_``) is read through. No
device line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import NvtopDevice  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvtop"

# Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x
# Device 1 [GeForce GTX 1080 Ti] _**PCIe GEN 1@16x**_
# Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 4@16x RX: 1.953 MiB/s TX: 2.930 MiB/s
_DEVICE = re.compile(r"^\s*Device\s*(?P<idx>\d+)\s*\[(?P<name>[^\]\n]+)\]\s*[*_]{0,3}PCIe GEN (?P<gen>\d+)@\s*(?P<width>\d+)x[*_]{0,3}")
#  GPU 210MHz  MEM 405MHz  TEMP  35°C FAN  30% POW  25 / 350 W
_CLOCKS = re.compile(r"^\s*GPU\s*\d+MHz\s+MEM\s*\d+MHz\s+TEMP\s*(?P<temp>\d+)\s*°?C(?:.*?POW\s*(?P<draw>\d+)\s*/\s*(?P<cap>\d+)\s*W)?")
_DETECT = re.compile(r"^\s*Device\s*\d+\s*\[[^\]\n]+\]\s*[*_]{0,3}PCIe GEN \d+@\s*\d+x", re.M)


def detect(head: str) -> bool:
    return "PCIe GEN" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, line in enumerate(lines, 1):
        if "PCIe GEN" not in line or not (m := _DEVICE.match(line)):
            continue
        result.lines_used += 1
        extra: dict = {}
        if n < len(lines) and (c := _CLOCKS.match(lines[n])):
            result.lines_used += 1
            extra = {"temperature_c": int(c["temp"]), "power_draw_w": int(c["draw"]) if c["draw"] else None,
                     "power_limit_w": int(c["cap"]) if c["cap"] else None}
        b.add(NvtopDevice, n, index=int(m["idx"]), name=m["name"].strip(), pcie_gen_current=int(m["gen"]),
              pcie_width_current=int(m["width"]), **extra)
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
