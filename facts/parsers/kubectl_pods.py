"""What ``kubectl describe pod`` and ``kubectl get pods`` say of a GPU job's pods.

The describe printer (kubectl pkg/describe/describe.go: describeContainerState, DescribeEvents)
writes a container's state and last state as indented ``Key:  value`` lines, the pod's own
``Status:``/``Reason:``/``Message:`` at the left margin, and an Events table; ``kubectl get
pods`` writes one row per pod under a ``NAME READY STATUS RESTARTS AGE`` header (``NAMESPACE``
first with ``-A``, more columns with ``-o wide``). Sample content (real: open-edge-platform/geti_v2#340,
NVIDIA/nvidia-container-toolkit#30, kubeflow/kubeflow#794, NVIDIA/gpu-operator#624)::

        State:          Waiting
          Reason:       CrashLoopBackOff
        Last State:     Terminated
          Reason:       OOMKilled
          Exit Code:    137
    Events:
      Type     Reason            Age                From               Message
      ----     ------            ----               ----               -------
      Warning  FailedScheduling  2s (x57 over 15m)  default-scheduler  0/6 nodes are available: 6 Insufficient nvidia.com/gpu.
    NAME                            READY   STATUS             RESTARTS         AGE
    gpu-operator-657c5b798d-xgvgc   0/1     CrashLoopBackOff   12 (4m24s ago)   67m

Facts (each citing its line):

- ``k8s_container_terminated``: a container's ``State:`` or ``Last State:`` ``Terminated`` with a
  reason other than ``Completed`` or a non-zero exit code (``reason``, ``exit_code``,
  ``oom_killed``: the kubelet reported the container's memory cgroup OOM kill; cites the
  ``Reason:`` line).
- ``k8s_container_waiting``: ``State: Waiting`` with a reason that is not a step of a normal
  start (``CrashLoopBackOff``, ``ImagePullBackOff``, ``CreateContainerError`` ...).
- ``k8s_pod_event``: a ``Warning`` row of the Events table (``reason``, ``source``, ``message``,
  ``count`` of ``(xN over ...)``; ``insufficient``: the resources a ``FailedScheduling``
  message says no node had, ``nvidia.com/gpu`` among them). ``Normal`` rows are read past.
- ``k8s_pod_status``: the pod's own failure reason: ``describe``'s pod-level ``Reason:`` (with its
  ``Message:``) or a ``get pods`` STATUS that is one (``UnexpectedAdmissionError``, ``Evicted``,
  ``OutOfnvidia.com/gpu`` ...). A STATUS that is a container's reason (kubectl's printPod:
  ``OOMKilled``, ``Error``, ``ExitCode:1``, ``CrashLoopBackOff``, ``Init:OOMKilled`` ...) is read as
  that container's ``k8s_container_terminated`` or ``k8s_container_waiting``. ``rejected`` tells the kubelet's own
  reasons apart: its admission refusing the pod over a device (``UnexpectedAdmissionError``, ``OutOf<domain>/<name>``),
  over a node resource (``OutOfcpu``, ``OutOfmemory``, ``OutOfpods``), or its eviction manager (``Evicted``).

``kubectl get events`` and ``kubectl events`` rows (``LAST SEEN TYPE REASON OBJECT MESSAGE``, ``NAMESPACE`` first with
``-A``) are read as describe's Events rows are: a Warning row is a ``k8s_pod_event`` of the pod its OBJECT names
(``pod/<name>``), on the node its Scheduled row names; a ``node/<name>`` row's event is that node's
(NVIDIA/gpu-operator#2168, kubernetes/kubernetes#100400).

``-o wide`` rows name the pod's node in their NODE column (after the IP): the fact's node where no node folder
names one (GoogleCloudPlatform/container-engine-accelerators#100). ``kubectl get all`` rows (``pod/<name>``) are
read as ``get pods`` rows (canonical/microk8s#1370).

Rows pasted without their header are read when whole in kubectl's form (a duration for AGE, a word
for STATUS: canonical/microk8s#2634's ``-A`` rows). ``Running``, ``Pending``, ``Completed``, ``ContainerCreating``, ``PodInitializing``,
``Init:N/M`` and ``Terminating`` give no fact (the line is read), except ``Init:N/M`` with RESTARTS above 0: an init
container that failed and is being run again, the pod held in init (the validator's ``Init:3/4  9 (6m52s ago)``,
NVIDIA/gpu-operator#2550), a ``k8s_container_waiting`` of reason ``Init:N/M`` with its ``restarts``, its container
named from the GPU Operator validator's init order where the pod is that validator. The kubelet's own log line for
a pod it cannot start (``Error syncing pod ... failed to "StartContainer" for "<container>" with
CrashLoopBackOff: "back-off ... pod=<pod>_<namespace>(<uid>)"``, NVIDIA/gpu-operator#8) is that
container's ``k8s_container_waiting``; the Kubeflow training operator's event ``Error pod <pod> container
<container> exitCode: <code> terminated message: ...`` (its controller log or a job's Events table,
kubeflow/trainer#2008) that container's ``k8s_container_terminated``. An ``Allocate failed due to
... which is unexpected`` message is also the k8s_device_plugin reader's. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    K8sContainerTerminated, K8sContainerWaiting, K8sPodEvent, K8sPodStatus, UNNAMED,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.kubectl_daemonsets import role_of

KIND = "kubectl_pods"

# nvidia-operator-validator-gmp5w, nvidia-driver-daemonset-5.15.0-1048-azure-ubuntu22.04-x7kq2: a DaemonSet's pod is
# its name and five characters (the API server's generateName suffix)
_DS_POD = re.compile(r"^(?P<ds>[a-z0-9][a-z0-9.-]{0,240})-[a-z0-9]{5}$")


# The GPU operator's validation pods, which no DaemonSet owns: nvidia-driver-validation and
# nvidia-device-plugin-validation (operator 1.0-1.6, fixed names: gpu-operator's controllers' transformations of
# "nvidia-driver-validation" and "nvidia-device-plugin-validation"; gpu-operator#130's `kubectl get pods`), and
# the pods nvidia-operator-validator starts since 1.7, nvidia-cuda-validator-<5> and
# nvidia-device-plugin-validator-<5> (gpu-operator#652): the operator validator's part of the stack
_VALIDATION_POD = re.compile(r"^nvidia-(?:driver|device-plugin|cuda|dcgm(?:-exporter)?)-validat(?:ion|or-[a-z0-9]{5})$")


def stack_role(pod: str) -> str | None:
    """The part of the node GPU stack a pod runs, from its DaemonSet's name (kubectl_daemonsets.role_of), or the
    operator validator's for its validation pods."""
    if pod.startswith("nvidia-") and _VALIDATION_POD.match(pod) is not None:
        return "operator-validator"
    m = _DS_POD.match(pod)
    return role_of(m["ds"]) if m is not None else None

