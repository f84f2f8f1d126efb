"""The rules phase's id look-ups (engine/pipeline._ById) answer as ``{f.id: f for f in facts}``
updated with the derived and unexplained facts did, whether or not a firing's facts were looked up
ahead (bench/speed_rH6.md)."""
from __future__ import annotations

from types import SimpleNamespace

from stethoscope.engine import pipeline
from stethoscope.engine.ruleengine.derive import Firing
from stethoscope.facts.model import Evidence, Fact, FactIndex


def _fact(kind: str, i: int) -> Fact:
    return Fact(kind=kind, id=f"{kind}:{i}", node="n1", evidence=Evidence(path="f.log", line=i, text=f"line {i}"))


def _rule(rid: str, kinds: list[str], finding: bool = True):
    pats = tuple(SimpleNamespace(kind=k, alias=f"a{n}") for n, k in enumerate(kinds))
    return SimpleNamespace(id=rid, all=pats, rule=SimpleNamespace(then=SimpleNamespace(finding=object() if finding else None)))


FACTS = [_fact("xid_event", i) for i in range(5)] + [_fact("gpu_info", i) for i in range(5)] + [_fact("nccl_rank", i) for i in range(5)]


def _plain(facts, *later):
    d = {f.id: f for f in facts}
    for more in later:
        d.update((f.id, f) for f in more)
    return d


def test_looked_up_ahead_then_whole_on_a_miss():
    facts = FactIndex(FACTS)
    rules = [_rule("r1", ["xid_event", "gpu_info"]), _rule("r2", ["nccl_rank"], finding=False)]
    firings = [Firing("r1", (("a0", "xid_event:1"), ("a1", "gpu_info:2"))), Firing("r2", (("a0", "nccl_rank:0"),))]
    by_id = pipeline._ById(facts, rules, firings)
    assert set(dict.keys(by_id)) == {"xid_event:1", "gpu_info:2"}  # the finding rule's facts only
    derived = [_fact("derived_thing", 0), Fact(kind="xid_event", id="xid_event:1", node="n2",
                                                 evidence=Evidence(path="d", line=1, text="d"))]  # a derived fact wins
    by_id.update((f.id, f) for f in derived)
    want = _plain(FACTS, derived)
    assert by_id["xid_event:1"] is want["xid_event:1"] and by_id["gpu_info:2"] is want["gpu_info:2"]
    assert by_id.facts is not None  # nothing outside them asked yet
    assert "nccl_rank:3" in by_id and by_id["nccl_rank:3"] is want["nccl_rank:3"]  # a source outside them: whole
    assert by_id.facts is None and dict(by_id) == want
    assert "absent" not in by_id and by_id.get("absent") is None and by_id.get("table@3") is None


def test_unindexed_facts_and_no_firing():
    firings = [Firing("r1", (("a0", "xid_event:0"),))]
    by_id = pipeline._ById(list(FACTS), [_rule("r1", ["xid_event"])], firings)
    assert dict(by_id) == _plain(FACTS)  # a plain list: keyed whole at once, as before
    empty = pipeline._ById(FactIndex(FACTS), [_rule("r1", ["xid_event"])], [])
    assert dict.__len__(empty) == 0 and empty.get("gpu_info:4") is FACTS[9]
