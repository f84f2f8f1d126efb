"""The Conditions table of ``kubectl describe node``: the kubelet's own conditions and those node health
agents set (node-problem-detector's ``KernelDeadlock``/``ReadonlyFilesystem``/``KubeletUnhealthy``, a GPU
device plugin's health check such as GKE's ``XidCriticalError``, a cloud's node monitoring agent's
``AcceleratedHardwareReady``, NVSentinel's ``Gpu*`` checks).

Sample content (github.com/GoogleCloudPlatform/container-engine-accelerators/pull/516, cut where the issue
search corpus cut it)::

    Conditions:
      Type                 Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
      ----                 ------  -----------------                 ------------------                ------                       -------
      MemoryPressure       False   Wed, 20 Aug 2025 20:00:40 +0000   Wed, 20 Aug 2025 20:00:40 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
      Ready                True    Wed, 20 Aug 2025 20:00:40 +0000   Wed, 20 Aug 2025 20:00:40 +0000   KubeletReady                 kubelet is posting ready status
      XidCriticalError     True    Wed, 20 Aug 2025 20:0

Facts: ``k8s_node_condition`` per row under the table's header (kubectl's describe printer,
pkg/describe/describe.go describeNode: ``Type\\tStatus\\tLastHeartbeatTime\\tLastTransitionTime\\tReason\\tMessage``):
the type, status, reason and message (empty where the row is cut before them), and whether it reports a
problem: Kubernetes' convention, a ``...Ready`` condition is healthy when True (the kubelet's ``Ready``, EKS's
``AcceleratedHardwareReady``), every other type when False (``MemoryPressure``, ``NetworkUnavailable``,
node-problem-detector's problem conditions). Rows outside the table: nothing. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import K8sNodeCondition
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "kubectl_node_conditions"

#   Type                 Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
_HEADER = re.compile(r"^\s*Type\s+Status\s+LastHeartbeatTime\s+LastTransitionTime\s+Reason\s+Message\s*$", re.M)
#   ----                 ------  -----------------                 ------------------                ------                       -------
_RULE = re.compile(r"^\s*-{4}\s+-{6}\s+-+")
#   XidCriticalError     True    Wed, 20 Aug 2025 20:00:40 +0000   Wed, 20 Aug 2025 20:00:40 +0000   {"31":true}   6e43a052-...
_ROW = re.compile(r"^\s+(?P<type>[A-Za-z][\w.-]*)\s+(?P<status>True|False|Unknown)(?:\s+(?P<rest>.*))?$")
# Wed, 20 Aug 2025 20:00:40 +0000        (a heartbeat or transition time; RFC1123Z as kubectl prints it)
_TIME = re.compile(r"^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}\s*")
_KUBELET = {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}
# the condition is about GPUs: XidCriticalError, GpuXidError, AcceleratedHardwareReady, NvidiaGpuUnhealthy
_GPU_WORDS = re.compile(r"xid|gpu|nvidia|nvlink|accelerat|dcgm", re.I)


def detect(head: str) -> bool:
    return "LastHeartbeatTime" in head and _HEADER.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    in_table = False
    for n, line in enumerate(artefact.lines, 1):
        if _HEADER.match(line):
            in_table = True
            result.lines_used += 1
            continue
        if not in_table:
            continue
        if _RULE.match(line):
            result.lines_used += 1
            continue
        m = _ROW.match(line)
        if m is None:
            in_table = False  # the table ends at the first line that is not a row (Addresses:, a blank line)
            continue
        rest, times = m["rest"] or "", 0
        while times < 2 and (t := _TIME.match(rest)) is not None:
            rest, times = rest[t.end():], times + 1
        # the reason is one word after the two times, the message the rest; a row cut before them has neither
        reason, message = (rest.split(None, 1) + ["", ""])[:2] if times == 2 else ("", "")
        ctype, status = m["type"], m["status"]
        problem = status != "True" if ctype.endswith("Ready") else status == "True"
        agent = "kubelet" if ctype in _KUBELET else "nvsentinel" if reason.endswith("IsNotHealthy") else "agent"
        fb.add(K8sNodeCondition, n, condition=ctype, status=status, problem=problem, agent=agent,
               component="gpu" if _GPU_WORDS.search(ctype) else "host", reason=reason.strip(),
               message=message.strip()[:300])
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEADER,)
