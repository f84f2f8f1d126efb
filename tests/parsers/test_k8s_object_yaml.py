"""k8s_object_yaml: Kubernetes objects pasted as YAML (Volcano queues and jobs), read line by line."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import k8s_object_yaml as p
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/k8s_object_yaml"


def objects(name: str):
    art = Artefact(path=name, text=(FIX / name).read_text(), node="node1")
    art.normalise()
    assert p.detect(art.text), name
    return [(f.evidence.line, f.object_kind, f.api_version, f.name, f.extended_resources) for f in p.parse(art).facts]


def test_queue_capability_names_its_extended_resources():
    assert objects("volcano3220_queue_gpu_capability.yaml") == [
        (2, "Queue", "scheduling.volcano.sh/v1beta1", "tmp-nv3090-13",
         "spec.capability.momenta.ai/rdma=9999; spec.capability.nvidia.com/gpu=9999")]
    assert objects("volcano3426_queue_gpu_quota.yaml") == [
        (2, "Queue", "scheduling.volcano.sh/v1beta1", "a800", "spec.capability.nvidia.com/gpu=4")]


def test_a_jobs_nested_container_limits_and_list_items():
    # the task template's kind-less spec is no object of its own; "- event:" list items keep their paths
    assert objects("volcano3426_job.yaml") == [
        (2, "Job", "batch.volcano.sh/v1alpha1", "job-1",
         "spec.tasks.template.spec.containers.resources.requests.nvidia.com/gpu=3; "
         "spec.tasks.template.spec.containers.resources.limits.nvidia.com/gpu=3")]


def test_an_indented_paste_broken_inside_an_annotation_is_still_read():
    # kubectl get queue -oyaml with a 2-space margin and its last-applied-configuration JSON wrapped as posted:
    # not valid YAML, read all the same; the annotation's own "kind":"Queue" is not a second object
    assert objects("volcano3790_queue_oyaml_indented.yaml") == [
        (2, "Queue", "scheduling.volcano.sh/v1beta1", "que02",
         "status.allocated.kubernetes.io/batch-cpu=16k; status.allocated.kubernetes.io/batch-memory=72333918208")]


def test_labels_and_selectors_are_not_resources():
    text = ("apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu1\n  labels:\n    nvidia.com/gpu.count: \"8\"\n"
            "spec:\n  nodeSelector:\n    nvidia.com/gpu.present: \"true\"\nstatus:\n  capacity:\n    nvidia.com/gpu: \"8\"\n")
    (f,) = p.parse(Artefact(path="n.yaml", text=text, node="n")).facts
    assert (f.object_kind, f.name, f.extended_resources) == ("Node", "gpu1", "status.capacity.nvidia.com/gpu=8")


def test_near_misses_are_not_kubernetes_objects():
    assert not p.detect("version: '3'\nservices:\n  app:\n    image: x\n")  # docker-compose
    assert not p.detect("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")  # a Helm Chart.yaml: no kind
    assert not p.detect("  kind: Queue is what the docs call it\n")
    assert p.parse(Artefact(path="e.yaml", text="", node="n")).facts == []


def test_netop720_nicclusterpolicy_applied_states():
    # Mellanox/network-operator#720: every entry of status.appliedStates, the one cut before its state left out
    name = "netop720_nicclusterpolicy_state_ofed_not_ready.yaml"
    facts = p.parse(Artefact(path=name, text=(FIX / name).read_text(), node="node1")).facts
    states = [(f.evidence.line, f.state_name, f.state) for f in facts if f.kind == "k8s_policy_state"]
    assert states[5] == (48, "state-OFED", "notReady") and len(states) == 7
    assert {s for _, _, s in states} == {"ignore", "notReady"}
    assert all(f.policy_kind == "NicClusterPolicy" and f.policy_name == "nic-cluster-policy"
               for f in facts if f.kind == "k8s_policy_state")


def test_a_states_message_any_key_first():
    # CONSTRUCTED: v24.7's message field (nicclusterpolicy_types.go AppliedState), written before the entry's name
    text = ("apiVersion: mellanox.com/v1alpha1\nkind: NicClusterPolicy\nmetadata:\n  name: ncp\nstatus:\n  appliedStates:\n"
            "  - message: the driver container is not ready on 2 nodes\n    name: state-OFED\n    state: error\n"
            "  - name: state-multus-cni\n    state: ready\n")
    facts = [f for f in p.parse(Artefact(path="n.yaml", text=text, node="n")).facts if f.kind == "k8s_policy_state"]
    assert [(f.evidence.line, f.state_name, f.state, f.message) for f in facts] == [
        (7, "state-OFED", "error", "the driver container is not ready on 2 nodes"), (10, "state-multus-cni", "ready", None)]


def test_volcano604_podgroup_status_condition():
    # volcano-sh/volcano#604: a PodGroup's -o yaml, its one condition (the entry starts at "- lastTransitionTime:")
    name = "volcano604_podgroup_unschedulable.yaml"
    facts = [f for f in p.parse(Artefact(path=name, text=(FIX / name).read_text(), node="node1")).facts
             if f.kind == "k8s_object_condition"]
    assert [(f.evidence.line, f.object_kind, f.object_name, f.namespace, f.condition_type, f.status, f.reason, f.message)
            for f in facts] == [(17, "PodGroup", "nginx-group", "test", "Unschedulable", "True", "NotEnoughResources",
                                 "1/0 tasks in gang unschedulable: 0 nodes are available")]


def test_conditions_any_key_first_and_cut_entries():
    # CONSTRUCTED: two conditions, type first in one; an entry cut before its type says nothing; a pod's
    # spec.conditions-like key elsewhere is not a status condition
    text = ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n  name: pg\nstatus:\n  conditions:\n"
            "  - type: Scheduled\n    status: \"True\"\n  - lastTransitionTime: \"2024-01-01T00:00:00Z\"\n    reason: tasks\n"
            "  phase: Running\nspec:\n  conditions:\n  - type: X\n")
    facts = [f for f in p.parse(Artefact(path="n.yaml", text=text, node="n")).facts if f.kind == "k8s_object_condition"]
    assert [(f.evidence.line, f.condition_type, f.status) for f in facts] == [(7, "Scheduled", "True")]
