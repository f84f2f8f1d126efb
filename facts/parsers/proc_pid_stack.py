"""``cat /proc/<pid>/stack``: a task's kernel stack, innermost frame first, the thing people paste when a process
hangs in the kernel (state ``D`` in ``ps``) and the hung-task detector has not spoken yet.

fs/proc/base.c proc_pid_stack() prints one frame a line, ``seq_printf(m, "[<0>] %pB\\n", (void *)entries[i])``: a
literal zero where kernels before 4.17 printed the address (``[<%pK>] %pB``, which looks like a kernel log's call
trace and is left to it), then the function, its offset and size, and the module in brackets. Sample content (real,
microsoft/DLWorkspace#484: a pod's init script stuck writing to NFS; its ``ps aux`` showed the task in ``D``)::

    root@dltsw7be500001T:/tmp/sample_repo_files# cat /proc/1054/stack
    [<0>] nfs_wait_bit_killable+0x24/0xa0 [nfs]
    [<0>] nfs4_wait_clnt_recover+0x67/0x80 [nfsv4]
    [<0>] nfs4_client_recover_expired_lease+0x1d/0x60 [nfsv4]
    [<0>] nfs4_do_open+0xf5/0x690 [nfsv4]
    [<0>] do_sys_open+0x1bb/0x2c0
    [<0>] 0xffffffffffffffff

Fact: one ``task_kernel_stack`` per run of frame lines (its pid where the ``cat /proc/<pid>/stack`` command is just
above it, the frame count, the innermost function, and the network file system a frame sits in, read as
kernel_log_host_os reads a hung task's call trace). Text without such frames is not this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import TaskKernelStack  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.kernel_log_host_os import shared_fs_of

KIND = "proc_pid_stack"

# [<0>] nfs4_wait_clnt_recover+0x67/0x80 [nfsv4]          [<0>] do_sys_open+0x1bb/0x2c0          [<0>] 0xffffffffffffffff
_FRAME = re.compile(r"^[ \t]*\[<0>\] (?P<fn>[\w.]{1,120}?)(?:\+0x[0-9a-f]{1,8}/0x[0-9a-f]{1,8})?(?: \[[\w-]{1,40}\])?[ \t]*$")
# cat /proc/1054/stack          sudo cat /proc/12345/task/12346/stack
_COMMAND = re.compile(r"/proc/(?P<pid>\d{1,10})/(?:task/\d{1,10}/)?stack\b")
#: how many lines above a stack its command may stand (a prompt, a blank line)
_COMMAND_LOOKBACK = 2


def detect(head: str) -> bool:
    return "[<0>] " in head and sum(1 for line in head.splitlines() if "[<0>] " in line and _FRAME.match(line)) >= 2


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    n = 0
    while n < len(lines):
        if "[<0>] " not in lines[n] or (m := _FRAME.match(lines[n])) is None:
            n += 1
            continue
        start, top, fs = n, m["fn"], None
        while n < len(lines) and "[<0>] " in lines[n] and _FRAME.match(lines[n]) is not None:
            fs = fs or shared_fs_of(lines[n])
            n += 1
        pid = None
        for k in range(start - 1, max(start - 1 - _COMMAND_LOOKBACK, -1), -1):
            if (c := _COMMAND.search(lines[k])) is not None:
                pid = int(c["pid"])
                break
        b.add(TaskKernelStack, start + 1, pid=pid, task=f"the task {pid}" if pid is not None else "a task", frames=n - start,
              top=top, waits_on=fs)
        result.lines_used += n - start
        result.spans.append((start + 1, n))
    return result


#: the line signatures this reader owns
SIGNATURES = (r"(?m)^[ \t]*\[<0>\] [\w.]+(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?",)
