"""The schemas of knowledge/dcgm.yaml and nvsentinel.yaml: what DCGM's diagnostics, health checks and messages
and NVSentinel's checks say.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from stethoscope.facts.knowledge.base import ActionId, CauseId, ComponentId, Record as _M, Severity


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
