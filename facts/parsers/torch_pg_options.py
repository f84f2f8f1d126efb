"""The options ProcessGroupNCCL of PyTorch 1.x prints once it is made (read by :mod:`torch_log`).

Not a parser: :func:`read` reads each block into a ``torch_pg_nccl_options`` fact. The constructor logs, at INFO, one
message over several lines (torch/lib/c10d/ProcessGroupNCCL.cpp, torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
from 1.9)::

    LOG(INFO) << "[Rank " << rank_ << "] ProcessGroupNCCL initialized with following options:"
              << "\\nNCCL_ASYNC_ERROR_HANDLING: " << asyncErrorHandling_
              << "\\nNCCL_DESYNC_DEBUG: " << desyncDebug_            (1.10 on)
              << "\\nNCCL_BLOCKING_WAIT: " << blockingWait_
              << "\\nTIMEOUT(ms): " << options_->timeout.count()
              << "\\nUSE_HIGH_PRIORITY_STREAM: " << options_->is_high_priority_stream
              << "\\nNCCL_DEBUG: " << ncclDebugLevel;                 (some releases; others " TORCH_DISTRIBUTED_DEBUG: ",
                                                                       " NCCL_DEBUG: ", a blank first)

as glog prints it (the header its prefix's, the option lines bare), pytorch/pytorch#88000 (1.13, a torchrun job)::

    I1028 12:13:38.405865 632324 ProcessGroupNCCL.cpp:666] [Rank 0] ProcessGroupNCCL initialized with following options:
    NCCL_ASYNC_ERROR_HANDLING: 1
    ...
    TIMEOUT(ms): 5000

or under c10's own logging prefix where glog is not linked ("[I ProcessGroupNCCL.cpp:665] ", as its "[E
ProcessGroupNCCL.cpp:455] " lines, torch_watchdog_events). The watchdog's own INFO lines around it say it runs
(ncclCommWatchdog: "[Rank " << rank_ << "] NCCL watchdog thread started!", "... NCCL watchdog thread terminated
normally"): read, no fact; "terminated with exception" is left to the readers of failures. In those releases the timeout is enforced only by
one of the two modes: the watchdog aborts a timed-out collective only where asyncErrorHandling_ is set
(ncclCommWatchdogInternal: "if (asyncErrorHandling_) { abortTimedOutCollectives(...) }"), and wait() throws on a
timeout only where blockingWait_ is set (init_process_group's documentation as pytorch/pytorch#46856 wrote it: for NCCL the timeout "is applicable
only if the environment variable NCCL_BLOCKING_WAIT or NCCL_ASYNC_ERROR_HANDLING is set to 1").
A block cut before its last option line is read as far as it goes (``complete`` false).

PyTorch 2.3 on prints the options on one line under the group's log prefix, and the error-handling modes on the next,
as TORCH_NCCL_* environment settings (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp: ``logPrefix() <<
"ProcessGroupNCCL initialization options: " << "size: " << size << ", global rank: " << globalRank() << ",
TIMEOUT(ms): " << options_->timeout.count() << ", USE_HIGH_PRIORITY_STREAM: " ...`` and ``"ProcessGroupNCCL
environments: " << "NCCL version: " << ... << ", TORCH_NCCL_ASYNC_ERROR_HANDLING: " << asyncErrorHandling_ ...``)::

    I0527 15:16:51.665375 58626 ProcessGroupNCCL.cpp:869] [PG 0 Rank 2] ProcessGroupNCCL initialization options: size: 8, global rank: 2, TIMEOUT(ms): 180000000000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0
    I0527 15:16:51.665462 58626 ProcessGroupNCCL.cpp:878] [PG 0 Rank 2] ProcessGroupNCCL environments: NCCL version: 2.18.3, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, ..., TORCH_NCCL_DESYNC_DEBUG: 0, TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, ...
    I20241209 23:39:42.495619 138559122262912 ProcessGroupNCCL.cpp:905] [PG ID 0 PG GUID 0 Rank 1] ProcessGroupNCCL initialization options: size: 2, global rank: 1, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0

(a LLaMA-Factory run's log with DeepSpeed on 8 GPUs, and a torchrun job's, as public repositories hold them: the
search index's file ids 12140220341 and 69752868257). Each options line is one fact (``form`` line), the modes taken
from the same group's and rank's environments line right under it where there is one. Their meanings are 2.x's, not
1.x's: TORCH_NCCL_ASYNC_ERROR_HANDLING 0-3 (3 skips the abort), and the watchdog enforces the timeout in every mode.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TorchPgNcclOptions  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder

MARKER = "ProcessGroupNCCL initialized with following options:"
# I1028 12:13:38.405865 632324 ProcessGroupNCCL.cpp:666] [Rank 0] ProcessGroupNCCL initialized with following options:
#   (pytorch/pytorch#88000; the message read wherever it starts in the line: glog's prefix or c10's "[I <file>:<line>] ")
_HEADER = re.compile(r"\[Rank (?P<rank>\d{1,7})\] ProcessGroupNCCL initialized with following options:[ \t]*\r?$")
# NCCL_ASYNC_ERROR_HANDLING: 1      TIMEOUT(ms): 5000      " TORCH_DISTRIBUTED_DEBUG: OFF" (a blank first in some releases)
_OPTION = re.compile(r"^ ?(?P<key>NCCL_ASYNC_ERROR_HANDLING|NCCL_DESYNC_DEBUG|NCCL_BLOCKING_WAIT|TIMEOUT\(ms\)"
                     r"|USE_HIGH_PRIORITY_STREAM|TORCH_DISTRIBUTED_DEBUG|NCCL_DEBUG): (?P<value>[\w.-]{1,32})\r?$")
_FIELDS = {"NCCL_ASYNC_ERROR_HANDLING": "async_error_handling", "NCCL_DESYNC_DEBUG": "desync_debug",
           "NCCL_BLOCKING_WAIT": "blocking_wait", "TIMEOUT(ms)": "timeout_ms", "USE_HIGH_PRIORITY_STREAM": "high_priority_stream"}
# the last option line every release prints (the lines after it are some releases' only)
_LAST = "USE_HIGH_PRIORITY_STREAM"
# I1028 12:13:38.405081 632355 ProcessGroupNCCL.cpp:843] [Rank 0] NCCL watchdog thread started!     (pytorch/pytorch#88000)
#   ("... NCCL watchdog thread terminated normally": ncclCommWatchdog's other INFO line, under either prefix)
WATCHDOG_MARKER = "] NCCL watchdog thread "
_WATCHDOG_INFO = re.compile(r"(?:^I\d{4} [\d:.]+ +\d+ |^\[I )ProcessGroupNCCL\.cpp:\d+\] \[Rank \d{1,7}\] "
                            r"NCCL watchdog thread (?:started!|terminated normally)\r?$")


# PyTorch >= 2.3's one-line options under logPrefix() ("[PG 0 Rank 2]", 2.5's "[PG ID 0 PG GUID 0 Rank 1]"):
# [PG 0 Rank 2] ProcessGroupNCCL initialization options: size: 8, global rank: 2, TIMEOUT(ms): 180000000000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0
MARKER_LINE = "] ProcessGroupNCCL initialization options: size: "
_OPTIONS_LINE = re.compile(r"\[(?P<prefix>PG [^\]\n]{0,80}?)Rank (?P<rank>\d{1,7})\] ProcessGroupNCCL initialization options: "
                           r"size: \d{1,7}, global rank: (?P<grank>\d{1,7}), TIMEOUT\(ms\): (?P<timeout>\d{1,18}), "
                           r"USE_HIGH_PRIORITY_STREAM: (?P<hp>\d{1,2})\b")
# [PG 0 Rank 2] ProcessGroupNCCL environments: NCCL version: 2.18.3, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, ...
_ENV_LINE = re.compile(r"\[(?P<prefix>PG [^\]\n]{0,80}?)Rank (?P<rank>\d{1,7})\] ProcessGroupNCCL environments: ")
_ENV_FIELDS = {"async_error_handling": re.compile(r"\bTORCH_NCCL_ASYNC_ERROR_HANDLING: (\d{1,2})\b"),
               "desync_debug": re.compile(r"\bTORCH_NCCL_DESYNC_DEBUG: (\d{1,2})\b"),
               "blocking_wait": re.compile(r"\bTORCH_NCCL_BLOCKING_WAIT: (\d{1,2})\b")}


def _read_lines(artefact: Artefact, b: FactBuilder, used: set[int], context) -> None:
    """2.3+'s options lines, each with the environments line of its group and rank under it."""
    lines = artefact.lines
    for no, line in enumerate(lines, 1):
        if MARKER_LINE not in line or (m := _OPTIONS_LINE.search(line)) is None:
            continue
        fields: dict[str, int] = {}
        nxt = lines[no] if no < len(lines) else ""
        if (e := _ENV_LINE.search(nxt)) is not None and (e["prefix"], e["rank"]) == (m["prefix"], m["rank"]):
            fields = {k: int(f[1]) for k, r in _ENV_FIELDS.items() if (f := r.search(nxt)) is not None}
            used.add(no + 1)
        node, grank = context(line, no)
        b.add(TorchPgNcclOptions, no, node=node, text=line, rank=grank if grank is not None else int(m["grank"]),
              pg_rank=int(m["rank"]), timeout_ms=int(m["timeout"]), high_priority_stream=int(m["hp"]), complete=True,
              form="line", **fields)
        used.add(no)


