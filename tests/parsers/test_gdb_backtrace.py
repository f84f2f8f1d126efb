"""gdb_backtrace: native stacks from gdb, a hung NCCL rank's verbatim (fixtures/artefacts/gdb_backtrace/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import gdb_backtrace
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/gdb_backtrace"


def stacks(text: str):
    res = gdb_backtrace.parse(Artefact(path="bt.txt", text=text, node="n1"))
    return [{k: v for k, v in f.model_dump().items() if k not in ("id", "node", "kind", "evidence") and v is not None}
            | {"line": f.evidence.line} for f in res.facts], res.lines_used


def test_hung_rank_waits_in_accept_under_nccl_init():
    # NVIDIA/nccl#234: rank 0 (TCP) in accept() under ncclSocketAccept ... ncclCommInitRankSync; inlined frames have no pc
    text = (FIX / "nccl234_rank0_tcp_accept_in_p2psetup.txt").read_text()
    assert gdb_backtrace.detect(text)
    got, used = stacks(text)
    assert got == [{"frames": 7, "top": "accept", "blocked_in": "accept", "nccl_api": "ncclCommInitRankSync",
                    "nccl_inner": "ncclSocketAccept", "nccl_phase": "init", "line": 3}]
    assert used == 7  # the heading and the code fence are not gdb's


def test_thread_apply_all_bt_one_stack_per_thread():
    # gdb/thread.c's "Thread %s (%s):" heading (the target's "Thread 0x... (LWP n)"), glibc's internal names reduced
    text = ("Thread 2 (Thread 0x7fffe2f8c640 (LWP 4242) \"pt_main_thread\"):\n"
            "#0  0x00007ffff7e9d7b2 in __GI___poll (fds=0x5, nfds=1, timeout=-1) at ../sysdeps/unix/sysv/linux/poll.c:29\n"
            "#1  0x00007fff86bdb958 in ncclAllReduce (sendbuff=0x1, recvbuff=0x2, count=4) at collectives/all_reduce.cc:11\n"
            "\n"
            "Thread 1 (Thread 0x7ffff7d89740 (LWP 4241)):\n"
            "#0  0x00007ffff7e2a117 in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6\n")
    got, used = stacks(text)
    assert [(g["thread"], g["lwp"], g["blocked_in"], g.get("nccl_phase")) for g in got] == [
        ("2", 4242, "poll", "collective"), ("1", 4241, "futex_abstimed_wait_common", None)]
    assert used == 5


def test_not_gdb():
    assert not gdb_backtrace.detect("")
    # PyTorch's own C++ trace and a markdown heading are not gdb's frames
    assert not gdb_backtrace.detect("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7fef in /x/libc10.so)\n")
    assert not gdb_backtrace.detect("#1 Summary of the run\n")


def test_a_crash_stack_in_a_gdb_session():
    # ROCm/ROCm#2272: gdb's "bt" after SIGSEGV under hipLaunchKernel; demangled C++ names with their parameter
    # lists, frames wrapped onto a "   from <library>" line, "?? ()" frames
    text = (FIX.parent / "subprocess_error" / "rocm2272_gdb_sigsegv.txt").read_text()
    got, used = stacks(text)
    assert got == [{"frames": 13, "top": "__memmove_avx_unaligned_erms", "line": 6}] and used == 13


def test_thread_apply_all_bt_of_a_hung_program_not_nccl():
    # a hung RocksDB db_bench (a blog's real paste): two threads in pthread_cond_wait, no NCCL frame, "?? ()" frames
    # and an argument list holding parentheses read; gdb's attach lines before the first heading are not frames
    text = (FIX / "rocksdb_db_bench_thread_apply_all_bt.txt").read_text()
    assert gdb_backtrace.detect(text)
    got, used = stacks(text)
    assert [(g["thread"], g["lwp"], g["frames"], g["blocked_in"], g["line"], g.get("nccl_phase")) for g in got] == [
        ("4", 14197, 7, "pthread_cond_wait", 7, None), ("1", 14194, 7, "pthread_cond_wait", 16, None)]
    assert used == 16
