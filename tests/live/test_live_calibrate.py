"""steth calibrate proposes per-model thresholds from the observed range."""
from __future__ import annotations

import yaml
from conftest import INCIDENT_AT, T0
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.calibrate import calibrate


def test_thresholds_per_model_from_the_window(prom_url):
    at = T0 + 3 * 3600
    got = calibrate(prom_url, at=at, window_s=3 * 3600)
    h100 = got["models"]["NVIDIA H100 80GB HBM3"]
    temp = h100["gpu_temp_c"]
    assert temp["gpus"] == 6
    # node2's GPU reached 92 C during the incident: the p99 max says so, the median does not
    assert temp["p99_max"] == 92 and temp["p99_median"] < 70
    assert temp["proposed_threshold"] == temp["p99_max"] + 5
    assert 580 < h100["power_w"]["p99_median"] < 640


def test_cli_writes_yaml(prom_url):
    res = CliRunner().invoke(app, ["calibrate", "--prometheus", prom_url, "--window", "1h", "--at", str(INCIDENT_AT)])
    assert res.exit_code == 0, res.output
    assert "NVIDIA H100 80GB HBM3" in yaml.safe_load(res.stdout)["models"]


def test_cli_bad_server_is_one_line_error():
    res = CliRunner().invoke(app, ["calibrate", "--prometheus", "http://127.0.0.1:9", "--timeout", "1"])
    assert res.exit_code == 3
