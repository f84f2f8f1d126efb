"""Runs of lines of another program inside a recognised file, read as the fallback reads a file nobody knows.

A ticket pastes two programs' output into one file: perftest's error lines among the rows of an nvidia-smi
query CSV, a reporter's paragraph among dmon rows. The file is recognised by what its readers know, and judged by
what they read; a run of lines none of them reads was silent, so the paste could read HEALTHY where that run alone
reads an unexplained error (unrecognised_text), a reporter's claim (ticket_prose) or unrecognised (issue 11, class X
of bench/fragment_audit_s26.md). This finds such runs and gives each the same reading as a file of its own:

- the lines the readers read are the lines of the facts they made (FactBuilder's ids: built or folded alike); a
  line of their format is one a reader's signature matches, one that opens with the marks of a line they read
  (nccl-tests' '#', a table's '|'), or a JSON member where they read one;
- a run is a stretch of other lines around a line with an error word or failure form (unrecognised_text's
  ERROR_WORDS, FAILURE_WORDS) or a diagnostic term (knowledge/coverage.yaml ``diagnostic_terms``; only where the
  readers' own count, ``lines_used``, leaves two lines or more unread: one is most often their own banner or
  footer), with no more non-blank lines than that count, whose removal leaves what the readers read (lines and
  facts) as it was, else the lines around the content line each of whose removal does. In a log (coverage
  ``log: true``) lines of other programs are its nature (a training log's own chatter): there a run is a block of
  its own, empty lines or the text's ends around it, as a second paste is, taken whole;
- the fallback readers read the run: its error lines become ``text_error_line`` (unexplained errors: faulty), a
  reporter's sentence a ``reported_symptom``. A run they make nothing of that holds them back (nothing, what a
  ticket states, a Python warning by its own category), yet that names a diagnostic term on two lines or more (not
  uninformative) is a part of the file nobody read: an ``unread_run`` limit, the verdict inconclusive, as that run
  alone would read. A file whose readers read nothing is left to the verdict's "recognised but not read"; a reporter's
  claim the fallback readers find in it (a title naming a module a reader knows) is kept (:func:`claims`).

Cost (issue 12): nothing for a file whose readers read every non-blank line by their own count (a healthy
capture), nor for a log without an empty line; else C searches over the unread stretches (RE2's one pass for the
failure forms, literals before ERROR_WORDS) and a re-parse of the file without a candidate run (``MAX_TRIES`` a
file at most). A bench node (bench/reader_costs.py --nodes 2): parse_one 21.9-22.1 CPU ms before, 21.9 after; its
files parsed in one process with and without this, no router: +0.3-0.7 ms of ~35.
"""
from __future__ import annotations

import bisect
import re
from functools import lru_cache

import re2

from stethoscope.engine.knowledge import load_coverage, load_polarity, load_verdict_policy
from stethoscope.facts.classify import signature_source
from stethoscope.facts.lines import without_line_labels
from stethoscope.facts.records import RECORD_TIME_KEY
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.base import Artefact, ParseResult
from stethoscope.facts.parsers.ticket_prose import CLAIM_WORDS, explanations, feature_request
from stethoscope.facts.parsers.unrecognised_text import (ERROR_GATES, ERROR_WORDS, FAILURE_WORDS, TEXT_GATES, error_line,
                                                         shell_command)
from stethoscope.facts.registry import load_fallbacks

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
#: re-parses of one file without a candidate run, and the text they may read in all: a file's own parse is what
#: dearest here (24 re-parses of a 2.9 MB kernel log holding 121 blank-line blocks of error lines added 3.0 s to its
#: 3.0 s diagnosis); the candidates left when either runs out are one ``unread_run`` limit, not judged and not dropped
MAX_TRIES = 24
REPARSE_CHARS = 16 << 20
#: a run is looked for only in a text up to this size (a window of a large file is read whole by its readers)
MAX_CHARS = 4 << 20
#: a file its readers read nothing of is searched for a reporter's claims only up to this size (prose: a title, a
#: ticket's paragraphs), not a large log of which no line was read
CLAIM_CHARS = 64 << 10


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


