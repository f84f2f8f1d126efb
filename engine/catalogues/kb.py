"""The knowledge base of past incidents: ``knowledge/cases/*.yaml``, one case per file.

A case records what an incident looked like (symptom), what identifies it (signature: the
causes and rules of the findings it explains, and the facts to look at), how it was
investigated, its root cause, the fix and references. Findings link to the cases whose
signature names their cause (and, where the case lists rules, their rule); ``steth kb``
searches, shows and adds cases.
"""
from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from stethoscope.engine.ruleengine.compile import CompileError, Pattern, compile_condition, pattern_matches
from stethoscope.engine.ruleengine.schema import Condition
from stethoscope.facts import knowledge
from stethoscope.facts.knowledge import Case, KnowledgeError, Signature  # noqa: F401 - re-exported

PREFIX = "kb/"
TODO = "TODO"


class CaseError(ValueError):
    pass


def validate_case(data: Any, label: str, stem: str | None = None) -> Case:
    """Schema, vocabulary and completeness (no ``TODO`` left) of one case."""
    try:  # the schema checks the causes against the taxonomy
        case: Case = knowledge.validate("cases/case.yaml", data, label)
    except KnowledgeError as exc:
        raise CaseError(str(exc)) from None
    return _complete(case, label, stem)


def _holds(value: Any, word: str) -> bool:
    """Whether a text of ``value`` (a key or a value, at any depth) holds ``word`` (what a search
    of its YAML dump found, without dumping every case at each run: ~0.3 s of start-up)."""
    if isinstance(value, str):
        return word in value
    if isinstance(value, dict):
        return any(_holds(k, word) or _holds(v, word) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds(v, word) for v in value)
    return False


def _complete(case: Case, label: str, stem: str | None) -> Case:
    if stem is not None and case.id != stem:
        raise CaseError(f"{label}: id '{case.id}' must equal the file name '{stem}'")
    todo = [k for k, v in case.model_dump().items() if _holds(v, TODO)]
    if todo:
        raise CaseError(f"{label}: still to complete (replace {TODO}): {', '.join(todo)}")
    _patterns(case)  # its signature.match compiles as a rule condition would
    return case


def cases_root() -> Path:
    return Path(str(resources.files(knowledge.PACKAGE).joinpath("cases")))


@lru_cache(maxsize=1)
def load_cases() -> tuple[Case, ...]:
    out: list[Case] = []
    for path in sorted(cases_root().glob("*.yaml")):
        try:
            case = knowledge.load(f"cases/{path.name}")
        except KnowledgeError as exc:
            raise CaseError(str(exc)) from None
        out.append(_complete(case, f"knowledge/cases/{path.name}", path.stem))
    ids = [c.id for c in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise CaseError(f"duplicate case ids: {sorted(dup)}")
    return tuple(out)


def _patterns(case: Case) -> tuple[Pattern, ...]:
    """The case's ``signature.match``, compiled by the rules' compiler (a bad operator is an error)."""
    out = []
    for i, m in enumerate(case.signature.match):
        try:
            out.append(compile_condition(Condition(fact=m.fact, match=dict(m.match)), ("signature", "match", i)))
        except (CompileError, ValueError) as exc:
            raise CaseError(f"knowledge/cases/{case.id}.yaml: signature.match.{i}: {exc}") from None
    return tuple(out)


def _signature_met(case: Case, facts: list) -> bool:
    """Every condition of the case's ``signature.match`` is met by one of the finding's facts."""
    views = [(f.kind, f.rule_view()) for f in facts]
    return all(any(kind == p.kind and pattern_matches(p, view) for kind, view in views) for p in _patterns(case))


def links(cause: str, rule: str, facts: list | None = None) -> list[str]:
    """``kb/<id>`` of the cases whose signature matches a finding's cause and rule; where
    several do, those whose ``signature.match`` the finding's own facts meet (Xid 13 vs 31)."""
    cands = [c for c in load_cases() if cause in c.signature.causes and (not c.signature.rules or rule in c.signature.rules)]
    if len(cands) > 1 and facts:
        precise = [c for c in cands if c.signature.match and _signature_met(c, facts)]
        if precise:
            cands = precise
    return [c.ref for c in cands]


def get(ref: str) -> Case | None:
    key = ref[len(PREFIX):] if ref.startswith(PREFIX) else ref
    return next((c for c in load_cases() if c.id == key), None)


_WORD = re.compile(r"[a-z0-9_]+")


def search(text: str, limit: int = 10) -> list[tuple[float, Case]]:
    """Cases ranked by how many query words they hold; title, causes and tags weigh more."""
    words = set(_WORD.findall(text.lower()))
    if not words:
        return []
    scored: list[tuple[float, Case]] = []
    for c in load_cases():
        strong = set(_WORD.findall(" ".join([c.id, c.title, *c.signature.causes, *c.signature.rules, *c.tags]).lower()))
        weak = set(_WORD.findall(" ".join([c.symptom, c.root_cause, *c.investigation, *c.fix, *c.signature.facts]).lower()))
        score = 2.0 * len(words & strong) + len(words & weak)
        if score:
            scored.append((score / len(words), c))
    scored.sort(key=lambda sc: (-sc[0], sc[1].id))
    return scored[:limit]


def draft_from_report(report: dict, rank: int = 1) -> dict:
    """A new case prefilled from one finding of a report (JSON as ``steth diagnose -f json``
    prints it); what only the operator knows is left as TODO."""
    findings = report.get("findings") or []
    f = next((x for x in findings if x.get("rank") == rank), None)
    if f is None:
        raise CaseError(f"the report has no finding of rank {rank} ({len(findings)} finding(s))")
    where = (f.get("entity") or {}).get("label", "")
    ev = [f"{e['path']}:{e['line']}: {e['text']}" for e in f.get("evidence", [])[:5]]
    return {
        "id": f"{f['cause'].replace('_', '-')}-{date.today().isoformat()}",
        "title": f"{TODO}: short title ({f['title']})",
        "symptom": f"{f['summary']} (where: {where})",
        "signature": {"causes": [f["cause"]], "rules": [f["rule"]], "facts": ev},
        "investigation": [f"{TODO}: what was checked, in order"] + [f"evidence: {line}" for line in ev[:2]],
        "root_cause": f"{TODO}: what was really broken",
        "fix": [f"{TODO}: what fixed it"] + ([f"suggested: {f['action_text']}"] if f.get("action_text") else []),
        "references": [f"steth diagnosis of {report.get('source', {}).get('path', '?')}"] + list(f.get("references") or []),
        "tags": [f.get("component", "")] if f.get("component") else [],
    }
