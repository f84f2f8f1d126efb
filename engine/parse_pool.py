"""Parse a bundle's artefacts, one file at a time, in this process or over a pool of processes.

Parsing is independent per file (a fact's id is ``<path>:<line>:<kind>``, its node comes with
the artefact), so files can be parsed in parallel. Results come back in bundle order, so the
facts, ids, errors and coverage are the same whatever the number of processes. Memory stays
bounded: at most ``WINDOW`` chunks per process are in flight, and each file's text is dropped
as soon as its facts are made.

A pool costs a process start and the pickling of every fact, so it is used only when the
bundle is large enough to gain from it (``MIN_PARALLEL_BYTES``) and more than one CPU is
available; ``jobs=1`` parses in-process. The memory budget (facts/limits.py) bounds the
processes and the text in flight to them.
"""
from __future__ import annotations

import gc
import os
import threading
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Iterable, Iterator

from stethoscope.engine.checked_readings import never_left_out
from stethoscope.engine.foreign_runs import foreign_runs, read_nothing, records_report, uninformative_reason
from stethoscope.engine.report import FileCoverage, LimitHit, ParseProblem
from stethoscope.facts.bundle import UNKNOWN_NODE, FileTask, RawBundle, Skipped, is_binary, task_artefacts
from stethoscope.facts.model import Fact, FactRows, model_as_validated, share_keys
from stethoscope.facts.parsers.base import Artefact, ParseError, ParseResult, merge_folded
from stethoscope.engine.knowledge import add_reading, load_coverage, load_polarity
from stethoscope.facts import classify
from stethoscope.facts.classify import classifier
from stethoscope.facts.lines import (dshbak_hosts, is_title, line_hosts, normalise, run_hosts, text_host,
                                      without_block_labels, without_line_labels)
from stethoscope.facts.limits import DEFAULT, FACTS_PER_KIND, MESSAGE_CHARS, Budget, Hit
from stethoscope.facts.records import record_hosts
from stethoscope.facts.parsers.unrecognised_text import unread_failures
from stethoscope.facts.registry import load_fallbacks, load_parsers

#: the readers of an issue's title (facts/lines.is_title): a reporter's words, read as claims (ticket_prose's remarks,
#: unrecognised_text's reported_symptom), never as a program's line
_TITLE_READERS = frozenset({"ticket_prose", "unrecognised_text"})

#: below this much text a pool costs more (process start, pickling) than it saves
MIN_PARALLEL_BYTES = 16 * 1024 * 1024
#: files handed to a worker at once, and chunks in flight per worker. Each chunk costs the
#: parent about 0.5 CPU ms besides its facts' unpickling (the executor's manager thread wakes
#: to read it, the main thread to take it, the queue's feeder thread to send the next): at 8
#: files a chunk (2.5 a bench node) the parent took 5.4-6.3 CPU ms a node at 128 nodes, at 32
#: 4.2-4.5 (2 workers, 3 interleaved rounds each, load 6-8). A chunk also closes once it
#: holds a window of text (``_chunks``); at the end one worker may parse a last chunk alone.
CHUNK = 32
WINDOW = 4
#: a file of at most this many characters (bytes, read) is read with the other such files of its chunk before any
#: of the chunk is parsed, and the classifier's set scans them back to back (parse_items; facts/classify.py
#: Classifier.scan_ahead): between two files the readers evict the set's DFA states, and a small file walks them
#: once, at about one cache miss a byte (a bench node's 6 kB rank log cost the set ~9 times in place what it
#: costs back to back: bench/speed_rT7.md). A chunk holds at most CHUNK such files, 2 MiB of text.
AHEAD_CHARS = 64 * 1024


@dataclass
class FileResult:
    """What the parsers made of one file: facts, its coverage row (None: unrecognised), errors."""

    path: str
    #: the node the file was collected from ("unknown": none named)
    node: str = "unknown"
    facts: list[Fact] = field(default_factory=list)
    coverage: FileCoverage | None = None
    errors: list[ParseProblem] = field(default_factory=list)
    #: unrecognised, and holds nothing a diagnosis could use: why (None: it may)
    uninformative: str | None = None
    #: limits that bit while parsing (facts past FACTS_PER_KIND, an XML too deep)
    limits: list[LimitHit] = field(default_factory=list)
    #: what reading a FileTask found besides its text (facts/bundle.py task_artefacts): files
    #: skipped as unreadable, skipped as binary or empty, limits of the reading (a line cut)
    read_skipped: list[Skipped] = field(default_factory=list)
    read_binary: list[Skipped] = field(default_factory=list)
    read_hits: list[Hit] = field(default_factory=list)
    #: no window of text came of the file: this result carries only the read_* lists
    read_only: bool = False
    #: the hosts whose lines the file holds besides its own node's (pdsh over several hosts: _per_host)
    hosts: list[str] = field(default_factory=list)
    #: where a parse worker made it and its row holds readings: checked_readings.never_left_out of its facts and parse
    #: problems, which the parent's ReadingsHeld asks of a file read in one window (None: not asked here, _packed)
    never_left_out: bool | None = None


