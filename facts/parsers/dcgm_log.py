"""DCGM logs (nvvs.log, nv-hostengine.log, ``dcgmi`` / dcgm-exporter messages): their errors.

Sample content (NVIDIA/DCGM#272 nvvs debug log and the reporter's excerpt; NVIDIA/DCGM#56;
NVIDIA/DCGM#270, a health watch's incident in the host engine's log)::

    2026-01-16 09:54:30.534 DEBUG [3279516:3279516] Writing diag info for test nvbandwidth [/builds/dcgm/dcgm/nvvs/src/TestFramework.cpp:855] [TestFramework::WriteDiagStatusToChannel]
    09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (NVBandwidthPlugin.cpp:275)
    the third-party profiling module returned an unrecoverable error
    ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal violation in GPU 2. Verify that ...

Facts: ``dcgm_error`` per log line at ERROR (or CRITICAL) level, and per line anywhere that
holds a DCGM status or failure reason of ``knowledge/dcgm.yaml`` (a message quoted from
``dcgmi`` or an exporter's log), with whether that reason says other work disturbed the test.
A health watch's incident (``Detected a WARNING|FAILURE in health system <System>: '<message>'``,
DcgmHealthWatch::SetResponse, DCGM 3.2+) is a ``dcgm_health_incident`` instead, on any line of
any file (journalctl, a pod's log, the timestamp cut off), with the component and cause of its
message or its system in ``knowledge/dcgm.yaml`` and the GPU it names.
An ERROR line DCGM logs about itself and goes on from (its config package missing, its hang
detector's stale processes: ``knowledge/dcgm.yaml`` self_messages, NVIDIA/DCGM#136, #279) is a
``dcgm_self_message``, with the ``Exception: ...`` line DCGM logs after it where it does.
DEBUG, INFO and WARN lines are read past (counted as used). A log without errors yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.dcgm_facts import (DcgmError, DcgmHealthIncident, DcgmSelfMessage, health_meaning,
                                                  health_severity, knowledge, not_comparable, self_message)

KIND = "dcgm_log"

# 2026-01-16 09:54:30.534 DEBUG [3279516:3279516] Test pcie start [/builds/dcgm/dcgm/nvvs/src/TestFramework.cpp:926] [TestFramework::GoList]
# 09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (NVBandwidthPlugin.cpp:275)
_LOG = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d\.\d+ +(?P<level>DEBUG|VERB|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL) +"
    r"(?:\[\d+:\d+\] +|\[\[(?P<plugin>[^\]]+)\]\] +)(?P<msg>.*?)\s*(?:\[/[^\]]+\] \[[^\]]+\])?\s*$", re.M)
# Test nvbandwidth: ...   (nvvs prefixes a plugin's messages with its test)
_TEST = re.compile(r"^Test (?P<test>[\w ]+?):")
_GPU = re.compile(r"\bGPU(?::\s*|\s+|)(?P<gpu>\d+)\b")
# ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal violation in GPU 2. Verify that the cooling on this machine is functional, including external, thermal material interface, fans, and any other components.
#   (NVIDIA/DCGM#270; DCGM's format: "Detected a {} in health system {}: '{}'", the closing quote lost here)
HEALTH = re.compile(r"\bDetected a (?P<result>WARNING|FAILURE) in health system (?P<system>[A-Za-z][\w -]*?): "
                    r"'(?P<msg>[^\n]*?)'?\s*(?:\[/[^\]]+\] \[[^\]]+\])?\s*$", re.M)
_HEALTH_LITERAL = " in health system "


def _markers() -> list[str]:
    return [row["match"] for row in knowledge()["not_comparable"] if row.get("dcgm")]


def detect(head: str) -> bool:
    if (" ERROR " in head or " DEBUG " in head) and _LOG.search(head):
        return True
    if _HEALTH_LITERAL in head and HEALTH.search(head):
        return True
    low = head.lower()
    return any(m.lower() in low for m in _markers())


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    markers = [m.lower() for m in _markers()]
    seen: set[int] = set()
    if _HEALTH_LITERAL in artefact.text:
        for m in HEALTH.finditer(artefact.text):
            n = artefact.line_of(m.start())
            seen.add(n)
            result.lines_used += 1
            _health_incident(fb, n, m)
    exception_of: tuple[int, str] | None = None  # (line, why) of a self message whose exception DCGM logs next
    for m in _LOG.finditer(artefact.text):
        n = artefact.line_of(m.start())
        if n in seen:
            continue
        seen.add(n)
        result.lines_used += 1
        if m["level"] not in ("ERROR", "CRITICAL", "FATAL"):
            continue
        msg = m["msg"]
        own = self_message(msg)
        if own is None and exception_of and exception_of[0] == n - 1 and msg.startswith("Exception: "):
            own = (exception_of[1], False)
        if own is not None:
            fb.add(DcgmSelfMessage, n, message=msg, why=own[0])
            exception_of = (n, own[0]) if own[1] else None
            continue
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


def _health_incident(fb: FactBuilder, n: int, m: re.Match) -> None:
    msg, system = m["msg"].strip(), m["system"].strip()
    reason, component, cause, actions = health_meaning(system, msg)
    if component is None:
        fb.error(n, f"DCGM health system {system!r} is not in knowledge/dcgm.yaml health_systems")
        return
    g = _GPU.search(msg)
    gpu = int(g["gpu"]) if g else None
    fb.add(DcgmHealthIncident, n, result=m["result"], system=system, message=msg[:400], reason=reason, gpu=gpu,
           gpu_name=f"GPU {gpu}" if gpu is not None else "the GPU DCGM watched", component=component, cause=cause,
           severity=health_severity(m["result"]), actions=actions)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_LOG, HEALTH, re.compile("|".join(re.escape(m) for m in _markers()), re.I))
