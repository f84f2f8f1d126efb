"""NVRM driver messages beyond Xid (used by :mod:`kernel_log`): initialisation and probe
failures, user-space/kernel-module version mismatch, GSP RPC timeouts outside an Xid line,
``nvAssert`` failures with their ``NV_ERR_*`` status, a lost GPU, an invalid BAR.

Each becomes one ``nvrm_error`` fact whose ``message_kind`` names the message (and
``status`` the ``NV_ERR_*`` code an assertion printed); what it means (cause, severity,
actions) is knowledge (``knowledge/xid_nvrm_messages.yaml``), read by the rule
``nvrm_driver_message``. Sample lines, from public reports and the driver's own format
strings (NVIDIA open-gpu-kernel-modules ``nv.c``, ``kernel_gsp.c``)::

    NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)
    NVRM: API mismatch: the client has the version 550.54.14, but
                   NVRM: this kernel module has the version 545.23.08.  Please
    NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827
    NVRM: _kgspLogXid119: ********************************* GSP Timeout **********************************
    NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:
                   NVRM: BAR0 is 0M @ 0x0 (PCI:0000:c1:00.0)
    nvidia: probe of 0000:5d:00.0 failed with error -1
    NVRM: No NVIDIA GPU found.
    NVRM: RmFetchGspRmImages: No firmware image found
    NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system
          is not supported by the NVIDIA 580.126.09 driver release.

``RmInitAdapter failed! (initStatus:rmStatus:line)`` is read field by field (osinit.c prints
``status.initStatus, status.rmStatus, status.line``): ``status`` is the NV_ERR_* name of the
second field and ``init_stage`` the RM_INIT_* group of the first (``knowledge/nv_status_codes.yaml``).
The lines the driver prints just before it say which step failed; they become the fact's
``detail`` (the first of them), and ``reset_hint`` is set when one of them is the driver's own
"(the GPU is likely in a bad state and may need to be reset)" (or "... may be in a bad state
..."), e.g. (NVIDIA/open-gpu-kernel-modules#1058, #1104)::

    NVRM: GPU0 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP
    NVRM: GPU0 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)
    NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM
    NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:2168)

The refusal "not supported by the NVIDIA <release> driver release" is split by
``knowledge/gpu_pci_ids.yaml``: ``gpu_unsupported_spurious`` when that release (or an earlier
one) already lists the PCI device ID, so the chip ID the GPU's registers gave is not its own;
``gpu_unsupported_by_release`` otherwise.

An NVRM line that says it failed (``failed``, ``error``, ``NV_ERR_``, ``Timeout``) but is
none of these becomes ``message_kind: other``: no rule reads it, so the verdict reports it
as unexplained instead of dropping it.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge
from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.kinds.kernel import NvrmError

_BDF = r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"

# NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)
# NVRM: RmInitAdapter failed! (0x62:0x65:2028)
# NVRM: GPU 0001:00:00.0: RmInitAdapter failed! (0x63:0x55:2344)
_INIT_FAILED = re.compile(rf"NVRM: (?:GPU (?P<bdf>{_BDF}): )?RmInitAdapter failed! ?(?:\((?P<code>[^)]*)\))?")
# NVRM: GPU 0000:02:00.0: rm_init_adapter failed, device minor number 0
# NVRM: rm_init_adapter failed for device bearing minor number 0      (drivers before the first form: microsoft/pai#4344)
# the line cut at the paste's edge before its number (Talos's dmesg, siderolabs/talos#6206):
# 10.0.20.203: kern: warning: [2022-09-02T19:03:17.236812838Z]: NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number
# or cut earlier, inside its words (the stored excerpt of pdbear/syno_nvidia_gpu_driver#68 ends so, after an RmInitAdapter
# failure of the same GPU):
# [  302.007546] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, d
_RM_INIT = re.compile(rf"NVRM: (?:GPU (?P<bdf>{_BDF}): )?rm_init_adapter failed(?:(?:, device| for device bearing) minor number"
                      r"(?: (?P<minor>\d+)|\s*$)|(?P<cut>(?:,| f)[ \w]{0,30})?\s*$)")
_RM_INIT_TAILS = (", device minor number", " for device bearing minor number")


def _rm_init(text: str) -> re.Match[str] | None:
    """:data:`_RM_INIT` in ``text``, its cut tail (if any) a beginning of one of the driver's two wordings."""
    m = _RM_INIT.search(text)
    if m is not None and m["cut"] is not None and not any(t.startswith(m["cut"].rstrip()) for t in _RM_INIT_TAILS):
        return None
    return m


# The open of /dev/nvidiaN that asked for the adapter, failing with the init's error (-EIO), from drivers with the
# frontend module (nv-frontend.c nvidia_frontend_open: printk("NVRM: %s: minor %d, module->open() failed, error %d\n")):
# the third line of the same failure (Bumblebee-Project/Bumblebee#722):
# [87669.726564] NVRM: RmInitAdapter failed! (0x26:0xffff:1375)
# [87669.726572] NVRM: rm_init_adapter failed for device bearing minor number 0
# [87669.726589] NVRM: nvidia_frontend_open: minor 0, module->open() failed, error -5
# (alone, without the init's lines before it, the open's failure is no companion: read as any failed NVRM line)
_FRONTEND_OPEN = re.compile(r"NVRM: nvidia_frontend_open: minor \d+, module->open\(\) failed, error -?\d+")
# NVRM: API mismatch: the client has the version 535.113.01, but
# NVRM: API mismatch: the client 'gnome-shell' has the version 595.58.03,
# NVRM: API mismatch: the client 'python3' (pid 4242)      (575 on, osapi.c: the version on the next line)
# NVRM: has the version 570.133.20, but this kernel module has
# NVRM: the version 575.64.05.  Please make sure that this
_API_MISMATCH = re.compile(r"NVRM: API mismatch: the client (?:'(?P<client>[^']*)' )?(?:\(pid \d+\)|has the version (?P<client_version>\d[\w.-]*?),?(?:\s|$))")
_API_CLIENT = re.compile(r"NVRM: has the version (?P<client_version>\d[\w.-]*?),? but")
# NVRM: this kernel module has the version 535.104.05.  Please   (the next NVRM line, or the same line when pasted joined)
_API_KERNEL = re.compile(r"this kernel module has(?: the version| NVRM: the version) (?P<kernel_version>\d[\w-]*(?:\.\d[\w-]*)*)")
# NVRM: components have the same version.   (the mismatch message's last line)
_API_END = re.compile(r"have the same version")
# The lines after the head (nv.c's one nv_printf of four lines; the head may be left out of a paste):
# NVRM: this kernel module has the version 367.35.  Please
# NVRM: make sure that this kernel module and all NVIDIA driver
# NVRM: components have the same version.
_API_TAIL = re.compile(r"NVRM: (?:this kernel module has the version \d|make sure that this kernel module and all NVIDIA driver"
                       r"|components have the same version|has the version \d[\w.-]*, but this kernel module has$"
                       r"|kernel module and all NVIDIA driver components$)")
