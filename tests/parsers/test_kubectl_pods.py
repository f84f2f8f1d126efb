"""kubectl describe pod / get pods (real samples: fixtures/artefacts/kubectl_pods/README.md)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers import kubectl_pods
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def _parse(mod, name: str):
    text = (FIX / name).read_text()
    assert mod.detect(text)
    res = mod.parse(Artefact(path=name, text=text, node="n1"))
    assert not res.errors
    return res


@pytest.mark.parametrize("name, want", [
    # the container's block alone (no Name:, no container name): waiting in CrashLoopBackOff, last OOMKilled 137
    ("kubectl_pods/geti340_describe_dcgm_exporter_oomkilled.txt",
     [("k8s_container_waiting", 9, {"pod": "(not named)", "container": "(not named)", "reason": "CrashLoopBackOff"}),
      ("k8s_container_terminated", 11, {"which": "Last State", "reason": "OOMKilled", "exit_code": 137, "oom_killed": True,
                                        "k8s_node": None})]),
    # the Completed row gives nothing; the OOMKilled STATUS is the container's terminated reason
    ("kubectl_pods/flyte3686_get_pods_oomkilled.txt",
     [("k8s_container_terminated", 3, {"pod": "fc6b601ca7bb04acb911-n0-0-dn0-0", "which": "State", "reason": "OOMKilled",
                                       "exit_code": None, "oom_killed": True})]),
    # the Completed init container gives nothing; app2's OOMKilled (its exit code as pasted); the PodInitializing row nothing
    ("kubectl_pods/toolkit30_init_container_oomkilled.txt",
     [("k8s_container_terminated", 19, {"container": "app2", "which": "State", "reason": "OOMKilled", "exit_code": 0,
                                        "oom_killed": True})]),
    ("kubectl_pods/kubeflow794_pending_insufficient_gpu.txt",
     [("k8s_pod_event", 8, {"reason": "FailedScheduling", "source": "default-scheduler", "count": 57,
                            "insufficient": "nvidia.com/gpu", "insufficient_gpu": True})]),
    ("kubectl_pods/geti1876_failed_scheduling_preemption.txt",
     [("k8s_pod_event", 1, {"count": 351, "insufficient": "nvidia.com/gpu", "insufficient_gpu": True})]),
    # the scheduler's FitError alone (the title of NVIDIA/k8s-device-plugin#382): the FailedScheduling event's message
    ("kubectl_pods/k8sdp382_fit_error_title.txt",
     [("k8s_pod_event", 1, {"reason": "FailedScheduling", "source": "default-scheduler", "count": 1,
                            "insufficient": "nvidia.com/gpu", "insufficient_gpu": True})]),
    ("kubectl_pods/gpumanager24_failed_scheduling_quota.txt",
     [("k8s_pod_event", 1, {"reason": "FailedScheduling", "insufficient": "", "insufficient_gpu": False})]),
    # eleven Running rows read without a fact, "12 (4m24s ago)" restarts
    ("kubectl_pods/gpuoperator624_get_pods_crashloop.txt",
     [("k8s_container_waiting", 6, {"pod": "gpu-operator-657c5b798d-xgvgc", "reason": "CrashLoopBackOff"})]),
    # `get pods -A` rows without their header (canonical/microk8s#2634): Init:0/1 and Running rows nothing, the
    # validator's Init:Error its init container's terminated reason (no exit code in a get pods row)
    ("kubectl_pods/microk8s2634_get_pods_all_namespaces_no_header.txt",
     [("k8s_container_terminated", 9, {"pod": "nvidia-operator-validator-gmp5w", "container": "(an init container)",
                                       "reason": "Error", "exit_code": None, "oom_killed": False})]),
    # the validator held in init, its fourth init container (plugin-validation) run again 9 times (NVIDIA/gpu-operator#2550)
    ("kubectl_pods/gpuoperator2550_validator_init_3_of_4_restarts.txt",
     [("k8s_container_waiting", 2, {"pod": "nvidia-operator-validator-rv4qn", "container": "plugin-validation",
                                    "reason": "Init:3/4", "restarts": 9, "gpu_stack_role": "operator-validator",
                                    "node": "collarquill"})]),
    # OpenShift's oc get pods (NVIDIA/gpu-operator#1848): the cuda-validator's Init:Error, the validator's Init:2/4 with 41
    # restarts its cuda-validation; the Running rows with restarts nothing
    ("kubectl_pods/gpuoperator1848_validator_init_2_of_4_41_restarts.txt",
     [("k8s_container_terminated", 6, {"pod": "nvidia-cuda-validator-wgs28", "reason": "Error"}),
      ("k8s_container_waiting", 12, {"pod": "nvidia-operator-validator-99l6b", "container": "cuda-validation",
                                     "reason": "Init:2/4", "restarts": 41})]),
    ("kubectl_pods/gpumanager182_pod_unexpected_admission.txt",
     [("k8s_pod_status", 1, {"status": "UnexpectedAdmissionError", "rejected": "device_admission", "out_of": None})]),
    # get pods -o wide rows, the header cut by grep (GoogleCloudPlatform/container-engine-accelerators#100): the three
    # Running rows nothing; the kubelet's admission refusal OutOfnvidia.com/gpu, a device plugin's resource
    ("kubectl_pods/cea100_get_pods_wide_outofgpu.txt",
     [("k8s_pod_status", 3, {"pod": "gpu-replicaset-bxbc2", "status": "OutOfnvidia.com/gpu", "rejected": "device_admission",
                             "out_of": "nvidia.com/gpu", "node": "controller-2.k8s.ml.prod.srcd.host"})]),
    # kubectl get all -A rows, pod/ before the name (canonical/microk8s#1370): ErrImagePull a container's wait, Evicted the pod's
    ("kubectl_pods/microk8s1370_get_all_evicted.txt",
     [("k8s_container_waiting", 1, {"pod": "rapidsai-scheduler-7675655dc6-9qxtq", "reason": "ErrImagePull"}),
      ("k8s_pod_status", 2, {"pod": "rapidsai-worker-77c9d9d8cb-6jmlt", "namespace": "mynamespace", "status": "Evicted",
                             "rejected": "evicted"})]),
    # a Terminated state whose Message runs over two lines (the hook's stderr after its newline, at the margin:
    # NVIDIA/gpu-operator#898): the Exit Code after it is still read
    ("kubectl_pods/gpuoperator898_toolkit_validation_starterror_multiline_message.txt",
     [("k8s_container_waiting", 17, {"container": "toolkit-validation", "reason": "CrashLoopBackOff"}),
      ("k8s_container_terminated", 19, {"container": "toolkit-validation", "which": "Last State", "reason": "StartError",
                                        "exit_code": 128, "oom_killed": False})]),
    # the kubelet's own log (journald prefix): "Error syncing pod ... failed to "StartContainer" for ... with CrashLoopBackOff"
    ("kubectl_pods/kubelet_crashloop_gpuoperator8.log",
     [("k8s_container_waiting", 2, {"pod": "nvidia-driver-daemonset-6d97v", "container": "nvidia-driver-ctr",
                                    "reason": "CrashLoopBackOff"})]),
])
def test_real_samples(name, want):
    got = _parse(kubectl_pods, name).facts
    assert [(f.kind, f.evidence.line) for f in got] == [(k, line) for k, line, _ in want]
    for f, (_, _, fields) in zip(got, want):
        assert {k: getattr(f, k) for k in fields} == fields


def test_get_pods_statuses_read_as_what_they_are():
    text = ("NAMESPACE   NAME      READY   STATUS                     RESTARTS      AGE\n"
            "default     train-0   0/1     OOMKilled                  3 (1m ago)    9m\n"
            "default     train-1   0/1     Init:OOMKilled             0             9m\n"
            "default     train-2   0/1     ExitCode:139               1             9m\n"
            "default     train-3   0/1     UnexpectedAdmissionError   0             4s\n"
            "default     train-4   0/1     Init:0/1                   0             4s\n"
            "default     train-5   1/1     Running                    0             4s\n")
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="n1")).facts
    assert [(f.kind, f.pod, getattr(f, "reason", None) or f.status) for f in got] == [
        ("k8s_container_terminated", "train-0", "OOMKilled"), ("k8s_container_terminated", "train-1", "OOMKilled"),
        ("k8s_container_terminated", "train-2", "ExitCode:139"), ("k8s_pod_status", "train-3", "UnexpectedAdmissionError")]
    assert [f.oom_killed for f in got[:3]] == [True, True, False] and got[2].exit_code == 139


def test_wide_rows_name_the_node_where_no_folder_does():
    # -o wide's NODE column (container-engine-accelerators#100): the node of the row's fact when the file has no
    # node folder; a node folder wins
    text = (FIX / "kubectl_pods/cea100_get_pods_wide_outofgpu.txt").read_text()
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="unknown")).facts
    assert [(f.node, f.pod) for f in got] == [("controller-2.k8s.ml.prod.srcd.host", "gpu-replicaset-bxbc2")]
    got = kubectl_pods.parse(Artefact(path="n7/p.txt", text=text, node="n7", node_from_folder=True)).facts
    assert [f.node for f in got] == ["n7"]


def test_out_of_reasons_tell_devices_from_node_resources():
    # lifecycle/predicate.go: reason fmt.Sprintf("OutOf%s", re.ResourceName); a device plugin's resource has a domain
    assert kubectl_pods.rejected_by("OutOfnvidia.com/gpu") == ("device_admission", "nvidia.com/gpu")
    assert kubectl_pods.rejected_by("OutOfcpu") == ("resource_admission", "cpu")
    assert kubectl_pods.rejected_by("UnexpectedAdmissionError") == ("device_admission", None)
    assert kubectl_pods.rejected_by("Evicted") == ("evicted", None)
    # pkg/kubelet/cm/topologymanager: ErrorTopologyAffinity = "TopologyAffinityError"
    assert kubectl_pods.rejected_by("TopologyAffinityError") == ("topology_admission", None)
    assert kubectl_pods.rejected_by("NodeAffinity") == (None, None)


def test_pod_and_node_name_the_container_facts():
    # Name:/Node: as kubectl prints them (NTHU-LSALAB/KubeShare#4), above the real container block of geti_v2#340
    text = ("Name:           sharepod1\nNode:           k8s-gpu/10.166.15.26\nContainers:\n  exporter:\n"
            + (FIX / "kubectl_pods/geti340_describe_dcgm_exporter_oomkilled.txt").read_text())
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="n1")).facts
    assert [(f.kind, f.pod, f.container, f.k8s_node) for f in got] == [
        ("k8s_container_waiting", "sharepod1", "exporter", "k8s-gpu"),
        ("k8s_container_terminated", "sharepod1", "exporter", "k8s-gpu")]


def test_the_pods_node_names_its_facts_where_no_folder_does():
    # the Name:/Node: lines above (as in test_pod_and_node_name_the_container_facts): the pod's node is its facts' node in
    # a file no node folder places; a folder wins
    text = ("Name:           sharepod1\nNode:           k8s-gpu/10.166.15.26\nContainers:\n  exporter:\n"
            + (FIX / "kubectl_pods/geti340_describe_dcgm_exporter_oomkilled.txt").read_text())
    assert {f.node for f in kubectl_pods.parse(Artefact(path="p.txt", text=text, node="unknown")).facts} == {"k8s-gpu"}
    assert {f.node for f in kubectl_pods.parse(Artefact(path="n1/p.txt", text=text, node="n1", node_from_folder=True)).facts} == {"n1"}


def test_events_name_their_node_by_the_scheduled_event_or_the_from_column():
    # kubernetes-sigs/dra-driver-nvidia-gpu#736: a describe pasted from below its Name:, the Scheduled event binds one pod
    # ("Successfully assigned arc-runners/nvidia-example-workload to talos-pxs-ia1", kube-scheduler schedule_one.go)
    text = (FIX / "container_runtime/dra736_mixed_describe_containerd_dra_device_unresolvable.txt").read_text()
    got = kubectl_pods.parse(Artefact(path="d.txt", text=text, node="unknown")).facts
    assert [(f.kind, f.node) for f in got] == [("k8s_pod_event", "talos-pxs-ia1")]
    # NVIDIA/gpu-operator#72 (harvest 1702): the pre-1.19 From column "kubelet, <node>" names each event's host, as pasted
    # (the paste's last row says fp-ai-worker-01)
    text = next((FIX.parent / "harvest/cases").glob("1702-*/kubectl-describe-events.txt")).read_text()
    got = kubectl_pods.parse(Artefact(path="e.txt", text=text, node="unknown")).facts
    assert [(f.reason, f.node) for f in got] == [("Failed", "ai-worker-01"), ("BackOff", "fp-ai-worker-01")]
    got = kubectl_pods.parse(Artefact(path="n3/e.txt", text=text, node="n3", node_from_folder=True)).facts
    assert {f.node for f in got} == {"n3"}


def test_container_status_unknown_is_a_lost_container_with_no_exit_code():
    # kubernetes/kubernetes#122932 (microk8s get pods -A): the kubelet's own terminated reason for a container it could not
    # find (ContainerReasonStatusUnknown), a pod's and an init container's
    text = ("NAMESPACE     NAME                                       READY   STATUS                        RESTARTS       AGE\n"
            "admin         keycloak-init-w5rrb                        0/1     Init:ContainerStatusUnknown   0              23h\n"
            "admin         cert-init-szk-dgzfv                        0/1     ContainerStatusUnknown        1              23h\n")
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="n1")).facts
    assert [(f.kind, f.pod, f.reason, f.exit_code) for f in got] == [
        ("k8s_container_terminated", "keycloak-init-w5rrb", "ContainerStatusUnknown", None),
        ("k8s_container_terminated", "cert-init-szk-dgzfv", "ContainerStatusUnknown", None)]


def test_container_block_without_its_margin():
    # what the bundle reader sees of geti_v2#340's block: the common indentation stripped (facts/lines.py)
    text = normalise((FIX / "kubectl_pods/geti340_describe_dcgm_exporter_oomkilled.txt").read_text())
    assert text.startswith("Image:") and kubectl_pods.detect(text)
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="n1")).facts
    assert [(f.kind, f.evidence.line, f.reason) for f in got] == [
        ("k8s_container_waiting", 9, "CrashLoopBackOff"), ("k8s_container_terminated", 11, "OOMKilled")]
    assert got[1].exit_code == 137 and got[1].which == "Last State"


def test_signature_linear_over_blank_lines():
    # a run of blank-ish lines: the signature's leading blanks stay on their line (was 10 s for these 10,000)
    start = time.perf_counter()
    assert kubectl_pods._DETECT.search(" \n" * 10_000 + "x State:") is None
    assert time.perf_counter() - start < 1


def test_rows_without_header_only_in_kubectl_form():
    # a get pods row pasted alone, with and without its namespace; "-o wide" columns after the age
    text = ("train-0   0/1     CrashLoopBackOff   12 (4m24s ago)   67m\n"
            "gpu-operator   train-1   0/1   Error   3   4d5h   10.1.2.3   node7   <none>   <none>\n")
    assert kubectl_pods.detect(text)
    got = kubectl_pods.parse(Artefact(path="p.txt", text=text, node="n1")).facts
    assert [(f.kind, f.pod, f.reason) for f in got] == [("k8s_container_waiting", "train-0", "CrashLoopBackOff"),
                                                         ("k8s_container_terminated", "train-1", "Error")]
    # other kubectl tables' rows (get deploy/ds/sts: numbers after READY; get nodes: no READY ratio) are not pods
    for other in ("gpu-operator   1/1     1            1           67m\n", "web   2/2   5d\n",
                  "node1   Ready    control-plane   26h   v1.33.5\n", "job-1   0/1   Error   x   31s\n",
                  "train-0   0/1   Error   2   yesterday\n"):
        assert not kubectl_pods.detect(other), other


def test_not_kubectl():
    assert not kubectl_pods.detect("Warning: something went wrong\nState: fine\n")
    # kuberuntime's form for another action than starting a container: not a container's waiting reason
    assert not kubectl_pods.detect('failed to "KillPodSandbox" for "ac11cbf1" with KillPodSandboxError: "rpc error"\n')
    assert not kubectl_pods.detect("")



def test_kubeflow_operator_pod_exit_event():
    # kubeflow/trainer#2008: the training operator's Warning event (recordAbnormalPods) in its zap log
    text = (FIX / "kubectl_pods" / "trainer2008_operator_pod_exit_event.log").read_text()
    assert kubectl_pods.detect(text)
    (f,) = kubectl_pods.parse(Artefact(path="t.log", text=text, node="node1")).facts
    assert (f.kind, f.evidence.line, f.pod, f.container, f.reason, f.exit_code, f.oom_killed) == (
        "k8s_container_terminated", 1, "pytorch-simple-worker-0", "pytorch", "Error", 1, False)


def test_kubeflow_operator_event_in_an_events_table_takes_its_reason_column():
    # the same event format string as `kubectl describe pytorchjob` lists it (Reason column = terminated.Reason)
    row = "  Warning  OOMKilled  2m  pytorchjob-controller  Error pod job-worker-0 container pytorch exitCode: 137 terminated message: \n"
    (f,) = kubectl_pods.parse(Artefact(path="t.txt", text=row, node="node1")).facts
    assert (f.kind, f.reason, f.exit_code, f.oom_killed) == ("k8s_container_terminated", "OOMKilled", 137, True)


def test_fit_error_in_a_pod_condition_and_no_double_reading_of_an_event_row():
    # kubectl get pod -o yaml's PodScheduled condition (FitError.Error(): "0/%v nodes are available: %v.")
    text = ("  - lastProbeTime: null\n    message: '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.'\n"
            "    reason: Unschedulable\n")
    assert kubectl_pods.detect(text)
    (f,) = kubectl_pods.parse(Artefact(path="p.yaml", text=text, node="n1")).facts
    assert (f.evidence.line, f.message, f.insufficient_gpu) == (2, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.", True)
    # "1/3 nodes are available" is not the scheduler's failure; the Events row is read once, as the row
    assert not kubectl_pods.detect("1/3 nodes are available: ok\n")
    got = _parse(kubectl_pods, "kubectl_pods/kubeflow794_pending_insufficient_gpu.txt").facts
    assert [f.kind for f in got] == ["k8s_pod_event"]


def test_rdma_nic_resources_are_told_from_gpus():
    """aws-samples/aws-efa-eks#8: EFA is an RDMA NIC resource, not a GPU; the other platforms' RDMA resource names too."""
    (f,) = _parse(kubectl_pods, "kubectl_pods/failedscheduling_insufficient_efa.txt").facts
    assert (f.reason, f.insufficient, f.insufficient_gpu, f.insufficient_rdma) == (
        "FailedScheduling", "vpc.amazonaws.com/efa", False, True)
    for res, rdma in (("rdma/hca_shared_devices_a", True), ("nvidia.com/hostdev", True), ("openshift.io/sriov_rdma_nic", True),
                      ("nvidia.com/gpu", False), ("cpu", False), ("memory", False)):
        text = f"  Warning  FailedScheduling  1m  default-scheduler  0/2 nodes are available: 2 Insufficient {res}.\n"
        (f,) = kubectl_pods.parse(Artefact(path="e.txt", text=text, node="n1")).facts
        assert f.insufficient_rdma is rdma, res


