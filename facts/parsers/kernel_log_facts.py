"""Fact classes of the kernel log parser (:mod:`stethoscope.facts.parsers.kernel_log`).

Every event fact carries ``timestamp`` (the stamp as printed, None when the line has none)
and ``boot`` (0-based index of the boot the line belongs to within the file).
"""
from __future__ import annotations

from stethoscope.facts.kinds.kernel import (  # noqa: F401 - the fact classes live in facts/kinds
    GpuFellOffBus, GpuRecoveryAction, HostOomKill, KernelBoot, KernelGpuSeen, KernelLineFact,
    NvidiaDriverLoaded, NvrmError, NvswitchSxid, PcieAerError, PcieLinkDown, XidEvent,
)
