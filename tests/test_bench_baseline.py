"""steth baseline record/compare for every benchmark kind (issue 15 items 1-2), valid benchmarks
only, the schema upgrade of an older database, and the version tables (item 5)."""
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.baselines import run as baseline_run
from stethoscope.engine.baselines import bench as bench_baseline
from stethoscope.engine.baselines import db_schema
from stethoscope.engine.combine import version_compat
from stethoscope.engine.baselines import store
from stethoscope.facts.model import Evidence
from stethoscope.facts.parsers.nccl_log_facts import NcclVersion


ROOT = Path(__file__).resolve().parent.parent
A = ROOT / "fixtures" / "artefacts"
runner = CliRunner()

#: one real sample of every kind of part 1, and the kind's count of figures in it
KINDS = {
    "gpu_burn": ("gpu_burn/superbench_a100x8_ok.log", 8),
    "nvbandwidth": ("nvbandwidth/nvbandwidth50_a6000x6_v0.8.txt", 31),
    "stream": ("stream/superbench_zen_5.10.txt", 4),
    "fio": ("fio/superbench_randrw_fio3.16.json", 6),
    "iperf3": ("iperf3/cloudpilot_tcp_iperf3.9.json", 2),
    "perftest": ("perftest/ib_read_bw_send_lat_mlx4_capture.txt", 115),
    "training": ("training_throughput/superbench_megatron_deepspeed_excerpt.log", 4),
    "dcgm_diag": ("dcgmi_diag/go_dcgm52_memory_fail_busy.txt", 2),
}


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "b.sqlite"
    monkeypatch.setenv(store.ENV_DB, str(path))
    return path


def _bundle(tmp_path, name, *rels):
    """A one-node bundle folder holding copies of real fixtures."""
    node = tmp_path / name / "node1"
    node.mkdir(parents=True)
    for rel in rels:
        shutil.copy(A / rel, node / rel.replace("/", "__"))
    return tmp_path / name


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_is_recorded_and_compares_within_with_itself(kind, db, tmp_path):
    rel, n = KINDS[kind]
    bundle = _bundle(tmp_path, "run", rel)
    b = baseline_run.record([bundle], kind, db)
    assert sum(m.benchmark == kind for m in b.metrics) == n and store.load(db, kind).metrics == b.metrics
    res = runner.invoke(app, ["baseline", "compare", str(bundle), "--name", kind])
    assert res.exit_code == 0, res.output
    cmp = baseline_run.compare([bundle], kind, db, _rules())
    mine = [c for c in cmp.benchmarks if c.benchmark == kind]
    assert len(mine) == n and {c.outcome for c in mine} == {"within"} and not cmp.below


def _rules():
    from stethoscope.engine.ruleengine.loader import load_rules

    return load_rules()


def test_a_slower_run_is_below_and_exits_1(db, tmp_path):
    base = _bundle(tmp_path, "base", "stream/superbench_zen_5.10.txt")
    slow = _bundle(tmp_path, "slow", "stream/daizhiyuan_centos7_5.10.txt")
    baseline_run.record([base], "zen", db)
    res = runner.invoke(app, ["baseline", "compare", str(slow), "--name", "zen"])
    assert res.exit_code == 1 and "4 below" in res.output and "Triad host best_rate: 98350.8 vs 363208.7" in res.output
    assert "stream Triad host best_rate: 98350.8 MB/s against 363208.7" in res.output  # the finding of the rule


def test_a_run_on_a_busy_gpu_is_recorded_as_not_comparable_with_the_reason(db, tmp_path):
    busy = _bundle(tmp_path, "busy", "gpu_burn/gpu_burn48_gtx1080_x2.txt")
    shutil.copy(ROOT / "fixtures/observations/h200-device-2026-12-01/nvidia-smi-table-hog.txt", busy / "node1" / "nvidia-smi.txt")
    b = baseline_run.record([busy], "busy", db)
    assert not b.comparable and "python3 (pid 434) on GPU 0" in b.not_comparable
    res = runner.invoke(app, ["baseline", "list"])
    assert "NOT COMPARABLE" in res.output
    # compared with itself: every figure is not comparable (this run and the baseline), and nothing is "below"
    cmp = baseline_run.compare([busy], "busy", db, _rules())
    assert {c.outcome for c in cmp.benchmarks} == {"not_comparable"} and not cmp.below
    assert "this run:" in cmp.benchmarks[0].why and "the baseline:" in cmp.benchmarks[0].why


def test_unpinned_clocks_are_not_comparable_pinned_ones_are(tmp_path):
    obs = baseline_run.observe([_bundle(tmp_path, "q", "nvbandwidth/nvbandwidth50_a6000x6_v0.8.txt", "nvidia_smi_q/nvidia-smi-q.txt")])
    (v,) = [f for f in obs.facts if f.kind == "benchmark_validity"]
    assert (v.comparable, v.clocks, v.busy) == (False, "not_pinned", False) and "clocks not pinned" in v.reasons
    clocks = [f for f in obs.facts if f.kind == "gpu_clocks"]
    pinned = [c.model_copy(update={"app_clocks_set": True}) for c in clocks]
    facts = [f for f in obs.facts if f.kind != "gpu_clocks"] + pinned
    (v,) = bench_baseline.validity(facts)
    assert (v.comparable, v.clocks) == (True, "pinned") and v.reasons == "idle GPUs, pinned clocks"


