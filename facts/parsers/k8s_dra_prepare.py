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

The DRA kubelet plugin's own log of the same failure (kubernetes-sigs/dra-driver-nvidia-gpu, both
kubelet plugins, v25.3 to v25.12 and main: driver.go ``error preparing devices for claim %s: %w``
around device_state.go ``prepare devices failed: %w``; since v25.8 the plugins retry a prepare in
their work queue, pkg/workqueue/workqueue.go logging each failed try at Info level as
``Reconcile: %v (attempt %d)``, and the ComputeDomain plugin logs an error it will not retry as
``Permanent error preparing devices for claim %v: %v``), and two of the plugins' errors pasted bare
(cdi.go ``unable to get device spec for %s: %w``; device_state.go ``requested device %s is already
allocated to different claim %s``)::

    I0523 22:44:58.336698       1 workqueue.go:171] Reconcile: error preparing devices for claim '<namespace>/<pod-name>-compute-domain-channel-8gwxw:4914da61-1a20-42b3-bf26-981025df4289': prepare devices failed: error applying config: error asserting ComputeDomain Ready: current node not ready in ComputeDomain (attempt 1)
    unable to get device spec for <claimUID>-<device>: ... device handle from UUID: Not Found

Facts: ``k8s_dra_prepare_failed`` per kubelet line: ``error`` (the kubelet's err; an event whose
message a person wrapped one error per indented line is joined back), ``claim`` (the claim the error
names), ``pod`` (the log line's). Of the plugin's retries, one per claim: the last try's error with
its ``attempt``, and none where a later line of the file says the claim's devices were prepared
(``Prepared devices for claim '%s'``, ``Returning newly prepared devices for claim '%s'``): a
ComputeDomain claim is retried while the domain's IMEX daemons start, and a try that later succeeds
is no failure. A permanent error, and a bare plugin error, is a fact of its own (``attempt`` None).
Empty input, or no such line: nothing.
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


# I0523 22:44:58.336698       1 workqueue.go:171] Reconcile: error preparing devices for claim '<namespace>/<pod-name>-compute-domain-channel-8gwxw:4914da61-1a20-42b3-bf26-981025df4289': prepare devices failed: error applying config: error asserting ComputeDomain Ready: current node not ready in ComputeDomain (attempt 1)   (kubernetes-sigs/dra-driver-nvidia-gpu#1162)
# Permanent error preparing devices for claim 4914da61-1a20-42b3-bf26-981025df4289: <err>   (compute-domain-kubelet-plugin/driver.go klog.Infof("Permanent error preparing devices for claim %v: %v"))
_PLUGIN = re.compile(r"\b(?:Reconcile: (?P<retry>error preparing devices for claim (?P<claim>'[^'\n]{1,300}'|[^\s:]{1,300}(?::[0-9a-f-]{36})?): [^\n]{1,2000}) \(attempt (?P<attempt>\d{1,6})\)"
                     r"|Permanent error preparing devices for claim (?P<pclaim>\S{1,300}): (?P<perr>[^\n]{1,2000}))")
# unable to get device spec for <claimUID>-<device>: ... device handle from UUID: Not Found   (kubernetes-sigs/dra-driver-nvidia-gpu#1330; gpu-kubelet-plugin cdi.go)
# requested device channel-0 is already allocated to different claim 4914da61-1a20-42b3-bf26-981025df4289   (#1162; device_state.go)
_BARE = re.compile(r"\b(?:unable to get device spec for \S{1,300}: [^\n`]{1,2000}|requested device \S{1,300} is already allocated to different claim [\w-]{1,100})")
# the plugins' success lines, from their format strings (no thread pastes one): compute-domain-kubelet-plugin driver.go
#   klog.V(1).Infof("Prepared devices for claim '%s': %v", ...), gpu-kubelet-plugin driver.go
#   klog.Infof("Returning newly prepared devices for claim '%s': %v", ...) (v25.3: '%v' of the claim's UID)
_PREPARED = re.compile(r"\b(?:Prepared|Returning newly prepared) devices for claim (?P<claim>'[^'\n]{1,300}'|\S{1,300}): ")
_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def detect(head: str) -> bool:
    if "Failed to prepare dynamic resources" in head and (
            _LOGGED.search(head) is not None or _EVENT.search(head) is not None):
        return True
    return ("preparing devices for claim" in head and _PLUGIN.search(head) is not None) or (
        ("unable to get device spec for" in head or "already allocated to different claim" in head)
        and _BARE.search(head) is not None)


def _claim_key(claim: str) -> str:
    """A claim as the plugin names it ('ns/name:uid', name, or uid): its UID where it has one."""
    uid = _UID.search(claim)
    return uid[0] if uid else claim.strip("'")


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
    _plugin_lines(artefact, fb, result)
    return result


def _plugin_lines(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """The DRA kubelet plugin's own lines: retries (the last per claim, unless prepared later), permanent
    errors, bare plugin errors; a kubelet line quoting the same words is the kubelet's fact already."""
    retries: dict[str, tuple[int, str, str, int]] = {}  # claim key -> (line, claim, error, attempt)
    for n, line in enumerate(artefact.lines, 1):
        if "Failed to prepare dynamic resources" in line:
            continue
        if "devices for claim" in line and (m := _PREPARED.search(line)) is not None:
            retries.pop(_claim_key(m["claim"]), None)
            result.lines_used += 1
        elif "preparing devices for claim" in line and (m := _PLUGIN.search(line)) is not None:
            result.lines_used += 1
            if m["retry"] is not None:
                claim = m["claim"].strip("'")
                retries[_claim_key(claim)] = (n, claim, m["retry"], int(m["attempt"]))
            else:
                fb.add(K8sDraPrepareFailed, n, error=m["perr"].strip(), claim=m["pclaim"].strip("'"))
        elif ("device spec for" in line or "different claim" in line) and (m := _BARE.search(line)) is not None:
            result.lines_used += 1
            fb.add(K8sDraPrepareFailed, n, error=m[0].strip())
    for n, claim, err, attempt in retries.values():
        fb.add(K8sDraPrepareFailed, n, error=err, claim=claim, attempt=attempt)


#: line signatures (facts/classify.py)
SIGNATURES = (r"Failed to prepare dynamic resources", r"\b(?:Reconcile: error|Permanent error) preparing devices for claim \S",
              r"\bunable to get device spec for \S+: ", r"\bis already allocated to different claim [\w-]")
