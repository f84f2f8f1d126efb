"""horovod_stall: Horovod's stall inspector naming the ranks the others wait for."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import horovod_stall
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/horovod_stall"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return horovod_stall.parse(art).facts


@pytest.mark.parametrize("name,line,missing,ready,seconds,tensors", [
    # mpirun's [1,0]<stderr>: prefix, the head hard-wrapped mid-word ("remaind" / "er of ranks for more than 60 seconds")
    ("horovod1442_stalled_ranks_mpirun_wrapped.log", 5, "6", None, 60, 6),
    # the tensor list of rank 0 continued on the next line
    ("horovod1206_stalled_ranks_list_wrapped.txt", 1, "0", None, 60, 6),
    # the oldest form: the ranks that did submit; the excerpt starts at the second sentence
    ("horovod100_stalled_ops_ready_ranks.txt", 1, None, "1", None, 4),
    # 0.16's operations.cc: a tensor a line with its missing ranks, under docker-compose's prefix
    ("openseq2seq456_stalled_ops_missing_ranks_compose.txt", 1, "0", None, 60, 2),
    # the oldest form's tensor lines alone, neither the sentence nor "Stalled ops:" kept above them
    ("horovod530_ready_ranks_tensor_lines_only.txt", 1, None, "0, 1, 3, 4, 5, 6", None, 5),
])
def test_stall_warning_forms(name, line, missing, ready, seconds, tensors):
    text = (FIX / name).read_text()
    assert horovod_stall.detect(text)
    got = [(f.evidence.line, f.missing_ranks, f.ready_ranks, f.seconds, f.tensors, f.shutdown) for f in parse_text(text)]
    assert got[0] == (line, missing, ready, seconds, tensors, False)
    # horovod1442: the excerpt ends in the next warning's head (line 9), cut before its ranks: that stall's repeat,
    # counted on the warning that named rank 6, not a stall of unknown ranks of its own
    assert len(got) == 1
    assert [f.repeats for f in parse_text(text)] == [1 if name.startswith("horovod1442") else None]


def test_a_warning_without_a_list_is_a_repeat_only_after_one_that_named_ranks():
    cut = (FIX / "horovod1442_stalled_ranks_mpirun_wrapped.log").read_text().splitlines(keepends=True)[8]
    # the cut warning alone (or first): a stall whose ranks the text does not show
    assert [(f.missing_ranks, f.repeats) for f in parse_text(cut)] == [(None, None)]
    named = (FIX / "horovod1206_stalled_ranks_list_wrapped.txt").read_text()
    assert [(f.missing_ranks, f.repeats) for f in parse_text(cut + named)] == [(None, None), ("0", None)]
    # after the oldest form's ready-ranks warning (no missing ranks named): not its repeat
    ready = (FIX / "horovod100_stalled_ops_ready_ranks.txt").read_text()
    assert [(f.ready_ranks, f.repeats) for f in parse_text(ready + cut)] == [("1", None), (None, None)]
    # two warnings that each list their ranks stay two (each its own stall, or the same one listed again)
    assert [f.repeats for f in parse_text(named + named)] == [None, None]


def test_current_form_with_shutdown():
    # stall_inspector.cc today: "Missing ranks:", "N!:" past HOROVOD_STALL_SHUTDOWN_TIME_SECONDS, then "Will shutdown."
    text = ("[2021-01-01 00:00:00.000000: E horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be "
            "reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 "
            "seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of "
            "ranks is submitting tensors, which will cause deadlock. \nMissing ranks:\n2!: [grad_a, grad_b]\n3: [grad_a]\n"
            "One or more rank (marked by \"!\") is stalled for longer than 300 seconds. Will shutdown.\n")
    [f] = parse_text(text)
    assert (f.missing_ranks, f.shutdown, f.tensors, f.seconds) == ("2, 3", True, 3, 60)


def test_two_warnings_two_facts_and_near_misses():
    one = (FIX / "horovod1206_stalled_ranks_list_wrapped.txt").read_text()
    assert [f.evidence.line for f in parse_text(one + one)] == [1, 5]
    # a rank-like line outside a "Missing/Stalled ranks:" list is not a rank; no warning, no fact
    assert parse_text("epoch 3\n6: [0.1, 0.2]\nloss 0.5\n") == []
    assert not horovod_stall.detect("horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed\n")
    # a rank list in other words is not Horovod's tensor line
    assert not horovod_stall.detect("waiting for ready ranks: 0, 1\n[ranks: 3]\n")


def test_ready_ranks_with_the_launch_command_name_the_absent():
    """The oldest form lists the ranks that submitted (horovod#530's tensor lines); the launch command in the same
    paste (Horovod's docs: 'horovodrun -np 4 ...', 'mpirun -np 4 ...') gives the job's size, so the others are named.
    Without it, or with a ready rank beyond it, only the ranks below the highest ready one that are not ready are named
    (ranks run 0..N-1: those exist; #530's 7 workers: rank 2), and no job size."""
    lines = (FIX / "horovod530_ready_ranks_tensor_lines_only.txt").read_text()
    got = parse_text("$ horovodrun -np 8 -H server1:4,server2:4 python train.py\n" + lines)
    assert [(f.ready_ranks, f.job_ranks, f.absent_ranks) for f in got] == [("0, 1, 3, 4, 5, 6", 8, "2, 7")]
    mpi = "mpirun -np 7 -bind-to none -map-by slot -x NCCL_DEBUG=INFO python train.py\n" + lines
    assert [(f.job_ranks, f.absent_ranks) for f in parse_text(mpi)] == [(7, "2")]
    assert [(f.job_ranks, f.absent_ranks, f.rank) for f in parse_text(lines)] == [(None, "2", 2)]
    small = "horovodrun -np 4 python train.py\n" + lines  # rank 6 ready in a 4-rank job: another run's command
    assert [(f.job_ranks, f.absent_ranks) for f in parse_text(small)] == [(None, "2")]


@pytest.mark.parametrize("name,ready,absent,rank", [
    # 8 nodes of one GPU (the description's words, no launch command): ranks 1 and 5 never submitted
    ("horovod364_ready_ranks_two_absent.txt", "0, 2, 3, 4, 6, 7", "1, 5", None),
    # 16 ranks on one line, the stored copy cut inside it: rank 3 alone is absent below rank 15
    ("horovod312_ready_ranks_one_line.txt", "0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15", "3", 3),
])
def test_ready_ranks_alone_name_the_gaps(name, ready, absent, rank):
    [f] = parse_text((FIX / name).read_text())
    assert (f.ready_ranks, f.job_ranks, f.absent_ranks, f.rank, f.missing_ranks) == (ready, None, absent, rank, None)


def test_every_rank_ready_up_to_the_highest_names_none():
    # ranks 0..3 all ready: no rank below the highest is absent (the ones waited for, if any, are above it): none named
    [f] = parse_text("allreduce.fc.weight [ready ranks: 2, 0, 3, 1], \n")
    assert (f.absent_ranks, f.rank) == (None, None)


def test_horovodrun_tagged_missing_ranks_list():
    # horovod/horovod#2640: horovodrun's own '[0]<stderr>:' tag on every line (safe_shell_exec.py '{time}[{rank}]<{prefix}>:'),
    # today's 'Missing ranks:' list of ranks 0..11 (the stored copy cut inside rank 11's line)
    [f] = parse_text((FIX / "horovod2640_missing_ranks_horovodrun_tag.log").read_text())
    assert (f.evidence.line, f.missing_ranks, f.seconds, f.rank) == (2, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11", 60, None)
    [one] = parse_text("[0]<stderr>:Missing ranks:\n[0]<stderr>:6: [allreduce.noname.3]\n"
                       .join(["[0]<stderr>:One or more tensors were submitted to be reduced, gathered or broadcasted by subset of "
                              "ranks and are waiting for remainder of ranks for more than 60 seconds. \n", ""]))
    assert (one.missing_ranks, one.rank) == ("6", 6)
