"""steth calibrate proposes per-model thresholds from the observed range of the healthy GPUs
and writes the file steth rules export reads."""
from __future__ import annotations

import shutil
import subprocess

import yaml
from conftest import INCIDENT_AT, T0
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live.calibrate import calibrate, load_thresholds


def test_thresholds_per_model_leave_out_the_gpus_with_findings(prom_url):
    at = T0 + 3 * 3600
    got = calibrate(prom_url, at=at, window_s=3 * 3600)
    # node2's GPU ran at 92 C with HW thermal slowdown during the incident: it is no measure of normal
    left_out = {(e.node, e.gpu) for e in got.excluded}
    assert ("node2", "0000:1c:00.0") in left_out, got.excluded
    h100 = got.models["NVIDIA H100 80GB HBM3"]
    temp = h100["gpu_temp_c"]
    assert temp.gpus == 6 - len([e for e in got.excluded if e.gpu])
    assert temp.p99_max < 80 and temp.p99_median < 70
    assert temp.proposed_threshold == temp.p99_max + 5
    assert 580 < h100["power_w"].p99_median < 640


def test_cli_writes_the_file_rules_export_reads(prom_url, tmp_path):
    out = tmp_path / "thresholds.yaml"
    res = CliRunner().invoke(app, ["calibrate", "--prometheus", prom_url, "--window", "1h", "--at", str(INCIDENT_AT),
                                   "-o", str(out)])
    assert res.exit_code == 0, res.output
    th = load_thresholds(out)
    assert "NVIDIA H100 80GB HBM3" in th.models
    res = CliRunner().invoke(app, ["rules", "export", "--thresholds", str(out)])
    assert res.exit_code == 0, res.output
    doc = yaml.safe_load(res.stdout)
    temp = next(r for g in doc["groups"] for r in g["rules"] if r.get("alert") == "GPUTemperatureHigh")
    limit = th.models["NVIDIA H100 80GB HBM3"]["gpu_temp_c"].proposed_threshold
    assert f'DCGM_FI_DEV_GPU_TEMP{{modelName="NVIDIA H100 80GB HBM3"}} > {limit:g}' in temp["expr"]
    assert any(r.get("alert") == "GPUMemoryTemperatureHigh" for g in doc["groups"] for r in g["rules"])
    promtool = shutil.which("promtool")
    if promtool:  # the per-model expressions are valid PromQL
        (tmp_path / "rules.yml").write_text(res.stdout)
        check = subprocess.run([promtool, "check", "rules", str(tmp_path / "rules.yml")], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stdout + check.stderr


def test_a_bad_thresholds_file_is_one_line(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_text("kind: steth_thresholds\nversion: 1\nmodels: {}\n")
    res = CliRunner().invoke(app, ["rules", "export", "--thresholds", str(bad)])
    assert res.exit_code == 3
    assert str(bad) in res.output and "Traceback" not in res.output


def test_cli_bad_server_is_one_line_error():
    res = CliRunner().invoke(app, ["calibrate", "--prometheus", "http://127.0.0.1:9", "--timeout", "1"])
    assert res.exit_code == 3
