"""The one diagnosis pipeline, whatever the input:

    source -> observe -> combine -> rules -> localise -> report

- **source / observe**: a bundle (folder or archive), the nccl-tests results of ``steth
  baseline`` (several paths read as one bundle), or a Prometheus server; each gives an
  :class:`Observation`: the facts of its files or series, what was read (``coverage``), the
  nodes, the series it lacks (live).
- **combine**: :data:`COMBINERS`, one declared, ordered list of cross-file summarisers, run on
  every observation alike; each sees the facts of the ones before it.
- **rules**: two passes (the rules, then the meta rules over every error no finding cites:
  engine/accounting.py), the knowledge entries of the codes the facts name joined first.
- **localise**: topology, pairwise tests, RDMA paths, common causes, root cause vs cascade.
- **report**: the verdict of :func:`stethoscope.engine.accounting.verdict` for every source.

Every command that diagnoses (``diagnose --from-logs``, ``diagnose --prometheus``, ``watch``,
``baseline compare``, ``diagnose --baseline``) calls :func:`diagnose` on an observation.
"""
from __future__ import annotations

import gc
import os
from array import array
from collections import defaultdict
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Literal, Sequence

from stethoscope.engine import accounting, parse_pool
from stethoscope.engine.ruleengine import routing
from stethoscope.engine.ruleengine.loader import RuleSet, load_rules
from stethoscope.engine.progress import SILENT, Progress
from stethoscope.engine.report import Checked, Coverage, FileCoverage, Finding, LimitHit, MissingSignal, Report, SkippedFile, Source
from stethoscope.facts.bundle import UNKNOWN_NODE, FileTask, RawBundle, Skipped, artefacts, iter_artefacts, read_bundle, unplaced
from stethoscope.facts.limits import DEFAULT, Budget
from stethoscope.facts.model import Fact, FactIndex, of_kind
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.readings import records

if TYPE_CHECKING:  # (bound by _tail)
    from stethoscope.engine.baselines import bench as bench_baseline
    from stethoscope.engine.baselines import perf_compare
    from stethoscope.engine.combine import (fabric, link_quality, nccl_checks, nccl_known_issues, nccl_summary, nvls_use,
                                            rdma_counters, rendezvous, version_compat)
    from stethoscope.engine.combine.decision_tree import not_checked
    from stethoscope.engine.findings import build_findings, gpu_places, symptom_map
    from stethoscope.engine.localise import nic_line_rate
    from stethoscope.engine.localise.pairwise import localise
    from stethoscope.engine.ruleengine import reference, session

Evaluator = Literal["durable", "reference"]

#: what only the stages after the reading use (the combiners, the rules' run, localise: networkx): imported by
#: :func:`_tail` where a bundle's parse workers have started (parse_pool.parse_files' ``waiting``: the parent waits
#: on their first results then, and a worker, forked before, needs none of them), else when first used. Imported at
#: the top of this module they were ~0.2 CPU s of the serial path before the fork at 1,024 bench nodes
#: (bench/speed_rT8.md). A name here read from outside (``pipeline.localise``) imports them too (``__getattr__``).
_TAIL = {
    "bench_baseline": ("stethoscope.engine.baselines.bench", None),
    "perf_compare": ("stethoscope.engine.baselines.perf_compare", None),
    **{name: (f"stethoscope.engine.combine.{name}", None) for name in (
        "fabric", "link_quality", "nccl_checks", "nccl_known_issues", "nccl_summary", "nvls_use", "rdma_counters",
        "rendezvous", "version_compat")},
    "nic_line_rate": ("stethoscope.engine.localise.nic_line_rate", None),
    "reference": ("stethoscope.engine.ruleengine.reference", None),
    "session": ("stethoscope.engine.ruleengine.session", None),
    "not_checked": ("stethoscope.engine.combine.decision_tree", "not_checked"),
    "build_findings": ("stethoscope.engine.findings", "build_findings"),
    "gpu_places": ("stethoscope.engine.findings", "gpu_places"),
    "symptom_map": ("stethoscope.engine.findings", "symptom_map"),
    "localise": ("stethoscope.engine.localise.pairwise", "localise"),
}
_tail_done = False


