"""One real Prometheus for the live tests, serving the recorded incidents (started once)."""
from __future__ import annotations

import shutil

import pytest

from promserver import PromServer, build_tsdb

T0 = 1712347200  # fixtures/series/make_series.py
T1 = T0 + 86400
INCIDENT_AT = T0 + 70 * 60  # all three faults present, none recovered yet
RECOVERED_AT = T0 + 3 * 3600  # the window below ends 105 min after recovery
RECOVERED_WINDOW = 1800


@pytest.fixture(scope="session")
def prom_url(tmp_path_factory):
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        pytest.skip("the prometheus and promtool binaries are absent (tests/setup_venv.sh installs Debian's prometheus)")
    folder = tmp_path_factory.mktemp("prom")
    server = PromServer(build_tsdb(folder), folder)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session", autouse=True)
def rules_loaded():
    """The shipped rules loaded once before any live test: the deadline tests time the queries
    against a slow, dripping or absent server, not the first import of the readers and the first
    parse of the rule files (~1.3 s, more on a busy CI host; engine/ruleengine/loader.py keeps
    each file's parse, so every later load only reads and checks them)."""
    from stethoscope.engine.ruleengine.loader import load_rules

    load_rules()
