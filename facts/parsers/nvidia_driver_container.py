"""The NVIDIA driver container's log (GPU operator ``nvidia-driver-daemonset``): the driver build.

Made by ``kubectl logs -n gpu-operator <nvidia-driver-daemonset-pod> -c nvidia-driver-ctr
[--previous]``. The container's ``nvidia-driver`` script (NVIDIA/gpu-driver-container, one per
distribution) echoes each step before it runs, under ``bash -x`` also the commands
(``+ dnf ...``), and a package manager's or the script's own error when a step fails. Sample
content (real: NVIDIA/gpu-operator#234 on OpenShift 4.7; the step lines are the script's
``echo`` texts)::

    Installing Linux kernel headers...
    + echo 'Installing Linux kernel headers...'
    + dnf -q -y --releasever=8.3 install kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64
    Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64

Facts: ``driver_container_failure`` per failure line: ``stage`` is the step it failed in
(``kernel_version``, ``package_cache``, ``dependencies``, ``kernel_headers``,
``kernel_module_files``, ``kernel_version_string``, ``build`` (make's ``*** ... Error N`` after the
compile step), ``install`` (the modules installed, or a precompiled image's module packages fetched, for the
node's kernel), ``load`` (modprobe); ``unknown`` before
any step line), ``message`` as printed, ``packages`` the packages a package manager could not
find (space-separated), ``kernel`` a kernel version named in them. Step lines are recognised
and counted. A file without one of the script's step lines is not this kind (a bare ``dnf``
error is no driver build). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    DriverContainerFailure,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_driver_container"

#: the script's step lines (echo texts of rhel8/ubuntu nvidia-driver) -> stage
STEPS: tuple[tuple[str, str], ...] = (
    ("Resolving Linux kernel version...", "kernel_version"),
    ("Updating the package cache...", "package_cache"),
    ("Installing elfutils...", "dependencies"),
    ("Installing dependencies", "dependencies"),
    ("Enabling RHOCP and EUS RPM repos...", "package_cache"),
    ("Installing Linux kernel headers...", "kernel_headers"),
    ("Installing Linux kernel module files...", "kernel_module_files"),
    ("Generating Linux kernel version string...", "kernel_version_string"),
    ("Compiling NVIDIA driver kernel modules...", "build"),
    # ubuntu*/nvidia-driver's _install_driver (nvidia-installer links the built modules), and the precompiled
    # ubuntu images' (apt installs linux-objects-nvidia-<branch>-server-<kernel>, linux-signatures-nvidia-<kernel>,
    # linux-modules-nvidia-<branch>-server[-open]-<kernel>; today's script says "Installing Open|Closed ...")
    ("Installing NVIDIA driver kernel modules...", "install"),
    ("Installing Open NVIDIA driver kernel modules...", "install"),
    ("Installing Closed NVIDIA driver kernel modules...", "install"),
    ("Relinking NVIDIA driver kernel modules...", "build"),
    ("Loading NVIDIA driver kernel modules...", "load"),
)
# Installing Linux kernel headers...          + echo 'Installing Linux kernel headers...'  (bash -x trace: not a step)
_STEP = re.compile(r"^\s*(?P<step>" + "|".join(re.escape(s) for s, _ in STEPS) + r")\s*$")
_STEP_OR_DEPS = re.compile(r"^\s*(?:" + "|".join(re.escape(s) for s, _ in STEPS) + r"|Installing elfutils)\s*$", re.M)

# Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64   (dnf)
# E: Unable to locate package %s                     (apt's format, ubuntu driver containers)    No package %s available.   (yum 3)
# (pkgs: greedy to its last non-blank, or to the one before a closing "available.": a lazy one before \s*$ rescanned a
# run of blanks once per step)
_NO_PACKAGE = re.compile(r"^\s*(?:Error: Unable to find a match|E: Unable to locate package|No package) ?:? ?"
                         r"(?P<pkgs>\S(?:(?:[^\n]*\S)?(?=\s*available\.\s*$)|(?:[^\n]*\S)?))\s*(?:available\.)?\s*$")
# Could not resolve Linux kernel version        Could not locate Linux kernel version string        Could not resolve RHEL version
# FATAL: failed to install elfutils packages. RHEL entitlement may be improperly deployed.
# FATAL: failed to reach RHEL package repositories. Ensure that the cluster can access the proper networks.
_SCRIPT_ERROR = re.compile(r"^\s*(?P<msg>Could not (?:resolve|locate) (?:Linux kernel version(?: string)?|RHEL version)"
                           r"|FATAL: failed to [^\n]+)\s*$")
# modprobe: ERROR: could not insert '%s': %s            (kmod's format, the "Loading NVIDIA driver kernel modules..." step)
_MODPROBE = re.compile(r"modprobe: (?:ERROR|FATAL): (?P<msg>could not insert '[\w-]+': [^\n]+)")
# make[1]: *** [...] Error 1     (make's failure line, while the script compiles the modules)
_BUILD_ERROR = re.compile(r"^make(?:\[\d+\])?: \*\*\* [^\n]+ Error \d+\s*$")
#: line signatures for facts/classify.py
SIGNATURES = (_STEP_OR_DEPS,)
# kernel-headers-4.18.0-240.23.2.el8_3.x86_64      linux-modules-nvidia-535-server-6.1.51-talos      linux-signatures-nvidia-6.1.51-talos
# (a precompiled image's packages: the driver branch, server and open flavours before the kernel release)
_KERNEL = re.compile(r"(?:kernel|linux)-(?:headers|devel|core|modules|objects|signatures)-"
                     r"(?:nvidia-(?:\d+-)?(?:server-)?(?:open-)?)?(?P<kernel>\d+\.\d+[\w.+~-]*)")


def detect(text: str) -> bool:
    if "Linux kernel" not in text and "NVIDIA driver kernel modules" not in text and "Installing elfutils" not in text:
        return False
    return _STEP_OR_DEPS.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    stage = "unknown"
    steps = dict(STEPS)
    for n, line in enumerate(artefact.lines, 1):
        if (m := _STEP.match(line)) is not None:
            stage = steps[m["step"]]
            result.lines_used += 1
            continue
        if (m := _NO_PACKAGE.match(line)) is not None:
            pkgs = m["pkgs"].strip()
            k = _KERNEL.search(pkgs)
            b.add(DriverContainerFailure, n, stage=stage, message=line.strip(), packages=pkgs,
                  kernel=k["kernel"] if k else None)
        elif (m := _SCRIPT_ERROR.match(line)) is not None:
            msg = m["msg"]
            where = "kernel_version" if "kernel version" in msg and "string" not in msg else stage
            b.add(DriverContainerFailure, n, stage=where, message=msg)
        elif (m := _MODPROBE.search(line)) is not None:
            b.add(DriverContainerFailure, n, stage="load", message=m["msg"])
        elif stage == "build" and _BUILD_ERROR.match(line):
            b.add(DriverContainerFailure, n, stage="build", message=line.strip())
        else:
            continue
        result.lines_used += 1
    return result
