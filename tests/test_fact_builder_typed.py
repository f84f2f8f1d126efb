"""FactBuilder.add builds a fact without pydantic's validation when its values are of the types
its fields store as given (facts/parsers/base.py _Typed; issue 12: validation cost ~10 us a
fact, a bench node builds ~500). Such a fact must be the one validation makes of the same
arguments: the same values of the same types (1 is not 1.0), the same fields set; and any
other value must still be validated (converted or refused) as before."""
import math
import sys
from pathlib import Path
from typing import Literal

import pytest
from pydantic import ValidationError

from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts import model
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers import base
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

ROOT = Path(__file__).resolve().parent.parent
#: kinds of the readers a bench node's time goes to (nccl_tests, nccl_log, nvidia_smi_q/xml)
HOT = {"nccl_test_row", "nccl_test_rank", "nccl_rank", "nccl_transport", "nccl_net_plugin", "gpu_info",
       "gpu_ecc_count", "gpu_clock_reason"}


def _texts():
    for p in sorted((ROOT / "fixtures").rglob("*")):
        if p.is_file() and p.stat().st_size < 4_000_000:
            data = p.read_bytes()
            if b"\0" not in data[:4096]:
                yield str(p.relative_to(ROOT)), data.decode("utf-8", "replace")


def test_every_fixture_fact_is_what_validation_makes_of_its_arguments(monkeypatch):
    """Every fact the readers build from every fixture (router off: every reading built) against
    the class validating the same arguments: _same (values, their types, fields set)."""
    add = FactBuilder.add
    wrong: list[str] = []
    counts = {"facts": 0}

    def checked(self, cls, line, node=None, text=None, **fields):
        fact = add(self, cls, line, node, text, **fields)
        if fact is not None:
            counts["facts"] += 1
            again = cls(id=fact.id, node=fact.node, evidence=fact.evidence.model_dump(), **fields)
            if not base._same(fact, again):
                wrong.append(f"{fact.id}: {fact!r} != {again!r}")
        return fact

    monkeypatch.setattr(FactBuilder, "add", checked)
    base._TYPED.clear()
    for path, text in _texts():
        parse_one(Artefact(path=path, text=text, node="n1"))
    assert not wrong, "\n".join(wrong[:20])
    assert counts["facts"] > 10_000, counts
    # the hot readers' facts took the typed path (after the first of each key)
    typed = {t.cls.model_fields["kind"].default for t in base._TYPED.values() if t.same}
    assert HOT <= typed, HOT - typed


class _Probe(Fact):  # not registered (fact_kind): no rule or coverage table knows it
    kind: Literal["test_typed_probe"] = "test_typed_probe"
    count: int
    rate: float | None = None
    state: Literal["up", "down"] | None = None
    name: str = "x"


def _add(**fields):
    art = Artefact(path="p.log", text="a\nb\nc\n", node="n1")
    return FactBuilder(art, ParseResult()).add(_Probe, 1, **fields)


@pytest.mark.parametrize("fields", [
    {"count": 1, "rate": 2},  # an int for a float field: validation makes it 2.0
    {"count": 1, "rate": 2.5, "state": "up"},
    {"count": 1, "rate": math.nan},
    {"count": True},  # a bool for an int field: 1
    {"count": "3"},  # text for an int: 3
])
def test_the_same_key_twice_gives_what_validation_gives(fields):
    want = _Probe(id="p.log:1:test_typed_probe", node="n1", evidence={"path": "p.log", "line": 1, "text": "a"},
                  **fields)
    for _ in range(3):  # the first of a key is validated; then built as given where that is the same
        got = _add(**fields)
        assert base._same(got, want)
        assert type(got.rate) is type(want.rate) and type(got.count) is int


