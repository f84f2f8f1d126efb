"""Never a false HEALTHY (issue 10's principle, audited as an adversarial operator would).

Each case is a real healthy bundle (fixtures/bundles/h200-healthy: nccl-tests, NCCL logs,
nvidia-smi -q, a two-rank PyTorch job; fixtures/bundles/device-h200-collect: dmesg -T,
nvidia-smi -q and -q -x, a PyTorch job) with ONE thing wrong, as operators find it: a crash
line nobody parsed, an empty capture, a node with nothing that checks its GPUs, an output cut
short, a GPU nvidia-smi could not read. Every one of them said HEALTHY before. The near misses
at the end are healthy runs with lines that look alarming and are not.
"""
import csv
import io
import json
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from stethoscope.engine.pipeline import diagnose_bundle

ROOT = Path(__file__).resolve().parent.parent
A = ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle"  # vm/rank0.log, vm/smi.txt, vm/allreduce.txt, ...
B = ROOT / "fixtures" / "bundles" / "device-h200-collect" / "bundle"  # vm/dmesg.txt, vm/nvidia-smi-q.txt, ...
ART = ROOT / "fixtures" / "artefacts"


def _copy(tmp_path: Path, base: Path) -> Path:
    dst = tmp_path / "bundle"
    shutil.copytree(base, dst)
    return dst


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def _plant(tmp_path: Path, layout: str, name: str, text: str) -> Path:
    """A copy of bundle B with ``text`` in a file of its own (``own_file``) or appended to its nvidia-smi -q."""
    b = _copy(tmp_path, B)
    if layout == "own_file":
        (b / "vm" / name).write_text(text)
    else:
        _append(b / "vm" / "nvidia-smi-q.txt", "\n" + text)
    return b


def _cited(rep) -> list[str]:
    """The lines that serious findings quote: a rule that reads the line, or unexplained_error."""
    return [ev.text for f in rep.findings if f.severity != "info" for ev in f.evidence]


