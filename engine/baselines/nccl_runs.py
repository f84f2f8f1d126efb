"""A bundle's nccl-tests runs as the comparisons read them: each run's table by size (its rows
as columns, a busbw made when asked), its context (GPUs, hosts, topology, driver, CUDA, NCCL) and
its own NCCL version and settings, where its own NCCL lines, command line or job script show them.

Part of :mod:`stethoscope.engine.baselines.perf_compare`, which re-exports every public name (issue 12)."""
from __future__ import annotations

from collections import Counter, defaultdict
from functools import partial
from itertools import groupby
from operator import attrgetter, le, lt
from typing import Sequence

from stethoscope.engine.baselines import store
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor
from stethoscope.facts.readings import records

#: NCCL variables that say where output goes, not how NCCL moves data
_QUIET_ENV = ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE")
_positive = partial(lt, 0)
_host, _gpu_name, _run_id = attrgetter("host"), attrgetter("gpu_name"), attrgetter("run_id")


def _transport_family(transport: str) -> str:
    """"NET/IB/0/GDRDMA" -> "NET/IB", "P2P/CUMEM" -> "P2P": the part a run's topology names."""
    parts = transport.split("/")
    return parts[0] + ("/" + parts[1] if transport.startswith("NET/") else "")


class RowsBySize:
    """size -> the row of that size of a run's table, as its nccl_test_row (built when asked: a
    comparison cites one row a band)."""

    __slots__ = ("table", "at")

    def __init__(self, table: Fact, at: dict[int, int]):
        self.table, self.at = table, at

    def __getitem__(self, size: int) -> Fact:
        return self.table.row(self.at[size])

    def evidence(self, size: int):
        """The evidence of the row of that size, as its nccl_test_row has it (no row fact built: a
        comparison cites only the row's line; 2,560 rows built and validated at 512 bench nodes)."""
        return self.table.part_evidence(self.at[size])

    def __contains__(self, size: int) -> bool:
        return size in self.at

    def source(self, size: int) -> str:
        """The row of that size as a derived fact's ``sources`` names it (its table's part)."""
        return self.table.source(self.at[size])


class Columns:
    """A run's table as :func:`compare_bundle` reads it: its sizes with a measured time (each once, ascending),
    the table's row of each, and the busbw of a size made when asked (store.Row's value, no Row made: ~145k
    rows at 1,024 bench nodes, of which a comparison reads the few its reference has in a band)."""

    __slots__ = ("collective", "nranks", "sizes", "rows", "oops", "ips", "factor")

    def __init__(self, collective: str, nranks: int, sizes: Sequence[int], rows: Sequence[int],
                 oops: Sequence[float], ips: Sequence[float | None], factor: float):
        self.collective, self.nranks, self.sizes, self.rows = collective, nranks, sizes, rows
        self.oops, self.ips, self.factor = oops, ips, factor

    def busbw(self, j: int) -> float:
        """The busbw of ``sizes[j]``, as runs_of gives a Row's."""
        i = self.rows[j]
        return round(self.sizes[j] / _best_time(self.oops[i], self.ips[i]) / 1e3 * self.factor, 3)

    @property
    def busbws(self) -> list[float]:
        return list(map(self.busbw, range(len(self.sizes))))


def _best_time(oop: float | None, ip: float | None) -> float | None:
    """The best of the out-of-place and in-place times that were measured (> 0); None: neither was."""
    if oop and oop > 0:
        return ip if ip and 0 < ip < oop else oop
    if ip and ip > 0:
        return ip
    return None


