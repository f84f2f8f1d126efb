"""Error lines in a file that no parser recognises (the fallback: runs only then).

A file nobody recognises may still hold the line that explains the incident: a tool's own
error, a message no parser knows yet. This reader takes the lines that say so in words
(error, failed, fatal, panic, timed out, Traceback, ...) as ``text_error_line`` facts of
warning polarity, so the verdict cannot be healthy while they are unread
(rules/meta/unexplained_error.yaml quotes them). Lines without such words are left unclaimed,
and a file with none stays unrecognised (the verdict is then inconclusive, never healthy).

A line whose own structured level says it is no error (JSON ``"level": "info"``, logfmt
``level=debug``, logrus's ``INFO[0000]``: knowledge/coverage.yaml ``quiet_levels``) is no error
line for its words ("Loaded 121 DCGM error mappings"): the program that wrote it judged it.

A recognised file gets the same check with narrower words (``unread_failures``): when its
readers found no error but a line they did not read says ``Segmentation fault``, ``Killed``,
``Out of memory: Killed process``, ``ERROR``, ``FAILED`` or ends a traceback, that line is a
``text_error_line`` too: a training log or a kernel log that reports a crash nobody parsed is
never read as clean.

A Python traceback whose frames run to the text's end, its exception line cut off by the paste or
the excerpt, shows that something raised and not what: a ``cut_short`` capture limit (the verdict
is then inconclusive, never healthy), not an error line quoting its header.

A chain of wrappers is one failure: Ray's ``RayTaskError(<cause's class>): ray::<task>() (pid=N,
ip=...)`` lines, one per task that re-raised it, are read as the chain's innermost line (the
cause's exception after the last wrapper's frames, else that wrapper when the paste cut it).

Sample content (real lines from public threads that no parser of ours reads)::

    docker: Error response from daemon: failed to create task for container: failed to create shim task
    Segmentation fault (core dumped)
"""
from __future__ import annotations

from bisect import bisect_left
import re
from functools import lru_cache

import re2

from stethoscope.facts import knowledge
from stethoscope.facts import classify
from stethoscope.facts.classify import signature_source
from stethoscope.facts.kinds.prose import ReportedSymptom  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.steth import TextErrorLine  # noqa: F401
from stethoscope.facts.lines import TITLE_TAG, is_title
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines, last_line
from stethoscope.facts.parsers.cpp_runtime_abort import WHAT_LINE
from stethoscope.facts.records import record_level, record_message

KIND = "unrecognised_text"
#: run only on files that no other parser recognised (facts/registry.py)
FALLBACK = True


# docker: Error response from daemon: failed to create task for container: failed to create shim task
# Segmentation fault (core dumped)
# RuntimeError: something went wrong
# Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.   (EleutherAI/gpt-neox#482: Python's bare
#   Exception, "<qualname>: <message>" as traceback.format_exception_only prints it; followed by its message only)
# (not "non-fatal", which says the opposite: "[2026-01-29 12:45:29] Node event verified: GpuPowerWatch is
# non-fatal, appears in events", NVIDIA/NVSentinel#768's acceptance test; an AER line's "(Non-Fatal)" has its "Error")
# [rank6]: WorkNCCL(...) ran for 7200015 milliseconds before timing out.   (a public note in the code index: PyTorch's
#   watchdog phrase with the work's fields left out and no "Watchdog caught" before it; read as nothing, it left a
#   healthy verdict standing beside a healthy log of the same node)
ERROR_WORDS = re.compile(
    r"\b(?:[Ee]rror|ERROR|[Ff]ailed|FAILED|[Ff]ailure|FAILURE|(?<![Nn]on-)(?<![Nn]on )[Ff]atal|(?<!NON-)FATAL|[Pp]anic|PANIC|Traceback|"
    r"[A-Z]\w*(?:Error|Exception)|Exception(?=: \S)|[Tt]imed out|[Tt]imeout|before timing out|Segmentation fault|core dumped|[Aa]borted|"
    r"[Cc]annot|[Cc]ould not|[Uu]nable to|[Nn]ot responding|[Uu]ncorrectable|[Cc]orrupt\w*)\b"
)

# The words of a line that says a program, the kernel or a job failed, strong enough to read in
# any file, recognised or not (engine/parse_pool.py: a recognised file whose readers found no
# error yet holds such a line has dropped it). Narrower than ERROR_WORDS: a reader's own lines
# say "failed"/"could not" in benign INFO lines ("NCCL INFO Could not get speed from ...").
# Real lines (fixtures/artefacts, public threads) above each alternative:
FAILURE_WORDS = re.compile(
    # Illegal instruction (core dumped)            (a shell: the process died of a signal)
    # Fatal Python error: Segmentation fault
    r"\b(?:Segmentation fault|core dumped|Bus error|Illegal instruction|Floating point exception)\b"
    # ./train.sh: line 12: 41233 Killed    python train.py      (SIGKILL, usually the OOM killer)
    r"|(?:^\s*|\s\d+\s+)Killed(?:\s|$)"
    # Out of memory: Killed process 1708 (python3) total-vm:81234567kB, anon-rss:65432100kB, ...
    # INFO: task python3:1708 blocked for more than 122 seconds.
    # watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [nvidia-smi:2211]
    # python3[1708]: segfault at 0 ip 00007f3a1c2b4e10 sp 00007ffd3c1a2b40 error 4 in libcuda.so...
    r"|\b(?:Kernel panic|Oops(?::| -)|BUG: |soft lockup|hard LOCKUP|blocked for more than \d+ seconds"
    r"|invoked oom-killer|Out of memory: |oom-kill:|segfault at |general protection fault|Call Trace:"
    r"|detected stalls on CPU|self-detected stall|Hardware Error)"
    # Traceback (most recent call last):       (read as the exception line that ends it)
    r"|^\s*Traceback \(most recent call last\):"
    # Scheduler hit an exception: Traceback (most recent call last):     (a logger's record ending in the header, the
    #   same; _LOGGED_TRACEBACK, sgl-project/sglang#8336)
    r"|^[ \t]*\S+[ \t][^\n]*\S: Traceback \(most recent call last\):?[ \t]*$"
    # torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
    # ValueError: Expected input batch_size (32) to match target batch_size (16).
    # Exception: Server process terminated unexpectedly.       (Python's bare Exception; THUDM/slime#1326, harvest 2504)
    r"|^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?::|\s*$)|^\s*Exception: \S"
    # google.api_core.exceptions.TooManyRequests: 429 POST https://storage.googleapis.com/storage/v1/b?project=...
    #   (kubeflow/pipelines#3674) a class of a library's exceptions or errors module whose name says neither Error nor
    #   Exception (google.api_core.exceptions' NotFound, Forbidden, DeadlineExceeded, ServiceUnavailable; triton.runtime.
    #   errors' OutOfResources): the module's name says what it is, the line begins with it as Python prints an uncaught one
    r"|^\s*(?:[A-Za-z_]\w*\.)+(?:exceptions|errors)\.[A-Z]\w*: \S"
    # CUDAdrv: Error During Test
    #   Got an exception of type CUDAdrv.CuError outside of a @test          (JuliaGPU/CUDAdrv.jl#106, Julia 0.6)
    #   Julia's Test stdlib (Test.jl Base.show(io, ::Error)): printstyled("Error During Test") [" at file:line"], then for
    #   an error outside any @test println("  Got exception outside of a @test") (1.x); a test set's name may come first.
    #   Pasted after an NCCL log's Init COMPLETE these lines read HEALTHY (session 26 A8, mixed windows)
    r"|\bError During Test\b|^\s*Got (?:an )?exception (?:of type \S{1,200} )?outside of a @test\b"
    # ray.exceptions.RayTaskError(DistBackendError): ray::_Inner.train() (pid=249, ip=10.0.0.78, ...)   (Ray's wrapper
    # of a task's exception, read as its chain's innermost line: _ray_chains)
    r"|^\s*(?:ray\.exceptions\.)?RayTaskError\([\w.]+\): "
    # straggler.py FAILED
    # CRITICAL 03-13 09:00:43 [core_client.py:260] Got fatal signal from worker processes, shutting down.
    r"|\b(?:ERROR|FATAL|FAILED|CRITICAL)\b"
    # EROR[05-12|10:00:00] Failed to dial peer        CRIT [05-12|10:00:00.000] Database corrupted   (CONSTRUCTED)
    #   log15's terminal records and go-ethereum's (log/format.go TerminalFormat: "%s[%s] %s " of the level and the time as
    #   "01-02|15:04:05[.000]"; the level upper-cased from Lvl.String(), "EROR", "CRIT", or Lvl.AlignedString(), "ERROR",
    #   "CRIT "): an error record whose message need say no error word
    r"|^[ \t]*(?:EROR|CRIT) ?\[\d\d-\d\d\|\d\d:\d\d:\d\d"
    # |   4  ERR!                On   | 00000000:83:00.0 Off |                 ERR! |   (fixtures/artefacts/nvidia_smi_table/
    #   ogkm446_r525_a40_gpu4_err.txt: nvidia-smi prints ERR! in a field whose NVML query failed, a GPU it cannot read)
    # |                           | Fail - GPU: 0                                  |   (fixtures/artefacts/dcgmi_diag/
    #   go_dcgm52_memory_fail_busy.txt: dcgmi diag's result cell of a test that failed, the GPUs it failed on)
    # <TAB>state:<TAB><TAB> 1: DOWN   (fixtures/artefacts/ibstatus/hdr_active_and_polling.txt: ibstatus's logical state of a port)
    #   Rows of a tool that say a thing failed or is down in no word above: their readers read them in the tool's own
    #   output; one pasted among other lines (session 29 B4, fragment_audit --plant) was no one's and the file HEALTHY
    r"|\bERR!|\|[ \t]{0,80}Fail(?: - GPU: [\d, ]{1,40})?[ \t]{0,80}\||^[ \t]{0,16}state:[ \t]{1,16}1: DOWN[ \t]*$"
    # 0, NVIDIA H100 80GB HBM3, [GPU requires reset], [GPU requires reset]       (CONSTRUCTED row of nvidia-smi --query-gpu
    #   --format=csv,noheader; i3pystatus#850: "--query-gpu=fan.speed --format=csv,noheader,nounits can return [Unknown
    #   Error]") nvidia-smi's CSV prints a field whose NVML query failed as the error's text in brackets (nvmlErrorString:
    #   NVML_ERROR_UNKNOWN "Unknown Error", NVML_ERROR_GPU_IS_LOST "GPU is lost", NVML_ERROR_RESET_REQUIRED "GPU requires
    #   reset"); "[N/A]" and "[Not Supported]" are fields the GPU lacks, no failure. Rows pasted without their header are
    #   no reader's: such a cell was a GPU nobody read (round rBA1: "[GPU requires reset]" read as nothing)
    r"|\[(?:Unknown Error|GPU is lost|GPU requires reset)\]"
    # E1129 19:55:14.319000 600 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: -6) ...
    # F20250720 17:52:37.391902 1125343 util.h:139] Check failed: bind(*listen_fd, ...) >= 0 ERROR: binding   (uccl-project/uccl#172:
    #   glog 0.7 puts the year before mmdd where FLAGS_log_year_in_prefix is set, src/logging.cc LogMessage::Init)
    r"|^[EF](?:\d{4})?\d{4} \d\d:\d\d:\d\d"
    # Error: Cuda failure: CUDA driver version is insufficient for CUDA runtime version (35) in ...
    # STDERR: Error: 'systemctl start nvidia-persistenced.service' failed with       (aws/aws-parallelcluster#5448, harvest 1602)
    #   a command's output as Chef / Cinc report a command that failed (mixlib-shellout lib/mixlib/shellout.rb
    #   format_for_exception: msg << "STDOUT: #{stdout.strip}\n"; msg << "STDERR: #{stderr.strip}\n"): the stream's tag,
    #   then the command's first line, its level first
    r"|^\s*(?:STD(?:OUT|ERR): )?(?:[Ee]rror|[Ff]atal)(?:\[\w+\])?: "
    # srun: error: task 0 launch failed: Plugin initialization failed        (NVIDIA/pyxis#4)
    # srun: error: Couldn't find the specified plugin name for mpi/pmix looking at all files   (geoschem/geos-chem#822)
    #   Slurm's commands and daemons log to stderr as "<program>: error: <msg>" / "<program>: fatal: <msg>"
    #   (src/common/log.c: the program name, then the level's prefix), slurmstepd also as "slurmstepd-<host>: "
    r"|^\s*(?:srun|sbatch|salloc|sattach|scontrol|sacct|sacctmgr|sinfo|squeue|scancel|sstat|sreport|sbcast|strigger|slurmd"
    r"|slurmctld|slurmdbd|slurmstepd(?:-[\w.-]{1,64})?)(?:\[\d{1,10}\])?: (?:error|fatal): "
    # (train, pid=4439) bash: python: command not found      (skypilot-org/skypilot#5520: the run step of a SkyPilot task
    #   under its Ray label; the job's program never started)
    # /bin/sh: 1: torchrun: not found                        (dash's form, CONSTRUCTED as facts/parsers/sshd_start.py lists it)
    #   a shell that found no program by the name it was told to run: bash's execute_cmd.c internal_error (_("%s: command
    #   not found"), ...) after the shell's or script's name and, run from a script, "line N: " (error.c), as
    #   "bash: python: command not found" or "./train.sh: line 12: torchrun: command not found"; dash's "<arg0>: <line>:
    #   <name>: not found"; zsh's "zsh: command not found: <name>". Pasted beside a healthy table it was no one's line and
    #   the paste HEALTHY (wild sweep rR4); a reader that knows the program (openmpi_help's orted, sshd_start's sshd)
    #   cites it first
    r"|: command not found[ \t]*$|\bzsh: command not found: \S|\bsh: \d{1,9}: [^\s:]{1,200}: not found[ \t]*$"
    # **docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].**   (NVIDIA/nvidia-docker#1352)
    #   the Docker client's report of a request the daemon refused (docker/cli, moby client/request.go:
    #   "Error response from daemon: %s"): the container was never created or started
    r"|\bError response from daemon: "
    # Other runtimes' last words, as their sources print them (a process that died of them):
    # panic: runtime error: invalid memory address or nil pointer dereference   (bcicen/grmon#8)
    # fatal error: all goroutines are asleep - deadlock!                       (golang/tour#1052)
    #   Go's runtime/panic.go: printpanics prints "panic: ", fatalthrow "fatal error: "
    r"|^\s*(?:panic|fatal error): "
    # terminate called after throwing an instance of 'std::bad_alloc'        (ljanyst/ssd-tensorflow#8)
    #   libstdc++'s vterminate.cc: "... after throwing an instance of '", "... recursively",
    #   "... without an active exception" (std::terminate: the process aborts)
    r"|\bterminate called (?:after throwing an instance of|recursively|without an active exception)"
    # double free or corruption (out)                                          (pytorch/pytorch#148954)
    # *** Error in `./Demo': double free or corruption (!prev): 0x00000000020a4cd0 ***   (threeYANG/mmdetection_libtorch#4)
    #   glibc's malloc_printerr: "%s\n" (2.26 on), "*** Error in `%s': %s: 0x%s ***" before; its
    #   messages are "double free or corruption (...)", "corrupted size vs. prev_size ...",
    #   "corrupted double-linked list ..." and "<function>(): <what>" (free(): invalid pointer, ...)
    r"|^\s*\*\*\* Error in `"
    r"|^\s*(?:double free or corruption \(|corrupted (?:size vs\. prev_size|double-linked list)"
    r"|(?:free|malloc|realloc|calloc|munmap_chunk|malloc_consolidate|tcache_thread_shutdown|_int_\w{1,20})\(\): )"
    # *** stack smashing detected ***: python terminated                       (vchoutas/torch-mesh-isect#22)
    #   glibc's __fortify_fail: "*** %s ***: %s terminated" (to 2.29), "*** %s ***: terminated" after
    r"|^\s*\*\*\* [^*\n]{1,80} \*\*\*: (?:[^\n]{0,300} )?terminated\s*$"
    # ./clean_wav.sh: line 26:  6499 Aborted                                  (santi-pdp/segan#40)
    #   a shell's report of SIGABRT (strsignal), as "Killed" above is of SIGKILL
    r"|(?:^\s*|\s\d+\s+)Aborted(?:\s|$)"
    # MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD           (UCL/hemelb#4)
    # mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 (Killed).   (Kay1794/Aware-of-the-history#2)
    # =   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES                (je-santos/MPLBM-UT#92)
    #   Open MPI's MPI_Abort report, its launcher's (mpirun/prterun: "%s noticed that process
    #   rank %lu with PID %lu on node %s exited on signal %d (%s).", "... detected that one or
    #   more processes exited with non-zero status"), MPICH's Hydra
    r"|\bMPI_ABORT was invoked on rank\b|\bnoticed that process rank \S{1,40} with PID \S{1,40} on node \S{1,255} exited on signal"
    r"|\bdetected that one or more processes exited with non-zero status|\bBAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"
    #   traceback : Signal 6 (SIGABRT) received by PID 745              (fixtures/bundles/h200-straggler-desync)
    #   torchrun's failures table (torch.distributed.elastic: "Signal {n} ({name}) received by PID {pid}"), a line of it alone
    r"|\bSignal \d{1,2} \(SIG[A-Z0-9]{2,8}\) received by PID \d"
    # juju-54b09d-1   NotReady   <none>    7m        v1.10.0                   (charmed-kubernetes/bundle#566: kubectl get nodes)
    #   Normal  NodeNotReady  23m  kubelet, k8s-agentpool-39580029-vmss000000  Node k8s-agentpool-39580029-vmss000000 status is now: NodeNotReady   (Azure/acs-engine#4236)
    #   Status: NotReady                                                      (kubernetes-sigs/dra-driver-nvidia-gpu#1050, a ComputeDomain's)
    #   A Kubernetes object that is not ready, in the API's word: kubectl's node STATUS column (pkg/printers printNode:
    #   "NotReady" where the Ready condition is not True), the kubelet's event reason NodeNotReady ("Node %s status is now:
    #   %s") and the Ready condition's reason KubeletNotReady (pkg/kubelet/nodestatus/setters.go), the DRA driver's
    #   ComputeDomain status. Pasted beside a healthy table these lines were no one's and the paste HEALTHY (bench/
    #   plant_prefix_probe.py); a reader of the object (k8s_compute_domain) cites its own lines. "cudaErrorNotReady" is
    #   no match (no word boundary before "NotReady")
    r"|\b(?:Node|Kubelet)?NotReady\b"
    # iteration 5426/ 250000 | ... | loss scale: 1.0 | grad norm: nan | ...   (bigscience-workshop/Megatron-DeepSpeed#396)
    #   a loss or gradient norm that is not a number: the job's numerics failed. Megatron prints
    #   "grad norm: {:.3f}" and "lm loss: {:.6E}" (NaN there is "NAN"), Hugging Face's Trainer
    #   {'loss': nan, 'grad_norm': inf, ...}; "number of nan iterations: 0" is a count, not a value
    r"|\b(?:loss|grad(?:ient)?[ _]norm)['\"]?\s{0,8}[:=]\s{0,8}['\"]?[-+]?(?:nan|NaN|NAN|inf|Inf|INF)\b",
    re.M,
)
#: the same words for RE2 (linear, one pass): most files hold none, and are left after it
_FAILURE_ANY = re2.compile(signature_source(FAILURE_WORDS))
#: ... a member of the classifier's set (facts/classify.py gate()): unread_failures, asked of every
#: recognised log its readers found no error in, has the answer of the file's one pass (a bench
#: node's 13 logs: ~1.7 ms of searches of their own)
TEXT_GATES = (_FAILURE_ANY,)

