"""The whole diagnosis as plain functions: bundle -> facts -> rules -> findings -> report."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from stethoscope.engine import fabric, reference, session
from stethoscope.engine.decision_tree import not_checked
from stethoscope.engine.findings import SEVERITY_ORDER, build_findings
from stethoscope.engine.loader import RuleSet, load_rules
from stethoscope.engine.localise import localise
from stethoscope.engine.report import Coverage, FileCoverage, ParseProblem, Report, SkippedFile, Source
from stethoscope.facts.bundle import HEAD_BYTES, artefacts, read_bundle
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.base import Artefact, ParseError, ParseResult
from stethoscope.facts.registry import load_parsers

Evaluator = Literal["durable", "reference"]


@dataclass
class Observed:
    """Everything the parsers made of a bundle."""

    facts: list[Fact] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)


def parse_artefacts(arts: list[Artefact]) -> Observed:
    obs = Observed()
    parsers = load_parsers()
    for art in arts:
        head = art.text[:HEAD_BYTES]
        kinds = [p for p in parsers if p.detect(head)]
        if not kinds:
            obs.coverage.unrecognised.append(art.path)
            continue
        used = 0
        nfacts = 0
        for p in kinds:
            try:
                res: ParseResult = p.parse(art)
            except ParseError as exc:  # a parser may still raise one: keep going
                obs.coverage.errors.append(ParseProblem(path=exc.path, line=exc.line, message=exc.message))
                continue
            except Exception as exc:  # never a traceback for bad input
                obs.coverage.errors.append(ParseProblem(path=art.path, line=0, message=f"{p.KIND} parser failed: {type(exc).__name__}: {exc}"))
                continue
            obs.facts.extend(res.facts)
            nfacts += len(res.facts)
            used += res.lines_used
            obs.coverage.errors.extend(ParseProblem(path=e.path, line=e.line, message=e.message) for e in res.errors)
        nonblank = sum(1 for ln in art.lines if ln.strip())
        obs.coverage.files.append(
            FileCoverage(path=art.path, kind="+".join(p.KIND for p in kinds), node=art.node, facts=nfacts, skipped_lines=max(0, nonblank - used))
        )
    obs.facts.extend(fabric.summarise(obs.facts))  # cross-port and cross-reading comparisons
    from stethoscope.engine import nccl_summary  # cross-rank, cross-run and baseline comparisons

    obs.facts.extend(nccl_summary.summarise(obs.facts))
    return obs


def evaluate_all(ruleset: RuleSet, facts: list[Fact], evaluator: Evaluator = "durable"):
    """Findings and derived facts of ``facts`` under one evaluator."""
    engine = session if evaluator == "durable" else reference
    from stethoscope.engine.xid_knowledge import knowledge_facts  # catalogue entries + Xid aggregations

    facts = list(facts) + knowledge_facts(facts)
    firings, derived = engine.run(ruleset.rules, facts)
    by_id = {f.id: f for f in facts}
    by_id.update((f.id, f) for f in derived)
    return build_findings(ruleset.rules, firings, by_id), derived


def evaluate(ruleset: RuleSet, facts: list[Fact], evaluator: Evaluator = "durable"):
    return evaluate_all(ruleset, facts, evaluator)[0]


def verdict_of(findings, obs: Observed) -> str:
    if any(SEVERITY_ORDER[f.severity] >= 1 for f in findings):
        return "faulty"
    if not obs.facts:
        return "inconclusive"
    return "healthy"


def diagnose_bundle(path: str | os.PathLike[str], ruleset: RuleSet | None = None, evaluator: Evaluator = "durable") -> Report:
    """Diagnose a folder or archive. Raises BundleError when the bundle cannot be opened."""
    raw = read_bundle(path)
    arts, binary = artefacts(raw)
    obs = parse_artefacts(arts)
    for s in raw.skipped:
        obs.coverage.skipped.append(SkippedFile(path=s.path, reason=s.reason))
    for s in binary:
        obs.coverage.unrecognised.append(s.path)
        obs.coverage.skipped.append(SkippedFile(path=s.path, reason=s.reason))
    ruleset = ruleset or load_rules()
    from stethoscope.engine.findings import symptom_map

    findings = localise(evaluate(ruleset, obs.facts, evaluator), obs.facts, symptom_map(ruleset.rules))
    return Report(
        source=Source(kind="bundle", path=str(path)),
        verdict=verdict_of(findings, obs),
        findings=findings,
        coverage=obs.coverage,
        nodes=sorted({c.node for c in obs.coverage.files}),
        facts=len(obs.facts),
        not_checked=not_checked(obs.facts),
    )
