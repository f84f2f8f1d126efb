"""NVRM message forms from the driver's own format strings (NVIDIA open-gpu-kernel-modules,
bench/nvrm_formats.yaml, issue 11 item 2): each is read as its message kind, and a near miss is not."""
from __future__ import annotations

import pathlib

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact


def _facts(text: str):
    r = kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1"))
    assert r.errors == []
    return r.facts


def _kinds(text: str):
    return [(f.message_kind, f.pci_bus_id, getattr(f, "status", None)) for f in _facts(text) if f.kind == "nvrm_error"]


@pytest.mark.parametrize("text, want", [
    # osapi.c 575-595: the client's name and pid on the head, the versions on the next lines
    ("[  124.1] NVRM: API mismatch: the client 'python3' (pid 4242)\n"
     "[  124.1] NVRM: has the version 570.133.20, but this kernel module has\n"
     "[  124.1] NVRM: the version 575.64.05.  Please make sure that this\n"
     "[  124.1] NVRM: kernel module and all NVIDIA driver components\n"
     "[  124.1] NVRM: have the same version.\n", [("api_mismatch", None, "")]),
    # nvassert.c's NV_CHECK_* helpers
    ("[  1.0] NVRM: nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from "
     "status @ kernel_channel.c:2827\n", [("assert_failed", None, "NV_ERR_RESET_REQUIRED")]),
    # nv.c: the probe summary alone (no device's own failure line before it)
    ("[  3.1] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
     "[  3.1] NVRM: None of the NVIDIA devices were initialized.\n", [("probe_failed", None, "")]),
    ("[  3.1] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n", [("probe_failed", None, "")]),
    # nv-pci.c 515-570: a 64-bit BAR the kernel cannot map
    ("[  2.0] NVRM: This is a 64-bit BAR mapped above 4GB by the system\n"
     "[  2.0] NVRM: BIOS or the Linux kernel. This PCI I/O region assigned\n"
     "[  2.0] NVRM: to your NVIDIA device is not supported by the kernel.\n"
     "[  2.0] NVRM: BAR1 is 32768M @ 0x3800000000 (PCI:0000:41:00.0)\n", [("bar_invalid", "0000:41:00.0", "")]),
    # nv-pci.c: another driver holds the registers
    ("[  2.0] NVRM: request_mem_region failed for 16M @ 0xfa000000. This can\n"
     "[  2.0] NVRM: occur when a driver such as rivatv is loaded and claims\n"
     "[  2.0] NVRM: ownership of the device's registers.\n", [("region_busy", None, "")]),
    # kernel_gsp_gh100.c / kern_fsp.c: a GSP or FSP wait that gave up
    ("[  9.0] NVRM: kgspResetHw_GH100: Timed out waiting for GSP falcon reset to assert\n", [("gsp_boot_failed", None, "")]),
    ("[  9.0] NVRM: kfspPollForCanSend_IMPL: Timed out waiting for FSP queues to be empty.\n", [("gsp_boot_failed", None, "")]),
    # kernel_gsp.c 535-595: the RPC sanity check
    ("[  9.0] NVRM: _kgspLogRpcSanityCheckFailure: GPU0 sanity check failed 0xf waiting for RPC response from GSP. "
     "Expected function 76 (GSP_RM_CONTROL) (0x0 0x0).\n", [("gsp_rpc_timeout", None, "")]),
    # osinit.c RmFetchGspRmImages, with the firmware loader's line before it (ublue-os/bazzite#2668: -2,
    # the module's own version not installed) or only the RmInitAdapter failure after it (the GPU)
    ("[   23.991660] nvidia 0000:07:00.0: Direct firmware load for nvidia/570.144/gsp_ga10x.bin failed with error -2\n"
     "[   23.991667] NVRM: RmFetchGspRmImages: No firmware image found\n",
     [("gsp_firmware_missing", "0000:07:00.0", "")]),
    ("[ 2882.931049] nvidia 0000:03:00.0: loading /lib/firmware/nvidia/535.129.03/gsp_ga10x.bin failed with error -4\n"
     "[ 2882.931050] NVRM: RmFetchGspRmImages: No firmware image found\n",
     [("gsp_firmware_load_failed", "0000:03:00.0", "")]),
    # the firmware loader's line alone (drivers/base/firmware_loader/main.c "Direct firmware load for %s failed with
    # error %d"), the RM's line not pasted (NixOS/nixpkgs#454772, datacenter driver without its GSP firmware):
    # the same event, stamped or not
    ("[   23.991660] nvidia 0000:00:1e.0: Direct firmware load for nvidia/565.57.01/gsp_tu10x.bin failed with error -2\n",
     [("gsp_firmware_missing", "0000:00:1e.0", "")]),
    ("nvidia 0000:00:1e.0: Direct firmware load for nvidia/565.57.01/gsp_tu10x.bin failed with error -2\n",
     [("gsp_firmware_missing", "0000:00:1e.0", "")]),
    # (the loader's "loading %s failed with error %d", another errno: an unreadable file)
    ("[ 2882.931049] nvidia 0000:03:00.0: loading /lib/firmware/nvidia/535.129.03/gsp_ga10x.bin failed with error -4\n",
     [("gsp_firmware_load_failed", "0000:03:00.0", "")]),
    # near misses: another device's firmware, and a load that did not fail, are no fact
    ("[    4.1] i915 0000:00:02.0: Direct firmware load for i915/tgl_dmc_ver2_12.bin failed with error -2\n", []),
    ("[    4.1] nvidia 0000:00:1e.0: loading firmware nvidia/565.57.01/gsp_tu10x.bin\n", []),
    ("[   23.991667] NVRM: RmFetchGspRmImages: No firmware image found\n"
     "[   23.991672] NVRM: GPU 0000:07:00.0: RmInitAdapter failed! (0x61:0x56:1770)\n",
     [("gsp_firmware_missing", "0000:07:00.0", ""), ("rm_init_adapter_failed", "0000:07:00.0", "NV_ERR_NOT_SUPPORTED")]),
    # the proprietary nvidia.ko refusing a GPU only the open modules support (open-gpu-kernel-modules#1332,
    # fixtures/artefacts/kernel_log/ogkm1332_...), as dmesg prints it: the second line indented, no timestamp
    ("[    5.559842] NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:2c58)\n"
     "               NVRM: installed in this system requires use of the NVIDIA open kernel modules.\n"
     "[    5.559858] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x22:0x56:884)\n",
     [("open_module_required", "0000:02:00.0", ""), ("rm_init_adapter_failed", "0000:02:00.0", "NV_ERR_NOT_SUPPORTED")]),
    # its second line alone (a grep for it): the GPU is the RmInitAdapter failure's
    ("[    5.5] NVRM: installed in this system requires use of the NVIDIA open kernel modules.\n"
     "[    5.6] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x22:0x56:884)\n",
     [("open_module_required", "0000:02:00.0", ""), ("rm_init_adapter_failed", "0000:02:00.0", "NV_ERR_NOT_SUPPORTED")]),
    # osinit.c rm_is_supported_device's refusal, 5xx form (the format filled in): 10de:2d04 (RTX 5060 Ti) is first
    # listed by 575.51.02 (knowledge/gpu_pci_ids.yaml), so 555.58.02 does not know it; the probe line after it is the same fault
    ("[    8.299192] NVRM: The NVIDIA GPU 0000:3c:00.0 (PCI ID: 10de:2d04)\n"
     "               NVRM: installed in this system is not supported by the\n"
     "               NVRM: NVIDIA 555.58.02 driver release.\n"
     "[    8.299233] nvidia 0000:3c:00.0: probe with driver nvidia failed with error -1\n"
     "[    8.299260] NVRM: The NVIDIA probe routine failed for 1 device(s).\n",
     [("gpu_unsupported_by_release", "0000:3c:00.0", "")]),
    # the same GPU under a release that lists it: the chip ID its registers gave is not its own
    ("[    8.299192] NVRM: The NVIDIA GPU 0000:3c:00.0 (PCI ID: 10de:2d04)\n"
     "               NVRM: installed in this system is not supported by the\n"
     "               NVRM: NVIDIA 580.126.09 driver release.\n",
     [("gpu_unsupported_spurious", "0000:3c:00.0", "")]),
    # osinit.c: "Cannot" is a failure word
    ("[  5.0] NVRM: osInitNvMapping: *** Cannot attach gpu\n", [("other", None, "")]),
    # kernel_gsp.c (595) _kgspIsHeartbeatTimedOut: the running GSP stopped beating (open-gpu-kernel-modules#1230), not a boot failure
    ("[   24.302465] NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482"
     " heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200\n", [("gsp_heartbeat_timeout", None, "")]),
    # kernel_gsp.c (595.45) _kgspRpcRecvPoll: an RPC ended with the GSP-RM or LibOS heartbeat stale: the running GSP, not
    # its boot (open-gpu-kernel-modules#1200 as a page mirrors it; were gsp_boot_failed through the generic "_kgsp...: timed out")
    ("NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out\n", [("gsp_heartbeat_timeout", None, "")]),
    ("NVRM: _kgspRpcRecvPoll: LibOS heartbeat timed out\n", [("gsp_heartbeat_timeout", None, "")]),
    # rpc.c (NV_PRINTF_COND): an RPC to the GSP failed; the status names what became of the GPU, one fact a GPU and status
    ("[  9.0] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!\n"
     "[  9.0] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 10!\n"
     "[  9.0] NVRM: rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d0003b; hObject=0xbeef0310; paramsStatus=0x00000000;"
     " status=0x0000000f\n", [("gsp_rpc_failed", None, "NV_ERR_GPU_IS_LOST")]),
    ("[  9.0] NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; hObject=0x5c00005b;"
     " hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062\n",
     [("gsp_rpc_failed", None, "NV_ERR_RESET_REQUIRED")]),
    ("[  9.0] NVRM: _issueRpcAndWait: RPC failed with status 0x1b000 for fn 1!\n", [("gsp_rpc_failed", None, "")]),
    # kernel_gsp.c _kgspFwContainerVerifyVersion: a GSP firmware file of another release, on one line (CONSTRUCTED from
    # the format string's one-line form) or two (Nobara-Project/rpm-sources#526, the fixture below)
    ("[  4.0] NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch: got version 570.172.08, "
     "expected version 570.190\n[  4.0] NVRM: GPU0 kgspInitRm_IMPL: Error preparing GSP-RM image\n",
     [("gsp_firmware_version_mismatch", None, "")]),
    # a control call refused for the caller's reasons is not a GPU state: left as an unexplained failure
    ("[  9.0] NVRM: rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d00001; hObject=0x5c000001; cmd=0x20800a4c;"
     " paramsSize=0x00000010; paramsStatus=0x0000001f; status=0x0000001f\n", [("other", None, "")]),
])
def test_driver_forms(text, want):
    assert [(k, b, s or "") for k, b, s in _kinds(text)] == want


