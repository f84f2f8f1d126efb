"""steth rules export --format prometheus-rules: promtool accepts it and its tests pass."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.loader import load_rules
from stethoscope.engine.promrules import SEED_ALERTS, export

HERE = Path(__file__).resolve().parent
promtool = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(promtool is None, reason="promtool is absent (tests/setup_venv.sh installs Debian's prometheus)")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("rules")
    res = CliRunner().invoke(app, ["rules", "export", "--format", "prometheus-rules", "-o", str(folder / "exported.rules.yml")])
    assert res.exit_code == 0, res.output
    shutil.copy(HERE / "prometheus_rules.test.yaml", folder / "rules.test.yaml")
    return folder


def test_export_has_seed_alerts_and_every_rule_with_promql():
    doc = yaml.safe_load(export(load_rules()))
    names = [r["alert"] for g in doc["groups"] for r in g["rules"]]
    assert {"GPUXIDError", "GPUTemperatureHigh", "GPUMemoryECCDoubleBit", "NVLinkBandwidthDrop"} <= set(names)
    with_promql = [c.rule for c in load_rules().rules if c.rule.promql is not None]
    assert with_promql
    for r in with_promql:
        assert r.promql.alert in names
    assert len(names) == len(set(names)) == len(SEED_ALERTS) + len(with_promql)


@needs_promtool
def test_promtool_check_rules(exported):
    res = subprocess.run([promtool, "check", "rules", str(exported / "exported.rules.yml")], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


@needs_promtool
def test_promtool_test_rules(exported):
    res = subprocess.run([promtool, "test", "rules", "rules.test.yaml"], cwd=exported, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS" in res.stdout + res.stderr
