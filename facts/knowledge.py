"""Every knowledge file read in one place and validated by its own schema (issue 12).

``load("ib_counters.yaml")`` reads ``knowledge/ib_counters.yaml`` from the installed package
(:mod:`importlib.resources` of ``stethoscope.knowledge``) with the safe YAML loader, validates it
with the pydantic model that :data:`SCHEMAS` names for it and returns the model, cached. Names
are relative to ``knowledge/``: ``cases/xid-79-fell-off-bus.yaml``,
``decision_trees/throughput_dropped.yaml``.

The schemas are strict: a key a model does not know is an error (``extra="forbid"``), so a
typo'd key fails at load time instead of silently meaning nothing. Fields that name a cause,
a component, an action, a severity or a fact kind are checked against the vocabulary
(``taxonomy.yaml``, ``actions.yaml``, ``fact_polarity.yaml``). Every failure is a
:class:`KnowledgeError` naming the file and the key path, e.g.
``knowledge/ib_counters.yaml: counters.0.cause: unknown cause 'ib_link_eror' (see knowledge/taxonomy.yaml)``.

This module is the lowest layer (``facts``): it never imports the engine. A new knowledge file
needs an entry in :data:`SCHEMAS` (tests/test_knowledge_schemas.py fails until it has one).
"""
from __future__ import annotations

import fnmatch
import re
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, model_validator

from stethoscope.facts import yamlio

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


def _check_kinds(kinds: list[str], info: ValidationInfo, key: str) -> None:
    vocab = (info.context or {}).get("vocab")
    bad = [k for k in kinds if vocab is not None and "kinds" in vocab and k not in vocab["kinds"]]
    if bad:
        raise ValueError(f"{key}: unknown fact kind(s) {bad} (see {_WHERE['kinds']})")


class _M(BaseModel):
    """A strict, frozen record: unknown keys are errors."""
    model_config = ConfigDict(extra="forbid", frozen=True)


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


# --- CUDA errors -----------------------------------------------------------------------------

class CudaError(_M):
    api: Literal["runtime", "driver"]
    code: int
    name: str
    text: str
    description: str
    texts: list[str]
    cause: CauseId
    component: ComponentId
    severity: Severity
    actions: list[ActionId]
    specific_rules: list[str]
    judgement: str


class CudaErrors(_M):
    source: str
    generator: str
    runtime_version: int
    driver_version: int
    errors: list[CudaError] = Field(min_length=1)


class CudaJudgement(_M):
    cause: CauseId
    component: ComponentId
    severity: Severity
    actions: list[ActionId]
    judgement: str


class CudaText(_M):
    text: str
    source: str


class CudaJudgementGroup(CudaJudgement):
    names: list[str] = Field(min_length=1)
    texts: list[CudaText] = Field(default_factory=list)
    specific_rules: list[str] = Field(default_factory=list)


class CudaErrorJudgements(_M):
    source: str
    default: CudaJudgement
    groups: list[CudaJudgementGroup]


# --- dcgm.yaml -------------------------------------------------------------------------------

class DcgmTest(_M):
    names: list[str] = Field(min_length=1)
    component: ComponentId
    cause: CauseId


class DcgmNotComparable(_M):
    match: str = Field(min_length=1)
    why: str
    dcgm: bool = False
    #: False: the message names no cause of its own (the profiling library's unrecoverable error): no finding of health
    cause_shown: bool = True


class DcgmHealthSystem(_M):
    names: list[str] = Field(min_length=1)
    component: ComponentId
    cause: CauseId
    actions: list[ActionId] = Field(min_length=1)


class DcgmHealthMessage(_M):
    reason: str = Field(pattern=r"^DCGM_FR_[A-Z0-9_]+$")
    format: str = Field(min_length=1)
    component: ComponentId | None = None  # None: the health system's
    cause: CauseId | None = None


class DcgmSelfMessage(_M):
    match: str = Field(min_length=1)  # case-insensitive substring of the ERROR line's message
    why: str
    exception_follows: bool = False  # DCGM logs the caught exception on the next line ("Exception: ...")


class DcgmErrorCode(_M):
    id: int = Field(ge=1)
    reason: str = Field(pattern=r"^DCGM_FR_[A-Z0-9_]+$")
    text: str = Field(min_length=1)
    severity: str = Field(pattern=r"^DCGM_ERROR_[A-Z]+$")
    category: str = Field(pattern=r"^DCGM_FR_EC_[A-Z_]+$")


class DcgmLevel(_M):
    level: int = Field(ge=1, le=4)
    tests: list[str] = Field(min_length=1)  # lowercase test names that first appear at this level


class Dcgm(_M):
    source: str
    tests: list[DcgmTest]
    levels: list[DcgmLevel] = []
    not_comparable: list[DcgmNotComparable]
    health_systems: list[DcgmHealthSystem] = []
    health_results: dict[Literal["WARNING", "FAILURE"], Severity] = {}
    health_messages: list[DcgmHealthMessage] = []
    self_messages: list[DcgmSelfMessage] = []
    error_codes: list[DcgmErrorCode] = []


# --- nvsentinel.yaml -------------------------------------------------------------------------

class NvsentinelAction(_M):
    fault: bool = True  # False: the monitor asks for nothing (NONE)
    severity: Severity
    actions: list[ActionId] = Field(min_length=1)


class NvsentinelCheck(_M):
    names: list[str] = Field(min_length=1)
    health_system: str | None = None  # a name of knowledge/dcgm.yaml health_systems
    xid: bool = False  # a numeric code is an Xid (knowledge/xid.yaml)
    component: ComponentId | None = None
    cause: CauseId | None = None


class Nvsentinel(_M):
    source: str
    actions: dict[str, NvsentinelAction]
    checks: list[NvsentinelCheck]


# --- expected_perf.yaml ----------------------------------------------------------------------

class PerfCurve(_M):
    points: dict[int, float] = Field(min_length=1)  # message size (bytes) -> busbw (GB/s)


class PerfPlatform(_M):
    id: str
    title: str
    gpu_names: list[str] = Field(min_length=1)
    nranks: int = Field(gt=0)
    nodes: int = Field(gt=0)
    min_ratio: float = Field(gt=0, le=1)
    collectives: dict[str, PerfCurve] = Field(min_length=1)
    source: str


class NvlinkPairProduct(_M):
    gpu_names: list[str] = Field(min_length=1)  # as CUDA names the device, without a leading "NVIDIA "
    link_gbps: float = Field(gt=0)  # line rate of one NVLink, GB/s in each direction
    source: str


class NvlinkPairs(_M):
    collectives: list[str] = Field(min_length=1)
    min_bytes: int = Field(gt=0)
    efficiency: float = Field(gt=0, le=1)
    efficiency_source: str
    min_ratio: float = Field(gt=0, le=1)
    products: list[NvlinkPairProduct] = Field(min_length=1)