# NVRM: _kgspLogXid119: ********************************* GSP Timeout **********************************
# NVRM: _kgspRpcRecvPoll: Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL)
# NVRM: _kgspLogRpcSanityCheckFailure: GPU0 sanity check failed 0xf waiting for RPC response from GSP. Expected function 76 (GSP_RM_CONTROL) (0x0 0x0).
_GSP_TIMEOUT = re.compile(r"NVRM: (?:GPU\d+ )?_kgsp\w+: (?:\*+ GSP (?:Timeout|Failure) \*+|.*?(?:Timeout after (?P<after>\d+s) of waiting for RPC response from (?P<gpu>GPU\d+) GSP!|sanity check failed 0x[0-9a-fA-F]+ waiting for RPC response from GSP))")
# The banner kgspHealthCheck prints before each GSP CrashCat report it logs (kernel_gsp.c, 535 on: NV_PRINTF(LEVEL_ERROR,
# "****************************** GSP-CrashCat Report *******************************\n"); 570 on, for a report that is a
# LibOS task watchdog's: "*************************** LibOS Task Watchdog Report ***************************\n"),
# NV_PRINTF putting the function (and, newer, "GPU%d ") before it; the report's Xid 120 line follows:
# NVRM: kgspHealthCheck_TU102: ****************************** GSP-CrashCat Report *******************************
_GSP_CRASH_BANNER = re.compile(r"NVRM: (?:GPU\d+ )?kgspHealthCheck\w*: \*{3,40} (?P<what>GSP-CrashCat|LibOS Task Watchdog) Report \*{3,40}\s*$")
#: how far after the banner the report's Xid line may come (the build id and "GPU at PCI:" lines come between)
_GSP_CRASH_AHEAD = 8
# The robust-channel watchdog's timeout (src/nvidia/src/kernel/gpu/rc/kernel_rc_watchdog.c krcWatchdog_IMPL, NV_PRINTF(LEVEL_ERROR,
# "RC watchdog: GPU is probably locked!  Notify Timeout Seconds: %d\n")): the GPU left the watchdog's own channel unserviced
# past RmWatchDogTimeOut; krcWatchdogRecovery then resets the hung channel, and the Xid 8 line that follows (GPU and process)
# carries the event. Pasted under journald with a lower-case month and no host (ggml-org/llama.cpp#27102):
# aug 16 23:01:35 kernel: NVRM: krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify Timeout Seconds: 7
_RC_WATCHDOG = re.compile(r"NVRM: (?:GPU\d+ )?krcWatchdog\w{0,20}: RC watchdog: GPU is probably locked!(?: {1,4}Notify Timeout Seconds: (?P<secs>\d+))?")
#: how far after the watchdog's line its Xid 8 may come (the "GPU at PCI:" and board serial lines come between)
_RC_WATCHDOG_AHEAD = 6
_XID8 = re.compile(r"NVRM: Xid \([^)]{0,40}\): 8,")
# NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827
# NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ kernel_bus.c:1234
# NVRM: GPU0 nvAssertOkFailedNoLog: Assertion failed: Invalid argument to call [NV_ERR_INVALID_ARGUMENT] (0x0000001F) returned from kgspWaitForRmInitDone(pGpu, pKernelGsp) @ kernel_gsp_gh100.c:1107
# NVRM: nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827
#   (nvassert.c's NV_CHECK_* helpers, printed at their caller's level)
_ASSERT = re.compile(
    r"NVRM: (?:GPU\d+ )?nv(?:Assert|Check)\w*: (?:Assertion|Check) failed: (?P<what>.*?)"
    r"(?: \[(?P<status>NV_ERR_\w+)\] \((?P<code>0x[0-9a-fA-F]+)\))?(?: returned from .+?)?(?: @ (?P<where>\S+))?"
    # the end blanks only after a non-blank (or the blank a literal or .+? must take): a lazy column otherwise tried
    # \s*$ from every blank of a run, each try scanning the rest of it
    r"(?:(?<!\s)|(?<=failed: )|(?<= returned from \s))\s*$"
)
# The assertion kernel_gsp.c raises (580-590, _kgspRpcRecvPoll) when RPC_TIMEOUT_GPU_RESET_THRESHOLD (3) RPC
# timeouts come back to back: "GSP is completely stalled and cannot be recovered", so it marks the GPU for
# reset (gpuMarkDeviceForReset), sets bFatalError and takes a destructive core dump:
# NVRM: nvAssertFailedNoLog: Assertion failed: Back to back GSP RPC timeout detected! GPU marked for reset @ kernel_gsp.c:2387
#   (NVIDIA/open-gpu-kernel-modules#1118, 580.126.20, Talos' "192.168.11.119: kern: warning: [...]: " prefix)
_GSP_STALLED = "Back to back GSP RPC timeout detected"
# The RPC history a GSP timeout dumps (kernel_gsp.c _kgspLogRpcHistory / _kgspLogRpcHistoryEntry, 535-595:
# "GPU%d RPC history (CPU -> GSP):", a column header, then "    %c%-4d %-4d %-21.21s %10u 0x%016llx 0x%016llx
# 0x%016llx 0x%016llx %6llu%cs %c" per RPC, newest first; the last column 'y' on entry 0 while the CPU is still
# polling for that RPC's answer, i.e. the RPC that timed out), and the "RPC event history (CPU <- GSP)" after it:
# NVRM:      0    76   GSP_RM_CONTROL              4127 0x0000000020803039 0x00000000000000b0 0x00065013160bb6e0 0x0000000000000000          y
# NVRM:     -1    76   GSP_RM_CONTROL              4126 0x000000002080a026 0x0000000000000214 0x00065013118cf0d0 0x00065013118cf158    136us
#   (NVIDIA/open-gpu-kernel-modules#1118, Talos prefix; the trailing blanks of the format kept)
_RPC_ROW = re.compile(r"NVRM:\s{1,12}(?P<idx>-?\d{1,4})\s{1,8}(?P<fn>\d{1,4})\s{1,8}(?P<name>\w{1,21})\s{1,24}(?P<seq>\d{1,10})"
                      r"(?: 0x[0-9a-fA-F]{16}){4}(?: {1,8}\d{1,20}[mun]?s)?(?P<poll> {1,16}y)?\s*$")
# NVRM: GPU0 RPC history (CPU -> GSP):   |   NVRM: GPU0 RPC event history (CPU <- GSP):   |   the column header
# NVRM: GPU0 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) sequence 4127 and data 0x... 0x....
_RPC_HEAD = re.compile(r"NVRM: (?:GPU\d+ )?(?:RPC (?P<event>event )?history \(CPU|GSP RPC buffer contains function \d)"
                       r"|NVRM:\s+entry function\s+sequence data0")
#: how far back a row looks for the timeout it belongs to (the Xid 119 line, the banner, the history's head)
_RPC_BACK = 40
# NVRM: GPU is lost, skipping nvidia_ioctl
# NVRM: GPU 0000:3b:00.0: GPU is lost
_LOST = re.compile(rf"NVRM: (?:GPU (?P<bdf>{_BDF}): )?GPU is lost\b")
# NVRM: No NVIDIA GPU found.
# NVRM: No NVIDIA devices probed.
_NO_GPU = re.compile(r"NVRM: No NVIDIA (?:GPU found|devices probed)")
# NVRM: The NVIDIA probe routine failed for 1 device(s).
# NVRM: None of the NVIDIA devices were initialized.
# NVRM: None of the NVIDIA graphics adapters were initialized!
# NVRM: The NVIDIA probe routine was not called for 1 device(s).   (another driver, e.g. nouveau, took the GPU)
# NVRM: The NVIDIA probe routine failed for 1 devic                 (cut at the paste's end: NVIDIA/gpu-operator#232)
_PROBE_SUMMARY = re.compile(r"NVRM: (?:The NVIDIA probe routine (?:failed|was not called) for \d+ (?:device|(?:d|de|dev|devi|devic)\s*$)"
                            r"|None of the NVIDIA (?:devices|graphics adapters) were initialized)")
