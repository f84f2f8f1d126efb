"""Every command that diagnoses goes through the one pipeline (engine/pipeline.py): the same
declared combiners, in order, then the rules and the localisation."""
from __future__ import annotations

from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine import pipeline

from test_diagnose_baseline import HEALTHY, SOCKET_BUNDLE  # the real H200 pair and its socket-only run

runner = CliRunner()


ALL = [name for name, _ in pipeline.COMBINERS] + ["localise"]


def test_combiners_are_declared_once_in_order():
    names = [name for name, _ in pipeline.COMBINERS]
    assert names[:5] == ["parse_problems", "fabric", "link_quality", "rdma_counters", "nccl_versions"]
    assert names[-1] == "version_compat"
    assert len(set(names)) == len(names) == 20  # fr_culprits (session 21) places the flight-recorder analyser's rank


def test_diagnose_from_logs(pipeline_steps):
    res = runner.invoke(app, ["diagnose", "--from-logs", str(SOCKET_BUNDLE), "-f", "json"])
    assert res.exit_code == 1, res.output
    assert pipeline_steps == ALL


def test_baseline_compare_and_diagnose_baseline(pipeline_steps, tmp_path, monkeypatch):
    monkeypatch.delenv("STETH_BASELINE", raising=False)
    db = tmp_path / "b.sqlite"
    rec = runner.invoke(app, ["baseline", "record", *map(str, HEALTHY), "--name", "pair", "--db", str(db)])
    assert rec.exit_code == 0, rec.output
    pipeline_steps.clear()
    res = runner.invoke(app, ["baseline", "compare", str(SOCKET_BUNDLE), "--name", "pair", "--db", str(db), "-f", "json"])
    assert res.exit_code == 1, res.output
    assert pipeline_steps == ALL  # combined once, under the baseline
    pipeline_steps.clear()
    res = runner.invoke(app, ["diagnose", "--from-logs", str(SOCKET_BUNDLE), "--baseline", "pair", "--baseline-db", str(db)])
    assert res.exit_code == 1, res.output
    assert pipeline_steps == ALL


def test_baseline_compare_report_is_a_bundle_report(tmp_path):
    """The report of ``baseline compare`` carries what a bundle's does: what was checked, what not."""
    from stethoscope.engine.baselines import run as baseline_run
    from stethoscope.engine.ruleengine.loader import load_rules

    db = tmp_path / "b.sqlite"
    baseline_run.record(HEALTHY, "pair", db)
    cmp = baseline_run.compare([SOCKET_BUNDLE], "pair", db, load_rules())
    bundle = pipeline.diagnose_bundle(SOCKET_BUNDLE)
    assert cmp.report.verdict == "faulty" and cmp.report.checked == bundle.checked
    assert cmp.report.not_checked == bundle.not_checked
    assert cmp.below and any(cmp.band_below(c) for c in cmp.comparisons)
