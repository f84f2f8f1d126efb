"""Bad input never raises: every parser, on arbitrary text and on real captures cut,
spliced and corrupted, returns facts and ParseErrors, never an exception."""
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stethoscope.engine.diagnose import parse_artefacts
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.registry import load_parsers

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted(p for p in (ROOT / "fixtures" / "artefacts").glob("*/*") if p.is_file() and p.suffix != ".md")
REAL_LINES = [ln for p in REAL for ln in p.read_text(errors="replace").splitlines()[:200]]

lines = st.one_of(st.sampled_from(REAL_LINES), st.text(max_size=120))


def _mutate(line: str, cut: int, junk: str) -> str:
    cut = cut % (len(line) + 1)
    return line[:cut] + junk + line[cut:]


mutated = st.builds(_mutate, st.sampled_from(REAL_LINES), st.integers(0, 400), st.text(max_size=12))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(lines, mutated), max_size=40))
def test_every_parser_survives_spliced_and_corrupted_lines(chunk):
    text = "\n".join(chunk)
    art = Artefact(path="fuzz.log", text=text, node="n1")
    for mod in load_parsers():
        res = mod.parse(art)  # must not raise
        for e in res.errors:
            assert e.path == "fuzz.log" and 1 <= e.line <= max(1, text.count("\n") + 1)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(REAL), st.integers(0, 100_000), st.integers(1, 5000))
def test_truncated_real_captures_diagnose_without_exception(path, start, length):
    text = path.read_text(errors="replace")
    start = start % (len(text) + 1)
    art = Artefact(path=path.name, text=text[start : start + length], node="n1")
    obs = parse_artefacts([art])
    assert not [e for e in obs.coverage.errors if "parser failed" in e.message], obs.coverage.errors
