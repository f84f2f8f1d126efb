"""steth rules export: promtool accepts the rule file and its tests pass (firing, clearing,
the labels inhibition compares); the alerts keep the hygiene an on-call rota expects; the
Alertmanager inhibition rules load in a real Alertmanager and silence what they should."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from promserver import free_port
from prometheus_client import generate_latest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.ruleengine.loader import load_rules
from stethoscope.engine.live.alert_rules import export, inhibit_rules
from stethoscope.engine.live.watch import Watcher

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
promtool = shutil.which("promtool")
alertmanager = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
needs_promtool = pytest.mark.skipif(promtool is None, reason="promtool is absent (tests/setup_venv.sh installs Debian's prometheus)")
needs_am = pytest.mark.skipif(alertmanager is None, reason="alertmanager is absent (tests/setup_venv.sh installs Debian's prometheus-alertmanager)")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("rules")
    res = CliRunner().invoke(app, ["rules", "export", "--format", "prometheus-rules", "-o", str(folder / "exported.rules.yml")])
    assert res.exit_code == 0, res.output
    shutil.copy(HERE / "prometheus_rules.test.yaml", folder / "rules.test.yaml")
    return folder


def alerts() -> list[dict]:
    doc = yaml.safe_load(export(load_rules()))
    return [r for g in doc["groups"] for r in g["rules"]]


def test_every_rule_with_promql_is_one_alert_and_no_two_alerts_ask_the_same():
    got = alerts()
    names = [a["alert"] for a in got]
    assert len(names) == len(set(names))
    for c in load_rules().rules:
        if c.rule.promql is not None:
            assert c.rule.promql.alert in names
    exprs = [" ".join(a["expr"].split()) for a in got]
    assert len(exprs) == len(set(exprs)), "two alerts with the same expression fire twice for one fault"
    # the generic Xid alert leaves out every code a rule alerts on
    generic = next(a for a in got if a["alert"] == "GPUXidError")
    for c in load_rules().rules:
        for code in re.findall(r"DCGM_FI_DEV_XID_ERRORS == (\d+)", c.rule.promql.expr if c.rule.promql else ""):
            assert f"unless DCGM_FI_DEV_XID_ERRORS == {code}" in generic["expr"]


def test_xid_alerts_are_windows_that_resolve():
    for a in alerts():
        if "DCGM_FI_DEV_XID_ERRORS" in a["expr"]:
            assert "changes(DCGM_FI_DEV_XID_ERRORS[" in a["expr"], a["alert"]


def test_severities_annotations_and_runbooks():
    for a in alerts():
        sev = a["labels"]["severity"]
        assert sev in ("critical", "warning", "info") or (a["alert"] == "StethFinding" and "fatal" in sev), a["alert"]
        assert {"summary", "description", "runbook_url"} <= set(a["annotations"]), a["alert"]
        book = a["annotations"]["runbook_url"]
        for path in re.findall(r"(?:knowledge|rules|docs)/[A-Za-z0-9_./-]+\.(?:yaml|md)", book) or [book.split("#")[0]]:
            assert (ROOT / path).is_file(), f"{a['alert']}: runbook {path} does not exist"
    finding = next(a for a in alerts() if a["alert"] == "StethFinding")
    assert 'role!="cascade"' in finding["expr"]  # one alert per fault: its cascades are not paged


def test_runbook_base_prefixes_every_runbook():
    doc = yaml.safe_load(export(load_rules(), runbook_base="https://git.example/steth/blob/main"))
    for g in doc["groups"]:
        for a in g["rules"]:
            assert a["annotations"]["runbook_url"].startswith("https://git.example/steth/blob/main/"), a["alert"]


def test_watch_alerts_name_series_watch_exposes(prom_url):
    from conftest import INCIDENT_AT

    w = Watcher(prom_url, window_s=1800, timeout=5)
    w.run_once(at=INCIDENT_AT)
    exposed = generate_latest(w.registry).decode()
    doc = yaml.safe_load(export(load_rules()))
    own = [a for g in doc["groups"] if g["name"] in ("steth-findings", "steth-watch") for a in g["rules"]]
    assert {a["alert"] for a in own} >= {"StethFinding", "StethWatchAbsent", "StethWatchStalled", "StethWatchFailing"}
    for a in own:
        for name in re.findall(r"\bsteth_[a-z_]+", a["expr"]):
            assert re.search(rf"^{name}(\{{| )", exposed, re.M), f"{a['alert']}: {name} is not exposed by steth watch"
    # every label the finding alert's templates read is a label of steth_finding
    labels = set(re.findall(r"\$labels\.([a-z_]+)", json.dumps(own[0]["annotations"])))
    line = next(ln for ln in exposed.splitlines() if ln.startswith("steth_finding{"))
    assert labels <= set(re.findall(r'([a-z_]+)="', line)), labels


@needs_promtool
def test_promtool_check_rules(exported):
    res = subprocess.run([promtool, "check", "rules", str(exported / "exported.rules.yml")], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


@needs_promtool
def test_promtool_test_rules(exported):
    res = subprocess.run([promtool, "test", "rules", "rules.test.yaml"], cwd=exported, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS" in res.stdout + res.stderr


def _post(url: str, body) -> None:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as r:
        assert r.status == 200


@needs_am
def test_inhibition_in_a_real_alertmanager(tmp_path):
    """A GPU that fell off the bus silences its own ECC and thermal alerts and its node's NCCL
    findings; another GPU's alerts and the source itself stay active."""
    res = CliRunner().invoke(app, ["rules", "export", "--format", "alertmanager-inhibit"])
    assert res.exit_code == 0, res.output
    config = {"route": {"receiver": "null"}, "receivers": [{"name": "null"}], **yaml.safe_load(res.stdout)}
    (tmp_path / "am.yml").write_text(yaml.safe_dump(config))
    amtool = shutil.which("amtool")
    if amtool:
        check = subprocess.run([amtool, "check-config", str(tmp_path / "am.yml")], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
    port, cport = free_port(), free_port()
    log = (tmp_path / "am.log").open("wb")
    proc = subprocess.Popen([alertmanager, f"--config.file={tmp_path / 'am.yml'}", f"--storage.path={tmp_path / 'data'}",
                             f"--web.listen-address=127.0.0.1:{port}", f"--cluster.listen-address=127.0.0.1:{cport}",
                             "--cluster.advertise-address=127.0.0.1:" + str(cport)], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/-/ready", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        gpu = {"Hostname": "node1", "gpu": "0", "pci_bus_id": "00000000:91:00.0"}
        other = {"Hostname": "node1", "gpu": "1", "pci_bus_id": "00000000:92:00.0"}
        finding = {"node": "node1", "gpu": "0000:91:00.0", "job": "steth"}
        hot = {"hostname": "node2", "gpu": "0", "pci_bus_id": "00000000:1C:00.0"}
        sent = {
            "fell_off": {"alertname": "GPUFellOffBus", "severity": "critical", "cause": "gpu_fell_off_bus", "component": "gpu", **gpu},
            "dbe_same_gpu": {"alertname": "GPUVolatileDBECount", "severity": "critical", "component": "gpu_memory", **gpu},
            "temp_same_gpu": {"alertname": "GPUTemperatureHigh", "severity": "warning", "component": "power_thermal", **gpu},
            "dbe_other_gpu": {"alertname": "GPUVolatileDBECount", "severity": "critical", "component": "gpu_memory", **other},
            "steth_fell_off": {"alertname": "StethFinding", "severity": "critical", "cause": "gpu_fell_off_bus", "component": "gpu", **finding},
            "steth_nccl": {"alertname": "StethFinding", "severity": "critical", "cause": "nccl_timeout", "component": "nccl", "node": "node1", "job": "steth"},
            "steth_nccl_other_node": {"alertname": "StethFinding", "severity": "critical", "cause": "nccl_timeout", "component": "nccl", "node": "node2", "job": "steth"},
            # node2's GPU: HW thermal slowdown silences its temperature alert; a critical ECC
            # alert silences the warning of its cause on that GPU, not another cause's
            "slowdown": {"alertname": "GPUClocksHWThermalSlowdown", "severity": "critical", "cause": "gpu_thermal_slowdown", "component": "power_thermal", **hot},
            "temp_hot_gpu": {"alertname": "GPUTemperatureHigh", "severity": "warning", "cause": "gpu_overheating", "component": "power_thermal", **hot},
            "dbe_hot_gpu": {"alertname": "GPUVolatileDBECount", "severity": "critical", "cause": "ecc_uncorrectable", "component": "gpu_memory", **hot},
            "spares_hot_gpu": {"alertname": "GPURowRemapSparesExhausted", "severity": "warning", "cause": "row_remap_failure", "component": "gpu_memory", **hot},
            "dbe_xid_warn_hot_gpu": {"alertname": "SomeECCWarning", "severity": "warning", "cause": "ecc_uncorrectable", "component": "gpu_memory", **hot},
            # steth's findings: same cause on another node stays, on the same GPU is silenced
            "steth_hot_crit": {"alertname": "StethFinding", "severity": "critical", "cause": "gpu_thermal_slowdown", "component": "power_thermal", "node": "node2", "gpu": "0000:1c:00.0"},
            "steth_hot_warn_same": {"alertname": "StethFinding", "severity": "warning", "cause": "gpu_thermal_slowdown", "component": "power_thermal", "node": "node2", "gpu": "0000:1c:00.0", "rule": "clocks_sw_thermal_slowdown"},
            "steth_hot_warn_other": {"alertname": "StethFinding", "severity": "warning", "cause": "gpu_thermal_slowdown", "component": "power_thermal", "node": "node5", "gpu": "0000:1c:00.0"},
        }
        _post(f"{base}/api/v2/alerts", [{"labels": {**v, "test_id": k}} for k, v in sent.items()])
        inhibited: dict[str, bool] = {}
        for _ in range(50):
            with urllib.request.urlopen(f"{base}/api/v2/alerts", timeout=5) as r:
                got = json.load(r)
            inhibited = {a["labels"]["test_id"]: bool(a["status"]["inhibitedBy"]) for a in got}
            if len(inhibited) == len(sent) and any(inhibited.values()):
                break
            time.sleep(0.2)
        assert inhibited == {"fell_off": False, "dbe_same_gpu": True, "temp_same_gpu": True, "dbe_other_gpu": False,
                             "steth_fell_off": False, "steth_nccl": True, "steth_nccl_other_node": False,
                             "slowdown": False, "temp_hot_gpu": True, "dbe_hot_gpu": False, "spares_hot_gpu": False,
                             "dbe_xid_warn_hot_gpu": True, "steth_hot_crit": False, "steth_hot_warn_same": True,
                             "steth_hot_warn_other": False}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_inhibit_rules_use_the_given_node_label():
    rules = inhibit_rules(load_rules(), ("kubernetes_node",))
    assert rules[0]["equal"] == ["kubernetes_node", "pci_bus_id"]
