"""helm's "Error: INSTALLATION FAILED: <reason>" / "UPGRADE FAILED" (facts/parsers/helm_release.py, round rS12)."""

import pytest

from stethoscope.facts.parsers import helm_release
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


@pytest.mark.parametrize("name, facts", [
    ("gpuoperator926_chart_fetch_401.txt",
     [("install", "failed to fetch https://helm.ngc.nvidia.com/nvidia/charts/gpu-operator-v24.6.1.tgz : 401 Unauthorized", 6)]),
    ("cns34_cluster_unreachable.txt",
     [("install", 'Get "https://10.158.210.53:6443/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodefeaturerules.nfd.k8s-sigs.io": dial tcp 10.158.210.53:6443: connect: connection refused - error from a previous attempt: http2: server sent GOAWAY and closed the connection; LastStreamID=661, ErrCode=NO_ERROR, debug=""', 4), ("install", 'Kubernetes cluster unreachable: Get "https://10.158.210.53:6443/version": dial tcp 10.158.210.53:6443: connect: connection refused', 7)]),
    ("k8sdp350_installation_failed_cut.txt", [("install", None, 3)]),  # cut after "FAILED:"
])
def test_real_pastes(name, facts):
    r = _parse(helm_release, f"helm_release/{name}")
    got = [(f.operation, f.reason, f.evidence.line) for f in r.facts]
    assert got == facts
    assert r.lines_used == len(facts)


def test_upgrade_constructed():
    # CONSTRUCTED from helm's upgrade.go errors.Wrap(err, "UPGRADE FAILED")
    text = "> Error: UPGRADE FAILED: timed out waiting for the condition\n"
    [f] = helm_release.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert (f.operation, f.reason) == ("upgrade", "timed out waiting for the condition")


@pytest.mark.parametrize("text", [
    "I get Error: INSTALLATION FAILED: each time I try\n",  # a sentence
    "Error: INSTALLATION COMPLETE\n",
    "NAME: gpu-operator-1692\nSTATUS: deployed\n",
])
def test_not_helms_failure(text):
    assert not helm_release.detect(text)
    assert helm_release.parse(Artefact(path="t.txt", text=text, node="n1")).facts == []


def test_helm2_release_failed():
    # helm/helm#3130: helm 2's Tiller wraps an install's failure as "release <name> failed: <reason>" (round rT5)
    r = _parse(helm_release, "helm_release/helm3130_helm2_release_failed.txt")
    assert [(f.operation, f.release, f.reason, f.evidence.line) for f in r.facts] == [
        ("install", "nginx", 'namespaces "default" is forbidden: User "system:serviceaccount:kube-system:default" '
         'cannot get namespaces in the namespace "default"', 2)]
    assert r.lines_used == 1


def test_helm3_atomic_release_failed_constructed():
    # CONSTRUCTED from helm 3.0-3.6's install.go: "release %s failed, and has been uninstalled due to atomic being set: %s"
    text = "Error: release gpu-operator failed, and has been uninstalled due to atomic being set: timed out waiting for the condition\n"
    [f] = helm_release.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert (f.operation, f.release, f.reason) == ("install", "gpu-operator", "timed out waiting for the condition")


@pytest.mark.parametrize("text", [
    "Error: release notes are missing\n",  # no "failed:"
    "The error said release nginx failed: forbidden\n",  # a sentence
    "Error: release NGINX failed: x\n",  # not a release name (upper case)
])
def test_not_helm2s_release_failure(text):
    assert helm_release.parse(Artefact(path="t.txt", text=text, node="n1")).facts == []