#: literals one of which a text holds where ERROR_WORDS may match it in detect() (a text without any is not searched)
ERROR_GATES = ("rror", "ail", "atal", "anic", "ANIC", "Traceback", "xception", "imed out", "imeout", "fault",
               "dumped", "bort", "annot", "ould not", "nable to", "responding", "ncorrectable", "orrupt", "FAIL",
               "timing out")


#: what this reader takes from a file nobody recognises: the error words, and the failure lines
#: that say no such word ("terminate called after throwing ...", "*** stack smashing detected ***")
_ANY_ERROR = re.compile(f"{ERROR_WORDS.pattern}|{FAILURE_WORDS.pattern}", re.M)


def error_line(line: str) -> bool:
    """Whether ``line`` holds an error word or a failure form (not only a diagnostic term)."""
    return ERROR_WORDS.search(line) is not None or FAILURE_WORDS.search(line) is not None


def detect(text: str) -> bool:
    if 'File "' in text and frames_to_end(text.split("\n")) is not None:
        return True  # the middle of a traceback, cut before its exception: read as a cut capture (frames_to_end)
    if " from " in text and "#" in text and captured_frames(text.split("\n")):
        return True  # PyTorch's C++ frames: read as its error's context, or as a capture cut short (captured_frames)
    if "frame #" in text and c10_frames_to_end(text.split("\n")) is not None:
        return True  # c10's backtrace frames the text ends in, without their header: a capture cut short (c10_frames_to_end)
    if not ((any(g in text for g in ERROR_GATES) and ERROR_WORDS.search(text) is not None)
            or _FAILURE_ANY.search(text) is not None):
        return False
    # a file whose every error-worded line is a quiet structured one (info, debug) has no error
    # line: it stays unrecognised, as a file without such words does; nor is a reporter's sentence
    # in a file of prose one (ticket_prose reads it: the error is a claim it quotes)
    told = None
    # one look at each line: what follows depends on the line alone, and a long line holding thousands of error words
    # (a field repeated) looked at once per word took time quadratic in its length (tests/test_fuzz_parsers.py: a
    # sentence quoting CUTLASS's error made 90,000 characters long, over 10 s; wild sweep J2)
    pos = 0
    while (m := _ANY_ERROR.search(text, pos)) is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end >= 0 else len(text)]
        pos = end + 1 if end >= 0 else len(text)
        if not quiet(line) and not shell_command(line) and not says_no_failure(line):
            if _reporter().reported_error(line) or FAILURE_WORDS.search(line) is None:
                if told is None:
                    rows = text.split("\n")
                    told = {rows[n - 1] for n in _reporter().reported_errors(rows) | _reporter().explanations(rows)
                            | _reporter().handled_failures(rows)}
                if line in told:
                    continue
            return True
    return False



# --- what a reporter wrote, not what a program printed --------------------------------------------------------------
# An issue's title (a file named ``title.txt``, as a ticket's fields are saved) is the reporter's summary of the
# problem, a noun phrase more often than a program's line:
# NCCL Timeout During Multi-Node Training                                  (ecmwf/WeatherGenerator#360)
# [Bug]: PyNcclCommunicator error when inferencing                          (vllm-project/vllm#8420)
# NCCL timeout error during training                                       (MLI-lab/DeepDeWedge#22)
# So is the value of a bug template's field, and a template's heading is its label:
# **Severity**: High - Segmentation fault with EFA provider                 (ofiwg/libfabric#11628, its template's fields)
# ### Error messages and logs                                               (Lightning-AI/pytorch-lightning's bug template,
# # Error messages and logs here please                                       .github/ISSUE_TEMPLATE: its heading, its placeholder)
# Such a line with an error word is a reported symptom (ticket_prose's fact: a claim, the verdict inconclusive while
# nothing read judges it), not an error nobody explains. A title is that whatever it quotes (issue 11, round rV2): the
# reporter chose the words, cut or retyped ("NCCL error: unhandled system error", "RuntimeError: NCCL Error 2:
# unhandled system error", Arthur151/ROMP#80's title, read before as PyTorch's NCCL error: faulty on the title alone);
# the program's own line, where pasted in the body, is read there (engine/parse_pool.py: a title goes to the fallback
# readers only). A template's field or heading is the reporter's claim unless it quotes what a program printed
# (:func:`printed`):
# [TensorRT-LLM][ERROR] Failed, NCCL error when ...                          (a program's level tag, TensorRT-LLM's logger)
# a template field: a bold label, its colon in or after the bold, the reporter's value after it
# (the blanks around the colon and the closing ** bounded: two unbounded runs of them around an optional colon split a
# long run of blanks every way, bench/redos.py 0.5 s at 120,000 characters)
_TEMPLATE_FIELD = re.compile(r"^\s{0,3}(?:[-*>][ \t]{1,4})?\*\*(?P<label>[A-Za-z][\w /()&,.-]{0,40}?)[ \t]{0,8}:?[ \t]{0,8}\*\*"
                             r"[ \t]{0,8}:?[ \t]{0,8}(?P<value>[^\n]{0,400})$")
