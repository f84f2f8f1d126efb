"""Kernel log: ``dmesg``, ``dmesg -T``, ``journalctl -k``, ``/var/log/kern.log`` / syslog.

Sample content (``dmesg -T`` on a 2 x H200 host, and syslog from public reports)::

    [Sun Nov 29 18:28:40 2026] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)
    [Sun Nov 29 18:32:13 2026] NVRM: GPU at PCI:0000:00:06: GPU-5cc6fa16-d7a0-98bf-3d43-f0337652e85f
    [Sun Nov 29 18:32:13 2026] NVRM: GPU Board Serial Number: 1653724056161
    [Sun Nov 29 18:32:13 2026] NVRM: Xid (PCI:0000:00:06): 31, pid=1883, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: ...
    Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303887] NVRM: GPU at 0000:01:00.0 has fallen off the bus.

Line stamps understood: ``[  123.456789]``, ``[+0.000844]`` (``dmesg -d``/``--reltime``),
``[Sun Nov 29 18:32:13 2026]`` (``dmesg -T``), ``Nov 29 18:32:13 host kernel:`` (syslog,
``journalctl -k``), ``2026-11-29T18:32:13+0000 host kernel:`` (``journalctl -o short-iso``),
``kern  :err   : 2025-01-25T10:34:54,859532+00:00`` (``dmesg -x --time-format iso``), or none.

Facts emitted (classes in :mod:`stethoscope.facts.kinds.kernel`): ``xid_event``, ``gpu_recovery_action``
(Xid 154), ``gpu_fell_off_bus``, ``pcie_aer_error``, ``pcie_aer_recovery`` (:mod:`kernel_log_pcie_recovery`),
``pcie_link_down``, ``nvswitch_sxid``,
``kernel_boot``, ``nvidia_driver_loaded``, ``kernel_gpu_seen``, ``kernel_module_load_failure`` (a module
the kernel refused: unknown symbol, symbol version, version magic), and the host faults of
:mod:`kernel_log_host` (``netdev_tx_timeout``, ``storage_io_error``, ``host_hardware_error``, ``vfio_pin_memlock_exceeded``) and the host
kernel's own faults of :mod:`kernel_log_host_os` (hangs, lockups, panics, process crashes, block, NFS
and Lustre errors, CPU throttling, ConnectX link events, pids limits, DPC), and the kernel's WARN report
(``kernel_warning``, :mod:`kernel_log_splat`). Lines that only complete an
event (the serial after ``GPU at``, AER status and bit lines, SXid ``Severity``/``Data``
lines, wrapped "fallen off the bus" text, ``Card not present``) count as used.

Empty input, or a log without NVIDIA/PCIe lines, yields no facts: it says nothing about GPUs
(the absence of Xid lines is only meaningful if the log covers the time of interest).
"""
from __future__ import annotations

import re

import re2

from stethoscope.facts import classify
from stethoscope.facts.ids import pci_bus_id, try_pci_bus_id
from stethoscope.facts.lines import MONTH
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.kernel import (
    GpuFellOffBus,
    GpuRecoveryAction,
    HostOomKill,
    KernelBoot,
    KernelGpuSeen,
    NvidiaDriverLoaded,
    NvrmError,
    NvswitchSxid,
    PcieAerError,
    PcieAerRecovery,
    PcieLinkDown,
    XidEvent,
)
from stethoscope.facts.parsers import kernel_log_amdgpu, kernel_log_drm, kernel_log_efa, kernel_log_modeset, kernel_log_gds, kernel_log_host, kernel_log_host_os, kernel_log_modules
from stethoscope.facts.parsers import kernel_log_splat
from stethoscope.facts.parsers.kernel_log_ghes import KEYWORDS as GHES_KEYWORDS, GhesRecords
from stethoscope.facts.parsers import nvsentinel_event, xid_quoted
from stethoscope.facts.kinds.dcgm import XidQuoted
from stethoscope.facts.parsers.kernel_log_nvrm import parse_bar_map_line, parse_nvrm
from stethoscope.facts.parsers.kernel_log_time import runs_on, spans
from stethoscope.facts.parsers.kernel_log_pcie_recovery import KEYWORDS as RECOVERY_KEYWORDS, AerRecovery
from stethoscope.facts.parsers.kernel_log_pcie import (
    DISPLAY_KEYWORD, KEYWORDS as IOMMU_KEYWORDS, UNREACHABLE_KEYWORDS, AerEvents, emit_bar_unassigned, emit_inaccessible, emit_iommu_faults,
    note_display_device, parse_bandwidth_limited, parse_bar_unassigned, parse_inaccessible, parse_iommu_fault, parse_link_down,
)

KIND = "kernel_log"

__all__ = ["KIND", "detect", "parse", "XidEvent", "GpuRecoveryAction", "GpuFellOffBus",
           "PcieAerError", "PcieAerRecovery", "PcieLinkDown", "NvswitchSxid", "KernelBoot", "NvidiaDriverLoaded",
           "KernelGpuSeen", "NvrmError"]

# [Sun Nov 29 18:32:13 2026] NVRM: Xid (PCI:0000:00:06): 31, pid=1883, name=python3, ...
# [  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)
# Feb 15 17:37:45 Gipfeli kernel: [82659.755847] NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception: ESR 0x5067b0=0x9 ...
# Dec 02 09:56:04.123456 node1 kernel: NVRM: ...                     (journalctl -o short-precise)
# 2026-11-29T18:32:13+0000 node17 kernel: NVRM: ...                   (journalctl -o short-iso)
# kern  :err   : 2025-01-25T10:34:54,859532+00:00 nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {...}
# 192.168.11.119: kern: warning: [2026-04-22T21:25:20.458998481Z]: NVRM: GPU at PCI:0000:48:00: GPU-5fc0bcec-...  (talosctl dmesg)
# 10.5.0.3: kern:    info: [2022-07-28T11:49:42.504764063Z]: cni0: port 1(veth32488a86) entered blocking state
# <4>[  12.345678] NVRM: ...  /  3,1042,8462102,-;NVRM: GPU 0000:00:03.0: RmInitAdapter failed! (0x22:0x65:884)  (kmsg)
# [  103.455825][ T1194] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:
#                NVRM: this kernel module has the version 545.23.08.  Please     (dmesg continuation, indented)
# [Di Dez  2 09:56:04 2025] NVRM: ...  /  [2024-05-01T12:00:00.123456+00:00] NVRM: ...  (locale dmesg -T, bracketed ISO)
_PREFIX = re.compile(
    r"\s*(?:<\d{1,3}>|\d+,\d+,\d+,[^;\s]*;)?"
    r"(?:(?:(?P<thost>[\w.:-]+): )?kern: *[a-z]+ *: \[(?P<tstamp>[^\]]+)\]: ?)?"
    r"(?:[a-z]+ *:[a-z]+ *: )?"
    r"(?:\[\s*(?P<stamp>\+?\s*\d+\.\d+|[^\[\]]{0,40}?\d\d:\d\d:\d\d[^\[\]]{0,20})\]"
    r"|(?P<sysdate>\S{3,6} +\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?) (?P<host>\S+) kernel:"
    r"|(?P<iso>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)(?: (?P<isohost>\S+) kernel:)?"
    r")?"
    r"(?: *\[ *(?:\d+\.\d+|[TC]\d+)\])*"
    r" *"
)
# what a kernel message starts with, once its prefix is gone: a prefix we do not know is cut
# at the first of these ("kernel: NVRM: ..." inside another tool's framing)
_MESSAGE_START = re.compile(r"NVRM: |nvidia-nvswitch\d+: SXid|\bkernel: ")
# a shell command that writes a made-up kernel line into the log (a fault-injection test, util-linux logger): the
# line is the command's argument, not the kernel's report, so it is no event:
# # logger -p daemon.err "kernel: [16450076.463693] NVRM: Xid (PCI:0002:00:00): 45, pid=2864945, name=kit, Ch 0000000e"
#   (NVIDIA/NVSentinel#288, a test of its syslog health monitor)
# (the text before the message: the command and its options, then the opening quote of the made-up line)
_INJECTED = re.compile(r"(?:^|[\s$#>/])logger\s[^\"'\n]{0,200}[\"']\s?$")

