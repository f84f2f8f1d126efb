"""node_exporter's own report that its InfiniBand collector failed (real lines: prometheus/node_exporter#966,
prometheus-operator/prometheus-operator#2056); its metrics exposition stays test_ib_parsers.py's."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import node_exporter_ib as N
from stethoscope.facts.parsers.base import Artefact


def parse(text):
    return N.parse(Artefact(path="node_exporter.log", text=text, node="n1"))


@pytest.mark.parametrize("text,line", [
    # node_exporter 0.16 under journald (prometheus/node_exporter#966: an i40iw port beside two Mellanox cards)
    ('Jun 07 13:33:24 hostname node_exporter[81888]: time="2018-06-07T13:33:24+02:00" level=error msg="ERROR: infiniband '
     'collector failed after 0.000929s: strconv.ParseUint: parsing \\"N/A (no PMA)\\": invalid syntax" source="collector.go:132"\n', 1),
    # kubectl logs of the exporter's pod, v0.15.2 on Azure (prometheus-operator/prometheus-operator#2056)
    ('\t❯ k logs prometheus-prometheus-node-exporter-9bqsk\n\ttime="2018-10-26T14:08:09Z" level=error msg="ERROR: infiniband collector '
     'failed after 0.001891s: strconv.ParseUint: parsing \\"N/A (no PMA)\\": invalid syntax" source="collector.go:132"\n', 2),
])
def test_no_pma_failure_real_lines(text, line):
    assert N.detect(text)
    res = parse(text)
    (f,) = res.facts
    assert (f.kind, f.evidence.line, f.exporter, f.collector, f.counter_unavailable) == (
        "exporter_collector_failed", line, "node_exporter", "infiniband", True)
    assert f.error == 'strconv.ParseUint: parsing "N/A (no PMA)": invalid syntax'


def test_go_kit_form_of_later_releases():
    # collector.go 0.17+: level.Error(logger).Log("msg", "collector failed", "name", name, "duration_seconds", ..., "err", err),
    # filled in (timestamp, duration and error invented)
    text = ('level=error ts=2019-01-01T00:00:00.000Z caller=collector.go:132 msg="collector failed" name=infiniband '
            'duration_seconds=0.000929 err="open /sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data: permission denied"\n')
    assert N.detect(text)
    (f,) = parse(text).facts
    assert (f.collector, f.counter_unavailable, f.error) == (
        "infiniband", False, "open /sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data: permission denied")


@pytest.mark.parametrize("text", [
    'level=error ts=2019-01-01T00:00:00.000Z caller=collector.go:132 msg="collector failed" name=hwmon duration_seconds=0.01 err="x"\n',
    'time="2018-06-07T13:33:24+02:00" level=error msg="ERROR: textfile collector failed after 0.000929s: x" source="collector.go:132"\n',
    "Node exporter error strconv.ParseUint: parsing \\\"N/A (no PMA)\\\": invalid syntax\n",  # a title quoting the error
])
def test_other_collectors_and_quotes_are_not_read(text):
    assert not N.detect(text)
    assert parse(text).facts == []
