"""unrecognised_text.unread_failures: the failure lines of a recognised file that no fact cites."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.unrecognised_text import unread_failures

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/torch_log"


def _lines(text: str) -> list[tuple[int, str]]:
    return [(f.evidence.line, f.message) for f in unread_failures(Artefact(path="t.log", text=text, node="n"), set()).facts]


def test_a_logger_record_over_many_lines_is_one_failure_at_its_exception():
    # PyTorch's logger (TorchLogsFormatter) prefixes each of the record's 8 lines alike
    got = _lines((FIX / "nvres18_elastic_logger_traceback.log").read_text())
    assert len(got) == 1
    assert got[0][0] == 6 and got[0][1].endswith("torch.multiprocessing.spawn.ProcessRaisedException:")


def test_records_of_other_prefixes_stay_apart():
    # the real record of nccl#1504 (api.py:869) beside a line of another record (api.py:732): two failures
    text = ("E1106 04:43:02.651000 26021 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
            "(exitcode: -6) local_rank: 3 (pid: 26026) of binary: /root/miniconda3/envs/pippy/bin/python\n"
            "E0228 00:35:58.954000 724855 site-packages/torch/distributed/elastic/multiprocessing/api.py:732]     self._pc.join(-1)\n")
    assert [n for n, _ in _lines(text)] == [1, 2]


def _unrecognised(text: str) -> list[tuple[int, str]]:
    from stethoscope.facts.parsers.unrecognised_text import parse
    return [(f.evidence.line, f.message) for f in parse(Artefact(path="t.log", text=text, node="n")).facts]


def test_a_count_of_no_failures_is_no_error_line():
    # kubeflow/trainer#2008: the operator's status line ("failed=0") is not a failure; its event for the pod is
    text = ('time="2024-02-21T09:30:56Z" level=info msg="PyTorchJob=pytorch-simple, ReplicaType=Worker expected=1, '
            'running=1, succeeded=0, failed=0, Replicas=1"\n'
            '1.708507856644096e+09\tDEBUG\tevents\tError pod pytorch-simple-worker-0 container pytorch exitCode: 1 '
            'terminated message: \t{"type": "Warning"}\n')
    assert [n for n, _ in _unrecognised(text)] == [2]
    # a count that is not zero stays an error line
    assert [n for n, _ in _unrecognised("Summary: passed=3, failed=2\n")] == [1]


# c10's backtrace under PyTorch's C++ errors (c10/util/Exception.cpp: "Exception raised from <function> at
# <file>:<line> (most recent call first):", then "frame #N: ..." lines): fixtures/artefacts/torch_log/verl316_*
# (verl-project/verl#316, the block without its message) and sgl-project/sglang#3892's watchdog message above it
_C10 = (FIX / "verl316_c10_backtrace_without_its_message.log").read_text()
_WATCHDOG = ("[rank3]:[E226 13:18:21.063621914 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 3] Process group "
             "watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
             "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


def _unrecognised_normalised(text: str):
    from stethoscope.facts.parsers.unrecognised_text import parse
    art = Artefact(path="t.log", text=text, node="n")
    art.normalise()
    res = parse(art)
    return [(f.evidence.line, f.message) for f in res.facts], res.lines_used


def test_c10_backtrace_under_its_message_is_its_context():
    got, used = _unrecognised_normalised(_WATCHDOG + _C10)
    assert [n for n, _ in got] == [1]  # the message; no frame ("c10::Error::Error") and no header of its own
    assert used == 1 + 6  # the message, the header and its five frames


def test_c10_backtrace_without_its_message_is_told_once_by_its_header():
    got, used = _unrecognised_normalised(_C10)
    assert [(n, m.startswith("Exception raised from c10_cuda_check_implementation")) for n, m in got] == [(2, True)]
    assert used == 6


def test_frames_without_c10s_header_and_a_traceback_without_its_exception_stay_error_lines():
    # no header: a "frame #0: ... Error ..." line is not known to be c10's
    got, _ = _unrecognised_normalised("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in libc10.so)\n")
    assert [n for n, _ in got] == [1]
    # a Python traceback is told by its exception line; cut before it (Megatron-LM#942's paste), it is a capture cut
    # short (a cut_short limit, test_a_traceback_cut_before_its_exception_line_is_a_cut_capture), no error line
    tb = 'Traceback (most recent call last):\n  File "train.py", line 10, in <module>\n    out = model(x)\n'
    assert [n for n, _ in _unrecognised_normalised(tb + "RuntimeError: boom\n")[0]] == [4]
    assert [n for n, _ in _unrecognised_normalised(tb)[0]] == []


def test_terminate_and_its_what_line_are_one_failure():
    # NVIDIA/TensorRT-LLM#1826 (the path cut here): libstdc++'s terminate handler, then "  what():  "
    text = ("terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'\n"
            "  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /home/jenkins/agent/workspace/LLM/main/"
            "L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/common/mpiUtils.cpp:211 '6'\n")
    got = _unrecognised(text)
    assert len(got) == 1 and got[0][0] == 1 and "what():  [TensorRT-LLM][ERROR] Assertion failed" in got[0][1]


def test_a_docker_daemon_refusal_in_a_recognised_file_is_a_failure():
    # NVIDIA/nvidia-docker#1642: the Docker client's "Error response from daemon: %s" (moby client/request.go)
    # below the docker run line that another reader reads; the refusal's own words are no reader's form here
    text = ("docker run --rm --gpus all nvidia/cuda:11.0-base nvidia-smi\n\nI get following error; \n"
            "docker: Error response from daemon: could not select device driver with capabilities: [[gpu]].\n")
    assert [n for n, _ in _lines(text)] == [4]
    # the daemon's name alone, or a line about the daemon without its refusal, is no failure
    assert _lines("Cannot connect to the Docker daemon? see docs\nresponse from daemon: ok\n") == []


def test_a_commands_stream_tagged_output_keeps_its_level_first():
    # Chef's / Cinc's report of a command that failed (mixlib-shellout format_for_exception: "STDOUT: ...", "STDERR: ...",
    # each stream stripped): the stream's tag hid "Error: " first, so the line alone read as a reporter's remark
    # (INCONCLUSIVE) and the same line in a recognised file's run an unexplained error (round rN4's probe, harvest 1602)
    from stethoscope.facts.parsers.unrecognised_text import FAILURE_WORDS
    line = next(HARVEST.glob("1602-*/app.txt")).read_text().splitlines()[0]
    assert line.startswith("STDERR: Error: ") and FAILURE_WORDS.search(line)
    assert [n for n, _ in _lines("nvidia-smi -q\n\n" + line + "\n")] == [3]
    # must not: a stream's tag before words of no failure, or "error" inside the command's line, is no failure
    for quiet in ("STDOUT: Error reporting is enabled", "STDERR: ", "STDOUT: 0 errors: none", "STDERRS: Error: x"):
        assert FAILURE_WORDS.search(quiet) is None, quiet


# --- a structured line's own level (knowledge/coverage.yaml quiet_levels) -------------------------------------

HARVEST = Path(__file__).resolve().parents[2] / "fixtures/harvest/cases"
# NVIDIA/NVSentinel#1358 (harvest 1308): the preflight check's JSON lines, "level": "error" then "level": "info"
NVSENTINEL = next(HARVEST.glob("1308-*/app.txt")).read_text().splitlines()
# 1Panel-dev/1Panel#13898: dockerd's logfmt under journald, an info line whose error= field quotes modprobe's FATAL
DOCKERD_INFO = ('Sep 22 10:29:42 ubuntu dockerd[5777]: time="2026-09-22T10:29:42.906553866Z" level=info msg="skip loading '
                'plugin \\"io.containerd.snapshotter.v1.aufs\\"..." error="aufs is not supported (modprobe aufs failed: exit '
                'status 1 \\"modprobe: FATAL: Module aufs not found in directory /lib/modules/6.8.0-100-generic\\\\n\\"): skip '
                'plugin" type=io.containerd.snapshotter.v1')
# Thinstation/thinstation#724: the same daemon in logrus's text form on a terminal: INFO, then a WARN
LOGRUS_INFO = ('INFO[2022-05-17T15:16:28.026005544-07:00] skip loading plugin "io.containerd.snapshotter.v1.aufs"...  '
               'error="aufs is not supported (modprobe aufs failed: exit status 1 \\"modprobe: FATAL: Module aufs not found '
               'in directory /lib/modules/5.10.89TS\\\\n\\"): skip plugin" type=io.containerd.snapshotter.v1')
LOGRUS_WARN = ('WARN[2022-05-17T15:16:28.028491685-07:00] failed to load plugin io.containerd.snapshotter.v1.devmapper  '
               'error="devmapper not configured"')
# fixtures/artefacts/dcgm_exporter_log (NVIDIA/dcgm-exporter#34; #612, slog's upper-case level)
LOGFMT_FATAL = 'time="2021-12-14T17:28:56Z" level=fatal msg="Error starting nv-hostengine: DCGM initialization error"'
SLOG_ERROR = 'time=2026-09-19T20:06:59.547Z level=ERROR msg="Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND"'


def test_a_line_whose_own_level_is_info_is_no_error_line():
    from stethoscope.facts.parsers.unrecognised_text import quiet
    assert [quiet(ln) for ln in NVSENTINEL] == [False, True]
    assert quiet(DOCKERD_INFO) and quiet(LOGRUS_INFO)
    for line in (LOGRUS_WARN, LOGFMT_FATAL, SLOG_ERROR, "Segmentation fault (core dumped)",
                 # a level word that is no level field's value (the kernel's hung-task report)
                 "INFO: task python3:1708 blocked for more than 122 seconds."):
        assert not quiet(line), line


# openucx/ucx#9736: UCX's own log prefix (src/ucs/debug/log.c "%17s:%-4u %-4s %-5s"), a DEBUG line whose message
# says "failed"; open-mpi/ompi#6300: the same prefix at ERROR
UCX_DEBUG = ("[1710151844.440518] [m201:4904 :0]    ib_mlx5dv_md.c:916  UCX  DEBUG mlx5dv_devx_general_cmd(QUERY_HCA_CAP) "
             "failed: Remote I/O error")
UCX_ERROR = ("[1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: "
             "Cannot allocate memory")


def test_a_ucx_line_at_debug_level_is_no_error_line():
    from stethoscope.facts.parsers.unrecognised_text import quiet
    assert quiet(UCX_DEBUG)
    assert not quiet(UCX_ERROR)
    assert [n for n, _ in _unrecognised(UCX_DEBUG + "\n" + UCX_ERROR + "\n")] == [2]


# ofiwg/libfabric#11256: libfabric's own prefix (src/log.c ofi_log), an <info> line that says "Failed", then a <warn> one
OFI_INFO = "libfabric:151205:1753871244::core:core:cuda_gdrcopy_dl_hmem_init():88<info> Failed to dlopen libgdrapi.so"
OFI_WARN = "libfabric:151205:1753871244::core:core:cuda_gdrcopy_hmem_init():192<warn> gdrcopy_dl_hmem_init failed!"


def test_a_libfabric_line_at_info_level_is_no_error_line():
    from stethoscope.facts.parsers.unrecognised_text import quiet
    assert quiet(OFI_INFO) and not quiet(OFI_WARN)
    assert [n for n, _ in _unrecognised(OFI_INFO + "\n" + OFI_WARN + "\n")] == [2]


def test_the_fallback_reads_the_error_lines_of_other_levels_only():
    # harvest 1308: the DCGM test failure ("level": "error") is an error line, the mapping count ("level": "info") is not
    assert [n for n, _ in _unrecognised("\n".join(NVSENTINEL) + "\n")] == [1]
    text = "\n".join([LOGRUS_INFO, LOGRUS_WARN, LOGFMT_FATAL, DOCKERD_INFO, "Segmentation fault (core dumped)"]) + "\n"
    assert [n for n, _ in _unrecognised(text)] == [2, 3, 5]
    # a file whose only error-worded lines are info lines has none: the fallback leaves it unrecognised
    from stethoscope.facts.parsers.unrecognised_text import detect
    assert not detect(NVSENTINEL[1] + "\n" + DOCKERD_INFO + "\n")
    assert detect("\n".join(NVSENTINEL) + "\n")


def test_an_unread_info_line_of_a_recognised_file_is_no_failure():
    # (the fatal line's words are no FAILURE_WORDS: the fallback's wider words read it, above)
    text = "\n".join([DOCKERD_INFO, LOGFMT_FATAL, SLOG_ERROR, "Segmentation fault (core dumped)"]) + "\n"
    assert [n for n, _ in _lines(text)] == [3, 4]


def test_non_fatal_is_no_error_word():
    # NVIDIA/NVSentinel#768's acceptance test: "non-fatal" says the opposite of fatal
    assert _unrecognised("[2026-01-29 12:45:29] Node event verified: GpuPowerWatch is non-fatal, appears in events ✓\n") == []
    # a line that says fatal, or non-fatal beside another error word, still is one (Linux AER's "(Non-Fatal)" form)
    assert [n for n, _ in _unrecognised("Fatal Python error: Segmentation fault\n")] == [1]
    assert [n for n, _ in _unrecognised(
        "pcieport 0000:00:03.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)\n")] == [1]


def test_pytorchs_before_timing_out_is_an_error_word():
    # a public note in the code index: the watchdog's phrase with the work's fields left out and no "Watchdog caught"
    # before it; read as nothing, the file was set aside as uninformative and a healthy log beside it made a healthy verdict
    from stethoscope.facts.parsers.unrecognised_text import detect
    line = "[rank6]: WorkNCCL(...) ran for 7200015 milliseconds before timing out.\n"
    assert detect(line) and [n for n, _ in _unrecognised(line)] == [1]


RAY = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ray_worker_death"


def test_rays_exception_chain_is_one_failure_at_its_innermost_wrapper():
    # ray-project/ray#40850: RayTaskError(RuntimeError) of the trainer wrapping the worker's; the
    # worker's own exception is cut from the paste, so the innermost wrapper says what failed
    got = _unrecognised((RAY / "ray40850_task_error_chain.txt").read_text())
    assert [n for n, _ in got] == [9]
    assert got[0][1].startswith("ray.exceptions.RayTaskError(RuntimeError): ray::_RayTrainWorker__execute.get_next()")


def test_rays_exception_chain_in_a_recognised_log_is_one_unread_failure():
    # ray-project/ray#40758 (read as a PyTorch log: DistBackendError): the two wrappers are one failure
    got = _lines((RAY / "ray40758_task_error_chain_paste.txt").read_text())
    assert [n for n, _ in got] == [12]
    assert "RayTaskError(DistBackendError): ray::_RayTrainWorker__execute" in got[0][1]


def test_rays_chain_ends_at_the_inner_exception_when_the_paste_has_it():
    # the wrapper lines of ray#40850, then a worker's exception line (a real one: fixtures/artefacts/torch_log)
    lines = (RAY / "ray40850_task_error_chain.txt").read_text().splitlines()[3:11]
    inner = next(ln for ln in (FIX / "nccl_error_forms.log").read_text().splitlines() if ln.startswith("RuntimeError: NCCL error in"))
    got = _unrecognised("\n".join([*lines, inner]))
    assert [n for n, _ in got] == [9]
    assert got[0][1].startswith("RuntimeError: NCCL error")


def test_a_line_whose_logger_prefix_says_info_is_no_error_line():
    # vllm-project/vllm#6106: facts/lines.py takes Ray's and vLLM's prefixes off; the INFO they held says
    # "Cannot use FlashAttention-2 backend" is the message's word, while the ERROR line and its traceback stay
    got, _ = _unrecognised_normalised((FIX / "vllm6106_ray_worker_init_device_cut.txt").read_text())
    assert [n for n, _ in got] == [5]  # (line 6's traceback runs to the text's end: a cut capture, no error line)
    assert got[0][1].startswith("Error executing method init_device")
    # a prefix of another level (or none) keeps the line an error line
    got, _ = _unrecognised_normalised("(RayWorkerWrapper pid=1, ip=10.0.0.1) WARNING 07-03 14:43:47 selector.py:131] Cannot use X.\n"
                                      "Cannot allocate memory\n")
    assert [n for n, _ in got] == [1, 2]


def test_an_info_prefix_quiets_its_line_unless_the_line_is_a_failure_record_of_its_own():
    # a program's own INFO line with error words, every line of the paste at INFO (vLLM 0.5's start-up, its
    # vllm/attention/selector.py message): no error, as with other levels around it (an all-INFO paste was read FAULTY
    # unexplained_error for a while in session 29: a false alarm on a healthy log)
    info = ("INFO 07-24 08:25:50 llm_engine.py:176] Initializing an LLM engine (v0.5.3.post1) with config: model='m'\n"
            "INFO 07-24 08:25:52 selector.py:151] Cannot use FlashAttention-2 backend due to sliding window.\n")
    assert _unrecognised_normalised(info)[0] == []
    # under bench/wrap_study.py's Python logging form (Doc2EDAG#24's "%(asctime)s - %(name)s - %(levelname)s - ") a
    # line with its own ERROR (harvest 1802, nbminer) is never quieted, nor one after other levels
    pre = "2024-05-01 10:00:00,123 - trainer - INFO - "
    own = "[22:44:14] ERROR - GPU 1 hung detected!\n"
    assert [n for n, _ in _unrecognised_normalised(pre + own)[0]] == [1]
    mixed = "(RayWorkerWrapper pid=1, ip=10.0.0.1) ERROR 07-03 14:43:47 worker_base.py:148] Error executing method x\n"
    got, _ = _unrecognised_normalised(mixed + "(RayWorkerWrapper pid=1, ip=10.0.0.1) INFO 07-03 14:43:47 selector.py:131] " + own)
    assert [n for n, _ in got] == [1, 2]


def test_a_line_whose_logger_prefix_says_error_is_an_error_line_without_error_words():
    # vllm-project/vllm#27430: vLLM's crash dump at ERROR says no error word once facts/lines.py took the prefix off
    text = ("(Worker_TP7_EP7 pid=78185) INFO 10-23 17:17:47 [multiproc_executor.py:558] Parent process exited, terminating worker\n"
            "(EngineCore_DP0 pid=78020) ERROR 10-23 17:17:52 [dump_input.py:69] Dumping input data for V1 LLM engine (v0.11.0) "
            "with config: model='checkpoints/Qwen/Qwen3-VL-235B-A22B-Instruct', speculative_config=None\n")
    got, _ = _unrecognised_normalised(text)
    assert [n for n, _ in got] == [2]
    assert got[0][1].startswith("Dumping input data for V1 LLM engine")
    # the same line at WARNING or INFO is no error line
    for level in ("WARNING", "INFO"):
        got, _ = _unrecognised_normalised(text.replace(" ERROR ", f" {level} "))
        assert got == []


def test_a_traceback_the_logger_printed_at_error_is_not_read_line_by_line():
    # vllm-project/vllm#24430: the frames and source lines of a traceback under vLLM's ERROR prefix (the exception
    # cut off by the paste; a frame's ", in <function>" wrapped onto the next line) are no error lines of their own
    text = ("(EngineCore_0 pid=713790) ERROR 09-08 09:02:44 [core.py:718]     self.model_executor = executor_class(vllm_config)\n"
            "(EngineCore_0 pid=713790) ERROR 09-08 09:02:44 [core.py:718]   File \"/usr/local/lib/python3.10/dist-packages/vllm/executor/executor_base.py\", line 54, \n"
            "in __init__\n"
            "(EngineCore_0 pid=713790) ERROR 09-08 09:02:44 [core.py:718]     self._init_executor()\n"
            "(EngineCore_0 pid=713790) ERROR 09-08 09:02:44 [core.py:718]   File \"/usr/local/lib/python3.10/dist-packages/vllm/executor/uniproc_executor.py\", line 4\n"
            "9, in _init_executor\n")
    got, _ = _unrecognised_normalised(text)
    assert got == []


def test_a_cut_tracebacks_first_source_line_at_error_in_a_recognised_file_is_no_error_line():
    # vllm-project/vllm#6574: the paste starts at the source line of a frame whose 'File' line it cut; under vLLM's
    # ERROR prefix that line (indented, a frame after it) is the traceback's, as its other source lines are
    text = ("(VllmWorkerProcess pid=87) ERROR 07-19 10:59:03 multiproc_worker_utils.py:226]     output = tensor_model_parallel_all_reduce(output_parallel)\n"
            "(VllmWorkerProcess pid=87) ERROR 07-19 10:59:03 multiproc_worker_utils.py:226]   File \"/usr/local/lib/python3.10/dist-packages/vllm/distributed/communication_op.py\", line 11, in tensor_model_parallel_all_reduce\n"
            "(VllmWorkerProcess pid=87) ERROR 07-19 10:59:03 multiproc_worker_utils.py:226]     return get_tp_group().all_reduce(input_)\n")
    art = Artefact(path="t.log", text=text, node="n")
    art.normalise()
    assert unread_failures(art, set()).facts == []
    # an exception's line above a frame stays the failure it says (a chained traceback pasted without its blank line)
    art = Artefact(path="t.log", text=text.replace("    output = tensor_model_parallel_all_reduce(output_parallel)",
                                                   "RuntimeError: NCCL error: unhandled system error"), node="n")
    art.normalise()
    assert [f.message for f in unread_failures(art, set()).facts] == ["RuntimeError: NCCL error: unhandled system error"]


PROMPTS = Path(__file__).resolve().parents[2] / "fixtures/artefacts/unrecognised_text"


def test_a_command_typed_at_a_prompt_is_no_error_line():
    # a pasted terminal session (ubuntuforums.org, fixture README): "grep -i error" is what the user looked for
    from stethoscope.facts.parsers.unrecognised_text import detect, parse
    text = (PROMPTS / "prompt_grep_error_ubuntuforums_session.txt").read_text()
    assert not detect(text)
    assert parse(Artefact(path="t.log", text=text, node="n")).facts == []


@pytest.mark.parametrize("line", [
    "tim@tim-desktop:~$ dmesg | grep -i error",
    "ubuntu@gpu4:~/nccl-tests/src$ sudo ib_write_bw -d mlx5_2 -R --report_failures",  # nccl-tests#24's prompt, flag filled in
    "[root@node01 ~]# dmesg | grep -i -E \"xid|fail|error\"",  # RHEL's prompt (perftest#132's form)
    "lehi-smoke:~ # journalctl -k | grep -i failed",  # SUSE's prompt (perftest#82's form)
    "(base) root@node:/# python check.py --on-error abort",
    "$ NCCL_DEBUG=WARN ./build/all_reduce_perf -b 8 -e 128M  # look for errors",
    # NVIDIA/TensorRT-LLM#1374: statements typed at Python's interactive prompt
    ">>> error, result = cudart.cudaDeviceCanAccessPeer(0, 1)",
    ">>> print(error)",
    # NVIDIA/nvidia-docker#498: cmd.exe's default prompt ($P$G), the command right after its ">"; PowerShell's (CONSTRUCTED)
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v8.0\\extras\\demo_suite>bandwidthTest.exe",
    "PS C:\\Users\\me> nvidia-smi --query-gpu=ecc.errors.uncorrected.volatile.total --format=csv",
    # NVIDIA/gdrcopy#50: an interactive bash refusing the words typed at its prompt; bash's and zsh's other forms
    # (CONSTRUCTED from parse.y's report_syntax_error and zsh's parse error)
    "-bash: syntax error near unexpected token `after'",
    "bash: syntax error: unexpected end of file",
    "zsh: parse error near `)'",
])
def test_prompt_forms(line):
    from stethoscope.facts.parsers.unrecognised_text import shell_command
    assert shell_command(line)
    assert _unrecognised(line + "\n") == [] and _lines("ERROR\n" + line + "\n") == [(1, "ERROR")]


@pytest.mark.parametrize("line", [
    # NVIDIA/gpu-operator#498: a log line pasted back at a prompt: the log's error is the line's
    "root@dcgm-exporter-tlb4f:/# 2021-11-23 00:15:28.951 ERROR [82:82] Cannot initialize the hostengine: Error: Failed to initialize NVML",
    "root@node:~# Error: something failed",  # no command word after the prompt
    "# Out of bounds values : 1 FAILED",  # a comment line of a tool's output, no prompt
    "node1: error: task 0 launch failed",
    ">>> RuntimeError: CUDA error: uncorrectable ECC error encountered",  # a log line behind a quote's ">>> ": no statement
    "C:\\jobs\\train>Error: CUDA failure 35 in cudaGetDeviceCount",  # a log line behind a Windows prompt: no command word
    "./train.sh: line 12: syntax error near unexpected token `fi'",  # a script's syntax error: the job's failure
])
def test_not_a_prompt_keeps_its_error(line):
    from stethoscope.facts.parsers.unrecognised_text import shell_command
    assert not shell_command(line)
    assert _unrecognised(line + "\n") != []


def test_a_frames_source_line_is_code_not_an_error_line():
    # ray-project/kuberay#3436: a Serve traceback pasted from its frames on; the source lines under
    # '  File "...", line N, in f' ("timeout=timeout", "raise RuntimeError(...) from None") are code.
    # What the program said stays: Ray's wrapper read as its chain's innermost line, Serve's RuntimeError
    got = _unrecognised((RAY / "kuberay3436_serve_replica_traceback_cut.txt").read_text())
    assert [n for n, _ in got] == [15]
    assert got[0][1] == "RuntimeError: Traceback (most recent call last):"
    # a line after the frame's source line is not code
    got = _unrecognised('  File "/x/worker.py", line 871, in get_objects\n    raise value\nTimeoutError: timed out\n')
    assert [n for n, _ in got] == [3]


# harvest 2705 (kubernetes-sigs/dra-driver-nvidia-gpu#904): a maintainer's classification of what an Xid is, quoted in a
# ticket: a definition and a list of possible causes, knowledge, no error report (the healthy control was faulty on it)
XID_EXPLAINED = next(HARVEST.glob("2705-*/other-quoted-in-text.txt")).read_text()


def test_prose_that_explains_an_error_class_is_no_error_line():
    from stethoscope.facts.parsers import ticket_prose, unrecognised_text

    assert _unrecognised(XID_EXPLAINED) == []
    assert not unrecognised_text.detect(XID_EXPLAINED)
    assert ticket_prose.explanations(XID_EXPLAINED.split("\n")) == {1, 2, 3, 4, 5}
    # knowledge, no claim about this system: no remark of the reporter's either (the file stays unrecognised)
    assert not ticket_prose.detect(XID_EXPLAINED)


@pytest.mark.parametrize("text,lines", [
    # one marker alone is how a reporter hedges an error they met: it stays an error line
    ("The training job failed after two hours on node 7, it may be a driver problem.\n", [1]),
    # a possibility and what it indicates, without a definition or a denied certainty: the reporter's own diagnosis
    ("The training job failed on node 7, which usually indicates that a link flapped.\n", [1]),
    # a program's failure form is never an explanation, whatever words surround it
    ("RuntimeError: CUDA error: an illegal memory access was encountered. It may be caused by a kernel bug, "
     "such as an out-of-bounds index.\n", [1]),
    # the explanation's list items are short phrases; a "<what>: <error>" line under it is a program's line
    ("An XID is an error report emitted by the NVIDIA driver. It indicates that some GPU fault occurred. The cause may be\n"
     "- an application error,\n- CUDA error: out of memory\n", [3]),
    # an error line after the list ends is read again
    ("An XID is an error report emitted by the NVIDIA driver. It indicates that some GPU fault occurred. The cause may be\n"
     "- an application error,\n\nThe job on node 7 then failed with a driver error.\n", [4]),
    # the same paragraph inside a program's output (a log line) is not prose: its error words count
    ("2026-01-29 12:45:29 An XID is an error report. It indicates that some GPU fault occurred, not necessarily a failed GPU.\n", [1]),
])
def test_an_explanation_leaves_real_error_lines_counted(text, lines):
    assert [n for n, _ in _unrecognised(text)] == lines


# --- a reporter's words: an issue's title, a bug template's field or heading ------------------------------------------
def _read(text: str, path: str = "notes.txt"):
    from stethoscope.facts.parsers import unrecognised_text
    assert unrecognised_text.detect(text)
    facts = unrecognised_text.parse(Artefact(path=path, text=text, node="n")).facts
    return ([(f.evidence.line, f.message) for f in facts if f.kind == "text_error_line"],
            [(f.evidence.line, f.words) for f in facts if f.kind == "reported_symptom"])


@pytest.mark.parametrize("title", [
    "NCCL Timeout During Multi-Node Training",                       # ecmwf/WeatherGenerator#360
    "[Bug]: PyNcclCommunicator error when inferencing",              # vllm-project/vllm#8420
    "NCCL timeout error during training",                            # MLI-lab/DeepDeWedge#22
    "[Issue]: Segmentation fault at RAS in NCCL 2.27.7",             # a crash's name said in words
    "DAPT on Chip_data, Fails with this error:",                     # NVIDIA-NeMo/Speech#14348: "error:" points below
])
def test_a_titles_noun_phrase_is_a_reported_symptom_not_an_unexplained_error(title):
    errors, told = _read(title + "\n", path="case/title.txt")
    assert errors == [] and told == [(1, title)]


@pytest.mark.parametrize("title", [
    "[TensorRT-LLM][ERROR] Failed, NCCL error when running",                                  # a program's level tag
    "AssertionError: Fatal error: gradients are inconsistent between workers",                 # an exception's line
    "Shard process was signaled to shutdown with signal 4 rank=0 Error: ShardCannotStart",     # "Error:" label
    "query_smp.c:199; Connection timed out",                                                   # a source file's line
    "Not collecting GPU metrics; error getting devices count: Cannot perform the requested operation",  # an error chain
    'Question : anybody got "PytorchStreamWriter failed writing file data.pkl" while training ?',     # a quoted message
    "Segmentation fault (core dumped)",
])
def test_a_title_that_quotes_a_programs_line_is_the_reporters_claim_too(title):
    # (issue 11, round rV2: a title is the reporter's words whatever it quotes; before, these were error lines and a
    # title alone read faulty)
    errors, told = _read(title + "\n", path="case/title.txt")
    assert errors == [] and told == [(1, title)]


@pytest.mark.parametrize("line", [
    "Segmentation fault (core dumped)",
    "AssertionError: Fatal error: gradients are inconsistent between workers",
])
def test_the_same_line_in_a_file_not_named_a_title_stays_an_error_line(line):
    assert _read(line + "\n") == ([(1, line)], [])


def test_the_same_noun_phrase_in_a_file_not_named_a_title_is_read_as_before():
    assert _read("NCCL Timeout During Multi-Node Training\n") == ([(1, "NCCL Timeout During Multi-Node Training")], [])


# ofiwg/libfabric#11628's template (its fields, verbatim) and Lightning-AI/pytorch-lightning's bug template (its section
# heading and placeholder), with a shell's report of SIGABRT under them
TEMPLATE = ("**Issue Type**: Bug Report\n"
            "**Severity**: High - Segmentation fault with EFA provider\n"
            "\n"
            "### Error messages and logs\n"
            "\n"
            "```\n"
            "# Error messages and logs here please\n"
            "```\n")


def test_a_template_fields_value_is_the_reporters_claim_and_its_label_nothing():
    assert _read(TEMPLATE) == ([], [(2, "High - Segmentation fault with EFA provider")])


def test_a_programs_line_in_the_same_paste_still_counts():
    errors, told = _read(TEMPLATE + "Aborted (core dumped)\n")
    assert errors == [(9, "Aborted (core dumped)")] and told == [(2, "High - Segmentation fault with EFA provider")]
    # in a recognised file (unread_failures) too: the field is a claim, the shell's line a failure
    got = unread_failures(Artefact(path="t.log", text=TEMPLATE + "Aborted (core dumped)\n", node="n"), set()).facts
    assert [(f.kind, f.evidence.line) for f in got] == [("reported_symptom", 2), ("text_error_line", 9)]


def test_a_template_field_that_quotes_a_programs_line_stays_an_error_line():
    errors, told = _read("**Error message**: RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert errors == [(1, "**Error message**: RuntimeError: CUDA error: an illegal memory access was encountered")]
    # a level in capitals in bold is a program's; a template's error field keeps what the reporter wrote in it
    assert _read("**ERROR**: Disk quota exceeded\n") == ([(1, "**ERROR**: Disk quota exceeded")], [])
    assert _read("**Error message**: the job stops at step 0\n") == ([], [(1, "the job stops at step 0")])
    # nccl-tests' own '#' lines are no markdown heading: FAILED is the program's
    errors, _ = _read("#  Out of bounds values : 12 FAILED\n")
    assert errors == [(1, "#  Out of bounds values : 12 FAILED")]
    # ucx_info's '#' lines (harvest 900) and nccl-tests' column header (harvest 2602) are output, not headings
    for line in ("#   < failed to open interface >",
                 "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw"):
        assert _read(line + "\n") == ([(1, line)], [])


def test_a_traceback_at_error_in_a_recognised_file_is_told_once_not_frame_by_frame():
    # vllm-project/vllm#26898: the engine core's "EngineCore failed to start." and its traceback under vLLM's ERROR
    # prefix, the frames unindented and their quotes typographic (“...”), cut before the exception: the wrapper's
    # message and the cut last line are failures nobody read; the frames and their source lines are not
    art = Artefact(path="t.log", text=(FIX / "vllm26898_engine_core_traceback_cut.txt").read_text(), node="n")
    art.normalise()
    got = sorted((f.evidence.line, f.message) for f in unread_failures(art, set()).facts)
    assert [n for n, _ in got] == [6, 12]
    assert got[0][1] == "EngineCore failed to start."


def test_bare_python_exception_line():
    # wild sweep A2: Python's bare Exception ("Exception: <message>", traceback.format_exception_only), alone or ending a
    # traceback: EleutherAI/gpt-neox#482, THUDM/slime#1326 (harvest 2504); a word "Exception" in prose is not one
    from stethoscope.facts.parsers.unrecognised_text import ERROR_WORDS, FAILURE_WORDS
    for line in ("Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.",
                 "Exception: Server process terminated unexpectedly."):
        assert ERROR_WORDS.search(line) and FAILURE_WORDS.search(line)
    assert not ERROR_WORDS.search("Exception handling is left to the caller")
    assert not FAILURE_WORDS.search("the Exception: field of the form")


def test_a_sanitizers_summary_of_no_errors_is_no_error_line():
    # modular/mojo-gpu-puzzles#200: a memcheck run that found nothing ends in compute-sanitizer's
    # "========= ERROR SUMMARY: 0 errors"; its heading's ERROR is part of the count of none
    from stethoscope.facts.parsers import unrecognised_text

    text = (ROOT / "fixtures/artefacts/compute_sanitizer/mojogpu200_clean_memcheck_summary.txt").read_text()
    assert _unrecognised(text) == [] and not unrecognised_text.detect(text)
    assert unrecognised_text.zero_counts_only("========= ERROR SUMMARY: 0 errors")
    # a count that is not zero stays an error line (real summaries as stored in the search index: the tool's singular
    # in a copy of NVIDIA's NVTX memory API post, file id 48857660376; "10 errors" in a memcheck walkthrough, 68528682980)
    assert [n for n, _ in _unrecognised("========= ERROR SUMMARY: 1 error\n")] == [1]
    assert [n for n, _ in _unrecognised("========= ERROR SUMMARY: 10 errors\n")] == [1]


def test_glog_fatal_and_error_lines_with_the_year_are_failure_lines():
    # wild sweep G2: glog 0.7's prefix with the year (FLAGS_log_year_in_prefix), uccl-project/uccl#172's first run; the
    # prefix without it stays one; an INFO or WARNING line of either form is none
    from stethoscope.facts.parsers.unrecognised_text import FAILURE_WORDS
    for line in ("F20250720 17:52:37.391902 1125343 util.h:139] Check failed: bind(*listen_fd, (struct sockaddr*)&serv_addr, "
                 "sizeof(serv_addr)) >= 0 ERROR: binding",
                 "E1129 19:55:14.319000 600 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: -6)"):
        assert FAILURE_WORDS.search(line)
    for line in ("I20250720 17:52:37.391902 1125343 transport.cc:12] listening on port 5000",
                 "W0415 16:14:28.038098 1 cdstatus.go:339] numNodes: 2, nodes seen: 1"):
        assert not FAILURE_WORDS.search(line)


def test_a_test_runners_tally_of_no_failures_is_no_error_line():
    # wild sweep G4: LISAv2's summary of a CUDA driver validation that passed (microsoft/lisa#644, under the runner's
    # image prefix; #298 the same without it) lists "<n> <outcome>" counts; "0 Failed" and "0 Aborted" count none and the
    # file read "faulty, unexplained_error" on its own success
    from stethoscope.facts.parsers import unrecognised_text

    text = (ROOT / "fixtures/artefacts/unrecognised_text/lisa644_cuda_driver_validation_pass_summary.txt").read_text()
    assert _unrecognised(text) == [] and not unrecognised_text.detect(text)
    for line in ("Total Test Cases      : 1 (1 Passed, 0 Failed, 0 Aborted, 0 Skipped)",
                 "[Canonical UbuntuServer 16.04-LTS latest] Total Test Cases      : 1 (1 Passed, 0 Failed, 0 Aborted, 0 Skipped)"):
        assert unrecognised_text.zero_counts_only(line)
    # must not: a tally that counts a failure (microsoft/lisa#280's failed run, real), an index before "failed" rather
    # than a count, and a zero beside a count of errors that is not zero (CONSTRUCTED) stay error lines
    assert [n for n, _ in _unrecognised("Total Test Cases      : 1 (0 Passed, 1 Failed, 0 Aborted, 0 Skipped)\n")] == [1]
    for line in ("GPU 0 failed to initialize", "rank 0 failed", "3 passed, 0 failed, 1 error"):
        assert not unrecognised_text.zero_counts_only(line), line


def test_the_kernels_unsigned_module_taint_notice_and_a_link_alone_are_no_error_lines():
    # wild sweep H3 (hamonikr/hamonikr-system#8, a control): the kernel's notice that it loaded a module it could not
    # verify ("module verification failed: ... - tainting kernel", pr_notice_once) and the forum link under it, whose
    # slug holds "failed", read "faulty, unexplained_error" x2 where nothing failed
    from stethoscope.facts.parsers import unrecognised_text

    for name in ("hamonikr8_vboxdrv_unsigned_module_taint_notice.txt", "hamonikr8_comment_link_alone.txt"):
        text = (ROOT / "fixtures/artefacts/unrecognised_text" / name).read_text()
        assert _unrecognised(text) == [] and not unrecognised_text.detect(text), name
    for line in ("[   14.609667] wl: module verification failed: signature and/or  required key missing - tainting kernel",
                 "Dec 05 11:22:01 gpu-node-7 kernel: nvidia: module verification failed: signature and/or required key "
                 "missing - tainting kernel", "<https://forums.developer.nvidia.com/t/module-verification-failed/227206>"):
        assert unrecognised_text.says_no_failure(line), line
    # must not: a refusal of the module, the notice with more after it, a link inside a program's line (CONSTRUCTED
    # beside the real forms) stay error lines
    for text in ("modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n",
                 "nvidia: module verification failed: signature and/or required key missing - tainting kernel; load failed\n",
                 "Error: failed to fetch https://nvidia.github.io/libnvidia-container/gpgkey\n"):
        assert [n for n, _ in _unrecognised(text)] == [1], text


def test_slurms_bash_completion_script_declining_to_load_is_no_error_line():
    # wild sweep rR4 (skypilot-org/skypilot#8604): Slurm's bash completion script, sourced by a login shell on the
    # cluster, printed its source guard's "FATAL: Missing required source file." and three steps between "Job submitted"
    # and "Job started": read as an error nobody explains beside the job's own error (uv's, cut by the excerpt)
    from stethoscope.facts.parsers import unrecognised_text

    text = (ROOT / "fixtures/artefacts/unrecognised_text/skypilot8604_slurm_completion_fatal_missing_source.txt").read_text()
    # (SkyPilot's Ray task label, "(head, rank=0, pid=2898911) ", taken off by facts/lines.py: the line's own words)
    assert _unrecognised_normalised(text)[0] == [(24, "error: No virtual environment fo")]
    assert not unrecognised_text.detect("\n".join(text.splitlines()[:23]) + "\n")  # the script's lines alone: no error
    # the guard's other two lines (SchedMD/slurm contribs/slurm_completion_help/slurm_completion.sh, CONSTRUCTED from
    # its echo strings) and the line under srun's task label
    for line in ("FATAL: this script (slurm_completion.sh) is meant to be sourced.",
                 "FATAL: this script (slurm_completion.sh) only supports bash.",
                 "0: FATAL: Missing required source file.", "FATAL: Missing required source file."):
        assert unrecognised_text.says_no_failure(line), line
    # beside a recognised file's lines it is no unread failure either
    assert unread_failures(Artefact(path="job.out", text="FATAL: Missing required source file.\n", node="n"), set()).facts == []
    # must not: another program's FATAL, the line with more after it, a missing file that is not the script's
    # (CONSTRUCTED beside the real form) stay error lines
    for text in ("FATAL: Missing required source file. Aborting build.\n", "FATAL: cannot open shared object file\n",
                 "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic\n"):
        assert [n for n, _ in _unrecognised(text)] == [1], text


def test_a_shell_that_found_no_command_is_an_error_line():
    # wild sweep rR4 (skypilot-org/skypilot#5520): the task's run step printed bash's "python: command not found" under
    # SkyPilot's Ray label: the file read as nothing a diagnosis could use, and the line beside a healthy nvidia-smi
    # table as no one's (HEALTHY)
    from stethoscope.facts.parsers import unrecognised_text

    text = (ROOT / "fixtures/artefacts/unrecognised_text/skypilot5520_python_command_not_found.txt").read_text()
    assert unrecognised_text.detect(text)
    assert _unrecognised_normalised(text)[0] == [(5, "bash: python: command not found")]
    # bash run from a script ("line N: "), dash's and zsh's forms (CONSTRUCTED from the shells' formats, dash's as
    # facts/parsers/sshd_start.py lists it)
    for line in ("./train.sh: line 12: torchrun: command not found", "/bin/sh: 1: torchrun: not found",
                 "zsh: command not found: python"):
        assert [n for n, _ in _unrecognised(line + "\n")] == [1], line
        assert unrecognised_text.FAILURE_WORDS.search(line), line
    # must not: a sentence about the message in backquotes, a table's "not found" cell, a key that was not found
    # (CONSTRUCTED near misses) are no shell's report
    for line in ("if you see `command not found`, add it to PATH", "| nvidia-peermem | not found |",
                 "key: not found", "sh: not found"):
        assert not unrecognised_text.FAILURE_WORDS.search(line), line


def test_a_reporters_sentence_between_fenced_output_is_their_claim_not_an_error_line():
    # wild sweep H3 (Mellanox/k8s-rdma-shared-dev-plugin#54, a control: "The gpudirect test finished successfully"):
    # the note between the comment's ``` blocks read "faulty, unexplained_error" as if a program had printed it
    from stethoscope.facts.parsers import unrecognised_text

    text = (ROOT / "fixtures/artefacts/unrecognised_text/k8srdma54_gpudirect_test_note_between_fences.txt").read_text()
    art = Artefact(path="comment.txt", text=text, node="n")
    art.normalise()
    facts = unrecognised_text.parse(art).facts
    assert [(f.kind, f.evidence.line) for f in facts] == [("reported_symptom", 22)]
    assert "reported error" in facts[0].words
    note = "> Note: `ib_write_bw -R` reported error.  Not sure why `rdma_cm` isn't usable in the container, as the device file looks normal.\n"
    # must not: the same sentence beside a command in a paste that fences nothing, or inside a fence with it; a
    # program's line between fences (CONSTRUCTED around the real lines) stay error lines
    for paste in ("ib_write_bw -R\n" + note, "```\nib_write_bw -R\n" + note + "```\n",
                  "The test:\n```\nib_write_bw -R\n```\nrdma_cm: Failed to create QP, error: Operation not supported by device\n"):
        kinds = [f.kind for f in unrecognised_text.parse(_norm(paste)).facts]
        assert kinds == ["text_error_line"], (paste, kinds)


def _norm(text: str) -> Artefact:
    art = Artefact(path="comment.txt", text=text, node="n")
    art.normalise()
    return art


def test_an_error_word_inside_an_indirect_question_is_no_error_line():
    # wild sweep J3 (microsoft/superbenchmark#324, a control): the gpu-burn benchmark's metrics table in a pull request's
    # diff, "Whether or not GPU-burn test aborted before returning GPU results (1:yes, 0: no).", read "faulty,
    # unexplained_error": the clause names an outcome a metric reports, not one that came
    from stethoscope.facts.parsers import unrecognised_text

    text = (ROOT / "fixtures/artefacts/unrecognised_text/superbench324_gpu_burn_metrics_table_review.txt").read_text()
    assert _unrecognised(text) == [] and not unrecognised_text.detect(text)
    assert unrecognised_text.says_no_failure(text.split("\n")[13])
    # must not (CONSTRUCTED beside the real form): an error word before "whether", or one after the clause's end, stays
    for line in ("Failed to determine whether the GPU is idle\n",
                 "Whether or not the test aborted. Error: cudaErrorLaunchFailure\n",
                 "| gpu-burn/abort | whether the test aborted | FAILED |\n"):
        assert [n for n, _ in _unrecognised(line)] == [1], line


def test_detect_looks_at_a_long_line_of_error_words_once():
    # tests/test_fuzz_parsers.py's input (wild sweep J2): mit-han-lab/fouroversix#4's sentence quoting CUTLASS's error, a
    # piece of it repeated into one 90,000-character line; detect() looked at the line once per error word in it
    # (thousands), each look a pass over the whole line: over 600 s, now one look (about 1 s on a loaded machine)
    import time
    from stethoscope.facts.parsers import unrecognised_text
    line = 'This gives "Got cutlass error: Error Internal at: 146" on SM120 device. However, the quantization itself works fine.'
    text = line + ' This gives "Got cutlass error: Error I' * 3000 + "\n"
    started = time.perf_counter()
    unrecognised_text.detect(text)
    assert time.perf_counter() - started < 30
    # the same answers as before for short texts: a program's error line; a reporter's sentence in a file of prose
    assert unrecognised_text.detect("RuntimeError: something went wrong\n")
    assert not unrecognised_text.detect("All good here, nothing to report.\n")


# --- an application's JSON record read as its message keeps its level (issue 11, round rO1) ---------------------------
# zap's records of NVIDIA/gpu-operator's operator: #1310's error (the ClusterPolicy's states not ready), #122's info lines
GPU_OPERATOR_1310 = ('{"level":"error","ts":1741165859.009253,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy is not '
                     'ready, states not ready: [state-operator-validation state-device-plugin state-dcgm-exporter '
                     'gpu-feature-discovery state-mig-manager]"}')
GPU_OPERATOR_122 = (
    '{"level":"info","ts":1609192433.9836533,"logger":"controller_clusterpolicy","msg":"Found Resource","DaemonSet":"nvidia-driver-daemonset","Namespace":"gpu-operator-resources"}\n'
    '{"level":"info","ts":1609192433.9836864,"logger":"controller_clusterpolicy","msg":"DEBUG: DaemonSet","LabelSelector":"app=nvidia-driver-daemonset"}\n'
    '{"level":"info","ts":1609192433.9837842,"logger":"controller_clusterpolicy","msg":"DEBUG: DaemonSet","NumberOfDaemonSets":1}\n')


def _diagnosed(ruleset, tmp_path, text):
    from stethoscope.engine.pipeline import diagnose_bundle

    (tmp_path / "operator.log").write_text(text)
    return diagnose_bundle(tmp_path, ruleset, jobs=1)


def test_an_application_record_at_error_level_is_a_failure_line_whatever_its_words(ruleset, tmp_path):
    # the record read as its message says no failure word: its level says it failed. Before, the line read as a reporter's
    # remark (INCONCLUSIVE, reported_symptom_unjudged), though a program wrote it
    rep = _diagnosed(ruleset, tmp_path, GPU_OPERATOR_1310 + "\n")
    assert rep.verdict == "faulty"
    assert [f.rule for f in rep.findings] == ["unexplained_error"]
    assert rep.findings[0].evidence[0].text == GPU_OPERATOR_1310  # the record as written
    # an error record whose message has failure words (CONSTRUCTED from a real DCGM message): a failure line, not a remark
    rep = _diagnosed(ruleset, tmp_path, '{"level":"error","ts":"2025-12-25T14:12:34Z","msg":"failed to reconcile DCGM state",'
                     '"error":"failed to initialize DCGM: error connecting to nv-hostengine: Host engine connection '
                     'invalid/disconnected"}\n')
    assert [f.rule for f in rep.findings] == ["unexplained_error"]


def test_an_application_record_at_info_level_is_no_error_nor_remark(ruleset, tmp_path):
    # must not: the operator's info lines (#122) and an info record whose message says "failed" (CONSTRUCTED): no error
    # line, no reporter's remark
    for text in (GPU_OPERATOR_122,
                 '{"level":"info","ts":1741165859.1,"logger":"x","msg":"retrying after failed probe of GPU 0","attempt":2}\n'
                 '{"time":"2026-01-29T21:41:35Z","level":"DEBUG","msg":"could not read GPU 1 clocks, skipped"}\n'):
        rep = _diagnosed(ruleset, tmp_path, text)
        assert rep.verdict != "faulty" and rep.findings == [], text


# A traceback whose frames run to the text's end lost its exception line to the capture (a paste or a stored excerpt
# cut there): a cut_short limit, not an error line quoting its header
def _cut(text: str, fallback: bool):
    from stethoscope.facts.parsers.unrecognised_text import parse
    art = Artefact(path="t.log", text=text, node="n")
    art.normalise()
    res = parse(art) if fallback else unread_failures(art, set())
    return [(f.evidence.line, f.message) for f in res.facts], [(h.limit, h.line) for h in res.limits]


@pytest.mark.parametrize("fallback", [True, False])
@pytest.mark.parametrize("name, header", [("torch_log/fixmatch2_spawn_traceback_cut_in_its_frames.log", 15),
                                          ("torch_log/navillm34_torchrun_traceback_cut_wrapped.log", 1),
                                          # a logger's record ending in the header, under a CRI log file's stamps
                                          ("unrecognised_text/sglang8336_cri_logged_traceback_cut.log", 1)])
def test_a_traceback_cut_before_its_exception_line_is_a_cut_capture(name, header, fallback):
    facts, limits = _cut((ROOT / "fixtures/artefacts" / name).read_text(), fallback)
    assert ("cut_short", header) in limits
    assert header not in [n for n, _ in facts]
    # the header alone on the text's last line, CRLF line ends (CONSTRUCTED)
    facts, limits = _cut("step 10 loss 2.1\r\nTraceback (most recent call last):\r\n", fallback)
    assert limits == [("cut_short", 2)] and facts == []


CAPTURED = ("C++ CapturedTraceback:\n#4 c10::Error::Error(c10::SourceLocation, std::string) from ??:0\n"
            "#5 c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() from ??:0\n#6 _PyEval_EvalFrameDefault from ??:0\n")


def test_pytorchs_cpp_frames_without_their_error_are_a_cut_capture():
    # Lightning-AI/pytorch-lightning#19544: the excerpt holds frames 43 to 62 of the C++ stack and not the error above
    # them; read as nothing, the file was set aside as uninformative and a healthy log beside it made a healthy verdict
    from stethoscope.facts.parsers.unrecognised_text import detect
    text = (ROOT / "fixtures/artefacts/unrecognised_text/lightning19544_cpp_captured_frames_cut.txt").read_text()
    assert detect(text)
    assert _cut(text, True) == ([], [("cut_short", 1)])
    # the frames under their error and CapturedTraceback's header (CONSTRUCTED from torch/csrc/Module.cpp's format):
    # the error line is read, the frames are its context, no cut
    facts, limits = _cut("RuntimeError: CUDA error: an illegal memory access was encountered\n" + CAPTURED, True)
    assert [n for n, _ in facts] == [1] and limits == []
    # two such lines are no stack; a sentence with "from" and a line number is no frame
    assert not detect("#4 foo from ??:0\n#5 bar from ??:0\n") and not detect("#3 see the fix from main.py:12 below\n")


C10_FRAMES = ("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f0582ab9446 in /x/torch/lib/libc10.so)\n"
              "frame #1: <unknown function> + 0x5ba8afe (0x7f4d1b3a8afe in /x/torch/lib/libtorch_cpu.so)\n"
              "frame #2: /x/bin/python3() [0x528b17]\n")


def test_c10_backtrace_frames_the_paste_ends_in_without_their_error_are_a_cut_capture():
    # vllm-project/vllm#19670's stored excerpt: frames #6-#17 of c10's backtrace, no header, no error (was unrecognised)
    from stethoscope.facts.parsers.unrecognised_text import detect
    text = (ROOT / "fixtures/artefacts/unrecognised_text/vllm19670_c10_frames_cut.txt").read_text()
    assert detect(text)
    assert _cut(text, True) == ([], [("cut_short", 1)])
    # CONSTRUCTED from c10/util/Backtrace.cpp's frame form: under the error and its header, the error line is read and
    # the frames are its context; frames that start a paste with the error after them, or two frames, are no cut capture
    facts, limits = _cut("RuntimeError: CUDA error: an illegal memory access was encountered\n"
                         "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 "
                         "(most recent call first):\n" + C10_FRAMES, True)
    assert [n for n, _ in facts] == [1] and limits == []
    assert ("cut_short", 1) not in _cut(C10_FRAMES + "\nterminate called after throwing an instance of 'c10::DistBackendError'\n", True)[1]
    assert not detect("frame #1: a + 0x1 (0x2 in /x/libc10.so)\nframe #2: b + 0x1 (0x2 in /x/libc10.so)\n")


@pytest.mark.parametrize("fallback", [True, False])
@pytest.mark.parametrize("text", [
    # the exception line under the frames (FixMatch-pytorch#2's first traceback ends 'Exception:', a bare one)
    'Traceback (most recent call last):\n  File "train.py", line 316, in <module>\n    main(args)\nException:\n',
    'Traceback (most recent call last):\n  File "train.py", line 316, in <module>\n    main(args)\nRuntimeError: boom\n',
    # an exception that a frame without its source line stands above (CONSTRUCTED as Python prints one from <string>)
    'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nKeyboardInterrupt\n',
    'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nSystemExit: 1\n',
    # frames, then another program's line: the traceback ended
    'Traceback (most recent call last):\n  File "train.py", line 316, in <module>\n    main(args)\nFAILED step 3\n',
    # CONSTRUCTED: a logger's record ending in the header (SGLang's "Scheduler hit an exception: {traceback}"), whole
    'Scheduler hit an exception: Traceback (most recent call last):\n  File "scheduler.py", line 2769, in run\n'
    '    scheduler.event_loop_normal()\nRuntimeError: CUDA error: an illegal memory access was encountered\n'])
def test_a_traceback_that_ends_is_no_cut_capture(text, fallback):
    facts, limits = _cut(text, fallback)
    assert limits == [] and facts  # an error line still says it (the exception's, else the traceback's header)


# --- an application's record kept as written: logfmt, JSON with an object member (issue 11, round rP5) -----------------
# facts/records.py kept_record: facts/lines.py keeps these as written (readers read their programs' logfmt records whole;
# nvsentinel_event reads JSON payloads), and the fallback readers read them as '<msg>: <error>' with their level.
# CONSTRUCTED from the upstream formats (no even thread showed an unowned error record of these forms):
LOGFMT_ERRORS = [
    # go-kit's log (ts, caller, level, msg, err): read as a reporter's remark before ('the reporter says ...', INCONCLUSIVE)
    ('level=error ts=2022-03-05T12:15:01.058Z caller=main.go:57 msg="GPU health check did not pass" '
     'err="port 1 of mlx5_0 is down"', "GPU health check did not pass: port 1 of mlx5_0 is down"),
    ('ts=2022-03-05T12:15:01.058Z caller=main.go:57 level=error msg="GPU health check did not pass for node gpu-7" '
     'err="port 1 of mlx5_0 is down"', "GPU health check did not pass for node gpu-7: port 1 of mlx5_0 is down"),
    # Go's log/slog TextHandler (time, level, msg; the error as "err"), logrus's TextFormatter (its time quoted; "error")
    ('time=2024-05-01T10:00:00.000Z level=ERROR msg="ClusterPolicy is not ready" err="states not ready"',
     "ClusterPolicy is not ready: states not ready"),
    ('time="2024-05-01T10:00:00Z" level=error msg="failed to initialize NVML" error="ERROR_LIBRARY_NOT_FOUND"',
     "failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND"),
    # zap / controller-runtime JSON with an object member (the reconciled object; an error object): a remark before
    ('{"level":"error","ts":"2024-05-01T10:00:00Z","logger":"controllers","msg":"Reconciler error","controller":'
     '"clusterpolicy-controller","ClusterPolicy":{"name":"cluster-policy"},"namespace":"","name":"cluster-policy",'
     '"reconcileID":"1b2c","error":"ClusterPolicy is not ready, states not ready: [state-driver]"}',
     "Reconciler error: ClusterPolicy is not ready, states not ready: [state-driver]"),
    ('{"level":"error","ts":1741165859.009253,"logger":"dp","msg":"failed to initialize NVML","error":{"code":12,'
     '"message":"ERROR_LIBRARY_NOT_FOUND"}}', "failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND"),    # log15's logfmt (inconshreveable/log15 LogfmtFormat: t, lvl, msg; Lvl.String() "eror"), as go-ethereum and Grafana 7-8
    # log: an error record whose message says no error word (CONSTRUCTED)
    ('t=2021-03-04T10:00:00+0000 lvl=eror msg="Plugin not registered" logger=plugins pluginID=abc',
     "Plugin not registered"),
]


@pytest.mark.parametrize("raw, said", LOGFMT_ERRORS)
def test_a_kept_record_at_error_level_is_read_as_its_message(ruleset, tmp_path, raw, said):
    rep = _diagnosed(ruleset, tmp_path, raw + "\n")
    assert rep.verdict == "faulty"
    assert [f.rule for f in rep.findings] == ["unexplained_error"]
    assert said in rep.findings[0].summary
    assert rep.findings[0].evidence[0].text == raw  # the record as written


# log15's and go-ethereum's terminal records (log/format.go TerminalFormat: "%s[%s] %s " of the level, upper-cased
# Lvl.String() "EROR" / "DBUG" or Lvl.AlignedString() "INFO " / "ERROR", and the time "01-02|15:04:05[.000]") (CONSTRUCTED)
LOG15_INFO = "INFO [05-12|10:00:00.000] Looking for peers failed to connect       peercount=0"
LOG15_DBUG = "DBUG[05-12|10:00:00] dial failed   id=abc"
LOG15_EROR = "EROR[05-12|10:00:01] Snapshot extension registration           peer=abc"


def test_log15_terminal_records_by_their_level():
    from stethoscope.facts.parsers.unrecognised_text import quiet
    assert quiet(LOG15_INFO) and quiet(LOG15_DBUG) and not quiet(LOG15_EROR)
    # the error record says no error word: its level is the failure (the unread-failure check's words)
    assert [n for n, _ in _lines("\n".join([LOG15_INFO, LOG15_DBUG, LOG15_EROR]) + "\n")] == [3]


def test_a_kept_record_at_info_level_is_no_error_nor_remark(ruleset, tmp_path):
    # must not: the container toolkit's logrus info records (NVIDIA/gpu-operator#248, verbatim, its last record cut inside
    # "error resolving link"), an slog info record saying "failed", a JSON info record whose object member says "failed"
    toolkit = (ROOT / "fixtures/artefacts/unrecognised_text/gpuop248_toolkit_logrus_info_records.txt").read_text()
    for text in (toolkit,
                 'time=2024-05-01T10:00:00.000Z level=INFO msg="retrying after failed probe of GPU 0" attempt=2\n',
                 't=2021-03-04T10:00:00+0000 lvl=info msg="Request failed with error" logger=context\n',  # log15's info
                 '{"time":"2024-05-01T10:00:00Z","level":"INFO","msg":"probe done","fields":{"gpu":"0","result":'
                 '"failed to read temperature"}}\n'):
        rep = _diagnosed(ruleset, tmp_path, text)
        assert rep.verdict != "faulty" and rep.findings == [], text


@pytest.mark.parametrize("raw", [
    "I set level=3 and msg=hello and it failed",  # a sentence with pairs in it: not all of the line
    # k8s-driver-manager's unquoted message (its reader's, as written): no logfmt record
    'time=2026-02-25T08:26:00Z level=info msg=Current value of "nvidia.com/gpu.deploy.operator-validator"=true',
    'ts=2022-03-05T12:15:01.058Z caller=exporter.go:157 level=error error="command failed. stderr:  err: exit status 12"',
    '{"level":"error","ts":1741165859.1,"msg":"x","error":"y"}',  # a flat JSON record: facts/lines.py reads it
])
def test_what_is_no_kept_record(raw):
    from stethoscope.facts.records import record_message

    assert record_message(raw) is None


# --- a sentence that tells what is done when something fails (issue 11, round rP5; rO6's false alarm) -----------------
def test_a_description_of_what_is_done_when_something_fails_is_no_error_line(ruleset, tmp_path):
    # NVIDIA/NVSentinel#1240's summary (a pull request, no fault): read FAULTY unexplained_error on its two list items
    text = (ROOT / "fixtures/artefacts/unrecognised_text/nvsentinel1240_pr_summary_reset_fallback.txt").read_text()
    rep = _diagnosed(ruleset, tmp_path, text)
    assert rep.verdict != "faulty" and not [f for f in rep.findings if f.rule == "unexplained_error"]


@pytest.mark.parametrize("line", [
    # must not: a program's line says what failed (its error word the subject or verb of its own clause)
    "Failed to reset GPU 0000:3b:00.0 because it is in use by another client process on this node right now",
    "The GPU reset failed when the node was drained and the janitor could not recover it after several attempts",
    # PyTorch's (fixtures/artefacts/torch_log/desync_all_joined_llamafactory9496.log, its prefix off) and kubelet's event
    "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it "
    "by setting TORCH_NCCL_TRACE_BUFFER_SIZE",
    "Back-off restarting failed container nvidia-device-plugin-ctr in pod nvidia-device-plugin-daemonset-x7z2q on the node",
    # the reporter's own sentence (first person): their claim, reported_error's
    "When I tried to reset the GPU with nvidia-smi it failed and the node had to be rebooted by the janitor afterwards",
])
def test_what_is_no_description_of_handling(line):
    from stethoscope.facts.parsers.ticket_prose import handled_failure

    assert not handled_failure(line)


def test_a_handled_failure_inside_a_fence_stays_an_error_line():
    from stethoscope.facts.parsers.ticket_prose import handled_failures

    said = ("**1. Create a RESTART_VM event when GPU resets fail:** now we will emit an unhealthy event when it detects "
            "that a GPU failed to be reset, and clear it for the subsequent failed reset event.")
    assert handled_failures(["## Summary", said]) == {2}
    assert handled_failures(["```", said, "```"]) == set()
    assert handled_failures(["```yaml", "key: value", said]) == set()  # a block left open: an excerpt cut inside it


def test_an_error_looking_kernel_record_is_an_error_line_not_a_claim():
    """A kernel record (by its prefix, kernel_log.record_lines) with error words that no reader parsed is an error line
    nobody explains, never the reporter's claim or a sentence left as told (round rQ5: never a false HEALTHY)."""
    from stethoscope.facts.parsers import unrecognised_text
    from stethoscope.facts.parsers.kernel_log import record_lines

    # siderolabs/pkgs#792 (talosctl dmesg of an amdgpu node that failed to init)
    line = ("k3s-node5.lab: kern:     err: [2023-08-18T13:36:48.470679465Z]: [drm:amdgpu_device_init.cold] *ERROR* "
            "sw_init of IP block <psp> failed -2")
    assert record_lines([line, "I think the GPU failed after the update.", "[    3.596583] NVRM RmInitAdapter: x"]) == {1, 3}
    fs = unrecognised_text.parse(Artefact(path="dmesg.txt", text=line + "\n", node="n1")).facts
    assert [(f.kind, f.evidence.line) for f in fs] == [("text_error_line", 1)]
    # CONSTRUCTED: the same record as a title's line: a title is the reporter's claim whatever it quotes (round rV2)
    fs = unrecognised_text.parse(Artefact(path="title.txt", text=line + "\n", node="n1")).facts
    assert [f.kind for f in fs] == ["reported_symptom"]


