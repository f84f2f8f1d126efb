"""glog's failure-signal report: a C++ program that installed glog's failure signal handler
(``google::InstallFailureSignalHandler``: PaddlePaddle, and other programs built on glog) prints,
when a signal ends it, the time, the signal, who sent it and its stack, on stderr, in any output,
so it is looked for anywhere in a file. Sample lines (real, from the sources named)::

    *** Aborted at 1570245447 (unix time) try "date -d @1570245447" if you are using GNU date ***
    PC: @ 0x0 (unknown)
    *** SIGTERM (@0x38400000db2) received by PID 5342 (TID 0x7efe568a6700) from PID 3506; stack trace: ***
    @ 0x7efe5647d160 (unknown)                 (PaddlePaddle/PaddleFleetX#74, under glog's W-prefix, as stored)
    *** SIGSEGV (@0x0) received by PID 2374 (TID 0x7fd67ff2c740) from PID 0; stack trace: ***    (a program's crash report)
    *** SIGABRT (@0x1817c45e8) received by PID 4540 (TID 0x1ee24a1c0) stack trace: ***    (glog on macOS: no sender)
    [SignalInfo: *** SIGFPE (@0x7fa513bc2049) received by PID 3171 (TID 0x7fa5cdf56700) from PID 331096137 ***]
                                            (Paddle 2.x's "Error Message Summary", after its "FatalError: `Erroneous
                                             arithmetic operation` is detected by the operating system." line)

folly's fatal-signal handler (folly/debugging/symbolizer/SignalHandler.cpp dumpTimeInfo / dumpSignalInfo,
``folly::symbolizer::installFatalSignalHandler``: programs built on folly, such as deepseek-ai/3FS's
services and admin_cli) prints the same report in its own words, the frames' addresses without 0x::

    *** Aborted at 1742303109 (Unix time, try 'date -d @1742303109') ***
    *** Signal 11 (SIGSEGV) (0x0) received by PID 374105 (pthread TID 0x7f7c6702ed40) (linux TID 374105) (code: address not mapped to object), stack trace: ***
        @ 000000000245250f folly::symbolizer::(anonymous namespace)::signalHandler(int, siginfo_t*, void*)
                                            (deepseek-ai/3FS#192: admin_cli on an Intel E810 RDMA card; folly adds
                                             "(maybe from PID N, UID N)" when the kernel names a sender)

Paddle's FatalError line names the signal in POSIX's words (paddle/fluid/platform/init.cc
SignalErrorStrings): pasted without the ``[SignalInfo: ...]`` line it is read from those words::

    FatalError: `Segmentation fault` is detected by the operating system.     (a PaddleOCR service's log, quoted)

Paddle 1.x writes its own lines above glog's (paddle/fluid/platform/init.cc SignalHandle)::

    Warning: PaddlePaddle catches a failure signal, it may not work properly
    You could check whether you killed PaddlePaddle thread/process accidentally or report the case to PaddlePaddle
    The detail failure signal is:

"from PID N" is the sender (``siginfo.si_pid``): meaningful for a signal another process sent with
kill() (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1/2: a launcher tearing a job down, a scheduler, a
user); for a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) the field holds no process (0 or noise) and for
SIGABRT it is the process itself (abort()).

Facts: ``launched_process_killed`` per report (``launcher`` "glog", folly's too, the signal and its number,
``sent_by_pid`` the sender of a kill-like signal other than the process itself, and for a crash
signal the innermost frame of the stack past the handler and the C runtime as ``crashed_in``,
``crash_library`` "nccl" for NCCL's symbols). The report's other lines (the time, PC, the frames,
Paddle's lines) are read as its own. A report's head (``*** Aborted at``) with no signal line after it
(a paste cut there) is a parse problem: an error the paste does not name. Empty input, or neither
line: nothing.
"""
from __future__ import annotations

import re
import signal as _signal

from stethoscope.facts.kinds.app import LaunchedProcessKilled  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "glog_failure_signal"

# *** SIGTERM (@0x38400000db2) received by PID 5342 (TID 0x7efe568a6700) from PID 3506; stack trace: ***
# *** SIGABRT (@0x1817c45e8) received by PID 4540 (TID 0x1ee24a1c0) stack trace: ***
# [SignalInfo: *** SIGFPE (@0x7fa513bc2049) received by PID 3171 (TID 0x7fa5cdf56700) from PID 331096137 ***]
SIGNAL_LINE = re.compile(
    r"\*\*\* (?P<sig>SIG[A-Z0-9]{2,8}) \(@0x[0-9a-fA-F]{1,16}\) received by PID (?P<pid>\d{1,10})"
    r" \(TID 0x[0-9a-fA-F]{1,16}\)(?: from PID (?P<sender>\d{1,10}))?(?:;? stack trace:)? \*\*\*")
