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

The parts, one job a module (each public name re-exported here): ``restatements`` (lines that restate an
explained one), ``checked_readings`` (what the files read checked).
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from stethoscope.engine.checked_readings import (  # noqa: F401 - re-exported
    READING_TEXT, READINGS_NAMED, ReadingsHeld, checked_components, checked_readings, file_checks, healthy_reason,
    reading_text)
from stethoscope.engine.findings import SEVERITY_ORDER, evidence_of
from stethoscope.engine.knowledge import load_coverage, load_polarity, load_verdict_policy
from stethoscope.engine.report import Coverage, Finding
from stethoscope.engine.restatements import (fact_text as _text, restated_lines as _restated_lines,
                                              title_restatements as _title_restatements)
from stethoscope.engine.ruleengine.derive import Firing, fill
from stethoscope.facts.kinds.derived import ParseProblemFact, UnexplainedFact
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
