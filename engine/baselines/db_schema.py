"""Schema versions of the one SQLite database of baselines and patrol history.

The version is SQLite's ``PRAGMA user_version``. A database made before versions existed
(the nccl-tests baseline tables alone) reads 0; opening it applies every migration above its
version, in order, inside one transaction, so an old database is upgraded in place and keeps
its baselines (tests/test_patrol_store.py upgrades such a file). Migrations are appended,
never edited: a database already at version N has run migrations 1..N as they were written.

    1  the nccl-tests baseline tables (engine/baselines/store.py's ``_SCHEMA``)
    2  the patrol history: runs, steps, metrics, findings, patrol baselines
    3  benchmark figures of a baseline beyond nccl-tests (gpu-burn, nvbandwidth, STREAM, fio,
       iperf3, perftest, training throughput, dcgmi diag) and whether the baseline was comparable
"""
from __future__ import annotations

import sqlite3

#: version -> SQL that brings a database from version-1 to it (1 is the base schema itself)
MIGRATIONS: dict[int, str] = {
    1: "",  # engine/baselines/store.py's tables, created (IF NOT EXISTS) before migrating
    2: """
CREATE TABLE patrol_run (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node TEXT NOT NULL,
    started_at TEXT NOT NULL,          -- UTC, ISO 8601
    seconds REAL NOT NULL,
    suite_version INTEGER NOT NULL,
    verdict TEXT NOT NULL,             -- healthy | faulty | inconclusive | unreachable
    problem INTEGER NOT NULL,          -- 0 ok, 1 problem, 2 unknown (node-problem-detector's codes)
    summary TEXT NOT NULL,
    context TEXT NOT NULL,             -- JSON: driver, CUDA, NCCL, GPU model, GPUs, topology, ...
    output_dir TEXT                    -- where the raw files of this run lie (on its node)
);
CREATE INDEX patrol_run_node ON patrol_run(node, id);
CREATE TABLE patrol_step (
    run_id INTEGER NOT NULL REFERENCES patrol_run(id) ON DELETE CASCADE,
    step TEXT NOT NULL,
    status TEXT NOT NULL,              -- ok | failed | timeout | skipped
    returncode INTEGER,
    seconds REAL NOT NULL,
    file TEXT,
    note TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
CREATE TABLE patrol_metric (
    run_id INTEGER NOT NULL REFERENCES patrol_run(id) ON DELETE CASCADE,
    step TEXT NOT NULL,
    metric TEXT NOT NULL,
    labels TEXT NOT NULL,              -- JSON object, keys sorted
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    PRIMARY KEY (run_id, metric, labels)
);
CREATE INDEX patrol_metric_name ON patrol_metric(metric, labels);
CREATE TABLE patrol_finding (
    run_id INTEGER NOT NULL REFERENCES patrol_run(id) ON DELETE CASCADE,
    rule TEXT NOT NULL,
    cause TEXT NOT NULL,
    component TEXT NOT NULL,
    severity TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE TABLE patrol_baseline (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    run_ids TEXT NOT NULL               -- JSON list of patrol_run ids (one per node)
);
CREATE INDEX patrol_baseline_name ON patrol_baseline(name, id);
""",
    3: """
ALTER TABLE baseline ADD COLUMN comparable INTEGER NOT NULL DEFAULT 1;  -- 0: busy GPUs or unpinned clocks
ALTER TABLE baseline ADD COLUMN not_comparable TEXT;                     -- why, when comparable is 0
CREATE TABLE bench_metric (
    baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
    benchmark TEXT NOT NULL,           -- gpu_burn | nvbandwidth | stream | fio | iperf3 | perftest | training | dcgm_diag
    test TEXT NOT NULL,
    entity TEXT NOT NULL,
    metric TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,       -- -1 when the figure has no size
    node TEXT NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    higher_is_better INTEGER NOT NULL,
    tool_version TEXT,
    PRIMARY KEY (baseline_id, node, benchmark, test, entity, metric, size_bytes)
);
""",
}
LATEST = max(MIGRATIONS)


def version(con: sqlite3.Connection) -> int:
    return int(con.execute("PRAGMA user_version").fetchone()[0])


def migrate(con: sqlite3.Connection, base_schema: str) -> int:
    """Create the base tables when missing, then apply the migrations above the database's
    version; returns the version it is at now. A database newer than this program is left
    alone and refused (its tables may mean something this version does not know)."""
    con.executescript(base_schema)
    current = version(con)
    if current > LATEST:
        raise sqlite3.DatabaseError(f"database schema version {current} is newer than this steth knows ({LATEST}): upgrade gpu-stethoscope")
    if current == LATEST:
        return current
    try:
        con.execute("BEGIN IMMEDIATE")
        for v in range(current + 1, LATEST + 1):
            for statement in _statements(MIGRATIONS[v]):
                con.execute(statement)
            con.execute(f"PRAGMA user_version = {v}")
        con.execute("COMMIT")
    except sqlite3.Error:
        con.execute("ROLLBACK")
        raise
    return LATEST


def _statements(script: str) -> list[str]:
    """A migration's statements (executescript would commit on its own, outside our transaction)."""
    out, buf = [], ""
    for line in script.splitlines():
        buf += line.split("--", 1)[0] + "\n"
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
