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
