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


# The socket transport's pciPath on an interface with no PCI device behind it (a virtual NIC: a pod's veth, a cloud
# VM's virtio NIC), NCCL 2.3-2.5 (src/transport/net_socket.cc ncclSocketPciPath: INFO(NCCL_NET|NCCL_INIT, "Could not
# find real path of %s", devicepath) with "/sys/class/net/%s/device", then return ncclSystemError). Its one frame is
# ncclNetPciPath's NCCLCHECK in src/include/net.h (line 19 in 2.4.8-2.5.x, 24 in 2.4.2), and the callers ignore the
# result (2.4 transport/net.cc netDistance: "err = ncclNetPciPath(dev, &nicPath); *distance = (err != ncclSuccess ...)
# ? PATH_SYS : ..."; 2.5 graph/topo.cc: "if (res != ncclSuccess) netInfos[n].path = NULL"): NCCL goes on:
# sfr-pod-rmeng:435:783 [0] NCCL INFO Could not find real path of /sys/class/net/eth0/device
# sfr-pod-rmeng:435:783 [0] NCCL INFO include/net.h:19 -> 2
# sfr-pod-rmeng:435:783 [0] NCCL INFO Ring 00 : 0 -> 8 [receive] via NET/Socket/0          (OpenNMT/OpenNMT-py#1606)
SOCKET_PCI_PATH = "Could not find real path of /sys/class/net/"
#: the file of ncclNetPciPath's frame
_PCI_PATH_FRAME_FILE = "include/net.h"
#: last_warn's entry for that INFO (not a WARN: no fact)
_PCI_PATH_PROBE = object()


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

    def pci_path_probe(self, no: int, node: str, pid: int | None) -> None:
        """The socket transport's INFO that an interface has no PCI path (SOCKET_PCI_PATH): a chain of this process
        that starts right after it in ncclNetPciPath and stays there is the failure its caller ignores: no chain."""
        self.last_warn[(node, pid)] = (no, _PCI_PATH_PROBE)

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
            probe = warn is not None and warn[1] is _PCI_PATH_PROBE
            chain = self.open[key] = {"no": no, "node": node, "pid": pid, "file": file, "line": line, "code": code,
                                      "frames": [], "warn": None if probe else warn,
                                      "ignored": probe and file == _PCI_PATH_FRAME_FILE}
        elif chain["ignored"] and file != _PCI_PATH_FRAME_FILE:
            chain["ignored"] = False  # the failure went on up: a chain after all
        chain["frames"].append(f"{file}:{line}")

    def _close(self, key: tuple[str, int | None]) -> None:
        c = self.open.pop(key)
        if c["ignored"]:
            return  # ncclNetPciPath's failure, which NCCL ignored (SOCKET_PCI_PATH)
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
