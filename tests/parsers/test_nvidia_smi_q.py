"""nvidia-smi -q (text) and -q -x (XML) parsers: real H200 captures, older-driver variants,
text/XML equivalence, malformed values, mixed terminal pastes."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_smi_q as q
from stethoscope.facts.parsers import nvidia_smi_xml as x
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
QDIR = ROOT / "fixtures/artefacts/nvidia_smi_q"
XDIR = ROOT / "fixtures/artefacts/nvidia_smi_xml"
OBS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"
G0, G1 = "0000:00:06.0", "0000:00:07.0"


def run(mod, path: Path, text: str | None = None):
    art = Artefact(path=path.name, text=path.read_text() if text is None else text, node="node1")
    return art, mod.parse(art)


def facts(result, kind: str, bus: str | None = None, **match):
    return [f for f in result.facts if f.kind == kind and (bus is None or f.pci_bus_id == bus)
            and all(getattr(f, k) == v for k, v in match.items())]


def one(result, kind: str, bus: str | None = None, **match):
    found = facts(result, kind, bus, **match)
    assert len(found) == 1, (kind, bus, match, found)
    return found[0]


def view(f) -> dict:
    v = f.rule_view()
    v.pop("id")
    return v


# ---- detect ------------------------------------------------------------------------------

@pytest.mark.parametrize("mod,head,expected", [
    (q, "\n==============NVSMI LOG==============\n\nTimestamp : x\n", True),
    (q, "root@node1:~# nvidia-smi -q\n==============NVSMI LOG==============\n", True),
    (q, "Failed to parse --display/-d flags\n", False),
    (q, "<nvidia_smi_log>\n", False),
    (q, "==============XPUSMI LOG==============\n", False),
    (x, '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">\n<nvidia_smi_log>\n', True),
    (x, "$ nvidia-smi -q -x\n<nvidia_smi_log>\n", True),
    (x, "==============NVSMI LOG==============\n", False),
    (x, '<system version="2">\n  <cpu host_hash="0x1" numaid="0">\n', False),
])
def test_detect_rows(mod, head, expected):
    assert mod.detect(head) is expected


def test_detect_over_every_real_capture():
    for path in sorted(p for p in OBS.rglob("*") if p.is_file()):
        head = path.read_bytes()[:65536].decode("utf-8", "replace")
        is_text = path.name.startswith("nvidia-smi-q") and path.suffix == ".txt" and "PCIE" not in path.name
        assert q.detect(head) is is_text, path
        assert x.detect(head) is (path.name == "nvidia-smi-q.xml"), path


# ---- real captures ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_text():
    return run(q, QDIR / "nvidia-smi-q.txt")


@pytest.fixture(scope="module")
def real_xml():
    return run(x, XDIR / "nvidia-smi-q.xml")


@pytest.mark.parametrize("fixture", ["real_text", "real_xml"])
def test_real_capture_values(fixture, request):
    art, r = request.getfixturevalue(fixture)
    assert r.errors == []
    assert r.lines_used == art.nonblank_lines()  # its non-blank lines (a blank line is not counted as read)
    info = one(r, "gpu_info", G0)
    assert (info.index, info.name, info.uuid, info.serial, info.vbios) == (
        0, "NVIDIA H200", "GPU-5cc6fa16-d7a0-98bf-3d43-f0337652e85f", "1653724056161", "96.00.A5.00.1A")
    assert (info.driver_version, info.cuda_version, info.product_architecture) == ("580.159.04", "13.0", "Hopper")
    assert info.persistence_mode is True and info.recovery_action == "None" and info.node == "node1"
    assert one(r, "gpu_info", G1).index == 1
    assert one(r, "gpu_info", G1).uuid == "GPU-917f22bd-ff0d-bb99-872f-9d9d05a6faaf"
    reasons = facts(r, "gpu_clock_reason", G0)
    assert [f.reason for f in reasons] == [
        "gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "hw_thermal_slowdown",
        "hw_power_brake_slowdown", "sync_boost", "sw_thermal_slowdown", "display_clock_setting"]
    assert [f.reason for f in reasons if f.active] == ["gpu_idle"]
    assert {f.section_name for f in reasons} == {"Clocks Event Reasons"}
    assert one(r, "gpu_clock_reason", G0, reason="sw_power_cap").counter_us == 0
    assert one(r, "gpu_clock_reason", G0, reason="gpu_idle").counter_us is None
    t = one(r, "gpu_temperature", G1)
    assert (t.gpu_temp_c, t.memory_temp_c, t.tlimit_c, t.shutdown_tlimit_c, t.slowdown_tlimit_c) == (33, 33, 54, -8, -2)
    assert t.shutdown_c is None and t.max_operating_c is None  # R580 prints T.Limit-relative limits only
    p = one(r, "gpu_power", G0)
    assert (p.current_limit_w, p.enforced_limit_w, p.default_limit_w, p.min_limit_w, p.max_limit_w) == (
        700.0, 700.0, 700.0, 200.0, 700.0)
    assert 70 < p.draw_w < 90
    mode = one(r, "gpu_ecc_mode", G0)
    assert (mode.current_enabled, mode.pending_enabled) == (True, True)
    ecc = facts(r, "gpu_ecc_count", G0)
    assert len(ecc) == 10 and all(f.count == 0 for f in ecc)
    assert {(f.scope, f.error_type, f.location) for f in ecc} == {
        (s, t, loc) for s in ("volatile", "aggregate") for t, loc in [
            ("correctable", "sram"), ("uncorrectable", "sram_parity"), ("uncorrectable", "sram_secded"),
            ("correctable", "dram"), ("uncorrectable", "dram")]}
    assert one(r, "gpu_ecc_threshold", G0).sram_threshold_exceeded is False
    assert one(r, "gpu_memory_repair", G0).unrepairable_memory is False
    assert facts(r, "gpu_retired_pages", G0) == []  # Retired Pages N/A throughout (rows are remapped): no reading
    remap = one(r, "gpu_row_remap", G0)
    assert (remap.correctable_rows, remap.uncorrectable_rows, remap.pending, remap.failure) == (0, 0, False, False)
    assert (remap.bank_max, remap.bank_high, remap.bank_partial, remap.bank_low, remap.bank_none) == (3072, 0, 0, 0, 0)
    link = one(r, "gpu_pcie_link", G1)
    assert (link.gen_current, link.gen_max, link.gen_device_max, link.width_current, link.width_max) == (5, 5, 5, 16, 16)
    assert (link.replay_counter, link.replay_rollover, link.gen_host_max) == (0, 0, None)
    fab = one(r, "gpu_fabric", G0)
    assert (fab.state, fab.status, fab.clique_id, fab.cluster_uuid) == (
        "Completed", "Success", "0", "00000000-0000-0000-0000-000000000000")


def test_real_text_evidence_lines(real_text):
    art, r = real_text
    ev = {f.kind: f.evidence for f in facts(r, "gpu_info", G0) + facts(r, "gpu_row_remap", G0)
          + facts(r, "gpu_pcie_link", G0) + facts(r, "gpu_temperature", G0) + facts(r, "gpu_power", G0)}
    assert (ev["gpu_info"].line, ev["gpu_info"].text) == (9, "GPU 00000000:00:06.0")
    assert ev["gpu_row_remap"].text.split() == ["Pending", ":", "No"] and ev["gpu_row_remap"].line == 178
    assert ev["gpu_pcie_link"].text.split() == ["Current", ":", "5"] and ev["gpu_pcie_link"].line == 76
    assert ev["gpu_temperature"].text.strip().startswith("GPU Current Temp")
    assert ev["gpu_power"].text.strip() == "GPU Power Readings"
    hw = one(r, "gpu_clock_reason", G0, reason="hw_thermal_slowdown").evidence
    assert (hw.line, hw.text.split(":")[0].strip()) == (99, "HW Thermal Slowdown")
    for f in r.facts:  # every evidence line is the verbatim line of the file
        assert art.lines[f.evidence.line - 1] == f.evidence.text


def test_real_xml_evidence_lines(real_xml):
    art, r = real_xml
    assert one(r, "gpu_info", G1).evidence.line == 550
    assert one(r, "gpu_info", G1).evidence.text == '\t<gpu id="00000000:00:07.0">'
    assert one(r, "gpu_clock_reason", G0, reason="gpu_idle").evidence.line == 110
    assert one(r, "gpu_row_remap", G1).evidence.text.strip() == "<remapped_row_pending>No</remapped_row_pending>"
    assert one(r, "gpu_temperature", G0).evidence.line == 226
    assert one(r, "gpu_pcie_link", G1).evidence.text.strip() == "<current_link_gen>5</current_link_gen>"
    for f in r.facts:
        assert art.lines[f.evidence.line - 1] == f.evidence.text


def _comparable(result, skip=("draw_w", "average_draw_w")):
    return sorted(str({k: v for k, v in view(f).items() if k not in skip}) for f in result.facts)


def test_text_and_xml_give_the_same_facts_h200(real_text, real_xml):
    # the two captures are seconds apart: only the power draw moved
    assert _comparable(real_text[1]) == _comparable(real_xml[1])


def test_text_and_xml_give_the_same_facts_old_driver():
    _, rt = run(q, QDIR / "v100_r470_q_i1.txt")
    _, rx = run(x, XDIR / "v100_r470_q_i1.xml")
    assert rt.errors == rx.errors == []
    # the XML capture was cut to the sections the text's readers had then: no clocks or utilization
    for res in (rt, rx):
        res.facts = [f for f in res.facts if f.kind not in ("gpu_clocks", "gpu_usage")]
    assert _comparable(rt, skip=()) == _comparable(rx, skip=())


@pytest.mark.parametrize("name,kinds", [
    ("nvidia-smi-q-PERFORMANCE.txt", {"gpu_info", "gpu_clock_reason", "gpu_clock_reasons"}),
    ("nvidia-smi-q-ECC.txt", {"gpu_info", "gpu_ecc_mode", "gpu_ecc_count", "gpu_ecc_threshold", "gpu_memory_repair"}),
    ("nvidia-smi-q-TEMPERATURE.txt", {"gpu_info", "gpu_temperature"}),
    ("nvidia-smi-q-POWER.txt", {"gpu_info", "gpu_power"}),
    ("nvidia-smi-q-ROW_REMAPPER.txt", {"gpu_info", "gpu_row_remap"}),
    ("nvidia-smi-q-PAGE_RETIREMENT.txt", {"gpu_info"}),  # H200: Retired Pages N/A throughout, no reading
    ("nvidia-smi-q-CLOCK.txt", {"gpu_info", "gpu_clocks"}),
])
def test_display_sections(name, kinds):
    art, r = run(q, QDIR / name)
    assert r.errors == [] and {f.kind for f in r.facts} == kinds
    assert r.lines_used == art.nonblank_lines()  # every non-blank line (blank lines are not counted as read)
    assert one(r, "gpu_info", G0).name is None  # -d prints no identity lines


def test_performance_after_counter():
    _, r = run(q, QDIR / "nvidia-smi-q-PERFORMANCE-after.txt")
    f = one(r, "gpu_clock_reason", G0, reason="sw_power_cap")
    assert (f.active, f.counter_us) == (False, 404450)


def test_pcie_display_flag_rejected_is_no_information():
    art, r = run(q, QDIR / "nvidia-smi-q-PCIE.txt")
    assert art.text.strip() == "Failed to parse --display/-d flags"
    assert (r.facts, r.errors, r.lines_used) == ([], [], 0)


@pytest.mark.parametrize("mod,text", [(q, ""), (x, ""), (q, "\n\n"), (x, "<nvidia_smi_log></nvidia_smi_log>")])
def test_empty_input(mod, text):
    r = mod.parse(Artefact(path="empty", text=text))
    assert r.facts == [] and r.errors == []


# ---- variants ----------------------------------------------------------------------------

def test_old_driver_throttle_reasons_and_layout():
    _, r = run(q, QDIR / "v100_r470_q_i1.txt")
    bus = "0000:1c:00.0"
    assert r.errors == []
    assert one(r, "gpu_info", bus).index is None  # -i 1 of 8 attached GPUs: order is not the index
    reasons = facts(r, "gpu_clock_reason", bus)
    assert len(reasons) == 9 and {f.section_name for f in reasons} == {"Clocks Throttle Reasons"}
    assert one(r, "gpu_clock_reason", bus, reason="hw_power_brake_slowdown").active is False
    assert one(r, "gpu_ecc_mode", bus).current_enabled is True  # "Ecc Mode"
    sbe = one(r, "gpu_ecc_count", bus, scope="aggregate", error_type="correctable", location="device_memory")
    assert sbe.count == 3 and sbe.evidence.text.strip() == "Device Memory             : 3"
    assert one(r, "gpu_ecc_count", bus, scope="volatile", error_type="correctable", location="texture_shared").count is None
    assert len(facts(r, "gpu_ecc_count", bus)) == 32
    t = one(r, "gpu_temperature", bus)
    assert (t.gpu_temp_c, t.shutdown_c, t.slowdown_c, t.max_operating_c, t.max_memory_c) == (29, 90, 87, 83, 85)
    p = one(r, "gpu_power", bus)
    assert (p.draw_w, p.current_limit_w, p.enforced_limit_w, p.max_limit_w) == (25.13, 250.0, 250.0, 250.0)
    assert p.evidence.text.strip() == "Power Readings"
    pages = one(r, "gpu_retired_pages", bus)
    assert (pages.sbe_pages, pages.dbe_pages, pages.pending) == (1, 0, False)
    assert facts(r, "gpu_row_remap") == [] and facts(r, "gpu_fabric") == []  # "Remapped Rows : N/A"


def test_hw_thermal_slowdown_active_and_volatile_dbe():
    _, r = run(q, QDIR / "v100_r470_hw_thermal_dbe.txt")
    bus = "0000:1c:00.0"
    active = {f.reason for f in facts(r, "gpu_clock_reason", bus) if f.active}
    assert active == {"hw_slowdown", "hw_thermal_slowdown"}
    f = one(r, "gpu_clock_reason", bus, reason="hw_thermal_slowdown")
    assert f.evidence.text.strip() == "HW Thermal Slowdown           : Active" and f.evidence.line == 74
    dbe = one(r, "gpu_ecc_count", bus, scope="volatile", error_type="uncorrectable", location="device_memory")
    assert dbe.count == 2
    assert one(r, "gpu_retired_pages", bus).pending is True
    assert one(r, "gpu_temperature", bus).gpu_temp_c == 88


def test_h200_volatile_dram_uncorrectable():
    _, r = run(q, QDIR / "h200_ecc_dbe_volatile.txt")
    assert one(r, "gpu_ecc_count", G0, scope="volatile", error_type="uncorrectable", location="dram").count == 2
    assert one(r, "gpu_ecc_count", G1, scope="volatile", error_type="uncorrectable", location="dram").count == 0


def test_remapped_rows_pending():
    _, r = run(q, QDIR / "h200_remap_pending.txt")
    f = one(r, "gpu_row_remap", G0)
    assert (f.uncorrectable_rows, f.pending, f.failure, f.bank_max, f.bank_partial) == (4, True, False, 3071, 1)
    assert f.evidence.line == 15 and f.evidence.text.split() == ["Pending", ":", "Yes"]
    assert one(r, "gpu_row_remap", G1).pending is False


def test_pcie_downtrained_link():
    _, r = run(q, QDIR / "h200_pcie_gen4_x8.txt")
    f = one(r, "gpu_pcie_link", G0)
    assert (f.gen_current, f.gen_max, f.width_current, f.width_max) == (4, 5, 8, 16)
    assert f.evidence.text.split() == ["Current", ":", "4"]
    assert one(r, "gpu_info", G0).index == 0  # 2 attached, 2 listed


@pytest.mark.parametrize("mod,path,line", [
    (q, QDIR / "malformed_pcie_gen.txt", 22),
    (x, XDIR / "malformed_pcie_gen.xml", 12),
])
def test_malformed_value_is_a_parse_error(mod, path, line):
    art, r = run(mod, path)
    assert len(r.errors) == 1
    err = r.errors[0]
    assert (err.path, err.line) == (path.name, line) and "banana" in err.message
    assert "banana" in art.lines[line - 1]
    f = one(r, "gpu_pcie_link", G0)
    assert f.gen_current is None and f.gen_max == 5  # the rest of the GPU is still read


def test_mixed_terminal_session_text():
    art, r = run(q, QDIR / "mixed_terminal_session.txt")
    assert r.errors == []
    assert {f.kind for f in r.facts} == {"gpu_info", "gpu_temperature"}
    assert r.lines_used == 25  # the non-blank lines of 2-29: banner .. last temperature line; not prompts nor dmesg
    t = one(r, "gpu_temperature", G0)
    assert t.gpu_temp_c == 32 and t.evidence.line == 11
    assert all(not f.evidence.text.startswith(("root@", "[")) for f in r.facts)


def test_mixed_terminal_session_xml():
    real = (XDIR / "nvidia-smi-q.xml").read_text()
    text = "root@node1:~# nvidia-smi -q -x\n" + real + "root@node1:~# dmesg | tail -1\n[  12.3] NVRM: x\n"
    art, r = run(x, XDIR / "nvidia-smi-q.xml", text=text)
    assert r.errors == [] and r.lines_used == 1090  # the document's non-blank lines (1092 with its 2 blank ones)
    assert one(r, "gpu_info", G1).evidence.line == 551
    for f in r.facts:
        assert art.lines[f.evidence.line - 1] == f.evidence.text


def test_xml_entities_are_not_expanded():
    _, r = run(x, XDIR / "entity_expansion.xml")
    assert r.facts == []
    assert len(r.errors) == 1 and r.errors[0].line == 8 and "undefined entity" in r.errors[0].message


def test_truncated_xml_keeps_complete_gpus():
    """A document without its end tag is read up to the cut (the complete GPU and what the cut
    one shows) and reported cut_short, not as malformed: the verdict cannot be healthy."""
    real = (XDIR / "nvidia-smi-q.xml").read_text()
    cut = real[: real.index('<gpu id="00000000:00:07.0">') + 200]
    art, r = run(x, XDIR / "nvidia-smi-q.xml", text=cut)
    assert r.errors == []
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", len(cut.rstrip().split("\n")))]
    assert G1 in r.limits[0].detail
    assert one(r, "gpu_info", G0).name == "NVIDIA H200"
    assert one(r, "gpu_temperature", G0).gpu_temp_c == 32
    assert one(r, "gpu_info", G1).name == "NVIDIA H200"  # its fields before the cut


@pytest.mark.parametrize("where", ["<gpu_temp>3", "<gpu_te", "</gpu_temp", '<gpu id="00000000:00:07'])
def test_xml_cut_mid_token_is_cut_short_not_malformed(where):
    real = (XDIR / "nvidia-smi-q.xml").read_text()
    _, r = run(x, XDIR / "nvidia-smi-q.xml", text=real[: real.index(where) + len(where)])
    assert r.errors == [] and [h.limit for h in r.limits] == ["cut_short"]


def test_real_xml_paste_cut_inside_the_gpu():
    """1Panel-dev/1Panel#10990: the paste ends after accounting_mode_buffer_size, inside the GPU."""
    art, r = run(x, XDIR / "panel10990_gtx1050_cut_mid_gpu.xml")
    assert r.errors == []
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 25)]
    info = one(r, "gpu_info", "0000:01:00.0")
    assert (info.name, info.driver_version, info.evidence.line) == ("NVIDIA GeForce GTX 1050 with Max-Q Design", "580.95.05", 8)