def _tail() -> None:
    """Import what :data:`_TAIL` names into this module (once; a name already bound, a test's stand-in, is kept)."""
    global _tail_done
    if _tail_done:
        return
    from importlib import import_module

    here = globals()
    for name, (module, attr) in _TAIL.items():
        if name not in here:
            mod = import_module(module)
            here[name] = mod if attr is None else getattr(mod, attr)
    _tail_done = True


def __getattr__(name: str):
    if name in _TAIL:
        _tail()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class Observation:
    """What a source gave: its facts (combined ones appended by :func:`combine`), what was read."""

    facts: list[Fact] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)
    source: Source | None = None
    nodes: list[str] = field(default_factory=list)
    missing: list[MissingSignal] = field(default_factory=list)
    #: the verdict's reason when the source gave nothing at all (accounting.verdict's ``empty``)
    empty: str = accounting.EMPTY_INPUT
    combined: bool = False
    #: fact kinds the source examined without making any (a live screen that found every GPU
    #: healthy): checked, for the decision tree's "not checked" list
    kinds_checked: set[str] = field(default_factory=set)
    #: ``facts`` by kind as :func:`combine` left them (its index kept: the rules' catalogue joins and
    #: localise read a few kinds each, and each made a pass over every fact to index them)
    index: FactIndex | None = field(default=None, repr=False, compare=False)
    #: ``facts`` by kind as they were read (:func:`read_artefacts`), for :func:`combine` to go on from while they are
    #: still the facts it indexed: indexing them as each file's results come in is done by the parent while its
    #: workers read, not after the last file (~0.15-0.19 CPU s serial at 1,024 bench nodes)
    read: Combined | None = field(default=None, repr=False, compare=False)

    def indexed(self) -> list[Fact] | FactIndex:
        """``facts``, as the FactIndex combine made when they are still the facts it indexed."""
        index = self.index
        return index if index is not None and len(index) == len(self.facts) else self.facts


# --- combine --------------------------------------------------------------------------------

class Combined:
    """What a combiner sees: every fact so far (the observation's, then those of the combiners
    before it), indexed by kind as they are added, and the coverage. It is also the sequence of
    those facts with their positions by kind, so a combiner that takes a fact list reads its
    kinds through facts/model.of_kind without a pass over all of them."""

    def __init__(self, facts: list[Fact], coverage: Coverage):
        self.facts, self.coverage = facts, coverage
        self.by_kind: defaultdict[str, list[Fact]] = defaultdict(list)
        self.positions: defaultdict[str, list[int]] = defaultdict(list)
        #: node -> the position of its first fact (localise/graph.build's hosts, in their order: a
        #: pass of its own over every fact cost ~55 ms at 1,024 bench nodes, this ~12)
        self.first_at: dict[str, int] = {}
        #: how many of ``facts`` are indexed (all, unless ``facts`` grew or was changed by another's hand)
        self.indexed = 0
        #: what facts/readings.records made of them, by kind and its facts' and summaries' counts (FactIndex's)
        self.memo: dict = {}
        self._index(facts, 0)

    def _index(self, facts: list[Fact], start: int) -> None:
        by_kind, positions, first = self.by_kind, self.positions, self.first_at.setdefault
        for i, f in enumerate(facts, start):
            kind = f.kind
            by_kind[kind].append(f)
            positions[kind].append(i)
            first(f.node, i)
        self.indexed = start + len(facts)

    def kind(self, kind: str) -> list[Fact]:
        return self.by_kind.get(kind, [])

    def add(self, new: list[Fact]) -> None:
        start = len(self.facts)
        self.facts.extend(new)
        self._index(new, start)

    def __iter__(self):
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def __getitem__(self, i):
        return self.facts[i]


