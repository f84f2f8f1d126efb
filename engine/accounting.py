"""Every error accounted for, health only on evidence (issue 10).

Two questions the verdict depends on, answered from declared knowledge:

- *Was every error explained?* Each fact kind declares a polarity
  (``knowledge/fact_polarity.yaml``). After the rules ran, an error- or warning-polarity fact
  whose source line no finding cites, and every line a parser claimed but could not parse,
  becomes an ``unexplained_fact``; the rules that read those (``rules/meta/``) run over them in
  a second pass and report them (``unexplained_error``, severity warning). A line is explained
  when any finding, an ``info`` one included, cites a fact of that line: a rule that says "this
  WARN is benign" accounts for it.
- *Was anything checked at all?* Each artefact kind declares the components it checks
  (``knowledge/coverage.yaml``); a file counts only when its parser read a line of it. Healthy
  needs one such file, and nothing that could not be read.

The verdict itself is :func:`verdict`; the severities, the meaning and the advice of an
unexplained error are the meta rule's.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from stethoscope.engine.ruleengine.derive import Firing, fill
from stethoscope.engine.findings import SEVERITY_ORDER, evidence_of
from stethoscope.engine.knowledge import load_coverage, load_polarity, load_verdict_policy
from stethoscope.engine.report import Coverage, Finding
from stethoscope.facts.kinds.derived import ParseProblemFact, UnexplainedFact
from stethoscope.facts.lines import is_title
from stethoscope.facts.model import Evidence, Fact, of_kind

#: the fact kind the second pass reads
UNEXPLAINED_KIND = "unexplained_fact"
#: a message quoted in a finding's summary is cut here (the evidence keeps the whole line)
MESSAGE_LIMIT = 160
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+")
#: limits a reader reports about the capture itself, not steth's budget: an output that stops
#: before its end (``cut_short``), GPUs announced and not shown (``gpus_not_shown``), a field the operating system
#: refused the tool (``query_refused``: nvidia-smi's 'GPU access blocked by the operating system')
CAPTURE_LIMITS = frozenset({"cut_short", "gpus_not_shown", "query_refused"})
#: the reason when the input gave nothing at all (a live source names its server and window)
EMPTY_INPUT = "the input holds no file"


def meta_rules(rules):
    """The rules of the second pass: those that read ``unexplained_fact``."""
    return [r for r in rules if any(p.fact == UNEXPLAINED_KIND for p in r.rule.when.all)]


def explained_lines(rules, firings: Iterable[Firing], by_id: dict[str, Fact],
                    serious: bool = False) -> set[tuple[str, int]]:
    """(path, line) of every fact bound by a firing that made a finding (``serious``: a finding
    of severity warning or worse)."""
    finding_rules = {r.id: r for r in rules if r.rule.then.finding is not None}
    out: set[tuple[str, int]] = set()
    for firing in firings:
        crule = finding_rules.get(firing.rule)
        if crule is None:
            continue
        bound = {alias: by_id[fid] for alias, fid in firing.bindings if fid in by_id}
        if serious:
            spec = crule.rule.then.finding.severity
            if SEVERITY_ORDER.get(str(fill(spec, bound) if spec is not None else crule.rule.severity), 0) < 1:
                continue
        for fact in bound.values():
            out.update((ev.path, ev.line) for ev in evidence_of(fact, by_id))
    return out


def parse_problem_facts(coverage: Coverage) -> list[Fact]:
    """The parse problems of a bundle as facts, so that an unreadable line is never silent."""
    kinds = load_coverage()
    out: list[Fact] = []
    seen: dict[str, int] = defaultdict(int)
    unread = {fc.path for fc in coverage.files if not fc.read_by}
    node_of = {fc.path: fc.node for fc in coverage.files}
    for p in coverage.errors:
        if p.path in unread or _document(p.parser, kinds):  # the file could not be read: the verdict says so
            continue
        parser = p.parser or "unknown"
        base = f"{p.path}:{p.line}:parse_problem"
        n = seen[base]
        seen[base] += 1
        node = node_of.get(p.path, "unknown")
        out.append(ParseProblemFact(
            id=base if n == 0 else f"{base}#{n}", node=node,
            evidence=Evidence(path=p.path, line=max(p.line, 0), text=p.message),
            parser=parser, message=p.message,
            component=kinds[parser].component if parser in kinds else "host",
        ))
    return out


def _text(f: Fact) -> str:
    """What a fact says, without the line's prefix (host, pid, time): its message, else its line."""
    return str(getattr(f, "message", None) or f.evidence.text).strip()


