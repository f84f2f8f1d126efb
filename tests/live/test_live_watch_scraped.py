"""steth watch scraped by a real Prometheus: the recorded incident, replayed so that it ends
now, is served by a second Prometheus that also scrapes `steth watch` (started as a process
with --runs); the steth_finding series arrive there and the active-alerts dashboard queries
return them."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from promserver import ROOT, PromServer, free_port

from stethoscope.facts.live.prom import Prom


def steth() -> str:
    return shutil.which("steth", path=str(Path(sys.executable).parent)) or "steth"


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """A Prometheus holding the incident 70 min in (all three faults on), scraping :port."""
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        pytest.skip("the prometheus and promtool binaries are absent (tests/setup_venv.sh installs Debian's prometheus)")
    sys.path.insert(0, str(ROOT / "fixtures" / "series"))
    try:
        import make_series
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("scrape")
    now = int(time.time())
    om = folder / "replay.om"
    om.write_text(make_series.incident(t0=now - 70 * 60, until=now - 60))
    subprocess.run([shutil.which("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(om), str(folder / "data")],
                   check=True, capture_output=True, timeout=120)
    port = free_port()
    server = PromServer(folder / "data", folder, scrape=(f"127.0.0.1:{port}", "1s"))
    try:
        server.wait_ready()
        yield server.url, port
    finally:
        server.stop()


def test_findings_arrive_in_prometheus_and_on_the_dashboard(replay):
    url, port = replay
    proc = subprocess.Popen([steth(), "watch", "--prometheus", url, "--listen", f"127.0.0.1:{port}",
                             "--every", "1s", "--window", "1h", "--timeout", "5", "--runs", "40"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    prom = Prom(url, timeout=5)
    try:
        deadline = time.monotonic() + 40
        found: list[dict] = []
        while time.monotonic() < deadline and proc.poll() is None:
            found = prom.instant('steth_finding{job="steth"}', time.time())
            if {r["metric"]["cause"] for r in found} >= {"gpu_fell_off_bus", "gpu_thermal_slowdown", "ib_port_down"}:
                break
            time.sleep(0.5)
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        # Prometheus drops empty labels: an IB finding has no gpu label at all
        labels = {(r["metric"]["cause"], r["metric"]["node"], r["metric"].get("gpu") or r["metric"].get("hca")) for r in found}
        assert ("gpu_fell_off_bus", "node1", "0000:91:00.0") in labels
        assert ("gpu_thermal_slowdown", "node2", "0000:1c:00.0") in labels
        assert ("ib_port_down", "node3", "mlx5_1") in labels
        xid = next(r for r in found if r["metric"]["cause"] == "gpu_fell_off_bus")
        assert xid["metric"]["severity"] == "fatal" and xid["metric"]["instance"] == f"127.0.0.1:{port}"
        dash = json.loads((ROOT / "dashboards" / "active-alerts.json").read_text())
        for expr in [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]:
            assert prom.instant(expr, time.time()), f"active-alerts: no data for {expr}"
        verdict = prom.instant('steth_verdict{verdict="faulty"}', time.time())
        assert [float(r["value"][1]) for r in verdict] == [1.0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