class ExpectedPerf(_M):
    platforms: list[PerfPlatform]
    nvlink_pairs: NvlinkPairs | None = None


# --- ib_counters.yaml, nic_line_rate.yaml ----------------------------------------------------

class IbCounter(_M):
    counter: str
    field: str
    limit_per_hour: int = Field(ge=0)
    cause: CauseId
    bits: int = Field(gt=0)


class IbCounters(_M):
    source: str
    counters: list[IbCounter] = Field(min_length=1)


class IbPortLimit(_M):
    """When a port is below one reference: ``ratio`` (its value / the reference) < ``below_ratio``.
    A port equal to its reference makes no comparison fact, so the limit may not exceed 1."""
    below_ratio: float = Field(gt=0, le=1)
    min_ports: int | None = Field(default=None, ge=2)  # rate_vs_fleet: ports that must agree on the usual rate
    why: str = Field(min_length=10)
    source: str = Field(min_length=10)


class IbPortComparison(_M):
    source: str = Field(min_length=10)
    comparisons: dict[Literal["rate_vs_siblings", "width_vs_siblings", "rate_vs_fleet", "rate_vs_inventory"], IbPortLimit]

    @model_validator(mode="after")
    def _all_four(self) -> "IbPortComparison":
        missing = {"rate_vs_siblings", "width_vs_siblings", "rate_vs_fleet", "rate_vs_inventory"} - set(self.comparisons)
        if missing:
            raise ValueError(f"comparisons: missing {', '.join(sorted(missing))}")
        if self.comparisons["rate_vs_fleet"].min_ports is None:
            raise ValueError("comparisons.rate_vs_fleet: min_ports is required")
        return self


class LinkQualityCounter(_M):
    tool: Literal["mlxlink", "ethtool"]
    counter: str = Field(min_length=3)
    limit: float = Field(ge=0)
    check: Literal["ber", "errors", "link_down", "pause_storm", "drops", "host_rx_buffer"]
    cause: CauseId
    severity: Severity
    meaning: str = Field(min_length=20)
    # a cumulative count judged as a share: the counter of the same port it is divided by (what
    # the port carried in the same span), the limit then being that fraction
    per: str | None = Field(default=None, min_length=3)

    @model_validator(mode="after")
    def _rate_limit_has_a_log(self) -> "LinkQualityCounter":
        # rule link_ber_over_limit compares log10(value) with log10(limit): a rate's limit of 0 has none
        if self.check == "ber" and self.limit <= 0:
            raise ValueError(f"{self.counter}: a BER limit must be above 0 (the rule compares logarithms)")
        return self


class LinkQuality(_M):
    """knowledge/link_quality.yaml: the limits of the link-quality counters (mlxlink, ethtool -S)."""

    source: str = Field(min_length=20)
    counters: list[LinkQualityCounter] = Field(min_length=1)

    def entry(self, tool: str, counter: str) -> LinkQualityCounter | None:
        return next((c for c in self.counters if c.tool == tool and c.counter == counter), None)


class RdmaHwCounter(_M):
    counter: str = Field(min_length=3)  # the hw_counters file name, as rdma statistic prints it too
    check: Literal["packet_loss", "out_of_sequence", "receive_buffer", "completion_error", "corruption"]
    cause: CauseId
    warn_total: int | None = Field(default=None, gt=0)  # a single reading at or above it: a warning
    on_growth: Literal["info", "warning"]  # the severity when it grew between two readings
    flush: str | None = None  # the flush counter of the same side, subtracted before judging
    meaning: str = Field(min_length=20)


class RdmaHwCounters(_M):
    """knowledge/rdma_hw_counters.yaml: what an RDMA port's mlx5 hw_counters mean and when they matter."""

    source: str = Field(min_length=20)
    counters: list[RdmaHwCounter] = Field(min_length=1)


class NicLineRate(_M):
    min_ratio: float = Field(gt=0, le=1)
    large_size_bytes: int = Field(gt=0)
    multi_node_min_ranks: int = Field(gt=1)
    sources: list[str] = Field(min_length=1)


class PcieHostCopyProduct(_M):
    patterns: list[str] = Field(min_length=1)
    generation: Literal[3, 4, 5, 6] | None


class PcieHostCopy(_M):
    """knowledge/pcie_host_copy.yaml: what a GPU's pinned host copy reaches over its PCIe link."""

    source: str = Field(min_length=20)
    below_ratio: float = Field(gt=0, le=1)
    lanes: int = Field(gt=0)
    generations: dict[int, float] = Field(min_length=1)
    products: list[PcieHostCopyProduct] = Field(min_length=1)


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


# --- NCCL ------------------------------------------------------------------------------------

class NcclArchSupport(_M):
    architecture: str
    #: words of the GPU's product name (nvidia-smi's, split at spaces, dashes, slashes and
    #: underscores, compared case-insensitively) any of which picks this entry; none: any product
    product_words: list[str] = Field(default_factory=list)
    compute_capability: str = Field(pattern=r"^\d+\.\d+$")
    nccl_min: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    cuda_min: str = Field(pattern=r"^\d+\.\d+$")
    source: str


class NcclArchSupportTable(_M):
    support: list[NcclArchSupport] = Field(min_length=1)


class NcclEnvSetting(_M):
    slow_values: list[str] = Field(min_length=1)
    effect: str
    own_rule: bool = False


class NcclEnv(_M):
    settings: dict[Annotated[str, Field(pattern=r"^NCCL_[A-Z0-9_]+$")], NcclEnvSetting] = Field(min_length=1)


class NcclSymptom(_M):
    fact: FactKind
    #: a rule's condition on typed fields (compiled by the rules' compiler in
    #: engine/combine/nccl_known_issues.py; tests/test_nccl_known_issues.py compiles each)
    match: dict[str, Any]


class VersionRange(_M):
    min: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    max: str = Field(pattern=r"^\d+\.\d+\.\d+$")


class NcclKnownIssue(_M):
    id: str
    title: str
    affected: VersionRange
    fixed_in: str | None = Field(default=None, pattern=r"^\d+\.\d+\.\d+$")
    symptom: str | list[str]
    located_by: dict[str, VersionRange] | None = None
    workaround: str
    source: str

    @property
    def symptoms(self) -> list[str]:
        return [self.symptom] if isinstance(self.symptom, str) else list(self.symptom)


