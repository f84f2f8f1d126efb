"""The CUDA runtime and driver error enums (``knowledge/cuda_errors.yaml``), for parsers and rules.

Not a parser. :mod:`cuda_app` and :mod:`torch_log` resolve what an application printed
(a name, a number, a ``cudaGetErrorString`` text, an older or PyTorch wording) to one entry
here, so a ``cuda_error`` fact carries the code and name whatever the spelling;
:mod:`stethoscope.engine.catalogues.cuda` turns the entries the facts name into
``cuda_error_catalogue_entry`` facts that rules join with (``name: $e.catalogue_name``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import re2

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.catalogues import (  # noqa: F401 - the fact classes live in facts/kinds
    CudaErrorCatalogueEntry,
)

PATH = "knowledge/cuda_errors.yaml"


@dataclass(frozen=True)
class Entry:
    api: str
    code: int
    name: str
    text: str
    description: str
    texts: tuple[str, ...]
    cause: str
    component: str
    severity: str
    actions: tuple[str, ...]
    specific_rules: tuple[str, ...]
    judgement: str
    line: int  # of its "- api:" item in the knowledge file


def _text() -> str:
    return knowledge.text("cuda_errors.yaml")


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    lines = [i for i, ln in enumerate(_text().splitlines(), 1) if ln.startswith("- api: ")]
    out = []
    for i, e in enumerate(knowledge.load("cuda_errors.yaml").errors):  # validated (facts/knowledge/cuda.py)
        out.append(Entry(api=e.api, code=e.code, name=e.name, text=e.text, description=e.description,
                         texts=tuple(e.texts), cause=e.cause, component=e.component, severity=e.severity,
                         actions=tuple(e.actions), specific_rules=tuple(e.specific_rules),
                         judgement=e.judgement, line=lines[i] if i < len(lines) else 1))
    return tuple(out)


@lru_cache(maxsize=1)
def _by_name() -> dict[str, Entry]:
    return {e.name: e for e in entries()}


@lru_cache(maxsize=1)
def _by_text() -> list[tuple[str, Entry]]:
    """(lower-case text, entry), longest first, runtime before driver: a message is the
    longest text it starts with (``out of memory`` must not take ``out of memory ...``)."""
    seen: dict[str, Entry] = {}
    for e in entries():  # runtime entries come first in the file
        for t in (e.text, *e.texts):
            seen.setdefault(t.lower().rstrip("."), e)
    return sorted(seen.items(), key=lambda kv: -len(kv[0]))


def by_name(name: str) -> Entry | None:
    return _by_name().get(name)


def by_code(code: int, api: str = "runtime") -> Entry | None:
    return next((e for e in entries() if e.code == code and e.api == api), None)


def by_text(message: str) -> Entry | None:
    """The entry whose text (or older wording) ``message`` starts with, case, a final period and
    markdown emphasis around it (``_text_``, ``**text**``) aside; None when no text fits."""
    low = message.strip().lower().lstrip("_*")
    for text, e in _by_text():
        if low.startswith(text):
            rest = low[len(text):len(text) + 1]
            if not rest or not (rest.isalnum() or rest == "_") or _emphasis_closes(low, len(text)):
                return e
    return None


def _emphasis_closes(low: str, at: int) -> bool:
    """Whether the "_" at ``at`` closes a markdown emphasis around the message (one to three of them, then a blank, a
    stop or the end), not a longer identifier going on: "... it gave a _RuntimeError: CUDA error: invalid configuration
    argument_ error." (facebookresearch/xformers#998, the text in italics inside the reporter's sentence)."""
    end = at
    while end < len(low) and end - at < 3 and low[end] == "_":
        end += 1
    return end == len(low) or not (low[end].isalnum() or low[end] == "_")


#: a catalogue text counts as a phrase (found with no "CUDA error" marker around it) from this
#: many words: the 4-word texts ("named symbol not found", "wait operation timed out", "out of
#: memory" and shorter) are ordinary English other programs print; from 5 words on they are CUDA's
PHRASE_MIN_WORDS = 5
#: a pasted message may lose the end of its last word (an issue title cut short: "... between
#: these two device"): up to this many of its characters, keeping at least 3
PHRASE_CUT_CHARS = 3


