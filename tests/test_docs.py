"""The generated docs in docs/ match what ships (regenerate with `steth docs --out docs`)."""
from pathlib import Path

from stethoscope.engine.docs import generate

ROOT = Path(__file__).resolve().parent.parent


def test_generated_docs_are_up_to_date(ruleset):
    for name, text in generate(ruleset).items():
        path = ROOT / "docs" / name
        assert path.exists() and path.read_text(encoding="utf-8") == text, f"docs/{name} is stale: run steth docs --out docs"


def test_rule_catalogue_lists_every_rule_and_fact_reference_every_kind(ruleset):
    from stethoscope.facts.model import FACT_KINDS

    docs = generate(ruleset)
    assert all(f"`{r.id}`" in docs["rules.md"] for r in ruleset.rules)
    assert all(f"## `{k}`" in docs["facts.md"] for k in FACT_KINDS)
