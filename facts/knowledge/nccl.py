"""The schemas of knowledge/nccl_arch_support.yaml, nccl_env.yaml, nccl_known_issues.yaml, nvls.yaml,
nccl_results.yaml and nccl_warn_messages.yaml: what NCCL supports, its settings, known bugs, results and WARN
messages.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from stethoscope.facts.knowledge.base import ActionId, CauseId, ComponentId, FactKind, Record as _M, Severity


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