# a markdown heading (a template's section), or a placeholder line that starts as one: one space after the hashes, words
# without the runs of spaces a program's '#' lines align columns with (nccl-tests' "#       size   count ... error",
# ucx_info's "#   < failed to open interface >" stay output)
_HEADING = re.compile(r"^\s{0,3}#{1,6} (?P<value>[^\s<\[(|#-](?:[^\n ]| (?! )){0,120})$")
# a heading that only names the section the output goes in: "Error messages and logs", "Error logs", "Crash output"
_SECTION_LABEL = re.compile(r"^\W{0,4}(?:(?:full|complete|the|relevant)\s)?(?:error|errors|failure|crash|stack ?trace|traceback)"
                            r"(?:\s(?:messages?|logs?|outputs?|traces?|info(?:rmation)?|details?|and|here|please|if|any)){0,6}\W{0,4}$",
                            re.I)
# a title's template tag first ("[Bug]: ", "[Issue]: ", "[BERT/TF2] ") or a commit's type ("doc(nvidia/error/xid): "),
# not a program's level tag ("[ERROR]", "[TM][FATAL]"): facts/lines.TITLE_TAG (the pipeline takes it off the title before
# the readers see it; a title read here directly may still carry it)
# what only a program prints, inside a reporter's line (each a real title or field):
# AssertionError: Fatal error: gradients are inconsistent between workers              (an exception's line)
# Shard process was signaled to shutdown with signal 4 rank=0 Error: ShardCannotStart  (a level's or "Error:" label)
# [Bug] ... [TM][FATAL] comm\device_comm.cc(28): Check failed: 0 Unknown communication backend: nccl
# query_smp.c:199; Connection timed out                                                (a source file's line)
# Not collecting GPU metrics; error getting devices count: Cannot perform the requested operation ...   (an error chain)
_PRINTED = re.compile(
    r"(?<![\w.])(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception)(?::|\()|(?<!\w)Exception: "
    # (a label with something after it: a reporter's line that ends on "error:" points at what follows, "DAPT on
    # Chip_data, Fails with this error:", NVIDIA-NeMo/Speech#14348's title)
    r"|\b(?:[Ee]rror|ERROR|FATAL|[Ff]atal|CRITICAL|WARNING|WARN|[Pp]anic)(?:\[\w{1,20}\])?:(?![ \t]{0,8}$)"
    r"|\[(?:ERROR|FATAL|CRITICAL|WARN|WARNING|E|F)\]"
    r"|\b[\w/.-]{1,200}\.(?:c|cc|cpp|cu|cuh|h|hpp|py|go|rs)(?::\d|\(\d)"
    r"|\b(?:[Ee]rror|[Ff]ail(?:ed|ure|ing)?|[Uu]nable to [a-z]{1,20}|[Cc]annot [a-z]{1,20})\b[^:;\n]{0,60}: \S"
    r"|\bcore dumped\b|\b(?:exit(?:ed)? (?:with )?(?:code|status)|returned|code=?)\s?-?\d"
    # Failed to construct MIG resource labeler      (NVIDIA/gpu-feature-discovery#24's title: GFD's own error, first)
    r"|^\W{0,3}(?:Failed to|Unable to|Cannot|Could not) [a-z]")
# a quoted span: the reporter quoting a program's message ("... got "PytorchStreamWriter failed writing file data.pkl"")
_CRASH_NAMES = frozenset(("Segmentation fault", "Bus error", "Illegal instruction", "Floating point exception"))
_QUOTED = re.compile(r"[\"`\u201c](?P<q>[^\"`\u201c\u201d\n]{3,300})[\"`\u201d]")


def printed(line: str) -> bool:
    """Whether a reporter's line (a title, a template field's value) quotes what a program printed: an exception's
    line, a level's label, a source file's line, an error chain, an exit code, or a quoted message with an error word."""
    if _PRINTED.search(line) is not None:
        return True
    # FAILURE_WORDS' forms ("FAILED", "Killed", "Out of memory: "), all but a crash's name said in words ("Segmentation
    # fault at RAS in NCCL 2.27.7", NVIDIA/nccl#1996's title: "(core dumped)" after it is the shell's)
    if any(m[0] not in _CRASH_NAMES for m in FAILURE_WORDS.finditer(line)):
        return True
    return any(error_line(m["q"]) for m in _QUOTED.finditer(line))


def reporter_summary(line: str, title: bool = False) -> str | None:
    """For a line that is a reporter's own words (the file's title when ``title``, a bug template's field or heading)
    and says there was an error: the words that summarise it ("" for a heading that only names the section: no claim
    at all). A title is the reporter's claim whatever it quotes; a field or heading that quotes a program's line is
    that line. None for any other line (a program's, read as before)."""
    if title:
        return line.strip() or None
    m = _TEMPLATE_FIELD.match(line)
    if m is not None:
        value = m["value"].strip()
        if m["label"].isupper() and FAILURE_WORDS.search(m["label"]):
            return None  # "**ERROR**: ...": a level in capitals is a program's (a template's labels are words)
        if value and (error_line(value) or ERROR_WORDS.search(m["label"])):
            return None if printed(value) else value  # what the reporter wrote in the field ("**Error message**: it hangs")
        return ""  # the label alone ("**Error message**:"), or a field that says no error ("**Issue Type**: Bug Report")
    m = _HEADING.match(line)
    if m is not None and not printed(m["value"]):
        return "" if _SECTION_LABEL.match(m["value"]) else m["value"].strip()
    return None

def _summarised(b: FactBuilder, artefact: Artefact, line: int, text: str, title: bool) -> bool:
    """Whether line ``line`` is the reporter's words (:func:`reporter_summary`); one that says an error came is
    built as a ``reported_symptom`` (error), the claim quoted: the verdict stays inconclusive, never healthy."""
    summary = reporter_summary(text, title)
    if summary is None:
        return False
    if summary:
        _claim(b, artefact, line, summary)
    return True


def _claim(b: FactBuilder, artefact: Artefact, line: int, summary: str) -> None:
    """The reporter's claim of an error on line ``line``, in their words: a ``reported_symptom`` (error)."""
    component = next((c for c, p in _reporter()._COMPONENT_WORDS if p.search(summary)), "application")
    # ticket_prose, the other fallback, may read the same line of a file of prose (one reported_symptom a line at
    # most, id path:line:reported_symptom): this reader's is numbered after it (path:line:reported_symptom#1)
    key = (line + artefact.line_offset, "reported_symptom")
    b._seen[key] = max(b._seen.get(key, 0), 1)
    b.add(ReportedSymptom, line, symptom="error", component=component, words=" ".join(summary.split())[:120])


# A reporter's sentence outside the code blocks of a comment that fences its output (wild sweep H3, a control):
# > Note: `ib_write_bw -R` reported error.  Not sure why `rdma_cm` isn't usable in the container, as the device file looks normal.
#   (Mellanox/k8s-rdma-shared-dev-plugin#54: a GPUDirect test that "finished successfully", its command lines and output
#   in ``` blocks, this note between them) read "faulty, unexplained_error" as if a program had printed it. Where the
#   paste puts what programs printed between fences, a line outside them that ticket_prose.reported_error takes for a
#   reporter's sentence (first person or a hedge, ten words, no failure form, no log stamp) is their claim: a
#   reported_symptom (the verdict inconclusive), not an error line. A file without fences, or a line inside one or
#   after a fence left open (an excerpt cut inside its block), is read as before; the lines before a fence left open
#   are outside it (jax-ml/jax#4950, the stored excerpt cut inside its "Log output" block: the reporter's paragraph
#   above it, "I'm working on training script ... crashed with a non specific NCCL error (unhandled system error).",
#   had read as an error line). A stretch of a paste read on its own (engine/foreign_runs.py) is told its lines
#   outside the paste's fences (Artefact.unfenced).
_FENCE_LINE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?){0,4}```")


def unfenced_lines(artefact: Artefact) -> set[int]:
    """The lines (1-based, the artefact's own) outside the fenced code blocks of a paste that opens one block at least;
    none when it opens none (a paste that fences nothing says nothing of where its output is)."""
    if artefact.unfenced is not None:
        return set(artefact.unfenced)
    out, fenced = outside_fences((artefact.raw_text if artefact.raw_text is not None else artefact.text).split("\n"),
                                 opened=True)
    return out if fenced else set()


def outside_fences(rows: list[str], opened: bool = False) -> tuple[set[int], bool]:
    """The rows (1-based) outside fenced code blocks (after a fence left open: inside, an excerpt cut in its block), the
    fence rows apart, and whether one block at least was closed (``opened``: opened)."""
    inside, closed, out = False, False, set()
    for n, line in enumerate(rows, 1):
        if "```" in line and _FENCE_LINE.match(line):
            closed |= inside or opened
            inside = not inside
            continue
        if not inside:
            out.add(n)
    return out, closed


def claimed_lines(artefact: Artefact) -> set[int]:
    """The lines (1-based, the artefact's own) this reader reads, where it reads the file (:func:`detect`), as the
    reporter's claim of an error (:func:`_summarised`: a title, a template's field or heading that says an error came).
    ticket_prose, the other fallback, reads such a line as a remark too where the file states nothing else: it leaves
    it to this reader's claim, the stronger reading (one finding a line; pytorch/pytorch#163546's title "Better nccl
    timeout handling" was a remark and an error claim)."""
    if not detect(artefact.text):
        return set()
    router, artefact.router = artefact.router, None  # (a reading for the question only: none counted)
    try:
        facts = parse(artefact).facts
    finally:
        artefact.router = router
    return {f.evidence.line - artefact.line_offset for f in facts if f.kind == "reported_symptom"}


def _kernel_records(lines: list[str]) -> set[int]:
    """The lines that are a kernel record by their prefix (facts/parsers/kernel_log.py record_lines; imported when first
    asked): what the kernel wrote, never a reporter's sentence or claim."""
    from stethoscope.facts.parsers.kernel_log import record_lines as kernel_records
    return kernel_records(lines)


def _reporter():
    """facts/parsers/ticket_prose.py, which reads this module's words (imported when first asked)."""
    from stethoscope.facts.parsers import ticket_prose
    return ticket_prose


# time="2024-02-21T09:30:56Z" level=info msg="PyTorchJob=pytorch-simple, ReplicaType=Worker expected=1, running=1, succeeded=0, failed=0, Replicas=1"
#   (kubeflow/trainer#2008, the training operator's status line): a count of no failures says none failed; so do
#   "Errors: 0" and "errors=0" of a tool's summary. A line whose error words are all such counts is no error line.
# ========= ERROR SUMMARY: 0 errors
#   (modular/mojo-gpu-puzzles#200: a clean compute-sanitizer run; the tool's last line, "ERROR SUMMARY: %d error(s)",
#    its heading's ERROR part of the count) and the count written before its word, "0 errors", in a reporter's table:
# | `CUDA/v12.4/compute-sanitizer/` | 2024.1.0 | **exit 0, `ERROR SUMMARY: 0 errors`, and the test never ran** |
#   (ashalliants/ninfer-3090#76). "10 errors", "ERROR SUMMARY: 1 error" are counts of errors and stay error lines; a
#   plural count after a space only ("rank=0 Error: ShardCannotStart" is a field and an error).
# [Canonical UbuntuServer 18.04-LTS latest] Total Test Cases      : 1 (1 Passed, 0 Failed, 0 Aborted, 0 Skipped)
#   (microsoft/lisa#644, LISAv2's test summary of a CUDA driver validation that passed; #298 the same without the image's
#   prefix) a test runner's tally lists its counts, "<n> <outcome>" items separated by commas in parentheses or after a
#   colon ("3 passed, 0 failed, 3 total" is the form of many runners' summaries); an item that counts none of a failing
#   outcome ("0 Failed", "0 Aborted", "0 failing", "0 timed out") says nothing failed. Only as a list's item: after "(",
#   ",", ";" or "|" (or first on the line) and before the next separator or the line's end, so "GPU 0 failed to
#   initialize", "rank 0 failed" (an index, not a count) and "(0 Passed, 1 Failed, ...)" (microsoft/lisa#280's failed
#   run: its "1 Failed") stay error lines.
_ZERO_COUNT = re.compile(r"\b(?:[Ee]rrors?|ERRORS?|[Ff]ail(?:ed|ures?)|FAIL(?:ED|URES?)|[Tt]imeouts?)[ \t]*[=:][ \t]*0+(?![.\d])"
                         r"|(?:\bERROR SUMMARY:[ \t]*)?(?<![\w.=:-])0+[ \t]+(?:[Ee]rrors|ERRORS|[Ff]ailures|FAILURES)\b"
                         r"|(?:(?<=[(,;|])|^)[ \t]{0,8}0+[ \t]{1,8}(?:[Ff]ailed|FAILED|[Aa]borted|ABORTED|[Ff]ailing|FAILING|[Tt]imed out)"
                         r"(?=[ \t]{0,8}(?:[,;)|]|\.?[ \t]{0,8}$))", re.M)


