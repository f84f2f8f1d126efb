#!/usr/bin/env python3
"""Probe: what does steth say of one line pasted alone? (issue 11, "read what people actually paste")

Operators paste the one line a failed distributed job printed last: torchrun's rendezvous timeout,
a store's ``Connection reset by peer``, ``ChildFailedError`` with its root-cause block, PyTorch's
``NCCL communicator was aborted``, a NaN loss, Slurm's ``CANCELLED ... DUE TO NODE FAILURE`` or
``srun: error: <node>: task 3: ...``, a shell's ``Segmentation fault (core dumped)``. Each line
(or short block) below is written alone to ``paste.txt`` in a scratch bundle and diagnosed as
``steth diagnose --from-logs DIR --format json`` would; the table shows the verdict, the top
finding's rule, cause, component and entity. A line nobody explains shows ``unexplained_error``;
a line must never come out ``healthy``.

Every line is in the form the tool prints it (its source named beside it); the numbers, hosts and
paths are placeholders, not a case's text.

    .venv/bin/python bench/probe_lines.py                        # in-process
    .venv/bin/python bench/probe_lines.py --steth .venv/bin/steth   # through the CLI (slower)
    .venv/bin/python bench/probe_lines.py --only slurm           # lines whose name holds 'slurm'

A benchmark script (it prints a table), not a test.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

# (name, text): the forms as their sources print them
LINES: list[tuple[str, str]] = [
    # torch/distributed/elastic/rendezvous/dynamic_rendezvous.py and etcd_rendezvous.py: raise RendezvousTimeoutError()
    ("torch rdzv timeout (bare)", "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"),
    # c10d TCPStore server (TCPStore.cpp waitForWorkers): "Timed out after N seconds waiting for clients. M/W clients joined."
    ("torch store waiting for clients",
     "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined."),
    # torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py: RendezvousConnectionError
    ("torch rdzv c10d connection",
     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details."),
    # etcd_rendezvous_backend.py / etcd_rendezvous.py: RendezvousConnectionError on etcd
    ("torch rdzv etcd connection",
     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to etcd has failed. See inner exception for details."),
    # c10d Utils.hpp SYSCHECK: C10_THROW_ERROR(DistNetworkError, std::strerror(errno))
    ("torch DistNetworkError reset", "torch.distributed.DistNetworkError: Connection reset by peer"),
    ("torch DistNetworkError pipe", "torch.distributed.DistNetworkError: Broken pipe"),
    # torch/distributed/elastic/multiprocessing/errors/__init__.py: ChildFailedError.format_msg
    ("torch ChildFailedError block", """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-01_10:00:00
  host      : node12
  rank      : 3 (local_rank: 3)
  exitcode  : -11 (pid: 4242)
  error_file: <N/A>
  traceback : Signal 11 (SIGSEGV) received by PID 4242