#     State:          Terminated        /     Last State:     Terminated        /     State:          Waiting
# State:          Waiting               (a container's block pasted alone, its margin gone: geti_v2#340 once the
#                                        bundle reader strips the indentation all its lines share)
_STATE = re.compile(r"^(?P<ind>\s*)(?P<which>State|Last State):\s+(?P<state>Running|Waiting|Terminated)\s*$")
#       Reason:       OOMKilled         /       Exit Code:    137         (indented under the state)
_SUB = re.compile(r"^\s+(?P<key>Reason|Exit Code|Message|Signal):\s+(?P<value>\S(?:.*\S)?)\s*$")
# a Terminated state's Message that runs on (NVIDIA/gpu-operator#898, the toolkit-validation init container):
#       Message:   failed to create containerd task: ... error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
# nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown
#       Exit Code:    128
# a continuation line is any that is not a field of describe's ("Exit Code:", "Started:", "Ready:", "Mounts:"), at most
_MESSAGE_LINES = 20
_FIELD = re.compile(r"^\s*[A-Z][A-Za-z ]{0,30}:(?:\s|$)")
# Containers:  /  Init Containers:     then "  <name>:" (two spaces; a paste may lose them)
_CONTAINER = re.compile(r"^\s{0,4}(?P<name>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?):\s*$")
# Name:           sharepod1       (the pod's, at the left margin: NTHU-LSALAB/KubeShare#4)
_POD = re.compile(r"^\s{0,2}Name:\s+(?P<pod>\S+)\s*$")
# Node:           k8s-gpu/10.166.15.26
_NODE = re.compile(r"^\s{0,2}Node:\s+(?P<node>[^\s/]+)")
# The scheduler's Scheduled event names the node it bound the pod to; a describe's Events come after the pod's
# states and reason, so the node is looked up before (kube-scheduler pkg/scheduler/schedule_one.go:
# Eventf(assumed, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %v/%v to %v",
# assumed.Namespace, assumed.Name, targetNode); the same words in volcano's cache.go):
#   Normal   Scheduled  <unknown>          default-scheduler         Successfully assigned gpu-operator-resources/nvidia-driver-daemonset-prkqz to ai-worker-01   (NVIDIA/gpu-operator#72)
#   Normal   Scheduled  6m37s                 default-scheduler  Successfully assigned arc-runners/nvidia-example-workload to talos-pxs-ia1   (kubernetes-sigs/dra-driver-nvidia-gpu#736)
_ASSIGNED = re.compile(r"\bSuccessfully assigned (?P<ns>[a-z0-9][a-z0-9-]{0,62})/(?P<pod>[a-z0-9][a-z0-9.-]{0,252}) "
                       r"to (?P<node>[A-Za-z0-9][\w.-]{0,252})[ \t\r]*$", re.M)
# The From column before kubectl 1.19 named the reporting host after the component ("kubelet, <node>"):
#   Normal   Pulled     35s (x3 over 51s)  kubelet, ai-worker-01  Container image "nvcr.io/nvidia/driver:460.32.03-centos7" already present on machine   (NVIDIA/gpu-operator#72)
_SOURCE_HOST = re.compile(r"^kubelet, (?P<node>[A-Za-z0-9][\w.-]{0,252})$")
# Controlled By:  DaemonSet/nvidia-driver-installer-ubuntu   (GoogleCloudPlatform/container-engine-accelerators#132: a describe
#   pasted from this line on, the pod's Name: above it cut): the pod's DaemonSet names its part of the GPU stack
_CONTROLLER = re.compile(r"^\s{0,2}Controlled By:\s+DaemonSet/(?P<ds>[a-z0-9][a-z0-9.-]{0,252})\s*$")
# Reason:         UnexpectedAdmissionError        (the pod's own, at the left margin: tkestack/gpu-manager#182)
_POD_REASON = re.compile(r"^(?P<key>Reason|Message):\s+(?P<value>\S(?:.*\S)?)\s*$")
#   Warning  FailedScheduling  2s (x57 over 15m)  default-scheduler  0/6 nodes are available: 6 Insufficient nvidia.com/gpu.
#   Warning  UnexpectedAdmissionError  73s   kubelet  Allocate failed due to ..., which is unexpected
#   Warning  FailedScheduling  <unknown>  default-scheduler  ...        (kubectl <= 1.17's age of an event without time)
#   Warning  Failed     3m (x4 over 4m)  kubelet, gke-node-1  Error: ...   (the pre-1.19 From column: "kubelet, <node>")
_EVENT = re.compile(r"^\s*(?P<type>Normal|Warning)\s+(?P<reason>[A-Z][A-Za-z]{1,60})\s+"
                    r"(?P<age><unknown>|\S{1,20}(?: \(x(?P<count>\d{1,9}) over \S{1,20}\))?)\s{2,}"
                    r"(?P<source>\S{1,120}?(?:, \S{1,253})?)\s{2,}(?P<msg>\S(?:.*\S)?)\s*$")