def zero_counts_only(line: str) -> bool:
    """Whether every error word of ``line`` is in a count of none ("failed=0", "Errors: 0", "ERROR SUMMARY: 0 errors"):
    the line says nothing failed."""
    return _ZERO_COUNT.search(line) is not None and not _ANY_ERROR.search(_ZERO_COUNT.sub("", line))


# Lines whose error words belong to a message that reports no failure (wild sweep H3, hamonikr/hamonikr-system#8):
# kernel: \[   12.126199\] vboxdrv: module verification failed: signature and/or required key missing - tainting kernel
#   the kernel's notice that it loaded a module it could not verify and marked itself tainted (TAINT_UNSIGNED_MODULE):
#   load_module (kernel/module.c) and module_augment_kernel_taints (kernel/module/main.c, 6.x):
#   pr_notice_once("%s: module verification failed: signature " "and/or required key missing - tainting " "kernel\n",
#   mod->name); early kernels printed two blanks after "and/or" (a dmesg in the search index, file 56885114719:
#   [   14.609667] wl: module verification failed: signature and/or  required key missing - tainting kernel).
#   The module loaded; a refused one is "Loading of unsigned module is rejected" / "Key was rejected by service"
#   (kernel_log_modules reads those). Whatever prefix the line carries.
# https://forums.developer.nvidia.com/t/driver-v4-9-5-1-0-module-verification-failed-signature-and-or-required-key-missing-tainting-kernel/227206
#   (the same thread's comment: a link alone on its line, its words a page's slug) a line that is only an address (a
#   URL, bare or in <...>) names a page; what failed is on the page, not in the paste. A URL inside a program's line
#   ("Error: see https://...") leaves the line an error line.
# FATAL: Missing required source file.
#   (skypilot-org/skypilot#8604: a SkyPilot job's output on a Slurm cluster, the lines right after "Job submitted", then
#   "  (1) Install package 'bash-completion'" and the job ran on) Slurm's bash completion script, sourced by a login
#   shell's profile, refusing to load: contribs/slurm_completion_help/slurm_completion.sh's source guard (SchedMD/slurm)
#   prints "FATAL: this script (slurm_completion.sh) is meant to be sourced.", "FATAL: this script (slurm_completion.sh)
#   only supports bash." and, where bash-completion is not installed, "FATAL: Missing required source file." with the
#   three steps under it, then returns: the shell has no tab completion of Slurm's commands; the job is untouched.
#   The whole line only (under any prefix, as srun's label or the pod's): a program's own "FATAL: ..." stays an error line.
_NO_FAILURE = re.compile(
    r"(?:^|[\s:\]])[\w.-]{1,64}: module verification failed: signature and/or[ \t]{1,4}required key missing - tainting kernel\.?[ \t]*$"
    r"|^[ \t]{0,16}<?https?://[^\s<>]{1,2000}>?[ \t]*$"
    r"|(?:^|[\s:\]])FATAL: (?:Missing required source file|this script \(slurm_completion\.sh\) (?:is meant to be sourced"
    r"|only supports bash))\.[ \t]*$")


# +| gpu-burn/abort           | yes/no  \t| Whether or not GPU-burn test aborted before returning GPU results (1:yes, 0: no).   |
#   (microsoft/superbenchmark#324: a benchmark's metrics table, its documentation in a pull request's diff, read as an
#   unexplained error, wild sweep J3) an error word inside an indirect question ("whether [or not] ... aborted", to the
#   clause's end: ".", ";", "|" or the line's end) names an outcome that may or may not come, not one that came: the line
#   says no failure when no error word stands outside such a clause. "Failed to determine whether ..." (its error word
#   before "whether") and "... whether it aborted. Error: ..." (one after the clause) stay error lines.
_WHETHER = re.compile(r"\b[Ww]hether\b[^.;|\n]{0,400}")


def says_no_failure(line: str) -> bool:
    """Whether ``line``'s error words say that nothing failed: counts of none (:func:`zero_counts_only`), a message
    that reports no failure in words that sound like one (_NO_FAILURE: the kernel's unsigned-module taint notice, a
    link alone on its line, Slurm's bash completion script declining to load), or error words only inside an indirect question (_WHETHER)."""
    return (zero_counts_only(line) or ("failed" in line or "//" in line or "FATAL: " in line) and _NO_FAILURE.search(line) is not None
            or "hether" in line and _WHETHER.search(line) is not None and not _ANY_ERROR.search(_WHETHER.sub("", line)))


# A shell prompt and the command typed at it: the command's words are what the user looked for, not a failure
# ("grep -i error" finds errors or finds none; the output under it is read by its own reader, or by this one):
# tim@tim-desktop:~$ dmesg | grep -i error          (a pasted terminal session, ubuntuforums.org 2012-08-22 "Ubuntu Processor
#                                                     Power State Management", stored in the search index as file id 57099341041)
# ubuntu@gpu4:~/nccl-tests/src$ ib_write_bw -d mlx5_2 -R          (NVIDIA/nccl-tests#24: Debian/Ubuntu's PS1, user@host:dir$)
# [root@node3 bin]# ib_write_bw -a -d mlx5_0 --report_gbits  node1  (linux-rdma/perftest#132: RHEL's [user@host dir]#)
# lehi-smoke:~ # ib_send_lat  --version                           (linux-rdma/perftest#82: SUSE's host:dir #)
# (base) root@node:/# nvidia-smi                                   (a conda environment's name before it)
# $ FI_CXI_DEFAULT_VNI=1024 FI_LOG_LEVEL=9 guix shell ... mpirun ...   (HewlettPackard/shs-libcxi#18: a bare "$ ", variables first)
# Only a command after the prompt: a word or path, lowercase first. Log lines pasted back into a shell keep their error:
# root@dcgm-exporter-tlb4f:/# 2021-11-23 00:15:28.951 ERROR [82:82] Cannot initialize the hostengine: ...   (NVIDIA/gpu-operator#498)
# C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v8.0\extras\demo_suite>bandwidthTest.exe   (NVIDIA/nvidia-docker#498: cmd.exe's
#   default prompt, PROMPT=$P$G: the drive and directory, then ">", the command right after it)
# PS C:\Users\me> nvidia-smi    (PowerShell's default prompt function: "PS " + the location + "> "; CONSTRUCTED from it)
_SHELL_COMMAND = re.compile(
    r"\s{0,4}(?:\([\w.-]{1,64}\) )?"
    r"(?:(?:[\w.-]{1,64}@[\w.-]{1,253}:[^\s#$]{0,200}[#$]|\[[\w.-]{1,64}@[\w.-]{1,253} [^\]\n]{1,200}\][#$]"
    r"|[\w.-]{1,253}:[^\s#$]{1,200} [#$]|[$]) {1,4}"
    r"|(?:PS )?[A-Za-z]:\\[^\n<>|\"*?]{0,400}> {0,4})"
    r"(?:(?:sudo|time|env|nohup|exec)(?: -\w{1,20})* )?(?:[A-Z_][A-Z0-9_]{0,63}=\S{0,400} )*"
    r"(?:[a-z_][\w.+-]{0,63}|\.{0,2}/[\w./+-]{1,400})(?=\s|$)")


#   File "/home/ray/anaconda3/lib/python3.11/site-packages/ray/_private/worker.py", line 2659, in get
#     values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)
#   (ray-project/kuberay#3436, a Serve traceback pasted without its header) Python's traceback prints each frame as
#   '  File "{filename}", line {lineno}, in {name}' (traceback.FrameSummary / StackSummary.format) and the frame's source
#   line under it: that line is the program's code ("timeout=timeout", "raise RuntimeError(...)"), not what it said
_FRAME = re.compile(r'\s{0,12}File "[^"\n]{1,1000}", line \d{1,9}, in \S')


def _frame_source(frame: str, line: str) -> bool:
    """Whether ``line``, printed right under the frame line ``frame``, is that frame's source line (the program's code).

    Python prints the source indented two columns deeper than the frame's 'File' (traceback.StackSummary.format:
    '  File ...' then '    <code>'); a frame with no source to show (``<string>`` of ``python -c``, ``<stdin>``,
    a frozen or compiled module) prints none, and the exception line then follows it at the traceback's own
    indentation, left of 'File' (CPython Lib/traceback.py format_frame_summary: '  File "{}", line {}, in {}' and,
    only where a source line is found, '    {}'; kchengiva/Shift-GCN#18: '  File "<stdin>", line 1, in <module>' then
    'ModuleNotFoundError: No module named 'cuda''): that line is the error, not code. A paste that dropped the
    frames' indentation puts everything in the first column: read as code, as before."""
    if (m := _FRAME.match(frame)) is None:
        return False
    column = frame.index("File ", m.start())
    return len(line) - len(line.lstrip()) >= column


# Python's interactive prompt (sys.ps1, ">>> ") and the statement typed at it, as pasted from a session:
# >>> error, result = cudart.cudaDeviceCanAccessPeer(0, 1)        (NVIDIA/TensorRT-LLM#1374: the reporter asking CUDA
# >>> print(error)                                                  whether the two GPUs have peer access)
# Only a statement: a keyword, or a name (names) followed by an assignment, a call or an index. What the interpreter
# printed under it is output and stays read; a quoted log line behind ">>> " (">>> RuntimeError: CUDA error: ...",
# a name and a colon) is no statement and keeps its error.
_REPL_INPUT = re.compile(
    r"\s{0,4}>>> (?:(?:import|from|print|del|assert|raise|for|while|if|with|try|def|class|return)\b"
    r"|[A-Za-z_][\w.]{0,200}(?:[ \t]{0,4},[ \t]{0,4}[A-Za-z_][\w.]{0,100}){0,8}[ \t]{0,4}(?:=(?!=)|\(|\[))")


# An interactive shell refusing the line just typed at its prompt (a paste of a session: NVIDIA/gdrcopy#50, the
# maintainer's list of commands typed as they were written, "dmesg (after installation of gdrcopy ...)"):
# -bash: syntax error near unexpected token `after'
# bash's parser (parse.y report_syntax_error: "syntax error near unexpected token `%s'", "syntax error: unexpected end
# of file"); an interactive shell prefixes its own name only ("-bash: " a login shell's, "bash: "), zsh's "zsh: parse
# error near `%s'". A script's run names the script and its line ("./train.sh: line 12: syntax error ..."): the job's
# failure, read as before.
_SHELL_SYNTAX = re.compile(r"\s{0,4}-?(?:ba|z)?sh: (?:syntax error(?: near unexpected token [`'].{0,200}'| near [`'].{0,200}'"
                           r"|: unexpected end of file)|parse error near [`'].{0,200}')\s*$")


def shell_command(line: str) -> bool:
    """Whether ``line`` is a shell prompt with the command typed at it, an interactive shell's refusal of the line
    typed at it, or Python's interactive prompt with a statement typed at it (its words are no failure)."""
    if ">>> " in line and _REPL_INPUT.match(line) is not None:
        return True
    if "sh: " in line and _SHELL_SYNTAX.match(line) is not None:
        return True
    return ("$ " in line or "# " in line or ":\\" in line and ">" in line) and _SHELL_COMMAND.match(line) is not None


# terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'
#   what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error ... mpiUtils.cpp:211 '6' (...)     (NVIDIA/TensorRT-LLM#1826)
#   libstdc++'s verbose terminate handler (vterminate.cc) prints the exception's what() on the next line, "  what():  ":
#   one failure, said over two lines (cpp_runtime_abort.WHAT_LINE, the terminate handler's reader's)
_WHAT = WHAT_LINE


# A structured line's own level field (knowledge/coverage.yaml ``quiet_levels``: its keys fill {keys}):
# preflight-dcgm-diag {"event": "Loaded 121 DCGM error mappings from /etc/dcgm/dcgmerrorsmapping.csv", "level": "info", ...}   (NVIDIA/NVSentinel#1358)
# time="2026-09-22T10:29:42.906553866Z" level=info msg="skip loading plugin \"io.containerd.snapshotter.v1.aufs\"..." error="aufs is not
#   supported (modprobe aufs failed: exit status 1 \"modprobe: FATAL: Module aufs not found ..."   (1Panel-dev/1Panel#13898, dockerd's logfmt)
# INFO[2022-05-17T15:16:28.026005544-07:00] skip loading plugin "io.containerd.snapshotter.v1.aufs"...  error="aufs is not supported ..."
#   (Thinstation/thinstation#724: logrus's text form on a terminal, the level's first four letters; "INFO[0000]" without full stamps)
# [1710151844.440518] [m201:4904 :0]    ib_mlx5dv_md.c:916  UCX  DEBUG mlx5dv_devx_general_cmd(QUERY_HCA_CAP) failed: Remote I/O error
#   (openucx/ucx#9736: UCX's own prefix, src/ucs/debug/log.c UCS_LOG_METADATA_FMT "%17s:%-4u %-4s %-5s": the file:line, the
#    logger's name, the level from ucs_log_level_names; only its info, debug and trace levels are quiet here, a WARN,
#    ERROR or FATAL line is read as before)
# libfabric:151205:1753871244::core:core:cuda_gdrcopy_dl_hmem_init():88<info> Failed to dlopen libgdrapi.so
#   (ofiwg/libfabric#11256: libfabric's own prefix, src/log.c ofi_log "%s:%d:%ld:%s:%s:%s:%s():%d<%s> %s": the function,
#    its line and the level from log_levels, warn|trace|info|debug; its <warn> lines are read as before)
_LEVEL_FIELD = (r'"(?i:{keys})"\s*:\s*"(?P<json>[A-Za-z]+)"'
                r'|(?<![\w.-])(?i:{keys})=(?P<q>"?)(?P<logfmt>[A-Za-z]+)(?P=q)(?![\w.-])'
                r'|(?<![\w-])(?P<logrus>[A-Z]{{4}})\[(?:\d{{4}}|\d{{4}}-\d\d-\d\dT[^\]\s]*)\]'
                # log15's and go-ethereum's terminal records: "INFO [05-12|10:00:00.000] ", "DBUG[05-12|10:00:00] ", "DEBUG[...]"
                r'|(?<![\w-])(?P<log15>[A-Z]{{4,5}}) ?\[\d\d-\d\d\|\d\d:\d\d:\d\d(?:\.\d{{1,6}})?\]'
                r'|\.[a-z]{{1,4}}:\d{{1,6}}[ \t]{{1,8}}[A-Z]{{2,8}}[ \t]{{1,8}}(?P<ucs>DEBUG|TRACE|INFO)(?=[ \t])'
                r'|\(\):\d{{1,6}}<(?P<ofi>info|debug|trace)>')


# A logger's own prefix that facts/lines.py took off the line (Python logging's "INFO:root:", vLLM's
# "%(levelname)s %(asctime)s %(filename)s:%(lineno)d]", under Ray's "(RayWorkerWrapper pid=N, ip=...) "):
# (RayWorkerWrapper pid=4501, ip=128.1.219.179) INFO 07-03 14:43:47 selector.py:131] Cannot use FlashAttention-2 backend for Volta and Turing GPUs.
#   (vllm-project/vllm#6106: the logger's INFO says the "Cannot" is its message's, not a failure)
_PREFIX_LEVEL = re.compile(r"(?<![\w-])(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?![\w-])")
_PREFIX_QUIET = frozenset(("DEBUG", "INFO"))


def _prefix_quiet(artefact: Artefact, line: int, text: str) -> bool:
    """Whether the wrapper the normaliser took off ``line`` held a logger's level, every one info or
    debug: the program judged the line no error ("INFO 07-24 08:25:52 selector.py:151] Cannot use
    FlashAttention-2 backend due to sliding window.": vLLM's own logger, a healthy start-up). Not
    where the line is a failure record of its own (its own ERROR / CRITICAL / FATAL, an exception's
    line): a relay's INFO over another program's failure says nothing of it. (Session 29 briefly
    took one level on every line of a file for a relay's and quieted nothing there: an all-INFO
    vLLM paste with that line then read FAULTY unexplained_error, a false alarm on a healthy log.)"""
    if artefact.raw_text is None:
        return False
    if _record_level(artefact, line, text) is not None:  # an application's JSON record read as its message
        return _prefix_quiet_record(artefact, line, text)
    raw = artefact.raw_line(line)
    cut = raw.find(text.strip()) if text.strip() else -1
    if cut <= 0:
        return False
    found = [m["level"] for m in _PREFIX_LEVEL.finditer(raw, 0, cut)]
    if not found or not all(v in _PREFIX_QUIET for v in found):
        return False
    return not (_FAILING_LEVEL.search(text) or _EXCEPTION.match(text))


# An application's JSON record (zap, logrus, slog) that facts/lines.py read as its message (facts/records.py
# app_record_line), or its logfmt record kept as written (records.logfmt_record: slog's TextHandler, logrus's
# TextFormatter, go-kit; read here as its message, record_message), keeps its level in the line as written: info and
# debug make its error words its message's (_prefix_quiet), error and above make it a failure line whatever its words
# (_wrapper_errors), warn reads as before; either is a program's output, never a reporter's sentence:
# {"level":"error","ts":1741165859.009253,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy is not ready, states not ready: [...]"}
#   (NVIDIA/gpu-operator#1310: zap's lowercase levels; slog's "ERROR", "ERROR+2"; zap's dpanic, panic, fatal)
# level=error ts=2022-03-05T12:15:01.058Z caller=main.go:57 msg="GPU health check did not pass" err="..."   (CONSTRUCTED,
#   go-kit's key order: read as a reporter's remark before round rP5, 'the reporter says ...', the verdict inconclusive)
# (log15's "eror": its Lvl.String(), t=... lvl=eror msg=... in its logfmt form)
_RECORD_FAILING = frozenset(("error", "err", "eror", "dpanic", "panic", "fatal", "critical", "crit", "alert", "emerg", "emergency"))
_RECORD_FAILING_GATE = re.compile(r'"(?:level|severity|lvl)" ?: ?"(?i:error|err|eror|dpanic|panic|fatal|critical|crit|alert|emerg)'
                                  r'|(?<![\w.-])(?:level|severity|lvl)="?(?i:error|err|eror|dpanic|panic|fatal|critical|crit|alert|emerg)')


def record_lines(artefact: Artefact) -> dict[int, str]:
    """{1-based line: its level} for the lines of ``artefact`` that are an application's record (_record_level: a JSON
    record facts/lines.py read as its message, a logfmt record): a program's output, never a reporter's sentence
    (ticket_prose leaves them)."""
    raw = record_gate_text(artefact)  # (a logfmt record is kept as written)
    if '"msg"' not in raw and "msg=" not in raw:
        return {}
    found = {}
    for line, text in enumerate(artefact.lines, start=1):
        if (level := _record_level(artefact, line, text)) is not None:
            found[line] = level
    return found


def detect_records(artefact: Artefact) -> bool:
    """Whether ``artefact`` holds an application's record (JSON read as its message, logfmt) at error level or above
    (engine/parse_pool.py asks it of a file only the fallbacks know): its level says a failure, its words may not."""
    raw = record_gate_text(artefact)
    if _RECORD_FAILING_GATE.search(raw) is None:
        return False
    return any(level in _RECORD_FAILING for level in record_lines(artefact).values())


def record_gate_text(artefact: Artefact) -> str:
    """The text as read, for the record gates above; where rows were joined (a terminal's cut, a JSON record a ticket
    broke: facts/lines.py, records.rejoin_records) without its line breaks, so that a key cut in two ('"ms' / 'g":')
    is found as the joined line holds it."""
    raw = artefact.raw_text if artefact.raw_text is not None else artefact.text
    return raw.replace("\n", "") if artefact._joined else raw


def _prefix_quiet_record(artefact: Artefact, line: int, text: str) -> bool:
    """Whether ``line`` is an application's JSON record at a quiet level read as its message ``text`` (_prefix_quiet's
    rule: not where the message is a failure record of its own)."""
    level = _record_level(artefact, line, text)
    return level is not None and level in _quiet_levels()[1] and not (_FAILING_LEVEL.search(text) or _EXCEPTION.match(text))


def _record_level(artefact: Artefact, line: int, text: str) -> str | None:
    """The level of the application record that facts/lines.py read as ``text`` (its line ``line``), or of the record
    kept as written that ``text`` is (records.kept_record: logfmt, JSON with an object member), its severity suffix off ("ERROR+2": slog's offset), or None where the line as written is no
    such record (a JSON record lines.py kept as written, gpud's: its reader's)."""
    raw = artefact.raw_line(line)
    if ('"msg"' not in raw and "msg=" not in raw) or (raw.strip() == text.strip() and record_message(raw) is None):
        return None
    level = record_level(raw)
    return level.split("+")[0].split("-")[0] if level is not None else None


@lru_cache(maxsize=1)
def _quiet_levels() -> tuple[re.Pattern[str], frozenset[str]]:
    q = knowledge.load("coverage.yaml").quiet_levels
    keys = "|".join(re.escape(f) for f in sorted(q.fields, key=len, reverse=True))
    return re.compile(_LEVEL_FIELD.format(keys=keys)), frozenset(q.levels)


def quiet(line: str) -> bool:
    """Whether ``line``'s own structured level says it is no error (info, debug, trace: every
    level field of the line, one at least): its error words are its message's, not a failure."""
    if "=" not in line and '"' not in line and "[" not in line and "<" not in line:
        return False
    pattern, levels = _quiet_levels()
    found = [m["json"] or m["logfmt"] or m["logrus"] or m["log15"] or m["ucs"] or m["ofi"] for m in pattern.finditer(line)]
    return bool(found) and all(v.lower() in levels for v in found)


# c10's backtrace, which PyTorch's C++ errors carry under their message (c10/util/Exception.cpp
# Error::Error: str("Exception raised from ", source_location, " (most recent call first):\n", backtrace);
# SourceLocation prints "<function> at <file>:<line>"), one "frame #N: " line a frame (c10/util/Backtrace.cpp):
# Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):
# frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f0582ab9446 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)
#   (sgl-project/sglang#4584)
_C10_HEADER = re.compile(r"\s*Exception raised from \S.{0,200}? at \S+:\d+ \(most recent call first\):")
_C10_FRAME = re.compile(r"\s*frame #\d+: ")
#: how far above its backtrace the error the backtrace belongs to is looked for (PyTorch's CUDA hint
#: lines and a blank line come between them)
_C10_ABOVE = 8


def _c10_block(lines: list[str], line: int) -> tuple[int, int, bool] | None:
    """For the header or a frame line of c10's backtrace (1-based ``line``): the block's header
    line, its last frame line and whether an error line stands above it (the message the
    backtrace belongs to); None if the line is neither."""
    k = line - 1
    if not _C10_HEADER.match(lines[k]):
        if not _C10_FRAME.match(lines[k]):
            return None
        k -= 1
        while k >= 0 and _C10_FRAME.match(lines[k]):
            k -= 1
        if k < 0 or not _C10_HEADER.match(lines[k]):
            return None
    last = k + 1
    while last < len(lines) and _C10_FRAME.match(lines[last]):
        last += 1
    above = any(_ANY_ERROR.search(lines[j]) and not quiet(lines[j]) for j in range(max(0, k - _C10_ABOVE), k))
    return k + 1, last, above


