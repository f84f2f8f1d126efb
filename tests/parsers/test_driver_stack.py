"""Driver-stack readers on real captures: NVML failures, the container toolkit hook, the k8s
device plugin, fabric manager, the nvidia-smi summary table and --query-gpu CSV."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import (fabric_manager_log, k8s_device_plugin, nvidia_container_cli, nvidia_smi_table,
                                       nvidia_smi_util, nvml_init)
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def _view(r):
    return [(f.evidence.line, f.kind, {k: v for k, v in f.rule_view().items() if k not in ("kind", "id", "node")})
            for f in r.facts]


@pytest.mark.parametrize("rel, want", [
    ("nvml_init/machine_shop60_koelsch_mismatch.txt", [(2, "driver_library_mismatch", None)]),
    ("nvml_init/video2x1226_mismatch_library_version.txt", [(1, "driver_library_mismatch", "565.57")]),
    # nvtop's own wording, a space before the colon (NixOS/nixpkgs#98328; the prompt line above it is not read)
    ("nvml_init/nixpkgs98328_nvtop_mismatch.txt", [(2, "driver_library_mismatch", None)]),
    ("k8s_device_plugin/device_plugin170_nvml_not_loaded_mixed.log", [(2, "library_not_found", None)]),
    # dcgm-exporter 4.x's "Cannot init NVML library; err: %v" in slog's text form and through Go's log package
    ("dcgm_exporter_log/nvml_not_found_slog_dcgmexporter612_mixed.log", [(6, "library_not_found", None)]),
    ("dcgm_exporter_log/nvml_not_found_golog_dcgmexporter450_mixed.log", [(7, "library_not_found", None)]),
    # the DRA driver's gpu-kubelet-plugin: "error initializing NVML: %w" at the end of its error chain
    ("nvml_init/dradriver1272_kubelet_plugin_error_initializing_nvml.log", [(1, "library_not_found", None)]),
])
def test_nvml_failures_from_real_output(rel, want):
    r = _parse(nvml_init, rel)
    got = [(f.evidence.line, f.reason, f.library_version) for f in r.facts if f.kind == "nvml_init_failure"]
    assert got == want and r.errors == []


@pytest.mark.parametrize("line, reason, source", [
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
     "NVIDIA driver is installed and running.", "driver_not_loaded", "nvidia-smi"),
    ("E0121 12:04:24.666244       1 factory.go:87] Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND.",
     "library_not_found", "nvml"),
    ("Failed to initialize NVML: Unknown Error", "unknown_error", "nvml"),
    # NVIDIA's Go tools' "error initializing NVML: %v" of nvml.ErrorString(ret) (mig-parted DeviceFilter; CONSTRUCTED
    # from the format with NVML_ERROR_DRIVER_NOT_LOADED's text) and a Go program's own fmt.Printf of the same words
    ("Error: error initializing NVML: Driver Not Loaded", "driver_not_loaded", "nvml"),
    ("error initializing NVML: ERROR_UNKNOWN", "unknown_error", "nvml"),
    # the host engine's own log: DCGM's logger puts the source after the message (NVIDIA/gpu-operator#498's
    # line, without the shell prompt it was pasted behind)
    ("2021-11-23 00:15:28.951 ERROR [82:82] Cannot initialize the hostengine: Error: Failed to initialize NVML "
     "[/workspaces/dcgm-rel_dcgm_2_3-postmerge/dcgmlib/src/DcgmHostEngineHandler.cpp:3647] [DcgmHostEngineHandler::Init]",
     "other", "nvml"),
    ("No devices were found", "no_devices", "nvidia-smi"),
    # nvtop's "Impossible to initialize nvidia nvml : %s" of nvmlErrorString (CONSTRUCTED: NVML_ERROR_DRIVER_NOT_LOADED's text)
    ("Impossible to initialize nvidia nvml : Driver Not Loaded", "driver_not_loaded", "nvml"),
    # nvidia-docker 1.x's Go bindings (NVIDIA/nvidia-docker#270)
    ("nvidia-docker | 2016/12/17 05:23:46 Error: nvml: Driver/library version mismatch", "driver_library_mismatch", "nvml"),
    # the same bindings' library-not-found error has no "nvml: " (nvmlErrorString needs the library; NVIDIA/nvidia-docker#74)
    ("  Error: Could not load NVML library", "library_not_found", "nvml"),
    # nvidia-smi's own words when it cannot load NVML (warmshao/FasterLivePortrait#8: broken library links in a container)
    ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is "
     "properly installed and present in your system.", "library_not_found", "nvidia-smi"),
])
def test_nvml_message_forms(line, reason, source):
    (f,) = _parse(nvml_init, text=line + "\n").facts
    assert (f.reason, f.source) == (reason, source)


def test_nvml_shutdown_after_a_failed_init_is_that_failure():
    # microsoft/WSL#41062: nvidia-smi's "Failed to properly shut down NVML: %s" after the init's failure is no second one
    res = _parse(nvml_init, "nvml_init/wsl41062_os_blocked_with_shutdown.txt")
    assert [(f.reason, f.evidence.line) for f in res.facts] == [("os_blocked", 1)]
    assert res.lines_used == 2
    # alone (CONSTRUCTED from nvidia-smi's format), it is the failure the tool met
    (f,) = _parse(nvml_init, text="Failed to properly shut down NVML: Unknown Error\n").facts
    assert (f.reason, f.source) == ("unknown_error", "nvidia-smi")


def test_hostengine_log_pasted_back_into_a_shell():
    # NVIDIA/gpu-operator#498: nv-hostengine's ERROR line behind a shell prompt; its follow-up line is DCGM's own
    (f,) = _parse(nvml_init, "nvml_init/gpuoperator498_hostengine_failed_to_initialize_nvml.txt").facts
    assert (f.kind, f.reason, f.evidence.line) == ("nvml_init_failure", "other", 1)
    # near misses: the message followed by something that is not DCGM's source suffix, or by an error text
    for line in ("Error: Failed to initialize NVML [retrying]", "Error: Failed to initialize NVML instance"):
        assert [g for g in nvml_init.parse(Artefact(path="t", text=line + "\n")).facts if g.kind == "nvml_init_failure"] == []


def test_container_cli_lines_are_not_read_twice():
    text = (FIX / "nvidia_container_cli/toolkit394_nvml_mismatch.txt").read_text()
    assert not nvml_init.detect(text) or nvml_init.parse(Artefact(path="t", text=text)).facts == []
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/toolkit394_nvml_mismatch.txt").facts
    assert (f.kind, f.reason, f.source) == ("nvml_init_failure", "driver_library_mismatch", "nvidia-container-cli")


def test_container_requirement_in_escaped_hook_output():
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/vortex106_cuda_requirement_escaped.txt").facts
    assert (f.requirement, f.required_version) == ("cuda>=10.2", "10.2")
    assert f.message.endswith("use an earlier cuda container")  # cut at the escaped newline
    (g,) = _parse(nvidia_container_cli, text="stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0\n").facts
    assert g.requirement == "cuda>=9.0"


def test_container_cli_mount_error_operations():
    # BIOP/BIOP-desktop#2: the image held libnvidia-ml.so.1 where the hook creates its mount point
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/biop2_mount_target_file_exists.txt").facts
    assert (f.kind, f.stage, f.operation) == ("container_toolkit_error", "mount", "file_create")
    assert f.message.endswith("libnvidia-ml.so.1: file exists")
    # libnvidia-container src/nvc_mount.c's other mount-stage messages, and another stage
    # (xmount names the target, a path in the container's rootfs, where the source is no host path: round rT5)
    for line, op in (("nvidia-container-cli: mount error: mount operation failed: /x/merged/proc/driver/nvidia/params/version/registry: no such file or directory: unknown", "mount_into_container"),
                     ("nvidia-container-cli: mount error: mount operation failed: /run/containerd/io.containerd.runtime.v2.task/k8s.io/3f/rootfs/proc/driver/nvidia: permission denied: unknown", "mount_into_container"),
                     ("nvidia-container-cli: mount error: mount operation failed: /usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05: no such file or directory: unknown", "mount"),
                     ("nvidia-container-cli: mount error: stat failed: /dev/nvidia-modeset: no such file or directory: unknown", "stat"),
                     ("nvidia-container-cli: detection error: open failed: /dev/nvidiactl: no such file or directory: unknown", "other")):
        (g,) = _parse(nvidia_container_cli, text=line + "\n").facts
        assert g.operation == op


def test_container_cli_cgroup_controller_not_found():
    # NVIDIA/nvidia-docker#1486 (docker 20.10 on a cgroup v2 host) and NVIDIA/k8s-device-plugin#324's title (the
    # operator's nvidia-container-cli.real): libnvidia-container's "cgroup subsystem %s not found"
    for line in ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting container process "
                 "caused: process_linux.go:495: container init caused: Running hook #1:: error running hook: exit status 1, stdout: , "
                 "stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.",
                 "Failure: nvidia-container-cli.real: container error: cgroup subsystem devices not found"):
        (f,) = _parse(nvidia_container_cli, text=line + "\n").facts
        assert (f.kind, f.stage, f.operation, f.message) == (
            "container_toolkit_error", "container", "cgroup_not_found", "cgroup subsystem devices not found")
    # another container-stage message stays other (the same function's error_set(err, "read error: %s", procf), filled in)
    (g,) = _parse(nvidia_container_cli, text="nvidia-container-cli: container error: read error: /proc/1/mountinfo: unknown\n").facts
    assert g.operation == "other"


def test_container_cli_unknown_device():
    # NVIDIA/nvidia-container-toolkit#632: the compose service asked for GPU index 2 (twice in the output)
    facts = _parse(nvidia_container_cli, "nvidia_container_cli/toolkit632_compose_unknown_device_2.txt").facts
    assert [(f.stage, f.operation, f.device, f.message) for f in facts] == [("device", "unknown_device", "2", "2: unknown device")] * 2
    # NVIDIA/nvidia-container-toolkit#108: the device plugin's volume-mount list path read as a device name
    (g,) = _parse(nvidia_container_cli, "nvidia_container_cli/toolkit108_k3s_volume_mount_list_unknown_device.txt").facts
    assert (g.operation, g.device) == ("device_list_path", "/var/run/nvidia-container-devices")
    # a bus id keeps its colons; the pre-1.0 wording names the device after the words
    for line, dev in (("nvidia-container-cli: device error: 0000:3b:00.0: unknown device: unknown", "0000:3b:00.0"),
                      ("nvidia-container-cli: device error: unknown device id: 1", "1")):
        (h,) = _parse(nvidia_container_cli, text=line + "\n").facts
        assert (h.operation, h.device) == ("unknown_device", dev)
    # another device-stage message stays other
    (k,) = _parse(nvidia_container_cli, text="nvidia-container-cli: device error: exceeds maximum GPU device count: unknown\n").facts
    assert (k.operation, k.device) == ("other", None)


def test_container_cli_imex_channels_refused():
    # awslabs/amazon-eks-ami#2062 (EKS GPU AMI v20241109): libnvidia-container's warnx("error parsing IMEX info: %s")
    # (src/cli/configure.c, info.c) has no stage word before "error": the hook refused NVIDIA_IMEX_CHANNELS=all
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/eksami2062_imex_channel_value_all.txt").facts
    assert (f.kind, f.stage, f.operation, f.device, f.message, f.evidence.line) == (
        "container_toolkit_error", "imex", "imex_channels", "all", "unsupported IMEX channel value: all", 1)
    # the operator's wrapper binary; another refusal keeps its words and names no value
    (g,) = _parse(nvidia_container_cli, text="stderr: nvidia-container-cli.real: error parsing IMEX info: invalid channel list: unknown\n").facts
    assert (g.operation, g.device, g.message) == ("imex_channels", None, "invalid channel list")
    # must not: the same words from another program, and the CLI's other messages are not IMEX's
    assert not nvidia_container_cli.detect("myapp: error parsing IMEX info: bad value\n")
    (h,) = _parse(nvidia_container_cli, text="nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown\n").facts
    assert h.kind == "nvml_init_failure"


def test_container_cli_ldconfig_run():
    # NVIDIA/k8s-device-plugin#1400: the hook's confined ldconfig killed (nvc_ldcache.c: "process %s terminated with signal %d")
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/k8sdp1400_ldcache_ldconfig_signal_9.txt").facts
    assert (f.stage, f.operation, f.message) == ("ldcache", "ldconfig", "process /sbin/ldconfig terminated with signal 9")
    # the same line closed by a markdown fence, and the exit-code form; another ldcache message stays other
    for line, op, msg in (("```... nvidia-container-cli: ldcache error: process /sbin/ldconfig terminated with signal 9```",
                           "ldconfig", "process /sbin/ldconfig terminated with signal 9"),
                          ("nvidia-container-cli: ldcache error: process /sbin/ldconfig.real failed with error code: 1: unknown",
                           "ldconfig", "process /sbin/ldconfig.real failed with error code: 1"),
                          ("nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig: no such file or directory: unknown",
                           "other", "open failed: /sbin/ldconfig: no such file or directory")):
        (g,) = _parse(nvidia_container_cli, text=line + "\n").facts
        assert (g.operation, g.message) == (op, msg)


def test_nvidia_oci_runtime_exit():
    # NixOS/nixpkgs#322400: containerd's go-runc "<runtime> did not terminate successfully: exit status N: <its stderr>"
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/nixpkgs322400_runtime_unknown_flag_root.txt").facts
    assert (f.kind, f.stage, f.operation, f.message, f.evidence.line) == (
        "container_toolkit_error", "runtime", "runtime_exit", "nvidia-container-runtime: exit status 125: unknown flag: --root", 1)
    # NVIDIA/nvidia-container-toolkit#104: no stderr of its own, runc's ": unknown." only
    (g,) = _parse(nvidia_container_cli, "nvidia_container_cli/toolkit104_runtime_exit_status_2.txt").facts
    assert (g.operation, g.message, g.evidence.line) == ("runtime_exit", "nvidia-container-runtime: exit status 2", 2)
    # the CDI/CSV mode's requirement refusal in the same form is the requirement fact (CONSTRUCTED from the toolkit's
    # "requirements not met: unsatisfied condition: cuda>=12.2 (cuda=11.4)")
    (h,) = _parse(nvidia_container_cli, text="OCI runtime create failed: nvidia-container-runtime did not terminate successfully: "
                  "exit status 1: time=\"x\" level=error msg=\"failed to create NVIDIA Container Runtime: failed to construct OCI "
                  "spec modifier: requirements not met: unsatisfied condition: cuda>=12.2 (cuda=11.4)\"\n").facts
    assert (h.kind, h.requirement) == ("container_requirement_unsatisfied", "cuda>=12.2")
    # near misses: runc's own exit, another runtime's
    for line in ("OCI runtime create failed: runc did not terminate successfully: exit status 1: unknown",
                 "OCI runtime create failed: /usr/bin/crun did not terminate successfully: exit status 1"):
        assert not nvidia_container_cli.detect(line + "\n")
        assert nvidia_container_cli.parse(Artefact(path="docker.txt", text=line + "\n", node="n1")).facts == []


def test_container_cli_behind_the_operators_wrapper():
    # NVIDIA/gpu-operator#130: the GPU Operator's toolkit runs the binary as nvidia-container-cli.real
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/gpuoperator130_cli_real_driver_error.txt").facts
    assert (f.kind, f.stage, f.message, f.evidence.line) == (
        "container_toolkit_error", "initialization", "driver error: failed to process request", 2)
    (g,) = _parse(nvidia_container_cli, text="stderr: nvidia-container-cli.real: initialization error: load library failed: "
                  "libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown\n").facts
    assert (g.kind, g.reason) == ("nvml_init_failure", "library_not_found")
    # near misses: another binary's name, the wrapper's path without a stage's error
    for line in ("nvidia-container-cli.realx: initialization error: driver error", "nvidia-container-runtime: initialization error: x",
                 "Installed '/usr/local/nvidia/toolkit/nvidia-container-cli.real'"):
        assert not nvidia_container_cli.detect(line + "\n")


def test_hook_program_without_the_hook_command():
    # NVIDIA/nvidia-container-toolkit#14: the configured hook runs a toolkit program with no 'prestart' command
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/toolkit14_hook_no_help_topic_prestart.txt").facts
    assert (f.kind, f.stage, f.evidence.line) == ("container_toolkit_error", "hook", 1)
    assert "no 'prestart' command" in f.message and "exit status 3" in f.message
    # near misses: urfave/cli's answer typed at a shell (no hook), a hook that failed for another reason
    for line in ("No help topic for 'prestart'",
                 "error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'"):
        assert not nvidia_container_cli.detect(line + "\n")


def test_device_plugin_states_and_hints():
    r = _parse(k8s_device_plugin, "k8s_device_plugin/notes_minikube_no_devices.log")
    assert [(f.state, f.strategy) for f in r.facts] == [("incompatible_strategy", "auto"), ("no_devices", None)]
    r = _parse(k8s_device_plugin, "k8s_device_plugin/device_plugin170_nvml_not_loaded_mixed.log")
    assert r.facts == [] and r.lines_used == 4  # Loading NVML and the three hint lines


def test_device_plugin_start_and_register_failures():
    # volcano-sh/devices#48: Start()'s line, then main's echo of the same error (no second fact), twice
    r = _parse(k8s_device_plugin, "k8s_device_plugin/volcano48_socket_in_use.log")
    assert [(f.evidence.line, f.state, f.resource, f.reason) for f in r.facts] == [
        (3, "start_failed", "volcano.sh/gpu-memory", "socket_in_use"), (7, "start_failed", "volcano.sh/gpu-memory", "socket_in_use")]
    assert r.facts[0].message == "listen unix /var/lib/kubelet/device-plugins/volcano.sock: bind: address already in use"
    assert r.lines_used == 10 and r.errors == []
    # the other formats of NVIDIA/k8s-device-plugin (server.go, main.go v0.6-v0.20), filled in
    text = ("E0101 00:00:00.000000       1 server.go:146] Could not register device plugin: rpc error: code = Unavailable desc = connection error\n"
            "E0101 00:00:00.000000       1 main.go:409] Plugin NVIDIA-Device-Plugin failed to start: rpc error: code = Unavailable desc = connection error\n"
            "I0101 00:00:00.000000       1 main.go:302] Failed to start one or more plugins. Retrying in 30s...\n"
            "2020/05/14 02:11:19 Could not contact Kubelet, retrying. Did you enable the device plugin feature gate?\n"
            "2020/05/14 02:11:20 Plugin NVIDIA-Device-Plugin failed to start: context deadline exceeded\n")
    r = _parse(k8s_device_plugin, text=text)
    assert [(f.state, f.resource, f.reason) for f in r.facts] == [
        ("register_failed", None, "other"), ("kubelet_unreachable", None, "other"),
        ("start_failed", "NVIDIA-Device-Plugin", "other")]
    assert r.lines_used == 5


@pytest.mark.parametrize("rel, used", [("k8s_device_plugin/volcano42_startup_cut.log", 6),
                                       ("k8s_device_plugin/hami452_startup_flags_cut.log", 4)])
def test_device_plugin_lifecycle_lines_name_the_file_and_give_no_fact(rel, used):
    # main.go/server.go's lifecycle lines, in Volcano's (Go log and klog) and HAMi's (klog) forks
    r = _parse(k8s_device_plugin, rel)
    assert r.facts == [] and r.lines_used == used and r.errors == []


def test_device_plugin_grpc_server_crash():
    # server.go of every version: "GRPC server for '%s' crashed with error: %v", filled in
    (f,) = _parse(k8s_device_plugin, text="2020/05/14 02:11:19 GRPC server for 'nvidia.com/gpu' crashed with error: "
                                          "accept unix /var/lib/kubelet/device-plugins/nvidia-gpu.sock: use of closed network connection\n").facts
    assert (f.state, f.resource, f.reason) == ("grpc_crashed", "nvidia.com/gpu", "other")


def test_device_plugin_panic_and_where_it_crashed():
    # volcano-sh/devices#58: the CRI log's "stderr F" prefix off (facts/lines.py), the panic's stack in Allocate
    r = _parse(k8s_device_plugin, "k8s_device_plugin/volcano58_panic_in_allocate_cri.log")
    assert [(f.evidence.line, f.state, f.reason, f.message) for f in r.facts] == [
        (3, "crashed", "in_allocate", "panic: runtime error: invalid memory address or nil pointer dereference")]
    # a panic whose stack names no Allocate (main's, filled in): crashed, reason other
    (f,) = _parse(k8s_device_plugin, text="I0706 08:05:20.347260       1 main.go:91] Starting FS watcher.\n"
                                          "panic: runtime error: index out of range [3] with length 3\n"
                                          "goroutine 1 [running]:\nmain.main()\n").facts
    assert (f.state, f.reason) == ("crashed", "other")


@pytest.mark.parametrize("rel, line, message", [
    # NVIDIA/gpu-operator#460 (v0.13+ wording) and #286 (the older plugin's), as posted
    ("k8s_device_plugin/gpu_operator460_mig_single_strategy_mixed_types_panic.log", 2,
     "panic: At least one device with migEnabled=true was not configured correctly: More than one MIG device type present on node"),
    ("k8s_device_plugin/gpu_operator286_mig_single_strategy_panic_v0.log", 8,
     "panic: More than one MIG device type present on node"),
])
def test_device_plugin_mig_strategy_panic(rel, line, message):
    (f,) = _parse(k8s_device_plugin, rel).facts
    assert (f.evidence.line, f.state, f.reason, f.message) == (line, "crashed", "mig_config", message)


def test_kubelet_admission_failure_and_plugin_health_lines():
    (f,) = _parse(k8s_device_plugin, "k8s_device_plugin/hami596_kubelet_allocate_devices_unavailable.txt").facts
    assert (f.kind, f.resource, f.reason, f.requested, f.available) == (
        "k8s_device_allocation_failed", "nvidia.com/gpu", "devices_unavailable", 1, 0)
    # the plugin's health-check formats (internal/rm/health.go, 0.6-era nvidia.go/server.go), filled in
    text = ("I0101 00:00:00.000000       1 health.go:160] XidCriticalError: Xid=48 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8; marking device as unhealthy.\n"
            "2020/08/10 19:09:42 XidCriticalError: Xid=79, All devices will go unhealthy.\n"
            "2020/08/10 19:09:42 'nvidia.com/gpu' device marked unhealthy: GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8\n"
            "Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected\n"
            "2020/08/10 19:09:42 XidCriticalError: Xid=13 ignored\n")
    r = _parse(k8s_device_plugin, text=text)
    got = [(f.kind, getattr(f, "xid", None), getattr(f, "device", None) or getattr(f, "reason", None)) for f in r.facts]
    assert got == [("device_plugin_unhealthy", 48, "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8"),
                   ("device_plugin_unhealthy", 79, None),
                   ("device_plugin_unhealthy", None, "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8"),
                   ("k8s_device_allocation_failed", None, "no_healthy_devices")]


def test_kubelet_calls_to_a_plugin_that_is_not_serving():
    # Project-HAMi/volcano-vgpu-device-plugin#4: the Allocate call's gRPC status, and the dial of the plugin's socket
    # wrapped before its errno text
    (f,) = _parse(k8s_device_plugin, "k8s_device_plugin/hami_volcano_vgpu4_pod_allocate_rpc_unavailable.txt").facts
    assert (f.kind, f.reason, f.resource, f.message) == (
        "k8s_device_allocation_failed", "plugin_rpc_failed", "", "Unavailable: error reading from server: EOF")
    r = _parse(k8s_device_plugin, "k8s_device_plugin/hami_volcano_vgpu4_kubelet_dial_socket_refused.txt")
    assert [(f.evidence.line, f.state, f.resource, f.message) for f in r.facts] == [
        (2, "socket_unreachable", "/var/lib/kubelet/device-plugins/nvidia-gpu.sock", "connect: connection refused")]
    assert r.lines_used == 2
    # the errno on the same line; another program's socket is not a device plugin's
    line = ('Err: connection error: desc = "transport: Error while dialing: dial unix /var/lib/kubelet/device-plugins/'
            'volcano.sock: connect: no such file or directory"\n')
    assert [f.message for f in _parse(k8s_device_plugin, text=line).facts] == ["connect: no such file or directory"]
    assert not k8s_device_plugin.detect('Error while dialing dial unix /run/containerd/containerd.sock: connect: connection refused\n')


def test_the_health_checks_own_failures_for_a_device():
    # Project-HAMi/HAMi#1950: the placement of a MIG device the plugin listed could not be resolved
    r = _parse(k8s_device_plugin, "k8s_device_plugin/hami1950_mig_placement_unknown_unhealthy.log")
    assert [(f.evidence.line, f.device, f.check_failed, f.detail, f.resource) for f in r.facts] == [
        (6, "MIG-30d00c09-8a98-59b8-8c1a-1d64b4ec3ad2", "placement", "unable to parse UUID as MIG device", None),
        (7, "MIG-30d00c09-8a98-59b8-8c1a-1d64b4ec3ad2", None, None, "nvidia.com/mig-1g.18gb")]
    # the other formats of internal/rm/health.go (registerDevices, runEventMonitor), filled in
    text = ("I0101 00:00:00.000000       1 health.go:120] Could not determine device placement for MIG-1: failed to get parent uuid: Unknown Error; marking it unhealthy.\n"
            "I0101 00:00:00.000000       1 health.go:130] unable to get device handle from UUID: ERROR_NOT_FOUND; marking it as unhealthy\n"
            "I0101 00:00:00.000000       1 health.go:140] unable to determine the supported events for GPU-1: ERROR_UNKNOWN; marking it as unhealthy\n"
            "I0101 00:00:00.000000       1 health.go:150] Marking device GPU-2 as unhealthy: ERROR_GPU_IS_LOST\n"
            "I0101 00:00:00.000000       1 health.go:160] Error waiting for event: ERROR_GPU_IS_LOST; marking all devices as unhealthy\n"
            "I0101 00:00:00.000000       1 health.go:170] Failed to determine uuid for event {Device:0xc0 EventType:8}: ERROR_UNKNOWN; marking all devices as unhealthy.\n"
            # near misses: the plugin's other lines about health
            "I0101 00:00:00.000000       1 health.go:60] Ignoring the following XIDs for health checks: map[13:true]\n"
            "W0101 00:00:00.000000       1 health.go:150] Device GPU-2 is too old to support healthchecking.\n")
    got = [(f.device, f.check_failed, f.detail) for f in _parse(k8s_device_plugin, text=text).facts]
    assert got == [("MIG-1", "placement", "failed to get parent uuid: Unknown Error"),
                   (None, "device_handle", "ERROR_NOT_FOUND"),
                   ("GPU-1", "supported_events", "ERROR_UNKNOWN"),
                   ("GPU-2", "register_events", "ERROR_GPU_IS_LOST"),
                   (None, "event_wait", "ERROR_GPU_IS_LOST"),
                   (None, "event_uuid", "ERROR_UNKNOWN")]


def test_fabric_manager_forms():
    (m,) = _parse(fabric_manager_log, "fabric_manager_log/gpu_operator544_version_mismatch.txt").facts
    assert (m.fabric_manager_version, m.driver_version) == ("530.30.02", "530.41.03")
    r = _parse(fabric_manager_log, "fabric_manager_log/gpu_operator610_nothing_to_do.txt")
    assert [(f.evidence.line, f.kind) for f in r.facts] == [
        (1, "fabric_manager_status"), (7, "fabric_manager_no_nvswitch"), (8, "fabric_manager_status")]
    r = _parse(fabric_manager_log, "fabric_manager_log/gpud_fabricmanager_sxid.log")
    (sx,) = r.facts
    assert (sx.kind, sx.switch, sx.sxid, sx.fatal, sx.link) == ("nvswitch_sxid", "0000:86:00.0", 12028, False, 61)
    r = _parse(fabric_manager_log, "fabric_manager_log/nvtrust128_journal_configured.txt")
    # 'Stopping nvidia-fabricmanager.service - ...' (systemd's job start message) and 'Stopped "Nvidia Fabric Manager"'
    assert [f.status for f in r.facts] == ["unit_failed", "configured", "started", "started", "stopped", "stopped"]
    assert [f.stopped_after for f in r.facts if f.status == "configured"] == [True]  # the service stops 47 min on


def test_systemctl_status_active_line():
    text = ("● nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
            "     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)\n"
            "     Active: active (running) since Tue 2023-06-27 10:02:11 UTC; 5s ago\n")
    (f,) = _parse(fabric_manager_log, text=text).facts
    assert (f.status, f.detail) == ("unit_active", "running")


def test_systemctl_status_blocks_of_real_h100_nodes():
    # newer systemd's '×' head and a unit killed by a signal (an NVLS recovery write-up), then a running unit
    # with its journal (a RHEL AI install guide): the state and the journal's start are read
    r = _parse(fabric_manager_log, "fabric_manager_log/nvls_recovery_h100_systemctl_status_failed_signal.txt")
    assert [(f.status, f.detail, f.evidence.line) for f in r.facts] == [("unit_failed", "Result: signal", 4)]
    r = _parse(fabric_manager_log, "fabric_manager_log/rhel_ai_h100_systemctl_status_active.txt")
    assert [(f.status, f.detail) for f in r.facts][0] == ("unit_active", "running")
    assert "unit_failed" not in {f.status for f in r.facts}


def test_fabric_manager_version_mismatch_quoted_alone():
    # the message without its journal prefix, in inline code closed by a full stop (siderolabs/pkgs#720)
    name = "fabric_manager_log/siderolabs_pkgs720_version_mismatch_inline_code.txt"
    assert fabric_manager_log.detect((FIX / name).read_text())
    (m,) = _parse(fabric_manager_log, name).facts
    assert (m.kind, m.fabric_manager_version, m.driver_version) == ("fabric_manager_version_mismatch", "525.85.12",
                                                                    "530.41.03")
    # near miss: prose naming the fabric manager, without its message, is not claimed
    assert not fabric_manager_log.detect("the fabric manager version must match the driver version\n")


def test_fabric_manager_does_not_claim_other_bracketed_logs():
    assert not fabric_manager_log.detect("[2026-08-05 22:30:00.123] [ERROR] [tid 12345] Stack trace:\n")


@pytest.mark.parametrize("rel, gpus, driver, cuda", [
    ("nvidia_smi_table/toolkit394_r550_rtx3060.txt", ["0000:81:00.0"], "550.54.14", "12.4"),
    ("nvidia_smi_table/vissl422_r450_a100_partial.txt", ["0000:b5:00.0", "0000:b6:00.0", "0000:ce:00.0", "0000:cf:00.0"], None, None),
    ("nvidia_smi_table/device_plugin60_r390_gtx1080.txt", ["0000:04:00.0"], "390.25", None),
])
def test_summary_table_layouts(rel, gpus, driver, cuda):
    r = _parse(nvidia_smi_table, rel)
    infos = [f for f in r.facts if f.kind == "gpu_info"]
    assert [f.pci_bus_id for f in infos] == gpus and r.errors == []
    assert {(f.driver_version, f.cuda_version) for f in infos} == {(driver, cuda)}
    assert len([f for f in r.facts if f.kind == "gpu_usage"]) == len(gpus)


@pytest.mark.parametrize("rel, driver, cuda", [
    # gpuopenanalytics/pynvml#48: the banner alone, quoted as the driver in use
    ("nvidia_smi_table/pynvml48_r525_banner_alone.txt", "525.125.06", "12.0"),
    # illnyang/nvlax#20: the banner cut after its CUDA version (no closing bar)
    ("nvidia_smi_table/nvlax20_r530_banner_cut.txt", "530.41.03", "12.1"),
])
def test_banner_without_gpu_rows_gives_the_driver_versions(rel, driver, cuda):
    """nvidia-smi's banner with no GPU row: the driver's and CUDA's versions, no GPU, no check (coverage context)."""
    r = _parse(nvidia_smi_table, rel)
    assert [(f.kind, f.version, f.cuda_version, f.loaded_module) for f in r.facts] == [
        ("nvidia_driver_version", driver, cuda, False)] and r.errors == [] and r.limits == []


