"""The one-pass classification (facts/classify.py) never hides a file from its reader."""
from pathlib import Path

import pytest
import re2

from stethoscope.facts import classify
from stethoscope.facts.classify import build, classifier, signature_source
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.registry import load_parsers

ROOT = Path(__file__).resolve().parent.parent
#: real artefacts of every kind: the fixtures, the observations and the harvested cases
TEXTS = sorted(p for p in (ROOT / "fixtures").rglob("*")
               if p.is_file() and p.stat().st_size < 4_000_000 and p.suffix not in (".gz", ".tgz", ".tar", ".zip", ".png"))


def normalised_texts():
    """Each real text (TEXTS) read as a bundle's file is: decoded, its wrappers off (Artefact.normalise)."""
    for path in TEXTS:
        try:
            raw = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        art = Artefact(path=str(path.relative_to(ROOT)), node="n", text=raw)
        art.normalise()
        yield art


def test_every_signature_compiles_in_re2():
    bad = []
    for mod in load_parsers():
        for sig in getattr(mod, "SIGNATURES", ()) or ():
            try:
                re2.compile(signature_source(sig))
            except Exception as exc:  # noqa: BLE001 - the message names the construct RE2 lacks
                bad.append(f"{mod.KIND}: {exc}")
    assert not bad, bad


def test_every_reader_declares_its_signatures():
    missing = sorted(m.KIND for m in load_parsers() if not getattr(m, "SIGNATURES", None))
    # pair_matrix_csv reads the head of a CSV (its header row decides): asked always
    assert set(missing) <= {"pair_matrix_csv"}, f"declare SIGNATURES in these readers: {missing}"


def test_no_reader_accepts_a_real_text_its_signatures_missed():
    c = classifier()
    misses = []
    for art in normalised_texts():
        cands = {m.KIND for m in c.candidates(art.text)}
        classify.forget()  # each detect on its own (no answer of classify.found for the text)
        misses += [f"{art.path}: {m.KIND}" for m in load_parsers() if m.KIND not in cands and m.detect(art.text)]
    assert len(TEXTS) > 300
    assert not misses, misses


def test_candidates_are_few_on_a_real_nccl_log():
    log = ROOT / "fixtures" / "observations" / "h200-x2"
    path = next(p for p in sorted(log.rglob("*.log")) if "NCCL INFO" in p.read_text(errors="replace"))
    kinds = {m.KIND for m in classifier().candidates(path.read_text())}
    assert "nccl_log" in kinds and "nvidia_smi_q" not in kinds and "kernel_log" not in kinds


def test_a_reader_without_signatures_is_always_asked():
    class Mod:  # a module-like reader declaring nothing
        KIND = "x"

        @staticmethod
        def detect(text):
            return True

    assert [m.KIND for m in build((Mod,)).candidates("anything")] == ["x"]


def test_found_answers_for_the_text_last_scanned_only():
    """classify.found: whether a signature occurs, from the last scan (what a reader of several
    forms, dynamic_linker, uses to skip the searches of forms absent); None for another text."""
    from stethoscope.facts.parsers import dynamic_linker

    c = classifier()
    compiled = [re2.compile(signature_source(s)) for s in dynamic_linker.SIGNATURES]
    marks = ("undefined symbol", "cannot open shared object", "not found (required by", "dso_loader", "NCCL INFO")
    texts = [t for t in (p.read_bytes().decode("utf-8", "replace") for p in TEXTS) if any(m in t for m in marks)]
    assert len(texts) > 50
    for text in texts:
        c.scan(text)
        assert [classify.found(text, s) for s in dynamic_linker.SIGNATURES] == \
            [rx.search(text) is not None for rx in compiled], text[:200]
        scanned = dynamic_linker.detect(text)
        assert classify.found(text + "x", dynamic_linker.SIGNATURES[0]) is None
        classify.forget()
        assert classify.found(text, dynamic_linker.SIGNATURES[0]) is None
        assert dynamic_linker.detect(text) == scanned, text[:200]