#: the shortest free text read as restating an explained line (shorter phrases, "failed", "error: 1", say too little)
_RESTATE_MIN = 24
# Ray re-raises a task's exception in its caller as a class named after the cause's, python/ray/exceptions.py
# as_instanceof_cause: name = f"RayTaskError({cause_cls.__name__})"; pasted apart from the worker's traceback (an issue's
# title, another file) it is the wrapper of the exception line of that class (lowercased, as _flat makes it):
# ray.exceptions.RayTaskError(DistBackendError): ray::WorkerDict.ref_init_model() (pid=3829666, ip=192.168.4.25, ...   (verl-project/verl#2044's title)
#   over its body's "torch.distributed.DistBackendError: NCCL error in: ..." (restated by the NCCL error the rules explain)
_RAY_WRAPS = re.compile(r"\braytaskerror\((\w{1,100})\): ray::")


def _restated_lines(facts: list[Fact], explained: set[tuple[str, int]],
                    serious: set[tuple[str, int]] = frozenset()) -> set[tuple[str, int]]:
    """The free-text error lines (``text_error_line``: a ticket's title, a summary line) that restate an explained
    line of the same node: the explained line holds their text, or they hold its message, case aside
    (dra-driver-nvidia-gpu#814's title "Failed to prepare dynamic resources: prepare dynamic resources: DRA driver
    ... is not registered" around the kubelet's err; gpu-feature-discovery#24's title "Failed to construct MIG
    resource labeler" inside GFD's error)."""
    free = [f for f in facts if f.kind == "text_error_line"]
    if not free:
        return set()
    said: dict[str, list[tuple[list[str], str, bool]]] = defaultdict(list)
    for f in facts:
        key = (f.evidence.path, f.evidence.line)
        if f.kind != "text_error_line" and key in explained:
            words = [_flat(str(w)) for w in (getattr(f, "message", None), getattr(f, "error", None))
                     if w and len(str(w)) >= _RESTATE_MIN]
            said[f.node].append((words, _flat(f.evidence.text), key in serious))
    out: set[tuple[str, int]] = set()
    grave_out: list[tuple[str, str]] = []  # (node, text) of the lines restated by one a warning or worse cites
    wrappers: list[tuple[Fact, str]] = []
    for f in free:
        text = _flat(_text(f))
        if len(text) < _RESTATE_MIN:
            continue
        wraps = _RAY_WRAPS.search(text)
        if wraps:
            wrappers.append((f, wraps[1]))
        # or what follows one of its ": " is in a line a warning or worse cites (a title that names where the exception
        # came from before quoting its tail: google/flax#4942's "in nnx.jit: jaxlib._jax.XlaRuntimeError: INTERNAL: NCCL
        # operation ncclAllReduce" around XLA's explained "... INTERNAL: NCCL operation ncclAllReduce( ...) failed: ...";
        # not a line only an info finding cites, so that a tail never turns an error into a healthy verdict)
        tails = [t for t in _tails(text) if len(t) >= _RESTATE_MIN]
        hits = [grave for words, line, grave in said.get(f.node, ())
                if text in line or any(w in text for w in words) or (grave and any(t in line for t in tails))]
        if hits:
            out.add((f.evidence.path, f.evidence.line))
            if any(hits):
                grave_out.append((f.node, text))
    # Ray's wrapper of a task's exception, the cause's line (its class named) being one a warning or worse explains or
    # restates: the wrapper says no more than its cause (an info finding's line never clears it)
    for f, cls in wrappers:
        key = (f.evidence.path, f.evidence.line)
        if key in out:
            continue
        cause = re.compile(r"(?:^|[\s.])" + cls + r": ")
        if any(grave and cause.search(line) for _words, line, grave in said.get(f.node, ())) \
                or any(node == f.node and cause.search(text) for node, text in grave_out):
            out.add(key)
    return out


