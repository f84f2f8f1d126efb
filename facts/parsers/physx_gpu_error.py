"""PhysX's GPU simulation errors with the CUDA driver's result (Isaac Gym, Isaac Sim / Isaac Lab and other
Omniverse programs, anything built on the PhysX SDK's GPU rigid-body pipeline), in any program's output.

PhysX's GPU code reports a failed CUDA driver call through its error callback with the CUresult as a
number (NVIDIA-Omniverse/PhysX physx/source/gpunarrowphase/src/PxgNarrowphaseCore.cpp
``PxGetFoundation().error(PxErrorCode::eINTERNAL_ERROR, PX_FL, "Synchronizing GPU Narrowphase failed! %d\\n", result)``;
physx/source/gpucommon/include/PxgCudaUtils.h ``"SynchronizeStreams cuEventRecord failed with error %i\\n"``). The
callback's output depends on the program. Omniverse's (omni.physx.plugin) writes the message after ``PhysX error: ``
and, after the message's own newline, ``, FILE <source>, LINE <n>`` (sample lines, real, from the threads named)::

    2024-11-25 09:13:08 [11,526ms] [Error] [omni.physx.plugin] PhysX error: Synchronizing GPU Narrowphase failed! 700
    , FILE /builds/omniverse/physics/physx/source/gpunarrowphase/src/PxgNarrowphaseCore.cpp, LINE 1259
    2024-11-25 09:13:08 [11,526ms] [Error] [omni.physx.plugin] Cuda context manager error, simulation will be stopped and new cuda context manager will be created.
    2024-11-25 09:13:08 [11,526ms] [Error] [omni.physx.plugin] PhysX error: SynchronizeStreams cuEventRecord failed with error 700
                                                     (isaac-sim/IsaacLab#1460: a cup hitting the table in an RL env)
    2026-07-20T06:44:27Z [320,902ms] [Error] [omni.physx.plugin] PhysX error: GPU artiPropagateImpulses2 fail to launch kernel!! 700
                                                     (UW-Lab/UWLab#32: a robot arm penetrating custom scene geometry)

Isaac Gym's (PhysX's default callback) writes ``<source> (<line>) : <error kind> : <message>``, the number after the
message's newline on a line of its own::

    /buildAgent/work/99bede84aa0a52c2/source/gpunarrowphase/src/PxgNarrowphaseCore.cpp (2408) : internal error : memcpy failed fail!
      700
    /buildAgent/work/99bede84aa0a52c2/source/gpucommon/include/PxgCudaUtils.h (54) : internal error : SynchronizeStreams cuEventRecord failed
                                                     (NVlabs/ProtoMotions#222: 2048 environments on an H800, fixed in
                                                      the program)

The number is a CUresult: 700 CUDA_ERROR_ILLEGAL_ADDRESS, a kernel of the simulation faulting (a scene, a contact
buffer or an environment count the program set up wrong, or a PhysX bug), which the CUDA error catalogue judges.

Facts: ``cuda_error`` (form ``physx``) for the first line of each CUresult the catalogue holds (the code, PhysX's
message, the source file and line). PhysX's other GPU error lines of the same file (the streams it could not
synchronise, the CUDA context manager being recreated, kernels that could not launch, pinned memory it could not
allocate) follow from that fault and are read as its own. A file whose PhysX errors carry no number the catalogue
holds is not claimed: its errors stay unexplained ones.
"""
from __future__ import annotations

import os
import re

from stethoscope.facts.kinds.app import CudaError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "physx_gpu_error"

