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

A remote on a loopback address means the peer advertised lo: its hostname resolved to 127.0.1.1
(Debian and Ubuntu's /etc/hosts) or did not resolve and ProcessGroupGloo fell back to loopback,
because GLOO_SOCKET_IFNAME was not set. A paste that wraps the message puts ``remote=[...]`` on
the next line, which is read with it.
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from stethoscope.facts.kinds.app import GlooConnectFailed, GlooTimeout  # noqa: F401 - the fact classes live in facts/kinds

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

#: the literals that put a line in front of :func:`read` / :func:`read_connect` (torch_log's marked lines)
MARKERS = ("ms for recv operation to complete", "ms for send operation to complete", "Gloo connectFullMesh failed", "] connect [")

#: RE2-compatible signature, for torch_log's detect and facts/classify.py
SIGNATURE = (r"Timed out waiting \d+ms for (?:recv|send) operation to complete|Gloo connectFullMesh failed"
             r"|pair\.cc:\d+\] connect \[[^\]\s]{1,64}\]:\d{1,5}: [A-Za-z]")


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
