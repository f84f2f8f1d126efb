"""kernel_log parser: real capture, public variant lines, negatives, malformed and mixed input."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact, ParseError

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"
OBS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"


def parse_file(name: str, node: str = "n1", from_folder: bool = False):
    text = (FIX / name).read_text()
    return kernel_log.parse(Artefact(path=f"kernel_log/{name}", text=text, node=node, node_from_folder=from_folder))


def parse_text(text: str, node: str = "n1"):
    return kernel_log.parse(Artefact(path="t.log", text=text, node=node))


def of(result, kind):
    return [f for f in result.facts if f.kind == kind]


def test_real_capture_dmesg_T():
    r = parse_file("dmesg-nvrm.log", node="vm")
    assert r.errors == []
    assert r.lines_used == 4  # driver load, GPU at, serial, Xid
    (drv,) = of(r, "nvidia_driver_loaded")
    assert (drv.version, drv.open_module, drv.arch, drv.evidence.line) == ("580.159.04", True, "x86_64", 3)
    (seen,) = of(r, "kernel_gpu_seen")
    assert seen.pci_bus_id == "0000:00:06.0"
    assert seen.uuid == "GPU-5cc6fa16-d7a0-98bf-3d43-f0337652e85f"
    assert seen.serial == "1653724056161"
    (x,) = of(r, "xid_event")
    assert (x.pci_bus_id, x.xid, x.pid, x.process, x.boot) == ("0000:00:06.0", 31, 1883, "python3", 0)
    assert x.timestamp == "Sun Nov 29 18:32:13 2026"
    assert x.gpc == "GPC1" and x.channel == "0x0000000a"
    assert (x.mmu_engine, x.mmu_client, x.mmu_fault_type, x.mmu_access_type) == (
        "GRAPHICS", "GPCCLIENT_T1_8", "FAULT_PDE", "ACCESS_TYPE_VIRT_WRITE")
    assert x.message.startswith("channel 0x0000000a, intr 00000000. MMU Fault:")
    assert x.node == "vm" and x.evidence.line == 9 and "NVRM: Xid" in x.evidence.text
    assert x.id == "kernel_log/dmesg-nvrm.log:9:xid_event"


def test_detect_real_files():
    assert kernel_log.detect((FIX / "dmesg-nvrm.log").read_text())
    app = FIX.parent / "cuda_app" / "app-illegal-address.txt"
    assert not kernel_log.detect(app.read_text())
    assert parse_file("../cuda_app/app-illegal-address.txt").facts == []


@pytest.mark.parametrize("text,is_kernel", [
    # UCX's log prefix (ucs_log_default_handler "[%lu.%06lu] [%s:%-4d:%d]"), openucx/ucx#9908's protocol table
    ("[1717282080.182092] [gpu1:3836092:0]   +---------------------------+---------------------------------+\n", False),
    ("[1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: "
     "Cannot allocate memory\n", False),
    # the kernel's own stamp stays a kernel log, a bracketed subsystem after it too
    ("[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n", True),
    ("[    3.828704] [drm:nv_drm_load [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000400] Failed to allocate "
     "NvKmsKapiDevice\n", True),  # NVIDIA/open-gpu-kernel-modules#230
])
def test_detect_kernel_stamp_not_ucx_prefix(text, is_kernel):
    assert kernel_log.detect(text) is is_kernel


@pytest.mark.skipif(not OBS.is_dir(), reason="shared observations not present")
def test_detect_false_on_other_real_captures():
    for f in sorted(OBS.rglob("*")):
        if not f.is_file() or f.name == "README.md":
            continue
        head = f.read_text(errors="replace")[:65536]
        assert kernel_log.detect(head) == (f.name == "dmesg-nvrm.log"), f


# (line, xid, pci_bus_id, pid, process, message start, extra fields)
XID_ROWS = [
    ("[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp "
     "Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter",
     13, "0000:cb:00.0", None, None, "Graphics SM Warp Exception", {"gpc": "GPC7", "tpc": "TPC7", "sm": "SM0"}),
    ("Feb 15 17:37:45 Gipfeli kernel: [82659.755933] NVRM: Xid (PCI:0000:41:00): 13, Graphics SM Warp Exception on "
     "(GPC 1, TPC 0, SM 0): Illegal Instruction Encoding",
     13, "0000:41:00.0", None, None, "Graphics SM", {"gpc": "GPC1", "tpc": "TPC0", "node": "Gipfeli",
                                                    "timestamp": "Feb 15 17:37:45"}),
    ("[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
     79, "0000:91:00.0", None, None, "GPU has fallen off the bus.", {"timestamp": "6781741.548779"}),
    ("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
     79, "0000:3b:00.0", None, None, "GPU has fallen off the bus.", {"timestamp": None}),
    ("[Fri Aug 30 11:43:14 2024] NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, "
     "errorString CTX SWITCH TIMEOUT, Info 0x58005",
     109, "0000:cb:00.0", 1797828, "pt_main_thread", "Ch 00000008", {"channel": "0x00000008"}),
    ("2026-11-29T18:32:13+0000 node17 kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, "
     "Ch 00000001 caused by previous Xid 149",
     45, "0000:dc:00.0", 1818990, "python3", "Ch 00000001", {"node": "node17", "timestamp": "2026-11-29T18:32:13+0000"}),
    ("[  +0.000844] NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 "
     "0x00000000 0x00000000 0x00000000)",
     144, "0000:01:00.0", None, None, "SAW_MVB Nonfatal", {"timestamp": "+0.000844"}),
    # fields aligned in columns by the reporter (NVIDIA/open-gpu-kernel-modules#1146; R595 "channel 0x%08x, CTX SWITCH TIMEOUT")
    ("Sep 18 20:07:01 NVRM: Xid (PCI:0000:02:00): 109, pid=8494,   name=RenderThread, channel 0x0000000d, CTX SWITCH "
     "TIMEOUT, Info 0x14c011",
     109, "0000:02:00.0", 8494, "RenderThread", "channel 0x0000000d", {"channel": "0x0000000d"}),
    # a fault the driver's tables cannot name (sgl-project/sglang#29160, a B200 on 580.82.07)
    ("[Wed Jun 24 15:44:42 2026] NVRM: Xid (PCI:0000:70:00): 31, pid=684430, name=python3, channel 0x00000002, intr "
     "00000000. MMU Fault: ENGINE GRAPHICS GPC1 UNRECOGNIZED_CLIENT faulted @ 0x1827f9_000b4bc0. Fault is of type "
     "UNRECOGNIZED_FAULT UNRECOGNIZED_ACCESS_TYPE",
     31, "0000:70:00.0", 684430, "python3", "channel 0x00000002",
     {"gpc": "GPC1", "mmu_client": "UNRECOGNIZED_CLIENT", "mmu_fault_type": "UNRECOGNIZED_FAULT",
      "mmu_access_type": "UNRECOGNIZED_ACCESS_TYPE"}),
]


@pytest.mark.parametrize("line,xid,bus,pid,process,msg,extra", XID_ROWS)
def test_xid_rows(line, xid, bus, pid, process, msg, extra):
    r = parse_text(line + "\n")
    assert r.errors == [] and r.lines_used == 1
    (x,) = of(r, "xid_event")
    assert (x.xid, x.pci_bus_id, x.pid, x.process) == (xid, bus, pid, process)
    assert x.message.startswith(msg)
    for k, v in extra.items():
        assert getattr(x, k) == v, k


NEGATIVE_ROWS = [
    "[Sun Nov 29 18:28:44 2026] NVRM: Persistence mode is deprecated and will be removed in a future release.",
    "[Sun Nov 29 18:28:40 2026] nvidia-nvlink: Nvlink Core is being initialized, major device number 240",
    "[  +0.000001] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)",
    "[  217.071234] pcieport 0000:a9:10.0: pciehp: Slot(272): Link Down/Up ignored (recovered by DPC)",
    "[    0.113274] Kernel command line: BOOT_IMAGE=/vmlinuz-6.8.12-5-pve root=ZFS=/ROOT/pve-1 ro",
    "caught: cudaErrorIllegalAddress: an illegal memory access was encountered",
    "Jun  6 22:53:11 zozio32-p6-2487ea wpa_supplicant[1109]: wlp3s0: WPA: Group rekeying completed",
    "",
]


@pytest.mark.parametrize("line", NEGATIVE_ROWS)
def test_negative_rows(line):
    r = parse_text(line + "\n")
    assert r.facts == [] and r.errors == [] and r.lines_used == 0


def test_xid_line_with_its_bus_id_left_out_is_the_quoted_pair():
    # metaverse-oky.blogspot.com (2026-03): the driver's line with "(PCI:...)" left out by the poster keeps the
    # code-and-message pair an alert quotes: read as xid_quoted (no GPU named), not a parse error
    r = parse_file("metaverseoky_xid13_bus_id_left_out.log")
    assert r.errors == [] and r.lines_used == 1
    (q,) = of(r, "xid_quoted")
    assert (q.xid, q.message, q.gpu_index, q.node) == (13, "Graphics SM Warp Exception", None, "n1")
    assert of(r, "xid_event") == []
    # CONSTRUCTED from NVIDIA's documentation heading ("Xid 119, 120: GSP RPC Timeout / GSP Error"): a list of codes,
    # no message, stays a parse error; so does a code with nothing after it
    for line in ("NVRM: Xid 119, 120: GSP RPC Timeout", "NVRM: Xid 79"):
        r = parse_text(line + "\n")
        assert of(r, "xid_quoted") == [] and len(r.errors) == 1, line


def test_xid120_crashcat_report_lines_read_with_it():
    # NVIDIA/open-gpu-kernel-modules#876 (fixtures/harvest case 506's dmesg.log, cut after the report's first line):
    # the GSP CrashCat report line indented under the Xid 120 line is its detail
    text = """[   87.526688] NVRM: GPU at PCI:0000:01:00: GPU-29689fa2-005b-bfbd-b7ad-94fde3bc2b16