# Whole-text prefilter: only lines holding one of these are looked at (plus the few lines
# after an AER or "The NVIDIA GPU" line, read directly as continuations).
_KEYWORDS = re.compile(
    r"NVRM: |SXid \(|AER: |device has no (?:AER|error)-aware driver|PCIe Bus Error|pciehp|Linux version |Command line: |Xid \(PCI:"
    r"|nvidia: probe of |probe with driver nvidia |of memory(?: \(oom_kill_allocating_task\))?: Kill|Killed process \d|oom-kill:constraint="
    r"|: BAR \d+: (?:no space for|failed to assign) |\]: (?:can't assign; no space|failed to assign)"
    r"| Gb/s available PCIe bandwidth, limited by "  # drivers/pci/pci.c __pcie_print_link_status (kernel_log_pcie)
    r"|\] mapping multiple BARs"  # arch/x86/mm/ioremap.c on a module's mapping (kernel_log_nvrm.parse_bar_map_line)
    r"|(?:Direct firmware load for |loading /lib/firmware/)nvidia/|" + IOMMU_KEYWORDS + "|" + UNREACHABLE_KEYWORDS + "|" + DISPLAY_KEYWORD + "|" + kernel_log_modules.KEYWORDS
    + "|" + kernel_log_host.KEYWORDS + "|" + kernel_log_host_os.KEYWORDS + "|" + kernel_log_gds.KEYWORDS + "|" + kernel_log_drm.KEYWORDS + "|" + kernel_log_efa.KEYWORDS
    + "|" + kernel_log_splat.KEYWORDS + "|" + kernel_log_modeset.KEYWORDS + "|" + RECOVERY_KEYWORDS + "|" + kernel_log_amdgpu.KEYWORDS
    + "|" + GHES_KEYWORDS,
)
# the same keywords for RE2 (a DFA over the bytes: the alternation costs nothing per character,
# where ``re`` tries it at every position: 16 MB/s on a log of lines holding none of them)
_KEYWORDS_RE2 = re2.compile(_KEYWORDS.pattern)
_FAST_FROM = 16384  # characters


def _keyword_starts(text: str):
    """Where a keyword line may start, in text order: RE2 over the bytes of ASCII text."""
    if len(text) >= _FAST_FROM and text.isascii():
        return (m.start() for m in _KEYWORDS_RE2.finditer(text.encode("ascii")))
    return (m.start() for m in _KEYWORDS.finditer(text))

# Drivers that print the function after "NVRM" without the colon (seen in an H100
# confidential-computing guest, nvtrust#52); read as "NVRM: <function>: ...":
# [   36.077473] NVRM kgspBootstrapRiscvOSEarly_GH100: Timeout waiting for GSP target mask release. This error may be caused by several reasons: ...
# [   36.077455] NVRM _threadNodeCheckTimeout: _threadNodeCheckTimeout: currentTime: 3d08c22901a000 >= 3d08c20857cf00
# and the 515 open modules (NVIDIA/open-gpu-kernel-modules#116, an RTX 2060):
# [    3.596579] NVRM kgspInitRm_IMPL: missing NVDEC0 engine, cannot initialize GSP-RM
# [    3.596583] NVRM RmInitAdapter: Cannot initialize GSP firmware RM
# (a function name: a leading underscore, an underscore inside, or camelCase - RM's own functions
# begin upper case, RmInitAdapter -; not "NVRM version:", "NVRM API mismatch:")
_COLONLESS = re.compile(r"NVRM (?P<func>_\w+|[a-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*): ")

# The driver's own words quoted without its "NVRM: " tag, each on a line of its own (a list item, a quote, an indented
# line), as people copy dmesg into a ticket; read as "NVRM: <message>". Only messages nothing but the driver prints
# (open-gpu-kernel-modules arch/nvalloc/unix/src/osinit.c NV_DEV_PRINTF(NV_DBG_ERRORS, nv, "RmInitAdapter failed!
# (0x%x:0x%x:%d)\n") and NV_PRINTF(LEVEL_ERROR, "Cannot initialize GSP firmware RM\n") in RmInitAdapter;
# kernel-open/nvidia/nv.c "rm_init_adapter failed, device minor number %d\n"; src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c
# _kgspBootGspRm NV_PRINTF(LEVEL_ERROR, "unexpected WPR2 already up, cannot proceed with booting gsp\n")), at a
# line's start: a sentence that names one is no record. Real, open-gpu-kernel-modules#1104 (595.58.03, Blackwell):
# - dmesg shows:
#   - unexpected WPR2 already up
#   - RmInitAdapter: Cannot initialize GSP firmware RM
#   - RmInitAdapter failed! (0x62:0x40:2168)
# Also the open module's refusal (kernel-open/nvidia/nv.c, 515-525: "Open nvidia.ko is only ready for use on Data Center
# GPUs.") and RmInitAdapter's line cut before its code, as a node's log was copied without the tag
# (siderolabs/extensions#114, Talos 1.3.3, RTX 2080S):
# Open nvidia.ko is only ready for use on Data Center GPUs.
# GPU 0000:07:00.0: RmInitAdapter failed!
_UNTAGGED_BODY = (
    r"(?:GPU [0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: )?"
    r"(?:RmInitAdapter failed! ?(?:\(0x|[ \t]*$)|RmInitAdapter: Cannot initialize GSP firmware RM"
    r"|rm_init_adapter failed(?:, device| for device bearing) minor number \d|(?:_kgspBootGspRm: )?unexpected WPR2 already up"
    r"|Open nvidia\.ko is only ready for use on Data Center GPUs)"
)
_UNTAGGED_LEAD = r"[ \t]{0,8}(?:[-*+] {1,3}|> ?)?"
_UNTAGGED = re.compile(rf"^(?P<lead>{_UNTAGGED_LEAD})(?={_UNTAGGED_BODY})", re.M)
_UNTAGGED_KEYS = ("RmInitAdapter", "rm_init_adapter failed", "WPR2 already up", "Open nvidia.ko is only ready")
# the literals that gate _COLONLESS and _UNTAGGED, searched by RE2 in the text's UTF-8 bytes (an ASCII literal occurs in
# them where it occurs in the text): RE2 finds a literal's first byte with memchr, where ``key in text`` tests every
# window that ends in the key's last byte (a blank, "r", "p": a bench node's 205 kB dmesg, holding none of them, 0.36 ->
# 0.07 ms, rZ3). Bytes, not the str: google-re2 turns a match's byte offsets in a str back into characters by a pass
# over the text before it (a 205 kB dmesg's "NVRM: " at its end: 0.83 ms, in its bytes 0.02)
_COLONLESS_FIND = re2.compile("NVRM ")
_UNTAGGED_FINDS = tuple(re2.compile(re.escape(k)) for k in _UNTAGGED_KEYS)
# ... and for the text the classifier scanned last, answered by its pass (TEXT_GATES, facts/classify.py gate()):
# the five searches and the text's UTF-8 copy cost a bench node's 206 kB dmesg 0.10 ms a pass
_UNTAGGED_GATE = re2.compile("|".join(map(re.escape, _UNTAGGED_KEYS)))
#: whether "Xid" occurs (a log's span is measured only then), as the gates above ("Xid" in that dmesg: 0.16 ms):
#: [  +6.010643] NVRM: Xid (PCI:0000:83:00): 119, pid=2710030, name=nvidia-smi, Timeout waiting for RPC from GSP! Expected function 10 (FREE) (0xa55a0050 0x0).
#: (NVIDIA/open-gpu-kernel-modules#446)
_XID_GATE = re2.compile("Xid")

