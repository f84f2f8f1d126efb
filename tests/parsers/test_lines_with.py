"""base.lines_with, every reader's search for the lines holding a literal (issue 12, round rX2: a literal with a
rare character is looked for from that character, the others by whole-text finds): always the lines the plain
finds give, in text order, once per line."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from stethoscope.facts.parsers import base, glog_failure_signal, mooncake_transfer, perftest, xla_coordination

ROOT = Path(__file__).resolve().parents[2]


def by_find(text: str, literals: tuple[str, ...]) -> list[tuple[int, str]]:
    """lines_with as it was before round rX2: a whole-text find of each literal, the lines' starts sorted."""
    starts: set[int] = set()
    for lit in literals:
        pos = text.find(lit)
        while pos != -1:
            starts.add(text.rfind("\n", 0, pos) + 1)
            end = text.find("\n", pos)
            if end == -1:
                break
            pos = text.find(lit, end + 1)
    out = []
    for start in sorted(starts):
        end = text.find("\n", start)
        out.append((start, text[start:] if end == -1 else text[start:end]))
    return out


#: readers' literal sets whose literals hold a rare character ('+', '*', '@', 'Q', 'J', 'K', '#', '&', ...), with some
#: that hold none beside them
READERS = [("+ PCI[", "+ NET["), glog_failure_signal._MARKERS, perftest._FAIL_GATES,
           xla_coordination._GATES + xla_coordination._MORE, mooncake_transfer._LITERALS]
#: (the miss allowance, its shift): as shipped; the rare character left at its first miss; never left
BUDGETS = [(base._MISS_BASE, base._MISS_SHIFT), (0, 40), (10**9, 0)]


def _texts():
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file() and path.stat().st_size < 1_000_000:
            try:
                yield path, path.read_text()
            except (UnicodeDecodeError, OSError):
                continue


def test_readers_literal_sets_have_rare_characters():
    for literals in READERS:
        groups, _whole = base._plan(tuple(literals))
        assert groups, literals


@pytest.mark.parametrize("budget", BUDGETS)
def test_every_fixture_as_by_find(monkeypatch, budget):
    monkeypatch.setattr(base, "_MISS_BASE", budget[0])
    monkeypatch.setattr(base, "_MISS_SHIFT", budget[1])
    texts = list(_texts())
    assert len(texts) > 2000
    for path, text in texts:
        for literals in READERS:
            assert list(base.lines_with(text, literals)) == by_find(text, literals), (path, literals[0])


# CONSTRUCTED literal sets: a literal at the text's very start (its rare character not its first), one inside
# another, two sharing the rare character, one of non-ASCII, a literal of it alone, the empty literal, a newline
ODD = [("+",), ("++", "+ +"), ("x+", "+y", "+"), ("[", "+ N"), ("é+", "+é"), ("Q", "QQ", "a Q"), ("",), ("a", ""),
       ("a\nb",), ("NET[", "+ NET[")]


@pytest.mark.parametrize("budget", BUDGETS)
def test_constructed_texts_of_many_rare_characters(monkeypatch, budget):
    # CONSTRUCTED: texts of the literals' own characters with many "+", "[", blanks and newlines, the literals
    # strewn in, with and without a last newline
    monkeypatch.setattr(base, "_MISS_BASE", budget[0])
    monkeypatch.setattr(base, "_MISS_SHIFT", budget[1])
    rnd = random.Random(48)
    for i in range(300):
        literals = tuple(rnd.choice(ODD + READERS[:2]))
        alphabet = "".join(sorted(set("".join(literals)))) + "+[ \n" + ("é" if i % 5 == 0 else "")
        parts: list[str] = []
        size, n = rnd.choice([0, 1, 6, 60, 600, 3000, 20000]), 0
        while n < size:
            parts.append(rnd.choice(literals) if rnd.random() < 0.05 else "".join(rnd.choices(alphabet, k=rnd.randint(1, 20))))
            n += len(parts[-1])
        text = "".join(parts)
        for t in (text, text.rstrip("\n"), text + "\n"):
            assert list(base.lines_with(t, literals)) == by_find(t, literals), (i, literals)


def test_iter_lines_with_numbers_the_lines():
    # CONSTRUCTED
    text = "a\nvm:1:2 [0] NCCL INFO + PCI[24.0] - NIC/0\nb + c\n+ NET[1.0]"
    assert list(base.iter_lines_with(("+ PCI[", "+ NET["), base.Artefact(path="x", text=text))) == [
        (2, "vm:1:2 [0] NCCL INFO + PCI[24.0] - NIC/0"), (4, "+ NET[1.0]")]
