"""Bad input never raises: the fast fuzz profile (issue 13 item 5; the long one is bench/fuzz.py).

Every real fixture, mutated (tests/fuzzing.py: bit flips, truncation, duplication, separators,
NaN, huge numbers and odd unicode put in, numbers and fields replaced, lines spliced in from
other fixtures), goes through ``normalise``, every reader's ``detect`` and the parse of every
reader that accepts it or owned the fixture; mutated bundles go as .tar.gz/.tar/.zip through
``steth diagnose --from-logs``. No reader may raise, no parse problem may name a line outside
the file, no report may say "parser failed", and the CLI answers a broken archive in one line.

Inputs per run, all seeded (the same on every machine): one per fixture file (~900), 10 per
reader (one test a reader: ``-k nccl_log`` fuzzes that reader alone), 300 hypothesis plans over
the fixtures, 200 hypothesis texts of real and random lines through every reader's parse, 24
archives (8 through the CLI): ~2,500 in all. Every crash
the fuzzer ever found is replayed from fixtures/fuzz/ (cases.yaml).
"""
import random
import zlib
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing

FUZZ = Path(__file__).resolve().parent.parent / "fixtures" / "fuzz"
CASES = yaml.safe_load((FUZZ / "cases.yaml").read_text())
PER_READER = 10
ARCHIVES = 24


def _report(crashes) -> str:
    return "\n".join(c.describe() for c in crashes[:10]) + (f"\n... {len(crashes)} in all" if len(crashes) > 10 else "")


def test_every_fixture_mutated_through_every_reader():
    rng = random.Random(13)
    crashes, n = [], 0
    for seed in fuzzing.corpus():
        plan = fuzzing.random_plan(rng)
        crashes += fuzzing.check_text(fuzzing.apply(seed.data, plan), seed.owners, seed.rel, plan)
        n += 1
    assert n == len(fuzzing.corpus()) > 800
    assert not crashes, _report(crashes)


#: every reader's KIND, known at collection: ``pytest tests/test_fuzz_parsers.py -k nccl_log`` fuzzes one reader alone
KINDS = sorted(m.KIND for m in fuzzing.readers())


@pytest.mark.parametrize("kind", KINDS)
def test_every_reader_gets_its_own_mutated_fixtures(kind):
    """Readers with one fixture get as many inputs as those with a hundred; a reader no fixture is
    detected as gets other readers' fixtures, mutated, through its parse (its owners include it)."""
    rng = random.Random(zlib.crc32(kind.encode()))
    own = [s for s in fuzzing.corpus() if kind in s.owners]
    seeds = own or list(fuzzing.corpus())
    crashes = []
    for _ in range(PER_READER):
        seed = rng.choice(seeds)
        plan = fuzzing.random_plan(rng)
        crashes += fuzzing.check_text(fuzzing.apply(seed.data, plan), seed.owners + (kind,), seed.rel, plan)
    assert not crashes, _report(crashes)


def test_most_readers_are_detected_on_a_real_fixture():
    owned = {k for s in fuzzing.corpus() for k in s.owners}
    assert len(owned & set(KINDS)) > 50


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(0, 10**6), fuzzing.mutation_plans())
def test_hypothesis_mutation_plans_over_the_fixtures(which, plan):
    seed = fuzzing.corpus()[which % len(fuzzing.corpus())]
    crashes = fuzzing.check_text(fuzzing.apply(seed.data, plan), seed.owners, seed.rel, plan)
    assert not crashes, _report(crashes)


_real_lines = st.deferred(lambda: st.sampled_from(fuzzing.corpus_lines()).map(lambda b: b.decode("utf-8", "replace")))
_mutated_line = st.builds(lambda ln, cut, junk: ln[: cut % (len(ln) + 1)] + junk + ln[cut % (len(ln) + 1):],
                          _real_lines, st.integers(0, 400), st.text(max_size=12))


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.one_of(_real_lines, _mutated_line, st.text(max_size=120)), max_size=40))
def test_every_parser_survives_spliced_and_corrupted_lines(chunk):
    crashes = fuzzing.check_lines(chunk)
    assert not crashes, _report(crashes)


#: the document DCGM's nvvs/src/JsonOutput.cpp describes for ``dcgmi diag -j`` (no real capture in
#: fixtures/ yet): DCGM GPU Diagnostic > test_categories > tests > results
DCGM_DIAG_SHAPE = {"DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [
    {"name": "GPU Memory", "results": [{"gpu_id": "0", "status": "Fail", "warnings": [{"warning": "GPU 0 ECC"}]}]}]}],
    "metadata": {"DCGM Version": "3.3.5"}, "version": "3.3.5"}}


