"""The NVIDIA GPU operator's validator (``kubectl logs nvidia-operator-validator-... -c
driver-validation``, and the toolkit, cuda, plugin, nvidia-fs, mofed init containers): each
validation retries its command until it succeeds, so a component that never becomes ready shows
as the same failure every five seconds while the node's GPU pods wait in ``Init``.

The forms, from cmd/nvidia-validator/main.go (validator/main.go before v23.3):
``runCommandWithWait`` prints ``running command %s with args %v``, the command's own output, then
``command failed, retrying after %d seconds``; since v23.9 the driver container's check is
``log.Warningf("failed to validate the driver, retrying after %d seconds\\n")`` (logrus:
``WARN[0005] ...`` on a terminal, ``level=warning msg="..."`` otherwise). Sample content
(NVIDIA/gpu-operator#378)::

    running command chroot with args [/run/nvidia/driver nvidia-smi]
    chroot: failed to run command 'nvidia-smi': No such file or directory
    command failed, retrying after 5 seconds

Facts: ``gpu_operator_validation_retry`` per validation that failed (one per command, cited at
the command's first error line, else its first retry line; ``retries`` counted): ``validation`` from the command
(``chroot [/run/nvidia/driver nvidia-smi]`` / ``chroot [/host .../nvidia-smi]``: driver; ``stat
.../.driver-ctr-ready``: driver_container; ``nvidia-smi []``: toolkit; ``lsmod | grep nvidia_fs``,
``gdrdrv``, ``nvidia_peermem``, ``mlx5_core`` / ``.driver-ready`` of /run/mellanox: nvidia_fs,
gdrcopy, nvidia_peermem, mofed; ``.cc-manager-ctr-ready``: cc_manager), ``detail`` the command's
first error line. A ``running command`` that did not fail is read, no fact. Empty input: nothing.

Since v24.6 the driver validation first probes a driver installed on the host (``validateHostDriver``: it runs
``chroot /host nvidia-smi``, the full table, and falls back to the driver container when that fails) and says so:
``Attempting to validate a pre-installed driver on the host``, ``Detected a pre-installed driver on the host``,
``Attempting to validate a driver container installation`` (each read, no fact); newer releases also log why
the host probe failed, ``log.Infof("No pre-installed driver detected on the host: %v", err)`` (the DRA driver's
validator prints the same words). Where ``err`` is ``exit status N`` nvidia-smi ran and returned N, its
documented return value, an ``nvmlReturn_t`` (nvml.h; 14 ``NVML_ERROR_CORRUPTED_INFOROM``, 9 driver not loaded,
15 GPU lost): the host's driver is there and answered, so the validator's "no host driver" is wrong and the
node's GPU stack waits on a driver container that will never come (NVIDIA's GPU Operator troubleshooting page,
"infoROM is corrupted (nvidia-smi return code 14)": the validator fails with nvidia-smi's table in its log).
That is a ``gpu_operator_validation_retry`` of validation ``host_driver`` (``command`` ``chroot [/host
nvidia-smi]``, ``exit_status`` N, ``nvml_reason`` the return's name). Sample (NVIDIA/gpu-operator#2596, v26.3.3;
the last line as the reporter quoted it)::

    time="2026-07-03T07:54:31Z" level=info msg="Attempting to validate a pre-installed driver on the host"
    +-----------------------------------------------------------------------------------------+
    | NVIDIA-SMI 580.159.03             Driver Version: 580.159.03     CUDA Version: 13.0     |
    No pre-installed driver detected on the host: exit status 14

Any other reason (``no 'nvidia-smi' file present on the host: lstat /host/usr/bin/nvidia-smi: ...``: no host
driver, the driver container's node) is read, no fact.

The plugin validation (``plugin-validation`` init container) first waits for the node to list a GPU resource in its
capacity (``Plugin.validateGPUResource``: ``nvidia.com/gpu`` or an ``nvidia.com/mig-*`` resource, what the device
plugin advertises), every five seconds up to 30 times, then gives up; the same words since v1.9
(validator/main.go, cmd/nvidia-validator/main.go since v23.9)::

    log.Infof("GPU resources are not yet discovered by the node, retry: %d", retry)
    return fmt.Errorf("GPU resources are not discovered by the node")

Sample (NVIDIA/gpu-operator#486, v22.9, ``devicePlugin.enabled: false``)::

    time="2023-02-08T14:19:01Z" level=info msg="GPU resources are not yet discovered by the node, retry: 24"

That is a ``gpu_operator_validation_retry`` of validation ``gpu_resources`` (``retries`` the highest retry number
read, 30 where it gave up), cited at its first line: the node advertises no GPU to the kubelet, so no GPU pod can
be placed there, whatever the GPUs' state (the device plugin not running on the node, disabled by the operator's
values or the ``nvidia.com/gpu.deploy.device-plugin=false`` label, or running without seeing a GPU).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import GpuOperatorValidationRetry  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nvml_init import NVML_RETURN_REASONS

KIND = "gpu_operator_validator"

# running command chroot with args [/run/nvidia/driver nvidia-smi]
_RUNNING = re.compile(r"\brunning command (?P<cmd>\S+) with args \[(?P<args>[^\]\n]{0,300})\]\s*$")
# command failed, retrying after 5 seconds
_FAILED = re.compile(r"\bcommand failed, retrying after \d+ seconds\s*$")
# WARN[0005] failed to validate the driver, retrying after 5 seconds     level=warning msg="failed to validate the driver, retrying after 5 seconds\n"
_DRIVER_CTR = re.compile(r"\bfailed to validate the driver, retrying after \d+ seconds\b")
# time="2026-07-03T07:54:31Z" level=info msg="Attempting to validate a pre-installed driver on the host"
# Attempting to validate a driver container installation          (NVIDIA/gpu-operator#1276, v24.9.2)
# time="2026-05-05T13:15:55Z" level=info msg="Detected a pre-installed driver on the host"   (main.go runValidation)
_PROBE = re.compile(r"\b(?:Attempting to validate a (?:pre-installed driver on the host|driver container installation)"
                    r"|Detected a pre-installed driver on the host|Validating containerized driver installation"
                    r"|Driver is not pre-installed on the host and is managed by GPU Operator)\b")
# "No pre-installed driver detected on the host: exit status 14".      (NVIDIA/gpu-operator#2596, as quoted)
# time="2026-05-05T13:15:55Z" level=info msg="No pre-installed driver detected on the host: no 'nvidia-smi' file present on the host: lstat /host/usr/bin/nvidia-smi: no such file or directory"
_NO_HOST = re.compile(r"\bNo pre-installed driver detected on the host: (?P<err>[^\"\n]{1,200})")
# exit status 14      (Go's exec.ExitError: the host's nvidia-smi ran and returned 14)
_EXIT = re.compile(r"^exit status (?P<code>\d{1,3})\b")
#: nvidia-smi's return value is an nvmlReturn_t (nvml.h): the failures nvml_init reads, and the one nvidia-smi
#: returns after printing its table: 14 NVML_ERROR_CORRUPTED_INFOROM ("infoROM is corrupted")
_SMI_RETURNS = {**NVML_RETURN_REASONS, 2: "invalid_argument", 3: "not_supported", 6: "not_found", 10: "timeout",
                14: "corrupted_inforom", 255: "other"}
# time="2023-02-08T14:19:01Z" level=info msg="GPU resources are not yet discovered by the node, retry: 24"   (NVIDIA/gpu-operator#486)
# GPU resources are not discovered by the node          (validateGPUResource's error after its 30th retry)
_NO_GPU_RESOURCES = re.compile(r"\bGPU resources are not (?P<yet>yet )?discovered by the node(?:, retry: (?P<retry>\d{1,4}))?")
_DETECT = re.compile(r"running command \S+ with args \[|command failed, retrying after \d+ seconds|failed to validate the driver, retrying after"
                     r"|Attempting to validate a pre-installed driver on the host|No pre-installed driver detected on the host: "
                     r"|GPU resources are not (?:yet )?discovered by the node")
#: the command -> what it validates (cmd/nvidia-validator/main.go runValidation of each component)
_VALIDATES = (
    ("driver", re.compile(r"^chroot \[\S+ \S*nvidia-smi\]")),
    ("driver_container", re.compile(r"\.driver-ctr-ready")),
    ("cc_manager", re.compile(r"\.cc-manager-ctr-ready")),
    ("toolkit", re.compile(r"^nvidia-smi \[\]")),
    ("nvidia_fs", re.compile(r"nvidia_fs")),
    ("gdrcopy", re.compile(r"gdrdrv")),
    ("nvidia_peermem", re.compile(r"nvidia_peermem")),
    ("mofed", re.compile(r"mlx5_core|/run/mellanox/")),
)


def detect(head: str) -> bool:
    if ("running command" not in head and "retrying after" not in head and "pre-installed driver" not in head
            and "discovered by the node" not in head):
        return False
    return _DETECT.search(head) is not None


def _validation(command: str) -> str:
    return next((name for name, pattern in _VALIDATES if pattern.search(command)), "other")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    seen: dict[str, dict] = {}  # command -> its first failure
    command: str | None = None
    detail: tuple[int, str] | None = None  # the command's first output line after `running command`
    resources: dict | None = None  # the plugin validation's wait for the node's GPU resources

    def fail(n: int, cmd: str, validation: str, message: str) -> None:
        if cmd in seen:
            seen[cmd]["retries"] += 1
        else:  # cited at the command's own error where it printed one, else at the retry line
            seen[cmd] = {"line": detail[0] if detail else n, "validation": validation, "detail": detail[1] if detail else None,
                         "retries": 1, "message": message}

    for n, line in enumerate(artefact.lines, 1):
        if (m := _RUNNING.search(line)) is not None:
            command, detail = f"{m['cmd']} [{m['args']}]", None
        elif _FAILED.search(line) and command is not None:
            fail(n, command, _validation(command), f"{command}: {detail[1] if detail else 'failed'}")
            command = None
        elif _DRIVER_CTR.search(line):
            fail(n, "driver container", "driver", "failed to validate the driver")
        elif (m := _NO_HOST.search(line)) is not None:
            err = m["err"].strip().rstrip(".")
            if (e := _EXIT.match(err)) is not None and (code := int(e["code"])) != 0:
                reason = _SMI_RETURNS.get(code, "other")
                b.add(GpuOperatorValidationRetry, n, validation="host_driver", command="chroot [/host nvidia-smi]",
                      detail=f"No pre-installed driver detected on the host: {err}", exit_status=code, nvml_reason=reason,
                      message=f"the host's nvidia-smi returned {code} ({reason}), so the validator took the host's driver for absent")
        elif (m := _NO_GPU_RESOURCES.search(line)) is not None:
            retry = int(m["retry"]) if m["retry"] else 30  # the error after the last of validateGPUResource's 30 retries
            if resources is None:
                resources = {"line": n, "retries": retry, "detail": line.strip()[:300]}
            else:
                resources["retries"] = max(resources["retries"], retry)
        elif _PROBE.search(line):
            command, detail = None, None  # the validator's own progress line, not a command's output
        elif command is not None and line.strip():
            detail = detail or (n, line.strip()[:300])  # the command's own output: its error, or nvidia-smi's table
        else:
            continue
        result.lines_used += 1
    if resources is not None:
        b.add(GpuOperatorValidationRetry, resources["line"], validation="gpu_resources", detail=resources["detail"],
              retries=resources["retries"],
              message=f"the node lists no nvidia.com/gpu or nvidia.com/mig-* resource in its capacity ({resources['retries']} retries)")
    for cmd, f in seen.items():
        b.add(GpuOperatorValidationRetry, f["line"], validation=f["validation"], command=cmd, detail=f["detail"],
              retries=f["retries"], message=f"{f['message']} ({f['retries']} retries)")
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
