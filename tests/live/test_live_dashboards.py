"""The Grafana dashboards: generated with the mapped node label (never built on instance
alone), fleet panels aggregated per node, a steth findings panel, provisioning files that
name the dashboards' data source type and folder; EVERY panel and variable query is run
against the test Prometheus: valid, and the exporter ones return data."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from conftest import INCIDENT_AT
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live.dashboards import render
from stethoscope.facts.live.prom import Prom

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = sorted((ROOT / "dashboards").glob("*.json"))
#: Grafana's built-in variables, as it fills them in
GRAFANA = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h"}


def queries(path: Path) -> list[str]:
    doc = json.loads(path.read_text())
    out = [t["expr"] for p in doc["panels"] for t in p.get("targets", [])]
    for v in doc["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            out.append(re.fullmatch(r"query_result\((.*)\)", q, re.S).group(1))
    return out


def fill(expr: str, node: str = "node3") -> str:
    for k, v in GRAFANA.items():
        expr = expr.replace(k, v)
    return expr.replace("$node", node)


def test_the_files_are_the_generator_output():
    assert {p.name for p in DASHBOARDS} == set(render())
    for p in DASHBOARDS:
        assert p.read_text() == render()[p.name], f"{p.name}: regenerate with steth dashboards export --out dashboards"


def test_node_variable_uses_the_node_labels_not_instance_alone():
    node = json.loads((ROOT / "dashboards" / "node-detail.json").read_text())
    var = next(v for v in node["templating"]["list"] if v["name"] == "node")
    q = var["query"]["query"]
    for label in ("Hostname", "hostname", "kubernetes_node", "node"):
        assert f'"{label}"' in q
    assert "label_values(DCGM_FI_DEV_GPU_TEMP, instance)" not in q
    # --node-label puts the operator's label in the variable and the panels
    res = CliRunner().invoke(app, ["dashboards", "export", "--out", "/dev/null/x", "--node-label", "k8s_node"])
    assert res.exit_code == 3
    got = json.loads(render(("k8s_node",))["node-detail.json"])
    exprs = [t["expr"] for p in got["panels"] for t in p["targets"] if "DCGM" in t["expr"]]
    assert exprs and all('k8s_node="$node"' in e and "Hostname" not in e for e in exprs)
    var = next(v for v in got["templating"]["list"] if v["name"] == "node")["query"]["query"]
    assert '"k8s_node"' in var and "Hostname" not in var


def test_fleet_panels_are_aggregated_per_node():
    doc = json.loads((ROOT / "dashboards" / "cluster-overview.json").read_text())
    assert not [p for p in doc["panels"] if p["type"] == "heatmap"]
    for p in doc["panels"]:
        for t in p["targets"]:
            e = t["expr"]
            # a bare exporter series would draw one row per GPU: every fleet query aggregates
            assert re.match(r"^(quantile|max|topk|bottomk|count|sum|avg)\b", e), (p["title"], e)
    assert any("steth_finding" in t["expr"] for p in doc["panels"] for t in p["targets"])


def test_provisioning_files():
    ds = yaml.safe_load((ROOT / "dashboards/provisioning/datasources/steth-prometheus.yaml").read_text())
    assert ds["apiVersion"] == 1 and ds["datasources"][0]["type"] == "prometheus"
    assert ds["datasources"][0]["url"] == "${STETH_PROMETHEUS_URL}"  # no address or secret in the file
    prov = yaml.safe_load((ROOT / "dashboards/provisioning/dashboards/steth.yaml").read_text())
    assert prov["apiVersion"] == 1 and prov["providers"][0]["type"] == "file" and prov["providers"][0]["options"]["path"]
    for p in DASHBOARDS:  # every panel asks the data source the provisioned one stands for
        doc = json.loads(p.read_text())
        assert all(panel["datasource"]["type"] == "prometheus" for panel in doc["panels"])


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.stem)
def test_every_query_is_valid_promql_on_the_test_prometheus(prom_url, path):
    prom = Prom(prom_url, timeout=10)
    for expr in queries(path):
        prom.instant(fill(expr), INCIDENT_AT)  # raises LiveError on a query the server refuses


@pytest.mark.parametrize("path", [p for p in DASHBOARDS if p.stem != "active-alerts"], ids=lambda p: p.stem)
def test_exporter_queries_return_data(prom_url, path):
    prom = Prom(prom_url, timeout=10)
    for expr in queries(path):
        if "steth_" in expr.replace("steth_node", ""):
            continue  # steth watch's own series: tests/live/test_live_watch_scraped.py
        node = "node1" if "XID" in expr else "node3"
        assert prom.instant(fill(expr, node), INCIDENT_AT), f"{path.name}: no data for {expr}"


def test_node_variable_lists_every_node(prom_url):
    prom = Prom(prom_url, timeout=10)
    q = queries(ROOT / "dashboards" / "node-detail.json")[-1]
    nodes = {r["metric"]["steth_node"] for r in prom.instant(q, INCIDENT_AT)}
    assert {"node1", "node2", "node3"} <= nodes and not any(":" in n for n in nodes)