def test_xml_cut_then_not_xml_stays_malformed():
    """A document without its end tag followed by text expat cannot read: a parse error, as before."""
    real = (XDIR / "panel10990_gtx1050_cut_mid_gpu.xml").read_text()
    _, r = run(x, XDIR / "panel10990_gtx1050_cut_mid_gpu.xml", text=real + "user@host:~$ echo <<EOF\n")
    assert len(r.errors) == 1 and "malformed" in r.errors[0].message and r.limits == []


# ---- fragments without banner or GPU header (issue 11) -----------------------------------

@pytest.mark.parametrize("name", ["fragment_clocks_throttle_grep_A8_idle.txt", "fragment_fabric_grep_C3_unhealthy.txt",
                                  "fragment_fabric_insufficient_resources.txt", "fragment_recovery_action_reset.txt"])
def test_detect_real_fragments(name):
    assert q.detect((QDIR / name).read_text())


def test_real_grep_A8_clocks_throttle_fragment():
    art, r = run(q, QDIR / "fragment_clocks_throttle_grep_A8_idle.txt")
    assert r.errors == [] and r.lines_used == 9  # all but the shell command
    info = one(r, "gpu_info")
    assert info.pci_bus_id == "unknown-1"
    reasons = {f.reason: f.active for f in facts(r, "gpu_clock_reason")}
    assert reasons["gpu_idle"] is True and reasons["hw_thermal_slowdown"] is False
    assert len(reasons) == 8 and sum(reasons.values()) == 1


