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

node-problem-detector also writes each change of a condition as a node event (pkg/util/helpers.go
GenerateConditionChangeEvent, its releases' three wordings: ``Node condition %s is now: %s, reason: %s``, then
``..., message: %q`` and ``..., msg: %s``), which ``kubectl describe node``'s Events and ``kubectl get events``
print (github.com/kubernetes/node-problem-detector/issues/666)::

      Normal  KubeletUnhealthy         103s  health-checker  Node condition KubeletUnhealthy is now: True, reason: KubeletUnhealthy

Such an event is the same fact, of the node ``kubectl get events`` names (``node/<name>``) or the file's; the
last event of a condition on a node is its state (an earlier True that a later False cleared is no problem).

A row pasted without the table's header is read when it carries both of kubectl's times (heartbeat and
transition, RFC1123Z), which no other line does; NVSentinel names its conditions' reasons ``<check>IsHealthy`` /
``<check>IsNotHealthy`` (NVIDIA/NVSentinel#458, rows copied out of ``describe node``)::

    SysLogsXIDError                       False  Thu, 27 Nov 2025 09:30:42 +0530  Thu, 27 Nov 2025 09:30:42 +0530  SysLogsXIDErrorIsHealthy        No Health Failures

``kubectl get nodes`` (kubectl's node printer, pkg/printers/internalversion printNode: columns ``NAME STATUS ROLES
AGE VERSION``, ``-o wide`` more after them; STATUS is ``Ready`` where the Ready condition is True, else ``NotReady``,
False and Unknown alike, then ``,SchedulingDisabled`` where the node is cordoned): each row under the header is the
node's Ready condition, status "True" or "not True" (never False or Unknown: the column does not say which), of the
node the row names (github.com/charmed-kubernetes/bundle/issues/566, an LXD GPU worker whose kubelet did not start)::

    NAME            STATUS     ROLES     AGE       VERSION
    juju-54b09d-1   NotReady   <none>    7m        v1.10.0

The Ready condition's changes are events too (kubernetes pkg/kubelet/nodestatus and pkg/controller/util/node
RecordNodeStatusChange: ``recorder.Eventf(node, Normal, "NodeNotReady", "Node %s status is now: %s", name, "NodeNotReady")``,
``NodeReady`` when it comes back; the node lifecycle controller's MarkPodsNotReady: ``recorder.Event(pod, Warning,
"NodeNotReady", "Node is not ready")`` on each pod of a node it marked), in the event tables of ``kubectl describe node``
(``Type Reason Age From Message``) and ``kubectl get events`` (``LAST SEEN TYPE REASON OBJECT MESSAGE``); such a row is the
Ready condition, status "not True" (NodeNotReady: the event does not say False or Unknown) or "True" (NodeReady), of
the node its message names, else its object (``node/<name>``), else the kubelet in From (older kubectl: ``kubelet,
<host>``), else the node the rows before it named (a describe's events are one node's; a row cut before its message),
else the file's; a pod's event names no node: the file's, where no row names one. The last event of a node is its state (Azure/acs-engine#4236:
NodeNotReady 23m ago, NodeReady 22m ago: recovered, no problem)::

      Normal  NodeNotReady             23m                kubelet, k8s-agentpool-39580029-vmss000000     Node k8s-agentpool-39580029-vmss000000 status is now: NodeNotReady

