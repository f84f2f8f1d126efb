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
                 "Exit code: 1\nProcess name: [[1,1],0]\n", "the job terminated normally\n", ""):
        assert not launcher_exit.detect(text)
        assert parse_text(text) == []
