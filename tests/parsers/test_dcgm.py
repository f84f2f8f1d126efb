"""The DCGM readers (dcgmi diag, DCGM logs, a saved dcgm-exporter scrape) on real samples."""
from pathlib import Path

from stethoscope.facts.parsers import dcgm_exporter_scrape, dcgm_log, dcgmi_diag
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def run(mod, rel):
    text = (A / rel).read_text()
    assert mod.detect(text)
    return mod.parse(Artefact(path=rel, text=text, node="n1"))


def test_diag_old_table_joins_wrapped_warning_and_marks_busy_gpu():
    res = run(dcgmi_diag, "dcgmi_diag/go_dcgm52_memory_fail_busy.txt")
    rows = [f.rule_view() for f in res.facts if f.kind == "dcgm_diag_result"]
    assert [(r["test"], r["gpu"], r["result"]) for r in rows] == [("GPU Memory", 1, "Pass"), ("GPU Memory", 0, "Fail")]
    assert "cuCtxCreate Check DCGM and system logs" in rows[1]["reason"] and rows[1]["not_comparable"]
    assert rows[1]["component"] == "gpu_memory"


def test_diag_json_results():
    text = '{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "PCIe", "results": [{"gpu_id": "3", "status": "Fail", "warnings": [{"warning": "GPU 3 PCIe bandwidth below threshold"}]}]}]}], "version": "3.3.5"}}'
    facts = dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1")).facts
    (r,) = [f.rule_view() for f in facts if f.kind == "dcgm_diag_result"]
    (run_,) = [f for f in facts if f.kind == "dcgm_diag_run"]  # the run: level from its tests, DCGM's version
    assert (run_.level, run_.dcgm_version, run_.failed, run_.source) == (2, "3.3.5", 1, "json")
    assert (r["test"], r["gpu"], r["result"], r["component"], r["source"]) == ("PCIe", 3, "Fail", "pcie", "json")


def test_dcgm_log_error_lines_and_quoted_messages():
    facts = [f.rule_view() for f in run(dcgm_log, "dcgm_log/dcgm272_nvbandwidth_mcutil.txt").facts]
    assert {(f.get("plugin"), f.get("gpu")) for f in facts} == {("nvbandwidth", 2), (None, None)}
    assert all(f["not_comparable"] for f in facts)
    assert run(dcgm_log, "dcgm_log/dcgm272_nvvs_debug.log").facts == []  # DEBUG lines: read, no facts


def test_exporter_scrape_through_the_live_builders():
    res = run(dcgm_exporter_scrape, "dcgm_exporter_scrape/dcgm_exporter326_xid_fb.txt")
    kinds = {f.kind for f in res.facts}
    assert "gpu_info" in kinds and "xid_event" not in kinds  # the Xid gauge at 0 is no Xid
    info = next(f for f in res.facts if f.kind == "gpu_info")
    assert info.node == "debian" and info.pci_bus_id == "0000:08:00.0" and info.evidence.line == 3
    assert info.id == "dcgm_exporter_scrape/dcgm_exporter326_xid_fb.txt:3:gpu_info" and not res.errors


def test_exporter_scrape_without_pci_bus_id_is_recognised_not_read():
    # dcgm-exporter's own README Quickstart: only gpu and UUID labels: nothing can be tied to a GPU
    res = run(dcgm_exporter_scrape, "dcgm_exporter_scrape/dcgm_exporter_readme_quickstart_no_pci_bus_id.txt")
    assert (res.facts, res.errors, res.lines_used) == ([], [], 0)
    # a non-zero Xid in that form (the README's labels, the Xid family) is never dropped: a parse problem names it
    text = ('DCGM_FI_DEV_XID_ERRORS{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52"} 79\n'
            'DCGM_FI_DEV_XID_ERRORS{gpu="1", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e53"} 0\n')
    res = dcgm_exporter_scrape.parse(Artefact(path="m.txt", text=text, node="n1"))
    assert res.facts == [] and res.lines_used == 0
    assert [(e.line, "Xid 79 on GPU 0" in e.message) for e in res.errors] == [(1, True)]


def test_dcgm_log_health_incident_dcgm270():
    r = run(dcgm_log, "dcgm_log/dcgm270_health_thermal_warning.log")
    (h,) = r.facts
    assert (h.kind, h.result, h.system, h.reason, h.gpu, h.component, h.cause, h.severity) == (
        "dcgm_health_incident", "WARNING", "Thermal", "DCGM_FR_CLOCKS_EVENT_THERMAL", 2, "power_thermal",
        "gpu_thermal_slowdown", "warning")
    assert r.errors == [] and r.lines_used == 1


def test_dcgm_health_messages_of_every_version_and_system():
    # DcgmHealthWatch::SetResponse's format with DCGM_FR_*_MSG texts (dcgm_errors.h), full log prefix
    pre = "2024-02-01 14:12:01.205 ERROR [9596:9598] [[Health]] "
    post = " [/workspaces/dcgm/modules/health/DcgmHealthWatch.cpp:890] [DcgmHealthWatch::SetResponse]"
    rows = [
        ("FAILURE", "NVLink", "GPU 3's NvLink link 5 is currently down", "DCGM_FR_NVLINK_DOWN", 3, "nvlink_down"),
        ("WARNING", "PCIe", "Detected more than 8 PCIe replays per minute for GPU 0 : 13", "DCGM_FR_PCI_REPLAY_RATE", 0,
         "pcie_replay_errors"),
        ("WARNING", "Thermal", "Detected clock throttling due to thermal violation in GPU 1.", "DCGM_FR_CLOCK_THROTTLE_THERMAL",
         1, "gpu_thermal_slowdown"),  # DCGM 3.2's wording
        ("FAILURE", "Memory", "Detected 2 volatile double-bit ECC error(s) in GPU 4.", "DCGM_FR_VOLATILE_DBE_DETECTED", 4,
         "ecc_uncorrectable"),
        ("FAILURE", "Memory", "Detected XID 48 for GPU 6", "DCGM_FR_XID_ERROR", 6, "ecc_uncorrectable"),  # the system's
        ("FAILURE", "NVSwitch fatal errors", "Detected fatal errors on NvSwitch 2 link 7", "DCGM_FR_NVSWITCH_FATAL_ERROR",
         None, "nvswitch_error"),
        ("WARNING", "Power", "a message DCGM may add later", None, None, "gpu_power_cap_throttle"),
    ]
    text = "".join(f"{pre}Detected a {res} in health system {sys}: '{msg}'{post}\n" for res, sys, msg, *_ in rows)
    r = dcgm_log.parse(Artefact(path="nv-hostengine.log", text=text, node="n1"))
    got = [(f.result, f.system, f.reason, f.gpu, f.cause) for f in r.facts]
    assert got == [(res, sys, reason, gpu, cause) for res, sys, _m, reason, gpu, cause in rows]
    assert [f.kind for f in r.facts] == ["dcgm_health_incident"] * len(rows)  # not dcgm_error too
    bad = dcgm_log.parse(Artefact(path="x", text="Detected a WARNING in health system Quantum: 'x'\n", node="n1"))
    assert bad.facts == [] and len(bad.errors) == 1