# [Error] [omni.physx.plugin] PhysX error: Synchronizing GPU Narrowphase failed! 700            (isaac-sim/IsaacLab#1460)
# [Error] [omni.physx.plugin] PhysX error: SynchronizeStreams cuEventRecord failed with error 700 (isaac-sim/IsaacLab#1460)
# [Error] [omni.physx.plugin] PhysX error: GPU artiPropagateImpulses2 fail to launch kernel!! 700 (UW-Lab/UWLab#32)
#   (the message a bounded lazy run up to the number that ends the line, the blanks around the number bounded too; the
#   failure word, fail or failed, looked for in it afterwards. On bench/redos.py's 120,000-character variants: two lazy
#   runs around the word 0.54 s; one lazy run before unbounded blanks 1.55 s, a run of blanks taken whole at each step;
#   this 39 ms)
OMNI = re.compile(r"PhysX error: (?P<msg>[^\n]{0,320}?)[ \t]{1,8}(?P<code>\d{1,4})\.?[ \t]{0,8}$", re.MULTILINE)
_FAILED = re.compile(r"\bfail(?:ed)?\b")
# , FILE /builds/omniverse/physics/physx/source/gpunarrowphase/src/PxgNarrowphaseCore.cpp, LINE 1259
OMNI_FILE = re.compile(r"^, FILE (?P<file>[^\n,]{1,300}), LINE (?P<line>\d{1,7})[ \t]*$")
# /buildAgent/work/99bede84aa0a52c2/source/gpunarrowphase/src/PxgNarrowphaseCore.cpp (2408) : internal error : memcpy failed fail!
#   700                                                                                         (NVlabs/ProtoMotions#222)
# C:\buildAgent\work\ec03eeb8e2a0ca1f\sw\physx\PhysXSDK\3.4\trunk\Source\GpuCommon\include\PxgCudaUtils.h (53) : unknown error : SynchronizeStreams failed
#                                                                                                (NVIDIAGameWorks/PhysX-3.4#74)
#   (the source a token: starts after a blank or the line's start, so a long run without one is tried once)
GYM = re.compile(r"(?<!\S)(?P<file>[^\s()]{1,300}\.(?:cpp|h|cu)) \((?P<line>\d{1,7})\) : (?:internal|unknown)"
                 r" error : (?P<msg>[^\n]{0,300})")
# the number alone on the line after the message ("  700")
CODE_LINE = re.compile(r"^[ \t]{0,8}(?P<code>\d{1,4})[ \t]{0,8}$")
# ... : internal error : <message> 700   (the number ending the message itself, as Omniverse's lines have it)
_TAIL = re.compile(r"[ \t](?P<code>\d{1,4})$")
#: PhysX's GPU lines that follow a failed CUDA call (read as that fault's own once a coded line is read)
#: [Error] [omni.physx.plugin] Cuda context manager error, simulation will be stopped and new cuda context manager will be created.
CONSEQUENCES = ("Cuda context manager error, simulation will be stopped", "PhysX error: ", " : internal error : ",
                " : warning : Failed to allocate pinned memory.")
_MARKERS = ("PhysX error: ", " : internal error : ", " : unknown error : ")


def _entry(code: str) -> catalogue.Entry | None:
    """The CUresult ``code`` names (PhysX calls the driver API), None when the catalogue has none (or it is 0)."""
    n = int(code)
    return catalogue.by_code(n, "driver") if n else None


def _coded(artefact: Artefact):
    """(line number, message, code entry, source file, source line) of each PhysX line whose CUresult the
    catalogue holds, and the line numbers of its own (the code's line, the FILE line)."""
    lines = artefact.lines
    for n, line in iter_lines_with(_MARKERS, artefact):
        if (m := OMNI.search(line)) is not None:
            if _FAILED.search(m["msg"]) is None or (e := _entry(m["code"])) is None:
                continue
            own = [n]
            f = OMNI_FILE.match(lines[n]) if n < len(lines) else None
            if f is not None:
                own.append(n + 1)
            yield n, m["msg"].strip(), e, f["file"] if f else None, int(f["line"]) if f else None, own
        elif (g := GYM.search(line)) is not None:
            msg = g["msg"].strip()
            tail = _TAIL.search(msg)
            own = [n]
            if tail is None and n < len(lines) and (c := CODE_LINE.match(lines[n])) is not None:
                code, own = c["code"], [n, n + 1]
            elif tail is not None:
                code, msg = tail["code"], msg[:tail.start()].strip()
            else:
                continue
            if "fail" not in msg or (e := _entry(code)) is None:
                continue
            yield n, msg, e, g["file"], int(g["line"]), own


def detect(text: str) -> bool:
    if "PhysX error: " not in text and " error : " not in text:
        return False
    return any(True for _ in _coded(Artefact(path="", node="", text=text)))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    used: set[int] = set()
    codes: set[int] = set()
    for n, msg, e, src, src_line, own in _coded(artefact):
        used.update(own)
        if e.code in codes:
            continue  # the same fault, reported again by the calls after it
        codes.add(e.code)
        fb.add(CudaError, n, error_name=e.name, catalogue_name=e.name, runtime_name=catalogue.runtime_twin(e), code=e.code,
               printed_code=e.code, message=msg[:300], form="physx",
               source_file=os.path.basename(src) if src else None, source_line=src_line)
    if codes:
        lines = artefact.lines
        for n, line in iter_lines_with(CONSEQUENCES, artefact):
            used.add(n)
            if n < len(lines) and OMNI_FILE.match(lines[n]):
                used.add(n + 1)
    result.lines_used = len(used)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)PhysX error: [^\n]*\bfail[^\n]*[ \t]\d+\.?[ \t]*$",
              r"\.(?:cpp|h|cu) \(\d+\) : (?:internal|unknown) error : [^\n]*fail")