The node labels NVSentinel's fault-quarantine module sets when it cordons a node (``<prefix>cordon-by``,
``cordon-reason`` the matching ruleset's name, ``cordon-timestamp``; ``uncordon-*`` when it lifts it:
fault-quarantine reconciler SetLabelKeys) record its action, not a measurement: read, no fact; the conditions
and health events say whether the fault is still there (NVIDIA/NVSentinel#458)::

    k8saas.nvidia.com/cordon-by=NVSentinel
                        k8saas.nvidia.com/cordon-reason=Syslog-fatal-error-ruleset
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
# Node condition KubeletUnhealthy is now: True, reason: KubeletUnhealthy
# Node condition FrequentKubeletRestart is now: False, reason: NoFrequentKubeletRestart, message: "kubelet is functioning properly"
_NPD_EVENT = re.compile(r"\bNode condition (?P<type>[A-Za-z][\w.-]*) is now: (?P<status>True|False|Unknown), reason: "
                        r"(?P<reason>[^,\s]*)(?:, (?:message|msg): (?P<message>.*))?")
# 2m   Normal   KubeletUnhealthy   node/gpu-node-1   Node condition ...      (kubectl get events: OBJECT names the node)
_EVENT_NODE = re.compile(r"(?:^|\s)node/(?P<node>[A-Za-z0-9][\w.-]*)\s")
# SysLogsXIDError                       False  Thu, 27 Nov 2025 09:30:42 +0530  Thu, 27 Nov 2025 09:30:42 +0530  SysLogsXIDErrorIsHealthy        No Health Failures
#   (a row without its table's header: both times make it one; NVIDIA/NVSentinel#458)
_BARE_ROW = re.compile(r"^\s*(?P<type>[A-Za-z][\w.-]{0,80})\s+(?P<status>True|False|Unknown)\s+"
                       r"(?P<rest>\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}\s+\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}\b.*)$")
#                     k8saas.nvidia.com/cordon-reason=Syslog-fatal-error-ruleset        (NVIDIA/NVSentinel#458)
_BARE_ROW_M = re.compile(_BARE_ROW.pattern, re.M)
_QUARANTINE_LABEL = re.compile(r"^\s*(?:Labels:\s+)?(?:[\w.-]{1,100}/)?(?:un)?cordon-(?:by|reason|timestamp)=\S{0,200}\s*$")
_NVSENTINEL_CORDON = re.compile(r"(?:^|[\s/])(?:un)?cordon-by=NVSentinel\b", re.M)
# NAME            STATUS     ROLES     AGE       VERSION          (kubectl get nodes; -o wide adds INTERNAL-IP ... after it)
_NODES_HEADER = re.compile(r"^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b", re.M)
# juju-54b09d-1   NotReady   <none>    7m        v1.10.0        agent   Ready,SchedulingDisabled   <none>   4m24s   v1.25.7+k3s1
_NODES_ROW = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]{0,252})\s+(?P<status>Ready|NotReady)(?:,SchedulingDisabled)?\s+\S+\s+\S+\s+v\d")
# the Ready condition's change as an event row (its REASON column; kubectl describe node's events, kubectl get events):
#   Normal  NodeNotReady             23m                kubelet, k8s-agentpool-39580029-vmss000000     Node k8s-agentpool-39580029-vmss000000 status is now: NodeNotReady   (Azure/acs-engine#4236)
#   Normal  NodeReady                22m                kubelet,                                      (the same paste, cut there)
# 5m          Normal    NodeNotReady   node/gpu-node-1   Node gpu-node-1 status is now: NodeNotReady   (CONSTRUCTED: kubectl get events' columns, RecordNodeStatusChange's message)
# 3m          Warning   NodeNotReady   pod/train-0       Node is not ready                             (CONSTRUCTED: MarkPodsNotReady's event on a pod)
_READY_EVENT = re.compile(r"(?:^|\s)(?:Normal|Warning)\s+(?P<reason>NodeNotReady|NodeReady)(?:\s|$)")
_READY_EVENT_M = re.compile(_READY_EVENT.pattern, re.M)
#   Node k8s-agentpool-39580029-vmss000000 status is now: NodeNotReady          (the message names the node)
_STATUS_NOW = re.compile(r"\bNode (?P<node>[A-Za-z0-9][\w.-]{0,252}) status is now: (?P<status>NodeNotReady|NodeReady)\b")
#   kubelet, k8s-agentpool-39580029-vmss000000        (kubectl describe's From column before 1.14: the source and its host)
_FROM_KUBELET = re.compile(r"\skubelet, (?P<node>[A-Za-z0-9][\w.-]{0,252})\s")
_KUBELET = {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}
# the condition is about GPUs: XidCriticalError, GpuXidError, AcceleratedHardwareReady, NvidiaGpuUnhealthy
_GPU_WORDS = re.compile(r"xid|gpu|nvidia|nvlink|accelerat|dcgm", re.I)


