"""NVIDIA k8s-device-plugin logs (``kubectl logs nvidia-device-plugin-daemonset-...``).

Sample content: v0.16+ (klog prefix; NVIDIA/k8s-device-plugin#1220, and a capture quoted in a
public notes page) and v0.6-era (Go ``log`` prefix; NVIDIA/k8s-device-plugin#170, #182)::

    E0402 22:17:31.198643       1 factory.go:112] Incompatible strategy detected auto
    E0402 22:17:31.198657       1 factory.go:113] If this is a GPU node, did you configure the NVIDIA Container Toolkit?
    I1106 09:17:18.873686 main.go:381] No devices found. Waiting indefinitely.

    2020/05/14 02:11:19 Loading NVML
    2020/05/14 02:11:19 Failed to initialize NVML: could not load NVML library.
    2020/05/14 02:11:19 If this is a GPU node, did you set the docker default runtime to `nvidia`?
    2020/05/14 02:11:19 You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites

The NVML line itself is :mod:`nvml_init`'s. Facts emitted here: ``device_plugin_state`` for
``Incompatible strategy detected <strategy>`` (v0.15 on; v0.13 and v0.14 print ``Incompatible platform detected``: the
plugin found neither NVML nor a Tegra system: the container runtime did not give it the driver) and ``No devices found. Waiting
indefinitely.`` (it registers no GPU and idles instead of crashing). The plugin's hint lines
(``If this is a GPU node ...``, ``You can check the prerequisites ...``) and ``Loading NVML``
are read as used, with no fact. ``device_plugin_unhealthy`` for the health checks' lines that
take a GPU out of service (an Xid the plugin counts as critical, the resource's "device marked
unhealthy", or the check's own NVML failure for the device: ``check_failed``, Project-HAMi/HAMi#1950's
``Could not determine device placement for MIG-...: unable to parse UUID as MIG device; Marking it
unhealthy.``), and ``k8s_device_allocation_failed`` for the kubelet's admission error when a pod's
devices are not there (Project-HAMi/HAMi#596)::

    Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected

A resource the plugin could not serve or register (NVIDIA/k8s-device-plugin server.go and
main.go of v0.6 to v0.20, and the same format strings in Volcano's and HAMi's forks, Go ``log``
or klog at Info or Error level)::

    2023/08/14 12:05:26 Could not start device plugin for 'volcano.sh/gpu-memory': listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use
    2023/08/14 12:05:26 Plugin Volcano-GPU-Plugin failed to start: listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use

is ``device_plugin_state`` ``start_failed`` (``register_failed`` for "Could not register device
plugin: <err>", ``kubelet_unreachable`` for "Could not contact Kubelet"), with the Go error as
``message`` and ``reason`` ``socket_in_use`` where the plugin's own socket was taken ("bind:
address already in use": another plugin serves that path), else ``other``; a register or contact failure
the plugin's own "Registered device plugin [for '<res>'] with Kubelet" follows (main retried it and the
registration succeeded, for the resource it was serving) has ``reason`` ``registered_after``. main's "Plugin <name>
failed to start: <err>" repeats the error of the Start() line before it and is a fact of its
own only where that line is not there. "Failed to start one or more plugins. Retrying in 30s..."
is read as a hint.

The plugin's lifecycle lines (main.go and server.go of every version since v0.6, kept by the
Volcano and HAMi forks: "Starting FS watcher.", "Starting OS watcher.", "Retreiving plugins." (later
"Retrieving plugins."), "Starting Plugins.", "Loading configuration.", "Starting GRPC server for
'<res>'", "Starting to serve '<res>' on <socket>", "Registered device plugin for '<res>' with
Kubelet", ...) are read as used, with no fact: they name the file, and check nothing
(knowledge/coverage.yaml ``checks``: only a failure fact counts, so a startup log cut before its
failure is never read as a healthy plugin). "GRPC server for '<res>' crashed with error: <err>" is
``device_plugin_state`` ``grpc_crashed``.

A Go panic of the plugin (runtime/panic.go's ``panic: <value>``), with the goroutine stack under
it naming a device plugin's ``Allocate`` (the kubelet's call that hands a pod its devices), is
``device_plugin_state`` ``crashed`` with reason ``in_allocate`` (``other`` when the frames after it
name no Allocate); a stack frame of ``...DevicePlugin).Allocate(`` also names the file
(volcano-sh/devices#58, its CRI log's ``stderr F`` prefix taken off by facts/lines.py)::

    panic: runtime error: invalid memory address or nil pointer dereference
    [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1092953]
    goroutine 234 [running]:
    volcano.sh/k8s-device-plugin/pkg/plugin/vgpu.(*NvidiaDevicePlugin).Allocate(0xc0001bc280, {0x14cff80, 0xc00045c720}, 0xc0004427c0)

A panic whose value is one of the MIG strategy's own refusals (NVIDIA/k8s-device-plugin
mig-strategy.go, migStrategySingle.GetPlugins: "More than one MIG device type present on node", "No
MIG devices present on node", "Unsupported MIG device found: <res>", and since v0.13 "At least one
device with migEnabled=true was not configured correctly: <err>"; NVIDIA/gpu-operator#460, #286)
has reason ``mig_config``: the plugin's MIG strategy does not fit the MIG layout of the GPUs (single
wants one MIG device type on the whole node), so it registers nothing::

    panic: At least one device with migEnabled=true was not configured correctly: More than one MIG device type present on node

    goroutine 1 [running]:
    main.(*migStrategySingle).GetPlugins(0xc0001321b0)

An NVML event the health check received and skipped (it registers Xid, double-bit and single-bit
ECC events and acts on Xids only) is ``device_plugin_nvml_event`` with NVML's event type: 2 is a
double-bit (uncorrectable) ECC error of a GPU, 1 a corrected one (NVIDIA/k8s-device-plugin#1014)::

    I1025 02:19:08.002792       1 health.go:151] Skipping non-nvmlEventTypeXidCriticalError event: {Device:{Handle:0x7f0dcf40bdf8} EventType:2 EventData:0 GpuInstanceId:4294967295 ComputeInstanceId:4294967295}

The plugin's exit on a startup error (cmd/nvidia-device-plugin/main.go, v0.12 to v0.18 and main:
start() returns ``error starting plugins: %v`` around startPlugins' chain, ``unable to load config:``,
``unable to validate flags:`` (an ``invalid --<flag> option``), ``error getting plugins:``; main()
prints it with ``klog.Error(err)`` and exits 1, so the pod crash-loops) is ``device_plugin_state``:
a chain that ends in ``invalid device discovery strategy`` (plugin/factory.go: the strategy found
neither NVML nor a Tegra system, failOnInitError set: the same failure as "Incompatible strategy
detected", whose line, when the paste keeps it, is the fact instead) is ``incompatible_strategy``;
a chain that ends in NVML's failure (``nvml init failed: <ret>``) is :mod:`nvml_init`'s fact, the line
read here with none; any other is ``exited`` with ``reason`` mig_config (the MIG strategy's refusals,
or ``invalid MIG configuration``), config (flags and config file), cdi (``unable to create cdi ...``)
or other, and the chain as ``message`` (NVIDIA/k8s-device-plugin#1470, #1220)::

    E0506 17:45:45.442750       1 main.go:173] error starting plugins: error getting plugins: unable to create plugins: failed to construct resource managers: invalid device discovery strategy

The kubelet's own device manager lines about a plugin (its journal, ``journalctl -u kubelet`` or k3s'; kubernetes
pkg/kubelet/cm/devicemanager) are read too: a registration request is read with no fact; the end of the kubelet's
stream of a plugin's devices (NVIDIA/k8s-device-plugin#368, the plugin's pod restarting)::

    Dec 27 18:18:50 ubuntu-eu-central k3s[94581]: E1227 18:18:50.766203   94581 client.go:83] "ListAndWatch ended unexpectedly for device plugin" err="rpc error: code = Unavailable desc = error reading from server: EOF" resource="nvidia.com/gpu"

is ``device_plugin_state`` ``stream_ended`` (``reason`` ``not_reregistered``, the gRPC error as ``message``) where no
registration request of the same resource follows it in the file or stands within five seconds before it: until the
plugin registers again the kubelet advertises none of the resource's devices. A stream that ended around such a
registration (klog's times: the plugin's restart, or the kubelet's, closed the old stream) is read with no fact: it
says nothing of the driver or the GPUs either way (knowledge/coverage.yaml: a device_plugin_state fact checks the
driver).

Other plugin lines are left unread.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    DevicePluginNvmlEvent, DevicePluginState, DevicePluginUnhealthy, K8sDeviceAllocationFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "k8s_device_plugin"

# E0402 22:17:31.198643       1 factory.go:112] Incompatible strategy detected auto
# E0201 22:44:21.277824       1 factory.go:115] Incompatible platform detected
#   (v0.13 and v0.14, the same branch of internal/info or pkg/rm's factory before deviceDiscoveryStrategy was a setting:
#   neither NVML nor a Tegra system found; klog, or Go log's "2023/02/23 05:31:16 Incompatible platform detected" in
#   the builds that printed with it; awslabs/amazon-eks-ami#1618, copied from k9s's log pane)
_STRATEGY = re.compile(r"Incompatible (?:strategy detected (?P<strategy>\S+)|platform detected)")
# I1106 09:17:18.873686 main.go:381] No devices found. Waiting indefinitely.
_NO_DEVICES = re.compile(r"No devices found\. Waiting indefinitely")
# If this is a GPU node, did you set the docker default runtime to `nvidia`?
# If this is a GPU node, did you configure the NVIDIA Container Toolkit?
# You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites
# You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start
# 2020/05/14 02:11:19 Loading NVML
# E0506 17:45:45.421977       1 factory.go:116] If this is not a GPU node, you should set up a toleration or nodeSelector to only deploy this plugin on GPU nodes   (#1220)
_HINT = re.compile(r"If this is (?:a GPU node, did you|not a GPU node, you should set up a toleration)|You can (?:check the prerequisites|learn how to set the runtime) at: "
                   r"\S*k8s-device-plugin|\d\d:\d\d:\d\d(?:\.\d+)? Loading NVML\s*$")
# The plugin's health checks taking a GPU out of service (NVIDIA/k8s-device-plugin internal/rm/health.go and the
# 0.6-era nvidia.go, server.go formats, filled in: no sample from an even-numbered public thread was found):
#   XidCriticalError: Xid=48 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8; marking device as unhealthy.   (v0.9+)
#   XidCriticalError: Xid=48 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.   (v0.6-0.8)
#   XidCriticalError: Xid=48, All devices will go unhealthy.
#   'nvidia.com/gpu' device marked unhealthy: GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8
_XID_UNHEALTHY = re.compile(r"XidCriticalError: Xid=(?P<xid>\d+)(?: on Device=(?P<dev>[^\s;,]+)[;,] (?:marking device as|the device will go) "
                            r"unhealthy|, All devices will go unhealthy)")
_MARKED = re.compile(r"'(?P<res>[\w./-]+)' device marked unhealthy: (?P<dev>\S+)")
# The health check's own failures for a device, no Xid (NVIDIA/k8s-device-plugin internal/rm/health.go,
# registerDevices/runEventMonitor, v0.9+ and HAMi's fork; 'Marking it unhealthy.' in the releases before the wording
# was lower-cased):
# health.go:98] Could not determine device placement for MIG-30d00c09-8a98-59b8-8c1a-1d64b4ec3ad2: unable to parse UUID as MIG device; Marking it unhealthy.   (Project-HAMi/HAMi#1950)
#   unable to get device handle from UUID: %v; marking it as unhealthy
#   unable to determine the supported events for %v: %v; marking it as unhealthy
#   Marking device %v as unhealthy: %v
#   Error waiting for event: %v; marking all devices as unhealthy
#   Failed to determine uuid for event %v: %v; marking all devices as unhealthy.
_CHECK_FAILED = re.compile(
    r"Could not determine device placement for (?P<placement_dev>[^\s:]+): (?P<placement>.+?); [Mm]arking it unhealthy"
    r"|unable to get device handle from UUID: (?P<device_handle>.+?); marking it as unhealthy"
    r"|unable to determine the supported events for (?P<supported_events_dev>[^\s:]+): (?P<supported_events>.+?); "
    r"marking it as unhealthy"
    r"|Marking device (?P<register_events_dev>[^\s:]+) as unhealthy: (?P<register_events>.+?)\s*$"
    r"|Error waiting for event: (?P<event_wait>.+?); marking all devices as unhealthy"
    r"|Failed to determine uuid for event .*?: (?P<event_uuid>[^:;]+); marking all devices as unhealthy", re.M)
_CHECKS = ("placement", "device_handle", "supported_events", "register_events", "event_wait", "event_uuid")
# The kubelet's device manager refusing a pod the scheduler placed (its UnexpectedAdmissionError event):
# Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected   (Project-HAMi/HAMi#596)
# Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected   (kubelet devicemanager format, filled in)
_ALLOCATE = re.compile(r"Allocate failed due to (?:requested number of devices unavailable for (?P<res>[\w./-]+)\. "
                       r"Requested: (?P<req>\d+), Available: (?P<avail>\d+)|no healthy devices present; cannot allocate "
                       r"unhealthy devices (?P<res2>[\w./-]+))")
# The kubelet's Allocate call to the plugin failing in gRPC (the admission handler's "Allocate failed due to %v, which is
# unexpected" around the call's status "rpc error: code = <code> desc = <desc>"): the plugin went away during the call
# (crashed, restarted) or no longer serves its socket:
# Message:  Pod Allocate failed due to pc error: code = Unavailable desc = error reading from server: EOF, which is unexpected
#   (Project-HAMi/volcano-vgpu-device-plugin#4, a letter of "rpc" lost in the paste)
_ALLOCATE_RPC = re.compile(r"Allocate failed due to [^\n]{0,40}?\bcode = (?P<code>[A-Z]\w{1,30}) desc = (?P<desc>[^\n]{1,300}?), which is unexpected")
# Any other reason the admission handler wraps ("Allocate failed due to %v, which is unexpected", kubelet
# pkg/kubelet/cm/devicemanager/manager.go; the device manager's own errors, e.g. for a container whose GPUs the
# scheduler's extension did not record), in kubectl -o yaml folded onto the next line (ray-project/kuberay, harvest 2503):
#   message: Pod Allocate failed due to pod d65f09ad-cca3-4631-a0a3-d5ba850f8a69 container
#     wait-gcs-ready unable to find GPU device allocation by scheduler, which is unexpected
_ALLOCATE_OTHER = re.compile(r"Allocate failed due to (?P<why>[^\n]{1,300}?), which is unexpected")
# The kubelet's GPU manager before device plugins (Kubernetes 1.6-1.9, pkg/kubelet/gpu/nvidia/nvidia_gpu_manager.go,
# resource alpha.kubernetes.io/nvidia-gpu): AllocateGPU's fmt.Errorf("requested number of GPUs unavailable. Requested: %d,
# Available: %d", ...), as printed lower-case where the error itself is shown, capitalised in a pod's events:
#   Warning  Failed  8m (x6 over 9m)   kubelet, 10.176.86.186  Error: Requested number of GPUs unavailable. Requested: 2, Available: 0
#     (kubernetes/kubernetes, harvest 2502)
#   gpu       0/1       requested number of GPUs unavailable. Requested: 4, Available: 0   0          36s
#     (kubernetes/kubernetes#42412: `kubectl get pods`, the error as the pod's STATUS once its container restarted)
_LEGACY_GPUS = re.compile(r"[Rr]equested number of GPUs unavailable\. Requested: (?P<req>\d+), Available: (?P<avail>\d+)")
# The kubelet dialling a plugin's socket that nothing serves (grpc's "transport: Error while dialing" of its connection):
# Err: connection error: desc = "transport: Error while dialing dial unix /var/lib/kubelet/device-plugins/nvidia-gpu.sock: connect:
# connection refused.      (Project-HAMi/volcano-vgpu-device-plugin#4, the kubelet's log wrapped before the errno text)
_DIAL_SOCKET = re.compile(r"Error while dialing:? dial unix (?P<sock>\S{0,200}/device-plugins/[\w.-]{1,100}\.sock): connect:"
                          r"(?:[ \t]+(?P<err>[a-z][a-z ]{2,40}[a-z]))?")
# The plugin failing to serve or register a resource (server.go Start(); main.go's start loop; v0.6-v0.20, Volcano, HAMi):
# 2023/08/14 12:05:26 Could not start device plugin for 'volcano.sh/gpu-memory': listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use   (volcano-sh/devices#48)
# 2023/08/14 12:05:26 Plugin Volcano-GPU-Plugin failed to start: listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use   (volcano-sh/devices#48)
# E0101 00:00:00.000000       1 server.go:146] Could not register device plugin: rpc error: code = Unavailable desc = ...   (klog.Errorf, v0.17+)
# 2020/05/14 02:11:19 Could not contact Kubelet, retrying. Did you enable the device plugin feature gate?   (v0.6-v0.11; "Could not contact Kubelet. Did you ..." later)
_START = re.compile(r"Could not start device plugin for '(?P<res>[^']+)': (?P<err>.*\S|[^\S\n])\s*$")
_PLUGIN_START = re.compile(r"\bPlugin (?P<name>\S+) failed to start: (?P<err>.*\S|[^\S\n])\s*$")
# 2017/11/24 09:06:29 Could not register device plugin: context deadline exceeded   (NVIDIA/k8s-device-plugin#10, Kubernetes 1.8)
# 2020/02/09 00:20:15 Could not register device plugin: rpc error: code = Unimplemented desc = unknown service deviceplugin.Registration   (#156)
#   (the error up to its last non-blank, greedy: a lazy run before \s*$ was quadratic in a line padded with blanks, bench/redos.py)
_REGISTER = re.compile(r"Could not register device plugin: (?P<err>.*\S|[^\S\n])\s*$")
_KUBELET = re.compile(r"Could not contact Kubelet\b")
# I0101 00:00:00.000000       1 main.go:302] Failed to start one or more plugins. Retrying in 30s...
_RETRYING = re.compile(r"Failed to start one or more plugins\. Retrying in ")
# The lifecycle lines of main.go / server.go (log.Println v0.6-v0.13, klog.Info v0.14+; the Volcano and HAMi forks):
# 2023/07/06 08:05:20 Starting to serve 'volcano.sh/vgpu-number' on /var/lib/kubelet/device-plugins/nvidia-gpu.sock   (volcano-sh/devices#42)
# I0821 10:02:57.150807    9897 main.go:157] Starting FS watcher.   (Project-HAMi/HAMi#452)
# I0706 08:05:20.354087       1 main.go:116] Retreiving plugins.   (volcano-sh/devices#42)
# I0706 08:05:20.344025       1 main.go:77] Loading NVML   (volcano-sh/devices#42: the klog form, after its header)
# klog.Info("Updating config with default resource matching patterns.") and klog.Infof("inotify: %s created, restarting.",
# pluginapi.KubeletSocket) of main.go (the kubelet restarted: the plugin stops and registers again), bottlerocket#4250's journal:
# Oct 17 12:05:33 ip-xx-xx-x-xx.ec2.internal nvidia-device-plugin[1667]: I1017 12:05:33.312491    1667 main.go:246] inotify: /var/lib/kubelet/device-plugins/kubelet.sock created, restarting.
# Oct 17 12:05:33 ip-xx-xx-x-xx.ec2.internal nvidia-device-plugin[1667]: I1017 12:05:33.313542    1667 main.go:303] Updating config with default resource matching patterns.
_LIFECYCLE = re.compile(r"\] Loading NVML\s*$|\b(?:Starting (?:FS|OS) watcher\.|Retr(?:ei|ie)ving plugins\.|(?:Starting|Stopping) (?:P|p)lugins\."
                        r"|Loading configuration\.|Initializing NVML\.|Starting GRPC server for '[^']+'"
                        r"|Updating config with default resource matching patterns\.|inotify: \S*/kubelet\.sock created, restarting\."
                        r"|(?:Starting|Stopping) to serve '[^']+' on \S+|Registered device plugin (?:for '[^']+' )?with Kubelet)")
# The plugin's registration with the kubelet, after its Register() returned (server.go Start(): log.Printf("Registered device
# plugin for '%s' with Kubelet", plugin.rm.Resource()) since v0.6, klog.Infof since v0.14; log.Println("Registered device plugin
# with Kubelet") in v1.x, which the Mellanox RDMA and other forks keep):
#   Registered device plugin for 'nvidia.com/gpu' with Kubelet        Registered device plugin with Kubelet
# main's loop retries a plugin whose registration failed ("Could not contact Kubelet, retrying."): a registration after the
# failure is the retry that succeeded (the failure's fact gets reason registered_after), for the resource the plugin was
# serving when it failed ("Starting to serve '<res>' on ..."; the v1.x lines name none: any registration after it)
_REGISTERED = re.compile(r"Registered device plugin (?:for '(?P<res>[^'\n]{1,200})' )?with Kubelet")
_SERVING = re.compile(r"Starting to serve '(?P<res>[^'\n]{1,200})' on ")
# The kubelet's own device manager in the kubelet's (or k3s') journal (kubernetes pkg/kubelet/cm/devicemanager): a plugin's
# registration (manager.go klog.Infof("Got registration request from device plugin with resource name %q") before 1.20,
# plugin/v1beta1/server.go klog.InfoS("Got registration request from device plugin with resource", "resourceName", ...) since),
# read with no fact:
# Jun 01 11:41:24 fabricnode1 kubelet[11402]: I0601 11:41:24.847969   11402 manager.go:411] Got registration request from device plugin with resource name "nvidia.com/gpu"   (NVIDIA/k8s-device-plugin#178)
# Dec 27 18:17:42 ubuntu-eu-central k3s[94581]: I1227 18:17:42.233593   94581 server.go:142] "Got registration request from device plugin with resource" resourceName="nvidia.com/gpu"   (NVIDIA/k8s-device-plugin#368)
_KUBELET_REGISTERED = re.compile(r"Got registration request from device plugin with resource(?: name \"(?P<res1>[^\"\s]{1,200})\""
                                 r"|\" resourceName=\"(?P<res2>[^\"\s]{1,200})\")")
# and the end of its stream of a plugin's devices (plugin/v1beta1/client.go's logger.Error(err, "ListAndWatch ended unexpectedly
# for device plugin", "resource", ...); before 1.25 endpoint.go's errListAndWatch "listAndWatch ended unexpectedly for device
# plugin %s with error %v"): the plugin's server went away (it exited or restarted: EOF) or the connection was closed:
# Dec 27 18:18:50 ubuntu-eu-central k3s[94581]: E1227 18:18:50.766203   94581 client.go:83] "ListAndWatch ended unexpectedly for device plugin" err="rpc error: code = Unavailable desc = error reading from server: EOF" resource="nvidia.com/gpu"   (#368)
# E1127 05:25:45.287747  215379 endpoint.go:107] listAndWatch ended unexpectedly for device plugin fake-domain/resource with error rpc error: code = Unavailable desc = transport is closing   (kubernetes/kubernetes#96908)
_KUBELET_STREAM_ENDED = re.compile(r"\"ListAndWatch ended unexpectedly for device plugin\" err=\"(?P<err>(?:[^\"\\\n]|\\.){0,400})\" "
                                   r"resource=\"(?P<res>[^\"\s]{1,200})\"|listAndWatch ended unexpectedly for device plugin (?P<res2>\S{1,200}) "
                                   r"with error (?P<err2>[^\n]{0,400}\S)")
# klog's header: its time of day (I1227 18:17:42.233593), to tell a stream the plugin's own re-registration just closed
_KLOG_TIME = re.compile(r"\b[IWEF]\d{4} (?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d(?:\.\d{1,9})?) ")
#: seconds before a stream's end within which a registration of the same resource is the plugin's restart that closed it
_REREGISTER_S = 5.0
# GRPC server for 'nvidia.com/gpu' crashed with error: ...   (server.go, every version)
_GRPC_CRASHED = re.compile(r"GRPC server for '(?P<res>[^']+)' crashed with error: (?P<err>.+?)\s*$")
# panic: runtime error: invalid memory address or nil pointer dereference   (Go runtime/panic.go printpanics; volcano-sh/devices#58)
_PANIC = re.compile(r"^\s*panic: (?P<msg>\S(?:.*\S)?)\s*$")
# panic: More than one MIG device type present on node   (mig-strategy.go, migStrategySingle.GetPlugins; gpu-operator#286)
# panic: At least one device with migEnabled=true was not configured correctly: More than one MIG device type ...   (gpu-operator#460)
_MIG_REFUSAL = re.compile(r"(?i)MIG device type present on node|No MIG devices present on node|Unsupported MIG device found"
                          r"|migEnabled=true was not configured correctly")
# volcano.sh/k8s-device-plugin/pkg/plugin/vgpu.(*NvidiaDevicePlugin).Allocate(0xc0001bc280, {0x14cff80, 0xc00045c720}, 0xc0004427c0)
#   (a goroutine frame of a device plugin's Allocate: NVIDIA's, Volcano's and HAMi's types are all *...DevicePlugin)
_ALLOCATE_FRAME = re.compile(r"[Dd]evicePlugin\)\.Allocate\(")
#: how many lines under a panic its goroutine stack is searched for the Allocate frame
_STACK_LINES = 40
# listen unix /var/lib/kubelet/device-plugins/nvidia-gpu.sock: bind: address already in use
_SOCKET_IN_USE = re.compile(r"\blisten unix \S+: bind: address already in use")
# GPU feature discovery, the plugin's sibling that labels the node (NVIDIA/gpu-feature-discovery main.go v0.1-v0.8,
# Go log with the prefix "gpu-feature-discovery: "; since v0.15 NVIDIA/k8s-device-plugin cmd/gpu-feature-discovery,
# klog). Its run error ends it and the node gets no nvidia.com labels (pkg/lm NewLabelers: "error creating NVML
# labeler: %v"; the oldest main.go: log.Printf("Unexpected error: %v", err)). A MIG layout the strategy does not fit
# (gpu-feature-discovery#24), a GPU NVML cannot open; NVML not loaded in its container is
# the same run error with go-nvml's "failed to initialize NVML" / "could not load NVML" words inside (reason nvml_init):
#   gpu-feature-discovery: 2022/06/15 03:25:50 Error: error creating NVML labeler: error creating resource labeler: failed to construct MIG resource labeler: failed to create labeler for mig-strategy=single: failed to check for empty MIG-enabled devices: NVML error: Not Found
# and since v0.15 through klog.Error(err) of cmd/gpu-feature-discovery/main.go (klog's "Lmmdd hh:mm:ss.uuuuuu
# threadid file:line] " header), the chain of NVIDIA/k8s-device-plugin 1b826acc internal/lm/labeler.go, internal/lm/nvml.go
# and the vendored go-nvlib pkg/nvlib/device/device.go:
#   fmt.Errorf("error creating labeler: %v", err) / fmt.Errorf("error getting devices: %v", err)
#   / fmt.Errorf("error getting device handle for index '%v': %v", i, ret)
_GFD_ERROR = re.compile(r"\bgpu-feature-discovery: \d{4}/\d\d/\d\d \d\d:\d\d:\d\d (?:Error|Unexpected error): (?P<err>\S(?:.*\S)?)\s*$"
                        r"|\] (?P<kerr>error creating (?:NVML )?labeler: (?:.*\S|[^\S\n]))\s*$")
_GFD_MIG = re.compile(r"\bMIG\b|mig-strategy")  # the MIG strategy's labeler: reason mig_config
_GFD_NVML = re.compile(r"failed to initialize NVML|could not load NVML|libnvidia-ml\.so")  # reason nvml_init
# Its run loop and exit (main.go, every version), read as used with no fact; the deferred clean-up of a file it had
# not written yet says there was nothing to remove (klog.Warningf("Error removing output file: %v") since v0.15):
#   gpu-feature-discovery: 2022/06/15 03:25:50 Warning: Error removing output file: failed to remove output file: remove /etc/kubernetes/node-feature-discovery/features.d/gfd: no such file or directory
_GFD_LIFECYCLE = re.compile(r"\bgpu-feature-discovery: \d{4}/\d\d/\d\d \d\d:\d\d:\d\d (?:Start running|Exiting|Running gpu-feature-discovery in version"
                            r"|Loaded configuration|Writing labels to output file|Sleeping for|Received signal)"
                            r"|Error removing output file: .{0,300}?: no such file or directory\s*$")
# An NVML event the health check received and skips, for it acts on Xid events only (NVIDIA/k8s-device-plugin
# internal/rm/health.go, klog.Infof("Skipping non-nvmlEventTypeXidCriticalError event: %+v", e); the DRA driver's
# device_health.go prints "... event: Data=%d, Type=%d, GI=%d, CI=%d"). It registers the double- and single-bit ECC
# events beside the Xid one, so EventType:2 (nvml.h nvmlEventTypeDoubleBitEccError) is an uncorrectable ECC error:
# I1025 02:19:08.002792       1 health.go:151] Skipping non-nvmlEventTypeXidCriticalError event: {Device:{Handle:0x7f0dcf40bdf8} EventType:2 EventData:0 GpuInstanceId:4294967295 ComputeInstanceId:4294967295}   (NVIDIA/k8s-device-plugin#1014)
_SKIPPED_EVENT = re.compile(r"Skipping non-nvmlEventTypeXidCriticalError event: (?:\{.{0,200}?\bEventType:(?P<t>\d{1,5}) "
                            r"EventData:(?P<d>\d{1,12})|Data=(?P<d2>\d{1,12}), Type=(?P<t2>\d{1,5}))")
_NVML_EVENTS = {1: "single_bit_ecc", 2: "double_bit_ecc"}
# E0506 17:45:45.442750       1 main.go:173] error starting plugins: error getting plugins: unable to create plugins: failed to construct resource managers: invalid device discovery strategy   (NVIDIA/k8s-device-plugin#1220)
# i get `error starting plugins: error getting plugins: unable to create plugins: failed to construct resource managers: invalid device discovery strategy`   (#1470, quoted inline)
_EXIT = re.compile(r"\berror starting plugins: (?P<err>[^\s`'\"](?:[^\n`]{0,2000}[^\s`'\"])?)")
_EXIT_REASONS = (  # the chain's innermost words -> reason (main.go, plugin-manager.go, plugin/factory.go, rm/device_map.go)
    ("nvml_init", re.compile(r"nvml init failed|(?i:failed to initialize NVML|could not load NVML)")),
    ("mig_config", re.compile(r"(?i)MIG device type present|No MIG devices present|Unsupported MIG device|migEnabled=true was not configured"
                              r"|invalid MIG configuration|same migEnabled value|has no MIG devices configured|unknown MIG strategy")),
    ("cdi", re.compile(r"unable to create cdi (?:handler|spec file)")),
    ("config", re.compile(r"unable to (?:load|finalize) config|unable to validate flags|invalid --[\w-]+ option|unable to add default resources")),
)
_ANY = re.compile("|".join(re.sub(r"\(\?P<\w+>", "(?:", p.pattern)  # one alternation: the group names go
                           for p in (_STRATEGY, _SKIPPED_EVENT, _NO_DEVICES, _HINT, _XID_UNHEALTHY, _MARKED, _CHECK_FAILED, _ALLOCATE, _ALLOCATE_RPC,
                                     _DIAL_SOCKET, _START,
                                     _PLUGIN_START, _REGISTER, _KUBELET, _RETRYING, _LIFECYCLE, _GRPC_CRASHED,
                                     _ALLOCATE_FRAME, _GFD_ERROR, _GFD_LIFECYCLE, _LEGACY_GPUS, _EXIT,
                                     _KUBELET_REGISTERED, _KUBELET_STREAM_ENDED))
                  # the admission handler's message of any reason (_ALLOCATE_OTHER), whole or folded once onto the next line
                  + r"|\bAllocate failed due to [^\n]{1,300}?(?:\n[ \t]+[^\n]{1,300}?)?, which is unexpected", re.M)


def detect(head: str) -> bool:
    if not ("Incompatible strategy" in head or "Incompatible platform" in head or "Waiting indefinitely" in head or "If this is a GPU node" in head
            or "XidCriticalError" in head or "device marked unhealthy" in head or "Allocate failed due to" in head
            or "device plugin" in head or "failed to start: " in head or "Could not contact Kubelet" in head
            or "Failed to start one or more plugins" in head or " watcher." in head or "lugins." in head
            or "Loading configuration." in head or "to serve '" in head or "GRPC server for '" in head
            or ").Allocate(" in head or "unhealthy" in head or "/device-plugins/" in head
            or "gpu-feature-discovery: " in head or " labeler: " in head or "equested number of GPUs unavailable" in head
            or "error starting plugins: " in head):
        return False
    return _ANY.search(head) is not None


# The plugin's (and gpu-feature-discovery's) dump of its configuration at start (cmd/nvidia-device-plugin/main.go:
# configJSON, err := json.MarshalIndent(config, "", "  "); log.Printf("\nRunning with config:\n%v", string(configJSON))
# in v0.12-v0.13, klog.Infof since v0.14): the log header alone on its line (the message starts with a newline), the
# line below, and the JSON object from its "{" to the "}" at the margin (or to the text's end, a paste cut inside it):
# 2022/08/22 17:27:44
# Running with config:
# {
#   "version": "v1",                                   (NVIDIA/k8s-device-plugin#330, #390)
_CONFIG_DUMP = re.compile(r"^Running with config:\s*$")
_BARE_HEADER = re.compile(r"^(?:\d{4}/\d\d/\d\d \d\d:\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9}\s{1,20}\d{1,10} [\w.-]{1,60}:\d{1,6}\])\s*$")


def _config_dump(lines: list[str]) -> tuple[set[int], int]:
    """The 1-based lines of each configuration dump (_CONFIG_DUMP), read with no fact; and the last line where
    the text ends inside one (0: none does)."""
    out: set[int] = set()
    cut = 0
    for i, line in enumerate(lines):
        if "Running with config:" not in line or _CONFIG_DUMP.match(line) is None or i + 1 >= len(lines) \
                or lines[i + 1].rstrip() != "{":
            continue
        if i and _BARE_HEADER.match(lines[i - 1]):
            out.add(i)
        out.add(i + 1)
        for k in range(i + 1, len(lines)):
            out.add(k + 1)
            if k > i + 1 and lines[k].rstrip() == "}":
                break
        else:
            cut = len(lines)
    return out, cut


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    dump, cut = _config_dump(artefact.lines) if "Running with config:" in artefact.text else (set(), 0)
    if cut:
        b.limit(cut, "cut_short", "the device plugin's configuration dump runs to the text's end (cut): what the plugin "
                                  "logged after it (its devices, its registration) is not in the paste")
    started_err: str | None = None  # the error of the last "Could not start/register" line: main's echo of it is no new fact
    incompatible = False  # an "Incompatible strategy detected" line was read: the exit it causes is no new fact
    registered: list[tuple[int, str, float | None]] = []  # the kubelet's registrations: line, resource, time of day
    ended: list[tuple[int, str, str, float | None]] = []  # the kubelet's ended streams: line, resource, error, time
    # the plugin's own registrations (line, resource or None): a failure to register before one of them was retried and succeeded
    plugin_registered = [(n, m["res"]) for n, line in enumerate(artefact.lines, 1)
                         if "Registered device plugin " in line and (m := _REGISTERED.search(line)) is not None]
    serving: str | None = None  # the resource of the last "Starting to serve '<res>' on" line
    for n, line in enumerate(artefact.lines, 1):
        if n in dump:
            result.lines_used += 1
            continue
        if "Starting to serve '" in line and (m := _SERVING.search(line)) is not None:
            serving = m["res"]
        if "ended unexpectedly for device plugin" in line and (m := _KUBELET_STREAM_ENDED.search(line)) is not None:
            ended.append((n, m["res"] or m["res2"], (m["err"] if m["res"] else m["err2"]).replace('\\"', '"'), _klog_time(line)))
        elif "Got registration request from device plugin" in line and (m := _KUBELET_REGISTERED.search(line)) is not None:
            registered.append((n, m["res1"] or m["res2"], _klog_time(line)))
        elif "error starting plugins: " in line and (m := _EXIT.search(line)) is not None:
            err = m["err"]
            if err.endswith("invalid device discovery strategy"):
                if not incompatible:
                    b.add(DevicePluginState, n, state="incompatible_strategy", message=err)
            elif (reason := next((r for r, pat in _EXIT_REASONS if pat.search(err)), "other")) != "nvml_init":
                b.add(DevicePluginState, n, state="exited", reason=reason, message=err)
            # (an NVML failure in the chain is nvml_init's fact: that reader reads "nvml init failed: <ret>")
        elif "ould not" in line and (m := _START.search(line) or _REGISTER.search(line)) is not None:
            state = "start_failed" if m.re == _START else "register_failed"  # (==, not is: m.re is the compiled pattern, facts/lazy_re.py)
            reason = "socket_in_use" if _SOCKET_IN_USE.search(m["err"]) else "other"
            if state == "register_failed" and _registered_after(plugin_registered, n, serving):
                reason = "registered_after"
            b.add(DevicePluginState, n, state=state, resource=m["res"] if state == "start_failed" else None,
                  reason=reason, message=m["err"])
            started_err = m["err"]
        elif "failed to start: " in line and (m := _PLUGIN_START.search(line)) is not None:
            if m["err"] != started_err:
                b.add(DevicePluginState, n, state="start_failed", resource=m["name"],
                      reason="socket_in_use" if _SOCKET_IN_USE.search(m["err"]) else "other", message=m["err"])
            started_err = None
        elif "Could not contact Kubelet" in line:
            b.add(DevicePluginState, n, state="kubelet_unreachable",
                  reason="registered_after" if _registered_after(plugin_registered, n, serving) else "other", message=line.strip())
        elif "panic: " in line and (m := _PANIC.match(line)) is not None:
            stack = artefact.lines[n:n + _STACK_LINES]
            where = ("in_allocate" if any(_ALLOCATE_FRAME.search(f) for f in stack)
                     else "mig_config" if _MIG_REFUSAL.search(m["msg"]) else "other")
            b.add(DevicePluginState, n, state="crashed", reason=where, message=f"panic: {m['msg']}")
        elif "GRPC server for '" in line and (m := _GRPC_CRASHED.search(line)) is not None:
            b.add(DevicePluginState, n, state="grpc_crashed", resource=m["res"], reason="other", message=m["err"])
        elif ("gpu-feature-discovery: " in line or " labeler: " in line) and (m := _GFD_ERROR.search(line)) is not None:
            err = m["err"] or m["kerr"]
            b.add(DevicePluginState, n, state="gfd_failed", resource="gpu-feature-discovery", message=err,
                  reason="mig_config" if _GFD_MIG.search(err) else "nvml_init" if _GFD_NVML.search(err) else "other")
        elif _RETRYING.search(line) or _LIFECYCLE.search(line) or _GFD_LIFECYCLE.search(line):
            pass
        elif (m := _STRATEGY.search(line)) is not None:
            b.add(DevicePluginState, n, state="incompatible_strategy", strategy=m["strategy"])
            incompatible = True
        elif _NO_DEVICES.search(line):
            b.add(DevicePluginState, n, state="no_devices")
        elif "Skipping non-nvml" in line and (m := _SKIPPED_EVENT.search(line)) is not None:
            event_type = int(m["t"] or m["t2"])
            b.add(DevicePluginNvmlEvent, n, event_type=event_type, event=_NVML_EVENTS.get(event_type, "other"),
                  event_data=int(m["d"] or m["d2"]))
        elif "XidCriticalError" in line and (m := _XID_UNHEALTHY.search(line)) is not None:
            b.add(DevicePluginUnhealthy, n, device=m["dev"], xid=int(m["xid"]))
        elif "arking" in line and (m := _CHECK_FAILED.search(line)) is not None:
            check = next(c for c in _CHECKS if m[c] is not None)
            b.add(DevicePluginUnhealthy, n, device=m.groupdict().get(f"{check}_dev"), check_failed=check, detail=m[check])
        elif "device marked unhealthy" in line and (m := _MARKED.search(line)) is not None:
            b.add(DevicePluginUnhealthy, n, device=m["dev"], resource=m["res"])
        elif "Allocate failed due to" in line and (m := _ALLOCATE_RPC.search(line)) is not None:
            b.add(K8sDeviceAllocationFailed, n, resource="", reason="plugin_rpc_failed", message=f"{m['code']}: {m['desc']}",
                  said=f"rpc error: code = {m['code']} desc = {m['desc']}")
        elif "Error while dialing" in line and (m := _DIAL_SOCKET.search(line)) is not None:
            err = m["err"]
            if err is None and n < len(artefact.lines):
                # the errno text wrapped onto the next line ("connection refused.")
                nxt = re.match(r"\s*([a-z][a-z ]{2,40}[a-z])\.?\"?\s*$", artefact.lines[n])
                err = nxt[1] if nxt else None
                result.lines_used += nxt is not None
            b.add(DevicePluginState, n, state="socket_unreachable", resource=m["sock"], reason="other",
                  message=f"connect: {err}" if err else "connect failed")
        elif "Allocate failed due to" in line and (m := _ALLOCATE.search(line)) is not None:
            if m["res"]:
                b.add(K8sDeviceAllocationFailed, n, resource=m["res"], reason="devices_unavailable",
                      requested=int(m["req"]), available=int(m["avail"]), said=m[0][len("Allocate failed due to "):])
            else:
                b.add(K8sDeviceAllocationFailed, n, resource=m["res2"], reason="no_healthy_devices",
                      said=m[0][len("Allocate failed due to "):])
        elif "Allocate failed due to" in line and (m := _ALLOCATE_OTHER.search((folded := _folded(artefact.lines, n, line))[0])):
            why = " ".join(m["why"].split())[:300]
            b.add(K8sDeviceAllocationFailed, n, resource="", reason="other", message=why, said=why)
            result.lines_used += folded[1]  # the lines a YAML dump folded it onto, read with it
        elif "equested number of GPUs unavailable" in line and (m := _LEGACY_GPUS.search(line)) is not None:
            b.add(K8sDeviceAllocationFailed, n, resource="alpha.kubernetes.io/nvidia-gpu", reason="devices_unavailable",
                  requested=int(m["req"]), available=int(m["avail"]), said=m[0])
        elif not _HINT.search(line):
            continue
        result.lines_used += 1
    said: set[tuple[str, str]] = set()
    for n, res, err, at in ended:
        # the plugin registered the resource again after it (it came back), or just before it (its restart closed the old stream)
        again = any(r == res and (k > n or (at is not None and t is not None and 0 <= at - t <= _REREGISTER_S))
                    for k, r, t in registered)
        if not again and (res, err) not in said:  # one fact for a stream the log reports ended several times alike
            said.add((res, err))
            b.add(DevicePluginState, n, state="stream_ended", resource=res, reason="not_reregistered", message=err)
    return result


def _registered_after(registered: list[tuple[int, str | None]], n: int, serving: str | None) -> bool:
    """Whether the plugin registered with the kubelet after line ``n`` (its failure there was retried): a registration
    of the resource it was serving, or any where the registration or the serving line names none (v1.x)."""
    return any(k > n and (res is None or serving is None or res == serving) for k, res in registered)


def _klog_time(line: str) -> float | None:
    """The time of day of a klog line's header, in seconds (None: no header)."""
    m = _KLOG_TIME.search(line)
    return int(m["h"]) * 3600 + int(m["m"]) * 60 + float(m["s"]) if m else None


