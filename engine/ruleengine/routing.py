"""Facts for exceptions, summaries for health (issue 12, knowledge/fact_routing.yaml).

A parser reads every line it claims and makes a fact of every reading; most readings of a
healthy fleet (a zero ECC counter, a clock reason that is not active) can bind no rule and
are read by no engine code. The kinds that are such per-entity readings are listed in
knowledge/fact_routing.yaml (``summarise``). :class:`Router` keeps a fact of those kinds only
when it passes the constant tests of some pattern of the rules in use, and the tests comparing two of its
own fields (``memory_temp_c: {gte: $t.max_memory_c}``: :func:`stethoscope.engine.ruleengine.session.can_bind`,
the test durable's prefilter makes, ``literal_tests(own=True)``) or matches
its kind's ``keep_where`` (what engine code reads); the others of one file, node and kind
become one ``fact_summary`` that counts them and cites the first. Every other kind is kept. The routing runs where the file was parsed (a pool worker returns the
kept facts only), so a 1,024-node bundle keeps about one fact in ten in memory.

Equivalence: a fact that fails every constant test of every pattern of its kind can neither
complete a rule match nor block one (``none``), so the findings are those of the unrouted
facts (tests/test_fact_routing.py runs every fixture bundle both ways).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from sys import intern

from stethoscope.engine.ruleengine.session import can_bind, literal_tests
from stethoscope.engine.ruleengine.prefilter import fields_read
from stethoscope.facts import knowledge
from stethoscope.facts.kinds.derived import FactSummary
from stethoscope.facts.parsers.base import Rows, fold_row, fold_value
from stethoscope.facts.model import INTERN_MAX, Evidence, Fact, of_kind, shared_fields_set, with_values


@lru_cache(maxsize=1)
def _routing() -> tuple[frozenset[str], dict[str, tuple[dict, ...]], dict[str, str], dict[str, tuple]]:
    table = knowledge.load("fact_routing.yaml")
    return (frozenset(table.summarise), {kind: _alternatives(want) for kind, want in table.keep_where.items()},
            dict(table.summary_values), {kind: (tuple(r.fields), tuple(r.where.items()))
                                         for kind, r in table.summary_rows.items()})


def _alternatives(want: dict | list[dict]) -> tuple[dict, ...]:
    """A kind's keep_where as its alternatives: one set of field values, or a list of them (a fact
    that has every value of any one of them is kept)."""
    return (want,) if isinstance(want, dict) else tuple(want)


@dataclass(frozen=True)
class Router:
    """Which facts of a file go on to the engine (see the module docstring)."""

    #: the kinds whose facts are kept only when a rule can bind them (fact_routing.yaml summarise)
    summarised: frozenset[str]
    patterns: dict
    #: kind -> the field values of the facts of that kind that engine code reads (keep_where), one
    #: dict per alternative
    keep_where: dict
    #: kind -> the field whose distinct values its summary lists (fact_routing.yaml summary_values):
    #: FactBuilder's fold keeps them as a fourth item of the (node, kind) slot
    listed: dict = field(default_factory=dict)
    #: kind -> (the fields of a row, the (field, value) pairs a reading with a row has) of fact_routing.yaml
    #: summary_rows: FactBuilder's fold keeps the rows as a fourth item of the slot (facts/parsers/base.Rows)
    series: dict = field(default_factory=dict)

    def keeps(self, kind: str, view: dict) -> bool:
        """Whether a fact of a summarised ``kind`` with this rule view goes on (keep_where, or a
        rule in use can bind it). FactBuilder.add asks before it builds one (facts/parsers/base.py)."""
        for want in self.keep_where.get(kind, ()):
            if all(view.get(k) == v for k, v in want.items()):
                return True
        pats = self.patterns.get(kind)
        return pats is not None and can_bind(pats, view)

    @cached_property
    def reads(self) -> dict[str, tuple[str, ...]]:
        """kind -> the rule-view fields keeps() reads of a fact of that kind (its keep_where's and
        its patterns' tests', both fields of a test comparing two of its own): its answer depends on
        their values alone. A summarised kind not here is never kept."""
        out: dict[str, tuple[str, ...]] = {}
        for kind in {*self.patterns, *self.keep_where}:
            names = {name for want in self.keep_where.get(kind, ()) for name in want}
            names.update(fields_read(t for tests in self.patterns.get(kind, ()) for t in tests))
            out[kind] = tuple(sorted(names))
        return out

    @cached_property
    def answers(self) -> dict[tuple, bool]:
        """keeps()'s answers by kind and the values (with their types) of the fields it reads:
        FactBuilder.add asks once per distinct set (a fleet's healthy readings repeat a few)."""
        return {}

    @cached_property
    def passed(self) -> dict[int, Fact]:
        """The facts FactBuilder.add built because keeps() said they go on, by id() (the fact held,
        so no other object takes its id): route() keeps them without asking again, and empties it."""
        return {}

    @cached_property
    def dead(self) -> frozenset[str]:
        """Summarised kinds none of whose facts can go on: no pattern of the rules in use names
        them and engine code reads none (no keep_where). A reader may leave their lines unread.
        Made once (nccl_channels asks for every NCCL log: ~8 us a file, made anew each time)."""
        return frozenset(k for k in self.summarised if k not in self.patterns and k not in self.keep_where)

    def route(self, facts: list[Fact], folded: dict[tuple[str, str], list] | None = None) -> list[Fact]:
        """The facts that go on, then one fact_summary per (node, kind) of the others. ``folded``:
        the readings FactBuilder.add already counted unbuilt ((node, kind) -> [id, evidence, count],
        and the values of the kind's ``listed`` field as a fourth item); a fact it built because
        keeps() said so (``passed``) is not asked again."""
        kept: list[Fact] = []
        folded = dict(folded or {})
        summarised, keeps, listed, series = self.summarised, self.keeps, self.listed, self.series
        passed = self.passed
        for f in facts:
            kind = f.kind
            if kind not in summarised or passed.get(id(f)) is f or keeps(kind, f.rule_view()):
                kept.append(f)
                continue
            slot = folded.get((f.node, kind))
            if slot is None:
                slot = folded[(f.node, kind)] = [f.id, f.evidence, 1]
                if kind in listed:
                    slot.append([])
                elif kind in series:
                    slot.append(Rows())
            else:
                slot[2] += 1
            if kind in listed:
                fold_value(slot, getattr(f, listed[kind], None))
            elif kind in series:
                fold_row(slot, series[kind], lambda name: getattr(f, name, None), f.evidence.line, f.evidence.text)
        passed.clear()  # (FactBuilder.add fills it again for the next file)
        for (node, kind), slot in folded.items():
            more = slot[3] if len(slot) > 3 else ()
            kept.append(_summary(f"{slot[0]}~summary", node, slot[1], kind, slot[2],
                                 () if type(more) is Rows else tuple(more), tuple(more) if type(more) is Rows else ()))
        return kept


_SUMMARY_SET = shared_fields_set(frozenset(("id", "node", "evidence", "of_kind", "count")))
_LISTED_SET = shared_fields_set(frozenset(("id", "node", "evidence", "of_kind", "count", "values")))
_ROWS_SET = shared_fields_set(frozenset(("id", "node", "evidence", "of_kind", "count", "rows")))
_EVIDENCE_SET = shared_fields_set(frozenset(("path", "line", "text")))
_set = object.__setattr__


def _summary(fid: str, node: str, evidence: Evidence | dict, kind: str, count: int,
             values: tuple[str, ...] = (), rows: tuple[tuple, ...] = ()) -> FactSummary:
    """``FactSummary(id=fid, node=node, evidence=evidence, of_kind=kind, count=count[, values=values])``, built as
    validation stores values of these types (the strings interned as facts/model._share_fields_set
    does): ~3 us against ~15 (a bench node's files make ~60). Other types: validated."""
    if type(evidence) is dict and evidence.keys() == _EVIDENCE_SET and type(evidence["path"]) is str \
            and type(evidence["line"]) is int and type(evidence["text"]) is str:
        path, text = evidence["path"], evidence["text"]
        evidence = with_values(Evidence, {"path": intern(path) if len(path) <= INTERN_MAX else path,
                                          "line": evidence["line"],
                                          "text": intern(text) if len(text) <= INTERN_MAX else text})
        _set(evidence, "__pydantic_fields_set__", _EVIDENCE_SET)
        _set(evidence, "__pydantic_extra__", None)
        _set(evidence, "__pydantic_private__", None)
    if type(evidence) is not Evidence or type(fid) is not str or type(node) is not str or type(kind) is not str \
            or type(count) is not int or not all(type(v) is str for v in values):
        more = {"values": values} if values else {}
        if rows:
            more["rows"] = rows
        return FactSummary(id=fid, node=node, evidence=evidence, of_kind=kind, count=count, **more)
    fact = with_values(FactSummary, {"kind": "fact_summary", "id": fid,
                                     "node": intern(node) if len(node) <= INTERN_MAX else node,
                                     "evidence": evidence, "of_kind": intern(kind) if len(kind) <= INTERN_MAX else kind,
                                     "count": count, "values": values, "rows": rows})
    _set(fact, "__pydantic_fields_set__", _LISTED_SET if values else _ROWS_SET if rows else _SUMMARY_SET)
    _set(fact, "__pydantic_extra__", None)
    _set(fact, "__pydantic_private__", None)
    return fact


def router_for(rules) -> Router:
    """The router of a rule set (its ``CompiledRule`` list). A pattern's tests that compare two fields of the fact
    itself are the router's too (``own``): a GPU's temperatures below its own limits and its power draw below its
    own limit bind none of the power_thermal rules, so a healthy fleet's gpu_temperature and gpu_power readings
    are summaries, not facts the parent unpickles, indexes and prefilters (28,672 of 335,935 facts a 1,024-node
    bench bundle sent it; issue 12, round rCA8: bench/speed_rCA8.md)."""
    summarised, where, listed, series = _routing()
    return Router(summarised=summarised, patterns=literal_tests(list(rules), own=True), keep_where=where, listed=listed,
                  series=series)


def made(facts: list[Fact]) -> int:
    """How many facts the parsers made: the kept ones plus those each summary counts."""
    positions = getattr(facts, "positions", None)  # a FactIndex (facts/model.py): no pass over every fact
    if positions is None:
        return sum(f.count if f.kind == "fact_summary" else 1 for f in facts)
    summaries = of_kind(facts, "fact_summary")
    return len(facts) - len(summaries) + sum(f.count for f in summaries)
