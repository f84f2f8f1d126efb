"""Job-wide cascades (rule field ``cascade_of``): the straggler explains the timeouts of the
ranks that waited for it, and a hardware fault on the straggler's node explains both."""
from __future__ import annotations

from stethoscope.engine.findings import SymptomMap, rank_findings, symptom_map
from stethoscope.engine.knowledge import load_vocabulary
from stethoscope.engine.ruleengine.loader import load_rules
from stethoscope.engine.report import Entity, Finding


def _f(rule: str, cause: str, node: str, severity: str = "critical") -> Finding:
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component="nccl", severity=severity, confidence=0.8,
                   role="independent", entity=Entity(label=node, node=node), summary=rule, actions=[], action_text="",
                   evidence=[], evidence_total=0, nodes=[node])


SYMPTOMS = SymptomMap({"torch_watchdog_timeout": True, "nccl_timeout_straggler": True, "xid79_gpu_fell_off_bus": False},
                      {"torch_watchdog_timeout": ("nccl_timeout_straggler",)})


def test_straggler_on_another_node_explains_the_timeout():
    got = rank_findings([_f("torch_watchdog_timeout", "nccl_timeout", "node1"),
                         _f("nccl_timeout_straggler", "nccl_timeout_straggler", "node2")], SYMPTOMS)
    by = {f.rule: f for f in got}
    assert (by["nccl_timeout_straggler"].rank, by["nccl_timeout_straggler"].role) == (1, "root_cause")
    assert (by["torch_watchdog_timeout"].role, by["torch_watchdog_timeout"].explained_by) == ("cascade", [1])


def test_hardware_fault_on_the_stragglers_node_explains_both():
    got = rank_findings([_f("torch_watchdog_timeout", "nccl_timeout", "node1"),
                         _f("nccl_timeout_straggler", "nccl_timeout_straggler", "node2"),
                         _f("xid79_gpu_fell_off_bus", "gpu_fell_off_bus", "node2", "fatal")], SYMPTOMS)
    by = {f.rule: f for f in got}
    assert (by["xid79_gpu_fell_off_bus"].rank, by["xid79_gpu_fell_off_bus"].role) == (1, "root_cause")
    assert by["nccl_timeout_straggler"].role == "cascade" and by["nccl_timeout_straggler"].explained_by == [1]
    assert by["torch_watchdog_timeout"].role == "cascade"
    assert by["torch_watchdog_timeout"].explained_by == [by["nccl_timeout_straggler"].rank]


def test_without_cascade_of_the_timeout_stays_independent():
    plain = {"torch_watchdog_timeout": True, "nccl_timeout_straggler": True}
    got = rank_findings([_f("torch_watchdog_timeout", "nccl_timeout", "node1"),
                         _f("nccl_timeout_straggler", "nccl_timeout_straggler", "node2")], plain)
    assert {f.role for f in got} == {"independent"}


def test_shipped_cascade_of_names_known_causes():
    rules = load_rules().rules
    causes = load_vocabulary().causes
    named = {c for r in rules for c in r.rule.cascade_of}
    assert "nccl_timeout_straggler" in named
    assert named <= set(causes)
    assert symptom_map(rules).cascade_of["torch_watchdog_timeout"] == ("nccl_timeout_straggler",)
