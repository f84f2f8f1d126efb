"""Python's ``subprocess.CalledProcessError`` message, which launchers print when the process
they started failed (accelerate's ``simple_launcher``, DeepSpeed's launcher, the pre-1.9
``torch.distributed.launch``: each raises it with the child's return code), so it is looked
for anywhere in a file; and DeepSpeed's per-node launcher line for a child that ended.

CPython (Lib/subprocess.py, ``CalledProcessError.__str__``) writes ``Command '%s' died with
%r.`` for a child killed by a signal (``%r`` of ``signal.Signals``: ``<Signals.SIGKILL: 9>``),
``Command '%s' died with unknown signal %d.`` for a number without a name, and ``Command '%s'
returned non-zero exit status %d.`` otherwise. Sample line (real, from the public thread named)::

    subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'autotrain.trainers.clm', '--training_config', 'autotrain-LLM/training_params.json']' died with <Signals.SIGKILL: 9>.    (huggingface/autotrain-advanced#456)

DeepSpeed's per-node launcher (deepspeed/launcher/launch.py, ``sigkill_handler``) logs
``logger.error(f"{cmd} exits with return code = {last_return_code}")`` (``print(...)`` in
older releases), ``cmd`` the child's argv list and the code Popen's ``returncode``: a negative
code ``-N`` is the child killed by signal N (Lib/subprocess.py, ``Popen.returncode``). Sample
(real; the ``[date] [ERROR] `` prefix is a log wrapper, facts/lines.py takes it off)::

    [2023-05-15 13:14:32,960] [ERROR] [launch.py:434:sigkill_handler] ['/local_disk0/.ephemeral_nfs/envs/pythonEnv-c66e8a02-c787-4491-88b1-1fdcfab3b412/bin/python', '-u', '-m', 'training.trainer', '--local_rank=0', ..., '--lr', '5e-6'] exits with return code = -9    (databrickslabs/dolly#166)

A shell reports a child that a signal killed with strsignal()'s text (bash's jobs.c: the
signal's description, `` (core dumped)`` when it dumped core; a script's report is prefixed
``<script>: line <n>: <pid> `` and followed by the command). Samples (real; the FAILURE_WORDS
lines of unrecognised_text, which this reader now explains)::

    ./clean_wav.sh: line 26:  6499 Aborted    (santi-pdp/segan#40)
    Illegal instruction (core dumped)

Open MPI's launcher reports a rank that a signal ended (``mpirun``/``mpiexec``/``orterun`` up to
4.x, ``prterun``/``prun`` of PRRTE in 5.x: help-orterun.txt / help-prun.txt ``proc-aborted-strsignal``
``%s noticed that process rank %lu with PID %lu on node %s exited on signal %d (%s).``, and
``proc-aborted`` without the ``(%s)`` where no signal text was had). Sample (real)::

    mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on signal 9 (Killed).    (NVIDIA/TensorRT-LLM#1700)

zsh reports the same with its own signal texts (``[1]    83815 segmentation fault  python train.py ...``,
``zsh: illegal hardware instruction``); bash's report may follow a tqdm bar whose carriage returns the
paste lost; gdb stops a process on a fatal signal (``Thread 22 "lmp" received signal SIGSEGV,
Segmentation fault.``). Samples (real): SeanNaren/deepspeech.pytorch#172, HenryHuYu/DiffPhysDrone#6,
ROCm/ROCm#2272.

SGLang's server reports a child process that died: its SIGCHLD handler logs ``os.waitpid``'s status (a wait status: the
signal in its low 7 bits, 0x80 for a core, the exit status above them: 11 is SIGSEGV, 256 an exit status of 1; up to
0.4.x, python/sglang/srt/entrypoints/engine.py ``"Child process unexpectedly failed with an exit code %d. pid=%d"``), and
its wait for the schedulers logs ``Rank {i} scheduler is dead. Please check if there are relevant logs.`` and, once the
process is joined, ``Exit code: {proc.exitcode}`` (multiprocessing's: ``-N`` for signal N). Samples (real)::

    [2025-04-26 20:55:31] Rank 0 scheduler is dead. Please check if there are relevant logs.
    [2025-04-26 20:55:32] Child process unexpectedly failed with an exit code 11. pid=293198
    [2025-04-26 20:55:32] Exit code: -11            (sgl-project/sglang#5770)

Docker Compose reports a service's container that stopped as ``<container> exited with code <n>`` (no service
label on that line), the code its main process's: 128+N for one a signal killed. Sample (real)::

    scalellm exited with code 137            (vectorch-ai/ScaleLLM#38: the entrypoint's process "Killed", host memory)

text-generation-inference's launcher reports a shard or its weights' download that a signal ended (launcher/src/main.rs
``tracing::error!("Shard process was signaled to shutdown with signal {signal}")`` in the shard-manager span, whose
``rank`` field the compact text form puts at the line's end, and ``"Download process was signaled to shutdown with signal
{signal}: {err}"``; the same strings in every release since 0.8; a --json-output record is read as this line, see
facts/records.py). Sample (real)::

    2023-08-11T06:42:43.498333Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 7 rank=1    (huggingface/text-generation-inference#814)

Facts: ``launched_process_killed`` per child killed by a signal (its name and number, the
command as printed, the launcher's form: ``shell`` for a shell's report, ``core_dumped``). A non-zero exit status (a non-negative return code)
says only that the child failed, which the rest of the log explains; it is not read here.
Empty input, or no such message: nothing.
"""
from __future__ import annotations