def test_results_without_nvidia_smi_are_comparable_but_unverified(tmp_path):
    obs = baseline_run.observe([_bundle(tmp_path, "u", "fio/terse_v3_fio3.32_seqread.txt")])
    (v,) = [f for f in obs.facts if f.kind == "benchmark_validity"]
    assert v.comparable and v.checked == "nothing" and v.reasons.startswith("unverified")


def test_narrower_nccl_sweep_is_flagged(db, tmp_path):
    baseline_run.record([_bundle(tmp_path, "wide", "nccl_tests/allreduce_healthy_g2.txt")], "pair", db)
    res = runner.invoke(app, ["baseline", "compare", str(_bundle(tmp_path, "narrow", "nccl_tests/allreduce_socket_only_g2.txt")), "--name", "pair"])
    assert "narrower sweep all_reduce" in res.output and "sizes above 256 MiB (the baseline reaches 2 GiB)" in res.output


def test_context_is_versioned(tmp_path):
    obs = baseline_run.observe([_bundle(tmp_path, "c", "nvbandwidth/superbench_gh200_v0.6.txt", "nvidia_smi_q/nvidia-smi-q.txt",
                                        "dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt")])
    ctx = bench_baseline.context_of(obs.facts)
    assert ctx["gpu_model"] == "NVIDIA H200" and ctx["dcgm"] == "3.3.5" and "nvbandwidth v0.6" in ctx["tools"]
    assert "550.54.15" in ctx["driver"]
    assert bench_baseline.context_diff({"driver": "550.54.15"}, {"driver": "580.159.04"}) == "driver 550.54.15 -> 580.159.04"


V0_SCHEMA = """
CREATE TABLE baseline (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, recorded_at TEXT NOT NULL,
                       context TEXT NOT NULL, sources TEXT NOT NULL);
CREATE TABLE result (baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE, collective TEXT NOT NULL,
                     nranks INTEGER NOT NULL, size_bytes INTEGER NOT NULL, time_us REAL NOT NULL, busbw REAL NOT NULL,
                     PRIMARY KEY (baseline_id, collective, size_bytes));
"""


@pytest.mark.parametrize("start", [0, 2])
def test_an_older_database_is_upgraded_to_benchmark_figures(start, tmp_path):
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(V0_SCHEMA)
    if start == 2:  # a database of the patrol's version: migrations 1-2 as they were written
        for v in (1, 2):
            for stmt in db_schema._statements(db_schema.MIGRATIONS[v]):
                con.execute(stmt)
        con.execute("PRAGMA user_version = 2")
    con.execute("INSERT INTO baseline(name, recorded_at, context, sources) VALUES ('old', '2026-11-01T00:00:00+00:00', '{}', '[]')")
    con.execute("INSERT INTO result VALUES (1, 'all_reduce', 2, 1048576, 50.0, 21.0)")
    con.commit()
    con.close()
    old = store.load(path, "old")  # opening upgrades in place
    assert old.comparable and old.metrics == [] and old.tables["all_reduce"].rows[0].busbw == 21.0
    con = sqlite3.connect(path)
    assert db_schema.version(con) == db_schema.LATEST >= 3
    assert {r[1] for r in con.execute("PRAGMA table_info(bench_metric)")} >= {"benchmark", "entity", "metric", "size_bytes", "node"}
    con.close()
    m = store.Metric("n1", "stream", "Triad", "host", "best_rate", None, 1.0, "MB/s")
    new = store.record(path, "old", {}, [], [], [m], not_comparable="n1: busy")
    assert (new.id, new.metrics, new.comparable, new.not_comparable) == (2, [m], False, "n1: busy")


def _nccl(version, cuda):
    return NcclVersion(id=f"x:{version}", node="n1", evidence=Evidence(path="x", line=1, text="NCCL version"), version=version, cuda=cuda)


def test_version_tables():
    assert version_compat.vkey("550.54.15") == (550, 54, 15) and version_compat.vkey("2.18.5+cuda12.2") == (2, 18, 5)
    (c,) = version_compat._cuda_nccl(version_compat.table(), _nccl("2.14.3", "12.0"))
    assert not c.ok and "2.16.2 or later" in c.need
    (c,) = version_compat._cuda_nccl(version_compat.table(), _nccl("2.16.2", "12.0"))
    assert c.ok
    (c,) = version_compat._cuda_nccl(version_compat.table(), _nccl("2.27.7", "13.0"))
    assert c.ok
    (c,) = version_compat._cuda_nccl(version_compat.table(), _nccl("2.26.2", "13.0"))
    assert not c.ok
    # minor version compatibility: 12.4 on a 525.60.13 driver runs; on 520 it cannot
    (c,) = version_compat._cuda_driver(version_compat.table(), _nccl("2.21.5", "12.4"), "525.60.13")
    assert c.ok and "only through minor version compatibility" in c.need
    (c,) = version_compat._cuda_driver(version_compat.table(), _nccl("2.21.5", "12.4"), "520.61.05")
    assert not c.ok


def test_dcgm_driver_table_from_a_real_run():
    from stethoscope.engine import pipeline
    from stethoscope.facts.parsers.base import Artefact

    text = (A / "dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt").read_text()
    obs = pipeline.parse_artefacts([Artefact(path="d.txt", text=text, node="n1")])
    (c,) = [f for f in obs.facts if f.kind == "version_compat"]
    assert (c.check, c.ok, c.have) == ("dcgm_driver", True, "DCGM 3.3.5 with driver 550.54.15")
    run = next(f for f in obs.facts if f.kind == "dcgm_diag_run")
    old = version_compat._dcgm_driver(version_compat.table(), run, "470.82.01")
    assert not old[0].ok and "525" in old[0].need
