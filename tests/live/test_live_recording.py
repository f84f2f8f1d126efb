"""steth rules export --format recording-rules: promtool accepts the file; a Prometheus that
evaluates it holds the screens' flagged series, and diagnose reads them (one query for every
screen) and finds what it finds when it screens by itself."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time

import pytest
from promserver import ROOT, PromServer
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live import observe as live
from stethoscope.engine.live.observe import diagnose_prometheus
from stethoscope.facts.live.prom import LiveError, Prom

promtool = shutil.which("promtool")


def export(tmp_path, *args: str):
    out = tmp_path / "steth-recording.rules.yml"
    res = CliRunner().invoke(app, ["rules", "export", "--format", "recording-rules", "-o", str(out), *args])
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.skipif(promtool is None, reason="promtool is absent (tests/setup_venv.sh installs Debian's prometheus)")
def test_promtool_accepts_the_recording_rules(tmp_path):
    out = export(tmp_path, "--window", "30m", "--interval", "30s")
    text = out.read_text()
    assert "record: steth:screen:1800s" in text and "record: steth:plan:1800s" in text and "interval: 30s" in text
    res = subprocess.run([promtool, "check", "rules", str(out)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The incident replayed so that it is on now, served by a Prometheus evaluating the recording rules."""
    if not (shutil.which("prometheus") and promtool):
        pytest.skip("the prometheus and promtool binaries are absent (tests/setup_venv.sh installs Debian's prometheus)")
    sys.path.insert(0, str(ROOT / "fixtures" / "series"))
    try:
        import make_series
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("recording")
    now = int(time.time())
    om = folder / "replay.om"
    om.write_text(make_series.incident(t0=now - 70 * 60, until=now))
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(om), str(folder / "data")],
                   check=True, capture_output=True, timeout=120)
    rules = export(folder, "--window", "1h", "--interval", "1s")
    server = PromServer(folder / "data", folder, rules=rules)
    try:
        server.wait_ready()
        prom = Prom(server.url, timeout=5)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the first evaluation of the recording rules
            try:
                if prom.rows("steth:plan:3600s", time.time()):
                    break
            except LiveError:  # 503 while the TSDB still opens
                pass
            time.sleep(0.5)
        yield server.url
    finally:
        server.stop()


def test_diagnose_reads_the_recorded_screens(recorded, monkeypatch):
    sent: list[str] = []
    real = Prom._ask

    def ask(self, query, at, fetch=None, **kw):
        sent.append(query)
        return real(self, query, at, fetch, **kw)
    monkeypatch.setattr(Prom, "_ask", ask)
    at = time.time()
    used = diagnose_prometheus(recorded, at=at, window_s=3600)
    with_recording = list(sent)
    sent.clear()
    monkeypatch.setattr(live, "plan_id", lambda plan: "another-rule-set")  # the marker no longer matches
    itself = diagnose_prometheus(recorded, at=at, window_s=3600)
    # the recorded run asks one query for every screen instead of screening the fleet
    assert "steth:screen:3600s or steth:node_mean:3600s" in with_recording
    assert not any("steth_screen" in q for q in with_recording)
    assert any('"steth_screen"' in q for q in sent) and "steth:screen:3600s or steth:node_mean:3600s" not in sent
    assert used.verdict == itself.verdict == "faulty"
    key = lambda r: sorted((f.rule, f.entity.node, f.entity.gpu, f.entity.hca) for f in r.findings)  # noqa: E731
    assert key(used) == key(itself)
    assert {f.cause for f in used.findings} >= {"gpu_fell_off_bus", "gpu_thermal_slowdown", "ib_port_down"}