@pytest.mark.parametrize("text", [
    "[  2.0] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  575.64.05  Release Build  (dvs-builder@U16-I3-B03-4-3)\n",
    "[  2.0] NVRM: GPU 0000:41:00.0: GPU serial number is 1653723052734.\n",
    # the probe summary after the device's own failure line: one fact, the device's
    "[  3.0] nvidia: probe of 0000:41:00.0 failed with error -1\n[  3.1] NVRM: The NVIDIA probe routine failed for 1 device(s).\n",
    # the head line cut before the refusal's second line (harvest 504's syslog): no reading of it
    "Jul 01 22:55:07 gpu kernel: NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\n",
    # a GSP function that printed no timeout
    "[  9.0] NVRM: _kgspCheckSlowRpc: Slow RPC response from GPU0 GSP (1200us). Function 76 (GSP_RM_CONTROL) sequence 3.\n",
])
def test_near_misses(text):
    kinds = _kinds(text)
    assert all(k != "probe_failed" for k, _, _ in kinds[1:]) and not any(k in ("gsp_boot_failed", "gsp_rpc_timeout")
                                                                         for k, _, _ in kinds)
    assert len(kinds) <= 1


def test_xid_of_a_mig_instance():
    # kernel_rc.c: an Xid attributed to a GPU instance (and compute instance) names the GPU the same way
    for attr in ("PCI:0000:41:00 GPU-I:05 GPU-CI:01", "PCI:0000:41:00 GPU-I:05"):
        facts = [f for f in _facts(f"[  7.0] NVRM: Xid ({attr}): 43, pid=4242, name=python3, Ch 00000008\n")
                 if f.kind == "xid_event"]
        assert [(f.pci_bus_id, f.xid, f.pid) for f in facts] == [("0000:41:00.0", 43, 4242)]