import re
import signal as _signal

from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    LaunchedProcessKilled,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "subprocess_error"

# subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'autotrain.trainers.clm', ...]' died with <Signals.SIGKILL: 9>.
# Command 'x' died with unknown signal 77.      (CPython's form for a number signal.Signals does not name)
_DIED = re.compile(
    r"Command '(?P<cmd>[^\n]{0,2000}?)' died with (?:<Signals\.(?P<name>SIG[A-Z0-9]{1,10}): (?P<num>\d{1,3})>"
    r"|unknown signal (?P<unum>\d{1,3}))\.")
# [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'run_clm.py', '--local_rank=0', ...] exits with return code = -9
#   (DeepSpeed's launcher, behind its log prefix; a non-negative code is an exit status, not read)
# ... I run into an uninformative exit "exits with return code = -9" I havent found any information ...
#   (the same message quoted in prose or a title, closed by its quote or backtick and maybe a full stop:
#   deepspeedai/DeepSpeed#3160; any other text after the number is not this message)
_DS_EXIT = re.compile(r"(?:(?P<cmd>\[['\"][^\n]{0,4000}?\]) )?exits with return code = -(?P<num>\d{1,3})"
                      r"(?:\s*$|\.?[\"'`]{1,3}\.?(?=\s|$))", re.M)

# mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on signal 9 (Killed).
# prterun noticed that process rank 1 with PID 2345 on node gpu07 exited on signal 11.       (PRRTE's proc-aborted form)
_MPI_SIGNAL = re.compile(
    r"\b(?P<tool>[\w.-]{1,40}) noticed that process rank (?P<rank>\d{1,9}) with PID (?P<pid>\d{1,10}) on node "
    r"(?P<host>\S{1,255}) exited on signal (?P<num>\d{1,3})(?: \((?P<text>[^)\n]{1,60})\))?\.")

# SGLang's SIGCHLD handler, os.waitpid's wait status as "exit code" (sglang#5770):
# [2025-04-26 20:55:32] Child process unexpectedly failed with an exit code 11. pid=293198
_SGLANG_CHILD = re.compile(r"Child process unexpectedly failed with an exit code (?P<status>\d{1,5})\. pid=(?P<pid>\d{1,10})")
# SGLang's wait for its schedulers, the dead one's multiprocessing exitcode a few lines on (other processes' lines between):
# [2025-04-26 20:55:31] Rank 0 scheduler is dead. Please check if there are relevant logs.
# [2025-04-26 20:55:32] Exit code: -11                                                     (sglang#5770)
#   (a non-negative exit code is an exit status, not read)
_SGLANG_DEAD = re.compile(
    r"Rank (?P<rank>\d{1,6}) scheduler is dead\. Please check if there are relevant logs\.[^\n]{0,200}\n"
    r"(?:[^\n]{0,2000}\n){0,8}?[^\n]{0,64}?Exit code: -(?P<num>\d{1,3})\b")

# Docker Compose's report of a service's container that stopped, its exit code the container's main process's
# (128+N: killed by signal N; compose's e2e test expects "should_fail-1 exited with code 123"), with no service label:
# scalellm exited with code 137          (vectorch-ai/ScaleLLM#38: the container's entrypoint "Killed", out of memory)
#   (only the codes of the fault signals a shell reports, 128+4/6/7/8/9/11; 143 is SIGTERM, a stop; other codes are
#   an exit status, not read)
_COMPOSE_EXIT = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]{0,127}) exited with code (?P<code>13[24-79])[ \t]*\r?$", re.M)

# text-generation-inference's launcher (launcher/src/main.rs, the shard-manager span's rank at the compact line's end):
# 2023-08-11T06:42:43.498333Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 7 rank=1   (TGI#814)
# ... ERROR download: text_generation_launcher: Download process was signaled to shutdown with signal 9: <stderr>   (CONSTRUCTED from main.rs)
_TGI_SIGNALED = re.compile(r"\b(?P<what>Shard|Download) process was signaled to shutdown with signal (?P<num>\d{1,3})\b"
                           r"(?:[^\n]{0,4000}? rank=(?P<rank>\d{1,6})[ \t]*\r?$)?", re.M)


