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

The parts, one job a module (each public name re-exported here, so no caller changes): ``run_candidates``
(where a run may lie, what the readers read without it), ``uninformative`` (a reading that says nothing),
``log_records`` (a log shipper's records); this module judges the candidates and reads each run.
"""

from __future__ import annotations

from stethoscope.engine.knowledge import load_coverage, load_polarity
from stethoscope.engine.log_records import record_runs as _record_runs, records_report  # noqa: F401 - re-exported
from stethoscope.engine.run_candidates import candidates, used as _used
from stethoscope.engine.uninformative import PY_WARNING as _PY_WARNING, named as _named, uninformative_reason
from stethoscope.facts.lines import without_line_labels
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.base import Artefact, ParseResult
from stethoscope.facts.parsers.unrecognised_text import unfenced_lines
from stethoscope.facts.registry import load_fallbacks


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
    outside: list[set[int]] = []  # the file's lines outside its fenced blocks, found when a stretch is first made

    def stretch(a: int, b: int) -> Artefact:
        """Lines ``a``..``b`` of the file as an artefact of their own (the file's line numbers kept), told which of them
        lie outside the file's fenced blocks (a reporter's sentence there is their claim: unrecognised_text)."""
        if not outside:
            outside.append(unfenced_lines(art) if "```" in (art.raw_text if art.raw_text is not None else art.text) else set())
        unfenced = frozenset(n - a + 1 for n in outside[0] if a <= n <= b) if outside[0] else None
        return Artefact(path=art.path, text="\n".join(lines[a - 1:b]), node=art.node,
                        node_from_folder=art.node_from_folder, line_offset=art.line_offset + a - 1, unfenced=unfenced)

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

