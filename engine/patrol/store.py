"""The patrol history in the baseline database (engine/baselines/store.py's file, schema version 2
of engine/baselines/db_schema.py): every run of every node with its context, steps, metrics and findings;
patrol baselines (a named set of runs, one per node); the comparison of a run with one.

A metric is compared when its spec in knowledge/patrol.yaml has a ``tolerance``: with the same
node's value in the baseline when the baseline has that node, else with the median of the
baseline's nodes (a baseline recorded on healthy nodes of one model serves the others). A
changed context (driver, CUDA, NCCL, GPU model, topology) is named next to every comparison:
the numbers are still compared, and the operator sees why they may have moved.
"""
from __future__ import annotations

import json
import statistics
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from stethoscope.engine.baselines import store as baseline_store
from stethoscope.engine.baselines.store import StoreError
from stethoscope.engine.patrol.run import Metric, NodeRecord, StepOutcome
from stethoscope.facts.knowledge import PatrolSuite

CONTEXT_KEYS = ("gpu_model", "gpus", "driver", "cuda_runtime", "nccl", "torch", "topology", "hca_firmware", "kernel",
                "cpu_model", "sockets", "cpus", "numa_nodes")


def _connect(db: Path, create: bool = True):
    return baseline_store._connect(db, create=create)


def store(db: Path, record: NodeRecord) -> int:
    with closing(_connect(db)) as con, con:
        cur = con.execute(
            "INSERT INTO patrol_run(node, started_at, seconds, suite_version, verdict, problem, summary, context, output_dir)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.node, record.started_at, record.seconds, record.suite_version, record.verdict, record.problem,
             record.summary, json.dumps(record.context, sort_keys=True), record.output_dir))
        rid = int(cur.lastrowid)
        con.executemany("INSERT INTO patrol_step VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(rid, s.step, s.status, s.returncode, s.seconds, s.file, s.note) for s in record.steps])
        con.executemany("INSERT OR REPLACE INTO patrol_metric VALUES (?, ?, ?, ?, ?, ?)",
                        [(rid, m.step, m.metric, m.key[1], m.value, m.unit) for m in record.metrics])
        con.executemany("INSERT INTO patrol_finding VALUES (?, ?, ?, ?, ?, ?)",
                        [(rid, f["rule"], f["cause"], f["component"], f["severity"], f["summary"]) for f in record.findings])
    record.run_id = rid
    return rid


def load_run(db: Path, run_id: int) -> NodeRecord:
    with closing(_connect(db, create=False)) as con:
        row = con.execute("SELECT node, started_at, seconds, suite_version, verdict, summary, context, output_dir"
                          " FROM patrol_run WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no patrol run {run_id} in {db}")
        steps = [StepOutcome(*r) for r in con.execute(
            "SELECT step, status, returncode, seconds, file, note FROM patrol_step WHERE run_id = ? ORDER BY rowid", (run_id,))]
        metrics = [Metric(step, metric, json.loads(labels), value, unit) for step, metric, labels, value, unit in con.execute(
            "SELECT step, metric, labels, value, unit FROM patrol_metric WHERE run_id = ? ORDER BY metric, labels", (run_id,))]
        findings = [dict(zip(("rule", "cause", "component", "severity", "summary"), r)) for r in con.execute(
            "SELECT rule, cause, component, severity, summary FROM patrol_finding WHERE run_id = ?", (run_id,))]
    return NodeRecord(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]), steps, metrics, findings,
                      row[7], run_id)


def runs(db: Path, node: str | None = None, last: int | None = None) -> list[dict]:
    """Runs, oldest first (the newest ``last`` of them)."""
    q = "SELECT id, node, started_at, seconds, verdict, problem, summary FROM patrol_run"
    args: tuple = ()
    if node:
        q += " WHERE node = ?"
        args = (node,)
    with closing(_connect(db, create=False)) as con:
        rows = con.execute(q + " ORDER BY id DESC" + (f" LIMIT {int(last)}" if last else ""), args).fetchall()
    keys = ("id", "node", "started_at", "seconds", "verdict", "problem", "summary")
    return [dict(zip(keys, r)) for r in reversed(rows)]


