"""Patrol findings in node_exporter's textfile-collector format (prometheus-client's
``write_to_textfile``: written to a temporary file and renamed, so node_exporter never reads
half a file). Point node_exporter's ``--collector.textfile.directory`` at the folder.

Every series carries ``node`` (the patrolled node: one coordinator may write the file for
several, scraped with ``honor_labels``). Series::

    steth_patrol_status{node}                        0 ok, 1 problem, 2 unknown (node-problem-detector codes)
    steth_patrol_verdict{node,verdict}               1 for the run's verdict
    steth_patrol_last_run_timestamp_seconds{node}    when the run started
    steth_patrol_run_duration_seconds{node}
    steth_patrol_step_status{node,step,status}       1 per step (ok, failed, timeout, skipped)
    steth_patrol_step_duration_seconds{node,step}
    steth_patrol_findings{node,severity}             findings of the run's diagnosis
    steth_patrol_finding{node,rule,cause,component,severity}  1 per finding
    steth_patrol_<metric>{node,<metric's labels>}    every metric of knowledge/patrol.yaml
    steth_patrol_baseline_ratio{node,metric,series}  value / baseline, where compared
    steth_patrol_below_baseline{node,metric,series}  1 when worse than the baseline by more than its tolerance
"""
from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry, write_to_textfile
from prometheus_client.core import GaugeMetricFamily

from stethoscope.engine.patrol.run import NodeRecord
from stethoscope.engine.patrol.store import Comparison
from stethoscope.facts.knowledge import PatrolSuite

PREFIX = "steth_patrol_"
STEP_STATUSES = ("ok", "failed", "timeout", "skipped")
SEVERITIES = ("info", "warning", "critical", "fatal")


def _series(labels: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


class _Collector:
    def __init__(self, suite: PatrolSuite, records: list[NodeRecord], comparisons: list[Comparison]):
        self.suite, self.records, self.comparisons = suite, records, comparisons

    def collect(self):
        status = GaugeMetricFamily(PREFIX + "status", "Patrol result: 0 ok, 1 problem, 2 unknown (node-problem-detector codes)", labels=["node"])
        verdict = GaugeMetricFamily(PREFIX + "verdict", "1 for the verdict of the node's last patrol", labels=["node", "verdict"])
        when = GaugeMetricFamily(PREFIX + "last_run_timestamp_seconds", "Start of the node's last patrol (Unix time)", labels=["node"])
        took = GaugeMetricFamily(PREFIX + "run_duration_seconds", "Duration of the node's last patrol", labels=["node"])
        step = GaugeMetricFamily(PREFIX + "step_status", "1 for the status of each patrol step", labels=["node", "step", "status"])
        step_s = GaugeMetricFamily(PREFIX + "step_duration_seconds", "Duration of each patrol step", labels=["node", "step"])
        nfind = GaugeMetricFamily(PREFIX + "findings", "Findings of the patrol's diagnosis by severity", labels=["node", "severity"])
        find = GaugeMetricFamily(PREFIX + "finding", "1 for each finding of the patrol's diagnosis",
                                 labels=["node", "rule", "cause", "component", "severity"])
        from datetime import datetime

        for r in self.records:
            status.add_metric([r.node], r.problem)
            verdict.add_metric([r.node, r.verdict], 1)
            try:
                when.add_metric([r.node], datetime.fromisoformat(r.started_at).timestamp())
            except ValueError:
                pass
            took.add_metric([r.node], r.seconds)
            for s in r.steps:
                step.add_metric([r.node, s.step, s.status], 1)
                step_s.add_metric([r.node, s.step], s.seconds)
            for sev in SEVERITIES:
                nfind.add_metric([r.node, sev], sum(f["severity"] == sev for f in r.findings))
            seen = set()
            for f in r.findings:
                key = (r.node, f["rule"], f["cause"], f["component"], f["severity"])
                if key not in seen:
                    seen.add(key)
                    find.add_metric(list(key), 1)
        yield from (status, verdict, when, took, step, step_s, nfind, find)
        for s in self.suite.steps:
            for spec in s.metrics:
                fam = GaugeMetricFamily(PREFIX + spec.name, f"{spec.help} ({spec.unit})", labels=["node", *spec.labels])
                for r in self.records:
                    for m in r.metrics:
                        if m.metric == spec.name:
                            fam.add_metric([r.node, *(m.labels.get(k, "") for k in spec.labels)], m.value)
                yield fam
        ratio = GaugeMetricFamily(PREFIX + "baseline_ratio", "Metric value over its patrol baseline", labels=["node", "metric", "series"])
        below = GaugeMetricFamily(PREFIX + "below_baseline", "1 when a metric is worse than its baseline by more than its tolerance",
                                  labels=["node", "metric", "series"])
        for c in self.comparisons:
            key = [c.node, c.metric, _series(c.labels)]
            if c.ratio is not None:
                ratio.add_metric(key, c.ratio)
            below.add_metric(key, 1 if c.below else 0)
        yield from (ratio, below)


def write_textfile(path: Path, suite: PatrolSuite, records: list[NodeRecord], comparisons: list[Comparison]) -> Path:
    """Write ``path`` (``<dir>/steth_patrol.prom``) atomically."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(suite, records, comparisons))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(path), registry)
    return path