def test_gpu_stack_pods_are_told_by_their_daemonset():
    """canonical/microk8s#2634's rows and NVIDIA/gpu-operator#8's kubelet line: a DaemonSet's pod is its name and a
    five-character suffix; the GPU operator's own controller (a Deployment, gpu-operator#624) is no stack pod."""
    got = _parse(kubectl_pods, "kubectl_pods/microk8s2634_get_pods_all_namespaces_no_header.txt").facts
    assert [(f.pod, f.gpu_stack_role) for f in got] == [("nvidia-operator-validator-gmp5w", "operator-validator")]
    (f,) = _parse(kubectl_pods, "kubectl_pods/kubelet_crashloop_gpuoperator8.log").facts
    assert (f.pod, f.gpu_stack_role) == ("nvidia-driver-daemonset-6d97v", "driver")
    (f,) = _parse(kubectl_pods, "kubectl_pods/gpuoperator624_get_pods_crashloop.txt").facts
    assert (f.pod, f.gpu_stack_role) == ("gpu-operator-657c5b798d-xgvgc", None)
    for pod, role in (("nvidia-driver-daemonset-5.15.0-1048-azure-ubuntu22.04-x7kq2", "driver"),
                      ("gpu-feature-discovery-cmd8l", "gpu-feature-discovery"), ("nvidia-dcgm-vzwqf", "dcgm"),
                      ("nvidia-dcgm-exporter-ns9bm", "dcgm-exporter"), ("nvidia-device-plugin-daemonset-ctg97", "device-plugin"),
                      ("gpu-operator-node-feature-discovery-worker-5nl2l", None), ("train-worker-0", None),
                      # the operator's validation pods, no DaemonSet's: 1.0-1.6's fixed names (gpu-operator#130),
                      # 1.7+'s started by nvidia-operator-validator (gpu-operator#652)
                      ("nvidia-driver-validation", "operator-validator"), ("nvidia-device-plugin-validation", "operator-validator"),
                      ("nvidia-cuda-validator-7bq4m", "operator-validator"), ("nvidia-device-plugin-validator-2dk9w", "operator-validator"),
                      ("nvidia-driver-validation-job", None)):
        assert kubectl_pods.stack_role(pod) == role, pod


