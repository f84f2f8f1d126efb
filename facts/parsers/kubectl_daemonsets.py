"""What ``kubectl get daemonsets`` says of the node GPU stack's DaemonSets: how many nodes each
should run on and on how many its pod is ready.

kubectl's printer for DaemonSets (pkg/printers/internalversion/printers.go, daemonSetColumnDefinitions:
``Name, Desired, Current, Ready, Up-to-date, Available, Node Selector, Age``, then ``Containers,
Images, Selector`` with ``-o wide``) writes one row per DaemonSet under an upper-cased header,
``NAMESPACE`` first with ``-A``/``--all-namespaces``; ``kubectl get all`` names the row
``daemonset.apps/<name>`` (``daemonset.extensions/`` before 1.16). Pasted tables keep the
indentation of a markdown list or lose the AGE column to a line wrap. Sample content (real:
NVIDIA/gpu-operator#448, with -A, indented as posted; NVIDIA/gpu-operator#590 without it)::

   NAMESPACE       NAME                                         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR                                      AGE
   gpu-operator    nvidia-container-toolkit-daemonset           1         1         0       1            0           nvidia.com/gpu.deploy.container-toolkit=true       37m
    NAME                                                    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR                                      AGE
    nvidia-dcgm-exporter                                    3         3         0       3            0           nvidia.com/gpu.deploy.dcgm-exporter=true           44h
    nvidia-driver-daemonset                                 0         0         0       0            0           nvidia.com/gpu.deploy.driver=true                  44h

Fact ``k8s_daemonset_status`` per row of a DaemonSet of the node GPU stack (``role``: the part of
the stack its name says it runs, as the GPU Operator, the device plugin's and dcgm-exporter's
charts and GKE name them: ``driver``, ``container-toolkit``, ``device-plugin``,
``gpu-feature-discovery``, ``dcgm``, ``dcgm-exporter``, ``operator-validator``, ``mig-manager``),
with ``desired``, ``current``, ``ready``, ``available`` and ``not_ready`` = desired - ready (nodes
where the pod is missing or not ready). DESIRED 0 is a DaemonSet no node selects (a driver the
host already has, no MIG-capable GPU): not_ready 0. Rows of other DaemonSets (CNI, node feature
discovery) are read and give no fact. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    K8sDaemonsetStatus,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "kubectl_daemonsets"

# NAMESPACE       NAME        DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR      AGE
# NAME            DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE   CONTAINERS   IMAGES   SELECTOR   (-o wide)
# NAMESPACE   NAME   DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR        (AGE wrapped to the next line: gpu-operator#280)
_HEADER = re.compile(r"^[ \t]*(?P<ns>NAMESPACE[ \t]+)?NAME[ \t]+DESIRED[ \t]+CURRENT[ \t]+READY[ \t]+UP-TO-DATE[ \t]+AVAILABLE\b")
# gpu-operator    nvidia-dcgm-exporter    1    1    0    1    0    nvidia.com/gpu.deploy.dcgm-exporter=true   37m
# daemonset.apps/nvidia-dcgm-exporter     3    3    0    3    0    nvidia.com/gpu.deploy.dcgm-exporter=true   2s   ...   (kubectl get all)
_ROW = re.compile(r"^[ \t]*(?:(?P<ns>[a-z0-9][a-z0-9-]{0,62})[ \t]+)?(?:daemonset\.(?:apps|extensions)/)?"
                  r"(?P<name>[a-z0-9][a-z0-9.-]{0,252})[ \t]+(?P<desired>\d{1,6})[ \t]+(?P<current>\d{1,6})[ \t]+"
                  r"(?P<ready>\d{1,6})[ \t]+(?P<uptodate>\d{1,6})[ \t]+(?P<available>\d{1,6})(?=[ \t]|$)")

#: the part of the node GPU stack a DaemonSet runs, by its name (first match wins: the device
#: plugin chart's GFD DaemonSet is "<release>-nvidia-device-plugin-gpu-feature-discovery")
_ROLES = (
    # nvidia-driver-daemonset (GPU Operator; precompiled: nvidia-driver-daemonset-5.15.0-1048-azure-ubuntu22.04),
    # nvidia-driver-installer (GKE), nvidia-vgpu-manager-daemonset
    ("driver", re.compile(r"^nvidia-(?:driver-daemonset|driver-installer|vgpu-manager-daemonset)\b")),
    # nvidia-container-toolkit-daemonset
    ("container-toolkit", re.compile(r"^nvidia-container-toolkit-daemonset\b")),
    # gpu-feature-discovery, nvdp-nvidia-device-plugin-gpu-feature-discovery (not its "-worker": NFD's)
    ("gpu-feature-discovery", re.compile(r"(?:^|-)gpu-feature-discovery$")),
    # nvidia-dcgm-exporter, dcgm-exporter, dcgm-exporter-1725446363 (a helm release suffix)
    ("dcgm-exporter", re.compile(r"(?:^|-)dcgm-exporter(?:-\d+)?$")),
    # nvidia-dcgm (the GPU Operator's standalone hostengine)
    ("dcgm", re.compile(r"^nvidia-dcgm$")),
    # nvidia-device-plugin-daemonset, nvdp-nvidia-device-plugin, nvidia-gpu-device-plugin (GKE), nvidia-device-plugin-mps-control-daemon
    ("device-plugin", re.compile(r"(?:^|-)nvidia(?:-gpu)?-device-plugin(?:-daemonset|-ds|-mps-control-daemon)?$")),
    # nvidia-operator-validator
    ("operator-validator", re.compile(r"^nvidia-operator-validator$")),
    # nvidia-mig-manager
    ("mig-manager", re.compile(r"^nvidia-mig-manager$")),
)

_DETECT = re.compile(r"^[ \t]*(?:NAMESPACE[ \t]+)?NAME[ \t]+DESIRED[ \t]+CURRENT[ \t]+READY[ \t]+UP-TO-DATE[ \t]+AVAILABLE\b", re.M)


def role_of(name: str) -> str | None:
    for role, rx in _ROLES:
        if rx.search(name):
            return role
    return None


def detect(head: str) -> bool:
    return "DESIRED" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    header: re.Match | None = None
    for n, line in enumerate(artefact.lines, 1):
        if (m := _HEADER.match(line)) is not None:
            header = m
            result.lines_used += 1
            continue
        if header is None or (m := _ROW.match(line)) is None or bool(m["ns"]) != bool(header["ns"]):
            continue
        result.lines_used += 1
        if (role := role_of(m["name"])) is None:
            continue
        desired, ready = int(m["desired"]), int(m["ready"])
        b.add(K8sDaemonsetStatus, n, daemonset=m["name"], namespace=m["ns"], role=role, desired=desired,
              current=int(m["current"]), ready=ready, available=int(m["available"]), not_ready=max(desired - ready, 0))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE",)
