"""DCGM logs (nvvs.log, nv-hostengine.log, ``dcgmi`` / dcgm-exporter messages): their errors.

Sample content (NVIDIA/DCGM#272 nvvs debug log and the reporter's excerpt; NVIDIA/DCGM#56)::

    2026-01-16 09:54:30.534 DEBUG [3279516:3279516] Writing diag info for test nvbandwidth [/builds/dcgm/dcgm/nvvs/src/TestFramework.cpp:855] [TestFramework::WriteDiagStatusToChannel]
    09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (NVBandwidthPlugin.cpp:275)
    the third-party profiling module returned an unrecoverable error

Facts: ``dcgm_error`` per log line at ERROR (or CRITICAL) level, and per line anywhere that
holds a DCGM status or failure reason of ``knowledge/dcgm.yaml`` (a message quoted from
``dcgmi`` or an exporter's log), with whether that reason says other work disturbed the test.
DEBUG, INFO and WARN lines are read past (counted as used). A log without errors yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.dcgm_facts import DcgmError, knowledge, not_comparable

KIND = "dcgm_log"

# 2026-01-16 09:54:30.534 DEBUG [3279516:3279516] Test pcie start [/builds/dcgm/dcgm/nvvs/src/TestFramework.cpp:926] [TestFramework::GoList]
# 09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (NVBandwidthPlugin.cpp:275)
_LOG = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d\.\d+ +(?P<level>DEBUG|VERB|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL) +"
    r"(?:\[\d+:\d+\] +|\[\[(?P<plugin>[^\]]+)\]\] +)(?P<msg>.*?)\s*(?:\[/[^\]]+\] \[[^\]]+\])?\s*$", re.M)
# Test nvbandwidth: ...   (nvvs prefixes a plugin's messages with its test)
_TEST = re.compile(r"^Test (?P<test>[\w ]+?):")
_GPU = re.compile(r"\bGPU(?::\s*|\s+|)(?P<gpu>\d+)\b")


def _markers() -> list[str]:
    return [row["match"] for row in knowledge()["not_comparable"] if row.get("dcgm")]


def detect(head: str) -> bool:
    if (" ERROR " in head or " DEBUG " in head) and _LOG.search(head):
        return True
    low = head.lower()
    return any(m.lower() in low for m in _markers())


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    markers = [m.lower() for m in _markers()]
    seen: set[int] = set()
    for m in _LOG.finditer(artefact.text):
        n = artefact.line_of(m.start())
        seen.add(n)
        result.lines_used += 1
        if m["level"] not in ("ERROR", "CRITICAL", "FATAL"):
            continue
        msg = m["msg"]
        t = _TEST.match(msg)
        g = _GPU.search(msg)
        why = not_comparable(msg)
        fb.add(DcgmError, n, message=msg, plugin=m["plugin"] or (t["test"] if t else None), gpu=int(g["gpu"]) if g else None,
               not_comparable=why is not None, why=why)
    for n, line in enumerate(artefact.lines, 1):
        if n in seen:
            continue
        low = line.lower()
        if any(k in low for k in markers):
            g = _GPU.search(line)
            why = not_comparable(line)
            fb.add(DcgmError, n, message=line.strip().strip('"`'), gpu=int(g["gpu"]) if g else None, not_comparable=True, why=why)
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_LOG, re.compile("|".join(re.escape(m) for m in _markers()), re.I))
