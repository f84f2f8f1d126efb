"""What a healthy verdict rests on: the components and readings the files read checked (knowledge/coverage.yaml),
the readings a healthy reason names, and whether a reading was held back (:class:`ReadingsHeld`).

Part of what :mod:`stethoscope.engine.accounting` does; it re-exports every public name (issue 12)."""

from __future__ import annotations

from collections import defaultdict

from stethoscope.engine.knowledge import load_coverage
from stethoscope.engine.report import Coverage
from stethoscope.facts.model import Fact


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

    def keep(self, fc, facts: list[list[Fact]], errors: list[list], answered: bool | None = None) -> None:
        """``fc``: a file's row, read whole; ``facts``: the lists of facts of it that the diagnosis holds, ``errors``:
        of its parse problems (one of each a window); ``answered``: what :func:`never_left_out` answered of them where
        that was asked already (a parse worker's answer of a file of one window: engine/parse_pool._packed)."""
        readings = fc._readings
        if not readings or not (answered if answered is not None else never_left_out(fc.facts, facts, errors)):
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
#: AttributeError), and never_left_out asked ~10 classes a file as the parent took each file's results (~0.3 CPU s
#: of the parent's main thread at 1,024 bench nodes, while the workers read)
_PARTED: dict[type, bool] = {}


def _parted(cls: type) -> bool:
    got = _PARTED.get(cls)
    if got is None:
        got = _PARTED[cls] = getattr(cls, "part_evidence", None) is not None
    return got


def never_left_out(n_facts: int, facts: list[list[Fact]], errors: list[list]) -> bool:
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