# detect(): any of our markers, or a kernel-stamped line, anywhere in the head.
_DETECT = re.compile(
    r"NVRM: |NVRM (?:_\w+|[a-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*): |\bXid \(PCI:[0-9a-fA-F:.]+\): ?\d|SXid \(PCI:|\bAER: |PCIe Bus Error: "
    r"|: kern: *[a-z]+ *: \[\d{4}-"
    # the driver's messages quoted without "NVRM: " (_UNTAGGED)
    rf"|^{_UNTAGGED_LEAD}{_UNTAGGED_BODY}"
    # (not UCX's "[%lu.%06lu] [%s:%-4d:%d]" prefix, seconds since the epoch then [host:pid:thread]:
    #  "[1717282080.182089] [gpu1:3836092:0]   |   3893..inf | (?) rendezvous cuda_copy, ...", openucx/ucx#9908;
    #  a bracket after the kernel's stamp ends in a letter, "[drm:nv_drm_load [nvidia_drm]]", or is printk's
    #  caller id "[    T1]". No look-ahead: the signatures run in RE2, facts/classify.py)
    # (also under a tab: kernel lines pasted beneath the command that printed them, each indented by a tab,
    #  "dmesg | more | grep 04:00" then "\t[    0.681114] pci 0000:04:00.0: [15b3:1015] type 00 class 0x020000",
    #  Mellanox/mstflint#448; lines.py takes a margin off only when every line has it)
    r"|^\t?\[\s*\+?\d+\.\d{6}\] (?:[^\[\n]|\[\s*[TC]\d+\]|\[[^\]\n]*[^\d\s\]\n]\])"
    r"|^\[[A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d \d{4}\] "
    # (journalctl -o short-precise: "Aug 30 06:58:55.050705 host kernel: ...", leptonai/gpud#70)
    # (the month in the reader's locale: lines.MONTH, "déc. 02", "Mär 26", " 6月 28")
    r"|^(?:" + MONTH + r" +\d{1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})?|\d{4}-\d\d-\d\dT\S+) \S+ kernel: "
    r"|(?:Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory): Kill(?:ed)? process \d+ \("  # pasted without a prefix
    r"|^Killed process \d+ \([^)\n]{0,64}\) total-vm:\d+kB, anon-rss:|^oom-kill:constraint=CONSTRAINT_"
    # the kernel's firmware loader on the NVIDIA module's GSP file, pasted without a prefix
    # (drivers/base/firmware_loader/main.c "Direct firmware load for %s failed with error %d"; NixOS/nixpkgs#454772):
    # nvidia 0000:00:1e.0: Direct firmware load for nvidia/565.57.01/gsp_tu10x.bin failed with error -2
    r"|\bnvidia [0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: (?:Direct firmware load for |loading /lib/firmware/)nvidia/\d"
    # host faults pasted without a prefix (kernel_log_host): their fault forms; a module refused for its signature
    r"|" + kernel_log_modules.DETECT + "|" + kernel_log_host.KEYWORDS + "|" + kernel_log_host_os.KEYWORDS + "|" + kernel_log_gds.KEYWORDS + "|" + kernel_log_drm.KEYWORDS + "|" + kernel_log_efa.KEYWORDS
    + "|" + kernel_log_splat.KEYWORDS + "|" + kernel_log_modeset.KEYWORDS + "|" + kernel_log_amdgpu.KEYWORDS
    # the platform firmware's APEI records (kernel_log_ghes), pasted with a stamp dmesg -T wrote in another language
    # ("[Do Mär 26 07:38:49 2020] {2}[Hardware Error]: ...") or none
    + "|" + GHES_KEYWORDS,
    re.M,
)
# A kernel record by its prefix alone (what dmesg, journalctl -k, talosctl dmesg, kmsg put before the kernel's message),
# whatever the message: the fallback readers (ticket_prose, unrecognised_text) never read such a line as a reporter's
# sentence (a remark, a claim); an error-looking one nobody explains stays an error line (unrecognised_text). Round rQ5:
# k3s-node3.lab: kern:    info: [2023-08-22T01:37:21.493519442Z]: [drm] amdgpu kernel modesetting enabled.
#   (siderolabs/pkgs#792, a healthy node's talosctl dmesg: "the reporter says '...'" before, the verdict inconclusive)
# NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced instead.
#   (fgci-org/ansible-role-cuda#22, harvest 1711: the driver's notice pasted without dmesg's stamp)
# [   36.077473] NVRM kgspBootstrapRiscvOSEarly_GH100: Timeout waiting ...  /  <4>[  12.345678] ...  (dmesg, kmsg)
# [Sun Nov 29 18:32:13 2026] NVRM: Xid ...  (dmesg -T)  /  Feb 15 17:37:45 Gipfeli kernel: [82659.755847] ...  (syslog)
# 2026-11-29T18:32:13+0000 node17 kernel: ...  (journalctl -o short-iso)  /  kern  :err   : 2025-01-25T10:34:54,859532+00:00 ...  (dmesg -x)
_RECORD = re.compile(
    r"[ \t]{0,8}(?:<\d{1,3}>)?(?:"
    r"(?:[\w.:-]{1,253}: )?kern: *[a-z]{3,7} *: \[\d{4}-"
    r"|kern *: *[a-z]{3,7} *: "
    r"|\[\s{0,12}\+?\d{1,12}\.\d{6}\] "
    r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d \d{4}\] "
    r"|(?:" + MONTH + r" +\d{1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})?|\d{4}-\d\d-\d\dT\S{1,40}) \S{1,253} kernel: "
    r"|NVRM:? )"
)


def record_lines(lines: list[str]) -> set[int]:
    """The lines (1-based) of ``lines`` that are a kernel record by their prefix (_RECORD): what the kernel wrote, never
    a reporter's sentence. Cost: one anchored match a line (none where no line may hold a prefix)."""
    if not any(("kern" in line or "NVRM" in line or "[" in line) for line in lines):
        return set()
    return {n for n, line in enumerate(lines, 1) if _RECORD.match(line) is not None}


def record_message(line: str) -> str | None:
    """The message of ``line`` where it is a kernel record by its prefix (_RECORD), its stamp, host and caller id off
    (_PREFIX): "amdgpu 0000:03:00.0: amdgpu: Ring gfx_0.0.0 reset failed" of "[  120.000001] amdgpu 0000:03:00.0: ...";
    None for any other line."""
    if _RECORD.match(line) is None:
        return None
    return line[_PREFIX.match(line).end():]


_DETECT_KEYS = _UNTAGGED_KEYS + ("NVRM: ", "NVRM ", "Xid (PCI:", "AER: ", "PCIe Bus Error: ", " kernel: ", "kern: ",
                "of memory: Kill", "oom_kill_allocating_task): Kill", "Killed process ", "oom-kill:constraint=", "[Hardware Error]", "EDAC ", "NETDEV WATCHDOG", "EXT4-fs ",
                "wasn't completed on time", "TX hasn't completed", "Keep alive watchdog timeout", "RLIMIT_MEMLOCK (",
                "XFS (", "nvme nvme", "nvidia-fs:", "*ERROR* [nvidia-drm] ", "nvidia-modeset: ERROR: ", "infiniband ", "efa ",
                # kernel_log_host_os's forms
                "INFO: task ", "soft lockup", "hard LOCKUP", "INFO: ", "Kernel panic", "kernel BUG at ", "BUG: ",
                "general protection fault", "segfault at ", "] trap ", "invoked oom-killer", "error, dev ",
                "ernel BUG at ", "Unable to handle kernel ", " [#", "]: unhandled exception: ", "emperature above", "DPC",
                "Buffer I/O error", "not responding", "Lustre", "LNet", "libceph: ", "above threshold", "Port module event", "Link down",
                "pids controller", "nobody cared", "containment event", "oading of ", "Lockdown: ",
                "firmware load for nvidia/", "/lib/firmware/nvidia/", " timeout, signaled seq=", " timeout, last signaled seq=",
                "ncorrectable hardware error", "RAS event of type ERREVENT_",  # (kernel_log_amdgpu's RAS forms)
                "page fault (src_id:",  # (kernel_log_amdgpu's GPU page fault)
                "WARNING: ")  # (kernel_log_splat's WARN line) or a line starting "["