def test_a_describe_cut_above_controlled_by_is_told_by_its_daemonset():
    """GoogleCloudPlatform/container-engine-accelerators#132: the describe starts at 'Controlled By:
    DaemonSet/nvidia-driver-installer-ubuntu', the pod's Name: cut; its containers are the driver's."""
    got = _parse(kubectl_pods, "kubectl_pods/cea132_driver_installer_describe_controlled_by.txt").facts
    assert [(f.kind, f.container, f.gpu_stack_role) for f in got] == [
        ("k8s_container_waiting", "nvidia-driver-installer", "driver"),
        ("k8s_container_terminated", "nvidia-driver-installer", "driver")]
    # another DaemonSet's pod is no stack pod; a later pod's Name: forgets the controller
    text = (FIX / "kubectl_pods/cea132_driver_installer_describe_controlled_by.txt").read_text()
    other = kubectl_pods.parse(Artefact(path="t", text=text.replace("nvidia-driver-installer-ubuntu", "kube-proxy"), node="n1"))
    assert {f.gpu_stack_role for f in other.facts} == {None}
    renamed = kubectl_pods.parse(Artefact(path="t", text=text.replace("Init Containers:", "Name:  train-0\nInit Containers:"),
                                          node="n1"))
    assert {f.gpu_stack_role for f in renamed.facts} == {None}


