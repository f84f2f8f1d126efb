"""What every knowledge schema shares: the strict base record, the severities, the references to
the vocabulary (a cause, a component, an action, a fact kind: checked when the loader passes the
vocabulary in the validation context) and :class:`KnowledgeError`.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo


PACKAGE = "stethoscope.knowledge"
Severity = Literal["info", "warning", "critical", "fatal"]
SEVERITIES: tuple[str, ...] = ("info", "warning", "critical", "fatal")


class KnowledgeError(ValueError):
    """A knowledge file that does not match its schema or names an unknown id."""


# --- references to the vocabulary, checked when the vocabulary is in the validation context --

_WHERE = {"causes": "knowledge/taxonomy.yaml", "components": "knowledge/taxonomy.yaml",
          "actions": "knowledge/actions.yaml", "kinds": "knowledge/fact_polarity.yaml"}
_WHAT = {"causes": "cause", "components": "component", "actions": "action", "kinds": "fact kind"}


def _ref(table: str):
    def check(value: str, info: ValidationInfo) -> str:
        vocab = (info.context or {}).get("vocab")
        if vocab is not None and table in vocab and value not in vocab[table]:
            raise ValueError(f"unknown {_WHAT[table]} '{value}' (see {_WHERE[table]})")
        return value
    return AfterValidator(check)


CauseId = Annotated[str, _ref("causes")]
ComponentId = Annotated[str, _ref("components")]
ActionId = Annotated[str, _ref("actions")]
FactKind = Annotated[str, _ref("kinds")]


def check_kinds(kinds: list[str], info: ValidationInfo, key: str) -> None:
    vocab = (info.context or {}).get("vocab")
    bad = [k for k in kinds if vocab is not None and "kinds" in vocab and k not in vocab["kinds"]]
    if bad:
        raise ValueError(f"{key}: unknown fact kind(s) {bad} (see {_WHERE['kinds']})")


class Record(BaseModel):
    """A strict, frozen record: unknown keys are errors (the base of every schema; the area modules
    import it as ``_M``)."""
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
