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

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from stethoscope.engine.live.observe import DEFAULT_RUN_TIMEOUT_S, diagnose_server
from stethoscope.engine.ruleengine.loader import RuleSet, load_rules
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


#: a cycle that takes more than this share of its deadline counts as slow: the next waits longer
SLOW_SHARE = 0.8
DEFAULT_MAX_BACKOFF_S = 600.0


class Watcher:
    """One cycle at a time, each within its deadline, slower when the server is.

    - **deadline**: a cycle's queries all end within ``cycle_timeout`` (default: the interval
      given to :meth:`loop`): the Prom client's run deadline shuts the sockets of queries still
      running, so Prometheus stops evaluating them too (it cancels a query whose client left);
    - **one in flight**: :meth:`run_once` refuses to start while another cycle runs (it returns
      None), and a cycle returns only once none of its queries is left running;
    - **backoff**: after a cycle that failed on a deadline or used most of it, the next one
      waits an extra interval, doubling up to ``max_backoff_s``; a quick, good cycle resets it;
    - its own health on ``/metrics``: ``steth_watch_cycle_duration_seconds`` (histogram),
      ``steth_watch_queries_total``, ``steth_watch_cycle_errors_total``, ``steth_watch_backoff_seconds``,
      ``steth_watch_cycles_refused_total``, ``steth_watch_cycle_in_flight``, next to the findings.
    """

    def __init__(self, url: str, window_s: int, timeout: float, ruleset: RuleSet | None = None,
                 registry: CollectorRegistry | None = None, access: Access | None = None,
                 cycle_timeout: float | None = None, max_backoff_s: float = DEFAULT_MAX_BACKOFF_S):
        self.url, self.window_s, self.timeout = url, window_s, timeout
        self.access = access  # TLS, credentials, --selector, --node-label (facts/live/access.py)
        self.cycle_timeout, self.max_backoff_s = cycle_timeout, max_backoff_s
        self.ruleset = ruleset or load_rules()
        self.registry = registry or CollectorRegistry()
        self.collector = FindingsCollector()
        self.registry.register(self.collector)
        self.backoff_s = 0.0
        self._cycle = threading.Lock()
        r = self.registry
        self.m_duration = Histogram("steth_watch_cycle_duration_seconds", "How long each watch cycle took",
                                    buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300), registry=r)
        self.m_queries = Counter("steth_watch_queries", "Requests watch sent to Prometheus", registry=r)
        self.m_errors = Counter("steth_watch_cycle_errors", "Cycles that could not read Prometheus (deadline, refused, unreachable)",
                                registry=r)
        self.m_refused = Counter("steth_watch_cycles_refused", "Cycles not started because one was still in flight", registry=r)
        self.m_backoff = Gauge("steth_watch_backoff_seconds", "Extra wait before the next cycle, the server being slow", registry=r)
        self.m_in_flight = Gauge("steth_watch_cycle_in_flight", "1 while a cycle runs", registry=r)
        self.m_deadline = Gauge("steth_watch_cycle_deadline_seconds", "The deadline of each cycle", registry=r)

    def deadline(self, every_s: float | None = None) -> float:
        if self.cycle_timeout is not None:
            return self.cycle_timeout
        return every_s if every_s is not None else DEFAULT_RUN_TIMEOUT_S

    def run_once(self, at: float | None = None, every_s: float | None = None) -> Report | None:
        """One cycle; None when another is still in flight (it is not queued)."""
        if not self._cycle.acquire(blocking=False):
            self.m_refused.inc()
            return None
        try:
            self.m_in_flight.set(1)
            deadline = self.deadline(every_s)
            self.m_deadline.set(deadline)
            started = time.time()
            t0 = time.monotonic()
            report, queries = diagnose_server(self.url, at=at, window_s=self.window_s, timeout=min(self.timeout, deadline),
                                              ruleset=self.ruleset, access=self.access, run_timeout=deadline)
            took = time.monotonic() - t0
            self.collector.update(report, started, took)
            self.m_duration.observe(took)
            self.m_queries.inc(queries)
            failed = report.verdict == "inconclusive" and report.reason is not None and not report.coverage.files
            if failed:
                self.m_errors.inc()
            slow = (failed and "did not answer" in (report.reason or "")) or took > SLOW_SHARE * deadline
            interval = every_s if every_s is not None else deadline
            self.backoff_s = min(self.max_backoff_s, max(interval, 2 * self.backoff_s)) if slow else 0.0
            self.m_backoff.set(self.backoff_s)
            return report
        finally:
            self.m_in_flight.set(0)
            self._cycle.release()

    def serve(self, host: str, port: int):
        return start_http_server(port, addr=host, registry=self.registry)

    def loop(self, every_s: float, stop: Callable[[], bool] = lambda: False,
             on_report: Callable[[Report], None] = lambda r: None, sleep: Callable[[float], None] = time.sleep) -> None:
        """Cycles every ``every_s`` (plus the backoff), one at a time, until ``stop()``."""
        while not stop():
            started = time.monotonic()
            report = self.run_once(every_s=every_s)
            if report is not None:
                on_report(report)
            sleep(max(0.0, every_s - (time.monotonic() - started)) + self.backoff_s)