def test_gang_scheduler_waiting_event_is_read_as_its_event():
    """volcano-sh/volcano#1094: Volcano's PodGroup event of a job waiting for resources (cache.go RecordJobStatusEvent,
    "%v/%v tasks in gang unschedulable: %v") is a Warning row like any other, its source the scheduler's name (what a rule for a job
    waiting in its queue would match); the conditions above it (indented Reason/Message) give no fact."""
    (f,) = _parse(kubectl_pods, "kubectl_pods/volcano1094_podgroup_gang_unschedulable.txt").facts
    assert (f.evidence.line, f.reason, f.source, f.count, f.insufficient_gpu) == (13, "Unschedulable", "volcano", 78789, False)
    assert f.message.startswith("1/1 tasks in gang unschedulable: pod group is not ready, 1 Pending, 1 minAvailable")


# NVIDIA/gpu-operator#2168: the events of the operator's namespace, a block pasted without its header (verbatim, the last
# row cut where the stored excerpt ends); inline, not a fixture: its messages are the container runtime's too
SANDBOX_2168 = (
    '2m55s       Warning   FailedCreatePodSandBox   pod/nvidia-dcgm-exporter-qd6vj                 Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "a5b1e58fbff7a57c494bf8d022252ba7d195fe4cb86134584bdf8045198d03ad": no runtime for "nvidia" is configured\n'
    '2m52s       Warning   FailedCreatePodSandBox   pod/gpu-feature-discovery-bptk4                Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "2cdc7fa02cb3cceaca8bbe66ae2e1296380cce749848dca9733fe225ac87d5ec": no runtime for "nvidia" is configured\n'
    '2m52s       Warning   FailedCreatePodSandBox   pod/nvidia-mig-manager-nzmhb                   Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "06335bc09cd5c1047f70fdf5f82ecf5ac09a1ddf0e17e889512ecb2f5283f4e5": no runtime for "nvidia" is configured\n'
    '2m52s       Warning   FailedCreatePodSandBox   pod/nvidia-operator-validator-l4754            Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "643fcb4a00d2aace8b59daaec3e2a618e685adc6bb0d19303ff3dfe7b2071af2": no runtime for "nvidia" is configured\n'
    '2m49s       Warning   FailedCreatePodSandBox   pod/nvidia-device-plugin-daemonset-2nc7v       Failed to create pod sandbox: rpc error: code = Unkno\n'
)


