"""SGLang's prefill/decode disaggregation: a request whose KV-cache transfer failed and was aborted.

When a request's transfer between a prefill and a decode engine ends in ``KVPoll.Failed``, the scheduler logs one line
per TP rank and aborts the request with status 500 (sgl-project/sglang python/sglang/srt/disaggregation/prefill.py:
``f"Prefill transfer failed for request rank={self.tp_rank} {req.rid=} {req.bootstrap_room=}"``, decode.py
``f"Decode transfer failed for request rank=... {decode_req.req.rid=} {decode_req.req.bootstrap_room=}"``; the
bootstrap and handshake steps log ``Prefill bootstrap failed ...`` and ``Decode handshake failed ...``; the encoder's
and multimodal language side ``Encode ...``, ``MultiModalLanguage ...``), followed where the receiver or sender knows
why by ``f" with exception {e}"``, the exception being ``KVTransferError(bootstrap_room=<room>): <reason>``
(disaggregation/base/conn.py). The reasons the transfer backends record (disaggregation/<backend>/conn.py
``record_failure``):

- ``Aborted by AbortReq.``: the request was cancelled (the client closed it, or the router aborted it) while its KV
  cache had not arrived (the receiver's or sender's ``abort()``);
- ``Decode instance could be dead, remote mooncake session <ip:port> is not alive`` (prefill side) and ``Failed to get
  kvcache from prefill instance, it might be dead`` (decode side): Mooncake could not reach the other engine's
  session. Either the other engine died, or the transfer path never worked (RDMA not initialised, no usable GID, the
  buffers not registered): where both sides accuse each other and neither engine restarted, it is the path;
- ``Request <room> timed out after <s>s in KVPoll.Bootstrapping`` / ``KVPoll.WaitingForInput``: the bootstrap or the
  transfer did not finish within SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT / _WAITING_TIMEOUT;
- any other text (a send that failed, ``Failed due to an unknown reason from another rank``).

Sample content (real, sgl-project/sglang#12688, the decode engine's log; fixtures/artefacts/sglang_disagg/)::

    [2025-11-05 16:39:09 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='78fde411d57a4d7791b63963eac74968' decode_req.req.bootstrap_room=4793981895866140836 with exception KVTransferError(bootstrap_room=4793981895866140836): Aborted by AbortReq.

Facts: ``kv_transfer_request_failed`` per line (side, step, rank, room, reason and its kind); a line without its
reason gives one with ``reason_kind`` unknown, and one the paste cut before the request's room is read beside a whole
line of the file (alone, it gives its own). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import KvTransferRequestFailed
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "sglang_disagg"

# Decode transfer failed for request rank=0 decode_req.req.rid='78fde411d57a4d7791b63963eac74968' decode_req.req.bootstrap_room=4793981895866140836 with exception ...   (sgl-project/sglang#12688)
_LINE = re.compile(r"\b(?P<side>Prefill|Decode|Encode|MultiModalLanguage) (?P<step>transfer|bootstrap|handshake) failed "
                   r"for request rank=(?P<rank>\d{1,6}) ")
# decode_req.req.bootstrap_room=4793981895866140836
_ROOM = re.compile(r"\bbootstrap_room=(\d{1,25})\b")
_EXC = " with exception "
# KVTransferError(bootstrap_room=4793981895866140836): Aborted by AbortReq.
_KV_ERROR = re.compile(r"\w{1,60}Error\(bootstrap_room=\d{1,25}\): ")
_KINDS = (("peer_dead", ("could be dead", "might be dead", "is not alive")), ("aborted", ("Aborted by AbortReq",)),
          ("timeout", ("timed out after",)))


def _kind(reason: str) -> str:
    return next((k for k, words in _KINDS if any(w in reason for w in words)), "other")


def detect(head: str) -> bool:
    return " failed for request rank=" in head and _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    found: list[tuple[int, dict]] = []
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        rest = line[m.end():]
        room = _ROOM.search(rest)
        reason, kind = None, "unknown"
        if (at := rest.find(_EXC)) >= 0:
            exc = rest[at + len(_EXC):]
            head = _KV_ERROR.match(exc)
            reason = (exc[head.end():] if head else exc).strip() or None
            kind = _kind(reason) if reason else "unknown"
        result.lines_used += 1
        found.append((n, dict(side=m["side"], step=m["step"], rank=int(m["rank"]),
                              room=int(room.group(1)) if room else None, reason=reason, reason_kind=kind)))
    # a line the paste cut before its request's room is another rank's line of a failure read whole beside it
    whole = any(f["room"] is not None for _, f in found)
    for n, f in found:
        if f["room"] is not None or not whole:
            fb.add(KvTransferRequestFailed, n, **f)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?:Prefill|Decode|Encode|MultiModalLanguage) (?:transfer|bootstrap|handshake) failed for request rank=\d",)
