"""NCCL across ranks, processes and runs: the summarisers that look at many NCCL facts at once.
Each is one step of engine/pipeline.py's COMBINERS (in that order) and emits kinds of
:mod:`stethoscope.facts.kinds.nccl`, each citing the facts it summarises in
``sources``:

- ``nccl_version_set``, ``nccl_net_plugin_set``, ``nccl_bootstrap_subnet_set``: what the
  processes of the bundle chose, one fact each, so a rule can ask "do they differ";
- ``torch_straggler_candidate``: the rank(s) that never reached the collective the others
  time out in (PyTorch's desync report, else the last enqueued sequence numbers of the
  watchdog lines or the flight-recorder dumps, else the ranks of the job that printed nothing
  while others timed out); with dumps and no watchdog line, a collective the dumps show
  started and not finished stands for the timeout;
- ``torch_fr_culprit``: the rank PyTorch's flight-recorder analyser names, on the host NCCL's
  Init lines (or torchrun's failures table) put it, where the bundle maps it;
- ``nccl_tests_independent_runs``: nccl-tests processes that each ran as a one-process job;
- ``nccl_gpu_shared``: ranks of one communicator on one GPU;
- ``nccl_slow_path_setting`` from ``knowledge/nccl_env.yaml``.

The known bugs of ``knowledge/nccl_known_issues.yaml`` are engine/combine/nccl_known_issues.py's
facts, joined by rules.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, NamedTuple

from stethoscope.facts import knowledge as _knowledge
from stethoscope.facts.model import Evidence, Fact
from stethoscope.facts.readings import Reading, readings, records
from stethoscope.facts.kinds.nccl import (
    NcclBootstrapSubnetSet,
    NcclGpuShared,
    NcclNetPluginSet,
    NcclSlowPathSetting,
    NcclTestsIndependentRuns,
    NcclVersionSet,
    TorchFrCulprit,
    TorchStragglerCandidate,
)


def knowledge(name: str):
    """A knowledge file validated by its schema (facts/knowledge/)."""
    return _knowledge.load(name)


def _make(cls, shown: Fact, sources: Iterable[Fact], key: str, node: str | None = None, **fields) -> Fact:
    ids = ",".join(dict.fromkeys(f.id for f in sources))
    return cls(id=f"derived:summary:{cls.model_fields['kind'].default}:{key}", node=node or shown.node,
               evidence=shown.evidence, sources=ids, **fields)


def version_set(versions: list[Fact]) -> list[Fact]:
    if not versions:
        return []
    per: dict[str, list[Fact]] = defaultdict(list)
    for v in versions:
        per[v.version].append(v)
    # one line per version is enough evidence: the first process that printed it
    shown = [fs[0] for fs in per.values()]
    detail = "; ".join(f"{', '.join(sorted({f.node for f in fs}))}: {ver}" for ver, fs in sorted(per.items()))
    return [_make(NcclVersionSet, shown[0], shown, "job", node="job", distinct=len(per),
                  versions=", ".join(sorted(per)), detail=detail)]


def _library_path(name: str | None) -> bool:
    """A plugin named by its library's path (the RDMA/SHARP plugin's own ``Plugin Path : %s``
    line), not by the name NCCL prints (``Loaded net plugin NCCL RDMA Plugin v8``)."""
    return bool(name) and "/" in name


class _PluginEvent(NamedTuple):
    """A plugin event as plugin_set reads it (a nccl_net_plugin's fields, its id and evidence). Its id and evidence
    are made when asked, of the reading it is: plugin_set cites a few events, and making them for every event (a
    1,024-node bench bundle's ~50k, nearly all a summary's rows) cost more than the rest of plugin_set."""
    node: str
    pid: int | None
    event: str
    name: str | None
    reading: Reading

    @property
    def id(self) -> str:
        return self.reading.id

    @property
    def evidence(self) -> Evidence:
        return self.reading.evidence


def plugin_events(facts) -> list[_PluginEvent]:
    """Every nccl_net_plugin event in the order read: the kept facts' and the rows of their files' summaries
    (knowledge/fact_routing.yaml summary_rows: pid, event, name)."""
    return [_PluginEvent(r.of.node, *r.values, r) for r in readings(facts, "nccl_net_plugin")]


def plugin_set(plugins: list) -> list[Fact]:
    """The plugin each process loaded, or searched for and did not find (``plugins``: nccl_net_plugin facts, or
    plugin_events' readings of them)."""
    # per process: the external plugin it loaded ("loaded" events name it), else none; NCCL's
    # name of the plugin before the library path the plugin prints of itself
    loaded: dict[tuple, Fact] = {}
    searched: dict[tuple, Fact] = {}
    for p in plugins:
        key = (p.node, p.pid)
        if p.event == "loaded" and p.name not in ("Socket", "IB"):  # internal transports
            if key not in loaded or (_library_path(loaded[key].name) and not _library_path(p.name)):
                loaded[key] = p
        elif p.event == "not_found":
            searched.setdefault(key, p)
    if not loaded:
        return []
    procs = sorted(set(loaded) | set(searched), key=lambda k: (k[0], k[1] if k[1] is not None else -1))
    names: dict[str, list[Fact]] = defaultdict(list)
    for key in procs:
        f = loaded.get(key) or searched[key]
        names[f.name if key in loaded else "none"].append(f)
    missing = len(names.get("none", []))
    # a process known only by its plugin's library path may be the same plugin NCCL named for
    # another (older NCCL releases print no "Loaded net plugin" line): paths count as different
    # plugins only among themselves
    named = [n for n in names if n != "none" and not _library_path(n)]
    distinct = len(named) or len([n for n in names if _library_path(n)])
    text = "; ".join(f"{n} ({', '.join(sorted({f.node for f in fs}))})" for n, fs in sorted(names.items()))
    shown = [min(fs, key=lambda f: (f.evidence.path, f.evidence.line)) for _, fs in sorted(names.items())]
    return [_make(NcclNetPluginSet, shown[0], shown, "job", node="job", distinct=distinct,
                  missing=missing, missing_nodes=", ".join(sorted({f.node for f in names.get("none", [])})),
                  plugins=text)]


def subnet_set(ifaces: list[Fact]) -> list[Fact]:
    per_node: dict[str, Fact] = {}
    for i in ifaces:
        if i.address and i.address.count(".") == 3 and not i.address.startswith("127."):
            per_node.setdefault(i.node, i)
    if len(per_node) < 2:
        return []
    subnets = {".".join(f.address.split(".")[:3]) for f in per_node.values()}
    names = {f.interface for f in per_node.values()}
    text = "; ".join(f"{n} {f.interface} {f.address}" for n, f in sorted(per_node.items()))
    shown = list(per_node.values())
    return [_make(NcclBootstrapSubnetSet, shown[0], shown, "job", node="job", distinct=len(subnets),
                  interface_names=len(names), interfaces=text)]


def stragglers(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    """Ranks that never reached the collective that timed out elsewhere."""
    timeouts = by_kind.get("torch_watchdog_timeout", [])
    if not timeouts:
        # flight-recorder dumps alone: the collectives some ranks started and never finished
        # stand for the timeout (torch_fr_entry has rank, seq_num, pg and op_type as the watchdog's)
        timeouts = [e for e in by_kind.get("torch_fr_entry", []) if e.state in ("scheduled", "started") and not e.is_p2p]
    timeouts = [t for t in timeouts if t.seq_num is not None]  # PyTorch 1.8-1.10's WorkNCCL prints no SeqNum
    if not timeouts:
        return []
    progress = by_kind.get("torch_nccl_progress", [])
    desync = by_kind.get("torch_collective_desync", [])
    waiting = {t.rank for t in timeouts}
    first = min(timeouts, key=lambda t: (t.seq_num, t.rank))
    seq = max(t.seq_num for t in timeouts if (t.pg or "0") == (first.pg or "0"))
    where = _rank_places(by_kind)
    out: list[Fact] = []

    def add(rank: int, basis: str, sources: list[Fact], enq: int | None) -> None:
        host, gpu, place = where.get(rank, (None, None, None))
        fields = dict(rank=rank, basis=basis, timeout_seq=seq, last_enqueued_seq=enq, op_type=first.op_type,
                      waiting_ranks=", ".join(map(str, sorted(waiting))), host=host, gpu=gpu)
        srcs = [first, *sources] + ([place] if place else [])
        out.append(_make(TorchStragglerCandidate, sources[0] if sources else first, srcs, f"{rank}",
                         node=host or (sources[0].node if sources else first.node), **fields))

    mine = [p for p in progress if (p.pg or "0") == (first.pg or "0") and p.last_enqueued_seq is not None]
    lagging = [d for d in desync if d.state in ("never_joined", "finished_not_joined_next")]
    for rank in sorted({d.lagging_rank for d in lagging}):
        d = next(d for d in lagging if d.lagging_rank == rank)
        # its own reports that agree (the watchdog's "Last enqueued NCCL work: 3", its
        # flight-recorder dump) are cited with the verdict
        agree = [p for p in mine if p.rank == rank and p.last_enqueued_seq < seq]
        # "finished collective #3, but didn't join #4": 3 is the last work it got to
        add(rank, "desync_report", [d, *agree], d.collective_seq if d.state == "finished_not_joined_next" else None)
    if out:
        return out
    # the latest report of each rank in the timed-out group
    last: dict[int, Fact] = {}
    for p in mine:
        if p.rank not in last or p.last_enqueued_seq > last[p.rank].last_enqueued_seq:
            last[p.rank] = p
    behind = {r: p for r, p in last.items() if p.last_enqueued_seq < seq and r not in waiting}
    if behind:
        low = min(p.last_enqueued_seq for p in behind.values())
        for rank, p in sorted(behind.items()):
            if p.last_enqueued_seq == low:
                add(rank, "lowest_enqueued", [p], p.last_enqueued_seq)
        return out
    # no report at all from a rank the job has, while the others waited
    world = max((r.nranks for r in by_kind.get("nccl_rank", [])), default=0)
    silent = [r for r in range(world) if r not in waiting and r not in last]
    if silent and len(silent) < world:
        for rank in silent:
            add(rank, "no_progress", [], None)
    return out


def _rank_places(by_kind: dict[str, list[Fact]]) -> dict[int, tuple[str | None, str | None, Fact | None]]:
    """Global rank -> (host, GPU bus id, the fact that says so): NCCL's Init line of the
    largest communicator (the default group) wins, torchrun's failures table gives the host."""
    ranks = by_kind.get("nccl_rank", [])
    world = max((r.nranks for r in ranks), default=0)
    out: dict[int, tuple[str | None, str | None, Fact | None]] = {}
    for r in ranks:
        if r.nranks == world and r.rank not in out:
            out[r.rank] = (r.node, r.bus_id, r)
    for w in by_kind.get("torch_worker_failed", []):
        if w.rank is not None and w.rank not in out:
            out[w.rank] = (w.node, None, w)
    return out


#: the analyser's verdicts that name a rank to look at (undecided and no-error reports name none)
_FR_NAMING = ("ranks_missing", "mismatch", "io_mismatch")


def fr_culprits(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    """The rank each flight-recorder analysis names, placed as the desync report's straggler is
    (_rank_places: the global rank of the largest communicator's Init line, else torchrun's
    failures table). Unmapped, host stays None: the analyser's file says where it ran, not where
    the rank ran, and no host is guessed."""
    analyses = [a for a in by_kind.get("torch_fr_analysis", []) if a.issue in _FR_NAMING and a.first_rank is not None]
    if not analyses:
        return []
    where = _rank_places(by_kind)
    out: list[Fact] = []
    for a in analyses:
        host, gpu, place = where.get(a.first_rank, (None, None, None))
        srcs = [a] + ([place] if place else [])
        out.append(_make(TorchFrCulprit, a, srcs, f"{a.id}", node=host or a.node, issue=a.issue, rank=a.first_rank,
                         ranks=a.ranks, seq_num=a.seq_num, pg=a.pg, op_type=a.op_type, error_type=a.error_type,
                         state=a.state, host=host, gpu=gpu, placed_by=place.kind if place else None))
    return out


def independent_runs(runs: list[Fact], facts, tables: list[Fact]) -> list[Fact]:
    """Runs of one file with the same settings that each list only their own process's GPUs
    and either stack their headers before any table or put rank 0 on different hosts. ``facts``: where their rank
    lines are read (facts/readings.records: their files' summaries' rows), where some file has two runs."""
    groups: dict[tuple, list[Fact]] = defaultdict(list)
    for run in runs:
        groups[(run.evidence.path, run.collective, run.n_gpus, run.min_bytes, run.max_bytes, run.iters)].append(run)
    several = [(key, grp) for key, grp in groups.items() if len(grp) >= 2]
    if not several:  # one run per file and settings (a fleet's nccl-tests files): no pass over its ranks and rows
        return []
    ranks = records(facts, "nccl_test_rank")
    rank0 = {r.run_id: r for r in ranks if r.rank == 0}
    listed: dict[str, list[int]] = defaultdict(list)
    for r in ranks:
        listed[r.run_id].append(r.rank)
    first_row: dict[str, int] = {}
    for t in tables:
        first_row[t.run_id] = min(first_row.get(t.run_id, t.lines[0]), *t.lines)
    out: list[Fact] = []
    for key, grp in several:
        grp.sort(key=lambda r: r.evidence.line)
        hosts = {rank0[r.id].host for r in grp if r.id in rank0}
        stacked = any(a.rows == 0 and a.status is None and a.nranks <= (a.n_gpus or 1) * (a.n_threads or 1)
                      and (first_row.get(b.id) is None or b.evidence.line < first_row[b.id])
                      for a, b in zip(grp, grp[1:]))
        if len(hosts) < 2 and not stacked:
            continue
        if any(r.nranks > (r.n_gpus or 1) * (r.n_threads or 1) and len(set(listed[r.id])) == len(listed[r.id])
               for r in grp):
            continue  # a run that lists other processes' ranks was launched as one job (a rank number twice: it was not)
        srcs = grp + [rank0[r.id] for r in grp if r.id in rank0]
        out.append(_make(NcclTestsIndependentRuns, grp[0], srcs, f"{key[0]}:{grp[0].evidence.line}",
                         collective=grp[0].collective, runs=len(grp), hosts=", ".join(sorted(hosts)) or "unknown"))
    return out


def slow_path(envs: list[Fact]) -> list[Fact]:
    table = knowledge("nccl_env.yaml").settings
    out: list[Fact] = []
    seen: set[tuple] = set()
    for e in envs:
        entry = table.get(e.name)
        if entry is None:
            continue
        slow = [str(v).lower() for v in entry.slow_values]
        if "*" not in slow and e.value.strip().lower() not in slow:
            continue
        key = (e.node, e.name, e.value)
        if key in seen:
            continue
        seen.add(key)
        out.append(_make(NcclSlowPathSetting, e, [e], f"{e.node}:{e.name}:{e.value}", name=e.name,
                         value=e.value, effect=entry.effect, own_rule=entry.own_rule))
    return out


def gpu_shared(warns: list[Fact], ranks: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    warned: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for w in warns:
        warned[(w.node, w.bus_id)].append(w)
    for (node, bus), ws in sorted(warned.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        who = sorted({r for w in ws for r in (w.rank, w.other_rank)})
        out.append(_make(NcclGpuShared, ws[0], ws, f"{node}:{bus}", bus_id=bus, ranks=", ".join(map(str, who)),
                         basis="nccl_warning"))
    # without the warning (a log cut short, an NCCL that did not check): Init lines of one
    # communicator (same commId) that put different ranks on one node's GPU
    by_gpu: dict[tuple[str, str, str], dict[int, Fact]] = defaultdict(dict)
    for r in ranks:
        if r.comm_id and (r.node, r.bus_id) not in warned:
            by_gpu[(r.comm_id, r.node, r.bus_id)].setdefault(r.rank, r)
    # (only the GPUs two ranks share are sorted: one a rank's GPU per communicator, ~20k at 512 bench nodes)
    for (comm, node, bus), per_rank in sorted((k, v) for k, v in by_gpu.items() if len(v) > 1):
        if len(per_rank) > 1:
            fs = [per_rank[k] for k in sorted(per_rank)]
            out.append(_make(NcclGpuShared, fs[0], fs, f"{comm}:{node}:{bus}", bus_id=bus,
                             ranks=", ".join(map(str, sorted(per_rank))), basis="init_lines"))
    return out
