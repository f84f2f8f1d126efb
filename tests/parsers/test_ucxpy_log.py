"""ucxpy_log: UCX-Py's endpoint error callbacks, on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import ucxpy_log as r

import parser_rows


ROWS = [
    # (line, (node, status_code, status) or None for no fact)
    ("[1662343841.790321] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint 0x2b492843d3c8 called with status -6: Destination is unreachable",
     ("gpu12", -6, "Destination is unreachable")),   # dask/distributed#7000
    # the excerpt's last line, cut inside the status text: read by its number
    ("[1662343868.894031] [gpu12.cluster:3241] UCXPY  DEBUG Error callback for endpoint 0x2b492843d5d8 called with status -6: Destination",
     ("gpu12", -6, "Destination is unreachable")),
    # UCX-Py's configuration is no error (dask/distributed#7000)
    ("[1662343837.604836] [gpu12.cluster:3241] UCXPY  INFO   RNDV_THRESH: 8K", None),
    ("[1662343868.567415] [gpu12.cluster:3241] UCXPY  DEBUG Future cancelling: stream_recv", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    assert parser_rows.line_fields(r, line, ("node", "status_code", "status")) == ([want] if want else [])


def test_distributed7000_one_fact_for_every_endpoint():
    res = parser_rows.read_fixture(r, "distributed7000_worker_unreachable.log", "worker.log")
    assert [(f.node, f.status_code, f.endpoint, f.evidence.line) for f in res.facts] == [("gpu12", -6, "0x2b492843d3c8", 1)]
    assert res.lines_used == 8