def _wait_status_signal(status: int) -> tuple[int, bool] | None:
    """(signal, core dumped) of a wait status a signal ended (WIFSIGNALED), None for an exit or a stop."""
    sig = status & 0x7F
    return (sig, bool(status & 0x80)) if 0 < sig < 0x7F else None


# a shell's report of a child killed by a signal (strsignal's text; the signals that end a job's process on their own):
# Illegal instruction (core dumped)
# ./train.sh: line 12: 41233 Killed                  python train.py
_SHELL_SIGNALS = {"Segmentation fault": 11, "Bus error": 7, "Illegal instruction": 4, "Floating point exception": 8,
                  "Aborted": 6, "Killed": 9}
_SIG = r"(?P<sig{n}>Segmentation fault|Bus error|Illegal instruction|Floating point exception|Aborted|Killed)(?P<core{n}>[ \t]+\(core dumped\))?"
SHELL_REPORT = re.compile(
    r"^[ \t]*(?:[^\s:]{1,300}: line \d{1,7}: +\d{1,9} " + _SIG.format(n=1) + r"(?:[ \t]+(?P<cmd>\S(?:[^\n]{0,499}?[^ \t\n])??))?"
    r"|" + _SIG.format(n=2) + r")[ \t]*\r?$", re.M)


# tqdm's bar the shell's report was written after (the bar's carriage returns lost in the paste), bash's text then:
# loss: 2.605:  12%|██▋                    | 5881/50000 [12:33<1:34:35,  7.77it/s] Segmentation fault (core dumped)   (HenryHuYu/DiffPhysDrone#6)
#   (tqdm's default bar_format '{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]')
SHELL_AFTER_BAR = re.compile(r"\| *\d+/\d+ \[[^\]\n]*\] *" + _SIG.format(n=3) + r"[ \t]*\r?$", re.M)

# zsh's report, its own signal texts (Src/signames2.awk: SEGV "segmentation fault", BUS "bus error", ILL "illegal
# hardware instruction", FPE "floating point exception", ABRT "abort", KILL "killed"; " (core dumped)" after it),
# behind the job's number and pid, or "zsh: " for a job it did not list:
# [1]    83815 segmentation fault  python train.py --train_manifest  --val_manifest  --batch_size 64 --cuda   (SeanNaren/deepspeech.pytorch#172)
# zsh: segmentation fault (core dumped)  python project/test.py
_ZSH_SIGNALS = {"segmentation fault": 11, "bus error": 7, "illegal hardware instruction": 4,
                "floating point exception": 8, "abort": 6, "killed": 9}
ZSH_REPORT = re.compile(
    r"^[ \t]*(?:\[\d{1,6}\] +(?:[+-] +)?\d{1,9}|zsh:) +(?P<zsig>segmentation fault|bus error|illegal hardware instruction"
    r"|floating point exception|abort|killed)(?P<zcore> \(core dumped\))?(?: +(?P<zcmd>\S(?:[^\n]{0,499}?[^ \t\n])??))?[ \t]*\r?$", re.M)

# gdb stopping the process on a fatal signal (gdb/infrun.c print_signal_received_reason):
# Thread 22 "lmp" received signal SIGSEGV, Segmentation fault.          (ROCm/ROCm#2272)
# Program received signal SIGSEGV, Segmentation fault.                  (a process without threads, gdb before 7.12)
#   (only the signals that end a process that does not handle them; SIGINT, SIGTRAP, SIGPIPE stop it under gdb for other reasons)
GDB_SIGNAL = re.compile(
    r"^(?:Thread \d{1,9}(?: \"(?P<thread>[^\"\n]{0,64})\")?|Program) received signal "
    r"(?P<gsig>SIGSEGV|SIGBUS|SIGILL|SIGFPE|SIGABRT), [A-Z][^\n]{0,60}\.[ \t]*\r?$", re.M)


# A native crash report, written by the signal handler a library installs in the process itself (the lines above the
# shell's or the launcher's report of the death), with its backtrace: where the crash happened.
# UCX's (src/ucs/debug/debug.c: ucs_log_fatal_error("Caught signal %d (%s)", signo, strsignal(signo)) up to 1.8,
# "Caught signal %d (%s: %s%s)" since, the si_code's cause and the address after strsignal's text), behind UCX's
# "[host:pid:thread:tid]" prefix; then "==== backtrace (tid:%7d) ====" and a line a frame:
# [job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0:4682 :0:4682] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))   (NVIDIA/nccl#1538)
_UCX_SIGNAL = re.compile(
    r"\[(?P<host>[^\s:\]]{1,255}):\s{0,8}\d{1,10} {0,8}:\w{1,10}:\s{0,8}\d{1,10}\] Caught signal (?P<num>\d{1,3}) \(")
