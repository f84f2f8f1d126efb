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