# 0/6 nodes are available: 6 Insufficient nvidia.com/gpu.   /   1 Insufficient cpu, 1 Insufficient nvidia.com/gpu, 2 Insufficient memory.
_INSUFFICIENT = re.compile(r"\b\d{1,6} Insufficient (?P<res>[\w./-]{1,100}?)[.,]?(?=\s|$)")
# The extended resources RDMA NICs are advertised as, by the device plugin of each platform:
#   vpc.amazonaws.com/efa      aws-efa-k8s-device-plugin (EKS; aws-samples/aws-efa-eks#8: "64 Insufficient vpc.amazonaws.com/efa.")
#   rdma/<name>                Mellanox k8s-rdma-shared-dev-plugin (rdma/hca_shared_devices_a, AKS's rdma/ib, rdma/shared_ib)
#   nvidia.com/hostdev, nvidia.com/mlnxnics, .../sriov_rdma...   NVIDIA network operator's SR-IOV / host-device resources
_RDMA_RESOURCE = re.compile(r"^(?:vpc\.amazonaws\.com/efa|rdma/\S+|nvidia\.com/(?:hostdev|mlnxnics)|\S+/\S*(?:rdma|sriov)\S*)$")
# A pod's sandbox whose network set-up failed in a plugin Multus delegated one of the pod's networks to (an SR-IOV,
# InfiniBand SR-IOV, macvlan or host-device attachment, or its IPAM): Multus' cmdPluginErr (k8snetworkplumbingwg/multus-cni
# pkg/multus/multus.go CmdAdd, "error adding container to network %q: %v" after "[<ns>/<pod>/<uid>:<network>]: "), inside the
# runtime's FailedCreatePodSandBox message (dockershim's 'networkPlugin cni failed to set up pod "<pod>_<ns>" network: ...',
# then ", failed to clean up sandbox container ..."; containerd's 'failed to setup network for sandbox "<id>": plugin
# type="multus" ... failed (add): ...'):
#   Warning  FailedCreatePodSandBox  17s  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = [failed to set up sandbox container "93bbd851..." network for pod "my-test-pod-fnjk7": networkPlugin cni failed to set up pod "my-test-pod-fnjk7_default" network: [default/my-test-pod-fnjk7/:sriov-network]: error adding container to network "sriov-network": infiniBand SRI-OV CNI failed to configure VF "VF ib4 GUID is not valid", failed to clean up sandbox container "93bbd851..." network for pod "my-test-pod-fnjk7": ...
#   (k8snetworkplumbingwg/ib-sriov-cni#66; the plugin's error runs to the runtime's clean-up clause, or to the message's end
#   less a closing "]"; read greedy up to a non-blank, 600 characters at most, and cut there)
_CNI_ADD = re.compile(r'(?:\[(?P<ns>[a-z0-9][a-z0-9-]{0,62})/(?P<pod>[a-z0-9][a-z0-9.-]{0,252})/[0-9a-f-]{0,36}:[^\]\s]{1,253}\]: )?'
                      r'error adding container to network \\?"(?P<net>[^"\\\n]{1,253})\\?": '
                      r'(?P<err>\S(?:[^\n]{0,600}\S)?)')
#: where dockershim's clean-up clause starts after the plugin's error (the error is cut there, or at a closing "]" at its end)
_CNI_CLEANUP = ", failed to clean up sandbox container"
# The scheduler's FitError outside an Events row: the message of the FailedScheduling event and of the pod's
# PodScheduled condition (reason Unschedulable; kubectl get pod -o yaml: "message: '0/1 nodes are available: ..."),
# pasted alone (kubernetes pkg/scheduler/framework FitError.Error(): "0/%v nodes are available: %v."):
# 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.          (NVIDIA/k8s-device-plugin#382, its title)
_FIT_ERROR = re.compile(r"\b0/\d{1,6} nodes are available: (?P<reasons>\d[^\n'\"]{0,800}[^\n'\"\s])")
# NAME   READY   STATUS   RESTARTS   AGE      (NAMESPACE first with -A; IP NODE ... after with -o wide)
_HEADER = re.compile(r"^(?P<ns>NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b")
# gpu-operator-657c5b798d-xgvgc   0/1     CrashLoopBackOff   12 (4m24s ago)   67m
# fc6b601ca7bb04acb911-n0-0-dn0-0   0/1     OOMKilled   0          126m      (flyteorg/flyte#3686)
# With -o wide the pod's IP (<none> before it has one) and its NODE follow AGE: the node the kubelet that judged the pod
# runs on (GoogleCloudPlatform/container-engine-accelerators#100, rows of `get pods -o wide | grep`, header cut):
# gpu-replicaset-bxbc2                    0/1     OutOfnvidia.com/gpu   0          2h    <none>        controller-2.k8s.ml.prod.srcd.host   <none>
_WIDE = r"(?:[ \t]+(?:<none>|[0-9a-fA-F.:]{2,45})[ \t]+(?P<node>[a-z0-9][a-z0-9.-]{0,252})(?:[ \t]|$))?"
# `kubectl get all` names a pod with its resource kind (canonical/microk8s#1370, under `NAMESPACE NAME ...`):
# mynamespace                       pod/rapidsai-worker-77c9d9d8cb-6jmlt                          0/1     Evicted        0          60s
_ROW = re.compile(r"^(?:(?P<ns>[a-z0-9][a-z0-9-]{0,62})\s+)?(?:pod/)?(?P<pod>[a-z0-9][a-z0-9.-]{0,252})\s+(?P<ready>\d{1,4}/\d{1,4})\s+"
                  r"(?P<status>\S{1,80})\s+(?P<restarts>\d{1,9})(?: \([^)\n]{1,40}\))?\s+(?P<age>\S{1,20})" + _WIDE)
