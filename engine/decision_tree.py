"""Decision trees over facts: which branches a diagnosis could answer, and which it could not.

A tree (``knowledge/decision_trees/*.yaml``) lists branches; each names the fact kinds its
rules read. The rules do the diagnosing; this module only says, for the report's
``not_checked``, which branches had none of their evidence, so that a missing artefact is
never mistaken for a healthy component.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources


from stethoscope.engine import yamlio
from pydantic import BaseModel, ConfigDict, Field

from stethoscope.engine.report import NotChecked
from stethoscope.facts.model import Fact


class Branch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    question: str
    needs: list[str] = Field(min_length=1)
    planned: bool = False  # its fact kinds have no parser yet
    from_: str = Field(alias="from")
    rules: list[str] = Field(default_factory=list)
    missing: str


class Tree(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    question: str
    source: str
    branches: list[Branch] = Field(min_length=1)


@lru_cache(maxsize=None)
def load_tree(name: str = "throughput_dropped") -> Tree:
    text = resources.files("stethoscope.knowledge").joinpath("decision_trees", f"{name}.yaml").read_text(encoding="utf-8")
    return Tree.model_validate(yamlio.safe_load(text))


def not_checked(facts: list[Fact], name: str = "throughput_dropped") -> list[NotChecked]:
    """Branches of the tree none of whose fact kinds occur in ``facts``."""
    tree = load_tree(name)
    kinds = {f.kind for f in facts}
    return [
        NotChecked(tree=tree.id, branch=b.id, question=b.question, missing=b.missing, needs=list(b.needs), source=b.from_)
        for b in tree.branches
        if not kinds.intersection(b.needs)
    ]