[   87.526689] NVRM: Xid (PCI:0000:01:00): 120, GSP task exception: load access page fault (cause:0xd) @ pc:0x140c7f6, partition:4#0, task:3
[   87.526693] NVRM:     Reported by libos partition:4#5 kernel v3.1 [0] @ ts:2
"""
    r = parse_text(text)
    assert r.errors == []
    (x,) = of(r, "xid_event")
    assert (x.xid, x.pci_bus_id) == (120, "0000:01:00.0")
    assert r.lines_used == 3  # GPU at, the Xid and its report line
    # the next unindented line is not the report's (the same paste's earlier line, put after it)
    r = parse_text(text + "[   85.552379] NVRM: testIfDsmSubFunctionEnabled: GPS ACPI DSM called before _acpiDsmSupportedFuncCacheInit subfunction = 11.\n")
    assert r.lines_used == 3


def test_indented_nvrm_line_without_xid_before_is_not_claimed():
    r = parse_text("[  1.000000] NVRM:     RISC-V CSR State:\n")
    assert of(r, "xid_event") == [] and r.lines_used == 0


def test_empty_input():
    r = parse_text("")
    assert r.facts == [] and r.errors == [] and r.lines_used == 0


def test_syslog_xid79_fell_off_bus_host_is_node():
    r = parse_file("syslog_xid79_fell_off_bus.log")
    assert r.errors == []
    (x,) = of(r, "xid_event")
    assert (x.xid, x.pci_bus_id, x.pid, x.process, x.node) == (79, "0000:01:00.0", None, None, "zozio32-p6-2487ea")
    assert x.timestamp == "Jun  5 22:36:51"
    (fell,) = of(r, "gpu_fell_off_bus")  # "NVRM: GPU at 0000:01:00.0 has fallen off the bus."
    assert (fell.pci_bus_id, fell.evidence.line) == ("0000:01:00.0", 5)
    (seen,) = of(r, "kernel_gpu_seen")
    assert seen.uuid == "GPU-435cb66f-d89f-a234-9414-70b032521666" and seen.serial is None
    assert r.lines_used == 3


def test_node_from_folder_wins_over_syslog_host():
    r = parse_file("syslog_xid79_fell_off_bus.log", node="node7", from_folder=True)
    assert {f.node for f in r.facts} == {"node7"}


def test_xid79_continuations_and_serial():
    r = parse_file("dmesg_xid79_sxid.log")
    assert r.errors == [] and r.lines_used == 13
    (x,) = of(r, "xid_event")
    assert (x.xid, x.pid, x.process) == (79, None, None)
    (fell,) = of(r, "gpu_fell_off_bus")
    assert (fell.pci_bus_id, fell.evidence.line) == ("0000:91:00.0", 4)
    seen = of(r, "kernel_gpu_seen")
    assert [(s.evidence.line, s.uuid, s.serial) for s in seen] == [
        (1, "GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b", "1653723052734"), (5, None, "1653723052734")]


def test_sxid_fatal_lines_and_detail_lines():
    r = parse_file("dmesg_xid79_sxid.log")
    sx = of(r, "nvswitch_sxid")
    assert [(s.switch, s.switch_name, s.sxid, s.fatal, s.link) for s in sx] == [
        ("0000:06:00.0", "nvidia-nvswitch1", 20034, True, 48),
        ("0000:05:00.0", "nvidia-nvswitch0", 20034, True, 63),
        ("0000:07:00.0", "nvidia-nvswitch2", 20034, True, 37),
        ("0000:05:00.0", "nvidia-nvswitch0", 20034, True, 62),
    ]
    assert sx[0].message == "Fatal, Link 48 LTSSM Fault Up"


def test_sxid_nonfatal():
    r = parse_file("dmesg_sxid_nonfatal_open_module.log")
    assert r.lines_used == 6
    assert [(s.sxid, s.fatal, s.link) for s in of(r, "nvswitch_sxid")] == [(22013, False, 44), (22013, False, 45)]
    (drv,) = of(r, "nvidia_driver_loaded")
    assert (drv.version, drv.open_module) == ("570.195.03", True)


def test_sxid_data_line_alone_dmesg_iso():
    r = parse_file("dmesg_iso_sxid_data_only.log")
    (s,) = of(r, "nvswitch_sxid")
    assert (s.switch, s.sxid, s.fatal, s.link) == ("0000:84:00.0", 12028, None, None)
    assert s.timestamp == "2025-01-25T10:34:54,859532+00:00"


def test_fell_off_bus_one_line():
    r = parse_text("[ 5.1] NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330) installed in this system has fallen "
                   "off the bus and is not responding to commands.\n")
    (fell,) = of(r, "gpu_fell_off_bus")
    assert (fell.pci_bus_id, fell.pci_device_id) == ("0000:3b:00.0", "10de:2330")


def test_xid154_recovery_action():
    r = parse_file("dmesg_T_xid13_xid154.log")
    assert r.errors == [] and r.lines_used == 7  # with line 1, nvidia-peermem's invalid-context diagnostic
    xids = of(r, "xid_event")
    assert [x.xid for x in xids] == [13, 13, 13, 109, 119, 154]
    assert xids[-1].recovery_action == "GPU Reset Required"
    assert xids[-1].timestamp == "Mon Apr  6 07:25:24 2026"
    (ra,) = of(r, "gpu_recovery_action")
    assert (ra.pci_bus_id, ra.action, ra.action_code, ra.previous_action) == (
        "0000:97:00.0", "GPU Reset Required", 1, "None")


def test_peermem_invalid_context_diagnostic():
    # line 1 of the H100 report (dmesg -T); the same line under a monotonic stamp (Mellanox/nv_peer_memory#120)
    (p,) = of(parse_file("dmesg_T_xid13_xid154.log"), "peermem_invalid_context")
    assert (p.module, p.function, p.evidence.line, p.timestamp) == (
        "nvidia_peermem", "nv_get_p2p_free_callback", 1, "Fri Aug 30 11:11:22 2024")
    r = parse_text("[25033.266922] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, "
                   "skipping further processing\n")
    assert [f.kind for f in r.facts] == ["peermem_invalid_context"] and r.lines_used == 1
    # nv_peer_mem's invalid page_table note is another message (a driver bug, nv_peer_memory#112): not this fact
    r = parse_text("[  100.000001] nv_mem nv_get_p2p_free_callback:144 nv_get_p2p_free_callback -- invalid page_table\n")
    assert of(r, "peermem_invalid_context") == []


def test_aer_fatal_reltime_groups_continuations():
    r = parse_file("dmesg_aer_reltime.log")
    (a,) = of(r, "pcie_aer_error")
    assert (a.device, a.reporter, a.severity, a.error_type, a.agent, a.multiple) == (
        "0000:00:03.0", "0000:00:03.0", "fatal", "Transaction Layer", "Requester ID", True)
    assert (a.pci_device_id, a.error_status, a.errors, a.first_error) == ("8086:6f08", "00004020", "SDES,CmpltTO", "CmpltTO")
    assert a.evidence.line == 4 and a.timestamp == "+0.000001"
    assert (a.bridge, a.gpu_bus_id) == ("0000:00:03.0", None)  # the root port's own error: a port, not a GPU
    # received, Bus Error, status, two bits; and two recoveries: each result line with the lines of that recovery before it
    # (the drivers without an error callback, the root port's link reset)
    assert r.lines_used == 12
    rec = of(r, "pcie_aer_recovery")
    assert [(x.evidence.line, x.result, x.device, x.bridge, x.gpu_bus_id, x.without_callback, x.link_reset) for x in rec] == [
        (3, "failed", "0000:00:03.0", "0000:00:03.0", None, "0000:03:00.0 (nvidia), 0000:03:00.1 (snd_hda_intel)", None),
        (12, "failed", "0000:00:03.0", "0000:00:03.0", None, "0000:03:00.0 (nvidia), 0000:03:00.1 (snd_hda_intel)",
         "Root Port link has been reset (0)"),
    ]


def test_aer_recovery_of_a_switch_port_rhkb7128107():
    # the error's source is a PCIe switch's downstream port (pcieport): named as a bridge, not as a GPU; the recovery's lines
    # (a device with no driver bound, the port's link reset) read into its failed result
    r = parse_file("rhkb7128107_switch_port_fatal_recovery_failed.log")
    assert r.errors == [] and r.lines_used == 7
    (a,) = of(r, "pcie_aer_error")
    assert (a.device, a.reporter, a.device_driver, a.bridge, a.gpu_bus_id, a.errors) == (
        "0000:03:04.0", "0000:00:1b.2", "pcieport", "0000:03:04.0", None, "SDES")
    (x,) = of(r, "pcie_aer_recovery")
    assert (x.evidence.line, x.result, x.device, x.device_driver, x.bridge, x.without_callback, x.link_reset) == (
        7, "failed", "0000:03:04.0", "pcieport", "0000:03:04.0", "0000:05:00.0 (pci)", "Downstream Port link has been reset (0)")


def test_aer_recovery_forms():
    # CONSTRUCTED from the upstream strings: aerdrv_core.c (before 4.19) "AER: Device recovery successful", "device has %s"
    # ("no AER-aware driver"); err.c pci_dbg "broadcast %s message"; a result printed at the error's source (before 5.11)
    text = ("[  10.000001] nvidia 0000:3b:00.0: device has no AER-aware driver\n"
            "[  10.000002] pcieport 0000:00:01.0: AER: broadcast error_detected message\n"
            "[  10.000003] nvidia 0000:3b:00.0: AER: Device recovery successful\n")
    r = parse_text(text)
    (x,) = of(r, "pcie_aer_recovery")
    assert (x.result, x.device, x.bridge, x.gpu_bus_id, x.without_callback, x.link_reset) == (
        "successful", "0000:3b:00.0", None, "0000:3b:00.0", "0000:3b:00.0 (nvidia)", None)
    assert r.lines_used == 3
    # a driver without the callback alone does not decide the result (a frozen link's reset may still recover): no fact
    r = parse_text("[  10.000001] nvidia 0000:3b:00.0: AER: can't recover (no error_detected callback)\n")
    assert of(r, "pcie_aer_recovery") == [] and r.lines_used == 0
    # another driver's device (an NVMe drive) is neither a bridge nor a GPU: a finding names the node
    text = ("[ 58.321146] pcieport 0000:00:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0\n"
            "[ 58.329622] nvme 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, "
            "(Requester ID)\n")
    (a,) = of(parse_text(text), "pcie_aer_error")
    assert (a.device, a.device_driver, a.bridge, a.gpu_bus_id) == ("0000:3b:00.0", "nvme", None, None)


def test_aer_correctable_syslog():
    # kernel 6.x/7.x wording ("Correctable error message received from") in syslog framing
    r = parse_file("syslog_aer_correctable_headerof.log")
    assert r.errors == [] and r.lines_used == 4  # the aer_ratelimit line is not an AER event
    (a,) = of(r, "pcie_aer_error")
    assert (a.device, a.reporter, a.severity, a.error_type, a.agent, a.errors, a.multiple, a.node) == (
        "0000:80:1b.4", "0000:80:1b.4", "corrected", "Transaction Layer", "Receiver ID", "HeaderOF", True, "pve")
    assert a.evidence.line == 2 and a.timestamp == "Sep 22 09:59:08"


def test_aer_correctable_then_no_details():
    r = parse_file("dmesg_aer_correctable_no_details.log")
    assert r.errors == [] and r.lines_used == 6  # "found no error details" is not read
    aer = of(r, "pcie_aer_error")
    assert [(a.evidence.line, a.device, a.reporter, a.severity, a.error_type, a.agent, a.errors) for a in aer] == [
        (1, "0000:00:01.0", "0000:00:01.0", "corrected", "Physical Layer", "Receiver ID", "RxErr,BadTLP"),
        (6, "0000:00:01.0", "0000:00:01.0", "corrected", None, None, None),  # received, but no details found
    ]
    assert (aer[0].first_error, aer[0].error_status, aer[0].timestamp) == ("RxErr", "00000041", "13080.462367")


def test_aer_old_requester_id():
    r = parse_file("dmesg_aer_requester_id.log")
    assert r.errors == [] and r.lines_used == 4
    (a,) = of(r, "pcie_aer_error")
    assert (a.device, a.severity, a.error_type, a.agent, a.errors, a.multiple) == (
        "0000:00:1d.0", "corrected", "Physical Layer", "Receiver ID", "Receiver Error", True)


def test_aer_requester_id_in_a_vmd_domain():
    # CONSTRUCTED from dmesg_aer_requester_id.log's head line under a VMD root port (domain 10003): the source keeps
    # the port's whole domain (was '1000:00:1d.0', the first four digits)
    text = "[    3.498112] pcieport 10003:00:02.0: AER: Multiple Corrected error received: id=00e8\n"
    (a,) = of(kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1")), "pcie_aer_error")
    assert (a.device, a.reporter) == ("10003:00:1d.0", "10003:00:02.0")


def test_aer_localised_syslog_date():
    # a Russian-locale syslog date ("фев 12") is not understood as a stamp; the lines still parse
    r = parse_file("syslog_localised_aer_corrected.log")
    assert r.errors == [] and r.lines_used == 4
    (a,) = of(r, "pcie_aer_error")
    assert (a.device, a.reporter, a.severity, a.error_type, a.errors, a.first_error, a.timestamp) == (
        "0000:00:1c.5", "0000:00:1c.5", "corrected", "Physical Layer", "RxErr", "RxErr", None)


def test_aer_nonfatal_nvidia_device():
    text = ("[ 58.321146] pcieport 0000:00:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0\n"
            "[ 58.329622] nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, "
            "(Requester ID)\n")
    (a,) = of(parse_text(text), "pcie_aer_error")
    assert (a.device, a.reporter, a.severity, a.error_type) == ("0000:3b:00.0", "0000:00:01.0", "nonfatal", "Transaction Layer")
    assert (a.bridge, a.gpu_bus_id) == (None, "0000:3b:00.0")  # nvidia's device: the GPU


def test_aer_and_hotplug_link_down():
    r = parse_file("dmesg_aer_hotplug_link_down.log")
    facts = [(f.evidence.line, f.kind) for f in r.facts]
    assert facts == [(1, "pcie_aer_error"), (5, "pcie_link_down"), (9, "pcie_aer_error"), (15, "pcie_aer_recovery")]
    aer = of(r, "pcie_aer_error")
    assert (aer[0].severity, aer[0].error_type, aer[0].errors) == ("corrected", "Physical Layer", "RxErr")
    assert (aer[1].device, aer[1].severity, aer[1].first_error) == ("0000:89:02.0", "fatal", "SDES")
    (ld,) = of(r, "pcie_link_down")
    assert (ld.device, ld.slot, ld.card_present) == ("0000:89:02.0", "400", False)
    # the DPC containment line and its "unmasked uncorrectable error detected" reason are read as details
    # of the fatal AER error after them; 4.x's "AER: Device recovery failed" is the recovery's result, the line before it
    # (err.c reset_link, printed without "AER: ") the step that failed
    assert r.lines_used == 13
    (x,) = of(r, "pcie_aer_recovery")
    assert (x.result, x.device, x.bridge, x.without_callback, x.link_reset) == (
        "failed", "0000:89:02.0", "0000:89:02.0", None, "link reset at upstream device 0000:89:02.0 failed")
    assert x.detail == "link reset at upstream device 0000:89:02.0 failed"


def test_the_link_resets_steps_without_the_aer_prefix():
    # CONSTRUCTED from err.c reset_link (4.18-5.6) / aerdrv_core.c: pci_printk(KERN_DEBUG, dev, "link reset at upstream device
    # %s failed\n") and "no link-reset support at upstream device %s\n", then the result
    for step in ("link reset at upstream device 0000:00:03.0 failed", "no link-reset support at upstream device 0000:00:03.0"):
        r = parse_text(f"[  10.000001] pcieport 0000:00:03.0: {step}\n[  10.000002] pcieport 0000:00:03.0: AER: Device recovery failed\n")
        (x,) = of(r, "pcie_aer_recovery")
        assert (x.result, x.link_reset, r.lines_used) == ("failed", step, 2)
    # alone (no result line after it) it makes no fact, as the recovery's other steps
    r = parse_text("[  10.000001] pcieport 0000:00:03.0: link reset at upstream device 0000:00:03.0 failed\n")
    assert of(r, "pcie_aer_recovery") == [] and r.lines_used == 0
    # quoted in a sentence without a device's prefix: no step
    r = parse_text("[  10.000001] why would the link reset at upstream device 0000:00:03.0 failed here?\n"
                   "[  10.000002] pcieport 0000:00:03.0: AER: Device recovery failed\n")
    (x,) = of(r, "pcie_aer_recovery")
    assert x.link_reset is None


def test_old_pciehp_link_down_event():
    r = parse_file("dmesg_pciehp_old_link_down_event.log")
    (ld,) = of(r, "pcie_link_down")
    assert (ld.device, ld.slot, ld.card_present, ld.timestamp, ld.evidence.line) == ("0000:13:01.0", "1-5", None, "21833.389038", 3)
    assert r.errors == []  # the service's other lines (pcie_isr, Data Link Layer State change) are no fault


def test_boots():
    r = parse_file("dmesg_two_boots.log")
    boots = of(r, "kernel_boot")
    assert [(b.boot, b.evidence.line, b.kernel_release) for b in boots] == [(0, 1, "4.19.0-8-amd64"), (1, 6, "4.19.0-8-amd64")]
    (x,) = of(r, "xid_event")
    assert x.boot == 0
    drv = of(r, "nvidia_driver_loaded")
    assert [(d.boot, d.version, d.open_module) for d in drv] == [(0, "550.120", False), (1, "550.120", False)]
    assert r.lines_used == 8 - 1  # the x86/fpu line is unknown


def test_event_before_first_boot_marker_is_boot_zero():
    text = ("[ 9.0] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
            "[ 0.0] Linux version 6.8.0-48-generic (buildd@lcy02-amd64-010)\n"
            "[ 9.0] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n")
    r = parse_text(text)
    assert [x.boot for x in of(r, "xid_event")] == [0, 1]
    assert [b.boot for b in of(r, "kernel_boot")] == [1]


def test_journal_k_boot_and_host():
    r = parse_file("journal_k_boot.log")
    (b,) = of(r, "kernel_boot")
    assert (b.boot, b.kernel_release, b.node, b.evidence.line) == (0, "6.6.87.2-microsoft-standard-WSL2", "DESKTOP-CPK0PUB", 2)
    assert b.wsl  # WSL2's kernel: the node is a WSL2 VM (round rT5)
    assert r.lines_used == 2  # Linux version + Command line of the same boot


@pytest.mark.parametrize("release, wsl", [
    ("6.6.87.2-microsoft-standard-WSL2", True),
    ("4.19.128-microsoft-standard", True),  # WSL2's kernels before 5.10 (CONSTRUCTED from the release naming)
    ("6.8.0-48-generic", False),
    ("5.15.0-1057-azure", False),  # an Azure VM's kernel is a server's, not WSL's
])
def test_kernel_boot_says_whether_the_kernel_is_wsls(release, wsl):
    (b,) = of(parse_text(f"[    0.000000] Linux version {release} (root@x) (gcc (GCC) 11.2.0) #1 SMP\n"), "kernel_boot")
    assert (b.kernel_release, b.wsl) == (release, wsl)


def test_journal_iso_xid45():
    r = parse_file("journal_iso_xid45.log")
    assert [(x.xid, x.pci_bus_id, x.channel, x.node) for x in of(r, "xid_event")] == [
        (45, "0000:dc:00.0", "0x00000001", "node17"), (45, "0000:ed:00.0", "0x0000000c", "node17")]
    assert r.lines_used == 2


def test_malformed_xid_is_parse_error_and_parsing_continues():
    r = parse_file("malformed_xid.log")
    (err,) = r.errors
    assert isinstance(err, ParseError)
    assert (err.path, err.line) == ("kernel_log/malformed_xid.log", 2)
    assert "notanumber" in err.message
    assert [x.xid for x in of(r, "xid_event")] == [31]


@pytest.mark.parametrize("line,why", [
    ("NVRM: Xid (PCI:0000:00:06): notanumber, pid=1, name=x, y", "not a number"),
    ("NVRM: Xid (PCI:zz:00): 31, pid=1, name=x, y", "bad PCI bus id"),
    ("NVRM: Xid (PCI:0000:00:06): 31, pid=abc, name=x, y", "pid"),
    ("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): x20034, Fatal, Link 63 LTSSM Fault Up", "not a number"),
])
def test_malformed_rows(line, why):
    r = parse_text(line + "\n")
    (err,) = r.errors
    assert err.line == 1 and why in err.message
    assert r.facts == []


def test_mixed_terminal_session():
    path = FIX / "mixed_terminal_session.txt"
    text = path.read_text()
    assert kernel_log.detect(text)
    r = parse_file("mixed_terminal_session.txt")
    assert r.errors == []
    assert [f.kind for f in r.facts] == ["nvidia_driver_loaded", "kernel_gpu_seen", "xid_event"]
    assert r.lines_used == 4 and len(text.splitlines()) == 13


def test_large_log_is_read_in_linear_time():
    # A guard against a quadratic reading (a backtracking pattern, a rescan a line), not a speed measurement: the
    # reader's speed is bench/reader_costs.py's figure. 200k lines take ~0.5 s on the 2-core VM and 3.6 s at load 15
    # (the 2 s limit this test had failed there, on every tree); a quadratic reading of them takes minutes.
    import time

    noise = "[  123.456789] EXT4-fs (sda1): mounted filesystem with ordered data mode. Opts: (null)\n"
    xid = "[  124.000000] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
    text = (noise * 999 + xid) * 200  # 200k lines
    t0 = time.perf_counter()
    r = parse_text(text)
    assert len(of(r, "xid_event")) == 200
    assert time.perf_counter() - t0 < 30.0


def test_xid74_link_and_registers_as_printed():
    r = parse_file("dmesg_xid74_nvlink_registers.log")
    assert r.errors == []
    got = [(x.pci_bus_id, x.pid, x.nvlink_link, x.nvlink_fatal, x.nvlink_registers) for x in of(r, "xid_event")]
    assert got == [
        ("0003:00:00.0", None, 14, True, "0x0,0x0,0x10000,0x0,0x0,0x0,0x0"),
        ("0000:1a:00.0", None, 14, True, "0x100000,0x0,0x0,0x0,0x0,0x0,0x0"),  # CRAFTED line
        ("0000:b9:00.0", None, 6, True, "0x10000,0x0,0x0,0x0,0x0,0x0,0x0"),
        ("0000:65:00.0", None, 2, True, None),  # older line: the link only; pid=<n/a> is unknown
    ]
    assert of(r, "xid_event")[2].node == "ip-10-1-2-3"


def test_nvlink5_unit_link_and_registers():
    r = parse_file("dmesg_nvlink5_xid.log")
    assert r.errors == []
    got = [(x.xid, x.nvlink_unit, x.nvlink_fatal, x.nvlink_link, x.nvlink_registers.split(",")[:2]) for x in of(r, "xid_event")]
    assert got == [
        (149, "NETIR", True, None, ["0x000fe406", "0x00000000"]),  # "Link -1": no link
        (149, "NETIR_LINK_EVT", True, 0, ["0x025001c6", "0x00000000"]),
        (145, "RLW_RXPIPE", False, 13, ["0x0409a0c2", "0x00000008"]),
        (144, "SAW_MVB", False, 0, ["0x00000001", "0x00000008"]),
    ]


@pytest.mark.parametrize("line", [
    "NVRM: Xid (PCI:0000:c1:00): 74, pid=1, name=python, NVLink: fatal error detected on link x(0x0)",
    "NVRM: Xid (PCI:0000:c1:00): 74, pid=1, name=python, NVLink training failed",
    "NVRM: Xid (PCI:0000:04:00): 145, something the driver never printed",
])
def test_nvlink_lines_without_the_shape_keep_the_xid_and_no_fields(line):
    (x,) = of(parse_text(line + "\n"), "xid_event")
    assert (x.nvlink_link, x.nvlink_registers, x.nvlink_unit) == (None, None, None)


# ---- prefixes people paste (issue 11) ------------------------------------------------------

XID43 = "NVRM: Xid (PCI:0000:3d:00): 43, pid=35521, name=python, Ch 00000008"


@pytest.mark.parametrize("prefix,stamp,node", [
    ("192.168.11.119: kern: warning: [2026-04-22T21:30:51.87Z]: ", "2026-04-22T21:30:51.87Z", "192.168.11.119"),
    ("kern: warning: [2026-04-22T21:30:51.87Z]: ", "2026-04-22T21:30:51.87Z", "n1"),
    ("Dec 02 09:56:04 node1 kernel: ", "Dec 02 09:56:04", "node1"),
    ("Dec 02 09:56:04.123456 node1 kernel: ", "Dec 02 09:56:04.123456", "node1"),
    ("2024-05-01T12:00:00+0000 node1 kernel: ", "2024-05-01T12:00:00+0000", "node1"),
    ("2024-05-01T12:00:00.123456+00:00 node1 kernel: [ 12.5] ", "2024-05-01T12:00:00.123456+00:00", "node1"),
    ("<4>", None, "n1"),
    ("<4>[   12.345678] ", "12.345678", "n1"),
    ("3,1042,8462102,-;", None, "n1"),
    ("    [Sun Nov 29 18:32:13 2026] ", "Sun Nov 29 18:32:13 2026", "n1"),
    ("[Di Dez  2 09:56:04 2025] ", "Di Dez  2 09:56:04 2025", "n1"),
    ("[2024-05-01T12:00:00.123456+00:00] ", "2024-05-01T12:00:00.123456+00:00", "n1"),
    ("[  103.455825][ T1194] ", "103.455825", "n1"),
    ("pod/driver-daemonset-abc some-tool: kernel: ", None, "n1"),
])
def test_xid_under_any_prefix(prefix, stamp, node):
    text = prefix + XID43 + "\n"
    assert kernel_log.detect(text)
    r = parse_text(text)
    assert r.errors == [] and r.lines_used == 1
    (x,) = of(r, "xid_event")
    assert (x.xid, x.pci_bus_id, x.pid, x.timestamp, x.node) == (43, "0000:3d:00.0", 35521, stamp, node)


def test_real_talos_dmesg():
    r = parse_file("talos_xid62_sxid.log", node="ignored")
    assert r.errors == [] and r.lines_used == 5
    (x,) = of(r, "xid_event")
    assert (x.xid, x.pci_bus_id, x.node, x.timestamp) == (62, "0000:48:00.0", "192.168.11.119", "2026-04-22T21:25:20.505406921Z")
    (seen,) = of(r, "kernel_gpu_seen")
    assert seen.uuid == "GPU-5fc0bcec-c2e1-38dc-8994-2a9f9f3b709e"  # its serial line comes two lines later
    assert {s.sxid for s in of(r, "nvswitch_sxid")} == {24007}


def test_real_xid_without_process_name_keeps_its_pid():
    r = parse_file("dmesg_T_xid31_dgx_before_reboot.log")
    pids = [x.pid for x in of(r, "xid_event") if x.xid == 31]
    assert pids == [13641, 14323, 33275]
    assert all(x.process is None for x in of(r, "xid_event"))


def test_real_caused_by_previous_xid():
    r = parse_file("journal_iso_xid45.log")
    assert [(x.xid, x.previous_xid) for x in of(r, "xid_event")] == [(45, 149), (45, 145)]


# ---- NVRM messages beyond Xid -----------------------------------------------------------

@pytest.mark.parametrize("name,expected", [
    ("dmesg_nv_err_reset_required.log", [("assert_failed", "NV_ERR_RESET_REQUIRED", None, "kernel_channel.c:2827")]),
    ("dmesg_api_mismatch.log", [("api_mismatch", "", None, None)]),
    # RmInitAdapter's rmStatus (0x24:0x65:1185 -> 0x65) named through knowledge/nv_status_codes.yaml
    ("syslog_rm_init_adapter_failed.log", [("rm_init_adapter_failed", "NV_ERR_TIMEOUT", "0000:02:00.0", None)] * 2),
    ("dmesg_bar0_invalid_probe_failed.log", [("bar_invalid", "", "0000:c1:00.0", "BAR0 is 0M"),
                                             ("probe_failed", "", "0000:c1:00.0", None)]),
    ("journal_no_nvidia_gpu_found.log", [("no_gpu_found", "", None, None)]),
    ("gsp_timeout_banner_only.log", [("gsp_rpc_timeout", "", None, None)]),
    ("journal_gsp_timeout_indented.log", []),  # the Xid 119 line carries the event
    ("dmesg_fell_off_bus_probe_failed.log", [("probe_failed", "", "0000:5d:00.0", None)]),
])
def test_real_nvrm_messages(name, expected):
    r = parse_file(name)
    assert r.errors == []
    got = [(f.message_kind, f.status, f.pci_bus_id, f.detail) for f in of(r, "nvrm_error")]
    assert got == expected
    # journal_no_nvidia_gpu_found: its lockdown line is read (kernel_module_signature_rejected), the taint note is not
    assert r.lines_used == len((FIX / name).read_text().splitlines()) - (1 if name.startswith("journal_no") else 0)


def test_api_mismatch_versions():
    (m,) = of(parse_file("dmesg_api_mismatch.log"), "nvrm_error")
    assert (m.client_version, m.kernel_version) == ("550.54.14", "545.23.08")
    # pasted joined into one line, with a named client
    (m,) = of(parse_text("NVRM: API mismatch: the client 'gnome-shell' has the version 595.58.03, "
                         "NVRM: but this kernel module has the version 595.91.07\n"), "nvrm_error")
    assert (m.client, m.client_version, m.kernel_version) == ("gnome-shell", "595.58.03", "595.91.07")


def test_api_mismatch_without_its_head():
    """Issue 11, the key line alone: the mismatch message's later lines pasted without the head
    (the real dmesg lines, alone or together) are the mismatch, the client's version unknown."""
    lines = (FIX / "dmesg_api_mismatch.log").read_text().splitlines()
    for text, kernel in ((lines[1], "545.23.08"), (lines[2], None), (lines[3], None), ("\n".join(lines[1:]), "545.23.08")):
        (m,) = of(parse_text(text + "\n"), "nvrm_error")
        assert (m.message_kind, m.client_version, m.kernel_version) == ("api_mismatch", None, kernel)
    r = parse_text("\n".join(lines[1:]) + "\n")
    assert r.lines_used == 3
    # near miss: the module's load banner names its version too, and is no mismatch
    banner = "[    3.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  545.23.08  Mon Nov  6 23:49:37 UTC 2023\n"
    assert [f.message_kind for f in of(parse_text(banner), "nvrm_error")] == []