# nvidia: probe of 0000:5d:00.0 failed with error -1
# nvidia 0000:c1:00.0: probe with driver nvidia failed with error -1
_PROBE = re.compile(rf"\bnvidia(?:: probe of (?P<a>{_BDF}) failed| (?P<b>{_BDF}): probe with driver nvidia failed) with error (?P<err>-?\d+)")
# NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:
_BAR_HEAD = re.compile(r"NVRM: This PCI I/O region assigned to your NVIDIA device is invalid")
# NVRM: This is a 64-bit BAR mapped above 4GB by the system     (515-570 nv-pci.c: "... not supported by the kernel." or
# NVRM: BIOS or the Linux kernel, but the PCI bridge            "... does not define a matching prefetchable memory window.")
_BAR64_HEAD = re.compile(r"NVRM: This is a 64-bit BAR mapped above \d+GB by the system")
_BAR64_END = re.compile(r"NVRM: BAR\d is |prefetchable memory window\.")
# NVRM: request_mem_region failed for 16M @ 0xfa000000. This can   (nv-pci.c: another driver holds the GPU's registers)
# NVRM: occur when a driver such as rivatv is loaded and claims
# NVRM: request_mem_region failed for 0M @ 0x0. This can           (NVIDIA/gpu-operator#232: a T4 whose BAR0 the PCI core
#                                                                   left at address 0, size 0: no window assigned, not busy)
_REGION_BUSY = re.compile(r"NVRM: request_mem_region failed for (?P<size>\d+)M @ 0x(?P<addr>[0-9a-fA-F]+)")
_REGION_END = re.compile(r"ownership of the device's registers|unload|driver components")
# NVRM: BAR0 is 0M @ 0x0 (PCI:0000:c1:00.0)
# NVRM: BAR1 is 0M @ 0x00000000 (PCI:0001:00.0)
# (the bus id bounded, 100 characters: an unbounded run scanned a long line to its end once per "NVRM: BAR" in it
# when no ')' closed it, 1.2 s CPU on bench/redos.py's 120,000-character line -> 1 ms)
_BAR = re.compile(r"NVRM: BAR(?P<bar>\d) is (?P<size>\d+)M @ 0x[0-9a-fA-F]+ \(PCI:(?P<pci>[^)]{0,100}+)\)")
# NVRM: The system BIOS may have misconfigured your GPU.
_BAR_TAIL = re.compile(r"NVRM: The system BIOS may have misconfigured your")
# NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM   (detail printed before "RmInitAdapter failed!")
# NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP
# NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW boot complete: 0x65 VBIOS version 94.02.59.00.05
# NVRM: gpuWaitForGfwBootComplete_TU102: failed to wait for GFW_BOOT: (progress 0x3)
# NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)
# NVRM: unexpected WPR2 already up   (the same, its function left out by the poster: open-gpu-kernel-modules#1104's dmesg
#   quoted as a list, read through kernel_log's untagged form)
_INIT_DETAIL = re.compile(r"NVRM: (?:GPU\d+ )?(?:RmInitAdapter: |_?kgsp\w*: |gpuWaitForGfwBootComplete\w*: |\(the GPU |unexpected WPR2 already up)")
# The GSP firmware did not boot (alone, or before an RmInitAdapter failure that carries it):
# NVRM: kgspBootstrapRiscvOSEarly_GH100: Timeout waiting for GSP target mask release. This error may be caused by several reasons: ...   (nvtrust#52, printed "NVRM kgsp...:")
# NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP       (open-gpu-kernel-modules#1230)
# NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM
# NVRM: kfspPollForResponse_IMPL: FSP command timed out
# (not the VBIOS's own boot, "failed to wait for GFW boot complete": alone it stays unexplained)
# (the phrase comes within a few words of the function in every real line: a bounded run keeps the
# search linear on a long line that repeats "NVRM: kgsp...:", bench/fuzz.py seed 5)
# and the WPR2 line by its own words, whatever the case of "gsp" after them (kernel_gsp.c prints "cannot proceed with
# booting gsp" where 550-580 printed "GSP") or its function left out (open-gpu-kernel-modules#1104, a list of dmesg's
# messages: "unexpected WPR2 already up"):
_GSP_BOOT = re.compile(
    r"NVRM: (?:GPU\d+ )?(?:_?kgsp\w*|RmInitAdapter|_?kfsp\w*): .{0,300}?"
    r"(?:Timeout waiting for GSP|cannot proceed with booting GSP|Cannot initialize GSP firmware|FSP command timed out)"
    r"|NVRM: (?:GPU\d+ )?(?:_?kgsp\w*: )?unexpected WPR2 already up"
)
# any other GSP/FSP function that gave up waiting on the firmware (kernel_gsp*.c, kern_fsp*.c; 525-595):
# NVRM: kgspResetHw_GH100: Timed out waiting for GSP falcon reset to assert
# NVRM: _kfspCheckGspBootStatus: Timed out waiting for GSP ucode to boot.
# NVRM: kfspPollForCanSend_IMPL: Timed out waiting for FSP queues to be empty.
_GSP_WAIT = re.compile(r"NVRM: (?:GPU\d+ )?_?k(?:gsp|fsp)\w*: .{0,120}?\b(?:Time(?:d)? ?out|timed out)\b")
# The GSP-RM RPC layer (src/nvidia/src/kernel/vgpu/rpc.c, NV_PRINTF_COND at error level; the status is an
# NV_STATUS, named through knowledge/nv_status_codes.yaml: 0x0000000f NV_ERR_GPU_IS_LOST, 0x62 NV_ERR_RESET_REQUIRED):
# NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!                  (550, "for fn %d!")
# NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 10 sequence 12303!   (open-gpu-kernel-modules#1080)
# NVRM: _issueRpcAndWait: RPC failed with status 0x1b000 for fn 1!
# NVRM: GPU0 rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d00029; hObject=0xbeef0100; paramsStatus=0x00000000; status=0x0000000f
# NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062
# NVRM: rpcRmApiControl_GSP: GspRmControl failed: hClient=0x...; hObject=0x...; cmd=0x...; paramsSize=0x...; paramsStatus=0x...; status=0x...
_RPC_FAILED = re.compile(
    r"NVRM: (?P<gpu>GPU\d+ )?(?:_issueRpcAndWait: (?:rpcSendMessage|RPC) failed with status (?P<st>0x[0-9a-fA-F]+) for fn (?P<fn>\d+)"
    r"|rpcRmApi\w*_GSP: GspRm(?P<verb>Free|Alloc|Control) failed: .{0,240}?\bstatus=(?P<st2>0x[0-9a-fA-F]+))"
)
#: the statuses that say what became of the GPU, whatever RPC carried them; a control call that
#: failed with another status is an application's or a driver's error (left as ``other``)
_RPC_GPU_STATUSES = frozenset({"NV_ERR_GPU_IS_LOST", "NV_ERR_RESET_REQUIRED", "NV_ERR_TIMEOUT", "NV_ERR_GPU_IN_FULLCHIP_RESET"})
# The running GSP stopped beating (kernel_gsp.c _kgspIsHeartbeatTimedOut, 595): a GSP that hung or a GPU that stopped
# answering after it booted, not a boot failure; RPC timeouts (Xid 119/120) and lost-GPU RPC failures follow:
# NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200
#   (open-gpu-kernel-modules#1230; #1080's title: "GSP heartbeat timeout -> Xid 109/8")
# and the two lines the RPC poll prints after it when an RPC ends with either beat stale (kernel_gsp.c 595.45 _kgspRpcRecvPoll:
# NV_PRINTF(LEVEL_ERROR, "GSP RM heartbeat timed out\n") / "LibOS heartbeat timed out\n"), a running GSP, not a boot:
# NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out
# NVRM: _kgspRpcRecvPoll: LibOS heartbeat timed out          (open-gpu-kernel-modules#1200, as a page mirrors it)
_GSP_HEARTBEAT = re.compile(
    r"NVRM: (?:GPU\d+ )?(?:_kgspIsHeartbeatTimedOut: Heartbeat timed out\b(?:.{0,200}?\bdiff (?P<diff>\d+) timeout (?P<timeout>\d+))?"
    r"|_kgspRpcRecvPoll: (?P<beat>GSP RM|LibOS) heartbeat timed out\b)"
)
# RM's thread watchdog, printed with the operation that timed out (a GSP boot step, above):
# NVRM: _threadNodeCheckTimeout: _threadNodeCheckTimeout: Timeout was set to: 4000 msecs!      (nvtrust#52)
_THREAD_TIMEOUT = re.compile(r"NVRM: (?:GPU\d+ )?_threadNodeCheckTimeout: ")
#: how near a GSP boot failure a thread-watchdog line is read as its detail
_THREAD_NEAR = 4
# (the GPU is likely in a bad state and may need to be reset)   (_kgspBootGspRm, kernel_gsp.c)
# (the GPU may be in a bad state and may need to be reset)      (kgspWaitForGfwBootOk_TU102)
_RESET_HINT = re.compile(r"\(the GPU (?:is likely|may be) in a bad state and may need to be reset\)")
# the branch that prints the first of those hints prints this line just before it (kernel_gsp.c _kgspBootGspRm:
# NV_PRINTF(LEVEL_ERROR, "unexpected WPR2 already up, cannot proceed with booting gsp\n"); NV_PRINTF(LEVEL_ERROR,
# "(the GPU is likely in a bad state and may need to be reset)\n"); status = NV_ERR_INVALID_STATE): a paste that
# keeps only the first line (open-gpu-kernel-modules#1104: "unexpected WPR2 already up") carries the same hint
_WPR2_UP = re.compile(r"unexpected WPR2 already up", re.I)
# NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:2168)   -> initStatus, rmStatus, line
_INIT_CODE = re.compile(r"^\s*(?P<init>0x[0-9a-fA-F]+):(?P<rm>0x[0-9a-fA-F]+):(?P<line>\d+)\s*$")
#: how far back from "RmInitAdapter failed!" its detail lines are looked for (asserts and
#: teardown lines of the same attempt may come between them)
_DETAIL_BACK = 8
# The open kernel module refusing a GPU (the driver's own verdict, over several NVRM lines):
# [    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.   (515-525; open-gpu-kernel-modules#230)
# [    3.513144] NVRM: To force use of Open nvidia.ko on other GPUs, see the
# [    3.513145] NVRM: 'OpenRmEnableUnsupportedGpus' kernel module parameter described
# [    3.513145] NVRM: in the README.
_OPEN_ONLY_DC = re.compile(r"NVRM: Open nvidia\.ko is only ready for use on Data Center GPUs")
_OPEN_ONLY_DC_END = re.compile(r"in the README")
# [ 1157.046099] NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5)          (open-gpu-kernel-modules#322, a V100)
#                NVRM: installed in this system is not supported by open
#                NVRM: nvidia.ko because it does not include the required GPU
#                NVRM: System Processor (GSP).
_OPEN_NO_GSP = re.compile(rf"NVRM: The NVIDIA GPU (?P<bdf>{_BDF})(?: \(PCI ID: (?P<pci_id>[0-9a-fA-F]{{4}}:[0-9a-fA-F]{{4}})\))?"
                          r" installed in this system is not supported by open nvidia\.ko because it does not include"
                          r" the required GPU System Processor")