def test_real_grep_C3_fabric_fragment():
    _, r = run(q, QDIR / "fragment_fabric_grep_C3_unhealthy.txt")
    fab = one(r, "gpu_fabric")
    assert (fab.state, fab.status, fab.clique_id, fab.health_summary) == ("Completed", "Success", "2", "Unhealthy")


def test_grep_C3_chunk_begun_inside_ecc_errors():
    """`nvidia-smi -q | grep -C3 -E "Pending|Volatile"` of the real H200 capture: each GPU's chunk after a `--` starts
    inside ECC Errors (its SRAM sources' last rows), then Channel Repair Pending, TPC Repair Pending and Unrepairable
    Memory without the section's header. Those three are read (ECC Errors is the only section printing them); the
    paste shows no error counts, so it is cut_short (never a healthy GPU), and a 'Yes' among them is read."""
    path = QDIR / "h200_grep_C3_pending_volatile.txt"
    _, r = run(q, path)
    repairs = facts(r, "gpu_memory_repair")
    assert repairs and all(not f.channel_repair_pending and not f.tpc_repair_pending for f in repairs)
    assert [h.limit for h in r.limits] == ["cut_short", "cut_short"]
    text = path.read_text()
    first = text.index("Channel Repair Pending")
    yes = text[:first] + text[first:].replace(": No", ": Yes", 1)  # the first GPU's channel repair pending
    _, r = run(q, path, text=yes)
    assert [f.channel_repair_pending for f in facts(r, "gpu_memory_repair")].count(True) == 1


