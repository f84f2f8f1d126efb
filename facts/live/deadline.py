"""Deadlines on HTTP requests: per query and per run, measured on the clock, not per read.

``requests`` applies its ``timeout`` to each socket operation: a server that sends one byte a
second never trips a 5 s timeout, and a run of twenty queries can take twenty timeouts. Here
every request runs under a deadline: the earlier of its own (``query_s`` after it starts)
and the run's (``run_s`` after the first request). A watchdog timer shuts down the sockets
the adapter opened when the deadline passes; the blocked read then fails at once and the
caller reports the query as not answered in time.

The sockets are found without patching anything global: :class:`DeadlineAdapter` gives its
pool manager connection pools whose connection class records each socket it opens.

The same adapter caps what an answer may cost: it reads the body itself, decoded (a gzip bomb
counts at its expanded size), and stops at ``max_answer`` bytes for one answer and
``max_run`` for all the answers of the run (facts/limits.py ``Budget.answer_bytes``): a server
that sends a huge or endless body costs at most that, whatever its Content-Length says.
"""
from __future__ import annotations

import socket
import threading
import time
import weakref
from contextlib import contextmanager
from typing import Any, Iterator

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool


class AnswerTooLarge(Exception):
    """The answer (or the run's answers together: ``limit`` is "answer" or "run") passed its
    cap of ``cap`` bytes; ``declared``: the Content-Length that announced it, if any."""

    def __init__(self, limit: str, cap: int, declared: int | None = None):
        said = f" (it announced {declared:,} bytes)" if declared is not None else ""
        what = "the answer" if limit == "answer" else "the run's answers together"
        super().__init__(f"{what} passed {cap:,} bytes{said}")
        self.limit, self.cap, self.declared = limit, cap, declared


#: bytes read at a time from an answer's body (decoded)
_CHUNK = 64 * 1024


class DeadlineExceeded(Exception):
    """The deadline passed before the answer was read whole: ``limit`` names which one."""

    def __init__(self, limit: str, seconds: float):
        super().__init__(f"{limit} deadline of {seconds:g} s passed")
        self.limit, self.seconds = limit, seconds


def _tracking(conn_cls: type[HTTPConnection], registry: "weakref.WeakSet[HTTPConnection]") -> type[HTTPConnection]:
    class Tracking(conn_cls):  # type: ignore[misc, valid-type]
        def connect(self) -> None:
            registry.add(self)
            super().connect()

    Tracking.__name__ = f"Deadline{conn_cls.__name__}"
    return Tracking


class DeadlineAdapter(HTTPAdapter):
    """An HTTPAdapter whose requests stop at a deadline (see :meth:`Deadlines.query`)."""

    def __init__(self, *args: Any, max_answer: int | None = None, max_run: int | None = None, **kwargs: Any):
        self.connections: weakref.WeakSet[HTTPConnection] = weakref.WeakSet()
        self.max_answer, self.max_run = max_answer, max_run
        self.read_bytes = 0  # every answer's body so far, decoded
        self._lock = threading.Lock()
        http = type("DeadlineHTTPConnectionPool", (HTTPConnectionPool,),
                    {"ConnectionCls": _tracking(HTTPConnection, self.connections)})
        https = type("DeadlineHTTPSConnectionPool", (HTTPSConnectionPool,),
                     {"ConnectionCls": _tracking(HTTPSConnection, self.connections)})
        self._pool_classes = {"http": http, "https": https}
        super().__init__(*args, **kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(self._pool_classes)

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **kwargs)
        manager.pool_classes_by_scheme = dict(self._pool_classes)
        return manager

    def send(self, request: Any, stream: bool = False, **kwargs: Any) -> Any:
        """The answer with its body read here, within the caps (raises :class:`AnswerTooLarge`)."""
        resp = super().send(request, stream=True, **kwargs)
        if stream:
            return resp
        declared = resp.headers.get("Content-Length", "")
        # a compressed body's length says nothing of what it expands to: counted as it is read
        if declared.isdigit() and resp.headers.get("Content-Encoding", "identity").lower() == "identity":
            for limit, cap, room in (("answer", self.max_answer, self.max_answer),
                                     ("run", self.max_run, None if self.max_run is None else self.max_run - self.read_bytes)):
                if room is not None and int(declared) > room:
                    resp.close()
                    raise AnswerTooLarge(limit, cap, int(declared))
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in resp.iter_content(_CHUNK):
                size += len(chunk)
                with self._lock:
                    self.read_bytes += len(chunk)
                    run_over = self.max_run is not None and self.read_bytes > self.max_run
                if self.max_answer is not None and size > self.max_answer:
                    raise AnswerTooLarge("answer", self.max_answer)
                if run_over:
                    raise AnswerTooLarge("run", self.max_run)
                chunks.append(chunk)
        except BaseException:
            resp.close()
            raise
        resp._content = b"".join(chunks)
        resp._content_consumed = True
        return resp

    def cut(self) -> None:
        """Shut down every socket this adapter opened (from the watchdog thread)."""
        for conn in list(self.connections):
            sock = getattr(conn, "sock", None)
            if sock is None:
                continue
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def is_timeout(exc: BaseException) -> bool:
    """A timeout of the socket or of the read, however requests wraps it (with retries off, urllib3
    reports a read timeout as a ConnectionError naming ReadTimeoutError)."""
    return isinstance(exc, (requests.Timeout, socket.timeout, TimeoutError)) or (
        isinstance(exc, requests.ConnectionError) and "ReadTimeoutError" in str(exc))


class Deadlines:
    """The clock of one run: ``query_s`` per request, ``run_s`` (None: no limit) for all of them."""

    def __init__(self, adapter: DeadlineAdapter, query_s: float, run_s: float | None = None):
        self.adapter, self.query_s, self.run_s = adapter, query_s, run_s
        self._run_end: float | None = None

    def remaining(self) -> tuple[float, str, float]:
        """(seconds left for the next request, which limit that is, its length)."""
        now = time.monotonic()
        if self.run_s is not None:
            if self._run_end is None:
                self._run_end = now + self.run_s
            left = self._run_end - now
            if left < self.query_s:
                return max(0.0, left), "run", self.run_s
        return self.query_s, "query", self.query_s

    @contextmanager
    def query(self) -> Iterator[float]:
        """Around one request: yields the seconds it may take (pass it as the request's
        ``timeout`` too, so that connecting is bounded the same way). Raises
        :class:`DeadlineExceeded` when the deadline cut it short, or when none is left."""
        left, limit, seconds = self.remaining()
        if left <= 0:
            raise DeadlineExceeded(limit, seconds)
        fired = threading.Event()

        def expire() -> None:
            fired.set()
            self.adapter.cut()

        timer = threading.Timer(left, expire)
        timer.daemon = True
        start = time.monotonic()
        timer.start()
        try:
            yield left
        except Exception as exc:
            # the request's own read timeout is the same ``left``: on a loaded machine it may fire
            # before the timer's thread runs, and it is still this deadline that cut the request
            if fired.is_set() or (is_timeout(exc) and time.monotonic() - start >= left - 0.05):
                raise DeadlineExceeded(limit, seconds) from None
            raise
        finally:
            timer.cancel()
