"""container_runtime: docker / containerd refusing GPU containers, each form on real lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import container_runtime
from stethoscope.facts.parsers.base import Artefact


def parse_text(text: str):
    art = Artefact(path="docker.txt", text=text, node="node1")
    art.normalise()  # as the pipeline reads it: pasting wrappers off (facts/lines.py)
    return container_runtime.parse(art)


@pytest.mark.parametrize("line,reason,engine,runtime,gpu", [
    # NVIDIA/nvidia-docker#1034 (title) and with docker's prefix
    ('could not select device driver "" with capabilities: [[gpu]].', "no_gpu_device_driver", "docker", "", True),
    ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
     "no_gpu_device_driver", "docker", "", True),
    # fboulnois/stable-diffusion-docker#82: pasted inside markdown inline code, the closing backtick kept
    ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].`',
     "no_gpu_device_driver", "docker", "", True),
    # NVIDIA/nvidia-docker#1352: pasted in markdown bold (the bold unwrapped by facts/lines.py)
    ('**docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].**',
     "no_gpu_device_driver", "docker", "", True),
    # NVIDIA/nvidia-container-toolkit#150; docker compose prints it without "docker: "
    ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.", "unknown_runtime", "docker", "nvidia", True),
    ("Error response from daemon: unknown or invalid runtime name: nvidia", "unknown_runtime", "docker", "nvidia", True),
    # NVIDIA/nvidia-docker#578 (docker before 23)
    ("docker: Error response from daemon: Unknown runtime specified nvidia.", "unknown_runtime", "docker", "nvidia", True),
    ('Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured',
     "runtime_not_configured", "containerd", "nvidia", True),
    # containerd's own journal line, the error a logrus field with its quotes escaped (NVIDIA/gpu-operator#432)
    ('nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error msg="RunPodSandbox for '
     '&PodSandboxMetadata{Name:gpu-feature-discovery-qfjgk,Uid:02c7d4ad-db02-4145-846b-616a94416008,Namespace:gpu-operator,'
     'Attempt:2,} failed, error" error="failed to get sandbox runtime: no runtime for \\"nvidia\\" is configured"',
     "runtime_not_configured", "containerd", "nvidia", True),
    ("docker: Error response from daemon: unknown or invalid runtime name: runsc.", "unknown_runtime", "docker", "runsc", False),
    # CDI: NVIDIA/nvidia-container-toolkit#146 (title, podman); the docker form with the toolkit's runtime (the
    # container-device-interface format as the toolkit's runtime prints it, filled in); dstackai/dstack#2306
    ("Nvidia-container-toolkit Podman. Error: error setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
     "cdi_unresolvable_device", "podman", "cdi", True),
    ("docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: "
     "could not apply required modification to OCI specification: error modifying OCI spec: failed to inject CDI devices: "
     "unresolvable CDI devices runtime.nvidia.com/gpu=all: unknown", "cdi_unresolvable_device", "docker", "cdi", True),
    ("Error: setting up CDI devices: unresolvable CDI devices vendor.example/fpga=0", "cdi_unresolvable_device", "podman", "cdi", False),
    # the same injection under the kubelet's containerd (gpustack/gpustack#4130, the toolkit's runtime in CDI mode) and
    # containerd's CRI injecting a DRA claim's device itself (kubernetes-sigs/dra-driver-nvidia-gpu#736: the DRA
    # driver's kind k8s.gpu.nvidia.com/device is a GPU's)
    ("  Warning  Failed   7s    kubelet  Error: failed to create containerd task: failed to create shim task: OCI runtime "
     "create failed: could not apply required modification to OCI specification: error modifying OCI spec: failed to "
     "inject CDI devices: unresolvable CDI devices management.nvidia.com/gpu=0: unknown", "cdi_unresolvable_device",
     "containerd", "cdi", True),
    ("  Warning  Failed     86s (x26 over 6m37s)  kubelet            Error: failed to create containerd container: CDI "
     "device injection failed: unresolvable CDI devices k8s.gpu.nvidia.com/device=gpu-1", "cdi_unresolvable_device",
     "containerd", "cdi", True),
    # a CDI device asked of a dockerd with CDI off (no "cdi" device driver): NVIDIA/nvidia-container-toolkit#434, rootless docker 26
    ('docker: Error response from daemon: could not select device driver "cdi" with capabilities: [].', "cdi_driver_not_enabled",
     "docker", "cdi", False),
    ("invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported. Please use "
     "the NVIDIA Container Runtime (e.g. specify the --runtime=nvidia flag) instead.: unknown", "cdi_hook_invoked_directly", "docker",
     "nvidia", True),
    # a driver library of another driver version that the OCI runtime could not find (a stale CDI spec):
    # NVIDIA/nvidia-container-toolkit#450, containers/ramalama#1900 (crun)
    ("Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime attempted to invoke "
     "a command that was not found", "driver_file_missing", "crun", "crun", True),
    ("Error: crun: cannot stat `/usr/lib64/libEGL_nvidia.so.575.64.03`: No such file or directory: OCI runtime attempted to "
     "invoke a command that was not found", "driver_file_missing", "crun", "crun", True),
    # runc could not start the NVIDIA utility the toolkit binds in (the container got none of the driver's files):
    # google-deepmind/alphafold#374 (runc < 1.1's "starting container process caused:"), NVIDIA/nvidia-container-toolkit#730
    # (runc 1.1's "unable to start container process:", in markdown inline code, its "d" lost), NVIDIA/nvidia-docker#858
    # (runc < 1.0 quotes the cause: Go's quotes escaped)
    ('docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: '
     'exec: "nvidia-smi": executable file not found in $PATH: unknown.', "driver_utility_missing", "docker", "", True),
    ('`ocker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create '
     'failed: runc create failed: unable to start container process: exec: "nvidia-smi": executable file not found in $PATH: '
     'unknown.`', "driver_utility_missing", "docker", "", True),
    ('docker: Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused '
     '"exec: \\"nvidia-smi\\": executable file not found in $PATH": unknown.', "driver_utility_missing", "docker", "", True),
    # an NVIDIA hook the runtime or a CDI spec names, not on the host: void-linux/void-packages#55062 (podman, the package
    # built without nvidia-cdi-hook); the legacy hook of a deployment guide's error list; a createContainer hook's form
    ("Error: runc: runc create failed: unable to start container process: error during container init: error running hook #0: "
     "fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory: OCI runtime attempted to invoke a command that was not found",
     "hook_binary_missing", "podman", "/usr/bin/nvidia-cdi-hook", True),
    ("error2.error during container init: error running hook #1: fork/exec /usr/bin/nvidia-container-runtime-hook: no such file "
     "or directory: unknown", "hook_binary_missing", "oci runtime", "/usr/bin/nvidia-container-runtime-hook", True),
    ("`error running createContainer hook #0: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory`",
     "hook_binary_missing", "oci runtime", "/usr/bin/nvidia-cdi-hook", True),
])
def test_forms(line, reason, engine, runtime, gpu):
    assert container_runtime.detect(line)
    (f,) = parse_text(line).facts
    assert (f.reason, f.engine, f.runtime, f.gpu) == (reason, engine, runtime, gpu)


@pytest.mark.parametrize("text", [
    "",
    "Runtimes: io.containerd.runc.v2 nvidia runc",  # docker info: configured, no error
    "the plugin is configured",
    "INFO[0000] Found 2 CDI devices",  # nvidia-ctk cdi list: no error
    # NVIDIA/gpu-operator#778's title: a library with its own version (libnvidia-egl-gbm 1.1.1), not the driver's,
    # and not the runtime's message
    "Issue with the nvidia-device-plugin-daemonset error mounting /run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-egl-gbm.so.1.1.1",
    # (constructed) a program no NVIDIA tool binds in: the image's own, not the GPU stack's
    'docker: Error response from daemon: OCI runtime create failed: runc create failed: unable to start container process: '
    'exec: "python": executable file not found in $PATH: unknown.',
    # (constructed) a shell's own not-found, no runtime error: another form, not this reader's
    "bash: nvidia-smi: command not found",
    # (constructed) a hook of another package missing: not the GPU stack's
    "error during container init: error running hook #0: fork/exec /usr/local/bin/oci-seccomp-hook: no such file or directory: unknown",
])
def test_not_this_kind(text):
    assert not container_runtime.detect(text)
    assert parse_text(text).facts == []


def test_containerd_journal_escaped_quotes_give_the_kubelets_message():
    # NVIDIA/gpu-operator#432: containerd's log escapes the quotes; the fact's message is the kubelet's form
    (f,) = parse_text('nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error '
                      'msg="RunPodSandbox for &PodSandboxMetadata{Name:gpu-feature-discovery-qfjgk,Uid:02c7d4ad-db02-4145-'
                      '846b-616a94416008,Namespace:gpu-operator,Attempt:2,} failed, error" error="failed to get sandbox '
                      'runtime: no runtime for \\"nvidia\\" is configured"').facts
    assert f.message == 'no runtime for "nvidia" is configured'


def test_driver_file_missing_names_the_driver_version():
    (f,) = parse_text("Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime "
                      "attempted to invoke a command that was not found").facts
    assert f.driver_version == "550.54.14"
    assert f.message == "/lib64/libEGL_nvidia.so.550.54.14: no such file or directory"


def test_refusal_in_bold_above_an_nvsmi_log_is_read():
    # NVIDIA/nvidia-docker#1352: the refusal in markdown bold, then the head of nvidia-smi -q; the refusal
    # alone says the container never got a GPU (before: no reader read it and the bundle was healthy)
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/container_runtime/"
            "nvdocker1352_markdown_bold_paste_with_nvsmi_header.txt").read_text()
    assert container_runtime.detect(text)
    (f,) = parse_text(text).facts
    assert (f.reason, f.runtime, f.gpu, f.evidence.line) == ("no_gpu_device_driver", "", True, 1)


def test_cdi_spec_the_engine_cannot_parse():
    # podman 4.9.3's debug log on a spec of toolkit 1.19.1 (NVIDIA/nvidia-container-toolkit#1860)
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/container_runtime/"
            "toolkit1860_podman_cdi_spec_unknown_field.txt").read_text()
    assert container_runtime.detect(text)
    got = [(f.evidence.line, f.reason, f.engine, f.capabilities) for f in parse_text(text).facts]
    assert got == [(1, "cdi_spec_unparsable", "podman", "/etc/cdi/nvidia.yaml"),
                   (2, "cdi_spec_unparsable", "container engine", "/var/run/cdi/nvidia.yaml")]
