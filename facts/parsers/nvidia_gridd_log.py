"""nvidia-gridd's syslog/journald lines: the vGPU guest's (or a GRID / vCS driver's) licensing daemon.

The daemon asks the license server (a legacy license server, or NLS through a client token) for the
licensed product configured in /etc/nvidia/gridd.conf (``FeatureType``) and logs the outcome. Without a
license the driver runs restricted after its grace period (CUDA refused or throttled, ``nvidia-smi -q``
says ``License Status : Unlicensed``). Sample lines (NVIDIA's licensing guide as public notes quote it,
stored in the code index as file ids 45966229179, 5708140938 and 2722119066; the failure's "from <server>"
form from a public gpu-operator report; MicrosoftDocs/azure-docs#32746)::

    nvidia-gridd: Acquiring license. (Info: license.nvidia.space; NVIDIA RTX Virtual Workstation)
    nvidia-gridd: License acquired successfully. (Info: license.nvidia.space, NVIDIA RTX Virtual Workstation; Expiry: 2023-1-29 22:3:0 GMT)
    Oct 5 15:05:17 localhost nvidia-gridd: License acquired successfully. Server URL : http://51.179.209.134:7070/request
    nvidia-gridd: Failed to acquire NVIDIA GRID Virtual Workstation license.
    Jun 05 16:36:01 CMS-AU-CENTOS76 nvidia-gridd[5805]: Invalid feature type requested

Fact: ``vgpu_license_event`` per outcome line (``event`` ``acquired``, ``failed``, ``invalid_feature``;
``last`` on the file's final one). Its progress and configuration notices (``Started (N)``,
``Configuration parameter ( ServerAddress ) not set`` - normal with NLS, which reads a client token -,
``Calling load_byte_array(tra)``, ``Unable to open directory /etc/nvidia/license``) count as read, not as faults.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import VgpuLicenseEvent  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_gridd_log"

_TAG = r"nvidia-gridd(?:\[\d{1,9}\])?: "
_TAG_RE = re.compile(_TAG)
# nvidia-gridd: License acquired successfully. (Info: license.nvidia.space, NVIDIA RTX Virtual Workstation; Expiry: 2023-1-29 22:3:0 GMT)
# nvidia-gridd: License acquired successfully. Server URL : http://51.179.209.134:7070/request
# nvidia-gridd: Failed to acquire NVIDIA GRID Virtual Workstation license.
# nvidia-gridd: Failed to acquire license from 10.0.0.5
# nvidia-gridd[5805]: Invalid feature type requested
_OUTCOME = re.compile(
    _TAG + r"(?:(?P<ok>License acquired successfully)(?:\. \(Info: (?P<info>[^,;)\s]{1,200})|\. Server URL : (?P<url>\S{1,200}))?"
    r"|(?P<fail>Failed to acquire (?:license(?: from (?P<from>\S{1,200}))?|[^\n]{1,120}? license)\b)"
    r"|(?P<feature>Invalid feature type requested))"
)
# nvidia-gridd: Started (16224) / Acquiring license. (Info: ...) / Configuration parameter ( ServerAddress  FeatureType) not set /
# Calling load_byte_array(tra) / Unable to open directory /etc/nvidia/license (No such file or directory) / NLS initialized
_NOTICE = re.compile(_TAG + r"(?:Started \(|Acquiring license|Configuration parameter \(|Calling load_byte_array|Unable to open directory "
                     r"/etc/nvidia/license|NLS initialized|Service provider detection|vGPU Software package|Ignore service provider|Your system is licensed)")


def detect(head: str) -> bool:
    return "nvidia-gridd" in head and (_OUTCOME.search(head) is not None or _NOTICE.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    found: list[tuple[int, dict]] = []
    for n, line in enumerate(artefact.lines, 1):
        if "nvidia-gridd" not in line:
            continue
        if (m := _OUTCOME.search(line)) is not None:
            event = "acquired" if m["ok"] else "failed" if m["fail"] else "invalid_feature"
            found.append((n, dict(event=event, server=m["info"] or m["url"] or m["from"], message=_TAG_RE.sub("", line[m.start():], count=1).strip())))
        elif _NOTICE.search(line) is None:
            continue
        result.lines_used += 1
    for i, (n, rec) in enumerate(found):
        b.add(VgpuLicenseEvent, n, last=i == len(found) - 1, **rec)
    return result


#: the line signatures this reader owns
SIGNATURES = (_OUTCOME,)