# the same report pasted without UCX's prefix (the reporter kept the message and the frames), known by the backtrace
# header on the next line:
# Caught signal 11 (Segmentation fault: address not mapped to object at address 0x11000008)    (deepseek-ai/DeepEP#36)
# ==== backtrace (tid:  84663) ====
_UCX_SIGNAL_BARE = re.compile(
    r"^[ \t]{0,8}Caught signal (?P<num>\d{1,3}) \([^\n]{0,300}\)[ \t]*\r?\n[ \t]{0,8}==== backtrace \(tid:", re.M)
# the message alone, its prefix and backtrace both left out of the paste, known by the words only UCX's handler puts
# in it since 1.9 (ucs_debug_handle_error_signal: "Caught signal %d (%s: %s%s)", strsignal's text, then for SIGSEGV
# ucs_signal_cause_segv's text of the si_code and " at address %p"):
# Caught signal 11 (Segmentation fault: invalid permissions for mapped object at address 0x2b15b6a00310)   (mpi4py/mpi4py#36)
_UCX_SIGNAL_LINE = re.compile(
    r"^[ \t]{0,8}Caught signal (?P<num>11) \(Segmentation fault: (?:address not mapped to object"
    r"|invalid permissions for mapped object) at address (?:0x[0-9a-f]{1,16}|\(nil\))\)[ \t]*\r?$", re.M)
# UCX's handler before "Caught signal" was in its message (the releases of early 2019, UCX 1.5 and its snapshots): the
# SIGSEGV's cause alone behind the prefix (ucs_signal_cause_segv's text), then the backtrace header:
# Mon Feb 25 09:06:01 2019[1,0]<stderr>:[vulcan01:29735:0:29735] invalid permissions for mapped object     (openucx/ucx#3258)
# Mon Feb 25 09:06:01 2019[1,0]<stderr>:==== backtrace ====
_UCX_SEGV_CAUSE_ONLY = re.compile(
    r"\[(?P<host>[^\s:\]]{1,255}):\s{0,8}\d{1,10} {0,8}:\w{1,10}:\s{0,8}\d{1,10}\] (?:address not mapped to object"
    r"|invalid permissions for mapped object)[ \t]*\r?\n[^\n]{0,80}==== backtrace", re.M)
# Open MPI's (opal/util/stacktrace.c show_stackframe: "%s*** Process received signal ***", "%sSignal: %s (%d)", then
# opal_backtrace_print's frames "%s[%2d] <backtrace_symbols() line>", "%s" the "[host:pid] " prefix):
# [k8s-slave03:00956] Signal: Segmentation fault (11)       (NVIDIA/nccl#2380)
_OMPI_SIGNAL = re.compile(
    r"\[(?P<host>[^\s:\]]{1,255}):\d{1,10}\] Signal: [A-Z][^\n(]{0,60}\((?P<num>\d{1,3})\)[ \t]*\r?$", re.M)