# the C++ stack PyTorch appends to a c10 error's message with TORCH_SHOW_CPP_STACKTRACES=1 (2.1+: torch/csrc/Module.cpp
# THPModule_initExtension's lazy backtrace, symbolized: oss << "C++ CapturedTraceback:" then per frame
# "#" << idx << " " << frame.funcname << " from " << frame.filename << ":" << frame.lineno), its message above it:
# #60 __libc_init_first from ??:0
# #62 _start from ??:0`                          (Lightning-AI/pytorch-lightning#19544, the paste's end and its stray `)
_CAPTURED_HEADER = re.compile(r"\s*C\+\+ CapturedTraceback:\s*")
_CAPTURED_FRAME = re.compile(r"\s*#\d{1,4} \S.{0,2000}? from \S{1,500}:\d{1,9}\s*`?\s*")
#: how many frame lines in a row make a run (one such line may be anything's)
_CAPTURED_RUN = 3


# c10's backtrace pasted without its header and the error above it (c10/util/Backtrace.cpp: one "frame #N: " line a
# frame, "<function> + <offset> (<address> in <library>)", or the bare "<library>(<symbol>) [<address>]" of an unresolved
# one): the excerpt starts inside the backtrace and ends in it, what failed cut off. Real lines (vllm-project/vllm#19670,
# its title a DistNetworkError the frames' store constructor raised):
# frame #6: c10d::TCPStore::TCPStore(std::string, c10d::TCPStoreOptions const&) + 0x20c (0x7fcdd4b0d14c in /root/miniconda3/envs/agent-r1/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so)
# frame #9: /root/miniconda3/envs/agent-r1/bin/python3() [0x528b17]
_C10_FRAME_LINE = re.compile(r"\s*frame #\d{1,4}: \S.{0,4000}")


def c10_frames_to_end(lines: list[str]) -> tuple[int, int, bool] | None:
    """(first, last 1-based line, whether an error line stands above within :data:`_C10_ABOVE`) of the run of c10
    backtrace frames a text ends in, where no "Exception raised from ..." header stands above the run (that block is
    :func:`_c10_block`'s: its header is read); None where the text ends in anything else or the run holds fewer than
    :data:`_CAPTURED_RUN` frames. Frames that start a paste and an error after them are no such run: the text must end
    in the frames (blank lines aside)."""
    last = len(lines)
    while last >= 1 and not lines[last - 1].strip():
        last -= 1
    first = last
    while first >= 1 and _C10_FRAME_LINE.fullmatch(lines[first - 1]):
        first -= 1
    if last - first < _CAPTURED_RUN or (first >= 1 and _C10_HEADER.fullmatch(lines[first - 1])):
        return None
    above = any(_ANY_ERROR.search(lines[h]) and not quiet(lines[h]) for h in range(max(0, first - _C10_ABOVE), first))
    return first + 1, last, above


def captured_frames(lines: list[str]) -> list[tuple[int, int, bool]]:
    """The runs of PyTorch's CapturedTraceback frames in ``lines``: (first, last 1-based line of the run, whether an
    error line stands above it, over its header, within the lines c10's backtrace looks: the message the frames belong
    to). Runs of fewer than three frame lines are no such stack."""
    runs: list[tuple[int, int, bool]] = []
    n, i = len(lines), 0
    while i < n:
        if not _CAPTURED_FRAME.fullmatch(lines[i]):
            i += 1
            continue
        j = i
        while j < n and _CAPTURED_FRAME.fullmatch(lines[j]):
            j += 1
        if j - i >= _CAPTURED_RUN:
            k = i - 1 if i and _CAPTURED_HEADER.fullmatch(lines[i - 1]) else i
            above = any(_ANY_ERROR.search(lines[h]) and not quiet(lines[h]) for h in range(max(0, k - _C10_ABOVE), k))
            runs.append((i + 1, j, above))
        i = j
    return runs


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    joined = 0
    chains = _ray_chains(artefact.text, lines)
    done: set[int] = set()
    # a reporter's sentences in a file of prose (ticket_prose's), prose that explains what an error class is or may mean
    # (the line names the class, it reports no error), and a sentence that tells what is done when something fails
    told = _reporter().reported_errors(lines) | _reporter().explanations(lines) | _reporter().handled_failures(lines)
    if told and ('"msg"' in (artefact.raw_text or artefact.text) or "msg=" in artefact.text):
        told -= set(record_lines(artefact))  # a program's record read as its message: no reporter's sentence
    if told:
        told -= _kernel_records(lines)  # a kernel record (by its prefix) is no reporter's sentence: read as an error line
    title = is_title(artefact.path)
    kernel: set[int] | None = None  # _kernel_records, found where a line needs them
    unfenced: set[int] | None = None  # unfenced_lines, found where a line needs them
    pointers: list[tuple[int, str]] = []  # reporters' sentences pointing at an error shown elsewhere
    # PyTorch's C++ frames: their error's context (a frame's name may say "Timeout"), or a capture cut short (below)
    captured = captured_frames(lines) if " from " in artefact.text and "#" in artefact.text else []
    for first, last, _above in captured:
        done.update(range(first, last + 1))
    c10_run = c10_frames_to_end(lines) if "frame #" in artefact.text else None
    if c10_run is not None:
        done.update(range(c10_run[0], c10_run[1] + 1))
    ipy_headers, ipy_body = ipython_tracebacks(lines) if "most recent call last" in artefact.text else ({}, set())
    for line, text in iter_lines(_ANY_ERROR, artefact):
        if line in ipy_body:  # an IPython traceback's frame head or source listing: its exception line says what raised
            continue
        if line in ipy_headers:
            if ipy_headers[line] is not None:
                result.lines_used += 1  # the header of the exception read on its own line below
                continue
            last = last_line(lines)
            traceback_cut(b, line, lines[last - 1].strip())  # cut before its exception line: the header names the class
        if line in chains:  # a wrapper of Ray's exception chain: the chain's innermost line says it
            line = chains[line]
            text = lines[line - 1]
        message = text.strip()
        if not message or line == joined or line in done:
            continue
        if message.startswith(("frame #", "Exception raised from ")) and (block := _c10_block(lines, line)) is not None:
            # the backtrace under an error ("c10::Error::Error" is a frame's name, "CUDAException.cpp"
            # the header's file): the block is the error's context, the error above says what
            # failed; a block pasted without it is told once, by its header
            header, last, above = block
            done.update(range(header, last + 1))
            result.lines_used += last - header + 1
            if not above:
                b.add(TextErrorLine, header, message=lines[header - 1].strip()[:400])
            continue
        if message.startswith("Traceback (most recent call last)") or _LOGGED_TRACEBACK.search(message) is not None:
            end = _traceback_end(lines, line)
            if end != line and _ANY_ERROR.search(lines[end - 1]):
                result.lines_used += 1  # the header of the exception read on its own line below
                continue
            if end == line and (shown := cut_traceback(lines, line)) is not None:
                done.add(line)  # its exception line cut off: the capture is incomplete, no error line to quote
                traceback_cut(b, line, shown)
                result.lines_used += 1
                continue
        done.add(line)
        if says_no_failure(text):
            continue
        if quiet(text) or _prefix_quiet(artefact, line, text):  # the program's own level says info: its error words are its message's
            continue
        if shell_command(text) or line in told:  # what the user typed or told, not what a program said
            continue
        if not title and line in (kernel := _kernel_records(lines) if kernel is None else kernel):
            pass  # what the kernel wrote (by its prefix): an error line, never the reporter's claim (a title's: its claim)
        elif _summarised(b, artefact, line, text, title):  # a title's, a template field's words: the reporter's claim
            result.lines_used += 1
            continue
        elif _reporter().reported_error(text) and line in (unfenced := unfenced_lines(artefact) if unfenced is None else unfenced):
            _claim(b, artefact, line, text)  # a reporter's sentence between the fenced output: their claim
            result.lines_used += 1
            continue
        elif _reporter().points_at_error(text):
            pointers.append((line, text))  # a reporter's sentence pointing at an error shown elsewhere (below)
            result.lines_used += 1
            continue
        if line >= 2 and "File " in lines[line - 2] and _frame_source(lines[line - 2], lines[line - 1]):  # code
            continue
        if "terminate called " in text and line < len(lines) and _WHAT.match(lines[line]):
            joined = line + 1  # the what() line is this failure's, not another
            message = f"{message} {lines[line].strip()}"
            result.lines_used += 1
        b.add(TextErrorLine, line, message=_message(text, message)[:400])
        result.lines_used += 1
    for line, text in _wrapper_errors(artefact, done):
        if shell_command(text) or line in told or _summarised(b, artefact, line, text, title):
            continue
        b.add(TextErrorLine, line, message=_message(text, text.strip())[:400])
        result.lines_used += 1
    # alone, such a sentence is the reporter's claim (the error it points at is a screenshot, another comment); beside
    # an error line of the same text it points at that error, which says what failed: no claim of its own
    # (ray-project/ray#22764's "This simple code can't run, and throw this error:" above its traceback)
    if not any(f.kind == "text_error_line" for f in result.facts):
        for line, text in pointers:
            _claim(b, artefact, line, text)
    if 'File "' in artefact.text and (frames := frames_to_end(
            lines, artefact.raw_text.split("\n") if artefact.raw_text is not None else None)) is not None and not any(
            h.limit == "cut_short" for h in result.limits):
        traceback_cut(b, *frames)
        result.lines_used += 1
    for first, last, above in captured:
        result.lines_used += last - first + 1
        if not above and not any(h.limit == "cut_short" for h in result.limits):
            b.limit(first, "cut_short", f"PyTorch's C++ stack frames (lines {first}-{last}, CapturedTraceback's "
                                        f"'#N <function> from <file>:<line>') stand without the error they belong to: "
                                        f"what failed was cut from the capture")
    if c10_run is not None:
        first, last, above = c10_run
        result.lines_used += last - first + 1
        if not above and not any(h.limit == "cut_short" for h in result.limits):
            b.limit(first, "cut_short", f"PyTorch's C++ backtrace (lines {first}-{last}, c10's 'frame #N: <function> + "
                                        f"<offset> (<address> in <library>)') stands without its 'Exception raised from' "
                                        f"header and the error it belongs to: what failed was cut from the capture")
    return result


# A logger's prefix that facts/lines.py took off may have held the only sign of an error: its level. vLLM's
# logger ("%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s", under multiprocessing's
# "(EngineCore_DP0 pid=N) ") prints the engine's crash dump at ERROR in words that say no failure:
# (EngineCore_DP0 pid=78020) ERROR 10-23 17:17:52 [dump_input.py:69] Dumping input data for V1 LLM engine (v0.11.0) with config: ...
#   (vllm-project/vllm#27430; vllm/v1/engine/dump_input.py dump_engine_exception: logger.error("Dumping input data for V1 LLM
#    engine (v%s) with config: %s, ", ...), called from the engine core's step when it raises)
_WRAPPER_FAILING = frozenset(("ERROR", "CRITICAL", "FATAL"))
_FAILING_LEVEL = re.compile(r"(?<![\w-])(?:ERROR|CRITICAL|FATAL)(?![\w-])")
# a traceback's marker line under a source line (Python 3.11+: "    ^^^^^^^^^")
_MARKERS = re.compile(r"[ \t^~]{1,2000}")
# a frame's line, its ", in <function>" perhaps wrapped onto the next line by a terminal, or the line cut by the paste:
# (EngineCore_0 pid=713790) ERROR 09-08 09:02:44 [core.py:718]   File "/usr/local/lib/python3.10/dist-packages/vllm/executor/executor_base.py", line 54,
# in __init__                                                                                     (vllm-project/vllm#24430)
# (RayWorkerWrapper pid=4139, ip=128.1.219.180) ERROR 07-03 14:43:50 worker_base.py:148]   File "/model/anaconda3/envs   (vllm-project/vllm#6106)
# a paste whose editor turned the quotes typographic and dropped the frames' indentation:
# (EngineCore_DP0 pid=59619) ERROR 10-15 08:32:29 [core.py:708] File “/home/ffc3/anaconda/anaconda3/envs/vllm_shr/lib/python3.10/site-packages/vllm/v1/engine/core.py”, line 699, in run_engine_core   (vllm-project/vllm#26898)
_FRAME_HEAD = re.compile(r'\s{0,12}File ["\u201c]')