def read(artefact: Artefact, b: FactBuilder, used: set[int], context) -> None:
    """Each options block of ``artefact`` as a ``torch_pg_nccl_options`` fact (its lines in ``used``), and the
    watchdog's started / terminated-normally lines in ``used``. ``context(line, no)``: the line's node and global rank."""
    text = artefact.text
    if MARKER_LINE in text:
        _read_lines(artefact, b, used, context)
    if MARKER not in text and WATCHDOG_MARKER not in text:
        return
    lines = artefact.lines
    for no, line in enumerate(lines, 1):
        if WATCHDOG_MARKER in line and _WATCHDOG_INFO.search(line) is not None:
            used.add(no)
            continue
        if MARKER not in line or (h := _HEADER.search(line)) is None:
            continue
        fields: dict[str, int] = {}
        last = no
        complete = False
        for k in range(no, min(len(lines), no + 8)):
            m = _OPTION.match(lines[k])
            if m is None:
                break
            last = k + 1
            key, value = m["key"], m["value"]
            if key in _FIELDS and value.isdigit():
                fields[_FIELDS[key]] = int(value)
            complete = complete or key == _LAST
        node, grank = context(line, no)
        b.add(TorchPgNcclOptions, no, node=node, text=line, rank=grank if grank is not None else int(h["rank"]),
              pg_rank=int(h["rank"]), complete=complete, **fields)
        used.update(range(no, last + 1))