class NcclKnownIssues(_M):
    symptoms: dict[str, NcclSymptom]
    issues: list[NcclKnownIssue]

    @model_validator(mode="after")
    def _symptoms_exist(self) -> "NcclKnownIssues":
        for i, issue in enumerate(self.issues):
            bad = [s for s in issue.symptoms if s not in self.symptoms]
            if bad:
                raise ValueError(f"issues.{i} ({issue.id}): unknown symptom(s) {bad} (define them under symptoms:)")
            # rules/nccl/nccl_known_issue_*.yaml join one or two symptoms (a third needs its rules)
            if not 1 <= len(set(issue.symptoms)) == len(issue.symptoms) <= 2:
                raise ValueError(f"issues.{i} ({issue.id}): one or two distinct symptoms (the rules that join them take two at most)")
        # a frame places the version of one bug only: the rules join a frame seen with its entry by the frame alone
        owner: dict[str, str] = {}
        for issue in self.issues:
            for frame in issue.located_by or {}:
                if owner.setdefault(frame, issue.id) != issue.id:
                    raise ValueError(f"located_by frame {frame!r} is listed by {owner[frame]} and {issue.id}")
        return self


class NvlsMinGpus(_M):
    from_: str = Field(alias="from")
    until: str | None = None
    gpus: int = Field(gt=0)
    single_node: bool = False


class NvlsDisable(_M):
    name: str
    values: list[str]


class NvlsNccl(_M):
    first_version: str
    min_local_gpus: list[NvlsMinGpus]
    disable: NvlsDisable


class GpuPattern(_M):
    pattern: str
    source: str


class NvlsGpus(_M):
    capable: list[GpuPattern]
    not_capable: list[GpuPattern]


class Nvls(_M):
    nccl: NvlsNccl
    gpus: NvlsGpus


# --- kernel_messages.yaml: which unread kernel records say an error --------------------------

def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return value


class KernelSubsystem(_M):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    match: Annotated[str, AfterValidator(_regex)]


class KernelBenign(_M):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    sample: str = Field(min_length=10)  # a real record (or its form as the source prints it, marked CONSTRUCTED)
    match: Annotated[str, AfterValidator(_regex)]
    meaning: str = Field(min_length=10)
    source: str = Field(min_length=10)

    @model_validator(mode="after")
    def _sample_matches(self):
        if re.search(self.match, _kernel_message(self.sample)) is None:
            raise ValueError(f"benign {self.id}: match does not match its sample")
        return self


def _kernel_message(line: str) -> str:
    """A sample's message: its dmesg stamp off."""
    return re.sub(r"^\s*\[[^\]]{1,40}\]\s*", "", line)


class KernelMessages(_M):
    source: str = Field(min_length=20)
    words: list[str] = Field(min_length=1)
    subsystems: list[KernelSubsystem] = Field(min_length=1)
    benign: list[KernelBenign] = Field(default_factory=list)


# --- nvlink_expected.yaml, torch_warnings.yaml -----------------------------------------------

class NvlinkProduct(_M):
    match: str
    form: Literal["sxm", "bridge"]
    wired_links: list[int] | None = None
    source: str


class NvlinkExpected(_M):
    products: list[NvlinkProduct] = Field(min_length=1)


class TorchWarning(_M):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    match: str = Field(min_length=1)
    benign: bool = False
    # PyTorch's Python warnings (warnings.warn) whose message starts on the line below CPython's
    # "<file>:<line>: <Category>:" header, or is pasted without it: the text alone is PyTorch's
    bare: bool = False
    meaning: str
    source: str


class TorchWarnings(_M):
    source: str
    warnings: list[TorchWarning]


# --- the Xid catalogue (generated by tools/gen_xid_catalogue.py) and its inputs --------------

# --- ib_async_events.yaml: what each HCA async event means ------------------------------------

class IbAsyncEventEntry(_M):
    event: str = Field(min_length=2)  # ibv_event_type_str(), exact
    ibv: str = Field(pattern=r"^IBV_EVENT_[A-Z_]+$")
    meaning: str = Field(min_length=10)
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId] = Field(min_length=1)
    specific_rule: bool = False  # a dedicated rule reads this event; the catalogue rule skips it
    number: int | None = Field(default=None, ge=0)  # its value in libibverbs' enum ibv_event_type (verbs.h)


class IbAsyncEvents(_M):
    source: str = Field(min_length=10)
    events: list[IbAsyncEventEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "IbAsyncEvents":
        names = [e.event for e in self.events]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"events listed twice: {dup}")
        return self

    def entry(self, event: str) -> IbAsyncEventEntry | None:
        """The entry of an event as NCCL printed it (case and spacing as libibverbs' string)."""
        key = " ".join(event.split()).lower()
        return next((e for e in self.events if e.event.lower() == key), None)

    def by_number(self, number: int) -> IbAsyncEventEntry | None:
        """The entry of an event NCCL printed only by its number ("unknown event type (18)")."""
        return next((e for e in self.events if e.number == number), None)


# --- ib_wc_status.yaml: what each failed RDMA work completion status means --------------------

class IbWcStatusEntry(_M):
    status: int = Field(ge=0, le=255)
    ibv: str = Field(pattern=r"^IBV_WC_[A-Z_]+$")
    name: str = Field(min_length=2)  # ibv_wc_status_str(), exact
    meaning: str = Field(min_length=10)
    severity: Severity
    cause: CauseId
    component: ComponentId = "network"
    actions: list[ActionId] = Field(min_length=1)
    specific_rule: bool = False  # a dedicated rule reads this status; the catalogue rule skips it


