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
comment, a document, an enum's listing) is not read. No such line: nothing. Where a Python traceback ends in it, the
last frame's source line right above names the agent's call that raised it (ai-dynamo/nixl#334, registering a CUDA
tensor; src/api/python/_api.py nixl_agent.register_memory calls the binding's registerMem)::

      File "/home/yingliu/.local/lib/python3.12/site-packages/nixl/_api.py", line 267, in register_memory
        self.agent.registerMem(reg_descs, handle_list)
    nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import NixlError
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nixl_log"

# nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND      (ai-dynamo/nixl#96; a traceback's last line, the class's module first)
# nixlBackendError('NIXL_ERR_BACKEND')                    (ai-dynamo/dynamo#288: the exception's repr, vLLM's logger head off)
_ERROR = re.compile(r"\b(?:nixl\._\w{1,24}\.)?(?P<exc>nixl[A-Z][A-Za-z]{1,30}Error)(?:: |\(')(?P<status>NIXL_ERR_[A-Z_]{2,30})\b")


# a frame's source line, the call last on it:   self.agent.registerMem(reg_descs, handle_list)   /   agent.createBackend("UCX", params)
_CALL = re.compile(r"^\s{2,}(?:[\w.\[\]]{1,200}\.)?(?P<call>[A-Za-z_]\w{1,60})\(.{0,400}\)\s*$")
# its frame line above:   File "/.../nixl/_api.py", line 267, in register_memory
_FRAME = re.compile(r'^\s*File "[^"\n]{1,1000}", line \d{1,9}, in \S')


def detect(head: str) -> bool:
    return "NIXL_ERR_" in head and _ERROR.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "NIXL_ERR_" not in line or (m := _ERROR.search(line)) is None:
            continue
        lines = artefact.lines
        call = (c["call"] if n >= 3 and (c := _CALL.match(lines[n - 2])) is not None and _FRAME.match(lines[n - 3])
                else None)
        b.add(NixlError, n, exception=m["exc"], status=m["status"], call=call)
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"nixl[A-Z][A-Za-z]+Error(?:: |\(')NIXL_ERR_[A-Z_]+",)
