"""launcher_exit: a launcher ending the job because a process exited with a non-zero status."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import launcher_exit
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/launcher_exit"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return launcher_exit.parse(art).facts


@pytest.mark.parametrize("name,line,launcher,process,rank,code", [
    ("horovod410_mpirun_real_detected_box.txt", 3, "mpirun.real", "[[4115,1],1]", 1, 1),
    ("nccltests294_mpirun_detected_rank10_exit3.txt", 2, "mpirun", "[[12167,1],10]", 10, 3),
])
def test_detected_box(name, line, launcher, process, rank, code):
    text = (FIX / name).read_text()
    assert launcher_exit.detect(text)
    [f] = parse_text(text)
    assert (f.evidence.line, f.launcher, f.process_name, f.rank, f.exit_code, f.processes) == (line, launcher, process, rank, code, None)


def test_primary_box_counts_and_alone():
    # horovod/horovod#410's log: Open MPI's first box (its two spaces kept), the second box not pasted
    primary = ("---------------------------------------------------------------------------------------\n"
               "Primary job  terminated normally, but 1 process returned\n"
               "a non-zero exit code. Per user-direction, the job has been aborted.\n"
               "---------------------------------------------------------------------------------------\n")
    [f] = parse_text(primary)
    assert (f.evidence.line, f.launcher, f.process_name, f.processes) == (2, "Open MPI", None, 1)
    # both boxes: one fact, the "detected" one, with the count
    both = primary + (FIX / "horovod410_mpirun_real_detected_box.txt").read_text()
    [f] = parse_text(both)
    assert (f.launcher, f.rank, f.exit_code, f.processes) == ("mpirun.real", 1, 1, 1)


def test_count_before_a_signal_report_is_the_signal_readers():
    # NVIDIA/TensorRT-LLM#1700: the "Primary job" box, then mpirun's report of rank 6 killed by signal 9 (subprocess_error)
    text = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/subprocess_error/trtllm1700_mpirun_signal9.txt").read_text()
    assert not launcher_exit.detect(text)
    assert parse_text(text) == []


def test_horovod_gloo_launcher_form():
    # horovod/runner/gloo_run.py: RuntimeError('Horovod detected that one or more processes exited with non-zero status, thus
    # causing the job to be terminated. The first process to do so was:\nProcess name: {name}\nExit code: {code}\n')
    text = ("RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the job to be "
            "terminated. The first process to do so was:\nProcess name: 1\nExit code: 1\n")
    [f] = parse_text(text)
    assert (f.launcher, f.process_name, f.rank, f.exit_code) == ("Horovod", "1", None, 1)


def test_near_misses_read_nothing():
    for text in ("mpirun noticed that process rank 6 with PID 0 on node n1 exited on signal 9 (Killed).\n",
                 "Exit code: 1\nProcess name: [[1,1],0]\n", "the job terminated normally\n", "",
                 # TGI's launcher: a clean shutdown and a shard's start, no shard failed (text-generation-inference#1354's
                 # tail), and the words in prose, no launcher's record
                 "2023-12-16T09:36:24.632181Z  INFO text_generation_launcher: Shutting down shards\n"
                 "2023-12-16T09:36:24.652173Z  INFO shard-manager: text_generation_launcher: Shard terminated rank=1\n",
                 "2023-09-12T10:26:41.013379Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0\n",
                 "Shard 0 failed to start when I run it with 2 GPUs\n"):
        assert not launcher_exit.detect(text)
        assert parse_text(text) == []


@pytest.mark.parametrize("name,line,error", [
    # the shard's exception ends its stderr, then " rank=0" (the span's field) and the launcher's line (TGI 1.3)
    ("tgi1354_shard0_valueerror_failed_to_start.log", 15, "ValueError: `num_heads` must be divisible by `num_shards`"),
    # the launcher's own "Error: ShardCannotStart" between the stderr and its line (the two streams interleaved: TGI 1.0)
    ("tgi866_shard0_oom_failed_to_start.log", 4, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate"),
    ("tgi1156_shard0_port_in_use_failed_to_start.log", 3, "RuntimeError: The server socket has failed to listen"),
])
def test_tgi_shard_failed_to_start(name, line, error):
    text = (FIX / name).read_text()
    assert launcher_exit.detect(text)
    [f] = parse_text(text)
    assert (f.evidence.line, f.launcher, f.process_name, f.rank, f.how) == (
        line, "text-generation-launcher", "shard 0", 0, "failed to start")
    assert f.error.startswith(error)


def test_tgi_forms():
    # TGI 0.8's one record, the stderr in it (huggingface/text-generation-inference#402's JSON record, read as its line)
    [f] = parse_text('{"timestamp":"2023-06-02T14:12:37.201050Z","level":"ERROR","fields":{"message":"Shard 0 failed to '
                     'start:\\nA new version of the following files was downloaded"},"target":"text_generation_launcher"}\n')
    assert (f.process_name, f.how, f.error) == ("shard 0", "failed to start", "A new version of the following files was downloaded")
    # a shard that died of a signal, its stderr empty (the signal line between: subprocess_error's): no error of its own
    # (CONSTRUCTED from launcher/src/main.rs, the lines in the order it logs them)
    text = ("2024-03-06T17:53:31.052367Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:\n"
            " rank=0\n"
            "2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 4 rank=0\n"
            "Error: ShardCannotStart\n"
            "2024-03-06T17:53:31.149443Z ERROR text_generation_launcher: Shard 0 failed to start\n")
    [f] = parse_text(text)
    assert (f.evidence.line, f.rank, f.error) == (5, 0, None)
    # after start (CONSTRUCTED: "Shard {rank} crashed", "Webserver Crashed")
    got = parse_text("2024-01-01T00:00:00.000000Z ERROR text_generation_launcher: Shard 1 crashed\n"
                     "2024-01-01T00:00:01.000000Z ERROR text_generation_launcher: Webserver Crashed\n")
    assert [(f.process_name, f.rank, f.how) for f in got] == [("shard 1", 1, "crashed"), ("webserver", None, "crashed")]



def test_deepspeed_launcher_record_cut_before_its_code():
    # deepspeedai/DeepSpeed#5066: the command wrapped onto a second line and cut before " exits with return code = N"
    text = (FIX / "deepspeed5066_sigkill_handler_cut_before_code.log").read_text()
    assert launcher_exit.detect(text)
    [f] = parse_text(text)
    assert (f.evidence.line, f.launcher, f.process_name, f.exit_code) == (1, "DeepSpeed launcher", "a worker", None)


@pytest.mark.parametrize("text,code", [
    # CONSTRUCTED from deepspeed/launcher/launch.py's logger.error(f"{cmd} exits with return code = {last_return_code}")
    ("[2024-03-01 10:00:00,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
     "'--local_rank=1'] exits with return code = 1\n", 1),
    # the same, the list wrapped by a terminal: the code on the record's second line
    ("[2024-03-01 10:00:00,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_ra\n"
     "nk=1'] exits with return code = 2\n", 2),
])
def test_deepspeed_launcher_nonnegative_code(text, code):
    [f] = parse_text(text)
    assert (f.launcher, f.exit_code) == ("DeepSpeed launcher", code)


def test_deepspeed_launcher_signal_and_info_records_are_not_read():
    # a negative code is a signal (subprocess_error's: databrickslabs/dolly#166's -9); the handler's INFO records name no command
    minus9 = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/subprocess_error/dolly166_deepspeed_launcher_minus9.txt").read_text()
    assert parse_text(minus9) == []
    assert parse_text("[2024-02-03 11:48:17,107] [INFO] [launch.py:316:sigkill_handler] Killing subprocess 2694488\n") == []
