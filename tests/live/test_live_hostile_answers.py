"""A hostile or broken server cannot exhaust memory nor crash a live diagnosis.

- Bodies are read within the memory budget (facts/limits.py ``answer_bytes``): a body that
  announces 50 GB, one that never ends (closed or chunked), a gzip bomb, a redirect to any of
  them: the query stops at the cap, the run is inconclusive with a one-line reason and the cap
  is in ``coverage.limits``. Real local HTTP servers (http.server in a thread), no mocks.
- Sample values that are not finite numbers (``NaN``, ``+Inf``, ``garbage``, ``null``, a list)
  and rows that are not series, in the answers of a real Prometheus passed through a rewriting
  proxy: each bad row is a parse problem of its query, and the faults in the good rows are
  still found.
"""
from __future__ import annotations

import gzip
import json
import threading
import time
import tracemalloc
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import pytest
from conftest import INCIDENT_AT
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.live.observe import diagnose_prometheus
from stethoscope.facts.limits import MIB, Budget
from stethoscope.facts.live.prom import LiveError, Prom

SMALL = Budget(256 * MIB)  # answers of at most 4 MiB, a run's of at most 21 MiB
HEAD = b'{"status":"success","data":{"resultType":"vector","result":['
FILL = b" " * 65536


def _row(i: int) -> dict:
    return {"metric": {"__name__": "up", "instance": f"node{i}:9400", "job": "dcgm"}, "value": [1712350800, "1"]}