#: what a title puts around a line it quotes: a closing quote, a question mark, the line's own full stop
_QUOTE_ENDS = " .!?:;,'\"`"
#: the shortest message of a body line read as quoted by a title (the reader read the title's words as the same kind)
_TITLE_QUOTE_MIN = 12


def _title_restatements(facts: list[Fact]) -> set[tuple[str, int]]:
    """The lines of an issue's title (lines.is_title) whose fact restates a line of the body read as the same kind, on
    any node: the title is not a second error beside it (google/nccl-fastsocket#4's title 'What does "NCCL WARN Cannot
    get incoming CPU" mean?', read as a WARN of the title's node, beside the log's 'net_fastsocket.cc:765 NCCL WARN Cannot
    get incoming CPU.'). The body's line stays accounted for on its own: explained by its finding or reported
    unexplained, so a title never clears an error."""
    titled = [f for f in facts if is_title(f.evidence.path)]
    if not titled:
        return set()
    body: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for f in facts:
        if not is_title(f.evidence.path):
            body[f.kind].append((_flat(_text(f)).rstrip(_QUOTE_ENDS), _flat(f.evidence.text)))
    out: set[tuple[str, int]] = set()
    for f in titled:
        said = _flat(_text(f))
        bare = said.rstrip(_QUOTE_ENDS)
        if any((len(msg) >= _TITLE_QUOTE_MIN and msg in said) or (len(bare) >= _RESTATE_MIN and bare in line)
               for msg, line in body.get(f.kind, ())):
            out.add((f.evidence.path, f.evidence.line))
    return out


def _flat(text: str) -> str:
    """``text`` lowercased, each run of blanks one space: a title keeps a quoted line's words, not always its spacing
    (utkuozdemir/nvidia_gpu_exporter#64's title 'command failed. stderr: err: exit status 12' beside the log's
    'command failed. stderr:  err: exit status 12', the empty stderr between two blanks)."""
    return " ".join(text.lower().split())


def _tails(text: str) -> list[str]:
    """What follows each ": " of a text, longest first."""
    out, i = [], text.find(": ")
    while i >= 0:
        out.append(text[i + 2:])
        i = text.find(": ", i + 2)
    return out


def unexplained(facts: Iterable[Fact], explained: set[tuple[str, int]],
                serious: set[tuple[str, int]] = frozenset()) -> list[Fact]:
    """One ``unexplained_fact`` per source line that holds an error no finding cites.
    ``serious``: the lines findings of severity warning or worse cite (for echo kinds)."""
    polarity = load_polarity()
    flagged = {k for k, p in polarity.items() if p.polarity in ("error", "warning")}
    # only the facts of error and warning kinds are asked about (one set test a fact: a healthy
    # 1,024-node bundle keeps ~500k facts, a few hundred of such kinds)
    # (facts indexed by kind, as pipeline.evaluate_all gives them: their positions, no pass at all)
    facts = of_kind(facts, *flagged) if getattr(facts, "positions", None) is not None else \
        [f for f in facts if f.kind in flagged]
    # a line that repeats an explained one word for word on the same node (every rank, every
    # retry prints its own) is explained with it
    repeats = {(f.node, f.kind, _text(f)) for f in facts if (f.evidence.path, f.evidence.line) in explained}
    restated = _restated_lines(facts, explained, serious) | _title_restatements(facts)
    left: list[Fact] = []
    seen: set[tuple[str, int]] = set()
    for f in facts:
        key = (f.evidence.path, f.evidence.line)
        if key in explained or key in seen or (f.node, f.kind, _text(f)) in repeats or key in restated:
            continue
        seen.add(key)
        left.append(f)
    # a file whose failure is reported already (a serious finding cites one of its lines, or an
    # error of it is left unexplained): its echo lines are that failure's (knowledge/fact_polarity.yaml)
    reported = {path for path, _line in serious} | {f.evidence.path for f in left if not polarity[f.kind].echo}
    out: list[Fact] = []
    for f in left:
        p = polarity[f.kind]
        if p.echo and f.evidence.path in reported:
            continue
        component = getattr(f, "component", None) if f.kind == "parse_problem" else p.component
        message = str(getattr(f, "message", None) or f.evidence.text).strip()
        if len(message) > MESSAGE_LIMIT:
            message = message[: MESSAGE_LIMIT - 3] + "..."
        out.append(UnexplainedFact(
            id=f"unexplained:{f.id}", node=f.node, evidence=f.evidence, sources=f.id,
            source_kind=f.kind, polarity=p.polarity, component=component or "host", message=message,
            signature=_NUMBERS.sub("N", f"{f.kind} {message}"),
        ))
    return out


