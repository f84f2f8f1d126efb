"""gpud_states: GPUd's /v1/states JSON, one fact per component state."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import gpud_states
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/gpud_states"
CASE1203 = ROOT / "fixtures/harvest/cases/1203-healthy-gpud-gb200-fabric-manager-inactive-fabric-state-completed/gpud.txt"


def facts(text: str):
    return gpud_states.parse(Artefact(path="t.json", text=text, node="node1")).facts


def test_unhealthy_xid_state_of_gpud1072():
    text = (FIX / "gpud1072_xid48_unhealthy.json").read_text()
    assert gpud_states.detect(text)
    (f,) = facts(text)
    assert (f.kind, f.evidence.line, f.component, f.state_name, f.health, f.checks) == (
        "gpud_unhealthy_state", 7, "accelerator-nvidia-error-xid", "error_xid", "Unhealthy", "gpu")
    assert f.reason.startswith("XID 48 (Double Bit ECC Error) detected on GPU PCI:0000:6b:00")


def test_gb200_fabric_state_cut_mid_document_is_read_up_to_the_cut():
    text = CASE1203.read_text()
    assert gpud_states.detect(text)
    (f,) = facts(text)  # the escaped "health" keys inside extra_info's data string are not states
    assert (f.kind, f.component, f.checks, f.reason) == (
        "gpud_health_state", "accelerator-nvidia-fabric-manager", "nvlink", "NVIDIA-GB200 checked fabric state")


def test_pre_0_4_healthy_bool_is_not_read():
    text = (FIX / "gpud56_gpm_healthy_true_pre_0_4.json").read_text()
    assert not gpud_states.detect(text)
    assert facts(text) == []


def test_compact_json_several_components_and_skipped_checks():
    # the shape of api/v1 ComponentHealthStates as gpud marshals it without jq, with the reasons
    # of components/accelerator/nvidia/fabric-manager/component.go (a skipped check) and
    # infiniband/check_thresholds.go (its format string with numbers filled in)
    text = ('[{"component":"accelerator-nvidia-fabric-manager","states":[{"time":"2025-06-05T18:00:13Z",'
            '"component":"accelerator-nvidia-fabric-manager","name":"accelerator-nvidia-fabric-manager","health":"Healthy",'
            '"reason":"NVIDIA A10: NVSwitch not detected, skipping fabric state check"}]},'
            '{"component":"accelerator-nvidia-infiniband","states":[{"time":null,"name":"accelerator-nvidia-infiniband",'
            '"health":"Degraded","reason":"only 7 port(s) are active and >=400 Gb/s, expect >=8 port(s)"}]},'
            '{"component":"cpu","states":[{"name":"cpu","health":"Initializing"}]}]')
    got = [(f.kind, f.component, getattr(f, "health", None), getattr(f, "checks", None)) for f in facts(text)]
    assert got == [("gpud_health_unchecked", "accelerator-nvidia-fabric-manager", "Healthy", None),
                   ("gpud_unhealthy_state", "accelerator-nvidia-infiniband", "Degraded", "network"),
                   ("gpud_health_unchecked", "cpu", "Initializing", None)]
    assert facts(text)[1].reason == "only 7 port(s) are active and >=400 Gb/s, expect >=8 port(s)"  # check_thresholds.go
    escaped = '{"component":"x","states":[{"name":"x","health":"Unhealthy","reason":"a \\"quoted\\" word"}]}'
    assert facts(escaped)[0].reason == 'a "quoted" word'


def test_unknown_component_has_no_checks():
    text = '{"component": "echo", "states": [{"name": "check", "health": "Unhealthy", "error": "exit status 1"}]}'
    (f,) = facts(text)
    assert (f.checks, f.error, f.message) == (None, "exit status 1", "echo: exit status 1")
