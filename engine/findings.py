"""Firings become findings: merged across ranks, ranked, root causes and cascades marked."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from stethoscope.engine.ruleengine.compile import CompiledRule
from stethoscope.engine.ruleengine.derive import Firing, fill, render
from stethoscope.engine.knowledge import load_vocabulary
from stethoscope.engine.catalogues.kb import links as kb_links
from stethoscope.engine.report import Entity, EvidenceLine, Finding
from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.model import Evidence, Fact

EVIDENCE_LIMIT = 20
SEVERITY_ORDER = {"info": 0, "warning": 1, "critical": 2, "fatal": 3}
ENTITY_KEYS = ("node", "gpu", "hca", "port", "link", "rank", "switch", "address")
# the parts of a node a finding can name; at equal severity and confidence a finding that names one
# (the GPU at 0000:01:00.0, an HCA port, a link) ranks before one that names only a node or a process:
# it says where to act (harvest 504: the driver's RmInitAdapter failure on its GPU, before nvidia-smi's
# 'No devices were found' of the same fault)
PARTS = ("gpu", "hca", "port", "link", "switch")


@dataclass
class _Draft:
    crule: CompiledRule
    entity: dict[str, object]
    summary: str
    evidence: dict[tuple[str, int], Evidence] = field(default_factory=dict)
    nodes: set[str] = field(default_factory=set)
    ranks: set[int] = field(default_factory=set)
    occurrences: int = 0
    cause: str = ""
    component: str = ""
    severity: str = ""
    actions: tuple[str, ...] = ()
    first: tuple[tuple[str, int], ...] | None = None
    distinct: tuple[str, ...] = ()
    facts: list[Fact] = field(default_factory=list)  # the first facts bound, to pick KB cases


def gpu_places(platforms: Iterable[Fact]) -> dict[tuple[str, str], str]:
    """(node, bus id) -> where a rack-scale GPU sits, as a finding's label says it: the gpu_platform facts of
    ``nvidia-smi -q``'s ``Platform Info`` (GB200 / GB300 NVL: chassis, slot, tray, host, module), so that an
    operator finds the tray to pull and the module on it, not only a bus id (identity, no verdict)."""
    out: dict[tuple[str, str], str] = {}
    for f in platforms:
        bus = try_pci_bus_id(getattr(f, "pci_bus_id", None))
        where = ", ".join(f"{name} {value}" for name, value in (
            ("chassis", f.chassis_serial), ("slot", f.slot_number), ("tray", f.tray_index), ("host", f.host_id),
            ("module", f.module_id)) if value)
        if bus is not None and where:
            out[(f.node, bus)] = where
    return out


def _label(entity: dict[str, object], nodes: set[str], places: dict[tuple[str, str], str] | None = None) -> str:
    parts: list[str] = []
    if "node" in entity:
        parts.append(str(entity["node"]))
    if "gpu" in entity:
        where = places.get((str(entity.get("node")), try_pci_bus_id(str(entity["gpu"])) or "")) if places else None
        parts.append(f"GPU {entity['gpu']}" + (f" ({where})" if where else ""))
    if "hca" in entity:
        parts.append(f"HCA {entity['hca']}" + (f" port {entity['port']}" if "port" in entity else ""))
    if "rank" in entity:
        parts.append(f"rank {entity['rank']}")
    if "switch" in entity:
        parts.append(f"switch {entity['switch']}")
    if "link" in entity:
        parts.append("link " + " <-> ".join(map(str, entity["link"])))  # type: ignore[arg-type]
    if "address" in entity:
        parts.append(f"address {entity['address']}")
    if not parts:
        shown = ", ".join(sorted(nodes)[:8]) + (", ..." if len(nodes) > 8 else "")
        return f"the job (nodes: {shown})" if nodes else "the job"
    return " ".join(parts)


def evidence_of(fact: Fact, facts: dict[str, Fact]) -> list[Evidence]:
    """The evidence of ``fact``: its own, or that of each fact its ``sources`` name, where a source
    ``<id>@<i>`` is part ``i`` of a fact (a row of an nccl_test_table: its ``part_evidence``)."""
    sources = getattr(fact, "sources", None)
    if sources:
        out: list[Evidence] = []
        for sid in sources.split(","):
            if sid in facts:
                out.extend(evidence_of(facts[sid], facts))
            elif "@" in sid:
                owner, _, part = sid.rpartition("@")
                whole = facts.get(owner)
                if whole is not None and part.isdecimal() and hasattr(whole, "part_evidence"):
                    out.append(whole.part_evidence(int(part)))
        return out
    return [fact.evidence]


def _resolve(spec_value: str | None, rule_value: str | None, bound: dict[str, Fact], known, what: str, rule: str) -> str:
    """A finding's cause, component or severity: the finding spec's (fixed or ``$alias.field``
    of a bound fact, such as a catalogue entry), else the rule's; checked against the vocabulary."""
    value = fill(spec_value, bound) if spec_value is not None else rule_value
    if value not in known:
        raise ValueError(f"rule {rule}: {what} {value!r} is not in the vocabulary")
    return str(value)