# apache/tvm-ffi's (src/ffi/backtrace.cc TVMFFISegFaultHandler, installed for SIGSEGV by a library constructor in every
# process that loads tvm_ffi: xgrammar and FlashInfer under vLLM and SGLang): std::cerr << "!!!!!!! Segfault encountered
# !!!!!!!\n" and the traceback, then the signal re-raised with the default handler; a markdown quote may keep its margin:
# > !!!!!!! Segfault encountered !!!!!!!        (NVIDIA/nccl#2106)
_TVM_SEGFAULT = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)?[ \t]{0,8}!!!!!!! Segfault encountered !!!!!!![ \t]*\r?$", re.M)
# its frames, python style ("  File \"" << filename << "\", line " << lineno << ", in " << func), innermost first:
# >   File "<unknown>", line 0, in cuMemCreate
# >   File "misc/cudawrap.cc", line 92, in ncclCuMemHostEnable()        (NVIDIA/nccl#2106)
_PY_STYLE_FRAME = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)?[ \t]{0,8}File \"(?P<file>[^\"\n]{1,300})\", line \d{1,9}, in (?P<fn>[^\s(]{1,300})")
# the C runtime's own source files in such frames (glibc's build-relative paths: the handler's re-raise and the kernel's
# signal trampoline): "./nptl/pthread_kill.c", "../sysdeps/posix/raise.c", "./signal/../sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c"
_LIBC_SOURCE = re.compile(r"^\.{1,2}/(?:[\w.-]{1,40}/){0,8}?(?:nptl|sysdeps|signal|stdlib|string|malloc|posix)/")
#: a CUDA driver API function (libcuda's cuInit, cuMemCreate, cuLaunchKernel; not the runtime's cuda* nor cuBLAS's cublas*)
_CUDA_DRIVER_SYMBOL = re.compile(r"^cu[A-Z][A-Za-z0-9_]{1,60}$")
# A frame as UCX prints it with libbfd ("%2d 0x%016lx %s()  %s:%u"):
#  1 0x0000000000050dc2 pncclRedOpDestroy()  ???:0
_BFD_FRAME = re.compile(r"^\s{0,8}\d{1,3}\s{1,4}0x[0-9a-f]{1,16} (?P<fn>[^\s()]{1,200})\(\)")
# glibc's backtrace_symbols() form (Open MPI's frames, UCX's without libbfd): "<object>(<symbol>+0x<off>) [0x<addr>]":
# [k8s-slave03:00956] [ 4] /usr/local/nccl/lib/libnccl.so.2(+0xbd72c)[0x7d1d0c8f372c]
_SYMBOLS_FRAME = re.compile(r"(?P<obj>/[^\s(]{1,300})\((?P<fn>[^+)\s]{0,200})(?:\+(?P<off>0x[0-9a-f]{1,16}))?\) ?\[0x[0-9a-f]{1,16}\]")
# the frames that are not where a crash happened: the signal handler and its trampoline (UCX's ucs_*, the kernel's
# __restore_rt that debuggers name after a neighbouring symbol: __sigaction, __funlockfile, .annobin_sigaction.c),
# and the C runtime a library's bad pointer crashes in (memcpy, abort after an assertion): the caller is the culprit
_RUNTIME_OBJECTS = re.compile(r"^(?:libc|libpthread|libstdc\+\+|libgcc_s|libm|libdl|ld-linux[\w.-]*|libucs)\b")
_RUNTIME_FUNCS = frozenset({"raise", "abort", "gsignal", "pthread_kill", "memcpy", "memmove", "memset", "strlen", "free",
                            "malloc", "clone", "start_thread"})
#: a symbol of NCCL's (its API, ncclX, and the profiling alias pncclX; its internals ncclTopoCompute, ...)
_NCCL_SYMBOL = re.compile(r"^p?nccl[A-Z_]")
#: a symbol of NVSHMEM's: its API (nvshmem_*, nvshmemx_*), internals (nvshmemi_*) and transport modules' entry points
#: (nvshmemt_*: nvshmemt_ibrc_progress, nvshmemt_ibgda_*), whose static helpers (process_recv, progress_recv) carry no
#: library in UCX's libbfd frames: the first NVSHMEM caller right above such a frame names it (deepseek-ai/DeepEP#36)
_NVSHMEM_SYMBOL = re.compile(r"^nvshmem[itx]?_\w")
#: how many frames above an unnamed innermost frame are looked at for its library
_CALLER_FRAMES = 4
#: how many lines after the signal line its backtrace is looked for in (several threads' reports interleave)
_BACKTRACE_LINES = 64


def _crash_frame(text: str, start: int) -> tuple[str | None, str | None]:
    """(crashed_in, crash_library) of the backtrace after a crash report's signal line (``start``: its end): the
    innermost frame past the handler and the C runtime, as its function or object+offset, and its library ("nccl"
    for NCCL's own code)."""
    lines = text[start:].split("\n", _BACKTRACE_LINES + 1)[1:_BACKTRACE_LINES + 1]
    for i, line in enumerate(lines):
        if "*** End of error message ***" in line:
            break
        m = _SYMBOLS_FRAME.search(line)
        if m:
            obj, fn = m["obj"].rsplit("/", 1)[-1], m["fn"]
            if _RUNTIME_OBJECTS.match(obj) or fn in _RUNTIME_FUNCS:
                continue
            nccl = obj.startswith("libnccl.so") or _NCCL_SYMBOL.match(fn)
            library = obj.split(".so", 1)[0].removeprefix("lib")
            return fn or f"{obj}+{m['off']}", "nccl" if nccl else "nvshmem" if library.startswith("nvshmem") else library
        m = _PY_STYLE_FRAME.match(line)
        if m:
            fn = m["fn"]
            if _LIBC_SOURCE.match(m["file"]) or fn.startswith(("_", "0x")) or fn in _RUNTIME_FUNCS:
                continue
            if _NCCL_SYMBOL.match(fn):
                return fn, "nccl"
            return fn, "nvshmem" if _NVSHMEM_SYMBOL.match(fn) else "cuda" if _CUDA_DRIVER_SYMBOL.match(fn) else None
        m = _BFD_FRAME.match(line)
        if m:
            fn = m["fn"]
            if fn.startswith(("_", ".", "ucs_")) or "sigaction" in fn or fn in _RUNTIME_FUNCS:
                continue
            if _NCCL_SYMBOL.match(fn):
                return fn, "nccl"
            return fn, "nvshmem" if _nvshmem_frame(fn, lines[i + 1:i + 1 + _CALLER_FRAMES]) else None
    return None, None


