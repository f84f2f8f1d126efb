"""NVIDIA container toolkit hook errors: ``nvidia-container-cli: <stage> error: ...``.

``docker run --gpus ...`` (or containerd/CRI-O through the toolkit's prestart hook) prints the
hook's stderr inside the runtime's own error. Sample content (NVIDIA/nvidia-container-toolkit#394,
MauriceNino/dashdot#1226, nodefluxio/vortex#106, NVIDIA/nvidia-docker#536)::

    docker: Error response from daemon: failed to create task for container: ... error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
    nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.
    nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container
    ... stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=10.2, please update your driver to a newer version, or use an earlier cuda container\\\\n\\\"\\\"": unknown
    nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0

Older runtimes escape the hook's output inside a JSON-ish string (``\\\\n\\\"``): a message
ends at the first backslash. Facts emitted: ``nvml_init_failure`` (source
``nvidia-container-cli``) for ``initialization error: nvml error: ...`` and for a library that
could not be loaded (``load library failed: libnvidia-ml.so.1: cannot open shared object
file``); ``container_requirement_unsatisfied`` for a ``requirement error`` (the image's
``NVIDIA_REQUIRE_CUDA`` condition, e.g. ``cuda>=12.4``, against the driver's CUDA version);
``container_toolkit_error`` for any other stage (mount, detection, ldcache, ...; a container-stage ``cgroup
subsystem devices not found``, the hook finding no cgroup v1 devices controller, is operation
``cgroup_not_found``; an initialization error ``open failed: /proc/...: permission denied``, the hook's own /proc
entries refused before it reached the driver, is ``proc_access``, a permission error ``capability change failed``
``capabilities``). The initialization error quoted without the program's name (``initialization error: nvml error:
...``, an issue title's trim of docker's error) is read as the CLI's NVML failure. The GPU
Operator's toolkit names the binary ``nvidia-container-cli.real`` (behind a wrapper script): the
same lines. A hook whose program does not know the ``prestart`` command it is run with (urfave/cli's
``No help topic for 'prestart'`` on the hook's stderr: NVIDIA/nvidia-container-toolkit#14) gives
``container_toolkit_error`` stage ``hook``. The hook refusing the IMEX channels the container asked for
(``nvidia-container-cli: error parsing IMEX info: unsupported IMEX channel value: all``, awslabs/amazon-eks-ami#2062:
NVIDIA_IMEX_CHANNELS, which toolkit 1.17.0-1.17.1 set to ``all`` for legacy images) gives ``container_toolkit_error``
stage ``imex``, operation ``imex_channels``, the value in ``device``. The NVIDIA OCI runtime itself exiting non-zero
(containerd's go-runc: ``<path>/nvidia-container-runtime did not terminate successfully: exit status N: <its stderr>``)
gives ``container_toolkit_error`` stage ``runtime``, operation ``runtime_exit``, or ``container_requirement_unsatisfied``
where its stderr is the CDI/CSV mode's ``unsatisfied condition: cuda>=X``. Text without such lines yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    ContainerRequirementUnsatisfied, ContainerToolkitError,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines
from stethoscope.facts.parsers.nvml_init import NvmlInitFailure, nvml_reason

KIND = "nvidia_container_cli"

# nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.
# nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/.../merged/usr/bin/nvidia-smi: file exists: unknown
# the toolkit the GPU Operator installs runs the binary as nvidia-container-cli.real behind a wrapper script
# (container-toolkit's installer: "Installing '/usr/bin/nvidia-container-cli' to '/usr/local/nvidia/toolkit/nvidia-container-cli.real'"):
# ... error running hook: exit status 1, stdout: , stderr: nvidia-container-cli.real: initialization error: driver error: failed to process request: unknown   (NVIDIA/gpu-operator#130)
_LINE = re.compile(r"nvidia-container-cli(?:\.real)?: (?P<stage>[a-z][a-z ]*?) error: (?P<msg>[^\n\\]*)")
# unsatisfied condition: cuda>=12.4, please update your driver ...   |   unsatisfied condition: cuda >= 9.0
_REQUIREMENT = re.compile(r"unsatisfied condition: (?P<cond>(?P<what>[a-z]+)\s*(?P<op>[<>=!]=?|=)\s*(?P<ver>[0-9][0-9.]*))")
# nvml error: driver/library version mismatch   |   load library failed: libnvidia-ml.so.1: cannot open shared object file: ...
_NVML = re.compile(r"^nvml error: (?P<nvml>.+)$|^load library failed: (?P<lib>\S+): (?P<why>.+)$")
# a mount-stage error's operation (libnvidia-container src/utils.c file_create: "file creation failed: %s",
# src/nvc_mount.c: "mount operation failed: %s", "stat failed: %s"; error_set appends ": <strerror>"):
# file creation failed: /var/lib/docker/overlay2/36b6.../merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists    (BIOP/BIOP-desktop#2)
# and the device cgroup's rules for the GPUs (src/rpc server: error_setx(err, "failed to add device rules: %s", rerr),
# the nvcgo's cgroup v1 devices.allow write or v2 eBPF filter program):
# nvidia-container-cli: mount error: failed to add device rules: unable to find any existing device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted: unknown.
#   (NVIDIA/nvidia-container-toolkit#678, libnvidia-container#154: an unprivileged or nested runtime, LXC, rootless docker)
# nvidia-container-cli: mount error: failed to add device rules: open /sys/fs/cgroup/devices/user.slice/devices.allow: permission denied: unknown.
_MOUNT_OP = re.compile(r"(?P<op>file creation|mount operation|stat) failed: |failed to add (?P<rules>device rules): ")
_MOUNT_OPS = {"file creation": "file_create", "mount operation": "mount", "stat": "stat", "device rules": "device_rules"}
# "mount operation failed: %s" names the mount's source when that is a host path, else its target (src/xfuncs.h xmount:
# "(source != NULL && *source == '/') ? source : target"): a path in the container's root filesystem (docker's and
# podman's/cri-o's overlay ".../merged/...", containerd's task ".../rootfs/...") is a target the runtime did not provide
# mount operation failed: /var/lib/containers/storage/overlay/fdc9.../merged/proc/driver/nvidia: no such file or directory   (cri-o/cri-o#7632)
_INTO_CONTAINER = re.compile(r"mount operation failed: /[^\n:]*?/(?:merged|rootfs)/")
# a device-stage error naming a device the driver does not list (libnvidia-container src/cli/common.c
# select_devices: error_setx(&ierr, "unknown device") then error_setx(err, "%s: %s", dev, ierr.msg); configure.c
# warnx("device error: %s"); before 1.0 "unknown device id: %s"): the container asked for a GPU index, UUID,
# PCI bus id or MIG device (NVIDIA_VISIBLE_DEVICES, docker --gpus device=, compose device_ids) the host lacks:
# nvidia-container-cli: device error: 2: unknown device: unknown                               (NVIDIA/nvidia-container-toolkit#632)
# or the device plugin's volume-mounts list path, read as a device name by a toolkit not configured to accept it
# (accept-nvidia-visible-devices-as-volume-mounts):
# nvidia-container-cli: device error: /var/run/nvidia-container-devices: unknown device: unknown   (NVIDIA/nvidia-container-toolkit#108, k3s)
# the ldcache stage's ldconfig run (libnvidia-container src/nvc_ldcache.c nvc_ldcache_update: the container's ldconfig,
# or the host's with the '@' prefix, under RLIMIT_CPU 10 s and RLIMIT_AS 2 GiB, a seccomp allow-list, then
# error_setx "process %s terminated with signal %d" / "process %s failed with error code: %d"):
# ... stderr: Auto-detected mode as 'legacy' nvidia-container-cli: ldcache error: process /sbin/ldconfig terminated with signal 9   (NVIDIA/k8s-device-plugin#1400)
_LDCONFIG = re.compile(r"^process (?P<prog>\S{1,200}) (?:terminated with signal (?P<sig>\d{1,3})|failed with error code: (?P<rc>-?\d{1,4}))$")
# a container-stage error finding no cgroup controller of the name asked for: libnvidia-container's cgroup v1
# code reads the container process's /proc/<pid>/mountinfo for the "devices" controller's mount (src/nvc_container.c
# find_cgroup_mount: error_setx(err, "cgroup subsystem %s not found", subsys); nvcgo's cgroup v1 path, 1.8+,
# fmt.Errorf("cgroup subsystem %s not found", subsystem)). Before 1.8.0 it had no other code: on a host that
# mounts only the unified cgroup v2 hierarchy (systemd's default on Debian 11, Ubuntu 21.10, Fedora 31, RHEL 9)
# there is no v1 devices controller and every GPU container fails here (1.8.0: "Add new cgroup.c file based on
# nvcgo that supports both cgroupv1 and cgroupv2"):
# docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting container process caused: process_linux.go:495: container init caused: Running hook #1:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.
#   (NVIDIA/nvidia-docker#1486, Arch, kernel 5.11, docker 20.10.5)
# Failure: nvidia-container-cli.real: container error: cgroup subsystem devices not found      (NVIDIA/k8s-device-plugin#324's title)
_CGROUP_NOT_FOUND = re.compile(r"^cgroup subsystem (?P<subsys>\w{1,40}) not found$")
# The hook refused by the host before it reached the driver (libnvidia-container src/nvc.c nvc_init: copy_config reads
# /proc/sys/kernel/overflowuid and overflowgid, then xopen(&ctx->err, "/proc/self/ns/mnt", O_RDONLY|O_CLOEXEC); src/xfuncs.h
# xopen: error_set(err, "open failed: %s", path), error_set appending strerror; all before driver_init loads NVML; the CLI's
# warnx("initialization error: %s")): a process may always read its own /proc entries unless a security module (AppArmor,
# SELinux) or the sandbox it was started in denies them:
# nvidia-container-cli: initialization error: open failed: /proc/self/ns/mnt: permission denied          (NVIDIA/enroot#238, under enroot 3.5's user namespace on a host with AppArmor's userns restriction)
# nvidia-container-cli: initialization error: open failed: /proc/sys/kernel/overflowuid: permission denied   (NVIDIA/nvidia-container-runtime#168: with sudo only)
_PROC_DENIED = re.compile(r"^open failed: (?P<path>/proc/\S{1,200}): (?:permission denied|operation not permitted)$")
# and its capabilities (src/utils.c perm_set_capabilities / perm_drop_bounds: error_set(err, "capability change failed");
# the CLI's warnx("permission error: %s")):
# nvidia-container-cli: permission error: capability change failed: operation not permitted             (NVIDIA/enroot#88: SELinux enforcing; 'setenforce 0' let it start)
_CAPS_DENIED = re.compile(r"^capability change failed(?:: (?P<why>[a-z][a-z ]{1,60}))?$")
# The CLI's initialization error quoted without the program's name warnx(3) puts before it (every libnvidia-container
# release prints "nvidia-container-cli: initialization error: %s": src/cli/*.c; the rest is driver.c's call_nvml,
# error_set_nvml(err, ..., "nvml error"), nvmlErrorString's text lowercased), as a reporter trims docker's error to its
# tail (runc's ": unknown." kept) for an issue's title:
# running error - initialization error: nvml error: driver/library version mismatch: unknown.     (psalias2006/gpu-hot#48's title)
#   (the stage kept: "initialization error: " names nvmlInit's failure; a bare "nvml error: ..." could be the detection
#   stage's, a GPU's query, and is not read)
_TRIMMED_INIT = re.compile(r"(?:^|[\s(\"'`-])initialization error: nvml error: (?P<nvml>[^\n\\\"`]{1,200})")
# The IMEX channels the container asked for (NVIDIA_IMEX_CHANNELS, 1.14.6+), parsed before the library initialises
# (libnvidia-container src/cli/configure.c and info.c: if (parse_imex_info(&err, ctx->imex_channels, &nvc_cfg->imex) < 0)
# { warnx("error parsing IMEX info: %s", err.msg); goto fail; }): no stage word before "error", so _LINE does not see it.
# ... stderr: Auto-detected mode as 'legacy' nvidia-container-cli: error parsing IMEX info: unsupported IMEX channel value: all: unknown
#   (awslabs/amazon-eks-ami#2062: EKS GPU AMI v20241109, toolkit 1.17.0, whose legacy-image default was 'all'; the toolkit's
#   1.17.2 release notes: "Fixed a bug where legacy images would set imex channels as `all`")
_IMEX_PARSE = re.compile(r"nvidia-container-cli(?:\.real)?: error parsing IMEX info: (?P<msg>[^\n\\]*)")
# the value the library refused, where the message names one
_IMEX_VALUE = re.compile(r"IMEX channel value: (?P<val>\S{1,100})$")
_UNKNOWN_DEVICE = re.compile(r"^(?:(?P<dev>\S{1,100}?): unknown device|unknown device id: (?P<old>\S{1,100}))$")
# The runtime ran the hook it is configured with (``<hook> prestart``) and the program there has no such
# command: urfave/cli's help answer "No help topic for '%v'" (the Go CLI framework of the toolkit's
# nvidia-ctk and nvidia-container-toolkit binaries), on the hook's stderr as a logrus line:
# ... Running hook #1:: error running hook: exit status 3, stdout: , stderr: time=\"2022-02-13T11:11:05+11:00\" level=error msg=\"No help topic for 'prestart'\\n\": unknown
#   (NVIDIA/nvidia-container-toolkit#14: self-built toolkit packages whose hook path names a binary of another release)
_HOOK_NO_COMMAND = re.compile(r"error running (?:\w+ )?hook(?: #\d+)?: exit status (?P<rc>\d+), stdout: [^\n]*?, stderr: "
                              r"[^\n]*?No help topic for '(?P<cmd>\w+)'")
# The NVIDIA OCI runtime (the binary the engine runs in runc's place, with runc's command line) exiting non-zero:
# containerd's go-runc runOrError, fmt.Errorf("%s did not terminate successfully: %w", cmd.Args[0], &ExitError{status})
# ("exit status %d"), the shim appending the runtime's stderr or log (containerd before 1.3: "did not terminate sucessfully"):
# ... OCI runtime create failed: /nix/store/va74...-nvidia-docker/bin/nvidia-container-runtime did not terminate successfully: exit status 125: unknown flag: --root
#   (NixOS/nixpkgs#322400: the runtime path named nixpkgs's nvidia-docker wrapper, which did not accept runc's --root; CDI was the fix)
# ... OCI runtime create failed: nvidia-container-runtime did not terminate successfully: exit status 2: unknown.   (NVIDIA/nvidia-container-toolkit#104)
_RUNTIME_EXIT = re.compile(r"(?P<prog>[^\s:\"'`(]{0,300}nvidia-container-runtime(?:\.[a-z]{1,10})?) did not terminate succ?essfully"
                           r"(?:: exit status (?P<rc>\d{1,3}))?(?:: (?P<msg>[^\n\\]{0,1000}))?")


def detect(head: str) -> bool:
    if "did not terminate" in head and _RUNTIME_EXIT.search(head) is not None:
        return True
    if "error parsing IMEX info" in head and _IMEX_PARSE.search(head) is not None:
        return True
    if "No help topic for" in head and _HOOK_NO_COMMAND.search(head) is not None:
        return True
    if "initialization error: nvml error: " in head and _TRIMMED_INIT.search(head) is not None:
        return True
    return "nvidia-container-cli" in head and _LINE.search(head) is not None


def _clean(msg: str) -> str:
    # a markdown paste may close its inline code right after it ("... signal 9```": NVIDIA/k8s-device-plugin#1400)
    msg = msg.strip().rstrip("`").rstrip(".").strip()
    return msg.removesuffix(": unknown").strip()


def _unseen(pattern: re.Pattern, artefact: Artefact, seen: set[int], result: ParseResult):
    """(line number, match) of each line of ``pattern`` no earlier form read; each counted as used."""
    for n, line in iter_lines(pattern, artefact):
        if n in seen or (m := pattern.search(line)) is None:
            continue
        seen.add(n)
        result.lines_used += 1
        yield n, m


def _requirement(b: FactBuilder, n: int, r: re.Match, msg: str) -> None:
    b.add(ContainerRequirementUnsatisfied, n, requirement=re.sub(r"\s+", "", r["cond"]), subject=r["what"],
          required_version=r["ver"], message=msg)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    seen: set[int] = set()
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        if m is None or n in seen:
            continue
        seen.add(n)
        stage, msg = m["stage"], _clean(m["msg"])
        result.lines_used += 1
        if stage == "requirement":
            r = _REQUIREMENT.search(msg)
            if r is None:
                b.error(n, f"nvidia-container-cli requirement error without a condition: {msg!r}")
                continue
            _requirement(b, n, r, msg)
        elif stage == "initialization" and (v := _NVML.match(msg)) is not None:
            text = v["nvml"] or f"{v['lib']}: {v['why']}"
            reason = nvml_reason(text) if v["nvml"] else "library_not_found"
            b.add(NvmlInitFailure, n, reason=reason, message=text, source="nvidia-container-cli")
        elif stage == "detection" and (v := _NVML.match(msg)) is not None and v["nvml"]:
            # the driver's detection asks NVML about each GPU (libnvidia-container src/nvc_info.c), after the
            # initialisation stage: NVML came up, a GPU's query failed (a GPU in ERR! state, fallen off the bus)
            # ... stderr: nvidia-container-cli: detection error: nvml error: unknown error: unknown.     (NVIDIA/dcgm-exporter#46)
            b.add(ContainerToolkitError, n, stage=stage, message=msg, operation="nvml")
        elif stage == "ldcache" and _LDCONFIG.match(msg) is not None:
            b.add(ContainerToolkitError, n, stage=stage, message=msg, operation="ldconfig")
        elif stage == "initialization" and _PROC_DENIED.match(msg) is not None:
            b.add(ContainerToolkitError, n, stage=stage, message=msg, operation="proc_access")
        elif stage == "permission" and _CAPS_DENIED.match(msg) is not None:
            b.add(ContainerToolkitError, n, stage=stage, message=msg, operation="capabilities")
        elif stage == "container" and _CGROUP_NOT_FOUND.match(msg) is not None:
            b.add(ContainerToolkitError, n, stage=stage, message=msg, operation="cgroup_not_found")
        elif stage == "device" and (u := _UNKNOWN_DEVICE.match(msg)) is not None:
            dev = u["dev"] or u["old"]
            b.add(ContainerToolkitError, n, stage=stage, message=msg, device=dev,
                  operation="device_list_path" if dev.startswith("/") else "unknown_device")
        else:
            op = _MOUNT_OP.match(msg) if stage == "mount" else None
            operation = _MOUNT_OPS[op["op"] or op["rules"]] if op else "other"
            if operation == "mount" and _INTO_CONTAINER.match(msg) is not None:
                operation = "mount_into_container"
            b.add(ContainerToolkitError, n, stage=stage, message=msg, operation=operation)
    if "initialization error: nvml error: " in artefact.text:
        for n, line in iter_lines(_TRIMMED_INIT, artefact):
            if n in seen or (m := _TRIMMED_INIT.search(line)) is None or (text := _clean(m["nvml"])) == "":
                continue
            seen.add(n)
            result.lines_used += 1
            b.add(NvmlInitFailure, n, reason=nvml_reason(text), message=text, source="nvidia-container-cli")
    if "error parsing IMEX info" in artefact.text:
        for n, m in _unseen(_IMEX_PARSE, artefact, seen, result):
            msg = _clean(m["msg"])
            v = _IMEX_VALUE.search(msg)
            b.add(ContainerToolkitError, n, stage="imex", message=msg, operation="imex_channels",
                  device=v["val"] if v else None)
    if "No help topic for" in artefact.text:
        for n, line in iter_lines(_HOOK_NO_COMMAND, artefact):
            if n in seen or (m := _HOOK_NO_COMMAND.search(line)) is None:
                continue
            result.lines_used += 1
            b.add(ContainerToolkitError, n, stage="hook",
                  message=f"the hook's program has no '{m['cmd']}' command (No help topic for '{m['cmd']}', exit status {m['rc']})")
    if "did not terminate" in artefact.text:
        for n, m in _unseen(_RUNTIME_EXIT, artefact, seen, result):
            msg = _clean(m["msg"] or "")
            msg = "" if msg == "unknown" else msg  # runc's closing ": unknown." alone: the runtime printed nothing
            if (r := _REQUIREMENT.search(msg)) is not None:
                _requirement(b, n, r, msg)
                continue
            status = f"exit status {m['rc']}" if m["rc"] else "a non-zero exit"
            b.add(ContainerToolkitError, n, stage="runtime", operation="runtime_exit",
                  message=f"{m['prog'].rsplit('/', 1)[-1]}: {status}" + (f": {msg}" if msg else ""))
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_LINE, _HOOK_NO_COMMAND, _TRIMMED_INIT, _IMEX_PARSE, _RUNTIME_EXIT)