def test_gsp_rpc_failures_of_a_lost_gpu():
    # open-gpu-kernel-modules#1080: the teardown after a GSP heartbeat timeout, every RPC failing with
    # NV_ERR_GPU_IS_LOST between assertions: one RPC fact (the GPU lost), the assertions as before
    text = open("fixtures/artefacts/kernel_log/ogkm1080_gsp_rpc_failed_gpu_lost.log").read()
    facts = [f for f in _facts(text) if f.kind == "nvrm_error"]
    rpc = [f for f in facts if f.message_kind == "gsp_rpc_failed"]
    assert [(f.status, f.code) for f in rpc] == [("NV_ERR_GPU_IS_LOST", "0x0000000f")]
    assert rpc[0].detail == "GPU0: 4 GSP RPC failures (fn 10, GspRmFree) with status NV_ERR_GPU_IS_LOST"
    assert [f.message_kind for f in facts].count("assert_failed") == 3 and len(facts) == 4


def test_back_to_back_gsp_timeouts_mark_the_gpu_for_reset():
    # open-gpu-kernel-modules#1118 (580.126.20 under Talos): kernel_gsp.c's assertion after three RPC timeouts in a
    # row is the driver marking the GPU for reset, not a failed consistency check; the Xid 119 keeps its own event
    facts = _facts(open("fixtures/artefacts/kernel_log/ogkm1118_talos_xid119_back_to_back_gsp_timeout.log").read())
    nvrm = [(f.message_kind, f.detail) for f in facts if f.kind == "nvrm_error"]
    assert nvrm == [("gsp_stalled_marked_for_reset", "kernel_gsp.c:2387")]
    assert [(f.xid, f.pci_bus_id) for f in facts if f.kind == "xid_event"] == [(119, "0000:0b:00.0")]
    # another assertion without a status stays a driver consistency check
    assert _kinds("[  1.0] NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ kernel_bus.c:1234\n") == [("assert_failed", None, "")]