Combiner = Callable[[Combined], list[Fact]]

#: The cross-file summarisers, in the order they run, the same for every source (a bundle,
#: baseline results, Prometheus); each sees the facts of the ones before.
COMBINERS: tuple[tuple[str, Combiner], ...] = (
    # a line a parser claimed and could not parse is never silent
    ("parse_problems", lambda c: accounting.parse_problem_facts(c.coverage)),
    # cross-port and cross-reading comparisons (ibstat, perfquery, node_exporter series alike)
    ("fabric", lambda c: fabric.summarise(c)),
    # mlxlink / ethtool -S physical-layer counters against knowledge/link_quality.yaml
    ("link_quality", lambda c: link_quality.summarise(c.kind("link_counter"))),
    # mlx5 hw_counters (sysfs, rdma statistic) against knowledge/rdma_hw_counters.yaml
    ("rdma_counters", lambda c: rdma_counters.summarise(c.kind("rdma_hw_counters"))),
    # NCCL across ranks, processes and runs
    ("nccl_versions", lambda c: nccl_summary.version_set(c.kind("nccl_version"))),
    ("nccl_net_plugins", lambda c: nccl_summary.plugin_set(nccl_summary.plugin_events(c))),
    ("nccl_bootstrap_subnets", lambda c: nccl_summary.subnet_set(c.kind("nccl_bootstrap_interface"))),
    ("stragglers", lambda c: nccl_summary.stragglers(c.by_kind)),
    # the rank the flight-recorder analyser names, on the host the NCCL Init lines give it
    ("fr_culprits", lambda c: nccl_summary.fr_culprits(c.by_kind)),
    ("nccl_tests_runs", lambda c: nccl_summary.independent_runs(c.kind("nccl_test_run"), c, c.kind("nccl_test_table"))),
    ("nccl_slow_path", lambda c: nccl_summary.slow_path(c.kind("nccl_env"))),
    ("nccl_gpu_shared", lambda c: nccl_summary.gpu_shared(c.kind("nccl_duplicate_gpu"), c.kind("nccl_rank"))),
    ("nccl_known_issues", lambda c: nccl_known_issues.summarise(c.by_kind)),
    # RoCE GIDs across nodes, GDR off by distance, NCCL build vs GPU arch
    ("nccl_checks", lambda c: nccl_checks.summarise(c.by_kind)),
    # the nodes that never joined a timed-out rendezvous
    ("rendezvous", lambda c: rendezvous.summarise(c.by_kind, c.facts)),
    # did each nccl-tests run use NVLS (its log, else knowledge/nvls.yaml)
    ("nvls_use", lambda c: nvls_use.summarise(c.by_kind, records(c, "nccl_test_rank"))),
    # nccl-tests busbw against the line rate of the node's RDMA ports
    ("nic_line_rate", lambda c: nic_line_rate.summarise(c.by_kind)),
    # nccl-tests against the baseline or the expected figure; other benchmarks against theirs
    ("busbw_vs_baseline", lambda c: perf_compare.compare_bundle(c)),
    ("bench_vs_baseline", lambda c: bench_baseline.compare_bundle(c)),
    # NCCL vs CUDA, DCGM vs driver, driver vs CUDA (knowledge/compat.yaml)
    ("version_compat", lambda c: version_compat.summarise(c)),
)


def combine(obs: Observation) -> Observation:
    """Append the facts of every combiner (once: a combined observation is returned as is)."""
    if not obs.combined:
        _tail()
        seen = obs.read
        obs.read = None
        if seen is None or seen.facts is not obs.facts or seen.indexed != len(obs.facts):
            seen = Combined(obs.facts, obs.coverage)  # (not read here, or its facts changed since: _one_host's)
        seen.coverage = obs.coverage
        for _name, summarise in COMBINERS:
            seen.add(summarise(seen))
        obs.combined = True
        # the positions as C ints (4 bytes each, not lists of int objects: ~20 MB at 1,024 nodes,
        # alive through the rules' run, where a diagnosis peaks)
        # and each kind's facts as combining grouped them (lists of the facts: ~3.5 MB at 1,024 nodes),
        # which the rules' run and of_kind took again from the positions
        obs.index = FactIndex(obs.facts, {k: array("i", v) for k, v in seen.positions.items()}, seen.first_at,
                              dict(seen.by_kind), seen.memo)
    return obs