def no_verdict_files(findings: list[Finding], coverage: Coverage) -> set[str]:
    """Files that checked nothing: every fact they gave is cited by a finding of a cause that
    says it gave no verdict (knowledge/coverage.yaml ``no_verdict_causes``)."""
    causes = set(load_verdict_policy().no_verdict_causes)
    cited: dict[str, set[int]] = defaultdict(set)
    for f in findings:
        if f.cause in causes:
            for ev in f.evidence:
                cited[ev.path].add(ev.line)
    return {fc.path for fc in coverage.files if fc.path in cited and 0 < fc.facts <= len(cited[fc.path])}


def checked_components(coverage: Coverage, exclude: set[str] = frozenset()) -> dict[str, list[str]]:
    """component -> the files whose parsers read something that checks it (``exclude``: files
    that checked nothing, :func:`no_verdict_files`)."""
    kinds = load_coverage()
    # a dict per component as an ordered set: a list's ``in`` made this quadratic in the files
    # (20,480 files at 1,024 nodes)
    out: dict[str, dict[str, None]] = defaultdict(dict)
    for fc in coverage.files:
        if fc.path in exclude:
            continue
        for comp in file_checks(fc, kinds):
            out[comp][fc.path] = None
    return {comp: list(paths) for comp, paths in sorted(out.items())}


#: readings named per component in a healthy verdict's ``reason`` (the text report lists them all)
READINGS_NAMED = 3
#: a reading's line is quoted up to this many characters
READING_TEXT = 80


def checked_readings(coverage: Coverage, exclude: set[str] = frozenset()) -> dict[str, tuple[list[tuple[str, int, str, int, str]], int]]:
    """component -> (the readings behind it held: (file, first line, fact kind, how many, that line's text), of each
    file that checked it (as :func:`checked_components` counts them), in file order, the readings of a kind of a file
    once; how many readings there are in all). A file's readings past a component's first READINGS_NAMED held may be
    a count alone (:class:`ReadingsHeld`): at least READINGS_NAMED readings come before it in every case.
    What a healthy verdict rests on, measured (issue 11: the report named the component and the file, never the reading)."""
    kinds = load_coverage()
    out: dict[str, list[tuple[str, int, str, int, str]]] = defaultdict(list)
    total: dict[str, int] = defaultdict(int)
    for fc in coverage.files:
        if fc.path in exclude:
            continue
        shown = set(file_checks(fc, kinds))
        for comp, by_kind in fc._readings.items():
            if comp in shown:
                if type(by_kind) is int:  # counted, not held (ReadingsHeld.keep)
                    total[comp] += by_kind
                    continue
                out[comp].extend((fc.path, line, kind, n, text) for kind, (line, text, n) in sorted(by_kind.items(), key=lambda kv: kv[1][0]))
                total[comp] += len(by_kind)
    return {c: (out[c], total[c]) for c in sorted(out)}


def reading_text(path: str, line: int, kind: str, n: int, text: str) -> str:
    """One reading in words: ``nvlink_s.txt:3: 24 nvlink_link_state, the first 'Link 0: 25.781 GB/s'``."""
    quote = " ".join(text.split())
    quote = quote if len(quote) <= READING_TEXT else quote[: READING_TEXT - 3] + "..."
    return f"{path}:{line}: {n} {kind}, the first {quote!r}" if n > 1 else f"{path}:{line}: {kind} {quote!r}"


def healthy_reason(coverage: Coverage, exclude: set[str] = frozenset()) -> str | None:
    """What a healthy verdict rests on, in words: each checked component and the readings behind it (up to
    READINGS_NAMED each); None where no reading was kept (a report made without its readers' readings)."""
    got = checked_readings(coverage, exclude)
    if not got:
        return None
    parts = []
    for comp, (rs, n) in got.items():
        named = "; ".join(reading_text(*r) for r in rs[:READINGS_NAMED])
        more = f"; and {n - READINGS_NAMED} more reading(s)" if n > READINGS_NAMED else ""
        parts.append(f"{comp} on {named}{more}")
    return "healthy on what was read: " + " | ".join(parts)