def _answer(n_rows: int) -> bytes:
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": [_row(i) for i in range(n_rows)]}}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "ok"
    target = ""
    rows = 10
    served = 0

    def log_message(self, *args) -> None:  # quiet
        pass

    def _forever(self, write: Callable[[bytes], None]) -> None:
        try:
            write(HEAD)
            while True:
                write(FILL)
        except OSError:  # the client hung up: what the cap is for
            pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).served += 1
        mode = self.mode
        if mode == "declared":  # announces 50 GB, sends until the client stops reading
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(50 * 10**9))
            self.end_headers()
            self._forever(self.wfile.write)
        elif mode == "endless":  # no length: the body ends when the connection does (never)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            self._forever(self.wfile.write)
        elif mode == "chunked":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._forever(lambda b: self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b)))
        elif mode in ("gzip", "ok"):
            body = BOMB if mode == "gzip" else _answer(self.rows)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if mode == "gzip":
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif mode == "redirect":
            self.send_response(302)
            self.send_header("Location", self.target + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()


#: valid JSON of 64 MiB (a vector answer padded with spaces) in about 64 KiB of gzip
BOMB = gzip.compress(HEAD + b" " * (64 * MIB) + b"]}}", compresslevel=9)


def _server(mode: str, **attrs) -> ThreadingHTTPServer:
    handler = type(f"Handler_{mode}", (Handler,), {"mode": mode, "served": 0, **attrs})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def _url(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture
def serve():
    started: list[ThreadingHTTPServer] = []

    def start(mode: str, **attrs) -> str:
        httpd = _server(mode, **attrs)
        started.append(httpd)
        return _url(httpd)

    yield start
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("mode", ["declared", "endless", "chunked", "gzip", "redirect"])
def test_an_answer_past_the_budget_stops_at_the_cap(serve, mode):
    url = serve("redirect", target=serve("endless")) if mode == "redirect" else serve(mode)
    prom = Prom(url, timeout=30, budget=SMALL)
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(LiveError, match=r"beyond the memory budget: the answer passed 4,194,304 bytes"):
            prom.instant("up", 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # stopped by the cap, long before the 30 s deadline, having held about one cap of it
    assert time.monotonic() - t0 < 10
    assert peak < 3 * SMALL.answer_bytes, peak
    (hit,) = prom.limits
    assert hit.limit == "answer_bytes" and hit.path == "up" and "--max-memory" in hit.detail
    if mode == "declared":  # refused on its Content-Length, before any of the body is read
        assert "announced 50,000,000,000 bytes" in hit.detail


def test_an_answer_within_the_cap_is_read_whole(serve):
    url = serve("ok", rows=30000)  # about 3 MiB of JSON
    rows = Prom(url, timeout=30, budget=SMALL).instant("up", 0)
    assert len(rows) == 30000 and rows[-1]["metric"]["instance"] == "node29999:9400"


def test_answers_each_within_the_cap_stop_at_the_runs_cap(serve):
    url = serve("ok", rows=30000)
    prom = Prom(url, timeout=30, budget=SMALL)
    n = 0
    with pytest.raises(LiveError, match=r"the run's answers together passed"):
        for n in range(1, 20):
            prom.instant("up", 0)
    assert 6 <= n <= 8  # 21 MiB a run of answers of about 3 MiB
    assert [h.limit for h in prom.limits] == ["run_bytes"]


def test_diagnose_against_an_endless_answer_is_inconclusive_with_the_limit(serve):
    url = serve("chunked")
    t0 = time.monotonic()
    report = diagnose_prometheus(url, at=1712350800, timeout=30, budget=SMALL)
    assert time.monotonic() - t0 < 15
    assert report.verdict == "inconclusive" and "beyond the memory budget" in report.reason
    # the first two queries run at once: each stopped at the cap
    assert {h.limit for h in report.coverage.limits} == {"answer_bytes"}


def test_cli_names_the_cap_in_one_line_and_exits_inconclusive(serve):
    url = serve("declared")
    res = CliRunner().invoke(app, ["diagnose", "--prometheus", url, "--max-memory", "256MiB", "--timeout", "30"])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    line = next(ln for ln in res.output.splitlines() if "beyond the memory budget" in ln)
    assert "announced 50,000,000,000 bytes" in line and "--max-memory" in line


# --- values and rows that are not what Prometheus writes, from a real Prometheus -------------

def _node2(row: dict) -> bool:
    lab = row.get("metric", {}) if isinstance(row, dict) else {}
    return "node2" in (lab.get("Hostname"), lab.get("hostname")) or lab.get("instance", "").startswith("node2:")


def _rewriting_proxy(upstream: str, rewrite: Callable[[dict], object]) -> ThreadingHTTPServer:
    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            with urllib.request.urlopen(upstream + self.path, timeout=30) as r:
                doc = json.loads(r.read())
            if self.path.startswith("/api/v1/query") and isinstance(doc.get("data"), dict):
                doc = rewrite(doc)
            body = json.dumps(doc).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def _through(upstream: str, rewrite: Callable[[dict], object], run: Callable[[str], object]):
    """``run(url)`` against ``upstream`` with every query's answer passed through ``rewrite``."""
    proxy = _rewriting_proxy(upstream, rewrite)
    try:
        return run(_url(proxy))
    finally:
        proxy.shutdown()
        proxy.server_close()


def _node2_values(value: object) -> Callable[[dict], dict]:
    def rewrite(doc: dict) -> dict:
        for row in doc["data"].get("result", []):
            if _node2(row):
                if "value" in row:
                    row["value"][1] = value
                for pair in row.get("values", []):
                    pair[1] = value
        return doc
    return rewrite


@pytest.mark.parametrize("value", ["NaN", "+Inf", "-Inf", "garbage", None, [], {"x": 1}, True, ""])
def test_node2_values_that_are_no_finite_number_are_parse_problems(prom_url, value):
    report = _through(prom_url, _node2_values(value), lambda url: diagnose_prometheus(url, at=INCIDENT_AT, window_s=3600))
    got = {(f.cause, f.entity.node) for f in report.findings}
    # node1's Xid 79 and node3's port beside the unreadable node2
    assert {("gpu_fell_off_bus", "node1"), ("ib_port_down", "node3")} <= got
    assert not {c for c in got if c[1] == "node2"}
    assert report.verdict == "faulty"
    problems = [e for e in report.coverage.errors if "Prometheus answer, row" in e.message]
    assert problems and all(e.line >= 1 and e.path for e in problems)
    assert all(("is not a finite number" if value in ("NaN", "+Inf", "-Inf") else "is not a number") in e.message
               for e in problems)
    assert any(e.parser == "dcgm_exporter_scrape" for e in problems)
    # each problem is an error fact no rule explains: a line (here a row) that could not be read
    assert any(f.cause == "unexplained_error" for f in report.findings)


def _rows_replaced(make: Callable[[dict], object]) -> Callable[[dict], dict]:
    def rewrite(doc: dict) -> dict:
        doc["data"]["result"] = [make(r) if _node2(r) else r for r in doc["data"].get("result", [])]
        return doc
    return rewrite


@pytest.mark.parametrize("make", [
    lambda r: "a string",
    lambda r: 42,
    lambda r: None,
    lambda r: [r],
    lambda r: {**r, "metric": ["not", "a", "map"]},
    lambda r: {**r, "metric": {**r["metric"], "Hostname": 7}},
    lambda r: {k: v for k, v in r.items() if k not in ("value", "values")},
    lambda r: {**r, "value": [1712350800]} if "value" in r else {**r, "values": "x"},
    lambda r: {**r, "value": ["yesterday", "1"]} if "value" in r else {**r, "values": [["yesterday", "1"]]},
], ids=["string", "number", "null", "list", "labels_list", "label_not_string", "no_sample", "short_sample", "bad_time"])
def test_rows_that_are_no_series_are_parse_problems(prom_url, make):
    report = _through(prom_url, _rows_replaced(make), lambda url: diagnose_prometheus(url, at=INCIDENT_AT, window_s=3600))
    got = {(f.cause, f.entity.node) for f in report.findings}
    assert ("gpu_fell_off_bus", "node1") in got and not {c for c in got if c[1] == "node2"}
    assert [e for e in report.coverage.errors if "Prometheus answer, row" in e.message and "the row is not used" in e.message]


@pytest.mark.parametrize("result", [None, 7, "x", {"a": 1}], ids=["null", "number", "string", "object"])
def test_a_result_that_is_no_list_ends_the_run_in_one_line(prom_url, result):
    def rewrite(doc: dict) -> dict:
        doc["data"]["result"] = result
        return doc

    res = _through(prom_url, rewrite, lambda url: CliRunner().invoke(app, ["diagnose", "--prometheus", url, "--at", str(INCIDENT_AT)]))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "not a list of series" in res.output


@pytest.mark.parametrize("doc", [[1, 2], "text", 3, None, {"data": None}, {"data": [1]}],
                         ids=["list", "string", "number", "null", "data_null", "data_list"])
def test_json_that_is_no_api_answer_is_a_one_line_reason(serve, doc):
    body = json.dumps(doc).encode()

    class Fixed(Handler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Fixed)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        report = diagnose_prometheus(_url(httpd), at=1712350800, timeout=5)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert report.verdict == "inconclusive"
    assert "not a Prometheus API answer" in report.reason or "not a list" in report.reason
