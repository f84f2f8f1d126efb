"""NCCL failures as JAX/XLA (and TensorFlow's XLA GPU runtime) report them.

Made by a JAX or TensorFlow job's stderr. XLA turns a failed NCCL call into a status whose text
quotes ``ncclGetLastError()``: NCCL's last WARN message without its prefix. XLA's format strings
(openxla/xla, xla/backends/gpu/collectives and xla/service/gpu/nccl_utils)::

    "%s:%d: NCCL operation %s failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'."
    "NCCL operation %s failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'."
    "failed to allocate %s (%llu bytes) from device collective memory: %s, Last NCCL warning(error) log entry (may be unrelated): %s"

Sample content (marin-community/marin#7018, excerpted by its reporter with "..."; the whole
status is usually one line)::

    Failed to create NCCL communicator: INTERNAL: ncclCommInitRankConfig(...) failed:
    invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'

The call is quoted as XLA's source spells it, its arguments holding calls of their own (google/flax#4942,
XLA's collectives since 2024), and older XLA (TensorFlow's tree, jaxlib 0.1) quoted no message, its status
ending in the replica that failed (j-towns/vdvae-jax#2)::

    E0912 23:44:51.552719 2536982 pjrt_stream_executor_client.cc:3008] Execution of replica 0 failed: INTERNAL: NCCL operation ncclAllReduce( send_buffer.opaque(), recv_buffer.opaque(), ToNcclCount(dtype, count), nccl_dtype, ToNcclReduction(reduction_kind), comm_, se::gpu::AsGpuStreamValue(stream)) failed: invalid argument (run with NCCL_DEBUG=WARN for details). Last NCCL warning(error) log entry (may be unrelated) ''.
    RuntimeError: Internal: external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nccl_all_reduce_thunk.cc:162: NCCL operation ncclAllReduce(send_buffer, recv_buffer, buffer.element_count, datatype, reduce_op, comm, *cu_stream) failed: invalid usage: while running replica 0 and partition 0 of a replicated computation (other replicas may have failed as well).

XLA's runtime may append its context after the quoted message (LargeWorldModel/LWM#42)::

    ... NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: internal error - please report this issue to the NCCL developers. Last NCCL warning(error) log entry (may be unrelated) 'Attribute busid of node nic not found'.; current tracing scope: reduce-scatter-start.4; ...

Facts: the quoted NCCL message as ``nccl_warn`` (what NCCL's own log shows for it, with its
``message_kind`` where it is one of NCCL's self-explaining WARNs: :mod:`nccl_warn_kinds`) and, when
the message is one NCCL's forwarded-message reader knows (:mod:`torch_nccl_forwarded`: no
socket interface, connect failed, peer closed, duplicate GPU, CUDA failure, ...), the NCCL fact
it stands for, so the rules that read NCCL's own log read it too. A failed NCCL operation whose
status quotes no message gives an ``xla_nccl_error``: the operation and its result, with the
result's ncclResult_t name (jax-ml/jax#15628: ``NCCL operation ncclGroupEnd() failed: unhandled
cuda error.``). XLA's NCCL stub's own text, ``Unable to load NCCL library. Multi-GPU collectives will
not work.`` in place of the result and the message, is no NCCL message: the library was never
loaded, and the file gives one ``shared_library_missing`` (``libnccl.so.2``) instead. XLA's heartbeat
check aborting a communicator (``Aborting communicator: 0x5555a108ff90 due to async NCCL error: remote process
exited or there was a network error``, NVIDIA/JAX-Toolbox#194) gives an ``xla_nccl_error`` with ``aborted`` set: the
abort is XLA's, a consequence of the asynchronous NCCL error it names. Empty input,
or text without these lines, yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import XlaNcclError
from stethoscope.facts.kinds.host import SharedLibraryMissing
from stethoscope.facts.parsers import nccl_warn_kinds
from stethoscope.facts.parsers import torch_nccl_forwarded as fwd
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines
from stethoscope.facts.parsers.nccl_log_facts import NcclWarn
from stethoscope.facts.parsers.torch_log_lines import nccl_error_name

KIND = "xla_nccl"

#: literal gates of detect()
_GATES = ("Last NCCL warning(error)", "NCCL operation ", "due to async NCCL error: ")
# ... Last NCCL warning(error) log entry (may be unrelated) 'Bootstrap : no socket interface found'.
# invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'
# RuntimeError: Internal: external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nccl_all_reduce_thunk.cc:162: NCCL operation ncclAllReduce(send_buffer, recv_buffer, buffer.element_count, datatype, reduce_op, comm, *cu_stream) failed: invalid usage: while running replica 0 and partition 0 of a replicated computation (other replicas may have failed as well).   (j-towns/vdvae-jax#2)
#   (the call quoted with blanks in its arguments: no "\S+ failed: " in it; the call's name is enough)
# XLA's heartbeat check of a clique's communicators (xla/service/gpu/nccl_utils.cc, later nccl_clique.cc CheckComm:
# LOG(ERROR) << "Aborting communicator: " << comm << " due to async NCCL error: " << async_err), then its abort:
# 2023-08-25 11:06:39.330561: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting communicator: 0x5555a108ff90 due to async NCCL error: remote process exited or there was a network error   (NVIDIA/JAX-Toolbox#194)
_ABORT = re.compile(r"Aborting communicator: (?P<comm>\S{1,40}) due to async NCCL error: (?:[A-Z_]{3,30}: )?"
                    r"(?P<result>[^\n]*[^\s.])\.?\s*$")
_DETECT = re.compile(r"Last NCCL warning\(error\)|NCCL operation (?:\S+ failed: |nccl\w{1,60}\()|Aborting communicator: \S{1,40} due to async NCCL error: ")
_LINE = re.compile(r"Last NCCL warning\(error\)|NCCL operation (?:\S+ failed: |nccl\w{1,60}\()|Aborting communicator: \S{1,40} due to async NCCL error: ")
# Last NCCL warning(error) log entry (may be unrelated) 'socketStartConnect: Connect to 10.0.0.2<45763> failed : Connection refused'.
# Last NCCL warning(error) log entry (may be unrelated): Cuda failure 'out of memory'
# ... log entry (may be unrelated) 'Attribute busid of node nic not found'.; current tracing scope: reduce-scatter-start.4; current
#   (the bare message is greedy to its last non-blank: a lazy one before "\s*$" scanned a run of blanks once per step into
#   it, and when the optional " log entry ..." was skipped it started at "log entry": 241 s on bench/redos.py's variant of
#   google/flax#4942's line with 120,000 blanks before its last word; now milliseconds)
_LAST = re.compile(
    r"Last NCCL warning\(error\)(?: log entry \(may be unrelated\))?:? ?(?:'(?P<quoted>.*)'\.?(?:;\s*current\b.*)?|(?P<bare>[^'\s](?:.*\S)?))\s*$"
)
# ncclCommInitRankConfig(...) failed: invalid usage        NCCL operation ncclGroupEnd() failed: unhandled system error.
#   the result ends at a character that is no blank (a lazy result tried the line's end after each blank of a long run
#   before the last word: 6.5 s at 30,000 characters, bench/redos.py session 19); blanks before its dot or the line's
#   end are not part of it. The same answers on every real line of fixtures/, tests/ and the dev corpus
# XLA's NCCL stub (xla/tsl/cuda/nccl_stub.cc) when it could not load the NCCL library (tsl's dso_loader
# GetNcclDsoHandle: GetDsoHandle("nccl", GetNcclVersion()), NCCL 2's libnccl.so.2): every NCCL call returns
# ncclSystemError and ncclGetErrorString / ncclGetLastError return this text, which XLA quotes as the result and as the
# last NCCL warning:
# INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:134: NCCL operation ncclGetUniqueId(&id) failed: Unable to load NCCL library. Multi-GPU collectives will not work.. Last NCCL warning(error) log entry (may be unrelated) 'Unable to load NCCL library. Multi-GPU collectives will not work.'.   (LargeWorldModel/LWM#44)
_STUB = "Unable to load NCCL library. Multi-GPU collectives will not work."
_STUB_LIBRARY = "libnccl.so.2"
# ... NCCL operation ncclAllReduce( send_buffer.opaque(), recv_buffer.opaque(), ToNcclCount(dtype, count), nccl_dtype, ToNcclReduction(reduction_kind), comm_, se::gpu::AsGpuStreamValue(stream)) failed: invalid argument (run with NCCL_DEBUG=WARN for details). Last NCCL warning(error) log entry (may be unrelated) ''.   (google/flax#4942)
# ... NCCL operation ncclAllReduce(send_buffer, ..., *cu_stream) failed: invalid usage: while running replica 0 and partition 0 of a replicated computation (other replicas may have failed as well).   (j-towns/vdvae-jax#2)
#   (the arguments may hold calls one level deep; the result is ncclGetErrorString's text, which holds no colon: it ends
#   before XLA's ": while running replica ..." as before its "." or the line's end. The call's name bounded: an
#   unbounded \w+ before "(" retried every "nccl" of a long run of letters to its end)
_OPERATION = re.compile(r"(?:NCCL operation )?(?P<op>nccl\w{1,60})\((?:[^()\n]|\([^()\n]*\))*\) failed: "
                        r"(?P<result>(?:[^.:\n]*[^.:\s])?)\s*(?:\.\.\.|\.|:|$)")


def detect(text: str) -> bool:
    if not any(g in text for g in _GATES):
        return False
    return _DETECT.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    pending: tuple[int, str, str] | None = None  # an operation failure whose quoted message may follow
    seen: set[tuple[str, str]] = set()  # (operation, result) already reported: every replica prints it

    def no_message(no: int, op: str, res: str) -> None:
        if (op, res) not in seen:
            seen.add((op, res))
            b.add(XlaNcclError, no, operation=op, result=res, nccl_error=nccl_error_name(res))

    stub = False
    for no, line in iter_lines(_LINE, artefact):
        result.lines_used += 1
        if "Aborting communicator: " in line and (ab := _ABORT.search(line)) is not None:
            # XLA aborting the communicator NCCL reported an asynchronous error on: its consequence, the error named;
            # one fact per error text (every communicator of the clique, every process, prints it)
            res = ab["result"].strip()
            if ("abort", res) not in seen:
                seen.add(("abort", res))
                b.add(XlaNcclError, no, operation="ncclCommGetAsyncError", result=res, nccl_error=nccl_error_name(res),
                      aborted=True)
            continue
        if _STUB in line:  # not NCCL's message but XLA's: NCCL itself was never loaded
            if not stub:
                stub = True
                b.add(SharedLibraryMissing, no, library=_STUB_LIBRARY,
                      detail=f"XLA's NCCL stub could not load it: '{_STUB}'")
            pending = None
            continue
        last = _LAST.search(line)
        if last is None:
            op = _OPERATION.search(line)
            if op is None:
                b.error(no, f"XLA NCCL status without an operation or NCCL message: {line.strip()[:200]!r}")
                continue
            if pending is not None:
                no_message(*pending)
            pending = (no, op["op"], op["result"].strip())
            continue
        msg = (last["quoted"] if last["quoted"] is not None else last["bare"] or "").strip()
        if not msg:  # NCCL had no message to give: the operation's result is all there is
            op = _OPERATION.search(line)
            if op is not None:
                no_message(no, op["op"], op["result"].strip())
            elif pending is not None:
                no_message(*pending)
            pending = None
            continue
        pending = None
        got = fwd.read(msg)
        kind = got[1].get("message_kind") if got is not None and got[0] is NcclWarn else nccl_warn_kinds.kind(msg)
        b.add(NcclWarn, no, message=msg, message_kind=kind)
        if got is not None and got[0] is not NcclWarn:
            cls, fields, _peer = got
            b.add(cls, no, **fields)
    if pending is not None:
        no_message(*pending)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