def test_get_events_rows_name_the_pod_or_the_node_of_their_object():
    """NVIDIA/gpu-operator#2168 (must-gather's `kubectl get events`, kubernetes printers.go printEvent: LAST SEEN, TYPE,
    REASON, OBJECT as <kind>/<name>, MESSAGE): a Warning row is the event of the pod its OBJECT names, with or without the
    header; Normal rows are read past; a Scheduled row gives the pod's node, as describe's Events do."""
    res = kubectl_pods.parse(Artefact(path="t", text=SANDBOX_2168, node="n1"))
    assert kubectl_pods.detect(SANDBOX_2168) and not res.errors
    assert [(f.kind, f.evidence.line, f.pod, f.reason, f.source) for f in res.facts] == [
        ("k8s_pod_event", n, pod, "FailedCreatePodSandBox", "(not shown)") for n, pod in enumerate(
            ("nvidia-dcgm-exporter-qd6vj", "gpu-feature-discovery-bptk4", "nvidia-mig-manager-nzmhb",
             "nvidia-operator-validator-l4754", "nvidia-device-plugin-daemonset-2nc7v"), 1)]
    assert res.facts[0].message.endswith('no runtime for "nvidia" is configured') and res.facts[0].node == "n1"
    assert res.facts[4].message.endswith("code = Unkno")  # the row cut by the excerpt is still that pod's event
    # the header and the node's Normal rows: read, no fact
    node = _parse(kubectl_pods, "kubectl_pods/gpuoperator2168_get_events_node_upgrade.txt")
    assert (node.facts, node.lines_used) == ([], 6)
    scheduled = _parse(kubectl_pods, "kubectl_pods/gpuoperator2168_get_events_scheduled.txt")
    assert (scheduled.facts, scheduled.lines_used) == ([], 8)  # '4m9s  Normal  Pulled' (cut before its OBJECT) unread
    # in one listing the Scheduled rows bind each pod to its node (the PR's events file holds both blocks)
    text = (FIX / "kubectl_pods/gpuoperator2168_get_events_scheduled.txt").read_text() + SANDBOX_2168
    both = kubectl_pods.parse(Artefact(path="t", text=text, node="n1")).facts
    assert {f.node for f in both} == {"ipp1-2890"} and len(both) == 5
    # a node's Warning event is that node's (a node folder wins), its pod not named
    warn = (FIX / "kubectl_pods/gpuoperator2168_get_events_node_upgrade.txt").read_text().replace("Normal ", "Warning")
    facts = kubectl_pods.parse(Artefact(path="t", text=warn, node="n1")).facts
    assert {(f.node, f.pod, f.reason) for f in facts} == {("ipp1-2890", "(not named)", "GPUDriverUpgrade")}
    folder = kubectl_pods.parse(Artefact(path="t", text=warn, node="n1", node_from_folder=True)).facts
    assert {f.node for f in folder} == {"n1"}


