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
"""
from __future__ import annotations

import re
from typing import Any

from stethoscope.facts.kinds.app import GlooTimeout  # noqa: F401 - the fact class lives in facts/kinds

# [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete
TIMEOUT = re.compile(r"(?:\[(?:[^\]\s]*/)?(?P<src>unbound_buffer\.cc):\d+\] )?"
                     r"Timed out waiting (?P<ms>\d+)ms for (?P<op>recv|send) operation to complete")

#: the literal that puts a line in front of :func:`read` (torch_log's marked lines)
MARKERS = ("ms for recv operation to complete", "ms for send operation to complete")

#: RE2-compatible signature, for torch_log's detect and facts/classify.py
SIGNATURE = r"Timed out waiting \d+ms for (?:recv|send) operation to complete"


def read(line: str) -> dict[str, Any] | None:
    """The ``gloo_timeout`` fields of ``line``, or None."""
    m = TIMEOUT.search(line)
    if m is None:
        return None
    return dict(operation=m["op"], timeout_ms=int(m["ms"]))