# The OOM killer (Linux mm/oom_kill.c; real, ymoslem/OpenNMT-Tutorial#6, from `dmesg -T` on Colab):
# Memory cgroup out of memory: Killed process 629 (onmt_train) total-vm:14119556kB, anon-rss:6538204kB, file-rss:80652kB, shmem-rss:16kB, UID:0 pgtables:13432kB oom_score_adj:0
# Out of memory: Killed process 2481 (python3) total-vm:8123400kB, anon-rss:7981200kB, file-rss:0kB, ...
# Out of memory: Kill process 2481 (python3) score 912 or sacrifice child          (Linux < 4.19)
# Out of memory (oom_kill_allocating_task): Kill process 6344 (sh) score 0 or sacrifice child   (vm.oom_kill_allocating_task=1:
#   out_of_memory() kills the task that asked, oom_kill_process(oc, "Out of memory (oom_kill_allocating_task)"))
_OOM_KILL = re.compile(
    r"(?P<scope>Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory): Kill(?:ed)? process (?P<pid>\d+) \((?P<comm>[^)\n]{0,64})\)"
    r"(?: total-vm:(?P<vm>\d+)kB, anon-rss:(?P<anon>\d+)kB)?"
)
# Linux < 4.19 printed the victim's sizes on a line of its own after "Kill process N (comm) score S or sacrifice child"
# (oom_kill_process: pr_err("Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB\n");
# real, NervanaSystems/deepspeech#48):
# [3017506.733819] Out of memory: Kill process 25635 (python) score 974 or sacrifice child
# [3017506.736861] Killed process 25635 (python) total-vm:55518724kB, anon-rss:23902876kB, file-rss:154436kB
_OOM_KILLED_ALONE = re.compile(
    r"^Killed process (?P<pid>\d+) \((?P<comm>[^)\n]{0,64})\) total-vm:(?P<vm>\d+)kB, anon-rss:(?P<anon>\d+)kB")
# Linux 4.19+ dump_oom_summary() names the victim and the constraint on one line before the kill line
# ("oom-kill:constraint=%s,nodemask=%*pbl", cpuset_print_current_mems_allowed() ",cpuset=%s,mems_allowed=%*pbl",
# mem_cgroup_print_oom_context() ",oom_memcg=" / ",task_memcg=", then ",task=%s,pid=%d,uid=%d"; real,
# triton-inference-server/server#4154 and leptonai/gpud#70, whose kill line was not pasted):
# oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=a82e417e...,mems_allowed=0-3,oom_memcg=/kubepods/burstable/podcb040dc7-...,task_memcg=/kubepods/burstable/podcb040dc7-.../a82e417e...,task=tritonserver,pid=59249,uid=0
# oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,task=python3,pid=25315,uid=0
_OOM_SUMMARY = re.compile(
    r"oom-kill:constraint=(?P<constraint>CONSTRAINT_[A-Z_]{1,24}),[^\n]{0,4000}?,task=(?P<comm>[^,\n]{0,64}),pid=(?P<pid>\d+),uid=\d+")
_OOM_MEMCG = re.compile(r",oom_memcg=(?P<memcg>[^,\n]{1,300})")


def _oom_ran_out(cgroup: bool, memcg: str | None) -> str:
    if not cgroup:
        return "the host's memory"
    return "a memory cgroup's limit (a container or job" + (f": {memcg})" if memcg else ")")


# NVRM: Xid (PCI:0000:00:06): 31, pid=1883, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: ...
# NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.
# NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52e7b0=0x101000e ...
# Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.   (pasted without "NVRM: ")
#   (the bus id bounded: unbounded, each 'Xid (' of a long line with no ')' after it was scanned to the line's end)
_XID = re.compile(r"(?:NVRM: )?Xid \((?P<pci>[^)]{0,100})\): ?(?P<code>[^,]*)(?:, ?(?P<rest>.*))?$")
# NVRM: Xid (PCI:0000:41:00 GPU-I:05 GPU-CI:01): 79, pid=4242, name=python3, GPU has fallen off the bus.
# NVRM: Xid (PCI:0000:41:00 GPU-I:05): 43, pid=4242, name=python3, Ch 00000008   (attributed to a MIG instance: kernel_rc.c)
_XID_MIG = re.compile(r" GPU-I:\d+(?: GPU-CI:\d+)?$")
# pid=1797828, name=pt_main_thread, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005
# pid=13641, Ch 00000008, intr 00000000. MMU Fault: ...      (R460 and older: no name)
# pid=8494,   name=RenderThread, channel 0x0000000d, CTX SWITCH TIMEOUT, Info 0x14c011
#   (pasted with the fields aligned in columns, NVIDIA/open-gpu-kernel-modules#1146: more than one space after a comma)
_XID_PROC = re.compile(r"(?:pid=(?P<pid>'<unknown>'|[^,]*)(?:, +|$))?(?:name=(?P<name>[^,]*)(?:, *|$))?")
# Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Illegal Instruction Encoding
_XID_GPC_TPC = re.compile(r"\(GPC (?P<gpc>\d+), TPC (?P<tpc>\d+)(?:, SM (?P<sm>\d+))?\)")
# MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x8344_f3e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
# MMU Fault: ENGINE GRAPHICS GPC1 UNRECOGNIZED_CLIENT faulted @ 0x1827f9_000b4bc0. Fault is of type UNRECOGNIZED_FAULT UNRECOGNIZED_ACCESS_TYPE
#   (sgl-project/sglang#29160, a B200: ids the driver's tables lack print as its defaults, kern_fifo_tu102.c
#    kfifoGetClientIdString "UNRECOGNIZED_CLIENT", kern_fifo_gv100.c kfifoGetFaultAccessTypeString "UNRECOGNIZED_ACCESS_TYPE")
_XID_MMU = re.compile(
    r"MMU Fault: ENGINE (?P<engine>\S+)(?: (?P<gpc>GPC\d+))?(?: (?P<client>\S+))? faulted"
    r"(?:.*?Fault is of type (?P<ftype>\S+)(?: (?P<access>(?:UNRECOGNIZED_)?ACCESS_TYPE\S*))?)?"
)
# the GSP CrashCat report that follows an Xid 120 line, each line indented under "NVRM:" (src/nvidia/src/libraries/
# crashcat/v1/impl/crashcat_report_v1_libos3.c "Reported by libos partition:%u#%u kernel v%u.%u [%u] @ ts:%u",
# then the RISC-V state, "RISC-V CSR State:" and its registers, each line indented further;
# NVIDIA/open-gpu-kernel-modules#876, a laptop's dmesg cut after the report's first line):
# NVRM:     Reported by libos partition:4#5 kernel v3.1 [0] @ ts:2
_XID_REPORT_LINE = re.compile(r"NVRM: {5,40}\S")  # "NVRM: " then the report's indent of four or more
_XID_REPORT_MAX = 64  # lines: a report holds about 20 (the CSR and GPR state)
# channel 0x0000000a, intr 00000000.  /  Ch 00000008, errorString CTX SWITCH TIMEOUT
_XID_CHANNEL = re.compile(r"\b(?:channel|Ch) (?:0x)?(?P<ch>[0-9a-fA-F]{1,8})\b")
# NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149
_XID_PREVIOUS = re.compile(r"\bcaused by previous Xid (?P<code>\d+)")
# Xid 74 (NVIDIA's WORKFLOW_NVLINK_ERR: seven registers, unused ones printed as 0x0):
# NVLink: fatal error detected on link 14(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
# NVLink: fatal error detected on link 6(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)
# NVLink: fatal error detected on link 2            (older drivers: no registers)
_XID74 = re.compile(
    r"NVLink: (?P<sev>fatal|non-?fatal)?\s*error detected on link (?P<link>\d+)"
    r"(?:\s*\((?P<regs>0x[0-9a-fA-F]+(?:,\s*0x[0-9a-fA-F]+)*)\))?", re.I)
