"""Apptainer / Singularity setting up a container's GPUs (``--nv``, ``--nvccli``, ``--rocm``).

``--nv`` (the legacy binds, apptainer's and SingularityCE's default) looks up the driver's
libraries listed in ``nvliblist.conf`` through ldconfig's cache and its binaries (nvidia-smi,
nvidia-persistenced's socket) on PATH, and binds what it found into the container; ``--nvccli``
hands the job to nvidia-container-cli (whose own errors are :mod:`nvidia_container_cli`'s). The
runtime's warnings say when that leaves the container without the driver. Its forms, by release
(apptainer internal/pkg/runtime/launch/launcher_linux.go addGPUBinds / addCompat32Binds /
setNvCCLIConfig; singularity 3.0-3.5 cmd/internal/cli/actions_linux.go; singularity 2.x C
``singularity_message``), printed ``INFO:    ``/``WARNING: `` or, with ``-d``, ``WARNING [U=..,P=..]
<func>()  <msg>``::

    Could not find any %s files on this host!          (3.6+, apptainer; %s = "nv" | "rocm")
    Could not find any %s binaries on this host!       (3.3-3.5; "NVIDIA" before 3.3)
    Could not find any %s libraries on this host!      (every 3.x, apptainer)
    Could not find any 32-bit %s libraries on this host!   (apptainer --compat32)
    You may need to edit %v/nvliblist.conf             (3.0-3.2; "You may need to manually edit %" in 3.3)
    %s files may not be bound with --writable          ("%s binaries ..." 3.3-3.5, "NVIDIA binaries ..." before)
    When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no GPUs will be available in container.
    While finding nv bind points: %v                   ("Unable to capture NVIDIA bind points: %v" in 3.0-3.2)
    WARNING: Skipping user bind, non existent bind point (file) in container: '/bin/nvidia-smi'   (2.x --nv)

Samples (real): apptainer's launcher_linux.go addGPUBinds (``sylog.Warningf("Could not find any %s files on
this host!", gpuPlatform)``: ``WARNING: Could not find any nv files on this host!``), sylabs/singularity#776 (``INFO:    Could not find
any NVIDIA binaries on this host!`` / ``WARNING: Could not find any NVIDIA libraries on this host!`` /
``WARNING: You may need to edit /usr/local/etc/singularity/nvliblist.conf``), apptainer/apptainer#1314
(``WARNING [U=0,P=104]        setGPUBinds()                 nv files may not be bound with --writable``),
apptainer/singularity#1548 (2.5's non existent bind point of /bin/nvidia-smi).

Facts: ``container_runtime_error`` (engine ``apptainer``, ``runtime`` the platform as printed: nv,
NVIDIA, rocm; ``gpu`` true) per line, ``reason``: ``driver_not_found_on_host`` (none of the driver's
files, binaries or libraries found: ``capabilities`` says which), ``driver_binds_writable``
(--writable: the driver is bound only where the image already has the mount points),
``driver_bind_point_missing`` (2.x: the image has no mount point for a driver file),
``nvccli_contain_no_gpus`` (--nvccli with --contain and no NVIDIA_VISIBLE_DEVICES: no GPU device
bound), ``driver_lookup_failed`` (the lookup itself failed: ``message`` its error); and, ``gpu`` false,
``container_creation_failed`` (the starter's FATAL "container creation failed: <err>" in the same text,
its error not nvidia-container-cli's: no GPU rule explains it, so it stays an error of its own). The nvliblist.conf
hint is read as part of the not-found warning, and --nvccli's notes ("Setting 'NVIDIA_VISIBLE_DEVICES=all'
to emulate legacy GPU binding.", "Setting --writable-tmpfs (required by nvidia-container-cli)") as
context: no fact of their own. A lookup on a node without a GPU
(a login node) prints the same warning: the rules say so.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    ContainerRuntimeError,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "apptainer_gpu"

_PLATFORM = r"(?P<platform>nv|NVIDIA|rocm|ROCm)"
# WARNING: Could not find any nv files on this host!                       (apptainer launcher_linux.go addGPUBinds, gpuPlatform nv)
# INFO:    Could not find any NVIDIA binaries on this host!                (sylabs/singularity#776)
# WARNING: Could not find any NVIDIA libraries on this host!               (sylabs/singularity#776)
# Could not find any 32-bit %s libraries on this host!                     (apptainer launcher_linux.go addCompat32Binds)
_NOT_FOUND = re.compile(rf"Could not find any (?P<bits>32-bit )?{_PLATFORM} (?P<what>files|binaries|libraries) on this host!")
# WARNING: You may need to edit /usr/local/etc/singularity/nvliblist.conf   (sylabs/singularity#776)
# You may need to manually edit %                                            (singularity 3.3's format, a stray verb)
_LIBLIST_HINT = re.compile(r"You may need to (?:manually )?edit\b")
# WARNING [U=0,P=104]        setGPUBinds()                 nv files may not be bound with --writable   (apptainer/apptainer#1314)
# NVIDIA binaries may not be bound with --writable                          (singularity 3.0-3.2)
# 32-bit %s libraries may not be bound with --writable                      (apptainer addCompat32Binds)
_WRITABLE = re.compile(rf"(?:32-bit )?{_PLATFORM} (?P<what>files|binaries|libraries) may not be bound with --writable")
# WARNING: When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no GPUs will be available in container.
_CONTAIN = re.compile(r"When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no GPUs will be available")
# While finding nv bind points: %v   /   While finding nv ipcs: %v   /   Unable to capture NVIDIA bind points: %v
_LOOKUP = re.compile(rf"(?:While finding|Unable to capture) {_PLATFORM} (?:bind points|ipcs): (?P<err>[^\n]{{1,300}})")
# WARNING: Skipping user bind, non existent bind point (file) in container: '/bin/nvidia-smi'   (apptainer/singularity#1548, 2.5)
_BIND_POINT = re.compile(r"Skipping user bind, non existent bind point \((?:file|directory)\) in container: "
                         r"'(?P<dest>[^'\n]{0,200}nvidia[^'\n]{0,200})'")
# The starter's fatal error (internal/app/starter/master_linux.go: "container creation failed: %s"), read only
# beside the GPU lines above (detect() needs one of them) and only where nvidia-container-cli's own error is not
# in it (that one is nvidia_container_cli's): the container did not start, for a reason no GPU rule explains
# FATAL:   container creation failed: nvidia-container-cli failed with exit status 1: nvidia-container-cli: mount error: ...   (apptainer/apptainer#1208)
_CREATION = re.compile(r"FATAL: {1,8}container creation failed: (?P<err>[^\n]{1,300})")
# --nvccli's own notes (setNvCCLIConfig), context of a run that used nvidia-container-cli, no fault:
# INFO:    Setting 'NVIDIA_VISIBLE_DEVICES=all' to emulate legacy GPU binding.      (apptainer/apptainer#1208)
# INFO:    Setting --writable-tmpfs (required by nvidia-container-cli)               (apptainer/apptainer#1208)
_NVCCLI_NOTE = re.compile(r"Setting 'NVIDIA_VISIBLE_DEVICES=all' to emulate legacy GPU binding"
                          r"|Setting --writable-tmpfs \(required by nvidia-container-cli\)")
_DETECT = re.compile(r"Could not find any (?:32-bit )?(?:nv|NVIDIA|rocm|ROCm) (?:files|binaries|libraries) on this host!"
                     r"|(?:nv|NVIDIA|rocm|ROCm) (?:files|binaries|libraries) may not be bound with --writable"
                     r"|When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES"
                     r"|(?:While finding|Unable to capture) (?:nv|NVIDIA) (?:bind points|ipcs): "
                     r"|non existent bind point \((?:file|directory)\) in container: '[^'\n]{0,200}nvidia"
                     r"|Setting 'NVIDIA_VISIBLE_DEVICES=all' to emulate legacy GPU binding"
                     r"|Setting --writable-tmpfs \(required by nvidia-container-cli\)")


def detect(head: str) -> bool:
    return ("on this host!" in head or "--writable" in head or "--contain" in head or "bind points" in head
            or "bind point" in head or "nvidia-container-cli" in head or "legacy GPU binding" in head) and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)

    def add(n: int, reason: str, platform: str, message: str, what: str | None = None) -> None:
        result.lines_used += 1
        fb.add(ContainerRuntimeError, n, reason=reason, engine="apptainer", runtime=platform,
               capabilities=what, message=message.strip()[:300], gpu=True)

    for n, line in enumerate(artefact.lines, 1):
        if "on this host!" in line and (m := _NOT_FOUND.search(line)):
            what = (m["bits"] or "") + m["what"]
            add(n, "driver_not_found_on_host", m["platform"], line[m.start():], what)
        elif "--writable" in line and (m := _WRITABLE.search(line)):
            add(n, "driver_binds_writable", m["platform"], line[m.start():], m["what"])
        elif "--contain" in line and (m := _CONTAIN.search(line)):
            add(n, "nvccli_contain_no_gpus", "nv", line[m.start():])
        elif ("While finding" in line or "Unable to capture" in line) and (m := _LOOKUP.search(line)):
            add(n, "driver_lookup_failed", m["platform"], line[m.start():])
        elif "bind point" in line and (m := _BIND_POINT.search(line)):
            add(n, "driver_bind_point_missing", "nv", line[m.start():], m["dest"])
        elif "container creation failed" in line and "nvidia-container-cli" not in line and (m := _CREATION.search(line)):
            result.lines_used += 1
            fb.add(ContainerRuntimeError, n, reason="container_creation_failed", engine="apptainer", runtime="",
                   message=m["err"].strip()[:300], gpu=False)
        elif "edit" in line and "liblist.conf" in line and _LIBLIST_HINT.search(line):
            result.lines_used += 1  # the not-found warning's hint: where the library list lives
        elif "Setting" in line and _NVCCLI_NOTE.search(line):
            result.lines_used += 1  # --nvccli in use: context, the hook's own errors are nvidia_container_cli's
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
