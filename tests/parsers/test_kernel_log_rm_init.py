"""RmInitAdapter failures read field by field (initStatus group, rmStatus name) with the detail
lines the driver prints before them, and the decision tree seeing an NVRM-only paste as a
kernel log that was read."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.engine.combine.decision_tree import not_checked
from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"


def _nvrm(text: str):
    r = kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1"))
    assert r.errors == []
    return [f for f in r.facts if f.kind == "nvrm_error"]


def test_wpr2_already_up_real_paste():
    facts = _nvrm((FIX / "dmesg_wpr2_already_up_rtx3080_laptop.log").read_text())
    init = [f for f in facts if f.message_kind == "rm_init_adapter_failed"]
    assert [(f.evidence.line, f.pci_bus_id, f.status, f.init_stage, f.reset_hint, f.detail) for f in init] == [
        (7, "0000:01:00.0", "NV_ERR_INVALID_STATE", "firmware", True,
         "_kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP")]
    # the assertion that names its call with arguments keeps its NV_ERR_ status
    assert [f.status for f in facts if f.message_kind == "assert_failed"] == ["NV_ERR_INVALID_ARGUMENT"] * 2


@pytest.mark.parametrize("text, want", [
    # 3 attempts: each failure takes its own preceding lines only
    ("[1.0] NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP\n"
     "[1.0] NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)\n"
     "[1.0] NVRM: GPU6 RmInitAdapter: Cannot initialize GSP firmware RM\n"
     "[1.1] NVRM: GPU 0000:a1:00.0: RmInitAdapter failed! (0x62:0x40:2168)\n"
     "[1.1] NVRM: GPU 0000:a1:00.0: rm_init_adapter failed, device minor number 7\n"
     "[2.0] NVRM: GPU 0000:a1:00.0: RmInitAdapter failed! (0x62:0x40:2168)\n",
     [(4, "NV_ERR_INVALID_STATE", "firmware", True), (6, "NV_ERR_INVALID_STATE", "firmware", False)]),
    # the TU102 GFW-boot form of the hint
    ("NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW boot complete: 0x65 VBIOS version 94.02.59.00.05\n"
     "NVRM: kgspWaitForGfwBootOk_TU102: (the GPU may be in a bad state and may need to be reset)\n"
     "NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)\n",
     [(3, "NV_ERR_TIMEOUT", "firmware", True)]),
    # no detail lines: GPU state init stage, timeout
    ("NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)\n", [(1, "NV_ERR_TIMEOUT", "gpu_init", False)]),
    # an older driver that prints no code
    ("NVRM: RmInitAdapter failed!\n", [(1, "", None, False)]),
])
def test_rm_init_fields(text, want):
    got = [(f.evidence.line, f.status, f.init_stage, f.reset_hint) for f in _nvrm(text)
           if f.message_kind == "rm_init_adapter_failed"]
    assert got == want


def test_gfw_boot_line_without_an_init_failure_stays_a_failure_line():
    facts = _nvrm("NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW boot complete: 0x65 VBIOS version 94.02.59.00.05\n")
    assert [f.message_kind for f in facts] == ["other"]


def test_nvrm_only_paste_is_a_kernel_log_that_was_read():
    text = (FIX / "dmesg_wpr2_already_up_rtx3080_laptop.log").read_text()
    facts = kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1")).facts
    assert "kernel_errors" not in {n.branch for n in not_checked(facts)}
    assert "kernel_errors" in {n.branch for n in not_checked([])}


def test_colonless_nvrm_prefix_gsp_boot_timeout_real_paste():
    """nvtrust#52: "NVRM kgspBootstrapRiscvOSEarly_GH100: ..." (no colon after NVRM) is read as
    "NVRM: ..."; the GSP boot timeout is one fact, RM's watchdog lines beside it are its detail,
    the FSP register dump says nothing; evidence quotes the lines as posted."""
    text = (FIX / "nvrm_colonless_gsp_boot_timeout_nvtrust52.log").read_text()
    res = kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1"))
    nvrm = [f for f in res.facts if f.kind == "nvrm_error"]
    assert [f.message_kind for f in nvrm] == ["gsp_boot_failed"]
    assert nvrm[0].evidence.line == 3 and nvrm[0].evidence.text.startswith("[   36.077473] NVRM kgspBootstrapRiscvOSEarly_GH100:")
    assert "Timeout waiting for GSP target mask release" in nvrm[0].detail
    assert res.errors == []


def test_515_colonless_gsp_rm_init_lines_real_paste():
    """open-gpu-kernel-modules#116 (515.43.04): "NVRM kgspInitRm_IMPL: ..." and "NVRM RmInitAdapter: ..."
    (RM's own upper-case function) are read as "NVRM: ..."; the GSP-RM line is the RmInitAdapter failure's
    detail, nvidia-drm's two errors after it are nvidia-drm's (not NVRM lines for their word "probe")."""
    text = (FIX / "ogkm116_open_module_missing_nvdec0_gsp_rm.log").read_text()
    res = kernel_log.parse(Artefact(path="dmesg.log", text=text, node="n1"))
    assert [(f.kind, f.evidence.line) for f in res.facts] == [("nvrm_error", 3), ("nvidia_drm_error", 5), ("nvidia_drm_error", 6)]
    init = res.facts[0]
    assert (init.message_kind, init.pci_bus_id, init.init_stage) == ("rm_init_adapter_failed", "0000:01:00.0", "firmware")
    assert init.detail == "kgspInitRm_IMPL: missing NVDEC0 engine, cannot initialize GSP-RM"
    assert res.facts[2].function == "nv_drm_probe_devices" and res.facts[2].message == "Failed to register device"
    assert res.errors == []
    # the GSP-RM line alone (a title, a paste cut before the RmInitAdapter line): the driver refusing the
    # GPU's engine set (the 515 open modules' bug), not the GSP firmware failing: a failure line, unexplained
    (alone,) = _nvrm("[    3.596579] NVRM kgspInitRm_IMPL: missing NVDEC0 engine, cannot initialize GSP-RM\n")
    assert alone.message_kind == "other"


def test_colonless_form_needs_a_function_name():
    """'NVRM version: ...' (/proc/driver/nvidia/version) is not a colon-less driver message."""
    assert kernel_log._COLONLESS.search("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05") is None
    assert kernel_log._COLONLESS.search("NVRM: API mismatch: the client has the version 555.58.02, but") is None
    assert kernel_log._COLONLESS.search("NVRM API mismatch: the client has the version 555.58.02, but") is None
    assert kernel_log._COLONLESS.search("[ 1.0] NVRM _threadNodeCheckTimeout: x") is not None


def test_watchdog_line_alone_stays_a_failure_line():
    facts = _nvrm("NVRM: _threadNodeCheckTimeout: _threadNodeCheckTimeout: Timeout was set to: 4000 msecs!\n")
    assert [f.message_kind for f in facts] == ["other"]


def test_older_companion_line_is_part_of_the_init_failure():
    """microsoft/pai#4344: drivers before 'rm_init_adapter failed, device minor number N' printed
    '... failed for device bearing minor number N' after each RmInitAdapter failure: no other fault."""
    facts = _nvrm((FIX / "pai4344_rm_init_adapter_bearing_minor.log").read_text())
    assert [(f.evidence.line, f.message_kind) for f in facts] == [(1, "rm_init_adapter_failed"), (3, "rm_init_adapter_failed"),
                                                                  (5, "rm_init_adapter_failed"), (7, "rm_init_adapter_failed")]
    # alone, the older form still says the GPU did not initialise
    (f,) = _nvrm("[   38.773764] NVRM: rm_init_adapter failed for device bearing minor number 3\n")
    assert f.message_kind == "rm_init_adapter_failed"


def test_frontend_open_failure_is_part_of_the_init_failure_real_paste():
    # Bumblebee-Project/Bumblebee#722: drivers with the frontend module follow the init's two lines with the failed
    # open of /dev/nvidiaN (nv-frontend.c "NVRM: %s: minor %d, module->open() failed, error %d"): the same failure
    r = kernel_log.parse(Artefact(path="dmesg.log", text=(FIX / "bumblebee722_rm_init_frontend_open_failed.log").read_text(), node="n1"))
    assert [(f.evidence.line, f.message_kind) for f in r.facts if f.kind == "nvrm_error"] == [
        (1, "rm_init_adapter_failed"), (4, "rm_init_adapter_failed")]
    assert r.lines_used == 6
    # CONSTRUCTED: the failed open right after the minor number's line alone still goes with it
    facts = _nvrm("[1.0] NVRM: rm_init_adapter failed for device bearing minor number 1\n"
                  "[1.0] NVRM: nvidia_frontend_open: minor 1, module->open() failed, error -5\n")
    assert [f.message_kind for f in facts] == ["rm_init_adapter_failed"]
    # CONSTRUCTED: the failed open alone (no init failure before it) is an error no rule explains, never dropped
    facts = _nvrm("[1.0] NVRM: nvidia_frontend_open: minor 0, module->open() failed, error -5\n")
    assert [f.message_kind for f in facts] == ["other"]


def test_dmesg_quoted_as_list_without_nvrm_tag_real_paste():
    # NVIDIA/open-gpu-kernel-modules#1104: the reporter's list of dmesg's messages, "NVRM: " left out; the WPR2 line
    # is the branch of _kgspBootGspRm that says the GPU may need a reset (the hint's line itself not pasted)
    facts = _nvrm((FIX / "ogkm1104_dmesg_quoted_as_list_no_nvrm_tag.md").read_text())
    init = [f for f in facts if f.message_kind == "rm_init_adapter_failed"]
    assert [(f.evidence.line, f.pci_bus_id, f.code, f.status, f.init_stage, f.reset_hint, f.detail) for f in init] == [
        (35, None, "0x62:0x40:2168", "NV_ERR_INVALID_STATE", "firmware", True, "unexpected WPR2 already up")]


def test_open_module_refusal_untagged_real_paste():
    # siderolabs/extensions#114: the node's lines copied without "NVRM: ", the RmInitAdapter line cut before its code
    facts = _nvrm((FIX / "extensions114_open_module_refusal_untagged.txt").read_text())
    assert [(f.evidence.line, f.message_kind, f.pci_bus_id) for f in facts] == [
        (1, "open_module_unsupported", "0000:07:00.0"), (5, "rm_init_adapter_failed", "0000:07:00.0")]


def test_companion_line_cut_before_its_minor_number_real_paste():
    # siderolabs/talos#6206 (talosctl dmesg): "rm_init_adapter failed, device minor number" cut at the paste's edge is
    # RmInitAdapter's companion, not a line of its own
    r = kernel_log.parse(Artefact(path="dmesg.log", text=(FIX / "talos6206_open_module_refusal_minor_cut.log").read_text(), node="n1"))
    assert r.errors == []
    assert [(f.evidence.line, f.message_kind) for f in r.facts if f.kind == "nvrm_error"] == [
        (2, "open_module_unsupported"), (6, "rm_init_adapter_failed")]
    assert r.lines_used >= 6


@pytest.mark.parametrize("text, kinds", [
    # each of the driver's untagged messages, under a list marker, a quote or an indent
    ("  - rm_init_adapter failed, device minor number 0\n", ["rm_init_adapter_failed"]),
    ("> GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n", ["rm_init_adapter_failed"]),
    ("* unexpected WPR2 already up\n", ["gsp_boot_failed"]),
    # RmInitAdapter's line cut before its code, and the open module's refusal (siderolabs/extensions#114)
    ("GPU 0000:07:00.0: RmInitAdapter failed!\n", ["rm_init_adapter_failed"]),
    ("Open nvidia.ko is only ready for use on Data Center GPUs. \n", ["open_module_unsupported"]),
    ("I keep seeing RmInitAdapter failed! after a reboot\n", []),
    # the WPR2 line with its function, "gsp" in lower case (kernel_gsp.c of the 590 modules)
    ("[ 3.1] NVRM: _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting gsp\n", ["gsp_boot_failed"]),
    # a sentence that names the message is no record: not read (CONSTRUCTED)
    ("I keep seeing RmInitAdapter failed! (0x62:0x40:2168) after a reboot\n", []),
    ("the notes say unexpected WPR2 already up is a known state\n", []),
])
def test_untagged_driver_messages(text, kinds):
    r = kernel_log.parse(Artefact(path="ticket.md", text=text, node="n1"))
    assert r.errors == []
    assert [f.message_kind for f in r.facts if f.kind == "nvrm_error"] == kinds
    assert kernel_log.detect(text) is bool(kinds)
