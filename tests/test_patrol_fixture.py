"""Replay of the real patrol runs on the device machine's H200
(fixtures/observations/device-h200-patrol, README there says how they were made)."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.baselines import db_schema
from stethoscope.engine.patrol import run as patrol
from stethoscope.engine.patrol import export as patrol_export
from stethoscope.engine.patrol import store as patrol_store

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "observations" / "device-h200-patrol"
RUNS = {1: FIX / "runs" / "20261201T124952Z" / "vm", 2: FIX / "runs" / "20261201T125027Z" / "vm"}
runner = CliRunner()


def promtool_check(text: str) -> subprocess.CompletedProcess:
    if shutil.which("promtool") is None:
        pytest.skip("promtool is not installed (tests/setup_venv.sh installs Debian's prometheus)")
    return subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)


@pytest.fixture()
def db(tmp_path):
    copy = tmp_path / "patrol.sqlite"
    shutil.copy(FIX / "patrol.sqlite", copy)
    return copy


def test_history_shows_the_two_device_runs(db):
    res = runner.invoke(app, ["patrol", "history", "--db", str(db), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [(r["id"], r["node"], r["verdict"], r["problem"]) for r in data["runs"]] == [(1, "vm", "healthy", 0), (2, "vm", "healthy", 0)]
    burn = {s["labels"]["dtype"]: s["values"] for s in data["series"] if s["metric"] == "gpu_burn_tflops"}
    assert burn == {"bf16": {"1": 540.9, "2": 540.0}, "fp32": {"1": 50.1, "2": 50.1}}
    d2d = [s for s in data["series"] if s["metric"] == "gpu_copy_bandwidth_gbps" and s["labels"]["direction"] == "d2d"]
    assert d2d[0]["values"] == {"1": 4246.3, "2": 4255.6}
    text = runner.invoke(app, ["patrol", "history", "--db", str(db)], terminal_width=200)
    assert text.exit_code == 0
    assert "run 1" in text.output and "run 2" in text.output and "gpu_burn_tflops" in text.output
    assert "-0.2 %" in text.output  # bf16 540.9 -> 540.0


def test_the_device_textfiles_pass_promtool():
    for name in ("run1.prom", "run2.prom"):
        text = (FIX / "textfile" / name).read_text()
        res = promtool_check(text)
        assert res.returncode == 0, f"{name}: {res.stdout}{res.stderr}"
        assert 'steth_patrol_status{node="vm"} 0.0' in text
    assert "steth_patrol_baseline_ratio" in (FIX / "textfile" / "run2.prom").read_text()


def test_raw_files_read_back_into_the_stored_metrics(db):
    """The files of each run, read again by the patrol's own reader, give what the database holds."""
    suite = patrol.load_suite()
    for run_id, folder in RUNS.items():
        stored = patrol_store.load_run(db, run_id)
        node = json.loads((folder / patrol.RECORD_FILE).read_text())
        outcomes = [patrol.StepOutcome(**s) for s in node["steps"]]
        again = patrol.read_node(suite, folder, "vm", outcomes, node["started_at"])
        assert again.verdict == stored.verdict == "healthy"
        assert sorted((m.metric, m.key[1], m.value) for m in again.metrics) == sorted(
            (m.metric, m.key[1], m.value) for m in stored.metrics)
        assert again.context["gpu_model"] == "NVIDIA H200" and again.context["driver"] == "580.159.04"
        assert again.context["nccl"] == "2.28.9" and again.context["cuda_runtime"] == "13.0"


def test_run_2_compared_with_the_baseline_and_written_again_passes_promtool(db, tmp_path):
    suite = patrol.load_suite()
    meta, base = patrol_store.load_baseline(db, "patrol")
    assert meta["run_ids"] == [1]
    run2 = patrol_store.load_run(db, 2)
    comps = patrol_store.compare(run2, base, suite)
    assert {c.metric for c in comps} == {"gpu_burn_tflops", "gpu_copy_bandwidth_gbps"}
    assert not any(c.below for c in comps) and all(c.context_changes == "none" for c in comps)
    bf16 = next(c for c in comps if c.labels.get("dtype") == "bf16")
    assert (bf16.value, bf16.reference, bf16.ratio) == (540.0, 540.9, 0.9983)
    out = patrol_export.write_textfile(tmp_path / "steth_patrol.prom", suite, [run2], comps)
    res = promtool_check(out.read_text())
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_slower_gpu_is_below_the_baseline(db):
    """The same run with the bf16 rate 20 % lower (a GPU held down): below, exit 1 in the CLI."""
    suite = patrol.load_suite()
    _, base = patrol_store.load_baseline(db, "patrol")
    run2 = patrol_store.load_run(db, 2)
    for m in run2.metrics:
        if m.metric == "gpu_burn_tflops" and m.labels["dtype"] == "bf16":
            m.value = round(m.value * 0.8, 1)
    below = [c for c in patrol_store.compare(run2, base, suite) if c.below]
    assert [(c.metric, c.labels["dtype"], c.value) for c in below] == [("gpu_burn_tflops", "bf16", 432.0)]
    from stethoscope.cli.patrol import _exit_code

    assert _exit_code([run2], below) == 1


def test_the_device_database_stays_as_made_and_a_copy_upgrades_to_the_latest_schema(db):
    """The fixture is the file the device wrote (schema 2); every test opens a copy, and opening
    the copy applies the migrations after 2 in place (a real old database upgraded)."""
    import sqlite3

    con = sqlite3.connect(f"file:{FIX / 'patrol.sqlite'}?mode=ro", uri=True)
    try:
        assert db_schema.version(con) == 2
    finally:
        con.close()
    assert len(patrol_store.runs(db)) == 2  # opens the copy: migrated
    con = sqlite3.connect(db)
    try:
        assert db_schema.version(con) == db_schema.LATEST
    finally:
        con.close()