def _resolve_actions(spec_actions: list[str] | str, bound: dict[str, Fact], known, rule: str) -> tuple[str, ...]:
    if isinstance(spec_actions, str):  # '$entry.actions': comma-separated ids held by a fact
        raw = fill(spec_actions, bound)
        acts = tuple(a.strip() for a in str(raw or "").split(",") if a.strip())
    else:
        acts = tuple(spec_actions)
    bad = [a for a in acts if a not in known]
    if bad:
        raise ValueError(f"rule {rule}: unknown action(s) {bad}")
    return acts


def build_findings(
    rules: list[CompiledRule], firings: list[Firing], facts: dict[str, Fact],
    places: dict[tuple[str, str], str] | None = None,
) -> list[Finding]:
    """``places``: where rack-scale GPUs sit (gpu_places), named in a GPU finding's label."""
    by_rule = {r.id: r for r in rules}
    vocab = load_vocabulary()
    drafts: dict[tuple, _Draft] = {}
    for firing in firings:
        crule = by_rule[firing.rule]
        spec = crule.rule.then.finding
        if spec is None:
            continue
        bound = {alias: facts[fid] for alias, fid in firing.bindings}
        entity: dict[str, object] = {}
        for key, raw in spec.entity.items():
            value = fill(raw, bound)
            if value is not None:
                # a fact holds a link as one string ("0000:c1:00.0 NVLink 11"); the report's link is a list of ends
                entity[key] = [value] if key == "link" and isinstance(value, str) else value
        rule = crule.rule
        cause = _resolve(spec.cause, rule.cause, bound, vocab.causes, "cause", rule.id)
        component = _resolve(spec.component, rule.component, bound, vocab.components, "component", rule.id)
        severity = _resolve(spec.severity, rule.severity, bound, SEVERITY_ORDER, "severity", rule.id)
        actions = _resolve_actions(spec.actions, bound, vocab.actions, rule.id)
        # one rule may give different causes (a catalogue rule over many Xid codes): keep them apart
        distinct = tuple(str(fill(ref, bound)) for ref in spec.distinct_by)
        key = (crule.id, cause, severity, actions, tuple(sorted((k, str(v)) for k, v in entity.items())), distinct)
        draft = drafts.get(key)
        if draft is None:
            draft = drafts[key] = _Draft(crule, entity, render(spec.summary, bound), cause=cause, component=component,
                                         severity=severity, actions=actions, distinct=distinct)
        draft.occurrences += 1
        if len(draft.facts) < 16:
            draft.facts.extend(bound.values())
        # the summary of a merged finding is that of its earliest line, whatever order the
        # evaluator fired in (summaries may quote per-line fields: a link, an Xid code)
        # (its lines in order, so that two firings sharing their earliest line are told apart too)
        first = tuple(sorted((ev.path, ev.line) for alias in spec.evidence for ev in evidence_of(bound[alias], facts)))
        if draft.first is None or first < draft.first:
            draft.first, draft.summary = first, render(spec.summary, bound)
        for fact in bound.values():
            if fact.node:
                draft.nodes.add(fact.node)
            rank = getattr(fact, "rank", None)
            if isinstance(rank, int) and not isinstance(rank, bool):
                draft.ranks.add(rank)
        for alias in spec.evidence:
            for ev in evidence_of(bound[alias], facts):
                draft.evidence.setdefault((ev.path, ev.line), ev)
    out: list[Finding] = []
    for draft, also in _same_fault(list(drafts.values())):
        rule = draft.crule.rule
        spec = rule.then.finding
        assert spec is not None
        evidence = sorted(draft.evidence.values(), key=lambda e: (e.path, e.line))
        action_text = spec.action_text or " ".join(vocab.actions[a] for a in draft.actions)
        ent = {k: draft.entity[k] for k in ENTITY_KEYS if k in draft.entity}
        if "rank" in ent:
            ent["rank"] = int(ent["rank"])  # type: ignore[arg-type]
        out.append(
            Finding(
                rank=0,
                rule=rule.id,
                title=rule.title,
                cause=draft.cause,
                component=draft.component,
                severity=draft.severity,  # type: ignore[arg-type]
                confidence=rule.confidence,
                role="independent",
                entity=Entity(label=_label(draft.entity, draft.nodes, places), **{k: (str(v) if k not in ("rank", "link") else v) for k, v in ent.items()}),
                summary=draft.summary,
                actions=list(draft.actions),
                action_text=action_text,
                evidence=[EvidenceLine(path=e.path, line=e.line, text=e.text) for e in evidence[:EVIDENCE_LIMIT]],
                evidence_total=len(evidence),
                nodes=sorted(draft.nodes),
                ranks=sorted(draft.ranks),
                occurrences=draft.occurrences,
                references=list(rule.references),
                kb=kb_links(draft.cause, rule.id, draft.facts),
                rules=[rule.id, *also],
            )
        )
    return rank_findings(out, symptom_map(rules))


