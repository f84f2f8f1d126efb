"""Which readers a file's text is for, in one compiled pass (issues 11 and 12).

Every parser module declares ``SIGNATURES``: the line signatures it owns, as regular
expressions (compiled ``re`` patterns or pattern strings) of which at least one matches
somewhere in any text its ``detect`` accepts. All of them are compiled into one RE2 set
(google-re2: a DFA, linear in the text, no backtracking), so recognising a file costs one
scan of its text whatever the number of readers, instead of one scan per reader. Only the
readers whose signature occurs are then asked, with their own ``detect``, whether the text
is theirs. A parser without ``SIGNATURES`` is asked always (slower, never wrong).

A parser module may also declare ``TEXT_GATES``: RE2 patterns about the whole text (e.g. "every
line carries NCCL's prefix") that it would otherwise test with a pass of its own. They are more
members of the same set; :func:`gate` gives a reader the answer for the text last scanned (None
for any other text: the reader then runs its own pass), and :func:`found` the same of one of its
``SIGNATURES`` (a reader of several line forms looks only for those whose signature occurs).
A gate built from a knowledge file is declared by a function ``text_gates()`` instead (called when
the set is built, not at import: a module's import loads no knowledge).

A signature with a bounded repetition (``{1,40}``) joins the set as :func:`relaxed` (the bound
dropped: it matches wherever the signature does), and a text that member occurs in is searched with the
signature itself before its reader is asked: the set's DFA stays small, its answers are the signatures'.

Flags of compiled patterns (MULTILINE, IGNORECASE, DOTALL) become inline flags. RE2 has no
look-around or back-references: a signature must not use them (tests/test_classify.py
compiles every one, and checks on every real fixture that a reader's ``detect`` never
accepts a text its signatures missed).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType

import re2

from stethoscope.facts.lines import GLUE_GATE, INDENTED_GATE, PADDED_GATE, PLAIN_GATE, UNCUT_GATE

_FLAGS = ((re.MULTILINE, "m"), (re.IGNORECASE, "i"), (re.DOTALL, "s"))


def signature_source(sig: re.Pattern | str) -> str:
    """RE2 source of one signature, its ``re`` flags made inline."""
    if isinstance(sig, str):
        return sig
    flags = "".join(ch for f, ch in _FLAGS if sig.flags & f)
    return f"(?{flags}){sig.pattern}" if flags else sig.pattern


# x{m,n} (x{m,n}? lazy): its bounds, where a pattern repeats something from m to n times
_BOUNDED = re.compile(r"\{(\d+),\d+\}")


def relaxed(source: str) -> str:
    r"""``source`` with each bounded repetition ``{m,n}`` outside a character class made ``{m,}``: a
    pattern matching wherever ``source`` does (the operators of a regular expression are monotone: a
    part that matches more makes the whole match more), for the set. RE2 unrolls ``\S{1,255}`` into
    255 optional copies, an unanchored search keeps one alive from every position, and the set's DFA
    states multiply with them. Measured on two bench nodes' 40 files with the 31 members so relaxed (of
    243): the set's first pass, which builds its states, 280 -> 110 ms; a warm pass 5.2-6.1 -> 3.4-3.6
    ms a node, the searches of the signatures themselves included. ``source`` itself where it quotes
    (``\Q``) or uses free spacing (``(?x``). A POSIX class in a class (``[[:alpha:]]``) is read as RE2 reads it: a
    ``[:`` with a ``:]`` after it (the kernel-record gate's ``NVRM[: ]`` is a class of ``:`` and a blank)."""
    if "{" not in source or "\\Q" in source or re.search(r"\(\?[a-zA-Z]*x", source):
        return source
    out: list[str] = []
    i, n, in_class = 0, len(source), False
    while i < n:
        c = source[i]
        if c == "\\":  # an escape: the next character is literal, whatever it is
            out.append(source[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and source.startswith(":", i + 1) and (k := source.find(":]", i + 2)) >= 0:
                out.append(source[i:k + 2])  # a POSIX class, its "]" no end of the class around it
                i = k + 2
                continue
            in_class = c != "]"
        elif c == "[":  # a class: "]" first in it ("[]...]", "[^]...]") is a member, not its end
            j = i + 1 + source.startswith("^", i + 1)
            j += source.startswith("]", j)
            out.append(source[i:j])
            i, in_class = j, True
            continue
        elif c == "{" and (m := _BOUNDED.match(source, i)):
            out.append(f"{{{m[1]},}}")
            i = m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


class Exact:
    """A relaxed member's signature as written (build), compiled when a text its member occurs in is first searched:
    of ~185 such signatures a parse worker searches a few, and compiling them all cost the parent ~0.2 CPU s of its
    serial path before the workers fork (bench/speed_rI7.md). ``search`` as the compiled pattern's."""

    __slots__ = ("source", "options", "_compiled")

    def __init__(self, source: str, options) -> None:
        self.source, self.options, self._compiled = source, options, None

    def search(self, text: str):
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re2.compile(self.source, self.options)
        return compiled.search(text)


@dataclass(frozen=True)
class Classifier:
    """One RE2 set over every declared signature and the wrapper gate; ``candidates(text)``:
    the parser modules to ask; ``scan(text)``: those and the gate's answer."""

    parsers: tuple[ModuleType, ...]
    owner: tuple[int, ...]  # set index -> index into parsers
    always: tuple[int, ...]  # parsers without signatures
    rset: object
    gates: tuple[str, ...] = ()  # the set's members after the wrapper gate: facts/lines.py UNCUT_GATE's and the TEXT_GATES' sources
    sources: tuple[str, ...] = ()  # set index -> the signature's source (found())
    #: set index -> the signature, where the set holds it relaxed(): searched in a text its member occurs in
    exact: dict[int, Exact] = field(default_factory=dict)

    def candidates(self, text: str) -> list[ModuleType]:
        return self.scan(text)[0]

    def scan(self, text: str) -> tuple[list[ModuleType], bool]:
        """The parser modules to ask, and whether the wrapper gate of facts/lines.py found a
        wrapper, colour or link in ``text`` (its pattern is one more member of the set: the
        one pass answers both, where a second pass of its own cost a bench node ~2.3 ms).
        A text scan_ahead() scanned is answered from that pass (once)."""
        global _last
        if _ahead:
            held = _ahead.pop(id(text), None)
            if held is not None and held[0] is text:
                _last = (text, held[2])
                return held[1]
        hit = set(self.always)
        wrapped = False
        gates: list[str] = []
        owned = len(self.owner)
        exact = self.exact
        for i in self.rset.Match(text) or ():
            if i in exact and exact[i].search(text) is None:
                continue  # the relaxed member only: the signature itself does not occur
            if i < owned:
                hit.add(self.owner[i])
                gates.append(self.sources[i])
            elif i == owned:
                wrapped = True
            else:
                gates.append(self.gates[i - owned - 1])
        _last = (text, frozenset(gates))
        return [self.parsers[i] for i in sorted(hit)], wrapped

    def scan_ahead(self, texts: list[str]) -> None:
        """scan() each of ``texts`` now, back to back, its answer kept for scan() of the same text object
        (the first call only) and for gate() and found() then. The set's DFA walks a small file's bytes
        at about one cache miss a byte where its readers ran between two files (its states, ~9 MB, are
        evicted by their work): a parse worker scans its chunk's small files ahead of their readers
        (engine/parse_pool.AHEAD_CHARS; bench/speed_rV6.md). Drop the answers not asked for: drop_ahead()."""
        for text in texts:
            got = self.scan(text)
            _ahead[id(text)] = (text, got, _last[1])
        forget()


#: the text Classifier.scan last scanned (this process's), and the TEXT_GATES and signatures found
#: in it (gate(), found())
_last: tuple[str | None, frozenset[str]] = (None, frozenset())


#: the answers scan_ahead() made: id of the text -> (the text, scan()'s answer, the gates and signatures found)
_ahead: dict[int, tuple[str, tuple[list[ModuleType], bool], frozenset[str]]] = {}


def drop_ahead() -> None:
    """Drop what scan_ahead() kept and scan() was not asked of (the texts it holds)."""
    _ahead.clear()


def gate(text: str, pattern: re2._Regexp) -> bool | None:
    """Whether ``pattern``, one of a reader's ``TEXT_GATES``, matches ``text``, when ``text`` is the
    text the classifier scanned last (the same object: parse_one asks its readers right after the
    scan); None for another text, which the reader then tests itself."""
    last, found = _last
    return (pattern.pattern in found) if text is last else None


def forget() -> None:
    """Drop the reference to the text last scanned (a file's whole text, up to a window of a large
    one): parse_one calls it when the file's readers are done."""
    global _last
    _last = (None, frozenset())


def found(text: str, signature: re.Pattern | str) -> bool | None:
    """Whether ``signature``, one of a reader's ``SIGNATURES``, occurs in ``text``, when ``text`` is
    the text the classifier scanned last (as gate()); None for another text."""
    last, seen = _last
    return (signature_source(signature) in seen) if text is last else None


#: RE2's memory for the set's program and its lazily built DFA. At the default 8 MiB the DFA of
#: ~120 signatures no longer fits: RE2 throws its states away again and again (~5 MB/s: 150 ms a
#: bench node of 1.3 MB, more than all its readers together); at 64 MiB the states it needs stay
#: (~9 MB of them, 5 ms a node). Measured on 60 files of bench/synth_bundle.py's nodes, second pass:
#: 8 MiB 373-488 ms, 16 MiB 35-40 ms, 32 MiB 23 ms, 64 MiB 15 ms, 256 MiB 24 ms.
MAX_MEM = 64 << 20


def build(parsers: tuple[ModuleType, ...], relax: bool = True, also: tuple[ModuleType, ...] = ()) -> Classifier:
    """The set of ``parsers``' signatures and the gates; ``relax``: bounded repetitions relaxed in the
    set (False: every member as written, tests/test_classify.py's reference); ``also``: modules whose
    TEXT_GATES join the set though their signatures do not (the fallback readers: never candidates)."""
    options = re2.Options()
    options.max_mem = MAX_MEM
    rset = re2.Set.SearchSet(options)
    owner: list[int] = []
    always: list[int] = []
    sources: list[str] = []
    exact: dict[int, Exact] = {}

    def add(source: str) -> None:
        member = relaxed(source) if relax else source
        if member != source:
            exact[rset.Add(member)] = Exact(source, options)
        else:
            rset.Add(source)

    for i, mod in enumerate(parsers):
        sigs = getattr(mod, "SIGNATURES", None)
        if not sigs:
            always.append(i)
            continue
        for sig in sigs:
            sources.append(signature_source(sig))
            add(sources[-1])
            owner.append(i)
    add(PLAIN_GATE.pattern)  # the wrapper gate (Classifier.scan)
    # then facts/lines.py's and the readers' text gates (gate())
    gates = tuple(dict.fromkeys((UNCUT_GATE.pattern, GLUE_GATE.pattern, PADDED_GATE.pattern, INDENTED_GATE.pattern,
                                 *(g.pattern for mod in (*parsers, *also) for g in text_gates(mod)))))
    for g in gates:
        add(g)
    rset.Compile()
    return Classifier(parsers=parsers, owner=tuple(owner), always=tuple(always), rset=rset, gates=gates,
                      sources=tuple(sources), exact=exact)


def text_gates(mod: ModuleType) -> tuple:
    """A reader module's gates: its ``TEXT_GATES`` and what its ``text_gates()`` builds (from knowledge)."""
    built = getattr(mod, "text_gates", None)
    return (*getattr(mod, "TEXT_GATES", ()), *(built() if callable(built) else ()))


@lru_cache(maxsize=1)
def classifier() -> Classifier:
    from stethoscope.facts.registry import load_fallbacks, load_parsers

    return build(load_parsers(), also=load_fallbacks())


def recognise(text: str) -> list[ModuleType]:
    """The parser modules whose ``detect`` accepts ``text`` (asked only when a signature occurs)."""
    return [p for p in classifier().candidates(text) if p.detect(text)]
