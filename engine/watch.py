"""``steth watch``: re-diagnose a Prometheus on a schedule and expose the findings on
``/metrics`` for the alerting the operators already run.

The collector renders the *latest* report at scrape time, so a finding disappears as soon
as a run no longer finds it and nothing accumulates between runs (no labelled gauges left
behind: memory stays flat however many findings come and go).
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Iterator

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from stethoscope.engine.live import diagnose_prometheus
from stethoscope.engine.loader import RuleSet, load_rules
from stethoscope.engine.report import Report
from stethoscope.facts.live.access import Access

FINDING_LABELS = ("rule", "cause", "component", "severity", "role", "node", "gpu", "hca", "port", "link")


class FindingsCollector(Collector):
    def __init__(self) -> None:
        self.report: Report | None = None
        self.last_run = 0.0
        self.duration = 0.0
        self.runs = 0
        self.errors = 0
        self._lock = threading.Lock()

    def update(self, report: Report, started: float, duration: float) -> None:
        with self._lock:
            self.report, self.last_run, self.duration = report, started, duration
            self.runs += 1
            self.errors += report.reason is not None and report.verdict == "inconclusive"

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            report, last, dur, runs, errors = self.report, self.last_run, self.duration, self.runs, self.errors
        found = GaugeMetricFamily("steth_finding", "One series per active finding of the last run (value: confidence)",
                                  labels=FINDING_LABELS)
        for f in report.findings if report else []:
            e = f.entity
            found.add_metric([f.rule, f.cause, f.component, f.severity, f.role, e.node or "", e.gpu or "",
                              e.hca or "", "" if e.port is None else str(e.port), "-".join(e.link or [])], f.confidence)
        yield found
        verdict = GaugeMetricFamily("steth_verdict", "1 for the verdict of the last run", labels=["verdict"])
        for v in ("healthy", "faulty", "inconclusive"):
            verdict.add_metric([v], 1.0 if report is not None and report.verdict == v else 0.0)
        yield verdict
        yield GaugeMetricFamily("steth_last_run_timestamp_seconds", "When the last run started (Unix time)", value=last)
        yield GaugeMetricFamily("steth_last_run_duration_seconds", "How long the last run took", value=dur)
        yield GaugeMetricFamily("steth_last_run_error", "1 when the last run could not read Prometheus",
                                value=1.0 if report is not None and report.reason and report.verdict == "inconclusive" else 0.0)
        yield GaugeMetricFamily("steth_missing_signals", "Series the last run looked for and did not find",
                                value=len(report.missing_signals) if report else 0)
        yield CounterMetricFamily("steth_runs", "Diagnosis runs", value=runs)
        yield CounterMetricFamily("steth_run_errors", "Runs that could not read Prometheus", value=errors)


class Watcher:
    def __init__(self, url: str, window_s: int, timeout: float, ruleset: RuleSet | None = None,
                 registry: CollectorRegistry | None = None, access: Access | None = None):
        self.url, self.window_s, self.timeout = url, window_s, timeout
        self.access = access  # TLS, credentials, --selector, --node-label (facts/live/access.py)
        self.ruleset = ruleset or load_rules()
        self.registry = registry or CollectorRegistry()
        self.collector = FindingsCollector()
        self.registry.register(self.collector)

    def run_once(self, at: float | None = None) -> Report:
        started = time.time()
        t0 = time.monotonic()
        report = diagnose_prometheus(self.url, at=at, window_s=self.window_s, timeout=self.timeout, ruleset=self.ruleset,
                                     access=self.access)
        self.collector.update(report, started, time.monotonic() - t0)
        return report

    def serve(self, host: str, port: int):
        return start_http_server(port, addr=host, registry=self.registry)

    def loop(self, every_s: float, stop: Callable[[], bool] = lambda: False,
             on_report: Callable[[Report], None] = lambda r: None) -> None:
        while not stop():
            started = time.monotonic()
            on_report(self.run_once())
            time.sleep(max(0.0, every_s - (time.monotonic() - started)))
