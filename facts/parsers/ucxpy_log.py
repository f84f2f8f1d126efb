"""UCX-Py's own log (the Python binding of UCX under dask-cuda, Dask's ``ucx://`` comms, RAPIDS' multi-GPU libraries),
made when UCXPY_LOG_LEVEL is set, on stderr of the Dask scheduler, workers and client; its lines may sit among Dask's
own (``distributed.worker - INFO - ...``), so they are looked for anywhere in a file.

UCX-Py formats its records as ``"[%(timestamp)s] [%(hostname)s:%(process)d] UCXPY  %(levelname)s %(message)s"``
(ucp/utils.py), and from 0.21 logs every call of a UCP endpoint's error callback, at DEBUG, as ``"Error callback for
endpoint %s called with status %d: %s"`` (ucp/_libs/ucx_endpoint.pyx ``_err_cb``: the endpoint's handle, the
ucs_status_t and ``ucs_status_string``): UCX closed the endpoint to that peer, and its pending messages are cancelled.
Sample lines (real, dask/distributed#7000: a Dask worker over UCX on a GPU cluster that never reached its scheduler)::

    [1662343841.790321] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint 0x2b492843d3c8 called with status -6: Destination is unreachable
    2022-09-04 22:11:08,567 - distributed.worker - INFO - Waiting to connect to:       ucx://10.3.1.11:8786
    [1662343868.669253] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint 0x2b492843d3c8 called with status -6: Destination is unreachable

Facts: ``ucx_endpoint_error`` (the status number and text, the endpoint, the node of UCX-Py's ``[host:pid]``) once per
node and status: a worker retrying its connection logs the same status for every endpoint it tries. A status text cut
short (a paste's last line, ``called with status -6: Destination``) that begins ucs_status_string's text for its number
is read as that text. UCX-Py's other records (its configuration at INFO, sends and receives at DEBUG) make no fact.
Empty input, or no error callback line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import UcxEndpointError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "ucxpy_log"

# [1662343841.790321] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint 0x2b492843d3c8 called with status -6: Destination is unreachable
#   (dask/distributed#7000; the text the rest of the line, bounded, its blanks taken off in Python)
_CALLBACK = re.compile(r"\bError callback for endpoint (?P<ep>0x[0-9a-fA-F]{1,16}|\(nil\)|\S{1,40}) called with status "
                       r"(?P<code>-?\d{1,4}): (?P<status>[^\n]{0,80})")
# [1662343841.790321] [gpu12.cluster:3241] UCXPY  DEBUG ...   (ucp/utils.py: "[%(timestamp)s] [%(hostname)s:%(process)d] UCXPY  ")
_PREFIX = re.compile(r"\[(?P<host>[A-Za-z0-9][\w.-]{0,252}):\d{1,10}\] UCXPY\s")
#: ucs_status_string's text of the statuses an endpoint's error callback is called with (openucx/ucx src/ucs/type/status.c)
_STATUS_TEXT = {-3: "Input/output error", -6: "Destination is unreachable", -16: "Operation canceled",
                -20: "Operation timed out", -24: "Endpoint is not connected", -25: "Connection reset by remote peer",
                -80: "Endpoint timeout"}
_MARKER = "Error callback for endpoint "


def _status(m: re.Match) -> str:
    """The status text as printed; a text cut short that begins the one ucs_status_string of its number: that string."""
    text = m["status"].strip()
    full = _STATUS_TEXT.get(int(m["code"]))
    return full if full and text and full.startswith(text) else text


def detect(text: str) -> bool:
    return _MARKER in text and any(_CALLBACK.search(line) for _s, line in lines_with(text, (_MARKER,)))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple[str, int]] = set()
    for n, line in iter_lines_with((_MARKER,), artefact):
        if (m := _CALLBACK.search(line)) is None:
            continue
        result.lines_used += 1
        p = _PREFIX.search(line[:m.start()])
        host = p["host"].split(".", 1)[0] if p else None  # "gpu12.cluster": the node's first label, as UCX names it
        node = artefact.node_for(host)
        code = int(m["code"])
        if (node, code) in seen:
            continue  # every endpoint a retrying worker opens fails the same way: one fact per node and status
        seen.add((node, code))
        fb.add(UcxEndpointError, n, node=node, status_code=code, status=_status(m), endpoint=m["ep"])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bError callback for endpoint \S+ called with status -?\d+: ",)
