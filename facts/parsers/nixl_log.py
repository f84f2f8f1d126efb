"""NIXL's status exceptions in a program's output (vLLM's, SGLang's or Dynamo's KV-cache transfer, NIXL's own
examples): which NIXL call failed with which status.

NIXL's Python binding turns each failed status into an exception of its own class (ai-dynamo/nixl
src/bindings/python/nixl_bindings.cpp: ``py::register_exception<nixlBackendError>(m, "nixlBackendError")``, nixlNotPostedError,
nixlInvalidParamError, nixlNotFoundError, nixlMismatchError, nixlNotAllowedError, nixlRepostActiveError,
nixlUnknownError, nixlNotSupportedError, nixlRemoteDisconnectError, nixlCancelledError, nixlNoTelemetryError), its
message the status's name (nixl_status_t: NIXL_ERR_BACKEND, NIXL_ERR_REMOTE_DISCONNECT, ...). Sample lines (real)::

    nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND                         (ai-dynamo/nixl#96: createBackend)
    ERROR 03-20 10:42:24 engine.py:244] nixlBackendError('NIXL_ERR_BACKEND')   (ai-dynamo/dynamo#288: vLLM's engine
                                                                               logging the exception, after UCX's refused connect)

Fact: ``nixl_error`` per line (the exception class and the status). A status word without its exception (a
comment, a document, an enum's listing) is not read. No such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import NixlError
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nixl_log"

# nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND      (ai-dynamo/nixl#96; a traceback's last line, the class's module first)
# nixlBackendError('NIXL_ERR_BACKEND')                    (ai-dynamo/dynamo#288: the exception's repr, vLLM's logger head off)
_ERROR = re.compile(r"\b(?:nixl\._\w{1,24}\.)?(?P<exc>nixl[A-Z][A-Za-z]{1,30}Error)(?:: |\(')(?P<status>NIXL_ERR_[A-Z_]{2,30})\b")


def detect(head: str) -> bool:
    return "NIXL_ERR_" in head and _ERROR.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "NIXL_ERR_" not in line or (m := _ERROR.search(line)) is None:
            continue
        b.add(NixlError, n, exception=m["exc"], status=m["status"])
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"nixl[A-Z][A-Za-z]+Error(?:: |\(')NIXL_ERR_[A-Z_]+",)
