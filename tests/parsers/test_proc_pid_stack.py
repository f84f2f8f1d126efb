"""proc_pid_stack: a task's kernel stack (cat /proc/<pid>/stack), as pasted."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import proc_pid_stack
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/proc_pid_stack"


def stacks_of(text: str):
    return [(f.evidence.line, f.pid, f.task, f.frames, f.top, f.waits_on)
            for f in proc_pid_stack.parse(Artefact(path="stack.txt", text=text, node="n")).facts]


def test_dlworkspace_484_init_script_in_nfs4_lease_recovery():
    text = (FIX / "dlworkspace484_init_script_nfs4_recover.txt").read_text()
    assert proc_pid_stack.detect(text)
    assert stacks_of(text) == [(12, 1054, "the task 1054", 15, "nfs_wait_bit_killable", "nfs")]


def test_a_stack_outside_any_file_system():
    # the same paste's frames below the file system, alone: no pid named, no network file system
    text = "[<0>] do_sys_open+0x1bb/0x2c0\n[<0>] __x64_sys_open+0x21/0x30\n[<0>] do_syscall_64+0x6a/0x1a0\n"
    assert proc_pid_stack.detect(text)
    assert stacks_of(text) == [(1, None, "a task", 3, "do_sys_open", None)]


def test_a_kernel_logs_call_trace_is_not_a_proc_stack():
    # a hung task's call trace in dmesg, as 3.x-4.x kernels print it (arch/x86/kernel/dumpstack.c printk_stack_address:
    # " [<%p>] %s%pB", "? " for an unreliable frame; CONSTRUCTED from that format): real addresses; kernel_log reads it
    text = ("[  120.000001]  [<ffffffff81234567>] ? __mutex_lock_slowpath+0x10f/0x1a0\n"
            "[  120.000002]  [<ffffffff8123456a>] ? mutex_lock+0x1a/0x2d\n")
    assert not proc_pid_stack.detect(text)
    assert stacks_of(text) == []
