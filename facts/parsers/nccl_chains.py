"""NCCL's error-return chains, grouped as they are read (called by :mod:`nccl_log` for each line).

When an NCCL call fails, every function on the way out logs ``INFO(NCCL_ALL,"%s:%d -> %d",
__FILE__, __LINE__, res)`` (``NCCLCHECK`` in src/include/checks.h), so one failure prints a
run of frames, innermost first, usually right after the WARN that says why::

    [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>
    [0] NCCL INFO misc/socket.cc:80 -> 6
    [0] NCCL INFO bootstrap.cc:701 -> 6
    [0] NCCL INFO group.cc:75 -> 6 [Async thread]                                    (nccl#1612)

    transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'
    NCCL INFO transport/nvls.cc:324 -> 1
    NCCL INFO init.cc:1093 -> 1                                                      (nccl#976)

A chain is the consecutive frames of one process (node and pid; lines without NCCL's prefix
are one stream); another line of that process ends it. Frames between a communicator's
``comm 0x... - Abort START`` and ``Abort COMPLETE`` are the teardown that ncclCommAbort (after
a timeout, by PyTorch's watchdog) runs into, not a fault of their own: they make no chain::

    vm:745:753 [0] NCCL INFO comm 0x229774f0 rank 0 nRanks 2 cudaDev 0 busId 60 - Abort START
    vm:745:753 [0] NCCL INFO misc/socket.cc:64 -> 3                                  (H200 straggler capture) The WARN counts as the chain's when it
is the line of that process just before the first frame. Each chain gives one
``nccl_error_chain`` fact (:mod:`nccl_log_facts`); the frames stay ``nccl_error_return`` facts.
"""
from __future__ import annotations

from typing import Any

from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.parsers.nccl_log_facts import NcclErrorChain

#: ncclResult_t (src/nccl.h.in) -> (enum name, ncclGetErrorString's text, src/init.cc)
RESULTS: dict[int, tuple[str, str]] = {
    1: ("ncclUnhandledCudaError", "unhandled cuda error"),
    2: ("ncclSystemError", "unhandled system error"),
    3: ("ncclInternalError", "internal error"),
    4: ("ncclInvalidArgument", "invalid argument"),
    5: ("ncclInvalidUsage", "invalid usage"),
    6: ("ncclRemoteError", "remote process exited or there was a network error"),
    7: ("ncclInProgress", "NCCL operation in progress"),
}


class Chains:
    """Open chains per process; the WARN each process printed last, if it was its last line."""

    def __init__(self, builder: FactBuilder):
        self.b = builder
        self.open: dict[tuple[str, int | None], dict[str, Any]] = {}
        self.last_warn: dict[tuple[str, int | None], tuple[int, Any]] = {}
        self.aborting: set[tuple[str, int | None]] = set()

    def abort(self, node: str, pid: int | None, started: bool) -> None:
        """``- Abort START`` / ``- Abort COMPLETE`` of a communicator of this process."""
        (self.aborting.add if started else self.aborting.discard)((node, pid))

    def warn(self, no: int, node: str, pid: int | None, fact: Any) -> None:
        self.last_warn[(node, pid)] = (no, fact)

    def other(self, node: str, pid: int | None) -> None:
        """A line of this process that is not a frame: its open chain ends, its WARN is no longer last."""
        key = (node, pid)
        if key in self.open:
            self._close(key)
        self.last_warn.pop(key, None)

    def frame(self, no: int, node: str, pid: int | None, file: str, line: int, code: int, thread: str | None) -> None:
        key = (node, pid)
        if key in self.aborting:
            return
        chain = self.open.get(key)
        if chain is None:
            warn = self.last_warn.pop(key, None)
            chain = self.open[key] = {"no": no, "node": node, "pid": pid, "file": file, "line": line, "code": code,
                                      "frames": [], "warn": warn}
        chain["frames"].append(f"{file}:{line}")

    def _close(self, key: tuple[str, int | None]) -> None:
        c = self.open.pop(key)
        result, meaning = RESULTS.get(c["code"], (f"ncclResult_t {c['code']}", "unknown result code"))
        warn_no, warn = c["warn"] if c["warn"] else (None, None)
        self.b.add(NcclErrorChain, warn_no or c["no"], node=c["node"], pid=c["pid"],
                   local_device=warn.local_device if warn else None, first_file=c["file"], first_line=c["line"],
                   code=c["code"], result=result, meaning=meaning, frames=len(c["frames"]),
                   frame_list=",".join(c["frames"]), has_warn=warn is not None,
                   warn_message=warn.message if warn else None, warn_message_kind=warn.message_kind if warn else None,
                   warn_source_file=warn.source_file if warn else None,
                   warn_source_line=warn.source_line if warn else None)

    def finish(self) -> None:
        for key in list(self.open):
            self._close(key)
