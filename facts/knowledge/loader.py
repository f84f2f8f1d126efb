"""The one loader of knowledge/**/*.yaml: :data:`SCHEMAS` names each file's schema; :func:`load`
reads a file from the installed package with the safe YAML loader, validates it (ids checked
against the vocabulary) and caches the model.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

import fnmatch
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from stethoscope.facts import yamlio
from stethoscope.facts.knowledge.base import KnowledgeError, PACKAGE
from stethoscope.facts.knowledge.bmc import IpmiSelEvents, RedfishMessageIds
from stethoscope.facts.knowledge.cases import Case, Tree
from stethoscope.facts.knowledge.cuda import Compat, CudaErrorJudgements, CudaErrors
from stethoscope.facts.knowledge.dcgm import Dcgm, Nvsentinel
from stethoscope.facts.knowledge.fabric import (
    IbAsyncEvents,
    IbCounters,
    IbPortComparison,
    IbWcStatuses,
    LinkQuality,
    NicLineRate,
    RdmaHwCounters,
)
from stethoscope.facts.knowledge.localisation import Localisation
from stethoscope.facts.knowledge.logs import GpuDriverModules, KernelMessages, ProcessNames, TorchWarnings
from stethoscope.facts.knowledge.nccl import (
    NcclArchSupportTable,
    NcclEnv,
    NcclKnownIssues,
    NcclResults,
    NcclWarnMessages,
    Nvls,
)
from stethoscope.facts.knowledge.patrol import PatrolSuite, PrometheusStorage
from stethoscope.facts.knowledge.perf import (
    BenchTolerances,
    ExpectedPerf,
    GpuPowerLimits,
    InputPipelineLimits,
    NvlinkExpected,
    PcieHostCopy,
    StragglerLimits,
    TorchWatchdogLimits,
)
from stethoscope.facts.knowledge.products import GpuPciIds, GpuProducts
from stethoscope.facts.knowledge.vocabulary import Actions, CommandSet, Coverage, FactPolarity, FactRouting, Taxonomy
from stethoscope.facts.knowledge.xid import NvStatusCodes, NvrmMessages, Xid74Workflow, XidCatalogue, XidJudgements


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
    raise KnowledgeError(f"knowledge/{name}: no schema (add one to SCHEMAS in facts/knowledge/loader.py)")


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