class IbWcStatuses(_M):
    source: str = Field(min_length=10)
    statuses: list[IbWcStatusEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "IbWcStatuses":
        nums = [s.status for s in self.statuses]
        dup = sorted({n for n in nums if nums.count(n) > 1})
        if dup:
            raise ValueError(f"statuses listed twice: {dup}")
        return self

    def entry(self, status: int) -> IbWcStatusEntry | None:
        return next((s for s in self.statuses if s.status == status), None)

    def leading_name(self, text: str) -> IbWcStatusEntry | None:
        """The status whose ibv_wc_status_str() name ``text`` starts with (exact case, the longest
        such name): a status a program printed only by libibverbs' string, maybe with more after it."""
        return max((s for s in self.statuses if text.startswith(s.name)), key=lambda s: len(s.name), default=None)


# --- redfish_message_ids.yaml: which SEL event a Redfish LogEntry's MessageId (or SEL code) is ------

class RedfishMessageEntry(_M):
    #: a MessageId's registry prefix and key, the version cut ("OpenBMC.PowerSupplyFailed" for
    #: "OpenBMC.0.1.PowerSupplyFailed"); or, for a SEL entry whose MessageId is a vendor's hex
    #: code (iDRAC "1ffff"), its Redfish SensorType and EntryCode ("Power Supply / Converter",
    #: ["Redundancy Lost"])
    message_ids: list[str] = []
    sensor_type: str | None = None
    entry_codes: list[str] = []
    #: a vendor's message text as its log prints it without a MessageId (HPE IML "Uncorrectable Machine
    #: Check Exception (Board 0, ...)"): the words before the detail in parentheses, compared without case
    texts: list[str] = []
    #: for a registry message about any resource (DMTF ResourceEvent): the kind of part its arguments
    #: name (power_supply, fan, memory, processor); the entry matches only an entry about such a part
    part: Literal["power_supply", "fan", "memory", "processor"] | None = None
    event: str = Field(pattern=r"^[a-z][a-z0-9_]*$")  # the event id of ipmi_sel_events.yaml
    source: str = Field(min_length=5)

    @model_validator(mode="after")
    def _keyed(self) -> "RedfishMessageEntry":
        if not self.message_ids and not (self.sensor_type and self.entry_codes) and not self.texts:
            raise ValueError(f"{self.event}: an entry names message ids, message texts or a sensor type with entry codes")
        return self


class RedfishMessageIds(_M):
    source: str = Field(min_length=10)
    #: Redfish LogEntry SensorType (DMTF LogEntry schema, from IPMI's table 42-3) -> ipmitool's sensor type
    sensor_types: dict[str, str]
    messages: list[RedfishMessageEntry] = Field(min_length=1)

    def event_of(self, message_id: str | None, sensor_type: str | None, entry_code: str | None,
                 part: str | None = None) -> str | None:
        """``part``: the kind of part the entry's message or arguments name, for the entries keyed by one."""
        idx = self.__dict__.get("_idx")
        if idx is None:
            idx = {}
            for m in self.messages:
                for k in m.message_ids:
                    idx[("id", k.lower()) if m.part is None else ("id", k.lower(), m.part)] = m.event
                for c in m.entry_codes:
                    idx[("sel", (m.sensor_type or "").lower(), c.lower())] = m.event
            self.__dict__["_idx"] = idx
        if message_id:
            hit = idx.get(("id", message_id.lower()))  # a D-Bus error name, whole
            if hit:
                return hit
            parts = message_id.split(".")
            if len(parts) >= 2:
                key = f"{parts[0]}.{parts[-1]}".lower()
                hit = idx.get(("id", key)) or (idx.get(("id", key, part)) if part else None)
                if hit:
                    return hit
        if sensor_type and entry_code:
            return idx.get(("sel", sensor_type.lower(), entry_code.lower()))
        return None

    def event_of_text(self, message: str) -> str | None:
        """The event a vendor's message text names (``texts``): the longest listed text the message
        starts with, case and runs of blanks ignored, followed by its end, " (", "." or " -"."""
        norm = " ".join(message.split()).lower()
        best: tuple[int, str] | None = None
        for m in self.messages:
            for t in m.texts:
                t = " ".join(t.split()).lower()
                if norm.startswith(t) and (len(norm) == len(t) or norm[len(t)] in " .(-:,") \
                        and (best is None or len(t) > best[0]):
                    best = (len(t), m.event)
        return best[1] if best else None


# --- ipmi_sel_events.yaml: what a BMC System Event Log entry means -----------------------------

class IpmiSelEventEntry(_M):
    event: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    sensor_type: str = Field(min_length=2)  # ipmitool's sensor type string ("Power Supply")
    descriptions: list[str] = Field(min_length=1)  # ipmitool's event strings; "*": all of the type
    severity: Severity
    cause: CauseId | None = None  # None: a record of normal operation (severity info)
    component: ComponentId | None = None
    actions: list[ActionId] = []
    meaning: str = Field(min_length=10)

    @model_validator(mode="after")
    def _fault_or_record(self) -> "IpmiSelEventEntry":
        if (self.cause is None) != (self.severity == "info"):
            raise ValueError(f"{self.event}: a fault has a cause and severity above info, a record neither")
        if self.cause is not None and (self.component is None or not self.actions):
            raise ValueError(f"{self.event}: a fault names its component and actions")
        return self


class IpmiSelEvents(_M):
    source: str = Field(min_length=10)
    events: list[IpmiSelEventEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "IpmiSelEvents":
        seen: dict[tuple[str, str], str] = {}
        for e in self.events:
            for d in e.descriptions:
                key = (e.sensor_type.lower(), " ".join(d.split()).lower())
                if key in seen:
                    raise ValueError(f"{e.sensor_type} / {d}: listed by {seen[key]} and {e.event}")
                seen[key] = e.event
        names = [e.event for e in self.events]
        if len(set(names)) != len(names):
            raise ValueError("an event id is listed twice")
        return self

    def entry(self, sensor_type: str | None, description: str) -> IpmiSelEventEntry | None:
        """The entry of a SEL event by ipmitool's sensor type and description (case and
        surrounding blanks ignored, the " (detail)" suffix already cut off)."""
        if sensor_type is None:
            return None
        index = self._index()
        st = sensor_type.lower()
        return index.get((st, " ".join(description.split()).lower())) or index.get((st, "*"))

    def _index(self) -> dict[tuple[str, str], IpmiSelEventEntry]:
        idx = self.__dict__.get("_idx")
        if idx is None:
            idx = {(e.sensor_type.lower(), " ".join(d.split()).lower()): e for e in self.events for d in e.descriptions}
            self.__dict__["_idx"] = idx
        return idx

    def sensor_types(self) -> list[str]:
        return sorted({e.sensor_type for e in self.events}, key=len, reverse=True)


# --- nccl_results.yaml: what each ncclResult_t tells -----------------------------------------

class NcclResultEntry(_M):
    name: str = Field(pattern=r"^nccl[A-Z]\w+$")
    code: int = Field(ge=0)
    text: str = Field(min_length=5)  # ncclGetErrorString(), exact
    detail: str = Field(min_length=5)  # PyTorch's getNcclErrorDetailStr() line
    component: ComponentId
    meaning: str = Field(min_length=10)
    actions: list[ActionId] = Field(min_length=1)


class NcclResults(_M):
    source: str = Field(min_length=10)
    results: list[NcclResultEntry] = Field(min_length=1)

    def entry(self, name: str) -> NcclResultEntry | None:
        return next((r for r in self.results if r.name == name), None)


# --- gpu_products.yaml: products that never sit on an NVSwitch board -------------------------

class GpuProducts(_M):
    source: str = Field(min_length=10)
    no_nvswitch_words: list[str] = Field(min_length=1)


# --- gpu_pci_ids.yaml: the first driver release that lists each PCI device ID (generated) ---

_RELEASE = r"^\d+\.\d+(\.\d+)*$"


class GpuPciId(_M):
    name: str = Field(min_length=2)
    first_release: str = Field(pattern=_RELEASE)


class GpuPciIds(_M):
    source: str = Field(min_length=10)
    latest_release: str = Field(pattern=_RELEASE)
    devices: dict[str, GpuPciId] = Field(min_length=1)

    def first_release(self, device_id: str) -> str | None:
        """The lowest release whose README lists PCI device ``device_id`` ("2330"), or None."""
        entry = self.devices.get(device_id.lower())
        return entry.first_release if entry is not None else None


class XidEntry(_M):
    xid: int
    mnemonic: str
    description: str
    unused: bool
    immediate: str
    investigatory: str
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId]
    specific_rules: list[str]
    escalate_on_recurrence: bool
    judgement: str | None = None


class Nvlink5Row(_M):
    xid: int
    unit: str
    intrinfo_v1: str  # NVIDIA's bit pattern of the first register, MSB first, '-' = any
    intrinfo_v2: str
    error_status: str
    immediate: str
    investigatory: str
    nvidia_severity: str
    severity: Severity
    actions: list[ActionId]
    consequence: str


class RecoveryAction(_M):
    severity: Severity
    cause: CauseId
    actions: list[ActionId]
    component: ComponentId = "gpu"  # what the action recovers: the GPU, or (Recover IMEX Domain) the NVLink fabric


class SxidEntry(_M):
    sxid: int
    name: str
    description: str
    fatality: Literal["always_fatal", "potential_fatal", "non_fatal"]
    impact: str
    recovery: str
    document: str
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId]