# --- sources ----------------------------------------------------------------------------------

def read_artefacts(arts: Iterable[Artefact | FileTask], jobs: int | None = 1, total_bytes: int | None = None,
                   progress: Progress = SILENT, sizes: dict[str, int] | None = None, router=None,
                   budget: Budget = DEFAULT, raw: RawBundle | None = None,
                   binary: list[Skipped] | None = None) -> Observation:
    """Parse every artefact, in order (over ``jobs`` processes: engine/parse_pool.py); a
    FileTask is read where it is parsed, and what reading it found besides text goes where
    iter_artefacts puts it: unreadable files and limits to ``raw``, binary and empty files to
    ``binary``. ``router`` (engine/ruleengine/routing.py): only the facts the engine can use,
    the rest summarised.

    Python's automatic garbage collection is off while the bundle is read: only a young
    collection every YOUNG_EVERY files parsed in this process (what a reader leaves in cycles,
    expat's handler closures, goes; parse_pool.parse_files), never a walk of the older generations, and what was read
    is frozen after (gc.freeze). The ~500k facts a 1,024-node bundle keeps (each with its
    evidence and dicts) were otherwise walked again and again while more were parsed,
    unpickled and combined; facts hold no cycles. The collector comes back on when the reading
    ends, however it ends; parse workers turn theirs on (engine/parse_pool._init_worker).
    Measured on a 256-node bench bundle (parent process, 2 workers, busy VM): freezing every
    20,000 facts with the collector on (until session 13) 1.74-1.95 CPU s, this 1.48-1.50."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _read_artefacts(arts, jobs, total_bytes, progress, sizes, router, budget, raw, binary)
    finally:
        gc.freeze()  # the facts kept live to the report: out of the collector's reach
        if enabled:
            gc.enable()


#: files read between two young collections while the collector is off (read_artefacts), where they are parsed in this
#: process. Not where parse workers read them: what the parent makes of their results (the facts unpickled, their
#: rows) holds no cycles, and each collection walked the young objects of 64 files' facts to find none (128 bench
#: nodes, 2 workers: 40 collections, 0 objects found, ~0.85 CPU ms each: ~0.27 s of the parent at 1,024 nodes)
YOUNG_EVERY = 64


def _read_artefacts(arts, jobs, total_bytes, progress, sizes, router, budget, raw, binary) -> Observation:
    obs = Observation()
    obs.read = Combined(obs.facts, obs.coverage)  # the facts indexed by kind as they come (combine goes on from it)
    rows: dict[str, FileCoverage] = {}  # a large file's windows make one row
    largest = max(sizes.values(), default=0) if sizes else None  # the workers' memory (facts/limits.Budget.jobs)
    held = accounting.ReadingsHeld()
    # the file whose row may still grow (its windows come one after the other): its facts' lists and parse problems,
    # and its first window's never_left_out as a parse worker answered it (parse_pool._packed: the file's where it
    # is the file's one window)
    last: tuple[str, list[list[Fact]], list[list], bool | None] | None = None
    for res in parse_pool.parse_files(arts, jobs, total_bytes, router, budget=budget, largest=largest,
                                      young_every=YOUNG_EVERY, waiting=_tail):
        if last is not None and res.path != last[0]:  # the last file read whole: which of its readings stay held
            if last[0] in rows:
                held.keep(rows[last[0]], last[1], last[2], last[3] if len(last[1]) == 1 else None)
            last = None
        if res.read_skipped or res.read_binary or res.read_hits:
            if raw is None or binary is None:
                raise ValueError("a FileTask's reading needs raw and binary to report to")
            raw.skipped.extend(res.read_skipped)
            raw.hits.extend(res.read_hits)
            binary.extend(res.read_binary)
        if res.read_only:
            continue
        progress.file_done(res.path, (sizes or {}).get(res.path, 0), len(res.facts))
        if res.hosts:  # a pdsh paste's hosts (parse_pool._per_host)
            obs.nodes.extend(h for h in res.hosts if h not in obs.nodes)
        obs.coverage.limits.extend(res.limits)
        if last is None:
            last = (res.path, [], [], res.never_left_out)
        last[1].append(res.facts)  # (every window's, those the row's facts count: _merge_window keeps them all)
        last[2].append(res.errors)
        if res.path in rows or (res.coverage is not None and _first_window_unread(obs, res.path)):
            _merge_window(obs, rows, res)
            continue
        if res.coverage is None:
            if res.uninformative:
                obs.coverage.uninformative.append(SkippedFile(path=res.path, reason=res.uninformative, node=res.node))
            else:
                obs.coverage.unrecognised.append(res.path)
            continue
        obs.read.add(res.facts)  # (obs.facts extended)
        obs.coverage.errors.extend(res.errors)
        obs.coverage.files.append(res.coverage)
        rows[res.path] = res.coverage
    if last is not None and last[0] in rows:
        held.keep(rows[last[0]], last[1], last[2], last[3] if len(last[1]) == 1 else None)
    return obs


def _first_window_unread(obs: Observation, path: str) -> bool:
    """A later window of a file whose first window no reader recognised (its head was noise)."""
    return path in obs.coverage.unrecognised or any(u.path == path for u in obs.coverage.uninformative)


def _merge_window(obs: Observation, rows: dict[str, FileCoverage], res: parse_pool.FileResult) -> None:
    """One more window of a file already read: its facts and counts join the file's row."""
    if obs.read is not None:
        obs.read.add(res.facts)  # (obs.facts extended)
    else:
        obs.facts.extend(res.facts)
    obs.coverage.errors.extend(res.errors)
    if res.coverage is None:
        return
    row = rows.get(res.path)
    if row is None:  # the first window was not recognised: this one is, the file is read
        if res.path in obs.coverage.unrecognised:
            obs.coverage.unrecognised.remove(res.path)
        obs.coverage.uninformative = [u for u in obs.coverage.uninformative if u.path != res.path]
        obs.coverage.files.append(res.coverage)
        rows[res.path] = res.coverage
        return
    parse_pool.merge_coverage(row, res.coverage)