def test_relaxed_drops_only_the_bounds_of_repetitions():
    """classify.relaxed: the set's member of a signature with a bounded repetition; a class's or an
    escape's braces are the signature's own characters and stay."""
    from stethoscope.facts.classify import relaxed

    assert relaxed(r"\b(?P<tool>[\w.-]{1,40}) noticed that process rank (?P<rank>\d{1,9})") == \
        r"\b(?P<tool>[\w.-]{1,}) noticed that process rank (?P<rank>\d{1,})"
    assert relaxed(r"[ \t]{0,3}>|x{2,5}?y") == r"[ \t]{0,}>|x{2,}?y"
    for kept in (r"a\{1,2}", r"[{1,2}]x", r"[]{1,2}]", r"[^]{1,2}]", r"\d{4}-\d\d", r"[[:alpha:]{1,3}]", r"\Q{1,2}\E",
                 r"(?x) a{1,2}"):
        assert relaxed(kept) == kept, kept
    # a POSIX class ends not the class it is in; a "[:" without ":]" after it is a "[" of the class (as RE2 reads them)
    assert relaxed(r"[[:alpha:]]{1,3}") == r"[[:alpha:]]{1,}"
    assert relaxed(r"[^[:space:]{]{2,5}a") == r"[^[:space:]{]{2,}a"
    assert relaxed(r"NVRM[: ][\w-]{0,24}:") == r"NVRM[: ][\w-]{0,}:"
    assert relaxed(r"[[:]{1,3}") == r"[[:]{1,}"


def test_relaxed_members_answer_as_the_signatures_do():
    """The set holds 30-odd signatures relaxed (facts/classify.py build): on every real text the
    readers asked, the wrapper gate, the text gates and found() are those of a set of the signatures
    as written."""
    from stethoscope.facts.registry import load_fallbacks

    parsers = load_parsers()
    c = build(parsers, also=load_fallbacks())  # (unrecognised_text's failure words: a gate relaxed too)
    assert c.exact, "no relaxed member: the check below checks nothing"
    exact = build(parsers, relax=False, also=load_fallbacks())
    assert not exact.exact
    for path in TEXTS:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        want = exact.scan(text), classify._last[1]
        got = c.scan(text), classify._last[1]
        assert got == want, path
    classify.forget()


def test_scan_ahead_answers_as_a_scan_of_each_text_in_turn():
    """Classifier.scan_ahead (a worker's small files scanned back to back before their readers,
    engine/parse_pool.parse_items): scan() of each text, gate() and found() after it, are what a scan of
    that text alone gives; the answer kept serves the same text object once, no other (an equal copy is
    scanned), and drop_ahead() leaves none."""
    from stethoscope.facts.parsers import nccl_log_scan

    c = classifier()
    texts = []
    for path in TEXTS[:400]:
        try:
            texts.append(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError:
            continue
    want = []
    for text in texts:
        want.append((c.scan(text), classify._last[1], classify.gate(text, nccl_log_scan.ALL_PREFIXED_TEXT)))
    c.scan_ahead(texts)
    assert classify.gate(texts[-1], nccl_log_scan.ALL_PREFIXED_TEXT) is None  # (nothing counts as scanned last)
    for text, (scan, seen, alone) in zip(texts, want):
        assert id(text) in classify._ahead or texts.count(text) > 1
        assert (c.scan(text), classify._last[1], classify.gate(text, nccl_log_scan.ALL_PREFIXED_TEXT)) == (scan, seen, alone)
    assert not classify._ahead
    copy = "".join(list(texts[0]))
    c.scan_ahead([texts[0]])
    assert c.scan(copy) == want[0][0] and id(texts[0]) in classify._ahead  # (the copy scanned itself)
    classify.drop_ahead()
    classify.forget()
    assert not classify._ahead


def test_a_gate_built_from_knowledge_answers_as_its_own_search():
    """unrecognised_text's kernel-record gate (built from knowledge/kernel_messages.yaml by its text_gates(), when the
    set is built) is a member of the set: on every real text, gate() after the scan says what the gate's own search
    says, and texts where it matches and where it does not are both among them."""
    from stethoscope.facts.parsers import unrecognised_text

    (kernel_gate,) = unrecognised_text.text_gates()
    c = classifier()
    assert kernel_gate.pattern in c.gates
    seen = set()
    for art in normalised_texts():
        c.scan(art.text)
        want = kernel_gate.search(art.text) is not None
        assert classify.gate(art.text, kernel_gate) is want, art.path
        seen.add(want)
    classify.forget()
    assert seen == {True, False}