def default_jobs() -> int:
    """The CPUs this process may run on that other work leaves idle now (``STETH_JOBS`` overrides).

    A pool wins only with idle cores to run its workers: measured at 128 nodes on a 2-core VM
    whose other work kept its load average at 3.5, one process took 29.2 / 30.8 s and a pool of
    two 36.4 / 32.9 s (the workers' pickled facts cost the parent ~7 CPU-s and no core was free
    to gain it back). So the CPUs idle over a short sample of /proc/stat (the load average lags
    by a minute: right after other work it would still count it), rounded, at least one."""
    env = os.environ.get("STETH_JOBS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        cpus = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    idle = idle_cpus()
    if idle is None:
        try:
            idle = cpus - os.getloadavg()[0]
        except OSError:  # pragma: no cover - no load average on this platform
            return cpus
    return max(1, min(cpus, round(idle)))


def _cpu_times() -> tuple[int, int, int]:
    """(idle ticks, all ticks, CPUs) of /proc/stat: idle and iowait against user to steal."""
    with open("/proc/stat") as f:
        lines = f.read().split("\n")
    ticks = [int(v) for v in lines[0].split()[1:9]]
    cpus = sum(1 for ln in lines[1:] if ln.startswith("cpu"))
    return ticks[3] + ticks[4], sum(ticks), max(1, cpus)


def idle_cpus(interval: float = 0.2) -> float | None:
    """How many CPUs were idle over ``interval`` seconds (None: no /proc/stat)."""
    try:
        idle0, all0, cpus = _cpu_times()
        time.sleep(interval)
        idle1, all1, _ = _cpu_times()
    except (OSError, ValueError, IndexError):
        return None
    if all1 <= all0:
        return None
    return (idle1 - idle0) / (all1 - all0) * cpus


def _read(art: Artefact, kinds: list) -> int:
    """How many facts and lines ``kinds``' readers read in ``art`` (a copy: to choose between two forms of a text)."""
    n = 0
    for p in kinds:
        try:
            res = p.parse(art)
        except Exception:  # (parse_one reports it on the text it keeps)
            continue
        n += len(res.facts) + sum(slot[2] for slot in res.folded.values()) + res.lines_used
    return n


def _may_name_hosts(text: str) -> bool:
    """Whether ``text`` may hold a record's key or a CSV export's column naming a host (facts/records.py record_hosts):
    C searches for the keys' literals before any parse (a 25 MB wrapped log: ~0.3 s, where a regex took 7 s)."""
    return '"host' in text or '"_HOSTNAME"' in text or '"kubernetes"' in text or '"labels"' in text or (
        "," in text and ("host" in text or "Host" in text or "HOST" in text))


def parse_one(art: Artefact, router=None) -> FileResult:
    """Every parser whose ``detect`` recognises one of its line signatures in ``art`` parses it.
    ``router`` (engine/ruleengine/routing.py): the facts that go on, the others summarised; None: all."""
    if art.node == UNKNOWN_NODE and (host := text_host(art.text)) is not None:
        art.node = host  # a text of one host under pdsh's label, placed nowhere else: that host's (as _per_host's hosts are)
    out = FileResult(path=art.path, node=art.node)
    art.router = router  # healthy readings no rule can bind are counted, not built (FactBuilder.add)
    folded: dict[tuple[str, str], list] = {}
    # one RE2 pass over every reader's signatures and the wrapper gate (facts/classify.py)
    asked, wrapped = classifier().scan(art.text)
    text = art.text
    art.normalise(plain=not wrapped)  # pasting and launcher wrappers off, line for line (facts/lines.py)
    if art.text is not text:  # signatures are of the lines as written: the unwrapped text's
        asked = classifier().candidates(art.text)
    # a shipper's records read as their lines (facts/records.py _JSON_RECORD, a CSV export) that name the host each came
    # from (Vector's host, Fluent Bit's kubernetes.host, the journal's _HOSTNAME): each host's lines read as that
    # host's, as pdsh's are (_per_host; a host's own part, whose records name only it, is read as it is); one host's
    # records in a file a bundle places keep the file's node, as text_host's one pdsh host does
    if art.raw_text is not None and art.text is not text and _may_name_hosts(text) \
            and (hosts := record_hosts(text)) is not None and (named := set(hosts) - {None, art.node}) \
            and (art.node == UNKNOWN_NODE or len(named) > 1):
        return _per_host(art, router, art.text, hosts)
    # every parser looks at the whole text: a pasted fragment may sit anywhere in a file
    text = art.text
    kinds = [p for p in asked if p.detect(text)]
    # a launcher's label on every line (pdsh's "host: ", compose's "svc-1  | ") is taken off where more
    # readers then know the text, or its readers read more of it, or no reader knows either (the fallback
    # reads the lines bare), or its readers read nothing of it either way (the lines' failure words are then
    # looked for, unread_failures, in the lines as the program wrote them: a bare traceback's last line
    # under pdsh's label read INCONCLUSIVE, read bare an unexplained error; harvest 3005 under
    # bench/wrap_study.py's labels): a kernel device's label on every line ("nvidia-nvswitch0: ") is its
    # reader's, which reads it
    bare, hosts = _launcher_label(text, wrapped)
    labelled = bare is not None  # (False below where the readers read the lines without the label)
    if bare is not None:
        bare = str(normalise(bare, uncut=True))  # (wrappers under it: srun's "0: ", a quote)
        more = [p for p in classifier().candidates(bare) if p.detect(bare)]
        have, get = {p.KIND for p in kinds}, {p.KIND for p in more}
        if have <= get and hosts is not None:  # pdsh over several hosts: each host read apart
            return _per_host(art, router, bare, hosts)
        if have < get or (not have and not get) or (
                have == get and (read_bare := _read(Artefact(path=art.path, text=bare, node=art.node), more))
                >= (read_text := _read(Artefact(path=art.path, text=text, node=art.node), kinds))
                and (read_bare > read_text or read_text == 0)):
            art.unlabel(bare)
            text, kinds = bare, more
            labelled = False
    title = is_title(art.path)
    if title:
        # an issue's title (title.txt, issue_title.md) is the reporter's claim, whatever program's words it quotes: the
        # two readers of a reporter's words read it (a reported_symptom: never a fault alone, never HEALTHY); the
        # readers of a program's lines read the body, where the line itself is pasted (issue 11, round rV2: the title
        # "NCCL error: unhandled system error" alone read faulty, as PyTorch's NCCL error)
        kinds = [p for p in load_fallbacks() if p.KIND in _TITLE_READERS and p.detect(text)]
    if not kinds and not title:  # nobody knows the format: its error lines still count (unrecognised_text)
        kinds = [p for p in load_fallbacks() if p.detect(text)]
        # an application's JSON record at error level read as its message: a failure line whatever its words
        kinds += [p for p in load_fallbacks() if p not in kinds
                  and getattr(p, "detect_records", None) is not None and p.detect_records(art)]
        if not kinds:  # a logger's level the normaliser took off may have been its only error word
            kinds = [p for p in load_fallbacks() if getattr(p, "detect_wrapped", None) is not None and p.detect_wrapped(art)]
    if not kinds:
        classify.forget()  # the classifier's reference to the text it scanned last
        out.uninformative = uninformative_reason(text)
        if out.uninformative is not None and records_report(art.raw_text or text):
            out.uninformative = None  # a shipper's records holding a log line: not read, never set aside (rL8)
            classify.forget()
        return out
    used = 0
    results: list[ParseResult] = []
    read_by: list[str] = []
    factless: set[str] = set()  # readers that made no fact (a listing's: its header read, no row: knowledge/coverage.yaml listing)
    checks: dict[str, list[str]] = {}
    readings: dict[str, dict[str, list]] = {}
    spanned: set[str] = set()  # the readers that said which blocks they read whole (ParseResult.spans)
    named: dict[str, str] = {}  # reader -> what its facts showed, where its kind's coverage note names it
    for p in kinds:
        try:
            res: ParseResult = p.parse(art)
        except ParseError as exc:  # a parser may still raise one: keep going
            out.errors.append(ParseProblem(path=exc.path, line=exc.line + art.line_offset,
                                           message=exc.message[:MESSAGE_CHARS], parser=p.KIND))
            continue
        except Exception as exc:  # never a traceback for bad input
            out.errors.append(ParseProblem(path=art.path, line=0, parser=p.KIND,
                                           message=f"{p.KIND} parser failed: {type(exc).__name__}: {exc}"[:MESSAGE_CHARS]))
            continue
        if out.facts and res.facts and len(kinds) > 1:  # (one reader's ids are its own: _fid counts its facts)
            res.facts = own_ids(out.facts, res.facts, p.KIND)
        out.facts.extend(res.facts)
        results.append(res)
        if not res.facts and not res.folded:
            factless.add(p.KIND)
        if res.spans:
            spanned.add(p.KIND)
        for key, slot in res.folded.items():
            if key in folded:
                merge_folded(folded[key], slot)
            else:
                folded[key] = slot
        used += res.lines_used
        context = _context_kinds().get(p.KIND, ())
        if any(f.kind not in context for f in res.facts) or any(k not in context for _n, k in res.folded) \
                or (res.lines_used and not res.facts and not res.folded):
            read_by.append(p.KIND)  # made only context facts (a boot banner): read nothing it checks
            if p.KIND in _named_kinds() and (shown := load_coverage()[p.KIND].names(res.facts)):
                named[p.KIND] = shown
            if p.KIND in _covering_kinds():  # the readings behind what it checked, for the report to name
                cov = load_coverage()[p.KIND]
                got = cov.readings(res.facts, [(k, slot) for (_n, k), slot in res.folded.items()])
                merge_readings(readings, got)
                if p.KIND in _shown_kinds():  # what it checked depends on what the file showed (ArtefactCoverage.shown)
                    checks[p.KIND] = [c for c in cov.covers if c in got]
        out.errors.extend(ParseProblem(path=e.path, line=e.line, message=e.message, parser=p.KIND) for e in res.errors)
        out.limits.extend(LimitHit(limit=h.limit, path=h.path, line=h.line, detail=h.detail) for h in res.limits)
        for kind, (n, line) in res.capped.items():
            out.limits.append(LimitHit(limit="facts_per_kind", path=art.path, line=line, detail=(
                f"{n:,} more {kind} facts from line {line} on counted, not kept (the first {FACTS_PER_KIND:,} kept)")))
    if _may_hide_failures(kinds, out):  # read or not: a log its readers found nothing in may hold a crash
        owners = [sig for p in kinds if p.KIND not in _log_kinds() for sig in getattr(p, "SIGNATURES", ())]
        # readings folded unbuilt are state facts, which _cited_lines leaves out too (whether a failure
        # word occurs at all: answered by the classifier's pass, one of its text gates)
        # a launcher's label the readers kept (they read as much with it) is no part of a failure line: its words are
        # looked for in the line as the program wrote it (harvest 3005 under pdsh's "node17: "), evidence quoting it as read
        seen = art
        if labelled:
            seen = replace(art, scans={})
            seen.unlabel(bare)
        unread = unread_failures(seen, _cited_lines(art.path, out), owners, read=set().union(*(r.read for r in results)))
        out.facts.extend(unread.facts)  # (and a traceback it found cut at the text's end: the capture's limit)
        out.limits.extend(LimitHit(limit=h.limit, path=h.path, line=h.line, detail=h.detail) for h in unread.limits)
    nonblank = art.nonblank_lines()
    if nonblank > used:  # a listing's reader that read lines (its header) but no row, lines of the file unread: no row read
        read_by = [k for k in read_by if k not in _listing_kinds() or k not in factless]
    claimed = 0
    # (a document's reader reads the members it knows, the others are no other program's: a document is searched only
    # where its reader said which lines it spans, as nvidia_smi_xml does: a line after the root's end is not its own)
    if not any(_fallback(p) or (p.KIND in _document_kinds() and p.KIND not in spanned) for p in kinds):
        # a run of another program's lines no reader read: read as the fallback reads a file (engine/foreign_runs.py)
        found, parts = foreign_runs(art, kinds, results, out.facts, nonblank - used)
        out.facts.extend(found)
        if found and read_nothing(results):
            claimed = len(found)  # a reporter's claims in a file its readers read nothing of: still none read
        out.limits.extend(LimitHit(limit="unread_run", path=art.path, line=line, detail=detail) for line, detail in parts)
    out.coverage = _coverage_row(art.path, "+".join(p.KIND for p in kinds), art.node,
                                 len(out.facts) - claimed + sum(slot[2] for slot in folded.values()),
                                 max(0, nonblank - used), read_by, checks, readings, named)
    classify.forget()  # (after nonblank_lines: the classifier's pass may answer it)
    if router is not None:
        out.facts = router.route(out.facts, folded)
    art.router = None
    return out


def own_ids(have: list[Fact], new: list[Fact], reader: str) -> list[Fact]:
    """``new`` (reader ``reader``'s facts of a file) with no id of ``have`` (the file's other readers' facts): a fact
    of the same kind at the same line is another reader's reading of that line (both ids are ``path:line:kind``),
    dropped where it says what the first says (its fields but the quote equal), else kept under the id with
    ``~reader`` after it. Findings name facts by id: two readings under one id were one to them, and durable refused
    some such pairs outright, stopping the whole diagnosis with an internal error (a DistBackendError forwarding an
    NCCL WARN that nccl_log read too, round rI1: never a traceback for what people paste)."""
    ids = {f.id: f for f in have}
    if not any(f.id in ids for f in new):
        return new
    kept: list[Fact] = []
    for fact in new:
        first = ids.get(fact.id)
        if first is None:
            kept.append(fact)
        elif type(first) is not type(fact) or first.model_dump(exclude={"evidence"}) != fact.model_dump(exclude={"evidence"}):
            kept.append(fact.model_copy(update={"id": f"{fact.id}~{reader}"}))
    return kept


#: the fields a file's coverage row is given (_coverage_row: all of them)
_ROW_FIELDS = frozenset(FileCoverage.model_fields)


def _coverage_row(path: str, kind: str, node: str, facts: int, skipped_lines: int, read_by: list[str],
                  checks: dict[str, list[str]], readings: dict[str, dict[str, list]], named: dict[str, str]) -> FileCoverage:
    """``FileCoverage(path=..., ..., checks=checks)`` with its private ``_readings`` and ``_named`` set, built from
    values of the types its fields store as given (str, int, a list of str, a dict of str to lists of str: what
    validation keeps equal, in copies) without validation, as facts/model.py _rebuilt_row builds a fact: pydantic's
    __init__ and its private attributes' factories cost ~25 us a file, 0.5 CPU ms a bench node (20 files). The same
    fields set (all seven given), no extra, the private values in their declared order; a value of another type
    is validated, as before."""
    if type(path) is str and type(kind) is str and type(node) is str and type(facts) is int \
            and type(skipped_lines) is int and type(read_by) is list and type(checks) is dict \
            and all(type(k) is str for k in read_by) \
            and all(type(k) is str and type(v) is list and all(type(c) is str for c in v) for k, v in checks.items()):
        return model_as_validated(FileCoverage, {"path": path, "kind": kind, "node": node, "facts": facts,
                                                 "skipped_lines": skipped_lines, "read_by": read_by, "checks": checks},
                                  set(_ROW_FIELDS), {"_readings": readings, "_named": named})
    row = FileCoverage(path=path, kind=kind, node=node, facts=facts, skipped_lines=skipped_lines, read_by=read_by,
                       checks=checks)
    row._readings = readings
    row._named = named
    return row


def _launcher_label(text: str, wrapped: bool) -> tuple[str | None, list[str | None] | None]:
    """``text`` without a launcher's label (pdsh's "host: " or compose's "svc-1  | " on every line, compose's on a run
    of lines, pdsh's on a run of lines below the launcher's own), line for line, and pdsh's host of each line where
    two hosts or more are named (their lines read apart: _per_host); (None, None) where no label is found."""
    if "----------------" in text and (got := dshbak_hosts(text)) is not None:  # pdsh's output gathered by dshbak
        hosts, bare = got
        return bare, hosts
    bare = without_line_labels(text) if (": " in text[:200] or "| " in text[:200]) else None
    if bare is None and _holds_block_bar(text):  # compose's label on a run of lines only (a table pasted above them)
        bare = without_block_labels(text)
    if bare is not None:
        return bare, line_hosts(text)
    if wrapped and (run := run_hosts(text)) is not None:  # pdsh's hosts below a launcher's own lines
        hosts, bare = run  # (one host's run: its label offered off, as over a whole text)
        return bare, hosts if len(set(hosts) - {None}) > 1 else None
    return None, None


def _per_host(art: Artefact, router, bare: str, hosts: list[str | None]) -> FileResult:
    """``art``'s lines (pdsh's label on each, ``bare`` the text without it, ``hosts`` the label of each line) read
    host by host: each host's lines as that host printed them, the others blank (the file's line numbers and the
    lines as read, which evidence quotes, stay), its node the host's; the lines of no host (a launcher's own above
    pdsh's: run_hosts) as the file's node's. One result for the file, its row's node the file's."""
    lines, raw = bare.split("\n"), (art.raw_text if art.raw_text is not None else art.text).split("\n")
    out = FileResult(path=art.path, node=art.node)
    reasons: list[str | None] = []
    out.hosts = list(dict.fromkeys(h for h in hosts if h is not None))
    own = any(h is None and ln.strip() for h, ln in zip(hosts, lines))
    for host in out.hosts + ([None] if own else []):
        mine = [h == host for h in hosts]
        sub = Artefact(path=art.path, text="\n".join(ln if m else "" for ln, m in zip(lines, mine)), node=host or art.node,
                       line_offset=art.line_offset,
                       raw_text="\n".join(ln if m else "" for ln, m in zip(raw, mine)))
        sub._joined = art._joined
        res = parse_one(sub, router)
        out.facts.extend(res.facts)
        out.errors.extend(res.errors)
        out.limits.extend(res.limits)
        reasons.append(res.uninformative)
        if res.coverage is not None:
            if out.coverage is None:
                out.coverage = res.coverage  # (made for this host alone: its row becomes the file's)
                out.coverage.node = art.node
            else:
                merge_coverage(out.coverage, res.coverage)
    if out.coverage is None and all(reasons):
        out.uninformative = reasons[0]
    art.router = None
    return out


def merge_coverage(row: FileCoverage, more: FileCoverage) -> None:
    """``more`` (another part of the same file: a window of a large file, a host of a pdsh paste) joins ``row``."""
    kinds = row.kind.split("+")
    row.kind = "+".join(kinds + [k for k in more.kind.split("+") if k not in kinds])
    row.facts += more.facts
    row.skipped_lines += more.skipped_lines
    row.read_by += [k for k in more.read_by if k not in row.read_by]
    for k, comps in more.checks.items():
        row.checks[k] = list(dict.fromkeys(row.checks.get(k, []) + comps))
    merge_readings(row._readings, more._readings)
    for k, shown in more._named.items():
        row._named[k] = ", ".join(dict.fromkeys(row._named[k].split(", ") + shown.split(", "))) if k in row._named else shown


def merge_readings(into: dict[str, dict[str, list]], more: dict[str, dict[str, list]]) -> None:
    """Join the readings of ``more`` (component -> fact kind -> [first line, its text, how many]) to ``into``."""
    for comp, kinds in more.items():
        have = into.setdefault(comp, {})
        for kind, (line, text, n) in kinds.items():
            add_reading(have, kind, line, text, n)


#: how many "|" _holds_block_bar looks at one by one before it searches for "  | " itself
_BARS = 64


def _holds_block_bar(text: str) -> bool:
    """``"  | " in text`` (the separator of compose's service label, without_block_labels), searched from its
    bar: CPython looks for one character with memchr, for "  | " with a skip loop that the blanks of a log
    stall (0.6-0.9 ns a byte: 1.07 ms over a bench node's 1.31 MB, where no file holds it). Where the
    text holds more bars than _BARS (a table), the rest of it is searched for "  | " itself."""
    find, at = text.find, text.find("|", 2)  # (the separator's bar stands after its two blanks)
    for _ in range(_BARS):
        if at == -1:
            return False
        if text.startswith("  | ", at - 2):
            return True
        at = find("|", at + 1)
    return at != -1 and "  | " in text[at - 2:]


@lru_cache(maxsize=None)
def _fallback(p) -> bool:
    """Whether reader module ``p`` is a fallback reader (its ``FALLBACK``), looked up once: a module's attribute it
    lacks costs getattr ~3 us (an AttributeError made and dropped, twice: the module's, then its spec's
    ``_initializing``), asked twice a reader a file (a bench node's rank logs, five readers each: ~50 us a file)."""
    return bool(getattr(p, "FALLBACK", False))


@lru_cache(maxsize=1)
def _document_kinds() -> frozenset[str]:
    return frozenset(k for k, c in load_coverage().items() if c.document)


@lru_cache(maxsize=1)
def _context_kinds() -> dict[str, tuple[str, ...]]:
    return {k: c.context for k, c in load_coverage().items() if c.context}


@lru_cache(maxsize=1)
def _covering_kinds() -> frozenset[str]:
    return frozenset(k for k, c in load_coverage().items() if c.covers)


@lru_cache(maxsize=1)
def _shown_kinds() -> frozenset[str]:
    return frozenset(k for k, c in load_coverage().items() if c.checks)


@lru_cache(maxsize=1)
def _named_kinds() -> frozenset[str]:
    return frozenset(k for k, c in load_coverage().items() if c.named)


@lru_cache(maxsize=1)
def _listing_kinds() -> frozenset[str]:
    return frozenset(k for k, c in load_coverage().items() if c.listing)


@lru_cache(maxsize=1)
def _log_kinds() -> frozenset[str]:
    return frozenset(k for k, c in load_coverage().items() if c.log)


def _may_hide_failures(kinds, out: FileResult) -> bool:
    """A recognised log (knowledge/coverage.yaml ``log: true``) without a malformed line: its
    failure lines nobody read are looked for. Where its readers found an error too, such a line
    may be that error's echo (a traceback's frames, a launcher's "FAILED" summary): the accounting
    reports it only when nothing else of the file is reported (``echo`` in
    knowledge/fact_polarity.yaml), so that a crash after a warning found benign is never silent."""
    if out.errors or any(_fallback(p) or p.KIND in _document_kinds() for p in kinds):
        return False
    return any(p.KIND in _log_kinds() for p in kinds)


def _cited_lines(path: str, out: FileResult) -> set[int]:
    """The lines of the file its readers read as something other than a reading (a state: a
    throughput figure, a port's state), whose words a reader did not weigh."""
    state = _state_kinds()
    return {f.evidence.line for f in out.facts if f.evidence.path == path and f.kind not in state}


@lru_cache(maxsize=1)
def _state_kinds() -> frozenset[str]:
    return frozenset(k for k, p in load_polarity().items() if p.polarity == "state")


#: the router and memory budget of a worker process, set once when the worker starts
#: (_init_worker): pickled with every chunk the router cost the parent ~2 ms and the worker
#: ~1 ms a chunk (2,560 chunks at 1,024 nodes)
_ROUTER = None
_BUDGET = DEFAULT


def _init_worker(router, budget: Budget = DEFAULT) -> None:
    global _ROUTER, _BUDGET
    _ROUTER, _BUDGET = router, budget
    share_keys(False)  # the facts made here are pickled to the parent, which makes them key-sharing
    # forked from a parent that reads with its collector off (engine/pipeline.read_artefacts):
    # a worker keeps no facts, and a reader's cyclic garbage (expat's handler closures) must go.
    # Not what makes a worker dearer than parsing in-process: its collections (gc.callbacks)
    # took 0.69-0.75 CPU ms a bench node, on, after gc.freeze() or off with a young collection
    # a chunk alike (128 nodes, one worker); the pickling of its results is (~3.4 ms a node)
    gc.enable()


def parse_item(item: Artefact | FileTask, router=None, budget: Budget = DEFAULT,
               read: tuple[Iterable[Artefact], RawBundle, list[Skipped]] | None = None) -> list[FileResult]:
    """The FileResults of one artefact, or of each window of a file read here (a FileTask: a
    worker reads its own files, so that their text never crosses a pipe; measured at 256 nodes,
    the parent's pickling of the text cost ~3.7 CPU ms a node and the worker's unpickling ~3.5).
    What reading found besides text rides on the first result, or on a ``read_only`` one.
    ``read``: the FileTask's artefacts, and what reading it found, where it was read already (_read_task)."""
    if isinstance(item, Artefact):
        return [parse_one(item, router)]
    arts, sink, binary = _read_task(item, budget) if read is None else read
    results = [parse_one(a, router) for a in arts]
    if sink.skipped or sink.hits or binary:
        if not results:
            results.append(FileResult(path=item.name, node=item.folder_node or item.own or "unknown", read_only=True))
        first = results[0]
        first.read_skipped, first.read_binary, first.read_hits = sink.skipped, binary, sink.hits
    return results


def _read_task(item: FileTask, budget: Budget) -> tuple[Iterable[Artefact], RawBundle, list[Skipped]]:
    """A FileTask's artefacts (read as they are iterated), and the sink and list its reading fills."""
    sink = RawBundle(source="")
    binary: list[Skipped] = []
    return task_artefacts(item, sink, binary, budget), sink, binary


def parse_items(items: list[Artefact | FileTask], router=None, budget: Budget = DEFAULT) -> Iterator[FileResult]:
    """parse_item() of each of ``items`` in turn, the same results in the same order; the files of at most
    AHEAD_CHARS are read first and scanned by the classifier's set back to back (Classifier.scan_ahead)."""
    ahead: dict[int, tuple[Iterable[Artefact], RawBundle, list[Skipped]]] = {}
    texts: list[str] = []
    for i, item in enumerate(items):
        if isinstance(item, Artefact):
            if len(item.text) <= AHEAD_CHARS:
                texts.append(item.text)
        elif item.size <= AHEAD_CHARS:
            arts, sink, binary = _read_task(item, budget)
            ahead[i] = read = (list(arts), sink, binary)
            texts.extend(a.text for a in read[0])
    try:
        if len(texts) > 1:
            classifier().scan_ahead(texts)
        for i, item in enumerate(items):
            yield from parse_item(item, router, budget, ahead.pop(i, None))
    finally:
        classify.drop_ahead()


def _parse_chunk(items: list[Artefact | FileTask]) -> list[FileResult]:
    return _packed(list(parse_items(items, _ROUTER, _BUDGET)))


def _packed(results: list[FileResult]) -> list[FileResult]:
    """``results`` as a worker sends them: each one's facts a FactRows (facts/model.py), pickled as one
    list of rows; where a row holds readings, whether the parent keeps them (never_left_out: asked here, in
    parallel, not in the parent's serial path as it takes each file's results, ~23 CPU us a file, 0.47 CPU s of
    the parent at 1,024 bench nodes: bench/speed_rI7.md)."""
    for res in results:
        if res.coverage is not None and res.coverage._readings:
            res.never_left_out = never_left_out(res.coverage.facts, [res.facts], [res.errors])
        res.facts = FactRows(res.facts)
    return results


def _weight(item: Artefact | FileTask) -> int:
    """Characters of text an item puts in flight (a file's size: at most as many characters)."""
    return item.size if isinstance(item, FileTask) else len(item.text)


def _chunks(items: Iterable[Artefact | FileTask], size: int, max_chars: int) -> Iterator[list[Artefact | FileTask]]:
    """Chunks of ``size`` items, or fewer once they hold ``max_chars`` of text."""
    chunk: list[Artefact | FileTask] = []
    chars = 0
    for a in items:
        chunk.append(a)
        chars += _weight(a)
        if len(chunk) == size or chars >= max_chars:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk


def parse_files(arts: Iterable[Artefact | FileTask], jobs: int | None = None, total_bytes: int | None = None,
                router=None, budget: Budget = DEFAULT, largest: int | None = None,
                young_every: int | None = None, waiting: Callable[[], object] | None = None) -> Iterator[FileResult]:
    """Each artefact's FileResult (each window's, for a FileTask read where it is parsed), in
    order. ``jobs``: processes (None: all CPUs, 1: in-process; fewer when the memory budget
    cannot hold them); ``total_bytes``: the bundle's size when known, to skip the pool for
    small bundles, and with ``largest`` (its largest file's) to size the workers' memory
    (Budget.jobs). The text handed to workers and not yet parsed stays under
    ``budget.inflight_chars``. ``young_every``: where files are parsed in this process, a young
    collection after every so many results (a caller that keeps the collector off:
    engine/pipeline.read_artefacts); results from workers make no cyclic garbage here. ``waiting``: called once
    where workers parse, after the first chunks are handed to them and before their first result is awaited (the
    parent's work that no worker needs: engine/pipeline._tail's imports)."""
    small = total_bytes is not None and total_bytes < MIN_PARALLEL_BYTES
    jobs = budget.jobs(1 if small else default_jobs() if jobs is None else max(1, jobs), total_bytes, largest)
    if jobs == 1 or small:
        n = 0
        # (chunks as a worker's, their text read ahead at most CHUNK * AHEAD_CHARS besides one file: parse_items)
        for chunk in _chunks(arts, CHUNK, min(budget.window_chars, CHUNK * AHEAD_CHARS)):
            for res in parse_items(chunk, router, budget):
                n += 1
                if young_every and n % young_every == 0:
                    gc.collect(0)
                yield res
        return
    # imported and built once here, inherited by forked workers, and frozen: a worker's collector
    # (on, _init_worker) then never walks them, so their pages stay shared instead of copied
    # (a worker's Pss 79-83 -> 61-62 MB, Private_Dirty 62-68 -> 37 MB: facts/limits.WORKER_COST)
    load_parsers()
    classifier()
    settle()  # (warm_up's thread: its DFA states are inherited; no thread may be inside RE2 when a worker forks)
    gc.freeze()
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(router, budget)) as pool:
        pending: deque[tuple[Future[list[FileResult]], int]] = deque()
        inflight = 0
        for chunk in _chunks(arts, CHUNK, budget.window_chars):
            size = sum(map(_weight, chunk))
            pending.append((pool.submit(_parse_chunk, chunk), size))
            inflight += size
            del chunk
            while pending and (len(pending) >= jobs * WINDOW or inflight > budget.inflight_chars):
                if waiting is not None:
                    waiting()
                    waiting = None
                fut, n = pending.popleft()
                inflight -= n
                yield from fut.result()
        if waiting is not None:
            waiting()
        while pending:
            yield from pending.popleft()[0].result()


