"""diagnose --prometheus against a real Prometheus serving the recorded incidents."""
from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from conftest import INCIDENT_AT, RECOVERED_AT, RECOVERED_WINDOW, T1
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.live.observe import diagnose_prometheus, parse_duration, parse_time

ROOT = Path(__file__).resolve().parents[2]


def causes(report) -> set[tuple]:
    return {(f.cause, f.entity.node, f.entity.gpu, f.entity.hca, None if f.entity.port is None else str(f.entity.port))
            for f in report.findings}


def test_incident_gives_the_causes_and_entities_of_its_bundle(prom_url):
    live = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    bundle = diagnose_bundle(ROOT / "fixtures" / "bundles" / "live-incident" / "bundle")
    assert live.source.kind == "prometheus" and live.verdict == "faulty"
    gpu_live = {c for c in causes(live) if c[2] is not None}
    assert gpu_live == causes(bundle)
    # the page pending retirement: DCGM fields 390-392 live, nvidia-smi -q's Retired Pages in the bundle
    # node2's GPU past its own slowdown temperature (DCGM field 158 live, nvidia-smi -q's GPU Slowdown Temp in the bundle)
    assert {c[0] for c in gpu_live} == {"gpu_fell_off_bus", "gpu_thermal_slowdown", "gpu_overheating", "ecc_uncorrectable", "row_remap_pending"}
    # the third fault, only in the series: node3's IB port that carried traffic went Down
    ib = [f for f in live.findings if f.entity.hca]
    assert [(f.cause, f.entity.node, f.entity.hca, str(f.entity.port)) for f in ib] == [("ib_port_down", "node3", "mlx5_1", "1")]
    assert "Polling" in ib[0].summary


def test_live_evidence_quotes_query_and_sample(prom_url):
    live = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    xid = next(f for f in live.findings if f.cause == "gpu_fell_off_bus")
    ev = xid.evidence[0]
    # the samples of the flagged scrape targets only (the screen flagged node1's GPU)
    assert ev.path.startswith('{__name__=~"DCGM_FI_DEV_XID_ERRORS|') and 'instance=~"node1:9400' in ev.path
    assert ev.path.endswith("}[3600s]") and ev.line >= 1 and "node3" not in ev.path
    assert ev.text.startswith("DCGM_FI_DEV_XID_ERRORS{") and 'err_code="79"' in ev.text and " 79 @" in ev.text
    thermal = next(f for f in live.findings if f.cause == "gpu_thermal_slowdown")
    # node2 runs the older exporter: Hostname label and the older field name
    assert 'Hostname="node2"' in thermal.evidence[0].text and "CLOCK_THROTTLE_REASONS" in thermal.evidence[0].text


def test_missing_fields_are_named_with_how_to_enable_them(prom_url):
    live = diagnose_prometheus(prom_url, at=INCIDENT_AT, window_s=3600)
    missing = {m.metric: m for m in live.missing_signals}
    assert "DCGM_FI_DEV_ROW_REMAP_PENDING" in missing and "DCGM_FI_PROF_SM_ACTIVE" in missing
    pending = missing["DCGM_FI_DEV_ROW_REMAP_PENDING"]
    assert pending.field_id == 396 and "counters CSV" in pending.enable and pending.shows
    assert "DCGM_FI_DEV_XID_ERRORS" not in missing


def test_recovered_series_are_healthy_but_still_name_missing_signals(prom_url):
    live = diagnose_prometheus(prom_url, at=RECOVERED_AT, window_s=RECOVERED_WINDOW)
    # all that is left is information: the fleet's exporters name two fields in two ways
    assert live.verdict == "healthy" and {f.rule for f in live.findings} == {"monitoring_exporter_versions_mixed"}
    assert {f.severity for f in live.findings} == {"info"}
    assert live.missing_signals  # the signals it could not see are still listed


def test_time_series_only_faults(prom_url):
    live = diagnose_prometheus(prom_url, at=T1 + 3600, window_s=3600)
    got = causes(live)
    assert ("input_pipeline_stall", "node4", "0000:18:00.0", None, None) in got
    assert ("straggler_node", "node5", None, None, None) in got
    assert ("pcie_replay_errors", "node6", "0000:19:00.0", None, None) in got
    assert ("nvlink_error", "node6", "0000:19:00.0", None, None) in got
    assert ("ib_link_flapping", "node7", None, "mlx5_0", "1") in got
    # the healthy peers stay out of it
    assert not {c for c in got if c[1] == "node6" and c[2] == "0000:18:00.0"}


def test_stopped_server_is_inconclusive_within_timeout():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    t0 = time.monotonic()
    report = diagnose_prometheus(url, at=INCIDENT_AT, timeout=2)
    assert time.monotonic() - t0 < 2.5
    assert report.verdict == "inconclusive" and "cannot reach Prometheus" in report.reason


def test_slow_server_is_inconclusive_within_timeout():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_hang():  # accepts, never answers
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass
    t = threading.Thread(target=accept_and_hang, daemon=True)
    t.start()
    try:
        t0 = time.monotonic()
        report = diagnose_prometheus(f"http://127.0.0.1:{srv.getsockname()[1]}", at=INCIDENT_AT, timeout=1)
        elapsed = time.monotonic() - t0
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        srv.close()
    assert elapsed < 2.0
    assert report.verdict == "inconclusive" and "did not answer" in report.reason and "within 1 s" in report.reason


def test_cli_json_and_exit_code(prom_url):
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", prom_url, "--at", str(INCIDENT_AT), "--window", "1h", "-f", "json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["source"] == {"kind": "prometheus", "path": prom_url}
    assert {f["cause"] for f in data["findings"]} >= {"gpu_fell_off_bus", "ib_port_down"}


def test_cli_stopped_server_exit_2_with_reason():
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", "http://127.0.0.1:9", "--timeout", "1"])
    assert res.exit_code == 2
    assert "cannot reach Prometheus" in res.stdout


@pytest.mark.parametrize("text,seconds", [("90s", 90), ("15m", 900), ("1h", 3600), ("7d", 604800), ("120", 120)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


def test_times():
    assert parse_time("2024-04-05T20:00:00Z") == 1712347200
    assert parse_time("1712347200") == 1712347200
    with pytest.raises(ValueError):
        parse_duration("0s")


@pytest.mark.parametrize("at,window", [(INCIDENT_AT, 3600), (T1 + 3600, 3600)], ids=["incident", "timeseries"])
def test_both_evaluators_agree_on_live_facts(prom_url, at, window):
    durable = diagnose_prometheus(prom_url, at=at, window_s=window, evaluator="durable")
    reference = diagnose_prometheus(prom_url, at=at, window_s=window, evaluator="reference")
    assert [f.model_dump() for f in durable.findings] == [f.model_dump() for f in reference.findings]


def test_healthy_screened_families_count_as_checked(prom_url):
    """A recovered fleet gives no GPU facts (the screens flag nothing), yet thermal and ECC were
    looked at: the decision tree does not list them as not checked; the population is counted."""
    live = diagnose_prometheus(prom_url, at=RECOVERED_AT, window_s=RECOVERED_WINDOW)
    assert live.verdict == "healthy"
    needs = {k for nc in live.not_checked for k in nc.needs}
    assert not needs & {"gpu_clock_reason", "gpu_ecc_count", "xid_event"}