def test_gsp_rpc_history_cut_out_of_its_dump():
    # open-gpu-kernel-modules#1118: the RPC history rows alone; entry 0 still polled is the RPC that timed out
    text = open("fixtures/artefacts/kernel_log/ogkm1118_talos_gsp_rpc_history_rows.log").read()
    facts = [f for f in _facts(text) if f.kind == "nvrm_error"]
    assert [(f.message_kind, f.detail) for f in facts] == [
        ("gsp_rpc_timeout", "the driver was still waiting for the GSP's answer to RPC GSP_RM_CONTROL (function 76, sequence 4127)")]
    assert facts[0].evidence.line == 1
    # under its Xid 119 (the whole dump) the rows and heads add nothing: the Xid carries the event
    dump = ("[ 9.0] NVRM: Xid (PCI:0000:0b:00): 119, pid=11431, name=gpu-feature-dis, Timeout after 45s of waiting for RPC"
            " response from GPU3 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 4129 (0x20803039 0xb0).\n"
            "[ 9.0] NVRM: GPU3 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) sequence 4129 and data 0x0000000020803039 0x00000000000000b0.\n"
            "[ 9.0] NVRM: GPU3 RPC history (CPU -> GSP):\n"
            "[ 9.0] NVRM:     entry function                     sequence data0              data1              ts_start           ts_end             duration actively_polling\n"
            + "".join(f"[ 9.0] {line}\n" for line in text.splitlines()))
    facts = _facts(dump)
    assert [f.kind for f in facts] == ["xid_event"]
    # an RPC that completed (a duration, no 'y') is history, no fault
    assert _kinds("[ 9.0] NVRM:     -1    76   GSP_RM_CONTROL              4126 0x000000002080a026 0x0000000000000214"
                  " 0x00065013118cf0d0 0x00065013118cf158    136us  \n") == []


@pytest.mark.parametrize("name, want", [
    # NVIDIA/aicr#1858: the continuation pasted without its NVRM: prefix; 580.126.09 lists 10de:2330
    ("aicr1858_h100_not_supported_by_580_release.log", [("gpu_unsupported_spurious", "000a:00:00.0", "10de:2330", "580.126.09")]),
    # Bumblebee-Project/Bumblebee#594: the pre-515 wording, each continuation under its own "NVRM: " ("... the 337.25 /
    # NVIDIA Linux driver release")
    ("bumblebee594_not_supported_by_337_release.log", [("gpu_unsupported_by_release", "0000:01:00.0", "10de:0fd4", "337.25")]),
])
def test_gpu_unsupported_by_release_real(name, want):
    text = open(f"fixtures/artefacts/kernel_log/{name}", encoding="utf-8").read()
    got = [(f.message_kind, f.pci_bus_id, f.pci_id, f.kernel_version) for f in _facts(text) if f.kind == "nvrm_error"]
    assert got == want


