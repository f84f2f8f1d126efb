"""Alertmanager notifications as m-lab/alertmanager-github-receiver files them (real samples:
fixtures/artefacts/alertmanager_notification/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import alertmanager_notification as am
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "alertmanager_notification"


def _parse(text: str, node: str = "n1"):
    assert am.detect(text)
    res = am.parse(Artefact(path="notification.txt", text=text, node=node))
    assert not res.errors
    return res


def test_real_disk_running_full_firing_64():
    res = _parse((FIX / "mlab_prometheus_support64_disk_running_full.txt").read_text())
    (a,) = res.facts
    assert (a.kind, a.evidence.line, a.alertname, a.state, a.firing, a.severity_label) == (
        "alertmanager_alert", 3, "test DiskRunningFull2", "firing", True, "page")
    assert (a.node, a.subject, a.component, a.gpu) == ("example2", "node", "host", None)
    assert a.labels == "alertname=test DiskRunningFull2, dev=sda1, instance=example2, severity=page"
    assert a.summary == "please check the instance example1"
    assert res.lines_used == 10  # the URL line, the alert, two section headers, four labels, two annotations


def test_real_alert_with_generator_url_2():
    (a,) = _parse((FIX / "rbo_sandbox2_alert1.txt").read_text()).facts
    assert (a.alertname, a.state, a.severity_label, a.summary, a.node) == ("Alert1", "firing", "page", "2 is more than 1", "n1")


def test_resolved_gpu_and_port_alerts_and_a_cut_block():
    text = ("Alertmanager URL: http://am:9093\n\n"
            "  * resolved http://prom:9090/graph?g0.expr=x\n    Labels:\n"
            "    - alertname = GpuXidError\n    - Hostname = gpu-node-3\n    - gpu = 2\n"
            '    - pci_bus_id = 00000000:A1:00.0\n    - severity = critical\n'
            "  * firing\n    Labels:\n    - alertname = IbPortDown\n    - device = mlx5_0\n"
            "    - instance = ib-node-1:9100\n    - port = 1\n"
            "  * firing\n    Labels:\n")
    gpu, port = _parse(text).facts
    assert (gpu.state, gpu.firing, gpu.node, gpu.subject, gpu.component, gpu.gpu) == (
        "resolved", False, "gpu-node-3", "gpu", "gpu", "0000:a1:00.0")
    assert (port.node, port.subject, port.component, port.severity_label) == ("ib-node-1", "ib_port", "network", "")


def test_near_misses():
    assert not am.detect("Alertmanager is not reachable\n  * firing\n")
    # a list item of a README that only looks like a label row, outside an alert block
    res = _parse("Alertmanager URL: http://am:9093\n\n- alertname = X\n")
    assert res.facts == []