# Xid 144-150 (NVLink5): unit, severity, link, then intrinfo, error status and more registers:
# 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)
# 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)
# 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)
_NVLINK5 = re.compile(
    r"^(?P<unit>[A-Z0-9_/]+) (?P<sev>Nonfatal|Non-fatal|Fatal)\b.*?\bLink (?P<link>-?\d+)"
    r"(?: \((?P<regs>0x[0-9a-fA-F]+(?: 0x[0-9a-fA-F]+)*)[^)]*\))?"
)
# GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)
_RECOVERY = re.compile(
    r"recovery action changed from (?:0x[0-9a-fA-F]+ )?\(?(?P<prev>[^()]*?)\)? to "
    r"(?:0x(?P<code>[0-9a-fA-F]+) )?\(?(?P<action>(?:[^()]*[^()\s])?(?:\s+(?=\)))?)\)?\s*$"
)
# NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.
# NVRM: GPU at 0000:01:00.0 has fallen off the bus.
_FELL_GPU = re.compile(r"NVRM: GPU (?:at )?(?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):? (?:GPU )?has fallen off the bus")
# NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330) installed in this system has fallen off the bus and ...
# [14387.209961] NVRM: The NVIDIA GPU 0000:5d:00.0          (then "NVRM: (PCI ID: 10de:2330) ..." wrapped)
_FELL_THE = re.compile(r"NVRM: The NVIDIA GPU (?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])")
_PCI_ID = re.compile(r"\(PCI ID: (?P<id>[0-9a-fA-F]{4}:[0-9a-fA-F]{4})\)")
# NVRM: GPU at PCI:0000:00:06: GPU-5cc6fa16-d7a0-98bf-3d43-f0337652e85f
# […] NVRM: GPU at 0000:03:00: GPU-b850f46d-d5ea-c752-ddf3-c4453e44d3f7   (R384 drivers: no "PCI:", the Xid
#   line beside it "NVRM: Xid (0000:03:00): 14, Channel 00000001"; docs.nvidia.com/deploy/xid-errors, vR384)
_GPU_AT = re.compile(r"NVRM: GPU at (?P<pci>PCI:[0-9a-fA-F:]+|[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}): (?P<uuid>GPU-[0-9a-fA-F-]+)")
# NVRM: GPU Board Serial Number: 1653724056161
_SERIAL = re.compile(r"NVRM: GPU Board Serial Number: ?(?P<serial>\S*)")
# NVRM: GPU 0000:91:00.0: GPU serial number is 1653723052734.
_SERIAL_IS = re.compile(r"NVRM: GPU (?P<bdf>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): GPU serial number is (?P<serial>[^.\s]+)")
# NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)
# NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024
_DRIVER = re.compile(
    r"NVRM: loading NVIDIA UNIX (?:(?P<open>Open Kernel Module for (?P<oarch>\S+))|(?P<parch>\S+) Kernel Module)"
    r"\s+(?P<version>\d+(?:\.\d+)+)"
)
# nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up
# nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Non-fatal, Link 44 Minion Link DLREQ interrupt
# nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20034, Severity 1 Engine instance 60 Sub-engine instance 00
_SXID = re.compile(r"(?P<name>nvidia-nvswitch\d+): SXid \((?P<pci>[^)]*)\): ?(?P<code>[^,]*)(?:, ?(?P<rest>.*))?$")
_SXID_HEAD = re.compile(r"(?P<sev>Fatal|Non-fatal|Nonfatal)\b,? ?(?:Link (?P<link>\d+))?", re.I)
# [    0.000000] Linux version 6.8.0-48-generic (buildd@lcy02-amd64-010) (x86_64-linux-gnu-gcc-13 ...
# [    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.8.0-48-generic root=UUID=...
# Mar 07 06:42:32 DESKTOP-CPK0PUB kernel: Linux version 6.6.87.2-microsoft-standard-WSL2 (root@439a258ad544) ...
_BOOT = re.compile(r"(?:Linux version (?P<release>\S+)|Command line: )")


def detect(head: str) -> bool:
    # cheap gate first (each branch of _DETECT needs one of these): most files fail here
    # instead of after trying the alternation at every position of the 64 KiB head
    if not (head.startswith(("[", "\t[")) or "\n[" in head or "\n\t[" in head or any(k in head for k in _DETECT_KEYS)):
        return False
    return _DETECT.search(head) is not None


def _message(rest: str) -> str:
    """The kernel message of a line whose known prefix is gone: a framing we do not know
    (another tool's stamp, ``host kernel:`` inside a wrapper) is cut at the message start."""
    if rest.startswith(("NVRM: ", "Xid (PCI:")):
        return rest
    m = _MESSAGE_START.search(rest)
    if m is None:
        return rest
    if "logger" in rest[:m.start()] and _INJECTED.search(rest[:m.start()]) is not None:
        return ""
    if m.group().endswith("kernel: "):
        if rest[:m.start()].endswith("not syncing: "):
            # panic_on_warn's panic (6.2+ kernel/panic.c check_panic_on_warn: panic("%s: panic_on_warn set ...\n",
            # origin), __warn's origin "kernel"): "Kernel panic - not syncing: kernel: panic_on_warn set ..."
            return rest
        rest = rest[m.end():]
        return rest[_PREFIX.match(rest).end():]
    return rest[m.start():]


# NVRM: Xid (0001:00): 6, PE0001          (1.0-96xx to R2xx drivers: "(%04x:%02x)", the bus then the slot, no
# NVRM: Xid (0003:00): 8, Channel 00000001  domain; the same logs say "nvidia 0000:01:00.0" for "(0001:00)")
_XID_OLD_BUS = re.compile(r"^(?P<bus>[0-9a-fA-F]{4}):(?P<dev>[0-9a-fA-F]{2})$")


def _bus(raw: str) -> str | None:
    return try_pci_bus_id(raw)


def _xid_bus(raw: str) -> str | None:
    """An Xid line's bus id: today's forms, else the old drivers' four-digit bus and slot (domain 0)."""
    bus = _bus(raw)
    if bus is None and (old := _XID_OLD_BUS.match(raw.strip())) is not None and int(old["bus"], 16) < 0x100:
        bus = f"0000:{int(old['bus'], 16):02x}:{int(old['dev'], 16):02x}.0"
    return bus


def _stamp_of(line: str) -> str | None:
    """A line's stamp as parse() reads it (kernel_log_time.runs_on)."""
    p = _PREFIX.match(line)
    return p["stamp"] or p["sysdate"] or p["iso"] or p["tstamp"]


