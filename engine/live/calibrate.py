"""``steth calibrate``: propose alert thresholds per GPU model from the fleet's own history.

The seed warns against thresholds copied from the internet: what is normal for one model,
cooling design and data centre is a fault for another. Over the window, each GPU's 99th
percentile is taken (``quantile_over_time``, one query per metric for the whole fleet);
per model, the proposal is the highest of those plus a margin, with the spread shown so that
an operator can judge it.

A faulty GPU is no measure of normal: the fleet is diagnosed over the same window first and
every GPU a finding names (every GPU of a node with a node-wide thermal finding) is left
out, and listed as such. The proposal is a file (:class:`Thresholds`) that ``steth rules
export --thresholds FILE`` turns into per-model alert thresholds.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stethoscope.engine.ruleengine.loader import RuleSet
from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.live.access import Access, node_of
from stethoscope.facts.live.prom import LiveError, Prom

#: metric -> (our name, margin added to the fleet's p99, unit)
METRICS = {
    "DCGM_FI_DEV_GPU_TEMP": ("gpu_temp_c", 5.0, "C"),
    "DCGM_FI_DEV_MEMORY_TEMP": ("memory_temp_c", 5.0, "C"),
    "DCGM_FI_DEV_POWER_USAGE": ("power_w", 0.0, "W"),
}

#: a finding without a GPU but of these components leaves out every GPU of its node (a node
#: whose cooling fails heats all its GPUs)
NODE_WIDE = frozenset({"power_thermal", "host"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Threshold(_Strict):
    gpus: int = Field(ge=1)
    p99_median: float
    p99_max: float
    proposed_threshold: float
    unit: Literal["C", "W"]


class Excluded(_Strict):
    node: str
    gpu: str | None = None
    causes: list[str]


class Thresholds(_Strict):
    """The file ``steth calibrate -o FILE`` writes and ``steth rules export --thresholds`` reads."""

    kind: Literal["steth_thresholds"] = "steth_thresholds"
    version: Literal[1] = 1
    window_s: int
    at: float
    source: str
    method: str
    excluded: list[Excluded] = Field(default_factory=list)
    models: dict[str, dict[Literal["gpu_temp_c", "memory_temp_c", "power_w"], Threshold]]


class ThresholdsError(ValueError):
    pass


def load_thresholds(path: Path) -> Thresholds:
    """Read a calibration file; a bad one raises ThresholdsError naming the file and field."""
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ThresholdsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ThresholdsError(f"{path}:{mark.line + 1 if mark else 1}: not YAML: {getattr(exc, 'problem', exc)}") from None
    try:
        return Thresholds.model_validate(data)
    except ValidationError as exc:
        e = exc.errors()[0]
        raise ThresholdsError(f"{path}: {'.'.join(str(p) for p in e['loc']) or 'file'}: {e['msg']} "
                              "(write it with steth calibrate -o FILE)") from None


def faulty_gpus(url: str, at: float, window_s: int, timeout: float, access: Access | None,
                ruleset: RuleSet | None = None) -> tuple[set[tuple[str, str]], set[str], list[Excluded]]:
    """The GPUs (node, pci bus id) and whole nodes the diagnosis of the window finds faulty."""
    from stethoscope.engine.live.observe import diagnose_prometheus

    report = diagnose_prometheus(url, at=at, window_s=window_s, timeout=timeout, ruleset=ruleset, access=access)
    if report.verdict == "inconclusive" and report.reason:
        raise LiveError(f"cannot tell faulty GPUs from healthy ones before calibrating: {report.reason}")
    gpus: dict[tuple[str, str], set[str]] = defaultdict(set)
    nodes: dict[str, set[str]] = defaultdict(set)
    for f in report.findings:
        node, gpu = f.entity.node, try_pci_bus_id(f.entity.gpu) if f.entity.gpu else None
        if node and gpu:
            gpus[(node, gpu)].add(f.cause)
        elif node and f.component in NODE_WIDE:
            nodes[node].add(f.cause)
    listed = [Excluded(node=n, gpu=g, causes=sorted(c)) for (n, g), c in sorted(gpus.items())]
    listed += [Excluded(node=n, causes=sorted(c)) for n, c in sorted(nodes.items())]
    return set(gpus), set(nodes), listed


def calibrate(url: str, at: float, window_s: int, timeout: float = 30.0, access: Access | None = None,
              ruleset: RuleSet | None = None) -> Thresholds:
    access = access or Access()
    bad_gpus, bad_nodes, excluded = faulty_gpus(url, at, window_s, timeout, access, ruleset)
    prom = Prom(url, timeout=timeout, access=access)
    models: dict[str, dict] = defaultdict(dict)
    for metric, (name, margin, unit) in METRICS.items():
        rows = prom.instant(f"quantile_over_time(0.99, {metric}[{window_s}s])", at)
        per_model: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            labels = row["metric"]
            node, gpu = node_of(labels, access.node_labels), try_pci_bus_id(labels.get("pci_bus_id"))
            if node in bad_nodes or (node, gpu) in bad_gpus:
                continue
            per_model[labels.get("modelName", "unknown")].append(float(row["value"][1]))
        for model, values in per_model.items():
            models[model][name] = Threshold(
                gpus=len(values), p99_median=round(statistics.median(values), 1), p99_max=round(max(values), 1),
                proposed_threshold=round(max(values) + margin, 1), unit=unit)
    return Thresholds(window_s=window_s, at=at, source=url,
                      method="per GPU p99 over the window (quantile_over_time), GPUs with findings in the window left out; "
                             "threshold = max over the model's other GPUs + margin",
                      excluded=excluded, models=dict(models))


def dump(th: Thresholds) -> str:
    head = ("# steth calibrate: per-model alert thresholds from the fleet's own history; "
            "steth rules export --thresholds FILE reads this file\n")
    return head + yaml.safe_dump(th.model_dump(exclude_none=True), sort_keys=False, width=1000)