def _limits(raw: RawBundle) -> list[LimitHit]:
    return [LimitHit(limit=h.limit, path=h.path, line=h.line, detail=h.detail) for h in raw.hits]


def parse_artefacts(arts: Iterable[Artefact], jobs: int | None = 1, total_bytes: int | None = None) -> Observation:
    """The facts of some artefacts with the cross-file summaries (rule tests, parser tests)."""
    return combine(read_artefacts(arts, jobs, total_bytes))


def _unread(obs: Observation, skipped: Iterable[Skipped], binary: Iterable[Skipped]) -> Observation:
    for s in skipped:
        obs.coverage.skipped.append(SkippedFile(path=s.path, reason=s.reason))
    for s in binary:
        obs.coverage.unrecognised.append(s.path)
        obs.coverage.skipped.append(SkippedFile(path=s.path, reason=s.reason))
    obs.nodes = sorted({c.node for c in obs.coverage.files} | set(obs.nodes))
    return obs


def observe_bundle(path: str | os.PathLike[str], jobs: int | None = None, progress: Progress = SILENT,
                   ruleset: RuleSet | None = None,
                   budget: Budget = DEFAULT) -> Observation:
    """A folder or archive. Raises BundleError when it cannot be opened. ``jobs``: processes
    that parse files (None: every CPU, for a large bundle; 1: in-process; fewer when the
    memory ``budget``, facts/limits.py, cannot hold them). ``ruleset``: the
    rules the facts are for: each file keeps only the facts they or engine code can use, the
    others summarised (engine/ruleengine/routing.py); None keeps every fact."""
    # the classifier's DFA built over the bundle's first files beside the listing (parse_pool.warm_up)
    parse_pool.warm_up(path)
    raw = read_bundle(path)
    flat = unplaced(raw)
    binary: list[Skipped] = []
    sizes = {p: len(d) for p, d in raw.files}
    total = sum(sizes.values())
    progress.phase("reading", files=len(sizes), nbytes=total)
    # one file at a time: its bytes are released as its text is made, its text once parsed
    router = routing.router_for(ruleset.rules) if ruleset is not None else None
    # a folder's files are read by whoever parses them (a worker: the text never crosses a pipe)
    obs = read_artefacts(iter_artefacts(raw, binary, release=True, budget=budget, tasks=True), jobs, total, progress,
                         sizes, router, budget=budget, raw=raw, binary=binary)
    obs.coverage.limits[:0] = _limits(raw)
    obs.source = Source(kind="bundle", path=str(path))
    if flat:
        _one_host(obs)
    return _unread(obs, raw.skipped, binary)


