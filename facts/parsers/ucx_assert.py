"""UCX stopping a process on one of its own checks, on stderr of any program that uses UCX (Open MPI's pml/spml ucx,
MPICH's ch4:ucx, OpenSHMEM, UCX-Py and dask, JUCX under Spark, ucx_perftest, UCX's own gtest), so such lines are
looked for anywhere in a file.

src/ucs/debug/assert.h turns a failed check into ``ucs_fatal_error_format(__FILE__, __LINE__, __FUNCTION__, fmt)``:
``ucs_assert`` / ``ucs_assert_always`` ``"Assertion `%s' failed"``, ``ucs_assertv`` ``"Assertion `%s' failed: " fmt``,
``ucs_bug`` ``"Bug: " fmt`` (the debug builds' checks; the *_always forms in every build). assert.c's
``ucs_fatal_error_message`` prints each line of it as ``"%13s:%-4u %s"`` (the file's base name right-aligned in 13
columns, the line left-aligned in 4) through ``ucs_log_fatal_error``, whose prefix is log.c's ``"[%s:%-5d:%s:%d] "``
(host, pid, thread, tid; ``[host:pid:thread]`` in the releases before 1.4), then ``ucs_handle_error`` prints the
backtrace (``==== backtrace ====`` up to 1.8, ``==== backtrace (tid:%7d) ====`` since; frames as glibc's
backtrace_symbols writes them, or with libbfd ``"%2d 0x%016lx %s()  %s:%u"``) and the process aborts. Sample lines
(real, from the public threads named)::

    [cn004:16556:0]      wireup.c:309  Assertion `ep->flags & UCP_EP_FLAG_CONNECT_REP_SENT' failed    (openucx/ucx#1998)
    [jazz09:67285:0:67285]    ucp_ep.inl:26   Assertion `ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)' failed    (openucx/ucx#3730)
    rndv.c:732  Assertion `mem_type_rma_lane != ((ucp_lane_index_t)-1)' failed    (openucx/ucx#5656, the prefix left out)
    [     INFO ] 0 1 16 128 1048512 1048580 4194324 180466 [swx-rdmz-ucx-gpu-01:32224:4:32224] datatype_iter.inl:320  Assertion `(memh == NULL) || ucp_memh_is_zero_length(memh) || ucp_memh_is_user_memh(memh)' failed: memh=0x2391c100    (openucx/ucx#9528)
    [nid03508:16050:0:16050]   eager_snd.c:25   Assertion `req->send.state.dt.offset == 0' failed    (openucx/ucx#4274)

and the backtrace under it (the same threads)::

    ==== backtrace (tid:  40615) ====
     0  /usr/lib/libucs.so.0.0.0(ucs_handle_error+0x114) [0x7f80656a99a4]
     1  /usr/lib/libucs.so.0.0.0(ucs_fatal_error_message+0x71) [0x7f80656a6511]
     2  /usr/lib/libucs.so.0.0.0(ucs_fatal_error_format+0xf2) [0x7f80656a6662]
     3  /usr/lib/libucp.so.0.0.0(+0x444f0) [0x7f8064fca4f0]
     4  /usr/lib/libucp.so.0.0.0(ucp_rndv_rtr_handler+0x935) [0x7f8064fd1305]

Facts: ``ucx_assertion_failed`` per check line: assertion or bug, the source file and line, the condition, the
message after it, the backtrace's first frame past UCX's error handling, whether the backtrace runs through UCX's CUDA
transports (libuct_cuda: cuda_copy, cuda_ipc, gdr_copy), the node of UCX's prefix. The backtrace's header, frames and
closing rule are read with it: its context, not errors of their own. glibc's own assert() (``<prog>: <file>:<line>:
<function>: Assertion `<expr>' failed.``, a colon after the line number) and ucs_fatal's ``Fatal: `` lines (their
messages read by ucx_log where it knows them) are not this reader's. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import UcxAssertionFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "ucx_assert"

# [cn004:16556:0]      wireup.c:309  Assertion `ep->flags & UCP_EP_FLAG_CONNECT_REP_SENT' failed          (openucx/ucx#1998)
# [jazz09:67285:0:67285]    ucp_ep.inl:26   Assertion `ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)' failed   (openucx/ucx#3730)
# rndv.c:732  Assertion `mem_type_rma_lane != ((ucp_lane_index_t)-1)' failed                               (openucx/ucx#5656)
# ... [swx-rdmz-ucx-gpu-01:32224:4:32224] datatype_iter.inl:320  Assertion `(memh == NULL) || ...' failed: memh=0x2391c100   (openucx/ucx#9528)
# [node07:20411:0:20411]      rc_iface.c:1022 Bug: <text>                                             (assert.h ucs_bug, format filled)
#   (UCX's prefix anywhere on the line, something before it allowed: gtest's progress, mpirun's --tag-output; without
#   the prefix only at the line's start, the base name right-aligned in 13 columns; whitespace, not glibc assert()'s
#   ": ", after the line number)
_CHECK = re.compile(
    r"(?:\[(?P<host>[A-Za-z0-9][\w.-]{0,254}):[ \t]{0,8}\d{1,10}[ \t]{0,8}:\w{1,16}(?::[ \t]{0,8}\d{1,10})?\][ \t]{1,16}"
    r"|^[ \t]{0,16})"
    r"(?P<file>[\w.+-]{1,80}\.(?:c|h|inl|cc|cpp|cu)):(?P<line>\d{1,6})[ \t]{1,8}"
    r"(?:Assertion `(?P<cond>[^\n]{1,600}?)' failed(?:: (?P<msg>[^\n]{1,300}?))?|Bug: (?P<bug>[^\n]{1,300}?))[ \t]*\r?$",
    re.M)
# ==== backtrace ====                 ==== backtrace (tid:  40615) ====
_BACKTRACE = re.compile(r"==== backtrace(?: \(tid:[ \t]{0,8}\d{1,10}\))? ====")
#  3  /usr/lib/libucp.so.0.0.0(+0x444f0) [0x7f8064fca4f0]                       (openucx/ucx#5656: backtrace_symbols)
#     6  /gpfs/home/arcurtis/opt/openmpi/gnu/git/lib/openmpi/mca_spml_ucx.so(spml_ucx_progress+0x17) [0x7fffe2da62a7]   (openucx/ucx#1998)
_SYMBOLS_FRAME = re.compile(r"(?:^|[\s:>])\d{1,3}[ \t]{1,4}(?P<obj>[^\s(\[]{1,300})\((?P<fn>[^+)\s]{0,200})"
                            r"(?:\+(?P<off>0x[0-9a-f]{1,16}))?\)[ \t]?\[0x[0-9a-f]{1,16}\]")
# 11  [0x7f8253f87427]                                  (openucx/ucx#5656: a JIT-compiled frame, no object)
_BARE_FRAME = re.compile(r"^[ \t]{0,8}\d{1,3}[ \t]{1,4}\[0x[0-9a-f]{1,16}\][ \t]*\r?$")
#  0 0x000000000001b2fe ucp_rkey_pack()  /cluster/home/marcink/src/ucx-1.6.1/src/ucp/core/ucp_rkey.c:117   (openucx/ucx#4272: libbfd's frames)
_BFD_FRAME = re.compile(r"^[^\n]{0,80}?\d{1,3}[ \t]{1,4}0x[0-9a-f]{1,16} (?P<fn>[^\s()]{1,200})\(\)[ \t]{1,4}(?P<src>\S{0,400})")
#: the frames of UCX's own error handling, above the check's caller
_HANDLER = re.compile(r"^(?:__)?ucs_(?:handle_error|fatal_error_\w+|abort|debug_\w+|log_\w+|error_\w+)$")
_RUNTIME = frozenset({"abort", "raise", "gsignal", "__GI_abort", "__GI_raise", "pthread_kill"})
#: UCX's CUDA transport modules and their functions (src/uct/cuda: cuda_copy, cuda_ipc, gdr_copy; libuct_cuda.so,
#: libuct_cuda_gdr.so)
_CUDA_OBJECT = re.compile(r"(?:^|/)libuct_cuda\w*\.so")
_CUDA_FN = re.compile(r"^uct_(?:cuda|gdr_copy)_")
#: how many lines after the check its backtrace header is looked for in (UCX's source listing may come between)
_HEADER_LINES = 24
_MAX_FRAMES = 64


def detect(head: str) -> bool:
    return ("Assertion `" in head or "Bug: " in head) and _CHECK.search(head) is not None


def _frames(lines: list[str], start: int) -> tuple[list[int], str | None, bool]:
    """(0-based indexes of the backtrace's lines, first frame past UCX's error handling, through UCX's CUDA transports)
    of the backtrace after line index ``start``."""
    header = next((i for i in range(start + 1, min(start + 1 + _HEADER_LINES, len(lines)))
                   if _BACKTRACE.search(lines[i]) is not None), None)
    if header is None:
        return [], None, False
    used, frame, cuda = [header], None, False
    for i in range(header + 1, min(header + 1 + _MAX_FRAMES, len(lines))):
        line = lines[i]
        if line.strip().startswith("====="):
            used.append(i)
            break
        m = _SYMBOLS_FRAME.search(line)
        if m is not None:
            src, fn, off = m["obj"], m["fn"], m["off"]
            name = src.rsplit("/", 1)[-1]
        elif (b := _BFD_FRAME.search(line)) is not None:
            fn, name, off, src = b["fn"], "", None, b["src"]
        elif _BARE_FRAME.match(line) is not None:
            used.append(i)
            continue
        else:
            break
        used.append(i)
        cuda = cuda or _CUDA_OBJECT.search(src) is not None or _CUDA_FN.match(fn) is not None or "/uct/cuda/" in src
        if _HANDLER.match(fn) or fn in _RUNTIME or name.startswith(("libucs.", "libc.", "libpthread.")):
            continue
        if frame is None:
            frame = fn or (f"{name}+{off}" if off else name)
    return used, frame, cuda


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if "Assertion `" not in artefact.text and "Bug: " not in artefact.text:
        return result
    lines = artefact.lines
    used: set[int] = set()
    for n, m in iter_matches(_CHECK, artefact):
        frames, frame, cuda = _frames(lines, n - 1)
        used.add(n)
        used.update(i + 1 for i in frames)
        result.read.update(i + 1 for i in frames)
        bug = m["bug"] is not None
        fb.add(UcxAssertionFailed, n, node=artefact.node_for(m["host"]) if m["host"] else artefact.node,
               check="bug" if bug else "assertion", source=m["file"], source_line=int(m["line"]),
               condition=None if bug else m["cond"].strip(), message=(m["bug"] if bug else m["msg"]),
               frame=frame, cuda_transport=cuda)
    result.lines_used = len(used)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\.(?:c|h|inl|cc|cpp|cu):\d+[ \t]+Assertion `[^\n]*' failed", r"\.(?:c|h|inl|cc|cpp|cu):\d+[ \t]+Bug: ")
