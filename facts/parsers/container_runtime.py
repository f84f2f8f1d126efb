"""Container engines refusing a GPU container: docker/moby and containerd (CRI) errors.

Made by the engine's client or the kubelet (``docker run --gpus all ...``, ``docker compose up``,
``kubectl describe pod``): the engine has no NVIDIA runtime or GPU device driver registered, so
the container never gets the GPUs. The NVIDIA prestart hook's own errors are
:mod:`nvidia_container_cli`'s. Sample lines (real, from the threads named)::

    docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].   (NVIDIA/nvidia-docker#1034)
    docker: Error response from daemon: unknown or invalid runtime name: nvidia.                        (NVIDIA/nvidia-container-toolkit#150)
    docker: Error response from daemon: Unknown runtime specified nvidia.                               (NVIDIA/nvidia-docker#578, docker < 23)
    Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured
    ... level=error msg="RunPodSandbox for &PodSandboxMetadata{...} failed, error" error="failed to get sandbox runtime: no runtime for \\"nvidia\\" is configured"   (containerd's journal, NVIDIA/gpu-operator#432)
    Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime attempted to invoke a command that was not found   (NVIDIA/nvidia-container-toolkit#450)
    docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "nvidia-smi": executable file not found in $PATH: unknown.   (google-deepmind/alphafold#374)
    Error: runc: runc create failed: unable to start container process: error during container init: error running hook #0: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory: OCI runtime attempted to invoke a command that was not found   (void-linux/void-packages#55062)

Facts: ``container_runtime_error`` per line: ``reason`` is ``no_gpu_device_driver`` (moby's
``--gpus`` request found no device driver: the NVIDIA toolkit never registered with dockerd),
``cdi_driver_not_enabled`` (a CDI device requested, ``--device=nvidia.com/gpu=all``, of a dockerd that has
CDI off, so it has no "cdi" device driver), ``unknown_runtime`` (``--runtime=nvidia`` or ``default-runtime`` names a runtime dockerd does not
know), ``runtime_not_configured`` (containerd's CRI has no handler of the RuntimeClass),
``cdi_unresolvable_device`` (CDI injection: no CDI spec names the device requested, ``capabilities``
holds the names), ``cdi_hook_invoked_directly`` (the toolkit in CDI mode run as a bare hook), ``driver_file_missing``
(the OCI runtime, runc or crun, could not find a driver file it was told to mount, one whose name
carries a driver version: ``driver_version``), ``cdi_spec_unparsable`` (the engine's CDI library met a field it
does not know in a spec, ``capabilities`` the spec's path: a spec of a newer CDI version than the engine reads),
``driver_utility_missing`` (the OCI runtime found no NVIDIA utility the toolkit binds in from the host, ``exec:
"nvidia-smi": executable file not found in $PATH``: the container started without the driver's files),
``hook_binary_missing`` (the OCI runtime could not run an NVIDIA hook the runtime config or a CDI spec names,
``fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory``: ``runtime`` the program's path);
``engine`` (docker | containerd), ``runtime`` (the runtime or driver named, "" when none),
``capabilities`` as printed, ``message``, ``gpu`` (the request was for GPUs: a ``gpu`` capability
or an NVIDIA runtime; ``--runtime=runsc`` unknown is another engine fault). Empty input, or text without these lines, is not this kind.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    ContainerRuntimeError,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "container_runtime"

# could not select device driver "" with capabilities: [[gpu]].        (moby daemon/devices.go: "could not select device driver %q with capabilities: %v")
# could not select device driver "cdi" with capabilities: [].          (a CDI device asked of a dockerd that registered no "cdi"
#   driver: daemon/cdi.go RegisterCDIDriver runs only when CDI is enabled, daemon.json "features": {"cdi": true} before 28;
#   NVIDIA/nvidia-container-toolkit#434, a rootless daemon with its own daemon.json)
# docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].`   (pasted inside markdown
# inline code, the closing backtick kept: fboulnois/stable-diffusion-docker#82)
# (inline code opened on an earlier line: its closing backtick after the period; a whole line in markdown bold,
# "**docker: Error response ... [[gpu]].**" of NVIDIA/nvidia-docker#1352, reaches here unwrapped: facts/lines.py)
# (the capabilities bounded, 300 characters: moby prints a few names; an unbounded lazy run scanned a long line
# to its end once per "could not select" in it, 2.1 s on bench/redos.py's 120,000-character line)
_NO_DEVICE_DRIVER = re.compile(r'could not select device driver "(?P<driver>[^"]*)" with capabilities: (?P<caps>\[[^\n]{0,300}?\])\.?`?\s*$')
# unknown or invalid runtime name: nvidia.        Unknown runtime specified nvidia.
_UNKNOWN_RUNTIME = re.compile(r"(?:unknown or invalid runtime name|Unknown runtime specified):? (?P<runtime>[\w.-]+?)\.?\s*$")
# failed to get sandbox runtime: no runtime for "nvidia" is configured   (containerd internal/cri: "no runtime for %q is configured")
# containerd's own log (journalctl -u containerd) prints the error as a logrus field, its quotes escaped:
# nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error msg="RunPodSandbox for &PodSandboxMetadata{Name:gpu-feature-discovery-qfjgk,Uid:02c7d4ad-db02-4145-846b-616a94416008,Namespace:gpu-operator,Attempt:2,} failed, error" error="failed to get sandbox runtime: no runtime for \"nvidia\" is configured"
#   (NVIDIA/gpu-operator#432)
_CRI_NO_RUNTIME = re.compile(r'no runtime for \\?"(?P<runtime>[^"\\\n]{1,100})\\?" is configured')
# CDI (Container Device Interface) injection, the NVIDIA Container Toolkit's mode since 1.14: the engine resolves
# the requested names against the CDI specs in /etc/cdi and /var/run/cdi (tags.cncf.io/container-device-interface:
# "unresolvable CDI devices %s"):
# Error: error setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all       (podman; NVIDIA/nvidia-container-toolkit#146)
# ... error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices runtime.nvidia.com/gpu=all: unknown   (docker, the toolkit's runtime)
# containerd's CRI injecting a DRA claim's devices itself (internal/cri "CDI device injection failed: %w"; the kinds of
# NVIDIA's DRA driver, cdi.go cdiVendor = "k8s." + DriverName: k8s.gpu.nvidia.com/device|claim,
# k8s.compute-domain.nvidia.com/...; kubernetes-sigs/dra-driver-nvidia-gpu#736):
#   Warning  Failed     86s (x26 over 6m37s)  kubelet            Error: failed to create containerd container: CDI device injection failed: unresolvable CDI devices k8s.gpu.nvidia.com/device=gpu-1
_CDI_UNRESOLVABLE = re.compile(r"unresolvable CDI devices (?P<devices>[\w./-]+=[\w.,=/-]*?[\w-])(?:[.:;]|\s|$)")
# The engine's CDI library could not read a spec: a field it does not know is a spec written for a newer CDI
# version than the engine was built with (nvidia-ctk 1.19 writes additionalGids, CDI 0.7.0; podman 4.9 reads to 0.6):
# The following error was triggered when refreshing the CDI registry: failed to load CDI Spec failed to parse CDI Spec "/etc/cdi/nvidia.yaml": failed to unmarshal CDI Spec: error unmarshaling JSON: while decoding JSON: json: unknown field "additionalGids"
#   (podman --debug: NVIDIA/nvidia-container-toolkit#1860)
_CDI_SPEC_UNPARSABLE = re.compile(r'failed to parse CDI Spec "(?P<path>[^"\n]{1,300})": (?P<why>[^\n]{0,300}?unknown field "(?P<field>\w{1,80})")')
# The toolkit in mode "cdi" refusing to be run as a bare prestart hook (docker --gpus without --runtime=nvidia):
# invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported. Please use the NVIDIA Container Runtime (e.g. specify the --runtime=nvidia flag) instead.: unknown   (dstackai/dstack#2306)
_CDI_HOOK_DIRECT = re.compile(r"invoking the NVIDIA Container Runtime Hook directly \(e\.g\. specifying the docker --gpus flag\) is not supported")
# The OCI runtime could not find a file it was told to bind into the container, and the file is a driver library
# named with its driver version: the mount list (a CDI spec, nvidia-ctk cdi generate's, or another generated list)
# was written for a driver that is no longer installed (the toolkit: "if you change ... the CUDA driver configuration,
# you must generate a new CDI specification"). runc's forms (libcontainer/rootfs_linux.go), by release:
#   1.1+   error mounting %q to rootfs at %q: %w
#   1.0    mounting %q to rootfs at %q caused: %w
#   <1.0   mounting %q to rootfs %q at %q caused %q      (inside the engine's quoted error: the quotes escaped)
# crun's (libcrun): "cannot stat `%s`" and "error stat'ing file `%s`", printed as "crun: <message>: <strerror>":
# Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime attempted to invoke a command that was not found
#   (NVIDIA/nvidia-container-toolkit#450; containers/ramalama#1900)
_DRIVER_FILE = r"[^\s\"'`\\]*/(?:libcuda|libcudadebugger|libnvcuvid|libnvoptix|libnvidia-[\w-]+|lib\w+_nvidia)\.so\.(?P<ver>\d{3}\.\d{2,3}(?:\.\d{2,3})?)"
_DRIVER_FILE_ANY = _DRIVER_FILE.replace("(?P<ver>", "(?:")
_RUNC_MOUNT = re.compile(rf'mounting \\*"(?P<src>{_DRIVER_FILE})\\*" to rootfs (?:\\*"[^"\\]*\\*" )?at \\*"[^"\\]*\\*"'
                         r"[^\n]*?no such file or directory", re.I)
_CRUN_STAT = re.compile(rf"(?:cannot stat|error stat'ing file) `(?P<src>{_DRIVER_FILE})`: No such file or directory")
# The container started without the NVIDIA driver's utilities: the OCI runtime could not find the program it was to run,
# and that program is one the NVIDIA Container Toolkit binds in from the host (nvidia-ctk cdi generate, findBinaries:
# "nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server"): the
# toolkit's hook did not run for the container (no --gpus or --runtime=nvidia, NVIDIA_VISIBLE_DEVICES alone) or found
# no such file on the host. Go's os/exec error (exec.go Error.Error(): "exec: " + strconv.Quote(e.Name) + ": " +
# e.Err.Error(); lp_unix.go ErrNotFound "executable file not found in $PATH") as runc returns it in the engine's error:
# docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "nvidia-smi": executable file not found in $PATH: unknown.   (google-deepmind/alphafold#374)
# `ocker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "nvidia-smi": executable file not found in $PATH: unknown.`   (NVIDIA/nvidia-container-toolkit#730, runc 1.1)
# docker: Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused "exec: \"nvidia-smi\": executable file not found in $PATH": unknown.   (NVIDIA/nvidia-docker#858: runc < 1.0 quotes
#   the cause, so Go's quotes come escaped)
# Another program not found (exec: "python": ...) is the image's own business, not the GPU stack's: not read.
_UTILITY_NOT_FOUND = re.compile(r'exec: \\{0,3}"(?P<bin>nvidia-smi|nvidia-debugdump|nvidia-persistenced|nvidia-cuda-mps-(?:control|server))'
                                r'\\{0,3}": executable file not found in \$PATH')
# an OCI hook (runtime-spec prestart / createRuntime / createContainer hooks, what the NVIDIA runtime, its CDI spec or the
# legacy toolkit config adds) whose program is not on the host: runc's (libcontainer/configs Hook.Run) error, Go's
# os/exec "fork/exec <path>: no such file or directory" (syscall ENOENT), in the engine's error:
# Error: runc: runc create failed: unable to start container process: error during container init: error running hook #0: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory: OCI runtime attempted to invoke a command that was not found   (void-linux/void-packages#55062: the package built without nvidia-cdi-hook)
# error2.error during container init: error running hook #1: fork/exec /usr/bin/nvidia-container-runtime-hook: no such file or directory: unknown   (a deployment guide's error list, beside "unknown or invalid runtime name: nvidia")
# `error running createContainer hook #0: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory`   (a CDI spec's hooks run in a nested engine without the binary)
#   (only NVIDIA's hooks: another hook missing is another package's matter)
_HOOK_MISSING = re.compile(r"error running (?:\w{1,20} )?hook #\d{1,3}: fork/exec (?P<path>/[^\s:]{0,200}/(?P<bin>nvidia-[\w.-]{1,60})): no such file or directory")
_GATES = ("fork/exec ", "executable file not found", "could not select device driver", "unknown or invalid runtime name", "Unknown runtime specified",
          "is configured", "unresolvable CDI devices", "Runtime Hook directly", "to rootfs ", "cannot stat `", "error stat'ing file `",
          "failed to parse CDI Spec")
_DETECT = re.compile(r'exec: \\{0,3}"nvidia-(?:smi|debugdump|persistenced|cuda-mps-control|cuda-mps-server)\\{0,3}": executable file not found in \$PATH'
                     r'|could not select device driver "[^"]*" with capabilities: \[|(?:unknown or invalid runtime name|Unknown runtime specified):? [\w.-]+'
                     r'|no runtime for \\?"[^"\\\n]{1,100}\\?" is configured|unresolvable CDI devices [\w./-]+=|invoking the NVIDIA Container Runtime Hook directly'
                     r'|failed to parse CDI Spec "[^"\n]+": [^\n]*?unknown field "'
                     r'|error running (?:\w{1,20} )?hook #\d{1,3}: fork/exec /[^\s:]{0,200}/nvidia-[\w.-]{1,60}: no such file or directory'
                     rf'|mounting \\*"{_DRIVER_FILE_ANY}\\*" to rootfs |(?:cannot stat|error stat\'ing file) `{_DRIVER_FILE_ANY}`')
#: line signatures for facts/classify.py
SIGNATURES = (_DETECT,)


def _nvidia(runtime: str) -> bool:
    # "nvidia", "nvidia-container-runtime", "nvidia-cdi", "nvidia-legacy" (the toolkit's runtime names)
    return runtime.lower().startswith("nvidia")


def _gpu_cdi_kind(kind: str) -> bool:
    """A CDI kind that names NVIDIA GPUs: the toolkit's (nvidia.com/gpu, management.nvidia.com/gpu,
    runtime.nvidia.com/gpu) or the DRA driver's (k8s.gpu.nvidia.com/device|claim, k8s.compute-domain.nvidia.com/...)."""
    return kind.endswith("nvidia.com/gpu") or kind.startswith(("k8s.gpu.nvidia.com/", "k8s.compute-domain.nvidia.com/"))


