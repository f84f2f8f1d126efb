"""The schemas of knowledge/decision_trees/*.yaml and cases/*.yaml: the questions a symptom is narrowed by, and
the knowledge base of past incidents.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from stethoscope.facts.knowledge.base import CauseId, FactKind, Record as _M, check_kinds


# --- decision_trees/*.yaml -------------------------------------------------------------------

class Branch(_M):
    id: str
    question: str
    needs: list[str] = Field(min_length=1)  # fact kinds (planned ones may have no parser yet)
    planned: bool = False  # its fact kinds have no parser yet
    from_: str = Field(alias="from")
    rules: list[str] = Field(default_factory=list)
    missing: str

    @model_validator(mode="after")
    def _kinds_exist(self, info: ValidationInfo) -> "Branch":
        if not self.planned:
            check_kinds(self.needs, info, "needs")
        return self


class Tree(_M):
    id: str
    question: str
    source: str
    branches: list[Branch] = Field(min_length=1)


# --- cases/*.yaml (the knowledge base of past incidents) -------------------------------------

class SignatureMatch(_M):
    """A fact a finding must rest on, in the rules' condition form (a ``when.all`` entry of
    rules/*.yaml without ``as``: a field's value, or ``{op: value}`` with the rules' operators);
    engine/catalogues/kb.py compiles it with the rules' compiler."""

    fact: FactKind
    match: dict[str, Any] = Field(default_factory=dict)


class Signature(_M):
    causes: list[CauseId] = Field(min_length=1, description="taxonomy causes of the findings this case explains")
    rules: list[str] = Field(default_factory=list, description="if given, only findings of these rules link here")
    match: list[SignatureMatch] = Field(default_factory=list, description="where several cases share a cause and rule: "
                                        "facts of the finding that pick this case, every one met by one of its facts")
    facts: list[str] = Field(default_factory=list, description="facts to look at, as '<kind> <what>' (for the reader: "
                                                                "`match` is what links)")


class Case(_M):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=3)
    symptom: str = Field(min_length=3)
    signature: Signature
    investigation: list[str] = Field(min_length=1)
    root_cause: str = Field(min_length=3)
    fix: list[str] = Field(min_length=1)
    references: list[str] = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)

    @property
    def ref(self) -> str:
        return "kb/" + self.id
