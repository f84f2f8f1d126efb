"""xid_quoted: an Xid quoted as the driver's code and message, without its kernel line."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import xid_quoted
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/xid_quoted"


def facts_of(text: str):
    art = Artefact(path="t.txt", text=text, node="node1")
    art.normalise()
    return [(f.evidence.line, f.xid, f.message, f.gpu_index) for f in xid_quoted.parse(art).facts]


def test_xid149_quoted_in_issue_text():
    text = (FIX / "marin9086_xid149_quoted_in_issue_text.txt").read_text()
    assert xid_quoted.detect(text)
    assert facts_of(text) == [(1, 149, "NETIR_LINK_DOWN Fatal XC0 i0 Link 14", 0)]


@pytest.mark.parametrize("text", [
    # NVIDIA's documentation heading as GPUd quotes it (leptonai/gpud#192): a list of codes, no event
    '"Xid 119, 120: GSP RPC Timeout / GSP Error", https//docs.nvidia.com/deploy/xid-errors/index.html',
    # an Xid named in prose (marin-community/marin#7344): no code-and-message pair
    "- **Xid 13** — user application fault: illegal memory access, out-of-range arrays",
    # a catalogue's wording in a reviewed diff (leptonai/gpud#614): the pair's words define the code, no event
    "Xid 143, marked as critical in GPUd, indicates GPU initialization failure. GPU hardware should be inspected and repaired.",
    # an NVSwitch SXid is the fabric manager's and kernel log's business
    "SXid 12028, Non-fatal, Link 32 egress non-posted PRIV error",
    "",
])
def test_no_event(text):
    assert not xid_quoted.detect(text)
    assert facts_of(text) == []