@pytest.mark.parametrize("fields", [
    {"count": 1, "state": "sideways"},  # not one of the Literal's values
    {"count": "x"},
    {"rate": 1.0},  # count missing
    {"count": 1, "colour": "red"},  # no such field
])
def test_a_value_validation_refuses_is_refused_every_time(fields):
    good = dict(fields, count=1, state="up")
    good.pop("colour", None)
    _add(**good)  # a good fact of the same names and types went first
    for _ in range(2):
        with pytest.raises(ValidationError):
            _add(**fields)


def test_node_and_text_given_by_name_or_by_place_give_the_same_fact():
    """add takes node and text by place or by name (its parameters are positional-only, so that a
    call's fields are not compared with their names: bench/speed_rO7.md); either way the same fact."""
    art = Artefact(path="p.log", text="a\nb\nc\n", node="n1")
    for _ in range(2):  # the key's first fact (validated), then one built from its values as given
        by_place = FactBuilder(art, ParseResult()).add(_Probe, 2, "n2", "quoted", count=1, name="y")
        by_name = FactBuilder(art, ParseResult()).add(_Probe, 2, node="n2", text="quoted", count=1, name="y")
        for got in (by_place, by_name):
            assert got.node == "n2" and got.evidence.text == "quoted" and got.name == "y"
        assert base._same(by_place, by_name)


class _WideProbe(Fact):  # more fields than facts/model.py SHARE_FROM: a key-sharing __dict__ where sharing is on
    kind: Literal["test_typed_wide_probe"] = "test_typed_wide_probe"
    a: int
    b: str | None = None
    c: float | None = None
    d: str = "d"
    e: int = 5
    f: str | None = None


@pytest.mark.parametrize("sharing", [True, False])  # in-process, and a parse worker's (share_keys(False))
def test_a_fact_built_as_given_holds_what_validation_holds_in_its_order(sharing, monkeypatch):
    monkeypatch.setattr(model, "_sharing", sharing)
    art = Artefact(path="p.log", text="a\nb\n", node="n1")
    fields = {"f": "ff", "a": 3, "c": 1.5, "b": "bb"}  # not in the class's order
    want = _WideProbe(id="p.log:1:test_typed_wide_probe", node="n1", evidence={"path": "p.log", "line": 1, "text": "a"},
                      **fields)
    for _ in range(3):
        got = FactBuilder(art, ParseResult()).add(_WideProbe, 1, **fields)
        assert base._same(got, want)  # the same names in the same order, values and their types, fields set
        assert list(got.__dict__) == list(_WideProbe.model_fields)
        assert got.b is sys.intern("bb") and got.node is sys.intern("n1")  # short text interned


_EV = model.Evidence(path="p.log", line=4, text="a row")


@pytest.mark.parametrize("fields", [
    {"count": 1, "rate": 2},  # an int for a float field: validated (2.0), as add does
    {"count": 1, "rate": 2.5, "state": "down"},
    {"count": True},
    {"count": "3"},
    {"count": 1, "rate": math.inf, "name": "y"},
])
def test_as_given_is_what_validation_makes_with_the_evidence_given(fields):
    """as_given: a combiner's fact (its own id, an evidence already built: engine/baselines/perf_compare.py,
    engine/combine/nvls_use.py) made as add makes a reader's; the evidence kept as validation keeps it."""
    want = _Probe(id="derived:summary:probe", node="n1", evidence=_EV, **fields)
    for _ in range(3):
        got = base.as_given(_Probe, "derived:summary:probe", "n1", _EV, **fields)
        assert base._same(got, want) and got.evidence is want.evidence
        assert type(got.rate) is type(want.rate) and type(got.count) is int


@pytest.mark.parametrize("fields", [{"count": 1, "state": "sideways"}, {"count": "x"}, {"rate": 1.0}])
def test_as_given_refuses_what_validation_refuses(fields):
    base.as_given(_Probe, "derived:summary:probe", "n1", _EV, count=1, state="up")
    for _ in range(2):
        with pytest.raises(ValidationError):
            base.as_given(_Probe, "derived:summary:probe", "n1", _EV, **fields)


