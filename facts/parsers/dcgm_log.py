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
detector's stale processes: ``knowledge/dcgm.yaml`` self_messages, NVIDIA/DCGM#136, common/HangDetect.cpp) is a
``dcgm_self_message``, with the ``Exception: ...`` line DCGM logs after it where it does.
The profiling module's refusal of a GPU (modules/profiling DcgmModuleProfiling.cpp, NVIDIA/DCGM#218)::

    2025-01-31 09:26:06.613 DEBUG [2141:2143] [[Profiling]] gpuId 4 chip arch 9 is not Volta, Turing, Ampere or Ada. [...] [DcgmNs::Modules::Profiling::ValidateGpuArch]
    2025-01-31 09:26:06.613 ERROR [2141:2143] [[Profiling]] DCP metrics are supported for Volta, Turing, Ampere or Ada GPUs architectures only [...] [DcgmNs::Modules::Profiling::ValidateGpuArch]
    2025-01-31 09:26:06.613 ERROR [2141:2143] [[Profiling]] Unsupported GPU architecture: 8(device: 0, bus: 181, domain: 0) [...] [DcgmNs::Modules::Profiling::DcgmModuleProfiling::InitLop]

is a ``dcgm_profiling_refused`` per ERROR line, with DCGM's architecture number (the DEBUG line's
``chip arch N`` just before, or InitLop's own) and the GPU it names: whether that is a GPU without
profiling (before Volta) or a DCGM build that does not profile a generation it should is the rules'.
DCGM 2.x logged without the time (NVIDIA/gpu-monitoring-tools#194)::

    ERROR [3468:4824] ReadNvSwitchStatusAllSwitches() returned No data is available [/workspaces/dcgm-rel_dcgm_2_0-postmerge/modules/nvswitch/DcgmModuleNvSwitch.cpp:372] [DcgmNs::DcgmModuleNvSwitch::RunOnce]

which is read like the timed form where the ``[pid:tid]`` and the ``[/source:line] [function]``
DCGM appends are both there. ``dcgmi profile -l``'s refusal (dcgmi/Profile.cpp; NVIDIA/dcgm-exporter#22,
a Tesla K80)::

    Error: Unable to Get supported metric groups: This request is serviced by a module of DCGM that is not currently loaded.