class ReadingsHeld:
    """Which readings of a bundle's files stay held as its files are read (engine/pipeline._read_artefacts), so that
    a 1,024-node bundle's parent does not hold every file's readings to the report (issue 12: ~1.4 kB a file, ~29 MB
    of the parent's peak at 1,024 nodes), though a healthy verdict's reason names READINGS_NAMED a component and
    counts the rest (:func:`healthy_reason`). The reason leaves out the files that checked nothing
    (:func:`no_verdict_files`), known only after the rules; a file is one of them only if findings cite at least as
    many of its lines as it gave facts, and a finding's evidence quotes the lines of facts the diagnosis holds (a
    fact's own, its sources', an nccl_test_table's rows: engine/findings.evidence_of) or a parse problem's. A file
    that gave more facts than the facts, rows and parse problems of it that the parent holds is therefore never
    left out: once a component has READINGS_NAMED readings of such files, the readings of later such files are
    counted, not held (their dict of kinds becomes its length). Every other file keeps all its readings."""

    def __init__(self) -> None:
        self.sure: dict[str, int] = defaultdict(int)  # component -> readings held of files never left out
        self.counts: dict[tuple, dict[str, int]] = {}  # the counts of a file, shared by files that count the same

    def keep(self, fc, facts: list[list[Fact]], errors: list[list]) -> None:
        """``fc``: a file's row, read whole; ``facts``: the lists of facts of it that the diagnosis holds, ``errors``:
        of its parse problems (one of each a window)."""
        readings = fc._readings
        if not readings or not _never_left_out(fc.facts, facts, errors):
            return
        shown = set(file_checks(fc, load_coverage()))
        held: dict = {}
        counted: list[tuple[str, int]] = []
        for comp, by_kind in readings.items():
            if comp not in shown:  # read, not what the file checked (checked_readings passes it over)
                continue
            if self.sure[comp] < READINGS_NAMED:
                held[comp] = by_kind
            else:
                counted.append((comp, len(by_kind)))
            self.sure[comp] += len(by_kind)
        if held:
            held.update(counted)
            fc._readings = held
        else:
            key = tuple(counted)
            got = self.counts.get(key)
            fc._readings = got if got is not None else self.counts.setdefault(key, dict(counted))


#: fact class -> whether its facts have parts (part_evidence: an nccl_test_table's rows), asked once a class: a pydantic
#: model class that lacks the attribute costs getattr ~1.5 us (its metaclass's __getattr__ raises and drops an
#: AttributeError), and _never_left_out asked ~10 classes a file as the parent took each file's results (~0.3 CPU s
#: of the parent's main thread at 1,024 bench nodes, while the workers read)
_PARTED: dict[type, bool] = {}


def _parted(cls: type) -> bool:
    got = _PARTED.get(cls)
    if got is None:
        got = _PARTED[cls] = getattr(cls, "part_evidence", None) is not None
    return got


def _never_left_out(n_facts: int, facts: list[list[Fact]], errors: list[list]) -> bool:
    """Whether a file that gave ``n_facts`` facts (FileCoverage.facts: folded and summarised ones counted) gave more
    than findings could cite lines of it (ReadingsHeld): more than the lines of its ``facts`` the diagnosis holds,
    of their rows (part_evidence) and of its parse problems (``errors``). Counted first, then (where the count does
    not tell: an nccl-tests table's rows are lines of its row facts too) told apart."""
    types = {t for fs in facts for t in set(map(type, fs))}
    parted = {t for t in types if _parted(t)}
    parts = [f for fs in facts for f in fs if type(f) in parted] if parted else []
    if n_facts > sum(map(len, facts)) + sum(map(len, errors)) + sum(len(f.lines) for f in parts):
        return True
    lines = {f.evidence.line for fs in facts for f in fs}
    lines.update(line for f in parts for line in f.lines)
    lines.update(e.line for es in errors for e in es)
    return n_facts > len(lines)


def file_checks(fc, kinds) -> list[str]:
    """The components a file checked: of each reader that read it, what its facts showed when
    its kind declares ``checks`` (knowledge/coverage.yaml), else its kind's ``covers``."""
    return [comp for kind in fc.read_by if kind in kinds
            for comp in (fc.checks[kind] if kind in fc.checks else kinds[kind].covers)]