def test_the_combiners_facts_are_built_as_given():
    """BusbwComparison's and NcclNvlsUse's fields all store their values as given (bench/speed_rP7.md, rQ9:
    their validation was 16-20 % of busbw_vs_baseline and nvls_use at 1,024 nodes)."""
    from stethoscope.facts.kinds.nccl import BusbwComparison, NcclNvlsUse
    for cls in (BusbwComparison, NcclNvlsUse):
        shape = base._shape_of(cls)
        assert shape is not None and shape.before is None, cls


class _TableProbe(Fact):  # tuples of simple items (an nccl_test_table's columns): built as given item by item
    kind: Literal["test_typed_table_probe"] = "test_typed_table_probe"
    xs: tuple[float, ...]
    ys: tuple[int | None, ...] | None = None
    names: tuple[str, ...] = ()


def _add_table(**fields):
    art = Artefact(path="p.log", text="a\nb\nc\n", node="n1")
    return FactBuilder(art, ParseResult()).add(_TableProbe, 1, **fields)


def _want_table(**fields):
    return _TableProbe(id="p.log:1:test_typed_table_probe", node="n1",
                       evidence={"path": "p.log", "line": 1, "text": "a"}, **fields)


@pytest.mark.parametrize("fields", [
    {"xs": (1.5, 2.5)},
    {"xs": (1, 2.5)},  # an int among floats: validation makes it 1.0
    {"xs": (math.nan, 2.5), "ys": (1, None), "names": ("a", "b")},
    {"xs": (), "ys": (True, 2)},  # a bool among ints: 1
    {"xs": (1.5,), "ys": None},
    {"xs": [1.5, 2.5]},  # a list: validation makes it a tuple
    {"xs": (1.5,), "names": ("a", 3)},  # not text: refused
])
def test_a_tuple_is_built_as_given_only_where_validation_keeps_every_item(fields):
    """A tuple field (facts/parsers/base.py _Items): validation converts an item of another type than the
    field's (1 -> 1.0 among floats, True -> 1 among ints); the same key (a tuple) given such an item after
    facts built as given must still be validated, item by item."""
    good = {"xs": (0.5, 0.25), "ys": (7, None), "names": ("z",)}
    for name in ("ys", "names"):
        if name not in fields:
            good.pop(name)
    if type(fields.get("ys", ())) is not tuple:
        good["ys"] = fields["ys"]
    for _ in range(2):  # a good fact of the same names and types first: built as given after the first
        _add_table(**good)
    try:
        want = _want_table(**fields)
    except ValidationError:
        for _ in range(2):
            with pytest.raises(ValidationError):
                _add_table(**fields)
        return
    for _ in range(3):
        got = _add_table(**fields)
        assert base._same(got, want)
        for name in ("xs", "ys", "names"):
            g, w = getattr(got, name), getattr(want, name)
            assert type(g) is type(w) and (w is None or [type(x) for x in g] == [type(x) for x in w])


def test_a_tuple_of_another_item_type_is_not_the_same():
    """_same (which decides whether a key's facts are built as given) tells (1,) from (1.0,)."""
    a = _want_table(xs=(1.0,))
    b = model.with_values(_TableProbe, {**a.__dict__, "xs": (1,)})
    model.with_slots(b, a.__pydantic_fields_set__)
    assert not base._same(a, b) and base._same(a, _want_table(xs=(1.0,)))


def test_the_bench_tables_are_built_as_given():
    """nccl_test_table (its columns tuples of simple items) takes _Typed's path: its validation cost ~100 us a
    table on 2 cores, 5 tables a bench node (bench/speed_rZ2.md)."""
    from stethoscope.facts.kinds.bench import NcclTestTable
    shape = base._shape_of(NcclTestTable)
    assert shape is not None and shape.before is None and set(shape.tuples) >= {"lines", "texts", "ids", "oop_busbw"}