class _Boots:
    """Boot index: a marker kind seen again within the current boot starts the next one."""

    def __init__(self) -> None:
        self.index = 0
        self.kinds: set[str] = set()
        self.started = False
        self.had_content = False

    def marker(self, kind: str) -> bool:
        new = not self.started or kind in self.kinds
        if new:
            if self.started or self.had_content:
                self.index += 1
            self.kinds = set()
            self.started = True
        self.kinds.add(kind)
        return new


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text, lines, line_of = artefact.text, artefact.lines, artefact.line_of
    retagged = False
    # (_COLONLESS_FIND; its retagging adds a colon after "NVRM", no part of an _UNTAGGED_KEYS literal: they occur in
    # the text retagged where they occur in ``data``)
    colonless, untagged = classify.gate(text, _COLONLESS_FIND), classify.gate(text, _UNTAGGED_GATE)
    if colonless is None or untagged is None:  # (not the text the classifier scanned last: searched here)
        data = text.encode("utf-8", "surrogatepass")
        colonless = _COLONLESS_FIND.search(data) is not None
        untagged = any(k.search(data) for k in _UNTAGGED_FINDS)
    if colonless and _COLONLESS.search(text):  # "NVRM func: ..." read as "NVRM: func: ..."
        text, retagged = _COLONLESS.sub(r"NVRM: \g<func>: ", text), True
    if untagged and _UNTAGGED.search(text):  # "- RmInitAdapter failed! ..." as "- NVRM: ..."
        text, retagged = _UNTAGGED.sub(r"\g<lead>NVRM: ", text), True
    if retagged:
        local = Artefact(path=artefact.path, node=artefact.node, text=text)
        lines, line_of = local.lines, local.line_of
    used: set[int] = set()
    boots = _Boots()
    aer = AerEvents(b, used, _PREFIX)
    recovery = AerRecovery(b, used)
    ghes = GhesRecords(b, used)
    bars: dict = {}  # (device, BAR) -> its pcie_bar_unassigned fields (kernel_log_pcie)
    iommu: dict = {}  # (IOMMU, device, interrupt?) -> its iommu_fault fields (kernel_log_pcie)
    display: set[tuple[str, str]] = set()  # (node, bus id) of the GPUs the PCI core enumerated (kernel_log_pcie)
    inaccessible: dict = {}  # (node, device, event) -> its pci_device_inaccessible fields (kernel_log_pcie)
    sxid_pending: list[tuple[int, str, re.Match[str]]] = []
    amd_timeouts: list = []  # amdgpu's ring timeouts (kernel_log_amdgpu), built at the end with their reset lines
    amd_ras: list = []  # amdgpu's uncorrectable RAS error lines (kernel_log_amdgpu), one fact per device and block at the end
    amd_vm_faults: list = []  # amdgpu's GPU page fault heads (kernel_log_amdgpu), one fact per device and address space at the end
    ooms: list[dict] = []  # the OOM killer's kills (host_oom_kill), built at the end: a kill's lines may come apart
    oom_summaries: dict[int, dict] = {}  # pid -> its "oom-kill:constraint=..." line not yet met by its kill line
    sxid_heads: set[tuple[str, str]] = set()
    gpu_seen: dict[str, int] = {}  # bus id -> line of its "GPU at" fact, for the serial line
    last_gpu_at: tuple[int, str, str | None, str] | None = None
    last = len(lines)  # the log's last non-blank line: a driver load line there (no boot before it), or an Xid report's head, ends it
    while last > 1 and not lines[last - 1].strip():
        last -= 1
    report_head: tuple[int, int, str] | None = None  # (the last "GPU at" line, its serial line or it, its bus id)
    nfs_ok = kernel_log_host_os.nfs_recoveries(text, line_of, _stamp_of)  # "nfs: server X OK": a stall that ended
    # the log shows a minute or more of time (its first and last stamps): an Xid line's silence about other Xids counts
    xid = classify.gate(text, _XID_GATE)
    log_spans = spans(lines, last, _stamp_of) if (xid if xid is not None else "Xid" in text) else False

    pos, n = 0, len(text)
    for at in _keyword_starts(text):
        if at < pos:  # another keyword on a line already read
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = n if end == -1 else end
        pos = end + 1
        ln = line_of(start)
        line = lines[ln - 1]
        p = _PREFIX.match(line)  # every part is optional: it always matches
        msg = _message(line[p.end():])
        stamp = p["stamp"] or p["sysdate"] or p["iso"] or p["tstamp"]
        stamp = stamp.replace(" ", "") if stamp and stamp.startswith("+") else stamp
        host = p["host"] or p["isohost"] or p["thost"]
        node = artefact.node_for(host)
        if msg and not host and ("checkName" in line or "Recommended Action=" in line) and (
                quoted := nvsentinel_event.event_node(line, len(line) - len(msg))) is not None:
            # a kernel line quoted in an NVSentinel health event's message (the syslog health monitor's
            # "MESSAGE=NVRM: Xid ..."): the event's evidence, so on the event's node (nodeName, kubectl's
            # node/<name>; nvsentinel_event gives the event the same) and up to the message's end, not a kernel
            # line of a node of its own: the Xid rules read it there and nvsentinel_xid_event stays silent
            # {...,"checkName":"SysLogsXIDError",...,"message":"MESSAGE=NVRM: Xid (PCI:0002:00:00): 13, ...","nodeName":"kwok-node-0",...}
            # ErrorCode:79 PCI:0000:ef:00 GPU_UUID:GPU-b5f2... MESSAGE=NVRM: Xid (PCI:0000:ef:00): 79, pid=0, name=<unknown>, GPU has fallen off the bus. Recommended Action=RESTART_BM;
            event_host, end = quoted
            msg = line[len(line) - len(msg):end].rstrip()
            node = event_host or node
        common = {"node": node, "timestamp": stamp}

        if "NVRM: " in msg or msg.startswith("Xid (PCI:"):
            boots.had_content = True
            common["boot"] = boots.index
            if ln in used:  # a continuation line, read with the line it continues
                continue
            if msg.startswith(("NVRM: Xid", "Xid (PCI:")):
                _xid(b, ln, msg, common, used, log_spans)
                if ln in used:
                    _xid_report_lines(ln, lines, used)
                continue
            if (g := _GPU_AT.search(msg)) is not None:
                bus = _bus(g["pci"])
                if bus is None:
                    b.error(ln, f"bad PCI bus id {g['pci']!r} in 'GPU at' line")
                    continue
                serial = None
                nxt = lines[ln] if ln < len(lines) else ""
                if (s := _SERIAL.search(nxt)) is not None:
                    serial = s["serial"] or None
                    used.add(ln + 1)
                b.add(KernelGpuSeen, ln, pci_bus_id=bus, uuid=g["uuid"], serial=serial, **common)
                used.add(ln)
                report_head = (ln, ln + 1 if serial is not None or ln + 1 in used else ln, bus)
                continue
            if _SERIAL.search(msg) is not None:
                used.add(ln)  # read with its "GPU at" line, or one that other lines separate from it
                continue
            if (s := _SERIAL_IS.search(msg)) is not None:
                b.add(KernelGpuSeen, ln, pci_bus_id=pci_bus_id(s["bdf"]), serial=s["serial"], **common)
                used.add(ln)
                continue
            if (f := _FELL_GPU.search(msg)) is not None:
                b.add(GpuFellOffBus, ln, pci_bus_id=pci_bus_id(f["bdf"]), **common)
                used.add(ln)
                continue
            if (f := _FELL_THE.search(msg)) is not None:
                # "The NVIDIA GPU <bdf> ..." also heads the open module's refusal of a GPU
                if not _fell_the(b, ln, f, lines, common, used):
                    parse_nvrm(b, ln, msg, common, lines, used)
                continue
            if (d := _DRIVER.search(msg)) is not None:
                b.add(NvidiaDriverLoaded, ln, version=d["version"], open_module=d["open"] is not None,
                      arch=d["oarch"] or d["parch"], alone=ln >= last and not boots.started,
                      runs_on=runs_on(lines, ln, last, stamp, _stamp_of), **common)
                used.add(ln)
                continue
            parse_nvrm(b, ln, msg, common, lines, used)
            continue
        # the kernel's firmware loader on the module's GSP file (kernel_log_nvrm: alone, or read with the
        # "RmFetchGspRmImages: No firmware image found" after it)
        if "/firmware" in msg or "firmware load for" in msg:
            common["boot"] = boots.index
            if parse_nvrm(b, ln, msg, common, lines, used):
                boots.had_content = True
                continue
        # (not nvidia-drm's "[drm:nv_drm_probe_devices [nvidia_drm]] *ERROR* ...": its own reader's, below)
        if "probe" in msg and "nvidia" in msg and "*ERROR* [nvidia-drm]" not in msg:
            common["boot"] = boots.index
            if parse_nvrm(b, ln, msg, common, lines, used):
                boots.had_content = True
                continue

        if "SXid (" in msg and (s := _SXID.search(msg)) is not None:
            boots.had_content = True
            common["boot"] = boots.index
            sxid_pending.append((ln, s, common))
            if _SXID_HEAD.match(s["rest"] or "") is not None:
                sxid_heads.add((s["name"], s["code"].strip()))
            continue

        if (bm := _BOOT.match(msg)) is not None:
            kind = "version" if bm["release"] else "cmdline"
            if boots.marker(kind):
                b.add(KernelBoot, ln, boot=boots.index, kernel_release=bm["release"],
                      wsl=bm["release"] is not None and "-microsoft-standard" in bm["release"], **common)
            used.add(ln)
            continue

        common["boot"] = boots.index
        if ("symbol" in msg or "version magic" in msg) and kernel_log_modules.parse_module_line(b, ln, msg, common, used):
            continue
        if "invalid context" in msg and kernel_log_modules.parse_peermem_line(b, ln, msg, common, used):
            continue
        if ("is rejected" in msg or "is restricted" in msg) and kernel_log_modules.parse_signature_line(b, ln, msg, common, used):
            continue
        if kernel_log_gds.parse_gds_line(b, ln, msg, common, used):
            boots.had_content = True
            continue
        if " timeout, " in msg and kernel_log_amdgpu.note_ring_timeout(ln, msg, common, amd_timeouts):
            boots.had_content = True
            continue
        if "page fault (src_id:" in msg and kernel_log_amdgpu.note_vm_fault(ln, msg, common, amd_vm_faults):
            boots.had_content = True
            continue
        if "ncorrectable hardware error" in msg or "RAS event of type" in msg:
            if kernel_log_amdgpu.note_ras_error(ln, msg, common, amd_ras):
                boots.had_content = True
                continue
        if "multiple BARs" in msg and parse_bar_map_line(b, ln, msg, common, lines, used):
            boots.had_content = True
            continue
        if ("*ERROR*" in msg or "fall back to sysmem" in msg) and kernel_log_drm.parse_drm_line(b, ln, msg, common, used):
            boots.had_content = True
            continue
        if "nvidia-modeset: ERROR: " in msg and kernel_log_modeset.parse_modeset_line(b, ln, msg, common, used):
            boots.had_content = True
            continue
        if ("efa" in msg or "rdmap" in msg) and kernel_log_efa.parse_efa_line(b, ln, msg, common, used):
            boots.had_content = True
            continue
        if "[Hardware Error]:" in msg and ghes.feed(ln, msg, common):
            boots.had_content = True
            continue
        if "not syncing" in msg:
            ghes.note_panic(ln, msg)
        if kernel_log_host.parse_host_line(b, ln, msg, common, used):
            boots.had_content = True
            continue
        if kernel_log_host_os.parse_os_line(b, ln, msg, common, used, lines, nfs_ok):
            boots.had_content = True
            continue
        if "WARNING: " in msg and kernel_log_splat.parse_warn_line(b, ln, msg, common, used, lines):
            boots.had_content = True
            continue
        if ("AER: " in msg or "-aware driver" in msg or "upstream device " in msg) and recovery.feed(ln, msg, common):
            boots.had_content = True
            continue
        if aer.feed(ln, line, msg, common, lines):
            boots.had_content = True
            continue
        if parse_link_down(b, ln, msg, common, lines, used):
            boots.had_content = True
            continue
        if "limited by" in msg and parse_bandwidth_limited(b, ln, msg, common, used):
            boots.had_content = True
            continue
        if ("assign" in msg or "no space" in msg) and parse_bar_unassigned(b, ln, msg, common, used, bars):
            boots.had_content = True
            continue
        if ("DMAR" in msg or "AMD-Vi" in msg or "callbacks suppressed" in msg) and parse_iommu_fault(b, ln, msg, common, used, iommu):
            boots.had_content = True
            continue
        if (" to D0" in msg or "; giving up" in msg) and parse_inaccessible(b, ln, msg, common, used, inaccessible):
            boots.had_content = True
            continue
        if "] type " in msg and note_display_device(msg, common, display):
            continue
        if "of memory" in msg and ": Kill" in msg and (o := _OOM_KILL.search(msg)) is not None:
            pid = int(o["pid"])
            cgroup = o["scope"].startswith("Memory cgroup")
            summary = oom_summaries.pop(pid, None)  # its oom-kill: line, read before it
            if summary is not None:
                used.add(summary["line"])
            ooms.append({"line": ln, "pid": pid, "process": o["comm"], "cgroup": cgroup,
                         "memcg": summary["memcg"] if summary else None, "common": dict(common),
                         "anon": int(o["anon"]) if o["anon"] else None, "vm": int(o["vm"]) if o["vm"] else None})
            used.add(ln)
        elif "oom-kill:" in msg and (o := _OOM_SUMMARY.search(msg)) is not None:
            mc = _OOM_MEMCG.search(msg)
            oom_summaries[int(o["pid"])] = {"line": ln, "process": o["comm"], "cgroup": o["constraint"] == "CONSTRAINT_MEMCG",
                                            "memcg": mc["memcg"] if mc else None, "common": dict(common)}
        elif msg.startswith("Killed process ") and (o := _OOM_KILLED_ALONE.match(msg)) is not None:
            pid = int(o["pid"])
            prev = next((k for k in reversed(ooms) if k["pid"] == pid), None)
            if prev is not None and prev["anon"] is None:  # the sizes of the kill just read (Linux < 4.19)
                prev["anon"], prev["vm"] = int(o["anon"]), int(o["vm"])
                used.add(ln)
            elif prev is None:  # the kill's first line not pasted: what ran out is not said
                summary = oom_summaries.pop(pid, None)
                if summary is not None:
                    used.add(summary["line"])
                ooms.append({"line": ln, "pid": pid, "process": o["comm"], "cgroup": bool(summary and summary["cgroup"]),
                             "memcg": summary["memcg"] if summary else None, "common": dict(common), "unsaid": summary is None,
                             "anon": int(o["anon"]), "vm": int(o["vm"])})
                used.add(ln)
    aer.flush()
    recovery.flush()
    kernel_log_amdgpu.emit(b, amd_timeouts, lines, used)
    ghes.flush()
    kernel_log_amdgpu.emit_ras(b, amd_ras, lines, used)
    kernel_log_amdgpu.emit_vm_faults(b, amd_vm_faults, lines, used)
    emit_bar_unassigned(b, bars, display)
    emit_iommu_faults(b, iommu, display)
    emit_inaccessible(b, inaccessible, display)
    for pid, sm in oom_summaries.items():  # an oom-kill: summary whose kill line was not pasted names the victim
        ooms.append({"line": sm["line"], "pid": pid, "process": sm["process"], "cgroup": sm["cgroup"], "memcg": sm["memcg"],
                     "common": sm["common"], "anon": None, "vm": None})
        used.add(sm["line"])
    for k in ooms:
        ran_out = ("memory (the host's or a cgroup's: the kill's first line is not in the log)" if k.get("unsaid")
                   else _oom_ran_out(k["cgroup"], k["memcg"]))
        b.add(HostOomKill, k["line"], pid=k["pid"], process=k["process"], cgroup=k["cgroup"], ran_out=ran_out,
              anon_rss_kb=k["anon"], anon_rss_mib=None if k["anon"] is None else round(k["anon"] / 1024),
              total_vm_kb=k["vm"], **k["common"])

    for ln, s, common in sxid_pending:
        _sxid(b, ln, s, common, sxid_heads, used)
    if report_head is not None and last in report_head[:2]:
        # the driver names a GPU (and its serial) once, right before the first Xid it reports of it (open-gpu-kernel-modules
        # kernel_rc.c krcReportXid -> _krcLogUuidOnce): a log that ends there lost the Xid (a paste or capture cut short)
        b.limit(last, "cut_short", f"the kernel log ends at the driver's 'GPU at PCI:{report_head[2]}' line, the head of "
                "an Xid report whose Xid line is cut off")
    kernel_log_host_os.cut_gpu_driver_crash_site(b, text, lines)
    result.facts.sort(key=lambda f: f.evidence.line)  # AER and SXid facts are built late
    result.lines_used = len(used)
    result.read = {ln + artefact.line_offset for ln in used}  # (its continuation lines: an AER event's status lines)
    return result