def test_column_heads_without_gpu_rows_are_cut_short():
    """CONSTRUCTED from toolkit394's real R550 table: its GPU block removed, a process panel saying no process runs
    after it. nvidia-smi prints 'No devices were found' rather than an empty table: the GPUs were left out."""
    lines = (Path(__file__).parents[2] / "fixtures/artefacts/nvidia_smi_table/toolkit394_r550_rtx3060.txt").read_text().splitlines()
    text = "\n".join(lines[:9] + lines[12:]) + (
        "\n+-----------------------------------------------------------------------------------------+\n"
        "| Processes:                                                                              |\n"
        "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
        "|        ID   ID                                                               Usage      |\n"
        "|=========================================================================================|\n"
        "|  No running processes found                                                             |\n"
        "+-----------------------------------------------------------------------------------------+\n")
    r = _parse(nvidia_smi_table, text=text)
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 6)]
    assert [f.kind for f in r.facts] == ["gpu_process_panel", "nvidia_driver_version"] and r.errors == []
    # the whole table (a GPU row under the heads) gives no driver fact of its own and no limit
    whole = _parse(nvidia_smi_table, "nvidia_smi_table/toolkit394_r550_rtx3060.txt")
    assert not any(f.kind == "nvidia_driver_version" for f in whole.facts) and whole.limits == []