_OPEN_NO_GSP_END = re.compile(r"System Processor \(GSP\)")
# The proprietary module refusing a GPU only the open modules support (Blackwell; Grace Hopper): printed
# by the closed nvidia.ko (its osapi.c is not published; the open module's own refusals are above):
# NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2d58)                                  (open-gpu-kernel-modules#1332)
# NVRM: installed in this system requires use of the NVIDIA open kernel modules.
# NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:1050)
_OPEN_REQUIRED = re.compile(rf"NVRM: The NVIDIA GPU (?P<bdf>{_BDF})(?: \(PCI ID: (?P<pci_id>[0-9a-fA-F]{{4}}:[0-9a-fA-F]{{4}})\))?"
                            r" installed in this system requires use of the NVIDIA open kernel modules")
#: its second line, also read alone (a grep for it, or the head line cut off)
_OPEN_REQUIRED_TAIL = re.compile(r"NVRM: installed in this system requires use of the NVIDIA open kernel modules")
# The driver release does not know the chip the GPU's registers report (osinit.c rm_is_supported_device,
# print_unsupported: the HAL lookup of NV_PMC_BOOT_0/42 failed), in three wordings and line breaks:
# NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:0fd4)                 (337.25, 2014; Bumblebee-Project/Bumblebee#594)
# NVRM: installed in this system is not supported by the 337.25
# NVRM: NVIDIA Linux driver release.  Please see 'Appendix
# NVRM: The NVIDIA GPU 0000:3c:00.0 (PCI ID: 10de:2d04)                  (osinit.c's format filled in, 515-595)
# NVRM: installed in this system is not supported by the
# NVRM: NVIDIA 555.58.02 driver release.
# NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system   (NVIDIA/aicr#1858, a faulty H100)
#       is not supported by the NVIDIA 580.126.09 driver release.
_UNSUPPORTED = re.compile(rf"NVRM: The NVIDIA GPU (?P<bdf>{_BDF}) \(PCI ID: (?P<pci_id>[0-9a-fA-F]{{4}}:(?P<dev>[0-9a-fA-F]{{4}}))\)"
                          r" installed in this system is not supported by the (?:NVIDIA )?(?P<release>\d+\.\d+(?:\.\d+)*)"
                          r" (?:NVIDIA (?:Linux )?)?driver release")
#: a continuation of the message pasted without its "NVRM: " prefix (indented, as above)
_UNSUPPORTED_TAIL = re.compile(r"^\s*(?:installed in this system )?is not supported by the .{0,40}driver release")
_OPEN_END = re.compile(r"System Processor \(GSP\)|open kernel modules|driver release")
# The GSP firmware file of the module's own version could not be loaded (osinit.c RmFetchGspRmImages;
# RmInitAdapter then fails with 0x61 RM_INIT_FIRMWARE_FETCH_FAILED). The kernel's firmware loader
# names the file and errno just before it: -2 (ENOENT) = not installed for this module version.
# [   23.991660] nvidia 0000:07:00.0: Direct firmware load for nvidia/570.144/gsp_ga10x.bin failed with error -2
# [   23.991667] NVRM: RmFetchGspRmImages: No firmware image found          (ublue-os/bazzite#2668)
# nvidia 0000:03:00.0: loading /lib/firmware/nvidia/535.129.03/gsp_ga10x.bin failed with error -4   (a GPU already hung)
_GSP_FW_MISSING = re.compile(r"NVRM: (?:GPU\d+ )?RmFetchGspRmImages: No firmware image found")
# The module found a GSP firmware file of another release than its own (kernel_gsp.c _kgspFwContainerVerifyVersion, an
# exact compare of the image's version with the module's), on one line or, in newer releases, two:
# NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch: got version 570.172.08, expected version 570.190
# NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch:
# got version 595.71.05, expected version 595.58.03        (Nobara-Project/rpm-sources#526: the module 595.58.03, the
#                                                          firmware package 595.71.05; the second line untagged)
_GSP_FW_VERSION = re.compile(r"NVRM: (?:GPU\d+ )?_?kgspFwContainerVerifyVersion: GSP firmware image version mismatch\b")
_GSP_FW_VERSIONS = re.compile(r"got version (?P<got>\d[\w.-]*?),? expected version (?P<want>\d[\w.-]*\d)")
#: lines after the mismatch within which its consequences (kgspInitRm_IMPL's "Error preparing GSP-RM image",
#: RmInitAdapter's "Cannot initialize GSP firmware RM", cut or not) are read as its own
_FW_VERSION_AFTER = 4
_FW_LOAD = re.compile(rf"\bnvidia (?P<bdf>{_BDF}): (?:Direct firmware load for |loading /lib/firmware/)"
                      r"nvidia/(?P<version>\d[\w.-]*)/(?P<file>\w+\.bin) failed with error (?P<err>-?\d+)")
