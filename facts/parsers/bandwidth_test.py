"""CUDA's bandwidthTest (NVIDIA/cuda-samples, Samples/1_Utilities/bandwidthTest): host-to-device,
device-to-host and device-to-device copy bandwidth of one GPU, the first figure an acceptance run
pastes for a GPU's PCIe link.

Sample content (real, mpicbg-scicomp/gearshifft#82, a P100 PCIe run with its host buffer bound to
the other socket by ``numactl -m1 -N1``; usadellab/Helixer#22 for the GB/s form)::

    [CUDA Bandwidth Test] - Starting...
     Device 0: Tesla P100-PCIE-16GB
     Quick Mode

     Host to Device Bandwidth, 1 Device(s)
     PINNED Memory Transfers
       Transfer Size (Bytes)        Bandwidth(MB/s)
       33554432                     3783.4

The lines are bandwidthTest.cu's printResultsReadable: ``" %s Bandwidth, %i Device(s)"`` (Host to
Device, Device to Host, Device to Device), ``" %s Memory Transfers"`` (PINNED, PAGEABLE), the header
``"   Transfer Size (Bytes)\\tBandwidth(GB/s)"`` and rows ``"   %u\\t\\t\\t%s%.1f"``; the CUDA 9 and
older samples printed ``Bandwidth(MB/s)`` (their MB a power-of-two multiple, within 5 % of 1e6
bytes: converted as 1e6, far inside the judging edge). ``--csv`` prints ``bandwidthTest-H2D-Pinned,
Bandwidth = %.1f GB/s, Time = %.5f s, Size = %u bytes, NumDevsUsed = %d``.

Facts: ``bench_result`` per row (benchmark bandwidth_test, test ``host_to_device_pinned`` etc.,
entity the device, GB/s, size). Where the run names one device (one `` Device N: <name>`` line,
``1 Device(s)``) whose product knowledge/pcie_host_copy.yaml knows, each pinned host-to-device and
device-to-host section also gives a ``host_copy_vs_pcie`` (its largest size's figure against the raw
rate of the product's x16 link). Several runs in one paste (the ``Starting...`` line restarts) are
read one after the other.
"""
from __future__ import annotations

import fnmatch
import re
from functools import lru_cache

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.bench import HostCopyVsPcie
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "bandwidth_test"

# [CUDA Bandwidth Test] - Starting...        (a paste may lose the first bracket)
_START = re.compile(r"^\[?CUDA Bandwidth Test\] - Starting\.\.\.\s*$")
#  Device 0: Tesla P100-PCIE-16GB
_DEVICE = re.compile(r"^ Device (?P<idx>\d{1,3}): (?P<name>\S[^\n]{0,120}?)\s*$")
#  Host to Device Bandwidth, 1 Device(s)
_SECTION = re.compile(r"^ (?P<kind>Host to Device|Device to Host|Device to Device) Bandwidth, (?P<ndev>\d{1,3}) Device\(s\)\s*$")
#  PINNED Memory Transfers
_MEMORY = re.compile(r"^ (?P<mem>PINNED|PAGEABLE) Memory Transfers\s*$")
#    Transfer Size (Bytes)        Bandwidth(MB/s)        /   Transfer Size (Bytes)\tBandwidth(GB/s)
_HEADER = re.compile(r"^\s{1,8}Transfer Size \(Bytes\)\s{1,40}Bandwidth\((?P<unit>GB|MB)/s\)\s*$")
#    33554432                     12150.7        /   100000000\t\t\t13.1
_ROW = re.compile(r"^\s{1,8}(?P<size>\d{1,12})\s{1,40}(?P<bw>\d{1,9}(?:\.\d{1,4})?)\s*$")
# bandwidthTest-H2D-Pinned, Bandwidth = 12.3 GB/s, Time = 0.00273 s, Size = 33554432 bytes, NumDevsUsed = 1
_CSV = re.compile(r"^bandwidthTest-(?P<kind>H2D|D2H|D2D)(?:-(?P<mem>Paged|Pinned))?(?:-WriteCombined)?, Bandwidth = "
                  r"(?P<bw>\d{1,9}(?:\.\d{1,4})?) GB/s, Time = [\d.]{1,20} s, Size = (?P<size>\d{1,12}) bytes, NumDevsUsed = (?P<ndev>\d{1,3})")