def _xid(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int], log_spans: bool) -> None:
    m = _XID.search(msg)
    if m is None:
        q = xid_quoted.PAIR.search(msg)
        if q is not None and xid_quoted.quoted(q):
            # the poster left the bus id out and kept the code-and-message pair the line ends with (a blog's
            # "NVRM: Xid 13, Graphics SM Warp Exception"): the pair an alert quotes, read as xid_quoted reads it
            b.add(XidQuoted, ln, xid=int(q["xid"]), message=q["msg"].strip().rstrip(".,;"), node=common["node"])
            used.add(ln)
            return
        b.error(ln, "Xid line without '(PCI:...): <code>'")
        return
    bus = _xid_bus(_XID_MIG.sub("", m["pci"]))
    if bus is None:
        b.error(ln, f"bad PCI bus id {m['pci']!r} in Xid line")
        return
    code = m["code"].strip()
    if not code.isdecimal():
        b.error(ln, f"Xid code {code!r} is not a number")
        return
    rest = (m["rest"] or "").strip()
    pid = process = None
    pm = _XID_PROC.match(rest)
    if pm is not None:
        raw_pid = (pm["pid"] or "").strip()
        if raw_pid.isdecimal():
            pid = int(raw_pid)
        elif raw_pid and not re.fullmatch(r"'?<[^<>]*>'?", raw_pid):  # <unknown>, '<unknown>', <n/a>
            b.error(ln, f"Xid pid {raw_pid!r} is not a number")
            return
        name = (pm["name"] or "").strip()
        process = None if name in ("<unknown>", "") else name
        rest = rest[pm.end():].strip()
    fields: dict = {}
    if (g := _XID_GPC_TPC.search(rest)) is not None:
        fields.update(gpc=f"GPC{g['gpc']}", tpc=f"TPC{g['tpc']}", sm=f"SM{g['sm']}" if g["sm"] else None)
    if (mm := _XID_MMU.search(rest)) is not None:
        fields.update(mmu_engine=mm["engine"], mmu_client=mm["client"], mmu_fault_type=mm["ftype"],
                      mmu_access_type=mm["access"])
        if mm["gpc"]:
            fields["gpc"] = mm["gpc"]
    if (ch := _XID_CHANNEL.search(rest)) is not None:
        fields["channel"] = f"0x{int(ch['ch'], 16):08x}"
    if (pv := _XID_PREVIOUS.search(rest)) is not None:
        fields["previous_xid"] = int(pv["code"])
    xid = int(code)
    fields.update(_nvlink_fields(xid, rest))
    rec = _RECOVERY.search(rest) if xid == 154 else None
    if rec is not None:
        fields["recovery_action"] = rec["action"].strip()
    b.add(XidEvent, ln, pci_bus_id=bus, xid=xid, pid=pid, process=process, message=rest, log_spans=log_spans, **fields, **common)
    if rec is not None:
        b.add(GpuRecoveryAction, ln, pci_bus_id=bus, action=rec["action"].strip(),
              action_code=int(rec["code"], 16) if rec["code"] else None,
              previous_action=rec["prev"].strip() or None, **common)
    used.add(ln)


