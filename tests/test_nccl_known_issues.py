"""knowledge/nccl_known_issues.yaml is data the engine trusts: every entry must name symptoms
the table defines, with operators engine/combine/nccl_summary.py knows, regexes that compile, a fixed
version above its affected range, a workaround and a source."""
from __future__ import annotations

import re

from stethoscope.engine.combine import nccl_summary
from stethoscope.facts.model import FACT_KINDS
from stethoscope.facts.registry import load_parsers


def _table():
    return nccl_summary.knowledge("nccl_known_issues.yaml")


def test_symptoms_name_known_fact_kinds_fields_and_operators() -> None:
    load_parsers()  # registers every fact kind
    for name, spec in _table().symptoms.items():
        cls = FACT_KINDS[spec.fact]
        for field, cond in spec.match.items():
            assert field in cls.model_fields, f"{name}: {spec.fact} has no field {field}"
            if isinstance(cond, dict):
                assert set(cond) <= set(nccl_summary._OPS), f"{name}: unknown operator in {cond}"
                if "regex" in cond:
                    re.compile(cond["regex"])


def test_entries_are_complete_and_consistent() -> None:
    table = _table()
    ids = [e.id for e in table.issues]
    assert len(ids) == len(set(ids)) and len(ids) >= 8
    for e in table.issues:
        assert all(n in table.symptoms for n in e.symptoms), e.id
        lo, hi = (nccl_summary._version_tuple(v) for v in (e.affected.min, e.affected.max))
        assert lo <= hi < nccl_summary._version_tuple(e.fixed_in), e.id
        assert e.title and e.workaround and ("github.com/NVIDIA/nccl" in e.source or "docs.nvidia.com" in e.source)


def test_operators() -> None:
    ok = nccl_summary._field_ok
    assert ok(3, {"gt": 0}) and not ok(0, {"gt": 0}) and not ok(None, {"gt": 0})
    assert ok("IBext_v8", {"regex": "^IBext"}) and not ok("IB", {"regex": "^IBext"})
    assert ok("x", {"in": ["x", "y"]}) and ok(None, {"exists": False}) and ok(False, False)