# The same rows pasted without their header (the excerpt or `kubectl get pods -A | grep nvidia` cut it off;
# canonical/microk8s#2634): read when the row is whole in kubectl's own form, the age a duration (31s, 67m, 4d5h)
# and the STATUS a word, so that no other table's row (get deploy/ds/sts: numbers after READY) is taken for one:
# gpu-operator-resources      nvidia-operator-validator-gmp5w                                   0/1     Init:Error   2          31s
_BARE_ROW = re.compile(r"^(?:(?P<ns>[a-z0-9][a-z0-9-]{0,62})[ \t]+)?(?:pod/)?(?P<pod>[a-z0-9][a-z0-9.-]{0,252})[ \t]+(?P<ready>\d{1,4}/\d{1,4})[ \t]+"
                       r"(?P<status>[A-Za-z][\w:/.-]{0,79})[ \t]+(?P<restarts>\d{1,9})(?: \([^)\n]{1,40}\))?[ \t]+"
                       r"(?P<age>\d{1,5}[smhdy](?:\d{1,2}[smh])?)" + _WIDE + r"(?:[ \t]|$)", re.M)
# The kubelet's log of a pod it cannot start (pkg/kubelet/pod_workers.go "Error syncing pod %s (%q), skipping: %v"
# before 1.20, klog.ErrorS(err, "Error syncing pod, skipping", ...) with err="..." quoted after; the error is
# kuberuntime's "failed to %q for %q with %v: %q"):
# E1103 13:31:36.822843    1601 pod_workers.go:191] Error syncing pod ac11cbf1-... ("nvidia-driver-daemonset-6d97v_gpu-operator-resources(ac11cbf1-...)"), skipping: failed to "StartContainer" for "nvidia-driver-ctr" with CrashLoopBackOff: "back-off 5m0s restarting failed container=nvidia-driver-ctr pod=nvidia-driver-daemonset-6d97v_gpu-operator-resources(ac11cbf1-...)"
#   (NVIDIA/gpu-operator#8, under journald's prefix)
_SYNC = re.compile(r'failed to \\?"StartContainer\\?" for \\?"(?P<container>[a-z0-9][a-z0-9.-]{0,252})\\?" with (?P<reason>[A-Z][A-Za-z]{1,40}): '
                   r'[^\n]{0,400}?\bpod=\\?"?(?P<pod>[a-z0-9][a-z0-9.-]{0,252})_(?P<ns>[a-z0-9][a-z0-9-]{0,62})\(')
# The Kubeflow training operator's event of a job's pod whose container exited non-zero (pkg/controller.v1/common
# pod.go recordAbnormalPods, Eventf(Warning, terminated.Reason, "Error pod %s container %s exitCode: %d terminated
# message: %s")), in its controller log (zap: `... DEBUG events Error pod ... {"type": "Warning", ..., "reason":
# "Error"}`, kubeflow/trainer#2008) or a job's Events table (the reason in its Reason column):
_OPERATOR_EXIT = re.compile(r"\bError pod (?P<pod>[a-z0-9][a-z0-9.-]{0,252}) container (?P<container>[a-z0-9][a-z0-9.-]{0,62}) "
                            r"exitCode: (?P<code>-?\d{1,5}) terminated message:")
# ``kubectl get events`` rows (the API server's table printer, kubernetes pkg/printers/internalversion/printers.go
# eventColumnDefinitions "Last Seen", "Type", "Reason", "Object", "Message" (Subobject, Source, First Seen, Count and Name
# only with -o wide, not read), printEvent's Object fmt.Sprintf("%s/%s", strings.ToLower(obj.InvolvedObject.Kind),
# obj.InvolvedObject.Name)) and ``kubectl events`` rows (kubectl pkg/cmd/events/event_printer.go printHeadings
# "LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n", "NAMESPACE\t" first with -A; printOneEvent "%s\t%s\t%s\t%s/%s\t%v\n"
# with the Kind as the API names it, "Pod/<name>", and a repeated event's interval "%s (x%d over %s)"):
# LAST SEEN   TYPE     REASON               OBJECT           MESSAGE
# 5m32s       Normal   GPUDriverUpgrade     node/ipp1-2890   Successfully updated node state label to upgrade-required
# 2m55s       Warning   FailedCreatePodSandBox   pod/nvidia-dcgm-exporter-qd6vj                 Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "a5b1e58f...": no runtime for "nvidia" is configured
#   (NVIDIA/gpu-operator#2168, must-gather's events of the operator's namespace and of a GPU node)
# A row is read with or without its header when whole in that form (a duration or <unknown> for LAST SEEN, Normal or
# Warning, a Reason word, <kind>/<name>): a Warning row is a k8s_pod_event of the pod its OBJECT names (pod/<name>),
# of the node a node/<name> row names, and of no named pod for another object (a DaemonSet's FailedCreate); Normal
# rows are read past (the Scheduled row names the pod's node, as in describe's Events).
_GET_EVENTS_HEADER = re.compile(r"^(?:NAMESPACE[ \t]+)?LAST SEEN[ \t]+TYPE[ \t]+REASON[ \t]+OBJECT[ \t]+MESSAGE[ \t\r]*$")
_GET_EVENT = re.compile(r"^(?:(?P<ns>[a-z0-9][a-z0-9-]{0,62})[ \t]+)?(?P<age><unknown>|\d{1,5}[smhdy](?:\d{1,2}[smh])?"
                        r"(?: \(x(?P<count>\d{1,9}) over (?:<unknown>|\d{1,5}[smhdy](?:\d{1,2}[smh])?)\))?)[ \t]+"
                        r"(?P<type>Normal|Warning)[ \t]+(?P<reason>[A-Za-z][\w-]{0,80})[ \t]+"
                        r"(?P<kind>[A-Za-z][\w.-]{0,62})/(?P<name>[A-Za-z0-9][\w.:-]{0,252})(?![^ \t\r\n])(?:[ \t]+(?P<msg>\S[^\n]*))?")
