"""Host identity: ``uname -a``, ``/proc/version`` and ``/proc/driver/nvidia/version``.

Commands: ``uname -a``; ``cat /proc/driver/nvidia/version`` (both run by ``steth collect``); ``cat /proc/version``
as people paste it (the kernel's banner without a host name: ``Linux version 5.4.91-microsoft-standard-WSL2
(oe-user@oe-host) (gcc version 9.3.0 (GCC)) #1 SMP Mon Jan 25 18:39:31 UTC 2021``, microsoft/WSL#6772).

Sample content (the real H200 host of fixtures/bundles/device-h200-collect)::

    Linux vm 6.18.44-fc-v657-gpu #1 SMP PREEMPT_DYNAMIC @0 x86_64 x86_64 x86_64 GNU/Linux
    NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)
    GCC version:  gcc version 15.3.0 (GCC)

Facts: ``host_kernel`` (release, architecture), ``nvidia_driver_version`` (the loaded kernel
module's version, open or proprietary). Both are identity, not health: they check nothing on
their own (knowledge/coverage.yaml) and feed version rules. Empty input yields nothing.
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


def detect(text: str) -> bool:
    if "GNU/Linux" not in text and "NVRM version: " not in text and "Linux version " not in text:
        return False
    return UNAME.search(text) is not None or DRIVER.search(text) is not None or PROC_VERSION.search(text) is not None


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
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (UNAME, DRIVER, PROC_VERSION)