#: what warm_up scans: at most this many bytes of a folder's first files (a bench node's 20 files are
#: 1.3 MB), of one file at most WARM_FILE_BYTES (its head), at most WARM_FILES files
WARM_BYTES = 4 << 20
WARM_FILE_BYTES = 512 << 10
WARM_FILES = 256
#: the thread warm_up started, until settle() joins it; whether this process warmed already
_warming: threading.Thread | None = None
_warmed = False


def warm_up(path: str | os.PathLike[str]) -> None:
    """Build the classifier's RE2 set (facts/classify.py) and, in a thread, its DFA over the first
    files of the folder ``path``, while this process lists the bundle and prepares the reading.

    RE2 builds a DFA's states as texts are scanned: a fresh process's first bench node cost the
    set ~210 CPU ms (nodes 2-16 ~3-10 ms more each, then ~3.5 ms a node warm), paid by every parse
    worker on its first chunk. google-re2 releases the GIL while a set matches, so the thread's
    scans run beside the listing (read_bundle: ~0.2 CPU s at 1,024 nodes) and what the parent does
    before forking; the workers forked after it (parse_files waits for it: settle) inherit the
    states. The DFA is a cache: the set answers the same whatever was scanned before, so what this
    scans changes no answer, only how soon the states exist (a reader's own patterns are not
    warmed: Python's re holds the GIL). Once a process, folders only (an archive is listed as it
    is read), best effort: any failure leaves the set as it was."""
    global _warming, _warmed
    if _warmed or not os.path.isdir(path):
        return
    _warmed = True
    rset = classifier().rset
    _warming = threading.Thread(target=_warm, args=(os.fspath(path), rset), name="steth-warm-up", daemon=True)
    _warming.start()