def test_summary_table_ending_inside_a_gpu_block_is_cut_short():
    """nvidia-smi closes every GPU's block with a +---+ border: a table that stops inside one (at a row
    cut before its bar, gpu-operator#1982's excerpt; or at the block's last row, k8s-device-plugin#60's
    paste) is a capture cut short, never a table read whole; the same rows with the border have no limit."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/gpuoperator1982_r560_a40_cut_in_gpu1.txt")
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 15)] and r.errors == []
    assert [f.pci_bus_id for f in r.facts if f.kind == "gpu_info"] == ["0000:2a:00.0", "0000:3d:00.0"]
    assert [(h.limit, h.line) for h in _parse(nvidia_smi_table, "nvidia_smi_table/device_plugin60_r390_gtx1080.txt").limits] == [
        ("cut_short", 9)]
    for rel in ("nvidia_smi_table/toolkit394_r550_rtx3060.txt", "nvidia_smi_table/h200_r580_no_processes.txt",
                "nvidia_smi_table/ogkm446_r525_a40_gpu4_err.txt"):
        assert _parse(nvidia_smi_table, rel).limits == [], rel
    whole = (Path(__file__).parents[2] / "fixtures/artefacts/nvidia_smi_table/gpuoperator1982_r560_a40_cut_in_gpu1.txt").read_text().rstrip() + (
        " |\n+-----------------------------------------+------------------------+----------------------+\n")
    assert _parse(nvidia_smi_table, text=whole).limits == []


@pytest.mark.parametrize("rel, line, mig_cell", [
    # mlcommons/algorithmic-efficiency#572: GPU 1's MIG row ends after its second cell's bar
    ("nvidia_smi_table/mlcommons572_r535_2080ti_cut_in_mig_row.txt", 14, "                  N/A |"),
    # lucidrains/flash-cosine-sim-attention#4: after its first (GPU 1 of eight A100s)
    ("nvidia_smi_table/flashcos4_r470_a100_cut_in_mig_row.txt", 14, "                      |             Disabled |"),
])
def test_summary_table_ending_in_a_mig_row_cut_at_a_bar_is_cut_short(rel, line, mig_cell):
    """A MIG row that stops at a cell's bar (every cell before it empty, the MIG M. cell missing) is a capture cut
    short: both GPUs' first two rows are read, and the table is not read whole. The same row completed, with the
    border after it, has no limit."""
    r = _parse(nvidia_smi_table, rel)
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", line)] and r.errors == []
    assert len([f for f in r.facts if f.kind == "gpu_usage"]) == 2
    text = (Path(__file__).parents[2] / "fixtures/artefacts" / rel).read_text().rstrip()
    border = [ln for ln in text.splitlines() if ln.startswith("+-")][-1]  # the one that closed GPU 0's block
    whole = text + mig_cell + "\n" + border + "\n"
    done = _parse(nvidia_smi_table, text=whole)
    assert done.limits == [] and [f.mig_mode for f in done.facts if f.kind == "gpu_usage"][-1] in (None, "Disabled")


@pytest.mark.parametrize("rel, states", [
    # NVIDIA/k8s-device-plugin#156: the 1.9 image (v1alpha API) against a kubelet that serves v1beta1
    ("k8s_device_plugin/k8sdp156_v1alpha_plugin_unknown_service_registration.txt",
     [("register_failed", "rpc error: code = Unimplemented desc = unknown service deviceplugin.Registration"),
      ("kubelet_unreachable", None)]),
    # NVIDIA/k8s-device-plugin#10: Kubernetes 1.8, the kubelet's Registration service not answering
    ("k8s_device_plugin/k8sdp10_register_context_deadline_exceeded.log", [("register_failed", "context deadline exceeded")]),
])
def test_device_plugin_registration_refused_real_logs(rel, states):
    r = _parse(k8s_device_plugin, rel)
    got = [(f.state, f.message if f.state == "register_failed" else None) for f in r.facts if f.kind == "device_plugin_state"]
    assert got == states and r.errors == []


def test_process_table_ending_inside_a_process_row_is_cut_short():
    """NVIDIA/nvidia-docker#480's excerpt (R384, a GTX 1070): the process table ends inside its first row after the
    GPU index and PID. A capture cut short (a limit), and a table with a row in it: not one printed empty (what a
    container's hidden PID namespace shows). The same row ending the table's middle is no row at all."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/nvidia_docker480_r384_gtx1070_cut_in_process_row.txt")
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 15)] and r.errors == []
    [panel] = [f for f in r.facts if f.kind == "gpu_process_panel"]
    assert (panel.process_rows, panel.printed_empty) == (0, False)
    assert [f.name for f in r.facts if f.kind == "gpu_info"] == ["GeForce GTX 1070"]
    text = (Path(__file__).parents[2] / "fixtures/artefacts/nvidia_smi_table/nvidia_docker480_r384_gtx1070_cut_in_process_row.txt").read_text()
    closed = text.rstrip() + "\n+-----------------------------------------------------------------------------+\n"
    r2 = _parse(nvidia_smi_table, text=closed)
    [panel] = [f for f in r2.facts if f.kind == "gpu_process_panel"]
    assert r2.limits == [] and panel.printed_empty is True