def _fold_node_level(groups: dict[tuple, list[_Draft]]) -> None:
    """A fault seen once at a node (an application's ``CUDA error: an illegal memory access``)
    and once at a part of it (the kernel's Xid 31 on one GPU) is one fault, placed at the part:
    a node-level group joins the one group of the same cause, from other rules, that names a GPU
    of that node. With several such groups (two GPUs) the node-level one stays apart: it cannot
    be placed."""
    for key in list(groups):
        cause, entity, distinct = key
        if len(entity) != 1 or entity[0][0] != "node":
            continue
        rules = {d.crule.id for d in groups[key]}
        finer = [k for k in groups if k is not key and k[0] == cause and k[2] == distinct
                 and len(k[1]) > 1 and entity[0] in k[1] and any(name == "gpu" for name, _ in k[1])]
        # a rule that placed its own lines apart (two peers, two HCAs) meant them apart
        if len(finer) == 1 and not rules & {d.crule.id for d in groups[finer[0]]}:
            groups[finer[0]].extend(groups.pop(key))


def _same_fault(drafts: list[_Draft]) -> list[tuple[_Draft, list[str]]]:
    """One fault that several rules recognise (Xid 63 in dmesg and "Pending: Yes" in
    nvidia-smi -q; a catalogue entry and a workflow rule) is one finding: same cause, same
    entity. The most severe, most confident rule speaks; the others' evidence is added and
    their ids listed in ``rules``."""
    groups: dict[tuple, list[_Draft]] = {}
    for d in drafts:
        key = (d.cause, tuple(sorted((k, str(v)) for k, v in d.entity.items())), d.distinct)
        groups.setdefault(key, []).append(d)
    _fold_node_level(groups)
    out: list[tuple[_Draft, list[str]]] = []
    for members in groups.values():
        if len(members) == 1:
            out.append((members[0], []))
            continue
        # of equally severe and confident rules, the one that placed the fault on the part speaks: a node-level
        # reading folded into it (NVML's "No devices found" beside the kernel's reason for that GPU) says less
        members.sort(key=lambda d: (-SEVERITY_ORDER[d.severity], -d.crule.rule.confidence,
                                    d.crule.id == "xid_catalogue", -len(d.entity), d.crule.id, d.first or ("", 0)))
        lead = members[0]
        lead.entity = max((d.entity for d in members), key=len)  # a folded node-level draft keeps the part
        also: list[str] = []
        for d in members[1:]:
            for k, ev in d.evidence.items():
                lead.evidence.setdefault(k, ev)
            lead.nodes |= d.nodes
            lead.ranks |= d.ranks
            lead.occurrences += d.occurrences
            if d.crule.id not in also and d.crule.id != lead.crule.id:
                also.append(d.crule.id)
        out.append((lead, also))
    return out


class SymptomMap(dict):
    """rule id -> ``symptom`` flag, carrying each rule's ``cascade_of`` causes and the rules whose
    findings are ``unexplained`` along, so that every caller that re-ranks findings (localisation)
    keeps the job-wide cascades and the place of unexplained errors too."""

    def __init__(self, symptom: dict[str, bool], cascade_of: dict[str, tuple[str, ...]],
                 unexplained: frozenset[str] = frozenset(), node_scoped: frozenset[str] = frozenset()):
        super().__init__(symptom)
        self.cascade_of = cascade_of
        self.unexplained = unexplained
        #: rules whose ``cascade_of`` causes explain them only on the same node (cascade_scope: node)
        self.node_scoped = node_scoped


