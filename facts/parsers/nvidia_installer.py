"""nvidia-installer's output (the ``.run`` driver installer, ``/var/log/nvidia-installer.log``, the
GPU operator's and gpu-driver-container's driver build): the kernel module that would not load.

Sample content (NVIDIA/gpu-driver-container#44, Ubuntu 24.04 with Secure Boot;
Bumblebee-Project/Bumblebee#932, the older wording and the log's detail lines)::

    Building kernel modules
      : [##############################] 100%

    ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was built against the wrong or improperly configured kernel sources, ...
    Please see the log entries 'Kernel module load error' and 'Kernel messages' at the end of the file '/var/log/nvidia-installer.log' for more information.
    -> Kernel module load error: No such device

The installer's own word that Secure Boot refused the module comes before that ERROR (the older
wording in NVIDIA/gpu-operator#266's driver container, the newer in GoogleCloudDataproc's
initialization-actions gpu/README.md)::

    ERROR: The kernel module failed to load, because it was not signed by a key that is trusted by the kernel. Please try installing the driver again, and sign the kernel module when prompted to do so.
    ERROR: The kernel module failed to load. Secure boot is enabled on this system, so this is likely because it was not signed by a key that is trusted by the kernel. Please try ...

Facts: ``kernel_module_load_failure`` (:mod:`modprobe`'s fact, ``source`` nvidia-installer) per
``ERROR: Unable to load the kernel module '<m>.ko'`` line: ``module`` the module, ``reason`` from the
``-> Kernel module load error: <errno text>`` line that follows within ten lines (No such device:
no GPU the driver supports, or nouveau owns it; Key was rejected / Required key not available:
Secure Boot refused the unsigned module; Exec format error: built for another kernel), else
``other``; ``signature`` when the unsigned-module ERROR stands within five lines before it. An
unsigned-module ERROR with no such line after it (a paste cut there) is the fact itself, for
``nvidia`` (the module the installer loads to test its build). The detail and "Please see the log
entries" lines count as read, and so do the installer's progress lines (``Welcome to the NVIDIA Software
Installer for Unix/Linux``, ``-> Kernel module compilation complete.``) and kbuild's
``LD [M] nvidia.ko`` lines: a build that went through is recognised and gives no fact. Empty input: nothing.

The installer's other refusals name their cause (nvidia-installer misc.c and kernel.c; ``ERROR:`` in
older releases, ``WARNING:`` where the installer goes on or asks), each a ``driver_installer_refusal``
(ApolloAuto/apollo#2466, NVIDIA/cuda-samples#286, koszullab/instaGRAAL#10)::

    ERROR: The Nouveau kernel driver is currently in use by your
           system.  This driver is incompatible with the NVIDIA
    WARNING: An NVIDIA kernel module 'nvidia-drm' appears to be already loaded in your kernel.  This may be because it is in use ...
    -> Would you like to continue installation and skip the sanity checks? ... (Answer: Abort installation)
    WARNING: You do not appear to have an NVIDIA GPU supported by the 410.48
             NVIDIA Linux graphics driver installed in this system.  For

``refusal`` ``nouveau_in_use``; ``module_in_use`` with ``module`` (the ERROR of releases before 545,
the WARNING of 545 on unless the answer that follows within three lines is ``Continue installation``:
then the install went on and there is no fact); ``no_supported_gpu`` with ``driver_version`` (the
installer then skips its load test: no GPU on the bus, one this release does not support, or a vGPU
that needs the vGPU guest driver).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.kinds.kernel import DriverInstallerRefusal  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.modprobe import KernelModuleLoadFailure, failure_reason, module_name

KIND = "nvidia_installer"

# ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when ...   (gpu-driver-container#44)
_LOAD = re.compile(r"^\s*ERROR: Unable to load the kernel module '(?P<ko>[\w-]+\.ko)'", re.M)
# -> Kernel module load error: No such device                                                      (Bumblebee#932)
_DETAIL = re.compile(r"^\s*-> Kernel module load error: (?P<why>[^\n](?:[^\n]*?\S)??)\s*$", re.M)
# Please see the log entries 'Kernel module load error' and 'Kernel messages' at the end of the file '/var/log/nvidia-installer.log' for more information.
_SEE_LOG = re.compile(r"^\s*Please see the log entries 'Kernel module load error' and 'Kernel messages'", re.M)
_FOLLOW = 10  # lines after the ERROR within which its detail line is read
# ERROR: The kernel module failed to load, because it was not signed by a key that is trusted by the kernel. ...     (gpu-operator#266)
# ERROR: The kernel module failed to load. Secure boot is enabled on this system, so this is likely because it was not signed by a key ...
_UNSIGNED = re.compile(r"^\s*ERROR: The kernel module failed to load[,.][^\n]*?\bnot signed by a key that is trusted by the kernel\b", re.M)
_UNSIGNED_BEFORE = 5  # lines before "Unable to load the kernel module" within which it gives the reason
# The installer's progress lines, read so that a build that went through is recognised (its log's ui_log
# lines carry "-> "; on a terminal or a driver container's stdout they come bare; nvidia-installer kernel.c
# "Kernel module compilation complete.", NVIDIA/gpu-driver-container#44's stdout for the banner), and kbuild's
# link lines of the modules (NVIDIA/gpu-operator#1726's driver container):
# Welcome to the NVIDIA Software Installer for Unix/Linux
# -> Kernel module compilation complete.
# LD [M] nvidia-uvm.ko
_PROGRESS = re.compile(r"^\s*(?:-> )?(?:Welcome to the NVIDIA Software Installer for Unix/Linux|Kernel module compilation complete\.)\s*$", re.M)
_KBUILD_LD = re.compile(r"^\s*LD \[M\]\s+\S+\.ko\s*$", re.M)
# The other refusals (nvidia-installer misc.c check_for_nvidia_graphics_devices() and check_for_nouveau(),
# kernel.c check_for_unloaded_kernel_module(); ui_error in older releases, ui_warn in newer ones):
# WARNING: You do not appear to have an NVIDIA GPU supported by the 410.48        (koszullab/instaGRAAL#10; the
#          NVIDIA Linux graphics driver installed in this system.  For            version may stand on the next line)
_NO_GPU = re.compile(r"^[ \t]*(?:WARNING|ERROR): You do not appear to have an NVIDIA GPU supported by the"
                     r"(?:\s{1,40}(?P<ver>\d+(?:\.\d+)+)\b)?", re.M)
# ERROR: The Nouveau kernel driver is currently in use by your                      (ApolloAuto/apollo#2466)
#  ERROR: The Nouveau kernel driver is currently in use by your system.  This      (BenedictThompson-zz/Azure-Ethereum-mine#2)
_NOUVEAU = re.compile(r"^[ \t]*(?:WARNING|ERROR): The Nouveau kernel driver is currently in use\b", re.M)
# ERROR: An NVIDIA kernel module 'nvidia-drm' appears to already be loaded in your kernel.  This may ...   (before 545: ApolloAuto/apollo#6308)
# WARNING: An NVIDIA kernel module 'nvidia-drm' appears to be already loaded in your kernel.  This may ... (545.23.06 on: NVIDIA/cuda-samples#286)
# -> Would you like to continue installation and skip the sanity checks? If not, ... (Answer: Abort installation)
_IN_USE = re.compile(r"^[ \t]*(?P<level>WARNING|ERROR): An NVIDIA kernel module '(?P<mod>[\w-]+)' appears to"
                     r" (?:already be|be already) loaded in your kernel\b", re.M)
_CONTINUED = re.compile(r"\(Answer: Continue installation\)")
_WRAP = 6  # wrapped lines of one refusal read for its first sentence
_ANSWER_WITHIN = 3  # lines after the WARNING within which the installer's recorded answer stands


def detect(head: str) -> bool:
    return (("Unable to load the kernel module" in head and _LOAD.search(head) is not None)
            or ("do not appear to have an NVIDIA GPU" in head and _NO_GPU.search(head) is not None)
            or ("Nouveau kernel driver is currently" in head and _NOUVEAU.search(head) is not None)
            or ("loaded in your kernel" in head and _IN_USE.search(head) is not None)
            or ("not signed by a key that is trusted" in head and _UNSIGNED.search(head) is not None)
            or (("NVIDIA" in head or "compilation complete" in head) and _PROGRESS.search(head) is not None))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    details = [(n, m["why"]) for n, m in iter_matches(_DETAIL, artefact)]
    unsigned = [n for n, _ in iter_matches(_UNSIGNED, artefact)]
    result.lines_used += len(details) + len(unsigned) + sum(1 for _ in iter_matches(_SEE_LOG, artefact))
    result.lines_used += sum(1 for _ in iter_matches(_PROGRESS, artefact)) + sum(1 for _ in iter_matches(_KBUILD_LD, artefact))
    claimed: set[int] = set()
    for n, m in iter_matches(_LOAD, artefact):
        result.lines_used += 1
        why = next((w for k, w in details if n < k <= n + _FOLLOW), None)
        signed_by = next((k for k in unsigned if n - _UNSIGNED_BEFORE <= k < n), None)
        line = artefact.lines[n - 1].strip()
        msg = line if why is None else f"{line.split('.  ', 1)[0]}; Kernel module load error: {why}"
        reason = failure_reason(why) if why else "other"
        if signed_by is not None:
            claimed.add(signed_by)
            reason = "signature" if reason == "other" else reason
            msg = f"{line.split('.  ', 1)[0]}; {artefact.lines[signed_by - 1].strip()}"
        fb.add(KernelModuleLoadFailure, n, module=module_name(m["ko"]), reason=reason,
               message=msg[:300], source="nvidia-installer")
    for n in unsigned:
        if n not in claimed:
            fb.add(KernelModuleLoadFailure, n, module="nvidia", reason="signature",
                   message=artefact.lines[n - 1].strip()[:300], source="nvidia-installer")
    _refusals(artefact, fb, result)
    return result


def _refusals(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """The installer's refusals other than a module that would not load (see the module docstring)."""
    for n, m in iter_matches(_NO_GPU, artefact):
        result.lines_used += 1
        fb.add(DriverInstallerRefusal, n, refusal="no_supported_gpu", driver_version=m["ver"],
               message=_message(artefact, n))
    for n, _m in iter_matches(_NOUVEAU, artefact):
        result.lines_used += 1
        fb.add(DriverInstallerRefusal, n, refusal="nouveau_in_use", message=_message(artefact, n))
    for n, m in iter_matches(_IN_USE, artefact):
        result.lines_used += 1
        after = "\n".join(artefact.lines[n:n + _ANSWER_WITHIN])
        if m["level"] == "WARNING" and _CONTINUED.search(after):
            continue  # the operator let the install go on without the sanity checks: no refusal
        fb.add(DriverInstallerRefusal, n, refusal="module_in_use", module=module_name(m["mod"]),
               message=_message(artefact, n))


def _message(artefact: Artefact, n: int) -> str:
    """The refusal's first sentence as one line: the installer wraps it over indented lines, which a
    terminal paste may part with blank lines."""
    parts = [artefact.lines[n - 1].strip()]
    for line in artefact.lines[n:n + 2 * _WRAP]:
        if not line.strip():
            continue
        if not line[:1].isspace():
            break
        parts.append(line.strip())
    text = " ".join(parts)
    end = re.search(r"\.(?:\s|$)", text)
    return (text if end is None else text[:end.end()].rstrip())[:300]


#: the line signature this reader owns (facts/classify.py)
SIGNATURES = (r"(?m)^\s*ERROR: Unable to load the kernel module '", _PROGRESS, _NO_GPU, _NOUVEAU, _IN_USE,
              r"(?m)^\s*ERROR: The kernel module failed to load[,.][^\n]*?not signed by a key that is trusted by the kernel")