def detect(text: str) -> bool:
    if not any(g in text for g in _GATES):
        return False
    return _DETECT.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if not any(g in line for g in _GATES):
            continue
        if (m := _NO_DEVICE_DRIVER.search(line)) is not None and m["driver"] == "cdi":
            # a CDI device (--device=nvidia.com/gpu=all): dockerd registers its "cdi" driver only with CDI enabled
            b.add(ContainerRuntimeError, n, reason="cdi_driver_not_enabled", engine="docker", runtime="cdi",
                  capabilities=m["caps"], message=m[0].strip().rstrip("."), gpu=False)
        elif m is not None:
            b.add(ContainerRuntimeError, n, reason="no_gpu_device_driver", engine="docker", runtime=m["driver"],
                  capabilities=m["caps"], message=m[0].strip().rstrip("."), gpu="gpu" in m["caps"].lower())
        elif (m := _UNKNOWN_RUNTIME.search(line)) is not None:
            b.add(ContainerRuntimeError, n, reason="unknown_runtime", engine="docker", runtime=m["runtime"],
                  message=m[0].strip().rstrip("."), gpu=_nvidia(m["runtime"]))
        elif (m := _CRI_NO_RUNTIME.search(line)) is not None:
            # containerd's own log escapes the quotes (a logrus field): the message as the kubelet prints it
            b.add(ContainerRuntimeError, n, reason="runtime_not_configured", engine="containerd",
                  runtime=m["runtime"], message=m[0].strip().replace('\\"', '"'), gpu=_nvidia(m["runtime"]))
        elif (m := _CDI_UNRESOLVABLE.search(line)) is not None:
            devices = m["devices"]
            # the engine that ran the injection: podman's own, containerd's (the kubelet's "failed to create containerd
            # task|container": gpustack/gpustack#4130, dra-driver-nvidia-gpu#736), else dockerd's
            engine = "podman" if "setting up CDI" in line else "containerd" if "containerd" in line else "docker"
            b.add(ContainerRuntimeError, n, reason="cdi_unresolvable_device", engine=engine,
                  runtime="cdi", capabilities=devices, message=f"unresolvable CDI devices {devices}",
                  gpu=_gpu_cdi_kind(devices.split("=", 1)[0]))
        elif (m := _CDI_SPEC_UNPARSABLE.search(line)) is not None:
            b.add(ContainerRuntimeError, n, reason="cdi_spec_unparsable", engine="podman" if "CDI registry" in line else "container engine",
                  runtime="cdi", capabilities=m["path"], message=f'failed to parse CDI Spec "{m["path"]}": {m["why"]}', gpu=True)
        elif (m := _RUNC_MOUNT.search(line) or _CRUN_STAT.search(line)) is not None:
            engine = "runc" if "to rootfs " in m[0] else "crun"
            b.add(ContainerRuntimeError, n, reason="driver_file_missing", engine=engine, runtime=engine,
                  message=f"{m['src']}: no such file or directory", gpu=True, driver_version=m["ver"])
        elif (m := _UTILITY_NOT_FOUND.search(line)) is not None:
            engine = "docker" if "daemon" in line else "podman" if "crun" in line else "oci runtime"
            b.add(ContainerRuntimeError, n, reason="driver_utility_missing", engine=engine, runtime="",
                  message=f'exec: "{m["bin"]}": executable file not found in $PATH', gpu=True)
        elif (m := _HOOK_MISSING.search(line)) is not None:
            engine = "podman" if ("Error: runc:" in line or "Error: crun:" in line) else "docker" if "daemon" in line else "oci runtime"
            b.add(ContainerRuntimeError, n, reason="hook_binary_missing", engine=engine, runtime=m["path"],
                  message=f"fork/exec {m['path']}: no such file or directory", gpu=True)
        elif _CDI_HOOK_DIRECT.search(line) is not None:
            b.add(ContainerRuntimeError, n, reason="cdi_hook_invoked_directly", engine="docker", runtime="nvidia",
                  message="invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported",
                  gpu=True)
        else:
            continue
        result.lines_used += 1
    return result
