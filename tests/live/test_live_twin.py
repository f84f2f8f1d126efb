"""A live incident and its bundle twin (fixtures/bundles/live-incident) go through the one
pipeline (engine/pipeline.py) and give the same findings, localisation included."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import INCIDENT_AT

from stethoscope.engine import pipeline
from stethoscope.engine.live.observe import diagnose_prometheus
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.live.watch import Watcher

ROOT = Path(__file__).resolve().parents[2]
TWIN = ROOT / "fixtures" / "bundles" / "live-incident" / "bundle"
# What the rules and the localisation decide. Left out, because they come from the lines each
# source holds: the evidence itself and its counts (the bundle's dmesg adds the NVRM 'fallen off
# the bus' line to the Xid 79, folded in by a second rule), and the summary's wording of the ECC
# count (nvidia-smi -q names the location, DCGM gives the total).
DECIDED = ("rule", "title", "cause", "component", "severity", "confidence", "role", "entity", "actions",
           "action_text", "nodes", "ranks", "explains", "explained_by", "kb", "references", "placed_by", "blast_radius")


def decided(findings, every=None) -> list[dict]:
    """The decided fields of ``findings`` in rank order; the findings a cascade names (explains,
    explained_by) by their rules, not their ranks: a live diagnosis has findings of its own (a
    series-only fault, the monitoring stack) that take ranks between them. ``every``: the whole
    report's findings, when ``findings`` is a part of them."""
    rule_of = {f.rank: f.rule for f in (every if every is not None else findings)}
    out = []
    for f in sorted(findings, key=lambda f: f.rank):
        d = f.model_dump(include=set(DECIDED), exclude_none=True)
        for key in ("explains", "explained_by"):
            if key in d:
                d[key] = sorted(rule_of[r] for r in d[key])
        out.append(d)
    return out


def test_live_incident_and_its_bundle_twin_give_the_same_findings(prom_url):
    live = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    bundle = diagnose_bundle(TWIN)
    assert live.verdict == bundle.verdict == "faulty"
    # the one fault only the series show: node3's IB port that carried traffic went Down (the
    # twin has no artefact of node3)
    extra = [f for f in live.findings if f.entity.node == "node3"]
    assert [(f.cause, f.entity.hca, f.entity.port) for f in extra] == [("ib_port_down", "mlx5_1", "1")]
    # and what only a monitoring stack says about itself (its exporters of two versions)
    stack = [f for f in live.findings if f.component == "monitoring"]
    assert {f.rule for f in stack} == {"monitoring_exporter_versions_mixed"}
    extra += stack
    shared = [f for f in live.findings if f not in extra]
    # ranks are compared as an order: the extra finding takes a place of its own
    assert [{k: v for k, v in d.items() if k != "rank"} for d in decided(shared, live.findings)] == decided(bundle.findings)
    assert [f.rule for f in sorted(shared, key=lambda f: f.rank)] == [f.rule for f in sorted(bundle.findings, key=lambda f: f.rank)]


def test_live_verdict_and_coverage_are_the_bundles(prom_url):
    live = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    # the families that returned series are the files read, as a saved scrape's kinds
    assert {k for fc in live.coverage.files for k in fc.read_by} == {"dcgm_exporter_scrape", "node_exporter_ib"}
    assert {c.component for c in live.checked} >= {"gpu", "gpu_memory", "power_thermal", "network"}
    # a family without series is a missing signal, not a file read
    assert not {m.metric for m in live.missing_signals} & {fc.path for fc in live.coverage.files}
    assert live.not_checked  # the decision tree's branches the series cannot answer, as for a bundle


@pytest.mark.parametrize("how", ["diagnose", "watch"])
def test_live_runs_the_combiners_and_localisation_of_a_bundle(prom_url, pipeline_steps, how):
    seen = pipeline_steps
    if how == "watch":
        Watcher(prom_url, window_s=3600, timeout=5).run_once(at=INCIDENT_AT)
    else:
        diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    live = list(seen)
    seen.clear()
    diagnose_bundle(TWIN)
    assert live == seen == [name for name, _ in pipeline.COMBINERS] + ["localise"]