def _one_host(obs: Observation) -> None:
    """A flat bundle with no node's name (a ticket's pastes side by side, facts/bundle.unplaced)
    whose files name one host between them, by their content or their lines (a syslog or
    journald host, a shell prompt, NCCL's prefix): the files that name none are that host's
    too, not a node "unknown" of their own. A dmesg -T paste beside `user@cn-234 ~ % nvidia-smi`
    is cn-234's: the lost GPU and its root port's AER errors meet on one node (harvest 114,
    rwth-i6/returnn#1486, once its zsh prompt named the host). Two hosts named leave every file
    where it was (which of them an unnamed file is, nothing says); a bundle named after a node
    keeps that name for its unnamed files (tests/test_bundle_node_name.py)."""
    fallback = UNKNOWN_NODE
    nodes = {f.node for f in obs.facts} | {c.node for c in obs.coverage.files}
    named = nodes - {fallback, ""}
    if len(named) != 1 or fallback not in nodes:
        return
    host = next(iter(named))
    obs.facts = [f.model_copy(update={"node": host}) if f.node == fallback else f for f in obs.facts]
    for c in obs.coverage.files:
        if c.node == fallback:
            c.node = host
    for u in obs.coverage.uninformative:
        if u.node == fallback:
            u.node = host


def observe_results(paths: list[os.PathLike[str] | str]) -> Observation:
    """``steth baseline``'s RESULTS: every file of every path read as one bundle (names kept
    apart where they clash)."""
    merged = RawBundle(source=", ".join(map(str, paths)))
    names: set[str] = set()
    for p in paths:
        raw = read_bundle(p)
        for name, data in raw.files:
            unique, n = name, 1
            while unique in names:
                n += 1
                unique = f"{name}.{n}"
            names.add(unique)
            merged.files.append((unique, data))
        merged.skipped.extend(raw.skipped)
        merged.hits.extend(raw.hits)
        merged.closers.extend(raw.closers)
    arts, binary = artefacts(merged)
    obs = read_artefacts(arts)
    obs.coverage.limits[:0] = _limits(merged)
    obs.source = Source(kind="bundle", path=merged.source)
    return _unread(obs, merged.skipped, binary)


def observe_prometheus(url: str, at: float, window_s: int, timeout: float) -> Observation:
    """The series of a Prometheus server (engine/live/observe.py). Raises LiveError when it fails."""
    from stethoscope.engine.live import observe as live

    return live.observe_server(url, at, window_s, timeout)


# --- rules ------------------------------------------------------------------------------------