def test_summary_table_process_rows_and_err_cells():
    text = ("|   0  Tesla V100-SXM2...  On   | 00000000:06:00.0 Off |                    2 |\n"
            "| N/A   40C    P0   ERR! / 300W |  30042MiB / 32510MiB |    100%      Default |\n"
            "|    0      2261      C   python                                     30032MiB |\n")
    r = _parse(nvidia_smi_table, text=text)
    by = {f.kind: f for f in r.facts}
    assert by["gpu_ecc_count"].count == 2 and by["gpu_usage"].unreadable_fields == 1
    assert (by["gpu_process"].pid, by["gpu_process"].pci_bus_id, by["gpu_process"].used_memory_mib) == (2261, "0000:06:00.0", 30032)


def test_query_gpu_noheader_rows_named_by_the_command():
    # the rows of the real H200 capture (fixtures/artefacts/nvidia_smi_util/query-gpu.csv) as noheader,nounits prints them
    text = ("$ nvidia-smi --query-gpu=index,pci.bus_id,temperature.gpu,power.draw,remapped_rows.pending --format=csv,noheader,nounits\n"
            "0, 00000000:00:06.0, 32, 78.81, No\n1, 00000000:00:07.0, 33, 79.34, Yes\n")
    r = _parse(nvidia_smi_util, text=text)
    remap = {f.pci_bus_id: f.pending for f in r.facts if f.kind == "gpu_row_remap"}
    assert remap == {"0000:00:06.0": False, "0000:00:07.0": True}
    assert {f.pci_bus_id: f.draw_w for f in r.facts if f.kind == "gpu_power"} == {"0000:00:06.0": 78.81, "0000:00:07.0": 79.34}