def symptom_map(rules: list[CompiledRule]) -> SymptomMap:
    return SymptomMap({r.id: r.rule.symptom for r in rules},
                      {r.id: tuple(r.rule.cascade_of) for r in rules if r.rule.cascade_of},
                      frozenset(r.id for r in rules if r.rule.unexplained),
                      frozenset(r.id for r in rules if r.rule.cascade_of and r.rule.cascade_scope == "node"))


def _where(f: Finding) -> set[str]:
    """The nodes a finding names (its entity's, else every node its rule matched on)."""
    return {f.entity.node} if f.entity.node else set(f.nodes)


def _reach(r: Finding) -> set[str]:
    """The nodes a root finding can explain findings on: every node its rule matched on, and its entity's."""
    return set(r.nodes) | ({r.entity.node} if r.entity.node else set())


def rank_findings(findings: list[Finding], symptom: dict[str, bool]) -> list[Finding]:
    """Mark cascades, order root causes first, number the ranks from 1.

    A symptom finding is a cascade of every root (non-symptom, warning or worse) on its node;
    a finding whose rule names causes in ``cascade_of`` is also a cascade of every finding of
    those causes in the job, or on its own node where the rule says ``cascade_scope: node``
    (``symptom`` a :class:`SymptomMap`).

    A finding of an ``unexplained`` rule (an error no rule read) is never a root, and once any
    other finding of warning or worse exists it ranks after all the others: an error nobody
    explained cannot outrank, nor be the cause of, a finding a rule explains."""
    unexplained: frozenset[str] = getattr(symptom, "unexplained", frozenset())
    roots = [f for f in findings if not symptom.get(f.rule) and f.rule not in unexplained and SEVERITY_ORDER[f.severity] >= 1]
    last = any(SEVERITY_ORDER[f.severity] >= 1 for f in findings if f.rule not in unexplained)
    cascade_of: dict[str, tuple[str, ...]] = getattr(symptom, "cascade_of", {})
    node_scoped: frozenset[str] = getattr(symptom, "node_scoped", frozenset())
    explained: dict[int, list[Finding]] = defaultdict(list)
    for i, f in enumerate(findings):
        where = _where(f)
        # (never by a finding of its own rule and cause: the same message on two GPUs of a node are siblings)
        by = [r for r in findings if r is not f and r.cause in cascade_of.get(f.rule, ()) and r.rule not in unexplained
              and SEVERITY_ORDER[r.severity] >= 1 and not (r.rule == f.rule and r.cause == f.cause)
              and (f.rule not in node_scoped or where & _reach(r))]
        if symptom.get(f.rule):
            by += [r for r in roots if all(r is not b for b in by) and where & _reach(r)]
        if by:
            explained[i] = by

    def key(item: tuple[int, Finding]) -> tuple:
        i, f = item
        return (last and f.rule in unexplained, i in explained, -SEVERITY_ORDER[f.severity], bool(symptom.get(f.rule)), -f.confidence,
                not any(getattr(f.entity, part) for part in PARTS), f.rule,
                # of one rule's findings, the one that names the rank first: a program's line over a
                # reporter's title that quotes the same error (hao-ai-lab/FastVideo#1008)
                f.entity.rank is None, f.entity.label,
                f.cause, f.summary)  # the last two: a total order, whatever order an evaluator fired in

    order = sorted(enumerate(findings), key=key)
    rank_of = {i: n + 1 for n, (i, _) in enumerate(order)}
    ident = {id(f): i for i, f in enumerate(findings)}
    result: list[Finding] = []
    for i, f in order:
        explains = sorted(rank_of[j] for j, rs in explained.items() if any(r is f for r in rs))
        by = sorted(rank_of[ident[id(r)]] for r in explained.get(i, []))
        if by:
            role = "cascade"
        elif explains or (not symptom.get(f.rule) and SEVERITY_ORDER[f.severity] >= 2):
            role = "root_cause"
        else:
            role = "independent"
        result.append(f.model_copy(update={"rank": rank_of[i], "role": role, "explains": explains, "explained_by": by}))
    return result