def test_real_fabric_block_at_column_0():
    _, r = run(q, QDIR / "fragment_fabric_insufficient_resources.txt")
    fab = one(r, "gpu_fabric")
    assert (fab.pci_bus_id, fab.state, fab.status, fab.clique_id) == ("unknown-1", "Completed", "Insufficient Resources", "0")


def test_real_recovery_action_fragment():
    _, r = run(q, QDIR / "fragment_recovery_action_reset.txt")
    info = one(r, "gpu_info")
    assert (info.recovery_action, info.reset_required, info.drain_and_reset_recommended) == ("Reset", None, None)


def test_fragments_name_their_gpu_or_count_anonymous_ones():
    text = ("Remapped Rows\n    Correctable Error                 : 0\n    Uncorrectable Error               : 0\n"
            "    Pending                           : No\n    Remapping Failure Occurred        : No\n"
            "GPU 00000000:3B:00.0\n    Remapped Rows\n        Correctable Error             : 1\n"
            "        Pending                       : Yes\n"
            "--\n    Remapped Rows\n        Pending                       : No\n")
    assert q.detect(text)
    _, r = run(q, QDIR / "x", text=text)
    assert r.errors == []
    remaps = {f.pci_bus_id: f.pending for f in facts(r, "gpu_row_remap")}
    assert remaps == {"unknown-1": False, "0000:3b:00.0": True, "unknown-2": False}


