"""steth watch: findings appear on /metrics, clear when the series recover; memory stays flat."""
from __future__ import annotations

import gc
import tracemalloc
import urllib.request

from conftest import INCIDENT_AT, RECOVERED_AT
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from promserver import free_port

from stethoscope.engine.live.watch import Watcher


def samples(w: Watcher, name: str) -> list:
    text = generate_latest(w.registry).decode()
    return [s for fam in text_string_to_metric_families(text) for s in fam.samples if s.name == name]


def test_finding_shows_then_clears(prom_url):
    w = Watcher(prom_url, window_s=1800, timeout=5)
    w.run_once(at=INCIDENT_AT)
    active = samples(w, "steth_finding")
    xid = [s for s in active if s.labels["cause"] == "gpu_fell_off_bus"]
    assert len(xid) == 1 and xid[0].labels["node"] == "node1" and xid[0].labels["gpu"] == "0000:91:00.0"
    assert xid[0].labels["severity"] == "fatal" and xid[0].labels["component"] == "gpu"
    assert {s.labels["cause"] for s in active} >= {"gpu_thermal_slowdown", "ib_port_down"}
    assert [s.value for s in samples(w, "steth_verdict") if s.labels["verdict"] == "faulty"] == [1.0]
    w.run_once(at=RECOVERED_AT)
    # only the information that the fleet's exporters are of two versions stays
    assert {s.labels["cause"] for s in samples(w, "steth_finding")} == {"monitoring_exporter_versions_mixed"}
    assert [s.value for s in samples(w, "steth_verdict") if s.labels["verdict"] == "healthy"] == [1.0]
    assert samples(w, "steth_runs_total")[0].value == 2
    assert samples(w, "steth_last_run_duration_seconds")[0].value > 0
    assert samples(w, "steth_last_run_error")[0].value == 0


def test_errors_are_exposed():
    w = Watcher("http://127.0.0.1:9", window_s=600, timeout=1)
    w.run_once(at=INCIDENT_AT)
    assert samples(w, "steth_last_run_error")[0].value == 1
    assert samples(w, "steth_run_errors_total")[0].value == 1


def test_served_over_http(prom_url):
    w = Watcher(prom_url, window_s=1800, timeout=5)
    w.run_once(at=INCIDENT_AT)
    port = free_port()
    server, thread = w.serve("127.0.0.1", port)
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    finally:
        server.shutdown()
        thread.join()
    assert 'steth_finding{cause="gpu_fell_off_bus"' in body


def test_memory_flat_over_many_cycles(prom_url):
    w = Watcher(prom_url, window_s=1800, timeout=5)
    for at in (INCIDENT_AT, RECOVERED_AT) * 3:  # warm caches and rule sessions
        w.run_once(at=at)
        generate_latest(w.registry)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for at in (INCIDENT_AT, RECOVERED_AT) * 10:
        w.run_once(at=at)
        generate_latest(w.registry)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert grown < 2_000_000, f"watch kept {grown} bytes over 20 cycles"
