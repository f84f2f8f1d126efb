"""A program's failed glog or absl fatal check (``CHECK``, ``CHECK_EQ``/``_NE``/``_GE``..., ``PCHECK``), the line it
logs at FATAL before it aborts: looked for anywhere in a file, since the program prints it on its stderr among its own
output (an NCCL net plugin inside nccl-tests, a framework inside a training log).

glog (src/logging.cc, ``LogMessage::Init``) writes each line's prefix as the severity's first letter, the year when
``FLAGS_log_year_in_prefix`` is set (glog 0.7), ``mmdd hh:mm:ss.uuuuuu``, the thread id (``setw(5)``), the source's
basename and line, then ``"] "``; absl's (absl/log/internal/log_format.cc) is the same without the year. A check logs
``"Check failed: " #condition " "`` then what the program streamed (glog src/glog/logging.h ``CHECK``); ``CHECK_EQ(a, b)``
and its kin ``"Check failed: " #a " == " #b " (" a " vs. " b ")"`` (``MakeCheckOpString``); ``PCHECK`` appends
``": " << StrError(errno) << " [" << errno << "]"`` (``ErrnoLogMessage``). Sample content (real)::

    F0721 02:48:28.834262 1159892 util.h:139] Check failed: bind(*listen_fd, (struct sockaddr*)&serv_addr, sizeof(serv_addr)) >= 0 ERROR: binding    (uccl-project/uccl#172, UCCL's NCCL net plugin in Docker; the same run's first line had the year: F20250720 17:52:37.391902 ...)
    F1125 15:44:39.266677 200102 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0)     (PaddlePaddle/Paddle#14620)
    Check failed: cq_ : Cannot allocate memory [12]          (Oneflow-Inc/oneflow#8974: PCHECK of an ibverbs CQ, as the PR shows its output)

Facts: where the check is of a libibverbs call and says its errno (PCHECK's ``: <strerror> [<errno>]``, or CHECK_EQ of a
call that returns the errno, rdma-core's man pages: ``ibv_modify_qp``, ``ibv_post_send``, ...), ``verbs_call_failed``
(the call and strerror's text), which the verbs rules read; every other check, ``fatal_check_failed`` (the condition,
the call it makes, CHECK_OP's values, PCHECK's errno, the prefix's source file and line). A check of a CUDA or NCCL
result (``== cudaSuccess (2 vs. 0)``, ``== ncclSuccess (1 vs. 0)``) is read by cuda_app and torch_log as the error it
names; this reader's fact on the same line is then explained with it (engine/accounting.py counts lines). A check
nothing explains is an unexplained error, quoted. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import os
import re

from stethoscope.facts.kinds.app import FatalCheckFailed
from stethoscope.facts.kinds.network import VerbsCallFailed
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "glog_check"

# F0721 02:48:28.834262 1159892 util.h:139] Check failed: bind(*listen_fd, ...) >= 0 ERROR: binding     (uccl#172)
# F20250720 17:52:37.391902 1125343 util.h:139] Check failed: ...                                         (uccl#172, glog 0.7's year)
# F1125 15:44:39.266677 200102 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0)   (Paddle#14620)
_PREFIX = re.compile(
    r"\b[IWEF](?:\d{4})?\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d{1,10} (?P<file>[^\s:\]]{1,200}):(?P<line>\d{1,6})\] ")
# "Check failed: " then the condition (bounded: a condition with a lambda runs long, a line without end must stay linear)
_CHECK = re.compile(r"\bCheck failed: (?P<cond>\S[^\n]{0,1000})")
# CHECK_OP's values: " (1 vs. 0)"
_VALUES = re.compile(r" \((?P<a>[^()\n]{0,100}) vs\. (?P<b>[^()\n]{0,100})\)")
# PCHECK's tail: ": Cannot allocate memory [12]"
_ERRNO = re.compile(r" ?: (?P<text>[A-Z][A-Za-z' /-]{2,60}) \[(?P<num>\d{1,4})\]\s*$")
# the first call of the condition: "bind(", "dynload::ncclGroupEnd(", "ibv::wrapper.ibv_destroy_qp(" (the name before
# "(": a namespace or an object before it is left off)
_CALL = re.compile(r"\b(?P<name>[A-Za-z_]\w{0,60})\(")
#: words before "(" that are not calls
_NOT_CALLS = frozenset({"if", "while", "for", "sizeof", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
                        "decltype", "alignof", "typeid", "return"})
#: the C library's strerror texts
_STRERRORS = frozenset(os.strerror(n) for n in range(1, 134))
#: libibverbs calls that return the errno itself on failure (rdma-core man pages: "returns 0 on success, or the value of
#: errno on failure"), so CHECK_EQ's other value is one
_VERBS_RETURN_ERRNO = frozenset({"ibv_modify_qp", "ibv_query_qp", "ibv_destroy_qp", "ibv_destroy_cq", "ibv_dealloc_pd",
                                 "ibv_dereg_mr", "ibv_post_send", "ibv_post_recv", "ibv_query_port", "ibv_query_device"})


def detect(head: str) -> bool:
    return "Check failed: " in head and _CHECK.search(head) is not None


def _call(cond: str) -> str | None:
    for m in _CALL.finditer(cond):
        if m["name"] not in _NOT_CALLS:
            return m["name"]
    return None


def _verbs_errno(call: str | None, values: re.Match | None, errno_m: re.Match | None) -> str | None:
    """strerror's text of a verbs call's failure the check states, else None."""
    if call is None or not call.startswith("ibv_"):
        return None
    if errno_m is not None and errno_m["text"] in _STRERRORS:
        return errno_m["text"]
    if values is not None and call in _VERBS_RETURN_ERRNO:
        for v in (values["a"].strip(), values["b"].strip()):
            if v.isdigit() and 0 < int(v) < 134:
                return os.strerror(int(v))
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(("Check failed: ",), artefact):
        m = _CHECK.search(line)
        if m is None or "NVRM" in line:  # the NVIDIA driver's own "nvCheckOkFailedNoLog: Check failed:" (kernel_log_nvrm)
            continue
        cond = m["cond"].strip()
        pre = _PREFIX.search(line, 0, m.start() + 1)
        values = _VALUES.search(cond)
        errno_m = _ERRNO.search(cond)
        call = _call(cond[:values.start()] if values else cond)
        result.lines_used += 1
        verbs_error = _verbs_errno(call, values, errno_m)
        if verbs_error is not None:
            fb.add(VerbsCallFailed, n, call=call, error=verbs_error)
            continue
        fb.add(FatalCheckFailed, n, condition=cond[:300], call=call,
               values=f"{values['a'].strip()} vs. {values['b'].strip()}" if values else None,
               errno_text=errno_m["text"] if errno_m else None, errno=int(errno_m["num"]) if errno_m else None,
               source_file=pre["file"] if pre else None, source_line=int(pre["line"]) if pre else None,
               message=line[pre.start() if pre else m.start():].strip()[:400])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bCheck failed: \S",)