def test_get_events_failed_scheduling_row_names_its_pod():
    """kubernetes/kubernetes#100400 (the description's get events row, single blanks between TYPE, REASON and OBJECT): the
    scheduler's FitError is that pod's event, its source not shown; before, the message alone was read, the pod not named."""
    line = ("11s   Warning FailedScheduling pod/nmap     0/20 nodes are available: 1 node(s) didn't match pod "
            "affinity/anti-affinity, 19 node(s) didn't match node selector.\n")
    assert kubectl_pods.detect(line)
    (f,) = kubectl_pods.parse(Artefact(path="t", text=line, node="n1")).facts
    assert (f.kind, f.pod, f.reason, f.source, f.count, f.insufficient_gpu) == (
        "k8s_pod_event", "nmap", "FailedScheduling", "(not shown)", 1, False)
    assert f.message.startswith("0/20 nodes are available: 1 node(s)")


def test_a_sandbox_whose_multus_delegate_failed_names_the_network_and_the_plugin_error():
    # k8snetworkplumbingwg/ib-sriov-cni#66: describe's Events rows, the kubelet's FailedCreatePodSandBox carrying Multus'
    # "[ns/pod/uid:net]: error adding container to network \"<net>\": <plugin error>" and dockershim's clean-up clause after
    text = (FIX / "kubectl_pods" / "ibsriovcni66_sandbox_ib_vf_guid_not_valid.txt").read_text()
    ev = [f for f in kubectl_pods.parse(Artefact(path="events", text=text, node="n")).facts if f.kind == "k8s_pod_event"]
    assert [(f.pod, f.reason, f.network, f.network_error) for f in ev] == [
        ("my-test-pod-fnjk7", "FailedCreatePodSandBox", "sriov-network",
         'infiniBand SRI-OV CNI failed to configure VF "VF ib4 GUID is not valid"'),
        # the last row, cut before Multus' words: the event, no network
        (kubectl_pods.UNNAMED, "FailedCreatePodSandBox", None, None)]
    # the runtime's own sandbox failure names no network
    row = ('2m55s       Warning   FailedCreatePodSandBox   pod/nvidia-dcgm-exporter-qd6vj                 Failed to create pod sandbox: '
           'rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "a5b1e58f": no runtime for "nvidia" is configured\n')
    (f,) = [f for f in kubectl_pods.parse(Artefact(path="events", text=row, node="n")).facts if f.kind == "k8s_pod_event"]
    assert (f.network, f.network_error) == (None, None)