# *** Signal 11 (SIGSEGV) (0x0) received by PID 374105 (pthread TID 0x7f7c6702ed40) (linux TID 374105) (code: address not mapped to object), stack trace: ***
#   (folly's dumpSignalInfo: "*** Signal " signum " (" name ")" " (" si_addr ")" " received by PID " ... " (pthread TID "
#   ... ") (linux TID " ... ")" [" (maybe from PID " ", UID " ")"] [" (code: " ... ")"] ", stack trace: ***"; deepseek-ai/3FS#192)
_FOLLY_SIGNAL = re.compile(
    r"\*\*\* Signal \d{1,3} \((?P<sig>SIG[A-Z0-9]{2,8})\) \(0x[0-9a-fA-F]{1,16}\) received by PID (?P<pid>\d{1,10})"
    r"(?: \(pthread TID 0x[0-9a-fA-F]{1,16}\))?(?: \(linux TID \d{1,10}\))?(?: \(maybe from PID (?P<sender>\d{1,10}), UID \d{1,10}\))?"
    r"(?: \(code: [^()\n]{1,60}\))?(?:, stack trace:)? \*\*\*")
# *** Aborted at 1570245447 (unix time) try "date -d @1570245447" if you are using GNU date ***
# *** Aborted at 1742303109 (Unix time, try 'date -d @1742303109') ***     (folly's dumpTimeInfo; deepseek-ai/3FS#192)
_ABORTED_AT = re.compile(r"\*\*\* Aborted at \d{1,12} (?:\(unix time\) try \"date -d @\d{1,12}\" if you are using GNU date"
                         r"|\(Unix time, try 'date -d @\d{1,12}'\)) \*\*\*")
# W1005 11:17:27.761384 5342 init.cc:212] PC: @ 0x0 (unknown)
# W1005 11:17:27.762459 5342 init.cc:212] @ 0x7efe5647d160 (unknown)
# W1005 11:17:27.763466 5342 init.cc:212] @ 0x7efe55a95ed3 __GI_select      (PaddlePaddle/PaddleFleetX#74, as stored)
#     @ 000000000245250f folly::symbolizer::(anonymous namespace)::signalHandler(int, siginfo_t*, void*)   (folly: 16 hex
#       digits without 0x; deepseek-ai/3FS#192)
#   (the function to the line's end, greedy: its trailing blanks stripped where read; a lazy name before [ \t]*$ scanned
#   a run of blanks inside a name once per character, quadratic: 164 s on bench/redos.py's 120,000-character variant)
_FRAME = re.compile(r"(?:^|\] |PC: )[ \t]*@[ \t]+(?:0x[0-9a-fA-F]{1,16}|[0-9a-fA-F]{16})[ \t]+(?P<fn>\S[^\n]*)")
# FatalError: `Erroneous arithmetic operation` is detected by the operating system.
# FatalError: `Segmentation fault` is detected by the operating system.
_PADDLE_FATAL = re.compile(r"FatalError: `(?P<desc>[^`\n]{1,80})` is detected by the operating system\.")
#: Paddle's descriptions of the signals it reports (paddle/fluid/platform/init.cc SignalErrorStrings, quoted from
#: POSIX signal.h), for its FatalError line pasted without the [SignalInfo: ...] line after it
_PADDLE_SIGNALS = {"Segmentation fault": "SIGSEGV", "Illegal instruction": "SIGILL",
                   "Erroneous arithmetic operation": "SIGFPE", "Process abort signal": "SIGABRT",
                   "Access to an undefined portion of a memory object": "SIGBUS", "Termination signal": "SIGTERM"}
_SIGNAL_INFO_LINES = 3  # lines after Paddle's FatalError line its [SignalInfo: ...] follows in
_PADDLE_LINES = ("PaddlePaddle catches a failure signal", "You could check whether you killed PaddlePaddle",
                 "The detail failure signal is:")
