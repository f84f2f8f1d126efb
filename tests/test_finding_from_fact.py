"""A finding whose cause, component, severity and actions come from a bound fact
(``cause: $entry.cause``): the loader checks the reference, both evaluators resolve it."""
import pytest

from stethoscope.engine.pipeline import evaluate
from stethoscope.engine.ruleengine.loader import RuleSet, load_rules
from stethoscope.facts.model import Evidence
from stethoscope.facts.kinds.kernel import XidEvent
from stethoscope.facts.parsers.xid_knowledge_facts import XidCatalogueEntry

RULE = """\
id: {id}
title: catalogue join
confidence: 0.7
when:
  all:
    - fact: xid_event
      as: xid
    - fact: xid_catalogue_entry
      as: entry
      match: {{xid: $xid.xid}}
then:
  finding:
    cause: {cause}
    component: $entry.component
    severity: $entry.severity
    actions: {actions}
    entity: {{node: $xid.node, gpu: $xid.pci_bus_id}}
    summary: "Xid {{xid.xid}} {{entry.mnemonic}}"
    evidence: [xid]
"""


def _load(tmp_path, cause="$entry.cause", actions="$entry.actions", rid="join_rule"):
    p = tmp_path / f"{rid}.yaml"
    p.write_text(RULE.format(id=rid, cause=cause, actions=actions))
    return load_rules([p], root=tmp_path)


def _ev(n: int) -> Evidence:
    return Evidence(path="n1/dmesg.log", line=n, text=f"line {n}")


def _entry(xid: int, severity: str, cause: str, actions: str) -> XidCatalogueEntry:
    return XidCatalogueEntry(id=f"e{xid}", node="", evidence=_ev(100 + xid), xid=xid, mnemonic=f"M{xid}", description="d",
                             unused=False, immediate="", investigatory="", severity=severity, cause=cause, component="gpu",
                             actions=actions, specific_rule=False, escalate_on_recurrence=False)


def _xid(i: int, xid: int, bus: str = "0000:a1:00.0") -> XidEvent:
    return XidEvent(id=f"x{i}", node="n1", evidence=_ev(i), pci_bus_id=bus, xid=xid, message="m")


def test_a_good_reference_loads(tmp_path):
    rs = _load(tmp_path)
    assert not rs.errors and [r.id for r in rs.rules] == ["join_rule"]


@pytest.mark.parametrize("cause,actions,message", [
    ("$entry.nosuchfield", "$entry.actions", "fact 'xid_catalogue_entry' has no field 'nosuchfield'"),
    ("$other.cause", "$entry.actions", "names alias 'other', which no 'all' pattern binds"),
    ("$entry.cause", "$entry.nope", "has no field 'nope'"),
    ("$entry.cause", "not-a-ref", "actions is a list of action ids or one '$alias.field'"),
    ("gremlins", "$entry.actions", "unknown cause 'gremlins'"),
])
def test_bad_references_are_refused_with_file_and_line(tmp_path, cause, actions, message):
    rs = _load(tmp_path, cause=cause, actions=actions)
    assert not rs.rules
    assert any(message in str(e) for e in rs.errors), [str(e) for e in rs.errors]
    assert all(str(e).startswith("join_rule.yaml:") and e.line > 1 for e in rs.errors)


@pytest.mark.parametrize("evaluator", ["durable", "reference"])
def test_values_come_from_the_bound_fact_and_codes_stay_apart(tmp_path, evaluator):
    rs = _load(tmp_path)
    facts = [_xid(1, 43), _xid(2, 43), _xid(3, 119),
             _entry(43, "info", "gpu_stopped_processing", "CONTACT_SUPPORT"),
             _entry(119, "critical", "gsp_firmware_error", "RESET_GPU,UPDATE_SWFW")]
    found = {f.cause: f for f in evaluate(rs, facts, evaluator)}
    assert set(found) == {"gpu_stopped_processing", "gsp_firmware_error"}
    gsp = found["gsp_firmware_error"]
    assert (gsp.severity, gsp.actions, gsp.component) == ("critical", ["RESET_GPU", "UPDATE_SWFW"], "gpu")
    assert "Drain the GPU and reset it" in gsp.action_text
    assert found["gpu_stopped_processing"].occurrences == 2
    assert found["gpu_stopped_processing"].nodes == ["n1"]  # the catalogue fact belongs to no node


def test_a_fact_value_outside_the_vocabulary_is_an_error(tmp_path):
    rs = _load(tmp_path)
    facts = [_xid(1, 43), _entry(43, "info", "gremlins", "CONTACT_SUPPORT")]
    with pytest.raises(ValueError, match="cause 'gremlins' is not in the vocabulary"):
        evaluate(RuleSet(rs.rules, []), facts, "reference")


def test_distinct_by_must_name_a_bound_field(tmp_path):
    from stethoscope.engine.ruleengine.loader import load_rules

    bad = tmp_path / "r.yaml"
    bad.write_text(
        "id: r\ntitle: t\ncause: nccl_version_bug\ncomponent: nccl\nseverity: warning\n"
        "when:\n  all:\n    - fact: nccl_known_issue\n      as: k\n"
        "then:\n  finding:\n    summary: s\n    evidence: [k]\n    distinct_by: [$k.no_such_field, $x.id]\n"
    )
    errors = [str(e) for e in load_rules([bad], root=tmp_path).errors]
    assert any("has no field 'no_such_field'" in e for e in errors) and any("$x.id" in e for e in errors)