def _unread_logs(fc, kinds) -> list[str]:
    """The log kinds (knowledge/coverage.yaml ``log``: their lines may tell of a failure) recognised in file ``fc``
    whose readers read none of its lines while lines of the file went unread, where other readers read the rest.
    Wild sweep K3 (bench/plant_prefix_probe.py): harvest 703's real Slurm rows (sinfo -R's 'gres/gpu count repor',
    scontrol's 'State=IDLE+DRAIN+...') behind a wrapper the normaliser did not know, pasted below a healthy
    nvidia-smi table: slurm_scheduler recognised them and read none, the table's reader read the rest, and the paste
    read HEALTHY (alone in a file of their own: a log of a kind that checks nothing, left out of "recognised but not
    read" as well). A log kind claimed in a file every line of which was read (a flight recorder's JSON whose strings
    a log's signature matched) is no such file."""
    if not fc.skipped_lines:
        return []
    return [k for k in fc.kind.split("+") if k in kinds and (kinds[k].log or kinds[k].listing) and k not in fc.read_by]


def verdict(findings: list[Finding], coverage: Coverage, empty: str = EMPTY_INPUT) -> tuple[str, str | None]:
    """``faulty`` on any finding of severity warning or worse; else ``healthy`` only when some
    file checked a component and nothing went unread; else ``inconclusive`` with the reason."""
    if any(SEVERITY_ORDER[f.severity] >= 1 for f in findings):
        return "faulty", None
    problems: list[str] = []
    if coverage.skipped:
        problems.append(f"{len(coverage.skipped)} file(s) could not be read ({_names([s.path + ': ' + s.reason for s in coverage.skipped])})")
    if coverage.unrecognised:
        problems.append(f"{len(coverage.unrecognised)} file(s) not recognised ({_names(coverage.unrecognised)})")
    kinds = load_coverage()
    # a file recognised as a kind that checks something (a kernel log, nvidia-smi), or as a log (knowledge/
    # coverage.yaml ``log``: a Slurm or daemon log checks nothing, its lines may tell of a failure), of which not a
    # line was read is not evidence of health: its lines were all skipped or unparseable; nor is a file in which
    # other readers read while a log's reader read none of its lines (_unread_logs); a listing (``listing``: kubectl's pods,
    # DaemonSets, an object's YAML, whose rows rules judge) likewise: rows no reader read may be a pod in CrashLoopBackOff
    unread = [fc for fc in coverage.files if not fc.read_by
              and any(kinds[k].covers or kinds[k].log or kinds[k].listing for k in fc.kind.split("+") if k in kinds)]
    broken = [e for e in coverage.errors if _document(e.parser, kinds) and all(e.path != fc.path for fc in unread)]
    unread_logs = {fc.path: logs for fc in coverage.files if fc.read_by and (logs := _unread_logs(fc, kinds))}
    unread += [fc for fc in coverage.files if fc.path in unread_logs]
    if broken:
        problems.append(f"{len(broken)} document(s) could not be parsed ("
                        + _names([f"{e.path}:{e.line}: {e.message}" for e in broken]) + ")")
    if unread:
        why = {e.path: f"line {e.line}: {e.message}" for e in reversed(coverage.errors)}
        problems.append(f"{len(unread)} file(s) recognised but not read ("
                        + _names([f"{fc.path} as {'+'.join(unread_logs[fc.path])}: none of its lines read, "
                                  f"{fc.skipped_lines} line(s) of the file unread" if fc.path in unread_logs else
                                  f"{fc.path} as {fc.kind}: " + why.get(fc.path, "no line could be parsed" if not fc.facts else
                                  "no line about what it checks (only context, e.g. a boot banner)") for fc in unread]) + ")")
    partial = [h for h in coverage.limits if h.limit in CAPTURE_LIMITS]
    limits = [h for h in coverage.limits if h.limit not in CAPTURE_LIMITS]
    if partial:  # the capture itself stops early or leaves GPUs out: what it omits was not checked
        problems.append(f"{len(partial)} capture(s) incomplete (" + _names([f"{h.path}:{h.line}: {h.detail}" for h in partial]) + ")")
    if limits:  # a line cut, facts counted not kept, an XML too deep: not read in full
        problems.append(f"{len(limits)} limit(s) reached, so part of the input was not read in full ("
                        + _names([f"{h.path}: {h.detail}" for h in limits]) + ")")
    unjudged = [f for f in findings if f.rule in set(load_verdict_policy().unjudged_rules)]
    if unjudged:
        problems.append(f"{len(unjudged)} finding(s) steth could not judge (" + _names([f.summary for f in unjudged]) + ")")
    silent = no_verdict_files(findings, coverage)
    checked = checked_components(coverage, silent)
    if silent:
        problems.append(f"{len(silent)} file(s) gave no verdict (a diagnostic that did not run, or was disturbed: "
                        + _names(sorted(silent)) + ")")
    if not checked:
        if not coverage.files and not coverage.unrecognised and not coverage.skipped and not coverage.uninformative:
            return "inconclusive", empty
        notes = {k: c.note for k, c in load_coverage().items() if c.note}
        read = [f"{fc.path} ({'+'.join(_noted(fc, k, notes) for k in fc.read_by) or 'nothing read'})" for fc in coverage.files]
        read += [f"{u.path} (nothing a diagnosis could use)" for u in coverage.uninformative]
        problems.insert(0, "no artefact that checks a GPU, its memory, PCIe, NVLink, the network, NCCL, "
                           "the driver or the application was read" + (f"; read: {_names(read)}" if read else ""))
    elif not set(checked) & set(load_verdict_policy().healthy_needs_any):
        # e.g. only IB port states: no rule found a fault in them, but nothing says the GPUs or the job are fine. Not
        # "found fine": a port read Down (an unused spare, or one whose use nothing shows) is read and not judged
        # (rdma link's 'mlx5_0/1: state DOWN physical_state DISABLED' beside an ACTIVE one, fixtures/artefacts/rdma_link)
        problems.insert(0, "only " + ", ".join(checked) + " checked (" + _names(sorted({p for ps in checked.values() for p in ps}))
                        + "), where no rule found a fault; no artefact checks the GPUs, their driver, NVLink, NCCL or the job")
    elif bare := unchecked_nodes(coverage, silent):
        # a healthy verdict speaks for every node of the bundle: one node checked says nothing of another
        problems.append(f"{len(bare)} node(s) with nothing that checks their GPUs, driver, NVLink, NCCL or job ("
                        + _names([f"{n}: {', '.join(ps)}" for n, ps in bare.items()]) + ")")
    if problems:
        return "inconclusive", "; ".join(problems)
    return "healthy", None


