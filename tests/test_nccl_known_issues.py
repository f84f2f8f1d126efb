"""knowledge/nccl_known_issues.yaml is data the engine trusts: every entry must name symptoms
the table defines, as rule conditions on fields the fact kinds have (no text matching), a fixed
version above its affected range, a workaround and a source."""
from __future__ import annotations

import pytest

from stethoscope.engine.combine import nccl_known_issues
from stethoscope.facts.model import FACT_KINDS
from stethoscope.facts.kinds.nccl import version_key
from stethoscope.facts.registry import load_parsers


def _table():
    return nccl_known_issues.knowledge()


def test_symptoms_name_known_fact_kinds_fields_and_operators() -> None:
    """Each symptom compiles as a rule condition (the rules' operators only) on fields its fact kind has."""
    load_parsers()  # registers every fact kind
    for name, spec in _table().symptoms.items():
        cls = FACT_KINDS[spec.fact]
        for field in spec.match:
            assert field in cls.model_fields, f"{name}: {spec.fact} has no field {field}"
        pattern = nccl_known_issues.compile_symptom(spec)  # raises on an operator rules lack
        assert pattern.kind == spec.fact and len(pattern.tests) >= len(spec.match), name


def test_entries_are_complete_and_consistent() -> None:
    table = _table()
    ids = [e.id for e in table.issues]
    assert len(ids) == len(set(ids)) and len(ids) >= 8
    for e in table.issues:
        assert all(n in table.symptoms for n in e.symptoms), e.id
        lo, hi = (version_key(v) for v in (e.affected.min, e.affected.max))
        assert lo <= hi and (e.fixed_in is None or hi < version_key(e.fixed_in)), e.id  # None: open up to hi
        for frame, rng in (e.located_by or {}).items():  # a frame places the version inside the entry's range
            assert lo <= version_key(rng.min) <= version_key(rng.max) <= hi, (e.id, frame)
        assert e.title and e.workaround and ("github.com/NVIDIA/nccl" in e.source or "docs.nvidia.com" in e.source)


def test_operators() -> None:
    """The rules' semantics (a test on a field the fact lacks is false, except exists: false); no regex."""
    from stethoscope.facts.knowledge import NcclSymptom
    from stethoscope.facts.model import Evidence
    from stethoscope.facts.parsers.nccl_tests_facts import NcclTestRun

    load_parsers()

    def ok(fact, match) -> bool:
        return nccl_known_issues.symptom_matches(nccl_known_issues.compile_symptom(NcclSymptom(fact=fact.kind, match=match)), fact)

    run = NcclTestRun.model_construct(id="r", node="n", evidence=Evidence(path="p", line=1, text="t"),
                                      wrong_total=3, n_gpus=1, nccl_version=None)
    zero = run.model_copy(update={"wrong_total": 0})
    assert ok(run, {"wrong_total": {"gt": 0}}) and not ok(zero, {"wrong_total": {"gt": 0}})
    assert ok(run, {"n_gpus": {"in": [1, 2]}}) and ok(run, {"nccl_version": {"exists": False}})
    assert not ok(run, {"nccl_version": {"ne": "2.18.1"}})  # no version: the test is false, as in a rule
    assert ok(run, {"n_gpus": 1, "wrong_total": {"gte": 3, "lt": 4}})
    with pytest.raises(Exception):  # text matching is a parser's job (a message_kind), not a symptom's
        ok(run, {"nccl_version": {"regex": "^2\\.18"}})