def evaluate_all(ruleset: RuleSet, facts: list[Fact], evaluator: Evaluator = "durable"):
    """Findings and derived facts of ``facts`` under one evaluator.

    Two passes: the rules, then the meta rules (``rules/meta/``) over every error no finding
    of the first pass cites (engine/accounting.py), so that no error goes unreported."""
    _tail()
    engine = session if evaluator == "durable" else reference
    from stethoscope.engine.catalogues.xid import knowledge_facts  # catalogue entries + Xid aggregations

    facts = _extended(facts, knowledge_facts(facts))
    meta = accounting.meta_rules(ruleset.rules)
    rules = [r for r in ruleset.rules if r not in meta] if meta else ruleset.rules
    firings, derived = engine.run(rules, facts)
    by_id = _by_id(facts, ruleset.rules, firings, derived)
    if meta:
        left = accounting.unexplained(_extended(facts, derived), accounting.explained_lines(rules, firings, by_id),
                                      accounting.explained_lines(rules, firings, by_id, serious=True))
        if left:
            more, _ = engine.run(meta, left)
            firings = list(firings) + list(more)
            by_id = _by_id(facts, ruleset.rules, firings, derived + left)
    return build_findings(ruleset.rules, firings, by_id, gpu_places(of_kind(facts, "gpu_platform"))), derived


def _by_id(facts: Sequence[Fact], rules: Sequence, firings: Iterable, given: Sequence[Fact]) -> dict[str, Fact]:
    """Fact id -> fact for the finding firings' look-ups (accounting.explained_lines, findings.build_findings
    and the ``sources`` evidence_of follows): the facts those firings bind, read from their rules'
    pattern kinds, and ``given`` (derived and unexplained facts, which win). Every fact by id instead
    when the facts carry no kind index, or when a fact in it names a source outside it. A 512-node
    bench bundle's ~217k facts cost ~0.1 CPU s to key by id, for the few dozen a healthy fleet's
    findings bind (bench/speed_rH6.md)."""
    finding_rules = {r.id: r for r in rules if r.rule.then.finding is not None}
    wanted: set[str] = set()
    kinds: set[str] = set()
    for firing in firings:
        crule = finding_rules.get(firing.rule)
        if crule is not None:
            wanted.update(fid for _alias, fid in firing.bindings)
            kinds.update(p.kind for p in crule.all)
    out: dict[str, Fact] = {}
    indexed = getattr(facts, "positions", None) is not None
    if wanted and indexed:
        # (a fact's id is unique within a diagnosis: facts/model.Fact)
        out = {f.id: f for f in of_kind(facts, *kinds) if f.id in wanted}
    out.update((f.id, f) for f in given)
    if (wanted and not indexed) or not _complete(out, wanted):
        out = {f.id: f for f in facts}
        out.update((f.id, f) for f in given)
    return out


def _complete(by_id: dict[str, Fact], wanted: set[str]) -> bool:
    """Whether ``by_id`` holds every id in ``wanted`` and every source its facts name (``<id>`` or
    part ``<id>@<i>``, as findings.evidence_of follows them)."""
    if not wanted <= by_id.keys():
        return False
    for fact in by_id.values():
        sources = getattr(fact, "sources", None)
        if sources:
            for sid in sources.split(","):
                if sid not in by_id and sid.rpartition("@")[0] not in by_id:
                    return False
    return True


class _Indexed(list):
    """Facts with each kind's positions (facts/model.of_kind, ruleengine/session.run read them),
    and each kind's facts where the FactIndex it extends has them."""

    positions: dict[str, Sequence[int]]
    by_kind: dict[str, list[Fact]] | None = None


