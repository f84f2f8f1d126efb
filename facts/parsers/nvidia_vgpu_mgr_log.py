"""NVIDIA's vGPU manager daemon's errors, as journald or syslog keep them on a vGPU host.

``nvidia-vgpu-mgr`` (the vGPU-KVM host driver's daemon, run by its systemd unit
``nvidia-vgpu-mgr.service``) starts each vGPU's plugin when a VM opens its mediated device; it logs
through syslog as ``nvidia-vgpu-mgr[<pid>]``, an error as ``error: <channel>: <message>``, an NVIDIA
resource-manager status (NV_STATUS) at the end where one is the cause. Sample content, a real journald excerpt of
the daemon failing at start (mrzenc/vgpu4nixos#4, NixOS, a Tesla P4, vGPU 16.x)::

    Mar 20 18:49:51 nixos systemd[1]: Started NVIDIA vGPU Manager Daemon.
    Mar 20 18:49:51 nixos nvidia-vgpu-mgr[20000]: error: vmiop_env_log: Failed to initialize RM client: 0x26
    Mar 20 18:49:51 nixos systemd[1]: nvidia-vgpu-mgr.service: Main process exited, code=exited, status=1/FAILURE

Fact: ``vgpu_manager_error`` per error line (its channel, words, status and the status's NV_ERR_*
name from knowledge/nv_status_codes.yaml). The unit's own failure lines beside it (systemd's, the
``Active: failed`` of ``systemctl status``) are that failure's echo and make no fact. A text without
such an error line is not this reader's.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.gpu import VgpuManagerError
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_vgpu_mgr_log"

# Mar 20 18:49:51 nixos nvidia-vgpu-mgr[20000]: error: vmiop_env_log: Failed to initialize RM client: 0x26   (vgpu4nixos#4)
# (the journal's host and tag are taken off a line before readers see it, facts/lines.py: the channel, vmiop_env_log,
# the vGPU plugin environment's log, is the manager's own word; the tag is read where a line keeps it)
_ERROR = re.compile(
    r"(?:^|nvidia-vgpu-mgr\[\d{1,10}\]: )error: (?P<source>vmiop_env_log): (?P<text>\S[^\n]{0,300})", re.M)
# the NV_STATUS at the message's end: "...: 0x26"
_STATUS = re.compile(r": (0x[0-9a-fA-F]{1,8})\s*$")


@lru_cache(maxsize=1)
def _status_names() -> dict[int, str]:
    return {k: v.name for k, v in knowledge.load("nv_status_codes.yaml").status_codes.items()}


def detect(head: str) -> bool:
    return "error: vmiop_env_log: " in head and any(_ERROR.search(line) for line in head.splitlines() if "vmiop_env_log" in line)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "vmiop_env_log" not in line or (m := _ERROR.search(line)) is None:
            continue
        text = m["text"].strip()
        st = _STATUS.search(text)
        status = int(st[1], 16) if st else None
        b.add(VgpuManagerError, n, source=m["source"], error=text[:st.start()] if st else text, status=status,
              status_name=_status_names().get(status) if status is not None else None, message=line[m.start():].strip())
        result.lines_used += 1
    return result


#: the line signatures this reader owns
SIGNATURES = (_ERROR,)