is a ``dcgm_profiling_refused`` too, its architecture not given. DCGM_ST_VER_MISMATCH (NVIDIA/DCGM#314)::

    2026-09-21 15:58:36.273 ERROR [45265:45271] Version mismatch 2002028 != 300202c for module 0 subCommand 17 [./modules/DcgmModule.cpp:35] [DcgmModule::CheckVersion]
    Error: Unable to set health watches. Return: API version mismatch

gives ``dcgm_error`` with ``version_mismatch``, so do the ERROR lines the same thread logs in the same
millisecond after such a line (that failed call's chain), and dcgmi's ``Error: Unable to ... Return: API
version mismatch`` lines.
DEBUG, INFO and WARN lines are read past (counted as used). A log without errors yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.dcgm import DcgmProfilingRefused
from stethoscope.facts.parsers.dcgm_facts import (DcgmError, DcgmHealthIncident, DcgmSelfMessage, cause_shown, health_meaning,
                                                  health_severity, knowledge, not_comparable, self_message)

KIND = "dcgm_log"

# 2026-01-16 09:54:30.534 DEBUG [3279516:3279516] Test pcie start [/builds/dcgm/dcgm/nvvs/src/TestFramework.cpp:926] [TestFramework::GoList]
# 09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (NVBandwidthPlugin.cpp:275)
# 023-10-26 12:30:42.825 ERROR [4190:4190] Couldn't load a definition for ShutdownPlugin in plugin libDiagnostic.so: ... [/workspaces/dcgm-rel_dcgm_3_2-postmerge@5/nvvs/src/PluginLib.cpp:237] [PluginLib::LoadFunction]
#   (NVIDIA/DCGM#120: the paste lost the year's first digit; the rest of the line is DCGM's)
_LOG = re.compile(
    r"^\s*(?:\d{1,4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d\.\d+ +(?P<level>DEBUG|VERB|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL) +"
    r"(?:\[\d+:\d+\] +|\[\[(?P<plugin>[^\]]+)\]\] +)(?P<msg>(?:.*?\S)??)(?:\s*\[/[^\]]+\] \[[^\]]+\])?\s*$", re.M)
# ERROR [3468:4824] ReadNvSwitchStatusAllSwitches() returned No data is available [/workspaces/dcgm-rel_dcgm_2_0-postmerge/modules/nvswitch/DcgmModuleNvSwitch.cpp:372] [DcgmNs::DcgmModuleNvSwitch::RunOnce]
#   (DCGM 2.x without the time, gpu-monitoring-tools#194: the pid:tid and the source location both required)
_BARE = re.compile(
    r"^\s*(?P<level>DEBUG|VERB|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL) +\[\d+:\d+\] +(?:\[\[(?P<plugin>[^\]]+)\]\] +)?"
    r"(?P<msg>\S(?:.*?\S)??)\s*\[/[^\]]+:\d+\] \[[^\]]+\]\s*$", re.M)  # msg ends on a non-space: no retry of \s* in a run of blanks
# [[Profiling]] gpuId 4 chip arch 9 is not Volta, Turing, Ampere or Ada.   (DEBUG, ValidateGpuArch; NVIDIA/DCGM#218)
_CHIP_ARCH = re.compile(r"gpuId (?P<gpu>\d+) chip arch (?P<arch>\d+) is not ")
# [[Profiling]] DCP metrics are supported for Volta, Turing, Ampere or Ada GPUs architectures only
# [[Profiling]] Unsupported GPU architecture: 8(device: 0, bus: 181, domain: 0)
_PROF_REFUSED = re.compile(r"DCP metrics are supported for (?P<supported>[\w ,]+?) GPUs? architectures? only"
                           r"|Unsupported GPU architecture: (?P<arch>\d+)\b")
# Error: Unable to Get supported metric groups: This request is serviced by a module of DCGM that is not currently loaded.
#   (dcgmi profile -l, dcgmi/Profile.cpp: "Error: Unable to Get supported metric groups: " << errorString(ret); dcgm-exporter#22)
_NO_METRIC_GROUPS = re.compile(r"^\s*Error: Unable to Get supported metric groups: (?P<status>(?:[^\n]*\S)?)\s*$", re.M)
# DCGM_ST_VER_MISMATCH: a versioned structure one part of DCGM passed that the other does not accept (NVIDIA/DCGM#314:
# DCGM 4.7.0's dcgmi and nv-hostengine on one host, health module only). errorString(DCGM_ST_VER_MISMATCH) is
# "API version mismatch"; the module's own check (modules/DcgmModule.cpp CheckVersion) logs the two versions first:
# 2026-09-21 15:58:36.273 ERROR [45265:45271] Version mismatch 2002028 != 300202c for module 0 subCommand 17 [./modules/DcgmModule.cpp:35] [DcgmModule::CheckVersion]
# 2026-09-21 15:58:36.273 ERROR [45265:45271] [[Health]] Error 'API version mismatch' while attempting to get entities for group 0 [...]
#   (other checks: "Version mismatch. Version %u is not handled.", "Struct version mismatch")
_VER_MISMATCH = re.compile(r"\bAPI version mismatch\b|^(?:Struct )?[Vv]ersion mismatch\b")
# dcgmi's report of the same status (dcgmi/Health.cpp: "Error: Unable to set health watches. Return: " << errorString(result)):
# Error: Unable to set health watches. Return: API version mismatch          (NVIDIA/DCGM#314)
# Error: Unable to get health watches. Return: API version mismatch
_DCGMI_VER_MISMATCH = re.compile(r"^\s*(?P<msg>Error: Unable to [^\n]{1,200}\. Return: API version mismatch)\.?\s*$", re.M)
# the time and thread of a log line: the lines DCGM logs on one thread in the same millisecond after a version
# mismatch are that failed call's chain (GetGroupEntities -> SetWatches -> ProcessSetSystems in NVIDIA/DCGM#314)
_WHEN_WHO = re.compile(r"^\s*(?P<ts>(?:\d{1,4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d\.\d+) +[A-Z]+ +\[(?P<tid>\d+:\d+)\]")
#: dcgm_structs.h dcgmChipArchitecture_t
_ARCH_NAMES = {1: "older", 2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere", 8: "Ada",
               9: "Hopper", 10: "Blackwell"}
# Test nvbandwidth: ...   (nvvs prefixes a plugin's messages with its test)
_TEST = re.compile(r"^Test (?P<test>[\w ]+?):")
_GPU = re.compile(r"\bGPU(?::\s*|\s+|)(?P<gpu>\d+)\b")
# ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal violation in GPU 2. Verify that the cooling on this machine is functional, including external, thermal material interface, fans, and any other components.
#   (NVIDIA/DCGM#270; DCGM's format: "Detected a {} in health system {}: '{}'", the closing quote lost here)
HEALTH = re.compile(r"\bDetected a (?P<result>WARNING|FAILURE) in health system (?P<system>[A-Za-z][\w -]*?): "
                    r"'(?P<msg>(?:[^\n]*?\S)??)(?:[^\S\n]*')?(?:\s*\[/[^\]]+\] \[[^\]]+\])?\s*$", re.M)
_HEALTH_LITERAL = " in health system "


def _markers() -> list[str]:
    return [row["match"] for row in knowledge()["not_comparable"] if row.get("dcgm")]


def detect(head: str) -> bool:
    if (" ERROR " in head or " DEBUG " in head) and _LOG.search(head):
        return True
    if "] [" in head and _BARE.search(head):
        return True
    if "supported metric groups" in head and _NO_METRIC_GROUPS.search(head):
        return True
    if "Return: API version mismatch" in head and _DCGMI_VER_MISMATCH.search(head):
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
    chip_arch: tuple[int, int, int] | None = None  # (line, gpuId, arch) of the last 'chip arch N is not' line
    mismatch_call: tuple[str, str] | None = None  # (time, pid:tid) of the last version-mismatch ERROR line
    lines = _LOG.finditer(artefact.text)
    if "] [" in artefact.text:
        lines = sorted((*lines, *_BARE.finditer(artefact.text)), key=lambda m: m.start())
    for m in lines:
        n = artefact.line_of(m.start("level"))  # not m.start(): the leading \s* may begin on a blank line before
        if n in seen:
            continue
        seen.add(n)
        result.lines_used += 1
        msg = m["msg"]
        if "chip arch " in msg and (c := _CHIP_ARCH.search(msg)) is not None:
            chip_arch = (n, int(c["gpu"]), int(c["arch"]))
        if m["level"] not in ("ERROR", "CRITICAL", "FATAL"):
            continue
        if "rchitecture" in msg and (p := _PROF_REFUSED.search(msg)) is not None:
            near = chip_arch if chip_arch and n - chip_arch[0] <= 3 and p["supported"] else None
            arch = int(p["arch"]) if p["arch"] else near[2] if near else None
            name = (f"{_ARCH_NAMES.get(arch, 'a newer GPU')} (architecture {arch})" if arch is not None
                    else "an architecture the log does not give")
            fb.add(DcgmProfilingRefused, n, arch=arch, arch_name=name, profiled_generation=arch is not None and arch >= 5,
                   gpu=near[1] if near else None, supported=p["supported"], message=msg[:300])
            continue
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
        who = _WHEN_WHO.match(artefact.lines[n - 1])
        key = (who["ts"], who["tid"]) if who else None
        mismatch = _VER_MISMATCH.search(msg) is not None or (key is not None and key == mismatch_call)
        mismatch_call = key if mismatch else mismatch_call
        fb.add(DcgmError, n, message=msg, plugin=m["plugin"] or (t["test"] if t else None), gpu=int(g["gpu"]) if g else None,
               not_comparable=why is not None, why=why, cause_shown=why is None or cause_shown(msg), version_mismatch=mismatch)
    if "supported metric groups" in artefact.text:
        for m in _NO_METRIC_GROUPS.finditer(artefact.text):
            n = artefact.line_of(m.start("status"))
            seen.add(n)
            result.lines_used += 1
            fb.add(DcgmProfilingRefused, n, arch=None, arch_name="an architecture the log does not give",
                   profiled_generation=False, message=m.group(0).strip()[:300])
    if "Return: API version mismatch" in artefact.text:
        for m in _DCGMI_VER_MISMATCH.finditer(artefact.text):
            n = artefact.line_of(m.start("msg"))
            seen.add(n)
            result.lines_used += 1
            fb.add(DcgmError, n, message=m["msg"], version_mismatch=True)
    for n, line in enumerate(artefact.lines, 1):
        if n in seen:
            continue
        low = line.lower()
        if any(k in low for k in markers):
            g = _GPU.search(line)
            why = not_comparable(line)
            fb.add(DcgmError, n, message=line.strip().strip('"`'), gpu=int(g["gpu"]) if g else None, not_comparable=True, why=why,
                   cause_shown=cause_shown(line))
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
SIGNATURES = (_LOG, _BARE, _NO_METRIC_GROUPS, _DCGMI_VER_MISMATCH, HEALTH, re.compile("|".join(re.escape(m) for m in _markers()), re.I))
