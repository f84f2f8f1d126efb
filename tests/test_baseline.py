"""steth baseline: record the real healthy H200 all_reduce, compare the real socket-only run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.baselines import store
from stethoscope.engine.baselines import perf_compare
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor

ROOT = Path(__file__).resolve().parents[1]
OBS = ROOT / "fixtures/observations/h200-x2"
HEALTHY = [OBS / "nccl-tests/allreduce_healthy_g2.txt", OBS / "nvidia-smi/nvidia-smi-q.txt",
           OBS / "nccl-logs/allreduce_healthy_g2.nccl.log"]
SOCKET_BUNDLE = ROOT / "fixtures/bundles/h200-socket-only/bundle"
runner = CliRunner()


@pytest.fixture()
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "b.sqlite"
    monkeypatch.setenv(store.ENV_DB, str(path))
    return path


def _record(name: str = "h200-pair") -> None:
    res = runner.invoke(app, ["baseline", "record", *map(str, HEALTHY), "--name", name])
    assert res.exit_code == 0, res.output


def test_record_keeps_table_and_context(db):
    _record()
    b = store.load(db, "h200-pair")
    t = b.tables["all_reduce"]
    assert (t.nranks, len(t.rows)) == (2, 29)
    top = t.rows[-1]
    assert top.size_bytes == 2147483648 and top.busbw == pytest.approx(339.9, abs=0.1)
    assert b.context["gpu_model"] == "NVIDIA H200" and b.context["nccl"] == "2.28.9"
    assert b.context["driver"] == "580.159.04" and b.context["cuda"] == "13.0"
    assert (b.context["gpus_per_node"], b.context["nodes"]) == (2, 1)


def test_socket_only_is_50x_below_and_names_the_overrides(db):
    _record()
    res = runner.invoke(app, ["baseline", "compare", str(SOCKET_BUNDLE), "--name", "h200-pair", "--format", "json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.output)
    bands = {c["band"]: c for c in data["comparisons"]}
    assert bands["bandwidth"]["factor_below"] >= 50 and bands["bandwidth"]["below"]
    assert bands["latency"]["below"]
    diff = bands["bandwidth"]["context_diff"]
    for setting in ("NCCL_P2P_DISABLE unset -> 1", "NCCL_SHM_DISABLE unset -> 1", "NCCL_SOCKET_IFNAME unset -> lo"):
        assert setting in diff
    findings = data["report"]["findings"]
    # the overrides are the root cause, the low bandwidth their cascade
    likely = findings[0]
    assert likely["rule"] == "nccl_env_slow_path_low_busbw" and likely["role"] == "root_cause"
    assert "NCCL_P2P_DISABLE=1" in likely["summary"] and "NCCL_SHM_DISABLE=1" in likely["summary"]
    low = next(f for f in findings if f["cause"] == "busbw_below_baseline")
    assert "baseline h200-pair" in low["summary"] and low["role"] == "cascade" and likely["rank"] in low["explained_by"]
    assert any(e["text"].startswith("   268435456") for e in low["evidence"])
    text = runner.invoke(app, ["baseline", "compare", str(SOCKET_BUNDLE), "--name", "h200-pair"]).output
    assert "BELOW" in text and "NCCL_P2P_DISABLE=1" in text


def test_healthy_run_matches_its_baseline(db):
    _record()
    res = runner.invoke(app, ["baseline", "compare", str(HEALTHY[0]), "--name", "h200-pair", "-f", "json"])
    assert res.exit_code == 0, res.output
    for c in json.loads(res.output)["comparisons"]:
        assert c["ratio"] == pytest.approx(1.0, abs=0.02) and not c["below"] and c["context_diff"] == "none"


def test_versions_list_show(db):
    _record()
    _record()
    rows = json.loads(runner.invoke(app, ["baseline", "list", "-f", "json"]).output)
    assert [(r["name"], r["versions"], r["collectives"]) for r in rows] == [("h200-pair", 2, ["all_reduce"])]
    shown = json.loads(runner.invoke(app, ["baseline", "show", "h200-pair", "-f", "json"]).output)
    assert shown["id"] == 2 and len(shown["versions"]) == 2
    assert "339.9" in runner.invoke(app, ["baseline", "show", "h200-pair"]).output


def test_bad_usage_is_one_line_exit_3(db, tmp_path):
    res = runner.invoke(app, ["baseline", "compare", str(HEALTHY[0]), "--name", "nope"])
    assert res.exit_code == 3 and "no baseline database" in res.output
    _record()
    res = runner.invoke(app, ["baseline", "show", "nope"])
    assert res.exit_code == 3 and "known: h200-pair" in res.output
    empty = tmp_path / "empty.txt"
    empty.write_text("nothing here\n")
    res = runner.invoke(app, ["baseline", "record", str(empty), "--name", "x"])
    assert res.exit_code == 3 and "no benchmark results" in res.output


def test_default_path_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv(store.ENV_DB, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert store.default_path() == tmp_path / "gpu-stethoscope" / "baselines.sqlite"


def test_bands_and_busbw_from_time():
    assert [perf_compare.band_of(s) for s in (8, 65536, 1 << 20, 64 << 20)] == ["latency", "latency", None, "bandwidth"]
    # 2 GiB all_reduce over 2 ranks in 6318.05 us: 339.9 GB/s as nccl-tests printed
    t = store.Table("all_reduce", 2, [store.Row(2147483648, 6318.05, 2147483648 / 6318.05 / 1e3 * busbw_factor("all_reduce", 2))])
    ratio, n, size = perf_compare.compare_tables(t, {2147483648: 339.9})["bandwidth"]
    assert (round(ratio, 3), n, size) == (1.0, 1, 2147483648)


def test_expected_figures_name_a_source():
    for p in perf_compare.expected_platforms():
        assert p.source and p.collectives
        for c, spec in p.collectives.items():
            busbw_factor(c, p.nranks)  # a collective nccl-tests defines
            assert all(int(k) >= perf_compare.BANDWIDTH_MIN for k in spec.points)


@pytest.mark.parametrize("band", ["bandwidth", "latency"])
def test_busbw_limits_come_from_knowledge_and_ride_on_the_fact(band):
    """knowledge/bench_tolerances.yaml's nccl_tests limits, and where each was read, are what a
    busbw_comparison carries; rules compare its ratio with them (the edges, each side:
    tests/rules/nccl/busbw_below_baseline*.test.yaml)."""
    from stethoscope.facts import knowledge

    lim = knowledge.load("bench_tolerances.yaml").nccl_tests
    assert perf_compare.BELOW[band] == (getattr(lim.below, band), f"knowledge/bench_tolerances.yaml nccl_tests.below.{band}")
    assert perf_compare.CRITICAL_BELOW == (lim.critical_below, "knowledge/bench_tolerances.yaml nccl_tests.critical_below")


def test_expected_figure_s_min_ratio_is_the_bandwidth_limit():
    """Against an expected figure the bandwidth band's limit is the platform's min_ratio, named as such."""
    from stethoscope.engine.pipeline import observe_results, combine

    obs = combine(observe_results([ROOT / "fixtures/artefacts/nccl_tests/allreduce_socket_only_g2.txt"]))
    [c] = [f for f in obs.facts if f.kind == "busbw_comparison"]
    plat = next(p for p in perf_compare.expected_platforms() if p.id == "h200-nv18-pair")
    assert (c.band, c.below_limit, c.below_limit_source) == ("bandwidth", plat.min_ratio, "knowledge/expected_perf.yaml h200-nv18-pair.min_ratio")
    assert (c.critical_limit, c.critical_limit_source) == perf_compare.CRITICAL_BELOW


def _tables_both_ways(facts):
    """runs_of's two shapes of every run's table: (Table of Rows, Columns), by run id."""
    rows = {run.id: t for run, t, _c, _r in perf_compare.runs_of(facts)}
    return {run.id: (rows[run.id], t) for run, t, _c, _r in perf_compare.runs_of(facts, columns=True)}


def test_columns_give_the_rows_busbw_in_and_out_of_order():
    """compare_bundle's Columns (where the sizes never go down and every row has an out-of-place
    time, each size's first row found without a loop a row; else the general loop) give the sizes
    and busbw of runs_of's Rows, and compare_tables the same bands, ratios, counts and sizes, for
    the real tables and for the same tables reversed, with a size twice in order, and with a row
    with no time and one with only its in-place time besides (the general loop's cases)."""
    from stethoscope.engine import pipeline

    obs = pipeline.observe_results([OBS / "nccl-tests"])
    tables = [f for f in obs.facts if f.kind == "nccl_test_table"]
    assert len(tables) >= 5
    changed = []
    for t in tables:
        n = len(t)
        rev = {c: getattr(t, c)[::-1] for c in ("lines", "texts", "size_bytes", "oop_time_us", "ip_time_us")}
        changed.append(t.model_copy(update=rev))
        dup = {c: list(getattr(t, c)) for c in ("size_bytes", "oop_time_us", "ip_time_us")}
        dup["size_bytes"][n - 1] = dup["size_bytes"][n - 2]  # a size twice, in order (all_gather's size 0 rows)
        changed.append(t.model_copy(update={c: tuple(v) for c, v in dup.items()}))
        odd = {c: list(v) for c, v in dup.items()}
        odd["oop_time_us"][n - 3], odd["ip_time_us"][n - 3] = 0.0, None  # no time measured
        odd["oop_time_us"][n - 4] = float("nan")  # only the in-place time
        changed.append(t.model_copy(update={c: tuple(v) for c, v in odd.items()}))
    facts = [f for f in obs.facts if f.kind != "nccl_test_table"]
    seen = 0
    for variant in (tables, changed[0::3], changed[1::3], changed[2::3]):
        for rid, (rows, cols) in _tables_both_ways(facts + variant).items():
            assert list(cols.sizes) == [r.size_bytes for r in rows.rows]
            assert cols.busbws == [r.busbw for r in rows.rows]
            ref = {r.size_bytes: r.busbw * 0.9 for r in rows.rows[::3]}
            assert perf_compare.compare_tables(cols, ref) == perf_compare.compare_tables(rows, ref)
            seen += 1
    assert seen >= 20