def read_lines(results: list[ParseResult], art: Artefact, facts: list[Fact]) -> list[int]:
    """The 1-based lines of ``art``'s text that a fact of the readers' stands on (built, folded or capped: the
    ids FactBuilder gave) or that a block a reader read whole holds (ParseResult.spans), sorted."""
    off = art.line_offset
    lines: set[int] = {at - off for res in results for seen in getattr(res, "seen", ()) for at, _kind in seen}
    lines.update(f.evidence.line - off for f in facts if f.evidence.path == art.path)
    lines.update(e.line - off for res in results for e in res.errors)
    # the blocks a reader read whole (FactBuilder's ids stand on the rows it made facts of; the others were read too)
    lines.update(i for res in results for a, b in getattr(res, "spans", ()) for i in range(a - off, b - off + 1))
    return sorted(lines)


def _used(art: Artefact, kinds, text: str) -> tuple[int, int]:
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


def _gaps(read: list[int], n: int):
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

    for first, last in _gaps(read, n):
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


# /opt/python/cp312-cp312/lib/python3.12/site-packages/torch/_subclasses/functional_tensor.py:279: UserWarning: Failed to
#   initialize NumPy: No module named 'numpy'                  (pytorch/pytorch#137846's collect_env output, its first line)
#   Python's warnings.formatwarning, "%s:%s: %s: %s": a warning by the program's own category, not a failure: beside a
#   capture it holds the verdict back (an unread run), it does not make it faulty
_PY_WARNING = re.compile(r"[ \t]{0,40}[^\s:]{1,400}\.py:\d{1,7}: (?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}Warning: ")


def _leader(line: str) -> str:
    """The marks a line opens with (nccl-tests' '#', a table's '|', compute-sanitizer's '========='), blanks before them
    and letters or digits after them left out."""
    m = _LEADER.match(line)
    return m[1] if m else ""


_LEADER = re.compile(r"[ \t]{0,40}([^\w\s]{1,12})")


def _named(text: str) -> int:
    """How many lines of ``text`` name a diagnostic term, commands typed at a prompt left out: one such line alone is
    most often a reporter's caption over what they pasted ("GPU usage rate:", DeepSpeedExamples#310's paste above its
    nvidia-smi table), a run of them a program's output (IPython's frames of 'import torch', a kernel's call trace)."""
    terms = load_verdict_policy().terms_re
    return sum(1 for ln in text.split("\n") if terms.search(ln) and not shell_command(ln))


def uninformative_reason(text: str) -> str | None:
    """Why a file no reader (fallbacks included: no error line) recognised holds nothing a diagnosis
    could use, or None when one of its lines names a diagnostic term (knowledge/coverage.yaml
    ``diagnostic_terms``: it may hold what nobody read, and stays unrecognised).

    A command typed at a shell prompt is what the user asked, not what the system said: its words
    do not count, its output's do (harvest 2206, NVIDIA/nccl#330: the pipeline averages nccl-tests'
    "Avg bus" footers of a log; all that came back is one bare number)::

        root@kvm_9_115_234_40:/mnt/kehuan# cat nccl-test-gdr.log | grep "Avg bus" | awk '{sum+=$6} END {print sum/NR}'
        4.78762

    Nor does a paragraph of prose that explains what an error class may mean (facts/parsers/ticket_prose.py
    ``explanations``: knowledge quoted into a ticket, not a report about this system; harvest 2705)::

        An XID is an error report emitted by the NVIDIA driver. It indicates that some GPU-related fault occurred, but the XID
        alone does not necessarily identify the root cause or imply that the physical GPU has failed. The cause may be
        - an application error,

    Nor does a feature request that names no failure (``feature_request``: what a tool should do; an issue's title,
    flightlessmango/MangoHud#636)::

        feature request: display what is limiting GPU performance like afterburner/RiviaTuner does
    """
    terms = load_verdict_policy().terms_re
    typed = requested = False
    explained: set[int] | None = None  # the lines of a paragraph explaining an error class, computed once
    for m in terms.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end >= 0 else len(text)]
        if shell_command(line):
            typed = True
            continue
        if feature_request(line):
            requested = True
            continue
        if explained is None:
            explained = explanations(text.split("\n"))
        if text.count("\n", 0, start) + 1 not in explained:
            return None
    if explained:
        return ("no reader knows its format; it is prose explaining what an error class may mean (knowledge quoted: "
                "its domain terms name no GPU, driver, network or job of this system), and no line of output reports an error")
    if requested:
        return ("no reader knows its format; its only domain terms are in a feature request (what a tool should do, "
                "no failure named), and no line of output reports an error")
    if typed:
        return ("no reader knows its format; its only domain terms are in the commands typed at a shell prompt, "
                "and no line of output reports an error or names a GPU, driver, network or job term")
    return "no reader knows its format, and no line reports an error or names a GPU, driver, network or job term"


