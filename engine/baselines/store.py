"""Recorded baselines in an embedded SQLite database (stdlib ``sqlite3``): nccl-tests tables and,
since schema version 3 (engine/baselines/db_schema.py), every other benchmark's figures (``bench_metric``)
and whether the baseline was taken on idle GPUs at pinned clocks.

A baseline is a name, a date, the context that can move bandwidth (GPU model, GPUs per node,
nodes, topology, driver, CUDA and NCCL versions, NCCL environment) and, per collective, the
table of sizes and times. Recording a name again adds a newer version of it: ``compare`` uses
the newest, ``show`` lists every version, so a baseline is tagged by what it ran on.

Default path: ``$STETH_BASELINE_DB``, else ``$XDG_DATA_HOME/gpu-stethoscope/baselines.sqlite``
(``~/.local/share/...`` when XDG_DATA_HOME is unset).
"""
from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from stethoscope.engine.baselines import db_schema

ENV_DB = "STETH_BASELINE_DB"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS baseline (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    context TEXT NOT NULL,           -- JSON object
    sources TEXT NOT NULL            -- JSON list of the files recorded
);
CREATE INDEX IF NOT EXISTS baseline_name ON baseline(name);
CREATE TABLE IF NOT EXISTS result (
    baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
    collective TEXT NOT NULL,
    nranks INTEGER NOT NULL,
    size_bytes INTEGER NOT NULL,
    time_us REAL NOT NULL,           -- best of out-of-place and in-place
    busbw REAL NOT NULL,             -- GB/s, nccl-tests' definition for this collective and nranks
    PRIMARY KEY (baseline_id, collective, size_bytes)
);
"""


class StoreError(ValueError):
    """A baseline that does not exist, or a database that cannot be used."""


@dataclass
class Row:
    size_bytes: int
    time_us: float
    busbw: float


@dataclass
class Table:
    collective: str
    nranks: int
    rows: list[Row] = field(default_factory=list)


@dataclass(frozen=True)
class Metric:
    """One benchmark figure of a baseline (a ``bench_result`` fact, engine/baselines/bench.py)."""
    node: str
    benchmark: str
    test: str
    entity: str
    metric: str
    size_bytes: int | None
    value: float
    unit: str
    higher_is_better: bool = True
    tool_version: str | None = None

    @property
    def key(self) -> tuple:
        return (self.node, self.benchmark, self.test, self.entity, self.metric, self.size_bytes)


@dataclass
class Baseline:
    name: str
    recorded_at: str
    context: dict
    sources: list[str]
    tables: dict[str, Table] = field(default_factory=dict)
    id: int | None = None
    metrics: list[Metric] = field(default_factory=list)
    comparable: bool = True
    not_comparable: str | None = None  # why, when the baseline was taken on busy GPUs or unpinned clocks

    @property
    def label(self) -> str:
        return f"{self.name} ({self.recorded_at[:10]})"

    def as_json(self) -> dict:
        return {"name": self.name, "id": self.id, "recorded_at": self.recorded_at, "context": self.context,
                "sources": self.sources, "comparable": self.comparable, "not_comparable": self.not_comparable,
                "collectives": {c: {"nranks": t.nranks, "rows": [r.__dict__ for r in t.rows]} for c, t in self.tables.items()},
                "benchmarks": [m.__dict__ for m in self.metrics]}


def default_path() -> Path:
    if os.environ.get(ENV_DB):
        return Path(os.environ[ENV_DB])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "gpu-stethoscope" / "baselines.sqlite"


def _connect(path: Path, create: bool) -> sqlite3.Connection:
    if not create and not path.exists():
        raise StoreError(f"no baseline database at {path} (record one with: steth baseline record RESULTS --name NAME)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path)
        con.execute("PRAGMA foreign_keys = ON")
        db_schema.migrate(con, _SCHEMA)  # an older database is upgraded in place
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open baseline database {path}: {exc}") from None
    return con


def record(path: Path, name: str, context: dict, sources: list[str], tables: list[Table],
           metrics: list[Metric] | None = None, not_comparable: str | None = None) -> Baseline:
    """Store a new version of ``name``: nccl-tests tables and/or other benchmark figures, with
    their context; ``not_comparable`` (busy GPUs, unpinned clocks) is kept with it, and every
    comparison with this version says so."""
    metrics = metrics or []
    if not name.strip():
        raise StoreError("a baseline needs a non-empty --name")
    if not tables and not metrics:
        raise StoreError("no benchmark results in the given files (nccl-tests tables, gpu-burn, nvbandwidth, STREAM, "
                         "fio, iperf3, perftest, training throughput or dcgmi diag)")
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with closing(_connect(path, create=True)) as con, con:
        cur = con.execute("INSERT INTO baseline(name, recorded_at, context, sources, comparable, not_comparable) VALUES (?, ?, ?, ?, ?, ?)",
                          (name, now, json.dumps(context, sort_keys=True), json.dumps(sources), int(not_comparable is None),
                           not_comparable))
        bid = cur.lastrowid
        for t in tables:
            con.executemany(
                "INSERT OR REPLACE INTO result VALUES (?, ?, ?, ?, ?, ?)",
                [(bid, t.collective, t.nranks, r.size_bytes, r.time_us, r.busbw) for r in t.rows],
            )
        con.executemany(
            "INSERT OR REPLACE INTO bench_metric VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(bid, m.benchmark, m.test, m.entity, m.metric, -1 if m.size_bytes is None else m.size_bytes, m.node,
              m.value, m.unit, int(m.higher_is_better), m.tool_version) for m in metrics])
    return load(path, name)


def load(path: Path, name: str, version: int | None = None) -> Baseline:
    """The newest record of ``name`` (or the one with id ``version``)."""
    with closing(_connect(path, create=False)) as con:
        q = "SELECT id, name, recorded_at, context, sources FROM baseline WHERE name = ?"
        args: tuple = (name,)
        if version is not None:
            q += " AND id = ?"
            args += (version,)
        row = con.execute(q + " ORDER BY id DESC LIMIT 1", args).fetchone()
        if row is None:
            known = [r[0] for r in con.execute("SELECT DISTINCT name FROM baseline ORDER BY name")]
            raise StoreError(f"no baseline named {name!r}" + (f" (known: {', '.join(known)})" if known else ""))
        comparable, why = con.execute("SELECT comparable, not_comparable FROM baseline WHERE id = ?", (row[0],)).fetchone()
        b = Baseline(name=row[1], recorded_at=row[2], context=json.loads(row[3]), sources=json.loads(row[4]), id=row[0],
                     comparable=bool(comparable), not_comparable=why)
        for coll, nranks, size, t, bw in con.execute(
            "SELECT collective, nranks, size_bytes, time_us, busbw FROM result WHERE baseline_id = ? "
            "ORDER BY collective, size_bytes", (b.id,)):
            b.tables.setdefault(coll, Table(coll, nranks)).rows.append(Row(size, t, bw))
        b.metrics = [Metric(node, bench, test, entity, metric, None if size < 0 else size, value, unit, bool(hib), tv)
                     for bench, test, entity, metric, size, node, value, unit, hib, tv in con.execute(
                         "SELECT benchmark, test, entity, metric, size_bytes, node, value, unit, higher_is_better, tool_version "
                         "FROM bench_metric WHERE baseline_id = ? ORDER BY node, benchmark, test, entity, metric, size_bytes", (b.id,))]
    return b


def versions(path: Path, name: str) -> list[dict]:
    with closing(_connect(path, create=False)) as con:
        rows = con.execute("SELECT id, recorded_at, context FROM baseline WHERE name = ? ORDER BY id", (name,)).fetchall()
    return [{"id": i, "recorded_at": at, "context": json.loads(ctx)} for i, at, ctx in rows]


def list_all(path: Path) -> list[dict]:
    """One entry per name: its newest record, how many versions, which collectives."""
    if not path.exists():
        return []
    with closing(_connect(path, create=False)) as con:
        rows = con.execute(
            "SELECT b.name, COUNT(*), MAX(b.id) FROM baseline b GROUP BY b.name ORDER BY b.name").fetchall()
        out = []
        for name, n, newest in rows:
            at, ctx = con.execute("SELECT recorded_at, context FROM baseline WHERE id = ?", (newest,)).fetchone()
            colls = [c for (c,) in con.execute("SELECT DISTINCT collective FROM result WHERE baseline_id = ? ORDER BY collective", (newest,))]
            benches = [c for (c,) in con.execute("SELECT DISTINCT benchmark FROM bench_metric WHERE baseline_id = ? ORDER BY benchmark", (newest,))]
            comparable, why = con.execute("SELECT comparable, not_comparable FROM baseline WHERE id = ?", (newest,)).fetchone()
            out.append({"name": name, "versions": n, "recorded_at": at, "collectives": colls, "benchmarks": benches,
                        "comparable": bool(comparable), "not_comparable": why, "context": json.loads(ctx)})
    return out
