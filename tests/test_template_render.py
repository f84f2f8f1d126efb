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
# issue 11: the report an operator reads). torch_collective_fingerprint_mismatch's summary says what its '?' means
# ('(? where the message does not say or was cut)'): allowed.
QUESTION_MARK_EXPLAINED = {"torch_collective_fingerprint_mismatch"}


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
        if spec.rule in QUESTION_MARK_EXPLAINED:
            continue
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