def claims(art: Artefact) -> list[Fact]:
    """The reporter's claims (``reported_symptom``) the fallback readers make of a file whose readers read nothing of it.

    A reader's signature may be no more than a name a sentence holds: a title that says "torch.distributed.barrier()
    hangs forever on 2 nodes" or "ProcessGroupNCCL watchdog timeout not working" is torch_log's by its module's name
    (facts/parsers/torch_log_lines.py DETECT), which reads no line of it; read alone as a file nobody knows, the
    sentence is the reporter's claim of a hang (ticket_prose, unrecognised_text's title), which the verdict quotes
    (rules/application/reported_symptom_unjudged.yaml). Only the claims: the file stays "recognised but not read" (its
    error lines are unread_failures', a log's, as before), and a claim judges nothing (the verdict stays inconclusive).
    Cost: the fallbacks' detect (and parse, where one detects) on a text of at most CLAIM_CHARS, once a file nobody read."""
    made: list[Fact] = []
    if len(art.text) > CLAIM_CHARS:
        return made
    for p in load_fallbacks():
        if p.detect(art.text):
            try:
                made.extend(f for f in p.parse(art).facts if f.kind == "reported_symptom")
            except Exception:
                continue
    return made


def read_nothing(results: list[ParseResult]) -> bool:
    """Whether a file's readers read none of its lines: no line used, seen or made a fact of (the verdict's
    "recognised but not read")."""
    return not sum(r.lines_used for r in results) and not any(any(getattr(r, "seen", ())) or r.facts for r in results)