def _message(text: str, message: str) -> str:
    """What an error line says: a record's message and error where facts/lines.py kept it as written ('<msg>: <error>',
    records.record_message: logfmt, JSON with an object member; as a flat JSON record is read by lines.py), else
    ``message``."""
    return (record_message(text) if "msg" in text else None) or message


def _traceback_body(lines: list[str], line: int) -> bool:
    """Whether 1-based ``line`` is a frame line of a Python traceback, the source line printed under
    one, or a marker line ("^^^^"): what a logger that prints a traceback line by line under its own
    level (vLLM's ERROR) puts between the header and the exception, which says no failure itself."""
    text = lines[line - 1]
    message = text.strip()
    if not message or _MARKERS.fullmatch(message) or _FRAME_HEAD.match(text):
        return True
    if _EXCEPTION.match(text):
        return False
    # the source line of a frame whose 'File' line the paste cut, indented as Python prints it, a frame after it
    # (what _wrapper_errors already passes over: vllm-project/vllm#6574's worker lines start at
    # "(VllmWorkerProcess pid=87) ERROR 07-19 10:59:03 multiproc_worker_utils.py:226]     output = tensor_model_parallel_all_reduce(output_parallel)")
    if text[:1] in " \t" and line < len(lines) and _FRAME_HEAD.match(lines[line]) is not None:
        return True
    return line >= 2 and _FRAME_HEAD.match(lines[line - 2]) is not None


def _wrapper_errors(artefact: Artefact, done: set[int]) -> list[tuple[int, str]]:
    """The lines (1-based, the normalised text) whose wrapper, taken off by facts/lines.py, held a logger's
    level ERROR, CRITICAL or FATAL (and none quieter) while the line left says no error word: not the frames,
    source and marker lines of a traceback the logger printed line by line (the exception that ends it is read
    by its words), not a line already read."""
    raw = artefact.raw_text
    if raw is None and (_RECORD_FAILING_GATE.search(artefact.text) is None
                        or ("msg=" not in artefact.text and '"msg"' not in artefact.text)):
        return []  # (nothing taken off, but a record kept as written, records.kept_record, may carry its level)
    if raw is not None and _FAILING_LEVEL.search(raw) is None and _RECORD_FAILING_GATE.search(raw) is None:
        return []
    lines = artefact.lines
    found: list[tuple[int, str]] = []
    for line, text in enumerate(lines, start=1):
        message = text.strip()
        if line in done or not message or _MARKERS.fullmatch(message) or _FRAME_HEAD.match(text) \
                or message.startswith("Traceback (most recent call last)") \
                or (line >= 2 and _FRAME_HEAD.match(lines[line - 2])) or (line < len(lines) and _FRAME_HEAD.match(lines[line])):
            continue
        if (level := _record_level(artefact, line, text)) is not None:  # an application's JSON record: its own level
            if level in _RECORD_FAILING:
                found.append((line, text))
            continue
        rawline = artefact.raw_line(line)
        cut = rawline.find(message)
        if cut <= 0:
            continue
        levels = [m["level"] for m in _PREFIX_LEVEL.finditer(rawline, 0, cut)]
        if levels and all(v in _WRAPPER_FAILING for v in levels):
            found.append((line, text))
    return found


def detect_wrapped(artefact: Artefact) -> bool:
    """Whether a file whose normalised text says no error word holds a line whose taken-off wrapper said ERROR
    (:func:`_wrapper_errors`), or ends in a traceback's frames whose last line a cut left inside its wrapper
    (:func:`frames_to_end` with the raw lines): engine/parse_pool.py asks it of a file nobody else recognised."""
    return bool(_wrapper_errors(artefact, set())) or (
        artefact.raw_text is not None and 'File "' in artefact.text
        and frames_to_end(artefact.lines, artefact.raw_text.split("\n")) is not None)


def unread_failures(artefact: Artefact, cited: set[int], owners=(), read: set[int] = frozenset()) -> ParseResult:
    """``text_error_line`` facts for the lines of a recognised file that say in words that
    something failed (FAILURE_WORDS) and that no fact of the file cites (``cited``: 1-based
    line numbers, the artefact's offset included) and that no signature of ``owners`` (the
    other readers' SIGNATURES: an nccl-tests footer is its reader's) claims. The caller asks
    only for files whose readers found no error: there such a line is the only sign of the failure.
    A kernel record of a GPU node's stack that says an error in the kernel's words (:func:`_kernel_error_lines`) is one
    too, unless a reader read it as part of an event (``read``: file lines, as ``cited``)."""
    result = ParseResult()
    # a wrapper facts/lines.py took off may have been the only failure word: a logger's level
    # ("[2024-03-01 10:00:00,123] [ERROR] [launch.py:321:sigkill_handler] [...] exits with return
    # code = 1", DeepSpeed's launcher) or a launcher's stderr tag; the raw lines are read too
    raw = artefact.raw_text
    raw_hit = raw is not None and _FAILURE_ANY.search(raw) is not None
    found = classify.gate(artefact.text, _FAILURE_ANY)  # (the text the classifier scanned last: its answer)
    failing = raw_hit or (found if found is not None else _FAILURE_ANY.search(artefact.text) is not None)
    kernel_gate = _kernel_errors()[0]
    told = classify.gate(artefact.text, kernel_gate)  # (a member of the classifier's set too: text_gates())
    kernel = told if told is not None else kernel_gate.search(artefact.text) is not None
    if not failing and not kernel:
        return result
    owned = [re.compile(o) if isinstance(o, str) else o for o in owners]
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    done: set[int] = set()
    record = _logger_records(artefact.raw_text or artefact.text, lines)
    title = is_title(artefact.path)

    def take(line: int, text: str, wrapped: bool = False) -> None:
        if line in record:  # a line of a logger's record that spans lines: the record says it once
            line = record[line]
            text = lines[line - 1]
        message = text.strip()
        if any(o.search(text) for o in owned):
            return
        if not wrapped and quiet(text):  # (a wrapper's own failure word is no structured level's)
            return
        if artefact.raw_text is not None and _prefix_quiet_record(artefact, line, text):
            return  # an application's JSON record at info or debug read as its message: its words are its message's
        if shell_command(text) or says_no_failure(text):  # (a message that reports no failure: its words sound like one)
            return
        if not wrapped and line not in done and _summarised(b, artefact, line, text, title):
            done.add(line)  # a title's, a template field's words: the reporter's claim
            return
        if message and line not in done and line + artefact.line_offset not in cited:
            done.add(line)
            b.add(TextErrorLine, line, message=message[:400])

    chains = _ray_chains(artefact.text, lines) if failing else {}
    exceptions: list[int] | None = None  # the 1-based lines that are an exception's, where a traceback needs them
    for line, text in iter_lines(FAILURE_WORDS, artefact) if failing else ():
        if text.lstrip().startswith("Traceback (most recent call last)") or _LOGGED_TRACEBACK.search(text.strip()):
            start, line = line, _traceback_end(lines, line)  # the exception's own line says what failed
            if line == start and (shown := cut_traceback(lines, start)) is not None:
                done.add(start)  # its exception line cut off: the capture is incomplete, no error line to quote
                traceback_cut(b, start, shown)
                continue
            if line != start and not _exception_line(lines[line - 1]):
                # the frames end in another writer's line (ranks' or processes' output interleaved, lines pasted between):
                # the exception is the first exception line below, and where none follows, the capture never shows it
                if exceptions is None:  # (the file's exception lines, found once: a file of many tracebacks is walked once)
                    exceptions = [j for j, t in enumerate(lines, 1) if _EXCEPTION.match(t)]
                k = bisect_left(exceptions, line)
                later = exceptions[k] if k < len(exceptions) else None
                if later is None:
                    done.add(start)
                    b.limit(start, "cut_short", f"a Python traceback (line {start}) whose frames stop at line {line - 1} "
                                                f"under other output, its exception line nowhere below: what raised, and "
                                                f"why, is not in the capture")
                    continue
                line = later
            text = lines[line - 1]
        if line in chains:  # a wrapper of Ray's exception chain: the chain's innermost line says it
            line = chains[line]
            text = lines[line - 1]
        take(line, text)
    if raw_hit:  # normalisation is line for line: a raw line's number is the artefact's
        for line, _ in iter_lines(FAILURE_WORDS, Artefact(path=artefact.path, text=raw, node=artefact.node)):
            if line not in done and line <= len(lines) and not lines[line - 1].lstrip().startswith("Traceback") \
                    and _LOGGED_TRACEBACK.search(lines[line - 1].strip()) is None \
                    and not _traceback_body(lines, line):  # (the frames of a traceback its logger printed at ERROR)
                take(line, lines[line - 1], wrapped=True)  # the message is what the line says, its wrapper off
    if kernel:
        for line, text in _kernel_error_lines(artefact):
            if line not in done and line + artefact.line_offset not in read:
                take(line, text)
    return result


@lru_cache(maxsize=1)
def _kernel_errors() -> tuple[re2._Regexp, re.Pattern[str], re.Pattern[str], re.Pattern[str] | None]:
    """knowledge/kernel_messages.yaml compiled once: (RE2 gate, a subsystem's tag at a message's start, the error words,
    the benign records or None)."""
    km = knowledge.load("kernel_messages.yaml")
    tags = "|".join(f"(?:{s.match})" for s in km.subsystems)
    words = "|".join(re.escape(w) for w in km.words)
    benign = "|".join(f"(?:{b.match})" for b in km.benign)
    return (re2.compile(rf"(?:{tags})[^\n]*\b(?:{words})\b"), re.compile(tags), re.compile(rf"\b(?:{words})\b"),
            re.compile(benign) if benign else None)


def text_gates() -> tuple[re2._Regexp]:
    """The kernel-record gate (:func:`_kernel_errors`, built from knowledge/kernel_messages.yaml) as a member of the
    classifier's set (facts/classify.py text_gates): unread_failures, asked of every recognised file its readers found no
    error in, has the answer of the file's one pass instead of a search of its own (a bench node: ~3.6 ms, ~2.6 of it on
    files that hold no kernel record at all)."""
    return (_kernel_errors()[0],)


def _kernel_error_lines(artefact: Artefact):
    """(line, text) of each kernel record (facts/parsers/kernel_log.py record_message) whose message names a subsystem of
    a GPU node's stack and says an error in the kernel's words, not one knowledge/kernel_messages.yaml finds benign:
    [  120.000001] amdgpu 0000:03:00.0: amdgpu: Ring gfx_0.0.0 reset failed   (CONSTRUCTED by the lead, session 46: read
    HEALTHY while no reader knew it)."""
    from stethoscope.facts.parsers.kernel_log import record_message
    gate, tag, words, benign = _kernel_errors()
    for line, text in iter_lines(gate, artefact):
        message = record_message(text)
        if message is None or (m := tag.match(message)) is None or words.search(message, m.end()) is None:
            continue
        if benign is None or benign.search(message) is None:
            yield line, text


# E0228 00:35:58.954000 724855 site-packages/torch/distributed/elastic/multiprocessing/api.py:732] Traceback (most recent call last):
# E0228 00:35:58.954000 724855 site-packages/torch/distributed/elastic/multiprocessing/api.py:732]     raise ProcessRaisedException(msg, error_index, failed_process.pid)
# E0228 00:35:58.954000 724855 site-packages/torch/distributed/elastic/multiprocessing/api.py:732] torch.multiprocessing.spawn.ProcessRaisedException:
#   (NVIDIA/nvidia-resiliency-ext#18) PyTorch's logger (torch/_logging/_internal.py TorchLogsFormatter) puts one
#   prefix on every line of a message, "{rankprefix}{level letter}{%m%d %H:%M:%S}.{microseconds:06d} {pid, the
#   thread id before 2.4} {path}:{lineno}]{trace id}{artifact}": lines in a row with the same prefix are one record
_LOGGER_RECORD = re.compile(r"(?:\[rank\d+\]:)?[VDIWEC]\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ \S+:\d+\]")
# the line of a record that names the failure: the exception that ends a traceback
# Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.      (a bare Exception: EleutherAI/gpt-neox#482)
_EXCEPTION = re.compile(r"^\s*(?:(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?::|\s*$)|Exception: \S)")


