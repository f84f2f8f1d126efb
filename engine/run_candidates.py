"""Where in a recognised file a run of another program's lines may lie: the stretches no reader's fact stands on
(a log's blank-line blocks), that hold an error word, a failure form, a reporter's words or a diagnostic term
(cheap gates first), and what the readers read of a text without one (:func:`used`).

Part of what :mod:`stethoscope.engine.foreign_runs` does; it re-exports every public name (issue 12)."""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

import re2

from stethoscope.engine.knowledge import load_verdict_policy
from stethoscope.facts.classify import signature_source
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.ticket_prose import CLAIM_WORDS
from stethoscope.facts.parsers.unrecognised_text import ERROR_GATES, ERROR_WORDS, FAILURE_WORDS, TEXT_GATES, error_line


#: the failure forms for RE2 (unrecognised_text's text gate: one linear pass), and the literals one of ERROR_WORDS'
#: alternatives holds each (a stretch without any is not searched with it)
_FAILURE_ANY = TEXT_GATES[0]
_ERROR_LITERALS = (*ERROR_GATES, "ERROR", "ATAL")  # (and a level in capitals: ERROR, FATAL)
#: the words of a fault told (ticket_prose's CLAIM_WORDS) for RE2, its look-behinds (the "no faults" it leaves out)
#: dropped: matching wherever CLAIM_WORDS does, so a stretch it finds nothing in is not searched with CLAIM_WORDS.
#: Python's search, case-insensitive and each alternative behind a word boundary, tries every alternative at every
#: character: 180-350 us on an nccl-tests file's unread header stretches (200-360 characters; 0.39 ms of its 1.25 ms
#: parse_one, 1.6 ms a bench node), RE2's pass ~5 us. ASCII text only (RE2's \b and case folding are Python's there:
#: each \b of CLAIM_WORDS stands beside an ASCII letter); other text is searched as before
_CLAIM_ANY = re2.compile("(?i)" + re.sub(r"\(\?<!(?:[^()\\]|\\.)*\)", "", CLAIM_WORDS.pattern))
assert CLAIM_WORDS.flags & re.I and "(?<" not in _CLAIM_ANY.pattern and "(?=" not in _CLAIM_ANY.pattern


@lru_cache(maxsize=None)
def _signatures(parser) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(signature_source(s), re.M) for s in getattr(parser, "SIGNATURES", ()) or ())


@lru_cache(maxsize=1)
def _content() -> tuple[re.Pattern, ...]:
    """An error word, a failure form, a reporter's words for a symptom, or a diagnostic term: what makes a run worth
    reading (the first three are ``strong``: a line of terms alone left unread is most often the readers' banner).
    A symptom told in words is a claim (ticket_prose: inconclusive), not a reader's uncounted line: harvest 2701's
    paragraph (NVIDIA/open-gpu-kernel-modules#1370: "... stopped the faults ... a reproduction that faults within 2–3
    minutes") under nccl-tests results or an nvidia-smi -q block, one line unread and no error word, read HEALTHY
    (round rG4, bench/plant_prefix_probe.py)."""
    return ERROR_WORDS, FAILURE_WORDS, CLAIM_WORDS, load_verdict_policy().terms_re


def used(art: Artefact, kinds, text: str) -> tuple[int, int]:
    """(lines the readers count as read, facts they make) in ``text`` in place of ``art``'s."""
    copy = Artefact(path=art.path, text=text, node=art.node, node_from_folder=art.node_from_folder,
                    line_offset=art.line_offset)
    copy.router = art.router
    used = facts = 0
    for p in kinds:
        try:
            res = p.parse(copy)
        except Exception:  # (parse_one reports it on the text it keeps)
            continue
        used += res.lines_used
        facts += len(res.facts) + sum(slot[2] for slot in res.folded.values()) + sum(c[0] for c in res.capped.values())
    return used, facts


def gaps(read: list[int], n: int):
    """(first, last) 1-based of each stretch of lines no fact stands on."""
    prev = 0
    for line in read:
        if line > prev + 1:
            yield prev + 1, min(line - 1, n)
        prev = max(prev, line)
    if prev < n:
        yield prev + 1, n


def _worth_searching(pats, text: str):
    """Those of ``pats`` that may match ``text``: error words only where a literal of theirs occurs, failure forms only
    where RE2's one pass finds one (Python's FAILURE_WORDS alone took 17.5 ms on a 24 kB block of a kernel log's link
    lines, ERROR_WORDS 3.3 ms: 2.4 s for a 2.9 MB log cut into 242 blocks)."""
    return (pat for pat in pats if (pat is not ERROR_WORDS or any(g in text for g in _ERROR_LITERALS))
            and (pat is not FAILURE_WORDS or _FAILURE_ANY.search(text) is not None)
            and (pat is not CLAIM_WORDS or not text.isascii() or _CLAIM_ANY.search(text) is not None))


def _has_content(text: str) -> bool:
    """_content()'s test, the terms (the cheapest) first."""
    return any(pat.search(text) is not None for pat in _worth_searching(reversed(_content()), text))


