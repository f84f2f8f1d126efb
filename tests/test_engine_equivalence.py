"""durable-rules and the plain-Python reference evaluator give the same findings on every
fixture: each bundle, and each parser fixture as a one-file bundle."""
from pathlib import Path

import pytest

from stethoscope.engine.pipeline import diagnose_bundle

ROOT = Path(__file__).resolve().parent.parent
TARGETS = sorted(p.parent / "bundle" for p in (ROOT / "fixtures" / "bundles").glob("*/expected.yaml"))
TARGETS += sorted(p for p in (ROOT / "fixtures" / "artefacts").glob("*/*") if p.is_file() and p.suffix != ".md")


def _key(report):
    return [
        (f.rank, f.rule, f.cause, f.role, f.entity.model_dump(), f.summary, [(e.path, e.line) for e in f.evidence], f.explains)
        for f in report.findings
    ]


@pytest.mark.parametrize("target", TARGETS, ids=[str(t.relative_to(ROOT / "fixtures")) for t in TARGETS])
def test_durable_matches_reference(target, ruleset):
    a = diagnose_bundle(target, ruleset, "durable")
    b = diagnose_bundle(target, ruleset, "reference")
    assert _key(a) == _key(b)