def _logger_records(raw: str, lines: list[str]) -> dict[int, int]:
    """{1-based line: the line that stands for its record} for the records of a logger that
    span lines (the same prefix on consecutive lines): the record's exception line, else its first."""
    if "]" not in raw:
        return {}
    prefixes = [m[0] if (m := _LOGGER_RECORD.match(row)) else None for row in raw.split("\n")]
    out: dict[int, int] = {}
    i = 0
    while i < len(prefixes):
        j = i + 1
        while prefixes[i] is not None and j < len(prefixes) and prefixes[j] == prefixes[i]:
            j += 1
        if j - i > 1:
            rows = range(i, j)
            told = [r for r in rows if r < len(lines) and _EXCEPTION.match(
                lines[r][len(prefixes[i]):] if lines[r].startswith(prefixes[i]) else lines[r])]
            for r in rows:
                out[r + 1] = (told[-1] if told else i) + 1
        i = j
    return out


# A logger's record whose message ends in the traceback it formats (traceback.format_exc() after the program's words,
# the traceback's header on the record's line and its frames on the lines below): the header all the same, the
# traceback's exception line (or its cut) says what failed. SGLang's scheduler (srt/managers/scheduler.py
# run_scheduler_process: logger.error(f"Scheduler hit an exception: {traceback}"), sgl-project/sglang#8336):
# [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):
# (the program's words hold a blank: an exception whose message is a formatted traceback, Ray Serve's
#  "RuntimeError: Traceback (most recent call last):" of ray-project/kuberay#3436, is the error line itself)
_LOGGED_TRACEBACK = re.compile(r"^\S+\s[^\n]*\S: Traceback \(most recent call last\):?\s*$")


def _exception_line(text: str) -> bool:
    """Whether ``text``, the first line after a traceback's frames, can be its exception line: one that names an error or
    a failure, or an exception's '<qualname>[: <message>]' ('KeyboardInterrupt', 'SystemExit: 1')."""
    return (_ANY_ERROR.search(text) is not None or _EXCEPTION.match(text) is not None
            or _BARE_EXCEPTION.fullmatch(text.strip()) is not None)


def _traceback_end(lines: list[str], start: int) -> int:
    """The 1-based line that ends the Python traceback whose header is line ``start``: the
    first line after its indented frames (the header itself when the frames run to the end)."""
    i = start  # 0-based index of the line after the header
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    while i < len(lines) and (len(lines[i]) - len(lines[i].lstrip()) > indent or not lines[i].strip()
                              or _traceback_body(lines, i + 1)):  # (frames a paste or a logger left unindented)
        i += 1
    return i + 1 if i < len(lines) else start


def cut_traceback(lines: list[str], start: int) -> str | None:
    """The last line shown of the Python traceback whose header is 1-based line ``start`` where the text ends inside
    it, before the exception line that ends every traceback (Python's traceback.print_exception: the header, each
    frame's '  File "...", line N, in f' and its source line indented under the header, then the exception's
    '<qualname>: <message>' at the header's own indent); None where something else follows it. A paste or a stored
    excerpt that stops there shows that something raised and not what (LeeDoYup/FixMatch-pytorch#2's excerpt ends
    '    self.b', zd11024/NaviLLM#34's torchrun traceback '  File "'): a capture cut short, not an error to quote."""
    last = last_line(lines)
    if last < start or _traceback_end(lines, start) != start:
        return None
    if last == start:
        return lines[start - 1].strip()
    text = lines[last - 1]
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    if len(text) - len(text.lstrip()) > indent:  # a frame's line or its source line: Python indents both
        return text.strip()
    # at the header's indent under a frame's line: that line's tail a terminal wrapped ('__.py", line 347, in wrapper'),
    # unless it is an exception that a frame without a source line stands above ('  File "<string>", line 1, in
    # <module>' then 'SystemExit: 1'): the traceback ended
    if _FRAME_HEAD.match(lines[last - 2]) is not None and _BARE_EXCEPTION.fullmatch(text.strip()) is None:
        return text.strip()
    return None


def frames_to_end(lines: list[str], raw: list[str] | None = None) -> tuple[int, str] | None:
    """(the 1-based first line, the last line shown) of the Python traceback frames a text ends in, where the paste holds
    neither the traceback's header nor its exception: the middle of a traceback, both ends cut (a stored excerpt that
    starts and stops inside one; a logger that prints a traceback line by line under its own prefix, vLLM's
    "(Worker pid=364) ERROR 04-18 15:45:48 [multiproc_executor.py:870]   File ".../pynccl.py", line 143, in __init__"
    down to "    data = torch.zeros(1, device=device)", vllm-project/vllm#39878). Like :func:`cut_traceback`'s, such a
    capture shows that something raised and not what: ``cut_short``, not an error to quote. None where the text ends
    in anything else, where the run holds no frame line (a line that starts 'File "' and names its line), or where a
    traceback's header stands above the run (:func:`cut_traceback` reads that one). With the raw lines (``raw``, the
    wrappers facts/lines.py took off kept), a last line cut inside the wrapper every line repeats (the excerpt's end
    '(W' under '(Worker pid=364) ERROR ...': the next line of the same record, cut) is passed over."""
    last = last_line(lines)
    if (raw is not None and 2 <= last <= len(raw) and not _traceback_body(lines, last)
            and 0 < len(cut_at := raw[last - 1].strip()) <= 40 and raw[last - 2].lstrip().startswith(cut_at)):
        last -= 1
    first, frames = last, 0
    while first >= 1 and _traceback_body(lines, first):
        if _FRAME.match(lines[first - 1]) is not None:
            frames += 1
        first -= 1
    if frames == 0 or first == last:
        return None
    if first >= 1 and lines[first - 1].strip().startswith("Traceback (most recent call last)"):
        return None
    first += 1
    while not lines[first - 1].strip():
        first += 1
    return first, lines[last - 1].strip()


# what a traceback's last line is when it names an exception without a message: 'KeyboardInterrupt', 'SystemExit'
_BARE_EXCEPTION = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?::(?: .*)?)?")


# IPython's traceback (IPython.core.ultratb's VerboseTB, what Jupyter and the ipython shell print): a rule of dashes,
# a header that puts the exception's class first and "Traceback (most recent call last)" beside it, each frame's head
# at the left margin (IPython 8: "Cell In[N], line M" / "File <path>:<line>, in <func>(<args>)"; before 8:
# "<ipython-input-N-<hash>> in <module>" / "<path> in <func>(<args>)") over a numbered listing of its source ("---> 36"
# marks the line that ran, "(...)" a gap), then "<class>: <message>" at the margin. Real lines (the issues corpus):
# CudaSupportError                          Traceback (most recent call last)          (numba/numba#8638, IPython 8)
# Cell In[23], line 1
# ----> 1 print('a+b:\n', add_ufunc(a, b))
#      28            Cannot mix the two types in one call.                           (a docstring in the listing)
# File ~/anaconda3/envs/cython/lib/python3.10/site-packages/numba/cuda/vectorizers.py:36, in CUDAUFuncDispatcher.__call__(self, *args, **kws)
#    (...)
# MemoryError                               Traceback (most recent call last)          (NVIDIA/cudf#6746, IPython 7)
# <ipython-input-2-301086af0e1f> in <module>
# ~/anaconda3/envs/rapids16/lib/python3.7/contextlib.py in inner(*args, **kwds)
#    (...)     12     # use_gradient_checkpointing=True                              (unslothai/unsloth#3150, IPython 8:
#   the gap's marker and the next listed line on one line, ultratb's "(...)" then that line's number and source)
# The listing is source code ("raise CudaDriverError(...)", "Cannot mix ..." said no failure): never an error line.
_IPY_HEADER = re.compile(r"[ \t]{0,8}((?:[A-Za-z_]\w{0,100}\.){0,20}[A-Z]\w{0,100})[ \t]{2,200}"
                         r"Traceback \(most recent call last\)[ \t]*")
_IPY_BODY = re.compile(
    r"[ \t]{0,12}(?:-{0,8}>[ \t]{0,8})?\d{1,7}(?:[ \t]|$)|[ \t]{0,12}\(\.\.\.\)(?:[ \t]*$|[ \t]{1,12}\d{1,7}(?:[ \t]|$))"
    r"|Cell In ?\[\d{1,9}\], line \d"
    r"|File \S[^\n]{0,1000}:\d{1,9}, in \S|<ipython-input-[\w-]{1,80}> in \S|[~/.\w][^\n]{0,1000}\.pyx? in \S"
    r"|-{20,}[ \t]*$")


def ipython_tracebacks(lines: list[str]) -> tuple[dict[int, int | None], set[int]]:
    """({1-based header line: the line of the exception that ends its traceback, None where the text ends inside it},
    the 1-based lines of their bodies: frame heads, the numbered source listing, blank lines) of the IPython tracebacks
    in ``lines`` (:data:`_IPY_HEADER`)."""
    headers: dict[int, int | None] = {}
    body: set[int] = set()
    if not any("most recent call last" in t for t in lines):
        return headers, body
    for i, text in enumerate(lines):
        m = _IPY_HEADER.fullmatch(text)
        if m is None:
            continue
        name = m.group(1).rsplit(".", 1)[-1]
        end: int | None = None
        for j in range(i + 1, len(lines)):
            t = lines[j]
            if not t.strip() or _IPY_BODY.match(t):
                body.add(j + 1)
                continue
            stripped = t.strip()
            if stripped.startswith(name) or _EXCEPTION.match(t) or _BARE_EXCEPTION.fullmatch(stripped):
                end = j + 1
            break
        headers[i + 1] = end
    return headers, body


def traceback_cut(b: FactBuilder, line: int, shown: str) -> None:
    """The ``cut_short`` limit of a traceback at ``line`` that runs to the text's end (:func:`cut_traceback`)."""
    b.limit(line, "cut_short", f"a Python traceback (line {line}) runs to the text's end without the exception line that "
                               f"ends it (its last line shown: {shown[:120]!r}): what raised, and why, was cut from the capture")


# Ray re-raises a task's exception in its caller wrapped in ``RayTaskError(<cause's class>)``
# (python/ray/exceptions.py ``as_instanceof_cause``; plain ``RayTaskError`` where the cause is
# Ray's own), whose text is the task's process title, pid and address, then the task's traceback;
# a task that called another task nests the callee's wrapper in it, and an actor whose creation
# task raised dies with ``RayActorError`` (``ActorDiedError`` since 2.x) quoting the same text.
# The chain is one failure: its innermost exception (the line after the last wrapper's frames)
# says what failed, the wrappers are its echo.
# ray.exceptions.RayTaskError(RuntimeError): ray::_Inner.train() (pid=83344, ip=192.168.0.107, actor_id=a9ba4794b5ce200b4efcb24c0b000000, repr=TorchTrainer)
# ray.exceptions.RayTaskError(DistBackendError): ray::_RayTrainWorker__execute.get_next() (pid=192, ip=10.0.0.19, actor_id=a3e4eb7bfa5c10d44e303ba301000000, repr=<...>)
# ray.exceptions.RayActorError: The actor died because of an error raised in its creation task, ray::Worker.__init__() (pid=2207, ip=10.0.0.5, repr=<...>)
_RAY_WRAPPER = re.compile(
    r"^\s*(?:ray\.exceptions\.)?(?:RayTaskError(?:\([\w.]+\))?: "
    r"|(?:RayActorError|ActorDiedError): The actor died because of an error raised in its creation task, )"
    r"(?:\x1b\[\d+m)?\S[^\n]{0,200}? \(pid=\d+, ip=")


def _ray_chains(text: str, lines: list[str]) -> dict[int, int]:
    """{1-based line of a wrapper of Ray's exception chain: the chain's innermost line}: the
    exception line after the last wrapper's indented frames, else (the paste cut it) that wrapper."""
    if "RayTaskError" not in text and "creation task, " not in text:
        return {}
    out: dict[int, int] = {}
    wrappers: list[int] = []
    i = 0
    while i < len(lines):
        if not _RAY_WRAPPER.match(lines[i]):
            i += 1
            continue
        wrappers.append(i)
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j][:1] in " \t"):
            j += 1  # the wrapper's frames
        if j < len(lines) and _RAY_WRAPPER.match(lines[j]):
            i = j  # the callee's wrapper: the same chain
            continue
        end = j if j < len(lines) and _EXCEPTION.match(lines[j]) else wrappers[-1]
        out.update((w + 1, end + 1) for w in wrappers)
        wrappers = []
        i = j
    return out