def test_unknown_nvrm_failure_is_kept_not_dropped():
    r = parse_text("[ 5.1] NVRM: GPU0 kbusInitBar2: something failed badly\n[ 5.2] NVRM: nvidia-bug-report hint\n")
    assert [f.message_kind for f in of(r, "nvrm_error")] == ["other"]
    assert r.lines_used == 1


def test_fell_off_bus_wrapped_then_probe():
    r = parse_file("dmesg_fell_off_bus_probe_failed.log")
    (fell,) = of(r, "gpu_fell_off_bus")
    assert (fell.pci_bus_id, fell.pci_device_id, fell.evidence.line) == ("0000:5d:00.0", "10de:2330", 1)
    assert r.lines_used == 6  # three wrapped lines, the probe failure, the probe summary, driver load
    assert of(r, "xid_event") == []


def test_oom_killer_lines_memory_cgroup_host_and_before_4_19():
    """mm/oom_kill.c's kill line: a memory cgroup's limit (real, OpenNMT-Tutorial#6), the host's
    memory, and the pre-4.19 'Kill process ... or sacrifice child' form; oom_reaper's line after
    a kill is not a second kill."""
    [k] = of(parse_file("opennmt_tutorial6_memcg_oom_killed.log"), "host_oom_kill")
    assert (k.pid, k.process, k.cgroup, k.anon_rss_kb, k.anon_rss_mib, k.evidence.line) == (629, "onmt_train", True, 6538204, 6385, 1)
    res = parse_text(
        "[Tue Sep 16 03:14:22 2025] Out of memory: Killed process 2481 (python3) total-vm:8123400kB, anon-rss:7981200kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:16000kB oom_score_adj:0\n"
        "[Tue Sep 16 03:14:22 2025] oom_reaper: reaped process 2481 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n"
        "[  812.004] Out of memory: Kill process 1708 (python) score 912 or sacrifice child\n")
    kills = of(res, "host_oom_kill")
    assert [(k.pid, k.cgroup, k.ran_out, k.anon_rss_kb) for k in kills] == [
        (2481, False, "the host's memory", 7981200), (1708, False, "the host's memory", None)]
    assert not res.errors


