"""k8s_dra_prepare: the kubelet failing to prepare a pod's DRA claims."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import k8s_dra_prepare
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/k8s_dra_prepare"


def facts_of(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return [(f.evidence.line, f.claim, f.pod, f.error) for f in k8s_dra_prepare.parse(art).facts]


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
