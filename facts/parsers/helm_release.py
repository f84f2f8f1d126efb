"""The helm CLI's failure of a chart's install or upgrade, as people paste it when deploying the GPU Operator, the
device plugin or the network operator.

helm 3 (cmd/helm/install.go, upgrade.go; cmd/helm/app/ in helm 4) wraps the action's error, ``errors.Wrap(err,
"INSTALLATION FAILED")`` / ``"UPGRADE FAILED"``, and cobra prints it after ``Error: ``. Sample content (real,
NVIDIA/gpu-operator#926, gpu-operator v24.6.1 from NGC's chart repository; NVIDIA/cloud-native-stack#34; the cut form
NVIDIA/k8s-device-plugin#350, the line ends after "FAILED:")::

    Error: INSTALLATION FAILED: failed to fetch https://helm.ngc.nvidia.com/nvidia/charts/gpu-operator-v24.6.1.tgz : 401 Unauthorized
    Error: INSTALLATION FAILED: Kubernetes cluster unreachable: Get "https://10.158.210.53:6443/version": dial tcp 10.158.210.53:6443: connect: connection refused
    Error: INSTALLATION FAILED:

helm 2 (Tiller) printed an install's failure as Tiller's own error, ``fmt.Errorf("release %s failed: %s", name, err)``
(pkg/tiller/release_install.go), and an upgrade's as ``fmt.Errorf("UPGRADE FAILED: %v", ...)`` (cmd/helm/upgrade.go: the
form above); helm 3 before 3.7 printed an --atomic install's the same way, ``"release %s failed, and has been
uninstalled due to atomic being set: %s"``. Sample content (real, helm/helm#3130, helm 2.7.0 under RBAC)::

    Error: release nginx failed: namespaces "default" is forbidden: User "system:serviceaccount:kube-system:default" cannot get namespaces in the namespace "default"

Facts: one ``helm_release_failed`` per such line (the operation, the release where the line names it, the reason helm
wrapped, None when the line is cut after "FAILED:"). Lines read: those lines only; the rest of the file is left to the readers that know it.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import HelmReleaseFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "helm_release"

# Error: INSTALLATION FAILED: failed to fetch https://helm.ngc.nvidia.com/nvidia/charts/gpu-operator-v24.6.1.tgz : 401 Unauthorized
# Error: UPGRADE FAILED: ...            (CONSTRUCTED from helm's upgrade.go errors.Wrap(err, "UPGRADE FAILED"))
# Error: INSTALLATION FAILED:           (k8s-device-plugin#350: cut after the colon)
# at a line's start, after blanks or a quote marker ("> ") of a ticket
_FAILED = re.compile(r"^[ \t>]{0,8}Error: (INSTALLATION|UPGRADE) FAILED:[ \t]*([^\r\n]{0,1000}?)[ \t]*\r?$", re.M)
# Error: release nginx failed: namespaces "default" is forbidden: User "system:serviceaccount:kube-system:default" ...
#   (helm/helm#3130, helm 2's Tiller); "Error: release gpu-operator failed, and has been uninstalled due to atomic being
#   set: ..." (CONSTRUCTED from helm 3.0-3.6's install.go). A release name is DNS-1123 (lower case, digits, '-', '.').
_RELEASE = re.compile(r"^[ \t>]{0,8}Error: release ([a-z0-9][a-z0-9.-]{0,52}) failed(?:, and has been [a-z ]{1,60})?:"
                      r"[ \t]*([^\r\n]{0,1000}?)[ \t]*\r?$", re.M)
SIGNATURES = (_FAILED, _RELEASE)
_GATES = ("INSTALLATION FAILED:", "UPGRADE FAILED:", "Error: release ")


def detect(head: str) -> bool:
    return any(g in head for g in _GATES) and (_FAILED.search(head) is not None or _RELEASE.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    text = artefact.text
    if not any(g in text for g in _GATES):
        return result
    b = FactBuilder(artefact, result)
    for m in _FAILED.finditer(text):
        b.add(HelmReleaseFailed, artefact.line_of(m.start()),
              operation="install" if m.group(1) == "INSTALLATION" else "upgrade", reason=m.group(2) or None)
        result.lines_used += 1
    if "Error: release " in text:
        for m in _RELEASE.finditer(text):  # Tiller's install (helm 2), an --atomic install (helm 3.0-3.6)
            b.add(HelmReleaseFailed, artefact.line_of(m.start()), operation="install", release=m.group(1),
                  reason=m.group(2) or None)
            result.lines_used += 1
    return result
