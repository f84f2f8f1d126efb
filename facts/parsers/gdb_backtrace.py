"""gdb's backtraces (``bt``, ``thread apply all bt``, ``gdb -p PID -batch -ex 'thread apply all bt'``):
the native stacks of a process, posted when a job hangs (where each rank waits) or crashed (a core's
stack).

gdb prints one line per frame (gdb/stack.c print_frame): ``#<n>  0x<pc> in <function> (<args>) at
<file>:<line>``, ``... from <library>`` when it has no line table, no ``0x<pc> in`` for a frame whose pc
starts a line (an inlined frame); ``thread apply all bt`` heads each thread's stack with ``Thread <n>
(Thread 0x<id> (LWP <tid>) ["<name>"]):``. Sample content (real, NVIDIA/nccl#234: rank 0 of a
two-rank communicator, hung; harvest 2907)::

    #0  0x00007fffa99437f8 in accept () from /usr/lib64/libpthread.so.0
    #1  0x00007fff86bdb958 in ncclSocketAccept (listenComm=0x1b040e180, recvComm=0x7ffffd203040) at transport/net_socket.cc:153
    #3  bootstrapRecv (commState=0x1b03f9980, peer=<optimized out>, data=0x7ffffd203100, size=<optimized out>) at bootstrap.cc:332
    #6  ncclCommInitRankSync (newcomm=0x1b1fbae80, nranks=2, commId=..., myrank=0) at init.cc:950

Facts: ``native_stack`` per thread's stack, cited at its frame #0: how many frames were read, the
innermost function, ``blocked_in`` where that is a call that blocks the thread (accept, poll,
epoll_wait, recv, read, a futex or condition wait, nanosleep, ioctl ...), and the NCCL call it is in:
the outermost NCCL API frame, the innermost NCCL frame (public or internal: ncclSocketAccept,
bootstrapRecv, p2pSetup) and the phase (``init`` under ncclCommInit*/ncclCommSplit or
initTransportsRank, ``collective`` under a collective, send/recv or group call). A snapshot of one
moment: no rule takes it for a hang by itself. PyTorch's own C++ traces (``frame #0: c10::Error::...``)
are torch_log's, Python's tracebacks and py-spy dumps other readers'. Empty input, or no frame line:
not recognised.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import NativeStack  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gdb_backtrace"

# #0  0x00007fffa99437f8 in accept () from /usr/lib64/libpthread.so.0                                  (NVIDIA/nccl#234)
# #1  0x00007fff86bdb958 in ncclSocketAccept (listenComm=0x1b040e180, recvComm=0x7ffffd203040) at transport/net_socket.cc:153
# #3  bootstrapRecv (commState=0x1b03f9980, peer=<optimized out>, data=0x7ffffd203100, size=<optimized out>) at bootstrap.cc:332
# #1  0x00007fa47475f9ac in std::condition_variable::wait(std::unique_lock<std::mutex>&) () from /lib64/libstdc++.so.6   (a hung db_bench,
#                                                                    fixtures/artefacts/gdb_backtrace/rocksdb_db_bench_thread_apply_all_bt.txt)
# (the function: up to the first " (", gdb's arguments; a demangled C++ name keeps its "::", templates and its
# parameter list, which has no space before its "("; the name is what comes before that list)
_FRAME = re.compile(r"^[ \t]*#(?P<n>\d{1,5}) +(?:(?P<pc>0x[0-9a-fA-F]{1,16}) in )?(?P<func>[^\s(](?:[^ \n]| (?!\())*) \("
                    r"[^\n]{0,4000}?\)(?:[ \t]+(?:at (?P<src>[^\s:]{1,1000}):(?P<line>\d{1,7})|from (?P<lib>\S{1,1000})))?[ \t\r]*$")
# Thread 4 (Thread 0x7fa472dd2700 (LWP 14197)):            (gdb/thread.c, thread apply all: "Thread %s (%s):"; a hung RocksDB
#                                                          db_bench, fixtures/artefacts/gdb_backtrace/rocksdb_db_bench_thread_apply_all_bt.txt)
# Thread 3 (Thread 0x7fffe2f8c640 (LWP 123) "pt_main_thread"):   (the form only, no captured line: gdb/thread.c
#                                                               thread_target_id_str appends the thread's name in quotes)
_THREAD = re.compile(r"^[ \t]*Thread (?P<n>\d{1,6}(?:\.\d{1,6})?) \((?:Thread 0x[0-9a-fA-F]{1,16} )?\(LWP (?P<lwp>\d{1,10})\)"
                     r"(?: \"[^\"\n]{0,100}\")?\):[ \t\r]*$")
# the frame forms only gdb prints: a pc and "in", or arguments then "at file:line" / "from library"
_SIGNATURES = (r"(?m)^[ \t]*#\d+ +0x[0-9a-fA-F]+ in \S", r"(?m)^[ \t]*#\d+ +[^\n(]+ \([^\n]*\) (?:at [^\s:]+:\d+|from \S+)[ \t]*$")
_DETECT = tuple(re.compile(s) for s in _SIGNATURES)

# calls a waiting thread sits in (glibc's internal names reduced: __GI___poll -> poll, __libc_read -> read,
# pthread_cond_wait@@GLIBC_2.3.2 -> pthread_cond_wait)
_BLOCKING = frozenset((
    "accept", "accept4", "poll", "ppoll", "select", "pselect", "pselect6", "epoll_wait", "epoll_pwait", "recv", "recvfrom",
    "recvmsg", "read", "connect", "futex_wait", "futex_abstimed_wait", "futex_abstimed_wait_common", "lll_lock_wait",
    "pthread_cond_wait", "pthread_cond_wait_common", "pthread_cond_timedwait", "pthread_cond_clockwait", "pthread_join", "sem_wait", "sem_timedwait",
    "nanosleep", "clock_nanosleep", "usleep", "sleep", "wait4", "waitpid", "ioctl", "syscall"))
_GLIBC_PREFIX = re.compile(r"^_*(?:GI_+|libc_)?")
# NCCL's public API (nccl.h, nccl.h.in: every entry point is ncclX, its profiling alias pncclX)
_NCCL = re.compile(r"p?nccl[A-Z]\w*")
# NCCL's own functions without that prefix that name where communicator setup is (src/bootstrap.cc, src/init.cc)
_NCCL_INTERNAL = re.compile(r"(?:bootstrap[A-Z]\w*|p2pSetup|initTransportsRank|ncclTransportP2pSetup)")
_INIT = re.compile(r"p?ncclComm(?:InitRank|InitAll|Split)\w*|initTransportsRank|bootstrapInit")
_COLLECTIVE = re.compile(r"p?nccl(?:AllReduce|Broadcast|Bcast|Reduce|AllGather|ReduceScatter|AllToAll|AlltoAll|Send|Recv|GroupEnd)")


def _plain(func: str) -> str:
    return _GLIBC_PREFIX.sub("", func.split("@", 1)[0])


def detect(head: str) -> bool:
    return "#" in head and any(d.search(head) for d in _DETECT)


def _stack(fb: FactBuilder, at: int, frames: list[str], thread: tuple[str, int] | None) -> None:
    top = frames[0]
    plain = _plain(top)
    nccl = [f for f in frames if _NCCL.fullmatch(f) or _NCCL_INTERNAL.fullmatch(f)]
    api = next((f for f in reversed(frames) if _NCCL.fullmatch(f)), None)
    phase = ("init" if any(_INIT.fullmatch(f) for f in frames) else
             "collective" if any(_COLLECTIVE.fullmatch(f) for f in frames) else "other" if nccl else None)
    fb.add(NativeStack, at, thread=thread[0] if thread else None, lwp=thread[1] if thread else None, frames=len(frames),
           top=top, blocked_in=plain if plain in _BLOCKING else None, nccl_api=api, nccl_inner=nccl[0] if nccl else None,
           nccl_phase=phase)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    frames: list[str] = []
    at = 0
    thread: tuple[str, int] | None = None
    for n, line in enumerate(artefact.lines, 1):
        if "Thread " in line and (t := _THREAD.match(line)):
            if frames:
                _stack(fb, at, frames, thread)
                frames = []
            thread = (t["n"], int(t["lwp"]))
            result.lines_used += 1
            continue
        if "#" not in line or (m := _FRAME.match(line)) is None:
            continue
        if m["n"] == "0" and frames:  # the next stack (a second bt pasted)
            _stack(fb, at, frames, thread)
            frames, thread = [], None
        if not frames:
            at = n
        func = m["func"]
        frames.append(func.split("(", 1)[0] if not func.startswith("operator") else func)
        result.lines_used += 1
    if frames:
        _stack(fb, at, frames, thread)
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = _DETECT