def test_query_gpu_active_mask_decodes_reasons():
    r = _parse(nvidia_smi_util, "nvidia_smi_util/query-gpu.csv")
    active = {(f.pci_bus_id, f.reason) for f in r.facts if f.kind == "gpu_clock_reason" and f.active}
    assert active == {("0000:00:06.0", "gpu_idle"), ("0000:00:07.0", "gpu_idle")}


def test_device_plugin_skipped_nvml_events():
    # NVIDIA/k8s-device-plugin#1014: the health check skips NVML's double-bit ECC event (EventType:2)
    r = _parse(k8s_device_plugin, "k8s_device_plugin/k8sdp1014_skipped_double_bit_ecc_event.log")
    assert [(f.evidence.line, f.event_type, f.event, f.event_data) for f in r.facts] == [(1, 2, "double_bit_ecc", 0)]
    assert r.lines_used == 1
    # the DRA driver's form (device_health.go's format, filled in): a single-bit (corrected) event
    r = _parse(k8s_device_plugin, text="I0101 00:00:00.000000       1 device_health.go:200] Skipping non-nvmlEventTypeXidCriticalError "
                                        "event: Data=0, Type=1, GI=4294967295, CI=4294967295\n")
    assert [(f.event_type, f.event) for f in r.facts] == [(1, "single_bit_ecc")]


