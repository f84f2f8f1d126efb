"""A baseline recorded from the healthy H200 bundle, compared with that same bundle, is healthy.

The bundle holds nccl-tests ``-J`` JSON from a ``-g 2`` run (one process, 2 ranks, ONE entry
in ``devices``): counted as 1 rank, its busbw was rescaled by 2(n-1)/n = 0 and came out
"0.0 GB/s, infx below" the baseline of the same run.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "fixtures/bundles/h200-healthy/bundle"
JSON_RUN = BUNDLE / "vm" / "allreduce.json"
runner = CliRunner()


@pytest.fixture(autouse=True)
def _db(tmp_path, monkeypatch):
    monkeypatch.setenv("STETH_BASELINE_DB", str(tmp_path / "baselines.sqlite"))
    monkeypatch.delenv("STETH_BASELINE", raising=False)


def _invoke(*args):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res


def test_bundle_against_its_own_baseline_is_not_faulty():
    rec = _invoke("baseline", "record", BUNDLE, "--name", "self", "-f", "json")
    assert rec.exit_code == 0, rec.output
    assert json.loads(rec.stdout)["collectives"]["all_reduce"]["nranks"] == 2
    res = _invoke("diagnose", "--from-logs", BUNDLE, "--baseline", "self", "--format", "json")
    report = json.loads(res.stdout)
    assert report["verdict"] != "faulty" and res.exit_code != 1, res.output
    assert not [f for f in report["findings"] if f["cause"] == "busbw_below_baseline"]

    cmp = json.loads(_invoke("baseline", "compare", BUNDLE, "--name", "self", "-f", "json").stdout)
    rows = cmp["comparisons"]
    assert {c["collective"] for c in rows} == {"all_gather", "all_reduce", "reduce_scatter", "sendrecv"}
    assert not any(c["below"] for c in rows)
    json_rows = [c for c in rows if c["evidence"]["path"].endswith("allreduce.json")]
    assert json_rows, "the -J JSON run is compared too"
    for c in rows:
        if c["band"] == "bandwidth":  # the JSON run is another run of the same pair: same bandwidth
            assert c["ratio"] == pytest.approx(1.0, abs=0.02), c
    # every run that was recorded compares with itself at exactly 1.0
    recorded = [c for c in rows if not c["evidence"]["path"].endswith("allreduce.json")]
    assert all(c["ratio"] == 1.0 for c in recorded), recorded


def test_json_run_against_its_own_baseline_is_one():
    assert _invoke("baseline", "record", JSON_RUN, "--name", "json").exit_code == 0
    res = _invoke("baseline", "compare", JSON_RUN, "--name", "json", "-f", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["comparisons"]
    assert [(c["collective"], c["band"], c["ratio"]) for c in rows] == [
        ("all_reduce", "bandwidth", 1.0), ("all_reduce", "latency", 1.0)]
    assert rows[0]["measured_busbw"] == rows[0]["reference_busbw"] > 300  # GB/s, not 0.0
