"""The schemas of knowledge/localisation.yaml: the limits, severity, blame and confidences of engine/localise/.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Annotated

from pydantic import Field

from stethoscope.facts.knowledge.base import ActionId, CauseId, ComponentId, Record as _M, Severity


# --- localisation.yaml -----------------------------------------------------------------------

Fraction = Annotated[float, Field(gt=0, le=1)]


class Blame(_M):
    """What a localisation finding names: its cause, component and actions."""

    cause: CauseId
    component: ComponentId
    actions: list[ActionId] = Field(min_length=1)


class PairwiseConfidence(_M):
    base: Fraction
    per_fraction: float = Field(ge=0, le=1)
    shared_switches_max: Fraction
    port_bonus: float = Field(ge=0, le=1)
    max: Fraction
    link: Fraction
    link_on_port: Fraction


class PairwiseLimits(_M):
    min_pairs: int = Field(ge=3)  # a reference of two pairs cannot single one out
    reference_quantile: float = Field(ge=0.5, le=1)  # of the pairs' bandwidths: 0.5 the median
    slow_fraction: float = Field(gt=0, lt=1)
    consistent_fraction: float = Field(gt=0.5, le=1)  # most of an element's pairs
    min_slow_pairs: int = Field(ge=2)  # one slow pair is its link
    host: Blame
    link: Blame
    switch: Blame
    port_causes: list[CauseId] = Field(min_length=1)
    confidence: PairwiseConfidence


class CommonCauseConfidence(_M):
    base: Fraction
    per_fraction: float = Field(ge=0, le=1)
    kernel_event_bonus: float = Field(ge=0, le=1)
    max: Fraction


class CommonCauseLimits(_M):
    min_severity: Severity
    min_members: int = Field(ge=2)  # one finding is its own cause
    lift_fraction: Fraction
    min_switch_hosts: int = Field(ge=2)
    switch_components: list[ComponentId] = Field(min_length=1)
    pci_components: list[ComponentId] = Field(min_length=1)
    node_components: list[ComponentId] = Field(min_length=1)
    node_causes: list[CauseId] = Field(default_factory=list)
    switch: Blame
    pci: Blame
    confidence: CommonCauseConfidence


class RdmaPeerConfidence(_M):
    one_reporter: Fraction
    several_reporters: Fraction
    on_port: Fraction


class RdmaPeerLimits(_M):
    blame: Blame
    confidence: RdmaPeerConfidence


class Localisation(_M):
    """knowledge/localisation.yaml: the limits, severity, blame and confidences of engine/localise/."""

    source: str = Field(min_length=20)
    severity: Severity
    pairwise: PairwiseLimits
    common_cause: CommonCauseLimits
    rdma_peer: RdmaPeerLimits
