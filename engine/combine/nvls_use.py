"""Did an nccl-tests run use NVLink SHARP (NVLS)? One ``nccl_nvls_use`` fact per run that
listed its ranks, from the NCCL lines of the run's own processes (same node and pid; same
file when the rank lines print no pid) and, where those say nothing, from knowledge/nvls.yaml:
NCCL's default at that release, GPU count on the node and GPU product.

The log decides first: NVLS set-up lines or a non-zero ``nvls channels`` count say it was
used, ``0 nvls channels`` or ``multicast support is not available`` that it was not; a
``NCCL_NVLS_ENABLE`` setting next; then the inference.
"""
from __future__ import annotations

import re
from collections import defaultdict
from itertools import groupby
from operator import attrgetter

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.base import as_given
from stethoscope.facts.parsers.nccl_nvls import NcclNvlsUse

_LOG_KINDS = ("nccl_version", "nccl_env", "nccl_nvls_setup", "nccl_channel_counts", "nccl_nvls_support")


def table() -> knowledge.Nvls:
    """knowledge/nvls.yaml, validated (facts/knowledge/nccl.py)."""
    return knowledge.load("nvls.yaml")


def _vt(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def min_local_gpus(version: str) -> tuple[int, bool] | None:
    """(fewest GPUs of one node for NVLS, single-node only) at this NCCL release; None before NVLS."""
    v = _vt(version)
    for e in table().nccl.min_local_gpus:
        if _vt(e.from_) <= v and (e.until is None or v < _vt(e.until)):
            return e.gpus, e.single_node
    return None


def gpu_capable(name: str | None) -> bool | None:
    if not name:
        return None
    gpus = table().gpus
    if any(re.search(e.pattern, name) for e in gpus.not_capable):
        return False
    if any(re.search(e.pattern, name) for e in gpus.capable):
        return True
    return None


def summarise(by_kind: dict[str, list[Fact]], ranks: list) -> list[Fact]:
    """``ranks``: the rank lines (facts/readings.records of nccl_test_rank: their files' summaries' rows)."""
    # a run's rank lines taken a stretch of one run at a time (a table's lines are of one run), in the same order
    ranks_of: dict[str, list] = defaultdict(list)
    for run_id, stretch in groupby(ranks, _RUN_ID):
        ranks_of[run_id].extend(stretch)
    timeouts = {f.run_id for f in by_kind.get("nccl_test_failure", []) if f.failure_type == "timeout"}
    log = [f for k in _LOG_KINDS for f in by_kind.get(k, [])]
    # indexed once: a scan of every NCCL line per run grew with runs x lines (20 s at 256 nodes)
    by_proc: dict[tuple[str, object], list[Fact]] = defaultdict(list)
    for f in log:
        by_proc[(f.node, getattr(f, "pid", None))].append(f)
    by_path = _ByPath(log)
    # by_proc's lists in file and line order, as runs ask, with the files they are of
    ordered: dict[tuple[str, object], tuple[list[Fact], set[str]]] = {}
    inferred: dict[tuple, tuple[bool | None, str, str]] = {}  # _inferred's answers (a bench bundle's 5,120 runs ask ~3)
    # _use's lines by kind, by the list _own_lines gave (a process's own, as ``ordered`` keeps it, shared by its runs)
    grouped: dict[int, tuple[list[Fact], dict[str, list[Fact]]]] = {}
    out: list[Fact] = []
    for run in by_kind.get("nccl_test_run", []):
        ranks = ranks_of.get(run.id)
        if not ranks:
            continue
        hung = (run.rows == 0 and run.status is None and not run.failed) or run.id in timeouts
        out.append(_use(run, ranks, _own_lines(run, ranks, by_proc, by_path, ordered), hung, inferred, grouped))
    return out


_RUN_ID = attrgetter("run_id")
_PROC = attrgetter("node", "pid")  # a rank line's process
_HOST = attrgetter("host")


class _ByPath(dict):
    """path -> the NCCL lines of that file, in order: indexed when a run first asks (only runs
    whose rank lines print no pid do; a bench bundle's every run is found by its processes)."""

    def __init__(self, log: list[Fact]):
        super().__init__()
        self.log: list[Fact] | None = log

    def get(self, path, default=None):
        if self.log is not None:
            for f in self.log:
                self.setdefault(f.evidence.path, []).append(f)
            self.log = None
        return super().get(path, default)


#: a line's place: its file, then its line (the sort key of _own_lines after its own file first)
_PLACE = attrgetter("evidence.path", "evidence.line")


def _own_lines(run: Fact, ranks: list[Fact], by_proc: dict, by_path: dict,
               ordered: dict | None = None) -> list[Fact]:
    """The NCCL lines of the run's own processes (node and pid), else of its file and nodes.
    ``ordered``: each process's lines sorted by place, kept across the runs of one summary (the
    runs of one process each sorted them again: a bench node's four runs share one pid)."""
    procs = set(map(_PROC, ranks))  # (the ranks' attributes taken in C: bench/speed_rS3.md, rS11)
    if len(procs) != 1 or next(iter(procs))[1] is None:
        procs = {p for p in procs if p[1] is not None}
    if len(procs) == 1 and ordered is not None:
        key = next(iter(procs))
        got = ordered.get(key)
        if got is None:
            lines = sorted(by_proc.get(key, ()), key=_PLACE)
            got = ordered[key] = (lines, {f.evidence.path for f in lines})
        lines, paths = got
        # the sort below, on lines already in place order: a stable partition, its own file first (none of them in
        # it: the lines as they are, the same list for every such run of the process: a bench run's table is a
        # file of its own, its NCCL lines in the process's log)
        path = run.evidence.path
        if path not in paths:
            return lines
        return [f for f in lines if f.evidence.path == path] + [f for f in lines if f.evidence.path != path]
    if procs:
        own = [f for key in procs for f in by_proc.get(key, ())]
    else:
        nodes = {r.node for r in ranks}
        own = [f for f in by_path.get(run.evidence.path, ()) if f.node in nodes]
    # the run's own file first: its lines are the ones to quote
    return sorted(own, key=lambda f: (f.evidence.path != run.evidence.path, f.evidence.path, f.evidence.line))


def _use(run: Fact, ranks: list[Fact], own: list[Fact], hung: bool, inferred: dict | None = None,
         grouped: dict | None = None) -> Fact:
    hosts = list(map(_HOST, ranks))
    if len(set(hosts)) == 1:
        local, nhosts = len(hosts), 1
    else:
        per_host: dict[str, int] = {}
        for h in hosts:
            per_host[h] = per_host.get(h, 0) + 1
        local, nhosts = max(per_host.values()), len(per_host)
    gpu = ranks[0].gpu_name
    hit = grouped.get(id(own)) if grouped is not None else None
    if hit is not None and hit[0] is own:
        said = hit[1]
    else:
        said = _said(own)
        if grouped is not None:
            grouped[id(own)] = (own, said)  # (the list held: no other takes its id)
    enable, told, versions = said
    version = versions[0].version if versions else run.nccl_version
    if told is not None:
        used, basis, shown, detail = told
    else:
        key = (version, local, nhosts, gpu)
        found = inferred.get(key) if inferred is not None else None
        if found is None:
            found = _inferred(*key)
            if inferred is not None:
                inferred[key] = found
        used, basis, detail = found
        shown = versions + ranks[:1]
    srcs = [run] + shown
    return as_given(  # built as a reader's facts are (bench/speed_rP7.md, rQ9)
        NcclNvlsUse, f"derived:summary:nccl_nvls_use:{run.id}", run.node, (shown[0] if shown else run).evidence,
        run_id=run.id, used=used, basis=basis, hung=hung, local_gpus=local, gpu_name=gpu, nccl_version=version,
        nvls_enable=enable, detail=detail, sources=",".join(dict.fromkeys(f.id for f in srcs)))


def _said(own: list[Fact]) -> tuple:
    """What a run's own NCCL lines say, the same for every run given the same lines (a process's runs share
    them: worked out once for them all, bench/speed_rS3.md, rS11): (NCCL_NVLS_ENABLE's value, (used, basis,
    shown, detail) where the log or the setting decides else None, the first version line as a list)."""
    by = defaultdict(list)
    for f in own:
        by[f.kind].append(f)
    t = table()
    env = [f for f in by["nccl_env"] if f.name == t.nccl.disable.name]
    enable = env[0].value.rstrip(".").strip() if env else None
    counts = [c for c in by["nccl_channel_counts"] if c.nvls is not None]
    support = by["nccl_nvls_support"]
    told = None
    if by["nccl_nvls_setup"]:
        shown = by["nccl_nvls_setup"][:1]
        told = True, "log_setup", shown, f"its NCCL log shows NVLS set-up ({shown[0].step})"
    elif any(c.nvls > 0 for c in counts):
        c = next(c for c in counts if c.nvls > 0)
        told = True, "log_channels", [c], f"its communicator set up {c.nvls} NVLS channels"
    elif counts:
        told = False, "log_channels", counts[:1], "its communicators set up 0 NVLS channels"
    elif support:
        s = next((s for s in support if s.available), support[0])
        detail = "NCCL found multicast (NVLS) support on its GPU" if s.available else "its GPU offers no multicast (NVLS)"
        told = s.available, "log_support", [s], detail
    elif enable is not None and enable in t.nccl.disable.values:
        told = False, "setting", env[:1], f"NCCL_NVLS_ENABLE={enable}"
    elif enable == "1":
        told = True, "setting", env[:1], "NCCL_NVLS_ENABLE=1 forces NVLS"
    return enable, told, by["nccl_version"][:1]


def _inferred(version: str | None, local: int, hosts: int, gpu: str | None) -> tuple[bool | None, str, str]:
    if version is None:
        return None, "unknown", "no NCCL version in the bundle: whether NVLS was used is not known"
    need = min_local_gpus(version)
    if need is None:
        return False, "nccl_too_old", f"NCCL {version} predates NVLS ({table().nccl.first_version})"
    gpus, single_node = need
    if local < gpus or (single_node and hosts > 1):
        return False, "too_few_gpus", f"NCCL {version} uses NVLS with {gpus} or more GPUs of one node; this run had {local}"
    capable = gpu_capable(gpu)
    if capable is False:
        return False, "gpu_not_capable", f"{gpu} has no NVSwitch multicast"
    if capable is None:
        return None, "unknown", f"whether {gpu or 'this GPU'} offers NVLS multicast is not known"
    return True, "gpu_model", (f"NCCL {version} uses NVLS by default with {local} {gpu} GPUs of one node on an "
                               "NVSwitch board (the log does not say; NCCL_NVLS_ENABLE=0 tells)")
