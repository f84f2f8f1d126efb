"""Every rule test file under tests/rules runs here, case by case, under both evaluators."""
from pathlib import Path

import pytest

from stethoscope.engine.ruletests import discover, run_file

ROOT = Path(__file__).resolve().parent.parent
FILES = discover(ROOT / "tests" / "rules")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_rule_file(path, ruleset):
    results = run_file(path, ruleset, str(path.relative_to(ROOT)))
    failures = [f"[{r.case}] {r.message}" for r in results if not r.ok]
    assert not failures, "\n".join(failures)