def test_kernel_lines_indented_by_a_tab_under_their_command_are_a_kernel_log():
    # Mellanox/mstflint#448: "dmesg | more | grep 04:00", then each kernel line behind a tab
    text = (FIX / "mstflint448_tab_indented_bar_unassigned.log").read_text()
    assert kernel_log.detect(text)
    bars = of(parse_file("mstflint448_tab_indented_bar_unassigned.log"), "pcie_bar_unassigned")
    # 04:00.0's "no space for" and "failed to assign" are one failure; 04:00.1's paste ends at "no space for"
    assert [(f.evidence.line, f.device, f.bar, f.gave_up) for f in bars] == [
        (14, "0000:04:00.0", "BAR 7", True), (16, "0000:04:00.1", "BAR 7", False)]
    assert bars[0].resource == "[mem size 0x01000000 64bit pref]"


def test_bar_assignment_forms_of_both_kernel_generations_and_near_misses():
    # drivers/pci/setup-res.c pci_assign_resource: "BAR %d: no space for %pR" / "BAR %d: failed to assign %pR" (< 6.8),
    # "%s %pR: can't assign; no space" / "%s %pR: failed to assign" (6.8 on), filled in
    r = parse_text("[    0.710024] pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: can't assign; no space\n"
                   "[    0.710033] pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: failed to assign\n"
                   "[    0.710046] pci 0000:00:1c.0: bridge window [mem size 0x00200000 64bit pref]: failed to assign\n"
                   "[    0.710050] pci 0000:04:00.1: BAR 0 [mem 0xffc000000-0xffdffffff 64bit pref]: assigned\n"
                   "[    0.710052] pci 0000:04:00.1: BAR 0: assigned [mem 0xffc000000-0xffdffffff 64bit pref]\n")
    got = [(f.evidence.line, f.device, f.bar, f.gave_up) for f in of(r, "pcie_bar_unassigned")]
    assert got == [(1, "0000:04:00.0", "VF BAR 0", True), (3, "0000:00:1c.0", "bridge window", True)]