# The middle of a traceback, both its ends cut (vllm-project/vllm#39878's stored excerpts: vLLM's logger printed the
# frames line by line under its prefix; no header, no exception): a cut capture too, the wrapper's cut last line passed over
@pytest.mark.parametrize("name, last", [("vllm39878_worker_frames_cut_both_ends.log", "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
                                        ("vllm39878_engine_core_frames_cut_both_ends.log", "self.model_executor")])
def test_a_tracebacks_middle_cut_at_both_ends_is_a_cut_capture(name, last):
    from stethoscope.facts.parsers import unrecognised_text
    art = Artefact(path="t.log", text=(FIX / name).read_text(), node="n")
    art.normalise()
    assert unrecognised_text.detect(art.text) or unrecognised_text.detect_wrapped(art)
    res = unrecognised_text.parse(art)
    assert res.facts == [] and [(h.limit, h.line) for h in res.limits] == [("cut_short", 1)]
    assert repr(last) in res.limits[0].detail


@pytest.mark.parametrize("text", [
    # frames then the exception: a traceback's end, read as the error it names (CONSTRUCTED)
    '  File "a.py", line 3, in f\n    g()\nRuntimeError: boom\n',
    # frames then another line: no cut (CONSTRUCTED)
    '  File "a.py", line 3, in f\n    g()\nstep 4 done\n',
    # a source line alone, no frame line: not a traceback (CONSTRUCTED)
    '    data = torch.zeros(1, device=device)\n',
])
def test_a_text_that_does_not_end_in_frames_is_no_cut_middle(text):
    from stethoscope.facts.parsers import unrecognised_text
    assert unrecognised_text.frames_to_end(text.split("\n")) is None


# --- IPython's traceback (issue 11, round rT9) ------------------------------------------------------------------------
# Jupyter's traceback puts the exception's class in its header and lists each frame's source with line numbers: the
# listing is source code (a docstring's "Cannot", a "raise ...Error(" line), never an error line; the header is read as
# context where the exception's own line ends the traceback, else as the error line with a cut_short limit.
@pytest.mark.parametrize("name, header", [("numba8638_ipython_traceback_cut_in_its_listing.txt", 2),
                                          ("cudf6746_ipython7_traceback_cut_in_its_listing.txt", 2),
                                          # IPython 8's gap marker beside the next listed line ("   (...)     12     ...")
                                          ("unsloth3150_ipython8_gap_beside_a_listed_line.txt", 2)])
def test_an_ipython_traceback_cut_in_its_listing_names_its_class_once(name, header):
    facts, limits = _cut((PROMPTS / name).read_text(), True)
    assert [n for n, _ in facts] == [header]  # (numba#8638's docstring line 12 "Cannot mix ..." is no error line)
    assert ("cut_short", header) in limits


def test_an_ipython_traceback_that_ends_is_read_at_its_exception_line():
    # numba#8638's header, frame head and listing (real lines), the exception line numba prints (numba/cuda/cudadrv/
    # driver.py: raise CudaSupportError(f"Error at driver init: {description}"), its description from the title)
    text = ("---------------------------------------------------------------------------\n"
            "CudaSupportError                          Traceback (most recent call last)\n"
            "Cell In[23], line 1\n"
            "----> 1 print('a+b:\\n', add_ufunc(a, b))\n"
            "File ~/anaconda3/envs/cython/lib/python3.10/site-packages/numba/cuda/cudadrv/driver.py:256, in Driver.ensure_initialized(self)\n"
            "    254     description = f\"{e.msg} ({e.code})\"\n"
            "    255     self.initialization_error = description\n"
            "--> 256     raise CudaSupportError(f\"Error at driver init: {description}\")\n"
            "\n"
            "CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_UNKNOWN (999):\n")
    facts, limits = _cut(text, True)
    assert limits == []
    assert [n for n, _ in facts] == [10]  # the exception's line alone: not the header, not the listing's raise


def test_an_exception_of_a_libraries_exceptions_module_is_a_failure_whatever_its_name():
    """An uncaught exception whose class name says neither Error nor Exception, of a module named exceptions or errors:
    the line Python prints for it is the failure (real: kubeflow/pipelines#3674's GCS 429; CONSTRUCTED from
    google/api_core/exceptions.py's class names: ServiceUnavailable, DeadlineExceeded). A word 'exceptions.' in prose, a
    module path without a class, a class in another module stay what they were."""
    from stethoscope.facts.parsers.unrecognised_text import FAILURE_WORDS, detect, parse
    for line in ("google.api_core.exceptions.TooManyRequests: 429 POST https://storage.googleapis.com/storage/v1/b?project=p:"
                 " The project exceeded the rate limit for creating and deleting buckets.",
                 "google.api_core.exceptions.ServiceUnavailable: 503 Connection reset by peer",  # CONSTRUCTED
                 "  google.api_core.exceptions.DeadlineExceeded: 504 Deadline Exceeded"):  # CONSTRUCTED
        assert FAILURE_WORDS.search(line), line
    for line in ("see google.api_core.exceptions.NotFound: it is raised for a 404",
                 "import google.api_core.exceptions",
                 "mypkg.handlers.Retry: 3 attempts left"):  # CONSTRUCTED
        assert not FAILURE_WORDS.search(line), line
    art = Artefact(path="out.txt", node="n", text="uploading shard 3 of 8\n"
                   "google.api_core.exceptions.ServiceUnavailable: 503 Connection reset by peer\n")  # CONSTRUCTED
    art.normalise()
    assert detect(art.text)
    facts = parse(art).facts
    assert [(f.kind, f.evidence.line) for f in facts] == [("text_error_line", 2)]


def test_an_exception_line_under_a_frame_with_no_source_line_is_the_error():
    # kchengiva/Shift-GCN#18 (verbatim, fixtures/artefacts/unrecognised_text/shiftgcn18_stdin_frame_then_exception.txt):
    # a frame of <stdin> has no source to print, so the exception follows its 'File' line directly, left of it
    text = Path(__file__).parents[2].joinpath(
        "fixtures/artefacts/unrecognised_text/shiftgcn18_stdin_frame_then_exception.txt").read_text()
    got, _ = _unrecognised_normalised(text)
    assert [m for _, m in got] == ["ModuleNotFoundError: No module named 'cuda'"]  # the paste's backtick dropped
    # CONSTRUCTED: the same under a rank's prefix (torchrun's "[rank0]: "), and the frame's source line (deeper than
    # 'File') stays code, not an error line, as does a paste that dropped all indentation
    prefixed = ('[rank0]: Traceback (most recent call last):\n[rank0]:   File "<string>", line 1, in <module>\n'
                '[rank0]: RuntimeError: CUDA error: no kernel image is available for execution on the device\n')
    assert [n for n, _ in _unrecognised_normalised(prefixed)[0]] == [3]
    code = ('Traceback (most recent call last):\n  File "train.py", line 10, in <module>\n'
            '    raise RuntimeError("bad config")\nValueError: x\n')
    assert [n for n, _ in _unrecognised_normalised(code)[0]] == [4]
    flat = 'Traceback (most recent call last):\nFile "train.py", line 10, in <module>\nraise RuntimeError("bad")\n'
    assert [n for n, _ in _unrecognised_normalised(flat)[0]] == []


def test_a_reporters_sentences_before_a_fence_left_open_are_their_claims():
    # jax-ml/jax#4950 (the stored excerpt, cut inside its "Log output" block): the paragraphs above the fence are the
    # reporter's, read as claims; before, "I'm working on training script ... crashed with a non specific NCCL error"
    # and "After some debugging, ... propagates as a non-specific error." were errors nobody explains (FAULTY)
    from stethoscope.engine.parse_pool import parse_one

    text = (ROOT / "fixtures/artefacts/nccl_log/jax4950_prose_then_fence_left_open.txt").read_text()
    facts = parse_one(Artefact(path="out.txt", text=text)).facts
    assert not [f for f in facts if f.kind == "text_error_line"]
    assert 2 in [f.evidence.line for f in facts if f.kind == "reported_symptom"]
    # must not (CONSTRUCTED): the same sentence inside the block left open, or a program's error line above the fence,
    # stays an error line
    inside = "Log output\n```\nI'm working on it and it crashed with a non specific NCCL error (unhandled system error) again.\n"
    assert _unrecognised(inside) != []
    above = "RuntimeError: NCCL error: unhandled system error\n\nLog output\n```\nnode1:1:1 [0] NCCL INFO Bootstrap\n"
    assert [n for n, _ in _unrecognised(above)] == [1]


def test_nvidia_smi_csv_error_cells_without_their_header():
    # round rBA1: nvidia-smi --query-gpu --format=csv rows pasted without their header are no reader's; a cell of NVML's
    # failure in brackets ("[GPU requires reset]", "[GPU is lost]", "[Unknown Error]") is a GPU nobody read, never silence
    # (CONSTRUCTED rows; the bracketed form as enkore/i3pystatus#850 quotes it for fan.speed)
    from stethoscope.facts.parsers.unrecognised_text import FAILURE_WORDS
    for line in ("0, NVIDIA H100 80GB HBM3, [GPU requires reset], [GPU requires reset]",
                 "3, NVIDIA A100-SXM4-80GB, 00000000:47:00.0, [GPU is lost], [GPU is lost]",
                 "[Unknown Error]"):
        assert FAILURE_WORDS.search(line), line
        assert [n for n, _ in _unrecognised(line + "\n")] == [1], line
    # fields a GPU lacks are no failure, nor the words outside nvidia-smi's brackets
    for quiet in ("0, NVIDIA GeForce GTX 1650, [N/A], [Not Supported], 33",
                  "the GPU requires reset after an Xid 79"):
        assert FAILURE_WORDS.search(quiet) is None, quiet
