"""Talking to Prometheus: one range-vector query per metric family for the whole fleet.

``METRIC[1h]`` evaluated at ``at`` returns every raw sample of every series of the family in
the window, so the latest value (for the parser-shaped facts) and the history (for the
time-series facts) come from one request. Every request has an explicit timeout and no
retries, so a stopped or hung server costs at most ``timeout`` seconds per query.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import requests
from prometheus_api_client import PrometheusApiClientException, PrometheusConnect
from urllib3.util.retry import Retry

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.model import Evidence


class LiveError(Exception):
    """Prometheus could not be read: the reason, in words, for an inconclusive report."""


@dataclass
class Series:
    """One series of a family: its labels, samples (ts, value) oldest first, its row in the answer."""

    query: str
    row: int  # 1-based position in the query's answer: the evidence "line"
    labels: dict[str, str]
    samples: list[tuple[float, float]]
    at: float | None = None  # summarised series: the evaluation time of the query
    stats: dict[str, float] = field(default_factory=dict)  # steth_stat -> value (promql.py)

    @property
    def metric(self) -> str:
        return self.labels.get("__name__", "")

    @property
    def node(self) -> str:
        # dcgm-exporter < 3.3 says Hostname, newer ones hostname; node_exporter has neither
        host = self.labels.get("Hostname") or self.labels.get("hostname")
        if host:
            return host
        inst = self.labels.get("instance", "")
        return inst.rsplit(":", 1)[0] if inst else "unknown"

    @property
    def gpu(self) -> str | None:
        return try_pci_bus_id(self.labels.get("pci_bus_id"))

    @property
    def last(self) -> tuple[float, float]:
        return self.samples[-1]

    def sample_text(self, ts: float, value: float) -> str:
        keep = {k: v for k, v in sorted(self.labels.items()) if k != "__name__"}
        lab = ",".join(f'{k}="{v}"' for k, v in keep.items())
        val = int(value) if value == int(value) else value
        return f"{self.metric}{{{lab}}} {val} @{ts:.0f} ({time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(ts))})"

    def evidence(self, ts: float | None = None, value: float | None = None) -> Evidence:
        if ts is None:
            ts, value = self.last
        return Evidence(path=self.query, line=self.row, text=self.sample_text(ts, value))

    def stat_evidence(self, *names: str) -> Evidence:
        """The statistics the server computed over the window, as the query returned them:
        ``DCGM_FI_DEV_GPU_TEMP{...} last=84 max=84 slope=0.0067/s over the window @1712350800 (...)``."""
        keep = {k: v for k, v in sorted(self.labels.items()) if k != "__name__"}
        lab = ",".join(f'{k}="{v}"' for k, v in keep.items())
        vals = " ".join(f"{n}={_num(self.stats[n])}" + ("/s" if n == "slope" else "") for n in names if n in self.stats)
        at = self.at if self.at is not None else self.last[0]
        return Evidence(path=self.query, line=self.row,
                        text=f"{self.metric}{{{lab}}} {vals} over the window @{at:.0f} ({time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(at))})")


class Prom:
    def __init__(self, url: str, timeout: float = 10.0):
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.queries = 0
        self._pc = PrometheusConnect(url=self.url, disable_ssl=True, timeout=timeout,
                                     retry=Retry(total=0, connect=0, read=0, redirect=0))

    def _ask(self, query: str, at: float) -> list[dict]:
        try:
            self.queries += 1
            raw = self._pc.custom_query(query, params={"time": f"{at:.3f}"}, timeout=self.timeout)
        except requests.Timeout:
            raise LiveError(f"{self.url} did not answer '{_short(query)}' within {self.timeout:g} s") from None
        except requests.ConnectionError as exc:
            # with retries off, urllib3 reports a read timeout as a failed retry: still a timeout
            if "ReadTimeoutError" in str(exc):
                raise LiveError(f"{self.url} did not answer '{_short(query)}' within {self.timeout:g} s") from None
            raise LiveError(f"cannot reach Prometheus at {self.url}: {_short(exc)}") from None
        except (PrometheusApiClientException, requests.RequestException, ValueError, KeyError) as exc:
            raise LiveError(f"Prometheus at {self.url} refused '{_short(query)}': {_short(exc)}") from None
        return raw if isinstance(raw, list) else []

    def family(self, selector: str, at: float, window_s: int) -> tuple[str, list[Series]]:
        """All series matching ``selector`` with their samples in (at - window, at]."""
        return self.samples(f"{selector}[{int(window_s)}s]", at)

    def samples(self, query: str, at: float) -> tuple[str, list[Series]]:
        """A range-vector query (a selector or a subquery): every point of every series."""
        out: list[Series] = []
        rows = sorted(self._ask(query, at), key=lambda item: sorted(item.get("metric", {}).items()))
        for i, item in enumerate(rows, start=1):
            values = item.get("values") or ([item["value"]] if "value" in item else [])
            samples = [(float(t), float(v)) for t, v in values if not math.isnan(float(v))]
            if samples:
                out.append(Series(query, i, dict(item.get("metric", {})), samples))
        return query, out

    def stats(self, query: str, at: float, metric: str) -> tuple[str, list[Series]]:
        """An instant query whose rows carry a ``steth_stat`` label (facts/live/promql.py): one
        Series per label set, ``stats`` holding each statistic and ``samples`` the last value
        at ``at``. ``metric`` names the family where the functions dropped ``__name__``."""
        rows: dict[tuple, Series] = {}
        for item in self._ask(query, at):
            labels = dict(item.get("metric", {}))
            stat = labels.pop("steth_stat", "last")
            labels["__name__"] = labels.pop("steth_metric", None) or labels.get("__name__") or metric
            value = float(item["value"][1])
            if math.isnan(value):
                continue
            key = tuple(sorted(labels.items()))
            s = rows.get(key)
            if s is None:
                s = rows[key] = Series(query, len(rows) + 1, labels, [], at=at)
            s.stats[stat] = value
        out = []
        # the server's row order varies between runs of an ``or`` query: number rows by labels
        for i, (_, s) in enumerate(sorted(rows.items()), start=1):
            s.row = i
            if "last" in s.stats:  # a series without a value in the window says nothing
                s.samples = [(at, s.stats["last"])]
                out.append(s)
        return query, out

    def instant(self, query: str, at: float) -> list[dict]:
        """A plain instant query (dashboards, calibration)."""
        try:
            self.queries += 1
            return self._pc.custom_query(query, params={"time": f"{at:.3f}"}, timeout=self.timeout)
        except requests.Timeout:
            raise LiveError(f"{self.url} did not answer '{query}' within {self.timeout:g} s") from None
        except (PrometheusApiClientException, requests.RequestException, ValueError, KeyError) as exc:
            raise LiveError(f"Prometheus at {self.url} failed on '{query}': {_short(exc)}") from None


def _num(v: float) -> str:
    return str(int(v)) if v == int(v) else f"{v:.6g}"


def _short(exc: BaseException | str) -> str:
    text = str(exc)
    return text if len(text) < 240 else text[:237] + "..."