# The driver found no room in a GPU virtual address space (BAR1 for the CPU's and the display's mappings) for a mapping
# (src/nvidia/src/kernel/gpu/mem_mgr/arch/maxwell/virt_mem_allocator_gm107.c dmaAllocMapping_GM107, 515-610:
# NV_PRINTF(LEVEL_ERROR, "can't alloc VA space for mapping.\n") when vaspaceAlloc fails):
# NVRM: dmaAllocMapping_GM107: can't alloc VA space for mapping.     (NVIDIA/open-gpu-kernel-modules#1132, 610.57.04)
_VA_EXHAUSTED = re.compile(r"NVRM: (?:GPU\d+ )?dmaAllocMapping\w{0,20}: can't alloc VA space for mapping")
# its sibling when the mapping could not be written into the VA space it got (the same function:
# "can't update VA space for mapping @vaddr=0x%llx\n"), beside the check failures that say where:
# NVRM: dmaAllocMapping_GM107: can't update VA space for mapping @vaddr=0x93210000   (NVIDIA/open-gpu-kernel-modules#1078)
_VA_UPDATE = re.compile(r"NVRM: (?:GPU\d+ )?dmaAllocMapping\w{0,20}: can't update VA space for mapping")
# the same failure as the BAR1 mapping-reuse code's assertion returns it (mapping_reuse.c, reusemappingdbMap of pBar1VaInfo):
# NVRM: nvAssertOkFailedNoLog: Assertion failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from pReuseMappingDb->pMapCb(...) @ mapping_reuse.c:273
# NVRM: nvAssertOkFailedNoLog: Assertion failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from reusemappingdbMap(&pBar1VaInfo-
#   (NVIDIA/open-gpu-kernel-modules#1132, the second cut where the paste ends)
_VA_ASSERT = re.compile(r"\[NV_ERR_NO_MEMORY\].{0,200}?(?:@ mapping_reuse\.c:|reusemappingdb\w{0,20}\(&?p?Bar1Va)")
# The kernel's ioremap check on an NVIDIA module's mapping (kernel/resource.c iomem_map_sanity_check:
# "resource sanity check: requesting [mem %pa-%pa], which spans more than %s %pR"; arch/x86/mm/ioremap.c
# __ioremap_caller: "caller %pS mapping multiple BARs"): the mapping runs past the end of a PCI resource (a GPU's BAR,
# a bus window); the kernel maps it all the same. Real lines (NVIDIA/open-gpu-kernel-modules#1140, 610.43.02):
# resource: resource sanity check: requesting [mem 0x00000000dfd20000-0x00000000e004ffff], which spans more than 0000:0a:00.0 [mem 0xd0000000-0xdfffffff 64bit pref]
# caller __nv_drm_gem_nvkms_map+0xc3/0x130 [nvidia_drm] mapping multiple BARs
_MULTI_BAR = re.compile(r"\bcaller (?P<fn>[\w.]{1,80})\+0x[0-9a-f]{1,8}/0x[0-9a-f]{1,8} \[(?P<mod>nvidia(?:_drm|_modeset|_uvm)?)\] mapping multiple BARs")
_SANITY = re.compile(r"resource sanity check: requesting \[mem (?P<lo>0x[0-9a-f]{1,16})-(?P<hi>0x[0-9a-f]{1,16})\], which spans more than "
                     rf"(?:(?P<bdf>{_BDF})|(?P<name>[^\[\n]{{1,60}}?)) (?P<res>\[mem [^\]\n]{{1,80}}\])")
#: how far above the "caller ... mapping multiple BARs" line its "resource sanity check" line is looked for
_SANITY_BACK = 2
#: how far back from RmFetchGspRmImages the firmware loader's line is looked for
_FW_BACK = 3
# what makes an unknown NVRM line a failure worth reporting
# ("Timed out", "Cannot", "FATAL", "Aborting": what the driver's error-level prints say besides "failed", e.g.
#  NVRM: osInitNvMapping: *** Cannot attach gpu   /   NVRM: Aborting probe for VF 0000:41:00.4 since IOMMU is not present on the system.)
_FAILURE_WORDS = re.compile(r"\b(?:[Ff]ailed|[Ff]ailure|[Ee]rror|ERROR|[Tt]imeout|[Tt]imed out|[Cc]annot|[Uu]nable to|FATAL|[Ff]atal"
                            r"|[Aa]borting)\b|NV_ERR_")

#: gathered lines: the API mismatch and BAR messages print over several NVRM lines
_CONTINUATION = 4


# a line that starts a message of its own, never the continuation of another one
_HEAD = re.compile(r"NVRM: (?:Xid|API mismatch|This PCI|This is a 64-bit BAR|request_mem_region|nvAssert|nvCheck|GPU |RmInitAdapter|rm_init_adapter|_kgsp|No NVIDIA"
                   r"|The NVIDIA|None of|loading|GPU\d+ )")


@lru_cache(maxsize=1)
def _status_table() -> tuple[dict[int, str], list[tuple[int, str]]]:
    """NV_STATUS value -> NV_ERR_* name, and the RM_INIT_* groups (knowledge/nv_status_codes.yaml)."""
    data = knowledge.load("nv_status_codes.yaml")
    codes = {k: v.name for k, v in data.status_codes.items()}
    stages = sorted((s.base, s.stage) for s in data.rm_init_stages)
    return codes, stages


def status_name(value: int) -> str:
    """The NV_ERR_* name of an NV_STATUS value (knowledge/nv_status_codes.yaml), "" when it has none."""
    return _status_table()[0].get(value, "")


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


def _unsupported(m: re.Match[str]) -> tuple[str, str, dict]:
    """message_kind, GPU and detail of the driver's "not supported by the NVIDIA <release> driver
    release": ``gpu_unsupported_spurious`` where knowledge/gpu_pci_ids.yaml says a release at or
    before this one already lists the PCI device ID (so the chip ID the GPU's registers gave is not
    the GPU's own), else ``gpu_unsupported_by_release``."""
    ids = knowledge.load("gpu_pci_ids.yaml")
    first = ids.first_release(m["dev"]) if m["pci_id"].lower().startswith("10de:") else None
    product = ids.devices[m["dev"].lower()].name if first else None
    if first is not None and _release_key(m["release"]) >= _release_key(first):
        return ("gpu_unsupported_spurious", m["bdf"],
                {"detail": f"{product} (PCI ID {m['pci_id'].lower()}) is listed by the NVIDIA {first} driver release"
                           f" and later; {m['release']} refused it"})
    return ("gpu_unsupported_by_release", m["bdf"],
            {"detail": f"{product} (PCI ID {m['pci_id'].lower()}): first listed by the NVIDIA {first} release (open modules)"
             if product else f"PCI ID {m['pci_id'].lower()}"})


def _init_fields(code: str | None) -> dict:
    """``status`` and ``init_stage`` of RmInitAdapter's ``(initStatus:rmStatus:line)``."""
    m = _INIT_CODE.match(code or "")
    if m is None:
        return {}
    codes, stages = _status_table()
    init, rm = int(m["init"], 16), int(m["rm"], 16)
    stage = next((name for base, name in reversed(stages) if base <= init < base + 0x10), None)
    return {"status": codes.get(rm, ""), "init_stage": stage}



def _init_companions(lines: list[str], ln: int, used: set[int]) -> None:
    """Take the lines right after 1-based ``ln`` (an init failure's line) that repeat its failure: after RmInitAdapter's
    line its minor number's (:data:`_RM_INIT`), then the frontend's failed open of that minor (:data:`_FRONTEND_OPEN`)."""
    k = ln  # 0-based: the line after ``ln``
    if k < len(lines) and _rm_init(lines[ln - 1]) is None and _rm_init(lines[k]) is not None:
        used.add(k + 1)
        k += 1
    if k < len(lines) and _FRONTEND_OPEN.search(lines[k]) is not None:
        used.add(k + 1)


