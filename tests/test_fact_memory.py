"""Facts are many (about a million at 1,024 nodes): what each instance carries counts (issue 12).
Pydantic keeps a per-instance set of the fields it was given, ~2 KB for a 20-field fact; facts
are frozen, so instances given the same fields share one set, also when they come back from a
parse worker (pickled) or are copied."""
import pickle
from pathlib import Path

from stethoscope.facts.parsers import nccl_tests
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "fixtures" / "artefacts" / "nccl_tests" / "allreduce_healthy_g2.txt"


def _rows():
    res = nccl_tests.parse(Artefact(path=SAMPLE.name, text=SAMPLE.read_text(), node="vm"))
    return [f for f in res.facts if f.kind == "nccl_test_row"]


def test_facts_given_the_same_fields_share_one_fields_set():
    rows = _rows()
    assert len(rows) > 10
    assert len({id(r.__pydantic_fields_set__) for r in rows}) == 1
    assert len({id(r.evidence.__pydantic_fields_set__) for r in rows}) == 1


def test_sharing_survives_a_worker_and_a_copy_and_changes_nothing():
    rows = _rows()
    back = pickle.loads(pickle.dumps(rows))
    assert back == rows
    assert {id(r.__pydantic_fields_set__) for r in back} == {id(rows[0].__pydantic_fields_set__)}
    copy = rows[0].model_copy(update={"wrong": 3})
    assert copy.wrong == 3 and rows[0].wrong == 0 and copy.model_fields_set == rows[0].model_fields_set


def test_a_facts_field_values_share_their_names_with_the_other_facts_of_its_class():
    """facts/model.with_values: a 22-field row's __dict__ keeps only its values (key-sharing),
    built here or unpickled from a worker (which builds plain ones: share_keys(False))."""
    import sys

    from stethoscope.facts import model

    rows = _rows()
    back = pickle.loads(pickle.dumps(rows))
    for facts in (rows, back):
        assert facts[0] == rows[0] and list(facts[0].__dict__) == list(rows[0].__dict__)
        assert sys.getsizeof(facts[0].__dict__) < sys.getsizeof(dict(facts[0].__dict__)) / 2
    model.share_keys(False)
    try:
        plain = _rows()
    finally:
        model.share_keys(True)
    assert plain == rows and sys.getsizeof(plain[0].__dict__) == sys.getsizeof(dict(plain[0].__dict__))
    assert pickle.loads(pickle.dumps(plain)) == rows


def test_a_facts_evidence_travels_inside_it_and_comes_back_the_same():
    """Fact.__reduce__ carries the evidence as (path, line, text), rebuilt by _rebuilt_fact: an
    Evidence again, equal, with the fields set every Evidence shares; the worker's fact is untouched."""
    from stethoscope.facts.model import Evidence

    rows = _rows()
    before = [dict(r.__dict__) for r in rows]
    back = pickle.loads(pickle.dumps(rows))
    assert [dict(r.__dict__) for r in rows] == before
    for b, r in zip(back, rows):
        assert type(b.evidence) is Evidence and b.evidence == r.evidence
        assert b.evidence.__pydantic_fields_set__ is r.evidence.__pydantic_fields_set__
        assert b.evidence.__pydantic_extra__ is None and b.evidence.__pydantic_private__ is None
        assert b.model_dump() == r.model_dump() and b.id == r.id


def test_a_workers_facts_travel_as_one_list_of_rows_and_come_back_the_same():
    """facts/model.FactRows (engine/parse_pool._packed: a worker's results): the facts of a file
    pickled as one flat list (three items a fact) come back a plain list of the same facts, their
    fields sets and evidence shared as one by one; a fact Fact.__reduce__ cannot give as a row (an
    extra value) sends the list as it is."""
    import sys

    from stethoscope.facts.model import Evidence, FactRows, _rebuilt_rows

    rows = _rows()
    blob = pickle.dumps(FactRows(rows), protocol=pickle.HIGHEST_PROTOCOL)
    assert _rebuilt_rows.__name__.encode() in blob
    back = pickle.loads(blob)
    assert type(back) is list and back == rows
    for b, r in zip(back, rows):
        assert b.__pydantic_fields_set__ is r.__pydantic_fields_set__
        assert type(b.evidence) is Evidence and b.evidence.__pydantic_fields_set__ is r.evidence.__pydantic_fields_set__
        assert list(b.__dict__) == list(r.__dict__)
        # key-sharing, as with_values makes it (an empty one updated from a dict would copy the dict's table)
        assert sys.getsizeof(b.__dict__) < sys.getsizeof(dict(b.__dict__)) / 2
    odd = rows[0].model_copy()
    object.__setattr__(odd, "__pydantic_private__", {"x": 1})
    blob = pickle.dumps(FactRows([rows[1], odd]), protocol=pickle.HIGHEST_PROTOCOL)
    assert _rebuilt_rows.__name__.encode() not in blob
    back = pickle.loads(blob)
    assert type(back) is list and back[0] == rows[1] and back[1].__pydantic_private__ == {"x": 1}