def foreign_runs(art: Artefact, kinds, results: list[ParseResult], facts: list[Fact], unread: int
                 ) -> tuple[list[Fact], list[tuple[int, str]]]:
    """For a recognised file: the facts the fallback readers make of its runs of another program's lines, and
    the runs they make nothing of that still name a diagnostic term ((first line of the file, detail) each)."""
    if len(art.text) > MAX_CHARS:
        return [], []
    if unread <= 0:
        return [], []  # every non-blank line read, by the readers' own count
    if read_nothing(results):
        return claims(art), []  # nothing read: the verdict's "recognised but not read" judges that file
    cov = load_coverage()
    log = any(cov[p.KIND].log for p in kinds if p.KIND in cov)
    # a log without an empty line holds no block of its own (_blocks; the split lines where a reader made them, a
    # list's C scan: ~0.02 ms for a bench node's dmesg where the text's search for two newlines took 0.16)
    if log and ("" not in art._lines if art._lines is not None else "\n\n" not in art.text):
        return [], _record_runs(art, read_lines(results, art, facts), kinds) if "{" in art.text and '\n{"' in art.text else []
    # (where the readers left one line unread, a line of terms alone is most often their own banner or footer:
    # "# Collective test concluded: all_gather_perf"; then only an error word or failure form makes a run)
    later: list[tuple[int, int, int]] = []
    read = read_lines(results, art, facts)
    shipped = _record_runs(art, read, kinds)
    cands = candidates(art, kinds, read, log, strong=unread < 2, later=later)
    if not cands:
        return [], shipped
    lines = art.lines
    base = (sum(r.lines_used for r in results),
            sum(len(r.facts) + sum(slot[2] for slot in r.folded.values()) + sum(c[0] for c in r.capped.values())
                for r in results))
    tries = 0
    max_tries = min(MAX_TRIES, max(1, REPARSE_CHARS // max(1, len(art.text))))
    left: list[int] = []  # candidates' content lines the re-parse budget did not reach

    def unread_without(a: int, b: int) -> bool:
        """Whether the readers read as much without lines a..b (none of them was read)."""
        nonlocal tries
        tries += 1
        got = _used(art, kinds, "\n".join(lines[:a - 1] + lines[b:]))
        return got[0] >= base[0] and got[1] >= base[1]

    def blank(i: int) -> bool:
        return not lines[i - 1].strip()

    def around(h: int, a: int, b: int) -> tuple[int, int] | None:
        """The stretch a..b holds lines its readers read (rows the facts of other rows stand for): the run is the
        lines around the content line h whose removal, one at a time, leaves their reading as it was."""
        lo = hi = h
        while lo > a and tries < max_tries and (blank(lo - 1) or unread_without(lo - 1, lo - 1)):
            lo -= 1
        while hi < b and tries < max_tries and (blank(hi + 1) or unread_without(hi + 1, hi + 1)):
            hi += 1
        while blank(lo):
            lo += 1
        while blank(hi):
            hi -= 1
        return (lo, hi) if sum(1 for i in range(lo, hi + 1) if not blank(i)) <= unread else None

    runs: list[tuple[int, int]] = []
    end = 0
    for h, a, b in cands:
        if h <= end:
            continue
        if tries >= max_tries:
            left.append(h)
            continue
        nonblank = sum(1 for i in range(a, b + 1) if not blank(i))
        if nonblank <= unread and unread_without(a, b):
            runs.append((a, b))
            end = b
            continue
        if log or a == b or not unread_without(h, h):
            continue  # (a log's block is taken whole or not at all)
        if (run := around(h, a, b)):
            runs.append(run)
            end = run[1]
    # a stretch rejected whole may hold another program's line after its first content line (a scrape's '# HELP'
    # line naming an error, then a stray 'Exception: ...' line): its further error lines, while the re-parse budget
    # lasts (those it does not reach are no limit: they were never candidates before)
    for h, a, b in later:
        if tries >= max_tries or any(lo <= h <= hi for lo, hi in runs):  # (a log's candidates fill no ``later``)
            continue
        if unread_without(h, h) and (run := around(h, a, b)):
            runs.append(run)
    runs.sort()
    polarity = load_polarity()
    found: list[Fact] = []
    parts: list[tuple[int, str]] = []
    def stretch(a: int, b: int) -> Artefact:
        """Lines ``a``..``b`` of the file as an artefact of their own (the file's line numbers kept)."""
        return Artefact(path=art.path, text="\n".join(lines[a - 1:b]), node=art.node,
                        node_from_folder=art.node_from_folder, line_offset=art.line_offset + a - 1)

    def unlabelled(run: Artefact) -> Artefact | None:
        """``run`` without a launcher's label on each of its lines (pdsh's "host: ", compose's "svc-1  | "), as a file
        of them alone is read where no reader knows them (engine/parse_pool.py parse_one); None where it has none."""
        if (bare := without_line_labels(run.text)) is None:
            return None
        alone = Artefact(path=run.path, text=run.text, node=run.node, node_from_folder=run.node_from_folder,
                         line_offset=run.line_offset)
        alone.unlabel(bare)
        return alone

    def fallback_facts(run: Artefact) -> list[Fact]:
        made: list[Fact] = []
        for p in load_fallbacks():
            if p.detect(run.text):
                try:
                    made.extend(p.parse(run).facts)
                except Exception:
                    continue
        return made

    said: list[tuple[int, int]] = []  # the runs that hold the verdict back (their facts or a part nobody read)
    for a, b in runs:
        run = stretch(a, b)
        # read without the label first: two pdsh-labelled lines pasted below an nvidia-smi table ("gpu-node07:   Status:
        # NotReady") read as a remark, the bare lines as an error; with it where the bare lines make nothing (a -q
        # block's "Status : Insufficient Resources" no fallback reads bare, as a remark under the label: not dropped)
        made = (fallback_facts(alone) if (alone := unlabelled(run)) is not None else []) or fallback_facts(run)
        if not made and any(blank(i) for i in range(a, b + 1)):
            # a run of blocks apart (empty lines between) that the fallback readers make nothing of whole: each block
            # as a paste of its own. nccl-tests' last line "rc=0" (its wrapper's exit code, no reader's row) then a
            # reporter's paragraph under it (harvest 2701's, round rG4's probe) is no prose together: the paragraph's
            # claim went unread and the results read HEALTHY
            i = a
            while i <= b:
                if blank(i):
                    i += 1
                    continue
                j = i
                while j < b and not blank(j + 1):
                    j += 1
                # (only what holds the verdict back there: an error line, a symptom told; not a remark or a stated
                # figure, which a run's block that is a reader's own header would give: ibnetdiscover's "# Initiated
                # from node ...")
                made.extend(f for f in fallback_facts(stretch(i, j))
                            if (f.kind == "reported_symptom" and getattr(f, "symptom", "") != "remark")
                            or (f.kind in polarity and polarity[f.kind].polarity in ("warning", "error")))
                i = j + 1
        kept = [f for f in made if not (f.kind == "text_error_line" and _PY_WARNING.match(f.evidence.text))]
        found.extend(kept)
        # facts that hold the verdict back alone (an error line; a reporter's symptom, which rules judge or leave
        # unjudged) say it; else (nothing made, or only what a ticket states: versions, figures) the run is a part
        # that checks nothing and that nobody read, as it would be alone: unless it names no diagnostic term
        if any(f.kind == "reported_symptom" or (f.kind in polarity and polarity[f.kind].polarity in ("warning", "error"))
               for f in kept):
            said.append((a, b))
            continue
        if made or (uninformative_reason(run.text) is None and _named(run.text) >= 2):
            said.append((a, b))
            at = a + art.line_offset
            parts.append((at, f"lines {at}-{b + art.line_offset} ({b - a + 1} lines) hold another program's output "
                              f"that no reader of {'+'.join(p.KIND for p in kinds)} reads; alone they are not "
                              f"recognised, or read as what checks nothing"))
    if left:
        at = left[0] + art.line_offset
        parts.append((at, f"{len(left)} more stretch(es) of lines that no reader of {'+'.join(p.KIND for p in kinds)} "
                          f"reads and that name an error or a diagnostic term, from line {at} on, were not checked: "
                          f"a file of {len(art.text)} characters is re-read at most {max_tries} time(s) to tell another "
                          f"program's lines from its own"))
    parts.extend(p for p in shipped if not any(lo + art.line_offset <= p[0] <= hi + art.line_offset for lo, hi in said))
    return found, sorted(parts)


# Structured records a log shipper or a log search exports, each an event at a time with its line in a string value
# (issue 11, round rL8). The forms (each tool's documented record; only the journal's and Filebeat's are read as their
# message, facts/records.py _JSON_RECORD; since round rM2 the forms below too, and a CSV export's rows, where the record
# holds its line under "message", "log" or "line": what is left here is what those do not read):
#   Fluent Bit, stdout / file output, format json_lines (docs.fluentbit.io pipeline/outputs/standard-output:
#   json_date_key "date", json_date_format "double"; the tail input's line in "log"):
#     {"date":1764933720.735,"log":"NCCL WARN Cuda failure 'out of memory'"}
#   Vector, a log event as its console / file sink's json codec writes it (vector.dev docs/architecture/data-model/log):
#     {"custom":"field","host":"my.host.com","message":"Hello world","timestamp":"2020-11-01T21:15:47+00:00"}
#   journalctl -o json-pretty (the record over several lines), -o json-seq (RFC 7464: each record after an RS, 0x1e),
#   a JSON array of records (Loki's / Datadog's / Splunk's JSON export), and a CSV export whose header names a time
#   column (Kibana's "Generate CSV": "@timestamp",message; Splunk's _time,_raw; Datadog's Date,Host,Service,Message).
# A record must hold a time key (a log line is an event at a time): a config (package.json, a DeepSpeed config) or a
# metrics document without one is not a record. Reached only by a file nobody recognised (parse_one's uninformative
# path) and by the unread lines of a recognised file that open with '{"' or hold a time column's CSV header.
_TIME_KEY = RECORD_TIME_KEY  # (one list of time keys: the records facts/records.py reads as their lines are these)
RECORD_CHARS = 4_000_000  # a bigger file nobody knows is left as it was (off the hot path: one json.loads a file at most)
VALUE_CHARS = 4096  # a value's line read to this length (the journal's own limit, JSON_THRESHOLD): bounds the readers'
# and the fallbacks' searches over one long value
_CSV_TIME_HEADS = ('timestamp"', "timestamp,", "time,", 'time",', "Time,", 'Time",', "date,", 'date",', "Date,", 'Date",')


def _values(obj, out: list[str], depth: int = 0) -> None:
    if isinstance(obj, str):
        out.extend(ln[:VALUE_CHARS] for ln in obj.split("\n"))
    elif depth < 16 and isinstance(obj, dict):
        for v in obj.values():
            _values(v, out, depth + 1)
    elif depth < 16 and isinstance(obj, list):
        for v in obj:
            _values(v, out, depth + 1)


def _is_record(obj) -> bool:
    return isinstance(obj, dict) and any(isinstance(k, str) and _TIME_KEY.fullmatch(k) for k in obj)


def record_values(text: str) -> str | None:
    """The string values of the structured records ``text`` is made of (JSON objects one a line, a JSON array of
    objects, objects one after another as json-pretty / json-seq write them, a CSV whose header names a time column),
    one line each; None where ``text`` is no such file or no record holds a time key."""
    import csv
    import io
    import json

    if len(text) > RECORD_CHARS:
        return None
    body = text.replace("\x1e", "").strip()
    if not body:
        return None
    out: list[str] = []
    if body[0] in "[{":
        dec = json.JSONDecoder()
        records, i = [], 0
        try:
            while i < len(body):
                obj, i = dec.raw_decode(body, i)
                records.extend(obj if isinstance(obj, list) else [obj])
                while i < len(body) and body[i] in " \t\r\n,":
                    i += 1
        except (ValueError, RecursionError):
            return None
        if not records or not any(_is_record(r) for r in records):
            return None
        for r in records:
            _values(r, out)
        return "\n".join(out)
    lines = body.split("\n", 1)
    try:
        header = next(csv.reader([lines[0]]))
    except (csv.Error, StopIteration):
        return None
    if len(header) < 2 or not any(_TIME_KEY.fullmatch(h.strip()) for h in header):
        return None
    try:
        rows = list(csv.reader(io.StringIO(body)))[1:]  # (a quoted cell may hold several lines)
    except csv.Error:
        return None
    if not rows or sum(len(r) == len(header) for r in rows if r) < max(1, len([r for r in rows if r]) // 2):
        return None
    for r in rows:
        for cell in r:
            out.extend(ln[:VALUE_CHARS] for ln in cell.split("\n"))
    return "\n".join(out)


def records_report(text: str) -> bool:
    """Whether ``text``, a file nobody recognised, is structured records (:func:`record_values`) whose values hold a
    line a reader would claim (its signature and its detect) or a line the fallback readers take (an error word): such
    a file is not uninformative, it is not recognised (no evidence of health; the verdict inconclusive at least).
    Before, a failure inside Fluent Bit's or Vector's records beside a healthy capture read HEALTHY."""
    from stethoscope.facts.classify import classifier

    inner = record_values(text)
    if inner is None:
        return False
    if any(p.detect(inner) for p in classifier().candidates(inner)):
        return True
    # an error word (the fallback readers), or a diagnostic term, as a file of these lines would not be uninformative
    return any(p.detect(inner) for p in load_fallbacks()) or uninformative_reason(inner) is None


def _record_runs(art: Artefact, read: list[int], kinds) -> list[tuple[int, str]]:
    """In a recognised file, the stretches of lines no reader read that are a log shipper's JSON records one a line
    (or a CSV export under its header) whose values hold a line a reader would claim or an error word
    (:func:`records_report`): ((first line, detail) each, an ``unread_run``). The runs above look for an error word or
    a diagnostic term in the lines as written; a record's line may hold neither (harvest 800's Fabric rows in Fluent
    Bit's records appended to an nvidia-smi -q read HEALTHY). Cost: C searches for a line opening with '{"' and for a
    time column's CSV header (_CSV_TIME_HEADS); nothing more for a file without one."""
    text = art.raw_text or art.text
    if not text.startswith('{"') and '\n{"' not in text and not any(h in text for h in _CSV_TIME_HEADS):
        return []
    lines = art.lines
    if art.raw_text is not None:  # the lines as written (the normaliser takes a quote off a line that opens with one)
        raw = art.raw_text.split("\n")
        lines = raw if len(raw) == len(lines) else lines
    out: list[tuple[int, str]] = []
    for first, last in _gaps(read, len(lines)):
        i = first
        while i <= last:
            line = lines[i - 1].lstrip("\x1e")
            if not (line.startswith('{"') or ("," in line and _TIME_KEY.search(line))):
                i += 1
                continue
            j = i
            while j < last and lines[j].strip() and (lines[j].lstrip("\x1e").startswith('{"') or not line.startswith('{"')):
                j += 1
            if records_report("\n".join(lines[i - 1:j])):
                at = i + art.line_offset
                out.append((at, f"lines {at}-{j + art.line_offset} ({j - i + 1} lines) are a log shipper's records "
                                f"(JSON or CSV) holding log lines that no reader of {'+'.join(p.KIND for p in kinds)} "
                                f"reads"))
            i = j + 1
    return out