def _faulty_quoting(ruleset, tmp_path: Path, where: str, tail: str, quoted: str | None = None) -> None:
    """Bundle A with ``tail`` added to its file ``where`` (made when absent) is faulty, and a
    serious finding quotes the line holding ``quoted``."""
    p = _copy(tmp_path, A) / where
    p.write_text((p.read_text() if p.exists() else "") + tail)
    rep = diagnose_bundle(p.parents[1], ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert quoted is None or any(quoted in t for t in _cited(rep)), _cited(rep)


def test_the_bases_are_healthy(ruleset):
    for base in (A, B):
        rep = diagnose_bundle(base, ruleset, jobs=1)
        assert rep.verdict == "healthy", (base, rep.reason, [f.summary for f in rep.findings])


# --- a failure line in a log that its readers did not read ---------------------------------

TRACEBACK = ("Traceback (most recent call last):\n"
             '  File "/root/train.py", line 41, in <module>\n'
             "    main()\n"
             '  File "/root/train.py", line 33, in main\n'
             "    loss = step(batch)\n")


@pytest.mark.parametrize("tail, quoted", [
    ("Segmentation fault (core dumped)\n", "Segmentation fault (core dumped)"),
    ("Killed\n", "Killed"),
    # an exception type no rule knows: the finding quotes the traceback's last line
    (TRACEBACK + "trainer.errors.CheckpointCorrupted: shard 3 of 8 has a bad checksum\n",
     "trainer.errors.CheckpointCorrupted: shard 3 of 8 has a bad checksum"),
    (TRACEBACK + "ValueError: Expected input batch_size (32) to match target batch_size (16).\n",
     "ValueError: Expected input batch_size (32) to match target batch_size (16)."),
    ("ERROR: rank 1 reported loss=nan at step 1200, aborting\n", "ERROR: rank 1 reported loss=nan"),
    ("[2026-11-29 18:30:41] step 1200 FAILED: gradient all-reduce returned mismatched sizes\n", "step 1200 FAILED"),
], ids=["segfault", "killed", "unknown_exception", "valueerror", "error_word", "failed_word"])
def test_a_crash_line_in_a_training_log_is_never_healthy(ruleset, tmp_path, tail, quoted):
    _faulty_quoting(ruleset, tmp_path, "vm/rank0.log", tail, quoted)


STAMP = "[Sun Nov 29 20:31:02 2026] "


OOM_KILL = ["python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
            "Out of memory: Killed process 1708 (python3) total-vm:81234567kB, anon-rss:65432100kB, file-rss:0kB, "
            "shmem-rss:0kB, UID:0 pgtables:130000kB oom_score_adj:0"]


def test_the_oom_killer_is_never_healthy_and_is_named(ruleset, tmp_path):
    """The kernel log's reader reads the kill line (host_oom_kill): rule host_oom_killed names it."""
    b = _copy(tmp_path, B)
    _append(b / "vm" / "dmesg.txt", "".join(STAMP + ln + "\n" for ln in OOM_KILL))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert rep.findings[0].cause == "host_memory_oom_killed" and "pid 1708" in rep.findings[0].summary


@pytest.mark.parametrize("lines", [
    ["INFO: task python3:1708 blocked for more than 122 seconds."],
    ["watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [nvidia-smi:2211]"],
    ["BUG: unable to handle page fault for address: ffffb1c2c0a01000", "Oops: 0000 [#1] PREEMPT SMP NOPTI"],
    ["python3[1708]: segfault at 0 ip 00007f3a1c2b4e10 sp 00007ffd3c1a2b40 error 4 in "
     "libcuda.so.580.159.04[7f3a1c000000+2a00000] likely on CPU 5 (core 5, socket 0)"],
], ids=["hung_task", "soft_lockup", "oops", "segfault"])
def test_a_kernel_failure_without_nvrm_is_never_healthy(ruleset, tmp_path, lines):
    b = _copy(tmp_path, B)
    _append(b / "vm" / "dmesg.txt", "".join(STAMP + ln + "\n" for ln in lines))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert any(any(ln in t for ln in lines) for t in _cited(rep)), _cited(rep)


# --- round 2: other runtimes' last words in a recognised log --------------------------------
# Each is a real line (the thread in the id's comment) that the unread-failure scan did not know:
# the bundle said HEALTHY with it appended to the job's log, or alone in a file beside it.

MEGATRON_NAN = (  # bigscience-workshop/Megatron-DeepSpeed#396: the loss diverged, grad norm NaN on every step
    " iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     88899584 | elapsed time per "
    "iteration (ms): 4247.9 | learning rate: 2.999E-04 | global batch size:     8 | loss scale: 1.0 | grad norm: nan | "
    "actual seqlen:  2048 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: 1.886 | "
    "TFLOPs: 78.46 |\n"
    " iteration     5427/  250000 | consumed samples:        43416 | consumed tokens:     88915968 | elapsed time per "
    "iteration (ms): 4225.8 | learning rate: 2.999E-04 | global batch size:     8 | loss scale: 1.0 | grad norm: nan | "
    "actual seqlen:  2048 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: 1.893 | "
    "TFLOPs: 78.77 |\n")

RUNTIME_LAST_WORDS = {
    # Go's runtime (runtime/panic.go): bcicen/grmon#8, golang/tour#1052
    "go_panic": ("panic: runtime error: invalid memory address or nil pointer dereference\n"
                 "[signal SIGSEGV: segmentation violation code=0x1 addr=0x28 pc=0x1385f7c]\n\ngoroutine 1 [running]:\n"
                 "main.ReadRoutines(0xc000228000, 0xa1, 0x200, 0x10, 0xff, 0x0, 0x0, 0x0)\n"
                 "\t/Users/me/go/src/github.com/bcicen/grmon/parse.go:76 +0x19c\n",
                 "panic: runtime error: invalid memory address or nil pointer dereference"),
    "go_fatal": ("fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n"
                 "\t/tmp/sandbox915641541/prog.go:9 +0xfd\n", "fatal error: all goroutines are asleep - deadlock!"),
    # libstdc++'s verbose terminate handler: ljanyst/ssd-tensorflow#8
    "cxx_terminate": ("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n",
                      "terminate called after throwing an instance of 'std::bad_alloc'"),
    # glibc's malloc checks, 2.26+ and older: pytorch/pytorch#148954, threeYANG/mmdetection_libtorch#4
    "double_free": ("double free or corruption (out)\n", "double free or corruption (out)"),
    "double_free_old": ("*** Error in `./Demo': double free or corruption (!prev): 0x00000000020a4cd0 ***\n",
                        "double free or corruption (!prev)"),
    # glibc's __fortify_fail: vchoutas/torch-mesh-isect#22
    "stack_smashing": ("*** stack smashing detected ***: python terminated\n", "*** stack smashing detected ***"),
    # a shell's report of SIGABRT: santi-pdp/segan#40
    "shell_aborted": ("./clean_wav.sh: line 26:  6499 Aborted\n", "6499 Aborted"),
    # Open MPI's MPI_Abort and its launcher's report, MPICH's Hydra: UCL/hemelb#4, Kay1794/Aware-of-the-history#2,
    # je-santos/MPLBM-UT#92
    "mpi_abort": ("--------------------------------------------------------------------------\n"
                  "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD \nwith errorcode -1.\n",
                  "MPI_ABORT was invoked on rank 0"),
    "mpirun_signal": ("mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 (Killed).\n",
                      "exited on signal 9 (Killed)"),
    "hydra": ("=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 92248 RUNNING AT fzh-desktop\n"
              "=   EXIT CODE: 9\n", "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"),
    # a loss that is not a number (Megatron's training log)
    "grad_norm_nan": (MEGATRON_NAN, "grad norm: nan"),
    # one such line, the log's last: the throughput reader reads it as a reading (cites it)
    "grad_norm_nan_one_line": (MEGATRON_NAN.splitlines(keepends=True)[1], "grad norm: nan"),
    # a line of torchrun's failures table alone (fixtures/bundles/h200-straggler-desync)
    # the Docker client's report of a refused request (moby client: "Error response from daemon: %s"), in a
    # form no reader reads (NVIDIA/nvidia-docker#1642, driver name left out)
    "docker_daemon_refusal": ("docker: Error response from daemon: could not select device driver with capabilities: [[gpu]].\n",
                              "Error response from daemon"),
    "torchrun_signal": ("  traceback : Signal 6 (SIGABRT) received by PID 745\n", "Signal 6 (SIGABRT) received by PID 745"),
}


@pytest.mark.parametrize("name", sorted(RUNTIME_LAST_WORDS))
def test_another_runtimes_failure_in_a_job_log_is_never_healthy(ruleset, tmp_path, name):
    _faulty_quoting(ruleset, tmp_path, "vm/rank0.log", *RUNTIME_LAST_WORDS[name])


@pytest.mark.parametrize("name", ["cxx_terminate", "stack_smashing", "mpirun_signal", "grad_norm_nan",
                                  "grad_norm_nan_one_line"])
def test_the_failure_alone_in_a_file_of_its_own_is_never_healthy(ruleset, tmp_path, name):
    # no error word ("terminate called ...", "*** stack smashing detected ***") or read by a reader of
    # context (the mpirun report as a command line, the Megatron lines as throughput): never uninformative
    _faulty_quoting(ruleset, tmp_path, "vm/job.err", *RUNTIME_LAST_WORDS[name])


def test_a_watchdog_timeout_told_with_its_work_left_out_is_never_healthy(ruleset, tmp_path):
    # a public note's line (code index): PyTorch's "ran for N milliseconds before timing out" with the work elided and no
    # "Watchdog caught" before it, in a file of its own beside the healthy job; it was set aside as uninformative
    _faulty_quoting(ruleset, tmp_path, "vm/note.txt", "[rank6]: WorkNCCL(...) ran for 7200015 milliseconds before timing out.\n",
                    "before timing out")


def test_pytorchs_cpp_frames_without_their_error_are_never_healthy(ruleset, tmp_path):
    # Lightning-AI/pytorch-lightning#19544's excerpt: C++ CapturedTraceback frames, the error they belong to cut off
    text = (ART / "unrecognised_text" / "lightning19544_cpp_captured_frames_cut.txt").read_text()
    p = _copy(tmp_path, A) / "vm" / "frames.txt"
    p.write_text(text)
    rep = diagnose_bundle(p.parents[1], ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and [(h.limit, h.path) for h in rep.coverage.limits] == [("cut_short", "vm/frames.txt")]


def test_c10_backtrace_frames_without_their_error_are_never_healthy(ruleset, tmp_path):
    # vllm-project/vllm#19670's excerpt: c10 "frame #N: ..." lines alone, the header and the error they belong to cut off,
    # beside a healthy bundle: the capture is cut short, never healthy
    text = (ART / "unrecognised_text" / "vllm19670_c10_frames_cut.txt").read_text()
    p = _copy(tmp_path, A) / "vm" / "frames.txt"
    p.write_text(text)
    rep = diagnose_bundle(p.parents[1], ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and [(h.limit, h.path) for h in rep.coverage.limits] == [("cut_short", "vm/frames.txt")]


def test_a_command_pasted_with_its_crash_is_never_healthy(ruleset, tmp_path):
    # the command (facebookresearch/msn#24, read as context) used to make the file "recognised"
    _faulty_quoting(ruleset, tmp_path, "vm/session.txt", "python main.py --fname configs/pretrain/msn_vits16.yaml "
                    "--devices cuda:1 cuda:0\nSegmentation fault (core dumped)\n", "Segmentation fault (core dumped)")



@pytest.mark.parametrize("session, quoted", [
    # NVIDIA/pyxis#4: the command (read as context) and srun's report of a task that never launched
    ("srun --container-image=centos grep NAME /etc/os-release\nsrun: job xxxx queued and waiting for resources\n"
     "srun: job xxxx has been allocated resources\nsrun: error: task 0 launch failed: Plugin initialization failed\n",
     "srun: error: task 0 launch failed: Plugin initialization failed"),
    # geoschem/geos-chem#822: the shell's trace of the command and srun's refusal of its MPI type
    ("+ srun -m plane=30 --mpi=pmix ./gchp\nsrun: error: cannot find mpi plugin for mpi/pmix\n",
     "srun: error: cannot find mpi plugin for mpi/pmix"),
], ids=["task-launch-failed", "mpi-plugin"])
def test_a_slurm_command_pasted_with_its_error_is_never_healthy(ruleset, tmp_path, session, quoted):
    # Slurm's "<program>: error: " (src/common/log.c) after a pasted srun command: command_line read the
    # file as context and skipped the error line, and the bundle said HEALTHY (wild sweep 5E)
    _faulty_quoting(ruleset, tmp_path, "vm/session.txt", session, quoted)

DPG_WARNING = (  # harvest case 134: a benign exit warning, explained by an info rule
    "[rank1]:[W525 04:26:32.633250622 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called "
    "before program exit, which can leak resources. For more info, please see "
    "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n")


@pytest.mark.parametrize("tail, quoted", [
    (DPG_WARNING + "Segmentation fault (core dumped)\n", "Segmentation fault (core dumped)"),
    (DPG_WARNING + "Killed\n", "Killed"),
    (TRACEBACK + "trainer.errors.CheckpointCorrupted: shard 3 of 8 has a bad checksum\n" + DPG_WARNING,
     "trainer.errors.CheckpointCorrupted"),
], ids=["segfault", "killed", "exception"])
def test_a_crash_beside_a_warning_found_benign_is_never_healthy(ruleset, tmp_path, tail, quoted):
    # the warning is read (an alarming fact), and an info rule finds it harmless: the crash line
    # beside it used to count as that warning's echo and was never looked for
    _faulty_quoting(ruleset, tmp_path, "vm/rank0.log", tail, quoted)


# --- a missing signal ----------------------------------------------------------------------

def test_an_empty_capture_is_a_missing_signal(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    (b / "vm" / "nvidia-smi-q.txt").write_text("")
    (b / "vm" / "dmesg.log").write_text("\n \n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    skipped = {s.path: s.reason for s in rep.coverage.skipped}
    assert skipped.keys() == {"vm/nvidia-smi-q.txt", "vm/dmesg.log"} and all("empty" in r for r in skipped.values())
    assert "vm/nvidia-smi-q.txt" in rep.reason


@pytest.mark.parametrize("lines", [
    "NCCL version 2.27.5+cuda12.9\n",                                  # the bare VERSION-level line, pasted alone
    "NCCL version 2.27.5+cuda12\n",                                    # the same cut after the CUDA major (NVIDIA/nccl#2186's paste)
    "node1:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"
    "node1:1:1 [0] NCCL INFO NCCL version 2.27.5+cuda12.9\n",
])
def test_an_nccl_version_or_setting_alone_is_no_health_claim(ruleset, tmp_path, lines):
    # it says which NCCL and how it was set, not that NCCL or the network worked (it read HEALTHY,
    # "checked: nccl, network"): the file is recognised and its version read, the verdict inconclusive
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "nccl.log").write_text(lines)
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "inconclusive", rep.reason
    assert [f.kind for f in rep.coverage.files] == ["nccl_log"] and not rep.coverage.unrecognised


def test_a_watchdog_dump_for_a_collective_timeout_alone_is_a_fault(ruleset, tmp_path):
    # PyTorch 2.6's form ('... from this local rank'): read as a progress count only, it was HEALTHY
    line = next(ln for ln in (ART / "torch_log" / "watchdog_torch26_failure_detected.log").read_text().splitlines()
                if "Received a dump signal due to a collective timeout from this local rank" in ln)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "paste.txt").write_text(line + "\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "faulty" and rep.findings[0].cause == "nccl_timeout", [f.summary for f in rep.findings]


@pytest.mark.parametrize("source, line, kind", [
    # an nccl-tests header with no row, no footer's failure: no collective was measured
    ("nccl_tests/allreduce_bad_ifname_json_g2.txt", "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803", "nccl_tests"),
    # gpu-burn's start, before any result or verdict
    ("gpu_burn/superbench_a100x8_ok.log", "Initialized device 3 with 81251 MB of memory (80493 MB available, using 72443 MB of it), "
     "using DOUBLES, using Tensor Cores", "gpu_burn"),
    # the head of the driver's report of an event, the Xid after it cut off
    ("kernel_log/dmesg_xid79_sxid.log", "[6781741.548768] NVRM: GPU at PCI:0000:91:00: GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b",
     "kernel_log"),
    # an nvidia-smi -q section's header, nothing under it and no GPU named
    ("nvidia_smi_q/nvidia-smi-q-ROW_REMAPPER.txt", "    Remapped Rows", "nvidia_smi_q"),
    ("nvidia_smi_q/nvidia-smi-q-PERFORMANCE-after.txt", "    Clocks Event Reasons", "nvidia_smi_q"),
    # systemctl status's head names the unit, not its state (the glyph of a failed one, at that)
    ("fabric_manager_log/nvls_recovery_h100_systemctl_status_failed_signal.txt",
     "\u00d7 nvidia-fabricmanager.service - NVIDIA fabric manager service", "fabric_manager_log"),
    # the NVML library's version, the line after a 'Driver/library version mismatch'
    ("nvml_init/video2x1226_mismatch_library_version.txt", "NVML library version: 565.57", "nvml_init"),
    # NCCL 2.3's INFO that no external net plugin was found (NCCL then uses its own transports)
    ("nccl_log/net_plugin_unable_to_load_2.3_title.log",
     "Unable to load libnccl-net.so : libnccl-net.so: cannot open shared object file: No such file or directory", "nccl_log"),
    # nvidia-smi's table banner and column heads, no GPU's row under them
    ("nvidia_smi_table/device_plugin60_r390_gtx1080.txt",
     "| NVIDIA-SMI 390.25                 Driver Version: 390.25                    |\n"
     "|-------------------------------+----------------------+----------------------+\n"
     "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |", "nvidia_smi_table"),
    # session 17 (bench/fragment_audit.py over the harvest cases and the dev corpus, 1-5 line windows):
    # the driver's load line alone: the log shows no time after the driver came up (harvest 1408's dmesg)
    ("../harvest/cases/1408-healthy-nvidia-module-loads-taint-messages-helm-chart-bug/dmesg.log",
     "[    3.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.05  Wed Oct 25 20:27:35 UTC 2023", "kernel_log"),
    # Xid 43s (an application's channel reset, catalogue IGNORE), then the head of another GPU's Xid report, its Xid cut
    # off (the driver names a GPU once, right before its first Xid: kernel_rc.c krcReportXid -> _krcLogUuidOnce)
    ("../harvest/cases/1404-xid31-repeated-on-one-gpu-many-processes-faulty-device/dmesg.log",
     "[Thu Jan 28 00:16:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=1405, Ch 00000008\n"
     "[Thu Jan 28 02:13:33 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=11101, Ch 00000008\n"
     "[Fri Jan 29 23:42:34 2021] NVRM: GPU at PCI:0000:db:00: GPU-4a28de72-2645-de9a-eb35-a394cef3f4da", "kernel_log"),
    # gpud scan's pass of a check it skipped (an A10 host: no NVSwitch), read as 'checked: nvlink' (harvest 129)
    ("../harvest/cases/129-healthy-a10-no-nvswitch-fabric-manager-not-active/app.txt",
     '{"level":"info","ts":"2025-06-05T18:00:13Z","caller":"fabric-manager/component.go:163","msg":"checking nvidia fabric manager"}\n'
     "\u2714 NVSwitch not detected, skipping fabric manager check", "gpud_scan"),
    # nvidia-smi -q's banner and a GPU's header, its block cut off (dev corpus 035's paste, netdata#4892, the same lines)
    ("nvidia_smi_q/nvidia-smi-q.txt", "Attached GPUs                                          : 2\nGPU 00000000:00:06.0", "nvidia_smi_q"),
    # Ollama's start of GPU discovery, its result cut off (ollama#12136): read HEALTHY, 'checked: application'
    ("ollama_log/h100_gpu_discovery_0.12.log",
     'time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."', "ollama_log"),
    # cuda-gdb's notice of a status a CUDA call returned (NVIDIA/nccl#258, dev corpus 014): the program ran under a
    # debugger, how it ended is not shown (read HEALTHY, 'checked: application')
    ("cuda_app/cuda_forms.log", "warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)", "cuda_app"),
    # dcgmi health -c's head, its Overall Health row and the incident under it cut off
    ("dcgmi_health/l4_power_violation_warning.txt", "$ dcgmi health -c\n+" + "-" * 27 + "+" + "-" * 58 + "+\n"
     "| Health Monitor Report" + " " * 64 + "|", "dcgmi_health"),
    # torchrun's agent starting its workers' rendezvous (a round that then timed out): no job seen running
    ("torch_elastic/torchrun_2.11_rdzv_join_timeout_min2.log",
     "I1201 10:35:57.549000 440 torch/distributed/elastic/agent/server/api.py:898] [default] starting workers for entrypoint: python\n"
     "I1201 10:35:57.549000 440 torch/distributed/elastic/agent/server/api.py:693] [default] Rendezvous'ing worker group",
     "torch_elastic+torch_log"),
    # inventory lines of a GPU block: no GPU named, nothing of its state (harvest 174)
    ("../harvest/cases/174-healthy-nvidia-smi-q-t4-no-banner-scheduler-bug/nvidia-smi-q.txt",
     "    VBIOS Version                         : 90.04.96.00.9F\n    MultiGPU Board                        : No\n"
     "    Board ID                              : 0x7", "nvidia_smi_q"),
    # aws-ofi-nccl's own test logger starting up (its plugin's unit test, no communicator at work): read 'checked:
    # nccl, network' (F2's audit, session 17)
    ("nccl_log/ofi_test_logger_open_av_einval.log",
     "INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n"
     "INFO: Function: main Line: 49: NET/OFI Process rank 0 started. NCCLNet device used on ip-172-0-1-23 is AWS Libfabric.\n"
     "INFO: Function: main Line: 53: NET/OFI Received 1 network devices", "nccl_log"),
    # session 18 (F3): an nvidia-smi -q section cut short of the lines that make its claim: Remapped Rows before its Pending
    # line (harvest 108's paste), Retired Pages N/A throughout (an H200's -d PAGE_RETIREMENT: it remaps rows instead), Clocks
    # Event Reasons cut after 'Idle' (no reason of power or heat read); each read HEALTHY, 'checked: gpu_memory' / 'power_thermal'
    ("../harvest/cases/108-remapped-rows-pending-uncorrectable-4/nvidia-smi-q.txt",
     '    Remapped Rows\n'
     '        Correctable Error                 : 0', "nvidia_smi_q"),
    ("nvidia_smi_q/nvidia-smi-q-ROW_REMAPPER.txt",
     'GPU 00000000:00:07.0\n'
     '    Remapped Rows\n'
     '        Correctable Error                              : 0\n'
     '        Inactive Correctable Error                     : 0', "nvidia_smi_q"),
    ("nvidia_smi_q/nvidia-smi-q-PAGE_RETIREMENT.txt",
     'GPU 00000000:00:06.0\n'
     '    Retired Pages\n'
     '        Single Bit ECC                                 : N/A\n'
     '        Double Bit ECC                                 : N/A\n'
     '        Pending Page Blacklist                         : N/A', "nvidia_smi_q"),
    ("nvidia_smi_q/nvidia-smi-q-PERFORMANCE-after.txt",
     'GPU 00000000:00:06.0\n'
     '    Performance State                                  : P0\n'
     '    Clocks Event Reasons\n'
     '        Idle                                           : Active', "nvidia_smi_q"),
    ("nvidia_smi_q/fragment_clocks_throttle_grep_A8_idle.txt",
     "$ nvidia-smi -q | grep -A8 'Clocks Throttle'\n"
     '    Clocks Throttle Reasons\n'
     '        Idle                        : Active\n'
     '        Applications Clocks Setting : Not Active', "nvidia_smi_q"),
    # the driver's load line among the boot's other lines, the log ending 0.3 s later (harvest 1408's dmesg | grep -i nvidia):
    # a capture of the boot shows no time with the GPUs in use
    ("../harvest/cases/1408-healthy-nvidia-module-loads-taint-messages-helm-chart-bug/dmesg.log",
     '[    2.961803] nvidia-nvlink: Nvlink Core is being initialized, major device number 239\n'
     '[    2.962598] nvidia 0000:01:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem,decodes=none:owns=io+mem\n'
     '[    3.011519] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.05  Wed Oct 25 20:27:35 UTC 2023\n'
     '[    3.017901] input: HDA NVidia HDMI/DP,pcm=3 as /devices/pci0000:00/0000:00:01.0/0000:01:00.1/sound/card1/input8\n'
     '[    3.139762] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  525.147.05  Wed Oct 25 20:21:31 UTC 2023', "kernel_log"),
    # the fabric manager's service started, or stopped (systemd's lines, like the driver's load line), and an INFO line of a
    # request it served: nothing of the fabric (NVSwitches configured, the unit active) is said
    ("fabric_manager_log/nvtrust128_journal_configured.txt",
     'Jan 05 14:45:28 TENCENT64 nvidia-fabricmanager-start.sh[1049]: Started "Nvidia Fabric Manager"\n'
     "Jan 05 14:45:28 TENCENT64 systemd[1]: Started nvidia-fabricmanager.service - NVIDIA fabric manager service.", "fabric_manager_log"),
    ("fabric_manager_log/nvtrust128_journal_configured.txt",
     'Jan 05 15:32:16 TENCENT64 nvidia-fabricmanager-start.sh[20411]: Stopped "Nvidia Fabric Manager"', "fabric_manager_log"),
    ("fabric_manager_log/gpud_fabricmanager_sxid.log", "[Feb 25 2025 13:59:45] [INFO] [tid 1808] multicast group 0 is freed.",
     "fabric_manager_log"),
    # session 23 (bench/fragment_audit.py, seeds 53 and 59): a Clocks Throttle Reasons block cut after SW Power Cap, before
    # HW Slowdown and the reasons of heat (dev corpus 007's paste, the same lines): read HEALTHY, 'checked: power_thermal'
    ("nvidia_smi_q/fragment_clocks_throttle_grep_A8_idle.txt",
     '    Clocks Throttle Reasons\n'
     '        Idle                        : Active\n'
     '        Applications Clocks Setting : Not Active\n'
     '        SW Power Cap                : Not Active', "nvidia_smi_q"),
    # nvidia-smi nvlink -s's link lines with the GPU header above them cut off (harvest 155, an A100 SXM4's 12 links):
    # which GPU, and its other links, are not shown; read HEALTHY, 'checked: nvlink'
    ("../harvest/cases/155-nccl-p2p-level-loc-forces-shm-a100-nvswitch/other.txt",
     '\t Link 5: 25 GB/s\n\t Link 6: 25 GB/s\n\t Link 7: 25 GB/s\n\t Link 8: 25 GB/s', "nvidia_smi_nvlink"),
    # and a GPU's links the poster elided ('......' after GPU 2's first link of twelve, NVIDIA/nccl-tests#228)
    ("../harvest/cases/155-nccl-p2p-level-loc-forces-shm-a100-nvswitch/other.txt",
     '\t Link 10: 25 GB/s\n\t Link 11: 25 GB/s\n'
     'GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-f4fb3d24-8773-b6b6-ae47-af7b37f5137d)\n\t Link 0: 25 GB/s\n......',
     "nvidia_smi_nvlink"),
    # session 23 (A3): the same Clocks Throttle Reasons block cut after HW Slowdown's sub-reasons and Sync Boost, before
    # SW Thermal Slowdown (printed after Sync Boost by every driver that has it, R384+): read HEALTHY, 'checked: power_thermal'
    ("nvidia_smi_q/fragment_clocks_throttle_grep_A8_idle.txt",
     '    Clocks Throttle Reasons\n'
     '        Idle                        : Active\n'
     '        Applications Clocks Setting : Not Active\n'
     '        SW Power Cap                : Not Active\n'
     '        HW Slowdown                 : Not Active\n'
     '            HW Thermal Slowdown     : Not Active\n'
     '            HW Power Brake Slowdown : Not Active\n'
     '        Sync Boost                  : Not Active', "nvidia_smi_q"),
    # the fabric manager's NVSwitches configured, then the service stopping 47 min later (NVIDIA/nvtrust#128's journal):
    # its last state shown is going away; read HEALTHY, 'checked: nvlink'
    ("fabric_manager_log/nvtrust128_journal_configured.txt",
     "Jan 05 14:45:28 TENCENT64 nv-fabricmanager[1120]: Successfully configured all the available NVSwitches to route GPU "
     "NVLink traffic. NVLink Peer-to-Peer support will be enabled once the GPUs are successfully registered with the NVLink fabric.\n"
     'Jan 05 14:45:28 TENCENT64 nvidia-fabricmanager-start.sh[1049]: Started "Nvidia Fabric Manager"\n'
     "Jan 05 14:45:28 TENCENT64 systemd[1]: Started nvidia-fabricmanager.service - NVIDIA fabric manager service.\n"
     "Jan 05 15:32:16 TENCENT64 systemd[1]: Stopping nvidia-fabricmanager.service - NVIDIA fabric manager service...",
     "fabric_manager_log"),
    # NCCL ranks 46-47 at 'Init START' with 40-41 at 'Init COMPLETE' (a bundle's window): the two started ranks are not
    # seen finishing their init; read HEALTHY, 'checked: nccl'
    ("../bundles/node-ranks-stuck-6/bundle/gpu-06/train.log",
     "gpu-06:41391:41391 [6] NCCL INFO ncclCommInitRankConfig comm 0x5a3efe40 rank 46 nranks 48 cudaDev 6 nvmlDev 6 busId "
     "ba000 commId 0x6b1f0e93c2a4d517 - Init START\n"
     "gpu-06:41392:41392 [7] NCCL INFO ncclCommInitRankConfig comm 0x5a3f0e40 rank 47 nranks 48 cudaDev 7 nvmlDev 7 busId "
     "db000 commId 0x6b1f0e93c2a4d517 - Init START\n"
     "gpu-06:41385:41385 [0] NCCL INFO ncclCommInitRankConfig comm 0x5a3e9e40 rank 40 nranks 48 cudaDev 0 nvmlDev 0 busId "
     "18000 commId 0x6b1f0e93c2a4d517 - Init COMPLETE\n"
     "gpu-06:41386:41386 [1] NCCL INFO ncclCommInitRankConfig comm 0x5a3eae40 rank 41 nranks 48 cudaDev 1 nvmlDev 1 busId "
     "2a000 commId 0x6b1f0e93c2a4d517 - Init COMPLETE", "nccl_log"),
    # session 25 (A7, bench/fragment_audit_s25.md): an Xid line pasted alone, an event of one moment the catalogue says to
    # ignore (Xid 44, a graphics engine fault during a context switch; Xid 43, an application's channel reset): no time of
    # the GPUs in which the log's silence about other Xids could count; read HEALTHY, 'checked: driver, gpu, gpu_memory,
    # nvlink, pcie'
    ("../harvest/cases/704-laptop-xid44-xid31-driver-problem-upgrade-driver/dmesg.log",
     "[   94.573839] NVRM: Xid (PCI:0000:08:00): 44, Ch 00000000, engmask 00000101, intr 10000000", "kernel_log"),
    ("../harvest/cases/1404-xid31-repeated-on-one-gpu-many-processes-faulty-device/dmesg.log",
     "[Thu Jan 28 00:16:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=1405, Ch 00000008", "kernel_log"),
])
def test_a_fragment_that_shows_no_result_is_no_health_claim(ruleset, tmp_path, source, line, kind):
    # each read HEALTHY alone ("checked: nccl", "gpu, gpu_memory", every GPU component): a one-line sampling audit
    # of the readers' fixtures (session 16) found them; the line is real (the fixture named)
    assert line in (ART / source).read_text()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "paste.txt").write_text(line + "\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "inconclusive", rep.reason
    assert [f.kind for f in rep.coverage.files] == [kind]



@pytest.mark.parametrize("source, first, last, checked", [
    # the whole grep -A8 of a Clocks Throttle Reasons block: SW Power Cap, HW Slowdown, SW Thermal Slowdown read
    ("nvidia_smi_q/fragment_clocks_throttle_grep_A8_idle.txt", 1, 10, "power_thermal"),
    # a Remapped Rows block through its Pending line
    ("nvidia_smi_q/nvidia-smi-q-ROW_REMAPPER.txt", 24, 31, "gpu_memory"),
    # a V100's Retired Pages with its Pending Page Blacklist line
    ("nvidia_smi_q/v100_r470_q_i1.txt", 143, 146, "gpu_memory"),
    # the fabric manager's NVSwitches configured, after its start
    ("fabric_manager_log/nvtrust128_journal_configured.txt", 7, 10, "nvlink"),
    # the same block, without the grep's command line, through SW Thermal Slowdown (session 23: cut before it, nothing)
    ("nvidia_smi_q/fragment_clocks_throttle_grep_A8_idle.txt", 2, 10, "power_thermal"),
    # the fabric manager's journal through its Started lines, no stop after (session 23's near miss of the stop)
    ("fabric_manager_log/nvtrust128_journal_configured.txt", 5, 10, "nvlink"),
    # a node's eight NCCL ranks, each START with its COMPLETE (session 23's near miss of the unfinished ranks)
    ("../bundles/node-ranks-stuck-6/bundle/gpu-06/train.log", 1, 16, "nccl"),
    # a GPU's nvlink -s links under its header (session 23's near miss of the headerless links), shown to their end: the
    # next GPU's header follows its Link 11 (session 24: its Links 0-3 alone, the list cut, check nothing)
    ("../harvest/cases/155-nccl-p2p-level-loc-forces-shm-a100-nvswitch/other.txt", 1, 14, "nvlink"),
    # Xid 43s (an application's channel reset, catalogue IGNORE) over three hours of the driver's time (A1's judgement;
    # session 25: the same line alone checks nothing)
    ("../harvest/cases/1404-xid31-repeated-on-one-gpu-many-processes-faulty-device/dmesg.log", 3, 5, "gpu_memory"),
])
def test_a_section_with_the_lines_that_make_its_claim_still_checks(ruleset, tmp_path, source, first, last, checked):
    # near misses of the fragments above (session 18): the same sections with their claim lines
    text = "\n".join((ART / source).read_text().splitlines()[first - 1:last])
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "paste.txt").write_text(text + "\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "healthy" and checked in {c.component for c in rep.checked}, rep.reason


def test_a_fabric_manager_unit_that_failed_checks_nothing_of_nvlink(ruleset, tmp_path):
    # systemd's 'Job for nvidia-fabricmanager.service failed ...' above a GeForce's nvidia-smi table (NVIDIA/gpu-operator#356,
    # harvest 168: the fabric manager is not needed there, no NVSwitch): HEALTHY on the table's GPU, but it read
    # 'checked: driver, gpu, nvlink', the failed unit standing for the fabric (round rN4's check of HEALTHY verdicts)
    src = ART / "fabric_manager_log" / "fm_unit_failed_geforce_gpuoperator356_console_paste.txt"
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "paste.txt").write_text(src.read_text())
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "healthy" and {c.component for c in rep.checked} == {"gpu", "driver"}, rep.checked
    # must not: the fabric manager's NVSwitches configured still check NVLink (the section test above, 7-10)


def _one(tmp_path, ruleset, name, text):
    (tmp_path / name).mkdir()
    (tmp_path / name / "paste.txt").write_text(text)
    return diagnose_bundle(tmp_path / name, ruleset, jobs=1)


def test_nccl_checks_the_network_only_where_a_channel_crosses_it(ruleset, tmp_path):
    # NVIDIA/nccl#1706's working 2 x H800 run (fixtures/artefacts/nccl_nvls): one process's ncclCommInitAll on one host,
    # its channels P2P: it read 'checked: nccl, network' from its Init COMPLETE (round rN4's check of HEALTHY verdicts)
    rep = _one(tmp_path, ruleset, "one_host", (ART / "nccl_nvls" / "nccl1706_g2_zero_nvls_channels.log").read_text())
    assert rep.verdict == "healthy" and {c.component for c in rep.checked} == {"nccl"}, (rep.checked, rep.reason)
    # must not: a channel via NET (transport/net.cc "... [send] via NET/%s/%d%s%s%s": Open MPI's tagged IB run; two nodes
    # over NET/Socket) checks the network, and so does a communicator of nNodes 2 whose channel lines were cut away
    two = (ART / "nccl_channels" / "two_nodes_2x2_socket.log").read_text().splitlines()
    for name, text in (("ib", (ART / "nccl_log" / "mpirun_tagged_ib.log").read_text()), ("socket", "\n".join(two) + "\n"),
                       ("nnodes_only", "\n".join(ln for ln in two if " via " not in ln) + "\n")):
        rep = _one(tmp_path, ruleset, name, text)
        assert rep.verdict == "healthy" and {"nccl", "network"} <= {c.component for c in rep.checked}, (name, rep.reason)
    # nor the network from a line that names it and moves nothing: the NET/IB device list of one host's channels P2P
    one = [ln for ln in two if " via NET" not in ln and " nNodes " not in ln]
    rep = _one(tmp_path, ruleset, "no_net", "\n".join(one) + "\n")
    assert "network" not in {c.component for c in rep.checked}, rep.reason


def test_a_multi_node_nvlink_communicator_checks_the_network_only_by_its_net_channels(ruleset, tmp_path):
    # 'comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d' (src/init.cc, 2.20 on): nNodes counts hosts
    # (their hostHash), while MNNVL 1 (src/mnnvl.cc ncclMnnvlCheck: the GPUs share a multi-node NVLink domain, a GB200
    # NVL72's clique) sends the data between them over NVLink, src/transport/p2p.cc '... via P2P/%s%s%s' with "MNNVL":
    # the hosts' network carried only the bootstrap. CONSTRUCTED from the real two-node fixture as NCCL prints such a run
    # (MNNVL 1, its NET/Socket channels P2P/MNNVL): NCCL checked, the network not (it read 'checked: nccl, network')
    two = (ART / "nccl_channels" / "two_nodes_2x2_socket.log").read_text().replace(" MNNVL 0", " MNNVL 1")
    mnnvl = "\n".join(ln.replace(" [receive] via NET/Socket/0", " via P2P/MNNVL").replace(" [send] via NET/Socket/0", " via P2P/MNNVL")
                      for ln in two.splitlines()) + "\n"
    assert "NET/" not in mnnvl and " MNNVL 1" in mnnvl
    rep = _one(tmp_path, ruleset, "mnnvl", mnnvl)
    assert rep.verdict == "healthy" and {c.component for c in rep.checked} == {"nccl"}, (rep.checked, rep.reason)
    # must not: the channel lines cut away, MNNVL 0 (NVIDIA/nccl#1412's real 'nNodes 2 ... MNNVL 0' form) still checks it;
    # so does a clique that leaves nodes out: its NET channels (MNNVL 1 and 'via NET/Socket/0')
    for name, text in (("mnnvl0", "\n".join(ln for ln in two.replace(" MNNVL 1", " MNNVL 0").splitlines() if " via " not in ln) + "\n"),
                       ("mnnvl_net", two)):
        rep = _one(tmp_path, ruleset, name, text)
        assert rep.verdict == "healthy" and {"nccl", "network"} <= {c.component for c in rep.checked}, (name, rep.reason)


def _left_out_is_cut_short(tmp_path, ruleset, src: Path, line: int, said: str) -> None:
    """A paste with lines left out by its poster (src, the elision at ``line``) alone: inconclusive, one cut_short
    limit there, the reason saying ``said``."""
    rep = _one(tmp_path, ruleset, "elided", src.read_text())
    assert rep.verdict == "inconclusive", rep.reason
    assert [(h.limit, h.line) for h in rep.coverage.limits] == [("cut_short", line)], rep.coverage.limits
    assert said in rep.reason, rep.reason


def test_an_elided_nvlink_listing_is_a_capture_cut_short(ruleset, tmp_path):
    # NVIDIA/nccl-tests#228's 'nvidia-smi nvlink -s': GPUs 0-1's twelve links, GPU 2's Link 0, then '......': it read
    # HEALTHY 'checked: nvlink' for the GPUs shown without saying GPUs 2-7 were not (round rN4)
    src = ART / "nvidia_smi_nvlink" / "nccl_tests228_a100_sxm4_nvlink_s_elided.txt"
    _left_out_is_cut_short(tmp_path, ruleset, src, 29, "GPU2's links with lines left out (line 29)")
    # the listing cut where the paste ends (GPU 0's Link 4 of an A100's twelve, no GPU shown whole before it): likewise
    rep = _one(tmp_path, ruleset, "cut", "\n".join(src.read_text().splitlines()[:6]) + "\n")
    assert rep.verdict == "inconclusive" and "stops after GPU0's Link 4" in rep.reason, rep.reason
    # must not: a listing shown to its end (two bridged H100 PCIe, every link of each) stays HEALTHY on NVLink
    rep = _one(tmp_path, ruleset, "whole", (ART / "nvidia_smi_nvlink" / "hpe_dl380a_h100_pcie_bridged_nvlink_s.txt").read_text())
    assert rep.verdict == "healthy" and not rep.coverage.limits, rep.reason


def test_an_nvidia_smi_table_with_gpu_rows_left_out_is_a_capture_cut_short(ruleset, tmp_path):
    # NVIDIA/gdrcopy#92's 'nvidia-smi' of eight Tesla M2070: '...' after the header's border, a GPU's second row without
    # its first, GPU 7's block: it read HEALTHY 'checked: driver, gpu' on GPU 7 alone (round rR4), as rN4's elided
    # NVLink listing did
    src = ART / "nvidia_smi_table" / "gdrcopy92_r390_m2070_elided_gpus.txt"
    _left_out_is_cut_short(tmp_path, ruleset, src, 6, "nvidia-smi table with lines left out (line 6")
    # must not: a table shown whole stays HEALTHY on its GPUs
    rep = _one(tmp_path, ruleset, "whole", (ART / "nvidia_smi_table" / "toolkit394_r550_rtx3060.txt").read_text())
    assert rep.verdict == "healthy" and not rep.coverage.limits, rep.reason


def test_a_shell_that_found_no_command_beside_a_healthy_table_is_never_healthy(ruleset, tmp_path):
    # skypilot-org/skypilot#5520's 'bash: python: command not found' (under SkyPilot's Ray label) pasted below a healthy
    # nvidia-smi table read HEALTHY 'checked: driver, gpu' (round rR4): the shell's report was no one's line
    table = (ART / "nvidia_smi_table" / "toolkit394_r550_rtx3060.txt").read_text()
    for n, line in enumerate(("(train, pid=4439) bash: python: command not found", "bash: python: command not found",
                              "./train.sh: line 12: torchrun: command not found")):
        rep = _one(tmp_path, ruleset, f"cnf{n}", table + line + "\n")
        assert rep.verdict == "faulty" and "command not found" in " ".join(_cited(rep)), (line, rep.reason)


def test_a_healthy_verdict_names_the_readings_it_rests_on(ruleset, tmp_path):
    # the report named the component and the file a HEALTHY rests on, never the reading (round rN4); the JSON's schema
    # takes no field more in 'checked' (additionalProperties false), so the reason of a healthy verdict names them
    rep = _one(tmp_path, ruleset, "whole", (ART / "nvidia_smi_nvlink" / "hpe_dl380a_h100_pcie_bridged_nvlink_s.txt").read_text())
    assert rep.verdict == "healthy"
    assert rep.reason.startswith("healthy on what was read: nvlink on paste.txt:3: ") and " nvlink_link_state, the first 'Link 0: " in rep.reason, rep.reason
    rep = _one(tmp_path, ruleset, "nccl", (ART / "nccl_nvls" / "nccl1706_g2_zero_nvls_channels.log").read_text())
    assert "nccl on paste.txt:" in rep.reason and "nccl_rank" in rep.reason and "network" not in rep.reason, rep.reason
    # must not: an inconclusive verdict's reason is still what was not checked
    rep = _one(tmp_path, ruleset, "cut", (ART / "nvidia_smi_nvlink" / "nccl_tests228_a100_sxm4_nvlink_s_elided.txt").read_text())
    assert not rep.reason.startswith("healthy on"), rep.reason


def test_an_older_drivers_clock_reasons_shown_whole_still_check_power_thermal(ruleset, tmp_path):
    # drivers before R384 print no SW Thermal Slowdown: their block ends at 'Unknown' (here Active, a finding); shown
    # whole it checks power_thermal, cut before 'Unknown' it checks nothing (session 23, A3)
    lines = (ART / "nvidia_smi_q/mcx18_pci_fragment_x8_of_x16.txt").read_text().splitlines()
    for last, checks in ((19, True), (18, False)):
        (tmp_path / str(last)).mkdir()
        (tmp_path / str(last) / "paste.txt").write_text("\n".join(lines[13:last]) + "\n")
        rep = diagnose_bundle(tmp_path / str(last), ruleset, jobs=1)
        assert ("power_thermal" in {c.component for c in rep.checked}) is checks, (last, rep.reason)
        assert rep.verdict != "healthy"

def test_a_node_with_nothing_that_checks_its_gpus_keeps_the_bundle_from_healthy(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    (b / "node2").mkdir()
    shutil.copy(ART / "top" / "top_1_w512_dev_host.txt", b / "node2" / "top.txt")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert "node2: node2/top.txt" in rep.reason


@pytest.mark.parametrize("layout", ["own_file", "same_file"])
def test_a_log_its_reader_recognised_and_read_nothing_of_is_no_evidence_of_health(ruleset, tmp_path, layout):
    """Wild sweep K3 (bench/plant_prefix_probe.py): harvest 703's real sinfo -R / scontrol rows (SlinkyProject/
    containers#14: the nodes drained, 'gres/gpu count repor[ted lower]') behind a wrapper the normaliser does not
    know (CONSTRUCTED '%% ', as the runner's '##[error]' was before facts/lines.py knew it) beside a healthy
    nvidia-smi -q: slurm_scheduler recognised the rows and read none, a log of a kind that checks nothing (no
    'covers') was left out of "recognised but not read", and the bundle read HEALTHY; in the same file as the -q,
    its reader's lines read made the file count as read. Must not: the rows bare are read (faulty), and the bundle
    without them stays healthy (test_the_bases_are_healthy)."""
    rows = next((ROOT / "fixtures" / "harvest" / "cases").glob("703-*/other.txt")).read_text()
    wrapped = "".join("%% " + ln + "\n" for ln in rows.splitlines())
    for text, want in ((wrapped, "inconclusive"), (rows, "faulty")):
        rep = diagnose_bundle(_plant(tmp_path / want, layout, "slurm.txt", text), ruleset, jobs=1)
        assert rep.verdict == want, (rep.reason, [f.summary for f in rep.findings])
        if want == "inconclusive":
            assert "recognised but not read" in rep.reason and "slurm_scheduler" in rep.reason, rep.reason


@pytest.mark.parametrize("layout", ["own_file", "same_file"])
def test_a_listing_whose_rows_were_not_read_is_no_evidence_of_health(ruleset, tmp_path, layout):
    """Wild sweep rL4 (rK3's leftover: 'recognised and not read' covered log kinds, not state listings): flyteorg/flyte#3686's
    real kubectl get pods (a pod OOMKilled) with its rows behind a wrapper the normaliser does not know (CONSTRUCTED '%% ',
    the header bare) beside a healthy nvidia-smi -q: kubectl_pods read its header, made no fact, and the bundle read
    HEALTHY (the OOMKilled row unread). A listing checks nothing of a GPU (covers: []) but its rows are what rules judge
    (knowledge/coverage.yaml listing): with none read, no evidence of health. Must not: the listing bare reads faulty
    (k8s_container_oom_killed); a listing of ordinary rows read whole stays healthy (all of its lines read)."""
    lines = (ART / "kubectl_pods" / "flyte3686_get_pods_oomkilled.txt").read_text().splitlines()
    wrapped = "\n".join(lines[:1] + ["%% " + ln for ln in lines[1:]]) + "\n"
    ordinary = "\n".join(lines[:2]) + "\n"  # the header and the Completed row: no fact, every line read
    for text, want in ((wrapped, "inconclusive"), ("\n".join(lines) + "\n", "faulty"), (ordinary, "healthy")):
        rep = diagnose_bundle(_plant(tmp_path / want, layout, "pods.txt", text), ruleset, jobs=1)
        assert rep.verdict == want, (rep.reason, [f.summary for f in rep.findings])
        if want == "inconclusive":
            assert "recognised but not read" in rep.reason and "kubectl_pods" in rep.reason, rep.reason


def _filebeat(line: str, i: int) -> str:
    # Filebeat's ECS document (a real one: {"@timestamp":"2023-06-06T04:48:11.735Z","log":{"offset":71770,"file":
    # {"path":"/var/log/auth.log"}},"message":"foobar"}, the search index's file 7263426428), CONSTRUCTED around a line
    return json.dumps({"@timestamp": f"2026-12-05T11:22:0{i}.735Z", "log": {"offset": 71770 + 200 * i, "file": {
        "path": "/var/log/trainer.log"}}, "message": line}, separators=(",", ":"))


def _journal(line: str, i: int) -> str:
    # journalctl -o json's record (systemd logs-show.c output_json; fields in its hashmap's order), CONSTRUCTED around a line
    return json.dumps({"__REALTIME_TIMESTAMP": f"176493361{i}494032", "_BOOT_ID": "e8ee305cff53408da12356a3876792ba",
                       "__CURSOR": f"s=5726468a2162439e9e18a191202b1a7b;i=28e9{i}", "__MONOTONIC_TIMESTAMP": "14776358446",
                       "SYSLOG_IDENTIFIER": "nvidia-smi", "_HOSTNAME": "gpu-node-7", "MESSAGE": line}, separators=(",", ":"))


@pytest.mark.parametrize("layout", ["own_file", "same_file"])
@pytest.mark.parametrize("wrap", [_filebeat, _journal], ids=["filebeat", "journal"])
def test_lines_a_journal_or_log_shipper_exported_as_json_records_read_as_bare(ruleset, tmp_path, layout, wrap):
    """Wild sweep L3 (bench/plant_prefix_probe.py, prefix filebeat_json): harvest 800's real Fabric rows (Azure/
    azhpc-images#506: 'Status : Insufficient Resources', 'CliqueId : 0') in Filebeat's JSON records beside a healthy
    nvidia-smi -q read HEALTHY: the file was 'uninformative' (no reader knew JSON records, no line named an error or a
    GPU term) and counted for nothing; in journalctl -o json's records the same rows read inconclusive, not read. Now
    facts/lines.py takes each record's message as its line: the verdict is the bare rows' own, never HEALTHY."""
    rows = (next((ROOT / "fixtures" / "harvest" / "cases").glob("800-*/nvidia-smi-q.txt")).read_text()
            .splitlines()[2:4])
    wrapped = "".join(wrap(ln, i) + "\n" for i, ln in enumerate(rows))
    verdicts = []
    for text in (wrapped, "".join(ln + "\n" for ln in rows)):
        rep = diagnose_bundle(_plant(tmp_path / str(len(verdicts)), layout, "shipped.log", text), ruleset, jobs=1)
        verdicts.append((rep.verdict, rep.reason))
    assert verdicts[0] == verdicts[1], verdicts
    assert verdicts[0][0] != "healthy", verdicts


def _fluentbit(line: str, i: int) -> str:
    # Fluent Bit's stdout / file output, format json_lines (docs.fluentbit.io pipeline/outputs/standard-output:
    # json_date_key "date", json_date_format "double"; the tail input's line in "log"), CONSTRUCTED around a line
    return json.dumps({"date": 1764933720.735196 + i, "log": line}, separators=(",", ":"))


def _vector(line: str, i: int) -> str:
    # Vector's log event, its sink's json codec (vector.dev docs/architecture/data-model/log: {"custom":"field","host":
    # "my.host.com","message":"Hello world","timestamp":"2020-11-01T21:15:47+00:00"}), CONSTRUCTED around a line
    return json.dumps({"file": "/var/log/trainer.log", "host": "gpu-node-7", "message": line, "source_type": "file",
                       "timestamp": f"2026-12-05T11:22:0{i}.735196Z"}, separators=(",", ":"))


def _records(rows: list[str], form: str) -> str:
    if form == "csv":  # a log search's CSV export (Kibana's Generate CSV: the fields' names, then RFC 4180 rows)
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["@timestamp", "message"])
        w.writerows([[f"Dec 5, 2026 @ 11:22:0{i}.735", ln] for i, ln in enumerate(rows)])
        return out.getvalue()
    if form == "array":  # a JSON array of records (a log search's JSON export), pretty-printed
        return json.dumps([json.loads(_vector(ln, i)) for i, ln in enumerate(rows)], indent=2) + "\n"
    if form == "pretty":  # journalctl -o json-pretty: one record after another, each over several lines
        return "".join(json.dumps(json.loads(_journal(ln, i)), indent=4) + "\n" for i, ln in enumerate(rows))
    wrap = {"fluentbit": _fluentbit, "vector": _vector}[form]
    return "".join(wrap(ln, i) + "\n" for i, ln in enumerate(rows))


@pytest.mark.parametrize("layout", ["own_file", "same_file"])
@pytest.mark.parametrize("form", ["fluentbit", "vector", "csv", "array", "pretty"])
def test_a_log_shippers_records_holding_a_failure_are_never_set_aside(ruleset, tmp_path, layout, form):
    """Wild sweep L8 (bench/plant_prefix_probe.py, prefixes fluentbit_json / vector_json / csv_export): a log line inside
    records no reader reads (Fluent Bit's "log", Vector's "message", a CSV export's cell, json-pretty's MESSAGE) beside a
    healthy nvidia-smi -q. Harvest 800's real Fabric rows (Azure/azhpc-images#506: 'Status : Insufficient Resources')
    name no error word: such a file was 'uninformative' and counted for nothing, so the bundle read HEALTHY. Now a
    file of records whose values a reader would claim, or which hold an error word, is not recognised: never HEALTHY."""
    rows = (next((ROOT / "fixtures" / "harvest" / "cases").glob("800-*/nvidia-smi-q.txt")).read_text()
            .splitlines()[2:4])
    rep = diagnose_bundle(_plant(tmp_path, layout, "shipped.log", _records(rows, form)), ruleset, jobs=1)
    assert rep.verdict != "healthy", (rep.reason, [f.summary for f in rep.findings])


@pytest.mark.parametrize("layout", ["own_file", "same_file"])
@pytest.mark.parametrize("form", ["fluentbit", "vector", "csv", "array", "pretty"])
def test_a_log_shippers_records_are_read_as_the_bare_lines(ruleset, tmp_path, layout, form):
    """Wild sweep M2 (bench/plant_prefix_probe.py, rL8's prefixes: 159 of 1,280 diagnoses differed from the bare lines',
    all inconclusive): the records of the test above were only recognised. Now each record's line ("log", "message",
    "line", a CSV export's line column, a pretty-printed record's line member) is read as the line (facts/lines.py):
    harvest 800's real Fabric rows (Azure/azhpc-images#506) read as they do bare, the same verdict and findings."""
    rows = (next((ROOT / "fixtures" / "harvest" / "cases").glob("800-*/nvidia-smi-q.txt")).read_text()
            .splitlines()[2:4])
    got = []
    for text in (_records(rows, form), "".join(ln + "\n" for ln in rows)):
        rep = diagnose_bundle(_plant(tmp_path / str(len(got)), layout, "shipped.log", text), ruleset, jobs=1)
        got.append((rep.verdict, sorted(f.rule for f in rep.findings if f.severity in ("critical", "warning"))))
    assert got[0] == got[1], got
    assert got[0][0] != "healthy", got


def test_a_records_host_is_the_node_of_its_line(ruleset, tmp_path):
    """Vector's host (and Fluent Bit's kubernetes.host, the journal's _HOSTNAME: facts/lines.record_hosts) names the node
    a record's line came from: PyTorch's CUDA error (the form cudaGetErrorString gives it) in two hosts' records is each
    host's finding, read host by host as pdsh's hosts are (before: one finding of the bundle folder's node). One host's
    records in a file the bundle places keep the file's node, as one pdsh host's label does (facts/lines.text_host)."""
    err = "RuntimeError: CUDA error: an illegal memory access was encountered"
    b = tmp_path / "b"
    b.mkdir()
    (b / "shipped.log").write_text(_vector(err, 0) + "\n" + _vector(err, 1).replace("gpu-node-7", "gpu-node-8") + "\n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", rep.reason
    nodes = {f.entity.node for f in rep.findings if f.severity in ("critical", "warning")}
    assert nodes == {"gpu-node-7", "gpu-node-8"}, [(f.rule, f.entity) for f in rep.findings]
    (b / "shipped.log").write_text(_vector(err, 0) + "\n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert {f.entity.node for f in rep.findings if f.severity in ("critical", "warning")} == {"b"}


@pytest.mark.parametrize("text", [
    # a DeepSpeed config (its documented keys) and a package.json: no time key, no record
    '{"train_batch_size": 32, "fp16": {"enabled": true}, "zero_optimization": {"stage": 2}, "wall_clock_breakdown": false}\n',
    '{"name": "trainer-ui", "version": "1.0.0", "scripts": {"test": "jest"}, "description": "fails fast"}\n',
    # records of ordinary lines: no line a reader claims, no error word
    "".join(_fluentbit(ln, i) + "\n" for i, ln in enumerate(["collected by the on-call", "see the ticket for the timeline"])),
    "@timestamp,message\nDec 5, 2026 @ 11:22:00.735,collected by the on-call\n",
])
def test_records_or_configs_holding_no_log_line_stay_uninformative(ruleset, tmp_path, text):
    """Must not (round rL8): a JSON config (no time key: no record) and records of ordinary lines stay uninformative:
    the node folder holding only such a file still checks nothing of its node, nothing else changes."""
    b = _copy(tmp_path, A)
    (b / "node2").mkdir()
    (b / "node2" / "records.json").write_text(text)
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert [(u.path, u.node) for u in rep.coverage.uninformative] == [("node2/records.json", "node2")], rep.reason
    assert rep.coverage.unrecognised == []


def test_a_node_folder_holding_only_files_of_no_use_checks_nothing_of_that_node(ruleset, tmp_path):
    # node2's folder holds a note nobody's reader knows and in which no line names a GPU, an
    # error or a job: it is listed as uninformative, and node2 was not checked (it was HEALTHY)
    b = _copy(tmp_path, A)
    (b / "node2").mkdir()
    (b / "node2" / "notes.txt").write_text("collected by the on-call\nsee the ticket for the timeline\n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert [(u.path, u.node) for u in rep.coverage.uninformative] == [("node2/notes.txt", "node2")]
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert "node2: node2/notes.txt" in rep.reason


@pytest.mark.parametrize("pack", ["folder", "tar.gz", "zip"])
def test_a_node_folder_with_no_file_is_a_missing_signal(ruleset, tmp_path, pack):
    # the collector made node2's folder and got nothing from node2: its GPUs were never looked at
    b = _copy(tmp_path, A)
    (b / "node2").mkdir()
    if pack == "tar.gz":
        with tarfile.open(tmp_path / "b.tar.gz", "w:gz") as tf:
            tf.add(b, arcname="bundle")
        b = tmp_path / "b.tar.gz"
    elif pack == "zip":
        with zipfile.ZipFile(tmp_path / "b.zip", "w") as z:
            for p in sorted(b.rglob("*")):
                z.write(p, "bundle/" + p.relative_to(b).as_posix())
        b = tmp_path / "b.zip"
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert {s.path: s.reason for s in rep.coverage.skipped} == {"node2": "empty folder: nothing was collected into it"}


def test_a_kernel_log_without_the_nvidia_driver_checks_no_gpu(ruleset, tmp_path):
    # the boot banner is a fact, but the log says nothing of any GPU: the driver never loaded,
    # or its lines rotated out of the ring buffer
    b = _copy(tmp_path, B)
    for f in (b / "vm").iterdir():
        if f.name != "dmesg.txt":
            f.unlink()
    p = b / "vm" / "dmesg.txt"
    p.write_text("".join(ln for ln in p.read_text().splitlines(keepends=True)
                         if "NVRM" not in ln and "nvidia" not in ln.lower()))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert rep.checked == []


# --- an output cut short, GPUs left out ----------------------------------------------------

def test_nvidia_smi_q_cut_inside_a_gpu_block_is_incomplete(ruleset, tmp_path):
    b = _copy(tmp_path, B)
    p = b / "vm" / "nvidia-smi-q.txt"
    lines = p.read_text().splitlines(keepends=True)
    cut = next(n for n, ln in enumerate(lines) if "ECC Errors" in ln) + 3
    p.write_text("".join(lines[:cut]))  # nvidia-smi killed while it hangs on a sick GPU
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "capture(s) incomplete" in rep.reason and f"vm/nvidia-smi-q.txt:{cut}:" in rep.reason
    assert [h.limit for h in rep.coverage.limits] == ["cut_short"]


def test_nvidia_smi_q_showing_fewer_gpus_than_attached_is_incomplete(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    text = p.read_text()
    p.write_text(text[: text.index("GPU 00000000:00:07.0")])  # "Attached GPUs : 2", one block
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "says 2 GPU(s) are attached and shows 1" in rep.reason


def test_nvidia_smi_q_of_one_gpu_asked_with_i_is_complete(ruleset, tmp_path):
    # near miss: "$ nvidia-smi -q -i 1" pasted with its command shows one GPU of the eight attached
    b = tmp_path / "bundle" / "node1"
    b.mkdir(parents=True)
    shutil.copy(ART / "nvidia_smi_q" / "v100_r470_q_i1.txt", b / "nvidia-smi-q.txt")
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


@pytest.mark.parametrize("field, value", [("GPU Current Temp", "Unknown Error"), ("Graphics", "GPU is lost")])
def test_a_field_nvidia_smi_failed_to_query_is_never_silent(ruleset, tmp_path, field, value):
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    text = p.read_text()
    i = text.index("GPU 00000000:00:07.0")
    p.write_text(text[:i] + re.sub(rf"(        {field}\s+: ).*", rf"\g<1>{value}", text[i:], count=1))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert any(f"could not read it ('{value}')" in f.summary for f in rep.findings), [f.summary for f in rep.findings]


def test_a_field_the_operating_system_refused_nvidia_smi_is_never_healthy_nor_the_gpus_fault(ruleset, tmp_path):
    # nvmlErrorString(NVML_ERROR_OPERATING_SYSTEM) for one field (WSL2, a device cgroup, gVisor's nvproxy without the
    # call: google/gvisor pull request 10676's 'ECC Mode / Current : GPU access blocked by the operating system'): what the
    # field holds was not checked (a capture limit), and no error of the GPU is claimed
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    text = p.read_text()
    i = text.index("GPU 00000000:00:07.0")
    p.write_text(text[:i] + re.sub(r"(        GPU Current Temp\s+: ).*", r"\g<1>GPU access blocked by the operating system",
                                   text[i:], count=1))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", (rep.reason, [f.summary for f in rep.findings])
    assert [h.limit for h in rep.coverage.limits] == ["query_refused"]
    assert "the operating system refused nvidia-smi the query" in rep.reason
    assert not [f for f in rep.findings if f.rule == "unexplained_error"]


def test_nvidia_smi_table_cut_inside_a_gpu_block_is_incomplete(ruleset, tmp_path):
    # gpu-operator#1982's excerpt: two clean A40 rows, the text ending in GPU 1's block before its border
    b = tmp_path / "bundle" / "node1"
    b.mkdir(parents=True)
    src = ART / "nvidia_smi_table" / "gpuoperator1982_r560_a40_cut_in_gpu1.txt"
    shutil.copy(src, b / "nvidia-smi.txt")
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and "node1/nvidia-smi.txt:15:" in rep.reason, rep.reason
    # near miss: the same table with its closing bar and border is read whole
    (b / "nvidia-smi.txt").write_text(src.read_text().rstrip() + " |\n+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+\n")
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


@pytest.mark.parametrize("rel, cut, rest", [
    # mlcommons/algorithmic-efficiency#572: two idle 2080 Ti, GPU 1's MIG row cut at its second cell's bar
    ("nvidia_smi_table/mlcommons572_r535_2080ti_cut_in_mig_row.txt", None,
     "                  N/A |\n+-----------------------------------------+----------------------+----------------------+\n"),
    # lucidrains/flash-cosine-sim-attention#4: GPU 1 of eight A100s, its MIG row cut at its first cell's bar
    ("nvidia_smi_table/flashcos4_r470_a100_cut_in_mig_row.txt", None,
     "                      |             Disabled |\n+-------------------------------+----------------------+----------------------+\n"),
    # deepspeedai/DeepSpeedExamples#310 (wild sweep 86): GPU 0 of eight A100s training, the border after its block
    # cut before its closing '+'
    ("nvidia_smi_table/dsexamples310_r470_a100_cut_in_border.txt", None, "-------------+\n"),
])
def test_a_table_cut_inside_its_last_row_is_incomplete(ruleset, tmp_path, rel, cut, rest):
    # wild sweep 70 (healthy controls): each read HEALTHY, 'checked: gpu, driver', from the rows above the cut
    b = tmp_path / "bundle" / "node1"
    b.mkdir(parents=True)
    text = (ART / rel).read_text()
    (b / "paste.txt").write_text(text)
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and "node1/paste.txt:" in rep.reason and "ends inside" in rep.reason, rep.reason
    (b / "paste.txt").write_text((text[:text.rindex(cut)] if cut else text.rstrip()) + rest)
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


def test_a_dcgmi_table_cut_inside_its_last_row_is_incomplete(ruleset, tmp_path):
    # wild sweep 70: a dcgmi diag table whose paste stops inside a row ('| CUDA', NVIDIA/autopilot#68's
    # table cut there: its result, its closing bar and the tests after it not shown) read HEALTHY, 'checked: gpu, driver'
    b = tmp_path / "bundle" / "node1"
    b.mkdir(parents=True)
    text = (ART / "dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt").read_text()
    (b / "paste.txt").write_text(text[:text.rindex(" Main Library")])
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and "node1/paste.txt:" in rep.reason and "ends inside" in rep.reason, rep.reason


def test_nccl_tests_table_without_its_footer_is_incomplete(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    p = b / "vm" / "allreduce.txt"
    lines = p.read_text().splitlines(keepends=True)
    stop = next(n for n, ln in enumerate(lines) if ln.strip().startswith("1048576 "))
    p.write_text("".join(lines[:stop]))  # the run died at 1 MiB
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "vm/allreduce.txt" in rep.reason and "stops after 524288 bytes without its footer" in rep.reason


# --- near misses: alarming words on healthy runs -------------------------------------------

def test_nccl_net_plugin_fallback_info_lines_stay_healthy(ruleset, tmp_path):
    # NCCL 2.18's forms of "no external net plugin" (nccl-tests#188, nccl#1126: "harmless"),
    # worded with "cannot open" and "No plugin found": INFO lines, read and benign
    b = _copy(tmp_path, A)
    p = b / "vm" / "rank0.log"
    extra = ("vm:1708:1708 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: "
             "cannot open shared object file: No such file or directory\n"
             "vm:1708:1708 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation\n")
    text = p.read_text()
    mark = "vm:1708:1708 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so\n"
    p.write_text(text.replace(mark, mark + extra, 1))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


def test_panic_settings_in_a_healthy_log_stay_healthy(ruleset, tmp_path):
    # the real dmesg's "Command line: ... panic=1" is a setting, not a panic
    b = _copy(tmp_path, B)
    assert "panic=1" in (b / "vm" / "dmesg.txt").read_text()
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


def test_torchrun_closing_its_workers_is_never_healthy(ruleset, tmp_path):
    # torchrun's agent signals only the workers still running when the group stops before it
    # finished (torch/distributed/elastic/multiprocessing/api.py _close: a worker failed, or the
    # agent was stopped); a run that completes never prints it (this test took it for a
    # shutdown notice until rule torch_agent_closing_workers read it)
    b = _copy(tmp_path, B)
    _append(b / "vm" / "torch-allreduce.log",
            "W1129 20:28:40.001000 1668 torch/distributed/elastic/multiprocessing/api.py:897] "
            "Sending process 1709 closing signal SIGTERM\n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict != "healthy", (rep.reason, [f.summary for f in rep.findings])
    assert "torch_agent_closing_workers" in [f.rule for f in rep.findings]


def test_na_values_are_unsupported_fields_not_failures(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    p.write_text(p.read_text().replace("Chassis Serial Number                          : N/A",
                                       "Chassis Serial Number                          : [N/A]"))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


MEGATRON_OK = (  # deepspeedai/Megatron-DeepSpeed#434: a step's line, "number of nan iterations: 0" is a count
    " iteration        9/      10 | consumed samples:          108 | consumed tokens:       442368 | elapsed time per "
    "iteration (ms): 1979.2 | learning rate: 4.219E-07 | global batch size:    12 | loss scale: 1.0 | actual seqlen:  4096 "
    "| number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: 6.063 | tokens per gpu per "
    "second (tgs): 2069.506 | TFLOPs: 127.00 |\n")


@pytest.mark.parametrize("where, tail", [
    ("vm/rank0.log", DPG_WARNING),
    # NCCL's INFO lines that say "Failed"/"failed" (the h200 captures): read, benign
    ("vm/rank0.log", "vm:1708:1708 [0] NCCL INFO Failed to initialize NET plugin IB\n"
                     "vm:1708:1708 [0] NCCL INFO dlvsym failed on mlx5dv_reg_dmabuf_mr - /lib/x86_64-linux-gnu/libmlx5.so: "
                     "undefined symbol: mlx5dv_reg_dmabuf_mr, version MLX5_1.25 version MLX5_1.25\n"),
    ("vm/rank0.log", MEGATRON_OK),
    ("vm/megatron.log", MEGATRON_OK),
], ids=["benign_warning", "nccl_info_failed", "nan_count_in_log", "nan_count_alone"])
def test_benign_mentions_of_failure_stay_healthy(ruleset, tmp_path, where, tail):
    b = _copy(tmp_path, A)
    p = b / where
    p.write_text((p.read_text() if p.exists() else "") + tail)
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


def test_a_sign_steth_cannot_judge_is_no_evidence_of_health(ruleset, tmp_path):
    """NVML's line that every NVLink is inactive, with no GPU product named (harvest 131's real
    line), beside a healthy nvidia-smi -q: the link may or may not be wired, so the verdict is
    inconclusive and says so (knowledge/coverage.yaml unjudged_rules), never healthy."""
    from stethoscope.engine.knowledge import load_verdict_policy

    assert set(load_verdict_policy().unjudged_rules) <= {r.id for r in ruleset.rules}
    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / "nvml.txt").write_text("NVML:Unable to retrieve Nvlink information as all links are inActive\n")
    rep = diagnose_bundle(bundle, ruleset)
    assert rep.verdict == "inconclusive" and "could not judge" in (rep.reason or "")


def test_a_failure_said_only_by_the_logger_level_a_wrapper_carried_is_read(ruleset, tmp_path):
    # DeepSpeed's launcher logs a rank's non-zero exit at ERROR level; facts/lines.py takes the
    # '[date] [ERROR] ' logger prefix off, and the message left ('... exits with return code = 1')
    # says no failure word (was INCONCLUSIVE, 'recognised but not read'; then the unread-failure
    # scan's error on the raw line): launcher_exit reads the record itself (round rQ3)
    b = tmp_path / "bundle"
    b.mkdir()
    (b / "launcher.log").write_text(
        "[2024-03-01 10:00:00,123] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 1234\n"
        "[2024-03-01 10:00:00,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', "
        "'--local_rank=7'] exits with return code = 1\n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", rep.reason
    top = rep.findings[0]
    assert top.rule == "launcher_process_exited_nonzero" and "exit code 1" in top.summary and top.evidence[0].line == 2
    assert top.evidence[0].text.startswith("[2024-03-01 10:00:00,123] [ERROR]")  # the line as read


@pytest.mark.parametrize("line", ["RuntimeError: CUDA error: device not ready",
                                  "torch.cuda.CudaError: CUDA error: driver shutting down",
                                  "RuntimeError: CUDA error: peer access is already enabled"])
def test_a_cuda_status_that_is_a_consequence_raised_as_an_error_is_never_healthy(ruleset, tmp_path, line):
    """The CUDA catalogue rates these statuses info (a consequence of something else, never a cause):
    raised as an error, what stopped the program is not shown, so the verdict is inconclusive and
    names it (rule cuda_error_consequence, knowledge/coverage.yaml unjudged_rules); it was healthy."""
    (tmp_path / "n1").mkdir()
    (tmp_path / "n1" / "app.log").write_text(line + "\n")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", (rep.reason, [f.summary for f in rep.findings])
    assert [f.rule for f in rep.findings] == ["cuda_error_consequence"]


@pytest.mark.parametrize("reader, name", [
    # the panel lists the work on the GPUs (or none), not their state: real pastes of the panel
    # alone (NVIDIA/nvidia-docker#1460, our H200 host's) say nothing a healthy verdict could rest on
    ("nvidia_smi_table", "nvidia_docker1460_empty_process_panel.txt"), ("nvidia_smi_table", "h200_r580_no_processes.txt"),
    # NVIDIA/dcgm-exporter#144: a host engine's start-up DEBUG/INFO lines (the engine then not running) read
    # HEALTHY with 'checked: gpu'; DCGM's process log holds a verdict on a GPU only in an error or a health
    # incident (DCGM#272's two nvvs DEBUG lines likewise)
    ("dcgm_log", "dcgmexporter144_hostengine_startup_debug.log"), ("dcgm_log", "dcgm272_nvvs_debug.log")])
def test_a_file_that_shows_no_gpu_state_alone_checks_no_gpu(ruleset, tmp_path, reader, name):
    shutil.copy(ART / reader / name, tmp_path / "capture.txt")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert rep.checked == []


def test_nccl_info_lines_that_never_reach_init_complete_are_no_healthy_nccl(ruleset, tmp_path):
    # vllm-project/vllm#6370: a job hung in NCCL's init; the paste ends at 'Using network Socket'
    # (a log cut there reads the same): NCCL was not seen working
    shutil.copy(ART / "nccl_log" / "vllm6370_init_never_completes.log", tmp_path / "log.txt")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert "Init COMPLETE" in (rep.reason or "")
    assert any(h.limit == "cut_short" and h.path == "log.txt" for h in rep.coverage.limits)


def test_nccl_tests_run_that_printed_only_its_nthread_line_is_no_pass(ruleset, tmp_path):
    # NVIDIA/nccl#340 ("NCCL 2.6.4 makes system hanging"): an all_reduce table's tail and footer,
    # then broadcast_perf's command and nThread line where the paste ends: the finished run does
    # not make the file a pass while the next one printed nothing (hung, or cut)
    shutil.copy(ART / "nccl_tests" / "nccl340_table_tail_then_nthread_only.txt", tmp_path / "log.txt")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert any(h.limit == "cut_short" and h.path == "log.txt" and h.line == 17 for h in rep.coverage.limits)


@pytest.mark.parametrize("name", ["volcano42_startup_cut.log", "hami452_startup_flags_cut.log"])
def test_a_device_plugin_startup_log_cut_before_its_failure_is_no_healthy_plugin(ruleset, tmp_path, name):
    # volcano-sh/devices#42 (a panic), Project-HAMi/HAMi#452 (CrashLoopBackOff on NVML ERROR_UNKNOWN):
    # the pastes end in the plugin's lifecycle lines; the reader names the file, the file checks nothing
    shutil.copy(ART / "k8s_device_plugin" / name, tmp_path / "device-plugin.log")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict != "healthy", [f.summary for f in rep.findings]
    assert rep.checked == []


@pytest.mark.parametrize("lines", [None, 10])
def test_torchruns_banner_alone_checks_no_job(ruleset, tmp_path, lines):
    # pytorch/pytorch#73656 (JUWELS): torchrun's banner ('run.py:792] Setting OMP_NUM_THREADS ...') and
    # c10d's IPv6 socket warning (benign), then nothing of the job; its first 10 lines are the banner alone.
    # Neither shows the job ran, failed or finished: the PyTorch log checks nothing (knowledge/coverage.yaml)
    text = (ART / "torch_log" / "torch73656_socket_ipv6_errno97_juwels.log").read_text()
    if lines:
        text = "".join(text.splitlines(keepends=True)[:lines])
    (tmp_path / "run_log.txt").write_text(text)
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert rep.checked == []


def test_a_pytorch_log_that_shows_a_failure_still_checks_the_job(ruleset, tmp_path):
    # vllm-project/vllm#4062: the NCCL error torch read makes the file a check of the job
    shutil.copy(ART / "torch_log" / "vllm4062_topology_reverse_path.log", tmp_path / "log.txt")
    rep = diagnose_bundle(tmp_path, ruleset, jobs=1)
    assert rep.verdict == "faulty"
    assert {c.component for c in rep.checked} >= {"application", "nccl"}


PROSE = ROOT / "fixtures" / "harvest" / "cases"


@pytest.mark.parametrize("case", ["2405-healthy-dcgm-diag-pcie-width-46-on-instance-with-reduced-lanes-by-design",
                                  "2407-healthy-dcgmi-injected-double-bit-ecc-not-seen-by-nvidia-smi"])
def test_a_reporters_sentence_that_tells_of_an_error_is_a_claim(ruleset, tmp_path, case):
    # aws/aws-k8s-tester#806 ('... the sub-test fails with DCGM_FR_PCIE_WIDTH (error 46) even though the GPU is healthy.'),
    # NVIDIA/DCGM#126 ('But if I use the command ... to check error, the ECC count will not change.'): healthy controls
    # of prose alone read FAULTY (an unexplained error). The reporter's words are a claim: inconclusive, the sentence quoted
    (tmp_path / "b").mkdir()
    shutil.copy(PROSE / case / "other-quoted-in-text.txt", tmp_path / "b" / "ticket.txt")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert [f.rule for f in rep.findings] == ["reported_symptom_unjudged"]
    # near miss: a program's last words in the same file of prose are read as an error nobody explains
    # (glibc's malloc check, pytorch/pytorch#148954)
    _append(tmp_path / "b" / "ticket.txt", "double free or corruption (out)\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "faulty" and "double free or corruption (out)" in _cited(rep), [f.summary for f in rep.findings]


@pytest.mark.parametrize("line", [
    # harvest 118's nvtop line (Syllo/nvtop#6): an idle GPU's link trained down to Gen 1, full width
    "Device 1 [GeForce GTX 1080 Ti] _**PCIe GEN 1@16x**_ ",
    # the same form at x4: nvtop prints no maximum, so a link degraded to x4 is not told from a full one
    "Device 1 [GeForce GTX 1080 Ti] PCIe GEN 3@4x",
])
def test_nvtop_current_link_checks_the_gpu_not_pcie(ruleset, tmp_path, line):
    # session 23's fragment audit: the device line alone read HEALTHY, 'checked: gpu, pcie'; nvtop shows the link's current
    # generation and width, never its maximum, and no rule judges them: the GPU enumerated is checked, PCIe is not
    assert line.split(" PCIe")[0] in (ART / "../harvest/cases/118-healthy-nvtop-pcie-gen1-at-idle/other.txt").read_text()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "other.txt").write_text(line + "\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    checked = {c.component for c in rep.checked}
    assert "pcie" not in checked and "gpu" in checked, (rep.verdict, checked)


def test_ollama_runner_exit_lines_alone_are_not_healthy(ruleset, tmp_path):
    # ollama/ollama#9562's server lines without the runner's own error before them: an echo of nothing read, so
    # they are the failure (ollama_runner_exit is an echo kind: silent only beside its file's reported failure)
    tail = ('2025-03-06 23:36:39 time=2025-03-07T05:36:39.884Z level=ERROR source=server.go:421 '
            'msg="llama runner terminated" error="exit status 2"\n'
            '2025-03-06 23:36:40 time=2025-03-07T05:36:40.016Z level=ERROR source=sched.go:456 msg="error loading llama s\n')
    _faulty_quoting(ruleset, tmp_path, "vm/ollama.log", tail, "llama runner terminated")


def test_gpustat_gpu_it_could_not_query_is_not_healthy(ruleset, tmp_path):
    # gpustat 1.1.1's own line for a GPU whose handle NVML refused (InvalidGPU(2, "((GPU is lost))", e)), after
    # wookayin/gpustat#130's healthy header and line: the other GPUs answer, this one is lost
    tail = ("gpu-a-11.extreme         Mon Aug 22 15:23:57 2022  515.65.01\n"
            "[0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |\n"
            "[2] ((GPU is lost))  |  ?°C,   ? % |     ? /     ? MB | (Not Supported)\n")
    _faulty_quoting(ruleset, tmp_path, "vm/gpustat.txt", tail, "((GPU is lost))")


def test_nhcs_own_pass_lines_are_no_health_claim_and_its_warning_is_not_silent(ruleset, tmp_path):
    # Azure NHC's pass lines (Azure/azurehpc-health-checks#152: every port's ib_write_bw passed at ~400 Gbps) read as
    # nhc, which checks nothing: NHC's pass is its own claim; its 'Nearing a failure threshold' warning (CONSTRUCTED from
    # customTests/azure_common.nhc's warning(); no public paste seen) is a warning nobody explains, never silent
    (tmp_path / "b").mkdir()
    shutil.copyfile(ART / "nhc/azurehpc152_ib_write_bw_passed.txt", tmp_path / "b" / "nhc.log")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and not rep.findings, (rep.verdict, [f.summary for f in rep.findings])
    warn = ("WARNING:  nhc:  Nearing a failure threshold:  check_gpu_bw: H2D test on GPU 3 has a bandwidth of 24.1 GB/s. "
            "Expected threshold 23 GB/s.")
    _append(tmp_path / "b" / "nhc.log", warn + "\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "faulty" and warn in _cited(rep), (rep.verdict, [f.summary for f in rep.findings])


def test_an_nhc_failure_under_nhcs_debug_timestamp_is_not_silent(ruleset, tmp_path):
    # Azure/azurehpc-health-checks#72: '[1705939176] - ERROR:  nhc:  Health check failed:  check_all_reduce_dependencies: ...'
    # (nhc -d prefixes '[$SECONDS] - '): claimed by the nhc reader's signature and read as nothing, the verdict INCONCLUSIVE
    # with no finding; a failed check is never silent
    (tmp_path / "b").mkdir()
    shutil.copyfile(ART / "nhc/azurehpc72_nhc_debug_timestamps.txt", tmp_path / "b" / "health.txt")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "faulty" and any("HPCX_DIR is not set" in t for t in _cited(rep)), \
        (rep.verdict, [f.summary for f in rep.findings])


def test_an_nhc_failure_in_the_syslog_is_its_nodes_failure(ruleset, tmp_path):
    # round rM2, CONSTRUCTED from mej/nhc's syslog_flush ('logger -p daemon.err -t "$NAME[$PID]"' of die()'s
    # 'Health check failed:  $*'): the journal's prefix off, the bare words were read as a reporter's remark
    # (INCONCLUSIVE); now NHC's failed check, on the host the syslog line names
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "messages").write_text(
        "Jan 22 16:19:36 gpuu20-1 nhc[39359]: Health check failed:  check_hw_ib:  No IB port mlx5_0:1 is ACTIVE "
        "(LinkUp 200 Gb/sec).\n")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "faulty" and {f.entity.node for f in rep.findings} == {"gpuu20-1"}, \
        (rep.verdict, [f.summary for f in rep.findings])