class UnlistedXidJudgement(_M):
    """What a finding says of an Xid code the catalogue lacks (a newer driver)."""
    mnemonic: str
    description: str
    severity: Severity
    actions: list[ActionId]
    source: str = Field(min_length=10)
    why: str | None = None  # in xid_judgements.yaml


class UnlistedXid(UnlistedXidJudgement):
    """The same in the generated catalogue, with the cause and component of unused codes."""
    cause: CauseId
    component: ComponentId


class UnlistedSxid(_M):
    """An SXid the Fabric Manager guide lacks, by the line's own Fatal/Non-fatal word."""
    name: str
    fatality: Literal["always_fatal", "potential_fatal", "non_fatal"]
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId]
    source: str = Field(min_length=10)


class UnlistedNvlink5(_M):
    """An Xid 144-150 line the decode sheet has no row for and that calls itself non-fatal
    (a fatal one takes its code's catalogue entry)."""
    severity: Severity
    source: str = Field(min_length=10)


class XidUnlisted(_M):
    source: str = Field(min_length=10)
    xid: UnlistedXid
    sxid_fatal: UnlistedSxid
    sxid_non_fatal: UnlistedSxid
    nvlink5_non_fatal: UnlistedNvlink5


class XidCatalogue(_M):
    source: str
    generator: str
    xids: list[XidEntry]
    nvlink5_decode: list[Nvlink5Row]
    recovery_actions: dict[str, RecoveryAction]
    recovery_actions_source: str
    sxids: list[SxidEntry]
    sxid_source: str
    unlisted: XidUnlisted

    @cached_property
    def _by_code(self) -> tuple[dict[int, XidEntry], dict[int, SxidEntry]]:
        return {e.xid: e for e in self.xids}, {e.sxid: e for e in self.sxids}

    def xid(self, code: int) -> XidEntry | None:
        return self._by_code[0].get(code)

    def sxid(self, code: int) -> SxidEntry | None:
        return self._by_code[1].get(code)


class XidCauseCodes(_M):
    component: ComponentId
    codes: list[int] = Field(min_length=1)


class CauseAndComponent(_M):
    cause: CauseId
    component: ComponentId


class XidOverride(_M):
    severity: Severity | None = None
    actions: list[ActionId] | None = None
    why: str
    source: str


class SeverityActions(_M):
    severity: Severity
    actions: list[ActionId]


class XidRecoveryActions(_M):
    """``source`` plus one entry per recovery action name the driver prints (read as ``entries``)."""
    source: str
    entries: dict[str, RecoveryAction] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _entries(cls, data: Any) -> Any:
        if isinstance(data, dict) and "entries" not in data:
            return {"source": data.get("source"), "entries": {k: v for k, v in data.items() if k != "source"}}
        return data


class SxidJudgement(_M):
    source: str
    always_fatal: SeverityActions
    potential_fatal: SeverityActions
    non_fatal: SeverityActions
    cause: CauseId
    component: ComponentId


class UnlistedSxidJudgement(_M):
    fatal: Literal["always_fatal", "potential_fatal", "non_fatal"]
    non_fatal: Literal["always_fatal", "potential_fatal", "non_fatal"]
    name: str
    source: str = Field(min_length=10)


class XidUnlistedJudgements(_M):
    source: str = Field(min_length=10)
    xid: UnlistedXidJudgement
    sxid: UnlistedSxidJudgement
    nvlink5_non_fatal_class: str


class XidJudgements(_M):
    source: str
    bucket_severity: dict[str, Severity]
    bucket_actions: dict[str, list[ActionId]]
    causes: dict[CauseId, XidCauseCodes]
    unused_cause: CauseAndComponent
    overrides: dict[int, XidOverride]
    specific_rules: dict[int, list[str]]
    escalate_on_recurrence_causes: list[CauseId]
    recovery_actions: XidRecoveryActions
    nvlink5_severity: dict[str, Severity]
    sxid: SxidJudgement
    unlisted: XidUnlistedJudgements

    @model_validator(mode="after")
    def _unlisted_class(self) -> "XidJudgements":
        if self.unlisted.nvlink5_non_fatal_class not in self.nvlink5_severity:
            raise ValueError(f"unlisted.nvlink5_non_fatal_class: '{self.unlisted.nvlink5_non_fatal_class}' is not a key of nvlink5_severity")
        return self


class Xid74Group(_M):
    reg: int = Field(alias="register")  # "register" would shadow a pydantic attribute
    bits: list[int]
    class_: str = Field(alias="class")  # "class" is a Python keyword
    nvidia: str


class Xid74Escalation(_M):
    events: int = 0
    severity: Severity
    actions: list[ActionId]


class Xid74Class(_M):
    rank: int
    severity: Severity
    part: str
    actions: list[ActionId]
    repeat: Xid74Escalation | None = None
    solo: Xid74Escalation | None = None


class Xid74Workflow(_M):
    source: str
    valid_registers: list[int]
    groups: list[Xid74Group]
    classes: dict[str, Xid74Class]

    @model_validator(mode="after")
    def _classes_exist(self) -> "Xid74Workflow":
        bad = sorted({g.class_ for g in self.groups} - set(self.classes))
        if bad:
            raise ValueError(f"groups name class(es) {bad} that classes: does not define")
        return self

    def classify(self, register: int, bit: int) -> Xid74Group | None:
        return next((g for g in self.groups if g.reg == register and bit in g.bits), None)


class NvrmMessage(_M):
    message_kind: str
    status: str
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId]
    meaning: str


