"""MIG mode changes as mig-parted (and the GPU Operator's mig-manager, which runs it) and
``nvidia-smi -mig`` report them: whether the change took effect or waits for a GPU reset.

On A100/A30 a MIG mode change is only stored as *pending* until the GPU is reset; mig-parted
resets the GPUs itself after ``At least one mode change pending``, nvidia-smi asks the user to,
and a GPU in use, a hypervisor that refuses resets, or a reboot that came too early leaves the
change pending: the GPU keeps its old mode and no MIG devices (or no full GPU) appear.

Sample content::

    # mig-parted apply, debug (NVIDIA/gpu-operator#668, mig-manager's log; cmd/apply/mode.go)
    time="2024-02-13T10:21:13Z" level=debug msg="  GPU 0: 0x20B010DE"
    time="2024-02-13T10:21:13Z" level=debug msg="    Updating MIG mode: Disabled"
    time="2024-02-13T10:21:13Z" level=debug msg="    Mode change pending: true"
    # nvidia-smi -mig (NVIDIA/gpu-operator#118; the MIG user guide: '...:Not Supported')
    Warning: MIG mode is in pending disable state for GPU 00000000:C1:00.0:In use by another client
    # nvidia-smi -mig that took effect (nvidia-smi's own line)
    Disabled MIG Mode for GPU 00000000:F9:00.0

Facts emitted: ``mig_mode_change`` per GPU: ``state`` pending where the artefact's last word on
the GPU is a pending change (mig-parted's ``Mode change pending: true`` with no later
``false`` or ``Current MIG mode`` equal to the target, nvidia-smi's pending warning), applied
where it says the mode took effect, and one ``failed`` (gpu None) per mig-manager line that says
the change did not take effect or the GPUs could not be reset. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import MigModeChange  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "mig_mode"

# time="2024-02-13T10:21:13Z" level=debug msg="  GPU 0: 0x20B010DE"        (mig-parted's walk: index, PCI device id)
_GPU = re.compile(r"\bGPU (?P<idx>\d+): 0x[0-9A-Fa-f]{8}\b")
# time="2024-02-13T10:21:13Z" level=debug msg="    Current MIG mode: Enabled"
_CURRENT = re.compile(r"\bCurrent MIG mode: (?P<mode>Enabled|Disabled)\b")
# time="2024-02-13T10:21:13Z" level=debug msg="    Updating MIG mode: Disabled"
# msg="    Asserting MIG mode: Enabled"      (mig-parted cmd/assert: log.Debugf("    Asserting MIG mode: %v", mode.Enabled))
_UPDATING = re.compile(r"\b(?:Updating|Asserting) MIG mode: (?P<mode>Enabled|Disabled)\b")
# time="2024-02-13T10:21:13Z" level=debug msg="    Mode change pending: true"
_PENDING = re.compile(r"\bMode change pending: (?P<p>true|false)\b")
# Warning: MIG mode is in pending disable state for GPU 00000000:C1:00.0:In use by another client
# Warning: MIG mode is in pending enable state for GPU 00000000:00:03.0:Not Supported      (MIG user guide)
_SMI_PENDING = re.compile(r"MIG mode is in pending (?P<mode>enable|disable) state for GPU "
                          r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])(?::(?P<why>.*\S))?")
# Disabled MIG Mode for GPU 00000000:F9:00.0          Enabled MIG Mode for GPU 00000000:07:00.0
_SMI_DONE = re.compile(r"\b(?P<mode>Enabled|Disabled) MIG Mode for GPU "
                       r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])")
# k8s-mig-manager (reconfigure.go): log.Error("MIG mode change did not take effect after rebooting"),
# fmt.Errorf("MIG mode change failed after reboot: %w"), fmt.Println("Failed to assert MIG mode change: ", err);
# mig-parted cmd/apply/mode.go: fmt.Errorf("error resetting all GPUs: %v"), fmt.Errorf("error resetting GPU %v: %v")
_FAILED = re.compile(r"MIG mode change did not take effect|MIG mode change failed after reboot"
                     r"|Failed to assert MIG mode change|error resetting (?:all GPUs|GPU \d+)")
# k8s-mig-manager: klog.Info("MIG mode change applied successfully")
_APPLIED = re.compile(r"MIG mode change applied successfully")
# mig-parted's other steps of a mode change (cmd/apply/mode.go, assert/walk.go):
# time="..." level=debug msg="Walking MigConfig for (devices=all)"     msg="    MIG capable: true\n"
# msg="    Clearing existing MIG configuration"     msg="At least one mode change pending"     msg="Resetting GPUs..."
# nvidia-smi after its pending warning (MIG user guide; gpu-operator#118):
# Reboot the system or try nvidia-smi --gpu-reset to make MIG mode effective on GPU 00000000:00:03.0
# 00000000:C1:00.0 is currently being used by one or more other processes (...) or reboot the system to make MIG mode effective.
# The mig-manager's own steps around it (k8s-mig-manager's reconfigure script, as its pod log prints them:
# NVIDIA/gpu-operator#646, #322) and mig-parted's assert walk, which a log cut before the mode change holds alone:
# time="2023-12-25T07:53:18Z" level=info msg="Updating to MIG config: all-1g.10gb"
# Applying the MIG mode change from the selected config to the node
# time="2022-02-14T19:16:05Z" level=debug msg="    Asserting MIG mode: Disabled"
# Asserting that the requested configuration is present in the configuration file
_MANAGER = (r"Updating to MIG config: \S|Applying the MIG mode change from the selected config|Asserting MIG mode: (?:En|Dis)abled"
            r"|Walking MigConfig for \(|Asserting that the requested configuration is present")
_STEPS = re.compile(r"Walking MigConfig for|MIG capable: |Clearing existing MIG configuration"
                    r"|At least one mode change pending|Resetting GPUs\.\.\.|to make MIG mode effective"
                    r"|Updating to MIG config: |Applying the MIG mode change|MIG configuration applied successfully"
                    r"|Asserting that the requested configuration is present|Waiting for change to 'nvidia\.com/mig\.config' label")
_DETECT = re.compile(r"Mode change pending: (?:true|false)|Updating MIG mode: |MIG mode is in pending \w+ state for GPU "
                     r"|MIG mode change (?:did not take effect|failed after reboot|applied successfully)"
                     r"|Failed to assert MIG mode change|" + _MANAGER)
_CUES = ("MIG", "MigConfig", "ode change pending", "error resetting", "Resetting GPUs", "mig.config", "requested configuration")


def detect(head: str) -> bool:
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    gpu: int | None = None  # the GPU mig-parted's walk is at
    target: dict[int, str] = {}
    last: dict[int, tuple[int, bool]] = {}  # GPU index -> (line, still pending) of its last pending report
    for n, line in enumerate(artefact.lines, 1):
        if not any(c in line for c in _CUES) and "GPU " not in line:
            continue
        if (m := _GPU.search(line)) is not None:
            gpu = int(m["idx"])
        elif (m := _UPDATING.search(line)) is not None:
            if gpu is not None:
                target[gpu] = m["mode"].lower()
        elif (m := _CURRENT.search(line)) is not None:
            if gpu in last and last[gpu][1] and target.get(gpu) == m["mode"].lower():
                last[gpu] = (n, False)  # a later walk finds the mode it asked for: applied
        elif (m := _PENDING.search(line)) is not None:
            if gpu is not None:
                last[gpu] = (n, m["p"] == "true")
        elif (m := _SMI_PENDING.search(line)) is not None:
            bus = try_pci_bus_id(m["bus"])
            b.add(MigModeChange, n, gpu=bus, pci_bus_id=bus, target_mode=f"{m['mode']}d", state="pending",
                  reason=m["why"])
        elif (m := _SMI_DONE.search(line)) is not None:
            bus = try_pci_bus_id(m["bus"])
            b.add(MigModeChange, n, gpu=bus, pci_bus_id=bus, target_mode=m["mode"].lower(), state="applied")
        elif _FAILED.search(line):
            b.add(MigModeChange, n, state="failed")
        elif _APPLIED.search(line):
            last = {i: (ln, False) for i, (ln, _) in last.items()}
        elif _STEPS.search(line) is None:
            continue
        result.lines_used += 1
    for idx, (n, pending) in last.items():
        b.add(MigModeChange, n, gpu=f"GPU{idx}", target_mode=target.get(idx),
              state="pending" if pending else "applied")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
