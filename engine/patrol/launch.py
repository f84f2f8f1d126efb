"""``steth patrol run --launcher ssh|pdsh|srun --hosts ...``: the site's own launcher starts
``steth patrol run --emit-record`` on every host; each prints its :class:`NodeRecord` as one
line ``STETH-PATROL-RECORD {json}``, which this side reads back whatever prefix the launcher
puts in front (pdsh's ``host: ``, ``srun --label``'s ``0: ``), stores and compares.

No launcher is written here: these functions only build the command line each launcher is
documented to take and read what comes back.

- ssh: one ``ssh -o BatchMode=yes HOST 'steth patrol run --emit-record ...'`` per host, run
  side by side (BatchMode: a host that would ask for a password fails instead of hanging).
- pdsh: ``pdsh -w HOST1,HOST2 steth patrol run --emit-record ...`` (pdsh's own fan-out).
- srun: ``srun --nodes=N --ntasks-per-node=1 --nodelist=HOSTS --label steth patrol run ...``
  (inside an allocation, or one srun makes; a Slurm host list such as ``gpu[01-04]`` is fine).

A host that printed no record is reported ``unreachable`` (unknown, exit 2) with the
launcher's last line of output, never dropped.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

from stethoscope.engine.patrol.run import NodeRecord

MARK = "STETH-PATROL-RECORD "
LAUNCHERS = ("ssh", "pdsh", "srun")
# gpu01: STETH-PATROL-RECORD {...}   /   0: STETH-PATROL-RECORD {...}
RECORD_LINE = re.compile(r"^(?:(?P<prefix>[^ ]+): )?" + re.escape(MARK) + r"(?P<json>\{.*\})\s*$")


def commands(launcher: str, hosts: list[str], remote: list[str]) -> list[list[str]]:
    """The command line(s) that start ``remote`` (an argv) on every host through ``launcher``."""
    if launcher == "ssh":
        return [["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", h, shlex.join(remote)] for h in hosts]
    if launcher == "pdsh":
        return [["pdsh", "-w", ",".join(hosts), shlex.join(remote)]]
    if launcher == "srun":
        nodes = [] if any("[" in h for h in hosts) else [f"--nodes={len(hosts)}"]  # a host list: Slurm counts
        return [["srun", *nodes, "--ntasks-per-node=1", f"--nodelist={','.join(hosts)}", "--label", *remote]]
    raise ValueError(f"unknown launcher {launcher!r} (one of {', '.join(LAUNCHERS)})")


def records_in(text: str) -> list[NodeRecord]:
    out = []
    for line in text.splitlines():
        m = RECORD_LINE.match(line.strip())
        if m is None:
            continue
        try:
            out.append(NodeRecord.from_json(json.loads(m["json"])))
        except (ValueError, TypeError, KeyError):
            continue  # a truncated record: the host is then reported unreachable with this line
    return out


def _run(argv: list[str], timeout: float) -> tuple[str, str]:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return p.stdout, p.stderr
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return out, f"{argv[0]}: killed after {timeout:g} s"
    except OSError as exc:
        return "", f"{argv[0]}: {exc.strerror or exc}"


def _short(host: str) -> str:
    return host.split("@")[-1].split(".")[0]


def run(launcher: str, hosts: list[str], remote: list[str], timeout: float) -> list[NodeRecord]:
    """Every host's record; an ``unreachable`` record for each named host that gave none."""
    cmds = commands(launcher, hosts, remote)
    with ThreadPoolExecutor(max_workers=min(32, len(cmds))) as pool:
        outputs = list(pool.map(lambda c: _run(c, timeout), cmds))
    records: list[NodeRecord] = []
    last_err = {}
    for cmd, (out, err) in zip(cmds, outputs):
        got = records_in(out)
        records.extend(got)
        tail = [ln for ln in (err or out).splitlines() if ln.strip()]
        last_err[tuple(cmd)] = tail[-1] if tail else "no output"
    seen = {r.node for r in records}
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for i, h in enumerate(hosts):
        if "[" in h or _short(h) in seen or h in seen:
            continue
        cmd = cmds[i] if launcher == "ssh" else cmds[0]
        why = last_err[tuple(cmd)]
        records.append(NodeRecord(node=_short(h), started_at=now, seconds=0.0, suite_version=0, verdict="unreachable",
                                  summary=f"unreachable: no patrol record from {h} through {launcher} ({why[:200]})",
                                  context={}))
    return records
