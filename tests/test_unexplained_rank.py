"""An error no rule explains (rule field ``unexplained``, rules/meta/unexplained_error.yaml) is never
the root that symptoms hang under, and never ranks above a finding a rule explains. Real case:
axolotl-ai-cloud/axolotl#3476 (bench/wild_sweep_r5j.md): a terminal-wrapped ProcessGroupNCCL line the
reader could not parse was the top finding, with the NCCL watchdog finding of the same node its cascade."""
from __future__ import annotations

from stethoscope.engine.findings import SymptomMap, rank_findings, symptom_map
from stethoscope.engine.localise.common_cause import attach
from stethoscope.engine.report import Entity, Finding
from stethoscope.engine.ruleengine.loader import load_rules


def _f(rule: str, cause: str, node: str, severity: str = "warning") -> Finding:
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component="nccl", severity=severity, confidence=0.8,
                   role="independent", entity=Entity(label=node, node=node), summary=rule, actions=[], action_text="",
                   evidence=[], evidence_total=0, nodes=[node])


SYMPTOMS = SymptomMap({"torch_watchdog_failure_reported": True, "unexplained_error": False, "nvml_note": False}, {},
                      frozenset({"unexplained_error"}))


def test_unexplained_error_explains_no_symptom_and_ranks_last():
    got = rank_findings([_f("unexplained_error", "unexplained_error", "node1"),
                         _f("torch_watchdog_failure_reported", "nccl_timeout", "node1")], SYMPTOMS)
    by = {f.rule: f for f in got}
    assert (by["torch_watchdog_failure_reported"].rank, by["torch_watchdog_failure_reported"].role) == (1, "independent")
    assert by["torch_watchdog_failure_reported"].explained_by == []
    assert (by["unexplained_error"].rank, by["unexplained_error"].explains) == (2, [])


def test_unexplained_error_below_a_lesser_explained_finding():
    got = rank_findings([_f("unexplained_error", "unexplained_error", "node1", "critical"),
                         _f("nvml_note", "driver_error", "node2", "warning")], SYMPTOMS)
    assert [f.rule for f in got] == ["nvml_note", "unexplained_error"]


def test_alone_it_still_leads_over_information():
    got = rank_findings([_f("nvml_note", "driver_error", "node1", "info"),
                         _f("unexplained_error", "unexplained_error", "node1")], SYMPTOMS)
    assert got[0].rule == "unexplained_error"


def test_localisation_keeps_it_last():
    ranked = rank_findings([_f("unexplained_error", "unexplained_error", "node1"),
                            _f("torch_watchdog_failure_reported", "nccl_timeout", "node1"),
                            _f("nvml_note", "driver_error", "node2")], SYMPTOMS)
    by = {f.rule: f for f in ranked}
    out = attach(ranked, [(by["nvml_note"], [by["torch_watchdog_failure_reported"]])], SYMPTOMS.unexplained)
    assert out[-1].rule == "unexplained_error"


def test_shipped_unexplained_rules():
    assert "unexplained_error" in symptom_map(load_rules().rules).unexplained