# issue 11 (round rS1): a healthy pod's describe (CONSTRUCTED in kubectl describe.go's layout: describePod,
# describeContainers, describeVolumes, DescribeEvents) is read whole, its Node: the node of its containers' states
_HEALTHY_DESCRIBE = """Name:             cuda-vectoradd
Namespace:        default
Priority:         0
Service Account:  default
Node:             gpu-node-7/10.0.0.7
Start Time:       Sun, 06 Dec 2026 10:00:00 +0000
Labels:           <none>
Annotations:      <none>
Status:           Succeeded
IP:               10.244.1.12
IPs:
  IP:  10.244.1.12
Containers:
  cuda-vectoradd:
    Container ID:   containerd://5f2b8a1d9c
    Image:          nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04
    Port:           <none>
    Host Port:      <none>
    State:          Terminated
      Reason:       Completed
      Exit Code:    0
      Started:      Sun, 06 Dec 2026 10:00:05 +0000
      Finished:     Sun, 06 Dec 2026 10:00:06 +0000
    Ready:          False
    Restart Count:  0
    Limits:
      nvidia.com/gpu:  1
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-abcde (ro)
Conditions:
  Type                        Status
  Initialized                 True
  PodScheduled                True
Volumes:
  kube-api-access-abcde:
    Type:                    Projected (a volume that contains injected data from multiple sources)
QoS Class:                   BestEffort
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  60s   default-scheduler  Successfully assigned default/cuda-vectoradd to gpu-node-7
  Normal  Started    57s   kubelet            Started container cuda-vectoradd
"""


