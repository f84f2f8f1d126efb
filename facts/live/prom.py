"""Talking to Prometheus: one range-vector query per metric family for the whole fleet.

``METRIC[1h]`` evaluated at ``at`` returns every raw sample of every series of the family in
the window, so the latest value (for the parser-shaped facts) and the history (for the
time-series facts) come from one request. Every request runs under a deadline on the clock
(facts/live/deadline.py), with no retries: ``timeout`` seconds per query, ``run_timeout`` for
all the queries of a run, however slowly a server drips its answer; and within the memory budget
(facts/limits.py ``answer_bytes``): a larger answer is not read on, and the run says so.

An answer is checked at the edge (:meth:`Prom._rows`): a row that is not a series with string
labels and ``[time, "value"]`` samples, or a value that is not a finite number (``NaN``,
``+Inf``, ``garbage``), is recorded as a problem of that row (:class:`AnswerProblem`, reported
as a parse problem of the query) and not used; the fact builders only see clean numbers.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import requests
from prometheus_api_client import PrometheusApiClientException, PrometheusConnect
from urllib3.util.retry import Retry

from stethoscope.facts.live.access import Access, AccessError, scoped
from stethoscope.facts.limits import DEFAULT, Budget, Hit
from stethoscope.facts.live.deadline import AnswerTooLarge, DeadlineAdapter, DeadlineExceeded, Deadlines, is_timeout
from stethoscope.facts.live.series import Series


class LiveError(Exception):
    """Prometheus could not be read: the reason, in words, for an inconclusive report."""


@dataclass(frozen=True)
class AnswerProblem:
    """A row of an answer that could not be used: the query as sent, the row (1-based), why,
    and the metric it names (``""``: none)."""

    path: str
    line: int
    message: str
    metric: str


def number(value: object) -> float | None:
    """A sample value as Prometheus writes it (``"42"``, ``"NaN"``, ``"+Inf"``) as a float; None
    for anything else (a list, ``null``, ``"garbage"``, ``true``)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        return float(value)
    except (ValueError, OverflowError):
        return None


def _row_metric(item: object) -> str:
    metric = item.get("metric") if isinstance(item, dict) else None
    if not isinstance(metric, dict):
        return ""
    name = metric.get("steth_metric") or metric.get("__name__")
    return name if isinstance(name, str) else ""


