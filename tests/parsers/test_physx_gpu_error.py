"""physx_gpu_error: PhysX's GPU simulation errors with the CUDA driver's result (Isaac Gym, Isaac Sim / Lab)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import physx_gpu_error as p
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/physx_gpu_error"


def parse_text(text: str):
    return p.parse(Artefact(path="t.log", text=text, node="node1"))


def _errors(r):
    return [(f.code, f.catalogue_name, f.runtime_name, f.form, f.source_file, f.source_line, f.message)
            for f in r.facts if f.kind == "cuda_error"]


def test_omniverse_narrowphase_700_one_fact_its_cascade_read():
    # isaac-sim/IsaacLab#1460: three coded lines of one fault (700), the context manager recreated after each
    text = (FIX / "isaaclab1460_omni_narrowphase_700.log").read_text()
    assert p.detect(text)
    r = parse_text(text)
    assert _errors(r) == [(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "physx",
                           "PxgNarrowphaseCore.cpp", 1259, "Synchronizing GPU Narrowphase failed!")]
    assert r.facts[0].evidence.line == 3 and r.errors == []
    assert r.lines_used == 9  # every line but the progress bar and the blank


def test_isaac_gym_code_on_the_next_line():
    # NVlabs/ProtoMotions#222: "memcpy failed fail!" and the CUresult alone on the next line
    text = (FIX / "protomotions222_isaacgym_memcpy_700.log").read_text()
    assert p.detect(text)
    r = parse_text(text)
    assert _errors(r) == [(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "physx",
                           "PxgNarrowphaseCore.cpp", 2408, "memcpy failed fail!")]
    assert r.lines_used == 5  # the three internal errors, the code's line, the pinned-memory warning (not the segfault)


def test_kernel_launch_with_code_same_line():
    # UW-Lab/UWLab#32: an articulation kernel that could not launch, the CUresult on the same line
    line = ("2026-07-20T06:44:27Z [320,902ms] [Error] [omni.physx.plugin] PhysX error: GPU artiPropagateImpulses2 fail to "
            "launch kernel!! 700\n, FILE /builds/omniverse/physics/physx/source/gpuarticulation/src/PxgArticulationCore.cpp,"
            " LINE 881\n")
    r = parse_text(line)
    assert _errors(r) == [(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "physx",
                           "PxgArticulationCore.cpp", 881, "GPU artiPropagateImpulses2 fail to launch kernel!!")]
    assert r.lines_used == 2


@pytest.mark.parametrize("text", [
    # PhysX's errors without a CUresult (NVIDIAGameWorks/PhysX-3.4#74's line): not claimed, they stay unexplained
    "C:\\buildAgent\\work\\ec03eeb8e2a0ca1f\\sw\\physx\\PhysXSDK\\3.4\\trunk\\Source\\GpuCommon\\include\\PxgCudaUtils.h (53)"
    " : unknown error : SynchronizeStreams failed\n",
    # CONSTRUCTED near misses: a number no CUresult has, a success, a number in a message without a failure word
    "[Error] [omni.physx.plugin] PhysX error: Synchronizing GPU Narrowphase failed! 9999\n",
    "[Error] [omni.physx.plugin] PhysX error: Synchronizing GPU Narrowphase failed! 0\n",
    "[Warning] [omni.physx.plugin] PhysX error: contact buffer size 700\n",
])
def test_not_claimed_without_a_catalogued_code(text):
    assert not p.detect(text)
    assert _errors(parse_text(text)) == []
