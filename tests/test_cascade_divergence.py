"""Job-wide cascades of a diverged training (rule training_loss_not_finite's ``cascade_of``): GPU memory that
returned corrupted data explains the NaN; a contained ECC error, whose contexts the driver ended, does not."""
from __future__ import annotations

from stethoscope.engine.findings import rank_findings, symptom_map
from stethoscope.engine.report import Entity, Finding
from stethoscope.engine.ruleengine.loader import load_rules


def _f(rule: str, cause: str, node: str, severity: str = "critical") -> Finding:
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component="gpu_memory", severity=severity, confidence=0.8,
                   role="independent", entity=Entity(label=node, node=node), summary=rule, actions=[], action_text="",
                   evidence=[], evidence_total=0, nodes=[node])


SHIPPED = symptom_map(load_rules().rules)
NAN = ("training_loss_not_finite", "training_numerical_divergence")


def test_uncorrectable_ecc_explains_the_nan():
    got = {f.rule: f for f in rank_findings([_f(*NAN, "node1"), _f("xid48_double_bit_ecc", "ecc_uncorrectable", "node1")],
                                            SHIPPED)}
    assert got["xid48_double_bit_ecc"].role == "root_cause" and got["xid48_double_bit_ecc"].rank == 1
    assert got["training_loss_not_finite"].role == "cascade"


def test_row_remap_failure_explains_the_nan():
    got = {f.rule: f for f in rank_findings([_f(*NAN, "node1"), _f("xid_catalogue", "row_remap_failure", "node1")], SHIPPED)}
    assert got["training_loss_not_finite"].role == "cascade"


def test_contained_ecc_does_not():
    got = {f.rule: f for f in rank_findings([_f(*NAN, "node1"), _f("xid94_contained_ecc", "ecc_contained", "node1")], SHIPPED)}
    assert got["training_loss_not_finite"].role != "cascade"