def settle() -> None:
    """Wait for warm_up's thread, if any (before a pool forks: a thread inside RE2 at the fork would
    leave its DFA's lock held in the child)."""
    global _warming
    if _warming is not None:
        _warming.join()
        _warming = None


def _first_files(root: str) -> Iterator[str]:
    """The regular files of ``root`` in the bundle's order (a folder's files, then its subfolders'
    in sorted order, links not followed), the first WARM_FILES."""
    stack = [(root, 0)]
    n = 0
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subfolders = []
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth < 8:
                        subfolders.append((e.path, depth + 1))
                elif e.is_file(follow_symlinks=False):
                    yield e.path
                    n += 1
                    if n >= WARM_FILES:
                        return
            except OSError:
                continue
        stack.extend(reversed(subfolders))


def _warm(root: str, rset) -> None:
    try:
        left = WARM_BYTES
        for path in _first_files(root):
            with open(path, "rb") as f:
                data = f.read(min(WARM_FILE_BYTES, left))
            if not data or data[:2] == b"\x1f\x8b" or is_binary(data[:8192]):
                continue  # (a gzipped or binary file's bytes: states no text read needs)
            rset.Match(data)
            left -= len(data)
            if left <= 0:
                return
    except Exception:  # best effort: the workers build the states themselves
        return
