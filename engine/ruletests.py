"""The one runner for rule test files (``tests/rules/**/<rule_id>.test.yaml``).

A case gives real artefacts (files, by node) or literal facts, and lists what the rule under
test must find; ``expect: []`` is an ordinary "must not fire" case. Each case runs under
both evaluators (durable-rules and the reference) and both must agree with the expectation.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stethoscope.engine.pipeline import evaluate_all, parse_artefacts
from stethoscope.engine.ruleengine.loader import RuleError, RuleSet, read_yaml
from stethoscope.engine.report import Finding
from stethoscope.facts.model import FACT_KINDS, Evidence, Fact
from stethoscope.facts.parsers.base import Artefact


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    artefacts: dict[str, dict[str, str]] = Field(default_factory=dict, description="node -> {label: path}")
    inline: dict[str, dict[str, str]] = Field(default_factory=dict, description="node -> {file name: text}")
    facts: list[dict[str, Any]] = Field(default_factory=list)
    expect: list[dict[str, Any]]
    derived: list[dict[str, Any]] | None = Field(default=None, description="facts the rule must derive (then.assert rules)")
    baseline: dict[str, dict[str, str]] = Field(default_factory=dict, description="node -> {label: path}: real results the "
                                                "case is compared with, as steth baseline record would store them")


class RuleTestFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rule: str
    cases: list[Case] = Field(min_length=1)


@dataclass
class CaseResult:
    file: str
    rule: str
    case: str
    ok: bool
    message: str = ""


def project_root(start: Path) -> Path:
    for p in [start, *start.parents]:
        if (p / "pyproject.toml").exists():
            return p
    return Path.cwd()


def _facts(case: Case, label: str) -> list[Fact]:
    out: list[Fact] = []
    for i, raw in enumerate(case.facts):
        raw = dict(raw)
        kind = raw.get("kind")
        if kind not in FACT_KINDS:
            raise ValueError(f"case '{case.name}': unknown fact kind {kind!r}")
        raw.setdefault("id", f"{label}:{case.name}:{i}")
        raw.setdefault("evidence", Evidence(path=label, line=i + 1, text=str(case.facts[i])))
        out.append(FACT_KINDS[kind].model_validate(raw))
    return out


def _artefacts(case: Case, root: Path) -> list[Artefact]:
    arts: list[Artefact] = []
    for node, files in case.artefacts.items():
        for name, rel in files.items():
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
            arts.append(Artefact(path=f"{node}/{Path(rel).name}", text=text, node=node, node_from_folder=True))
    for node, files in case.inline.items():
        for name, text in files.items():
            arts.append(Artefact(path=f"{node}/{name}", text=text, node=node, node_from_folder=True))
    return arts


def _matches(want: dict[str, Any], got: Finding) -> bool:
    data = got.model_dump()
    for k, v in want.items():
        if k == "entity":
            if any(data["entity"].get(ek) != ev for ek, ev in v.items()):
                return False
        elif k == "summary_contains":
            if v not in got.summary:
                return False
        elif k == "evidence_contains":
            if not any(v in e.text for e in got.evidence):
                return False
        elif data.get(k) != v:
            return False
    return True


def _check(expect: list[dict[str, Any]], found: list[Finding]) -> str:
    if len(expect) != len(found):
        return f"expected {len(expect)} finding(s), got {len(found)}: " + "; ".join(f"{f.cause} {f.entity.label}" for f in found)
    left = list(found)
    # the most specific expectation first: {entity: {node: n1}} would otherwise take the finding that
    # {entity: {node: n1, gpu: '0'}} needs whenever that one ranks first
    for want in sorted(expect, key=lambda w: -sum(len(v) if isinstance(v, dict) else 1 for v in w.values())):
        hit = next((f for f in left if _matches(want, f)), None)
        if hit is None:
            return f"no finding matches {want}; got: " + "; ".join(f"{f.cause} {f.entity.model_dump(exclude_none=True)}" for f in left)
        left.remove(hit)
    return ""


def _check_derived(expect: list[dict[str, Any]], got: list[Fact]) -> str:
    if len(expect) != len(got):
        return f"expected {len(expect)} derived fact(s), got {len(got)}: {[d.rule_view() for d in got]}"
    left = list(got)
    for want in expect:
        hit = next((d for d in left if all(getattr(d, k, None) == v for k, v in want.items())), None)
        if hit is None:
            return f"no derived fact matches {want}; got {[d.rule_view() for d in left]}"
        left.remove(hit)
    return ""


def run_file(path: Path, ruleset: RuleSet, label: str | None = None) -> list[CaseResult]:
    label = label or str(path)
    try:
        data, _ = read_yaml(path, label)
        spec = RuleTestFile.model_validate(data)
    except RuleError as exc:
        return [CaseResult(label, "?", "-", False, str(exc))]
    except ValidationError as exc:
        return [CaseResult(label, "?", "-", False, f"{label}: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")]
    target = next((r for r in ruleset.rules if r.id == spec.rule), None)
    if target is None:
        return [CaseResult(label, spec.rule, "-", False, f"rule '{spec.rule}' not found or did not load")]
    # the rule under test plus every rule that derives facts for it
    rules = [r for r in ruleset.rules if r is target or r.rule.then.assert_ is not None]
    sub = RuleSet(rules, [])
    root = project_root(path.parent)
    results: list[CaseResult] = []
    for case in spec.cases:
        try:
            if case.baseline:
                from stethoscope.engine.baselines import bench as bench_baseline
                from stethoscope.engine.baselines import perf_compare

                ref = Case(name="baseline", artefacts=case.baseline, expect=[])
                base = bench_baseline.baseline_from(parse_artefacts(_artefacts(ref, root)).facts, f"{case.name}-baseline")
                with perf_compare.use_baseline(base):
                    facts = _facts(case, label) + parse_artefacts(_artefacts(case, root)).facts
            else:
                facts = _facts(case, label) + parse_artefacts(_artefacts(case, root)).facts
            msgs = []
            for ev in ("durable", "reference"):
                findings, derived = evaluate_all(sub, facts, ev)
                found = [f for f in findings if f.rule == spec.rule]
                msg = _check(case.expect, found)
                if not msg and case.derived is not None:
                    mine = [d for d in derived if d.id.startswith(f"derived:{spec.rule}:")]
                    msg = _check_derived(case.derived, mine)
                if msg:
                    msgs.append(f"[{ev}] {msg}")
            results.append(CaseResult(label, spec.rule, case.name, not msgs, " ".join(msgs)))
        except (OSError, ValueError, ValidationError) as exc:
            results.append(CaseResult(label, spec.rule, case.name, False, f"{type(exc).__name__}: {exc}"))
    return results


def discover(root: Path) -> list[Path]:
    return sorted(root.rglob("*.test.yaml"))
