"""NCCL's RAS status report: what ``ncclras`` (or a client of NCCL's RAS port, 28028 by default)
prints about a running NCCL job, NCCL 2.24 and later (src/ras/client_support.cc; its user guide,
docs/userguide/source/troubleshooting/ras.rst). A report is a job summary, a table of the job's
communicators with their status, then an ``Errors`` and a ``Warnings`` section whose entries say
which job processes RAS considers dead or could not get data from, which communicators miss ranks
or have ranks that report errors, and where ranks disagree.

Sample output (real: the report pasted in NVIDIA/nccl issue 1730, NCCL 2.26.2, and the excerpts of
NCCL's user guide, ras.rst, fixtures/artefacts/nccl_ras/)::

    Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
        #  in group  per comm  per node  per comm  in group
        0         1        32         8       256       256   RUNNING      OK
                                                                           (nccl issue 1730)
    Errors
    ======

    DEAD
      1 job process is considered dead (unreachable via the RAS network)
      Process 3487984 on node 172.16.64.213 managing GPU 5

    #0-0 (cf264af53edbe986) INCOMPLETE
      Missing communicator data from 1 rank
      The missing rank: 21
                                                                           (ras.rst)
    #0-0 (27a079b828ff1a75) MISMATCH
      Communicator ranks have different collective operation counts
      26 ranks have launched up to operation 6650
      6 ranks have launched up to operation 6649
      Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210    (ras.rst)

Entry heads and lines (client_support.cc, 2.24 to 2.30): ``DEAD`` / ``  %d job process%s considered
dead (unreachable via the RAS network)`` ("es are" / " is"); ``INCOMPLETE`` / ``  Missing
communicator data from %d job process%s``; ``TIMEOUT`` / ``  Encountered %d communication
timeout%s while gathering communicator data``; ``#%d-%d (%016lx) INCOMPLETE|ERROR|MISMATCH`` with
``  Missing communicator data from %d rank%s``, ``  Initialization|Asynchronous error%s on %d
rank%s``, ``  %d ranks reported %s`` (ncclGetErrorString), ``  Communicator ranks have different
status`` / ``different %s operation counts`` (2.26+: per collective; before: ``collective``),
``  %d ranks have status %s`` / ``have launched up to operation %ld``; the named ones as
``  Process %d on node %s managing GPU%s %s``, ``  Rank %d[ has ...| reported %s] -- GPU %s managed
by process %d on node %s`` or ``-- [process information not found]``, and the user guide's older
``  The missing rank: 21``.

``ncclras -m`` (monitor mode, NCCL 2.29+) prints one line an event, ``[%s] %s: %s %s`` (time, event
type, the peer as rasPeerInfoToString writes it, details; client_support.cc rasClientsNotifyEvent);
the user guide's sample and the dead-peer events of src/ras/peers.cc and rasnet.cc::

    [2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1     (ras.rst)
    [...] PEER_TIMEOUT_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1 peer failed to respond for 61s, declaring dead   (rasnet.cc, filled)

``ncclras -f json`` (NCCL 2.28.7+) prints the raw data instead: per communicator its ranks' ``status``
(``init_state``, ``async_error``: ncclResult_t values, 0 success, 7 in progress) and its
``missing_ranks`` (``unresponsive``, ``considered_dead``); the user guide's sample::

    "missing_ranks_count": 1,
    ...   "host": "172.16.64.245", "pid": 1524345, ... "status": {"unresponsive": true, "considered_dead": false}

read as the text report's entries are (a communicator's dead or missing ranks, its ranks in error).

Facts: ``nccl_version`` from the text report's first line (``NCCL version 2.27.3 compiled with CUDA
12.9``: the NCCL of the process that answered, which knowledge/nccl_known_issues.yaml's RAS entries
need); ``nccl_ras_issue`` per entry that reports a fault (a process dead or unresponsive, a
communicator missing ranks or with ranks in error) and ``nccl_ras_disagreement`` per entry that is
one only if it lasts (MISMATCH, which the user guide calls normal while a job runs or tears down
unless repeated queries show no change; TIMEOUT), each with the communicator and its hash, the
count, the entry's first line, the ranks, processes and nodes it names and what the ranks
reported. A report with no entry (every communicator OK) makes no fact: a snapshot, not a verdict
(NVIDIA/nccl issue 1730: RAS said OK while PyTorch's watchdog timed out).
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.kinds.nccl import NcclRasDisagreement, NcclRasIssue, NcclVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "nccl_ras"

# The text report's first line: the NCCL library of the process that answered (client_support.cc, 2.24 to 2.30:
# "NCCL version " STR(NCCL_MAJOR) "." STR(NCCL_MINOR) "." STR(NCCL_PATCH) NCCL_SUFFIX " compiled with CUDA " ...):
# NCCL version 2.27.3 compiled with CUDA 12.9        (NVIDIA/nccl#1762)
_VERSION = re.compile(r"^NCCL version (?P<version>\d{1,3}\.\d{1,3}\.\d{1,3})[\w.+-]{0,32} compiled with CUDA (?P<cuda>\d{1,3}\.\d{1,3})[ \t\r]*$",
                      re.M)
# Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
_TABLE = "Group     Comms     Nodes     Ranks"
# DEAD / INCOMPLETE / TIMEOUT (a job-level entry: the head alone on its line)
_JOB_HEAD = re.compile(r"^[ \t]*(?P<head>DEAD|INCOMPLETE|TIMEOUT)[ \t\r]*$")
# #0-0 (cf264af53edbe986) INCOMPLETE       #0-0 (fa93daea854b060b) MISMATCH       #1-3 (9e17999afaa87dbb) ERROR
_COMM_HEAD = re.compile(r"(?m)^[ \t]*#(?P<comm>\d{1,6}-\d{1,9}) \((?P<hash>[0-9a-f]{1,16})\) (?P<head>INCOMPLETE|ERROR|MISMATCH)[ \t\r]*$")
#   1 job process is considered dead (unreachable via the RAS network)     2 job processes are considered dead (...)
_DEAD = re.compile(r"^[ \t]+(?P<n>\d{1,9}) job process(?:es are| is) considered dead")
#   Missing communicator data from 1 job process      Missing communicator data from 3 ranks
_MISSING = re.compile(r"^[ \t]+Missing communicator data from (?P<n>\d{1,9}) (?P<what>job process|rank)")
#   Encountered 2 communication timeouts while gathering communicator data
_TIMEOUT = re.compile(r"^[ \t]+Encountered (?P<n>\d{1,9}) communication timeouts? while gathering")
#   Asynchronous errors on 2 ranks       Initialization error on 1 rank
_ERRORS_ON = re.compile(r"^[ \t]+(?:Initialization|Asynchronous) errors? on (?P<n>\d{1,9}) ranks?")
#   2 ranks reported remote process exited or there was a network error
_REPORTED = re.compile(r"^[ \t]+\d{1,9} ranks reported (?P<err>[^\n]{1,120}?)[ \t\r]*$")
#   Rank 7 reported unhandled system error -- GPU 7 managed by process 4242 on node 10.0.0.2
_RANK_REPORTED = re.compile(r"^[ \t]+Rank \d{1,9} reported (?P<err>[^\n]{1,120}?) -- ")
#   Communicator ranks have different AllGather operation counts     ... different status
_DIFFERENT = re.compile(r"^[ \t]+Communicator ranks have different (?P<what>status|\w{1,24} operation counts)")
#   Process 3487984 on node 172.16.64.213 managing GPU 5
_PROCESS = re.compile(r"^[ \t]+Process (?P<pid>\d{1,10}) on node (?P<node>\S{1,255}) managing GPUs? ")
#   Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124
#   Rank 4 has status FINALIZE -- GPU 4 managed by process 507289 on node 172.16.64.210
#   Rank 21 -- [process information not found]
_RANK = re.compile(r"^[ \t]+Rank (?P<rank>\d{1,9})\b[^\n]*? -- (?:GPU \S{1,32} managed by process (?P<pid>\d{1,10}) on node (?P<node>\S{1,255})"
                   r"|\[process information not found\])")
#   The missing rank: 21         The missing ranks: 3, 21    (the user guide's sample)
_MISSING_RANKS = re.compile(r"^[ \t]+The missing ranks?: (?P<ranks>\d{1,9}(?:, ?\d{1,9})*)")

_ISSUE = {("DEAD", None): "dead", ("INCOMPLETE", None): "unresponsive", ("TIMEOUT", None): "timeout",
          ("INCOMPLETE", "comm"): "comm_incomplete", ("ERROR", "comm"): "comm_error"}


#   [2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1   (ras.rst; peers.cc "PEER_DEAD")
#   [2025-12-19 13:08:09] PEER_TIMEOUT_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1 peer failed to respond for 61s, declaring dead
#     (rasnet.cc "PEER_TIMEOUT_DEAD" with its details, filled; a peer RAS no longer knows is printed as its address alone)
#     (facts/lines.py takes the "[time] " prefix off a line: the event type may begin it)
_EVENT_DEAD = re.compile(r"(?:^|\] )PEER_(?:TIMEOUT_)?DEAD: (?:Process (?P<pid>\d{1,10}) on node (?P<node>\S{1,255}) managing GPUs? |"
                         r"(?P<addr>[0-9A-Fa-f.:\[\]]{2,64})<\d{1,5}>)", re.M)


# ncclras -f json (NCCL 2.28.7+; client_support.cc jsonWrite*): one object, "communicators" with each rank's
# "status" ("init_state", "async_error": ncclResult_t values) and "missing_ranks" ("unresponsive", "considered_dead"):
#     "missing_ranks_count": 1,        "considered_dead": false        (the user guide's sample, ras.rst)
_JSON_KEYS = ('"missing_ranks_count"', '"communicators"')
#: ncclResult_t (src/nccl.h.in): the values "init_state" and "async_error" hold (0 success, 7 in progress)
_NCCL_RESULT = {1: "unhandled cuda error", 2: "unhandled system error", 3: "internal error", 4: "invalid argument",
                5: "invalid usage", 6: "remote process exited or there was a network error", 8: "timeout"}


def detect(head: str) -> bool:
    if '"missing_ranks_count"' in head and '"nccl_version"' in head:
        return True
    if "PEER_" in head and _EVENT_DEAD.search(head) is not None:
        return True
    if _TABLE in head:
        return True
    if "considered dead (unreachable via the RAS network)" in head:
        return True
    if "Missing communicator data from " in head or "Communicator ranks have different " in head:
        return True
    return ") ERROR" in head and _COMM_HEAD.search(head) is not None


def _join(values: list[str]) -> str | None:
    return ", ".join(dict.fromkeys(values)) or None


def _entry(fb: FactBuilder, artefact: Artefact, n: int, issue: str, body: list[str], comm: str | None, comm_hash: str | None) -> int:
    """One entry: its head on line n (1-based), its lines until the first blank one. Returns lines read."""
    count = detail = None
    ranks: list[str] = []
    pids: list[str] = []
    nodes: list[str] = []
    errors: list[str] = []
    used = 1
    for line in body:
        if detail is None and line.strip():
            detail = line.strip()
        m = (_DEAD.match(line) or _MISSING.match(line) or _TIMEOUT.match(line) or _ERRORS_ON.match(line))
        if m is not None:
            count = int(m["n"])
            used += 1
        elif (m := _DIFFERENT.match(line)) is not None:
            issue = "status_mismatch" if m["what"] == "status" else "count_mismatch"
            used += 1
        elif (m := _PROCESS.match(line)) is not None:
            pids.append(m["pid"])
            nodes.append(m["node"])
            used += 1
        elif (m := _RANK.match(line)) is not None:
            ranks.append(m["rank"])
            if m["pid"]:
                pids.append(m["pid"])
                nodes.append(m["node"])
            if (r := _RANK_REPORTED.match(line)) is not None:
                errors.append(r["err"])
            used += 1
        elif (m := _MISSING_RANKS.match(line)) is not None:
            ranks.extend(r.strip() for r in m["ranks"].split(","))
            used += 1
        elif (m := _REPORTED.match(line)) is not None:
            errors.append(m["err"])
            used += 1
        elif re.match(r"^[ \t]+\d{1,9} ranks have (?:status \w|launched up to operation \d|not launched any)", line):
            used += 1
    node = artefact.node_for(nodes[0]) if issue in ("dead", "unresponsive") and nodes else None
    cls = NcclRasIssue if issue in ("dead", "unresponsive", "comm_incomplete", "comm_error") else NcclRasDisagreement
    fb.add(cls, n, node=node, issue=issue, comm=comm, comm_hash=comm_hash, count=count, detail=detail,
           ranks=_join(ranks), processes=_join(pids), nodes=_join(nodes), errors=_join(errors))
    return used


# an entry's head, alone on its line: what parse() looks for first
_HEAD = re.compile(r"^[ \t]*(?:#\d{1,6}-\d{1,9} \([0-9a-f]{1,16}\) (?:INCOMPLETE|ERROR|MISMATCH)|DEAD|INCOMPLETE|TIMEOUT)[ \t\r]*$", re.M)


def _list(value) -> list:
    """A JSON value that should be a list: itself, else none (a report of another shape names no rank)."""
    return value if isinstance(value, list) else []


def _dict(value) -> dict:
    """A JSON value that should be an object: itself, else an empty one."""
    return value if isinstance(value, dict) else {}


def _json_report(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """The JSON report: per communicator, its missing ranks (dead or unresponsive) and the ranks whose
    initialization or asynchronous state is an error. A report cut short (not JSON) makes no fact."""
    text = artefact.text
    try:
        report = json.loads(text[text.index("{"):text.rindex("}") + 1])
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        return
    comms = report.get("communicators") if isinstance(report, dict) else None
    for comm in comms if isinstance(comms, list) else ():
        if not isinstance(comm, dict):
            continue
        chash = str(comm.get("hash") or "")
        at = text.find(f'"{chash}"') if chash else -1
        n = artefact.line_of(at) if at >= 0 else 1
        short = chash.removeprefix("0x").rjust(16, "0") if chash else None
        missing = [m for m in _list(comm.get("missing_ranks")) if isinstance(m, dict)]
        if missing:
            dead = [m for m in missing if _dict(m.get("status")).get("considered_dead")]
            named = dead or missing
            nodes = [str(m.get("host")) for m in named if m.get("host")]
            result.lines_used += 1
            fb.add(NcclRasIssue, n, node=artefact.node_for(nodes[0]) if nodes else None,
                   issue="dead" if dead else "comm_incomplete", comm_hash=short, count=len(named),
                   detail=f"{len(missing)} of {comm.get('size')} ranks missing" + (f", {len(dead)} considered dead" if dead else ""),
                   ranks=_join([str(m.get("rank")) for m in named]), processes=_join([str(m.get("pid")) for m in named if m.get("pid")]),
                   nodes=_join(nodes))
        failed = [r for r in _list(comm.get("ranks")) if isinstance(r, dict)
                  and any((_dict(r.get("status")).get(k) or 0) not in (0, 7) for k in ("init_state", "async_error"))]
        if failed:
            codes = [(_dict(r.get("status")).get("async_error") or 0) or (_dict(r.get("status")).get("init_state") or 0) for r in failed]
            result.lines_used += 1
            fb.add(NcclRasIssue, n, issue="comm_error", comm_hash=short, count=len(failed),
                   detail=f"errors on {len(failed)} of {comm.get('size')} ranks", ranks=_join([str(r.get("rank")) for r in failed]),
                   processes=_join([str(r.get("pid")) for r in failed if r.get("pid")]),
                   nodes=_join([str(r.get("host")) for r in failed if r.get("host")]),
                   errors=_join([_NCCL_RESULT.get(c, f"ncclResult {c}") if isinstance(c, int) else str(c) for c in codes]))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if all(k in artefact.text for k in _JSON_KEYS):
        _json_report(artefact, fb, result)
        return result
    lines = artefact.lines
    if " compiled with CUDA " in artefact.text:
        for n, m in iter_matches(_VERSION, artefact):
            fb.add(NcclVersion, n, version=m["version"], cuda=m["cuda"])
            result.lines_used += 1
    for n, m in iter_matches(_HEAD, artefact):
        line = lines[n - 1]
        comm = comm_hash = None
        if (c := _COMM_HEAD.match(line)) is not None:
            head, comm, comm_hash = c["head"], c["comm"], c["hash"]
            issue = "count_mismatch" if head == "MISMATCH" else _ISSUE[(head, "comm")]
        elif (j := _JOB_HEAD.match(line)) is not None:
            head = j["head"]
            issue = _ISSUE[(head, None)]
        else:
            continue
        body: list[str] = []
        for nxt in lines[n:n + 200]:
            if not nxt.strip():
                break
            body.append(nxt)
        if not body or not body[0][:1].isspace():
            continue  # a bare word on its own line, not a RAS entry (its lines are indented)
        if comm is None and {"DEAD": _DEAD, "TIMEOUT": _TIMEOUT, "INCOMPLETE": _MISSING}[head].match(body[0]) is None:
            continue
        result.lines_used += _entry(fb, artefact, n, issue, body, comm, comm_hash)
    if "PEER_" in artefact.text:
        for n, m in iter_matches(_EVENT_DEAD, artefact):
            result.lines_used += 1
            node = m["node"] or m["addr"].strip("[]")
            fb.add(NcclRasIssue, n, node=artefact.node_for(node), issue="dead", count=1, detail=lines[n - 1][lines[n - 1].find("PEER_"):].strip(),
                   processes=m["pid"], nodes=node)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Group {5}Comms {5}Nodes {5}Ranks",
              r"job process(?:es are| is) considered dead \(unreachable via the RAS network\)",
              r"Missing communicator data from \d+ (?:job process|rank)",
              r"Communicator ranks have different (?:status|\w+ operation counts)",
              r"#\d+-\d+ \([0-9a-f]{16}\) (?:INCOMPLETE|ERROR|MISMATCH)",
              r"PEER_(?:TIMEOUT_)?DEAD: (?:Process \d+ on node |[0-9A-Fa-f.:\[\]]+<\d+>)",
              r"\"missing_ranks_count\": \d")