def _in_order(sizes: Sequence[int], oops: Sequence[float],
              placed: dict[tuple, tuple | None] | None = None) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(the sizes shown, each once and ascending; the row of each) where a table's sizes never go down and
    every row has its out-of-place time measured (> 0): each size's first row, as runs_of's loop takes it
    (nccl-tests' all_gather and reduce_scatter print size 0 on several rows: counts under one element a
    rank), found by C-level passes, not a loop a row. None: the loop decides. ``placed``: what the sizes
    alone decide, by sizes (a bench bundle's 5,120 tables have ~5 lists of sizes), kept by the caller."""
    if None in oops or not all(map(_positive, oops)):  # (NaN is not > 0)
        return None
    key = sizes if type(sizes) is tuple else tuple(sizes)
    if placed is not None and key in placed:
        return placed[key]
    found = None
    if all(map(le, sizes, sizes[1:])):
        first = dict(zip(sizes[::-1], range(len(sizes) - 1, -1, -1)))  # a size's first row written last
        # tuples: compare_bundle keys its runs by their sizes (tuple() of a tuple is the tuple itself)
        found = tuple(reversed(first)), tuple(reversed(first.values()))
    if placed is not None:
        placed[key] = found
    return found


def runs_of(facts: list[Fact], columns: bool = False) -> list[tuple[Fact, store.Table | Columns, dict, RowsBySize]]:
    """(run fact, its table, its context, size -> row) for every run with a table (its
    nccl_test_table: the rows as columns, one fact a run). ``columns``: the table as :class:`Columns`."""
    by_run: dict[str, Fact] = {}
    for f in of_kind(facts, "nccl_test_table"):
        by_run.setdefault(f.run_id, f)
    ranks: dict[str, list] = defaultdict(list)
    # a run's rank lines lie together (its file's): grouped a stretch at a time, their run read in C (the rank lines:
    # their files' summaries' rows, fact_routing.yaml summary_rows)
    for run_id, stretch in groupby(records(facts, "nccl_test_rank"), _run_id):
        ranks[run_id].extend(stretch)
    gpus = of_kind(facts, "gpu_info")
    env_facts = [f for f in of_kind(facts, "nccl_env") if not f.name.startswith(_QUIET_ENV)]
    envs = {f.name: f.value for f in env_facts}
    topo = {f.connection for f in of_kind(facts, "gpu_topo_link") if f.b.startswith("GPU")}
    # (the healthy channels a process's file showed are one fact_summary listing their transports: fact_routing.yaml)
    seen = {f.transport for f in of_kind(facts, "nccl_transport")}
    seen.update(t for f in of_kind(facts, "fact_summary") if f.of_kind == "nccl_transport" for t in f.values)
    transports = {_transport_family(t) for t in seen}
    versions = [f.version for f in of_kind(facts, "nccl_version")]
    # what every run shares (the bundle's GPUs and topology): once, not per run; its NCCL settings below
    driver = next((g.driver_version for g in gpus if g.driver_version), None)
    cuda = next((g.cuda_version for g in gpus if g.cuda_version), None)
    topology = ", ".join(sorted(topo)) or (", ".join(sorted(transports)) or None)
    # without an NCCL INFO log the environment is unknown, not empty
    env = dict(sorted(envs.items())) if (envs or versions) else None
    # a run's own settings where its own lines show them (its ranks' NCCL lines, its file, its
    # command line: run_settings), else the bundle's: two runs of one bundle made with different
    # NCCL settings each show and compare their own, not the union of both
    run_facts = of_kind(facts, "nccl_test_run")
    own = {} if _one_setting(facts, env_facts) else \
        run_settings(facts, [(r, by_run[r.id]) for r in run_facts if r.id in by_run], ranks)
    out = []
    factors: dict[tuple[str, int], float | None] = {}  # (collective, nranks): a bench bundle's 5,120 runs have ~5
    row_ = store.Row
    placed_by_sizes: dict[tuple, tuple | None] = {}  # _in_order's
    for run in run_facts:
        rows = by_run.get(run.id)
        if rows is None or not run.collective or not run.nranks:
            continue
        key = (run.collective, run.nranks)
        if key not in factors:
            try:
                factors[key] = busbw_factor(run.collective, run.nranks)
            except ValueError:
                factors[key] = None
        factor = factors[key]
        if factor is None:
            continue
        sizes, oops, ips = rows.size_bytes, rows.oop_time_us, rows.ip_time_us
        placed = _in_order(sizes, oops, placed_by_sizes) if columns else None
        if placed is not None:
            # the common table: its sizes in order, every row timed; a busbw made only where compare_bundle asks
            at = dict(zip(*placed))
            table = Columns(run.collective, run.nranks, placed[0], placed[1], oops, ips, factor)
        else:
            at = {}
            shown: list[int] = []
            times: list[float] = []
            busbws: list[float] = []
            for i in sorted(range(len(sizes)), key=sizes.__getitem__):
                size = sizes[i]
                t = _best_time(oops[i], ips[i])
                if t is None:
                    continue
                if size in at:
                    continue
                shown.append(size)
                times.append(t)
                busbws.append(round(size / t / 1e3 * factor, 3))
                at[size] = i
            table = Columns(run.collective, run.nranks, shown, list(at.values()), oops, ips, factor) if columns else \
                store.Table(run.collective, run.nranks, list(map(row_, shown, times, busbws)))
        row_of = RowsBySize(rows, at)
        # its ranks' hosts and GPUs read in C (a bench bundle: 33,792 rank lines of 5,120 runs)
        mine = ranks.get(run.id, ())
        hosts = Counter(map(_host, mine))
        ctx = {
            "gpu_model": ", ".join(sorted(set(map(_gpu_name, mine)))) or None,
            "gpus_per_node": max(hosts.values(), default=None),
            "nodes": len(hosts) or None,
            "nranks": run.nranks,
            "topology": topology,
            "driver": driver,
            "cuda": cuda,
            "nccl": run.nccl_version or (versions[0] if versions else None),
            "nccl_tests": run.nccl_tests_version,
            "env": _own_env(own.get(run.id), env),
        }
        out.append((run, table, ctx, row_of))
    return out


def _process(f: Fact) -> tuple:
    """The process an NCCL line (nccl_env, nccl_version) came from: (node, pid), or its file where
    the line shows no pid."""
    return (f.node, f.pid if f.pid is not None else f.evidence.path)


def _one_setting(facts: list[Fact], env_facts: list[Fact]) -> bool:
    """Whether every process that printed its NCCL version printed the same NCCL settings (and no
    command line or job script sets any): then each run's own settings are the bundle's, and
    run_settings need not be asked run by run (1,024 bench nodes: 0.13 CPU s)."""
    if of_kind(facts, "launcher_nccl_env"):
        return False
    procs = set(map(_process, of_kind(facts, "nccl_version")))
    where: dict[str, set] = defaultdict(set)
    value: dict[str, str] = {}
    for f in env_facts:
        if value.setdefault(f.name, f.value) != f.value:
            return False
        where[f.name].add(_process(f))
    return all(w == procs for w in where.values())


def _own_env(own: tuple | None, bundle: dict | None) -> dict | None:
    """A run's NCCL settings: its own (``run_settings``: version, sorted pairs or None) where its
    own lines show them, else the bundle's (None: no NCCL INFO log, not known)."""
    if own is not None and own[1] is not None:
        return dict(own[1])
    return dict(bundle) if bundle is not None else None


#: (the run's own, by process id, or in its own file) and its command line's or job script's
_SETTING_KINDS = ("nccl_env", "nccl_version", "launcher_nccl_env")


def run_settings(facts: list[Fact], runs: list[tuple[Fact, Fact]], ranks: dict[str, list]) -> dict[str, tuple]:
    """run id -> (NCCL version or None, its NCCL settings as sorted (name, value) pairs, or None
    where no NCCL INFO line, command line or job script of the run's own shows them). A run's own:
    an NCCL line of one of its ranks' processes (node and pid: the same file or the log NCCL_DEBUG_FILE
    wrote), or a line of the run's file after the run before it and up to its last row (the last run
    of a file also takes the lines after it)."""
    setting = of_kind(facts, *_SETTING_KINDS)
    by_pid: dict[tuple[str, int], list[Fact]] = defaultdict(list)
    by_path: dict[str, list[Fact]] = defaultdict(list)
    for f in setting:
        pid = getattr(f, "pid", None)
        if pid is not None:
            by_pid[(f.node, pid)].append(f)
        by_path[f.evidence.path].append(f)
    in_file: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for run, table in runs:
        if run.evidence.path in by_path:
            in_file[run.evidence.path].append((table.lines[-1] if len(table) else run.evidence.line, run.id))
    own: dict[str, dict[str, Fact]] = defaultdict(dict)
    for path, ends in in_file.items():
        ends.sort()
        for f in by_path[path]:
            line = f.evidence.line
            # the first run of the file that ends at or after the line, else the file's last run
            run_id = next((rid for end, rid in ends if end >= line), ends[-1][1])
            own[run_id][f.id] = f
    out: dict[str, tuple] = {}
    for run, _table in runs:
        mine = own.get(run.id, {})
        # the ranks' processes, each once (nccl-tests -g 8: eight ranks, one process)
        for pid in {rk.pid for rk in ranks.get(run.id, ()) if rk.pid is not None}:
            mine.update((f.id, f) for f in by_pid.get((run.node, pid), ()))
        version = next((f.version for f in mine.values() if f.kind == "nccl_version"), None) or run.nccl_version
        env: dict[str, str] = {}
        # NCCL's own line wins over what the launcher asked for
        for f in sorted(mine.values(), key=lambda f: f.kind != "launcher_nccl_env"):
            if f.kind != "nccl_version" and not f.name.startswith(_QUIET_ENV):
                env[f.name] = f.value
        out[run.id] = (version, tuple(sorted(env.items())) if mine else None)
    return out