def _init_details(lines: list[str], ln: int) -> tuple[str | None, bool]:
    """The detail lines the driver printed before ``RmInitAdapter failed!`` on line ``ln``: the
    first one (what failed) and whether one says the GPU may need a reset."""
    found: list[str] = []
    seen = 0
    for k in range(ln - 2, -1, -1):
        text = lines[k]
        if not text.strip():
            continue  # the rows a terminal's cut of a detail line left blank (facts/lines.py joins it on its first row)
        seen += 1
        if seen > _DETAIL_BACK or "NVRM: " not in text or _INIT_FAILED.search(text) or _rm_init(text):
            break  # another attempt's lines, or not the driver's
        if _INIT_DETAIL.search(text):
            found.append(text[text.index("NVRM: ") + 6:].strip())
    found.reverse()
    hint = any(_RESET_HINT.search(t) or _WPR2_UP.search(t) for t in found)
    first = next((t for t in found if not _RESET_HINT.search(t)), None)
    if first is not None:
        first = re.sub(r"^GPU\d+ ", "", first)
    return first, hint


def _followed_by_init_failure(lines: list[str], ln: int) -> bool:
    """A detail line belongs to an ``RmInitAdapter failed!`` printed within the next lines."""
    return any(_INIT_FAILED.search(lines[k]) for k in range(ln, min(ln + _DETAIL_BACK, len(lines))))


def _fw_load(add, load: re.Match[str]) -> None:
    """The firmware loader's line on the module's GSP file: missing (-2, ENOENT) or unreadable."""
    kind = "gsp_firmware_missing" if load["err"] == "-2" else "gsp_firmware_load_failed"
    add(kind, load["bdf"], code=load["err"], kernel_version=load["version"],
        detail=f"nvidia/{load['version']}/{load['file']} failed with error {load['err']}")


def _gsp_firmware(add, ln: int, lines: list[str]) -> None:
    """``RmFetchGspRmImages: No firmware image found`` on line ``ln``, read with the firmware
    loader's line before it (file, module version, errno) or else the RmInitAdapter failure after it (GPU)."""
    load = next((m for k in range(ln - 2, max(-1, ln - 2 - _FW_BACK), -1) if (m := _FW_LOAD.search(lines[k]))), None)
    if load is not None:
        _fw_load(add, load)
        return
    after = (_INIT_FAILED.search(lines[k]) for k in range(ln, min(ln + _DETAIL_BACK, len(lines))))
    add("gsp_firmware_missing", next((m["bdf"] for m in after if m is not None), None))


def _rpc_failed(m: re.Match[str]) -> tuple[str, str, str]:
    """The GPU prefix, the status's NV_ERR_* name (or its hex) and the call of an RPC failure line."""
    codes, _stages = _status_table()
    raw = m["st"] or m["st2"]
    status = codes.get(int(raw, 16), "")
    call = f"fn {m['fn']}" if m["fn"] else f"GspRm{m['verb']}"
    return (m["gpu"] or "").strip(), status or raw, call


def _gsp_rpc(add, ln: int, m: re.Match[str], lines: list[str], used: set[int]) -> bool:
    """An RPC to the GSP firmware failed: one fact for the first failure of a GPU and status, the same
    failures after it in the file (a teardown prints one per freed object, hundreds) counted into it."""
    gpu, status, call = _rpc_failed(m)
    if m["verb"] == "Control" and status not in _RPC_GPU_STATUSES:
        return False
    calls, n = [call], 1
    for k in range(ln, len(lines)):
        text = lines[k]
        if "failed" not in text or ("_issueRpcAndWait" not in text and "_GSP: GspRm" not in text):
            continue
        if (o := _RPC_FAILED.search(text)) is None:
            continue
        g, st, c = _rpc_failed(o)
        if (g, st) == (gpu, status):
            used.add(k + 1)
            n += 1
            if c not in calls and len(calls) < 4:
                calls.append(c)
    name = status if status.startswith("NV_ERR_") else ""
    add("gsp_rpc_failed", status=name, code=m["st"] or m["st2"],
        detail=f"{(gpu + ': ') if gpu else ''}{n} GSP RPC failure{'s' if n > 1 else ''} ({', '.join(calls)})"
        f" with status {status}")
    return True


def _own_part(head: str, nxt: str) -> str:
    """``nxt`` less the log prefix ``head`` wears before its "NVRM: " (journald's, syslog's: the kernel's
    tags are read by these readers, not taken off by facts/lines.py), where ``nxt`` wears it too:
    journald writes a message's continuation line as a record of its own, prefix and all::

        Apr 22 21:30:51 node17 kernel: NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system
        Apr 22 21:30:51 node17 kernel:       is not supported by the NVIDIA 580.126.09 driver release.

    (harvest 2404's lines under bench/wrap_study.py's journald forms). The stamp may have moved on by
    the next line: the prefix is matched up to its tag's colon (``kernel: ``) where it has one."""
    at = head.find("NVRM: ")
    if at <= 0:
        return nxt
    pre = head[:at]
    if nxt.startswith(pre):
        return nxt[at:]
    tag = pre.rstrip().rsplit(" ", 1)[-1] + " "  # "kernel: "
    k = nxt.find(tag, 0, len(pre) + 8)
    return nxt[k + len(tag):] if tag.endswith(": ") and k > 0 else nxt


def _joined(lines: list[str], ln: int, last: re.Pattern[str]) -> tuple[str, list[int]]:
    """The line and the NVRM lines that continue it, up to the one matching ``last``."""
    text, block = lines[ln - 1], [ln]
    if last.search(text):
        return text, block
    for k in range(ln, min(ln + _CONTINUATION, len(lines))):
        nxt = lines[k]
        if "NVRM: " not in nxt or _HEAD.search(nxt):
            break
        text += " " + nxt[nxt.index("NVRM: "):]
        block.append(k + 1)
        if last.search(nxt):
            break
    return text, block


def _probe_gpu_after(lines: list[str], ln: int) -> str | None:
    """The GPU of the ``nvidia: probe of <bdf> failed`` line within :data:`_DETAIL_BACK` lines after 1-based ``ln`` (the
    last line of a message that made the probe fail, which names no GPU itself); None past another driver message."""
    for k in range(ln, min(ln + _DETAIL_BACK, len(lines))):
        if (p := _PROBE.search(lines[k])) is not None:
            return p["a"] or p["b"]
        if _HEAD.search(lines[k]) is not None and _PROBE_SUMMARY.search(lines[k]) is None:
            return None  # another message of the driver: a probe line after it is its own
    return None


def _rpc_dump_read(lines: list[str], ln: int) -> bool:
    """Whether the RPC history row at ``ln`` belongs to a dump read otherwise: an Xid 119 line or a GSP timeout
    banner before it, or the row is of the event history (CPU <- GSP), not the RPCs the CPU waited for."""
    for k in range(ln - 2, max(-1, ln - 2 - _RPC_BACK), -1):
        line = lines[k]
        if "): 119," in line or "GSP Timeout" in line or "waiting for RPC response" in line:
            return True
        if "event history (CPU" in line:
            return True
    return False


