"""A program's own report of a failed libibverbs call in the C library's perror(3) form: the call's
name, ": ", then strerror(errno) (glibc ``"%s: %s\\n"``), which RDMA programs print for the verbs call
that failed (``perror("ibv_modify_qp")``), often behind their own prefix. Looked for anywhere in a
file: it is printed on the program's stderr, inside its own log lines.

Sample line (real, madsys-dev/smart#2, an RDMA key-value store's RC connection set-up on RoCE,
whose INIT -> RTR transition gave no GRH: ``ah_attr.is_global = 0``)::

    Error message: smart/smart/resource_manager.cpp:623: enable_queue_pair(): ibv_modify_qp: Invalid argument,

Only the bare ``<call>: <strerror>`` form is this reader's: UCX's ``ibv_create_cq(cqe=4096) failed:
...`` and ``mlx5_0: ibv_create_cq() failed: ...`` (ucx_log), NCCL's ``Call to ibv_modify_qp failed
with error Invalid argument`` (nccl_log) and perftest's own messages (perftest) are their readers'.
The text after ": " must be a strerror() text of this C library (``os.strerror``), so a call's name
followed by other words (a help text, a log about the call) is not one.

Facts: ``verbs_call_failed`` once per call and error a file (every QP, every retry prints one): the
call and the strerror text. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import errno as _errno
import os
import re

from stethoscope.facts.kinds.network import VerbsCallFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "verbs_perror"

# enable_queue_pair(): ibv_modify_qp: Invalid argument,        (madsys-dev/smart#2; a trailing comma or period is the program's)
_LINE = re.compile(r"(?<![\w.>-])(?P<call>ibv_[a-z][a-z0-9_]{1,40}): (?P<err>[A-Z][A-Za-z' /-]{2,60}?)[,.;]?\s*$", re.M)
#: the C library's strerror texts ("Invalid argument", "Bad address", "Cannot allocate memory", ...)
_STRERRORS = frozenset(os.strerror(n) for n in sorted(set(_errno.errorcode)))


def detect(head: str) -> bool:
    return "ibv_" in head and any(m["err"] in _STRERRORS for m in _LINE.finditer(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    seen: set[tuple[str, str]] = set()
    for n, m in iter_matches(_LINE, artefact):
        if m["err"] not in _STRERRORS:
            continue
        result.lines_used += 1
        if (m["call"], m["err"]) not in seen:
            seen.add((m["call"], m["err"]))
            fb.add(VerbsCallFailed, n, call=m["call"], error=m["err"])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bibv_[a-z][a-z0-9_]{1,40}: [A-Z][A-Za-z' /-]{2,60}[,.;]?\s*$",)
