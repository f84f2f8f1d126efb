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

Its info and warning lines (``[drm] [nvidia-drm] [GPU ID 0x...] Loading driver``) give nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import NvidiaDrmError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import FactBuilder

#: the literal part of each line: kernel_log's keyword scan looks for these
KEYWORDS = r"\*ERROR\* \[nvidia-drm\] "

# [drm:__nv_drm_nvkms_gem_obj_init [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000200] Failed to get memory pages for NvKmsKapiMemory 0x<addr>
# nvidia-drm 0000:01:00.0: [drm] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Failed to ...        (drm_err, format filled)
_LINE = re.compile(
    r"(?:\[drm:(?P<func>[\w.]+)(?: \[nvidia_drm\])?\] |\[drm\] )\*ERROR\* \[nvidia-drm\] "
    r"(?:\[GPU ID 0x(?P<gpu>[0-9a-fA-F]{8})\] )?(?P<msg>(?:[^\n]*\S)?)\s*$"
)


def parse_drm_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one nvidia-drm error line; False when the message is not one."""
    if "[nvidia-drm]" not in msg or (m := _LINE.search(msg)) is None:
        return False
    if not m["msg"]:
        b.error(ln, "nvidia-drm error line without a message")
        return True
    b.add(NvidiaDrmError, ln, function=m["func"], gpu_id=("0x" + m["gpu"].lower()) if m["gpu"] else None,
          message=m["msg"], **common)
    used.add(ln)
    return True
