"""The kubelet failing to prepare a pod's Dynamic Resource Allocation (DRA) claims.

With DRA (Kubernetes 1.26 on; GPUs through NVIDIA's dra-driver-nvidia-gpu, NICs through dranet or
an RDMA driver) the kubelet asks the claim's DRA kubelet plugin to prepare the allocated devices
(NodePrepareResources: the plugin writes a CDI spec for the claim) before it creates the pod's
containers. When that fails the pod stays in ContainerCreating and the kubelet records a
``FailedPrepareDynamicResources`` event (kubernetes/kubernetes#118578) and logs the error
(pkg/kubelet/kuberuntime/kuberuntime_manager.go; the errors are pkg/kubelet/cm/dra/manager.go's
and the plugin's, joined with ": ").

Sample content (fixtures/artefacts/k8s_dra_prepare, sources in its README)::

    E0328 10:29:43.770694 2855486 kuberuntime_manager.go:1152] "Failed to prepare dynamic resources" err="NodePrepareResources failed for claim default/rdma-demo: error preparing devices for claim 71d5...: unable to create CDI spec file for claim: ..." pod="default/rdma-rc-6c5596fdb8-mf95q"
    Warning  FailedPrepareDynamicResources  22s   kubelet  Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources: rpc error: code = DeadlineExceeded desc = context deadline exceeded
    FailedPrepareDynamicResources: Failed to prepare dynamic resources:
      NodePrepareResources failed for ResourceClaim <claim>:

Facts: ``k8s_dra_prepare_failed`` per such line: ``error`` (the kubelet's err; an event whose
message a person wrapped one error per indented line is joined back), ``claim`` (the claim the error
names), ``pod`` (the log line's). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import K8sDraPrepareFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "k8s_dra_prepare"

# E0328 10:29:43.770694 2855486 kuberuntime_manager.go:1152] "Failed to prepare dynamic resources" err="NodePrepareResources failed for claim default/rdma-demo: ..." pod="default/rdma-rc-6c5596fdb8-mf95q"   (kubernetes/kubernetes#124090)
# E1228 20:39:07.524213     723 kuberuntime_manager.go:1217] "Failed to prepare dynamic resources" err="pod pod1(8221...) is not allowed to use resource claim pve-interfaces(6c61...)" pod="default/pod1"   (google/dranet#30)
_LOGGED = re.compile(r'"Failed to prepare dynamic resources" err="(?P<err>(?:[^"\\\n]|\\.){1,2000})"(?: pod="(?P<pod>[^"\n]{1,300})")?')
# Warning  FailedPrepareDynamicResources  22s   kubelet  Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources: rpc error: code = DeadlineExceeded desc = context deadline exceeded   (kubectl describe pod: kubernetes-sigs/dra-driver-nvidia-gpu site/content/docs/guides/kubevirt-vfio-gpu-passthrough.md)
# FailedPrepareDynamicResources: Failed to prepare dynamic resources:   (kubernetes-sigs/dra-driver-nvidia-gpu#1144: the reporter's one error per indented line below)
_EVENT = re.compile(r"(?m)FailedPrepareDynamicResources\b[^\n]{0,200}?Failed to prepare dynamic resources:[ \t]*(?P<err>[^\n]*)"
                    r"(?P<more>(?:\n[ \t]+\S[^\n]*){0,12})")
# NodePrepareResources failed for claim default/rdma-demo: ...   /   NodePrepareResources failed for ResourceClaim <claim>:
_CLAIM = re.compile(r"\bfor (?:ResourceClaim|claim) (?P<claim>[^\s:]{1,300})")
# prepare dynamic resources: DRA driver compute-domain.nvidia.com is not registered   (kubelet pkg/kubelet/cm/dra: no plugin of
#   that driver registered with this kubelet; kubernetes-sigs/dra-driver-nvidia-gpu#814, the ComputeDomain plugin not running)
_NOT_REGISTERED = re.compile(r"\bDRA driver (?P<driver>[\w./-]{1,253}) is not registered")


def detect(head: str) -> bool:
    return "Failed to prepare dynamic resources" in head and (
        _LOGGED.search(head) is not None or _EVENT.search(head) is not None)


def _fact(fb: FactBuilder, n: int, err: str, pod: str | None = None) -> None:
    err = err.replace('\\"', '"').strip().rstrip(":").strip()
    claim = _CLAIM.search(err)
    unregistered = _NOT_REGISTERED.search(err)
    fb.add(K8sDraPrepareFailed, n, error=err or "(the event's message is cut)", claim=claim["claim"] if claim else None,
           pod=pod, unregistered_driver=unregistered["driver"] if unregistered else None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LOGGED, artefact):
        result.lines_used += 1
        _fact(fb, n, m["err"], m["pod"])
    for n, m in iter_matches(_EVENT, artefact):
        more = [ln.strip() for ln in m["more"].split("\n") if ln.strip()]
        result.lines_used += 1 + len(more)
        _fact(fb, n, " ".join([m["err"].strip(), *more]))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Failed to prepare dynamic resources",)