def trend(db: Path, node: str | None = None, metric: str | None = None, last: int | None = None) -> dict:
    """Per (node, metric, labels): the values of the selected runs in run order, and the runs."""
    rs = runs(db, node, last)
    ids = [r["id"] for r in rs]
    series: dict[tuple[str, str, str], dict[int, float]] = {}
    units: dict[str, str] = {}
    if ids:
        marks = ",".join("?" * len(ids))
        q = (f"SELECT r.node, m.metric, m.labels, m.run_id, m.value, m.unit FROM patrol_metric m JOIN patrol_run r"
             f" ON r.id = m.run_id WHERE m.run_id IN ({marks})")
        args: tuple = tuple(ids)
        if metric:
            q += " AND m.metric = ?"
            args += (metric,)
        with closing(_connect(db, create=False)) as con:
            for n, name, labels, rid, value, unit in con.execute(q + " ORDER BY r.node, m.metric, m.labels, m.run_id", args):
                series.setdefault((n, name, labels), {})[rid] = value
                units[name] = unit
    return {"runs": rs, "series": [{"node": n, "metric": name, "labels": json.loads(labels), "unit": units[name],
                                    "values": vals} for (n, name, labels), vals in sorted(series.items())]}


def record_baseline(db: Path, name: str, run_ids: list[int] | None = None) -> dict:
    """A named patrol baseline: the given runs, else the newest run of every node."""
    if not name.strip():
        raise StoreError("a patrol baseline needs a non-empty --name")
    with closing(_connect(db, create=False)) as con, con:
        if not run_ids:
            run_ids = [r for (r,) in con.execute("SELECT MAX(id) FROM patrol_run GROUP BY node ORDER BY node")]
        if not run_ids:
            raise StoreError(f"no patrol runs in {db} to record as a baseline (run: steth patrol run)")
        known = {r for (r,) in con.execute(f"SELECT id FROM patrol_run WHERE id IN ({','.join('?' * len(run_ids))})", run_ids)}
        missing = [r for r in run_ids if r not in known]
        if missing:
            raise StoreError(f"no patrol run(s) {missing} in {db}")
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        cur = con.execute("INSERT INTO patrol_baseline(name, recorded_at, run_ids) VALUES (?, ?, ?)",
                          (name, now, json.dumps(sorted(run_ids))))
        return {"id": cur.lastrowid, "name": name, "recorded_at": now, "run_ids": sorted(run_ids)}


def load_baseline(db: Path, name: str) -> tuple[dict, list[NodeRecord]] | None:
    """The newest baseline of that name and its runs; None when there is none."""
    if not db.exists():
        return None
    with closing(_connect(db, create=False)) as con:
        row = con.execute("SELECT id, name, recorded_at, run_ids FROM patrol_baseline WHERE name = ? ORDER BY id DESC LIMIT 1",
                          (name,)).fetchone()
    if row is None:
        return None
    meta = {"id": row[0], "name": row[1], "recorded_at": row[2], "run_ids": json.loads(row[3])}
    return meta, [load_run(db, r) for r in meta["run_ids"]]


@dataclass
class Comparison:
    node: str
    metric: str
    labels: dict
    unit: str
    value: float
    reference: float
    reference_from: str  # "run 3 of node vm" | "median of 4 nodes"
    ratio: float | None
    tolerance: float
    better: str
    below: bool  # worse than the baseline by more than the tolerance
    context_changes: str

    def as_json(self) -> dict:
        return self.__dict__.copy()


def context_changes(old: dict, new: dict) -> str:
    diffs = [f"{k} {old.get(k)} -> {new.get(k)}" for k in CONTEXT_KEYS if old.get(k) != new.get(k) and (old.get(k) or new.get(k))]
    return "; ".join(diffs) or "none"


def compare(record: NodeRecord, baseline: list[NodeRecord], suite: PatrolSuite) -> list[Comparison]:
    specs = {m.name: m for s in suite.steps for m in s.metrics if m.tolerance is not None}
    same = next((b for b in baseline if b.node == record.node), None)
    ctx_ref = same or (baseline[0] if baseline else None)
    changes = context_changes(ctx_ref.context, record.context) if ctx_ref else "none"
    out = []
    for m in record.metrics:
        spec = specs.get(m.metric)
        if spec is None:
            continue
        if same is not None:
            ref = next((b.value for b in same.metrics if b.key == m.key), None)
            where = f"run {same.run_id} of {same.node}"
        else:
            vals = [b.value for r in baseline for b in r.metrics if b.key == m.key]
            ref = statistics.median(vals) if vals else None
            where = f"median of {len(vals)} node(s)"
        if ref is None:
            continue
        ratio = round(m.value / ref, 4) if ref else None
        if spec.better == "higher":
            below = m.value < ref * (1 - spec.tolerance)
        else:
            below = m.value > ref * (1 + spec.tolerance)
        out.append(Comparison(record.node, m.metric, m.labels, m.unit, m.value, ref, where, ratio, spec.tolerance,
                              spec.better, below, changes))
    return out
