"""Kubernetes objects pasted as YAML (``kubectl get <kind> <name> -o yaml``, or the manifest that
was applied): which object it is, and the extended resources (``nvidia.com/gpu``, an RDMA
resource) it names with their quantities, where they sit (a queue's capability, a container's
limits, what a queue has allocated).

Sample content (volcano-sh/volcano#3426, #3220, #3790)::

    apiVersion: scheduling.volcano.sh/v1beta1
    kind: Queue
    metadata:
      name: a800
    spec:
        reclaimable: true
        weight: 1
        capability:
          nvidia.com/gpu: "4"
          cpu: "5"

Read line by line, not as a YAML document: pastes are cut, indented as a whole (facts/lines.py
takes the common margin off) or broken inside a long annotation (#3790's last-applied
configuration), and what the diagnosis needs is on single lines. An object starts at a ``kind:``
line at the top level (or under a List's ``items:``); its ``apiVersion:``, ``metadata.name`` and
``metadata.namespace`` are its own lines. An extended resource is a key ``<domain>/<name>``
with a quantity (``"4"``, ``16k``, ``300Gi``) outside ``metadata`` and selectors (labels such as
``nvidia.com/gpu.product`` are not resources).

The NVIDIA network operator's ``NicClusterPolicy`` reports, under ``status.appliedStates``, one entry per component it
deploys (Mellanox/network-operator api/v1alpha1/nicclusterpolicy_types.go AppliedState: ``name`` (state-OFED,
state-RDMA-device-plugin, state-multus-cni, ...), ``state`` one of ready, notReady, ignore, error, and, since v24.7,
``message``: why the state is in that condition)::

    status:
      appliedStates:
      - name: state-OFED
        state: notReady                                   (Mellanox/network-operator#720, verbatim)

An object's ``status.conditions`` (any kind's: a Volcano or kube-batch PodGroup's, a Pod's, a Job's) are one entry
each, ``type``, ``status``, ``reason``, ``message``: a PodGroup the gang scheduler could not place says so there::

    status:
      conditions:
      - lastTransitionTime: "2019-12-20T09:21:55Z"
        message: '1/0 tasks in gang unschedulable: 0 nodes are available'
        reason: NotEnoughResources
        status: "True"
        transitionID: 2a5042bb-230a-11ea-9acd-36ff53d104df
        type: Unschedulable                               (volcano-sh/volcano#604, verbatim)

Facts: ``k8s_object`` per object (``object_kind``, ``api_version``, ``name``, ``namespace``,
``extended_resources``: ``<path>.<resource>=<quantity>`` joined with ``; ``, e.g.
``spec.capability.nvidia.com/gpu=4``), citing its ``kind:`` line. A context fact: an object's
configuration says nothing of the GPUs' health. ``k8s_policy_state`` per entry of a policy's ``status.appliedStates``
(``state_name``, ``state``, the first line of its ``message``), citing its first line. Empty input, or no
``k8s_object_condition`` per entry of an object's ``status.conditions`` that names its ``type``
(``condition_type``, ``status``, ``reason``, ``message``), citing its message line (else its type line). Empty input, or no
top-level ``kind:``: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import K8sObject, K8sObjectCondition, K8sPolicyState  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "k8s_object_yaml"

# apiVersion: scheduling.volcano.sh/v1beta1        kind: Queue        (at the left margin: a whole object)
_DETECT_API = re.compile(r"^apiVersion: *[\w.-]+(?:/[\w.-]+)?[ \t]*$", re.M)
_DETECT_KIND = re.compile(r"^kind: *[A-Z]\w{0,62}[ \t]*$", re.M)
#   name: que02          - event: PodEvicted          nvidia.com/gpu: "4"          capability:
_KEY = re.compile(r"^(?P<ind>[ \t]*)(?P<item>- +)?(?P<key>[\w./-]{1,253}):(?:[ \t]+(?P<val>\S(?:[^\n]*[^ \t\n])?))?[ \t]*$")
# nvidia.com/gpu   momenta.ai/rdma   kubernetes.io/batch-cpu   (a domain-qualified resource name)
_EXTENDED = re.compile(r"^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.[a-z]{2,}/[A-Za-z0-9][\w.-]*$")
# "4"   16k   300Gi   "72333918208"   0.5     (a Kubernetes quantity)
_QUANTITY = re.compile(r"^(?P<q>[\"']?\d+(?:\.\d+)?(?:[eE]\d+|[KMGTPE]i|[kmMGTPE])?[\"']?)$")
#: ancestors under which a domain-qualified key is a label, an annotation or a selector, not a resource
_NOT_RESOURCES = frozenset({"metadata", "labels", "annotations", "nodeSelector", "matchLabels", "selector", "affinity"})


#: the keys of an entry of a policy's status.appliedStates (nicclusterpolicy_types.go AppliedState)
_STATE_KEYS = frozenset({"name", "state", "message"})
#: the keys of an entry of an object's status.conditions read (metav1.Condition, and the same fields of a PodGroup's,
#: a Pod's, a Job's own condition types)
_CONDITION_KEYS = frozenset({"type", "status", "reason", "message"})


def detect(head: str) -> bool:
    if "apiVersion:" not in head or "kind:" not in head:
        return False
    return _DETECT_API.search(head) is not None and _DETECT_KIND.search(head) is not None


def _scalar(val: str | None) -> str | None:
    return val.strip("\"'") if val else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    stack: list[tuple[int, str]] = []  # (indent, key) of the mappings the line sits in
    objects: list[dict] = []
    cur: dict | None = None
    api: str | None = None  # an apiVersion: line of the object whose kind: line comes next
    for no, line in enumerate(artefact.text.split("\n"), 1):
        m = _KEY.match(line)
        if m is None:
            continue
        ind = len(m["ind"].expandtabs()) + (len(m["item"]) if m["item"] else 0)
        while stack and stack[-1][0] >= ind:
            stack.pop()
        path = [k for _i, k in stack]
        key, val = m["key"], m["val"]
        result.lines_used += 1
        top = not path or path == ["items"]
        if key == "kind" and top and val and val[:1].isupper():
            cur = {"line": no, "kind": val, "depth": len(path), "api": api, "name": None, "ns": None, "res": [],
                   "states": [], "conds": []}
            objects.append(cur)
            api = None
        elif key == "apiVersion" and top:
            if cur is not None and cur["api"] is None and not m["item"]:
                cur["api"] = val  # after its kind: line
            else:
                api = val
        elif cur is not None:
            rel = path[cur["depth"]:]
            if rel == ["metadata"] and key in ("name", "namespace"):
                cur["name" if key == "name" else "ns"] = _scalar(val)
            elif rel == ["status", "appliedStates"] and key in _STATE_KEYS:
                # - name: state-OFED / state: notReady / message: <why> (an entry starts at its "- ", any key first)
                if m["item"] or not cur["states"]:
                    cur["states"].append({"line": no})
                cur["states"][-1].setdefault(key, _scalar(val))
            elif rel == ["status", "conditions"]:
                # - lastTransitionTime: ... / message: ... / reason: ... / status: "True" / type: Unschedulable
                if m["item"] or not cur["conds"]:
                    cur["conds"].append({"line": no})
                if key in _CONDITION_KEYS:
                    cur["conds"][-1].setdefault(key, _scalar(val))
                    cur["conds"][-1].setdefault(key + "_line", no)
            elif val and _EXTENDED.match(key) and not _NOT_RESOURCES.intersection(rel):
                q = _QUANTITY.match(val)
                if q:
                    cur["res"].append(".".join(rel + [key]) + "=" + _scalar(q["q"]))
        if val is None or val in ("|", ">", "|-", ">-"):
            stack.append((ind, key))
    for o in objects:
        fb.add(K8sObject, o["line"], object_kind=o["kind"], api_version=o["api"], name=o["name"], namespace=o["ns"],
               extended_resources="; ".join(o["res"]) or None)
        for st in o["states"]:
            if st.get("name") and st.get("state"):  # (an entry cut before its state says nothing)
                fb.add(K8sPolicyState, st["line"], policy_kind=o["kind"], policy_name=o["name"], state_name=st["name"],
                       state=st["state"], message=st.get("message") or None)
        for c in o["conds"]:
            if c.get("type"):  # (an entry cut before its type says nothing)
                # cited at its message (what the report should quote), else at its type
                fb.add(K8sObjectCondition, c.get("message_line") or c["type_line"], object_kind=o["kind"], object_name=o["name"], namespace=o["ns"],
                       condition_type=c["type"], status=c.get("status"), reason=c.get("reason"),
                       message=c.get("message") or None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECT_API,)