def test_other_nvidia_smi_output_is_no_fragment():
    table = "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |\n|  0  NVIDIA H200  On |\n"
    assert not q.detect(table)
    assert not q.detect("index, gpu_recovery_action\n0, None\n")


def test_pci_section_pasted_from_inside_is_read():
    """A paste begun inside the PCI section (fangq/mcx#18: from PCIe Generation's Max on, no
    banner, GPU header or ``PCI`` line) reads its link width into one anonymous GPU, the same GPU
    as the sections that follow; the Max/Current above ``Link Width`` have no section to name them."""
    path = QDIR / "mcx18_pci_fragment_x8_of_x16.txt"
    assert q.detect(path.read_text())
    _, r = run(q, path)
    assert r.errors == [] and r.limits == []
    link = one(r, "gpu_pcie_link", "unknown-1")
    assert (link.width_current, link.width_max, link.width_below_max) == (8, 16, True)
    assert (link.gen_current, link.gen_max, link.replay_counter) == (None, None, 0) and link.evidence.line == 5
    assert {f.pci_bus_id for f in r.facts} == {"unknown-1"}
    assert one(r, "gpu_clock_reason", "unknown-1", reason="unknown").active is True


def test_pci_section_from_its_replays_line_is_one_gpu():
    # NVIDIA/nvidia-docker#1090: the paste starts at "Replays Since Reset", the clock reasons follow
    _, r = run(q, QDIR / "nvdocker1090_hw_slowdown_sub_reasons_na.txt")
    assert one(r, "gpu_pcie_link", "unknown-1").replay_counter == 0
    assert {f.pci_bus_id for f in r.facts} == {"unknown-1"} and len(facts(r, "gpu_info")) == 1


def test_pci_section_pasted_from_bus_id_names_its_gpu():
    """From ``Bus Id`` on (the H200 excerpt's two PCI sections without banner, header or ``PCI``
    line): each section is a GPU named by its Bus Id; a Bus Id that is no bus id stays anonymous."""
    lines = (QDIR / "h200_pcie_gen4_x8.txt").read_text().splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.strip().startswith("Bus Id")]
    text = "\n".join(lines[starts[0]:starts[0] + 15] + ["--"] + lines[starts[1]:starts[1] + 15]) + "\n"
    assert q.detect(text)
    _, r = run(q, QDIR / "x", text=text)
    links = {f.pci_bus_id: (f.gen_current, f.gen_max, f.width_current, f.width_max) for f in facts(r, "gpu_pcie_link")}
    assert links == {"0000:00:06.0": (4, 5, 8, 16), "0000:00:07.0": (5, 5, 16, 16)}
    _, r = run(q, QDIR / "x", text=text.replace("00000000:00:06.0", "N/A"))
    assert {f.pci_bus_id for f in facts(r, "gpu_pcie_link")} == {"unknown-1", "0000:00:07.0"}


def test_link_width_said_by_other_tools_is_no_fragment():
    # near misses: lspci's LnkSta, a key "Link Width" with its value on the line (mlxlink-like)
    assert not q.detect("\t\tLnkSta:\tSpeed 16GT/s, Width x8 (downgraded)\n")
    assert not q.detect("Link Width : 16x\nPCIe Generation : 4\n")


def test_key_lines_alone_read_in_their_only_section():
    """The key lines of a section pasted without its header (issue 11, the key line alone): a key
    nvidia-smi -q prints in one section only names it; ``Pending`` after it stays in it."""
    lines = (QDIR / "nvidia-smi-q-ROW_REMAPPER.txt").read_text().splitlines()
    pasted = "\n".join(ln for ln in lines[10:16] if ln.split(":")[0].strip() in ("Uncorrectable Error", "Pending"))
    assert pasted.count("\n") == 1
    for text in (pasted, "\n".join(ln.strip() for ln in pasted.splitlines())):
        assert q.detect(text)
        _, r = run(q, QDIR / "x", text=text)
        f = one(r, "gpu_row_remap", "unknown-1")
        assert (f.uncorrectable_rows, f.pending) == (0, False) and f.evidence.line == 2
    retired = next(ln for ln in (QDIR / "v100_r470_q_i1.txt").read_text().splitlines() if "Double Bit ECC" in ln)
    _, r = run(q, QDIR / "x", text=retired + "\n")
    assert one(r, "gpu_retired_pages", "unknown-1").dbe_pages == 0
    # an H200's (N/A: it remaps rows instead) is read, and is no reading
    retired = next(ln for ln in (QDIR / "nvidia-smi-q-PAGE_RETIREMENT.txt").read_text().splitlines() if "Double Bit ECC" in ln)
    _, r = run(q, QDIR / "x", text=retired + "\n")
    assert r.errors == [] and facts(r, "gpu_retired_pages") == []


def test_shared_key_alone_is_no_section():
    # near miss: Pending is a key of Ecc Mode, MIG Mode and Remapped Rows alike
    assert not q.detect("        Pending                           : Yes\n")
    _, r = run(q, QDIR / "x", text="        Pending                           : Yes\n")
    assert r.facts == []


def test_key_line_alone_without_the_decisive_key_is_cut_short():
    """'Uncorrectable Error : 0' alone says how many rows were remapped, not whether one is
    pending: a capture cut short, never a GPU found healthy; with Pending it is read whole."""
    lines = (QDIR / "nvidia-smi-q-ROW_REMAPPER.txt").read_text().splitlines()
    unc = next(ln for ln in lines if ln.strip().startswith("Uncorrectable Error"))
    _, r = run(q, QDIR / "x", text=unc + "\n")
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 1)]
    pending = next(ln for ln in lines if ln.strip().startswith("Pending"))
    assert run(q, QDIR / "x", text=unc + "\n" + pending + "\n")[1].limits == []