def _stem(text: str) -> str:
    last = text.split()[-1]
    cut = max(0, min(PHRASE_CUT_CHARS, len(last) - 3))
    return text[:len(text) - cut] if cut else text


@lru_cache(maxsize=1)
def phrases() -> tuple[tuple[str, Entry], ...]:
    """(lower-case stem, entry) for every text of PHRASE_MIN_WORDS words or more, longest
    first, runtime before driver (the same precedence as :func:`by_text`)."""
    seen: dict[str, Entry] = {}
    for e in entries():
        for t in (e.text, *e.texts):
            t = t.rstrip(".")
            if len(t.split()) >= PHRASE_MIN_WORDS:
                seen.setdefault(_stem(t).lower(), e)
    return tuple(sorted(seen.items(), key=lambda kv: -len(kv[0])))


def phrase_pattern() -> str:
    """One RE2 pattern (case-insensitive) over every phrase stem: a DFA, linear in the text."""
    return "(?i)(?:" + "|".join(re2.escape(s) for s, _e in phrases()) + ")"


@lru_cache(maxsize=1)
def _phrase_re():
    return re2.compile(phrase_pattern())


def find_phrase(line: str) -> tuple[Entry, str] | None:
    """The entry whose text (or a cut-short end of it) occurs in ``line``, and the text as
    printed there (from the stem to the end of its word); None when none does."""
    m = _phrase_re().search(line)
    if m is None:
        return None
    low = m.group().lower()
    entry = next(e for s, e in phrases() if s == low)
    end = m.end()
    while end < len(line) and (line[end].isalnum() or line[end] in "_-"):
        end += 1
    return entry, line[m.start():end]


def text_has_phrase(text: str) -> bool:
    return _phrase_re().search(text) is not None


#: a text of this many words, fewer than PHRASE_MIN_WORDS, is CUDA's where quotation marks hold it and nothing else: a
#: reporter quoting the message (jcjohnson/neural-style#312: I get an “uncorrectable ECC error encountered” after 600
#: iteration); the 3-word texts ("out of memory", "file not found") stay ordinary English even quoted
QUOTED_MIN_WORDS = 4
#: the marks a quotation opens and closes with (straight, typographic, backtick, guillemets, CJK corner brackets)
_OPEN, _CLOSE = "\"'`“‘«「", "\"'`”’»」"


@lru_cache(maxsize=1)
def quoted_texts() -> tuple[tuple[str, Entry], ...]:
    """(lower-case text, entry) for every text of QUOTED_MIN_WORDS words up to PHRASE_MIN_WORDS (a longer one is a
    phrase, found anywhere), runtime before driver (the precedence of :func:`by_text`)."""
    seen: dict[str, Entry] = {}
    for e in entries():
        for t in (e.text, *e.texts):
            t = t.rstrip(".")
            if QUOTED_MIN_WORDS <= len(t.split()) < PHRASE_MIN_WORDS:
                seen.setdefault(t.lower(), e)
    return tuple(sorted(seen.items(), key=lambda kv: -len(kv[0])))


def quoted_pattern() -> str:
    """One RE2 pattern (case-insensitive): a quoted text, its quotation marks and a final period the only other
    characters."""
    return ("(?i)[" + re2.escape(_OPEN) + "](?P<q>" + "|".join(re2.escape(t) for t, _e in quoted_texts()) + r")\.?["
            + re2.escape(_CLOSE) + "]")


@lru_cache(maxsize=1)
def _quoted_re():
    return re2.compile(quoted_pattern())


def find_quoted(line: str) -> tuple[Entry, str] | None:
    """The entry whose text ``line`` quotes whole (QUOTED_MIN_WORDS words or more), and the text as printed; None
    when it quotes none."""
    m = _quoted_re().search(line)
    if m is None:
        return None
    printed = m.group("q")
    return next(e for t, e in quoted_texts() if t == printed.lower()), printed


