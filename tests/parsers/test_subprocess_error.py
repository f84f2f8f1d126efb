"""subprocess_error: CPython's CalledProcessError message for a child killed by a signal."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import subprocess_error
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/subprocess_error"


def parse_text(text: str):
    return subprocess_error.parse(Artefact(path="t.log", text=text, node="node1"))


def test_accelerate_launcher_sigkill():
    text = (FIX / "autotrain456_accelerate_sigkill.txt").read_text()
    assert subprocess_error.detect(text)
    got = [(f.evidence.line, f.signal, f.signum, f.command) for f in parse_text(text).facts]
    assert got == [(11, "SIGKILL", 9, "['/usr/bin/python3', '-m', 'autotrain.trainers.clm', '--training_config', "
                                      "'autotrain-LLM/training_params.json']")]


def test_deepspeed_launcher_minus9():
    text = (FIX / "dolly166_deepspeed_launcher_minus9.txt").read_text()
    assert subprocess_error.detect(text)
    facts = parse_text(text).facts
    assert [(f.evidence.line, f.signal, f.signum, f.launcher) for f in facts] == [(1, "SIGKILL", 9, "deepspeed")]
    assert facts[0].command.startswith("['/local_disk0/") and facts[0].command.endswith("'5e-6']")


def test_deepspeed_launcher_quoted_in_a_title_and_prose():
    text = (FIX / "deepspeed3160_quoted_minus9.txt").read_text()
    assert subprocess_error.detect(text)
    got = [(f.evidence.line, f.signal, f.command, f.launcher) for f in parse_text(text).facts]
    assert got == [(1, "SIGKILL", "", "deepspeed"), (2, "SIGKILL", "", "deepspeed")]


@pytest.mark.parametrize("line,sig,num", [
    # DeepSpeed's launcher behind its log prefix, as facts/lines.py leaves it, and with no command
    ("[launch.py:318:sigkill_handler] ['/usr/bin/python3', '-u', 'run_clm.py', '--local_rank=0'] exits with return code = -11",
     "SIGSEGV", 11),
    ("exits with return code = -6", "SIGABRT", 6),
    # quoted: closed by its quote or backtick, a full stop inside or outside it
    ('[BUG] Have "exits with return code = -7" without any error message', "SIGBUS", 7),
    ('"exits with return code = -9."', "SIGKILL", 9),
    ("In the end, ```exits with return code = -11``` is prompted.", "SIGSEGV", 11),
    # CPython's form for a signal signal.Signals names, as launchers print it behind the exception name
    ("CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGSEGV: 11>.", "SIGSEGV", 11),
    # and for a number it does not name
    ("Command 'x' died with unknown signal 77.", None, 77),
])
def test_other_signals(line, sig, num):
    assert [(f.signal, f.signum) for f in parse_text(line).facts] == [(sig, num)]


@pytest.mark.parametrize("text", [
    # a non-zero exit status: the child failed, the rest of the log says why
    "subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status 1.",
    # DeepSpeed's launcher for a child that exited with a status (not killed by a signal)
    "[ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python', '-u', 'main.py'] exits with return code = 1",
    # other text after the number, or a longer number: not this message
    "exits with return code = -9 times out of ten",
    '"exits with return code = -9x"',
    "exits with return code = -1234",
    "",
    "the job died with an error",
])
def test_not_read(text):
    assert not subprocess_error.detect(text)
    assert parse_text(text).facts == []


@pytest.mark.parametrize("line,sig,num,core,cmd", [
    # bash's report of a foreground job (real: POSTECH-CVLab/point-transformer#50's title)
    ("Bus error (core dumped)", "SIGBUS", 7, True, ""),
    ("Segmentation fault (core dumped)", "SIGSEGV", 11, True, ""),
    ("Illegal instruction (core dumped)", "SIGILL", 4, True, ""),
    ("Floating point exception", "SIGFPE", 8, False, ""),
    # a script's report: "<script>: line N: <pid> <signal> [(core dumped)] <command>" (real: santi-pdp/segan#40)
    ("./clean_wav.sh: line 26:  6499 Aborted", "SIGABRT", 6, False, ""),
    ("./train.sh: line 12: 41233 Killed                  python train.py", "SIGKILL", 9, False, "python train.py"),
])
def test_shell_signal_reports(line, sig, num, core, cmd):
    facts = parse_text(line).facts
    assert [(f.signal, f.signum, f.core_dumped, f.command, f.launcher) for f in facts] == [(sig, num, core, cmd, "shell")]


@pytest.mark.parametrize("text", [
    "Fatal Python error: Segmentation fault",            # faulthandler's report: not the shell's
    "Segmentation fault happens when the input is empty",  # prose
    "srun: error: node12: task 3: Segmentation fault (core dumped)",  # srun's: slurm_log reads it
])
def test_shell_signal_near_misses(text):
    assert parse_text(text).facts == []


def test_open_mpi_launcher_signal_report():
    # mpirun's proc-aborted-strsignal (the node as the poster redacted it)
    text = (FIX / "trtllm1700_mpirun_signal9.txt").read_text()
    assert subprocess_error.detect(text)
    got = [(f.evidence.line, f.node, f.signal, f.signum, f.launcher) for f in parse_text(text).facts]
    assert got == [(6, "xxxxxxxx", "SIGKILL", 9, "mpirun")]


@pytest.mark.parametrize("line,sig,num,tool", [
    # PRRTE's proc-aborted form (no signal text), and the strsignal form of a crash
    ("prterun noticed that process rank 1 with PID 2345 on node gpu07 exited on signal 11.", "SIGSEGV", 11, "prterun"),
    ("mpiexec noticed that process rank 0 with PID 77 on node n1 exited on signal 6 (Aborted).", "SIGABRT", 6, "mpiexec"),
])
def test_open_mpi_launcher_forms(line, sig, num, tool):
    assert [(f.signal, f.signum, f.launcher) for f in parse_text(line).facts] == [(sig, num, tool)]


def test_open_mpi_non_zero_status_is_not_a_signal():
    # help-orterun.txt's normal-termination-but banner: an exit status, not a signal
    text = "Primary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n"
    assert parse_text(text).facts == []


# issue 11 wild sweep round 5D: zsh's report, bash's after a tqdm bar, gdb's stop on a fatal signal (real pastes)
@pytest.mark.parametrize("name, line, sig, launcher, cmd", [
    ("deepspeech172_zsh_segfault.txt", 4, "SIGSEGV", "zsh",
     "python train.py --train_manifest  --val_manifest  --batch_size 64 --cuda"),
    ("diffphysdrone6_tqdm_segfault.txt", 6, "SIGSEGV", "shell", ""),
    ("rocm2272_gdb_sigsegv.txt", 1, "SIGSEGV", "gdb", "lmp"),
])
def test_zsh_tqdm_and_gdb_reports(name, line, sig, launcher, cmd):
    text = (FIX / name).read_text()
    assert subprocess_error.detect(text)
    (f,) = parse_text(text).facts
    assert (f.evidence.line, f.signal, f.signum, f.launcher, f.command) == (line, sig, 11, launcher, cmd)


@pytest.mark.parametrize("line, sig, core", [
    ("zsh: illegal hardware instruction  python -c 'import torch'", "SIGILL", False),
    ("zsh: segmentation fault (core dumped)  python project/test.py", "SIGSEGV", True),
    ("[2]  + 41233 killed     python train.py", "SIGKILL", False),
    ("Program received signal SIGABRT, Aborted.", "SIGABRT", False),
])
def test_zsh_and_gdb_forms(line, sig, core):
    (f,) = parse_text(line + "\n").facts
    assert (f.signal, f.core_dumped) == (sig, core)


@pytest.mark.parametrize("text", [
    'Thread 1 "python" received signal SIGINT, Interrupt.\n',  # gdb stopped it for the user: no crash
    "The segmentation fault happens in epoch 3 when I use zsh\n",
    "100%|██████████| 50/50 [00:10<00:00,  4.90it/s]\n",
])
def test_zsh_tqdm_gdb_near_misses(text):
    assert parse_text(text).facts == []


@pytest.mark.parametrize("name,line,launcher,crashed_in,library", [
    # UCX's report, frames from libbfd, threads interleaved: the first frame past __sigaction is NCCL's
    ("nccl1538_ucx_segv_in_nccl.txt", 2, "ucx", "pncclRedOpDestroy", "nccl"),
    # Open MPI's report: libc's frames (the trampoline, then memcpy's) skipped, NCCL's object and offset
    ("nccl2380_openmpi_segv_in_libnccl.txt", 2, "openmpi", "libnccl.so.2+0xbd72c", "nccl"),
    # Open MPI's report with UCX's backtrace below it: the crash is in UCX, not NCCL (no library named by libbfd's frame)
    ("nccltests218_ucx_segv_in_ucp.txt", 2, "openmpi", "ucp_request_cancel", None),
])
def test_native_crash_report_backtrace(name, line, launcher, crashed_in, library):
    text = (FIX / name).read_text()
    assert subprocess_error.detect(text)
    facts = parse_text(text).facts
    assert [(f.evidence.line, f.signal, f.launcher, f.crashed_in, f.crash_library) for f in facts] == [
        (line, "SIGSEGV", launcher, crashed_in, library)]


@pytest.mark.parametrize("text,want", [
    # UCX up to 1.8: strsignal's text alone; glibc's backtrace_symbols frames (UCX without libbfd), UCX's own skipped
    ("[gpu1:4770 :0:4770] Caught signal 11 (Segmentation fault)\n==== backtrace ====\n"
     " 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7108781c3f96]\n"
     " 1  /usr/lib/libnccl.so.2(ncclCommInitRank+0x66) [0x7108781c3f96]\n", [("SIGSEGV", "ncclCommInitRank", "nccl")]),
    # Open MPI's report of an abort in another library: named by its object
    ("[h:59563] Signal: Aborted (6)\n[h:59563] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x45330)[0x7fa242845330]\n"
     "[h:59563] [ 1] /opt/lib/libplumed.so(_ZN4PLMD5errorEv+0x1e)[0x7fa24284527e]\n", [("SIGABRT", "_ZN4PLMD5errorEv", "plumed")]),
    # a report without its backtrace
    ("[h:1:0:1] Caught signal 7 (Bus error: nonexistent physical address)\n", [("SIGBUS", None, None)]),
    # another program's "Caught signal" without UCX's bracketed prefix, and a log line about a signal: not read
    ("Caught signal 11 (SIGSEGV)\n", []),
    # UCX's report pasted without its prefix, known by the backtrace header under it (deepseek-ai/DeepEP#36, the quote
    # markers of fixtures/artefacts/subprocess_error/deepep36_quoted_ucx_segv_in_nvshmem_ibrc.txt taken off): NVSHMEM's
    # static helper named by its first NVSHMEM caller
    ("Caught signal 11 (Segmentation fault: address not mapped to object at address 0x11000008)\n"
     "==== backtrace (tid:  84663) ====\n 0 0x0000000000042520 __sigaction()  ???:0\n"
     " 1 0x0000000000010a13 process_recv()  :0\n 2 0x00000000000112e5 progress_recv()  :0\n"
     " 3 0x00000000000113dc nvshmemt_ibrc_progress()  :0\n", [("SIGSEGV", "process_recv", "nvshmem")]),
    # a helper whose first named caller is NCCL's, or an unnamed frame with no NVSHMEM caller: not NVSHMEM's
    ("Caught signal 11 (Segmentation fault)\n==== backtrace (tid:  1) ====\n 1 0x0000000000010a13 helper()  :0\n"
     " 2 0x00000000000112e5 ncclProxyProgress()  :0\n 3 0x00000000000113dc nvshmemi_proxy_progress()  :0\n",
     [("SIGSEGV", "helper", None)]),
    ("2024-01-01 worker: Signal: SIGTERM received\n", []),
    # UCX's message alone (mpi4py/mpi4py#36: CuPy buffers through Open MPI's CUDA-aware Bcast), known by the si_code's
    # cause and the address only UCX's handler prints; the same words with the backtrace under them are read once
    ("Caught signal 11 (Segmentation fault: invalid permissions for mapped object at address 0x2b15b6a00310)\n",
     [("SIGSEGV", None, None)]),
    ("Caught signal 11 (Segmentation fault: address not mapped to object at address 0x11000008)\n"
     "==== backtrace (tid:  84663) ====\n 1 0x0000000000010a13 process_recv()  :0\n", [("SIGSEGV", "process_recv", None)]),
    # CONSTRUCTED near miss: strsignal's text alone, no cause nor address: another program's words, not read
    ("Caught signal 11 (Segmentation fault)\n", []),
    # apache/tvm-ffi's report as NVIDIA/nccl#2106 posted it (a markdown quote, its first 9 of 16 frames): glibc's frames
    # (by their source paths, __GI_raise, an address) skipped, the CUDA driver's cuMemCreate under NCCL's ncclCuMemHostEnable
    ('> !!!!!!! Segfault encountered !!!!!!!\n'
     '>   File "./signal/../sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c", line 0, in 0x00007d8764c4532f\n'
     '>   File "./nptl/pthread_kill.c", line 44, in __pthread_kill_implementation\n'
     '>   File "./nptl/pthread_kill.c", line 78, in __pthread_kill_internal\n'
     '>   File "./nptl/pthread_kill.c", line 89, in __GI___pthread_kill\n'
     '>   File "../sysdeps/posix/raise.c", line 26, in __GI_raise\n'
     '>   File "./signal/../sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c", line 0, in 0x00007d8764c4532f\n'
     '>   File "<unknown>", line 0, in cuMemCreate\n'
     '>   File "misc/cudawrap.cc", line 92, in ncclCuMemHostEnable()\n', [("SIGSEGV", "cuMemCreate", "cuda")]),
    # tvm-ffi's report without the quote: NCCL's own frame innermost (a function with its argument list), or a frame
    # in neither library (NVML's, from a public TensorRT-LLM write-up's trace: nvidia-ml-py's ctypes struct of another
    # driver branch); a banner without frames
    ("!!!!!!! Segfault encountered !!!!!!!\n  File \"<unknown>\", line 0, in 0x00007d8764c4532f\n"
     "  File \"misc/cudawrap.cc\", line 92, in ncclCuMemHostEnable()\n", [("SIGSEGV", "ncclCuMemHostEnable", "nccl")]),
    ("!!!!!!! Segfault encountered !!!!!!!\n  File \"<unknown>\", line 0, in nvmlSystemGetConfComputeSettings\n"
     "  File \"<unknown>\", line 0, in ffi_call\n", [("SIGSEGV", "nvmlSystemGetConfComputeSettings", None)]),
    ("!!!!!!! Segfault encountered !!!!!!!\n", [("SIGSEGV", None, None)]),
    # the banner quoted inside prose: not a report
    ("the crash signature is \"!!!!!!! Segfault encountered !!!!!!!\" right after start-up\n", []),
])
def test_native_crash_report_forms(text, want):
    facts = parse_text(text).facts
    assert [(f.signal, f.crashed_in, f.crash_library) for f in facts] == want


# issue 11 round rI2: what a SIGSEGV report says beyond its innermost frame (the si_code's cause, a fault in the C
# runtime's copy under the MPI layer's code, CUDA-aware transport frames), and UCX's early-2019 form (the cause alone)
@pytest.mark.parametrize("name,want", [
    # UCX's report: memmove under UCX's software RMA (easybuilders/easybuild-easyconfigs#15344)
    ("easybuild15344_osu_put_d_d_ucx_memmove_accerr.txt",
     [("ucp_rma_sw_put_pack_cb", "invalid_permissions", True, "mpi", False)]),
    # Open MPI's report: "Signal code: Invalid permissions (2)", libc by offset under opal_convertor_pack (open-mpi/ompi#7064)
    ("ompi7064_osu_bw_d_d_ob1_ugni_convertor_accerr.txt",
     [("opal_convertor_pack", "invalid_permissions", True, "mpi", False)]),
    # UCX's handler printing the cause alone, --tag-output labels before it (openucx/ucx#3258): a SIGSEGV, no frames
    ("ucx3258_osu_bibw_d_h_cause_only_tag_output.txt", [(None, "invalid_permissions", False, None, False)]),
    # Open MPI's report whose memcpy is under NCCL's code: not the MPI layer's (NVIDIA/nccl#2380)
    ("nccl2380_openmpi_segv_in_libnccl.txt", [("libnccl.so.2+0xbd72c", None, True, None, False)]),
])
def test_crash_report_context(name, want):
    text = (FIX / name).read_text()
    assert subprocess_error.detect(text)
    facts = parse_text(text).facts
    assert [(f.crashed_in, f.segv_cause, f.crash_in_copy, f.crash_layer, f.cuda_transport) for f in facts] == want


@pytest.mark.parametrize("text,want", [
    # a crash in UCX's own code, no copy under it (openucx/ucx#3180's first frames): address not mapped, not a copy
    ("[hsw216:9444 :0:9444] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x28)\n"
     "==== backtrace ====\n    0  $UCX_HOME/build/lib/libucs.so.0(+0x23f34) [0x2af2ba456f34]\n"
     "    1  $UCX_HOME/build/lib/libucs.so.0(+0x2407a) [0x2af2ba45707a]\n"
     "    2  $UCX_HOME/build/lib/libucp.so.0(ucp_rkey_destroy+0x10) [0x2af2b9bf9639]\n",
     [("ucp_rkey_destroy", "address_not_mapped", False, "mpi", False)]),
    # CONSTRUCTED: UCX's cuda_copy transport in the frames of a crash in UCX's protocol code
    ("[n1:5:0:5] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n"
     "==== backtrace (tid:      5) ====\n 0 0x0000000000012345 ucp_proto_rndv_ats_complete()  ???:0\n"
     " 1 0x0000000000023456 uct_cuda_copy_iface_progress()  ???:0\n", [("ucp_proto_rndv_ats_complete", "address_not_mapped", False, "mpi", True)]),
    # a SIGABRT has no SEGV cause
    ("[h:59563] Signal: Aborted (6)\n[h:59563] Signal code:  (-6)\n", [(None, None, False, None, False)]),
    # the cause alone without the backtrace header under it: another program's words, not read (CONSTRUCTED)
    ("[host:1:0:1] invalid permissions for mapped object\nsomething else\n", []),
])
def test_crash_report_context_forms(text, want):
    facts = parse_text(text).facts
    assert [(f.crashed_in, f.segv_cause, f.crash_in_copy, f.crash_layer, f.cuda_transport) for f in facts] == want


# issue 11 wild sweep round 7A: SGLang's launcher reports a dead child (sgl-project/sglang#5770)
def test_sglang_dead_scheduler_and_sigchld_wait_status():
    text = (FIX / "sglang5770_scheduler_sigsegv.txt").read_text()
    assert subprocess_error.detect(text)
    got = sorted((f.evidence.line, f.signal, f.signum, f.launcher, f.command) for f in parse_text(text).facts)
    assert got == [(1, "SIGSEGV", 11, "sglang", "scheduler rank 0"), (2, "SIGSEGV", 11, "sglang", ""),
                   (3, "SIGSEGV", 11, "sglang", ""), (4, "SIGSEGV", 11, "sglang", "")]


@pytest.mark.parametrize("line, sig, num, core", [
    # os.waitpid's status: 134 = SIGABRT (6) with a core (0x80), 9 = SIGKILL
    ("[2025-03-11 15:02:53] Child process unexpectedly failed with an exit code 134. pid=77", "SIGABRT", 6, True),
    ("Child process unexpectedly failed with an exit code 9. pid=4242", "SIGKILL", 9, False),
])
def test_sglang_wait_status_forms(line, sig, num, core):
    assert [(f.signal, f.signum, f.core_dumped) for f in parse_text(line).facts] == [(sig, num, core)]


@pytest.mark.parametrize("text", [
    # an exit status (sglang's sigchld_handler: "Child process unexpectedly failed with an exit code %d. pid=%d"
    # with os.waitpid's status, 256 = exit 1) and a scheduler that exited: not a signal
    "Child process unexpectedly failed with an exit code 256. pid=4242\n",
    "[01-28 04:18:10] Rank 0 scheduler is dead. Please check if there are relevant logs.\n[01-28 04:18:11] Exit code: 1\n",
    # the exit code too far from its scheduler line to be that process's
    "Rank 0 scheduler is dead. Please check if there are relevant logs.\n" + "x\n" * 12 + "Exit code: -11\n",
])
def test_sglang_exits_not_read(text):
    assert parse_text(text).facts == []


def test_compose_container_exited_137_is_sigkill():
    # vectorch-ai/ScaleLLM#38: compose's "<container> exited with code 137" (128+9)
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/subprocess_error/scalellm38_compose_exit_137.txt").read_text()
    assert subprocess_error.detect(text)
    got = [(f.evidence.line, f.signal, f.signum, f.command, f.launcher)
           for f in subprocess_error.parse(Artefact(path="compose.log", text=text, node="n1")).facts]
    assert (2, "SIGKILL", 9, "scalellm", "docker compose") in got


def test_compose_exit_status_and_sigterm_are_not_read():
    # compose's e2e form for an exit status ("should_fail-1 exited with code 123") and 143 (SIGTERM: a stop)
    text = "should_fail-1 exited with code 123\nweb-1 exited with code 143\n"
    assert subprocess_error.parse(Artefact(path="compose.log", text=text, node="n1")).facts == []


def test_tgi_launcher_shard_and_download_signaled():
    # huggingface/text-generation-inference#814: the launcher's compact line, the shard-manager span's rank at its end
    text = (FIX / "tgi814_shard_signal7.txt").read_text()
    assert subprocess_error.detect(text)
    got = [(f.evidence.line, f.signal, f.signum, f.command, f.launcher) for f in parse_text(text).facts]
    assert got == [(2, "SIGBUS", 7, "shard rank=1", "text-generation-launcher")]
    # CONSTRUCTED from launcher/src/main.rs: the download's form ("...with signal {signal}: {err}"), a shard line
    # without its span's rank
    text = ("2024-01-01T00:00:00.000000Z ERROR download: text_generation_launcher: Download process was signaled to "
            "shutdown with signal 9: \n"
            "2024-01-01T00:00:00.000000Z ERROR text_generation_launcher: Shard process was signaled to shutdown with signal 11\n")
    got = [(f.signal, f.command) for f in parse_text(text).facts]
    assert got == [("SIGKILL", "download"), ("SIGSEGV", "shard")]


@pytest.mark.parametrize("text", [
    # the launcher's other shard lines name no signal (the shard's stderr, above them, says what failed)
    "2023-12-16T09:36:24.632149Z ERROR text_generation_launcher: Shard 0 failed to start\n",
    "2023-12-16T09:36:24.652173Z  INFO shard-manager: text_generation_launcher: Shard terminated rank=1\n",
    "Error: ShardCannotStart\n",
    "the shard process was signaled to shutdown with signal number seven\n",
])
def test_tgi_launcher_lines_without_a_signal_are_not_read(text):
    assert parse_text(text).facts == []
