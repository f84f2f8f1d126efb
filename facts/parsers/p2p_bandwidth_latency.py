"""CUDA's p2pBandwidthLatencyTest (NVIDIA/cuda-samples, Samples/5_Domain_Specific/
p2pBandwidthLatencyTest; Samples/p2pBandwidthLatencyTest in the CUDA 10 samples): its bandwidth
matrices, each a title, a ``   D\\D`` header of device numbers and one row per source device.

Sample (real, NVIDIA/nccl#814, six RTX 4090 on PHB/SYS paths, ``--sm_copy``)::

    Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
       D\\D     0      1      2      3      4      5
         0 912.14  19.98  22.21  22.21  22.37  22.20
    Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
       D\\D     0      1      2      3      4      5
         0 912.14  10.14  10.14  10.14  10.14  10.14

The titles (printf in main(), the same since the CUDA 10.0 samples): ``Unidirectional P2P=Disabled
Bandwidth Matrix (GB/s)``, ``Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)``,
``Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)`` (``--p2p_read``), ``Bidirectional
P2P=Disabled|Enabled Bandwidth Matrix (GB/s)``; older samples printed the Enabled title without
``(P2P Writes)``. Rows are ``printf("%6d ", i)`` then ``printf("%6.02f ", bw)`` per column; the
latency matrices (``P2P=... Latency ... Matrix (us)``, ``   GPU`` / ``   CPU`` headers) are not read.
The run's head (the title line, ``Device: %d, %s, pciBusID: %x, ...`` and ``Device=%d CAN|CANNOT Access
Peer Device=%d``) is read as context: a paste cut before the matrices is still this tool's output.

Facts: ``gpu_p2p_pair_bandwidth`` per ordered pair of different devices that both the Disabled and
the Enabled matrix of one kind (unidirectional writes, reads, bidirectional) hold: the two figures
and their ratio. A matrix with only one side (a paste of the Enabled matrix alone) compares
nothing and yields no fact. A row whose cell count differs from its header is a ParseError.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.bench import GpuP2pPairBandwidth
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "p2p_bandwidth_latency"

# Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
# Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
# Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
_TITLE = re.compile(r"^\s*(?P<dir>Unidirectional|Bidirectional) P2P=(?P<p2p>Enabled|Disabled) Bandwidth"
                    r"(?: \(P2P (?P<rw>Writes|Reads)\))? Matrix \(GB/s\)\s*$")
# P2P=Disabled Latency Matrix (us)       (a matrix this reader skips)
_OTHER_TITLE = re.compile(r"^\s*(?:P2P=(?:Enabled|Disabled) Latency|P2P Connectivity Matrix)")
#    D\D     0      1      2      3      4      5
_HEADER = re.compile(r"^\s*D\\D(?P<cols>(?:\s+\d{1,3})+)\s*$")
#      0 912.14  19.98  22.21  22.21  22.37  22.20
_ROW = re.compile(r"^\s*(?P<idx>\d{1,3})(?P<cells>(?:\s+\d+\.\d+)+)\s*$")
# the run's head (aikitoria/open-gpu-kernel-modules#6, tinygrad/open-gpu-kernel-modules#44), read as context:
# [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
# Device: 0, NVIDIA GeForce RTX 5090, pciBusID: 16, pciDeviceID: 0, pciDomainID:0
# Device=0 CAN Access Peer Device=1          /   Device=0 CANNOT Access Peer Device=2
_HEAD = re.compile(r"^(?:\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]|Device: \d{1,3}, [^\n]{1,120}, pciBusID: [0-9a-fA-F]{1,4}, "
                   r"pciDeviceID: [0-9a-fA-F]{1,4}, pciDomainID:[0-9a-fA-F]{1,8}|Device=\d{1,3} CAN(?:NOT)? Access Peer Device=\d{1,3})\s*$")
_DETECT = re.compile(r"^\s*(?:Unidirectional|Bidirectional) P2P=(?:Enabled|Disabled) Bandwidth"
                     r"|^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]", re.M)


def detect(head: str) -> bool:
    return ("P2P=" in head or "Peer-to-Peer" in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    matrices: dict[tuple[str, bool], dict[tuple[int, int], tuple[int, float]]] = {}
    current: dict[tuple[int, int], tuple[int, float]] | None = None
    cols: list[int] | None = None
    for n, line in enumerate(artefact.lines, 1):
        if m := _TITLE.match(line):
            mode = "bidirectional" if m["dir"] == "Bidirectional" else ("reads" if m["rw"] == "Reads" else "writes")
            current = matrices.setdefault((mode, m["p2p"] == "Enabled"), {})
            cols = None
            result.lines_used += 1
        elif _OTHER_TITLE.match(line):
            current = cols = None
        elif _HEAD.match(line):
            result.lines_used += 1  # the devices and cudaDeviceCanAccessPeer's answers: context, no fact
        elif current is not None and cols is None and (m := _HEADER.match(line)):
            cols = [int(c) for c in m["cols"].split()]
            result.lines_used += 1
        elif current is not None and cols is not None and (m := _ROW.match(line)):
            cells = m["cells"].split()
            if len(cells) != len(cols):
                fb.error(n, f"p2pBandwidthLatencyTest row {m['idx']} has {len(cells)} cells, its header {len(cols)}")
                continue
            src = int(m["idx"])
            for dst, raw in zip(cols, cells):
                if dst != src:
                    current[(src, dst)] = (n, float(raw))
            result.lines_used += 1
    for mode in ("writes", "reads", "bidirectional"):
        # one unidirectional P2P=Disabled matrix serves both the writes and the reads matrix
        staged = matrices.get(("bidirectional" if mode == "bidirectional" else "writes", False), {})
        direct = matrices.get((mode, True), {})
        for pair in sorted(direct.keys() & staged.keys()):
            line, p2p = direct[pair]
            base = staged[pair][1]
            if base <= 0:
                continue
            fb.add(GpuP2pPairBandwidth, line, src=pair[0], dst=pair[1], mode=mode, p2p_gbs=p2p, staged_gbs=base,
                   ratio=round(p2p / base, 3))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?:Unidirectional|Bidirectional) P2P=(?:Enabled|Disabled) Bandwidth", r"\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]")
