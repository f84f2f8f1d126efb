"""ucxpy_log: UCX-Py's endpoint error callbacks, on real lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ucxpy_log as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ucxpy_log"

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
    facts = r.parse(Artefact(path="t.log", text=line + "\n")).facts
    assert [(f.node, f.status_code, f.status) for f in facts] == ([want] if want else [])
    assert r.detect(line + "\n") is (want is not None)


def test_distributed7000_one_fact_for_every_endpoint():
    text = (FIX / "distributed7000_worker_unreachable.log").read_text()
    assert r.detect(text)
    res = r.parse(Artefact(path="worker.log", text=text))
    assert [(f.node, f.status_code, f.endpoint, f.evidence.line) for f in res.facts] == [("gpu12", -6, "0x2b492843d3c8", 1)]
    assert res.lines_used == 8
