"""Host identity: ``uname -a``, ``/proc/version``, ``/proc/driver/nvidia/version`` and ``modinfo nvidia``.

Commands: ``uname -a``; ``cat /proc/driver/nvidia/version`` (both run by ``steth collect``); ``cat /proc/version``
as people paste it (the kernel's banner without a host name: ``Linux version 5.4.91-microsoft-standard-WSL2
(oe-user@oe-host) (gcc version 9.3.0 (GCC)) #1 SMP Mon Jan 25 18:39:31 UTC 2021``, microsoft/WSL#6772).

Sample content (the real H200 host of fixtures/bundles/device-h200-collect)::

    Linux vm 6.18.44-fc-v657-gpu #1 SMP PREEMPT_DYNAMIC @0 x86_64 x86_64 x86_64 GNU/Linux
    NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)
    GCC version:  gcc version 15.3.0 (GCC)

``modinfo nvidia`` (kmod's tools/modinfo.c: each field as ``"%-16s%s"``, a block per module from its
``filename:``), whole or through ``grep version`` or as ``modinfo -F version nvidia``'s bare value
(Frogging-Family/nvidia-all#394, a DKMS module of the open flavour; Nobara-Project/rpm-sources#526)::

    filename:       /lib/modules/7.0.12-zen1-1-zen/updates/dkms/nvidia.ko.zst
    description:    NVIDIA core GPU kernel module
    version:        595.80
    license:        Dual MIT/GPL
    firmware:       nvidia/595.80/gsp_ga10x.bin

    $ modinfo nvidia | grep version
    version: 595.58.03

Facts: ``host_kernel`` (release, architecture), ``nvidia_driver_version`` (the loaded kernel
module's version, open or proprietary: ``loaded_module``; or, from modinfo, the version of the module
file installed for the running kernel: ``on_disk``, ``module_file``, never ``loaded_module``: after a
driver upgrade without a reboot the file is the new release and the loaded module the old one). A
modinfo block of another module (``modinfo gdrdrv``) gives nothing. All are identity, not health:
they check nothing on their own (knowledge/coverage.yaml) and feed version rules. Empty input yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    HostKernel, NvidiaDriverVersion,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "host_info"


# Linux vm 6.18.44-fc-v657-gpu #1 SMP PREEMPT_DYNAMIC @0 x86_64 x86_64 x86_64 GNU/Linux
# linear in the line's length: the words between '#' and GNU/Linux are one run of non-newlines
# (a lazy '.*?' before '(?: \S+)*' backtracked cubically: 4,000 words took 13 s)
UNAME = re.compile(r"^Linux (?P<host>\S+) (?P<release>\d+\.\d+\S*) #(?P<rest>[^\n]*) GNU/Linux[ \t]*$", re.M)
#: the machine name in the words after '#' (uname -m, the first of -m -p -i)
ARCH = re.compile(r" (x86_64|aarch64|ppc64le)(?= |$)")
# Linux version 5.4.91-microsoft-standard-WSL2 (oe-user@oe-host) (gcc version 9.3.0 (GCC)) #1 SMP Mon Jan 25 18:39:31 UTC 2021
#   (cat /proc/version, microsoft/WSL#6772: init/version.c linux_proc_banner "%s version %s (%s@%s) (%s) %s", the
#   builder's user@host and compiler in parentheses; a kernel log's boot line is kernel_log's, by its prefix)
PROC_VERSION = re.compile(r"^Linux version (?P<release>\d+\.\d+[^\s()]*) \((?P<builder>[^()\s]{1,100})\) \((?P<rest>[^\n]{1,400})$",
                          re.M)
# NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)
# NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023
DRIVER = re.compile(r"^NVRM version: NVIDIA UNIX (?:(?P<open>Open )?Kernel Module for (?P<arch1>\S+)|(?P<arch2>\S+) Kernel Module)\s+(?P<version>\d+\.\d+(?:\.\d+)?)", re.M)
# GCC version:  gcc version 15.3.0 (GCC)
GCC = re.compile(r"^GCC version: ", re.M)

# modinfo (kmod tools/modinfo.c prints "%-16s%s\n": the field name, its colon, padding to 16 columns; a paste
# may keep one space, Nobara-Project/rpm-sources#526's "version: 595.58.03"):
# filename:       /lib/modules/7.0.12-zen1-1-zen/updates/dkms/nvidia.ko.zst     (Frogging-Family/nvidia-all#394)
# filename:       /lib/modules/3.13.0-24-generic/updates/dkms/nvidia_331.ko     (Ubuntu's nvidia-331 package)
# filename:       /lib/modules/3.4.0-3-generic/updates/dkms/nvidia_current.ko   (Ubuntu's nvidia-current)
MODINFO_FIELD = re.compile(r"^[ \t]*(?P<key>filename|version|license|firmware|name|description|vermagic|srcversion"
                           r"|alias|depends|supported|softdep|import_ns|retpoline|intree|parm|parmtype|sig_\w+|signer"
                           r"|signature):[ \t]*(?P<value>[^\n]*?)[ \t]*$", re.M)
# the NVIDIA core module's file: nvidia.ko, nvidia_331.ko, nvidia_current.ko, nvidia-current-updates.ko, compressed
# or not (nvidia_uvm, nvidia_drm, nvidia_modeset, nvidia_peermem are other modules: the core's version is the driver's)
_NVIDIA_KO = re.compile(r"(?:^|/)nvidia(?:[_-](?:current|\d{3}))?(?:[_-]updates)?\.ko(?:\.(?:gz|xz|zst))?$")
# version:        595.80        version:        550.90.07        (the driver's release; old modules printed none)
_DRIVER_RELEASE = re.compile(r"^\d{3}\.\d{1,3}(?:\.\d{1,3})?$")
# $ modinfo nvidia | grep version        # modinfo -F version nvidia        (the module named; a shell theme's
#      ~  modinfo nvidia                                ✔  08:48:35 PM     right-hand prompt may follow it: nvidia-all#394)
MODINFO_CMD = re.compile(r"(?:^|[\s$#>])modinfo(?P<opts>(?:[ \t]+-{1,2}[\w-]+(?:[ =][\w-]+)?)*)[ \t]+(?P<mod>nvidia(?:[_-](?:current|\d{3}))?)"
                         r"(?:[ \t|][^\n]*)?$", re.M)
# -F version | --field version | --field=version: modinfo prints the value alone on the next line
_FIELD_VERSION = re.compile(r"(?:-F|--field)[ =]version\b")


def detect(text: str) -> bool:
    if "modinfo" in text or "filename:" in text:
        if any(True for _ in _modinfo_versions(text)):
            return True
    if "GNU/Linux" not in text and "NVRM version: " not in text and "Linux version " not in text:
        return False
    return UNAME.search(text) is not None or DRIVER.search(text) is not None or PROC_VERSION.search(text) is not None


def _modinfo_versions(text: str):
    """(offset, version, license, module file) of each NVIDIA core module modinfo printed in ``text``.

    A block is a ``filename:`` line and the fields after it, up to the next ``filename:``; fields without a
    ``filename:`` (``modinfo nvidia | grep version``) belong to the module the command line before them named.
    ``modinfo -F version nvidia`` prints the bare version on the next line."""
    cmd_mod: str | None = None  # the nvidia module the last modinfo command named
    cmd_field = False           # that command printed one field's bare value (-F version)
    block: dict | None = None
    out = []

    def close():
        if block is not None and block.get("version") and (block["nvidia"] or block.get("name") == "nvidia"):
            out.append((block["at"], block["version"], block.get("license"), block.get("file")))

    pos = 0
    for line in text.splitlines(keepends=True):
        at, pos = pos, pos + len(line)
        if "modinfo" in line and (c := MODINFO_CMD.search(line)) is not None:
            close()
            block, cmd_mod, cmd_field = None, c["mod"], _FIELD_VERSION.search(c["opts"] or "") is not None
            continue
        stripped = line.strip()
        if cmd_field:
            cmd_field = False
            if _DRIVER_RELEASE.match(stripped):
                out.append((at, stripped, None, None))
                continue
        if (f := MODINFO_FIELD.match(line)) is None:
            if stripped and block is not None:
                close()
                block, cmd_mod = None, None
            continue
        key, value = f["key"], f["value"]
        if key == "filename":
            close()
            block = {"at": at, "file": value, "nvidia": _NVIDIA_KO.search(value) is not None}
            continue
        if block is None:
            if cmd_mod is None:
                continue
            block = {"at": at, "file": None, "nvidia": True}
        if key == "version" and _DRIVER_RELEASE.match(value) and not block.get("version"):
            block["version"], block["at"] = value, at
        elif key in ("license", "name") and key not in block:
            block[key] = value
    close()
    return out


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for line, m in iter_matches(UNAME, artefact):
        arch = ARCH.search(" " + m["rest"])
        b.add(HostKernel, line, hostname=m["host"], release=m["release"], arch=arch[1] if arch else None)
        result.lines_used += 1
    for line, m in iter_matches(PROC_VERSION, artefact):
        arch = ARCH.search(" " + m["rest"])
        b.add(HostKernel, line, release=m["release"], arch=arch[1] if arch else None)
        result.lines_used += 1
    for line, m in iter_matches(DRIVER, artefact):
        b.add(NvidiaDriverVersion, line, version=m["version"], open_module=bool(m["open"]),
              arch=m["arch1"] or m["arch2"], loaded_module=True)
        result.lines_used += 1
    if result.facts:
        result.lines_used += sum(1 for _ in GCC.finditer(artefact.text))
    if "modinfo" in artefact.text or "filename:" in artefact.text:
        _parse_modinfo(artefact, b, result)
    return result


def _parse_modinfo(artefact: Artefact, b: FactBuilder, result: ParseResult) -> None:
    found = _modinfo_versions(artefact.text)
    for at, version, lic, module_file in found:
        line = artefact.text.count("\n", 0, at) + 1
        # MODULE_LICENSE: "Dual MIT/GPL" in the open modules (open-gpu-kernel-modules), "NVIDIA" in the proprietary ones
        open_module = {"Dual MIT/GPL": True, "NVIDIA": False}.get(lic or "")
        b.add(NvidiaDriverVersion, line, version=version, open_module=open_module, on_disk=True,
              module_file=module_file, loaded_module=False)
    if found:
        # the modinfo output read: its command and field lines (the fields other than version say nothing of health)
        result.lines_used += sum(1 for _ in MODINFO_FIELD.finditer(artefact.text)) + sum(
            1 for _ in MODINFO_CMD.finditer(artefact.text))


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (UNAME, DRIVER, PROC_VERSION,
              # modinfo's command naming the core module; its filename: line (RE2, as classify matches them: no lookahead)
              r"(?m)(?:^|[\s$#>])modinfo(?:[ \t]+-\S+(?:[ \t=][\w.-]+)?)*[ \t]+nvidia(?:[_-](?:current|\d{3}))?\b",
              r"(?m)^filename:[ \t]+\S*/nvidia(?:[_-](?:current|\d{3}))?(?:[_-]updates)?\.ko\b")
