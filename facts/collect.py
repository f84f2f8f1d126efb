"""``steth collect``: run the commands of knowledge/collect.yaml on this host and lay their
output out as a bundle (``<out>/<node>/<file>``) that ``steth diagnose`` reads back.

Commands run without a shell, each under its own timeout; a program that is missing, fails
or times out is recorded in ``<node>/steth-collect.json`` (never dropped silently), and the
NCCL_* / TORCH_* environment of the collector is written next to the outputs.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tarfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from stethoscope.facts import knowledge
from stethoscope.facts.knowledge import Command, CommandSet  # noqa: F401 - the schema of collect.yaml

MAX_OUTPUT_BYTES = 64 * 1024 * 1024


@dataclass
class Outcome:
    name: str
    argv: list[str]
    file: str | None
    status: str  # ok | failed | missing | timeout
    returncode: int | None
    seconds: float
    bytes: int
    note: str = ""


def load_commands(path: Path | None = None) -> CommandSet:
    """knowledge/collect.yaml, or a command list of the same schema (``--commands``)."""
    if path is None:
        return knowledge.load("collect.yaml")
    return knowledge.parse("collect.yaml", path.read_text(encoding="utf-8"), label=str(path))


def _run(argv: list[str], timeout: float) -> tuple[str, int | None, bytes, str]:
    if shutil.which(argv[0]) is None and not os.path.exists(argv[0]):
        return "missing", None, b"", f"{argv[0]} not found on PATH"
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return "timeout", None, (exc.stdout or b"")[:MAX_OUTPUT_BYTES], f"killed after {timeout:g} s"
    except OSError as exc:
        return "failed", None, b"", str(exc)
    out = proc.stdout[:MAX_OUTPUT_BYTES]
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return "failed", proc.returncode, out, (err[-1] if err else "")[:300]
    return "ok", 0, out, ""


def collect(out: Path, node: str | None = None, commands: CommandSet | None = None) -> list[Outcome]:
    """Run every command; write outputs and the manifest under ``out/<node>/``."""
    node = node or socket.gethostname().split(".")[0] or "unknown"
    folder = out / node
    folder.mkdir(parents=True, exist_ok=True)
    outcomes: list[Outcome] = []
    for cmd in (commands or load_commands()).commands:
        start = time.monotonic()
        status, rc, data, note = _run(cmd.argv, cmd.timeout)
        argv = cmd.argv
        if status in ("missing", "failed") and cmd.fallback:
            status2, rc2, data2, note2 = _run(cmd.fallback, cmd.timeout)
            if status2 == "ok" or (data2 and not data):
                status, rc, data, argv = status2, rc2, data2, cmd.fallback
                note = f"{' '.join(cmd.argv)}: {note}; used {' '.join(cmd.fallback)}" + (f" ({note2})" if note2 else "")
        written = None
        if data:
            (folder / cmd.file).write_bytes(data)
            written = cmd.file
        outcomes.append(Outcome(cmd.name, argv, written, status, rc, round(time.monotonic() - start, 3), len(data), note))
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith(("NCCL_", "TORCH_NCCL", "CUDA_VISIBLE", "UCX_", "OMPI_MCA"))}
    (folder / "steth-collect.json").write_text(json.dumps(
        {"steth_collect": 1, "node": node, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
         "environment": env, "commands": [asdict(o) for o in outcomes]}, indent=2) + "\n")
    return outcomes


def archive(folder: Path, target: Path) -> Path:
    """The bundle as one .tar.gz whose single top folder reads like the folder itself."""
    with tarfile.open(target, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return target