def test_kubelet_admission_failure_other_forms():
    # kubernetes#72486: the kubelet's GPU manager before device plugins (1.6-1.9)
    (f,) = _parse(k8s_device_plugin, "k8s_device_plugin/k8s72486_legacy_gpu_manager_requested_unavailable.txt").facts
    assert (f.evidence.line, f.resource, f.reason, f.requested, f.available, f.said) == (
        1, "alpha.kubernetes.io/nvidia-gpu", "devices_unavailable", 2, 0, "Requested number of GPUs unavailable. Requested: 2, Available: 0")
    # kubernetes#42412: the same error lower-case, as AllocateGPU's fmt.Errorf prints it, in `kubectl get pods`' STATUS column
    (f,) = [f for f in _parse(k8s_device_plugin, "k8s_device_plugin/k8s42412_get_pods_status_requested_gpus_unavailable.txt").facts]
    assert (f.evidence.line, f.requested, f.available, f.said) == (
        9, 4, 0, "requested number of GPUs unavailable. Requested: 4, Available: 0")
    # another GPU count of the same words is no allocation failure (must not)
    assert not k8s_device_plugin.detect("the requested number of GPUs is 4\n")
    # kuberay#1414: another reason of the device manager's, the message folded by kubectl -o yaml onto the next line
    r = _parse(k8s_device_plugin, "k8s_device_plugin/kuberay1414_pod_allocate_folded_unexpected.yaml")
    (f,) = r.facts
    assert (f.evidence.line, f.reason, f.said) == (
        2, "other", "pod d65f09ad-cca3-4631-a0a3-d5ba850f8a69 container wait-gcs-ready unable to find GPU device allocation by scheduler")
    assert r.lines_used == 2  # the line kubectl folded the message onto is read with it


