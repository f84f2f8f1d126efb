"""steth diagnose --baseline NAME [--baseline-db PATH]: the real socket-only H200 run against
the real healthy all_reduce recorded as a baseline."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from stethoscope.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
OBS = ROOT / "fixtures/observations/h200-x2"
HEALTHY = [OBS / "nccl-tests/allreduce_healthy_g2.txt", OBS / "nvidia-smi/nvidia-smi-q.txt",
           OBS / "nccl-logs/allreduce_healthy_g2.nccl.log"]
SOCKET_BUNDLE = ROOT / "fixtures/bundles/h200-socket-only/bundle"
runner = CliRunner()


def test_diagnose_against_recorded_baseline(tmp_path, monkeypatch):
    monkeypatch.delenv("STETH_BASELINE", raising=False)
    db = tmp_path / "b.sqlite"
    rec = runner.invoke(app, ["baseline", "record", *map(str, HEALTHY), "--name", "h200-pair", "--db", str(db)])
    assert rec.exit_code == 0, rec.output
    res = runner.invoke(app, ["diagnose", "--from-logs", str(SOCKET_BUNDLE), "--baseline", "h200-pair",
                              "--baseline-db", str(db), "--format", "json"])
    assert res.exit_code == 1, res.output
    report = json.loads(res.stdout)
    [low] = [f for f in report["findings"] if f["rule"] == "busbw_below_baseline"]
    assert "baseline h200-pair" in low["summary"] and "NCCL_P2P_DISABLE=1" in low["summary"]
    factor = float(low["summary"].split("x below")[0].rsplit(" ", 1)[1])
    assert factor >= 50  # the bar: socket-only at least 50x below the healthy pair


def test_unknown_baseline_is_bad_input(tmp_path):
    res = runner.invoke(app, ["diagnose", "--from-logs", str(SOCKET_BUNDLE), "--baseline", "nope",
                              "--baseline-db", str(tmp_path / "empty.sqlite")])
    assert res.exit_code == 3
