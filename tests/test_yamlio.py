"""facts/yamlio's parse cache: JSON by the text's hash, the same data as a parse, never in the way."""
from __future__ import annotations

import datetime

import pytest

from stethoscope.facts import yamlio

RULE = "id: demo\nwhen:\n  all:\n    - fact: xid_event\n      match: {xid: 79}\nthreshold: 1.5\nflag: true\nnone: ~\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("STETH_YAML_CACHE", raising=False)
    return yamlio._JsonCache


def test_a_cached_parse_is_the_parse_and_a_fresh_copy(cache, tmp_path):
    first = cache()
    data = first.load(RULE)
    assert data == yamlio._parse(RULE)
    first.write()
    (path,) = (tmp_path / "gpu-stethoscope").iterdir()
    second = cache()
    again = second.load(RULE)
    assert again == data and type(again["threshold"]) is float and again["flag"] is True
    again["when"]["all"].clear()  # the caller's own copy
    assert second.load(RULE) == data
    assert not second.dirty and path.read_text().count("\n") == 1


def test_data_json_would_change_is_parsed_each_time(cache):
    c = cache()
    assert c.load("1: one\n") == {1: "one"}  # an int key
    assert c.load("at: 2024-01-02\n") == {"at": datetime.date(2024, 1, 2)}
    assert c.load("x: .nan\n")["x"] != 0  # NaN
    assert c.entries == {} and not c.dirty


def test_a_damaged_cache_line_is_parsed_again(cache, tmp_path):
    c = cache()
    c.load(RULE)
    c.write()
    (path,) = (tmp_path / "gpu-stethoscope").iterdir()
    key = path.read_text().split(" ")[0]
    path.write_text(f"{key} {{\"id\": \"dem\nnot a line\n")
    assert cache().load(RULE) == yamlio._parse(RULE)


def test_an_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: no folder can be made in it
    c = yamlio._JsonCache()
    assert c.load(RULE) == yamlio._parse(RULE)
    c.write()
    assert blocker.read_text() == ""


def test_off_switch(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("STETH_YAML_CACHE", "0")
    c = cache()
    assert c.load(RULE) == yamlio._parse(RULE)
    assert not c.dirty
    c.write()
    assert not (tmp_path / "gpu-stethoscope").exists()


def test_yaml_errors_still_name_the_line(cache):
    with pytest.raises(yamlio.yaml.MarkedYAMLError) as exc:
        cache().load("a: [1, 2\nb: 3\n")
    assert exc.value.problem_mark is not None