def _parse_text(text: str):
    assert kubectl_pods.detect(text)
    art = Artefact(path="describe.txt", text=text, node="(unknown)")
    art.normalise()
    res = kubectl_pods.parse(art)
    assert not res.errors
    return res


def test_a_healthy_pods_describe_is_read_whole():
    r = _parse_text(_HEALTHY_DESCRIBE)
    assert not r.facts and r.lines_used == len(_HEALTHY_DESCRIBE.strip().split("\n"))


def test_the_describes_node_is_its_container_states_node():
    text = _HEALTHY_DESCRIBE.replace("Reason:       Completed", "Reason:       OOMKilled").replace("Exit Code:    0", "Exit Code:    137")
    r = _parse_text(text)
    (f,) = r.facts
    assert (f.kind, f.k8s_node, f.reason, f.exit_code) == ("k8s_container_terminated", "gpu-node-7", "OOMKilled", 137)
    assert r.lines_used == len(text.strip().split("\n"))


def test_a_list_fields_item_that_reads_as_a_failure_is_not_taken():
    text = _HEALTHY_DESCRIBE.replace("      nvidia.com/gpu:  1", "      nvidia.com/gpu:  1\n      hook failed: permission denied")
    assert _parse_text(text).lines_used == len(text.strip().split("\n")) - 1


@pytest.mark.parametrize("name, unread", [
    # determined-ai/determined#7044 and aws-samples/eks-workshop#508 (verbatim): Pending pods, Node: <none>, no state or
    # event pasted: known by their Node: field, read whole but the prompt and the row the excerpt cut
    ("kubectl_pods/determined7044_describe_pending_node_none.txt", 1),
    ("kubectl_pods/eksworkshop508_describe_pending_cut.txt", 2),
])
def test_a_pending_pods_describe_is_known_by_its_node_field(name, unread):
    text = (FIX / name).read_text()
    art = Artefact(path=name, text=text, node="n1")
    art.normalise()
    assert kubectl_pods.detect(art.text)
    r = kubectl_pods.parse(art)
    assert not r.facts and not r.errors
    assert len([ln for ln in art.lines if ln.strip()]) - r.lines_used == unread


def test_a_backoff_event_of_a_container_whose_failed_state_was_read_is_its_echo():
    # the kubelet's "Back-off restarting failed container X in pod Y" (CONSTRUCTED) beside X's OOMKilled state: no event
    # of its own (read with the state); beside another container's, or with no state read, an event as before
    text = (_HEALTHY_DESCRIBE.replace("Reason:       Completed", "Reason:       OOMKilled").replace("Exit Code:    0", "Exit Code:    137")
            + "  Warning  BackOff    10s (x3 over 40s)  kubelet            Back-off restarting failed container cuda-vectoradd in pod cuda-vectoradd_default(1234)\n")
    r = _parse_text(text)
    assert [f.kind for f in r.facts] == ["k8s_container_terminated"]
    assert r.lines_used == len(text.strip().split("\n"))
    other = text.replace("failed container cuda-vectoradd in", "failed container sidecar in")
    assert [f.kind for f in _parse_text(other).facts] == ["k8s_container_terminated", "k8s_pod_event"]
    healthy = _HEALTHY_DESCRIBE + text.split("\n")[-2] + "\n"
    assert [f.reason for f in _parse_text(healthy).facts] == ["BackOff"]
