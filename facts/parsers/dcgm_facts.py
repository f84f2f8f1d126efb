"""Fact classes of the DCGM readers (``dcgmi diag`` text and JSON, nvvs / host engine logs)
and the knowledge they share (``knowledge/dcgm.yaml``: what a failed test points at, which
failure reasons say the test was disturbed by other work on the GPU)."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Literal

from stethoscope.facts import yamlio
from stethoscope.facts.model import Fact, fact_kind


@lru_cache(maxsize=1)
def knowledge() -> dict:
    return yamlio.safe_load(resources.files("stethoscope.knowledge").joinpath("dcgm.yaml").read_text())


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