# Quick Mode / Range Mode / Shmoo Mode / Result = PASS / Write-Combined Memory Writes are Enabled / Running on...
_CONTEXT = re.compile(r"^(?: (?:Quick|Range|Shmoo) Mode|Result = (?:PASS|FAIL)|Running on\.\.\.| Write-Combined Memory Writes are Enabled)\s*$")
_DETECT = re.compile(r"^\[?CUDA Bandwidth Test\] - Starting|^ (?:Host to Device|Device to Host) Bandwidth, \d{1,3} Device\(s\)"
                     r"|^bandwidthTest-(?:H2D|D2H|D2D)", re.M)

_KINDS = {"Host to Device": "host_to_device", "Device to Host": "device_to_host", "Device to Device": "device_to_device",
          "H2D": "host_to_device", "D2H": "device_to_host", "D2D": "device_to_device"}
_MEMS = {"PINNED": "pinned", "PAGEABLE": "pageable", "Pinned": "pinned", "Paged": "pageable", None: None}


def detect(head: str) -> bool:
    return ("Bandwidth Test" in head or "Device(s)" in head or "bandwidthTest-" in head) and bool(_DETECT.search(head))


@lru_cache(maxsize=1)
def _table() -> knowledge.PcieHostCopy:
    return knowledge.load("pcie_host_copy.yaml")


def generation_of(name: str) -> int | None:
    """The PCIe generation of a product's host link (knowledge/pcie_host_copy.yaml), None if unknown."""
    for p in _table().products:
        if any(fnmatch.fnmatchcase(name, pat) for pat in p.patterns):
            return p.generation
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    devices: dict[int, str] = {}
    section: dict | None = None

    def close() -> None:
        nonlocal section
        if section is not None:
            _judge(fb, section, devices)
        section = None

    for n, line in enumerate(artefact.lines, 1):
        if _START.match(line):
            close()
            devices = {}
            result.lines_used += 1
        elif m := _DEVICE.match(line):
            devices[int(m["idx"])] = m["name"]
            result.lines_used += 1
        elif m := _SECTION.match(line):
            close()
            section = {"test": _KINDS[m["kind"]], "ndev": int(m["ndev"]), "mem": None, "unit": "GB", "rows": []}
            result.lines_used += 1
        elif section is not None and (m := _MEMORY.match(line)):
            section["mem"] = _MEMS[m["mem"]]
            result.lines_used += 1
        elif section is not None and (m := _HEADER.match(line)):
            section["unit"] = m["unit"]
            result.lines_used += 1
        elif section is not None and (m := _ROW.match(line)):
            gbs = float(m["bw"]) / (1000.0 if section["unit"] == "MB" else 1.0)
            section["rows"].append((n, int(m["size"]), round(gbs, 3)))
            result.lines_used += 1
        elif m := _CSV.match(line):
            close()
            section = {"test": _KINDS[m["kind"]], "ndev": int(m["ndev"]), "mem": _MEMS[m["mem"]], "unit": "GB",
                       "rows": [(n, int(m["size"]), float(m["bw"]))]}
            close()
            result.lines_used += 1
        elif _CONTEXT.match(line):
            result.lines_used += 1
    close()
    return result


def _judge(fb: FactBuilder, section: dict, devices: dict[int, str]) -> None:
    if not section["rows"]:
        return
    one = len(devices) == 1 and section["ndev"] == 1
    idx, name = next(iter(devices.items())) if one else (None, None)
    entity = f"gpu{idx}" if one else ("all" if section["ndev"] > 1 else "gpu")
    test = section["test"] + (f"_{section['mem']}" if section["mem"] else "")
    for line, size, gbs in section["rows"]:
        fb.add(BenchResult, line, benchmark="bandwidth_test", test=test, entity=entity, metric="bandwidth",
               value=gbs, unit="GB/s", size_bytes=size)
    if not one or section["mem"] != "pinned" or section["test"] == "device_to_device":
        return
    gen = generation_of(name)
    if gen is None:
        return
    t = _table()
    line, size, gbs = max(section["rows"], key=lambda r: r[1])
    link = round(t.generations[gen] * t.lanes, 2)
    fb.add(HostCopyVsPcie, line, gpu=entity, gpu_name=name, direction=section["test"], gbs=gbs, size_bytes=size,
           generation=gen, lanes=t.lanes, link_gbs=link, ratio=round(gbs / link, 3), below_ratio=t.below_ratio)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
