"""Fact classes that summarise many observed facts at once (made by
:mod:`stethoscope.engine.combine.nccl_summary` and :mod:`stethoscope.engine.baselines.perf_compare`).

Rules compare one fact with constants or with an earlier pattern; "ranks run different NCCL
versions", "the rank with the lowest last-enqueued sequence number" and "busbw at large sizes
is 90x below the baseline" need a look across ranks and rows. Each fact carries ``sources``:
the ids of the facts it summarises, so a finding quotes the original lines.
"""
from __future__ import annotations

from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    BusbwComparison, BusbwVsNicRate, NcclBootstrapSubnetSet, NcclGpuShared, NcclKnownIssue, NcclNetPluginSet,
    NcclSlowPathSetting, NcclTestsIndependentRuns, NcclVersionSet, TorchStragglerCandidate,
)
