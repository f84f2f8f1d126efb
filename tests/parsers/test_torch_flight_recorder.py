"""The flight-recorder dump parser on the real dumps of the H200 straggler job."""
from __future__ import annotations

from pathlib import Path

from stethoscope.engine.pipeline import parse_artefacts
from stethoscope.facts.parsers import torch_flight_recorder as fr
from stethoscope.facts.parsers.base import Artefact, ParseError

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "torch_flight_recorder"


def art(name: str, text: str | None = None) -> Artefact:
    return Artefact(path=f"vm/{name}", text=(FIX / name).read_text() if text is None else text, node="vm", node_from_folder=True)


def test_detect_on_dumps_only():
    assert fr.detect((FIX / "fr_nccl_trace_rank_0.json").read_text()[:65536])
    assert not fr.detect("[rank0]:[E1129 ProcessGroupNCCL.cpp:689] Watchdog caught collective operation timeout\n")


def test_rank0_dump():
    res = fr.parse(art("fr_nccl_trace_rank_0.json"))
    assert res.errors == []
    [prog] = [f for f in res.facts if f.kind == "torch_nccl_progress"]
    assert (prog.rank, prog.pg, prog.pg_name, prog.last_enqueued_seq, prog.last_completed_seq) == (0, "0", "default_pg", 4, 3)
    assert '"last_enqueued_collective": 4' in prog.evidence.text
    entries = [f for f in res.facts if f.kind == "torch_fr_entry"]
    assert [(e.seq_num, e.state) for e in entries] == [(1, "completed"), (2, "completed"), (3, "completed"), (4, "started")]
    assert {e.op_type for e in entries} == {"nccl:all_reduce"} and entries[3].timeout_ms == 20000
    assert '"collective_seq_id": 4' in entries[3].evidence.text


def test_rank1_dump_is_behind():
    res = fr.parse(art("fr_nccl_trace_rank_1.json"))
    [prog] = [f for f in res.facts if f.kind == "torch_nccl_progress"]
    assert (prog.rank, prog.last_enqueued_seq) == (1, 3)
    assert [e.state for e in res.facts if e.kind == "torch_fr_entry"] == ["completed"] * 3


def test_dumps_alone_name_the_straggler():
    obs = parse_artefacts([art("fr_nccl_trace_rank_0.json"), art("fr_nccl_trace_rank_1.json")])
    [s] = [f for f in obs.facts if f.kind == "torch_straggler_candidate"]
    assert (s.rank, s.basis, s.timeout_seq, s.last_enqueued_seq, s.waiting_ranks) == (1, "lowest_enqueued", 4, 3, "0")


def test_not_json_and_no_rank_are_parse_errors():
    res = fr.parse(art("fr_nccl_trace_rank_0.json", '{"entries": [\n  {"collective_seq_id": 1,\n'))
    assert res.facts == [] and len(res.errors) == 1 and res.errors[0].line >= 2
    assert isinstance(res.errors[0], ParseError)
    res = fr.parse(art("dump.json", '{"pg_status": {}, "entries": []}\n'))
    assert res.facts == [] and "rank" in res.errors[0].message


def test_malformed_entry_is_reported_not_fatal():
    res = fr.parse(art("fr_nccl_trace_rank_3.json", '{"pg_status": {}, "entries": [\n {\n  "collective_seq_id": 1,\n  "state": "started"}\n]}\n'))
    assert [f.kind for f in res.facts] == [] and len(res.errors) == 1 and res.errors[0].line == 3