_MARKERS = (" received by PID ", "*** Aborted at ", "@ ") + _PADDLE_LINES + (" is detected by the operating system",)
#: signals another process sends with kill(): their "from PID" names the sender
_SENT = frozenset({"SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"})
#: signals a fault or the process itself raises: their stack says where
_CRASH = frozenset({"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT"})
#: frames that are the handler, the kernel's trampoline or the C runtime, not where a crash happened
_RUNTIME = frozenset({"(unknown)", "gsignal", "raise", "abort", "pthread_kill", "__restore_rt", "memcpy", "memmove",
                      "memset", "free", "malloc", "clone", "start_thread", "syscall"})
_NCCL_SYMBOL = re.compile(r"^p?nccl[A-Z_]")
_STACK_LINES = 64  # lines after a signal line its frames are looked for in (two threads' reports interleave)


def _signal_line(line: str) -> re.Match | None:
    """glog's or folly's line that names the signal."""
    return SIGNAL_LINE.search(line) or (_FOLLY_SIGNAL.search(line) if "*** Signal " in line else None)


def detect(head: str) -> bool:
    return (" received by PID " in head and _signal_line(head) is not None) \
        or ("*** Aborted at " in head and _ABORTED_AT.search(head) is not None) \
        or (" is detected by the operating system." in head and _PADDLE_FATAL.search(head) is not None)


def _crash_frame(lines: list[str], start: int) -> tuple[str | None, str | None]:
    """(crashed_in, crash_library) of the frames after a signal line (0-based ``start``): the innermost
    frame past the handler and the C runtime."""
    for line in lines[start + 1:start + 1 + _STACK_LINES]:
        if _signal_line(line):
            break
        f = _FRAME.search(line)
        if f is None:
            continue
        raw = f["fn"].rstrip()
        fn = raw.split("(", 1)[0].strip() or raw
        if raw in _RUNTIME or fn in _RUNTIME or fn.startswith(("__", "folly::symbolizer::")):
            continue
        return fn, "nccl" if _NCCL_SYMBOL.match(fn) else None
    return None, None


def _signal_info_follows(lines: list[str], n: int) -> bool:
    """Whether the [SignalInfo: ...] line of the FatalError line ``n`` (1-based) follows it, before another one."""
    for x in lines[n:n + _SIGNAL_INFO_LINES]:
        if _signal_line(x):
            return True
        if _PADDLE_FATAL.search(x):
            return False
    return False


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    used: set[int] = set()
    found = False
    for n, line in iter_lines_with((" received by PID ",), artefact):
        m = _signal_line(line)
        if m is None:
            continue
        found = True
        used.add(n)
        sig, pid, sender = m["sig"], int(m["pid"]), m["sender"]
        try:
            signum = int(_signal.Signals[sig])
        except KeyError:
            continue
        sent_by = int(sender) if sender and sig in _SENT and int(sender) not in (0, pid) else None
        crashed_in, library = _crash_frame(lines, n - 1) if sig in _CRASH else (None, None)
        fb.add(LaunchedProcessKilled, n, signal=sig, signum=signum, command="", launcher="glog",
               sent_by_pid=sent_by, crashed_in=crashed_in, crash_library=library)
    # the report's own lines: the time, PC, the frames, Paddle's lines around them (Paddle's come first)
    marked = [(n, line) for n, line in iter_lines_with(_MARKERS, artefact)]
    for n, line in marked:
        # Paddle's FatalError line without the [SignalInfo: ...] line that names the signal (a paste cut after it)
        if (f := _PADDLE_FATAL.search(line)) is None or (sig := _PADDLE_SIGNALS.get(f["desc"])) is None \
                or _signal_info_follows(lines, n):
            continue
        found = True
        used.add(n)
        fb.add(LaunchedProcessKilled, n, signal=sig, signum=int(_signal.Signals[sig]), command="", launcher="glog")
    heads = [n for n, line in marked if _ABORTED_AT.search(line)]
    if found or heads:
        used.update(heads)
        used.update(n for n, line in marked if _FRAME.search(line) or _PADDLE_FATAL.search(line)
                    or any(k in line for k in _PADDLE_LINES))
    if not found and heads:
        # the report's head without its signal line (a paste cut there): a crash nobody can name from it
        fb.error(heads[0], "glog failure-signal report cut before its signal line")
    result.lines_used = len(used)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\) received by PID \d+ \(TID 0x", r"\*\*\* Aborted at \d+ \(unix time\) try ",
              r"\*\*\* Signal \d+ \(SIG[A-Z0-9]+\) \(0x[0-9a-fA-F]+\) received by PID ", r"\*\*\* Aborted at \d+ \(Unix time, try ",
              r"FatalError: `[^`]+` is detected by the operating system")
