"""Fact classes of the DCGM readers (``dcgmi diag`` text and JSON, nvvs / host engine logs)
and the knowledge they share (``knowledge/dcgm.yaml``: what a failed test points at, which
failure reasons say the test was disturbed by other work on the GPU)."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from stethoscope.facts import knowledge as _knowledge
from stethoscope.facts.model import Fact, fact_kind


@lru_cache(maxsize=1)
def knowledge() -> dict:
    """knowledge/dcgm.yaml validated by its schema (facts/knowledge.py), as plain data."""
    return _knowledge.load("dcgm.yaml").model_dump()


@lru_cache(maxsize=256)
def test_meaning(test: str) -> tuple[str | None, str | None]:
    """(component, cause) of a failure of ``test`` (any DCGM spelling), or (None, None)."""
    low = test.strip().lower().replace("-", " ")
    for row in knowledge()["tests"]:
        if low in row["names"] or low.replace(" ", "_") in row["names"]:
            return row["component"], row["cause"]
    return None, None


def not_comparable(reason: str) -> str | None:
    """Why a result with this reason says nothing about the hardware, or None."""
    low = reason.lower()
    for row in knowledge()["not_comparable"]:
        if row["match"].lower() in low:
            return row["why"]
    return None


@fact_kind
class DcgmDiagResult(Fact):
    """One result of ``dcgmi diag``: a test on one GPU (or on all: ``gpu`` absent).

    ``| Memory | Fail - GPU: 0 |`` (DCGM 2-3), ``|  | GPU0: Fail |`` (DCGM 4), or a JSON result."""

    kind: Literal["dcgm_diag_result"] = "dcgm_diag_result"
    test: str  # as dcgmi names it: "Memory", "memory", "nvbandwidth", "PCIe"
    category: str | None = None  # "Deployment", "Hardware", "Integration", "Stress"
    result: Literal["Pass", "Fail", "Warn", "Skip", "Not Run"]
    gpu: int | None = None  # DCGM's GPU id
    gpu_name: str = "all GPUs"  # "GPU0", for entities and summaries
    reason: str | None = None  # the Warning text(s) of this test and GPU, joined
    component: str | None = None  # of a failure of this test (knowledge/dcgm.yaml)
    cause: str | None = None
    not_comparable: bool = False  # the reason says other work disturbed the test
    why: str | None = None
    source: Literal["text", "json"] = "text"


@fact_kind
class DcgmError(Fact):
    """A DCGM log line at ERROR level or a DCGM status/failure message printed by dcgmi or an
    exporter: ``09:54:30.346 ERROR [[nvbandwidth]] MCUTIL > 10% for GPU 2 (...)``,
    ``the third-party profiling module returned an unrecoverable error``."""

    kind: Literal["dcgm_error"] = "dcgm_error"
    message: str
    plugin: str | None = None  # "nvbandwidth"
    gpu: int | None = None
    not_comparable: bool = False
    why: str | None = None


@fact_kind
class DcgmHealthIncident(Fact):
    """One incident of a DCGM health watch, as nv-hostengine logs it:
    ``Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal
    violation in GPU 2. Verify that the cooling ...'`` (component and cause of its message in
    ``knowledge/dcgm.yaml``, else of its health system)."""

    kind: Literal["dcgm_health_incident"] = "dcgm_health_incident"
    result: Literal["WARNING", "FAILURE"]
    system: str  # as DCGM names it: "Thermal", "PCIe", "NVSwitch fatal errors"
    message: str
    reason: str | None = None  # DCGM_FR_CLOCKS_EVENT_THERMAL (None: a message knowledge lacks)
    gpu: int | None = None  # DCGM's entity id ("in GPU 2"); None for an NVSwitch or when not said
    gpu_name: str = "the GPU DCGM watched"  # "GPU 2", for entities and summaries
    component: str
    cause: str
    severity: str
    actions: str  # comma-separated action ids of its health system


_PRINTF = re.compile(r"%(?:[-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z)?([diuxXfFeEgGs])")


def _format_regex(fmt: str) -> re.Pattern:
    """A DCGM_FR_*_MSG printf format as a regex: numbers and words in place of its conversions,
    its final period optional (the *_NEXT advice follows it)."""
    out, pos = [], 0
    for m in _PRINTF.finditer(fmt):
        out.append(re.escape(fmt[pos:m.start()]))
        out.append(r"(.+?)" if m.group(1) == "s" else r"([-+]?[\d.]+(?:e[-+]?\d+)?)")
        pos = m.end()
    tail = fmt[pos:].rstrip(".")
    out.append(re.escape(tail) + r"\.?")
    return re.compile("".join(out), re.I)


@lru_cache(maxsize=1)
def _health_messages() -> tuple[tuple[re.Pattern, dict], ...]:
    return tuple((_format_regex(row["format"]), row) for row in knowledge().get("health_messages", []))


def health_meaning(system: str, message: str) -> tuple[str | None, str | None, str | None, str]:
    """(reason, component, cause, actions) of a health incident: its message's row, else its
    system's; (None, None, None, "") for a system knowledge does not name."""
    low = system.strip().lower()
    sys_row = next((r for r in knowledge().get("health_systems", []) if low in (n.lower() for n in r["names"])), None)
    for rx, row in _health_messages():
        if rx.match(message.strip()):
            comp = row.get("component") or (sys_row or {}).get("component")
            cause = row.get("cause") or (sys_row or {}).get("cause")
            return row["reason"], comp, cause, ",".join((sys_row or {}).get("actions", ["READ_EVIDENCE"]))
    if sys_row is None:
        return None, None, None, ""
    return None, sys_row["component"], sys_row["cause"], ",".join(sys_row["actions"])


def health_severity(result: str) -> str:
    return knowledge().get("health_results", {}).get(result, "warning")
