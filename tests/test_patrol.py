"""``steth patrol``: the suite's schema, the history database and its migrations, a real local
run through the CLI (real commands of this machine), the launchers' command lines, the probe's
reader. The device machine's real runs are replayed in tests/test_patrol_fixture.py."""
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.baselines import store as baseline_store
from stethoscope.engine.baselines import db_schema
from stethoscope.engine.patrol import run as patrol
from stethoscope.engine.patrol import launch as patrol_launch
from stethoscope.engine.patrol import store as patrol_store
from stethoscope.facts import knowledge
from stethoscope.facts.model import FACT_KINDS
from stethoscope.facts.parsers import steth_probe
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.registry import parsers_by_kind

ROOT = Path(__file__).resolve().parents[1]
DEVICE = ROOT / "fixtures" / "observations" / "device-h200-patrol" / "runs" / "20261201T125027Z" / "vm"
runner = CliRunner()

# The schema engine/baselines/store.py created before schema versions existed (commit 3d1d003):
# such a database reads user_version 0.
V0_SCHEMA = """
CREATE TABLE IF NOT EXISTS baseline (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, recorded_at TEXT NOT NULL,
    context TEXT NOT NULL, sources TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS baseline_name ON baseline(name);
CREATE TABLE IF NOT EXISTS result (
    baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE, collective TEXT NOT NULL,
    nranks INTEGER NOT NULL, size_bytes INTEGER NOT NULL, time_us REAL NOT NULL, busbw REAL NOT NULL,
    PRIMARY KEY (baseline_id, collective, size_bytes));
"""


# --- the suite -------------------------------------------------------------------------------

def test_every_step_is_read_by_a_known_reader_and_every_metric_names_a_fact_field():
    suite = patrol.load_suite()
    kinds = parsers_by_kind()
    cover = knowledge.load("coverage.yaml").kinds
    for s in suite.steps:
        assert s.reads in kinds and s.reads in cover, f"{s.name}: reads {s.reads}, which no reader is"
        for m in s.metrics:
            cls = FACT_KINDS[m.fact]
            assert m.value in cls.model_fields, f"{m.name}: {m.fact} has no field {m.value}"
            for k in [*m.labels, *m.where]:
                assert k in cls.model_fields, f"{m.name}: {m.fact} has no field {k}"


def test_a_tolerance_needs_a_direction_and_a_source():
    data = yaml.safe_load((ROOT / "knowledge" / "patrol.yaml").read_text())
    data["steps"][0]["metrics"][0]["tolerance"] = 0.1
    with pytest.raises(knowledge.KnowledgeError, match="tolerance needs better"):
        knowledge.validate("patrol.yaml", data)
    data = yaml.safe_load((ROOT / "knowledge" / "patrol.yaml").read_text())
    data["steps"][1]["name"] = data["steps"][0]["name"]
    with pytest.raises(knowledge.KnowledgeError, match="used twice"):
        knowledge.validate("patrol.yaml", data)


def test_nightly_steps_run_only_when_included():
    suite = patrol.load_suite()
    every = {s.name for s in patrol.selected(suite)}
    assert "dcgmi_diag_r1" in every and "dcgmi_diag_r3" not in every
    assert "dcgmi_diag_r3" in {s.name for s in patrol.selected(suite, {"nightly"})}


# --- the database ------------------------------------------------------------------------------

def test_an_old_database_is_upgraded_in_place_and_keeps_its_baselines(tmp_path):
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript(V0_SCHEMA)
    con.execute("INSERT INTO baseline(name, recorded_at, context, sources) VALUES ('h100', '2026-11-01T00:00:00+00:00', '{\"nccl\": \"2.21.5\"}', '[]')")
    con.execute("INSERT INTO result VALUES (1, 'all_reduce', 8, 1048576, 50.5, 36.3)")
    con.commit()
    assert db_schema.version(con) == 0
    con.close()
    b = baseline_store.load(db, "h100")  # opening upgrades
    assert b.context == {"nccl": "2.21.5"} and b.tables["all_reduce"].rows[0].busbw == 36.3
    con = sqlite3.connect(db)
    assert db_schema.version(con) == db_schema.LATEST >= 2  # 3: benchmark figures (tests/test_bench_baseline.py)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"baseline", "result", "patrol_run", "patrol_step", "patrol_metric", "patrol_finding", "patrol_baseline"} <= tables
    con.close()
    rec = patrol.NodeRecord("n1", "2026-12-01T00:00:00+00:00", 1.0, 1, "healthy", "healthy", {},
                            metrics=[patrol.Metric("torch_burn", "gpu_burn_tflops", {"gpu": "0", "dtype": "bf16", "pci_bus_id": ""}, 500.0, "tflops")])
    assert patrol_store.store(db, rec) == 1
    assert patrol_store.load_run(db, 1).metrics[0].value == 500.0
    baseline_store.load(db, "h100")  # opening again: already at the latest version, nothing re-run