def parse_nvrm(b: FactBuilder, ln: int, msg: str, common: dict, lines: list[str], used: set[int]) -> bool:
    """Read one NVRM (or ``nvidia: probe``) line that is not an Xid; True if it was recognised."""
    if ln in used:
        return True

    def add(kind: str, bdf: str | None = None, **kw) -> None:
        b.add(NvrmError, ln, message_kind=kind, pci_bus_id=try_pci_bus_id(bdf) if bdf else None,
              message=msg.strip(), **kw, **common)

    if (m := _FW_LOAD.search(msg)) is not None:
        # the loader's line alone is the same event (the module asks for nvidia/<its version>/gsp_*.bin only
        # when it boots the GPU through GSP; RmInitAdapter then fails), pasted without the RM's line after it
        # (NixOS/nixpkgs#454772); with that line within _FW_BACK lines, it is read there
        used.add(ln)
        if not any(_GSP_FW_MISSING.search(lines[k]) for k in range(ln, min(ln + _FW_BACK, len(lines)))):
            _fw_load(add, m)
        return True
    if (m := _INIT_FAILED.search(msg)) is not None:
        detail, hint = _init_details(lines, ln)
        add("rm_init_adapter_failed", m["bdf"], code=m["code"], detail=detail, reset_hint=hint,
            **_init_fields(m["code"]))
        used.add(ln)
        # its companions "rm_init_adapter failed, device minor number 0" and the frontend's failed open say nothing more
        _init_companions(lines, ln, used)
        return True
    if (m := _rm_init(msg)) is not None:
        add("rm_init_adapter_failed", m["bdf"])
        used.add(ln)
        _init_companions(lines, ln, used)
        return True
    if (m := _API_MISMATCH.search(msg)) is not None:
        text, block = _joined(lines, ln, _API_END)
        k = _API_KERNEL.search(text)
        c = _API_CLIENT.search(text) if m["client_version"] is None else None
        add("api_mismatch", client=m["client"], client_version=m["client_version"] or (c["client_version"] if c else None),
            kernel_version=k["kernel_version"].rstrip(".") if k else None)
        used.update(block)
        return True
    if _API_TAIL.search(msg) is not None:
        # the rest of the mismatch message without its head (which, read, took these lines): the
        # mismatch all the same, the client's version unknown
        text, block = _joined(lines, ln, _API_END)
        k = _API_KERNEL.search(text)
        add("api_mismatch", kernel_version=k["kernel_version"].rstrip(".") if k else None)
        used.update(block)
        return True
    if _OPEN_ONLY_DC.search(msg) is not None:
        _text, block = _joined(lines, ln, _OPEN_ONLY_DC_END)
        # the message names no GPU: the RmInitAdapter failure it causes, printed next, does
        after = (_INIT_FAILED.search(lines[k]) for k in range(ln, min(ln + _DETAIL_BACK, len(lines))))
        bdf = next((m["bdf"] for m in after if m is not None), None)
        add("open_module_unsupported", bdf, detail="this release's open nvidia.ko supports data-center GPUs only"
            " (NVreg_OpenRmEnableUnsupportedGpus=1 forces it)")
        used.update(block)
        return True
    if "NVRM: The NVIDIA GPU " in msg:
        text, block = _joined(lines, ln, _OPEN_END)
        flat = re.sub(r"\s+NVRM: ", " ", text[text.index("NVRM: "):])
        if (m := _OPEN_NO_GSP.search(flat)) is not None:
            add("open_module_unsupported", m["bdf"], detail="the GPU" + (f" (PCI ID {m['pci_id'].lower()})" if m["pci_id"] else "")
                + " has no GSP (GPU System Processor), which the open nvidia.ko requires")
            used.update(block)
            return True
        if (m := _OPEN_REQUIRED.search(flat)) is not None:
            add("open_module_required", m["bdf"], detail="the GPU" + (f" (PCI ID {m['pci_id'].lower()})" if m["pci_id"] else "")
                + " is supported by the open kernel modules only; the proprietary nvidia.ko is loaded")
            used.update(block)
            return True
        if "driver release" not in flat and ln < len(lines) and _UNSUPPORTED_TAIL.search(tail := _own_part(lines[ln - 1], lines[ln])):
            flat, block = f"{flat} {tail.strip()}", [*block, ln + 1]
        if (m := _UNSUPPORTED.search(re.sub(r"\s+", " ", flat))) is not None:
            kind, bdf, extra = _unsupported(m)
            add(kind, bdf, pci_id=m["pci_id"].lower(), kernel_version=m["release"], **extra)
            used.update(block)
            # nv_pci_probe fails because of it: its "probe of <bdf> failed" line says nothing more
            for k in range(block[-1], min(block[-1] + _DETAIL_BACK, len(lines))):
                if (p := _PROBE.search(lines[k])) is not None and (p["a"] or p["b"]).lower() == m["bdf"].lower():
                    used.add(k + 1)
                    break
            return True
    if _OPEN_REQUIRED_TAIL.search(msg) is not None:
        # the message without its head line: the GPU is the one of the RmInitAdapter failure it causes
        after = (_INIT_FAILED.search(lines[k]) for k in range(ln, min(ln + _DETAIL_BACK, len(lines))))
        add("open_module_required", next((m["bdf"] for m in after if m is not None), None),
            detail="the GPU is supported by the open kernel modules only; the proprietary nvidia.ko is loaded")
        used.add(ln)
        return True
    if (m := _ASSERT.search(msg)) is not None:
        if m["what"].startswith(_GSP_STALLED):
            # the driver's own verdict after back-to-back RPC timeouts, not a consistency check
            add("gsp_stalled_marked_for_reset", detail=m["where"])
            used.add(ln)
            return True
        if m["status"] == "NV_ERR_NO_MEMORY" and _VA_ASSERT.search(msg) is not None:
            # the BAR1 mapping-reuse code returning the VA allocation failure: after its "can't alloc VA space" line the
            # same event; alone (that line not pasted), the exhaustion all the same
            if not any(_VA_EXHAUSTED.search(lines[k]) for k in range(max(0, ln - 1 - _CONTINUATION), ln - 1)):
                add("va_space_exhausted", status="", code=m["code"], detail=m["where"] or "NV_ERR_NO_MEMORY from the BAR1 mapping code")
            used.add(ln)
            return True
        add("assert_failed", status=m["status"] or "", code=m["code"], detail=(m["where"] or m["what"] or None))
        used.add(ln)
        return True
    if "VA space" in msg and _VA_EXHAUSTED.search(msg) is not None:
        # a burst prints it many times, each with an assertion: one fact per run of them (none within _CONTINUATION lines above)
        if not any(_VA_EXHAUSTED.search(lines[k]) for k in range(max(0, ln - 1 - _CONTINUATION), ln - 1)):
            add("va_space_exhausted")
        used.add(ln)
        return True
    if "VA space" in msg and _VA_UPDATE.search(msg) is not None:
        if not any(_VA_UPDATE.search(lines[k]) for k in range(max(0, ln - 1 - _CONTINUATION), ln - 1)):
            add("va_update_failed")
        used.add(ln)
        return True
    if (m := _GSP_TIMEOUT.search(msg)) is not None:
        # the banner and the poll line come with their own Xid 119 line, which carries the
        # event: they make a fact only when that line is not in the paste
        if not any("): 119," in lines[k] for k in range(max(0, ln - 4), min(ln + 6, len(lines)))):
            add("gsp_rpc_timeout", detail=m["after"])
        used.add(ln)
        return True
    if "kgspHealthCheck" in msg and (m := _GSP_CRASH_BANNER.search(msg)) is not None:
        # the Xid 119/120 line of the report after it carries the event; the banner is a fact only without it
        if not any(re.search(r"\): 1(?:19|20),", lines[k]) for k in range(ln, min(ln + _GSP_CRASH_AHEAD, len(lines)))):
            add("gsp_crash_report", detail=f"{m['what']} report")
        used.add(ln)
        return True
    if "RC watchdog" in msg and (m := _RC_WATCHDOG.search(msg)) is not None:
        # the Xid 8 line after it carries the event (its GPU and process); the line is a fact only without it
        if not any(_XID8.search(lines[k]) for k in range(ln, min(ln + _RC_WATCHDOG_AHEAD, len(lines)))):
            add("rc_watchdog_timeout", detail=f"no answer within {m['secs']} s" if m["secs"] else None)
        used.add(ln)
        return True
    if ("_issueRpcAndWait" in msg or "_GSP: GspRm" in msg) and (m := _RPC_FAILED.search(msg)) is not None \
            and _gsp_rpc(add, ln, m, lines, used):
        used.add(ln)
        return True
    if (m := _LOST.search(msg)) is not None:
        add("gpu_lost", m["bdf"])
        used.add(ln)
        return True
    if _NO_GPU.search(msg) is not None:
        add("no_gpu_found")
        used.add(ln)
        return True
    if (m := _PROBE.search(msg)) is not None:
        add("probe_failed", m["a"] or m["b"], code=m["err"])
        used.add(ln)
        return True
    if _PROBE_SUMMARY.search(msg) is not None:
        used.add(ln)  # the probe summary after a device's own failure line ...
        if not any(k + 1 in used for k in range(max(0, ln - 1 - _DETAIL_BACK), ln - 1)):
            add("probe_failed")  # ... or alone in the paste: the driver bound no GPU
        return True
    if _BAR_HEAD.search(msg) is not None:
        text, block = _joined(lines, ln, _BAR)
        bar = _BAR.search(text)
        bus = try_pci_bus_id(bar["pci"]) if bar else None
        if bar is not None and bus is None:
            b.error(ln, f"bad PCI bus id {bar['pci']!r} in BAR line")
        if bar is None and (probe := _probe_gpu_after(lines, block[-1])) is not None:
            # the BAR line not in the paste (a grep for "nvidia" drops "NVRM: BAR1 is 0M @ 0x0 (PCI:...)":
            # forum.proxmox.com thread 179366, a B300 passed to a VM): nv_pci_probe's failure after it names the GPU
            bus = try_pci_bus_id(probe)
        b.add(NvrmError, ln, message_kind="bar_invalid", pci_bus_id=bus, message=msg.strip(),
              detail=f"BAR{bar['bar']} is {bar['size']}M" if bar else None, **common)
        used.update(block)
        return True
    if _BAR64_HEAD.search(msg) is not None:
        text, block = _joined(lines, ln, _BAR64_END)
        bar = _BAR.search(text)
        add("bar_invalid", bar and bar["pci"].removeprefix("PCI:"), detail="a 64-bit BAR above 4GB that the kernel or the"
            " upstream PCI bridge cannot map" + (f" (BAR{bar['bar']} {bar['size']}M)" if bar else ""))
        used.update(block)
        return True
    if (m := _REGION_BUSY.search(msg)) is not None:
        _text, block = _joined(lines, ln, _REGION_END)
        probe = _probe_gpu_after(lines, block[-1])  # the message names no GPU: the probe failure it causes does
        if int(m["addr"], 16) == 0:
            # the register window (BAR0) at address 0: the PCI core assigned it no window at all, which the
            # driver could not request; drivers that validate the BARs first say so as "This PCI I/O region ...
            # is invalid: BAR0 is 0M @ 0x0" (nv-pci.c nv_pci_validate_bars, NV_PCI_RESOURCE_VALID: start != 0)
            add("bar_invalid", probe, detail=f"BAR0 is {m['size']}M @ 0x0 (no window assigned)")
        else:
            add("region_busy", probe, detail=f"{m['size']}M")
        used.update(block)
        return True
    if _BAR.search(msg) is not None or _BAR_TAIL.search(msg) is not None:
        used.add(ln)  # detail lines of the messages above
        return True
    if "FwContainerVerifyVersion" in msg and _GSP_FW_VERSION.search(msg) is not None:
        v = _GSP_FW_VERSIONS.search(msg)
        if v is None and ln < len(lines) and (v := _GSP_FW_VERSIONS.search(lines[ln])) is not None:
            used.add(ln + 1)  # the versions on the message's second line
        add("gsp_firmware_version_mismatch", kernel_version=v["want"] if v else None,
            detail=f"the GSP firmware file is {v['got']}, the kernel module {v['want']}" if v else None)
        used.add(ln)
        for k in range(ln, min(ln + _FW_VERSION_AFTER, len(lines))):
            if "NVRM: " in lines[k] and (_INIT_DETAIL.search(lines[k]) or _GSP_BOOT.search(lines[k])) \
                    and not _INIT_FAILED.search(lines[k]):
                used.add(k + 1)  # its consequences: the GSP image not prepared, the GSP not initialised
        return True
    if "RmFetchGspRmImages" in msg and _GSP_FW_MISSING.search(msg) is not None:
        _gsp_firmware(add, ln, lines)
        used.add(ln)
        return True
    if _INIT_DETAIL.search(msg) is not None and _followed_by_init_failure(lines, ln):
        used.add(ln)  # read as the detail of the RmInitAdapter failure that follows
        return True
    if "eartbeat timed out" in msg and (m := _GSP_HEARTBEAT.search(msg)) is not None:
        add("gsp_heartbeat_timeout", detail=f"no heartbeat for {m['diff']} ms (timeout {m['timeout']} ms)" if m["diff"]
            else f"the {m['beat']} heartbeat was stale when an RPC ended" if m["beat"] else None)
        used.add(ln)
        return True
    if _GSP_BOOT.search(msg) is not None:  # no RmInitAdapter failure after it in the paste
        add("gsp_boot_failed", detail=msg[msg.index("NVRM: ") + 6:].strip())
        used.add(ln)
        return True
    if _GSP_WAIT.search(msg) is not None:
        add("gsp_boot_failed", detail=msg[msg.index("NVRM: ") + 6:].strip())
        used.add(ln)
        return True
    if _THREAD_TIMEOUT.search(msg) is not None and any(
            _GSP_BOOT.search(lines[k]) for k in range(max(0, ln - 1 - _THREAD_NEAR), min(ln + _THREAD_NEAR, len(lines)))):
        used.add(ln)  # the watchdog's side of the GSP boot failure next to it
        return True
    if "0x" in msg and (m := _RPC_ROW.search(msg)) is not None:
        used.add(ln)  # a row of a GSP timeout's RPC history
        if not _rpc_dump_read(lines, ln):
            if m["poll"] and m["idx"] == "0":
                # the history cut out of its dump: the RPC still awaited is the timeout
                add("gsp_rpc_timeout", detail=f"the driver was still waiting for the GSP's answer to RPC {m['name']}"
                    f" (function {m['fn']}, sequence {m['seq']})")
            elif ln < 2 or _RPC_ROW.search(lines[ln - 2]) is None:  # (once a run of rows: its first)
                # rows without the awaited RPC's nor the dump's head (the driver prints this history only when an
                # RPC to the GSP timed out or failed its sanity check): the report is cut, its event not shown;
                # a capture cut short, never read as nothing (beside NCCL's Init COMPLETE lines it read HEALTHY:
                # session 27's fragment audit, open-gpu-kernel-modules#1118's rows -1..-5)
                b.limit(ln, "cut_short", f"kernel log: rows of the RPC history the driver dumps on a GSP RPC timeout "
                        f"(from RPC {m['name']}, sequence {m['seq']}) without the dump's head or the RPC it awaited: "
                        "the report is cut, its event not shown")
        return True
    if _RPC_HEAD.search(msg) is not None:
        used.add(ln)  # the RPC history's heads: the timeout's dump, read with its Xid 119
        return True
    if _FAILURE_WORDS.search(msg) is not None:
        add("other")
        used.add(ln)
        return True
    return False


def parse_bar_map_line(b: FactBuilder, ln: int, msg: str, common: dict, lines: list[str], used: set[int]) -> bool:
    """Read the kernel's "caller <fn> [nvidia...] mapping multiple BARs" with the "resource sanity check" line above it
    (message_kind bar_map_overrun); False for another module's mapping (not the NVIDIA driver's to explain)."""
    if (m := _MULTI_BAR.search(msg)) is None:
        return False
    bdf, detail = None, f"{m['fn']} [{m['mod']}] mapped past the end of a PCI resource"
    for k in range(ln - 1, max(0, ln - 1 - _SANITY_BACK), -1):
        if k in used:
            break
        if (s := _SANITY.search(lines[k - 1])) is not None:
            bdf = s["bdf"]
            detail = (f"{m['fn']} [{m['mod']}] mapped [mem {s['lo']}-{s['hi']}], past "
                      f"{s['bdf'] or s['name'].strip()} {s['res']}")
            used.add(k)
            break
    b.add(NvrmError, ln, message_kind="bar_map_overrun", pci_bus_id=try_pci_bus_id(bdf) if bdf else None,
          message=msg.strip(), detail=detail, **common)
    used.add(ln)
    return True