# What the kernel said of a SIGSEGV (the si_code), as UCX's handler words it ("Caught signal 11 (Segmentation fault:
# invalid permissions for mapped object at address 0x7f40c3200000)": src/ucs/debug/debug.c ucs_signal_cause_segv) or
# Open MPI's (opal/util/stacktrace.c: "Signal code: Invalid permissions (2)" on the line after "Signal: ..."):
# [nid04276:26561] Signal code: Invalid permissions (2)          (open-mpi/ompi#7064)
_SEGV_CAUSE = re.compile(r"(?:Segmentation fault: |\] Signal code: |\] )(?:(?P<acc>[Ii]nvalid permissions)|(?P<map>[Aa]ddress not mapped))")
#: a C runtime copy or string function, where a library's bad pointer faults: __memmove_avx_unaligned_erms,
#: __memcpy_ssse3_back, memcpy, or the C library's frame by offset only (libc.so.6(+0x160805))
_RUNTIME_COPY = re.compile(r"^_{0,2}(?:mem(?:cpy|move|set)|str\w{2,8})\w{0,40}$")
#: the MPI layer's own code: UCX (ucp_, uct_), Open MPI (opal_, ompi_, mca_), MPICH (MPIR_, MPIDI_, MPID_), the MPI API
_MPI_LAYER_FN = re.compile(r"^(?:ucp|uct|opal|ompi|mca|MPIR|MPIDI|MPID|PMPI|MPI)_\w")
_MPI_LAYER_LIB = re.compile(r"^(?:ucp|uct\w{0,20}|open-pal|open-rte|mpi\w{0,10}|mca_\w{1,40})$")
#: CUDA-aware transport frames: UCX's CUDA transports (libuct_cuda*.so: cuda_copy, cuda_ipc, gdr_copy) and Open MPI's
#: CUDA support (mca_common_cuda, opal_cuda_*, the smcuda BTL)
_CUDA_TRANSPORT = re.compile(r"libuct_cuda|\buct_(?:cuda|gdr_copy)_\w|/uct/cuda/|mca_common_cuda|\bopal_cuda_\w|mca_btl_smcuda")


def _crash_context(text: str, start: int, crashed_in: str | None) -> dict[str, object]:
    """What a crash report's backtrace after ``start`` says beyond its innermost frame: whether the fault was in the C
    runtime's copy code right under that frame (``crash_in_copy``), whether that frame is the MPI layer's
    (``crash_layer`` "mpi": UCX, Open MPI, MPICH), and whether the frames run through CUDA-aware transport code
    (``cuda_transport``)."""
    lines = text[start:].split("\n", _BACKTRACE_LINES + 1)[1:_BACKTRACE_LINES + 1]
    copy, cuda = False, False
    for line in lines:
        if "*** End of error message ***" in line or line.strip().startswith("====="):
            break
        if _CUDA_TRANSPORT.search(line) is not None:
            cuda = True
        if crashed_in is None or copy:
            continue
        m = _SYMBOLS_FRAME.search(line)
        fn = m["fn"] if m else (b["fn"] if (b := _BFD_FRAME.match(line)) else None)
        if fn is None:
            continue
        if (fn or f"{m['obj'].rsplit('/', 1)[-1]}+{m['off']}") == crashed_in:
            crashed_in = None  # the innermost frame reached: no copy under it
            continue
        obj = m["obj"].rsplit("/", 1)[-1] if m else ""
        copy = _RUNTIME_COPY.match(fn) is not None or (obj.startswith("libc.so") and not fn)
    return {"crash_in_copy": copy, "cuda_transport": cuda}


def _next_lines(text: str, start: int, count: int) -> str:
    """The text from ``start`` to the end of the ``count``-th line after start's line."""
    end = start
    for _ in range(count):
        end = text.find("\n", end + 1)
        if end < 0:
            return text[start:]
    return text[start:end]


def _layer(crashed_in: str | None, library: str | None) -> str | None:
    """"mpi" where the crash's innermost frame is the MPI layer's own code (UCX, Open MPI, MPICH)."""
    if library is not None and _MPI_LAYER_LIB.match(library):
        return "mpi"
    if crashed_in is not None and _MPI_LAYER_FN.match(crashed_in):
        return "mpi"
    return None


