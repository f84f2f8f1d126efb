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
    rows = [f.rule_view() for f in res.facts]
    assert [(r["test"], r["gpu"], r["result"]) for r in rows] == [("GPU Memory", 1, "Pass"), ("GPU Memory", 0, "Fail")]
    assert "cuCtxCreate Check DCGM and system logs" in rows[1]["reason"] and rows[1]["not_comparable"]
    assert rows[1]["component"] == "gpu_memory"


def test_diag_json_results():
    text = '{"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "PCIe", "results": [{"gpu_id": "3", "status": "Fail", "warnings": [{"warning": "GPU 3 PCIe bandwidth below threshold"}]}]}]}], "version": "3.3.5"}}'
    (r,) = [f.rule_view() for f in dcgmi_diag.parse(Artefact(path="d.json", text=text, node="n1")).facts]
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
