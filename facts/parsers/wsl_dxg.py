"""The kernel log lines of WSL2's GPU bridge, dxgkrnl (``misc dxg: dxgk: ...``): the VMBus channel to the Windows
host's GPU driver failing.

Under WSL2 the Linux side has no NVIDIA kernel module: /dev/dxg (drivers/hv/dxgkrnl of the WSL2 kernel) forwards the
user-mode driver's calls to the Windows driver over VMBus. Its errors go through ``DXG_ERR``, ``dev_err(DXGDEV, "%s: "
fmt, __func__, ...)`` in the 5.15 and 6.x kernels (``dev_err(DXGDEV, fmt, ...)`` before: no function name), under
the device's ``misc dxg: `` and the driver's ``dxgk: `` prefixes. Sample lines (real, microsoft/WSL#41062: nvidia-smi
in WSL2 said "Failed to initialize NVML: GPU access blocked by the operating system" while these repeated)::

    [386702.754405] misc dxg: dxgk: dxgvmb_send_create_process: create_process failed -75
    [386706.316347] misc dxg: dxgk: dxgvmb_send_create_process: create_process failed -75

A failure of a ``dxgvmb_*`` function (dxgvmbus.c: a message to the host failed, ``create_process failed %d``) means
the host refused or lost the channel: no process in the VM can open the GPU. An ioctl that returned an error to its
caller (``dxgkio_query_adapter_info: Ioctl failed: -22``, ``dxgkio_is_feature_enabled: Ioctl failed: -22``: the
user-mode driver probing what the adapter supports) is read and gives nothing: it is the caller's answer, not a
fault of the bridge. Facts: ``wsl_dxg_channel_failure`` per line of a failed ``dxgvmb_*`` function: the
``function``, the ``message``, ``errno`` (the negative number that ends it, when it does). The line is found under
any prefix the kernel log takes (dmesg stamps, journald). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import WslDxgChannelFailure  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "wsl_dxg"

# [386702.754405] misc dxg: dxgk: dxgvmb_send_create_process: create_process failed -75   (microsoft/WSL#41062)
# [    4.005108] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22             (an ioctl's refusal: read, no fact)
#   (the function named by DXG_ERR's "%s: " in 5.15+; older kernels print the message alone; every part bounded)
#   (the literal first: one pass over the text skips to each with a substring search)
_LINE = re.compile(r"misc dxg: dxgk: (?:(?P<func>[a-z]\w{0,80}): )?(?P<msg>[^\n]{1,400})")
# create_process failed -75   (the errno that ends a dxgvmbus.c message: "%s failed %d")
_ERRNO = re.compile(r"(?P<errno>-\d{1,4})\s*$")


def detect(text: str) -> bool:
    return "misc dxg: dxgk: " in text and _LINE.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        func, msg = m["func"], m["msg"].strip()
        if not (func or "").startswith("dxgvmb_"):
            continue  # an ioctl's refusal to its caller, or a message of no channel function
        e = _ERRNO.search(msg)
        fb.add(WslDxgChannelFailure, n, function=func, message=msg, errno=int(e["errno"]) if e else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"misc dxg: dxgk: ",)