def test_a_database_newer_than_this_steth_is_refused(tmp_path):
    db = tmp_path / "new.sqlite"
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")
    con.close()
    with pytest.raises(baseline_store.StoreError, match="newer than this steth"):
        patrol_store.runs(db)


# --- a real run on this machine ---------------------------------------------------------------

def _suite(tmp_path: Path) -> Path:
    """Real commands of any Linux host: uname (read by host_info), the probe under this Python
    (no PyTorch in the test environment: it exits 69 and the step is skipped with its reason),
    a program that is not installed, and one that fails."""
    data = {
        "source": "test", "version": 1,
        "steps": [
            {"name": "uname", "title": "uname -a", "argv": ["uname", "-a"], "file": "uname.txt", "timeout": 10,
             "reads": "host_info", "requires": ["uname"], "skip_reason": "no uname"},
            {"name": "torch_burn", "title": "burn", "argv": ["{python}", "{probe}", "burn", "--seconds", "1"],
             "file": "torch-burn.txt", "timeout": 60, "reads": "steth_probe", "requires": ["{python}"], "skip_reason": "no python",
             "metrics": [{"name": "gpu_burn_tflops", "help": "rate", "unit": "tflops", "fact": "probe_burn", "value": "tflops",
                          "labels": ["gpu", "dtype"], "better": "higher", "tolerance": 0.1, "tolerance_source": "test"}]},
            {"name": "dcgmi", "title": "dcgmi diag", "argv": ["dcgmi-not-installed-here", "diag"], "file": "dcgmi.txt",
             "timeout": 10, "reads": "dcgmi_diag", "requires": ["dcgmi-not-installed-here"], "skip_reason": "DCGM absent"},
        ],
    }
    p = tmp_path / "suite.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.skipif(sys.platform != "linux", reason="real Linux commands")
def test_patrol_run_here_stores_the_run_and_writes_a_textfile_promtool_accepts(tmp_path):
    suite = _suite(tmp_path)
    db, tf = tmp_path / "h.sqlite", tmp_path / "tf" / "steth_patrol.prom"
    args = ["patrol", "run", "--suite", str(suite), "--out", str(tmp_path / "out"), "--db", str(db), "--textfile", str(tf),
            "--python", sys.executable, "--node", "n1", "--format", "json"]
    res = runner.invoke(app, args)
    data = json.loads(res.output)
    rec = data["records"][0]
    steps = {s["step"]: s for s in rec["steps"]}
    assert steps["uname"]["status"] == "ok"
    assert steps["torch_burn"]["status"] == "skipped" and "PyTorch is not importable" in steps["torch_burn"]["note"]
    assert steps["dcgmi"]["status"] == "skipped" and steps["dcgmi"]["note"].startswith("DCGM absent")
    # uname alone checks nothing: inconclusive, node-problem-detector's Unknown
    assert rec["verdict"] == "inconclusive" and res.exit_code == data["exit_code"] == 2
    assert rec["context"]["kernel"]
    assert patrol_store.runs(db)[0]["node"] == "n1"
    text = tf.read_text()
    assert 'steth_patrol_step_status{node="n1",status="skipped",step="torch_burn"} 1.0' in text
    if shutil.which("promtool"):
        check = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
    npd = runner.invoke(app, [*args[:-2], "--npd"])
    assert npd.exit_code == 2 and len(npd.output.strip().splitlines()) == 1 and npd.output.startswith("n1 inconclusive")
    hist = runner.invoke(app, ["patrol", "history", "--db", str(db), "--format", "json"])
    assert [r["id"] for r in json.loads(hist.output)["runs"]] == [1, 2]


def test_emit_record_prints_one_line_the_launcher_side_reads_back(tmp_path):
    res = runner.invoke(app, ["patrol", "run", "--suite", str(_suite(tmp_path)), "--out", str(tmp_path / "out"),
                              "--python", sys.executable, "--node", "gpu07", "--only", "uname", "--emit-record"])
    assert res.exit_code == 2
    pdsh_style = "\n".join(f"gpu07: {ln}" for ln in res.output.splitlines())
    recs = patrol_launch.records_in(pdsh_style + "\n0: unrelated line\n")
    assert [(r.node, r.verdict, [s.step for s in r.steps]) for r in recs] == [("gpu07", "inconclusive", ["uname"])]
    assert patrol_launch.records_in("3: " + res.output.strip())[0].node == "gpu07"  # srun --label


