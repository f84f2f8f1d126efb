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


# every rule's YAML "fires" case (tests/rules/**/<rule>.test.yaml, expect not empty), rendered as the rule's summary:
# no field the case's real line did not give reads a bare '?' (47982abe left 32 templates' optional parts in {? ?};
# issue 11: the report an operator reads).


def test_no_fires_case_renders_a_bare_question_mark(ruleset, monkeypatch):
    from pathlib import Path

    from stethoscope.engine.pipeline import evaluate_all, parse_artefacts
    from stethoscope.engine.ruleengine import derive
    from stethoscope.engine.ruleengine.loader import RuleSet, read_yaml
    from stethoscope.engine.ruletests import RuleTestFile, _artefacts, _facts, discover, project_root

    mark = "\x00?\x00"
    monkeypatch.setattr(derive, "UNKNOWN", mark)
    root = Path(__file__).resolve().parent.parent
    assumed = [r for r in ruleset.rules if r.rule.then.assert_ is not None]
    bare: list[str] = []
    for path in discover(root / "tests" / "rules"):
        spec = RuleTestFile.model_validate(read_yaml(path, str(path))[0])
        target = [r for r in ruleset.rules if r.id == spec.rule]
        if not target or target[0].rule.then.finding is None:
            continue
        sub = RuleSet(target + [r for r in assumed if r is not target[0]], [])
        here = project_root(path.parent)
        for case in spec.cases:
            if not case.expect or case.baseline:
                continue
            facts = _facts(case, str(path)) + parse_artefacts(_artefacts(case, here)).facts
            findings, _ = evaluate_all(sub, facts, "reference")
            bare += [f"{spec.rule} [{case.name}]: {f.summary.replace(mark, '?')!r}"
                     for f in findings if f.rule == spec.rule and mark in f.summary]
    assert not bare, f"{len(bare)} summaries print '?' for a field their case's line did not give:\n" + "\n".join(bare)


# Static: every placeholder a rule's summary says outside a {? ... ?} part names a field its fact always has. A field
# the fact's model lets be None (facts/kinds/: a reader that did not find it) reads '?' in the report an operator reads
# ('GPU ? on node ?', 'rank ? failed'), whatever the rule's own test case gave (issue 11, round rBA5). The rule itself
# guarantees a field where one of its 'all' patterns tests it (any test but 'exists: false' is false on a field the fact
# lacks: engine/ruleengine/compile.py test_passes) or joins another fact's field to it ('$alias.field' as a value).


def _nullable(annotation) -> bool:
    import types
    import typing

    if annotation is None or annotation is type(None) or annotation is typing.Any:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_nullable(a) for a in typing.get_args(annotation))
    return False


def _guaranteed(crule) -> set[tuple[str, str]]:
    """(alias, field) pairs the rule's 'all' patterns can match only where the field is known."""
    from stethoscope.engine.ruleengine.compile import SELF, Ref

    out: set[tuple[str, str]] = set()
    for p in crule.all:
        for t in p.tests:
            if not (t.op == "exists" and t.value is False):
                out.add((p.alias, t.field))
            if isinstance(t.value, Ref):
                out.add((p.alias if t.value.alias == SELF else t.value.alias, t.value.field))
    return out


def unknown_placeholders(crule) -> list[str]:
    """The placeholders of ``crule``'s summary, outside any ``{? ... ?}`` part, that may read '?': an alias no 'all'
    pattern binds, a field its kind lacks, or a field its kind's model lets be None that the rule does not guarantee."""
    from stethoscope.engine.ruleengine.derive import _TEMPLATE, outside_optional
    from stethoscope.facts.model import FACT_KINDS

    spec = crule.rule.then.finding
    if spec is None:
        return []
    kinds = {p.alias: p.kind for p in crule.all}
    known = _guaranteed(crule)
    out = []
    for m in _TEMPLATE.finditer(outside_optional(spec.summary)):
        fields = FACT_KINDS[kinds[m[1]]].model_fields if m[1] in kinds else {}
        if m[2] not in fields or ((m[1], m[2]) not in known and _nullable(fields[m[2]].annotation)):
            out.append(m[0])
    return out