def test_device_plugin_exit_after_incompatible_strategy_is_one_fact():
    # NVIDIA/k8s-device-plugin#1220: "Incompatible strategy detected auto", hints, then main.go's exit on the same failure
    r = _parse(k8s_device_plugin, "k8s_device_plugin/device_plugin1220_exit_after_incompatible_strategy.log")
    assert [(f.evidence.line, f.state, f.strategy) for f in r.facts] == [(2, "incompatible_strategy", "auto")]
    assert r.lines_used == 7


def test_device_plugin_exit_quoted_inline():
    # NVIDIA/k8s-device-plugin#1470: the chain quoted in backticks, its log cut before the line
    (f,) = _parse(k8s_device_plugin, "k8s_device_plugin/device_plugin1470_exit_invalid_discovery_strategy_inline.txt").facts
    assert (f.state, f.strategy, f.message) == ("incompatible_strategy", None, "error getting plugins: unable to create plugins: "
                                                "failed to construct resource managers: invalid device discovery strategy")


@pytest.mark.parametrize("chain, reason", [
    # the innermost format strings: plugin/factory.go, rm/device_map.go, main.go, plugin-manager.go
    ("error getting plugins: unable to create plugins: failed to construct resource managers: invalid MIG configuration: "
     "more than one MIG device type present on node", "mig_config"),
    ("unable to load config: unable to validate flags: invalid --device-list-strategy option: invalid strategy: volume-mounts", "config"),
    ("error getting plugins: unable to create cdi spec file: failed to get CDI spec: failed to create discoverer", "cdi"),
    ("error getting plugins: unable to create plugins: failed to create plugin: something else", "other"),
])
def test_device_plugin_exit_reasons(chain, reason):
    (f,) = _parse(k8s_device_plugin, text=f"E0506 17:45:45.442750       1 main.go:173] error starting plugins: {chain}\n").facts
    assert (f.state, f.reason, f.message) == ("exited", reason, chain)


def test_device_plugin_exit_on_nvml_failure_is_nvml_inits():
    # plugin/factory.go fmt.Errorf("nvml init failed: %v", ret) in the chain: nvml_init reads it; the line is used here, no fact
    r = _parse(k8s_device_plugin, text="E0506 17:45:45.442750       1 main.go:173] error starting plugins: error getting plugins: "
               "unable to create plugins: failed to construct resource managers: nvml init failed: ERROR_LIBRARY_NOT_FOUND\n")
    assert r.facts == [] and r.lines_used == 1


@pytest.mark.parametrize("line, reason, message", [
    # CONSTRUCTED from NVIDIA/k8s-device-plugin's format strings (v0.12 on): internal/rm/nvml_manager.go
    # NewNVMLResourceManagers fmt.Errorf("failed to initialize NVML: %v", ret) inside main.go's startup chain, and
    # internal/rm/health.go checkHealth's same error as internal/plugin/server.go logs it; go-nvml prints the Return
    # as nvmlErrorString's text, or its ERROR_* name
    ("E0604 10:00:00.000000       1 main.go:173] error starting plugins: error getting plugins: failed to construct NVML "
     "resource managers: failed to initialize NVML: Driver/library version mismatch",
     "driver_library_mismatch", "Driver/library version mismatch"),
    ("I0604 10:00:00.000000       1 server.go:255] Failed to start health check: failed to initialize NVML: ERROR_UNKNOWN; "
     "continuing with health checks disabled", "unknown_error", "ERROR_UNKNOWN"),
])
def test_go_error_chain_lower_case_nvml_failure(line, reason, message):
    (f,) = _parse(nvml_init, text=line + "\n").facts
    assert (f.kind, f.reason, f.message) == ("nvml_init_failure", reason, message)
    # the device plugin's reader leaves the chain's NVML failure to nvml_init (no second fact)
    if "error starting plugins" in line:
        assert _parse(k8s_device_plugin, text=line + "\n").facts == []


def test_nvml_mismatch_summarised_in_prose_is_not_a_failure_line():
    # pando85/homelab#4110, a PR's summary of the device plugin's error, reworded: no program prints it so
    text = "Driver/library version mismatch — failed to initialize NVML\n"
    assert not nvml_init.detect(text) or nvml_init.parse(Artefact(path="t", text=text)).facts == []
    # nor does a lower-case "nvml" (not NVML's name as these tools print it) make one
    text = "failed to initialize nvml session pool\n"
    assert not nvml_init.detect(text) or nvml_init.parse(Artefact(path="t", text=text)).facts == []