def text_has_quoted(text: str) -> bool:
    return _quoted_re().search(text) is not None


#: a message cut short at a paste's end (its last line: "RuntimeError: CUDA error: an illegal memory acc") names its
#: error only from this many words and characters on ("out of" or "peer access is" could be several texts, or none)
CUT_MIN_WORDS = 3
CUT_MIN_CHARS = 12


def cut_entry(text: str) -> Entry | None:
    """The one runtime entry whose cudaGetErrorString text (or an older wording) begins with ``text`` and goes on past
    it: the message of a paste's last line, cut there (paboyle/Grid#300's excerpt ends "Cuda error an illegal memory
    access was", cudaErrorIllegalAddress's "an illegal memory access was encountered"); None when no entry or more
    than one could be meant, or the text is shorter than CUT_MIN_WORDS words or CUT_MIN_CHARS characters. Callers ask
    only for a text's last line (facts/parsers/hpc_cuda_check.py, cuda_app.py) and mark the line cut_short."""
    low = " ".join(text.lower().split())
    if len(low.split()) < CUT_MIN_WORDS or len(low) < CUT_MIN_CHARS:
        return None
    found = {e.name: e for e in entries() if e.api == "runtime"
             for t in (e.text, *e.texts) if (tl := t.lower().rstrip(".")).startswith(low) and len(tl) > len(low)}
    return next(iter(found.values())) if len(found) == 1 else None


#: HIP's error names (hip/hip_runtime_api.h hipError_t) whose CUDA runtime twin (same code and meaning) is not spelt
#: "cudaError" + the rest: hipErrorOutOfMemory is 2, cudaErrorMemoryAllocation; every other hipErrorX is cudaErrorX
HIP_RENAMED = {"hipErrorOutOfMemory": "cudaErrorMemoryAllocation", "hipErrorNotInitialized": "cudaErrorInitializationError",
               "hipErrorDeinitialized": "cudaErrorCudartUnloading", "hipErrorNoBinaryForGpu": "cudaErrorNoKernelImageForDevice",
               "hipErrorECCNotCorrectable": "cudaErrorECCUncorrectable"}


def cuda_name(name: str) -> str:
    """The CUDA runtime name of a HIP error name (PyTorch's ROCm build prints 'HIP error: hipErrorNoDevice'); other
    names as they are."""
    if not name.startswith("hipError"):
        return name
    return HIP_RENAMED.get(name, "cudaError" + name[len("hipError"):])


def resolve(name: str | None = None, text: str | None = None, code: int | None = None,
            api: str = "runtime") -> Entry | None:
    """One entry for what was printed: the name when it is a known one (a HIP name read as its CUDA twin), else the
    text, else the number (the numbers of CUDA <= 9 differ, so a text that resolves wins over them)."""
    if name:
        e = by_name(cuda_name(name))
        if e is not None:
            return e
    if text:
        e = by_text(text)
        if e is not None:
            return e
    if code is not None:
        return by_code(code, api)
    return None


def runtime_twin(entry: Entry) -> str | None:
    """The runtime name of a driver entry that has the same code and text (CUDA_ERROR_ILLEGAL_ADDRESS:
    cudaErrorIllegalAddress), for a driver call's error read as the runtime would name it; None where they differ."""
    twin = by_text(entry.text)
    return twin.name if twin is not None and twin.api == "runtime" and twin.code == entry.code else None


def entry_fact(e: Entry) -> CudaErrorCatalogueEntry:
    from stethoscope.facts.model import Evidence

    return CudaErrorCatalogueEntry(
        id=f"catalogue:cuda:{e.name}", node="",
        evidence=Evidence(path=PATH, line=e.line, text=f"{e.name} ({e.api} {e.code}): '{e.text}'; {e.judgement}"[:400]),
        api=e.api, code=e.code, name=e.name, text=e.text, description=e.description, severity=e.severity,
        cause=e.cause, component=e.component, actions=",".join(e.actions), specific_rule=bool(e.specific_rules),
        judgement=e.judgement,
    )