def test_probe_without_pytorch_says_so_and_exits_69():
    p = subprocess.run([sys.executable, str(patrol.PROBE), "copy"], capture_output=True, text=True, timeout=60)
    if p.returncode == 0:
        pytest.skip("this Python has PyTorch with a GPU")
    assert p.returncode == patrol.EX_UNAVAILABLE
    facts = steth_probe.parse(Artefact("n1/torch-copy.txt", p.stdout, "n1")).facts
    assert [f.kind for f in facts] == ["probe_unavailable"]


# --- launchers ---------------------------------------------------------------------------------

def test_launcher_command_lines():
    remote = ["steth", "patrol", "run", "--emit-record", "--include", "nightly"]
    assert patrol_launch.commands("ssh", ["gpu01", "gpu02"], remote) == [
        ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "gpu01", "steth patrol run --emit-record --include nightly"],
        ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "gpu02", "steth patrol run --emit-record --include nightly"]]
    assert patrol_launch.commands("pdsh", ["gpu01", "gpu02"], remote) == [
        ["pdsh", "-w", "gpu01,gpu02", "steth patrol run --emit-record --include nightly"]]
    assert patrol_launch.commands("srun", ["gpu01", "gpu02"], remote) == [
        ["srun", "--nodes=2", "--ntasks-per-node=1", "--nodelist=gpu01,gpu02", "--label", *remote]]
    assert patrol_launch.commands("srun", ["gpu[01-16]"], remote)[0][1:4] == ["--ntasks-per-node=1", "--nodelist=gpu[01-16]", "--label"]


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no ssh client")
def test_a_host_the_launcher_cannot_reach_is_reported_unreachable(tmp_path):
    res = runner.invoke(app, ["patrol", "run", "--launcher", "ssh", "--hosts", "no-such-host.invalid", "--db",
                              str(tmp_path / "h.sqlite"), "--launch-timeout", "60", "--format", "json"])
    data = json.loads(res.output)
    rec = data["records"][0]
    assert rec["node"] == "no-such-host" and rec["verdict"] == "unreachable" and "through ssh" in rec["summary"]
    assert res.exit_code == 2


# --- the probe's reader ------------------------------------------------------------------------

def test_probe_reader_on_the_device_run():
    text = (DEVICE / "torch-burn.txt").read_text() + (DEVICE / "torch-copy.txt").read_text()
    assert steth_probe.detect(text)
    facts = steth_probe.parse(Artefact("vm/torch.txt", text, "vm")).facts
    burns = [(f.dtype, f.tflops, f.mismatches, f.pci_bus_id) for f in facts if f.kind == "probe_burn"]
    assert burns == [("bf16", 540.0, 0, "0000:00:06.0"), ("fp32", 50.1, 0, "0000:00:06.0")]
    copies = {f.direction: f.gbps for f in facts if f.kind == "probe_copy"}
    assert copies == {"d2d": 4255.6, "h2d": 55.3, "d2h": 55.2}
    ctx = next(f for f in facts if f.kind == "probe_context")
    assert (ctx.torch, ctx.cuda, ctx.nccl, ctx.gpus) == ("2.11.0+cu130", "13.0", "2.28.9", 1)
    assert not any(f.kind == "probe_compute_mismatch" for f in facts)


def test_probe_reader_mismatch_and_malformed_lines():
    # the device's bf16 line with mismatches written in (no GPU here has given wrong products yet)
    lines = ["steth-probe v1 burn gpu=0 dtype=bf16 n=8192 seconds=10.0 iterations=4920 tflops=540.0 mismatches=12",
             "steth-probe v1 burn gpu=0 dtype=bf16 n=8192 seconds=10.0 iterations=4920 tflops=fast mismatches=0",
             "steth-probe v1 copy gpu=0 peer=0 direction=sideways bytes=1 repeats=1 seconds=1 gbps=1",
             "steth-probe v1 burn gpu=0 dtype=bf16",
             "steth-probe v1 frobnicate x=1"]
    r = steth_probe.parse(Artefact("n1/t.txt", "\n".join(lines) + "\n", "n1"))
    assert [f.kind for f in r.facts] == ["probe_burn", "probe_compute_mismatch"]
    assert [e.line for e in r.errors] == [2, 3, 4, 5]