def _extended(facts: list[Fact] | FactIndex, more: list[Fact]) -> list[Fact]:
    """``facts`` then ``more``, as a list; with each kind's positions where ``facts`` has them (the
    index combine made: the rules' run then makes no pass over every fact to find its kinds)."""
    positions = getattr(facts, "positions", None)
    if positions is None:
        return list(facts) + more
    out = _Indexed(facts)
    added: dict[str, list[int]] = defaultdict(list)
    for i, f in enumerate(more, len(out)):
        added[f.kind].append(i)
    out.extend(more)
    out.positions = {**positions, **{k: [*positions.get(k, ()), *at] for k, at in added.items()}}
    by_kind = getattr(facts, "by_kind", None)
    if by_kind is not None:
        out.by_kind = {**by_kind, **{k: [*by_kind.get(k, ()), *map(out.__getitem__, at)] for k, at in added.items()}}
    return out


def evaluate(ruleset: RuleSet, facts: list[Fact], evaluator: Evaluator = "durable") -> list[Finding]:
    return evaluate_all(ruleset, facts, evaluator)[0]


# --- the whole pipeline -----------------------------------------------------------------------

def diagnose(obs: Observation, ruleset: RuleSet | None = None, evaluator: Evaluator = "durable",
             baseline=None, progress: Progress = SILENT) -> Report:
    """Combine, run the rules, localise and report. ``baseline``: a recorded baseline
    (engine/baselines/store.py) the nccl-tests runs are compared with instead of the expected
    figures."""
    with _collector_paused():
        return _diagnose(obs, ruleset, evaluator, baseline, progress)


@contextmanager
def _collector_paused():
    """Python's automatic garbage collection off while a diagnosis runs, back on (if it was) however
    it ends, as while a bundle is read (:func:`read_artefacts`). Combining, the rules and localising
    make ~100k objects that live to the report (derived facts, tables, graphs) and hold no cycles of
    note: with the collector on, its young collections went on promoting them and its full ones
    walked them again and again. Measured at 1,024 bench nodes (2-core VM, in-process, the
    observation's facts frozen as read_artefacts leaves them): ~2.9 CPU s with it on, ~2.5 off; the
    cyclic garbage a diagnosis leaves (~15k objects) is collected once it is back on, and the peak
    RSS is the same."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _diagnose(obs: Observation, ruleset: RuleSet | None, evaluator: Evaluator, baseline, progress: Progress) -> Report:
    _tail()
    progress.phase("combining")
    with perf_compare.use_baseline(baseline) if baseline is not None else nullcontext():
        combine(obs)
    ruleset = ruleset or load_rules()
    progress.phase("rules")
    facts = obs.indexed()
    found = evaluate(ruleset, facts, evaluator)
    progress.phase("localising")
    findings = localise(found, facts, symptom_map(ruleset.rules))
    progress.done()
    verdict, reason = accounting.verdict(findings, obs.coverage, empty=obs.empty)
    silent = accounting.no_verdict_files(findings, obs.coverage)
    if verdict == "healthy":  # what it rests on, measured: the JSON's schema takes no field more in 'checked'
        reason = accounting.healthy_reason(obs.coverage, silent)
    return Report(
        source=obs.source or Source(kind="bundle", path=""),
        verdict=verdict,
        reason=reason,
        checked=[Checked(component=c, files=fs) for c, fs in accounting.checked_components(obs.coverage, silent).items()],
        findings=findings,
        coverage=obs.coverage,
        nodes=obs.nodes,
        facts=routing.made(facts),
        missing_signals=obs.missing,
        not_checked=not_checked(facts, also=obs.kinds_checked),
    )


def diagnose_bundle(path: str | os.PathLike[str], ruleset: RuleSet | None = None, evaluator: Evaluator = "durable",
                    jobs: int | None = None, baseline=None, progress: Progress = SILENT,
                    budget: Budget = DEFAULT) -> Report:
    """Diagnose a folder or archive within a memory ``budget`` (facts/limits.py). Raises
    BundleError when the bundle cannot be opened."""
    ruleset = ruleset or load_rules()
    return diagnose(observe_bundle(path, jobs, progress, ruleset, budget=budget), ruleset, evaluator, baseline, progress)
