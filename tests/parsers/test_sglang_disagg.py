"""sglang_disagg: SGLang's prefill/decode disaggregation aborting a request whose KV-cache transfer failed."""
from pathlib import Path

from stethoscope.facts.parsers import sglang_disagg
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "sglang_disagg"


def _read(text: str):
    art = Artefact(path="sglang.log", text=text, node="decode0")
    art.normalise()
    assert sglang_disagg.detect(art.text)
    return sglang_disagg.parse(art)


def test_sglang_12688_decode_transfer_aborted_and_its_cut_sibling():
    r = _read((FIX / "sglang12688_decode_transfer_aborted.log").read_text())
    [f] = r.facts  # TP2's line, cut before its room, is read beside TP0's whole one
    assert (f.side, f.step, f.rank, f.room) == ("Decode", "transfer", 0, 4793981895866140836)
    assert (f.reason, f.reason_kind) == ("Aborted by AbortReq.", "aborted") and f.evidence.line == 9
    assert r.lines_used == 2 and r.errors == []


def test_the_backends_reasons_by_kind():
    # CONSTRUCTED from prefill.py's / decode.py's lines and the reasons of disaggregation/mooncake/conn.py and
    # common/conn.py (record_failure)
    head = "[2026-01-05 10:20:00 TP4] Prefill {step} failed for request rank=4 req.rid='a1' req.bootstrap_room=69 with exception "
    for reason, kind in (("Decode instance could be dead, remote mooncake session 10.0.0.2:16000 is not alive", "peer_dead"),
                         ("Failed to get kvcache from prefill instance, it might be dead", "peer_dead"),
                         ("Request 69 timed out after 300.0s in KVPoll.Bootstrapping", "timeout"),
                         ("Failed due to an unknown reason from another rank", "other")):
        [f] = _read(head.format(step="transfer") + f"KVTransferError(bootstrap_room=69): {reason}\n").facts
        assert (f.reason, f.reason_kind, f.room) == (reason, kind, 69)
    # the step's other forms, and a line with no exception after it (the backend gave none)
    [f] = _read(head.format(step="bootstrap").split(" with exception")[0] + "\n").facts
    assert (f.step, f.reason, f.reason_kind) == ("bootstrap", None, "unknown")


def test_a_cut_line_alone_is_read_and_other_failures_are_not():
    [f] = _read("[2025-11-05 16:39:09 TP2] Decode transfer failed for request rank=2 decode_req.req.rid='78fd' d\n").facts
    assert (f.rank, f.room, f.reason_kind) == (2, None, "unknown")
    # must not: other programs' "failed for request" lines, and SGLang's words without the rank
    for line in ("ERROR: upload failed for request rank=3 of the queue\n",
                 "[2026-01-01 00:00:00] Decode transfer failed for request 12\n"):
        assert not sglang_disagg.detect(line)
