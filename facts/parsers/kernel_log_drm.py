"""Kernel log lines of the NVIDIA driver's DRM module (nvidia-drm) reporting an error, for
:mod:`stethoscope.facts.parsers.kernel_log`. They give ``nvidia_drm_error`` facts.

nvidia-drm logs its errors through ``NV_DRM_LOG_ERR(fmt)`` = ``DRM_ERROR("[nvidia-drm] " fmt)`` and,
for a device, ``NV_DRM_DEV_LOG_ERR(dev, fmt)`` which puts ``"[GPU ID 0x%08x] "`` before the message
(open-gpu-kernel-modules kernel-open/nvidia-drm/nvidia-drm-priv.h, the same in every release since
515). The kernel's DRM_ERROR prints ``[drm:<function> [nvidia_drm]] *ERROR* `` before it; the
device form of newer kernels (``drm_err``) prints ``nvidia-drm 0000:01:00.0: [drm] *ERROR* ``. A
real line (NVIDIA/open-gpu-kernel-modules#1170, an RTX 5090 on the 595.71.05 open modules, as the
reporter pasted it with the address elided)::

    [drm:__nv_drm_nvkms_gem_obj_init [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000200] Failed to get memory pages for NvKmsKapiMemory 0x<addr>

Its info and warning lines (``[drm] [nvidia-drm] [GPU ID 0x...] Loading driver``) give nothing, but for one:
the GEM allocation's fallback to system memory of newer releases, printed at info level when video memory is full
(NVIDIA/open-gpu-kernel-modules#1078, 2026)::

    [drm] [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NVKMS video memory for GEM object, trying to fall back to sysmem

That line and the error ``Failed to allocate NVKMS memory for GEM object`` (nvidia-drm-gem-nvkms-memory.c
nv_drm_gem_alloc_nvkms_memory_ioctl, when nvKms->allocateMemory returns NULL) set ``alloc_failed``: the buffer a
display client asked for could not be allocated, a full video memory, not a GPU fault.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import NvidiaDrmError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import FactBuilder

#: the literal part of each line: kernel_log's keyword scan looks for these
KEYWORDS = r"\*ERROR\* \[nvidia-drm\] |for GEM object, trying to fall back to sysmem"

# [drm:__nv_drm_nvkms_gem_obj_init [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000200] Failed to get memory pages for NvKmsKapiMemory 0x<addr>
# nvidia-drm 0000:01:00.0: [drm] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to ...        (drm_err, format filled)
_LINE = re.compile(
    r"(?:\[drm:(?P<func>[\w.]+)(?: \[nvidia_drm\])?\] |\[drm\] )\*ERROR\* \[nvidia-drm\] "
    r"(?:\[GPU ID 0x(?P<gpu>[0-9a-fA-F]{8})\] )?(?P<msg>(?:[^\n]*\S)?)\s*$"
)


# [drm:nv_drm_gem_alloc_nvkms_memory_ioctl [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NVKMS memory for GEM object
#   (ValveSoftware/Proton#8622, 2026)
_ALLOC = re.compile(r"^Failed to allocate NVKMS (?:video )?memory for GEM object")
# [drm] [nvidia-drm] [GPU ID 0x00000100] Failed to allocate NVKMS video memory for GEM object, trying to fall back to sysmem
_FALLBACK = re.compile(r"\[drm\] \[nvidia-drm\] (?:\[GPU ID 0x(?P<gpu>[0-9a-fA-F]{8})\] )?"
                       r"(?P<msg>Failed to allocate NVKMS video memory for GEM object, trying to fall back to sysmem)")


def parse_drm_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one nvidia-drm error line; False when the message is not one."""
    if "[nvidia-drm]" not in msg:
        return False
    if (m := _LINE.search(msg)) is None:
        if "fall back to sysmem" in msg and (f := _FALLBACK.search(msg)) is not None:
            b.add(NvidiaDrmError, ln, gpu_id=("0x" + f["gpu"].lower()) if f["gpu"] else None, message=f["msg"],
                  alloc_failed=True, sysmem_fallback=True, **common)
            used.add(ln)
            return True
        return False
    if not m["msg"]:
        b.error(ln, "nvidia-drm error line without a message")
        return True
    b.add(NvidiaDrmError, ln, function=m["func"], gpu_id=("0x" + m["gpu"].lower()) if m["gpu"] else None,
          message=m["msg"], alloc_failed=_ALLOC.search(m["msg"]) is not None, **common)
    used.add(ln)
    return True
