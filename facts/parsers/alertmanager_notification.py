"""An Alertmanager notification as a receiver wrote it, one alert block per alert: the issue body that
m-lab/alertmanager-github-receiver files (its default template, alerts/template.go ``DefaultAlertTmpl``:
``Alertmanager URL: {{.Data.ExternalURL}}``, per alert ``* {{.Status}} {{.GeneratorURL}}``, then
``Labels:`` and ``Annotations:`` with one ``- {{$key}} = {{$value}}`` row each, ending
``TODO: add graph url from annotations.``), which operators paste when the alert is the ticket.

Sample content (github.com/m-lab/prometheus-support/issues/64)::

    Alertmanager URL: http://localhost:9093

      * firing

        Labels:

        - alertname = test DiskRunningFull2
        - dev = sda1
        - instance = example2
        - severity = page

        Annotations:

        - info = The disk sda1 is running full

Facts: ``alertmanager_alert`` per alert block with an ``alertname`` label: its state (``firing`` or
``resolved``), its ``severity`` label, the labels as printed, the summary (``summary``, else
``description``, ``message`` or ``info`` annotation), the node its ``Hostname``/``hostname``/``node``/
``instance`` label names (the host part of ``instance``; else the file's), and what the labels name: a GPU
(``gpu``/``UUID``/``pci_bus_id`` labels or a ``DCGM_`` metric of dcgm-exporter), an InfiniBand port
(``device`` and ``port`` labels of node_exporter's InfiniBand collector) or the node. A block cut before its
``alertname`` says nothing. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.live import AlertmanagerAlert
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "alertmanager_notification"

# Alertmanager URL: http://localhost:9093
_HEAD = re.compile(r"^Alertmanager URL: \S+", re.M)
#   * firing http://example.com:9090/graph?g0.expr=...        (one alert: its status, then its generator URL)
_ALERT = re.compile(r"^\s*\* (?P<state>firing|resolved)\b")
#     - alertname = test DiskRunningFull2
_ROW = re.compile(r"^\s*- (?P<key>[A-Za-z_][A-Za-z0-9_]*) = (?P<value>(?:.*\S)?)\s*$")
#     Labels:        Annotations:
_SECTION = re.compile(r"^\s*(?P<name>Labels|Annotations):\s*$")
_SUMMARY_KEYS = ("summary", "description", "message", "info")
_NODE_KEYS = ("Hostname", "hostname", "node", "nodename", "instance")


def detect(head: str) -> bool:
    return "Alertmanager URL: " in head and _HEAD.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    blocks: list[tuple[int, str, dict, dict]] = []
    section: dict | None = None
    for n, line in enumerate(artefact.lines, 1):
        if _HEAD.match(line):
            result.lines_used += 1
        elif (m := _ALERT.match(line)) is not None:
            blocks.append((n, m["state"], {}, {}))
            section = None
            result.lines_used += 1
        elif blocks and (m := _SECTION.match(line)) is not None:
            section = blocks[-1][2] if m["name"] == "Labels" else blocks[-1][3]
            result.lines_used += 1
        elif section is not None and (m := _ROW.match(line)) is not None:
            section[m["key"]] = m["value"]
            result.lines_used += 1
    for n, state, labels, annotations in blocks:
        if "alertname" not in labels:
            continue
        subject, component, gpu = _subject(labels)
        host = next((labels[k] for k in _NODE_KEYS if labels.get(k)), None)
        if host is not None and host == labels.get("instance"):
            host = re.sub(r":\d+$", "", host)
        fb.add(AlertmanagerAlert, n, node=artefact.node_for(host) if host else artefact.node,
               alertname=labels["alertname"], state=state, firing=state == "firing",
               severity_label=labels.get("severity", ""), subject=subject, component=component, gpu=gpu,
               labels=", ".join(f"{k}={v}" for k, v in labels.items()),
               summary=next((annotations[k] for k in _SUMMARY_KEYS if annotations.get(k)), "")[:300])
    return result


def _subject(labels: dict) -> tuple[str, str, str | None]:
    """What the alert's labels name: a GPU (dcgm-exporter's labels), an IB port (node_exporter's), else the node."""
    bus = try_pci_bus_id(labels.get("pci_bus_id"))
    if bus or labels.get("UUID") or labels.get("gpu") is not None or labels.get("__name__", "").startswith("DCGM_"):
        gpu = bus or labels.get("UUID") or (f"GPU {labels['gpu']}" if labels.get("gpu") is not None else None)
        return "gpu", "gpu", gpu
    if labels.get("device") and labels.get("port"):
        return "ib_port", "network", None
    return "node", "host", None


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEAD,)