_EVENT_REASON = re.compile(r'"reason": ?"(?P<reason>[A-Za-z]{1,60})"|^\s*Warning\s+(?P<col>[A-Z][A-Za-z]{1,60})\s')
# (a line's own blanks only, [ \t]: a "\s" run from each line start over the next blank lines is quadratic in them)
_DETECT = re.compile(r"^[ \t]*(?:Last )?State:[ \t]+(?:Terminated|Waiting)[ \t\r]*$|^[ \t]*Warning[ \t]{2,}[A-Z][A-Za-z]{1,60}[ \t]{2,}\S"
                     r"|^(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b"
                     # the pod's own failure reason (kubelet admission and eviction: tkestack/gpu-manager#182)
                     r"|^Reason:\s+(?:UnexpectedAdmissionError|Evicted|OutOf[\w./-]{1,100}|TopologyAffinityError|NodeAffinity|NodeLost|Shutdown)\s*$"
                     r'|failed to \\?"StartContainer\\?" for \\?"[a-z0-9][a-z0-9.-]{0,252}\\?" with [A-Z][A-Za-z]{1,40}: '
                     r"|\bError pod \S+ container \S+ exitCode: -?\d+ terminated message:"
                     r"|\b0/\d{1,6} nodes are available: \d"
                     # describe's Node: field, the pod's node and its IP, or <none> while unscheduled (describe.go
                     # describePod: w.Write(LEVEL_0, "Node:\t%s\n", pod.Spec.NodeName+"/"+pod.Status.HostIP)): a
                     # describe of a pod still running or pending, no state or event of which says a failure (round rS1)
                     r"|^[ \t]{0,4}Node:[ \t]+(?:<none>|[A-Za-z0-9][\w.-]{0,252}/[\d.:a-fA-F]{3,45})[ \t\r]*$"
                     r"|" + _GET_EVENTS_HEADER.pattern +
                     # a get events row without its header (only a row whole in kubectl's form)
                     r"|^(?:[a-z0-9][a-z0-9-]{0,62}[ \t]+)?(?:<unknown>|\d{1,5}[smhdy](?:\d{1,2}[smh])?)(?: \(x\d{1,9} over \S{1,20}\))?[ \t]+"
                     r"(?:Normal|Warning)[ \t]+[A-Za-z][\w-]{0,80}[ \t]+[A-Za-z][\w.-]{0,62}/[A-Za-z0-9][\w.:-]{0,252}[ \t]", re.M)

#: the statuses of a pod's ordinary life: no fact (Init:0/1 is matched by its form)
_ORDINARY = frozenset({"Running", "Pending", "Completed", "Succeeded", "ContainerCreating", "PodInitializing",
                       "Terminating"})
#: Waiting reasons of a normal start
_STARTING = frozenset({"ContainerCreating", "PodInitializing"})
_INIT_PROGRESS = re.compile(r"^Init:\d+/\d+$")
# The kubelet's own terminated reason for a container it could not find when the pod ended (a node or kubelet restart,
# the runtime lost it): pkg/kubelet/container/runtime.go ContainerReasonStatusUnknown = "ContainerStatusUnknown", with
# kubelet_pods.go's Message "The container could not be located when the pod was terminated" and an exit code it sets
# itself (137), which no process returned; read with no exit code. In get pods' STATUS (kubernetes/kubernetes#122932):
# cert-init-szk-dgzfv                        0/1     ContainerStatusUnknown        1              23h
# keycloak-init-w5rrb                        0/1     Init:ContainerStatusUnknown   0              23h
LOST = "ContainerStatusUnknown"
#: container reasons ``get pods`` prints in STATUS (kubelet's waiting reasons, the runtime's terminated ones)
_WAITING = frozenset({"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError",
                      "CreateContainerError", "RunContainerError", "InvalidImageName", "PreCreateHookError",
                      "PreStartHookError", "PostStartHookError"})
_TERMINATED = frozenset({"OOMKilled", "Error", "ContainerCannotRun", "DeadlineExceeded", "StartError", LOST})
# The kubelet's own reasons for a pod it refused or stopped (the pod's status.reason, get pods' STATUS):
#   UnexpectedAdmissionError   pkg/kubelet/cm/devicemanager via admission: Message "Allocate failed due to %v, which is
#                              unexpected" (the device manager's Allocate: a device plugin resource, the GPU's)
#   OutOf%s                    pkg/kubelet/lifecycle/predicate.go: reason = fmt.Sprintf("OutOf%s", re.ResourceName),
#                              message "Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d"
#   Evicted                    pkg/kubelet/eviction: the eviction manager under node pressure ("The node was low on resource: %v.")
#   TopologyAffinityError      pkg/kubelet/cm/topologymanager: ErrorTopologyAffinity = "TopologyAffinityError", Message
#                              "Resources cannot be allocated with Topology locality" (the topology manager's policy,
#                              single-numa-node or restricted, found no NUMA alignment for the pod's devices, CPUs, memory)
_OUT_OF = re.compile(r"^OutOf(?P<res>[\w./-]{1,100})$")
#: a device plugin's resource is an extended resource, named with its domain (nvidia.com/gpu, nvidia.com/mig-1g.5gb,
#: alpha.kubernetes.io/nvidia-gpu); cpu, memory, pods, ephemeral-storage and hugepages-<size> have none


def rejected_by(status: str) -> tuple[str | None, str | None]:
    """What a pod-level reason says (K8sPodStatus.rejected), and the resource of an OutOf<resource>."""
    if status == "UnexpectedAdmissionError":
        return "device_admission", None
    if status == "Evicted":
        return "evicted", None
    if status == "TopologyAffinityError":
        return "topology_admission", None
    m = _OUT_OF.match(status)
    if m is not None:
        return ("device_admission" if "/" in m["res"] else "resource_admission"), m["res"]
    return None, None


# ExitCode:139 / Signal:9   (a terminated container without a reason)
_EXIT = re.compile(r"^(?P<how>ExitCode|Signal):(?P<code>-?\d{1,4})$")


