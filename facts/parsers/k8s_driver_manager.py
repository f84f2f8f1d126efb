"""The GPU operator's k8s-driver-manager log (``kubectl logs <nvidia-driver-daemonset-pod> -c
k8s-driver-manager``): the driver pod's init container, which takes the GPU clients off the node
and unloads the old driver before the driver container installs its own.

Its releases print the same step texts: the shell script ``driver-manager`` (v0.1-v0.6, ``echo``)
and the Go ``cmd/driver-manager`` (logrus text, ``time=... level=info msg=...``), here pasted plain,
with stern's ``<pod> <container>`` prefix and in the Go form. Sample content (NVIDIA/gpu-operator#304,
#426, #2166)::

    nvidia driver module is already loaded with refcount 350
    Shutting down all GPU clients on the current node by disabling their component-specific nodeSelector labels
    Unloading NVIDIA driver kernel modules...
    Could not unload NVIDIA driver kernel modules, driver is in use
    Auto drain of the node xxx is disabled
    Failed to uninstall nvidia driver
    nvidia-driver-daemonset-c78b4 k8s-driver-manager Getting current value of the 'nvidia.com/gpu.deploy.operator-validator' node label
    time=2026-02-25T08:26:00Z level=info msg=Current value of "nvidia.com/gpu.deploy.operator-validator"=true

Facts: ``driver_unload_blocked`` for "Could not unload NVIDIA driver kernel modules, driver is in
use" (also the driver container's own unload prints it) and the Go manager's "Unable to cleanup
driver modules, attempting again with node drain", with the module's refcount where the log
printed it; ``driver_manager_failure`` for the steps that fail after it or on their own
(``uninstall_failed``, ``drain_failed``, ``evict_failed``, ``vfio_unbind_failed``,
``nouveau_unload_failed``, ``shutdown_wait_failed``, ``cleanup_blocked``). The label and
lifecycle lines name the file and are read as used, with no fact; the file checks nothing of the
GPUs (knowledge/coverage.yaml). Other lines are left unread.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import DriverManagerFailure, DriverUnloadBlocked  # noqa: F401
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "k8s_driver_manager"

# Getting current value of the 'nvidia.com/gpu.deploy.operator-validator' node label         (shell)
# Current value of 'nvidia.com/gpu.deploy.operator-validator=true'                           (shell)
# msg=Getting current value of the "nvidia.com/gpu.deploy.operator-validator" node label      (Go, %q)
# msg=Current value of "nvidia.com/gpu.deploy.operator-validator"=true                        (Go)
_LABEL = re.compile(r"\b(?:Getting current value of the|Current value of) ['\"]nvidia\.com/gpu\.deploy\.")
# nvidia driver module is already loaded with refcount 350
_REFCOUNT = re.compile(r"\bnvidia driver module is already loaded with refcount (?P<n>\d+)")
# the steps both releases print (driver-manager echo texts; cmd/driver-manager/main.go dm.log.Info)
_LIFECYCLE = re.compile(
    r"\b(?:Shutting down all GPU clients on the current node by disabling their component-specific nodeSelector labels"
    r"|Rescheduling all GPU clients on the current node by enabling their component-specific nodeSelector labels"
    r"|Starting driver uninstallation process|Fetching current component labels"
    r"|Unloading NVIDIA driver kernel modules|Unmounting NVIDIA driver rootfs"
    r"|Waiting for (?:the )?[\w-]+ to shutdown|Auto (?:drain|eviction of GPU pods) (?:of|on) (?:the )?node \S+ is disabled)")
# Could not unload NVIDIA driver kernel modules, driver is in use          (driver-manager, nvidia-driver's _unload_driver)
# Unable to cleanup driver modules, attempting again with node drain...    (driver-manager before it drains)
_BLOCKED = re.compile(r"\b(?:Could not unload NVIDIA driver kernel modules, driver is in use"
                      r"|Unable to cleanup driver modules, attempting again with node drain)")
# Failed to uninstall nvidia driver            (v0.1-v0.4; "... driver components" later)
# Failed to drain node of GPU pods             Cannot proceed until all GPU pods are drained from the node. Exiting.
# Failed to evict GPU operator components, attempting cleanup
# Unable to unbind vfio-pci driver from all devices
# Failed to unload nouveau driver
# Failed to wait for dra-driver to shutdown: <err>       Failed to wait for GPU client pods to terminate: <err>
# Cleanup could not automatically proceed on node <node> because ...
_FAILURES = (
    ("uninstall_failed", re.compile(r"\bFailed to uninstall nvidia driver\b")),
    ("drain_failed", re.compile(r"\b(?:Failed to drain node of GPU pods|[Cc]annot proceed until all GPU pods are drained from the node"
                                r"|failed to drain node: )")),
    ("evict_failed", re.compile(r"\bFailed to evict GPU operator components\b")),
    ("vfio_unbind_failed", re.compile(r"\bUnable to unbind vfio-pci driver from all devices\b")),
    ("nouveau_unload_failed", re.compile(r"\bFailed to unload nouveau driver\b")),
    ("shutdown_wait_failed", re.compile(r"\bFailed to wait for (?:[\w-]+ to shutdown|GPU client pods to terminate)\b")),
    ("cleanup_blocked", re.compile(r"\bCleanup could not automatically proceed on node\b")),
)
_ANY = re.compile("|".join([_LABEL.pattern, _REFCOUNT.pattern.replace("(?P<n>", "(?:"), _BLOCKED.pattern,
                            r"\bShutting down all GPU clients on the current node by disabling"]))


def detect(head: str) -> bool:
    if not ("nvidia.com/gpu.deploy." in head or "driver is in use" in head or "refcount" in head
            or "Unable to cleanup driver modules" in head or "Shutting down all GPU clients" in head):
        return False
    return _ANY.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    refcount: int | None = None
    for n, line in enumerate(artefact.lines, 1):
        if (m := _BLOCKED.search(line)) is not None:
            b.add(DriverUnloadBlocked, n, refcount=refcount, message=m[0])
        elif (m := _REFCOUNT.search(line)) is not None:
            refcount = int(m["n"])
        elif _LABEL.search(line) or _LIFECYCLE.search(line):
            pass
        elif (hit := next(((e, m) for e, p in _FAILURES if (m := p.search(line)) is not None), None)) is not None:
            b.add(DriverManagerFailure, n, event=hit[0], message=line[hit[1].start():].strip())
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_ANY,)
