"""k8s_dra_prepare: the kubelet failing to prepare a pod's DRA claims."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import k8s_dra_prepare
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/k8s_dra_prepare"


def _parsed(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return k8s_dra_prepare.parse(art).facts


def facts_of(text: str):
    return [(f.evidence.line, f.claim, f.pod, f.error) for f in _parsed(text)]


def test_kubelet_log_line():
    text = (FIX / "k8s124090_kubelet_cdi_spec_chmod.log").read_text()
    assert k8s_dra_prepare.detect(text)
    [(line, claim, pod, err)] = facts_of(text)
    assert (line, claim, pod) == (1, "default/rdma-demo", "default/rdma-rc-6c5596fdb8-mf95q")
    assert err.startswith("NodePrepareResources failed for claim default/rdma-demo: error preparing devices")
    assert err.endswith("no such file or directory")


def test_kubelet_log_line_claim_not_the_pods():
    got = facts_of((FIX / "dranet30_kubelet_claim_not_allowed.log").read_text())
    assert [(line, pod) for line, _, pod, _ in got] == [(2, "default/pod1")]
    assert "is not allowed to use resource claim pve-interfaces" in got[0][3]


def test_event_wrapped_one_error_per_line():
    [(line, claim, pod, err)] = facts_of((FIX / "dra_gpu1144_event_invalid_cdi_spec_wrapped.txt").read_text())
    assert (line, claim, pod) == (1, "<claim>", None)
    assert err == ("NodePrepareResources failed for ResourceClaim <claim>: error preparing devices for claim <ns>/<claim>:<uid>: "
                   "unable to create CDI spec file for claim: failed to write spec: invalid CDI Spec")


def test_described_event_on_one_line():
    line = ("  Warning  FailedPrepareDynamicResources  22s   kubelet  Failed to prepare dynamic resources: prepare dynamic "
            "resources: NodePrepareResources: rpc error: code = DeadlineExceeded desc = context deadline exceeded")
    [(_, claim, _, err)] = facts_of(line)
    assert claim is None and err.endswith("desc = context deadline exceeded")


@pytest.mark.parametrize("text", [
    # the kubelet preparing claims without failing, and an event reason list in a monitoring tool's code
    'I0328 10:29:40.100000 2855486 manager.go:120] "Processing resource" claim="rdma-demo" pod="rdma-rc"',
    '        "FailedPrepareDynamicResources",',
    "",
])
def test_nothing_else(text):
    assert facts_of(text) == []


def attempts_of(text: str):
    return [(f.evidence.line, f.claim, f.attempt, f.error) for f in _parsed(text)]


def test_plugin_reconcile_retries_last_attempt_per_claim():
    text = (FIX / "dra_gpu1162_compute_domain_reconcile_retries.log").read_text()
    assert k8s_dra_prepare.detect(text)
    [(line, claim, attempt, err)] = attempts_of(text)
    assert (line, attempt) == (7, 3)
    assert claim == "<namespace>/<pod-name>-compute-domain-channel-8gwxw:4914da61-1a20-42b3-bf26-981025df4289"
    assert err.startswith("error preparing devices for claim '<namespace>/")
    assert err.endswith("current node not ready in ComputeDomain")


_RETRY = ("I0523 22:44:58.336698       1 workqueue.go:171] Reconcile: error preparing devices for claim "
          "'ns/pod-channel-8gwxw:4914da61-1a20-42b3-bf26-981025df4289': prepare devices failed: error applying config: "
          "error asserting ComputeDomain Ready: current node not ready in ComputeDomain (attempt 1)")


@pytest.mark.parametrize("later", [
    # compute-domain-kubelet-plugin driver.go klog.V(1).Infof("Prepared devices for claim '%s': %v")
    "I0523 22:45:02.000000       1 driver.go:292] Prepared devices for claim 'ns/pod-channel-8gwxw:4914da61-1a20-42b3-bf26-981025df4289': [channel-0]",
    # gpu-kubelet-plugin v25.3 klog.Infof("Returning newly prepared devices for claim '%v': %v") (the claim's UID)
    "I0523 22:45:02.000000       1 driver.go:144] Returning newly prepared devices for claim '4914da61-1a20-42b3-bf26-981025df4289': [gpu-0]",
])
def test_plugin_retry_then_prepared_is_no_fact(later):
    assert attempts_of(_RETRY + "\n" + later) == []


def test_plugin_retry_of_another_claim_stays():
    later = "I0523 22:45:02.000000       1 driver.go:292] Prepared devices for claim 'ns/other:00000000-1a20-42b3-bf26-981025df4289': []"
    assert [a for _, _, a, _ in attempts_of(_RETRY + "\n" + later)] == [1]


@pytest.mark.parametrize("name,want", [
    ("dra_gpu1330_device_spec_uuid_not_found.txt",
     "unable to get device spec for <claimUID>-<device>: ... device handle from UUID: Not Found"),
    ("dra_gpu1162_channel_allocated_to_other_claim.txt",
     "requested device channel-0 is already allocated to different claim 4914da61-1a20-42b3-bf26-981025df4289"),
])
def test_plugin_bare_errors(name, want):
    text = (FIX / name).read_text()
    assert k8s_dra_prepare.detect(text)
    [(line, claim, attempt, err)] = attempts_of(text)
    assert (line, claim, attempt, err) == (1, None, None, want)


def test_plugin_permanent_error():
    # compute-domain-kubelet-plugin driver.go klog.Infof("Permanent error preparing devices for claim %v: %v")
    text = ("I0523 22:45:58.000000       1 driver.go:286] Permanent error preparing devices for claim "
            "4914da61-1a20-42b3-bf26-981025df4289: requested device channel-0 is already allocated to different claim "
            "0a1b2c3d-1a20-42b3-bf26-981025df4289")
    [(_, claim, attempt, err)] = attempts_of(text)
    assert (claim, attempt) == ("4914da61-1a20-42b3-bf26-981025df4289", None)
    assert err.startswith("requested device channel-0")


def test_kubelet_line_quoting_the_plugin_error_is_one_fact():
    text = ('E0328 10:29:43.770694 2855486 kuberuntime_manager.go:1152] "Failed to prepare dynamic resources" '
            'err="NodePrepareResources failed for claim default/x: error preparing devices for claim default/x:4914da61-1a20-42b3-bf26-981025df4289: '
            'unable to get device spec for gpu-0: device handle from UUID: Not Found" pod="default/p"')
    assert len(attempts_of(text)) == 1