def test_iommu_fault_forms_of_every_kernel_generation():
    # drivers/iommu/intel/dmar.c dmar_fault_do_one, by version, and drivers/iommu/amd/iommu.c amd_iommu_report_page_fault;
    # the first Intel line from tenstorrent/tt-umd#1814, the AMD ones from ggml-org/llama.cpp#21908 and NVIDIA/cuda-samples#48
    r = parse_text(
        "[ 6611.206519] DMAR: DRHD: handling fault status reg 2\n"
        "[ 6611.206544] DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x100000 [fault reason 0x71] SM: Present bit in first-level paging entry is clear\n"
        "[  232.023974] DMAR: [DMA Read PASID 0x2] Request device [6a:01.0] fault addr 0x7fe0c9943000 [fault reason 0x3a] SM: Non-zero reserved field set in Root Entry\n"
        "[    0.938401] kernel: DMAR: [DMA Read NO_PASID] Request device [0x00:0x02.0] fault addr 0x70ad5000 [fault reason 0x07] Next page table ptr is invalid\n"
        "[  144.480641] DMAR: [DMA Read] Request device [00:02.0] PASID ffffffff fault addr 9c000000 [fault reason 06] PTE Read access is not set\n"
        "[10672.868940] DMAR: [DMA Write] Request device [00:12.0] fault addr 0 [fault reason 05] PTE Write access is not set\n"
        "[   12.000000] DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x0 [fault reason 0x25] Blocked a compatibility format interrupt request\n"
        "[ 7460.483909] amd_iommu_report_page_fault: 6 callbacks suppressed\n"
        "[ 7460.483919] nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0xd0826240 flags=0x0020]\n"
        "[ 7460.485503] nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0x2bee0314000 flags=0x0020]\n"
        "[ 7460.490676] nvidia 0000:81:00.0: AMD-Vi: Event lo\n"
        "[    5.000000] AMD-Vi: Event logged [IO_PAGE_FAULT device=07:00.0 domain=0x0007 address=0xffffc02000 flags=0x0000]\n"
        "[    6.000000] AMD-Vi: Found IOMMU cap 0x40\n")
    got = [(f.evidence.line, f.iommu, f.device, f.driver, f.access, f.address, f.interrupt_remap, f.count, f.gpu)
           for f in of(r, "iommu_fault")]
    assert got == [
        (2, "intel_vt_d", "0000:03:00.0", None, "read", "0x100000", False, 1, False),
        (3, "intel_vt_d", "0000:6a:01.0", None, "read", "0x7fe0c9943000", False, 1, False),
        (4, "intel_vt_d", "0000:00:02.0", None, "read", "0x70ad5000", False, 2, False),
        (6, "intel_vt_d", "0000:00:12.0", None, "write", "0x0", False, 1, False),
        (7, "intel_vt_d", "0000:f0:1f.0", None, None, "0x0", True, 1, False),
        (9, "amd_vi", "0000:81:00.0", "nvidia", None, "0xd0826240", False, 2, True),
        (12, "amd_vi", "0000:07:00.0", None, None, "0xffffc02000", False, 1, False),
    ]
    assert of(r, "iommu_fault")[0].reason == "SM: Present bit in first-level paging entry is clear"


