"""The schemas of knowledge/patrol.yaml and prometheus_storage.yaml: the suite `steth patrol run` runs, and the
figures `steth plan` sizes a Prometheus with.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, model_validator

from stethoscope.facts.knowledge.base import FactKind, Record as _M


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
