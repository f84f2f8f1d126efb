"""steth watch against a deliberately slow server: a proxy in front of the test Prometheus
holds every answer back. Each cycle ends within its deadline, the queries it abandoned are
cancelled (the proxy sees their connections closed), no request of one cycle is still open
when the next starts, the cycles back off, and watch's own metrics say so."""
from __future__ import annotations

import select
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
from conftest import INCIDENT_AT
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from stethoscope.engine.live.watch import Watcher


class SlowProxy:
    """HTTP/1.1 proxy to ``upstream`` that waits ``delay`` seconds before answering each
    request and records (opened, closed, how) per request: ``answered``, or ``cancelled``
    when the client closed the connection first."""

    def __init__(self, upstream: str, delay: float):
        self.upstream, self.delay = upstream, delay
        self.log: list[tuple[float, float, str]] = []
        self.lock = threading.Lock()
        self.srv = socket.socket()
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(64)
        self.url = f"http://127.0.0.1:{self.srv.getsockname()[1]}"
        self.stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.srv.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.srv.accept()
            except OSError:
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            while True:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                opened = time.monotonic()
                path = head.split(b" ", 2)[1].decode()
                until = opened + self.delay
                while time.monotonic() < until:  # hold the answer back; notice a client that leaves
                    ready, _, _ = select.select([conn], [], [], 0.02)
                    if ready and not conn.recv(1, socket.MSG_PEEK):
                        with self.lock:
                            self.log.append((opened, time.monotonic(), "cancelled"))
                        return
                try:
                    with urllib.request.urlopen(self.upstream + path, timeout=30) as r:
                        body, status = r.read(), r.status
                except urllib.error.HTTPError as exc:
                    body, status = exc.read(), exc.code
                try:
                    conn.sendall(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (status, len(body)) + body)
                except OSError:
                    pass
                with self.lock:
                    self.log.append((opened, time.monotonic(), "answered"))

    def close(self) -> None:
        self.stop.set()
        self.srv.close()


def metric(w: Watcher, name: str) -> float:
    text = generate_latest(w.registry).decode()
    return sum(s.value for fam in text_string_to_metric_families(text) for s in fam.samples if s.name == name)


@pytest.fixture
def slow(prom_url):
    proxy = SlowProxy(prom_url, delay=3.0)
    yield proxy
    proxy.close()


def test_cycles_end_within_their_deadline_and_cancel_what_they_abandon(slow):
    w = Watcher(slow.url, window_s=3600, timeout=10, cycle_timeout=1.0, max_backoff_s=2.0)
    cycles: list[tuple[float, float]] = []
    sleeps: list[float] = []
    real_run = w.run_once

    def timed(at=None, every_s=None):
        t0 = time.monotonic()
        try:
            return real_run(at=INCIDENT_AT, every_s=every_s)
        finally:
            cycles.append((t0, time.monotonic()))

    w.run_once = timed  # type: ignore[method-assign]

    def sleep(s: float) -> None:
        sleeps.append(s)
        time.sleep(min(s, 0.3))

    w.loop(0.5, stop=lambda: len(cycles) >= 4, sleep=sleep)
    # each cycle ended at its deadline (1 s) plus a little, although every answer takes 3 s
    assert all(end - start < 2.0 for start, end in cycles), cycles
    time.sleep(0.3)
    with slow.lock:
        log = list(slow.log)
    assert log and all(how == "cancelled" for _, _, how in log), log
    # no request outlived its cycle: the next cycle never overlaps a query of the previous one
    for opened, closed, _ in log:
        cycle = next((c for c in cycles if c[0] - 0.05 <= opened <= c[1]), None)
        assert cycle is not None and closed <= cycle[1] + 0.3, (opened, closed, cycles)
    # the server is slow: each wait grows by the backoff, up to --max-backoff
    assert sleeps[0] >= 0.5 and sleeps[-1] >= 2.0 and max(sleeps) <= 2.5
    assert metric(w, "steth_watch_backoff_seconds") == 2.0
    assert metric(w, "steth_watch_cycle_errors_total") == 4
    assert metric(w, "steth_watch_cycle_duration_seconds_count") == 4
    assert metric(w, "steth_watch_queries_total") >= 4
    assert metric(w, "steth_watch_cycle_in_flight") == 0


def test_a_second_cycle_is_refused_while_one_is_in_flight(slow):
    w = Watcher(slow.url, window_s=3600, timeout=10, cycle_timeout=1.5)
    first = threading.Thread(target=w.run_once, kwargs={"at": INCIDENT_AT})
    first.start()
    time.sleep(0.3)
    assert metric(w, "steth_watch_cycle_in_flight") == 1
    assert w.run_once(at=INCIDENT_AT) is None
    first.join()
    assert metric(w, "steth_watch_cycles_refused_total") == 1 and metric(w, "steth_watch_cycle_in_flight") == 0


def test_a_quick_server_resets_the_backoff(prom_url):
    w = Watcher(prom_url, window_s=3600, timeout=10, cycle_timeout=30)
    w.backoff_s = 8.0
    report = w.run_once(at=INCIDENT_AT, every_s=60)
    assert report is not None and report.verdict == "faulty" and w.backoff_s == 0.0
    assert metric(w, "steth_watch_queries_total") >= 5 and metric(w, "steth_watch_cycle_errors_total") == 0