def test_unassigned_bar_of_a_device_enumerated_as_a_gpu():
    # kata-containers/kata-containers#4358 (an A100 in a guest: class 0x0302) and HeyMeco/Rockchip-pcie-devices#2 (6.6+'s
    # enumeration line with the device type, 6.8+'s BAR form); a NIC's VF BAR stays not a GPU's
    r = parse_text("[    3.340854] pci 0000:02:00.0: [10de:20f1] type 00 class 0x030200\n"
                   "[    3.347685] pci 0000:02:00.0: BAR 0: no space for [mem size 0x01000000]\n"
                   "[    2.819204] pci 0000:01:00.0: [10de:2204] type 00 class 0x030000 PCIe Legacy Endpoint\n"
                   "[    2.831115] pci 0000:01:00.0: BAR 1 [mem size 0x10000000 64bit pref]: can't assign; no space\n"
                   "[    0.700000] pci 0000:04:00.0: [15b3:1017] type 00 class 0x020000\n"
                   "[    0.710024] pci 0000:04:00.0: VF BAR 0 [mem size 0x01000000 64bit pref]: can't assign; no space\n")
    assert [(f.device, f.bar, f.gpu) for f in of(r, "pcie_bar_unassigned")] == [
        ("0000:02:00.0", "BAR 0", True), ("0000:01:00.0", "BAR 1", True), ("0000:04:00.0", "VF BAR 0", False)]


