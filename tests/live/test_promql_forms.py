"""The rules' ``promql:`` forms: each alert is exercised by tests/live/prometheus_rules.test.yaml
(promtool runs it in test_live_rules_export.py) with a case where it fires and one where it
must stay quiet, and the InfiniBand error-counter form keeps the limits of
knowledge/ib_counters.yaml (the offline rule judges with those)."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from stethoscope.engine.ruleengine.loader import load_rules

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _evals() -> dict[str, list[list]]:
    doc = yaml.safe_load((HERE / "prometheus_rules.test.yaml").read_text())
    out: dict[str, list[list]] = {}
    for group in doc["tests"]:
        for case in group.get("alert_rule_test", []):
            out.setdefault(case["alertname"], []).append(case.get("exp_alerts") or [])
    return out


def test_every_promql_alert_has_a_firing_and_a_quiet_case():
    evals = _evals()
    rules = [c.rule for c in load_rules().rules if c.rule.promql is not None]
    assert len(rules) >= 20
    missing = []
    for r in rules:
        cases = evals.get(r.promql.alert, [])
        if not any(cases) or all(cases):
            missing.append(f"{r.id} ({r.promql.alert})")
    assert not missing, "no firing or no quiet promtool case: " + ", ".join(missing)


def test_firing_cases_name_the_rule_and_its_cause():
    by_alert = {c.rule.promql.alert: c.rule for c in load_rules().rules if c.rule.promql is not None}
    for alert, cases in _evals().items():
        rule = by_alert.get(alert)
        for exp in (e for case in cases for e in case):
            if rule is None:
                continue
            assert exp["exp_labels"]["steth_rule"] == rule.id
            assert exp["exp_labels"].get("cause") == rule.cause


def test_ib_error_counter_form_keeps_the_knowledge_limits():
    rule = next(c.rule for c in load_rules().rules if c.rule.id == "ib_counter_errors_over_ber_limit")
    legs = dict((name, float(limit)) for limit, name in re.findall(
        r'increase\(node_infiniband_\w+\[1h\]\) > ([0-9.]+), "counter", "(\w+)"', rule.promql.expr))
    spec = yaml.safe_load((ROOT / "knowledge" / "ib_counters.yaml").read_text())["counters"]
    want = {c["counter"]: float(c["limit_per_hour"]) for c in spec if c["cause"] == "ib_link_errors"}
    assert legs == want