def _xid_report_lines(ln: int, lines: list[str], used: set[int]) -> None:
    """The indented ``NVRM:     ...`` lines right after an Xid line (GSP CrashCat's report after Xid 120):
    read with it, as its detail, not left over as lines nobody read."""
    for k in range(ln + 1, min(ln + _XID_REPORT_MAX, len(lines)) + 1):
        line = lines[k - 1]
        if _XID_REPORT_LINE.match(_message(line[_PREFIX.match(line).end():])) is None:
            return
        used.add(k)


def _nvlink_fields(xid: int, rest: str) -> dict:
    """Link, unit, severity word and registers of an NVLink Xid line (74, 144-150), as printed;
    the meaning of the bits is decided later, from NVIDIA's tables (engine.nvlink_xid_decode)."""
    if xid == 74:
        m = _XID74.search(rest)
        if m is None:
            return {}
        regs = ",".join(f"0x{int(r, 16):x}" for r in re.split(r",\s*", m["regs"])) if m["regs"] else None
        return {"nvlink_link": int(m["link"]), "nvlink_registers": regs,
                "nvlink_fatal": None if m["sev"] is None else m["sev"].lower() == "fatal"}
    if 144 <= xid <= 150:
        m = _NVLINK5.search(rest)
        if m is None:
            return {}
        link = int(m["link"])
        return {"nvlink_link": link if link >= 0 else None, "nvlink_unit": m["unit"],
                "nvlink_fatal": m["sev"] == "Fatal",
                "nvlink_registers": ",".join(f"0x{int(r, 16):08x}" for r in m["regs"].split()) if m["regs"] else None}
    return {}


def _fell_the(b: FactBuilder, ln: int, f: re.Match[str], lines: list[str], common: dict, used: set[int]) -> bool:
    """``The NVIDIA GPU <bdf> (PCI ID: ...) installed ... has fallen off the bus``, one line
    or wrapped over up to three ``NVRM:`` lines; False when the message says something else."""
    block = [ln]
    text = lines[ln - 1]
    for k in range(ln, min(ln + 2, len(lines))):
        if "fallen off the bus" in text:
            break
        if "NVRM: " not in lines[k]:
            break
        block.append(k + 1)
        text += " " + lines[k]
    if "fallen off the bus" not in text:
        return False
    pid = _PCI_ID.search(text)
    b.add(GpuFellOffBus, ln, pci_bus_id=pci_bus_id(f["bdf"]), pci_device_id=pid["id"].lower() if pid else None,
          **common)
    used.update(block)
    return True


def _sxid(b: FactBuilder, ln: int, s: re.Match[str], common: dict, heads: set[tuple[str, str]],
          used: set[int]) -> None:
    code = s["code"].strip()
    if not code.isdecimal():
        b.error(ln, f"SXid code {code!r} is not a number")
        return
    bus = _bus(s["pci"])
    if bus is None:
        b.error(ln, f"bad PCI bus id {s['pci']!r} in SXid line")
        return
    rest = (s["rest"] or "").strip()
    used.add(ln)
    h = _SXID_HEAD.match(rest)
    if h is None and (s["name"], code) in heads:
        return  # a "Severity ..." / "Data {...}" line of an event already reported by its headline
    fatal = None if h is None else h["sev"].lower() == "fatal"
    b.add(NvswitchSxid, ln, switch=bus, switch_name=s["name"], sxid=int(code), fatal=fatal,
          link=int(h["link"]) if h is not None and h["link"] else None, message=rest, **common)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
#: whole-text tests answered by the classifier's pass (facts/classify.py gate()): the NVRM retagging's literals, "Xid",
#: and kernel_log_host_os's crash-site and NFS literals
TEXT_GATES = (_COLONLESS_FIND, _UNTAGGED_GATE, _XID_GATE, kernel_log_host_os.CRASH_SITE_GATE,
              kernel_log_host_os.NFS_SERVER_GATE)
