"""Prometheus node_exporter's InfiniBand collector, as text exposition in a metrics dump
(``curl -s node:9100/metrics``, or a saved scrape).

Sample content (prometheus/node_exporter collector/fixtures/e2e-output.txt)::

    # HELP node_infiniband_state_id State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, 5: act defer)
    node_infiniband_state_id{device="rocep1s0f0",port="1"} 4
    node_infiniband_physical_state_id{device="roceP2p1s0f1",port="1"} 3
    node_infiniband_rate_bytes_per_second{device="rocep1s0f0",port="1"} 2.5e+10
    node_infiniband_symbol_error_total{device="rocep1s0f0",port="1"} 0
    node_infiniband_link_downed_total{device="rocep1s0f0",port="1"} 0

Facts, per (device, port, sample timestamp): ``ib_port`` (evidence: the ``state_id`` line;
rate in Gb/s = bytes/s x 8 / 1e9) and ``ib_port_counters`` (evidence: the first counter
line). A dump with optional millisecond timestamps after the value gives one reading per
timestamp, so two scrapes in one file give rates. Other series are not read. A
``node_infiniband_*`` sample whose value is not a number is a ParseError.

node_exporter's own log line when the InfiniBand collector fails (logrus up to 0.16, collector.go
``log.Errorf("ERROR: %s collector failed after %fs: %s", ...)``; go-kit log from 0.17,
``level.Error(logger).Log("msg", "collector failed", "name", name, "duration_seconds", ..., "err", err)``;
the real line, prometheus/node_exporter#966, an Intel i40iw iWARP port whose sysfs counters read
``N/A (no PMA)``)::

    Jun 07 13:33:24 hostname node_exporter[81888]: time="2018-06-07T13:33:24+02:00" level=error msg="ERROR: infiniband collector failed after 0.000929s: strconv.ParseUint: parsing \"N/A (no PMA)\": invalid syntax" source="collector.go:132"

gives ``exporter_collector_failed`` (collector ``infiniband``, the error, and whether it quotes sysfs'
``N/A (no PMA)``); other collectors' failures are not this reader's.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict

from stethoscope.facts.kinds.network import ExporterCollectorFailed
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.ib_facts import PHYS_STATES, STATES, IbPort, IbPortCounters, port_id

KIND = "node_exporter_ib"

# node_infiniband_symbol_error_total{device="rocep1s0f0",port="1"} 0
# node_infiniband_rate_bytes_per_second{device="mlx5_0",port="1"} 2.5e+10 1709632800000
_SAMPLE = re.compile(
    r'^node_infiniband_(?P<name>\w+)\{(?P<labels>[^}]*)\}\s+(?P<value>\S+)(?:\s+(?P<ts>\d+))?\s*$', re.M
)
_LABEL = re.compile(r'(\w+)="([^"]*)"')
_DETECT = re.compile(r"^node_infiniband_\w+\{[^}]*device=", re.M)
# ... level=error msg="ERROR: infiniband collector failed after 0.000929s: strconv.ParseUint: parsing \"N/A (no PMA)\": invalid syntax" source="collector.go:132"
#   (prometheus/node_exporter#966, node_exporter 0.15/0.16's logrus; prometheus-operator/prometheus-operator#2056 the same on Azure)
# level=error ts=2019-01-01T00:00:00.000Z caller=collector.go:132 msg="collector failed" name=infiniband duration_seconds=0.000929 err="..."
#   (0.17+ go-kit log: collector.go level.Error(logger).Log("msg", "collector failed", "name", name, "duration_seconds", ..., "err", err), filled)
_FAILED = re.compile(
    r"\binfiniband collector failed after \d{1,6}(?:\.\d{1,9})?s: (?P<err>[^\n]{1,300}?)\"?(?: source=\S{1,80})?[ \t\r]*$"
    r"|\bmsg=\"?collector failed\"? name=infiniband\b[^\n]{0,120}? err=\"(?P<err2>[^\n]{1,300}?)\"[ \t\r]*$", re.M)
_NO_PMA = "N/A (no PMA)"

_COUNTERS = {
    "symbol_error_total": "symbol_errors",
    "link_error_recovery_total": "link_error_recovery",
    "link_downed_total": "link_downed",
    "port_errors_received_total": "rcv_errors",
    "port_receive_remote_physical_errors_total": "rcv_remote_physical_errors",
    "port_discards_transmitted_total": "xmit_discards",
    "local_link_integrity_errors_total": "local_link_integrity_errors",
    "excessive_buffer_overrun_errors_total": "excessive_buffer_overrun_errors",
}


def detect(head: str) -> bool:
    if "infiniband collector failed" in head or "collector failed" in head and "name=infiniband" in head:
        return _FAILED.search(head) is not None
    return "node_infiniband_" in head and bool(_DETECT.search(head))  # a cheap gate


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    ports: dict[tuple[str, int, str], dict] = defaultdict(dict)
    order: list[tuple[str, int, str]] = []
    for n, m in iter_matches(_SAMPLE, artefact):
        labels = dict(_LABEL.findall(m["labels"]))
        if "device" not in labels or "port" not in labels:
            continue
        try:
            value = float(m["value"])
        except ValueError:
            fb.error(n, f"node_exporter: value {m['value']!r} of node_infiniband_{m['name']} is not a number")
            continue
        if not math.isfinite(value):  # NaN, +Inf: no state, rate or count
            fb.error(n, f"node_exporter: value {m['value']!r} of node_infiniband_{m['name']} is not a finite number")
            continue
        if not labels["port"].isdecimal():
            fb.error(n, f"node_exporter: port {labels['port']!r} of node_infiniband_{m['name']} is not a port number")
            continue
        key = (labels["device"], int(labels["port"]), m["ts"] or "")
        if key not in ports:
            order.append(key)
        entry = ports[key]
        name = m["name"]
        if name == "state_id":
            entry["state"], entry["state_line"] = STATES.get(int(value), str(int(value))), n
        elif name == "physical_state_id":
            entry["physical_state"] = PHYS_STATES.get(int(value), str(int(value)))
        elif name == "rate_bytes_per_second":
            entry["rate_gbps"] = round(value * 8 / 1e9, 3)
        elif name in _COUNTERS:
            entry.setdefault("counters", {})[_COUNTERS[name]] = int(value)
            entry.setdefault("counter_line", n)
        else:
            continue
        result.lines_used += 1
    if "collector failed" in artefact.text:
        for n, m in iter_matches(_FAILED, artefact):
            err = (m["err"] or m["err2"]).strip().replace('\\"', '"')
            result.lines_used += 1
            fb.add(ExporterCollectorFailed, n, exporter="node_exporter", collector="infiniband", error=err,
                   counter_unavailable=_NO_PMA in err)
    readings: dict[tuple[str, int], int] = defaultdict(int)
    for key in order:
        dev, port, ts = key
        e = ports[key]
        pid = port_id(artefact.node, dev, port)
        if "state_line" in e:
            fb.add(IbPort, e["state_line"], hca=dev, port=port, port_id=pid, state=e["state"], physical_state=e.get("physical_state"),
                   rate_gbps=e.get("rate_gbps"), source="node_exporter")
        if "counters" in e:
            fb.add(IbPortCounters, e["counter_line"], hca=dev, port=port, port_id=pid, reading=readings[(dev, port)],
                   time_s=int(ts) / 1000 if ts else None, source="node_exporter", **e["counters"])
            readings[(dev, port)] += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, r"\binfiniband collector failed after \d", r"\bmsg=\"?collector failed\"? name=infiniband\b")
