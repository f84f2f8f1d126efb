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


def read(artefact: Artefact, b: FactBuilder, used: set[int], context) -> None:
    """Each options block of ``artefact`` as a ``torch_pg_nccl_options`` fact (its lines in ``used``), and the
    watchdog's started / terminated-normally lines in ``used``. ``context(line, no)``: the line's node and global rank."""
    text = artefact.text
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