def detect(head: str) -> bool:
    return ((("State:" in head or "Warning" in head or "READY" in head or "Reason:" in head or "StartContainer" in head
              or "exitCode:" in head or "nodes are available: " in head or "LAST SEEN" in head or "Normal" in head
              or "Node:" in head)
             and _DETECT.search(head) is not None)
            or ("/" in head and _BARE_ROW.search(head) is not None))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    pod = container = UNNAMED
    k8s_node = role = None
    header: re.Match | None = None
    # the node each pod was bound to, from its Scheduled event (describe prints the Events last)
    assigned = {m["pod"]: m["node"] for m in _ASSIGNED.finditer(artefact.text)} if "Successfully assigned " in artefact.text else {}
    if len(assigned) == 1:  # a describe pasted from below its Name: (its pod not named): the one pod the events bind
        k8s_node = next(iter(assigned.values()))
    n = 0
    field: tuple[int, int] | None = None  # the describe field the lines below belong to (_field_span)
    failed: set[tuple[str, str]] = set()  # (pod, container) whose state this describe read as a failure
    while n < len(lines):
        line = lines[n]
        n += 1
        if line.strip() and field is not None and len(line) - len(line.lstrip()) <= field[0] \
                and _field_span(line) is None:
            field = None
        if (m := _POD.match(line)) is not None:
            pod, container, k8s_node, header, role = m["pod"], UNNAMED, assigned.get(m["pod"]), None, None
        elif "Controlled By:" in line and (m := _CONTROLLER.match(line)) is not None:
            role = role_of(m["ds"])
        elif (m := _NODE.match(line)) is not None:
            k8s_node = m["node"] if m["node"] != "<none>" else k8s_node
        elif (m := _STATE.match(line)) is not None:
            # the pod's node (its Node: line, its Scheduled event) is the facts' node where no folder names one
            at, made = n, len(result.facts)
            n = _state(b, lines, n, m, dict(pod=pod, container=container, k8s_node=k8s_node, node=_node(b, k8s_node),
                                            gpu_stack_role=stack_role(pod) or role))
            result.lines_used += n - at  # (its Reason:, Exit Code:, Message: lines, read with it)
            if len(result.facts) > made:
                failed.add((pod, container))
        elif "exitCode:" in line and (m := _OPERATOR_EXIT.search(line)) is not None:
            r = _EVENT_REASON.search(line)
            reason = (r["reason"] or r["col"]) if r is not None else "Error"
            b.add(K8sContainerTerminated, n, pod=m["pod"], container=m["container"], which="State", reason=reason,
                  exit_code=int(m["code"]), oom_killed=reason == "OOMKilled", gpu_stack_role=stack_role(m["pod"]))
        elif (m := _EVENT.match(line)) is not None:
            if m["type"] == "Warning" and m["reason"] == "BackOff" and _echoes(m["msg"], pod, failed):
                pass  # the kubelet backing off the container whose failed state this describe read: that failure's echo
            elif m["type"] == "Warning":
                host = _SOURCE_HOST.match(m["source"])
                _event(b, n, pod, _node(b, host["node"] if host else k8s_node), m["reason"], m["source"], m["msg"], m["count"])
        elif "/" in line and (m := _GET_EVENT.match(line)) is not None:
            if m["type"] == "Warning":
                kind, name = m["kind"].lower(), m["name"]
                # the pod's node from its Scheduled row; a node's event is that node's; another object's, the file's
                node = assigned.get(name) if kind == "pod" else name if kind == "node" else None
                _event(b, n, name if kind == "pod" else UNNAMED, _node(b, node), m["reason"], _NOT_SHOWN,
                       (m["msg"] or "").rstrip(), m["count"])
        elif "LAST SEEN" in line and _GET_EVENTS_HEADER.match(line) is not None:
            pass
        elif "nodes are available: " in line and (m := _FIT_ERROR.search(line)) is not None:
            # the FailedScheduling event's message without its row: the scheduler's, its count unknown
            res = [r["res"] for r in _INSUFFICIENT.finditer(m["reasons"])] if "Insufficient" in m["reasons"] else []
            b.add(K8sPodEvent, n, pod=pod, reason="FailedScheduling", source="default-scheduler", message=m[0][:500],
                  insufficient=",".join(res), insufficient_gpu=any(r.endswith("/gpu") for r in res),
                  insufficient_rdma=any(_RDMA_RESOURCE.match(r) is not None for r in res))
        elif (m := _HEADER.match(line)) is not None:
            header = m
        elif header is not None and (m := _ROW.match(line)) is not None and bool(m["ns"]) == bool(header["ns"]):
            _row(b, n, m)
        elif header is None and "/" in line and (m := _BARE_ROW.match(line)) is not None:
            _row(b, n, m)
        elif (m := _POD_REASON.match(line)) is not None and m["key"] == "Reason":
            nxt = _POD_REASON.match(lines[n]) if n < len(lines) else None
            msg = nxt["value"] if nxt is not None and nxt["key"] == "Message" else None
            rejected, out_of = rejected_by(m["value"])
            b.add(K8sPodStatus, n, pod=pod, node=_node(b, k8s_node), status=m["value"], message=msg[:500] if msg else None,
                  gpu_stack_role=stack_role(pod),
                  rejected=rejected, out_of=out_of)
        elif "StartContainer" in line and (m := _SYNC.search(line)) is not None and m["reason"] in _WAITING:
            b.add(K8sContainerWaiting, n, pod=m["pod"], container=m["container"], reason=m["reason"],
                  gpu_stack_role=stack_role(m["pod"]))
        elif (m := _CONTAINER.match(line)) is not None:
            container = m["name"]
            if pod is UNNAMED:
                continue
        elif pod is not UNNAMED and _EVENTS_HEADER.match(line) is not None:
            pass  # (describe's Events table's header and its rule)
        elif pod is not UNNAMED and (span := _field_span(line)) is not None:
            field = span  # a describe's own field: the lines under it are its own too
        elif pod is not UNNAMED and field is not None and line.strip() \
                and len(line) - len(line.lstrip()) > field[0] and _FIELD_ERROR.search(line) is None:
            pass  # (a list field's item: a label, a condition's row, a mount, a toleration)
        else:
            continue
        result.lines_used += 1
    return result


