"""Kernel log lines of the NVIDIA display module (nvidia-modeset) whose RM call failed because the
GPU is lost or needs a reset, for :mod:`stethoscope.facts.parsers.kernel_log`. They give
``nvrm_error`` facts of message_kind ``modeset_rm_call_failed``.

nvidia-modeset prints through ``nvkms_log`` (kernel-open/nvidia-modeset/nvidia-modeset-linux.c,
515 .. 595): ``printk("%s%s%s%s%s\\n", levelString, "nvidia-modeset: ", "ERROR: ", gpuPrefix, msg)``,
the GPU prefix ``"GPU:%d: "`` being NVKMS's own index of the GPU (src/nvidia-modeset/src/nvkms-utils.c
nvVEvoLog), not a bus id. Two of its error forms end in the NV_STATUS the resource manager returned
(src/nvidia-modeset/src/nvkms-evo3.c GetChannelState, nvkms-evo.c, nvkms-rm.c)::

    "Failed to query display engine channel state: 0x%08x:%d:%d:0x%08x"   (class:instance:subdevice:status)
    "Failed to initialize display engine: 0x%x (%s)"                        (status, nvstatusToString)

A real block (NVIDIA/open-gpu-kernel-modules#1252, a GPU that had stopped answering, while
nvidia_drm unloaded; 0x62 is NV_ERR_RESET_REQUIRED, knowledge/nv_status_codes.yaml)::

    nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000ca7e:0:0:0x00000062

Only a status that says what became of the GPU (NV_ERR_GPU_IS_LOST, NV_ERR_RESET_REQUIRED) is read:
the display's other errors (a DPCD AUX read, a lock pin) say nothing of the GPU and are left to the
text reader.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import NvrmError
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.parsers.kernel_log_nvrm import status_name

#: the literal part of each line: kernel_log's keyword scan looks for it
KEYWORDS = r"nvidia-modeset: ERROR: "

# nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000ca7e:0:0:0x00000062
_LINE = re.compile(r"nvidia-modeset: ERROR: (?:GPU:(?P<gpu>\d{1,3}): )?(?P<msg>\S[^\n]{0,400}?)\s*$")
# the status at the end of the message, in either form above
_STATUS = re.compile(r"(?::\d{1,3}:\d{1,3}:(?P<a>0x[0-9a-fA-F]{8})|: (?P<b>0x[0-9a-fA-F]{1,8}) \([^()\n]{1,80}\))$")
#: the statuses that say what became of the GPU (kernel_log_nvrm's _RPC_GPU_STATUSES less the transient ones)
GPU_STATUSES = frozenset({"NV_ERR_GPU_IS_LOST", "NV_ERR_RESET_REQUIRED"})


def parse_modeset_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one nvidia-modeset error line ending in a GPU-state status; False otherwise."""
    if (m := _LINE.search(msg)) is None or (s := _STATUS.search(m["msg"])) is None:
        return False
    code = s["a"] or s["b"]
    name = status_name(int(code, 16))
    if name not in GPU_STATUSES:
        return False
    b.add(NvrmError, ln, message_kind="modeset_rm_call_failed", status=name, code=f"0x{int(code, 16):08x}",
          detail=f"nvidia-modeset GPU:{m['gpu']}" if m["gpu"] else None, message=m["msg"], **common)
    used.add(ln)
    return True