def _blocks(art: Artefact, kinds, read: list[int]) -> list[tuple[int, int, int]]:
    """candidates() of a log: the blocks of lines between blank lines (or the text's ends) of which no fact
    stands on a line and no reader's signature matches one, that hold content. A log without a blank line
    has none (one C search)."""
    text = art.text
    lines = art.lines
    n = len(lines)
    # the empty lines (found by C searches for two newlines in a row; a line of blanks alone is not a separator)
    seps, pos, line = [], 0, 1
    at = text.find("\n\n")
    while at != -1:
        line += text.count("\n", pos, at + 1)
        pos = at + 1
        seps.append(line)
        at = text.find("\n\n", at + 1)
    if not seps:
        return []
    sigs = [s for p in kinds for s in _signatures(p)]
    out: list[tuple[int, int, int]] = []
    for first, last in zip([0, *seps], [*seps, n + 1]):
        a, b = first + 1, last - 1
        if a > b:
            continue
        k = bisect.bisect_left(read, a)
        if k < len(read) and read[k] <= b:
            continue  # a reader made a fact of a line of it
        block = "\n".join(lines[a - 1:b])
        if not _has_content(block) or any(s.search(block) for s in sigs):
            continue
        out.append((a, a, b))
    return out


#   "health": "Healthy",          (harvest 1203, GPUd's /v1/states of a GB200: a JSON document's member, or its braces)
_MEMBER = re.compile(r'[ \t]{0,80}(?:"[^"\n]{1,200}"[ \t]{0,8}:|[\[\]{}],?[ \t\r]{0,8}$)')


def candidates(art: Artefact, kinds, read: list[int], log: bool, strong: bool = False,
               later: list[tuple[int, int, int]] | None = None) -> list[tuple[int, int, int]]:
    """(a line with content, the first and last line of the stretch of non-format lines around it; 1-based) of
    each stretch no fact stands on that may hold another program's run: see the module's docstring. ``strong``:
    only an error word or failure form is content (not a diagnostic term alone). ``later``: where given, gets the
    same for each further line of a stretch that holds an error word or failure form (the stretch is one candidate,
    at its first content line; rejected whole, it may still hold another program's line among the readers' own)."""
    if log:
        return _blocks(art, kinds, read)
    lines = art.lines
    n = len(lines)
    content = _content()[:3] if strong else _content()
    sigs = [s for p in kinds for s in _signatures(p)]
    out: list[tuple[int, int, int]] = []

    # the shapes of the lines the readers read, made when a stretch first holds content (most files' stretches hold
    # none: an nccl-tests file's header and footer lines, whose read lines' leaders took ~0.1 ms of its ~1 ms):
    # a document's members (JSON's '"key": value' lines, its braces) are its reader's where it read one of them
    # (GPUd's /v1/states: the reader reads a state's "health" line, not the document line by line); a line that
    # opens with the marks of a line the readers read is of their format ("# Writing JSON output to ..." above
    # nccl-tests' '#' header lines: nccl-tests 2.19's own banner, no other program's)
    shapes: list = []

    # (a line of their shape that says a thing failed in a form no signature of theirs matches is another tool's:
    # dcgmi diag's '|                           | Fail - GPU: 0                                  |' row, boxed as an
    # nvidia-smi table's rows are, pasted under that table; fixtures/artefacts/dcgmi_diag/go_dcgm52_memory_fail_busy.txt)
    def own(i: int) -> bool:  # a line of the file's format (a reader's signature matches it, or its shape)
        if not shapes:
            shapes.append(any(_MEMBER.match(lines[r - 1]) for r in read[:64] if 0 < r <= n))
            shapes.append({_leader(lines[r - 1]) for r in read[:256] if 0 < r <= n} - {""})
        members, leaders = shapes
        line = lines[i - 1]
        return any(s.search(line) for s in sigs) or (members and _MEMBER.match(line) is not None) \
            or (bool(leaders) and _leader(line) in leaders and FAILURE_WORDS.search(line) is None)

    for first, last in gaps(read, n):
        text = "\n".join(lines[first - 1:last])
        # (error words are looked for where a literal of theirs occurs, failure forms where RE2's one pass finds one)
        found = sorted({m.start() for pat in _worth_searching(content, text) for m in pat.finditer(text)})
        if not found:
            continue
        # the lines with content (newlines counted from one hit to the next: C passes)
        hits, pos, line = [], 0, first
        for at in found:
            line += text.count("\n", pos, at)
            pos = at
            if not hits or hits[-1] != line:
                hits.append(line)
        done = 0
        for h in hits:
            if h <= done and later is not None and h > out[-1][0] and not own(h) and error_line(lines[h - 1]):
                later.append((h, out[-1][1], out[-1][2]))
                continue
            if h <= done or own(h) or not lines[h - 1].strip():
                continue
            a = h
            while a > first and not own(a - 1):
                a -= 1
            b = h
            while b < last and not own(b + 1):
                b += 1
            while not lines[a - 1].strip():
                a += 1
            while not lines[b - 1].strip():
                b -= 1
            done = b
            out.append((h, a, b))
    return out


def _leader(line: str) -> str:
    """The marks a line opens with (nccl-tests' '#', a table's '|', compute-sanitizer's '========='), blanks before them
    and letters or digits after them left out."""
    m = _LEADER.match(line)
    return m[1] if m else ""


_LEADER = re.compile(r"[ \t]{0,40}([^\w\s]{1,12})")