def test_intel_dmar_fault_at_a_gpu_the_driver_names():
    r = parse_text("[   10.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=1797828, name=python, Ch 00000008\n"
                   "[   11.000000] DMAR: [DMA Write NO_PASID] Request device [3b:00.0] fault addr 0xf0000000 [fault reason 0x05] PTE Write access is not set\n")
    assert [(f.device, f.gpu) for f in of(r, "iommu_fault")] == [("0000:3b:00.0", True)]


ROOT = FIX.parents[2]


@pytest.mark.parametrize("path, runs_on", [
    # dmesg: load at 6.85 s, the log runs to 4564 s (the GPU falls off the bus then)
    ("fixtures/bundles/xid79-after-aer/bundle/node9/dmesg.log", True),
    # dmesg -T: load at 06:10:31, an Xid at 17:26:08
    ("fixtures/bundles/xid13-repeat-one-gpu/bundle/gpu-node07/dmesg.txt", True),
    # syslog: load 29 s after the boot's banner, the log ends there (a peer node's boot)
    ("fixtures/bundles/xid74-nvlink-link/bundle/gpu-node32/kern.log", False),
    # dmesg | grep -i nvidia of a boot: load at 3.01 s, the last line at 3.33 s (harvest 1408)
    ("fixtures/harvest/cases/1408-healthy-nvidia-module-loads-taint-messages-helm-chart-bug/dmesg.log", False),
    # dmesg -T of a VM: the driver loaded at 20:27:41 for the collector, the capture 3 s later
    ("fixtures/bundles/device-h200-collect/bundle/vm/dmesg.txt", False),
])
def test_driver_load_runs_on_only_where_the_log_shows_a_minute_past_it(path, runs_on):
    # a capture of the boot (the load line, the boot's other lines) shows no time with the GPUs in use: it checks
    # nothing (knowledge/coverage.yaml kernel_log); kernel_log_time.RUNS_ON_S
    text = (ROOT / path).read_text()
    r = kernel_log.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [d.runs_on for d in of(r, "nvidia_driver_loaded")][-1:] == [runs_on]


def test_driver_load_without_stamps_or_with_relative_ones_shows_no_span():
    load = "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.05  Wed Oct 25 20:27:35 UTC 2023"
    later = "input: HDA NVidia HDMI/DP,pcm=3 as /devices/pci0000:00/0000:00:01.0/0000:01:00.1/sound/card1/input8"
    for text in (f"{load}\n{later}\n", f"[  +0.000844] {load}\n[+9999.000000] {later}\n"):
        (d,) = of(parse_text(text), "nvidia_driver_loaded")
        assert d.runs_on is False


@pytest.mark.parametrize("text, log_spans", [
    # harvest 704: an Xid 44 and an Xid 31 55 ms apart, the log's last line 3 s later
    ((ROOT / "fixtures/harvest/cases/704-laptop-xid44-xid31-driver-problem-upgrade-driver/dmesg.log").read_text(), False),
    # its Xid 44 line alone, and without its stamp
    ("[   94.573839] NVRM: Xid (PCI:0000:08:00): 44, Ch 00000000, engmask 00000101, intr 10000000\n", False),
    ("NVRM: Xid (PCI:0000:08:00): 44, Ch 00000000, engmask 00000101, intr 10000000\n", False),
    # harvest 1404: Xid 43s from 23:04:35 to the next day (dmesg -T)
    ((ROOT / "fixtures/harvest/cases/1404-xid31-repeated-on-one-gpu-many-processes-faulty-device/dmesg.log").read_text(), True),
    # two of its Xid 43 lines, two hours apart
    ("[Thu Jan 28 00:16:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=1405, Ch 00000008\n"
     "[Thu Jan 28 02:13:33 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=11101, Ch 00000008\n", True),
])
def test_an_xid_line_shows_the_log_s_time_only_where_its_stamps_span_a_minute(text, log_spans):
    # a report of one event shows no time of the GPUs in which the log's silence about other Xids counts: it checks
    # nothing (knowledge/coverage.yaml kernel_log, session 25); kernel_log_time.RUNS_ON_S
    xids = of(kernel_log.parse(Artefact(path="k.log", text=text, node="n1")), "xid_event")
    assert xids and {x.log_spans for x in xids} == {log_spans}


