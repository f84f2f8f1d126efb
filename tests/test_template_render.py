"""A finding's summary template (engine/ruleengine/derive.py render): ``{alias.field}`` substitution only; a field a
fact lacks reads '?', and a part written ``{? ... ?}`` is left out where a field it names is unknown."""
from __future__ import annotations

from types import SimpleNamespace

from stethoscope.engine.ruleengine.derive import render

# rules/application/torch_worker_exited.yaml's summary
WORKER = ("{w.node}: worker{? rank {w.rank}?}{? (local rank {w.local_rank})?}{?, pid {w.pid},?} of torchrun or mp.spawn "
          "failed{? with exit code {w.exitcode}?}{? (signal {w.signal})?}; its own traceback or its host's log says why")


def _w(**known):
    fields = dict(node="n1", rank=None, local_rank=None, pid=None, exitcode=None, signal=None)
    return {"w": SimpleNamespace(**{**fields, **known})}


def test_a_table_record_says_every_field():
    # hpcaitech/ColossalAI#4418's record: rank 10 (local_rank: 2), exitcode -9 (pid: 1625), Signal 9 (SIGKILL)
    assert render(WORKER, _w(rank=10, local_rank=2, pid=1625, exitcode=-9, signal="SIGKILL")) == (
        "n1: worker rank 10 (local rank 2), pid 1625, of torchrun or mp.spawn failed with exit code -9 (signal SIGKILL);"
        " its own traceback or its host's log says why")


def test_a_bare_exception_name_says_no_question_marks():
    assert render(WORKER, _w()) == (
        "n1: worker of torchrun or mp.spawn failed; its own traceback or its host's log says why")


def test_a_part_goes_only_with_its_own_unknown_field():
    # mp.spawn's "-- Process 0 terminated with the following error:": the local rank alone
    assert render(WORKER, _w(local_rank=0)).startswith("n1: worker (local rank 0) of torchrun or mp.spawn failed; ")


def test_outside_a_part_an_unknown_field_still_reads_a_question_mark():
    assert render("{w.node}: rank {w.rank}", _w()) == "n1: rank ?"
    assert render("{x.node} and {w.node}", _w()) == "? and n1"  # an alias no pattern bound
