"""``steth plan``: samples a day and Prometheus disk at the documented 1-2 bytes a sample, with
the retention flags (figures from knowledge/prometheus_storage.yaml)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live.plan import plan


def steth(*args: str):
    return CliRunner().invoke(app, list(args))


def test_issue_example_1000_gpus_50_metrics_15s_30_days():
    res = steth("plan", "--gpus", "1000", "--metrics", "50", "--interval", "15s", "--days", "30")
    assert res.exit_code == 0, res.output
    out = res.stdout
    # 1000 x 50 x 5,760 = 288 M samples a day, 0.3-0.6 GB at 1-2 bytes each
    assert "50,000 x 5,760 (one every 15 s) = 288,000,000 (288 M)" in out
    assert "storage per day:   0.29-0.58 GB at 1-2 bytes a sample" in out
    assert "8.64-17.3 GB of blocks" in out
    # retention advice: the time flag (past the 15d default), the size cap inside 80 % of the disk,
    # and dcgm-exporter's 30 s collection under a 15 s scrape
    assert "--storage.tsdb.retention.time=30d (the default is 15d" in out
    assert "--storage.tsdb.retention.size=18GB" in out and "at most 80%-85% of the disk" in out
    assert "dcgm-exporter collects every 30 s by default: a 15 s scrape stores each of its values 2 times" in out
    assert "Prometheus storage docs" in out  # the sources are printed


def test_json_and_disk():
    res = steth("plan", "--gpus", "1000", "--interval", "30s", "--days", "15", "--disk", "10", "--json")
    assert res.exit_code == 0, res.output
    p = json.loads(res.stdout)
    assert p["samples_per_day"] == 144_000_000 and p["gb_per_day"] == {"low": 0.144, "high": 0.288}
    assert p["retention_time_flag"] == "--storage.tsdb.retention.time=15d"
    # no double storage warning at the exporter's own interval; 10 GB (80 % usable, less the WAL) holds 26-53 days
    assert not any("collects every" in a for a in p["advice"])
    assert round(p["days_that_fit"]["low"]) == 26 and round(p["days_that_fit"]["high"]) == 53


def test_disk_follows_the_formula():
    p = plan(gpus=8, metrics=10, interval_s=60, days=7)
    per_day = 8 * 10 * 1440
    assert p.samples_per_day == per_day
    assert p.gb_retained.high == pytest.approx(per_day * 2 * 7 / 1e9)
    # blocks, the block still waiting to expire, and three 128 MiB WAL segments, inside 80 %
    assert p.disk_gb == pytest.approx((p.gb_retained.high + p.gb_block_overhang.high + 3 * 2**27 / 1e9) / 0.8, rel=1e-3)
    assert p.retention_size_flag.endswith("MB")  # under one 'GB' (2^30 bytes) the flag is given in MB


@pytest.mark.parametrize("args", [["--gpus", "0"], ["--gpus", "8", "--interval", "0s"], ["--gpus", "8", "--days", "0"]])
def test_bad_values_are_usage_errors(args):
    res = steth("plan", *args)
    assert res.exit_code == 3, res.output