def test_summary_table_ending_inside_the_border_after_a_gpu_is_cut_short():
    """deepspeedai/DeepSpeedExamples#310's excerpt (wild sweep 86): R470's border after GPU 0's block cut before its
    closing '+' (the job ran on 8 GPUs): read HEALTHY before, 'checked: gpu, driver'. nvidia-smi ends every +---+
    border with '+': the same border whole has no limit."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/dsexamples310_r470_a100_cut_in_border.txt")
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 19)] and r.errors == []
    assert [f.pci_bus_id for f in r.facts if f.kind == "gpu_info"] == ["0000:4f:00.0"]
    text = (Path(__file__).parents[2] / "fixtures/artefacts/nvidia_smi_table/dsexamples310_r470_a100_cut_in_border.txt").read_text()
    whole = text.rstrip() + "-------------+\n"  # R470's third cell: 22 dashes, then '+'
    assert whole.rstrip().splitlines()[-1] == "+-------------------------------+----------------------+----------------------+"
    assert _parse(nvidia_smi_table, text=whole).limits == []


_BR4250 = [  # bottlerocket-os/bottlerocket#4250's journal, as posted (the kubelet restarted: the plugin registers again)
    "Oct 17 12:05:33 ip-xx-xx-x-xx.ec2.internal nvidia-device-plugin[1667]: I1017 12:05:33.312453    1667 server.go:154] Registered device plugin for 'nvidia.com/gpu' with Kubelet",
    "Oct 17 12:05:33 ip-xx-xx-x-xx.ec2.internal nvidia-device-plugin[1667]: I1017 12:05:33.312491    1667 main.go:246] inotify: /var/lib/kubelet/device-plugins/kubelet.sock created, restarting.",
    "Oct 17 12:05:33 ip-xx-xx-x-xx.ec2.internal nvidia-device-plugin[1667]: I1017 12:05:33.313542    1667 main.go:303] Updating config with default resource matching patterns.",
]


def test_device_plugin_kubelet_restart_and_config_lines_are_lifecycle():
    """main.go's "inotify: <kubelet.sock> created, restarting." and "Updating config with default resource matching
    patterns." are lifecycle lines: read, no fact (they check nothing: never a healthy plugin by themselves)."""
    r = _parse(k8s_device_plugin, text="\n".join(_BR4250) + "\n")
    assert r.facts == [] and r.errors == [] and r.lines_used == 3


def test_nvidia_smi_library_advice_line_alone_is_not_a_failure():
    # the second line of nvidia-smi's message (warmshao/FasterLivePortrait#8) is advice: no fact of its own
    text = "Please also try adding directory that contains libnvidia-ml.so to your system PATH.\n"
    assert not nvml_init.detect(text)


def test_container_cli_refused_by_the_host_before_the_driver():
    # libnvidia-container nvc_init reads its own /proc entries before it loads NVML: EACCES there is the host's policy
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/enroot238_hook_proc_self_ns_mnt_denied.txt").facts
    assert (f.kind, f.stage, f.operation, f.evidence.line) == ("container_toolkit_error", "initialization", "proc_access", 2)
    (g,) = _parse(nvidia_container_cli, "nvidia_container_cli/ctrruntime168_sudo_overflowuid_denied.txt").facts
    assert (g.operation, g.message) == ("proc_access", "open failed: /proc/sys/kernel/overflowuid: permission denied")
    (h,) = _parse(nvidia_container_cli, "nvidia_container_cli/enroot88_capability_change_not_permitted.txt").facts
    assert (h.stage, h.operation, h.evidence.line) == ("permission", "capabilities", 2)
    # near misses (CONSTRUCTED from the same format strings): a /proc file that is missing, a file outside /proc, a
    # mount stage's open: not the host refusing the hook's own process state
    for line in ("nvidia-container-cli: initialization error: open failed: /proc/sys/kernel/overflowuid: no such file or directory",
                 "nvidia-container-cli: initialization error: open failed: /etc/ld.so.cache: permission denied",
                 "nvidia-container-cli: mount error: open failed: /proc/self/ns/mnt: permission denied"):
        (k,) = _parse(nvidia_container_cli, text=line + "\n").facts
        assert k.operation == "other", line


def test_container_cli_initialization_error_without_the_programs_name():
    # psalias2006/gpu-hot#48's title: docker's hook error trimmed to its tail, the stage kept
    text = (FIX / "nvidia_container_cli/gpuhot48_title_init_nvml_mismatch_without_program.txt").read_text()
    assert nvidia_container_cli.detect(text)
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/gpuhot48_title_init_nvml_mismatch_without_program.txt").facts
    assert (f.kind, f.reason, f.message, f.source) == ("nvml_init_failure", "driver_library_mismatch",
                                                       "driver/library version mismatch", "nvidia-container-cli")
    # the whole line is read once, by its own pattern (toolkit394's)
    assert len(_parse(nvidia_container_cli, "nvidia_container_cli/toolkit394_nvml_mismatch.txt").facts) == 1
    # near misses: a bare "nvml error: ..." (the detection stage's too), pynvml's "NVML error: ...", a word before it
    for line in ("nvml error: driver/library version mismatch: unknown on Pop!_OS 22.04 with Nvidia",
                 "NVML error: Driver/library version mismatch",
                 "reinitialization error: nvml error: unknown error"):
        assert not nvidia_container_cli.detect(line + "\n"), line
        assert nvidia_container_cli.parse(Artefact(path="t.txt", text=line + "\n")).facts == [], line


def test_container_cli_mount_into_the_containers_rootfs():
    # cri-o/cri-o#7632: a CRIU restore ran the hook before the container's /proc existed (round rT5)
    (f,) = _parse(nvidia_container_cli, "nvidia_container_cli/crio7632_restore_mount_into_container_proc.txt").facts
    assert (f.kind, f.stage, f.operation) == ("container_toolkit_error", "mount", "mount_into_container")
    assert f.message.endswith("merged/proc/driver/nvidia: no such file or directory")



def test_summary_table_err_cells_are_each_gpus_parse_problem():
    """Every GPU with an ERR! cell (a query NVML failed) is a parse problem on its state row naming the fields, as
    -q's '[Unknown Error]'; the MIG row's ERR! is read too (open-gpu-kernel-modules#446's GPU 4: all of them)."""
    r = _parse(nvidia_smi_table, "nvidia_smi_table/ogkm446_r525_a40_gpu4_err.txt")
    assert [(e.line, e.message.split(": ", 1)[0]) for e in r.errors] == [(26, "GPU 0000:83:00.0 (index 4)")]
    assert r.errors[0].message.startswith("GPU 0000:83:00.0 (index 4): nvidia-smi printed ERR! for name, fan, temperature")
    assert "MIG mode" in r.errors[0].message
    (u,) = [f for f in r.facts if f.kind == "gpu_usage" and f.pci_bus_id == "0000:83:00.0"]
    assert (u.unreadable_fields, u.mig_mode) == (7, None)