def _nvshmem_frame(fn: str, callers: list[str]) -> bool:
    """Whether UCX's libbfd frame ``fn`` is NVSHMEM's code: its own name, or a static helper whose first named
    caller among ``callers`` is an NVSHMEM symbol (NCCL's or another library's caller ends the look)."""
    if _NVSHMEM_SYMBOL.match(fn):
        return True
    for line in callers:
        if (c := _BFD_FRAME.match(line)) is None:
            return False
        if _NVSHMEM_SYMBOL.match(c["fn"]):
            return True
        if _NCCL_SYMBOL.match(c["fn"]):
            return False
    return False


def detect(head: str) -> bool:
    return ("' died with " in head and _DIED.search(head) is not None) \
        or ("exits with return code = -" in head and _DS_EXIT.search(head) is not None) \
        or (any(k in head for k in _SHELL_SIGNALS) and SHELL_REPORT.search(head) is not None) \
        or (" noticed that process rank " in head and _MPI_SIGNAL.search(head) is not None)\
        or ("] " in head and any(k in head for k in _SHELL_SIGNALS) and SHELL_AFTER_BAR.search(head) is not None) \
        or (any(k in head for k in _ZSH_SIGNALS) and ZSH_REPORT.search(head) is not None) \
        or (" received signal SIG" in head and GDB_SIGNAL.search(head) is not None) \
        or ("] Caught signal " in head and _UCX_SIGNAL.search(head) is not None) \
        or ("==== backtrace (tid:" in head and _UCX_SIGNAL_BARE.search(head) is not None) \
        or (" at address " in head and _UCX_SIGNAL_LINE.search(head) is not None) \
        or (" for mapped object" in head or " not mapped to object" in head) and _UCX_SEGV_CAUSE_ONLY.search(head) is not None \
        or ("] Signal: " in head and _OMPI_SIGNAL.search(head) is not None) \
        or ("Child process unexpectedly failed" in head and _SGLANG_CHILD.search(head) is not None) \
        or (" scheduler is dead. " in head and _SGLANG_DEAD.search(head) is not None) \
        or (" exited with code 13" in head and _COMPOSE_EXIT.search(head) is not None) \
        or ("Segfault encountered !!!" in head and _TVM_SEGFAULT.search(head) is not None) \
        or (" process was signaled to shutdown with signal " in head and _TGI_SIGNALED.search(head) is not None)