def test_block_ending_at_a_field_name_without_value_is_cut_short():
    """nvidia-smi prints every field with its value on one line: a block whose last line is a name with
    nothing after it (ollama#13552's excerpt ends at 'GPU Slowdown T.Limit Temp') was cut there; the
    same block ending at a field with its value is whole (no limit)."""
    path = QDIR / "ollama13552_d_perf_temp_cut_at_field_name.txt"
    _, res = run(q, path)
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 31)] and res.errors == []
    whole = path.read_text().rsplit("\n", 2)[0] + "\n        GPU Slowdown T.Limit Temp         : -2 C\n"
    assert run(q, path, whole)[1].limits == []
    section_last = path.read_text().rsplit("\n", 2)[0] + "\n    Power Readings\n"
    assert [h.line for h in run(q, path, section_last)[1].limits] == [31]


def test_block_ending_at_a_field_with_no_value_is_cut_not_malformed():
    """A paste that ends on a field and its ' : ' with nothing after (k8s-device-plugin#110's stored excerpt
    ends at 'Persistence Mode :') was cut inside that line: a cut_short limit, no parse error, the field not
    read; the same field with a value on a line of its own is read."""
    path = QDIR / "k8sdp110_cut_inside_persistence_mode.txt"
    _, res = run(q, path)
    assert res.errors == [] and ("cut_short", 13) in [(h.limit, h.line) for h in res.limits]
    assert [getattr(f, "persistence_mode", None) for f in res.facts] == [None]
    _, res = run(q, path, path.read_text().rstrip("\n") + " Disabled\n")
    assert res.errors == [] and [getattr(f, "persistence_mode", None) for f in res.facts] == [False]


def test_section_pasted_without_banner_ending_at_a_field_with_no_value_is_cut_not_malformed():
    """NVIDIA/nvidia-docker#1070's stored excerpt: -q's sections from FB Memory Usage's tail to Temperature, no banner
    and no GPU line, ending at 'GPU Current Temp :' with nothing after it. Cut inside that line (a cut_short limit),
    no parse error (the empty value read as a temperature made it an unexplained GPU error); the ECC and retired-page
    fields before it are read as before; the same line with a value is read."""
    path = QDIR / "nvidia_docker1070_fragment_cut_at_gpu_current_temp.txt"
    _, res = run(q, path)
    assert res.errors == [] and ("cut_short", 37) in [(h.limit, h.line) for h in res.limits]
    assert not [f for f in res.facts if f.kind == "gpu_temperature"]
    assert {f.kind for f in res.facts} >= {"gpu_ecc_mode", "gpu_ecc_count"}
    _, res = run(q, path, path.read_text().rstrip("\n") + " 38 C\n")
    assert res.errors == [] and [f.gpu_temp_c for f in res.facts if f.kind == "gpu_temperature"] == [38]
    assert ("cut_short", 37) not in [(h.limit, h.line) for h in res.limits]


def test_head_of_q_without_banner_is_checked_as_a_whole_capture():
    """The head of -q pasted from 'Attached GPUs' on without the banner (harvest 174, Project-HAMi/HAMi#602's
    form) is a capture's start: one that stops inside a GPU block before Processes, or shows fewer GPUs than
    it says are attached, gets the limits the banner's block gets (k8s-device-plugin#110's first five lines
    alone, a product name and nothing of the GPU's state, were HEALTHY); a grep of such a head (its '--'
    separators) is a filter, not a cut capture."""
    path = QDIR / "k8sdp110_cut_inside_persistence_mode.txt"
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if "Attached GPUs" in ln)
    head = "\n".join(lines[start - 1:start + 4]) + "\n"
    _, res = run(q, path, head)
    assert res.errors == [] and sorted(h.limit for h in res.limits) == ["cut_short", "gpus_not_shown"]
    grepped = "\n".join(lines[start - 1:start + 4]) + "\n--\n" + lines[start + 1] + "\n"
    assert [h.limit for h in run(q, path, grepped)[1].limits] == []


def test_ecc_mode_the_operating_system_refused_is_a_limit_not_an_error():
    # google/gvisor pull request 10676: nvidia-smi -q --display=ECC under runsc --nvproxy without the ECC ioctls
    # (nvmlErrorString(NVML_ERROR_OPERATING_SYSTEM) for the field), as pasted
    text = ("GPU 00000000:00:1E.0\n    ECC Mode\n"
            "        Current                           : GPU access blocked by the operating system\n"
            "        Pending                           : GPU access blocked by the operating system\n"
            "    ECC Errors\n        Volatile\n            SRAM Correctable              : N/A\n"
            "            SRAM Uncorrectable            : N/A\n            DRAM Correctable              : N/A\n"
            "            DRAM Uncorrectable            : N/A\n")
    r = q.parse(Artefact(path="smi.txt", text=text))
    assert r.errors == []
    assert [(h.limit, h.line) for h in r.limits] == [("query_refused", 3), ("query_refused", 4)]
    assert [(f.current_enabled, f.pending_enabled) for f in r.facts if f.kind == "gpu_ecc_mode"] in ([], [(None, None)])


def test_a_line_no_smi_q_prints_under_its_block_is_not_one_of_its_rows():
    # round rG4's probe: another program's line (dcgm-exporter's, harvest 1002: NVIDIA/dcgm-exporter#80) indented four
    # blanks under the ECC block was passed over as a row and counted read (its span covered it): HEALTHY. A row that is
    # neither "<key> : <value>" nor a section's name is no -q row: left out of the span and the count
    text = (QDIR / "nvidia-smi-q-ECC.txt").read_text().rstrip("\n")
    n = len(text.splitlines())
    alien = '    time="2022-07-19T14:22:41Z" level=fatal msg="Error getting device busid: API version mismatch"'
    _, res = run(q, QDIR / "nvidia-smi-q-ECC.txt", text + "\n\n" + alien + "\n")
    _, alone = run(q, QDIR / "nvidia-smi-q-ECC.txt", text + "\n")
    assert res.spans == alone.spans and all(b <= n for _a, b in res.spans)
    assert res.lines_used == alone.lines_used
    # inside the block, between rows: the span is split around it (the rows after it are still read)
    rows = text.splitlines()
    mid = len(rows) - 3
    _, res = run(q, QDIR / "nvidia-smi-q-ECC.txt", "\n".join(rows[:mid] + [alien] + rows[mid:]) + "\n")
    assert (mid + 1) not in {i for a, b in res.spans for i in range(a, b + 1)}
    assert res.lines_used == alone.lines_used and max(b for _a, b in res.spans) == n + 1