# describe's other fields of a pod and its containers (kubectl pkg/describe/describe.go describePod, describeContainers,
# describeVolumes, DescribeEvents: "Namespace:\t%s", "Service Account:\t%s", "Start Time:\t%s", "Container ID:\t%s",
# "Restart Count:\t%d", "QoS Class:\t%s", ...), read as the describe's own lines where its pod's Name: came first (issue
# 11, round rS1: a healthy pod's describe left 48 of its 55 lines unread); a field that heads a list ("Labels:",
# "Conditions:", "Mounts:", "Tolerations:", ...) takes the lines under it, indented deeper or aligned to its value:
#   Node:             gpu-node-7/10.0.0.7        Start Time:       Sun, 06 Dec 2026 10:00:00 +0000
#   Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
#                                node.kubernetes.io/unreachable:NoExecute op=Exists for 300s          (CONSTRUCTED)
_DESCRIBE_KEYS = frozenset((
    "Namespace", "Priority", "Priority Class Name", "PriorityClassName", "Runtime Class Name", "Service Account", "Node", "Start Time",
    "Labels", "Annotations", "Status", "IP", "IPs", "Controlled By", "Nominated Node Name", "Init Containers",
    "Containers", "Container ID", "Image", "Image ID", "Port", "Ports", "Host Port", "Host Ports", "Command", "Args",
    "State", "Started", "Finished", "Ready", "Restart Count", "Limits", "Requests", "Liveness", "Readiness", "Startup",
    "Environment", "Environment Variables from", "Mounts", "Conditions", "Type", "Volumes", "TokenExpirationSeconds",
    "ConfigMapName", "ConfigMapOptional", "DownwardAPI", "Medium", "SizeLimit", "Path", "HostPathType", "ClaimName",
    "ReadOnly", "SecretName", "Optional", "QoS Class", "Node-Selectors", "Tolerations", "Events", "Message", "Reason",
    "Exit Code", "Signal", "Last State", "SeccompProfile", "Topology Spread Constraints", "Readiness Gates"))
_DESCRIBE_FIELD = re.compile(r"^(?P<ind>[ \t]*)(?P<key>[A-Z][A-Za-z -]{0,40}?):(?:[ \t]+(?P<value>\S)|[ \t]*$)")


#   Type    Reason     Age   From               Message      /      ----    ------     ----  ----               -------
_EVENTS_HEADER = re.compile(r"^\s*(?:Type\s+Reason\s+Age\s+From\s+Message|-{4}\s+-{6}\s+-{3,4}\s+-{4}\s+-{7})\s*$")
#: an item under a list field that reads as a failure is left to the readers of failures, never taken as the field's
_FIELD_ERROR = re.compile(r"(?i)\b(?:error|fail(?:ed|ure)?|fatal|panic|denied|refused|timed? ?out|killed|exception)\b")


def _field_span(line: str) -> tuple[int, int] | None:
    """(indentation, value column) of a describe field ``line`` (_DESCRIBE_KEYS), or None where it is none."""
    m = _DESCRIBE_FIELD.match(line)
    if m is None or m["key"] not in _DESCRIBE_KEYS:
        return None
    return len(m["ind"]), m.start("value") if m["value"] else len(line)


# The kubelet's BackOff event of a container it restarts (pkg/kubelet/kuberuntime: "Back-off restarting failed container
# %s in pod %s", before 1.26 "Back-off restarting failed container"), in the Events of a describe whose container state
# this reader read as a failure (Terminated OOMKilled / Error, Waiting CrashLoopBackOff): that failure's echo, read with
# it, no event of its own (round rS1: beside an OOMKilled state it stood as an error no rule explains)
#   Warning  BackOff    10s (x3 over 40s)  kubelet  Back-off restarting failed container cuda-vectoradd in pod cuda-vectoradd_default(1234)   (CONSTRUCTED)
_BACKOFF = re.compile(r"^Back-off restarting failed container(?: (?P<container>[a-z0-9][a-z0-9.-]{0,252}))?(?: in pod \S+)?\s*$")


def _echoes(msg: str, pod: str, failed: set[tuple[str, str]]) -> bool:
    """Whether the BackOff event ``msg`` of ``pod`` is the restart back-off of a container whose failed state was read
    (the container it names, or any of the pod's where it names none)."""
    m = _BACKOFF.match(msg)
    if m is None:
        return False
    if m["container"]:
        return (pod, m["container"]) in failed
    return any(p == pod for p, _c in failed)


#: the reporting component of a get events row: its table shows it only with -o wide (SOURCE)
_NOT_SHOWN = "(not shown)"


# The kubelet's prober (pkg/kubelet/prober/prober.go: recorder.Eventf(..., events.ContainerUnhealthy, "%s probe failed: %s",
# probeType, output), reason "Unhealthy"; "%s probe errored: %s" where the probe could not run), every release since 1.16
# (Startup since 1.16, Liveness and Readiness before). An exec probe whose command exits non-zero printing nothing leaves
# the output empty (the GPU Operator's driver container's startup probe runs nvidia-smi):
#   Warning  Unhealthy     2m30s (x10 over 4m)  kubelet            Startup probe failed:        (NVIDIA/gpu-operator#388)
_PROBE = re.compile(r"^(?P<probe>Startup|Liveness|Readiness) probe (?:failed|errored)(?: and resulted in \w+ state)?:[ \t]*(?P<out>.*)$")


