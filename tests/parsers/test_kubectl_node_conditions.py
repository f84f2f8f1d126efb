"""kubectl describe node's Conditions (real samples: fixtures/artefacts/kubectl_node_conditions/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import kubectl_node_conditions as knc
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kubectl_node_conditions"


def _facts(text: str):
    assert knc.detect(text)
    res = knc.parse(Artefact(path="describe.txt", text=text, node="n1"))
    assert not res.errors
    return res.facts


def test_real_gke_xid_critical_error_516():
    got = [(f.evidence.line, f.condition, f.status, f.problem, f.agent, f.component, f.reason)
           for f in _facts((FIX / "gke_cea516_xid_critical_error.txt").read_text())]
    assert got == [
        (4, "NetworkUnavailable", "False", False, "kubelet", "host", "RouteCreated"),
        (5, "MemoryPressure", "False", False, "kubelet", "host", "KubeletHasSufficientMemory"),
        (6, "DiskPressure", "False", False, "kubelet", "host", "KubeletHasNoDiskPressure"),
        (7, "PIDPressure", "False", False, "kubelet", "host", "KubeletHasSufficientPID"),
        (8, "Ready", "True", False, "kubelet", "host", "KubeletReady"),
        (9, "XidCriticalError", "True", True, "agent", "gpu", ""),  # cut inside its heartbeat time
    ]


def test_real_npd_readonly_filesystem_1078():
    (f,) = _facts((FIX / "npd1078_readonly_filesystem_false.txt").read_text())
    assert (f.condition, f.status, f.problem, f.agent, f.reason) == ("ReadonlyFilesystem", "False", False, "agent", "")


def test_ready_types_nvsentinel_reason_message_and_the_table_end():
    t = "  Wed, 20 Aug 2025 20:00:40 +0000   Wed, 20 Aug 2025 20:00:40 +0000   "
    text = ("Conditions:\n  Type  Status  LastHeartbeatTime  LastTransitionTime  Reason  Message\n"
            "  ----  ------  -----------------  ------------------  ------  -------\n"
            f"  Ready  Unknown{t}NodeStatusUnknown   Kubelet stopped posting node status.\n"
            f"  AcceleratedHardwareReady  False{t}NvidiaXID79Error   XID 79 on GPU 0\n"
            f"  GpuXidError  True{t}GpuXidErrorIsNotHealthy   ErrorCode:79 gpu:0 XID error occured Recommended Action=NODE_REBOOT;\n"
            "Addresses:\n  InternalIP:  10.0.0.1\n")
    ready, accel, nvs = _facts(text)
    assert (ready.problem, ready.reason, ready.message) == (True, "NodeStatusUnknown", "Kubelet stopped posting node status.")
    assert (accel.problem, accel.component, accel.reason, accel.message) == (True, "gpu", "NvidiaXID79Error", "XID 79 on GPU 0")
    assert (nvs.agent, nvs.problem) == ("nvsentinel", True)


def test_near_misses():
    assert not knc.detect("Type  Status\nReady  True\n")  # kubectl get nodes -o custom-columns, not the describe table
    text = "  Type  Status  LastHeartbeatTime  LastTransitionTime  Reason  Message\n\n  Ready  True  later\n"
    assert _facts(text) == []  # a blank line ends the table


def test_real_npd_condition_change_events_666():
    (f,) = _facts((FIX / "npd666_kubelet_unhealthy_events.txt").read_text())
    assert (f.evidence.line, f.node, f.condition, f.status, f.problem, f.reason, f.component) == (
        4, "n1", "KubeletUnhealthy", "True", True, "KubeletUnhealthy", "host")


def test_npd_event_wordings_and_the_last_state_of_a_condition():
    text = ("5m  Warning  NvidiaGpuUnhealthy  node/gpu-1  Node condition NvidiaGpuUnhealthy is now: True, reason: "
            'XidError, message: "Xid 79 on GPU 0000:a1:00.0"\n'
            "4m  Normal  KernelDeadlock  node/gpu-1  Node condition KernelDeadlock is now: True, reason: DockerHung, msg: task docker:7 blocked\n"
            "1m  Normal  KernelDeadlock  node/gpu-1  Node condition KernelDeadlock is now: False, reason: KernelHasNoDeadlock, msg: kernel has no deadlock\n")
    gpu, deadlock = _facts(text)
    assert (gpu.node, gpu.condition, gpu.problem, gpu.component, gpu.reason, gpu.message) == (
        "gpu-1", "NvidiaGpuUnhealthy", True, "gpu", "XidError", "Xid 79 on GPU 0000:a1:00.0")
    assert (deadlock.evidence.line, deadlock.status, deadlock.problem, deadlock.message) == (
        3, "False", False, "kernel has no deadlock")


def test_real_rows_without_the_header_nvsentinel458():
    got = [(f.evidence.line, f.condition, f.status, f.problem, f.agent, f.component, f.reason, f.message)
           for f in _facts((FIX / "nvsentinel458_conditions_rows_no_header.txt").read_text())]
    assert got == [
        (1, "SysLogsXIDError", "False", False, "nvsentinel", "gpu", "SysLogsXIDErrorIsHealthy", "No Health Failures"),
        (2, "SysLogsSXIDError", "False", False, "nvsentinel", "gpu", "SysLogsSXIDErrorIsHealthy", "No Health Failures"),
    ]


def test_real_nvsentinel_quarantine_labels_are_read_no_fact_458():
    text = (FIX / "nvsentinel458_quarantine_labels.txt").read_text()
    assert knc.detect(text)
    res = knc.parse(Artefact(path="labels.txt", text=text, node="n1"))
    assert res.facts == [] and res.lines_used == 3


def test_bare_row_near_misses():
    # one time only (a cut row), or a status word in prose: not a row without its header
    assert not knc.detect("XidCriticalError     True    Wed, 20 Aug 2025 20:00:40 +0000\n")
    assert not knc.detect("the condition is True since Wed, 20 Aug 2025 20:00:40 +0000 and Wed, 20 Aug 2025 20:00:41 +0000\n")
    assert not knc.detect("cordon-by=someone-else\n")


def test_real_get_nodes_not_ready_cdk566_and_ready_cdk454():
    # charmed-kubernetes/bundle#566: kubectl get nodes, the GPU worker NotReady: the Ready condition "not True" (kubectl
    # prints NotReady for False and Unknown alike: the fact claims neither), of the node the row names
    (f,) = _facts((FIX / "cdk566_get_nodes_not_ready.txt").read_text())
    assert (f.evidence.line, f.node, f.condition, f.status, f.problem, f.agent) == (
        3, "juju-54b09d-1", "Ready", "not True", True, "kubelet")
    # charmed-kubernetes/bundle#454: a Ready node is no problem
    (f,) = _facts((FIX / "cdk454_get_nodes_ready.txt").read_text())
    assert (f.node, f.condition, f.status, f.problem) == ("maas02", "Ready", "True", False)


def test_get_nodes_wide_cordoned_and_the_table_end():
    # k3s-io/k3s#7130's -o wide header and rows (verbatim); a cordoned NotReady row and the line after the table CONSTRUCTED
    text = ("NAME              STATUS   ROLES                       AGE     VERSION        INTERNAL-IP       EXTERNAL-IP"
            "       OS-IMAGE             KERNEL-VERSION      CONTAINER-RUNTIME\n"
            "control-plane-1   Ready    control-plane,etcd,master   7m34s   v1.25.7+k3s1   100.121.166.220   100.121.166.220"
            "   Ubuntu 22.04.2 LTS   5.15.0-56-generic   containerd://1.6.15-k3s1\n"
            "gpu-2   NotReady,SchedulingDisabled   <none>   4m24s   v1.25.7+k3s1\n"
            "\nother   NotReady   <none>   1m   v1.25.7\n")
    got = [(f.node, f.status, f.problem) for f in _facts(text)]
    assert got == [("control-plane-1", "True", False), ("gpu-2", "not True", True)]
    # kubectl get pods' header is not the nodes' table
    assert not knc.detect("NAME      READY     STATUS    RESTARTS   AGE\nfoo   0/1   Pending   0   8m\n")


def test_real_ready_events_acs4236_last_state_and_the_node_named():
    # Azure/acs-engine#4236 (kubectl describe node's events): NodeNotReady 23m ago, NodeReady 22m ago (its row cut after
    # "kubelet,"): the last event is the state, of the node the rows before it named
    text = (FIX / "acs4236_describe_node_not_ready_then_ready.txt").read_text()
    (f,) = _facts(text)
    assert (f.evidence.line, f.node, f.condition, f.status, f.problem) == (
        9, "k8s-agentpool-39580029-vmss000000", "Ready", "True", False)
    # its first row alone: the node not ready, named by the message
    (f,) = _facts(text.split("\n", 1)[0])
    assert (f.node, f.status, f.problem, f.reason, f.message) == (
        "k8s-agentpool-39580029-vmss000000", "not True", True, "NodeNotReady",
        "Node k8s-agentpool-39580029-vmss000000 status is now: NodeNotReady")


def test_get_events_ready_rows():
    # CONSTRUCTED: kubectl get events' columns, RecordNodeStatusChange's message on the node, MarkPodsNotReady's on a pod
    head = "LAST SEEN   TYPE      REASON         OBJECT               MESSAGE\n"
    node = "5m          Normal    NodeNotReady   node/gpu-node-1      Node gpu-node-1 status is now: NodeNotReady\n"
    pod = "5m          Warning   NodeNotReady   pod/train-worker-0   Node is not ready\n"
    (f,) = _facts(head + node + pod)  # the pod's event beside its node's own: the node's says it
    assert (f.evidence.line, f.node, f.status, f.problem) == (2, "gpu-node-1", "not True", True)
    (f,) = _facts(head + pod)  # a pod's event alone: its node is not named, the file's
    assert (f.node, f.status, f.problem) == ("n1", "not True", True)
    back = "1m          Normal    NodeReady      node/gpu-node-1      Node gpu-node-1 status is now: NodeReady\n"
    (f,) = _facts(head + node + back)
    assert (f.evidence.line, f.status, f.problem) == (3, "True", False)
    # other events of the node, and the reason in prose: no Ready event
    assert not knc.detect("  Normal  NodeHasSufficientPID  22m  kubelet, h1  Node h1 status is now: NodeHasSufficientPID\n")
    assert not knc.detect("the node went NodeNotReady twice last night\n")