@pytest.mark.parametrize("prefix", ["Apr 22 21:30:5{i} node17 kernel: ", "2026-04-22T21:30:5{i}+0000 gpu-node-0 kernel: "])
def test_gpu_unsupported_continuation_under_journald(prefix):
    """journald writes the message's continuation line as a record of its own, prefix and all (the stamp may move
    on): NVIDIA/aicr#1858's lines under journalctl's short and short-iso forms (bench/wrap_study.py) read as bare."""
    lines = open("fixtures/artefacts/kernel_log/aicr1858_h100_not_supported_by_580_release.log", encoding="utf-8").read().splitlines()
    text = "".join(prefix.format(i=i) + line + "\n" for i, line in enumerate(lines))
    got = [(f.message_kind, f.pci_bus_id, f.pci_id, f.kernel_version) for f in _facts(text) if f.kind == "nvrm_error"]
    assert got == [("gpu_unsupported_spurious", "000a:00:00.0", "10de:2330", "580.126.09")]
    # near miss: the continuation under another host's prefix is not this message's
    other = text.replace("kernel:       is", "kernel:x      is").replace(" node17 ", " node18 ", 1)
    assert all(f.message_kind != "gpu_unsupported_spurious" for f in _facts(other) if f.kind == "nvrm_error")


def test_firmware_loader_line_alone_is_a_kernel_log():
    """A paste of the loader's line alone, without a prefix, is a kernel log (NixOS/nixpkgs#454772)."""
    assert kernel_log.detect("nvidia 0000:00:1e.0: Direct firmware load for nvidia/565.57.01/gsp_tu10x.bin failed with error -2\n")
    assert not kernel_log.detect("Direct firmware load for nvidia is a phrase in a sentence\n")


def test_gsp_crashcat_banner():
    # kernel_gsp.c kgspHealthCheck's banner before a CrashCat report: read with the report's Xid 120 after it, a fact alone
    banner = "[  9.0] NVRM: kgspHealthCheck_TU102: ****************************** GSP-CrashCat Report *******************************\n"
    # the banner, GPU and Xid lines of NVIDIA/open-gpu-kernel-modules#876 (harvest case 506), times shortened
    xid = ("[  9.0] NVRM: Xid (PCI:0000:01:00): 120, GSP task exception: load access page fault (cause:0xd) @ pc:0x140c7f6, "
           "partition:4#0, task:3\n")
    facts = _facts(banner + "[  9.0] NVRM: GPU at PCI:0000:01:00: GPU-29689fa2-005b-bfbd-b7ad-94fde3bc2b16\n" + xid)
    assert [f.kind for f in facts if f.kind in ("nvrm_error", "xid_event")] == ["xid_event"]
    assert _kinds(banner) == [("gsp_crash_report", None, "")]
    watchdog = "[  9.0] NVRM: GPU1 kgspHealthCheck_GH100: *************************** LibOS Task Watchdog Report ***************************\n"
    assert [(f.message_kind, f.detail) for f in _facts(watchdog)] == [("gsp_crash_report", "LibOS Task Watchdog report")]
    # a line that only mentions the report is not its banner
    assert _kinds("[  9.0] NVRM: kgspHealthCheck_TU102: GSP-CrashCat Report follows\n") == []