def test_a_block_holding_a_line_no_smi_q_prints_leaves_no_plan_that_hides_it():
    # the second reading of the same layout (one process, another file) is read from the first's plan, its rows passed
    # over: a plan kept from a block that held another program's line would hide that line the next time
    text = (QDIR / "nvidia-smi-q-ECC.txt").read_text().rstrip("\n")
    alien = '    time="2022-07-19T14:22:41Z" level=fatal msg="Error getting device busid: API version mismatch"'
    _, first = run(q, QDIR / "nvidia-smi-q-ECC.txt", text + "\n\n" + alien + "\n")
    _, again = run(q, QDIR / "nvidia-smi-q-ECC.txt", text + "\n\n" + alien + "\n")
    assert first.spans == again.spans and first.lines_used == again.lines_used
    assert len(text.splitlines()) + 2 not in {i for a, b in again.spans for i in range(a, b + 1)}


@pytest.mark.parametrize("name,bus,driver,temp", [
    ("monitorix28_r304_geforce6200_temperature_gpu_key.txt", "0000:01:05.0", "304.108", 49),
    ("monitorix28_r325_9400m_temperature_gpu_key.txt", "0000:03:00.0", "325.15", 39),
])
def test_old_driver_temperature_gpu_key(name, bus, driver, temp):
    """mikaku/Monitorix#28: drivers before R346 print the one Temperature reading as ``Gpu`` (``        Gpu
    : 49 C``): the GPU's current temperature, of the block's GPU, every line but the prompt read."""
    _, r = run(q, QDIR / name)
    t = one(r, "gpu_temperature", bus)
    assert t.gpu_temp_c == temp and t.evidence.text.split() == ["Gpu", ":", str(temp), "C"]
    assert one(r, "gpu_info", bus).driver_version == driver
    assert r.lines_used == 7 and not r.errors


def test_utilization_gpu_key_is_not_a_temperature():
    """Must not: the same ``Gpu`` key under Utilization (every driver) is the GPU's load, not a temperature."""
    text = ("==============NVSMI LOG==============\n\nDriver Version                      : 375.66\n\n"
            "Attached GPUs                       : 1\nGPU 0000:01:00.0\n    Utilization\n"
            "        Gpu                         : 47 %\n        Memory                      : 6 %\n")
    _, r = run(q, Path("util.txt"), text)
    assert not facts(r, "gpu_temperature")
    assert one(r, "gpu_usage", "0000:01:00.0").utilization_pct == 47


def test_q_pasted_in_an_open_inline_code_span():
    """gnome-shell-system-monitor-applet#356: a backtick before the banner (an inline code span the paste opens and the
    stored excerpt never closes): read from the banner (driver 375.66), every line read, the cut last field a limit."""
    from stethoscope.engine.parse_pool import parse_one
    path = QDIR / "gnome_monitor356_r375_open_inline_code_cut_at_deco.txt"
    res = parse_one(Artefact(path=path.name, text=path.read_text(), node="node1"))
    assert one(res, "gpu_info", "0000:01:00.0").driver_version == "375.66"
    assert one(res, "gpu_usage", "0000:01:00.0").utilization_pct == 47
    assert [h.limit for h in res.limits] == ["cut_short"]


def test_fabric_rows_pasted_without_their_header():
    """Wild sweep H3 (bench/plant_prefix_probe.py): harvest 800's two lines (Azure/azhpc-images#506, quoted without the
    Fabric header) beside a healthy nvidia-smi table read HEALTHY, claimed and skipped. CliqueId and ClusterUUID are
    printed in Fabric only: the section is placed from them, and the key lines just above at their indentation
    (State, Status) are read into it. Without its State the registration's outcome is not shown (cut_short)."""
    rows = "    Status                            : Insufficient Resources\n    CliqueId                          : 0\n"
    _, r = run(q, QDIR / "x.txt", text=rows)
    fab = one(r, "gpu_fabric")
    assert (fab.state, fab.status, fab.clique_id) == (None, "Insufficient Resources", "0")
    assert [h.limit for h in r.limits] == ["cut_short"] and "without state" in r.limits[0].detail
    # the real column-0 block of #506 without its header line: read whole, no limit
    text = (QDIR / "fragment_fabric_insufficient_resources.txt").read_text().split("\n", 1)[1]
    _, r = run(q, QDIR / "x.txt", text=text)
    fab = one(r, "gpu_fabric")
    assert (fab.state, fab.status, fab.clique_id) == ("Completed", "Insufficient Resources", "0") and not r.limits
    # must not: a key of another section, or one above a blank line or at another indentation, is not read into Fabric
    for above in ("    Persistence Mode                  : Enabled\n", "    Status                            : Success\n\n",
                  "Status : Success\n"):
        _, r = run(q, QDIR / "x.txt", text=above + "    CliqueId                          : 0\n")
        fab = one(r, "gpu_fabric")
        assert (fab.state, fab.status) == (None, None), above