def _folded(lines: list[str], n: int, line: str) -> tuple[str, int]:
    """``line`` (the 1-based line ``n``) with the lines a YAML dump folded it onto (more indented than it,
    up to three) joined on, where it does not end the admission message itself; and how many were joined."""
    if "which is unexpected" in line:
        return line, 0
    indent = len(line) - len(line.lstrip())
    joined = 0
    for nxt in lines[n:n + 3]:
        if not nxt.strip() or len(nxt) - len(nxt.lstrip()) <= indent:
            break
        line += " " + nxt.strip()
        joined += 1
        if "which is unexpected" in nxt:
            break
    return line, joined


#: the line signatures this reader owns: one of them occurs in any text detect() accepts (each is
#: the fixed head of one of _ANY's alternatives, without the captures and line ends the parse
#: needs: all readers' signatures are matched in one RE2 pass, facts/classify.py)
_SIG = re.compile("|".join((
    r"Incompatible strategy detected \S", _NO_DEVICES.pattern, _HINT.pattern, r"XidCriticalError: Xid=\d",
    r"' device marked unhealthy: \S", r"Skipping non-nvmlEventTypeXidCriticalError event: ", r"Could not determine device placement for \S",
    r"unable to get device handle from UUID: ", r"unable to determine the supported events for \S",
    r"Marking device \S+ as unhealthy: ", r"; marking all devices as unhealthy", r"Allocate failed due to ", r"Could not start device plugin for '[^']+': ",
    r"Error while dialing:? dial unix \S*/device-plugins/",
    r"\bPlugin \S+ failed to start: ", r"Could not register device plugin: ", _KUBELET.pattern, _RETRYING.pattern,
    _LIFECYCLE.pattern, r"GRPC server for '[^']+' crashed with error: ", _ALLOCATE_FRAME.pattern,
    r"\bgpu-feature-discovery: \d{4}/\d\d/\d\d \d\d:\d\d:\d\d (?:Error|Unexpected error|Start running|Exiting|Warning: Error removing)",
    r"\] error creating (?:NVML )?labeler: ", _LEGACY_GPUS.pattern, r"\berror starting plugins: [^\s`'\"]",
    r"Got registration request from device plugin with resource", r"[Ll]istAndWatch ended unexpectedly for device plugin")), re.M)
SIGNATURES = (_SIG,)
