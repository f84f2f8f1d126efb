"""Decision trees over facts: which branches a diagnosis could answer, and which it could not.

A tree (``knowledge/decision_trees/*.yaml``) lists branches; each names the fact kinds its
rules read. The rules do the diagnosing; this module only says, for the report's
``not_checked``, which branches had none of their evidence, so that a missing artefact is
never mistaken for a healthy component.
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from stethoscope.engine.report import NotChecked
from stethoscope.facts import knowledge
from stethoscope.facts.knowledge import Branch, Tree  # noqa: F401 - re-exported
from stethoscope.facts.model import Fact, of_kind


@lru_cache(maxsize=None)
def load_tree(name: str = "throughput_dropped") -> Tree:
    """knowledge/decision_trees/<name>.yaml, validated (facts/knowledge/cases.py)."""
    return knowledge.load(f"decision_trees/{name}.yaml")


def made_kinds(facts: list[Fact]) -> set[str]:
    """The kinds of ``facts``, a summary's counted as its readings' (they were made); a
    :class:`FactIndex` answers from its positions, without a pass over every fact."""
    positions = getattr(facts, "positions", None)
    if positions is None:
        return {f.of_kind if f.kind == "fact_summary" else f.kind for f in facts}
    return {k for k, at in positions.items() if at and k != "fact_summary"} | {
        f.of_kind for f in of_kind(facts, "fact_summary")}


def not_checked(facts: list[Fact], name: str = "throughput_dropped", also: Iterable[str] = ()) -> list[NotChecked]:
    """Branches of the tree none of whose fact kinds occur in ``facts`` or in ``also`` (kinds a
    source examined without making a fact: a live screen that found every GPU healthy)."""
    tree = load_tree(name)
    kinds = made_kinds(facts)
    kinds.update(also)
    return [
        NotChecked(tree=tree.id, branch=b.id, question=b.question, missing=b.missing, needs=list(b.needs), source=b.from_)
        for b in tree.branches
        if not kinds.intersection(b.needs)
    ]
