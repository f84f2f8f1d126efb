"""Never a false HEALTHY: a Kubernetes object said NotReady beside a healthy table (issue 11, bench/plant_prefix_probe.py,
wild sweep G2). kubectl's node STATUS column, the kubelet's NodeNotReady event and a ComputeDomain's ``Status: NotReady``
were no one's lines: alone "uninformative", beside a healthy nvidia-smi table the paste read HEALTHY. The node's rows are
node conditions now (kubectl get nodes since round rQ6, the NodeNotReady event since rR1)."""
from pathlib import Path

import pytest

import small_bundle

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "fixtures/observations/h200-x2/nvidia-smi/nvidia-smi.txt"


def _diagnose(tmp_path: Path, ruleset, text: str):
    return small_bundle.diagnose(tmp_path, {"nvidia-smi.txt": TABLE.read_text(), "paste.txt": text + "\n"}, ruleset)


@pytest.mark.parametrize("text", [
    # harvest 2805 (kubernetes-sigs/dra-driver-nvidia-gpu#1050): the compute-domain daemon's klog line and the domain's status
    "I0415 16:14:28.038098 1 cdstatus.go:339] numNodes: 2, nodes seen: 1\n  Status: NotReady",
])
def test_a_not_ready_object_beside_a_healthy_table_is_not_healthy(tmp_path, ruleset, text):
    rep = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict != "healthy"
    assert any(f.rule == "unexplained_error" and "NotReady" in f.summary for f in rep.findings)


@pytest.mark.parametrize("text,node", [
    # charmed-kubernetes/bundle#566: kubectl get nodes, the GPU node NotReady: read since round rQ6 (kubectl_node_conditions)
    ("kubectl get nodes\nNAME            STATUS     ROLES     AGE       VERSION \njuju-54b09d-1   NotReady   <none>    7m        v1.10.0",
     "juju-54b09d-1"),
    # Azure/acs-engine#4236: the kubelet's event row of a GPU node (kubectl describe node): read since round rR1
    ("  Normal  NodeNotReady             23m                kubelet, k8s-agentpool-39580029-vmss000000     Node "
     "k8s-agentpool-39580029-vmss000000 status is now: NodeNotReady", "k8s-agentpool-39580029-vmss000000"),
])
def test_a_not_ready_node_row_is_a_node_condition_finding(tmp_path, ruleset, text, node):
    rep = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict != "healthy"
    assert any(f.rule == "node_condition_problem" and node in f.summary for f in rep.findings)


@pytest.mark.parametrize("text", [
    # must not: a Ready node (kubectl get nodes, charmed-kubernetes/bundle#566's form) and CUDA's cudaErrorNotReady in a
    # program's own polling comment are no failure
    "NAME            STATUS     ROLES     AGE       VERSION \njuju-54b09d-1   Ready   <none>    7m        v1.10.0",
    "cudaStreamQuery returned cudaErrorNotReady while the kernel was still running",
])
def test_ready_and_cuda_not_ready_are_no_failure(tmp_path, ruleset, text):
    rep = _diagnose(tmp_path, ruleset, text)
    assert not any(f.rule == "unexplained_error" and "NotReady" in f.summary for f in rep.findings)
