"""The driver check an NVIDIA NGC container's entrypoint prints when the container starts (Triton, PyTorch,
TensorFlow, CUDA, DeepStream images: ``nvidia_entrypoint.sh`` and its ``/opt/nvidia/entrypoint.d`` scripts).

Made by the container's own start: ``docker run nvcr.io/nvidia/tritonserver:<tag> ...`` (``docker logs``, a
pod's log) prints the image's banner, then looks for the driver the container runtime should have handed in
(a ``libcuda.so.1`` other than the image's forward-compatibility copy, and ``/dev/nvidiactl``) and, when it is
there, compares its version with the one the image's CUDA needs. Its lines (triton-inference-server/server
``nvidia_entrypoint.sh``; the later images' entrypoint.d words the advice differently)::

    WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
       Use Docker with NVIDIA Container Toolkit to start this container; see
       https://github.com/NVIDIA/nvidia-docker.
    ERROR: This container was built for NVIDIA Driver Release ${CUDA_DRIVER_VERSION%.*} or later, but
           version ${DRIVER_VERSION} was detected and compatibility mode is UNAVAILABLE.
           [[${_CUDA_COMPAT_STATUS}]]
    NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.

Sample (real, triton-inference-server/server#5858: Triton 22.04 started without GPU access)::

    WARNING: The NVIDIA Driver was not detected. GPU functionality will not be available.
    Use the NVIDIA Container Toolkit to start this container with GPU support; see
    https://docs.nvidia.com/datacenter/cloud-native/ .

Facts: ``container_runtime_error`` (engine ``ngc_entrypoint``, ``gpu`` true) with ``reason``
``driver_not_detected`` (no driver inside the container: it was started without the NVIDIA runtime or
``--gpus``, or on a host without a driver; Triton's script then sets TRITON_SERVER_CPU_ONLY=1) or
``driver_older_than_image`` (``driver_version`` the host's, ``message`` the release the image needs and the
compatibility status). The advice lines under the warning, the compatibility notice (an older driver that the
image's forward-compatibility libraries cover: no fault) and the banner's own lines above it are read as
context. Text without one of the three driver lines is not this kind: a banner alone says nothing of the driver.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    ContainerRuntimeError,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ngc_entrypoint"

# WARNING: The NVIDIA Driver was not detected. GPU functionality will not be available.          (triton-inference-server/server#5858)
# WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.         (nvidia_entrypoint.sh, two blanks)
_NOT_DETECTED = re.compile(r"\bThe NVIDIA Driver was not detected\.[ \t]{1,4}GPU functionality will not be available\.")
# Use the NVIDIA Container Toolkit to start this container with GPU support; see                   (triton-inference-server/server#5858)
#    Use Docker with NVIDIA Container Toolkit to start this container; see                          (nvidia_entrypoint.sh)
# https://docs.nvidia.com/datacenter/cloud-native/ .                                                 (triton-inference-server/server#5858)
#    https://github.com/NVIDIA/nvidia-docker.                                                        (nvidia_entrypoint.sh)
_ADVICE = re.compile(r"^[ \t]*(?:Use (?:Docker with |the )?NVIDIA Container Toolkit to start this container\b"
                     r"|https://(?:docs\.nvidia\.com/datacenter/cloud-native/|github\.com/NVIDIA/nvidia-docker)[ \t]*\.?[ \t]*$)")
# echo "ERROR: This container was built for NVIDIA Driver Release ${CUDA_DRIVER_VERSION%.*} or later, but"   (nvidia_entrypoint.sh)
# echo "       version ${DRIVER_VERSION} was detected and compatibility mode is UNAVAILABLE."
# echo "       [[${_CUDA_COMPAT_STATUS}]]"          (after an empty echo; the status the image's compat check left)
_BUILT_FOR = re.compile(r"\bThis container was built for NVIDIA Driver Release (?P<needed>\d{2,4}(?:\.\d{1,4})?) or later, but\b")
_DETECTED = re.compile(r"^[ \t]*version (?P<version>\d{2,4}(?:\.\d{1,4}){1,2}) was detected and compatibility mode is UNAVAILABLE\.")
_STATUS = re.compile(r"^[ \t]*\[\[(?P<status>[^\]\n]{1,200})\]\][ \t]*$")
# NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.                                   (nvidia_entrypoint.sh)
_COMPAT = re.compile(r"\bLegacy NVIDIA Driver detected\.[ \t]{1,4}Compatibility mode ENABLED\.")
# the banner's own lines above the check (nvidia_entrypoint.sh's heredoc; triton-inference-server/server#5858):
# == Triton Inference Server ==  /  NVIDIA Release 22.04 (build 36821869)  /  Triton Server Version 2.21.0
# Copyright (c) 2018-2022, NVIDIA CORPORATION & AFFILIATES. All rights reserved.  /  the licence's three lines
_BANNER = re.compile(r"^[ \t]*(?:={3,}[ \t]*$|== [^=\n]{1,80} ==[ \t]*$|NVIDIA Release \S{1,20} \(build \d{1,12}\)"
                     r"|Triton Server Version \S{1,20}[ \t]*$|Copyright \(c\) \d{4}-\d{4}, NVIDIA CORPORATION"
                     r"|Various files include modifications \(c\) NVIDIA CORPORATION"
                     r"|This container image and its contents are governed by the NVIDIA Deep Learning Container License"
                     r"|By pulling and using the container, you accept the terms and conditions of this license"
                     r"|https://developer\.nvidia\.com/ngc/nvidia-deep-learning-container-license[ \t]*$"
                     r"|A copy of this license is made available in this container at /NGC-DL-CONTAINER-LICENSE)")
_DETECT = re.compile(r"The NVIDIA Driver was not detected\.[ \t]{1,4}GPU functionality will not be available"
                     r"|This container was built for NVIDIA Driver Release \d"
                     r"|Legacy NVIDIA Driver detected\.[ \t]{1,4}Compatibility mode ENABLED")
#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)


def detect(head: str) -> bool:
    return ("NVIDIA Driver was not detected" in head or "container was built for NVIDIA Driver" in head
            or "Legacy NVIDIA Driver detected" in head) and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    used: set[int] = set()
    for n, line in enumerate(lines, 1):
        if "NVIDIA Driver was not detected" in line and (m := _NOT_DETECTED.search(line)):
            used.add(n)
            fb.add(ContainerRuntimeError, n, reason="driver_not_detected", engine="ngc_entrypoint", runtime="",
                   message=line[m.start():].strip()[:300], gpu=True)
            for k in range(n + 1, min(n + 3, len(lines)) + 1):  # its advice, one or two lines
                if _ADVICE.search(lines[k - 1]):
                    used.add(k)
        elif "container was built for NVIDIA Driver" in line and (m := _BUILT_FOR.search(line)):
            used.add(n)
            version = status = None
            for k in range(n + 1, min(n + 4, len(lines)) + 1):  # the version line, then the status after a blank
                nxt = lines[k - 1]
                if version is None and (d := _DETECTED.search(nxt)):
                    version = d["version"]
                    used.add(k)
                elif version is not None and (s := _STATUS.search(nxt)):
                    status = s["status"].strip()
                    used.add(k)
                    break
            message = f"built for driver release {m['needed']} or later" + (f"; {status}" if status else "")
            fb.add(ContainerRuntimeError, n, reason="driver_older_than_image", engine="ngc_entrypoint", runtime="",
                   message=message[:300], gpu=True, driver_version=version)
        elif "Legacy NVIDIA Driver" in line and _COMPAT.search(line):
            used.add(n)  # an older driver the image's forward-compatibility libraries cover: no fault
    if used:
        used.update(n for n, line in enumerate(lines, 1) if _BANNER.search(line))
    result.lines_used = len(used)
    return result