def test_rc_watchdog_read_with_its_xid8():
    # kernel_rc_watchdog.c krcWatchdog_IMPL: "RC watchdog: GPU is probably locked!  Notify Timeout Seconds: %d"; the Xid 8
    # after it carries the event (ggml-org/llama.cpp#27102's whole record, journald with a lower-case month and no host)
    text = open("fixtures/artefacts/kernel_log/llamacpp27102_rc_watchdog_xid8_journald_nohost.log", encoding="utf-8").read()
    facts = _facts(text)
    assert [(f.kind, getattr(f, "xid", None)) for f in facts if f.kind in ("nvrm_error", "xid_event")] == [("xid_event", 8)]
    # the watchdog's line alone (its Xid 8 cut from the paste; llama.cpp#27330's line, quoted and without a host)
    alone = "> Sep 08 22:36:47 kernel: NVRM: krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify Timeout Seconds: 7\n"
    assert [(f.message_kind, f.detail) for f in _facts(alone) if f.kind == "nvrm_error"] == [("rc_watchdog_timeout", "no answer within 7 s")]
    # the watchdog's other, milder line (GPU possibly locked, restarting the watchdog) is not the timeout
    assert _kinds("[  9.0] NVRM: krcWatchdog_IMPL: RC watchdog: GPU is possibly locked. Attempting to restart watchdog.\n") != [
        ("rc_watchdog_timeout", None, "")]


def test_gpu_at_line_of_r384_drivers_without_pci_prefix():
    # docs.nvidia.com/deploy/xid-errors (vR384): the first Xid's "GPU at" line without "PCI:" and the Xid beside it,
    # the "[…]" the page puts for the line's prefix kept; the bus ids of both agree
    text = ("[…] NVRM: GPU at 0000:03:00: GPU-b850f46d-d5ea-c752-ddf3-c4453e44d3f7 \n"
            "[…] NVRM: Xid (0000:03:00): 14, Channel 00000001 \n")
    facts = _facts(text)
    assert [(f.kind, f.pci_bus_id, getattr(f, "uuid", None)) for f in facts] == [
        ("kernel_gpu_seen", "0000:03:00.0", "GPU-b850f46d-d5ea-c752-ddf3-c4453e44d3f7"), ("xid_event", "0000:03:00.0", None)]
    # near miss: the fallen-off-the-bus line's "GPU at <bdf> has" is no GPU-at line (no ": GPU-" after the id)
    assert [f.kind for f in _facts("[  9.0] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n")] != ["kernel_gpu_seen"]


def test_multi_line_record_as_dev_kmsg_escapes_it():
    # a reader of /dev/kmsg (talosctl dmesg) prints a record of several lines on one, each newline escaped
    # (kernel/printk/printk.c msg_add_ext_text: "\\x%02x"): the driver's six-line refusal of a GPU (osinit.c
    # print_unsupported) and its four-line API mismatch, CONSTRUCTED from their formats under Talos' prefix
    pre = "node1: kern: warning: [2023-09-14T03:08:37.411164757Z]: "
    text = (pre + r"NVRM: The NVIDIA GPU 0000:00:10.0 (PCI ID: 10de:1b38)\x0aNVRM: installed in this system is not supported by the"
            r"\x0aNVRM: NVIDIA 535.54.03 driver release.\x0aNVRM: Please see 'Appendix A - Supported NVIDIA GPU Products'"
            r"\x0aNVRM: in this release's README, available on the operating system\x0aNVRM: specific graphics driver download"
            " page at www.nvidia.com.\n"
            + pre + "nvidia: probe of 0000:00:10.0 failed with error -1\n"
            + pre + r"NVRM: API mismatch: the client has the version 535.54.03, but\x0aNVRM: this kernel module has the version"
            r" 535.104.05.  Please\x0aNVRM: make sure that this kernel module and all NVIDIA driver\x0aNVRM: components have"
            " the same version.\n")
    a = Artefact(path="dmesg.log", text=text, node="n1")
    a.normalise()
    r = kernel_log.parse(a)
    got = [(f.message_kind, f.pci_bus_id, f.evidence.line) for f in r.facts if f.kind == "nvrm_error"]
    assert got[0][0].startswith("gpu_unsupported") and got[0][1:] == ("0000:00:10.0", 1)
    assert ("api_mismatch", None, 3) in got
    assert all(k != "probe_failed" for k, _, _ in got)  # the probe's failure is the refusal's, no second reason
    assert "\\x0a" in r.facts[0].evidence.text  # the evidence quotes the line as read


