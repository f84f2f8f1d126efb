"""The C++ runtime's abort messages, in any program's output: the process ended on SIGABRT (exit code
-6, "Aborted (core dumped)") with no exception to name, so it is looked for anywhere in a file.

libstdc++ prints them before it calls abort() (gcc's libstdc++-v3/libsupc++): ``__cxa_pure_virtual``
(pure.cc) writes ``pure virtual method called`` and ``__cxa_deleted_virtual`` ``deleted virtual
method called``, then call std::terminate; the verbose terminate handler (vterminate.cc) writes
``terminate called without an active exception`` when no exception is in flight (std::terminate
called directly: a joinable std::thread destroyed, the pure virtual call above) and ``terminate
called recursively`` when terminating again. (With an exception in flight it writes ``terminate
called after throwing an instance of '<type>'`` and its ``what():``: that names the exception, which
the application's readers and unrecognised_text read.) A pure virtual call is a virtual method
called on an object whose destructor already ran: at exit, a thread (a profiler callback, the NCCL
watchdog, a logger) still using an object the exit path destroyed. Sample lines (real, verbatim in
fixtures/artefacts/cpp_runtime_abort: a Megatron-LM run after its validation, NVIDIA/Megatron-LM#1874, the
profiler's callbacks cleaned up while the process exited)::

    [rank0]:[W1019 08:16:25.280921748 observer.cpp:116] Warning: Leaked callback handle: 1 (function operator())
    pure virtual method called
    terminate called without an active exception
    E1019 08:21:39.599000 3036 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) local_rank: 0 (pid: 3042) of binary: /usr/bin/python

Facts: ``cpp_runtime_abort`` per abort: ``reason`` (``pure_virtual_call``, ``deleted_virtual_call``,
``terminate_without_exception``, ``terminate_recursively``); a virtual call's ``terminate called
without an active exception`` on one of the next lines is the same abort (``terminated``). Empty
input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CppRuntimeAbort  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cpp_runtime_abort"

# pure virtual method called                                  (NVIDIA/Megatron-LM#1874; libsupc++/pure.cc)
# deleted virtual method called                               (libsupc++/pure.cc, __cxa_deleted_virtual)
# terminate called without an active exception                (NVIDIA/Megatron-LM#1874; libsupc++/vterminate.cc)
# terminate called recursively                                (libsupc++/vterminate.cc)
# terminate called after throwing an instance of 'c10::DistBackendError'   (InternLM/lmdeploy#3258; libsupc++/vterminate.cc:
#   "terminate called after throwing an instance of '" + the demangled type + "'", then "  what():  " + what())
# (a launcher's prefix before it: "[rank0]: ", "[default0]:", "[1,0]<stderr>:"; the message is the rest of its line)
_LINE = re.compile(r"(?:^|[\s:>\]])(?P<what>(?P<virtual>pure|deleted) virtual method called"
                   r"|terminate called (?P<how>without an active exception|recursively)"
                   r"|terminate called after throwing an instance of '(?P<type>[^'\n]{1,300})')[ \t\r]*$", re.M)
_REASON = {"pure": "pure_virtual_call", "deleted": "deleted_virtual_call",
           "without an active exception": "terminate_without_exception", "recursively": "terminate_recursively"}
#   what():  Error (gpu_burn-drv.cpp:298): system not yet initialized      (wilicc/gpu-burn#92: the exception's what(), next line)
#: the line after "terminate called after throwing ...": the exception's what() (unrecognised_text joins the two by it too)
WHAT_LINE = re.compile(r"[ \t]+what\(\):[ \t]")
#: lines after a virtual call in which its terminate line is the same abort
_FOLLOW = 3


def detect(head: str) -> bool:
    return ("virtual method called" in head or "terminate called" in head) and _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    text = artefact.text
    said: set[int] = set()  # terminate lines told with the virtual call before them
    for m in _LINE.finditer(text):
        n = artefact.line_of(m.start("what"))
        result.lines_used += 1
        if m["virtual"]:
            after = next((k for k in range(n + 1, min(n + _FOLLOW, len(artefact.lines)) + 1)
                          if artefact.lines[k - 1].rstrip().endswith("terminate called without an active exception")), None)
            if after is not None:
                said.add(after)
            fb.add(CppRuntimeAbort, n, reason=_REASON[m["virtual"]], terminated=after is not None)
        elif m["type"]:
            line = artefact.lines[n - 1].strip()
            shown = n < len(artefact.lines) and WHAT_LINE.match(artefact.lines[n]) is not None
            if shown:
                result.lines_used += 1
                line = f"{line} {artefact.lines[n].strip()}"
            fb.add(CppRuntimeAbort, n, reason="uncaught_exception", exception=m["type"], message=line[:400],
                   what_shown=shown)
        elif n not in said:
            fb.add(CppRuntimeAbort, n, reason=_REASON[m["how"]])
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (r"(?:pure|deleted) virtual method called|terminate called (?:without an active exception|recursively"
              r"|after throwing an instance of ')",)