class NvrmMessages(_M):
    source: str
    messages: list[NvrmMessage]


class NcclWarnMessage(_M):
    message_kind: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    format: str
    source: str
    severity: Severity
    cause: CauseId
    component: ComponentId
    actions: list[ActionId]
    meaning: str


class NcclWarnMessages(_M):
    source: str
    messages: list[NcclWarnMessage]


class RmInitStage(_M):
    base: int = Field(ge=0)
    stage: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    meaning: str


class NvStatusCode(_M):
    name: str = Field(pattern=r"^NV_(?:OK|ERR_[A-Z0-9_]+|WARN_[A-Z0-9_]+)$")
    text: str


class NvStatusCodes(_M):
    source: str
    rm_init_stages: list[RmInitStage] = Field(min_length=1)
    status_codes: dict[int, NvStatusCode] = Field(min_length=1)


# --- process_names.yaml -------------------------------------------------------------------

class SharedProcessName(_M):
    pattern: str = Field(min_length=1, max_length=40)
    why: str


class ProcessNames(_M):
    source: str
    shared: list[SharedProcessName] = Field(min_length=1)

    @cached_property
    def _compiled(self) -> re.Pattern:
        return re.compile("|".join(fnmatch.translate(s.pattern) for s in self.shared))

    def is_shared(self, name: str) -> bool:
        """Whether many different programs run under ``name`` (an interpreter, a shell, a framework's thread)."""
        return self._compiled.match(name) is not None


# --- gpu_driver_modules.yaml ---------------------------------------------------------------

class GpuDriverModule(_M):
    #: as the kernel prints it in %pS and "Modules linked in:": the file name with '-' as '_'
    name: str = Field(pattern=r"^[a-z0-9_]{1,56}$")
    what: str = Field(min_length=5)


class GpuDriverModules(_M):
    source: str = Field(min_length=20)
    modules: list[GpuDriverModule] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "GpuDriverModules":
        names = [m.name for m in self.modules]
        if dup := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"modules: listed twice: {dup}")
        return self

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(m.name for m in self.modules)


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
            _check_kinds(self.needs, info, "needs")
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


# --- patrol.yaml: the suite `steth patrol run` runs ------------------------------------------

class PatrolMetric(_M):
    """One number a step's facts give, exported as ``steth_patrol_<name>`` and kept in the history."""
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    help: str = Field(min_length=3)
    unit: str
    fact: FactKind
    value: str = Field(pattern=r"^[a-z][a-z0-9_]*$")  # the fact's numeric field
    where: dict[str, str | int | float | bool] = Field(default_factory=dict)  # fact fields that must equal these
    labels: list[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]] = Field(default_factory=list)
    #: a fact field whose text is turned into the number (dcgmi's "Pass"/"Fail")
    value_map: dict[str, float] | None = None
    better: Literal["higher", "lower", "none"] = "none"
    #: a run is a problem when it is this fraction worse than the baseline (0.1: 10 % below)
    tolerance: float | None = Field(default=None, gt=0, lt=1)
    tolerance_source: str | None = None

    @model_validator(mode="after")
    def _tolerance_has_direction(self) -> "PatrolMetric":
        if self.tolerance is not None and self.better == "none":
            raise ValueError(f"metric {self.name}: a tolerance needs better: higher or lower")
        if self.tolerance is not None and not self.tolerance_source:
            raise ValueError(f"metric {self.name}: a tolerance needs tolerance_source (where the figure comes from)")
        return self


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_PLACEHOLDERS = {"python", "probe", "gpus", "scratch"}


class PatrolStep(_M):
    """One command of the suite. ``argv`` may name ``{python}`` (the interpreter with PyTorch),
    ``{probe}`` (facts/torch_probe.py), ``{gpus}`` (GPUs nvidia-smi lists), ``{scratch}`` (a
    folder a storage test may write in: ``$STETH_PATROL_SCRATCH``, else the run's own folder)
    and ``{env:NAME}`` (an environment variable the step lists under ``requires_env``: the peer
    a network test talks to)."""
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    title: str = Field(min_length=3)
    argv: list[str] = Field(min_length=1)
    file: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    timeout: float = Field(gt=0, le=3600)
    reads: str = Field(pattern=r"^[a-z0-9_]+$")  # the parser KIND (knowledge/coverage.yaml) that reads `file`
    requires: list[str] = Field(default_factory=list)  # programs that must be on PATH
    #: environment variables that must be set and not empty (a network test's peer); the step is
    #: skipped with ``skip_reason`` and the names of those missing otherwise
    requires_env: list[Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]*$")]] = Field(default_factory=list)
    skip_reason: str = Field(min_length=3)  # what the operator learns when a required program is absent
    #: where the command runs: the run's folder, or the folder of its first ``requires`` program
    #: (links resolved: gpu-burn loads compare.ptx from its working directory)
    cwd: Literal["run", "program"] = "run"
    #: run only when every named step was skipped (the PyTorch burn when there is no gpu-burn)
    instead_of: list[str] = Field(default_factory=list)
    #: `every` runs each patrol; `nightly` only with --include nightly (dcgmi diag, a long sweep)
    schedule: Literal["every", "nightly"] = "every"
    metrics: list[PatrolMetric] = Field(default_factory=list)

    @model_validator(mode="after")
    def _placeholders_known(self) -> "PatrolStep":
        for a in [*self.argv, *self.requires]:
            for name in _PLACEHOLDER.findall(a):
                if name.startswith("env:"):
                    if name[4:] not in self.requires_env:
                        raise ValueError(f"step {self.name}: {{{name}}} names a variable that requires_env does not list")
                elif name not in _PLACEHOLDERS:
                    raise ValueError(f"step {self.name}: unknown placeholder {{{name}}} (known: {sorted(_PLACEHOLDERS)}, env:NAME)")
        if self.cwd == "program" and not self.requires:
            raise ValueError(f"step {self.name}: cwd: program needs the program under requires")
        return self


class PatrolSuite(_M):
    source: str
    version: int = Field(ge=1)
    steps: list[PatrolStep] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "PatrolSuite":
        names = [s.name for s in self.steps]
        files_ = [s.file for s in self.steps]
        metrics = [m.name for s in self.steps for m in s.metrics]
        for what, seq in (("step", names), ("file", files_), ("metric", metrics)):
            dup = sorted({x for x in seq if seq.count(x) > 1})
            if dup:
                raise ValueError(f"{what} names used twice: {dup}")
        for s in self.steps:
            unknown = [n for n in s.instead_of if n not in names]
            if unknown:
                raise ValueError(f"step {s.name}: instead_of names unknown step(s) {unknown}")
        return self


# --- prometheus_storage.yaml: the figures `steth plan` sizes a Prometheus with --------------