def test_xid_line_of_old_drivers_bus_and_slot():
    # the 1.0-96xx to R2xx drivers' "(%04x:%02x)": bus then slot, no domain; the line as a 2008 post on
    # forums.developer.nvidia.com/t/deciphering-an-nvrm-xid-message/2574 quotes it (a page round rB1 cites), and
    # "NVRM: Xid (0001:00): 6, PE0001" as syslogs of those drivers print it beside "nvidia 0000:01:00.0"
    facts = _facts("NVRM: Xid (0003:00): 8, Channel 00000001\n"
                   "[  265.538924] NVRM: Xid (0001:00): 6, PE0001 \n")
    assert [(f.kind, f.pci_bus_id, f.xid) for f in facts] == [
        ("xid_event", "0000:03:00.0", 8), ("xid_event", "0000:01:00.0", 6)]
    # near miss: five digits before the colon is no bus of that form; the line stays a parse problem, not dropped
    fixture = pathlib.Path(__file__).parents[2] / "fixtures/artefacts/kernel_log/nvforum2574_xid8_old_bus_slot.log"
    assert [(f.pci_bus_id, f.xid) for f in _facts(fixture.read_text())] == [("0000:03:00.0", 8)]
    r = kernel_log.parse(Artefact(path="dmesg.log", text="NVRM: Xid (00001:00): 8, Channel 00000001\n", node="n1"))
    assert r.facts == [] and [e.message for e in r.errors] == ["bad PCI bus id '00001:00' in Xid line"]


@pytest.mark.parametrize("name, want", [
    # NVIDIA/gpu-operator#232: BAR0 requested at 0M @ 0x0 is a window never assigned; the probe line after it names the
    # GPU (and is its own fact, rules/gpu/nvrm_driver_message.yaml's cascade of the BAR); the summary cut inside
    # "device(s)" is read as the summary
    ("gpuop232_region_0m_at_0x0_probe_failed.log", [("bar_invalid", "0000:af:00.0", "BAR0 is 0M @ 0x0 (no window assigned)"),
                                                    ("probe_failed", "0000:af:00.0", None)]),
    # forum.proxmox.com thread 179366: the BAR line grepped away; the probe line names the GPU
    ("pvefs179366_bar_invalid_without_bar_line.log", [("bar_invalid", "0000:01:00.0", None),
                                                      ("probe_failed", "0000:01:00.0", None)]),
    # pdbear/syno_nvidia_gpu_driver#68: "rm_init_adapter failed, d" cut at the paste's end, the companion of the failure before it
    ("syno68_rm_init_adapter_cut_at_end.log", [("rm_init_adapter_failed", "0000:01:00.0", None)] * 2),
])
def test_probe_and_init_failures_real(name, want):
    r = kernel_log.parse(Artefact(path=f"kernel_log/{name}", text=open(f"fixtures/artefacts/kernel_log/{name}", encoding="utf-8").read(),
                                  node="n1"))
    assert r.errors == []
    got = [(f.message_kind, f.pci_bus_id, f.detail) for f in r.facts if f.kind == "nvrm_error"]
    assert got == want
    assert not [f for f in r.facts if f.kind == "nvrm_error" and f.message_kind == "other"]


@pytest.mark.parametrize("text, want", [
    # CONSTRUCTED from nv-pci.c's format: a window busy at a real address stays region_busy, the probe line its GPU
    ("[  2.0] NVRM: request_mem_region failed for 16M @ 0xfa000000. This can\n"
     "[  2.0] NVRM: occur when a driver such as rivatv is loaded and claims\n"
     "[  2.0] NVRM: ownership of the device's registers.\n"
     "[  2.0] nvidia: probe of 0000:41:00.0 failed with error -1\n",
     [("region_busy", "0000:41:00.0", ""), ("probe_failed", "0000:41:00.0", "")]),
    # CONSTRUCTED: past another driver message, a probe line is that message's, not the BAR head's
    ("[  2.0] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\n"
     "[  2.0] NVRM: GPU 0000:14:00.0: RmInitAdapter failed! (0x22:0x56:667)\n"
     "[  2.0] nvidia: probe of 0000:1b:00.0 failed with error -1\n",
     [("bar_invalid", None, ""), ("rm_init_adapter_failed", "0000:14:00.0", "NV_ERR_NOT_SUPPORTED"), ("probe_failed", "0000:1b:00.0", "")]),
    # CONSTRUCTED: a cut that is no beginning of the driver's wording is not the companion
    ("[  3.0] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, xyz\n", [("other", None, "")]),
])
def test_probe_neighbours(text, want):
    assert [(k, b, s or "") for k, b, s in _kinds(text)] == want


# round rY2: BAR1 / GPU VA space exhaustion and the kernel's ioremap sanity check on an NVIDIA module's mapping
_FIX = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"