def _json_documents() -> list[tuple[str, object, tuple[str, ...]]]:
    import json

    docs = [("DCGM_DIAG_SHAPE", DCGM_DIAG_SHAPE, ("dcgmi_diag",))]
    for seed in fuzzing.corpus():
        try:
            docs.append((seed.rel, json.loads(seed.data), seed.owners))
        except ValueError:
            continue
    return docs


def test_every_json_document_with_a_value_of_another_type():
    """Each JSON fixture (fio, iperf3, nvbandwidth, nccl-tests, flight recorder, steth's own
    records, ...) with its first 30 values, one at a time, made null, a string, a number, a list
    or an object: one parse problem at most, never an exception (30 crashes in four readers
    before: `.get` of a string, `float([])`, a number where a PCI id was)."""
    import json

    crashes, n = [], 0
    docs = _json_documents()
    assert len(docs) >= 15
    for rel, doc, owners in docs:
        for path in fuzzing.json_nodes(doc, 30):
            for value in (None, "x", 1.5, True, [1], {"a": 1}):
                data = json.dumps(fuzzing.json_put(doc, path, value), indent=1).encode()
                crashes += fuzzing.check_text(data, owners, rel, (("json_retype", 0),))
                n += 1
    assert n > 2000
    assert not crashes, _report(crashes)


def test_mutated_bundles_as_archives_through_the_cli():
    """tar.gz, tar and zip of fixture bundles with 1-3 files mutated (and now and then the
    archive itself cut or flipped): a report or one line of bad input, never exit 4."""
    rng = random.Random(19)
    roots = fuzzing.bundle_roots()
    crashes = []
    for i in range(ARCHIVES):
        root = rng.choice(roots)
        files, plan, broken = fuzzing.mutate_bundle(fuzzing.bundle_files(root), rng)
        crashes += fuzzing.check_archive(files, fuzzing.ARCHIVES[i % 3], root, plan, rng, via_cli=i % 3 == 0,
                                         break_archive=broken or i % 8 == 7)
    assert not crashes, _report(crashes)


def test_every_fuzz_fixture_is_listed():
    files = sorted(p.name for p in FUZZ.iterdir() if p.name not in ("README.md", "cases.yaml"))
    assert files == sorted(c["file"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_found_crash_is_a_parse_problem_now(case):
    """Each crash the fuzzer found: no reader raises on its input, and the reader that did
    reports the malformed line instead."""
    data = (FUZZ / case["file"]).read_bytes()
    assert not (crashes := fuzzing.check_text(data, (case["reader"],), case["file"], every_parse=True)), _report(crashes)
    from stethoscope.facts.parsers.base import Artefact
    from stethoscope.facts.registry import parsers_by_kind

    mod = parsers_by_kind()[case["reader"]]
    art = Artefact(path=case["file"], text=fuzzing.decode(data), node="n1")
    art.normalise()
    assert mod.detect(art.text)
    res = mod.parse(art)
    problems = [e.message for e in res.errors]
    if case["problem"] is None:  # well-formed after all: read, every fact citing a line of the file
        assert res.facts and not problems, problems
        assert all(1 <= f.evidence.line <= len(art.lines) for f in res.facts)
    else:  # a parse error, or a limit (a document cut short is read up to the cut)
        problems += [h.detail for h in res.limits]
        assert all(1 <= h.line <= len(art.lines) for h in res.limits)
        assert any(case["problem"] in p for p in problems), problems


def test_json_nested_thousands_deep_in_every_json_reader():
    """json.loads raises RecursionError (not a ValueError) on deep nesting: the fuzzer found it in
    one reader (fixtures/fuzz/steth_patrol_nested_deep.json); every reader of JSON is checked on
    its own fixture with 100,000 '[' after the first key."""
    seeds = {}
    for s in fuzzing.corpus():
        for kind in s.owners:
            if s.data.lstrip().startswith(b"{") and b":" in s.data:
                seeds.setdefault(kind, s)
    assert len(seeds) >= 6, sorted(seeds)
    crashes = []
    for kind, s in sorted(seeds.items()):
        i = s.data.index(b":") + 1
        crashes += fuzzing.check_text(s.data[:i] + b"[" * 100_000 + s.data[i:], s.owners, s.rel, (("nested", 0),))
    assert not crashes, _report(crashes)
