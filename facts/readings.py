"""A kind's readings as engine code reads them, where knowledge/fact_routing.yaml's ``summary_rows`` folds the healthy
ones into their file's ``fact_summary`` (issue 12: facts for exceptions, summaries for health).

A reading of such a kind is a fact kept (a rule can bind it, or keep_where keeps it) or a row of its file's summary (the
values of the row's fields, then its line and text: engine/ruleengine/routing.Router folds them as a worker reads the
file). :func:`readings` gives each as a :class:`Reading` (its values as a tuple), :func:`records` as a named tuple of its
fields (``r.host``, as the fact's are read), both in the order the unrouted facts had, each with the id and evidence a
derived fact cites it by (a row's: ``<summary id>@<i>``, which engine/findings.evidence_of follows).
"""
from __future__ import annotations

from collections import namedtuple
from functools import lru_cache
from itertools import chain
from operator import itemgetter, le

from stethoscope.facts import knowledge
from stethoscope.facts.model import Evidence, Fact, of_kind


@lru_cache(maxsize=None)
def _rows(kind: str) -> tuple[tuple[str, ...], tuple[tuple[str, object], ...]]:
    """(the fields of a row of ``kind``, the (field, value) pairs a reading with a row has): fact_routing.yaml summary_rows."""
    spec = knowledge.load("fact_routing.yaml").summary_rows[kind]
    return tuple(spec.fields), tuple(spec.where.items())


class _Record:
    """What a reading (a :class:`Reading`, a record of records()) has besides its values: the kept fact or the file's
    fact_summary it is (``of``; ``row``: its row there, None for a kept fact), and that fact's node, and the id and
    evidence a derived fact cites it by."""
    __slots__ = ()

    @property
    def node(self) -> str:
        return self.of.node  # type: ignore[attr-defined]

    @property
    def id(self) -> str:
        """What a derived fact's ``sources`` cites it by (findings.evidence_of follows either form)."""
        return self.of.id if self.row is None else self.of.part_id(self.row)  # type: ignore[attr-defined]

    @property
    def evidence(self) -> Evidence:
        return self.of.evidence if self.row is None else self.of.part_evidence(self.row)  # type: ignore[attr-defined]


class Reading(namedtuple("Reading", ("values", "of", "row")), _Record):
    """A reading of a kind whose summaries keep rows (fact_routing.yaml summary_rows) as engine code reads it: the
    values of the row's fields (``values``), and the kept fact (``row`` None) or the file's fact_summary (its row
    ``row``) it is (``of``)."""
    __slots__ = ()


def readings(facts, kind: str) -> list[Reading]:
    """Every reading of ``kind`` with its summary_rows ``where`` values, in the order read (a file's by line, the
    files in the facts' order, as the unrouted facts were): the kept facts' and their files' summaries' rows."""
    return _in_order(facts, kind, Reading)


@lru_cache(maxsize=None)
def record_class(kind: str) -> type:
    """The record of a reading of ``kind`` (a kind with summary_rows): a named tuple of its row's fields, then the
    kept fact or summary it is (``of``) and its row (``row``, None for a kept fact), with the fact's ``node``, ``id``
    and ``evidence``: read as a fact of the kind is read, by the names of the fields the row keeps."""
    fields = _rows(kind)[0]
    base = namedtuple(f"{kind}_record", (*fields, "of", "row"))  # type: ignore[misc]
    return type(base.__name__, (base, _Record), {"__slots__": ()})


def records(facts, kind: str) -> list:
    """readings(), each a :func:`record_class` record: its fields by name (``r.host``), as a kept fact's are. Made
    once for a FactIndex or engine/pipeline.Combined while their facts of the kind and summaries are the same
    (``memo``: a bench bundle's rank lines are read by four modules)."""
    memo = getattr(facts, "memo", None)
    if memo is None:
        return _in_order(facts, kind, record_class(kind))
    positions = facts.positions
    key = (kind, len(positions.get(kind, ())), len(positions.get("fact_summary", ())))
    got = memo.get(key)
    if got is None:
        got = memo[key] = _in_order(facts, kind, record_class(kind))
    return list(got)


def _in_order(facts, kind: str, cls: type) -> list:
    """Every reading of ``kind`` (readings()) as a ``cls``: a Reading, or a record_class's record (its values
    spread), in the order read. A file's readings (its kept facts, then its summaries: contiguous in the facts) are
    sorted by line, stably, where they are not in order already (a summary's rows are, as read)."""
    fields, where = _rows(kind)
    new, spread = tuple.__new__, cls is not Reading
    out: list = []
    lines: list[int] = []  # the current file's readings' lines, and the readings
    got: list = []
    path = None
    for f in _sources(facts, kind):
        if f.kind == kind:
            if where and any(getattr(f, name, None) != want for name, want in where):
                continue
            values = tuple(getattr(f, name, None) for name in fields)
            more_lines, more = (f.evidence.line,), (new(cls, (*values, f, None) if spread else (values, f, None)),)
        elif f.of_kind == kind and f.rows:  # type: ignore[attr-defined]
            rows = f.rows  # type: ignore[attr-defined]
            more_lines = [row[-2] for row in rows]
            more = [new(cls, (*row[:-2], f, i)) for i, row in enumerate(rows)] if spread else \
                [new(cls, (row[:-2], f, i)) for i, row in enumerate(rows)]
        else:
            continue
        if f.evidence.path != path:
            _placed(out, lines, got)
            lines, got, path = [], [], f.evidence.path
        lines.extend(more_lines)
        got.extend(more)
    _placed(out, lines, got)
    return out


def _sources(facts, kind: str) -> list:
    """The facts of ``kind`` and the fact_summary facts of ``kind`` with rows, in the facts' order: a file's kept ones,
    then its summaries (a summary of another kind, or without rows, gives _in_order nothing). Where the facts carry
    their kinds' lists, positions and ``memo`` (a FactIndex, engine/pipeline.Combined), the summaries with rows are
    grouped by kind once while the summaries are as many (each kind's call read the kind of every summary before:
    ~42k at 1,024 bench nodes, ~22 CPU ms a call, bench/speed_rT8.md) and merged by position with the kind's facts."""
    by_kind, memo = getattr(facts, "by_kind", None), getattr(facts, "memo", None)
    positions = getattr(facts, "positions", None)
    if by_kind is None or memo is None or positions is None:
        return of_kind(facts, kind, "fact_summary")
    summaries = by_kind.get("fact_summary", ())
    key = ("summaries with rows", len(summaries))
    grouped = memo.get(key)
    if grouped is None:
        grouped = memo[key] = {}
        for i, f in zip(positions.get("fact_summary", ()), summaries):
            if f.rows:
                grouped.setdefault(f.of_kind, []).append((i, f))
    rows, kept = grouped.get(kind, ()), by_kind.get(kind)
    if not kept:
        return [f for _i, f in rows]
    if not rows:
        return list(kept)
    return list(map(itemgetter(1), sorted(chain(zip(positions[kind], kept), rows), key=itemgetter(0))))


def _placed(out: list, lines: list[int], got: list) -> None:
    """A file's readings ``got`` added to ``out`` in the order of their ``lines`` (stably)."""
    if all(map(le, lines, lines[1:])):
        out.extend(got)
    else:
        out.extend(got[i] for i in sorted(range(len(lines)), key=lines.__getitem__))