def test_va_space_exhausted_with_its_assertions_is_one_event():
    # NVIDIA/open-gpu-kernel-modules#1132: the VA line, then two NV_ERR_NO_MEMORY assertions of the mapping-reuse code
    got = _kinds((_FIX / "ogkm1132_va_space_exhausted_bar1_reuse.log").read_text())
    assert got == [("va_space_exhausted", None, "")]


def test_va_space_burst_and_mapping_past_the_gpus_bar():
    # NVIDIA/open-gpu-kernel-modules#1140: a burst of VA lines is one fact; "caller ... [nvidia_drm] mapping multiple BARs"
    # with the sanity check above it names the GPU whose BAR the mapping ran past
    facts = [f for f in _facts((_FIX / "ogkm1140_va_space_sanity_check_nvidia_drm.log").read_text()) if f.kind == "nvrm_error"]
    assert [(f.message_kind, f.pci_bus_id) for f in facts] == [("va_space_exhausted", None), ("bar_map_overrun", "0000:0a:00.0")]
    assert facts[1].detail == ("__nv_drm_gem_nvkms_map [nvidia_drm] mapped [mem 0x00000000dfd20000-0x00000000e004ffff], past "
                               "0000:0a:00.0 [mem 0xd0000000-0xdfffffff 64bit pref]")


@pytest.mark.parametrize("text, want", [
    # CONSTRUCTED from virt_mem_allocator_gm107.c's format with a GPU prefix: the exhaustion
    ("[  9.0] NVRM: GPU0 dmaAllocMapping_GM107: can't alloc VA space for mapping.\n", [("va_space_exhausted", None, "")]),
    # NVIDIA/open-gpu-kernel-modules#1078's line (real): the mapping not written into its VA space
    ("[  500.963439] NVRM: dmaAllocMapping_GM107: can't update VA space for mapping @vaddr=0x93210000\n", [("va_update_failed", None, "")]),
    # CONSTRUCTED from nvassert.c's format: NV_ERR_NO_MEMORY elsewhere stays a driver assertion
    ("[  9.0] NVRM: nvAssertOkFailedNoLog: Assertion failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from "
     "memdescAlloc(pMemDesc) @ mem_desc.c:1234\n", [("assert_failed", None, "NV_ERR_NO_MEMORY")]),
    # CONSTRUCTED from kernel/resource.c and arch/x86/mm/ioremap.c's formats: the legacy area under a bus window, [nvidia]
    ("[  9.0] resource sanity check: requesting [mem 0x000c0000-0x000dffff], which spans more than PCI Bus 0000:00 "
     "[mem 0x000c0000-0x000cbfff window]\n[  9.0] caller _nv012345rm+0x1a/0x40 [nvidia] mapping multiple BARs\n",
     [("bar_map_overrun", None, "")]),
    # CONSTRUCTED: another module's mapping is not the NVIDIA driver's to explain
    ("[  9.0] resource sanity check: requesting [mem 0x000c0000-0x000dffff], which spans more than pnp 00:02 "
     "[mem 0x000d2000-0x000d2fff]\n[  9.0] caller pci_map_rom+0x68/0x1c0 mapping multiple BARs\n", []),
])
def test_va_and_bar_map_forms(text, want):
    assert _kinds(text) == want


def test_gsp_firmware_version_mismatch_on_two_lines():
    """Nobara-Project/rpm-sources#526: the versions on the message's untagged second line, its consequences read with it."""
    text = (pathlib.Path(__file__).parents[2] / "fixtures/artefacts/kernel_log/nobara526_gsp_firmware_version_mismatch.log").read_text()
    facts = [f for f in _facts(text) if f.kind == "nvrm_error"]
    assert [(f.message_kind, f.kernel_version, f.detail) for f in facts] == [
        ("gsp_firmware_version_mismatch", "595.58.03", "the GSP firmware file is 595.71.05, the kernel module 595.58.03")]


def test_gsp_firmware_version_mismatch_near_miss():
    """kgspInitRm_IMPL's line alone (no version compare before it) is not the mismatch."""
    assert all(k != "gsp_firmware_version_mismatch"
               for k, _, _ in _kinds("[  4.0] NVRM: GPU0 kgspInitRm_IMPL: Error preparing GSP-RM image\n"))
