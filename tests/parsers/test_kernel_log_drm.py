"""nvidia-drm's error lines in a kernel log (kernel_log via kernel_log_drm): the DRM_ERROR and
drm_err framings of NV_DRM_LOG_ERR / NV_DRM_DEV_LOG_ERR (open-gpu-kernel-modules
nvidia-drm-priv.h), the real line of NVIDIA/open-gpu-kernel-modules#1170 (fixture), kernel
prefixes, and nvidia-drm's info lines that must stay unread."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log" / "ogkm1170_nvidia_drm_error.log"
PREFIXES = ("", "[70517.822257] ", "May 29 10:00:01 host kernel: ", "2026-05-29T10:00:01.123456+00:00 host kernel: ")


def _drm(text: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts if f.kind == "nvidia_drm_error"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "func", "gpu", "msg"), [
    ("[drm:__nv_drm_nvkms_gem_obj_init [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000200] Failed to get memory pages for NvKmsKapiMemory 0x<addr>",
     "__nv_drm_nvkms_gem_obj_init", "0x00000200", "Failed to get memory pages for NvKmsKapiMemory 0x<addr>"),
    ("[drm:nv_drm_load [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NvKmsKapiDevice",
     "nv_drm_load", "0x00000100", "Failed to allocate NvKmsKapiDevice"),
    ("nvidia-drm 0000:01:00.0: [drm] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NvKmsKapiDevice",
     None, "0x00000100", "Failed to allocate NvKmsKapiDevice"),
])
def test_error_forms(prefix, line, func, gpu, msg):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    (f,) = _drm(text)
    assert (f.function, f.gpu_id, f.message, f.evidence.line) == (func, gpu, msg, 1)


def test_real_ogkm1170():
    text = FIXTURE.read_text()
    assert kernel_log.detect(text)
    (f,) = _drm(text)
    assert f.gpu_id == "0x00000200" and "NvKmsKapiMemory" in f.message


@pytest.mark.parametrize("line", [
    "[   12.035486] [drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
    "[   12.036183] [drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1",
    "[   12.036183] [drm:drm_atomic_helper_wait_for_flip_done [drm_kms_helper]] *ERROR* [CRTC:83:crtc-0] flip_done timed out",
])
def test_not_nvidia_drm_errors(line):
    assert _drm(line + "\n") == []


# round rY2: a GEM buffer's allocation failing is video memory full (nvidia_drm_gem_alloc_failed), not a generic error
ALLOC_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "alloc", "fallback"), [
    # ValveSoftware/Proton#8622
    ("[drm:nv_drm_gem_alloc_nvkms_memory_ioctl [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NVKMS memory for GEM object",
     True, False),
    # NVIDIA/open-gpu-kernel-modules#1078: the info line of the sysmem fallback
    ("[drm] [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NVKMS video memory for GEM object, trying to fall back to sysmem",
     True, True),
    ("[drm:nv_drm_load [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NvKmsKapiDevice", False, False),
])
def test_gem_allocation_forms(prefix, line, alloc, fallback):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    (f,) = _drm(text)
    assert (f.alloc_failed, f.sysmem_fallback, f.gpu_id) == (alloc, fallback, "0x00000100")


def test_real_gem_allocation_fixtures():
    proton = _drm((ALLOC_FIXTURES / "proton8622_nvkms_gem_alloc_failed.log").read_text())
    assert len(proton) == 8 and all(f.alloc_failed for f in proton)  # the ninth line is cut inside its function's name
    full = _drm((ALLOC_FIXTURES / "ogkm1078_nvkms_gem_alloc_sysmem_fallback.log").read_text())
    assert [f.sysmem_fallback for f in full] == [False] * 4 + [True] * 3  # the last line is cut inside "NVKMS"


def test_other_info_lines_stay_unread():
    assert _drm("[drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver\n") == []
