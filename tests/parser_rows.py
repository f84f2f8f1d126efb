"""Shared steps of the parser tests that read real lines one by one and a real fixture whole
(``import parser_rows``, as tests/small_bundle.py is imported)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers.base import Artefact

ARTEFACTS = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts"


def line_fields(reader, line: str, fields: tuple[str, ...], node: str | None = None) -> list[tuple]:
    """The ``fields`` of each fact ``reader`` makes of ``line`` alone, after checking that its
    detect() claims the line exactly when it makes a fact of it."""
    artefact = Artefact(path="t.log", text=line + "\n") if node is None else Artefact(path="t.log", text=line + "\n", node=node)
    facts = reader.parse(artefact).facts
    assert reader.detect(line + "\n") is bool(facts), f"detect() disagrees with parse() on {line!r}"
    return [tuple(getattr(f, name) for name in fields) for f in facts]


def read_fixture(reader, name: str, path: str = "t.log"):
    """``reader``'s parse of ``fixtures/artefacts/<reader's name>/<name>``, which its detect() must claim."""
    text = (ARTEFACTS / reader.__name__.rpartition(".")[2] / name).read_text()
    assert reader.detect(text)
    return reader.parse(Artefact(path=path, text=text))


def read_without_fact(reader, line: str) -> bool:
    """``reader`` claims ``line`` (detect), reads it (one line used) and makes no fact of it: a line of its form that
    reports nothing wrong."""
    res = reader.parse(Artefact(path="t.log", text=line + "\n"))
    return reader.detect(line) and res.lines_used == 1 and not res.facts
