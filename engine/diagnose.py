"""The whole diagnosis as plain functions: bundle -> facts -> rules -> findings -> report."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Literal

from stethoscope.engine import accounting, fabric, parse_pool, reference, session
from stethoscope.engine.decision_tree import not_checked
from stethoscope.engine.findings import SEVERITY_ORDER, build_findings
from stethoscope.engine.loader import RuleSet, load_rules
from stethoscope.engine.localise import localise
from stethoscope.engine.report import Checked, Coverage, Report, SkippedFile, Source
from stethoscope.facts.bundle import Skipped, iter_artefacts, read_bundle
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.base import Artefact

Evaluator = Literal["durable", "reference"]


@dataclass
class Observed:
    """Everything the parsers made of a bundle."""

    facts: list[Fact] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)


def parse_artefacts(arts: Iterable[Artefact], jobs: int | None = 1, total_bytes: int | None = None) -> Observed:
    """Parse every artefact (in order; over ``jobs`` processes, see engine/parse_pool.py), then
    add the cross-file summaries."""
    obs = Observed()
    for res in parse_pool.parse_files(arts, jobs, total_bytes):
        if res.coverage is None:
            if res.uninformative:
                obs.coverage.uninformative.append(SkippedFile(path=res.path, reason=res.uninformative))
            else:
                obs.coverage.unrecognised.append(res.path)
            continue
        obs.facts.extend(res.facts)
        obs.coverage.errors.extend(res.errors)
        obs.coverage.files.append(res.coverage)
    obs.facts.extend(accounting.parse_problem_facts(obs.coverage))  # an unreadable line is never silent
    obs.facts.extend(fabric.summarise(obs.facts))  # cross-port and cross-reading comparisons
    from stethoscope.engine import nccl_summary  # cross-rank, cross-run and baseline comparisons

    obs.facts.extend(nccl_summary.summarise(obs.facts))
    return obs


def evaluate_all(ruleset: RuleSet, facts: list[Fact], evaluator: Evaluator = "durable"):
    """Findings and derived facts of ``facts`` under one evaluator.

    Two passes: the rules, then the meta rules (``rules/meta/``) over every error no finding
    of the first pass cites (engine/accounting.py), so that no error goes unreported."""
    engine = session if evaluator == "durable" else reference
    from stethoscope.engine.xid_knowledge import knowledge_facts  # catalogue entries + Xid aggregations

    facts = list(facts) + knowledge_facts(facts)
    meta = accounting.meta_rules(ruleset.rules)
    rules = [r for r in ruleset.rules if r not in meta] if meta else ruleset.rules
    firings, derived = engine.run(rules, facts)
    by_id = {f.id: f for f in facts}
    by_id.update((f.id, f) for f in derived)
    if meta:
        left = accounting.unexplained(facts + derived, accounting.explained_lines(rules, firings, by_id))
        if left:
            by_id.update((f.id, f) for f in left)
            more, _ = engine.run(meta, left)
            firings = list(firings) + list(more)
    return build_findings(ruleset.rules, firings, by_id), derived


def evaluate(ruleset: RuleSet, facts: list[Fact], evaluator: Evaluator = "durable"):
    return evaluate_all(ruleset, facts, evaluator)[0]


def verdict_of(findings, obs: Observed) -> str:
    return accounting.verdict(findings, obs.coverage)[0]


def diagnose_bundle(path: str | os.PathLike[str], ruleset: RuleSet | None = None, evaluator: Evaluator = "durable",
                    jobs: int | None = None) -> Report:
    """Diagnose a folder or archive. Raises BundleError when the bundle cannot be opened.
    ``jobs``: processes that parse files (None: every CPU, for a large bundle; 1: in-process)."""
    raw = read_bundle(path)
    binary: list[Skipped] = []
    total = sum(len(d) for _, d in raw.files)
    # one file at a time: its bytes are released as its text is made, its text once parsed
    obs = parse_artefacts(iter_artefacts(raw, binary, release=True), jobs, total)
    for s in raw.skipped:
        obs.coverage.skipped.append(SkippedFile(path=s.path, reason=s.reason))
    for s in binary:
        obs.coverage.unrecognised.append(s.path)
        obs.coverage.skipped.append(SkippedFile(path=s.path, reason=s.reason))
    ruleset = ruleset or load_rules()
    from stethoscope.engine.findings import symptom_map

    findings = localise(evaluate(ruleset, obs.facts, evaluator), obs.facts, symptom_map(ruleset.rules))
    verdict, reason = accounting.verdict(findings, obs.coverage)
    return Report(
        source=Source(kind="bundle", path=str(path)),
        verdict=verdict,
        reason=reason,
        checked=[Checked(component=c, files=fs) for c, fs in accounting.checked_components(obs.coverage).items()],
        findings=findings,
        coverage=obs.coverage,
        nodes=sorted({c.node for c in obs.coverage.files}),
        facts=len(obs.facts),
        not_checked=not_checked(obs.facts),
    )
