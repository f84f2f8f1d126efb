"""Every dashboard query returns data: from the recorded incident, or (for steth's own
series) from what `steth watch` exposes."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import INCIDENT_AT
from prometheus_client import generate_latest

from stethoscope.engine.watch import Watcher
from stethoscope.facts.live.prom import Prom

DASHBOARDS = sorted((Path(__file__).resolve().parents[2] / "dashboards").glob("*.json"))


def queries(path: Path) -> list[str]:
    doc = json.loads(path.read_text())
    return [t["expr"] for p in doc["panels"] for t in p.get("targets", [])]


def test_there_are_three_dashboards_with_queries():
    assert {p.stem for p in DASHBOARDS} == {"cluster-overview", "node-detail", "active-alerts"}
    assert all(queries(p) for p in DASHBOARDS)


@pytest.mark.parametrize("path", [p for p in DASHBOARDS if p.stem != "active-alerts"], ids=lambda p: p.stem)
def test_exporter_queries_return_data(prom_url, path):
    prom = Prom(prom_url, timeout=5)
    for expr in queries(path):
        expr = expr.replace("$node", "node3")  # the node variable, as Grafana fills it
        assert prom.instant(expr, INCIDENT_AT), f"{path.name}: no data for {expr}"


def test_active_alerts_queries_name_what_watch_exposes(prom_url):
    w = Watcher(prom_url, window_s=1800, timeout=5)
    w.run_once(at=INCIDENT_AT)
    exposed = generate_latest(w.registry).decode()
    for expr in queries(DASHBOARDS[0].parent / "active-alerts.json"):
        for name in re.findall(r"\bsteth_[a-z_]+", expr):
            assert re.search(rf"^{name}(\{{| )", exposed, re.M), f"{name} is not exposed by steth watch"