============================================================"""),
    ("torch ChildFailedError (line)", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"),
    ("torch train.py FAILED", "train.py FAILED"),
    # ProcessGroupNCCL / NCCLUtils.hpp getNcclComm: "NCCL communicator was aborted on rank " + rank + ". " [+ reason]
    ("torch NCCL comm aborted (1.x)", "RuntimeError: NCCL communicator was aborted on rank 2."),
    ("torch NCCL comm aborted (2.x)", "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 2."),
    # NaN loss, as training scripts raise it
    ("loss is nan (ValueError)", "ValueError: loss is nan"),
    ("Loss is NaN (RuntimeError)", "RuntimeError: Loss is NaN, stopping training"),
    ("nan loss", "FloatingPointError: nan loss"),
    # detectron2 engine/train_loop.py; DeepSpeed's fp16 loss scaler at its minimum
    ("detectron2 loss NaN", "FloatingPointError: Loss became infinite or NaN at iteration=27!"),
    ("fp16 loss scale at minimum", "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."),
    # torch/csrc/DataLoader.cpp: the worker's SIGBUS handler, the main process's report
    ("DataLoader shm bus error",
     "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."),
    ("DataLoader worker Bus error", "RuntimeError: DataLoader worker (pid 325) is killed by signal: Bus error."),
    # src/slurmd/slurmstepd/req.c: "*** %s ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"
    ("slurm JOB node failure",
     "slurmstepd: error: *** JOB 123 ON node12 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"),
    ("slurm JOB node failure (old)", "slurmstepd: error: *** JOB 123 ON node12 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE ***"),
    ("slurm STEP node failure",
     "slurmstepd: error: *** STEP 123.0 ON node12 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"),
    # src/srun/launch.c: "%s: %s %s: Exited with exit code %d", "%s: %s %s: %s%s" (strsignal, " (core dumped)")
    ("srun task exit code", "srun: error: node12: task 3: Exited with exit code 1"),
    ("srun task Killed", "srun: error: node12: task 3: Killed"),
    ("srun task Segfault", "srun: error: node12: task 3: Segmentation fault (core dumped)"),
    ("srun tasks Bus error", "srun: error: node12: tasks 0-7: Bus error"),
    # a shell's report of a child killed by a signal (strsignal + " (core dumped)")
    ("Segmentation fault", "Segmentation fault (core dumped)"),
    ("shell script Killed", "./train.sh: line 12: 41233 Killed                  python train.py"),
    ("Bus error", "Bus error (core dumped)"),
    ("Illegal instruction", "Illegal instruction (core dumped)"),
    ("Floating point exception", "Floating point exception (core dumped)"),
]


def diagnose_text(text: str, run) -> dict:
    with tempfile.TemporaryDirectory(prefix="tmp-probe-") as tmp:
        (Path(tmp) / "paste.txt").write_text(text + "\n", encoding="utf-8")
        return run(Path(tmp))


def top(report: dict) -> dict:
    findings = sorted(report.get("findings") or [], key=lambda f: f.get("rank", 99))
    return findings[0] if findings else {}


def entity(f: dict) -> str:
    ent = f.get("entity") or {}
    return ",".join(f"{k}={v}" for k, v in ent.items() if v not in (None, "")) or "-"


def make_runner(steth: str = ""):
    """A function diagnosing one bundle folder into the JSON report: in-process (steth's plain
    functions, the rules loaded once), or through the ``steth`` executable named."""
    if steth:
        def run(folder: Path) -> dict:
            proc = subprocess.run([steth, "diagnose", "--from-logs", str(folder), "--format", "json"],
                                  capture_output=True, text=True, timeout=300)
            return json.loads(proc.stdout) if proc.stdout.strip() else {"verdict": f"rc={proc.returncode}"}
        return run
    from stethoscope.engine.pipeline import diagnose, observe_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    ruleset = load_rules()

    def run(folder: Path) -> dict:
        rep = diagnose(observe_bundle(str(folder), 1, ruleset=ruleset), ruleset)
        return json.loads(rep.model_dump_json(exclude_none=True))
    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steth", default="", help="run this steth executable instead of in-process")
    ap.add_argument("--only", default="", help="only lines whose name holds this text")
    ap.add_argument("--json", action="store_true", help="one JSON object per line instead of the table")
    args = ap.parse_args()
    run = make_runner(args.steth)

    rows = []
    for name, text in LINES:
        if args.only and args.only.lower() not in name.lower():
            continue
        rep = diagnose_text(text, run)
        f = top(rep)
        rows.append(dict(line=name, verdict=rep.get("verdict", "?"), rule=f.get("rule", "-"),
                         cause=f.get("cause", "-"), component=f.get("component", "-"), entity=entity(f)))
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    cols = ("line", "verdict", "rule", "cause", "component", "entity")
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))
    unexplained = sum(r["cause"] == "unexplained_error" for r in rows)
    healthy = sum(r["verdict"] == "healthy" for r in rows)
    print(f"\n{len(rows)} lines: {unexplained} unexplained_error, {healthy} healthy")
    return 1 if healthy else 0


if __name__ == "__main__":
    sys.exit(main())