def unchecked_nodes(coverage: Coverage, exclude: set[str] = frozenset()) -> dict[str, list[str]]:
    """node -> its files, for each named node of a bundle of several whose files check none of
    ``healthy_needs_any`` (a node folder holding only ``top`` output beside a checked node, or
    only files that hold nothing a diagnosis could use). Files of no known node ("unknown": a
    top-level file) are not counted for any."""
    kinds = load_coverage()
    needs = set(load_verdict_policy().healthy_needs_any)
    files: dict[str, list[str]] = defaultdict(list)
    checked: set[str] = set()
    for fc in coverage.files:
        if fc.node == "unknown":
            continue
        files[fc.node].append(fc.path)
        if fc.path not in exclude and needs.intersection(file_checks(fc, kinds)):
            checked.add(fc.node)
    for u in coverage.uninformative:  # read, and nothing in it: it checks nothing of its node
        if u.node not in (None, "unknown"):
            files[u.node].append(u.path)
    if len(files) < 2:
        return {}
    return {n: ps for n, ps in sorted(files.items()) if n not in checked}


def _noted(fc, kind: str, notes: dict[str, str]) -> str:
    """What the reason says a file read by ``kind`` was: its kind's note (knowledge/coverage.yaml), after what the file
    showed where the note names it ("AMD's amd-smi: another vendor's accelerator tool ..."); else the kind."""
    note = notes.get(kind)
    if note is None:
        return kind
    shown = fc._named.get(kind)
    return f"{shown}: {note}" if shown else note


def _document(parser: str | None, kinds) -> bool:
    return parser in kinds and kinds[parser].document


def _names(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", and {len(items) - limit} more" if len(items) > limit else "")