def test_a_summary_says_outside_optional_parts_only_fields_its_facts_always_have(ruleset):
    bare = {r.source: unknown_placeholders(r) for r in ruleset.rules}
    bare = {src: phs for src, phs in bare.items() if phs}
    count = sum(map(len, bare.values()))
    assert not bare, (f"{count} placeholders in {len(bare)} summaries may read '?' (a field the fact may lack, outside a "
                      "{? ... ?} part):\n" + "\n".join(f"rules/{src}: {' '.join(phs)}" for src, phs in sorted(bare.items())))


def test_the_static_check_reads_the_rule_s_own_guarantees(ruleset):
    from stethoscope.engine.ruleengine.compile import compile_rule
    from stethoscope.engine.ruleengine.schema import Rule

    def rule(match: dict, summary: str, extra: list | None = None):
        # CONSTRUCTED rule: xid_event's pid and process are optional (an Xid line without a process)
        return compile_rule(Rule.model_validate({
            "id": "t", "title": "t", "cause": "gpu_fell_off_bus", "component": "gpu", "severity": "fatal",
            "when": {"all": [{"fact": "xid_event", "as": "x", "match": match}] + (extra or [])},
            "then": {"finding": {"summary": summary, "evidence": ["x"]}}}), "t.yaml")

    assert unknown_placeholders(rule({}, "{x.node}: pid {x.pid}")) == ["{x.pid}"]
    assert unknown_placeholders(rule({}, "{x.node}{?: pid {x.pid}?}")) == []
    assert unknown_placeholders(rule({"pid": {"exists": True}}, "pid {x.pid}")) == []
    assert unknown_placeholders(rule({"pid": {"gt": 0}}, "pid {x.pid}")) == []
    assert unknown_placeholders(rule({"pid": {"exists": False}}, "pid {x.pid}")) == ["{x.pid}"]
    assert unknown_placeholders(rule({}, "pid {x.pid}", [{"fact": "xid_event", "as": "y", "match": {"pid": "$x.pid"}}])) == []
    assert unknown_placeholders(rule({}, "{y.node} {x.no_such_field}")) == ["{y.node}", "{x.no_such_field}"]
    assert unknown_placeholders(rule({}, "{x.node}{? ({x.process}{? pid {x.pid}?})?} {x.pid}")) == ["{x.pid}"]


def test_no_summary_leaves_an_optional_part_open_or_closes_one_it_did_not_open(ruleset):
    import re

    bad = []
    for r in ruleset.rules:
        if r.rule.then.finding is None:
            continue
        depth = 0
        for mark in re.findall(r"\{\?|\?\}", r.rule.then.finding.summary):
            depth += 1 if mark == "{?" else -1
            if depth < 0:
                break
        if depth != 0:
            bad.append(r.source)
    assert not bad, "an optional part not closed, or a '?}' that closes none: " + ", ".join(bad)


def test_parts_nest():
    # CONSTRUCTED: a library's status with the rank inside its parenthesis (rules/application/cuda_library_*.yaml)
    t = "{e.node}: failed{? ({e.status}{?, rank {e.rank}?})?}: {e.message}"
    e = dict(node="n1", message="m")
    assert render(t, {"e": SimpleNamespace(**e, status="S", rank=3)}) == "n1: failed (S, rank 3): m"
    assert render(t, {"e": SimpleNamespace(**e, status="S", rank=None)}) == "n1: failed (S): m"
    assert render(t, {"e": SimpleNamespace(**e, status=None, rank=3)}) == "n1: failed: m"
    assert render("a ?} b {? c", {}) == "a ?} b {? c"  # marks that open or close nothing stay text
