"""dcgmi health -c (real sample: fixtures/artefacts/dcgmi_health/README.md; the other forms as
dcgmi/Health.cpp and dcgmi/DcgmiOutput.cpp print them, the multi-entity rows as DCGM's own
dcgmi/tests/HealthTests.cpp asserts them)."""
from __future__ import annotations

import json
from pathlib import Path

from stethoscope.facts.parsers import dcgmi_diag, dcgmi_health
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "dcgmi_health"
HLINE = "+---------------------------+----------------------------------------------------------+"
HEAD = [HLINE, "| Health Monitor Report                                                                |",
        "+===========================+==========================================================+"]


def _row(left: str, right: str = "") -> str:  # DcgmiOutputTree(28, 60).rowStr
    return f"| {left:<25} | {right:<56} |"


def _parse(text: str):
    assert dcgmi_health.detect(text)
    return dcgmi_health.parse(Artefact(path="health.txt", text=text, node="n1"))


def test_real_power_warning_on_an_l4():
    res = _parse((FIX / "l4_power_violation_warning.txt").read_text())
    inc, check = res.facts
    assert (inc.kind, inc.evidence.line, inc.result, inc.system, inc.gpu, inc.reason, inc.cause, inc.severity) == (
        "dcgm_health_incident", 9, "WARNING", "Power", 0, "DCGM_FR_CLOCKS_EVENT_POWER", "gpu_power_cap_throttle", "warning")
    assert inc.message == ("Detected clocks event due to power violation in GPU 0. Monitor the power conditions. "
                           "This GPU can still perform workload.")
    assert (check.kind, check.overall, check.incidents, check.evidence.line) == ("dcgm_health_check", "Warning", 1, 5)
    assert not res.errors and not dcgmi_diag.detect((FIX / "l4_power_violation_warning.txt").read_text())


def test_healthy_report_is_a_check_without_incidents():
    res = _parse("\n".join(HEAD + [_row("Overall Health", "Healthy"), HLINE]) + "\n")
    assert [(f.kind, f.overall, f.incidents) for f in res.facts] == [("dcgm_health_check", "Healthy", 0)] and not res.errors


def test_two_gpus_two_systems_as_healthtests_asserts():
    lines = HEAD + [_row("Overall Health", "Failure"), _row("GPU"), _row("-> 0", "Warning"), _row("   -> Errors"),
                    _row("      -> Memory system", "Warning"),
                    _row("", "The car is red? Are you sure because that doesn't seem"), _row("", "like the color I ordered."),
                    _row("-> 1", "Failure"), _row("   -> Errors"), _row("      -> Memory system", "Failure"),
                    _row("", "Detected 2 volatile double-bit ECC error(s) in GPU 1."),
                    _row("      -> PCIe system", "Warning"),
                    _row("", "Detected more than 8 PCIe replays per minute for GPU 1 :"), _row("", "13"), HLINE]
    res = _parse("\n".join(lines) + "\n")
    got = [(f.gpu, f.system, f.result, f.reason, f.cause) for f in res.facts if f.kind == "dcgm_health_incident"]
    assert got == [(0, "Memory", "WARNING", None, "ecc_uncorrectable"),  # a message knowledge lacks: its system's cause
                   (1, "Memory", "FAILURE", "DCGM_FR_VOLATILE_DBE_DETECTED", "ecc_uncorrectable"),
                   (1, "PCIe", "WARNING", "DCGM_FR_PCI_REPLAY_RATE", "pcie_replay_errors")]
    assert res.facts[-1].overall == "Failure" and res.facts[-1].incidents == 3


def test_json_form():
    doc = {"body": {"Overall Health": {"value": "Warning"}, "GPU": {"children": {"0": {"value": "Warning", "children": {
        "Errors": {"children": {"Power system": {"value": "Warning", "overflow": [
            "Detected clocks event due to power violation in GPU 0.", "Monitor the power conditions. This GPU can still",
            "perform workload."]}}}}}}}}, "header": ["Health Monitor Report"]}
    res = _parse(json.dumps(doc, indent="\t"))
    assert [(f.kind, getattr(f, "gpu", None), getattr(f, "cause", None)) for f in res.facts] == [
        ("dcgm_health_incident", 0, "gpu_power_cap_throttle"), ("dcgm_health_check", None, None)]


def test_never_a_clean_check_when_nothing_is_shown():
    res = _parse("\n".join(HEAD + [_row("Overall Health", "Failure"), HLINE]) + "\n")
    assert [f.overall for f in res.facts] == ["Failure"] and len(res.errors) == 1
    res = _parse("Error: Health watches not enabled. Please enable watches. \n" + "\n".join(HEAD) + "\n")
    assert len(res.errors) == 1 and not res.facts


def test_refusal_alone_is_read_as_a_check_of_nothing():
    # dcgmi health --check without watches set, its command line above (NVIDIA/DCGM#176): recognised, no fact,
    # one parse problem (the diagnosis is inconclusive, neither a clean check nor a fault)
    res = _parse((FIX / "watches_not_enabled_dcgm176.txt").read_text())
    assert not res.facts and [e.line for e in res.errors] == [2]


def test_json_overflow_as_one_string_is_the_message_not_its_characters():
    text = ('{"header": ["Health Monitor Report"], "body": {"Overall Health": {"value": "Warning"}, "GPU": {"children": {"0": '
            '{"value": "Warning", "children": {"Errors": {"children": {"Power system": {"value": "Warning", '
            '"overflow": "Detected clocks event due to power violation in GPU 0."}}}}}}}}}')
    res = dcgmi_health.parse(Artefact(path="h.json", text=text, node="n1"))
    (inc,) = [f for f in res.facts if f.kind == "dcgm_health_incident"]
    assert inc.message == "Detected clocks event due to power violation in GPU 0." and not res.errors


def test_real_json_healthy_report():
    """A real `dcgmi health -c -j` (microsoft/VirtualClient's example): Overall Health only."""
    path = Path(__file__).resolve().parents[2] / "fixtures/artefacts/dcgmi_health/virtualclient_health_c_j_healthy.json"
    text = path.read_text()
    assert dcgmi_health.detect(text)
    res = dcgmi_health.parse(Artefact(path="h.json", text=text, node="n1"))
    assert [(f.kind, f.overall, f.incidents) for f in res.facts] == [("dcgm_health_check", "Healthy", 0)] and not res.errors