def test_a_made_up_kernel_line_written_by_logger_is_no_event():
    # NVIDIA/NVSentinel#288: a test writes an Xid 45 into syslog with util-linux logger; the command's argument is not
    # the kernel's report
    assert parse_file("nvsentinel288_logger_injected_xid45.txt").facts == []
    assert parse_text('$ sudo logger -t kernel "NVRM: Xid (PCI:0000:04:00): 79, GPU has fallen off the bus"\n').facts == []
    # what logger (or anything named like it) wrote, read back from the journal, is read as the line it holds
    for line in ("Jul 09 10:42:47 host logger[12]: kernel: NVRM: Xid (PCI:0000:04:00): 79, GPU has fallen off the bus",
                 "Jul 09 10:42:47 host systemd-logger[12]: kernel: NVRM: Xid (PCI:0000:04:00): 79, GPU has fallen off the bus"):
        assert [f.xid for f in of(parse_text(line + "\n"), "xid_event")] == [79]


# A node condition message NVSentinel wrote, verbatim (petasus-ai/nvsentinel-capi-remediator
# internal/signal/condition/condition_test.go TestParseObservedFaults, "observed on a real node"): the syslog health
# monitor's event quotes the journal's kernel line (MESSAGE=...) before its recommended action
NVSENTINEL_XID79 = ("ErrorCode:79 PCI:0000:ef:00 GPU_UUID:GPU-b5f21324-f1f9-f1a4-1a37-1166234f6e4f "
                    "MESSAGE=NVRM: Xid (PCI:0000:ef:00): 79, pid=0, name=<unknown>, GPU has fallen off the bus. "
                    "Recommended Action=RESTART_BM;")
NVSENTINEL_FIX = FIX.parents[0] / "nvsentinel_event"


def _nvsentinel762_quoting(kernel_line: str) -> str:
    """CONSTRUCTED: NVIDIA/NVSentinel#762's platform-connectors line (fixtures/artefacts/nvsentinel_event) with the
    ``message`` field the syslog health monitor sends (the journal's ``MESSAGE=<kernel line>``, as the condition
    above quotes it), its errorCode and PCI entity those of the quoted line."""
    line = (NVSENTINEL_FIX / "nvsentinel762_platform_connectors_health_events.log").read_text().splitlines()[0]
    line = line.replace('"errorCode":["13"]', '"errorCode":["79"]').replace('"entityValue":"0002:00:00"', '"entityValue":"0000:ef:00"')
    return line.replace('"isFatal":true,', '"isFatal":true,"message":"MESSAGE=' + kernel_line + '",', 1)


def test_a_kernel_line_quoted_in_an_nvsentinel_event_is_on_the_events_node():
    # the JSON event names its node: the quoted Xid is that node's (as nvsentinel_event gives the event), read up to
    # the message's closing quote, not a kernel event of the file's node beside the event's
    text = _nvsentinel762_quoting("NVRM: Xid (PCI:0000:ef:00): 79, pid=0, name=<unknown>, GPU has fallen off the bus.") + "\n"
    (x,) = of(parse_text(text), "xid_event")
    assert (x.node, x.xid, x.pci_bus_id, x.message) == ("kwok-node-0", 79, "0000:ef:00.0", "GPU has fallen off the bus.")
    assert x.evidence.line == 1
    # the same event as kubectl describe node prints its condition: the file's node, the message before the action
    (x,) = of(parse_text(f"  SysLogsXIDError   True   SysLogsXIDErrorIsNotHealthy   {NVSENTINEL_XID79}\n"), "xid_event")
    assert (x.node, x.xid, x.message) == ("n1", 79, "GPU has fallen off the bus.")
    # and in kubectl get events, whose OBJECT names the node
    (x,) = of(parse_text(f"2m   Warning   SysLogsXIDError   node/gpu-node-7   {NVSENTINEL_XID79}\n"), "xid_event")
    assert x.node == "gpu-node-7"
    # a kernel line of its own beside the event stays the file's node's
    text = _nvsentinel762_quoting("NVRM: Xid (PCI:0000:ef:00): 79, pid=0, name=<unknown>, GPU has fallen off the bus.")
    xs = of(parse_text(text + "\n[ 12.0] NVRM: Xid (PCI:0000:ef:00): 79, pid=0, name=<unknown>, GPU has fallen off the bus.\n"), "xid_event")
    assert [(x.node, x.evidence.line) for x in xs] == [("kwok-node-0", 1), ("n1", 2)]
    # a quoted line whose event names no node (a condition without node/<name>) is the file's node's, as above;
    # a JSON line that is no NVSentinel event (no checkName) keeps the reading it had
    (x,) = of(parse_text('{"log":"[ 12.0] NVRM: Xid (PCI:0000:ef:00): 79, GPU has fallen off the bus.","nodeName":"other"}\n'), "xid_event")
    assert x.node == "n1"


def test_oom_kill_summary_line_and_the_pre_4_19_sizes_line():
    """Linux 4.19+'s 'oom-kill:constraint=...,task=...,pid=...' names the victim (and the memory cgroup that hit its
    limit) where the kill line was not pasted (leptonai/gpud#70, journalctl's short-precise stamp); read with its kill
    line it is that kill's (triton-inference-server/server#4154). Before 4.19 the sizes came on a line of their own
    after 'Kill process ... or sacrifice child' (NervanaSystems/deepspeech#48); alone, it is still a kill."""
    text = ("Aug 30 06:58:55.050705 node7 kernel: oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-ec9e.scope,"
            "mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podeded8c65.slice,"
            "task_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podeded8c65.slice/cri-containerd-ec9e.scope,"
            "task=pt_main_thread,pid=461754,uid=0\n")
    assert kernel_log.detect(text)
    [k] = of(parse_text(text), "host_oom_kill")
    assert (k.pid, k.process, k.cgroup, k.node) == (461754, "pt_main_thread", True, "node7")
    assert k.ran_out.endswith("kubepods-burstable-podeded8c65.slice)")
    res = parse_text(
        "[44930.378129] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=a82e,mems_allowed=0-3,oom_memcg=/kubepods/burstable/podcb04,task_memcg=/kubepods/burstable/podcb04/a82e,task=tritonserver,pid=59249,uid=0\n"
        "[44930.378157] Memory cgroup out of memory: Killed process 59249 (tritonserver) total-vm:38974820kB, anon-rss:98544kB, file-rss:319140kB, shmem-rss:6144kB\n"
        "[3017506.733819] Out of memory: Kill process 25635 (python) score 974 or sacrifice child\n"
        "[3017506.736861] Killed process 25635 (python) total-vm:55518724kB, anon-rss:23902876kB, file-rss:154436kB\n"
        "[3256824.391743] Killed process 9666 (python) total-vm:53893188kB, anon-rss:23892380kB, file-rss:152808kB\n"
        "[2059991.491436] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,task=python3,pid=25315,uid=0\n")
    kills = of(res, "host_oom_kill")
    assert [(k.evidence.line, k.pid, k.cgroup, k.anon_rss_kb) for k in kills] == [
        (2, 59249, True, 98544), (3, 25635, False, 23902876), (5, 9666, False, 23892380), (6, 25315, False, None)]
    assert kills[0].ran_out == "a memory cgroup's limit (a container or job: /kubepods/burstable/podcb04)"
    assert kills[2].ran_out.startswith("memory (the host's or a cgroup's")
    assert res.lines_used == 6 and not res.errors