def detect(head: str) -> bool:
    return ("LastHeartbeatTime" in head and _HEADER.search(head) is not None) or (
        "Node condition " in head and _NPD_EVENT.search(head) is not None) or (
        ("True" in head or "False" in head or "Unknown" in head) and _BARE_ROW_M.search(head) is not None) or (
        "cordon-by=" in head and _NVSENTINEL_CORDON.search(head) is not None) or (
        "ROLES" in head and _NODES_HEADER.search(head) is not None) or (
        "NodeNotReady" in head and _READY_EVENT_M.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    in_table = in_nodes = False
    events: dict[tuple[str, str], tuple[int, re.Match | _Event, str]] = {}
    named: str | None = None  # the node the event rows before named (a describe's events are one node's)
    for n, line in enumerate(artefact.lines, 1):
        if "NodeReady" in line or "NodeNotReady" in line:
            if (r := _READY_EVENT.search(line)) is not None:
                said = _STATUS_NOW.search(line, r.end())
                who = said or _EVENT_NODE.search(line, r.end() - 1) or _FROM_KUBELET.search(line, r.end() - 1)
                pod = who is None and " pod/" in line
                if pod and named is not None:
                    result.lines_used += 1  # a pod's event beside its node's own: the node's says it
                    continue
                if who is not None:
                    named = who["node"]
                node = artefact.node if pod else artefact.node_for(named) if named else artefact.node
                ready = r["reason"] == "NodeReady"
                # the event's message where it names the node, else what follows the reason (age, source, message)
                message = said[0] if said is not None else " ".join(line[r.end():].split())
                events.pop((node, "Ready"), None)  # the last event of a node's Ready condition is its state
                events[(node, "Ready")] = (n, _Event("Ready", "True" if ready else "not True", r["reason"], message), node)
                result.lines_used += 1
                continue
        if "Node condition " in line and (e := _NPD_EVENT.search(line)) is not None:
            obj = _EVENT_NODE.search(line, 0, e.start())
            node = artefact.node_for(obj["node"]) if obj else artefact.node
            events.pop((node, e["type"]), None)  # the last event of a condition is its state: keep line order
            events[(node, e["type"])] = (n, e, node)
            result.lines_used += 1
            continue
        if in_nodes:
            if (m := _NODES_ROW.match(line)) is not None:
                ready = m["status"] == "Ready"
                _add(fb, n, "Ready", "True" if ready else "not True", "", "" if ready else
                     "kubectl get nodes: NotReady (the Ready condition False or Unknown)", artefact.node_for(m["name"]))
                result.lines_used += 1
                continue
            in_nodes = False  # the table ends at the first line that is not a row
        if "ROLES" in line and _NODES_HEADER.match(line):
            in_nodes = True
            result.lines_used += 1
            continue
        if _HEADER.match(line):
            in_table = True
            result.lines_used += 1
            continue
        if not in_table:
            if (m := _BARE_ROW.match(line)) is not None:
                _add(fb, n, m["type"], m["status"], *_reason_message(m["rest"]), None)
                result.lines_used += 1
            elif "cordon-" in line and _QUARANTINE_LABEL.match(line):
                result.lines_used += 1
            continue
        if _RULE.match(line):
            result.lines_used += 1
            continue
        m = _ROW.match(line)
        if m is None:
            in_table = False  # the table ends at the first line that is not a row (Addresses:, a blank line)
            continue
        _add(fb, n, m["type"], m["status"], *_reason_message(m["rest"] or ""), None)
        result.lines_used += 1
    for n, e, node in events.values():
        _add(fb, n, e["type"], e["status"], e["reason"], (e["message"] or "").strip('"'), node)
    return result


class _Event(dict):
    """A Ready event row as the match of a node-problem-detector event is read (type, status, reason, message)."""

    def __init__(self, ctype: str, status: str, reason: str, message: str):
        super().__init__(type=ctype, status=status, reason=reason, message=message)


def _reason_message(rest: str) -> tuple[str, str]:
    times = 0
    while times < 2 and (t := _TIME.match(rest)) is not None:
        rest, times = rest[t.end():], times + 1
    # the reason is one word after the two times, the message the rest; a row cut before them has neither
    reason, message = (rest.split(None, 1) + ["", ""])[:2] if times == 2 else ("", "")
    return reason, message


def _add(fb: FactBuilder, n: int, ctype: str, status: str, reason: str, message: str, node: str | None) -> None:
    problem = status != "True" if ctype.endswith("Ready") else status == "True"
    agent = "kubelet" if ctype in _KUBELET else "nvsentinel" if reason.endswith(("IsNotHealthy", "IsHealthy")) else "agent"
    fb.add(K8sNodeCondition, n, node=node, condition=ctype, status=status, problem=problem, agent=agent,
           component="gpu" if _GPU_WORDS.search(ctype) else "host", reason=reason.strip(),
           message=message.strip()[:300])


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEADER, _NPD_EVENT, _BARE_ROW_M, _NVSENTINEL_CORDON, _NODES_HEADER, _READY_EVENT_M)
