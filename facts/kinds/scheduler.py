"""Schedulers and containers: Slurm, Kubernetes (pods, objects, device plugins), the NVIDIA
container toolkit, driver containers and container runtimes.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class ContainerRuntimeError(Fact):
    """The container engine could not give a container its GPUs (no NVIDIA runtime or driver registered)."""

    kind: Literal["container_runtime_error"] = "container_runtime_error"
    reason: str  # no_gpu_device_driver | unknown_runtime | runtime_not_configured | cdi_unresolvable_device | cdi_hook_invoked_directly | driver_file_missing | cdi_spec_unparsable
    #              | driver_utility_missing (the OCI runtime found no NVIDIA utility the toolkit binds in: exec: "nvidia-smi": executable file not found in $PATH)
    #              | hook_binary_missing (the OCI runtime could not run an NVIDIA hook: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory)
    engine: str  # docker | containerd | podman
    runtime: str  # "nvidia"; "" for the device driver docker picks itself
    capabilities: str | None = None  # "[[gpu]]"
    message: str
    gpu: bool  # the request was for GPUs: capabilities name gpu, or the runtime is NVIDIA's
    #: driver_file_missing: the driver version in the name of the file the OCI runtime could not find ("535.54.03")
    driver_version: str | None = None


@fact_kind
class DevicePluginState(Fact):
    """The device plugin registered no GPU (``incompatible_strategy``, ``no_devices``) or could not
    serve or register a resource (``start_failed``: "Could not start device plugin for '<res>': <err>"
    or "Plugin <name> failed to start: <err>"; ``register_failed``: "Could not register device
    plugin: <err>"; ``kubelet_unreachable``: "Could not contact Kubelet"; ``grpc_crashed``: "GRPC
    server for '<res>' crashed with error: <err>"; ``crashed``: a Go panic of the plugin)."""

    kind: Literal["device_plugin_state"] = "device_plugin_state"
    state: str  # incompatible_strategy | no_devices | start_failed | register_failed | kubelet_unreachable | grpc_crashed | crashed
    #            | socket_unreachable (the kubelet's dial of the plugin's socket failed: ``resource`` the socket)
    #            | gfd_failed (GPU feature discovery's run error ended it: the node is not labelled; ``reason`` mig_config | nvml_init | other)
    #            | exited (the plugin exited on a startup error, "error starting plugins: <chain>"; ``reason`` mig_config | config | cdi | other)
    strategy: str | None = None  # "auto" (deviceDiscoveryStrategy)
    resource: str | None = None  # "volcano.sh/gpu-memory" ('<res>'), or the plugin's name ("Volcano-GPU-Plugin")
    reason: str | None = None  # socket_in_use (listen ... bind: address already in use) | in_allocate (a panic in Allocate) | mig_config (the MIG strategy's own panic)
    #                            | registered_after (register_failed, kubelet_unreachable: the plugin registered after it, the retry succeeded) | other; None for the first two states
    message: str | None = None  # the Go error as printed


@fact_kind
class DevicePluginUnhealthy(Fact):
    """The device plugin took a GPU out of service: ``XidCriticalError: Xid=48 on Device=GPU-...;
    marking device as unhealthy.`` (``xid`` set; ``device`` None when it marked all devices) or
    ``'nvidia.com/gpu' device marked unhealthy: GPU-...`` (``xid`` None), or ``Could not determine device
    placement for MIG-...: ...; Marking it unhealthy.`` (``check_failed`` set). The kubelet then stops
    giving that GPU to new pods until the plugin restarts."""

    kind: Literal["device_plugin_unhealthy"] = "device_plugin_unhealthy"
    device: str | None = None  # "GPU-7540a9b3-..." (a GPU or MIG UUID, or an index where so configured)
    xid: int | None = None
    resource: str | None = None  # "nvidia.com/gpu"
    # the plugin's own NVML health check failed for the device (no Xid): placement, device_handle,
    # supported_events, register_events, event_wait, event_uuid; ``detail`` the error it printed
    check_failed: str | None = None
    detail: str | None = None


@fact_kind
class K8sDeviceAllocationFailed(Fact):
    """The kubelet could not give a scheduled pod its devices (``Allocate failed due to ...,
    which is unexpected``): fewer devices of the resource were healthy or free on the node than
    the scheduler counted."""

    kind: Literal["k8s_device_allocation_failed"] = "k8s_device_allocation_failed"
    resource: str  # "nvidia.com/gpu"; "" where the message names none (plugin_rpc_failed)
    reason: str  # devices_unavailable | no_healthy_devices | plugin_rpc_failed (the call to the plugin failed in gRPC) | other
    requested: int | None = None
    available: int | None = None
    message: str | None = None  # plugin_rpc_failed: the gRPC status, "Unavailable: error reading from server: EOF"; other: the reason as printed
    said: str = ""  # why the kubelet refused, as printed: "requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0"


@fact_kind
class K8sDraPrepareFailed(Fact):
    """The kubelet could not prepare a pod's Dynamic Resource Allocation claims (its DRA kubelet
    plugin's NodePrepareResources failed, or the claim is not the pod's): the pod's
    FailedPrepareDynamicResources event, or the kubelet's "Failed to prepare dynamic resources"
    log line; or the DRA kubelet plugin's own log of the failure ("error preparing devices for claim
    ...", retried or permanent). The pod stays in ContainerCreating."""

    kind: Literal["k8s_dra_prepare_failed"] = "k8s_dra_prepare_failed"
    error: str  # the kubelet's err, a wrapped event's lines joined: "NodePrepareResources failed for claim ...: ..."
    claim: str | None = None  # "default/rdma-demo", "<claim>"
    pod: str | None = None  # "default/pod1" (the kubelet's log line names it)
    #: the kubelet has no plugin registered for the claim's DRA driver on this node ("DRA driver <name> is not
    #: registered"): that driver's kubelet plugin is not running there
    unregistered_driver: str | None = None  # "compute-domain.nvidia.com"
    #: the DRA kubelet plugin's own log of a retryable failure (its work queue's "Reconcile: ... (attempt N)"):
    #: the last attempt seen for the claim, the plugin still retrying as the log ends; None for the kubelet's
    #: lines and for an error the plugin gave up on (a permanent one) or returned at once
    attempt: int | None = None


@fact_kind
class K8sObject(Fact):
    """A Kubernetes object pasted as YAML: ``kind: Queue`` ``name: a800``, ``spec.capability.nvidia.com/gpu=4``."""

    kind: Literal["k8s_object"] = "k8s_object"
    object_kind: str  # "Queue", "Job", "Pod"
    api_version: str | None = None  # "scheduling.volcano.sh/v1beta1"
    name: str | None = None
    namespace: str | None = None
    #: "spec.capability.nvidia.com/gpu=4; spec.capability.cpu ..." (extended resources only), or None
    extended_resources: str | None = None


@fact_kind
class K8sPolicyState(Fact):
    """One entry of an operator's policy status (``kubectl get nicclusterpolicy -o yaml``: ``status.appliedStates``,
    ``- name: state-OFED`` ``state: notReady``): the component the policy deploys and the state the operator reports."""

    kind: Literal["k8s_policy_state"] = "k8s_policy_state"
    policy_kind: str  # "NicClusterPolicy"
    policy_name: str | None = None  # "nic-cluster-policy"
    state_name: str  # "state-OFED", "state-RDMA-device-plugin", "state-multus-cni"
    state: str  # ready, notReady, ignore, error
    message: str | None = None  # the entry's message (why the state is in that condition), its first line


@fact_kind
class K8sObjectCondition(Fact):
    """One entry of an object's ``status.conditions`` as ``kubectl get <kind> <name> -o yaml`` prints it: a Volcano
    PodGroup's ``type: Unschedulable`` ``status: "True"`` ``reason: NotEnoughResources`` ``message: '1/0 tasks in gang
    unschedulable: 0 nodes are available'``, a Pod's ``PodScheduled``, a Job's ``Failed``."""

    kind: Literal["k8s_object_condition"] = "k8s_object_condition"
    object_kind: str  # "PodGroup", "Pod", "Job"
    object_name: str | None = None
    namespace: str | None = None
    condition_type: str  # "Unschedulable", "Scheduled", "PodScheduled", "Ready"
    status: str | None = None  # "True", "False", "Unknown"
    reason: str | None = None  # "NotEnoughResources"
    message: str | None = None


@fact_kind
class K8sNodeExtendedResource(Fact):
    """A node's capacity and allocatable count of one extended resource (``nvidia.com/gpu``: 16 and 0)."""

    kind: Literal["k8s_node_extended_resource"] = "k8s_node_extended_resource"
    resource: str  # "nvidia.com/gpu"
    capacity: int
    allocatable: int
    unallocatable: int  # capacity - allocatable: devices the kubelet holds back (the device plugin's unhealthy ones)
    gpu: bool = False  # a GPU resource (<domain>/gpu, a MIG profile <domain>/mig-...)


@fact_kind
class K8sDaemonsetStatus(Fact):
    """A DaemonSet of the node GPU stack: on how many nodes its pod should run, and is ready."""

    kind: Literal["k8s_daemonset_status"] = "k8s_daemonset_status"
    daemonset: str
    namespace: str | None = None
    role: str  # "driver", "container-toolkit", "device-plugin", "gpu-feature-discovery", "dcgm", "dcgm-exporter", ...
    desired: int
    current: int
    ready: int
    available: int
    not_ready: int  # desired - ready: nodes whose pod is missing or not ready


#: a pod or container the pasted lines do not name (a Reason: block without its Name:, an Events table alone)
UNNAMED = "(not named)"


@fact_kind
class K8sContainerTerminated(Fact):
    """A container's ``State:``/``Last State:`` ``Terminated`` that is not a clean completion."""

    kind: Literal["k8s_container_terminated"] = "k8s_container_terminated"
    pod: str = UNNAMED
    container: str = UNNAMED
    which: str  # "State" (now) or "Last State" (the run before the restart)
    reason: str  # "OOMKilled", "Error", "ContainerCannotRun", "StartError"
    exit_code: int | None = None
    oom_killed: bool
    k8s_node: str | None = None  # the pod's Node: (the Kubernetes node name)
    gpu_stack_role: str | None = None  # the part of the node GPU stack the pod runs (kubectl_daemonsets.role_of its DaemonSet)


@fact_kind
class K8sContainerWaiting(Fact):
    """A container waiting for a reason that is not a normal start: ``CrashLoopBackOff`` (it
    keeps exiting; why is in its last state and logs), ``ImagePullBackOff``, ``CreateContainerError``."""

    kind: Literal["k8s_container_waiting"] = "k8s_container_waiting"
    pod: str = UNNAMED
    container: str = UNNAMED
    reason: str
    k8s_node: str | None = None
    gpu_stack_role: str | None = None  # the part of the node GPU stack the pod runs (kubectl_daemonsets.role_of its DaemonSet)
    #: get pods' RESTARTS where the row is a pod held in its init containers (``Init:3/4`` with restarts: an init
    #: container failed that many times and is being run again); None elsewhere
    restarts: int | None = None


@fact_kind
class K8sPodEvent(Fact):
    """A ``Warning`` event of a pod (``kubectl describe pod``'s Events table)."""

    kind: Literal["k8s_pod_event"] = "k8s_pod_event"
    pod: str = UNNAMED
    reason: str  # "FailedScheduling", "UnexpectedAdmissionError", "FailedMount", "BackOff"
    source: str  # "default-scheduler", "kubelet", "kubelet, gke-node-1"
    message: str
    count: int = 1
    insufficient: str = ""  # resources no node had enough of, comma-joined ("cpu,nvidia.com/gpu,memory")
    insufficient_gpu: bool = False  # nvidia.com/gpu (or another */gpu resource) among them
    insufficient_rdma: bool = False  # an RDMA NIC resource among them (vpc.amazonaws.com/efa, rdma/*, nvidia.com/hostdev, ...)
    #: a FailedCreatePodSandBox whose CNI add failed for one of the pod's networks (Multus' cmdPluginErr, "[ns/pod/uid:net]:
    #: error adding container to network \"<net>\": <the delegate plugin's error>"): that network's name and the plugin's
    #: error ("infiniBand SRI-OV CNI failed to configure VF \"VF ib4 GUID is not valid\""); None for any other event
    network: str | None = None
    network_error: str | None = None
    #: an Unhealthy event: the kubelet's probe that failed (startup, liveness, readiness) and what the probe printed
    #: (None where it printed nothing: an exec probe's command exited non-zero silently)
    probe: str | None = None
    probe_output: str | None = None


@fact_kind
class K8sPodStatus(Fact):
    """A pod in a failed or backing-off state: a ``kubectl get pods`` row or ``describe``'s pod-level ``Reason:``."""

    kind: Literal["k8s_pod_status"] = "k8s_pod_status"
    pod: str = UNNAMED
    namespace: str | None = None
    status: str  # "OOMKilled", "Error", "CrashLoopBackOff", "UnexpectedAdmissionError", "Init:OOMKilled"
    restarts: int | None = None
    message: str | None = None
    gpu_stack_role: str | None = None  # the part of the node GPU stack the pod runs (kubectl_daemonsets.role_of its DaemonSet)
    #: what the kubelet's own reason says happened to the pod: ``device_admission`` (its admission refused the pod over
    #: a device: UnexpectedAdmissionError, the device manager's "Allocate failed due to %v, which is unexpected", or
    #: lifecycle/predicate.go's "OutOf%s" for an extended resource such as nvidia.com/gpu), ``resource_admission``
    #: ("OutOf%s" for cpu, memory, pods, ephemeral-storage, hugepages-*), ``evicted`` (the eviction manager, node
    #: pressure), ``topology_admission`` (TopologyAffinityError: the topology manager found no NUMA alignment for the
    #: pod's devices, CPUs and memory); None for any other reason
    rejected: Literal["device_admission", "resource_admission", "evicted", "topology_admission"] | None = None
    out_of: str | None = None  # the resource of an "OutOf<resource>" reason ("nvidia.com/gpu", "cpu")


@fact_kind
class ContainerRequirementUnsatisfied(Fact):
    """The image's requirement (``NVIDIA_REQUIRE_CUDA``) is not met by the host's driver."""

    kind: Literal["container_requirement_unsatisfied"] = "container_requirement_unsatisfied"
    requirement: str  # "cuda>=12.4" as printed (spaces removed)
    subject: str  # "cuda", "brand", "driver", "arch"
    required_version: str | None = None  # "12.4"
    message: str


@fact_kind
class ContainerToolkitError(Fact):
    """Another ``nvidia-container-cli`` failure: the container got no GPU."""

    kind: Literal["container_toolkit_error"] = "container_toolkit_error"
    stage: str  # "mount", "detection", "initialization", "ldcache", ...
    message: str
    #: what a mount-stage error failed at (libnvidia-container's own words): ``file_create`` ("file
    #: creation failed: <path in the container's rootfs>: <strerror>", src/utils.c file_create: the
    #: mount point could not be made), ``mount`` ("mount operation failed: <host path>": a host file's mount),
    #: ``mount_into_container`` ("mount operation failed: <path in the container's rootfs>": xmount names the target
    #: where the source is no host path, the tmpfs over /proc/driver/nvidia), ``stat`` ("stat failed"),
    #: ``device_rules`` ("failed to add device rules: <why>": the container's device cgroup, v1 devices.allow or
    #: v2's eBPF filter, could not be given the GPUs); ``unknown_device`` (device stage, "<dev>: unknown
    #: device": the container asked for a GPU index, UUID or bus id the host's driver does not list);
    #: ``device_list_path`` (the same for the device plugin's volume-mounts list path, which the toolkit
    #: was not configured to accept); ``ldconfig`` (ldcache stage, "process <ldconfig> terminated with signal N" or
    #: "failed with error code: N": the ldconfig the hook runs in the container failed); ``nvml`` (detection stage,
    #: "nvml error: <NVML's text>": NVML came up, a query of a GPU failed); ``cgroup_not_found`` (container stage,
    #: "cgroup subsystem devices not found": no cgroup v1 devices controller mounted, a cgroup v2-only host under a
    #: libnvidia-container older than 1.8.0); ``proc_access`` (initialization stage, "open failed: /proc/...: permission
    #: denied": the hook could not read its own /proc entries, overflowuid or its mount namespace, before it reached the
    #: driver); ``capabilities`` (permission stage, "capability change failed": the hook could not set or drop its
    #: capabilities); ``imex_channels`` (imex stage, "error parsing IMEX info: <why>": the IMEX channels the container
    #: asked for, NVIDIA_IMEX_CHANNELS, were refused before the library initialised); ``runtime_exit`` (runtime stage,
    #: "<path>/nvidia-container-runtime did not terminate successfully: exit status N[: <its stderr>]": the NVIDIA OCI
    #: runtime the engine is configured with exited non-zero before the container was created); ``other`` for any other
    operation: Literal["file_create", "mount", "mount_into_container", "stat", "device_rules", "unknown_device", "device_list_path", "ldconfig",
                       "nvml", "cgroup_not_found", "proc_access", "capabilities", "imex_channels", "runtime_exit", "other"] = "other"
    #: unknown_device / device_list_path: the device the container asked for ("2", "GPU-9f3c..."); imex_channels: the
    #: channel value refused ("all")
    device: str | None = None


@fact_kind
class CdiDeviceListed(Fact):
    """A device ``nvidia-ctk cdi list`` found in the host's CDI specs (/etc/cdi, /var/run/cdi):
    ``nvidia.com/gpu=0``, ``nvidia.com/gpu=all``."""

    kind: Literal["cdi_device_listed"] = "cdi_device_listed"
    device: str


@fact_kind
class DriverContainerFailure(Fact):
    """A step of the NVIDIA driver container's build or load failed."""

    kind: Literal["driver_container_failure"] = "driver_container_failure"
    stage: str  # kernel_headers | kernel_version | build | load | ... | unknown
    message: str
    packages: str | None = None  # "kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-..."
    kernel: str | None = None  # "4.18.0-240.23.2.el8_3.x86_64"


@fact_kind
class DriverUnloadBlocked(Fact):
    """The NVIDIA kernel modules could not be unloaded to replace the driver because something still
    holds them: "Could not unload NVIDIA driver kernel modules, driver is in use" (k8s-driver-manager,
    the driver container's own unload), or the Go driver manager's "Unable to cleanup driver modules,
    attempting again with node drain"."""

    kind: Literal["driver_unload_blocked"] = "driver_unload_blocked"
    refcount: int | None = None  # "nvidia driver module is already loaded with refcount 350" earlier in the log
    message: str


@fact_kind
class DriverManagerFailure(Fact):
    """A step of the GPU operator's k8s-driver-manager failed (the driver pod's init container)."""

    kind: Literal["driver_manager_failure"] = "driver_manager_failure"
    event: str  # uninstall_failed | drain_failed | evict_failed | vfio_unbind_failed | nouveau_unload_failed | shutdown_wait_failed | cleanup_blocked
    message: str


@fact_kind
class RdmaPluginDeviceSpecMissing(Fact):
    """The RDMA shared device plugin could not use a NIC: an RDMA character device of it is missing."""

    kind: Literal["rdma_plugin_device_spec_missing"] = "rdma_plugin_device_spec_missing"
    pci: str
    reason: str  # e.g. 'RDMA device "issm" not found'


@fact_kind
class RdmaPluginResourceEmpty(Fact):
    """The RDMA shared device plugin advertises a resource with no RDMA device in it."""

    kind: Literal["rdma_plugin_resource_empty"] = "rdma_plugin_resource_empty"
    resource: str | None = None  # None: the log's count line without the resource's name before it


@fact_kind
class SlurmOomKill(Fact):
    """The step's memory cgroup killed tasks: the job used more than it asked for (--mem)."""

    kind: Literal["slurm_oom_kill"] = "slurm_oom_kill"
    events: int
    step: str  # "9411285.0", "191.batch"


@fact_kind
class SlurmTaskFailed(Fact):
    """``srun: error: <host>: task(s) <ids>: <how>``."""

    kind: Literal["slurm_task_failed"] = "slurm_task_failed"
    host: str
    tasks: str  # "0", "0-7", "3,5"
    how: str  # "Out Of Memory", "Killed", "Exited with exit code 1", "Segmentation fault"
    out_of_memory: bool
    exit_code: int | None = None  # "Exited with exit code N"
    signal: str | None = None  # strsignal()'s text of the signal that ended it: "Killed", "Segmentation fault", "Bus error"
    core_dumped: bool = False
    killed: bool = False  # SIGKILL ("Killed")


@fact_kind
class SlurmCancelled(Fact):
    """slurmctld had the job or step cancelled for a reason it names (``DUE TO ...``)."""

    kind: Literal["slurm_cancelled"] = "slurm_cancelled"
    what: str  # "JOB" or "STEP"
    job_id: str
    host: str
    at: str
    reason: str  # "TIME LIMIT", "NODE FAILURE", "PREEMPTION", "JOB REQUEUE"


@fact_kind
class SlurmTaskLaunchFailed(Fact):
    """``srun: error: Task launch for <step> failed on node <host>: <errno text>``: slurmd on that node refused
    or failed the step's launch (src/srun/launch's _launch_tasks: "Task launch for %ps failed on node %s: %m")."""

    kind: Literal["slurm_task_launch_failed"] = "slurm_task_launch_failed"
    host: str
    step: str  # "23.0", "StepId=123.0"
    reason: str  # Slurm's errno text: "Job prolog failed", "Invalid job credential", "Slurmd could not execve job"
    prolog: bool = False  # ESLURMD_PROLOG_FAILED ("Job prolog failed"): the node's Prolog exited non-zero


@fact_kind
class SlurmStepExecFailed(Fact):
    """Slurm could not start the step's program: slurmstepd's execve() of it failed on the node (src/slurmd/slurmstepd/
    task.c ``"execve(): %s: %m"``, ``"execve(): bad interpreter(%s): %m"`` for a script whose #! interpreter is
    missing), or srun found no executable at its path before launching (src/srun/opt.c ``"Can not execute %s"``)."""

    kind: Literal["slurm_step_exec_failed"] = "slurm_step_exec_failed"
    reporter: Literal["slurmstepd", "srun"]
    path: str  # the program ("/usr/bin/ls"), or the script's interpreter when bad_interpreter
    reason: str | None = None  # strerror's text: "No such file or directory", "Permission denied", "Exec format error"
    bad_interpreter: bool = False  # the path is a script's #! interpreter that could not be run


@fact_kind
class SlurmError(Fact):
    """Another ``slurmstepd``/``srun`` ``error:`` line (a failed chdir, a task launch failure...)."""

    kind: Literal["slurm_error"] = "slurm_error"
    message: str


@fact_kind
class SlurmPmixError(Fact):
    """An error of Slurm's PMIx plugin (``mpi/pmix``, inside slurmstepd on each node of a step) wiring the step's ranks
    up between the nodes' stepds: pmixp_debug.h's ``error:  <plugin>: <function>: <host> [<nodeid>]: <file>:<line>:
    <message>``. ``event``: ``peer_address_unknown`` ("Can't find address for host X, check slurm.conf"),
    ``connect_failed`` ("Cannot establish the connection", "Cannot establish direct connection to X (n)", "Unable to
    connect to n"), ``collective_timeout`` ("<ptr>: collective timeout seq=N"), ``other``."""

    kind: Literal["slurm_pmix_error"] = "slurm_pmix_error"
    plugin: str  # "mpi/pmix_v5"
    function: str
    host: str  # the stepd's host that printed it
    node_id: int  # that host's index in the step
    source: str  # "pmixp_utils.c:408"
    event: Literal["peer_address_unknown", "connect_failed", "collective_timeout", "other"]
    peer: str | None = None  # the peer host (or node id) it could not reach, when the line names it
    #: a collective timeout: the hosts its state dump lists as not having contributed ("wait contrib: <hosts>",
    #: pmixp_coll_ring.c / pmixp_coll_tree.c pmixp_coll_*_log), a Slurm host list ("node[3-4]"); None: no dump pasted
    waiting_on: str | None = None
    message: str


@fact_kind
class SlurmAddressUnknown(Fact):
    """A Slurm component could not find the address of a node of the job: srun's or slurmctld's message fan-out
    (src/common/forward.c ``"%s: can't find address for host %s, check slurm.conf"``, the function first:
    ``_fwd_tree_get_addr``, ``_forward_thread``; older ``fwd_tree_thread``), the task launch that failed for it
    (src/api/step_launch.c ``"Task launch for %ps failed on node %s: %m"`` with ESLURM's ``"Can't find an address,
    check slurm.conf"``), or the PMIx plugin's stepd (pmixp_dconn_tcp.c / pmixp_utils.c ``"Can't find address for host
    %s, check slurm.conf"``). One fault: the node's name has no NodeAddr in slurm.conf and does not resolve where the
    message was printed."""

    kind: Literal["slurm_address_unknown"] = "slurm_address_unknown"
    reporter: str  # "srun", "slurmstepd", "slurmctld", ... (the program whose line it is)
    function: str | None = None  # "_fwd_tree_get_addr", "_pmix_p2p_send_core"
    plugin: str | None = None  # "mpi/pmix_v5" (the PMIx plugin's line)
    peer: str | None = None  # the host whose address is unknown ("nid006677"); None: srun's summary line only
    step: str | None = None  # the step whose launch failed ("StepId=44.0", "44.0")
    launch_failed: bool = False  # srun's "Task launch for ... failed on node X: Can't find an address"
    message: str


@fact_kind
class PyxisContainerFailed(Fact):
    """pyxis (NVIDIA's Slurm SPANK plugin running enroot) could not give a job step its container:
    the first pyxis error of the step, with the enroot log lines pyxis printed after it."""

    kind: Literal["pyxis_container_failed"] = "pyxis_container_failed"
    # what pyxis was doing; "find": --container-name named a container the node does not have (or has not running)
    stage: Literal["import", "create", "start", "setup", "find", "other"]
    message: str  # pyxis's own line, without "error: pyxis: "
    detail: str | None = None  # the first line of enroot's log that is not [INFO] (its [ERROR], or a tool's own error)


@fact_kind
class EnrootHelperError(Fact):
    """One of enroot's helper programs (enroot-nsenter, enroot-aufs2ovlfs, enroot-mksquashovlfs, enroot-switchroot,
    enroot-mount) could not do a step of setting up a container and exited: err(3)'s "<program>: <step>: <strerror>"
    (enroot bin/*.c), e.g. "enroot-nsenter: failed to create user namespace: Permission denied"."""

    kind: Literal["enroot_helper_error"] = "enroot_helper_error"
    program: str  # "enroot-nsenter"
    step: str  # what it failed to do: "failed to create user namespace"
    error: str | None = None  # strerror's text: "Permission denied"; None for errx(3)'s message alone


@fact_kind
class LxcStartError(Fact):
    """LXC could not start a container (LXD's ``lxc start``, ``lxc-start``): a line of priority ERROR or worse of its
    log (src/lxc/log.c: "lxc <name> <time> ERROR <category> - <file>:<function>:<line> - <message>") or LXD's "Failed
    to run: <lxd> forkstart <name> ...". ``hook`` names the hook step that failed ("Failed to run mount hooks": LXD's
    nvidia.runtime hook, nvidia-container-cli, is a mount hook)."""

    kind: Literal["lxc_start_error"] = "lxc_start_error"
    container: str | None = None  # "template"
    function: str  # "lxc_setup"; "forkstart" for LXD's line
    message: str  # "Failed to run mount hooks"
    hook: str | None = None  # mount | pre-mount | autodev | pre-start | start | start-host | post-stop


@fact_kind
class EnrootError(Fact):
    """enroot's own runtime (its shell scripts) stopped on an error and printed it through common::err: ``[ERROR]
    <message>`` (enroot src/common.sh common::log), e.g. a registry's refusal while importing an image, or a hook of
    ``enroot start`` that failed."""

    kind: Literal["enroot_error"] = "enroot_error"
    # import: talking to the registry for an image (its URL's HTTP error, its authentication, the image reference);
    # hook: a hook script of enroot start / create failed ("<hook> exited with return code N");
    # command: a program enroot or its hook needs is not installed ("Command not found: <cmd>")
    stage: Literal["import", "hook", "command"]
    message: str  # without "[ERROR] "
    http_code: int | None = None  # the registry's HTTP status ("returned error code: 401 Unauthorized")
    hook: str | None = None  # the hook that failed ("/etc/enroot/hooks.d/98-nvidia.sh")
    command: str | None = None  # the program not found ("nvidia-container-cli")


@fact_kind
class SlurmStepEnded(Fact):
    """A job or step cancelled without a reason: a user's scancel, or srun ending the step after
    one of its tasks failed (that failure is the story)."""

    kind: Literal["slurm_step_ended"] = "slurm_step_ended"
    what: str
    job_id: str
    host: str
    at: str


@fact_kind
class SlurmNodeUnavailable(Fact):
    """A node Slurm holds out of service (drained, down, failed, invalid registration), with its reason."""

    kind: Literal["slurm_node_unavailable"] = "slurm_node_unavailable"
    node_name: str
    state: str  # "IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG", "down*", "INVAL"
    reason: str  # "" when the paste shows none
    reason_cut: bool = False  # sinfo cut the reason at its column width


@fact_kind
class SlurmGresCountLow(Fact):
    """slurmd registered fewer GRES than slurm.conf configures for the node (slurmctld drains it)."""

    kind: Literal["slurm_gres_count_low"] = "slurm_gres_count_low"
    node_name: str
    gres: str  # "gpu"
    gres_type: str  # "" when untyped
    found: int  # -1: cut off by sinfo
    configured: int  # -1: cut off by sinfo
    reason: str


@fact_kind
class SlurmGresRequestInvalid(Fact):
    """The controller refused a job's or step's GRES request (ESLURM_INVALID_GRES[_TYPE])."""

    kind: Literal["slurm_gres_request_invalid"] = "slurm_gres_request_invalid"
    client: str  # "sbatch", "srun", "salloc", ""
    message: str


@fact_kind
class SlurmRequestUnsatisfiable(Fact):
    """The controller refused a job or step because no node has the configuration it asks for
    (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "Requested node configuration is not available"):
    GRES, features, memory, CPUs or a time limit beyond every node (of the partition) it may use."""

    kind: Literal["slurm_request_unsatisfiable"] = "slurm_request_unsatisfiable"
    client: str  # "sbatch", "srun", "salloc", ""
    message: str
    #: the GPU options of an sbatch/srun/salloc command line or #SBATCH line of the same file
    #: ("--gpus-per-node=1"); None where no line of the file asks for GPUs
    gpu_options: str | None = None


@fact_kind
class SlurmGresAllocated(Fact):
    """Which devices of a GRES slurmd's log says a job step was given (its gres_job_state dump:
    ``gres_bit_alloc[<node>]:<indexes> of <count>``): context for what a task then sees."""

    kind: Literal["slurm_gres_allocated"] = "slurm_gres_allocated"
    step: str  # "6333.0", "6333.extern", "" where the line names none
    gres: str  # "gpu"
    gres_type: str | None = None  # "RTX_A5000"
    node_index: int  # the job's node the bitmap is of (0: its first)
    devices: str  # the device indexes as printed: "0,2", "0-3"; "NULL" for none
    of: int  # how many devices of the GRES the node has


@fact_kind
class SlurmMpiTypeUnavailable(Fact):
    """srun (or slurmstepd) could not load the MPI plugin a step asked for (--mpi=<type>, MpiDefault):
    this Slurm has no mpi/<type> plugin, or it cannot be loaded."""

    kind: Literal["slurm_mpi_type_unavailable"] = "slurm_mpi_type_unavailable"
    client: str  # "srun", "slurmstepd", "" when no client names it
    mpi_type: str  # "pmix", "pmix_v3", ...
    message: str


@fact_kind
class SlurmGpuAutodetectUnavailable(Fact):
    """slurmd was told to autodetect GPUs (gres.conf AutoDetect=) with a library it cannot use."""

    kind: Literal["slurm_gpu_autodetect_unavailable"] = "slurm_gpu_autodetect_unavailable"
    library: str  # "nvml", "rsmi", "oneapi"
    not_built: bool  # Slurm was built without it (else the library is not on the node)
    why: str  # the same in words, for the report


@fact_kind
class SlurmMigWithoutInstances(Fact):
    """slurmd's NVML autodetection found a GPU in MIG mode with no MIG device created on it."""

    kind: Literal["slurm_mig_without_instances"] = "slurm_mig_without_instances"
    stopped: bool  # the line says fatal (Slurm 21.08.1-24.05): slurmd exited; else (24.11+) it went on without them


@fact_kind
class SlurmDaemonStartFailed(Fact):
    """A Slurm daemon gave up during its own start and exited (slurmd.c main(): ``error("slurmd initialization
    failed"); exit(1)``): the evidence is that line; ``first_error`` is the first error the daemon logged
    before it in the same start, where the chain begins."""

    kind: Literal["slurm_daemon_start_failed"] = "slurm_daemon_start_failed"
    daemon: str  # "slurmd"
    first_error: str  # the first error line's message of the chain ("" when the paste shows none before it)
    first_error_line: int | None = None  # its line in the same file (1-based), None when there is none
    plugin: str = ""  # the plugin the chain could not load ("cgroup/v2", "proctrack/cgroup"), "" when none is named
    #: plugin_missing: no such plugin is installed (Slurm built without it: "Couldn't find the specified plugin name
    #: for %s looking at all files"); plugin_init_failed: it loaded and its init() failed ("Couldn't load specified
    #: plugin name for %s: Plugin init() callback failed"); other: the chain names no plugin
    failure: str = "other"


@fact_kind
class GpuOperatorValidationRetry(Fact):
    """The GPU operator's validator retrying one validation (``command failed, retrying after 5 seconds``,
    ``failed to validate the driver, retrying after 5 seconds``): evidence is its first failure."""

    kind: Literal["gpu_operator_validation_retry"] = "gpu_operator_validation_retry"
    #: what is validated, from the command it runs: driver | driver_container | toolkit | nvidia_fs | gdrcopy
    #: | nvidia_peermem | mofed | cc_manager | other; host_driver: the probe of a driver installed on the host
    #: failed although the host's nvidia-smi ran ("No pre-installed driver detected on the host: exit status 14");
    #: gpu_resources: the plugin validation waiting for the node to list a GPU resource ("GPU resources are not yet
    #: discovered by the node, retry: 24")
    validation: str
    command: str | None = None  # "chroot [/run/nvidia/driver nvidia-smi]"
    detail: str | None = None  # the command's own error line: "chroot: failed to run command 'nvidia-smi': No such file or directory"
    retries: int = 1
    message: str
    exit_status: int | None = None  # host_driver: the return value of the host's nvidia-smi (14)
    #: host_driver: that return value as nvmlReturn_t names it: corrupted_inforom (14) | driver_not_loaded (9)
    #: | library_not_found (12) | gpu_lost (15) | driver_library_mismatch (18) | ... | other
    nvml_reason: str | None = None



@fact_kind
class K8sNodeCondition(Fact):
    """One row of a node's Conditions (``kubectl describe node``): ``XidCriticalError  True  <heartbeat>
    <transition>  {"31":true}  <message>``. ``problem``: the condition reports one (a ``...Ready`` type not
    True, any other type True: the kubelet's pressure conditions and node health agents' problem conditions
    alike); ``agent`` the kubelet's own conditions ("kubelet") or NVSentinel's (reason ``<check>IsNotHealthy`` or ``<check>IsHealthy``,
    read by its own reader), else a node health agent's ("agent")."""

    kind: Literal["k8s_node_condition"] = "k8s_node_condition"
    condition: str  # the condition type
    # "not True": kubectl get nodes' STATUS NotReady, which kubectl prints for a Ready condition False or Unknown alike
    status: Literal["True", "False", "Unknown", "not True"]
    problem: bool
    agent: Literal["kubelet", "nvsentinel", "agent"]
    component: str  # "gpu" for a condition about GPUs (Xid, GPU, NVIDIA, accelerated hardware), else "host"
    reason: str = ""  # "" where the paste cut the row before it
    message: str = ""


@fact_kind
class DevicePluginNvmlEvent(Fact):
    """An NVML event the device plugin's health check received and did not act on: ``Skipping
    non-nvmlEventTypeXidCriticalError event: {... EventType:2 EventData:0 ...}``. The plugin
    registers Xid, double-bit and single-bit ECC events (health.go: ``EventTypeXidCriticalError |
    EventTypeDoubleBitEccError | EventTypeSingleBitEccError``) and acts on Xids only: a double-bit
    (uncorrectable) ECC error of a GPU is logged and skipped."""

    kind: Literal["device_plugin_nvml_event"] = "device_plugin_nvml_event"
    event_type: int  # nvml.h nvmlEventType*: 1 single-bit ECC, 2 double-bit ECC, 4 PState, 8 Xid, 16 clock, ...
    event: Literal["single_bit_ecc", "double_bit_ecc", "other"]
    event_data: int | None = None  # the event's data (an Xid for Xid events; 0 for ECC events)


@fact_kind
class ComputeDomainStatus(Fact):
    """A ComputeDomain's status (NVIDIA DRA driver, multi-node NVLink): the domain's own status and
    its nodes' IMEX daemons as ``kubectl describe computedomain`` shows them."""

    kind: Literal["compute_domain_status"] = "compute_domain_status"
    status: str | None = None  # Ready | NotReady | Failed (the domain's own; None: the paste does not show it)
    domain: str | None = None  # the ComputeDomain's name, where the paste shows it
    num_nodes: int | None = None  # spec.numNodes, where the paste shows it
    nodes: int = 0  # nodes listed under Status.Nodes
    nodes_ready: int = 0  # of them, with status Ready (their IMEX daemon ready)
    nodes_not_ready: str = ""  # names of the listed nodes whose status is not Ready, joined with ", "


@fact_kind
class SandboxGpuCallRefused(Fact):
    """A container sandbox's GPU proxy refused a driver call the program made, or the host driver
    itself: gVisor's nvproxy (``runsc --nvproxy``) implements a fixed set of ioctls, RM control
    commands, allocation classes and UVM ioctls for each driver version it has an ABI for and
    answers any other with an error (``nvproxy: unknown allocation class 0x000000f8``);
    a host driver version it has no ABI for stops the sandbox (nvproxy.go: ``unsupported Nvidia driver
    version: %s``)."""

    kind: Literal["sandbox_gpu_call_refused"] = "sandbox_gpu_call_refused"
    sandbox: str  # "gvisor"
    #: frontend_ioctl | control_command | allocation_class | uvm_ioctl | memory_class (NV_ESC_RM_ALLOC_MEMORY) | driver_version
    call: str
    code: str | None = None  # the call's number as printed: "0xd4", "0x20801230", "0x000000f8"; None for driver_version
    #: unimplemented (no handler for this driver version) | missing_capability (implemented, gated on a driver
    #: capability the sandbox did not enable) | unsupported_driver_version
    reason: str
    driver_version: str | None = None  # unsupported_driver_version: the host's driver version as printed
    message: str


@fact_kind
class HelmReleaseFailed(Fact):
    """Helm's install or upgrade of a chart failed, as the helm CLI prints it: "Error: INSTALLATION FAILED: failed to
    fetch https://helm.ngc.nvidia.com/nvidia/charts/gpu-operator-v24.6.1.tgz : 401 Unauthorized" (helm 3's
    cmd/helm install.go errors.Wrap(err, "INSTALLATION FAILED"), upgrade.go "UPGRADE FAILED", cobra's "Error: "); helm
    2's Tiller: "Error: release nginx failed: namespaces "default" is forbidden: ..." (release_install.go)."""

    kind: Literal["helm_release_failed"] = "helm_release_failed"
    operation: Literal["install", "upgrade"]
    release: str | None = None  # the release helm 2's "Error: release nginx failed: ..." names (helm 3's lines name none)
    reason: str | None = None  # what helm wrapped; None where the paste cuts the line after "FAILED:"
