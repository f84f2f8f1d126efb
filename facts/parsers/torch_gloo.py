"""Gloo's timeouts as PyTorch raises them (read by :mod:`torch_log`).

Not a parser: :func:`read` turns one line into the fields of a ``gloo_timeout`` fact. PyTorch's
Gloo backend (CPU process groups: ``dist.barrier()`` on a gloo group, the CPU groups vLLM, SGLang,
DeepSpeed and Megatron make beside NCCL's, object collectives) waits for a peer's data in
``UnboundBuffer::waitRecv`` / ``waitSend`` and, past the group's timeout, throws ``gloo::IoException``
with ``GLOO_ERROR_MSG``'s ``[<file>:<line>] `` in front (gloo/transport/tcp/unbound_buffer.cc, and
transport/uv/unbound_buffer.cc from gloo's libuv transport, PyTorch's on Windows and macOS)::

    "Timed out waiting " << timeout.count() << "ms for recv operation to complete"
    "Timed out waiting " << timeout.count() << "ms for send operation to complete"

Sample lines (real)::

    [rank2]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete   (meta-pytorch/torchtune#2676)
    RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete

The peer it waited for never sent (or never received): it had not reached the same collective
(still busy, hung, or gone), as a NCCL collective times out under the watchdog.

Gloo's failure to build the group at all, ``ProcessGroupGloo``'s ``"Gloo connectFullMesh failed
with " << ex.what()`` around gloo/transport/tcp/pair.cc's reason, is read by :func:`read_connect`
(``gloo_connect_failed``). Older Gloo gave no reason ("no error"), newer names the peer it dialled
(vllm-project/vllm#7074 two nodes, Ray; aws-samples/aws-do-eks#50, quoted wrapped)::

    (RayWorkerWrapper pid=1890, ip=10.41.0.8) [rank8]:[E ProcessGroupGloo.cpp:144] Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error
    RuntimeError: Gloo connectFullMesh failed with [pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, remote=[127.0.1.1]:20901

Gloo before PyTorch 1.4 or so, and code that makes a Gloo context itself, raise the pair's own
IoException bare, ``GLOO_ERROR_MSG("connect ", peer_.str(), ": ", strerror(optval))`` of
gloo/transport/tcp/pair.cc ``Pair::handleConnecting`` (pytorch/pytorch#15592, pytorch/examples#812)::

    what():  [/opt/conda/conda-bld/pytorch_1544084119927/work/third_party/gloo/gloo/transport/tcp/pair.cc:724] connect [127.0.1.1]:3210: Connection refused
    RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:769] connect [127.0.1.1]:25472: Connection refused

ProcessGroupGloo's monitored barrier (``torch.distributed.monitored_barrier``, and the barrier the wrapper
TORCH_DISTRIBUTED_DEBUG=DETAIL puts around every process group runs before each collective) has rank 0 wait for an
acknowledgement from every other rank and names those that did not send one in time; a rank that did, but never
got rank 0's release, says so (torch/csrc/distributed/c10d/ProcessGroupGloo.cpp ``monitoredBarrier``, 1.9 on)::

    "[Rank 0]: Rank " << rank << " failed to pass monitoredBarrier in " << ms << " ms"       (the first that failed)
    "[Rank 0]: Ranks " << "4, 5, 6, 7" << " failed to pass monitoredBarrier in " << ms << " ms"   (wait_all_ranks=True)
    "Rank " << rank << " successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank."

Sample lines (real: PyTorch's distributed docs, docs/source/distributed.md, rank 0's error; pytorch/pytorch#121606's
title, an 8-GPU xtuner fine-tune on PyTorch 2.2.1)::

    RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms
    RuntimeError: Rank 2 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.

A remote on a loopback address means the peer advertised lo: its hostname resolved to 127.0.1.1
(Debian and Ubuntu's /etc/hosts) or did not resolve and ProcessGroupGloo fell back to loopback,
because GLOO_SOCKET_IFNAME was not set. A paste that wraps the message puts ``remote=[...]`` on
the next line, which is read with it.
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from stethoscope.facts.kinds.app import GlooConnectFailed, GlooMonitoredBarrier, GlooTimeout  # noqa: F401 - the fact classes live in facts/kinds

# [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete
TIMEOUT = re.compile(r"(?:\[(?:[^\]\s]*/)?(?P<src>unbound_buffer\.cc):\d+\] )?"
                     r"Timed out waiting (?P<ms>\d+)ms for (?P<op>recv|send) operation to complete")

# Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error
# Gloo connectFullMesh failed with [pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, remote=[127.0.1.1]:20901
# Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: Connection refused,       (a quote that cuts the source, remote on the next line)
CONNECT = re.compile(r"\bGloo connectFullMesh failed(?: with)?(?: \[(?:[^\]\s]*/)?[\w.]+:\d+\])?(?: \.\.\.)?:? ?(?P<detail>(?:[^\n]*?(?:[^\s,]|[^\n](?=,)))??)"
                     r",?\s*+(?:remote=\[(?P<remote>[^\]\s]+)\](?::\S+)?)?\s*$")
REMOTE = re.compile(r"^\s*remote=\[(?P<remote>[^\]\s]+)\]")
# GLOO_ERROR_MSG("connect ", peer_.str(), ": ", strerror(optval))   (gloo/transport/tcp/pair.cc Pair::handleConnecting; Address::str
#   prints "[<ip>]:<port>"), the IoException older PyTorch raised without ProcessGroupGloo's "Gloo connectFullMesh failed with"
# what():  [/opt/conda/conda-bld/pytorch_1544084119927/work/third_party/gloo/gloo/transport/tcp/pair.cc:724] connect [127.0.1.1]:3210: Connection refused   (pytorch/pytorch#15592)
# RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:769] connect [127.0.1.1]:25472: Connection refused   (pytorch/examples#812)
PAIR_CONNECT = re.compile(r"\[(?:[^\]\s]*/)?pair\.cc:\d+\] connect \[(?P<remote>[^\]\s]{1,64})\]:\d{1,5}: (?P<detail>[A-Za-z][^\n]{0,100}?)\s*$")

# [Rank 0]: Rank 1 failed to pass monitoredBarrier in 2000 ms      [Rank 0]: Ranks 4, 5, 6, 7 failed to pass monitoredBarrier in 2000000 ms
# RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms   (the docs' sample, without rank 0's tag)
BARRIER_FAILED = re.compile(r"\bRanks? (?P<ranks>\d{1,7}(?:, \d{1,7}){0,8191}) failed to pass monitoredBarrier in (?P<ms>\d{1,12}) ms")
# Rank 2 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.
BARRIER_WAITING = re.compile(r"\bRank (?P<rank>\d{1,7}) successfully reached monitoredBarrier, but received errors while waiting")

#: the literals that put a line in front of :func:`read` / :func:`read_connect` / :func:`read_barrier` (torch_log's marked lines)
MARKERS = ("ms for recv operation to complete", "ms for send operation to complete", "Gloo connectFullMesh failed", "] connect [",
           "failed to pass monitoredBarrier", "successfully reached monitoredBarrier")

#: RE2-compatible signature, for torch_log's detect and facts/classify.py
SIGNATURE = (r"Timed out waiting \d+ms for (?:recv|send) operation to complete|Gloo connectFullMesh failed"
             r"|pair\.cc:\d+\] connect \[[^\]\s]{1,64}\]:\d{1,5}: [A-Za-z]"
             r"|Ranks? \d{1,7}(?:, \d{1,7})* failed to pass monitoredBarrier in \d|Rank \d{1,7} successfully reached monitoredBarrier, but")


def read_barrier(line: str) -> dict[str, Any] | None:
    """The ``gloo_monitored_barrier`` fields of ``line``, or None."""
    if "failed to pass" in line and (m := BARRIER_FAILED.search(line)) is not None:
        ranks = m["ranks"]
        return dict(event="ranks_failed", ranks=ranks, rank=int(ranks) if ranks.isdigit() else None, reporter=0,
                    timeout_ms=int(m["ms"]))
    if "successfully reached" in line and (m := BARRIER_WAITING.search(line)) is not None:
        return dict(event="waiting_on_rank0", reporter=int(m["rank"]))
    return None


def read(line: str) -> dict[str, Any] | None:
    """The ``gloo_timeout`` fields of ``line``, or None."""
    m = TIMEOUT.search(line)
    if m is None:
        return None
    return dict(operation=m["op"], timeout_ms=int(m["ms"]))


def _loopback(addr: str | None) -> bool:
    try:
        return addr is not None and ipaddress.ip_address(addr.strip("[]")).is_loopback
    except ValueError:
        return addr in ("localhost", "localhost.localdomain")


def read_connect(line: str, nxt: str = "") -> tuple[dict[str, Any], bool] | None:
    """The ``gloo_connect_failed`` fields of ``line`` (and whether ``nxt``, its wrapped
    ``remote=[...]``, was read with it), or None."""
    m = CONNECT.search(line) if "connectFullMesh" in line else None
    if m is None:
        if "] connect [" in line and (p := PAIR_CONNECT.search(line)) is not None:
            return dict(detail=p["detail"], remote=p["remote"], remote_loopback=_loopback(p["remote"])), False
        return None
    remote, took_next = m["remote"], False
    if remote is None and (r := REMOTE.match(nxt)) is not None:
        remote, took_next = r["remote"], True
    detail = m["detail"].strip().rstrip(",").strip() or None
    return dict(detail=detail, remote=remote, remote_loopback=_loopback(remote)), took_next
