"""The schemas of knowledge/taxonomy.yaml, actions.yaml, fact_polarity.yaml, fact_routing.yaml, coverage.yaml and
collect.yaml: the vocabulary other files name, what each fact kind is, what each file checks, what `steth
collect` runs.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from stethoscope.facts.knowledge.base import CauseId, ComponentId, FactKind, Record as _M, SEVERITIES, Severity


# --- taxonomy.yaml, actions.yaml -------------------------------------------------------------

class Taxonomy(_M):
    components: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], str] = Field(min_length=1)
    severities: list[Severity]
    causes: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], str] = Field(min_length=1)

    @model_validator(mode="after")
    def _severities(self) -> "Taxonomy":
        if tuple(self.severities) != SEVERITIES:
            raise ValueError(f"severities must be {list(SEVERITIES)} (the order is the rank)")
        return self


class Actions(_M):
    source: str
    actions: dict[Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]*$")], str] = Field(min_length=1)


# --- fact_polarity.yaml, coverage.yaml -------------------------------------------------------

class PolarityEntry(_M):
    polarity: Literal["error", "warning", "state", "info"]
    component: ComponentId | None = None
    unread_reason: str | None = None
    echo: bool = False


class FactPolarity(_M):
    kinds: dict[str, PolarityEntry] = Field(min_length=1)


class SummaryRows(_M):
    """The row a summary keeps of each folded reading of its kind that has every value of ``where``: the
    values of ``fields``, in that order, then the reading's line and text (its evidence)."""
    fields: list[str] = Field(min_length=1)
    where: dict[str, str | int | bool | None] = Field(default_factory=dict)


class FactRouting(_M):
    summarise: list[FactKind] = Field(min_length=1)
    #: kind -> the field values of the facts of it that engine code reads: one set, or a list of
    #: alternatives (a fact with every value of any one of them is kept: engine/ruleengine/routing.py)
    keep_where: dict[FactKind, dict[str, str | int | bool | None] | list[dict[str, str | int | bool | None]]] = \
        Field(default_factory=dict)
    #: kind -> the field whose distinct values a summary of its folded readings lists (``fact_summary.values``,
    #: in the order first seen): what engine code reads of all its facts, which a summary then still gives
    summary_values: dict[FactKind, str] = Field(default_factory=dict)
    #: kind -> what of each folded reading its summary keeps as a row (``fact_summary.rows``): engine code that
    #: reads some of its facts one by one, each with its line (a GPU's ECC counts over time: one series a file)
    summary_rows: dict[FactKind, "SummaryRows"] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> "FactRouting":
        dup = sorted({k for k in self.summarise if self.summarise.count(k) > 1})
        if dup:
            raise ValueError(f"summarise lists kinds twice: {dup}")
        stray = sorted(set(self.keep_where) - set(self.summarise))
        if stray:
            raise ValueError(f"keep_where names kinds that are not summarised: {stray}")
        stray = sorted(set(self.summary_values) - set(self.summarise))
        if stray:
            raise ValueError(f"summary_values names kinds that are not summarised: {stray}")
        stray = sorted(set(self.summary_rows) - set(self.summarise))
        if stray:
            raise ValueError(f"summary_rows names kinds that are not summarised: {stray}")
        both = sorted(set(self.summary_rows) & set(self.summary_values))
        if both:
            raise ValueError(f"a summary lists values or keeps rows, not both: {both}")
        empty = sorted(k for k, want in self.keep_where.items() if not want or isinstance(want, list)
                       and not all(want))
        if empty:  # an empty set of values would keep every fact: then the kind is not summarised
            raise ValueError(f"keep_where gives an empty set of values for: {empty}")
        return self


class CoverageWhen(_M):
    """What a fact of a kind checks when that depends on the fact: fixed ``components`` (a driver
    load line: the GPU's parts), or the component its own ``field`` names (``dcgm_diag_result.component``:
    the test's, knowledge/dcgm.yaml); either unless a field of the fact has one of the listed values
    (a test that was skipped, a load line the log ends at, a check gpud skipped: it checked nothing;
    ``null`` is a field the line did not give). Both: the fixed ones and, where the field names one, that one too
    (an NCCL channel checks NCCL, and the network where its transport is NET: ``nccl_transport.crosses``)."""

    components: list[ComponentId] = Field(default_factory=list)
    field: str | None = None
    unless: dict[str, list[str | bool | int | None]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_form(self) -> "CoverageWhen":
        if not self.components and not self.field:
            raise ValueError("give components, field, or both")
        return self


class CoverageKind(_M):
    component: ComponentId
    covers: list[ComponentId] = Field(default_factory=list)
    document: bool = False
    log: bool = False
    listing: bool = False
    #: what coverage says of a file of this kind that checks nothing (another vendor's tool: out of scope)
    note: str | None = None
    #: with ``note``: what the file showed, made from the fields of its reader's facts ("{vendor}'s {tool}"), before the note
    named: str | None = None
    context: list[str] = Field(default_factory=list)
    #: what a file of this kind checked depends on what it showed: fact kind -> the components a
    #: fact of it checks (or the fact's field that names one); a file checks only those
    checks: dict[FactKind, list[ComponentId] | CoverageWhen] = Field(default_factory=dict)
    #: with ``checks``: what a fact of a kind ``checks`` does not name (and not of ``context``) checks; empty: nothing
    checks_others: list[ComponentId] = Field(default_factory=list)

    @model_validator(mode="after")
    def _checks_within_covers(self) -> "CoverageKind":
        stray = sorted(({c for v in self.checks.values() for c in (v if isinstance(v, list) else v.components)}
                        | set(self.checks_others)) - set(self.covers))
        if stray:
            raise ValueError(f"checks names components the kind does not cover: {stray}")
        return self


class QuietLevels(_M):
    """Log levels a structured line's own level field can name that say it is no error."""
    fields: list[Annotated[str, Field(pattern=r"^[A-Za-z_]+$")]] = Field(min_length=1)
    levels: list[Annotated[str, Field(pattern=r"^[a-z]+$")]] = Field(min_length=1)


class Coverage(_M):
    healthy_needs_any: list[ComponentId] = Field(min_length=1)
    no_verdict_causes: list[CauseId] = Field(default_factory=list)
    unjudged_rules: list[str] = Field(default_factory=list)
    diagnostic_terms: list[str] = Field(min_length=1)
    quiet_levels: QuietLevels
    kinds: dict[str, CoverageKind] = Field(min_length=1)


# --- collect.yaml ---------------------------------------------------------------------------

class Command(_M):
    """One command ``steth collect`` runs (also the schema of a ``--commands`` file)."""
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    argv: list[str] = Field(min_length=1)
    file: str = Field(pattern=r"^[A-Za-z0-9._-]+$")  # a plain name: no path out of the node folder
    timeout: float = Field(default=30, gt=0, le=600)
    fallback: list[str] | None = None


class CommandSet(_M):
    source: str = ""
    commands: list[Command] = Field(min_length=1)