class LowHigh(_M):
    low: float = Field(gt=0)
    high: float = Field(gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> "LowHigh":
        if self.low > self.high:
            raise ValueError(f"low {self.low} is above high {self.high}")
        return self


class ExporterInterval(_M):
    name: str
    collect_interval_s: float = Field(gt=0)
    setting: str
    source: str = Field(min_length=10)


class StorageQueries(_M):
    samples_per_second: str
    bytes_per_sample: str
    head_series: str
    source: str


class PrometheusStorage(_M):
    source: str = Field(min_length=10)
    bytes_per_sample: LowHigh
    bytes_per_sample_source: str = Field(min_length=10)
    default_retention_days: float = Field(gt=0)
    default_retention_source: str = Field(min_length=10)
    retention_size_fraction: LowHigh
    retention_size_unit_bytes: int = Field(gt=0)
    retention_size_source: str = Field(min_length=10)
    wal_segment_bytes: int = Field(gt=0)
    wal_min_segments: int = Field(ge=1)
    wal_raw_hours: float = Field(gt=0)
    wal_source: str = Field(min_length=10)
    compaction_block_fraction: float = Field(gt=0, le=1)
    compaction_block_max_days: float = Field(gt=0)
    compaction_source: str = Field(min_length=10)
    exporters: list[ExporterInterval] = Field(default_factory=list)
    measure: StorageQueries


# --- bench_tolerances.yaml, compat.yaml (issue 15) ------------------------------------------

class BenchTolerance(_M):
    benchmark: str = Field(pattern=r"^[a-z0-9_]+$")
    metric: str = Field(min_length=1)  # a metric name, or "*"
    tolerance: float = Field(gt=0, lt=1)


class BenchValidity(_M):
    busy_utilization_pct: int = Field(ge=0, le=100)
    max_compute_processes: int = Field(ge=0)


class NcclTestsBands(_M):
    bandwidth: float = Field(gt=0, le=1)
    latency: float = Field(gt=0, le=1)


class NcclTestsSiblings(_M):
    source: str = Field(min_length=20)
    min_bytes: int = Field(gt=0)
    factor_match: float = Field(gt=0, lt=0.5)
    below: float = Field(gt=0, le=1)


class NcclTestsLimits(_M):
    source: str = Field(min_length=20)
    latency_max_bytes: int = Field(gt=0)
    bandwidth_min_bytes: int = Field(gt=0)
    below: NcclTestsBands
    critical_below: float = Field(gt=0, le=1)
    siblings: NcclTestsSiblings

    @model_validator(mode="after")
    def _ordered(self) -> "NcclTestsLimits":
        if self.latency_max_bytes >= self.bandwidth_min_bytes:
            raise ValueError("the latency band must end below the bandwidth band")
        if self.critical_below > min(self.below.bandwidth, self.below.latency, self.siblings.below):
            raise ValueError("critical_below must not exceed a band's or the siblings' `below` limit")
        if self.siblings.min_bytes <= self.latency_max_bytes:
            raise ValueError("siblings.min_bytes must lie above the latency band")
        return self


class PeerBenchmark(_M):
    benchmark: str = Field(min_length=1)
    metric: str = Field(min_length=1)


class PeerLimits(_M):
    source: str = Field(min_length=20)
    benchmarks: list[PeerBenchmark] = Field(min_length=1)
    below_ratio: float = Field(gt=0, lt=1)
    min_peers: int = Field(ge=2)


class BenchTolerances(_M):
    source: str = Field(min_length=20)
    critical_below: float = Field(gt=0, lt=1)
    validity: BenchValidity
    components: dict[str, ComponentId] = Field(min_length=1)
    tolerances: list[BenchTolerance] = Field(min_length=1)
    nccl_tests: NcclTestsLimits
    peers: PeerLimits

    @model_validator(mode="after")
    def _known(self) -> "BenchTolerances":
        unknown = sorted({t.benchmark for t in self.tolerances} - set(self.components))
        if unknown:
            raise ValueError(f"tolerances for benchmarks without a component: {unknown}")
        if any(1 - t.tolerance < self.critical_below for t in self.tolerances):
            raise ValueError("critical_below must not exceed a figure's `below` limit (1 - tolerance)")
        return self


class StragglerLimits(_M):
    """knowledge/straggler.yaml: how far below its reference a rank's performance score must be
    for a straggler report to make it a straggler."""
    source: str = Field(min_length=20)
    below_score: float = Field(gt=0, lt=1)
    min_ranks: int = Field(ge=2)


class TorchWatchdogLimits(_M):
    """knowledge/torch_watchdog.yaml: how late ProcessGroupNCCL's watchdog may report a timeout
    (ran-for minus the work's timeout) before the watchdog itself is judged blocked."""
    source: str = Field(min_length=20)
    late_at_least_ms: int = Field(gt=0)


class InputPipelineLimits(_M):
    """knowledge/input_pipeline.yaml: from what share of the iteration spent waiting for data the
    input pipeline starves the GPU, and over how many log lines."""
    source: str = Field(min_length=20)
    at_least_share: float = Field(gt=0, lt=1)
    min_lines: int = Field(ge=2)


class GpuPowerLimits(_M):
    """knowledge/gpu_power.yaml: from what ratio of reported power draw to the enforced power limit
    the reading is no draw a board makes (a sensor or driver misreport)."""
    source: str = Field(min_length=20)
    implausible_draw_to_limit: float = Field(gt=1)


_VERSION = r"^\d+(\.\d+)*$"


class CudaNccl(_M):
    cuda_major: int = Field(ge=9)
    nccl_min: str = Field(pattern=_VERSION)
    nccl_max: str | None = Field(default=None, pattern=_VERSION)
    source: str = Field(min_length=10)


class DcgmDriver(_M):
    dcgm: str = Field(pattern=_VERSION)
    driver_min: str = Field(pattern=_VERSION)
    source: str = Field(min_length=10)


class CudaDriver(_M):
    cuda: str = Field(pattern=r"^\d+\.\d+$")
    toolkit: str = Field(pattern=_VERSION)
    minor_compat: str = Field(pattern=_VERSION)


class Compat(_M):
    source: str = Field(min_length=20)
    cuda_nccl: list[CudaNccl] = Field(min_length=1)
    dcgm_driver: list[DcgmDriver] = Field(min_length=1)
    cuda_driver: list[CudaDriver] = Field(min_length=1)


# --- the registry ----------------------------------------------------------------------------

#: knowledge file (a glob relative to knowledge/) -> its schema. First match wins.
SCHEMAS: dict[str, type[BaseModel]] = {
    "taxonomy.yaml": Taxonomy,
    "actions.yaml": Actions,
    "fact_polarity.yaml": FactPolarity,
    "coverage.yaml": Coverage,
    "fact_routing.yaml": FactRouting,
    "collect.yaml": CommandSet,
    "patrol.yaml": PatrolSuite,
    "cuda_errors.yaml": CudaErrors,
    "cuda_error_judgements.yaml": CudaErrorJudgements,
    "dcgm.yaml": Dcgm,
    "nvsentinel.yaml": Nvsentinel,
    "bench_tolerances.yaml": BenchTolerances,
    "compat.yaml": Compat,
    "straggler.yaml": StragglerLimits,
    "torch_watchdog.yaml": TorchWatchdogLimits,
    "input_pipeline.yaml": InputPipelineLimits,
    "gpu_power.yaml": GpuPowerLimits,
    "expected_perf.yaml": ExpectedPerf,
    "ib_counters.yaml": IbCounters,
    "ib_port_comparison.yaml": IbPortComparison,
    "nccl_arch_support.yaml": NcclArchSupportTable,
    "nccl_env.yaml": NcclEnv,
    "nccl_known_issues.yaml": NcclKnownIssues,
    "nic_line_rate.yaml": NicLineRate,
    "pcie_host_copy.yaml": PcieHostCopy,
    "localisation.yaml": Localisation,
    "link_quality.yaml": LinkQuality,
    "rdma_hw_counters.yaml": RdmaHwCounters,
    "nvlink_expected.yaml": NvlinkExpected,
    "nvls.yaml": Nvls,
    "torch_warnings.yaml": TorchWarnings,
    "kernel_messages.yaml": KernelMessages,
    "xid.yaml": XidCatalogue,
    "gpu_products.yaml": GpuProducts,
    "gpu_pci_ids.yaml": GpuPciIds,
    "nccl_results.yaml": NcclResults,
    "ib_wc_status.yaml": IbWcStatuses,
    "ib_async_events.yaml": IbAsyncEvents,
    "ipmi_sel_events.yaml": IpmiSelEvents,
    "redfish_message_ids.yaml": RedfishMessageIds,
    "xid_judgements.yaml": XidJudgements,
    "xid74_workflow.yaml": Xid74Workflow,
    "xid_nvrm_messages.yaml": NvrmMessages,
    "nccl_warn_messages.yaml": NcclWarnMessages,
    "nv_status_codes.yaml": NvStatusCodes,
    "process_names.yaml": ProcessNames,
    "gpu_driver_modules.yaml": GpuDriverModules,
    "prometheus_storage.yaml": PrometheusStorage,
    "decision_trees/*.yaml": Tree,
    "cases/*.yaml": Case,
}

#: files the vocabulary itself comes from: validated without the cross-check
_VOCAB_FILES = ("taxonomy.yaml", "actions.yaml")


def schema_for(name: str) -> type[BaseModel]:
    for pattern, model in SCHEMAS.items():
        if fnmatch.fnmatchcase(name, pattern) and name.count("/") == pattern.count("/"):
            return model
    raise KnowledgeError(f"knowledge/{name}: no schema (add one to SCHEMAS in facts/knowledge.py)")


def _root():
    return resources.files(PACKAGE)


def files() -> list[str]:
    """Every YAML file under knowledge/, as names relative to it (``cases/x.yaml``)."""
    root = Path(str(_root()))
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml"))


@lru_cache(maxsize=None)
def text(name: str) -> str:
    """The file's text (for line numbers of evidence), cached."""
    return _root().joinpath(*name.split("/")).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def entry_lines(name: str, marker: str) -> dict[str, int]:
    """Line of each list entry of a knowledge file (a line starting ``- `` or ``{``), by the value
    after ``marker`` up to a comma, lowercased: ``entry_lines("nccl_results.yaml", "- name: ")``."""
    out: dict[str, int] = {}
    for no, line in enumerate(text(name).splitlines(), 1):
        at = line.find(marker)
        if at != -1 and line.lstrip().startswith(("- ", "{")):
            out.setdefault(line[at + len(marker):].split(",")[0].strip().lower(), no)
    return out


@lru_cache(maxsize=1)
def _base_vocabulary() -> dict[str, frozenset[str]]:
    tax = load("taxonomy.yaml")
    return {"causes": frozenset(tax.causes), "components": frozenset(tax.components),
            "actions": frozenset(load("actions.yaml").actions)}


@lru_cache(maxsize=1)
def vocabulary() -> dict[str, frozenset[str]]:
    """The ids other files may name: causes, components, actions, fact kinds."""
    return {**_base_vocabulary(), "kinds": frozenset(load("fact_polarity.yaml").kinds)}


def _context(name: str) -> dict | None:
    if name in _VOCAB_FILES:
        return None
    return {"vocab": _base_vocabulary() if name == "fact_polarity.yaml" else vocabulary()}


def _message(label: str, exc: ValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        loc = ".".join(str(x) for x in e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{label}: {loc}: {msg}" if loc else f"{label}: {msg}")
    more = len(exc.errors()) - 5
    return "\n".join(parts) + (f"\n{label}: ... and {more} more" if more > 0 else "")


def validate(name: str, data: Any, label: str | None = None, *, check_ids: bool = True) -> BaseModel:
    """``data`` (parsed YAML) as the schema of knowledge file ``name``; ``label`` names it in errors."""
    label = label or f"knowledge/{name}"
    model = schema_for(name)
    context = _context(name) if check_ids else None
    if data is None:
        raise KnowledgeError(f"{label}: empty file")
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise KnowledgeError(_message(label, exc)) from None


def parse(name: str, source: str, label: str | None = None, *, check_ids: bool = True) -> BaseModel:
    """Text of a knowledge file (safe YAML) validated as ``name``."""
    label = label or f"knowledge/{name}"
    try:
        data = yamlio.safe_load(source)
    except Exception as exc:  # yaml.YAMLError: the message names the line
        raise KnowledgeError(f"{label}: not valid YAML: {exc}") from None
    return validate(name, data, label, check_ids=check_ids)


def load_path(path: Path, name: str | None = None) -> BaseModel:
    """A knowledge file outside the package (a copy, a new case) validated as ``name``
    (default: its file name, or ``cases/<file>`` under a cases folder)."""
    path = Path(path)
    if name is None:
        name = f"{path.parent.name}/{path.name}" if path.parent.name in ("cases", "decision_trees") else path.name
    return parse(name, path.read_text(encoding="utf-8"), label=str(path))


@lru_cache(maxsize=None)
def load(name: str) -> Any:
    """Knowledge file ``name`` (relative to knowledge/) validated by its schema, cached."""
    return parse(name, text(name))


def load_all() -> dict[str, BaseModel]:
    """Every knowledge file, validated (what tests/test_knowledge_schemas.py checks)."""
    return {name: load(name) for name in files()}