def _signal_name(num: int) -> str | None:
    """The name of signal ``num`` (Linux numbering), None for a number without one."""
    try:
        return _signal.Signals(num).name
    except ValueError:
        return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_DIED, artefact):
        result.lines_used += 1
        fb.add(LaunchedProcessKilled, n, signal=m["name"], signum=int(m["num"] or m["unum"]), command=m["cmd"])
    for n, m in iter_matches(_DS_EXIT, artefact):
        result.lines_used += 1
        num = int(m["num"])
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command=m["cmd"] or "",
               launcher="deepspeed")
    for n, m in iter_matches(SHELL_REPORT, artefact):
        result.lines_used += 1
        num = _SHELL_SIGNALS[m["sig1"] or m["sig2"]]
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command=m["cmd"] or "", launcher="shell",
               core_dumped=(m["core1"] or m["core2"]) is not None)
    for n, m in iter_matches(SHELL_AFTER_BAR, artefact):
        result.lines_used += 1
        num = _SHELL_SIGNALS[m["sig3"]]
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command="", launcher="shell",
               core_dumped=m["core3"] is not None)
    for n, m in iter_matches(ZSH_REPORT, artefact):
        result.lines_used += 1
        num = _ZSH_SIGNALS[m["zsig"]]
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command=m["zcmd"] or "", launcher="zsh",
               core_dumped=m["zcore"] is not None)
    for n, m in iter_matches(GDB_SIGNAL, artefact):
        result.lines_used += 1
        sig = m["gsig"]
        fb.add(LaunchedProcessKilled, n, signal=sig, signum=int(_signal.Signals[sig]), command=m["thread"] or "",
               launcher="gdb")
    for n, m in iter_matches(_MPI_SIGNAL, artefact):
        result.lines_used += 1
        num = int(m["num"])
        fb.add(LaunchedProcessKilled, n, node=artefact.node_for(m["host"]), signal=_signal_name(num), signum=num,
               command="", launcher=m["tool"])
    for n, m in iter_matches(_SGLANG_CHILD, artefact):
        killed = _wait_status_signal(int(m["status"]))
        if killed is not None:
            result.lines_used += 1
            fb.add(LaunchedProcessKilled, n, signal=_signal_name(killed[0]), signum=killed[0], command="",
                   launcher="sglang", core_dumped=killed[1])
    for n, m in iter_matches(_SGLANG_DEAD, artefact):
        result.lines_used += 1
        num = int(m["num"])
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command=f"scheduler rank {m['rank']}",
               launcher="sglang")
    for n, m in iter_matches(_COMPOSE_EXIT, artefact):
        result.lines_used += 1
        num = int(m["code"]) - 128
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command=m["name"], launcher="docker compose")
    for n, m in iter_matches(_TGI_SIGNALED, artefact):
        result.lines_used += 1
        num = int(m["num"])
        what = "download" if m["what"] == "Download" else f"shard rank={m['rank']}" if m["rank"] else "shard"
        fb.add(LaunchedProcessKilled, n, signal=_signal_name(num), signum=num, command=what,
               launcher="text-generation-launcher")
    if "Segfault encountered !!!" in artefact.text:
        for n, m in iter_matches(_TVM_SEGFAULT, artefact):
            # the banner and the traceback's frames under it (read for where it crashed)
            frames = artefact.text[m.end():].split("\n", _BACKTRACE_LINES + 1)[1:_BACKTRACE_LINES + 1]
            result.lines_used += 1 + next((i for i, row in enumerate(frames) if not _PY_STYLE_FRAME.match(row)), len(frames))
            crashed_in, library = _crash_frame(artefact.text, m.end())
            fb.add(LaunchedProcessKilled, n, signal="SIGSEGV", signum=11, command="", launcher="tvm-ffi",
                   crashed_in=crashed_in, crash_library=library)
    bare = "==== backtrace (tid:" in artefact.text
    bare_lines: set[int] = set()
    for pattern, launcher in ((_UCX_SIGNAL, "ucx"), (_UCX_SIGNAL_BARE, "ucx"), (_UCX_SIGNAL_LINE, "ucx"),
                              (_UCX_SEGV_CAUSE_ONLY, "ucx"), (_OMPI_SIGNAL, "openmpi")):
        if pattern is _UCX_SIGNAL_BARE and not bare or pattern is _UCX_SIGNAL_LINE and " at address " not in artefact.text:
            continue
        if pattern is _UCX_SEGV_CAUSE_ONLY and "==== backtrace" not in artefact.text:
            continue
        for n, m in iter_matches(pattern, artefact):
            if pattern is _UCX_SIGNAL_BARE:
                bare_lines.add(n)
            elif pattern is _UCX_SIGNAL_LINE and n in bare_lines:
                continue  # the bare form with its backtrace, read above
            result.lines_used += 1
            num = 11 if pattern is _UCX_SEGV_CAUSE_ONLY else int(m["num"])
            # the bare form's match ends inside the backtrace header: the frames are read from the header's line on
            at = m.start("num") if pattern is _UCX_SIGNAL_BARE else m.start() if pattern is _UCX_SEGV_CAUSE_ONLY else m.end()
            crashed_in, library = _crash_frame(artefact.text, at)
            host = m["host"] if pattern in (_UCX_SIGNAL, _OMPI_SIGNAL, _UCX_SEGV_CAUSE_ONLY) else None
            # the kernel's word on a SIGSEGV: on the signal line (UCX) or the line after it (Open MPI's "Signal code:")
            cause = _SEGV_CAUSE.search(_next_lines(artefact.text, m.start(), 2))
            fb.add(LaunchedProcessKilled, n, node=artefact.node_for(host) if host else artefact.node, signal=_signal_name(num), signum=num,
                   command="", launcher=launcher, crashed_in=crashed_in, crash_library=library,
                   segv_cause=None if num != 11 or cause is None else "invalid_permissions" if cause["acc"] else "address_not_mapped",
                   crash_layer=_layer(crashed_in, library), **_crash_context(artefact.text, at, crashed_in))
    return result


#: line signatures (facts/classify.py)
#: (the last three are gates wider than their forms, no bounded runs in the classifier's RE2 set)
SIGNATURES = (r"' died with (?:<Signals\.|unknown signal )", r"exits with return code = -\d", SHELL_REPORT, _MPI_SIGNAL,
              r"\] *(?:Segmentation fault|Bus error|Illegal instruction|Floating point exception|Aborted|Killed)",
              r"(?:\[\d+\] +(?:[+-] +)?\d+|zsh:) +(?:segmentation fault|bus error|illegal hardware instruction"
              r"|floating point exception|abort|killed)",
              r"received signal SIG(?:SEGV|BUS|ILL|FPE|ABRT), ", r"\] Caught signal \d+ \(",
              r"\] (?:address not mapped to|invalid permissions for mapped) object[ \t]*\r?\n", r"(?m)^[ \t]*Caught signal \d+ \(", r"\] Signal: [A-Z][^\n(]*\(\d+\)",
              r"Child process unexpectedly failed with an exit code \d+\. pid=\d",
              r"scheduler is dead\. Please check if there are relevant logs\.", _COMPOSE_EXIT,
              r"!!!!!!! Segfault encountered !!!!!!!", r"(?:Shard|Download) process was signaled to shutdown with signal \d")
