"""The rules phase's id look-ups (engine/pipeline._by_id) answer as ``{f.id: f for f in facts}``
updated with the derived and unexplained facts did for every id a finding firing binds and every
source those facts name, whether or not they were looked up ahead (bench/speed_rH6.md)."""
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


def test_the_bound_facts_and_the_given_ones():
    facts = FactIndex(FACTS)
    rules = [_rule("r1", ["xid_event", "gpu_info"]), _rule("r2", ["nccl_rank"], finding=False)]
    firings = [Firing("r1", (("a0", "xid_event:1"), ("a1", "gpu_info:2"))), Firing("r2", (("a0", "nccl_rank:0"),))]
    derived = [_fact("derived_thing", 0), Fact(kind="xid_event", id="xid_event:1", node="n2",
                                                 evidence=Evidence(path="d", line=1, text="d"))]  # a derived fact wins
    by_id = pipeline._by_id(facts, rules, firings, derived)
    assert by_id.keys() == {"xid_event:1", "gpu_info:2", "derived_thing:0"}  # the finding rule's facts only
    want = _plain(FACTS, derived)
    assert all(by_id[k] is want[k] for k in by_id)


def test_whole_when_a_source_lies_outside():
    facts = FactIndex(FACTS)
    rules = [_rule("r1", ["xid_event"])]
    firings = [Firing("r1", (("a0", "xid_event:1"),))]
    summary = SimpleNamespace(id="summary:0", sources="nccl_rank:3,table:9@2")  # as a derived fact
    by_id = pipeline._by_id(facts, rules, firings, [summary])
    assert by_id == _plain(FACTS, [summary])  # nccl_rank:3 is not bound by the firing: every fact by id
    inside = SimpleNamespace(id="summary:1", sources="xid_event:1@0")
    assert pipeline._by_id(facts, rules, firings, [inside]).keys() == {"xid_event:1", "summary:1"}


def test_unindexed_facts_and_no_firing():
    firings = [Firing("r1", (("a0", "xid_event:0"),))]
    by_id = pipeline._by_id(list(FACTS), [_rule("r1", ["xid_event"])], firings, [])
    assert by_id == _plain(FACTS)  # a plain list: keyed whole at once, as before
    assert pipeline._by_id(FactIndex(FACTS), [_rule("r1", ["xid_event"])], [], []) == {}