def _event(b: FactBuilder, n: int, pod: str, node: str | None, reason: str, source: str, msg: str, count: str | None) -> None:
    """A Warning event (describe's Events row or a get events row): the resources a FailedScheduling says no node had."""
    probe = _PROBE.match(msg.strip()) if reason == "Unhealthy" else None
    res = [r["res"] for r in _INSUFFICIENT.finditer(msg)] if "Insufficient" in msg else []
    cni = _CNI_ADD.search(msg) if "error adding container to network" in msg else None
    if cni is not None and pod == UNNAMED and cni["pod"]:
        pod = cni["pod"]  # an Events table pasted without describe's Name: line above it
    b.add(K8sPodEvent, n, pod=pod, node=node, reason=reason, source=source, message=msg[:500], count=int(count or 1),
          insufficient=",".join(res), insufficient_gpu=any(r.endswith("/gpu") for r in res),
          insufficient_rdma=any(_RDMA_RESOURCE.match(r) is not None for r in res),
          network=cni["net"] if cni is not None else None,
          network_error=cni["err"].split(_CNI_CLEANUP, 1)[0].removesuffix("]").strip()[:300] if cni is not None else None,
          probe=probe["probe"].lower() if probe is not None else None,
          probe_output=(probe["out"].strip()[:300] or None) if probe is not None else None)


def _node(b: FactBuilder, k8s_node: str | None) -> str | None:
    """The fact's node for a pod bound to ``k8s_node``: a node folder wins (Artefact.node_for); None leaves the file's."""
    return b.artefact.node_for(k8s_node) if k8s_node else None


def _state(b: FactBuilder, lines: list[str], n: int, m: re.Match, where: dict) -> int:
    """Read the ``Reason:``/``Exit Code:`` lines under a state line (deeper indented); return the next line.
    A ``Message:`` may run over several lines (kubectl describe prints the runtime's message as it is: an OCI
    hook's stderr after its newline starts at the margin), so the keys after it are still read."""
    sub: dict[str, tuple[int, str]] = {}
    key, more = "", 0
    while n < len(lines):
        line = lines[n]
        if (s := _SUB.match(line)) is not None and len(line) - len(line.lstrip()) > len(m["ind"]):
            key = s["key"]
            sub.setdefault(key, (n + 1, s["value"]))
        elif key == "Message" and more < _MESSAGE_LINES and line.strip() and _FIELD.match(line) is None:
            more += 1  # the message goes on
        else:
            break
        n += 1
    reason_at, reason = sub.get("Reason", (n, ""))
    if m["state"] == "Terminated":
        code = sub.get("Exit Code", (0, ""))[1]
        exit_code = int(code) if code.lstrip("-").isdigit() else None
        if reason != "Completed" or exit_code not in (0, None):
            b.add(K8sContainerTerminated, reason_at, which=m["which"], reason=reason or "Terminated",
                  exit_code=None if reason == LOST else exit_code,
                  oom_killed=reason == "OOMKilled", **where)
    elif m["state"] == "Waiting" and reason and reason not in _STARTING:
        b.add(K8sContainerWaiting, reason_at, reason=reason, **where)
    return n


# The GPU Operator's validator pod runs its validations as init containers in this order, every release since v1.7
# (assets/state-operator-validation/0500_daemonset.yaml: driver-validation, toolkit-validation, cuda-validation,
# plugin-validation), so Init:3/4 names the plugin validation:
# nvidia-operator-validator-rv4qn   0/1   Init:3/4   9 (6m52s ago)   45m   10.244.0.25   collarquill   ...   (NVIDIA/gpu-operator#2550)
_VALIDATOR_INITS = ("driver-validation", "toolkit-validation", "cuda-validation", "plugin-validation")


def _init_restarting(b: FactBuilder, n: int, m: re.Match, status: str) -> None:
    """``Init:N/M`` with RESTARTS above 0 (kubectl's printPod: init container N, counted from 0, is running and
    the pod's init containers were restarted that many times): an init container that keeps failing and is run
    again, the pod held before its main container. The listing's moment can fall between the failures, when
    STATUS shows Init:Error or Init:CrashLoopBackOff instead."""
    restarts = int(m["restarts"])
    if restarts == 0:
        return
    index, total = (int(x) for x in status[len("Init:"):].split("/"))
    role = stack_role(m["pod"])
    container = (_VALIDATOR_INITS[index] if role == "operator-validator" and total == len(_VALIDATOR_INITS)
                 and index < total else f"(init container {index + 1} of {total})")
    b.add(K8sContainerWaiting, n, reason=status, restarts=restarts, pod=m["pod"], container=container,
          gpu_stack_role=role, node=_node(b, m["node"]))


def _row(b: FactBuilder, n: int, m: re.Match) -> None:
    """A ``get pods`` STATUS is the pod's own reason, else (kubectl's printPod) the reason a container
    (an init container: ``Init:`` before it) waits or terminated for: each read as its own fact."""
    status = m["status"]
    if _INIT_PROGRESS.match(status):
        _init_restarting(b, n, m, status)
        return
    if status in _ORDINARY:
        return
    reason = status.split(":", 1)[1] if status.startswith("Init:") else status
    container = "(an init container)" if status.startswith("Init:") else UNNAMED
    # -o wide's NODE column names the node where the bundle's folder does not
    node = _node(b, m["node"])
    where = dict(pod=m["pod"], container=container, gpu_stack_role=stack_role(m["pod"]), node=node)
    if reason in _WAITING:
        b.add(K8sContainerWaiting, n, reason=reason, **where)
    elif reason in _TERMINATED or _EXIT.match(reason):
        code = _EXIT.match(reason)
        b.add(K8sContainerTerminated, n, which="State", reason=reason, oom_killed=reason == "OOMKilled",
              exit_code=int(code["code"]) if code and code["how"] == "ExitCode" else None, **where)
    else:
        rejected, out_of = rejected_by(status)
        b.add(K8sPodStatus, n, node=node, pod=m["pod"], namespace=m["ns"], status=status, restarts=int(m["restarts"]),
              gpu_stack_role=where["gpu_stack_role"], rejected=rejected, out_of=out_of)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _BARE_ROW)