def _sample_problem(pair: object, finite: bool) -> str | None:
    """Why ``[time, "value"]`` cannot be used (None: it can). ``finite`` off: any number will do."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        return f"a sample is not a [time, value] pair: {_short(repr(pair))}"
    ts, value = number(pair[0]), number(pair[1])
    if ts is None or not math.isfinite(ts):
        return f"sample time {_short(repr(pair[0]))} is not a number"
    if value is None:
        return f"sample value {_short(repr(pair[1]))} is not a number"
    if finite and not math.isfinite(value):
        return f"sample value {pair[1]} is not a finite number"
    return None


def _row_problem(item: object, finite: bool) -> str | None:
    if not isinstance(item, dict):
        return f"a row is not a series object: {_short(repr(item))}"
    metric = item.get("metric", {})
    if not isinstance(metric, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metric.items()):
        return f"the row's labels are not a map of strings: {_short(repr(metric))}"
    if "value" in item:
        return _sample_problem(item["value"], finite)
    if "values" in item:
        values = item["values"]
        if not isinstance(values, list):
            return f"the row's samples are not a list: {_short(repr(values))}"
        return next((p for p in (_sample_problem(v, finite) for v in values) if p), None)
    return "the row has no sample (neither value nor values)"


class Prom:
    def __init__(self, url: str, timeout: float = 10.0, run_timeout: float | None = None, access: Access | None = None,
                 budget: Budget = DEFAULT):
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.queries = 0
        self.budget = budget
        #: rows of answers that could not be used, and the caps that stopped an answer
        self.problems: list[AnswerProblem] = []
        self.limits: list[Hit] = []
        self.access = access or Access()
        try:  # TLS verified unless access.insecure; credentials and headers on the session
            session = self.access.session()
        except AccessError as exc:
            raise LiveError(str(exc)) from None
        retry = Retry(total=0, connect=0, read=0, redirect=0)
        self._pc = PrometheusConnect(url=self.url, timeout=timeout, retry=retry, session=session)
        # the deadline (per query, per run) replaces the per-read timeout of requests; the
        # adapter reads every body within the budget. Mounted for every URL: a redirect to another
        # server is held to the same deadlines and caps
        adapter = DeadlineAdapter(max_retries=retry, max_answer=budget.answer_bytes, max_run=budget.run_answer_bytes)
        for prefix in (self.url, "http://", "https://"):
            self._pc._session.mount(prefix, adapter)
        self.deadlines = Deadlines(adapter, timeout, run_timeout)

    def scope(self, query: str) -> str:
        """The query as sent: the --selector matchers in each of its selectors."""
        return scoped(query, self.access.selector)

    def _query(self, query: str, at: float, fetch=None):
        """``fetch(left)``: another request than an instant query (:meth:`names`), under the same deadlines."""
        self.queries += 1
        try:
            with self.deadlines.query() as left:
                if fetch is not None:
                    return fetch(left)
                return self._pc.custom_query(self.scope(query), params={"time": f"{at:.3f}"}, timeout=left)
        except requests.exceptions.SSLError as exc:
            raise LiveError(f"{self.url}: TLS refused: {_tls_reason(exc)}") from None
        except PrometheusApiClientException as exc:
            status = re.match(r"HTTP Status Code (\d+)", str(exc))
            if status and status.group(1) in ("401", "403"):
                raise LiveError(f"{self.url} refused the credentials (HTTP {status.group(1)}): "
                                + ("check the token or password it was given" if self._pc._session.auth or
                                   "Authorization" in self._pc._session.headers else
                                   "it needs --bearer-token-file/--bearer-token-env or --basic-auth-user")) from None
            raise
        except DeadlineExceeded as exc:
            what = "this run's queries" if exc.limit == "run" else f"'{_short(query)}'"
            raise LiveError(f"{self.url} did not answer {what} within {exc.seconds:g} s") from None
        except AnswerTooLarge as exc:
            cap = f"{exc.cap / (1 << 20):.1f} MiB"
            which = (f"one answer may have {cap}" if exc.limit == "answer" else
                     f"the answers of one run may have {cap} together")
            detail = (f"{exc}: not read on (the memory budget, --max-memory {self.budget.max_memory / 1e9:g} GB: {which}); "
                      "narrow the run with --selector or a shorter --window, or raise --max-memory")
            self.limits.append(Hit(f"{exc.limit}_bytes", self.scope(query), 0, detail))
            raise LiveError(f"{self.url} answered '{_short(query)}' beyond the memory budget: {detail}") from None

    def _ask(self, query: str, at: float, fetch=None, finite: bool = False) -> list:
        """The rows of the answer that are well formed (:meth:`_rows`)."""
        try:
            raw = self._query(query, at, fetch)
        except requests.Timeout:
            raise LiveError(f"{self.url} did not answer '{_short(query)}' within {self.timeout:g} s") from None
        except requests.ConnectionError as exc:
            # with retries off, urllib3 reports a read timeout as a failed retry: still a timeout
            if is_timeout(exc):
                raise LiveError(f"{self.url} did not answer '{_short(query)}' within {self.timeout:g} s") from None
            raise LiveError(f"cannot reach Prometheus at {self.url}: {_short(exc)}") from None
        except (PrometheusApiClientException, requests.RequestException, ValueError, KeyError) as exc:
            raise LiveError(f"Prometheus at {self.url} refused '{_short(query)}': {_short(exc)}") from None
        except (TypeError, IndexError, AttributeError):  # JSON that is not {"data": {"result": ...}}
            raise LiveError(f"{self.url} answered '{_short(query)}' with JSON that is not a Prometheus API answer") from None
        if fetch is not None:
            return self._names(raw, query)
        return self._rows(raw, query, finite)

    def _rows(self, raw: object, query: str, finite: bool) -> list[dict]:
        """The rows of ``raw`` that are series with string labels and numeric samples (all
        finite, with ``finite``); each other row is an :class:`AnswerProblem`."""
        if not isinstance(raw, list):
            raise LiveError(f"{self.url} answered '{_short(query)}' with a result that is not a list of series "
                            f"({type(raw).__name__})")
        out = []
        shown = self.scope(query)
        for i, item in enumerate(raw, start=1):
            why = _row_problem(item, finite)
            if why is None:
                out.append(item)
            else:
                self.problems.append(AnswerProblem(shown, i, f"Prometheus answer, row {i}: {why}: the row is not used",
                                                   _row_metric(item)))
        return out

    def _names(self, raw: object, query: str) -> list:
        if not isinstance(raw, list):
            raise LiveError(f"{self.url} answered '{_short(query)}' with label values that are not a list "
                            f"({type(raw).__name__})")
        bad = [i for i, n in enumerate(raw, start=1) if not isinstance(n, str)]
        for i in bad:
            self.problems.append(AnswerProblem(self.scope(query), i, f"label value {_short(repr(raw[i - 1]))} is not a "
                                               "string: not used", ""))
        return [n for n in raw if isinstance(n, str)]

    def problem(self, shown: str, row: int, message: str, metric: str = "") -> None:
        """Record a row a reader of the answer could not use (its labels, say)."""
        self.problems.append(AnswerProblem(shown, row, message, metric))

    def family(self, selector: str, at: float, window_s: int) -> tuple[str, list[Series]]:
        """All series matching ``selector`` with their samples in (at - window, at]."""
        return self.samples(f"{selector}[{int(window_s)}s]", at)

    def samples(self, query: str, at: float) -> tuple[str, list[Series]]:
        """A range-vector query (a selector or a subquery): every point of every series."""
        out: list[Series] = []
        shown = self.scope(query)
        rows = sorted(self._ask(query, at, finite=True), key=lambda item: sorted(item.get("metric", {}).items()))
        for i, item in enumerate(rows, start=1):
            values = item.get("values") or ([item["value"]] if "value" in item else [])
            samples = [(float(t), float(v)) for t, v in values]
            if samples:
                out.append(Series(shown, i, dict(item.get("metric", {})), samples, node_labels=self.access.node_labels))
        return shown, out

    def stats(self, query: str, at: float, metric: str) -> tuple[str, list[Series]]:
        """An instant query whose rows carry a ``steth_stat`` label (facts/live/promql.py): one
        Series per label set, ``stats`` holding each statistic and ``samples`` the last value
        at ``at``. ``metric`` names the family where the functions dropped ``__name__``."""
        rows: dict[tuple, Series] = {}
        shown = self.scope(query)
        for item in self._ask(query, at, finite=True):
            if "value" not in item:
                self.problem(shown, 0, f"Prometheus answer to an instant query: a row has no single value: {_short(repr(item))}",
                             _row_metric(item))
                continue
            labels = dict(item.get("metric", {}))
            stat = labels.pop("steth_stat", "last")
            labels["__name__"] = labels.pop("steth_metric", None) or labels.get("__name__") or metric
            value = float(item["value"][1])
            key = tuple(sorted(labels.items()))
            s = rows.get(key)
            if s is None:
                s = rows[key] = Series(shown, len(rows) + 1, labels, [], at=at, node_labels=self.access.node_labels)
            s.stats[stat] = value
        out = []
        # the server's row order varies between runs of an ``or`` query: number rows by labels
        for i, (_, s) in enumerate(sorted(rows.items()), start=1):
            s.row = i
            if "last" in s.stats:  # a series without a value in the window says nothing
                s.samples = [(at, s.stats["last"])]
                out.append(s)
        return shown, out

    def names(self, match: str, start: float, end: float) -> list[str]:
        """The metric names that have a series matching ``match`` between ``start`` and ``end``:
        the label-values API, which reads the index and no sample (engine/live/observe.py: which
        families exist, for a fraction of a count over every series)."""
        params = {"match[]": self.scope(match), "start": f"{start:.3f}", "end": f"{end:.3f}"}
        return [str(n) for n in self._ask(match, end, lambda left: self._pc.get_label_values("__name__", params=params))]

    def rows(self, query: str, at: float, finite: bool = False) -> list[dict]:
        """The rows of an instant query (engine/live/observe.py's screens and counts), failing as
        :meth:`samples` does: cannot reach, did not answer within the deadline, refused.
        ``finite``: only rows whose value is a finite number (the caller reads it)."""
        return self._ask(query, at, finite=finite)

    def instant(self, query: str, at: float) -> list[dict]:
        """A plain instant query (dashboards, calibration): rows with finite values."""
        try:
            return self._rows(self._query(query, at), query, True)
        except (TypeError, IndexError, AttributeError):
            raise LiveError(f"{self.url} answered '{query}' with JSON that is not a Prometheus API answer") from None
        except requests.Timeout:
            raise LiveError(f"{self.url} did not answer '{query}' within {self.timeout:g} s") from None
        except (PrometheusApiClientException, requests.RequestException, ValueError, KeyError) as exc:
            raise LiveError(f"Prometheus at {self.url} failed on '{query}': {_short(exc)}") from None


def _tls_reason(exc: BaseException) -> str:
    """``certificate verify failed: self-signed certificate`` out of urllib3's nesting, with
    what to do about it."""
    text = str(exc)
    m = re.search(r"Hostname mismatch, certificate is not valid for '([^']+)'", text)
    if m:
        return (f"certificate verify failed: it is not valid for '{m.group(1)}' (hostname mismatch); "
                "connect by a name or address the certificate carries")
    m = re.search(r"certificate verify failed: ([^(')\]]+)", text)
    if m:
        return (f"certificate verify failed ({m.group(1).strip()}); give the server's CA with --ca-file "
                "(or, knowingly, --insecure)")
    m = re.search(r"\[SSL: ([A-Z0-9_]+)\] ([^(')\]]+)", text)
    if m and ("BAD_CERTIFICATE" in m.group(1) or "CERTIFICATE_REQUIRED" in m.group(1)):
        return f"{m.group(2).strip()} ({m.group(1)}): the server wants a client certificate its CA signed (--client-cert, --client-key)"
    return f"{m.group(2).strip()} ({m.group(1)})" if m else _short(text)


def _short(exc: BaseException | str) -> str:
    text = str(exc)
    return text if len(text) < 240 else text[:237] + "..."
