"""The schemas of knowledge/cuda_errors.yaml, cuda_error_judgements.yaml and compat.yaml: the CUDA error
catalogue, its judgements, and which CUDA, NCCL, DCGM and driver versions go together.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from stethoscope.facts.knowledge.base import ActionId, CauseId, ComponentId, Record as _M, Severity


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