@pytest.mark.parametrize("deep", [0, 4, 8])
@pytest.mark.parametrize("between", ["\n", "\n$ nvidia-smi -q | grep -B1 CliqueId\n"])
def test_fabric_rows_pasted_after_a_whole_capture(deep, between):
    """Wild sweep J3 (bench/plant_prefix_probe.py): harvest 800's two Fabric rows (Azure/azhpc-images#506) pasted after a
    whole -q were taken as the last GPU's rows (at its GPU level, or passed over below its last section, Capabilities)
    and counted read: the paste read HEALTHY. CliqueId is printed right under Fabric only (KEY_SECTIONS): after a blank
    line (nvidia-smi prints none inside a GPU block) it and the Fabric keys just above it are a tail, read as a fragment
    (an anonymous GPU, cut_short without State); rows after a line that ends the block (a prompt) are read so too.
    Wild sweep K3: the same rows at the margin (their indentation lost: logcli prints each line trimmed, a CI runner's
    ``##[error]`` taken off leaves the line as the step wrote it) were read as the capture's top keys; nvidia-smi prints
    those (Timestamp, Driver Version, ...) before the first GPU only, so after the GPU blocks they are a tail too."""
    whole = (QDIR / "nvidia-smi-q.txt").read_text().rstrip("\n") + "\n"
    indent = " " * deep
    rows = "".join(indent + ln + "\n" for ln in ("Status                            : Insufficient Resources",
                                                 "CliqueId                          : 0"))
    _, alone = run(q, QDIR / "x.txt", text=whole)
    _, r = run(q, QDIR / "x.txt", text=whole + between + rows)
    fab = one(r, "gpu_fabric", "unknown-1")
    assert (fab.state, fab.status, fab.clique_id) == (None, "Insufficient Resources", "0")
    assert [h.limit for h in r.limits] == ["cut_short"] and "without state" in r.limits[0].detail
    # the capture's own GPUs read as alone (their Fabric sections, Processes, Capabilities)
    assert [view(f) for f in alone.facts] == [view(f) for f in r.facts if f.pci_bus_id != "unknown-1"]
    assert r.lines_used == alone.lines_used + 2 and not alone.limits
    # with its State: the registration's outcome is shown (rule nvlink_fabric_status_error judges it)
    _, r = run(q, QDIR / "x.txt", text=whole + between + indent + "State                             : Completed\n" + rows)
    fab = one(r, "gpu_fabric", "unknown-1")
    assert (fab.state, fab.status, fab.clique_id) == ("Completed", "Insufficient Resources", "0") and not r.limits


def test_top_keys_before_the_first_gpu_are_read_as_before():
    """Must not (wild sweep K3): the capture's own top keys at the margin, before its first GPU, stay top keys (a
    CliqueId there, before any GPU block, is no tail of one: the block is read as before)."""
    whole = (QDIR / "nvidia-smi-q.txt").read_text()
    _, before = run(q, QDIR / "x.txt", text=whole)
    at = whole.index("Attached GPUs")
    _, r = run(q, QDIR / "x.txt", text=whole[:at] + "\nCliqueId                          : 0\n" + whole[at:])
    assert not facts(r, "gpu_fabric", "unknown-1")
    assert [view(f) for f in before.facts] == [view(f) for f in r.facts]


def test_a_section_key_out_of_place_inside_a_block_is_read_as_before():
    """Must not (wild sweep J3): a key of one section only whose row lost its indentation inside a GPU block (no blank
    line above its run) is no tail: the block is not ended there, the GPUs after it are read as before."""
    base = (OBS / "nvidia-smi" / "nvidia-smi-q-ECC.txt").read_text()
    first = base.index("        Channel Repair Pending")
    text = base[:first] + base[first + 4:]  # the first GPU's row four blanks less deep: at its GPU level
    _, before = run(q, QDIR / "x.txt", text=base)
    _, r = run(q, QDIR / "x.txt", text=text)
    assert not facts(r, "gpu_info", "unknown-1") and not r.limits
    assert {f.pci_bus_id for f in r.facts} == {G0, G1}
    assert len(facts(r, "gpu_ecc_count", G1)) == len(facts(before, "gpu_ecc_count", G1))


def test_vgpu_license_status_fragment_and_forms():
    # NVIDIA/gpu-operator#628 (verbatim): the table's tail, then -q's vGPU section without the banner or a GPU line
    _, r = run(q, QDIR / "gpuoperator628_vgpu_unlicensed_console_paste.txt")
    lic = one(r, "gpu_vgpu_license")
    assert (lic.pci_bus_id, lic.status, lic.license_text, lic.evidence.line) == (
        "unknown-1", "unlicensed_restricted", "Unlicensed (Restricted)", 12)
    # CONSTRUCTED from DCGM's ConvertNvmlGridLicenseStateToString names and nvidia-smi's expiry: the key alone (it is
    # printed under that section only), and every state
    for value, status in (("Licensed (Expiry: 2026-7-7 16:1:44 GMT)", "licensed"), ("Unlicensed (Unrestricted)",
                          "unlicensed_unrestricted"), ("Unlicensed", "unlicensed"), ("N/A", "unknown")):
        _, r = run(q, Path("q.txt"), f"        License Status                    : {value}\n")
        assert (one(r, "gpu_vgpu_license").status, one(r, "gpu_vgpu_license").license_text) == (status, value)
    # the section's header and product name alone: no license state read, no fact
    _, r = run(q, Path("q.txt"), "    vGPU Software Licensed Product\n"
                                  "        Product Name                      : NVIDIA Virtual Compute Server\n")
    assert facts(r, "gpu_vgpu_license") == []


def test_vgpu_license_status_xml():
    # CONSTRUCTED in the shape of a public test's 'nvidia-smi -q -x' trimmed from a vGPU VM (driver 580.105.08, L40S-2Q):
    # <vgpu_software_licensed_product><license_status>...</license_status>
    text = ('<?xml version="1.0" ?>\n<nvidia_smi_log>\n\t<driver_version>580.105.08</driver_version>\n'
            '\t<attached_gpus>1</attached_gpus>\n\t<gpu id="00000000:00:07.0">\n\t\t<product_name>NVIDIA L40S-2Q</product_name>\n'
            '\t\t<vgpu_software_licensed_product>\n'
            '\t\t\t<licensed_product_name>NVIDIA RTX Virtual Workstation</licensed_product_name>\n'
            '\t\t\t<license_status>Unlicensed (Restricted)</license_status>\n'
            '\t\t</vgpu_software_licensed_product>\n\t</gpu>\n</nvidia_smi_log>\n')
    _, r = run(x, Path("q.xml"), text)
    lic = one(r, "gpu_vgpu_license")
    assert (lic.pci_bus_id, lic.status) == ("0000:00:07.0", "unlicensed_restricted")
