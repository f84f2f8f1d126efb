"""The rule file schema: what a domain expert writes in ``rules/<domain>/<rule_id>.yaml``.

Validated by pydantic at the edge; the loader adds file:line to every complaint and checks
fact kinds and fields against the registry in ``stethoscope.facts.model``.
"""
from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

Scalar = Union[str, int, float, bool]

#: comparison operators a rule may use inside ``match``; equality is the plain form
OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "exists")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Condition(_Strict):
    """One fact pattern. ``match`` maps a field to a value, a ``$alias.field`` join, or
    ``{op: value, ...}`` with ops in OPERATORS (several: a range). A value may name the
    pattern's own alias (``ratio: {lt: $c.below_limit}``): two fields of one fact compared, so
    that a limit the fact carries from a knowledge file decides, not code."""

    fact: str
    as_: str | None = Field(default=None, alias="as")
    match: dict[str, Any] = Field(default_factory=dict)


class When(_Strict):
    """``all``: patterns that must each match a distinct fact. ``none``: patterns no fact may
    match; a ``none`` kind may not also appear under ``all`` (durable never retracts a firing,
    so the result would depend on the order facts arrive)."""

    all: list[Condition] = Field(min_length=1)
    none: list[Condition] = Field(default_factory=list)


class FindingSpec(_Strict):
    """What a finding says. ``cause``, ``component``, ``severity`` and ``actions`` may each be
    a ``$alias.field`` naming a bound fact (a catalogue entry) instead of a fixed value; a
    fixed ``cause``/``component``/``severity`` here overrides the rule's. A referenced
    ``actions`` field holds comma-separated action ids."""

    entity: dict[str, str] = Field(default_factory=dict)
    summary: str
    cause: str | None = None
    component: str | None = None
    severity: str | None = None
    actions: list[str] | str = Field(default_factory=list)
    action_text: str | None = None
    evidence: list[str] = Field(min_length=1)
    #: ``$alias.field`` values that keep findings apart beyond rule and entity (two known
    #: bugs on one node are two findings; one bug logged by eight ranks stays one)
    distinct_by: list[str] = Field(default_factory=list)


class AssertSpec(_Strict):
    kind: str
    fields: dict[str, Any] = Field(default_factory=dict)
    evidence: list[str] = Field(min_length=1)


class Then(_Strict):
    finding: FindingSpec | None = None
    assert_: AssertSpec | None = Field(default=None, alias="assert")


class PromQLSpec(_Strict):
    """The rule's alerting form for Prometheus (``steth rules export --format prometheus-rules``):
    the same fault, stated over the exporters' series."""

    alert: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    expr: str = Field(min_length=1)
    for_: str | None = Field(default=None, alias="for", pattern=r"^[0-9]+[smhdwy]$")
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class Rule(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str
    cause: str | None = None
    component: str | None = None
    severity: Literal["info", "warning", "critical", "fatal"] | None = None
    confidence: float = Field(default=0.8, ge=0, le=1)
    #: a symptom is marked as a cascade when a root finding on the same node explains it
    symptom: bool = False
    #: causes whose findings explain this rule's findings anywhere in the job, not only on the
    #: same node (a straggler rank explains the timeouts of the ranks that waited for it)
    cascade_of: list[str] = Field(default_factory=list)
    #: where a ``cascade_of`` cause explains this rule's findings: anywhere in the job (``job``),
    #: or only on the same node (``node``: an application's CUDA error explained by a GPU that
    #: fell off the bus on its own node, not by one on another node of a large bundle)
    cascade_scope: Literal["job", "node"] = "job"
    #: the finding only says that an error went unexplained (no rule read it): it explains nothing,
    #: so it is never the root that symptoms hang under, and it ranks after every finding a rule
    #: explains (a terminal-wrapped line must not sit above the NCCL timeout it belongs to)
    unexplained: bool = False
    when: When
    then: Then
    references: list[str] = Field(default_factory=list)
    description: str | None = None
    promql: PromQLSpec | None = None

    @field_validator("then")
    @classmethod
    def _one_outcome(cls, then: Then) -> Then:
        if (then.finding is None) == (then.assert_ is None):
            raise ValueError("'then' needs exactly one of 'finding' or 'assert'")
        return then
