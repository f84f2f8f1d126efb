"""torch_log: real captures as they are, public watchdog/elastic formats, malformed lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import torch_log
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/torch_log"
OBS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"


def parse_file(name: str, node: str = "node1"):
    path = FIX / name
    return torch_log.parse(Artefact(path=f"torch_log/{name}", text=path.read_text(), node=node))


def parse_text(text: str, node: str = "node1"):
    return torch_log.parse(Artefact(path="t.log", text=text, node=node))


def of(result, kind):
    return [f for f in result.facts if f.kind == kind]


def test_real_healthy_ddp_log_gives_no_facts():
    r = parse_file("ddp_allreduce_ok.log", node="vm")
    assert r.facts == [] and r.errors == []
    assert r.lines_used == 4  # the torchrun banner; the NCCL INFO lines belong to nccl_log


def test_detect_on_every_real_capture():
    for path in sorted(OBS.rglob("*")):
        if path.is_file() and path.suffix != ".md":  # the README quotes the captures
            head = path.read_text(errors="replace")[:65536]
            assert torch_log.detect(head) is (path.name == "ddp_allreduce_ok.log"), path


def test_deepspeed_logger_lines_are_a_training_log():
    # DeepSpeed's logger ("[time] [LEVEL] [file.py:line:function] message"), its time left out in the paste
    # (EleutherAI/gpt-neox#990, harvest case 604); its benign warning is read through knowledge/torch_warnings.yaml
    path = ROOT / "fixtures/harvest/cases/604-healthy-deepspeed-nccl-backend-not-yet-implemented-warning/app.txt"
    text = path.read_text()
    assert torch_log.detect(text)
    (w,) = of(parse_text(text), "torch_warning")
    assert (w.warning_id, w.benign, w.source_file, w.evidence.line) == ("deepspeed_backend_not_implemented", True, "comm.py", 1)
    # near misses: a Python traceback's frame and glog's "file.py:line]" are not DeepSpeed's logger
    assert not torch_log.detect('  File "train.py", line 12, in <module>\n')
    assert not torch_log.detect("I0912 08:14:05.123 1 main.py:154] Starting\n")


# (line, rank, pg_rank, pg, seq_num, op_type, numel_in, numel_out, timeout_ms, elapsed_ms)
WATCHDOG_ROWS = [
    # PyTorch 2.4 (hiyouga/LlamaFactory#7396, with the poster's log line number in front)
    ("[80747] [rank4]:[E321 02:07:08.414640780 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600067 milliseconds before timing out.",
     4, 4, None, 1580, "ALLREDUCE", 466119168, 466119168, 600000, 600067),
    # PyTorch 1.x (pytorch/pytorch#97066): no NumelIn/Out, no rank prefix
    ("[E ProcessGroupNCCL.cpp:464] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=10000) ran for 10917 milliseconds before timing out.",
     0, 0, None, 1, "ALLREDUCE", None, None, 10000, 10917),
    # thread-terminated line carries the PG (NVIDIA/nccl#1504)
    ("[rank1]:[E1103 07:34:57.462234381 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn=18446744073709551615, NumelOut=18446744073709551615, Timeout(ms)=1800000) ran for 1800014 milliseconds before timing out.",
     1, 1, "0", 1, "COALESCED", 18446744073709551615, 18446744073709551615, 1800000, 1800014),
    # 1.x async error handling (NVIDIA/nccl#1438)
    ("RuntimeError: NCCL communicator was aborted on rank 0.  Original reason for failure was: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=35582, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800366 milliseconds before timing out.",
     0, 0, None, 35582, "ALLREDUCE", None, None, 1800000, 1800366),
    # subgroup: global rank from the prefix, group rank from the message
    ("[rank12]:[E218 04:54:23.1 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=87, OpType=ALLTOALL, NumelIn=3150848, NumelOut=3150848, Timeout(ms)=600000) ran for 600000 milliseconds before timing out.",
     12, 0, None, 87, "ALLTOALL", 3150848, 3150848, 600000, 600000),
]


@pytest.mark.parametrize("line,rank,pg_rank,pg,seq,op,nin,nout,tmo,el", WATCHDOG_ROWS)
def test_watchdog_timeout_line(line, rank, pg_rank, pg, seq, op, nin, nout, tmo, el):
    r = parse_text(line)
    assert r.errors == []
    (f,) = of(r, "torch_watchdog_timeout")
    assert (f.rank, f.pg_rank, f.pg, f.seq_num, f.op_type, f.numel_in, f.numel_out, f.timeout_ms, f.elapsed_ms) == (
        rank, pg_rank, pg, seq, op, nin, nout, tmo, el)
    assert f.evidence.line == 1 and f.evidence.text == line


# (line, rank, pg, pg_name, enqueued, completed, timeout_seq)
PROGRESS_ROWS = [
    # PyTorch 2.3, no timestamp (vllm-project/vllm#5458)
    ("[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.",
     3, "0", None, 1, 0, 1),
    ("[rank7]:[E816 01:45:40.184373931 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 7] Exception (either an error or timeout) detected by watchdog at work: 80078, last enqueued NCCL work: 80078, last completed NCCL work: 80077.",
     7, "0", "default_pg", 80078, 80077, 80078),
    ("[rank118]:[E603 17:48:01.005538748 ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id: 2398459 PG status: last enqueued work: 2398578, last completed work: 2398458",
     118, "0", "default_pg", 2398578, 2398458, 2398459),
    ("[rank1]:[E1103 07:34:57.460801783 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank 1] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: -1.",
     1, "0", "default_pg", 1, -1, 1),
    ("[rank0]:[E1213 17:24:49.328237228 ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: 747, last completed NCCL work: 715.This is most likely caused by incorrect usages of collectives.",
     0, "0", "default_pg", 747, 715, None),
]


@pytest.mark.parametrize("line,rank,pg,name,enq,comp,at", PROGRESS_ROWS)
def test_progress_line(line, rank, pg, name, enq, comp, at):
    r = parse_text(line)
    assert r.errors == []
    (f,) = of(r, "torch_nccl_progress")
    assert (f.rank, f.pg, f.pg_name, f.last_enqueued_seq, f.last_completed_seq, f.timeout_seq) == (
        rank, pg, name, enq, comp, at)


NEGATIVE = [
    "vm:1708:1708 [0] NCCL INFO NET/IB : No device found.",
    "W1129 18:30:26.245000 1668 torch/distributed/run.py:851] *****************************************",
    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 886321 closing signal SIGTERM",
    "rank 0 done 64.0",
    "",
]


@pytest.mark.parametrize("line", NEGATIVE)
def test_lines_that_are_no_failure(line):
    r = parse_text(line)
    assert r.facts == [] and r.errors == []


def test_several_ranks_one_file_pg_filled_from_progress_line():
    r = parse_file("llamafactory7396_torch24_pg.log")
    t = {f.rank: f for f in of(r, "torch_watchdog_timeout")}
    assert sorted(t) == [0, 4]
    assert {f.seq_num for f in t.values()} == {1580}
    assert (t[0].pg, t[0].elapsed_ms, t[4].elapsed_ms, t[4].pg) == ("1", 600060, 600067, None)  # rank 4 printed no progress line
    p = {f.rank: f for f in of(r, "torch_nccl_progress")}
    assert sorted(p) == [0, 3]
    assert (p[0].last_enqueued_seq, p[0].last_completed_seq, p[0].timeout_seq, p[0].evidence.line) == (1582, 1579, 1580, 3)


def test_pg_id_guid_lines_fill_the_pg_and_dump_signal_has_no_timeout_seq():
    r = parse_file("watchdog_pgid_guid.log")
    t = [(f.rank, f.seq_num, f.pg, f.pg_name) for f in of(r, "torch_watchdog_timeout")]
    assert t == [(7, 460631, "0", "default_pg"), (1, 1, "0", "default_pg")]  # rank 1's thread-terminated line repeats its timeout
    p = {f.rank: f for f in of(r, "torch_nccl_progress")}
    assert (p[2].last_enqueued_seq, p[2].timeout_seq, p[2].evidence.line) == (460631, None, 1)  # "dump signal ... from  rank 6"
    assert (p[7].timeout_seq, p[7].last_completed_seq) == (460631, 460630)
    sub = [f for f in of(r, "torch_nccl_progress") if f.pg == "13"]
    assert [(f.rank, f.pg_rank, f.timeout_seq) for f in sub] == [(12, 0, 87)]


def test_hashed_pg_guid_gives_the_group():
    # PrimeIntellect-ai/prime-rl#3186: a group named by the SHA-1 of its ranks (PG GUID d03ba1...): its progress line
    # names PG 3, and the watchdog line of the same rank and work, which prints no PG, takes it from there; rank 0's
    # dump-signal progress is of the default group (its 1261 is no sequence number of PG 3's)
    r = parse_file("primerl3186_hashed_pg_guid_alltoall.log")
    t = of(r, "torch_watchdog_timeout")
    assert [(f.rank, f.pg_rank, f.pg, f.seq_num, f.op_type) for f in t] == [(13, 1, "3", 1438, "ALLTOALL_BASE")]
    p = sorted((f.rank, f.pg, f.pg_rank, f.last_enqueued_seq) for f in of(r, "torch_nccl_progress"))
    assert p == [(0, "0", 0, 1261), (13, "3", 1, 1441)]
    e = [(f.rank, f.pg, f.event) for f in of(r, "torch_watchdog_event") if f.event == "failure_at_work"]
    # the second: the recorder's 'Stack trace of the failed collective: ' line after it (2.6+ printTraceback), no group named
    assert e == [(13, "3", "failure_at_work"), (13, None, "failure_at_work")]


def test_old_format_without_numel():
    r = parse_file("watchdog_torch1x_no_numel.log")
    t = of(r, "torch_watchdog_timeout")
    # the PR's two runs time out the same work (rank 0, SeqNum 1): one fact, the first line's
    assert [(f.rank, f.seq_num, f.elapsed_ms, f.evidence.line) for f in t] == [(0, 1, 10917, 1), (0, 35582, 1800366, 6)]
    (w,) = of(r, "torch_worker_failed")
    assert (w.local_rank, w.pid, w.exitcode, w.signal, w.rank) == (1, 886322, -6, "SIGABRT", None)


def test_blocking_wait():
    r = parse_file("blocking_wait.log")
    t = {f.rank: f for f in of(r, "torch_watchdog_timeout")}
    assert (t[1].blocking_wait, t[1].elapsed_ms) == (False, 600000)  # the watchdog line came first
    assert (t[7].blocking_wait, t[7].elapsed_ms, t[7].seq_num) == (True, None, 2521)


def test_desync_report_real_capture():
    r = parse_file("h200_straggler_desync.log", node="vm")
    (d,) = of(r, "torch_collective_desync")
    assert (d.rank, d.reporting_pg_rank, d.timeout_op, d.timeout_seq, d.lagging_rank, d.state, d.collective_seq) == (
        0, 0, "ALLREDUCE", 4, 1, "finished_not_joined_next", 3)
    assert d.evidence.line == 150


def test_failure_detected_at_work_sequence_id_torch26():
    r = parse_file("watchdog_torch26_failure_detected.log")
    p = {(f.rank, f.last_enqueued_seq): f for f in of(r, "torch_nccl_progress")}
    assert p[(118, 2398578)].last_completed_seq == 2398458 and p[(118, 2398578)].timeout_seq == 2398459
    assert p[(0, 747)].timeout_seq is None  # the dump-signal line names no timed-out work


def test_desync_report_tracemap_states():
    r = parse_file("desync_tracemap.log")
    d = [(f.reporting_pg_rank, f.lagging_rank, f.state, f.collective_seq) for f in of(r, "torch_collective_desync")]
    assert d == [(2, 3, "joined_not_finished", 5), (0, 5, "never_joined", None), (0, 6, "never_joined", None)]


def test_child_failed_table_one_fact_per_rank():
    r = parse_file("elastic_child_failed.log")
    w = sorted(of(r, "torch_worker_failed"), key=lambda f: f.rank)
    assert [(f.rank, f.local_rank, f.pid, f.exitcode, f.signal, f.root_cause, f.node) for f in w] == [
        (0, 0, 2385922, -6, "SIGABRT", True, "neptun"),
        (1, 1, 2385923, -6, "SIGABRT", False, "neptun"),
        (2, 2, 2385924, -6, "SIGABRT", False, "neptun"),
    ]
    assert w[0].evidence.text == "  exitcode  : -6 (pid: 2385922)" and w[0].evidence.line == 30


def test_child_failed_table_record_without_its_entry_line():
    """A record of the table pasted from its 'time' field on, without the '[0]:' line (Megatron-LM#1880's
    excerpt): one failed worker, its host and signal; the whole table still gives one fact per entry, and
    the rank field without an exit code gives none."""
    r = parse_file("megatron1880_b200_record_without_entry_line.log")
    assert torch_log.detect((FIX / "megatron1880_b200_record_without_entry_line.log").read_text())
    w = of(r, "torch_worker_failed")
    assert [(f.rank, f.local_rank, f.pid, f.exitcode, f.signal, f.root_cause, f.node) for f in w] == [
        (0, 0, 3304209, -11, "SIGSEGV", False, "yotta-B200-232")]
    assert w[0].evidence.line == 4 and r.errors == []
    table = (FIX / "elastic_child_failed.log").read_text()
    assert len(of(parse_text(table), "torch_worker_failed")) == 3  # each entry once, not again as headless
    assert of(parse_text("  host      : h1\n  rank      : 0 (local_rank: 0)\n"), "torch_worker_failed") == []


def test_child_failed_table_exit_code_without_pid_or_with_signal_name():
    """A record whose exit code was pasted without its '(pid: N)' (ColossalAI#3582) is still one failed worker,
    its pid unknown, no parse problem; torch 2.x's ' (SIGSEGV)' after the pid names the signal."""
    r = parse_file("colossalai3582_failures_table_without_pid.log")
    w = of(r, "torch_worker_failed")
    assert [(f.rank, f.local_rank, f.pid, f.exitcode, f.signal, f.root_cause, f.node) for f in w] == [
        (1, 0, None, 1, None, True, "gpu21")]
    assert r.errors == []
    text = ("Root Cause (first observed failure):\n[0]:\n  time      : 2025-01-01_00:00:00\n  host      : h1\n"
            "  rank      : 3 (local_rank: 3)\n  exitcode  : -11 (pid: 4242)  (SIGSEGV)\n  error_file: <N/A>\n")
    w = of(parse_text(text), "torch_worker_failed")
    assert [(f.rank, f.pid, f.exitcode, f.signal) for f in w] == [(3, 4242, -11, "SIGSEGV")]


def test_child_failed_table_records_joined_onto_one_line():
    """A log console that joins each record of the failures table onto one line, the column padding and line breaks
    each one blank, behind its own event prefix (CloudWatch as SageMaker shows it, litData#340): one failed worker a
    record, its host the node, SIGABRT from its exit code; no line left to the catch-all."""
    name = "litdata340_cloudwatch_failures_table_one_line_per_record.log"
    assert torch_log.detect((FIX / name).read_text())
    r = parse_file(name)
    w = of(r, "torch_worker_failed")
    assert [(f.rank, f.local_rank, f.pid, f.exitcode, f.signal, f.node, f.evidence.line) for f in w] == [
        (n, n, 187 + n, -6, "SIGABRT", "algo-2", n - 1) for n in range(2, 8)]
    assert r.errors == [] and not any(f.root_cause for f in w)  # the table's title is not in the excerpt
    # under the table's "Root Cause" title (torch's own words) the record is the first observed failure
    first = (FIX / name).read_text().splitlines()[0]
    w = of(parse_text("Root Cause (first observed failure):\n" + first + "\n"), "torch_worker_failed")
    assert [(f.rank, f.exitcode, f.signal, f.root_cause, f.node) for f in w] == [(2, -6, "SIGABRT", True, "algo-2")]
    # the table's ordinary form still gives one fact per entry, not a second one from the joined form
    assert len(of(parse_text((FIX / "elastic_child_failed.log").read_text()), "torch_worker_failed")) == 3
    # a prose mention of a rank field is no record
    assert of(parse_text("rank : 2 (local_rank: 2) of the job exited\n"), "torch_worker_failed") == []


def test_paddle_external_nccl_error():
    """PaddlePaddle's enforce raises NCCL's result as '(External) NCCL error(<n>), <ncclGetErrorString>.'
    (PaddleDetection#7380): one NCCL error, ncclSystemError, read like c10d's."""
    r = parse_file("paddledetection7380_paddle_external_nccl_error.log")
    assert torch_log.detect((FIX / "paddledetection7380_paddle_external_nccl_error.log").read_text())
    e = of(r, "torch_nccl_error")
    assert [(f.nccl_error, f.evidence.line) for f in e] == [("ncclSystemError", 3)]


def test_child_failed_table_folder_node_wins():
    path = FIX / "elastic_child_failed.log"
    a = Artefact(path="n/x.log", text=path.read_text(), node="gpu-a", node_from_folder=True)
    assert {f.node for f in torch_log.parse(a).facts} == {"gpu-a"}


def test_elastic_failed_line_versions():
    r = parse_file("elastic_failed_versions.log")
    assert [(f.local_rank, f.pid, f.exitcode, f.signal) for f in of(r, "torch_worker_failed")] == [
        (2, 5939, 1, None), (5, 2630, -9, "SIGKILL"), (0, 3304209, -11, "SIGSEGV")]


def test_nccl_errors_with_detail_lines():
    r = parse_file("nccl_error_forms.log")
    e = of(r, "torch_nccl_error")
    # an error whose forwarded "Last error:" is an NCCL message the NCCL parser knows cites that
    # message (socketProgressOpt's failed recv, its peer address masked as posted)
    assert [(f.evidence.line, f.nccl_error, f.last_error) for f in e] == [
        (4, "ncclRemoteError", "socketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer"),
        (9, "ncclUnhandledCudaError", "Cuda failure 1 'invalid argument'"),
        (10, "ncclSystemError", None),
        (12, "ncclSystemError", None),
    ]
    (boot,) = of(r, "nccl_bootstrap_failure")  # the peer went away: read as a closed connection
    assert (boot.evidence.line, boot.reason, boot.peer) == (4, "connection_closed", "172....<33759>")
    assert e[0].peer == "172....<33759>" and not e[0].peer_loopback
    # ... and NCCL's message is the NCCL fact it stands for, as the NCCL log parser makes it
    (cuda,) = of(r, "nccl_cuda_failure")
    assert (cuda.evidence.line, cuda.error, cuda.error_code, cuda.nvls) == (9, "invalid argument", 1, False)
    assert e[0].message.startswith("remote process exited or there was a network error")
    assert e[2].message == "unhandled system error, NCCL version 2.7.8"  # the 1.x RuntimeError form
    # c10d's ncclGetErrorWithVersion names the library torch loaded: knowledge keyed by NCCL version reads it
    assert e[2].nccl_version == "2.7.8"
    assert of(r, "torch_watchdog_timeout") == []  # "Collective WorkNCCL(...) raised" is no timeout


def test_nccl_version_of_pytorch_that_decoded_the_code_the_old_way():
    """PyTorch 1.10's getNcclVersion decoded NCCL 2.10.3's code 21003 as "21.0.3" (version / 1000, ...): read as the
    release it is, so version rules and the known-issue table see 2.10.3 (the line: NVIDIA/nccl#1068)."""
    r = parse_text("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:957, "
                   "unhandled cuda error, NCCL version 21.0.3\n"
                   "ncclUnhandledCudaError: Call to CUDA function failed.\n")
    (e,) = of(r, "torch_nccl_error")
    assert e.nccl_version == "2.10.3" and e.message.endswith("NCCL version 21.0.3")  # the message as printed


def test_c10d_1x_nccl_check_from_nccl_utils():
    """PyTorch 1.x's C10D_NCCL_CHECK thrown from NCCLUtils.hpp (std::runtime_error, no ProcessGroupNCCL
    or DistBackendError on the line), among srun's lines (facebookresearch/ParlAI#3084)."""
    text = (FIX / "parlai3084_nccl_utils_invalid_argument_srun.log").read_text()
    assert torch_log.detect(text)
    r = parse_file("parlai3084_nccl_utils_invalid_argument_srun.log")
    (e,) = of(r, "torch_nccl_error")
    assert (e.evidence.line, e.nccl_error, e.nccl_version) == (1, "ncclInvalidArgument", "2.4.8")
    # the form needs a file:line and one of ncclGetErrorString's texts after it (constructed lines)
    for line in ("see the NCCL error in: our docs, invalid argument", "NCCL error in: /x/NCCLUtils.hpp:82, success"):
        assert not torch_log.detect(line), line


def test_host_prefix_and_other_prefixes():
    r = parse_file("srun_ray_prefixes.log", node="unknown")
    t = [(f.node, f.rank, f.elapsed_ms) for f in of(r, "torch_watchdog_timeout")]
    assert t == [("node17", 0, 600060), ("node18", 4, 600067), ("unknown", 3, 600021), ("unknown", 1, 600027)]
    p = [(f.rank, f.pg, f.timeout_seq) for f in of(r, "torch_nccl_progress")]
    assert p == [(3, "5", 8), (1, "1", 158046)]


def test_malformed_lines_are_errors_with_file_and_line():
    r = parse_file("malformed.log")
    assert [(e.path, e.line) for e in r.errors] == [
        ("torch_log/malformed.log", 1), ("torch_log/malformed.log", 2), ("torch_log/malformed.log", 3)]
    assert "abc" in r.errors[0].message
    (ok,) = of(r, "torch_watchdog_timeout")
    assert (ok.rank, ok.evidence.line) == (3, 4)


def test_mixed_terminal_session():
    r = parse_file("mixed_session.txt")
    # the progress line says what it means too (torch_watchdog_event) and gives the numbers (torch_nccl_progress)
    assert [f.kind for f in r.facts] == ["torch_watchdog_event", "torch_watchdog_timeout", "torch_nccl_progress", "torch_worker_failed"]
    assert [f.evidence.line for f in r.facts] == [7, 6, 7, 12]
    assert r.lines_used == 3 and r.errors == []


def test_carriage_returns_do_not_shift_lines():
    text = "a\r\nb\r\n" + WATCHDOG_ROWS[0][0] + "\r\n"
    (f,) = parse_text(text).facts
    assert f.evidence.line == 3 and f.evidence.text == WATCHDOG_ROWS[0][0]


def test_empty_input():
    r = parse_text("")
    assert (r.facts, r.errors, r.lines_used) == ([], [], 0)


def test_flattened_srun_traceback_and_bare_nccl_messages():
    """A traceback pasted onto one line keeps its srun labels (awsome-distributed-ai#192); NCCL
    messages pasted without NCCL's prefix (facebookresearch/msn#24, pytorch#177472)."""
    r = parse_file("forwarded_nccl.log")
    (t0, t1) = of(r, "torch_nccl_error")
    assert (t0.evidence.line, t0.nccl_error, t0.peer, t0.peer_loopback) == (1, "ncclSystemError", "127.0.0.1<45069>", True)
    assert t0.last_error == "socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused connection abort"
    assert (t1.evidence.line, t1.nvls, t1.peer_loopback) == (6, True, False)
    (boot,) = of(r, "nccl_bootstrap_failure")
    assert (boot.evidence.line, boot.peer) == (1, "127.0.0.1<45069>")
    (nvls,) = of(r, "nccl_cuda_failure")
    assert (nvls.evidence.line, nvls.error_code, nvls.nvls, nvls.error) == (
        6, 401, True, "the operation cannot be performed in the present state")
    (dup,) = of(r, "nccl_duplicate_gpu")
    assert (dup.evidence.line, dup.rank, dup.other_rank, dup.bus_id) == (9, 0, 1, "0000:00:04.0")
    # NCCL's own log lines are the NCCL parser's, not read twice
    assert not [f for f in r.facts if f.evidence.line == 10]


def test_nccl_message_quoted_in_a_sentence():
    """NCCL's message quoted in a code span after the reporter's words (NVlabs/Sana#204, verl-project/verl#1752): read
    as pasted alone (torch_nccl_forwarded.QUOTED); the words around it are not the message."""
    for name, line, rank, other, bus in (("sana204_duplicate_gpu_backticked_in_sentence.txt", 9, 1, 0, "0000:00:05.0"),
                                         ("verl1752_duplicate_gpu_quoted_after_prose.txt", 13, 0, 1, "0000:69:00.0")):
        text = (FIX / name).read_text()
        assert torch_log.detect(text), name
        (dup,) = of(parse_file(name), "nccl_duplicate_gpu")
        assert (dup.evidence.line, dup.rank, dup.other_rank, dup.bus_id) == (line, rank, other, bus)
    # CONSTRUCTED from NCCL's format (src/init.cc): straight and typographic double quotes are the same span
    for text in ('I get "Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000" at init\n',
                 "I get \u201cDuplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000\u201d at init\n"):
        assert torch_log.detect(text)
        (dup,) = of(parse_text(text), "nccl_duplicate_gpu")
        assert (dup.rank, dup.other_rank, dup.bus_id) == (2, 0, "0000:01:00.0")
    # must not claim a text alone: a span that holds no message read() reads, an unclosed span, two spans on the line
    for text in ("see `Duplicate GPU detected` in the docs\n",
                 "it causes `Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 69000\n",
                 "`a` then `Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 69000`\n"):
        assert not torch_log.detect(text), text
    assert not of(parse_text("see `Duplicate GPU detected` in the docs\n"), "nccl_duplicate_gpu")


def test_dataloader_worker_killed_by_a_signal():
    """torch/csrc/DataLoader.cpp's 'DataLoader worker (pid N) is killed by signal: <strsignal>. '
    (real: OpenNMT-Tutorial#6), Bus error's shared-memory hint after it."""
    res = torch_log.parse(Artefact(path="t.log", node="colab",
                                   text=(FIX / "opennmt_tutorial6_dataloader_worker_killed.log").read_text()))
    [w] = [f for f in res.facts if f.kind == "dataloader_worker_killed"]
    assert (w.pid, w.signal, w.evidence.line) == (629, "Killed", 1)
    bus = "RuntimeError: DataLoader worker (pid 22358) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n"
    assert torch_log.detect(bus)
    [w] = [f for f in torch_log.parse(Artefact(path="b.log", node="n", text=bus)).facts if f.kind == "dataloader_worker_killed"]
    assert w.signal == "Bus error"


@pytest.mark.parametrize("line, pid, signal", [
    # runcomfy.com's LTX-2 /dev/shm page: the pid redacted, the line ending at the signal's name
    ("DataLoader worker (pid XXX) is killed by signal: Bus error\n", None, "Bus error"),
    ("RuntimeError: DataLoader worker (pid xxx) is killed by signal: Killed.\n", None, "Killed"),
    ("RuntimeError: DataLoader worker (pid ...) is killed by signal: Bus error. It is possible that dataloader's workers are "
     "out of shared memory.\n", None, "Bus error"),
    ("RuntimeError: DataLoader worker (pid 629) is killed by signal: Killed\n", 629, "Killed"),
])
def test_dataloader_worker_killed_pid_redacted_or_line_ending_at_the_signal(line, pid, signal):
    assert torch_log.detect(line)
    [w] = [f for f in torch_log.parse(Artefact(path="b.log", node="n", text=line)).facts if f.kind == "dataloader_worker_killed"]
    assert (w.pid, w.signal) == (pid, signal)


@pytest.mark.parametrize("line", [
    "RuntimeError: DataLoader worker (pid abc) is killed by signal: Bus error.\n",  # no pid, no redaction
    "RuntimeError: DataLoader worker (pid 12) is killed by signal: Bus error (core dumped) here\n",  # text after the name
])
def test_dataloader_worker_killed_near_misses(line):
    assert not [f for f in torch_log.parse(Artefact(path="b.log", node="n", text=line)).facts if f.kind == "dataloader_worker_killed"]


def test_nccl_error_raised_by_a_python_wrapper_of_nccl():
    # vLLM's (and SGLang's) pynccl_wrapper.py NCCL_CHECK: raise RuntimeError(f"NCCL error: {error_str}");
    # the line is vLLM's troubleshooting docs', verbatim
    line = "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
    assert torch_log.detect(line)
    (e,) = of(parse_text(line), "torch_nccl_error")
    assert (e.nccl_error, e.nccl_version) == ("ncclSystemError", None)
    # near miss: "NCCL error:" followed by no text of ncclGetErrorString() is not this form
    assert not torch_log.detect("RuntimeError: NCCL error: something else\n")
    # and not read where the text is a PyTorch log for other lines: an e-mail reply's Subject quoting an issue's
    # title above the forwarded error (xorbitsai/inference#1622, real lines; wild sweep rK2)
    text = ("Subject: Re: [xorbitsai/inference] BUG: NCCL error: (Issue #1622)\n"
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970,"
            " unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n")
    assert [(e.evidence.line, e.nccl_error) for e in of(parse_text(text), "torch_nccl_error")] == [(2, "ncclSystemError")]


def test_the_raising_code_a_traceback_quotes_is_no_nccl_error():
    # the frame's source line above the error (https://github.com/sgl-project/sglang/issues/8974, as pasted): one
    # error, the raised one; the f-string's "{error_str}" is no message
    text = (FIX / "pynccl_check_raise_sglang8974.log").read_text()
    assert [(e.evidence.line, e.nccl_error) for e in of(parse_text(text), "torch_nccl_error")] == [(3, "ncclSystemError")]


@pytest.mark.parametrize("line,rank,reason", [
    ("NCCL communicator was aborted on rank 0", 0, None),  # PeterGriffinJin/Search-R1#170, from its title
    ("RuntimeError: NCCL communicator was aborted on rank 2.", 2, None),  # PyTorch 1.x
    ("torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1.  Original reason for failure was: "
     "Work: WorkNCCL(OpType=ALLREDUCE, TensorShape=[1], Timeout(ms)=2000) timed out in call to wait().", 1,
     "Work: WorkNCCL(OpType=ALLREDUCE, TensorShape=[1], Timeout(ms)=2000) timed out in call to wait()."),
])
def test_nccl_communicator_aborted(line, rank, reason):
    assert torch_log.detect(line)
    (f,) = of(parse_text(line), "torch_nccl_comm_aborted")
    assert (f.rank, f.reason) == (rank, reason)


def test_childfailederror_without_its_table_is_one_failed_worker():
    res = parse_text("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")
    (w,) = of(res, "torch_worker_failed")
    assert (w.rank, w.exitcode, w.sigkill, w.evidence.line) == (None, None, False, 1)
    # with its table, the table's entries alone (cppo6: -9, read as SIGKILL)
    (w,) = of(parse_file("cppo6_childfailed_sigkill.log"), "torch_worker_failed")
    assert (w.exitcode, w.sigkill) == (-9, True)


def test_dataloader_worker_shm_bus_error():
    res = parse_file("pipedream28_dataloader_bus_error.log")
    got = [(f.evidence.line, f.pid, f.signal) for f in of(res, "dataloader_worker_killed")]
    assert got == [(1, None, "Bus error"), (2, None, "Bus error"), (3, None, "Bus error"), (5, 325, "Bus error")]


def test_dataloader_worker_shm_bus_error_paddle():
    # PaddlePaddle's worker SIGBUS handler (paddle/fluid/imperative/data_loader.cc), PaddlePaddle/PaddleSpeech#790
    res = parse_file("paddlespeech790_paddle_dataloader_bus_error_docker.log")
    assert torch_log.detect((FIX / "paddlespeech790_paddle_dataloader_bus_error_docker.log").read_text())
    got = [(f.evidence.line, f.pid, f.signal) for f in of(res, "dataloader_worker_killed")]
    assert got == [(3, None, "Bus error")]


@pytest.mark.parametrize("text", [
    "NCCL communicator was created on rank 0",
    "ERROR: Unexpected bus error encountered in the test harness",
    "ERROR: Unexpected BUS error encountered in DataLoader worker.",  # without the shared-memory sentence
    "ERROR: Unexpected segmentation fault encountered in DataLoader workers.",  # Paddle's SIGSEGV handler
])
def test_abort_and_shm_near_misses(text):
    res = parse_text(text)
    assert of(res, "torch_nccl_comm_aborted") == [] and of(res, "dataloader_worker_killed") == []


# ProcessGroupNCCL's lines around a failed collective (torch_watchdog_events): each pasted alone still says it
@pytest.mark.parametrize("line, event, rank, seq", [
    ("[rank3]:[E ProcessGroupNCCL.cpp:577] [Rank 3] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
     "failed_ops", 3, None),
    ("[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.", "process_down", None, None),
    ("[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.",
     "timeout_at_work", 3, 1),
    ("[PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id: 2398459 PG status: last enqueued work: 2398578, last completed work: 2398458",
     "failure_at_work", 118, 2398459),
    ("[rank3]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 3] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1",
     "heartbeat_timeout", 3, None),
    ("[rank3]:[E ProcessGroupNCCL.cpp:1177] [Rank 3] monitoring thread detects no heartbeat and will finally kill the process!",
     "heartbeat_timeout", 3, None),  # 2.2's wording
    ("[rank6]:[F429 14:03:49.385461578 ProcessGroupNCCL.cpp:1554] [PG ID 0 PG GUID 0(default_pg) Rank 6] [PG ID 0 PG GUID 0(default_pg) Rank 6] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.",
     "watchdog_hang_exit", 6, None),
    # 2.6+: the rank whose watchdog signals the others to dump, and its flight-recorder lookup (NVIDIA/dgxc-benchmarking grok1/README.md)
    ("[rank368]:[E808 04:21:41.161045406 ProcessGroupNCCL.cpp:2147] [PG ID 0 PG GUID 0(default_pg) Rank 368] First PG on this rank to signal dumping.",
     "dump_signal", 368, None),
    ("[rank368]:[E808 04:21:41.161011710 ProcessGroupNCCL.cpp:693] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
     "failure_at_work", 368, None),
    # 2.6+ with the recorder on: the stack itself follows (WorkNCCL::printTraceback "Stack trace of the failed collective: \n")
    ("[rank3]:[E508 07:35:59.440171617 ProcessGroupNCCL.cpp:733] Stack trace of the failed collective: ",
     "failure_at_work", 3, None),
    # 2.2-2.3's heartbeat monitor told to dump (written from ProcessGroupNCCL.cpp's format strings): alone it read HEALTHY
    ("[PG 0 Rank 0] Received a timeout signal from this local rank and will start to dump the debug info. Last enqueued NCCL work: 2, last completed NCCL work: 1.",
     "dump_signal", 0, None),
    ("[PG 0 Rank 5] Received a global timeout from another rank and will start to dump the debug info. Last enqueued NCCL work: 7, last completed NCCL work: 7.",
     "dump_signal", 5, None),
    # 2.3+: the abort of the communicators (destroy_process_group, shutdown) not done in the group's timeout (mit-han-lab/distrifuser#6)
    ("[rank0]:[E ProcessGroupNCCL.cpp:1025] [PG 0 Rank 0] Future for ProcessGroup abort timed out after 600000 ms",
     "abort_timeout", 0, None),
])
def test_watchdog_events(line, event, rank, seq):
    assert torch_log.detect(line)
    r = parse_text(line + "\n")
    (e,) = [f for f in r.facts if f.kind == "torch_watchdog_event"]
    assert (e.event, e.rank, e.work_seq) == (event, rank, seq) and r.errors == []


@pytest.mark.parametrize("line", [
    # a comment about the stack, not ProcessGroupNCCL's line (a deployment note's wording)
    "# The stack trace of the failed collective on rank 10 names the caller:",
    "Stack trace of the failed collectives across ranks, collected by py-spy",
])
def test_failed_collective_stack_near_misses(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "torch_watchdog_event"] == []


def test_failed_collective_stack_as_pasted():
    # vllm-project/vllm#41160: the recorder's stack of the failed broadcast after the watchdog's line (its label as stored)
    r = parse_file("vllm41160_failed_collective_stack.log")
    assert [(f.kind, f.evidence.line, f.event) for f in r.facts if f.kind == "torch_watchdog_event"] == [
        ("torch_watchdog_event", 8, "failure_at_work")]


def test_checktimeout_backtrace_alone_is_a_timeout():
    # open-r1#620's backtrace without its what(): the header and frame #1 name the timeout check that built the error
    r = parse_file("openr1620_checktimeout_backtrace_alone.log")
    assert [(f.kind, f.evidence.line, f.event, f.rank) for f in r.facts] == [
        ("torch_watchdog_event", 1, "timeout_at_work", None), ("torch_watchdog_event", 4, "timeout_at_work", None)]
    # the frames alone, the header cut off (Lightning#20832's, particleflow#390's form)
    frames = (FIX / "openr1620_checktimeout_backtrace_alone.log").read_text().splitlines(keepends=True)[1:]
    assert [f.event for f in parse_text("".join(frames)).facts] == ["timeout_at_work"]
    # near misses: checkTimeout deeper in a backtrace only passed an error through; another function raised it
    assert parse_text("frame #4: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<long>) + 0x1d2 (0x7f in libtorch_cuda.so)\n").facts == []
    assert parse_text("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most recent call first):\n").facts == []


def test_watchdog_stuck_real():
    (e,) = parse_file("msswift7992_watchdog_stuck.log").facts
    assert (e.kind, e.event, e.stuck_s, e.rank, e.pg) == ("torch_watchdog_event", "watchdog_stuck", 480, 4, "12")


@pytest.mark.parametrize("line, blocking", [
    # PyTorch 1.8-1.10: WorkNCCL(OpType=..., TensorShape=..., Timeout(ms)=...) without SeqNum
    ("[E ProcessGroupNCCL.cpp:566] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, TensorShape=[1024, 512], Timeout(ms)=1800000) ran for 1800468 milliseconds before timing out.", False),
    # NCCL_BLOCKING_WAIT=1: the caller's wait() throws "Caught collective operation timeout" (no "Watchdog")
    ("RuntimeError: [Rank 1] Caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, Timeout(ms)=60000) ran for 60006 milliseconds before timing out.", True),
])
def test_watchdog_timeout_older_forms(line, blocking):
    assert torch_log.detect(line)
    (t,) = parse_text(line + "\n").facts
    assert (t.kind, t.rank, t.op_type, t.timeout_ms, t.blocking_wait) == ("torch_watchdog_timeout", 1, "ALLREDUCE", 1800000 if not blocking else 60000, blocking)


def test_comm_aborted_after_a_previous_error():
    # NCCLUtils.cpp (2.x): the communicator's abort without a rank
    line = "torch.distributed.DistBackendError: NCCL communicator was aborted after a previous error"
    assert torch_log.detect(line)
    (f,) = parse_text(line + "\n").facts
    assert (f.kind, f.rank, f.reason) == ("torch_nccl_comm_aborted", None, None)


def test_agent_failed_line_without_its_logger_prefix():
    # facts/lines.py strips Python logging's "ERROR:torch.distributed.elastic.multiprocessing.api:" (1.9-2.0):
    # what is left must still be recognised
    line = "failed (exitcode: -9) local_rank: 3 (pid: 4242) of binary: /usr/bin/python3"
    assert torch_log.detect(line)
    (f,) = parse_text(line + "\n").facts
    assert (f.kind, f.local_rank, f.pid, f.signal) == ("torch_worker_failed", 3, 4242, "SIGKILL")


def test_agent_failed_line_in_rich_handlers_columns():
    # huggingface/accelerate#1214: Accelerate's rich log handler wraps the message ("... of" / " binary: ...") and puts
    # the source "api.py:673" at the right of the first row; a log shipper's stamp ("056444Z ") prefixes the traceback
    text = (FIX / "accelerate1214_rich_handler_exitcode_minus_9.log").read_text()
    assert torch_log.detect(text)
    (f,) = of(parse_text(text), "torch_worker_failed")
    assert (f.evidence.line, f.local_rank, f.pid, f.exitcode, f.signal) == (9, 5, 22, -9, "SIGKILL")
    # an "of" ending a line without rich's source column is not the agent's line
    assert not torch_log.detect("failed (exitcode: -9) local_rank: 3 (pid: 4242) of\n")


def test_comm_init_failed_names_the_nccl_result():
    # NCCLUtils.cpp (2.14 of the wheels sampled): the communicator's init returned an ncclResult_t
    line = ("torch.distributed.DistBackendError: Failed to initialize NCCL communicator: unhandled system error "
            "(run with NCCL_DEBUG=INFO for details), NCCL version 2.27.3")
    assert torch_log.detect(line)
    (f,) = parse_text(line + "\n").facts
    assert (f.kind, f.nccl_error, f.nccl_version) == ("torch_nccl_error", "ncclSystemError", "2.27.3")


def test_watchdog_lines_cut_by_a_terminal_are_joined_with_their_continuation():
    # SGLang threads (#3368, #3424, #3932): a terminal cut the watchdog's lines at its width, inside
    # "NumelOut", "SeqNum", a number or "work"; the rest starts the next line with no prefix of its own
    r = parse_file("sglang_terminal_wrap.log")
    got = sorted((t.rank, t.seq_num, t.op_type, t.numel_in, t.numel_out, t.timeout_ms, t.elapsed_ms, t.evidence.line)
                 for t in of(r, "torch_watchdog_timeout"))
    assert got == [(2, 1522789, "_ALLGATHER_BASE", 298960, 4783360, 600000, 600094, 4),
                   (4, 151721, "_ALLGATHER_BASE", 8080, 129280, 600000, 600049, 7),
                   (6, 2, "ALLREDUCE", 1, 1, 600000, 600050, 1)]
    (p,) = of(r, "torch_nccl_progress")  # "last enqueued NCCL wor" / "k: 151721, ..." joins; line 10 repeats it
    assert (p.rank, p.last_enqueued_seq, p.last_completed_seq) == (4, 151721, 151720)
    assert not any("WorkNCCL" in e.message for e in r.errors)


def test_a_watchdog_message_word_wrapped_at_blanks_is_joined_with_blanks():
    # vllm-project/vllm#42354 (harvest 3104): a comment wrapped ProcessGroupNCCL's watchdog line by hand after
    # "timeout:" and inside WorkNCCL(...)'s arguments, the last part indented; rejoined with one blank each
    text = ("[Rank 1] Watchdog caught collective operation timeout:\n"
            "WorkNCCL(SeqNum=12590, OpType=_ALLGATHER_BASE, NumelIn=1404928, NumelOut=2809856,\n"
            "         Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n")
    assert torch_log.detect(text)
    (t,) = of(parse_text(text), "torch_watchdog_timeout")
    assert (t.rank, t.seq_num, t.op_type, t.numel_in, t.numel_out, t.timeout_ms, t.elapsed_ms, t.evidence.line) == (
        1, 12590, "_ALLGATHER_BASE", 1404928, 2809856, 600000, 600060, 1)
    # near misses: an indented line joins only an open argument list (a traceback's frame after the head does not);
    # a head whose next lines never complete the message stays unread
    assert of(parse_text("[Rank 1] Watchdog caught collective operation timeout:\n  File \"train.py\", line 3\n"),
              "torch_watchdog_timeout") == []
    assert of(parse_text("[Rank 1] Watchdog caught collective operation timeout:\nsome other text\nmore text\n"),
              "torch_watchdog_timeout") == []


def test_a_watchdog_head_cut_by_a_terminal_is_joined():
    # huggingface/nanotron#204: rank 2's line cut inside the watchdog's head ("Watchdog caught " / "collective
    # operation timeout: WorkNCCL(...)"), behind a progress bar without its newline; rank 3's cut after WorkNCCL(...)
    r = parse_file("nanotron204_watchdog_head_cut_after_caught.log")
    got = sorted((t.rank, t.seq_num, t.op_type, t.timeout_ms, t.elapsed_ms, t.evidence.line)
                 for t in of(r, "torch_watchdog_timeout"))
    assert got == [(2, 3, "ALLREDUCE", 600000, 600888, 1), (3, 3, "ALLREDUCE", 600000, 600892, 3)]
    assert r.errors == []
    # near miss: a head cut whose next line does not go on with the head's words stays unread
    assert of(parse_text("[Rank 2] Watchdog caught \nsome other text\n"), "torch_watchdog_timeout") == []


def test_a_cut_line_is_not_joined_with_a_record_nor_when_the_join_does_not_complete_it():
    # near misses: the next line starts a record of its own (a rank label, a traceback line); the
    # next line does not complete the message; a complete line takes nothing
    cut = "[rank6]:[E207 01:29:36.730311765 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, Nume"
    for nxt in ("[rank7]:[E207 01:29:36.730311765 ProcessGroupNCCL.cpp:616] [Rank 7] lOut=1, Timeout(ms)=600000) ran for 1 milliseconds before timing out.",
                "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):",
                "some other text"):
        r = parse_text(cut + "\n" + nxt + "\n")
        assert [t for t in of(r, "torch_watchdog_timeout") if t.rank == 6] == [], nxt
    whole = cut + "lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out."
    r = parse_text(whole + "\nlOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.\n")
    (t,) = of(r, "torch_watchdog_timeout")
    assert (t.numel_out, t.timeout_ms, t.evidence.line) == (1, 600000, 1)


def test_an_nccl_call_a_framework_checked_is_an_nccl_error():
    # horovod/horovod#3618: Horovod's ErrorCheck, "<op_name> failed: " + ncclGetErrorString(result)
    text = (FIX / "horovod3618_nccl_allreduce_failed_unhandled_cuda.log").read_text()
    assert torch_log.detect(text)
    errs = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert [(f.evidence.line, f.nccl_error) for f in errs] == [(13, "ncclUnhandledCudaError")]


def test_legates_check_nccl_is_an_nccl_error():
    # nv-legate/cupynumeric#638: "Internal NCCL failure with error %s in file %s at line %d" (legate core/comm)
    text = (FIX / "cupynumeric638_legate_internal_nccl_failure.log").read_text()
    assert torch_log.detect(text)
    errs = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert [(f.evidence.line, f.nccl_error) for f in errs] == [(1, "ncclInternalError"), (2, "ncclInternalError")]
    # newer legate prints the code too: "Internal NCCL failure with error %d (%s) in file %s at line %d"
    line = ("Internal NCCL failure with error 2 (unhandled system error (run with NCCL_DEBUG=INFO for details)) "
            "in file src/core/comm/comm_nccl.cc at line 120\n")
    (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=line, node="n")).facts if f.kind == "torch_nccl_error"]
    assert f.nccl_error == "ncclSystemError"


def test_the_nccl_check_macro_is_an_nccl_error():
    # NVIDIA/TensorRT-LLM#6366: NCCLCHECK of NCCL's examples, nccl-tests and TensorRT-LLM,
    # "Failed, NCCL error %s:%d '%s'" with ncclGetErrorString() inside the quotes
    text = (FIX / "trtllm6366_nccl_check_unhandled_system_error.log").read_text()
    assert torch_log.detect(text)
    errs = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert [(f.evidence.line, f.nccl_error) for f in errs] == [(1, "ncclSystemError")]
    # the bare macro as NCCL's examples print it, without the exception's name
    line = "Failed, NCCL error test.cu:52 'invalid usage'\n"
    assert torch_log.detect(line)
    (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=line, node="n")).facts if f.kind == "torch_nccl_error"]
    assert f.nccl_error == "ncclInvalidUsage"


def test_the_nccl_check_macro_is_read_whatever_its_quotes_hold():
    # NVIDIA/TransformerEngine#994: TE's userbuffers of 1.x printed NCCLCHECK's quotes empty
    # (userbuffers-host.cpp: printf("Failed, NCCL error %s:%d ''\n", __FILE__, __LINE__ /*,ncclGetErrorString(r)*/)):
    # an NCCL call failed, its result unknown; the cut repeat of the line (24) is no macro's form
    text = (FIX / "te994_userbuffers_nccl_check_empty_quote.log").read_text()
    assert torch_log.detect(text)
    errs = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert [(f.evidence.line, f.nccl_error, f.message) for f in errs] == [(21, None, "")]
    # texts ncclGetErrorString() gives that NCCL's result table has not (NVIDIA/nccl src/init.cc; CONSTRUCTED lines)
    for quoted in ("NCCL operation in progress", "unknown result code"):
        line = f"Failed, NCCL error test.cu:52 '{quoted}'\n"
        assert torch_log.detect(line)
        (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=line, node="n")).facts if f.kind == "torch_nccl_error"]
        assert (f.nccl_error, f.message) == (None, quoted)


def test_torch_cuda_nccls_own_check_is_an_nccl_error():
    # vllm-project/vllm#5828: torch/csrc/cuda/nccl.cpp throw_nccl_error, "NCCL Error " << status << ": " <<
    # ncclGetErrorString(status), under Ray's and vLLM's logger prefixes
    text = (FIX / "vllm5828_torch_nccl_error_2_unhandled_system.log").read_text()
    assert torch_log.detect(text)
    errs = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert [(f.evidence.line, f.nccl_error) for f in errs] == [(3, "ncclSystemError")]
    line = "RuntimeError: NCCL Error 6: remote process exited or there was a network error\n"
    (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=line, node="n")).facts if f.kind == "torch_nccl_error"]
    assert f.nccl_error == "ncclRemoteError"


def test_onnxruntime_cudacall_nccl_failure_is_an_nccl_error():
    # microsoft/onnxruntime#5918: CudaCall's "%s failure %d: %s ; GPU=%d ; hostname=%s ; expr=%s; %s" for ncclResult_t,
    # both ranks on GPU 0; the message is the result's text, the device, host and call after " ; " left out
    text = (FIX / "ort5918_cudacall_nccl_failure_invalid_usage.log").read_text()
    assert torch_log.detect(text)
    errs = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert [(f.evidence.line, f.nccl_error, f.message) for f in errs] == [(1, "ncclInvalidUsage", "invalid usage"),
                                                                        (2, "ncclInvalidUsage", "invalid usage")]


def test_caffe_and_caffe2_nccl_checks_are_nccl_errors():
    # Caffe2's CAFFE_NCCL_CHECK (CAFFE_ENFORCE_EQ(status, ncclSuccess, " ", "Error at: ", __FILE__, __LINE__, ": ",
    # ncclGetErrorString(status))): facebookresearch/video-nonlocal-net#14, NCCL 1's "system error" (ncclSystemError, 2)
    text = (FIX / "nonlocal14_caffe2_nccl_enforce.log").read_text()
    assert torch_log.detect(text)
    (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert (f.evidence.line, f.nccl_error) == (1, "ncclSystemError") and f.message.startswith("system error")
    # Caffe's NCCL_CHECK, glog's CHECK_EQ: NVIDIA/caffe#450 (1: unhandled cuda error); BVLC/caffe#5580 (NCCL 1's 5, invalid
    # rank: no NCCL 2 result of that name, read without one)
    for line, name in (("F1206 07:37:19.964359 10589 parallel.cpp:156] Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error",
                        "ncclUnhandledCudaError"),
                       ("parallel.cpp:135 Check failed: result == ncclSuccess (5 vs. 0)  invalid rank", None)):
        assert torch_log.detect(line + "\n")
        (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=line + "\n", node="n")).facts if f.kind == "torch_nccl_error"]
        assert f.nccl_error == name


@pytest.mark.parametrize("line", [
    # what a framework streams after CHECK_EQ that is no result text (MXNet's contrib NCCL ops: "NCCL Reduce failed!")
    "Check failed: result == ncclSuccess (2 vs. 0) NCCL Reduce failed!",
    # a CUDA check of the same shape is cuda_app's (Check failed: error == cudaSuccess (2 vs. 0)  out of memory)
    "F1206 16:55:19.914152  3830 parallel.cpp:85] Check failed: error == cudaSuccess (2 vs. 0)  out of memory",
])
def test_a_check_without_an_nccl_result_text_is_not_an_nccl_error(line):
    assert not [f for f in torch_log.parse(Artefact(path="t.log", text=line + "\n", node="n")).facts
                if f.kind == "torch_nccl_error"]


@pytest.mark.parametrize("line", [
    "NCCL failure 5: invalid usage",  # CudaCall's form without its " ; GPU=" part: not claimed (CONSTRUCTED)
    "NCCL failure 0: no error ; GPU=0 ; hostname=h ; expr=ncclGroupEnd();",  # ncclSuccess's text (CONSTRUCTED)
])
def test_cudacall_near_misses_are_not_nccl_errors(line):
    assert not [f for f in torch_log.parse(Artefact(path="t.log", text=line + "\n", node="n")).facts
                if f.kind == "torch_nccl_error"]


@pytest.mark.parametrize("line", [
    "Internal NCCL failure with error no error in file a.cu at line 1",
    "ncclAllReduce failed: no error",  # not a failure result of ncclGetErrorString
    "dlopen failed: libnccl-net.so: cannot open shared object file",
    "ncclCommInitRank failed: see above",
    "Failed, NCCL error test.cu:52 'no error'",  # NCCLCHECK's form, but ncclSuccess's text: not a failure
    "Failed, NCCL error 'unhandled system error'",  # no file:line: not the macro's form
    "Failed, NCCL error test.cu:52 'unterminated",  # a quote that is neither closed nor a result's text (CONSTRUCTED)
    "NCCL Error 0: no error",  # torch.cuda.nccl's form, but ncclSuccess's text
    "NCCL Error: unhandled system error",  # no result number: not throw_nccl_error's form
])
def test_a_named_call_without_an_nccl_result_is_not_an_nccl_error(line):
    assert not [f for f in torch_log.parse(Artefact(path="t.log", text=line + "\n", node="n")).facts
                if f.kind == "torch_nccl_error"]


def test_gloo_timeout_in_a_barrier():
    """meta-pytorch/torchtune#2676: Gloo's recv timeout under the [rank2]: label, its source path in front."""
    facts = [f for f in parse_file("torchtune2676_gloo_barrier_recv_timeout.log").facts if f.kind == "gloo_timeout"]
    assert [(f.operation, f.timeout_ms, f.rank, f.evidence.line) for f in facts] == [("recv", 1800000, 2, 11)]


@pytest.mark.parametrize("line, expect", [
    ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete",
     ("recv", 1800000)),
    ("RuntimeError: [... gloo/transport/uv/unbound_buffer.cc:67] Timed out waiting 5000ms for send operation to complete", ("send", 5000)),
    ("RuntimeError: Timed out waiting 12000ms for recv operation to complete", ("recv", 12000)),
    # near misses: another wait, a gloo timeout told in prose without its figure
    ("Timed out waiting for the operation to complete", None),
    ("the gloo recv timed out waiting for the peer", None),
])
def test_gloo_timeout_forms(line, expect):
    assert torch_log.detect(line) == bool(expect)
    facts = [f for f in parse_text(line + "\n").facts if f.kind == "gloo_timeout"]
    assert [(f.operation, f.timeout_ms) for f in facts] == ([expect] if expect else [])


@pytest.mark.parametrize("text, warning_id, rank, source", [
    # c10d's getCvar* on a variable's pre-2.2 name, behind a Ray Train worker's prefix (ray-project/ray#47286, harvest 3105)
    ("(RayTrainWorker pid=2273, ip=172.24.21.66) [rank7]:[W Utils.hpp:108] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING "
     "is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarString)\n", "c10d_env_var_renamed", 7, "Utils.hpp"),
    # the same warning of a real 2 x H200 run (fixtures/bundles/h200-straggler-desync)
    ("[rank0]:[W1129 19:55:50.842693727 Utils.hpp:112] Warning: Environment variable TORCH_NCCL_DEBUG_INFO_TEMP_FILE is deprecated; "
     "use TORCH_FR_DUMP_TEMP_FILE instead (function operator())\n", "c10d_env_var_renamed", 0, "Utils.hpp"),
    # c10's warning body quoted without its log header (pytorch/pytorch#114168, harvest 3106)
    ("Warning: 0TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives.  (function operator())\n",
     "avoid_record_streams_p2p_no_effect", None, ""),
    ("[W924 02:01:18.426673989 ProcessGroupNCCL.cpp:981] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this "
     "environment variable is thus deprecated. (function operator())\n", "avoid_record_streams_default_deprecated", None, "ProcessGroupNCCL.cpp"),
])
def test_known_c10d_warnings_alone_are_a_torch_log_and_benign(text, warning_id, rank, source):
    assert torch_log.detect(text)
    (w,) = of(parse_text(text), "torch_warning")
    assert (w.warning_id, w.benign, w.rank, w.source_file, w.evidence.line) == (warning_id, True, rank, source, 1)


@pytest.mark.parametrize("text, warning_id, line, source, message", [
    # CPython's header with no message of its own, PyTorch's message on the lines below (meituan/YOLOv6#350)
    (".venv/lib/python3.7/site-packages/torch/cuda/__init__.py:146: UserWarning: \n"
     "NVIDIA GeForce RTX 3080 Laptop GPU with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
     "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n",
     "gpu_arch_not_in_build", 2, "__init__.py",
     "NVIDIA GeForce RTX 3080 Laptop GPU with CUDA capability sm_86 is not compatible with the current PyTorch installation."),
    # pasted without its header (nerfstudio-project/nerfacc#80)
    ("RTX A6000 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
     "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n",
     "gpu_arch_not_in_build", 1, "", "RTX A6000 with CUDA capability sm_86 is not compatible with the current PyTorch installation."),
    # the whole warning flattened onto its header's line, srun -l's labels kept (pytorch/pytorch#164596)
    ("0: /usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:283: UserWarning:  0:     Found GPU0 NVIDIA GB10 which is of "
     "cuda capability 12.1. 0:     Minimum and Maximum cuda capability supported by this version of PyTorch is 0:     (8.0) - (12.0)\n",
     "gpu_capability_outside_build", 1, "__init__.py",
     "0:     Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. 0:     Minimum and Maximum cuda capability supported by this "
     "version of PyTorch is 0:     (8.0) - (12.0)"),
])
def test_pytorch_capability_warnings_are_read_and_not_benign(text, warning_id, line, source, message):
    assert torch_log.detect(text)
    (w,) = of(parse_text(text), "torch_warning")
    assert (w.warning_id, w.benign, w.evidence.line, w.source_file, w.message) == (warning_id, False, line, source, message)


def test_the_capability_text_in_a_title_without_its_header_is_the_reporters():
    # jackyjsy/CVPR21Chal-SLR#20's title words the warning without PyTorch's period and with no header: not read; nor is the
    # same text in a title file even with the period (a title is the reporter's)
    assert of(parse_text("CUDA capability is not compatible with the current PyTorch installation\n"), "torch_warning") == []
    title = "NVIDIA RTX A5000 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
    assert of(torch_log.parse(Artefact(path="title.txt", text=title, node="node1")), "torch_warning") == []


def test_sglang_platform_warnings_are_read_once_each_not_from_their_source_lines():
    """gpustack/gpustack#5218 (wild sweep rR5): SGLang 0.5.9 in a container that cannot see its GPU warns at import that
    its AWQ and GGUF modules found no GPU platform; CPython prints each warning's source line under its header, indented
    by two, and that line (the call, the message inside it) is not a second warning."""
    res = parse_file("gpustack5218_sglang_no_gpu_platform.log")
    assert torch_log.detect((FIX / "gpustack5218_sglang_no_gpu_platform.log").read_text())
    got = [(w.warning_id, w.benign, w.evidence.line, w.source_file) for w in of(res, "torch_warning")]
    assert got == [("sglang_awq_no_gpu_platform", False, 1, "awq.py"), ("sglang_awq_no_gpu_platform", False, 3, "awq.py"),
                   ("sglang_gguf_no_gpu_platform", False, 5, "gguf.py"), ("sglang_gguf_no_gpu_platform", False, 7, "gguf.py")]
    # a HIP build's GGUF note (CONSTRUCTED from gguf.py's GGUFConfig: warnings.warn(f"Only CUDA and MUSA support GGUF
    # quantization currently.")) names an AMD GPU present: not read
    hip = ".../sglang/srt/layers/quantization/gguf.py:80: UserWarning: Only CUDA and MUSA support GGUF quantization currently.\n"
    assert of(parse_text(hip), "torch_warning") == []


def test_c10d_host_lookup_failure_is_read_and_not_benign():
    # pytorch/pytorch#74824's line (round rT3): c10d's getaddrinfo of the store's host failed; the rule judges it
    text = (FIX / "pytorch74824_c10d_ipv6_lookup_name_not_known.log").read_text()
    assert torch_log.detect(text)
    (w,) = of(parse_text(text), "torch_warning")
    assert (w.warning_id, w.benign, w.source_file) == ("c10d_host_lookup_failed", False, "socket.cpp")
    # the errno 97 line of the same file (an IPv6 socket the host cannot make) stays the benign entry's
    (b,) = of(parse_text("[W508 19:42:29.081090059 socket.cpp:759] [c10d] The client socket cannot be initialized to connect to "
                         "[jwb0129i.juwels]:21068 (errno: 97 - Address family not supported by protocol).\n"), "torch_warning")
    assert (b.warning_id, b.benign) == ("socket_ipv6_not_supported", True)


def test_an_unknown_or_unformatted_warning_is_not_read():
    # near misses: a c10 warning the catalogue does not know; the known text in prose, not in c10's forms
    assert of(parse_text("[W Utils.hpp:108] Warning: Environment variable FOO is deprecated; use BAR instead (function getCvarString)\n"),
              "torch_warning") == []
    assert of(parse_text("We set NCCL_ASYNC_ERROR_HANDLING but it is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING now.\n"),
              "torch_warning") == []


def test_gloo_connect_failed_and_loopback_fallback():
    """vllm-project/vllm#7074: rank 9 falls back to loopback for Gloo (a known warning), rank 8's mesh fails."""
    facts = parse_file("vllm7074_gloo_loopback_fallback_connect_failed.log").facts
    (g,) = [f for f in facts if f.kind == "gloo_connect_failed"]
    assert (g.detail, g.remote, g.remote_loopback, g.rank, g.evidence.line) == ("no error", None, False, 8, 3)
    (w,) = [f for f in facts if f.kind == "torch_warning"]
    assert (w.warning_id, w.benign, w.rank, w.evidence.line) == ("gloo_loopback_fallback", False, 9, 2)


@pytest.mark.parametrize("text, expect", [
    # newer Gloo names the peer (the form several multi-node vLLM notes quote)
    ("RuntimeError: Gloo connectFullMesh failed with [pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:152] timed out "
     "connecting: SO_ERROR: Connection refused, remote=[127.0.1.1]:20901\n",
     [("timed out connecting: SO_ERROR: Connection refused", "127.0.1.1", True)]),
    ("RuntimeError: Gloo connectFullMesh failed with [pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:152] timed out "
     "connecting: SO_ERROR: Connection refused, remote=[192.222.53.159]:41000\n",
     [("timed out connecting: SO_ERROR: Connection refused", "192.222.53.159", False)]),
    # a quote that wraps the remote onto the next line, then the exception that raises it (aws-samples/aws-do-eks#50): one event
    ("[rank8] Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: Connection refused,\n"
     "        remote=[127.0.0.1]:14215\nRuntimeError: Gloo connectFullMesh failed ...\n",
     [("timed out connecting: SO_ERROR: Connection refused", "127.0.0.1", True)]),
    # near miss: prose about the failure without Gloo's words
    ("the gloo full mesh could not connect\n", []),
])
def test_gloo_connect_forms(text, expect):
    assert torch_log.detect(text) == bool(expect)
    facts = [f for f in parse_text(text).facts if f.kind == "gloo_connect_failed"]
    assert [(f.detail, f.remote, f.remote_loopback) for f in facts] == expect


# torch.multiprocessing.spawn's join() on a dead child (mp.spawn, Lightning's ddp_spawn): the child's index, its signal or code
@pytest.mark.parametrize("line, local_rank, exitcode, signal", [
    ((FIX / "acumen4_spawn_sigkill.log").read_text().strip(), 0, -9, "SIGKILL"),  # lyu-yx/ACUMEN#4 (1.7+)
    ("torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with exit code 1", 3, 1, None),
    ("Exception: process 1 terminated with signal SIGSEGV", 1, -11, "SIGSEGV"),  # before 1.7: a plain Exception
])
def test_spawn_child_exited(line, local_rank, exitcode, signal):
    assert torch_log.detect(line)
    (w,) = [f for f in parse_text(line + "\n").facts if f.kind == "torch_worker_failed"]
    assert (w.local_rank, w.exitcode, w.signal, w.sigkill) == (local_rank, exitcode, signal, signal == "SIGKILL")


def test_spawn_child_raised():
    # detectron2#506 (PyTorch 1.3, quoted with "> "): spawn's report of a child that raised, its traceback cut after it
    #   (its quote's "> " margin off, as facts/lines.py takes it off a quoted paste)
    text = ("Exception: \n\n-- Process 0 terminated with the following error:\nTraceback (most recent call last):\n"
            "  File \"/home/ubuntu/anaconda3/lib/python3.7/site-packages/torch/multiprocessing/spawn.py\", line 19, in _wrap\n")
    assert torch_log.detect(text)
    (w,) = [f for f in parse_text(text).facts if f.kind == "torch_worker_failed"]
    assert (w.evidence.line, w.local_rank, w.exitcode, w.signal, w.sigkill) == (3, 0, None, None, False)
    # the words inside prose are not the report
    assert [f for f in parse_text("I think process 0 terminated with the following error: OOM\n").facts
            if f.kind == "torch_worker_failed"] == []


def test_spawn_words_in_prose_are_no_worker():
    text = "The process terminated with signal SIGKILL when I ran it twice.\n"
    assert [f for f in parse_text(text).facts if f.kind == "torch_worker_failed"] == []


# ProcessGroupWrapper's fingerprint check (TORCH_DISTRIBUTED_DEBUG=DETAIL), its forms across versions
@pytest.mark.parametrize("text, expect", [
    # Lightning-AI/pytorch-lightning#19106 (2.x): the paste cut inside the first fingerprint
    ((FIX / "lightning19106_pg_wrapper_collective_mismatch.log").read_text(), (1, 1, "BROADCAST", 21, None, None, None, None)),
    # pytorch/pytorch#148976 (2.6): a barrier (no tensors: no comma before OpType), both ranks and the diff, behind [rank1]:
    ("[rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint("
     "SequenceNumber=1OpType=BARRIER), but Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=0OpType=BARRIER)."
     "Collectives differ in the following aspects: \t Sequence number: 1vs 0\n", (1, 1, "BARRIER", 1, 2, "BARRIER", 0, "Sequence number")),
    # pytorch/pytorch#78022 (1.11): "inconsistent collective", no sequence number, one fingerprint
    ("RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running inconsistent collective: CollectiveFingerPrint("
     "OpType=BROADCAST, TensorShape=[34112], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, "
     "layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))\n",
     (0, 0, "BROADCAST", None, None, None, None, None)),
    # ProcessGroupWrapper.cpp's full form (2.x): _ALLGATHER_BASE and a shape difference, the global rank from the label
    ("[rank5]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint("
     "SequenceNumber=0, OpType=_ALLGATHER_BASE, TensorShape=[359, 1, 1435, 16], TensorDtypes=BFloat16, TensorDeviceTypes=cuda), "
     "but Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=0, OpType=_ALLGATHER_BASE, TensorShape=[359, 1, 1436, 16], "
     "TensorDtypes=BFloat16, TensorDeviceTypes=cuda).Collectives differ in the following aspects:   Tensor Tensor shapes: 359, 1, 1435, 16vs 359, 1, 1436, 16\n",
     (5, 1, "_ALLGATHER_BASE", 0, 2, "_ALLGATHER_BASE", 0, "Tensor Tensor shapes")),
])
def test_pg_wrapper_collective_mismatch(text, expect):
    assert torch_log.detect(text)
    (m,) = of(parse_text(text), "torch_collective_fingerprint_mismatch")
    assert (m.rank, m.pg_rank, m.op_type, m.seq_num, m.peer_pg_rank, m.peer_op_type, m.peer_seq_num, m.aspects) == expect


def test_pg_wrapper_words_without_a_rank_are_not_read():
    assert of(parse_text("Bad startup lines:\n- `RuntimeError: Detected mismatch between collectives on ranks`\n"),
              "torch_collective_fingerprint_mismatch") == []


def test_empty_last_error_then_c10_backtrace():
    """c10d's getNcclErrorDetailStr appends "\\nLast error:\\n" + ncclGetLastError(): empty when NCCL kept no
    message, so the next line is c10's "Exception raised from ..." (pytorch/pytorch#142356): no last_error."""
    r = parse_file("pytorch142356_async_error_empty_last_error.log")
    (e,) = of(r, "torch_nccl_error")
    assert (e.rank, e.nccl_error, e.last_error, e.nccl_version) == (3, "ncclSystemError", None, "2.21.5")


def test_watchdog_lateness():
    """ran-for minus the work's timeout, with knowledge/torch_watchdog.yaml's limit beside it (ProcessGroupNCCL.cpp's
    "Watchdog caught collective operation timeout: ... ran for %d milliseconds before timing out.", filled)."""
    r = parse_text("[rank0]:[E0101 00:00:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
                   "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 900000 "
                   "milliseconds before timing out.\n")
    t = [(f.rank, f.seq_num, f.late_ms, f.late_limit_ms) for f in of(r, "torch_watchdog_timeout")]
    assert t == [(0, 5, 300000, 300000)]
    on_time = parse_file("llamafactory7396_torch24_pg.log")
    assert {f.late_ms for f in of(on_time, "torch_watchdog_timeout")} <= set(range(0, 1000))


def test_torchrun_19_child_failed_without_error_file():
    # facebookresearch/MetaICL#8: torchrun 1.9-1.10's block for a worker that wrote no error file (errors/__init__.py
    # _no_error_file_warning_msg): the worker's pid, local rank and exit code; the block's other lines are its advice
    text = ("CHILD PROCESS FAILED WITH NO ERROR_FILE\n"
            "Child process 17057 (local_rank 0) FAILED (exitcode 1)\n"
            "Error msg: Process failed with exitcode 1\n"
            "Without writing an error file to <N/A>.\n")
    assert torch_log.detect(text.split("\n")[1])
    r = parse_text(text)
    (w,) = of(r, "torch_worker_failed")
    assert (w.local_rank, w.pid, w.exitcode, w.rank, w.evidence.line) == (0, 17057, 1, None, 2) and r.errors == []
    # the words in prose are no worker
    assert of(parse_text("the child process failed with exitcode 1 again\n"), "torch_worker_failed") == []


def test_watchdog_timeout_cut_on_the_last_line_is_a_cut_not_an_error():
    # huggingface/picotron_tutorial#6: the stored excerpt ends inside the work of its last timeout line
    full = ("[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
            "NumelIn=1, NumelOut=1, Timeout(ms)=120000) ran for 120621 milliseconds before timing out.\n")
    cut = "[E ProcessGroupNCCL.cpp:474] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUC"
    r = parse_text(full + cut + "\n")
    assert [f.rank for f in of(r, "torch_watchdog_timeout")] == [1] and r.errors == []
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 2)]
    # the same line with text after it is a form nobody reads: a parse problem
    r = parse_text(cut + "\n" + full)
    assert [e.line for e in r.errors] == [1] and r.limits == []


def test_watchdog_line_with_its_work_left_out_is_a_reported_hang():
    # modelscope/ms-swift#6578: the reporter's summary above the pasted log leaves the work's fields out, as people
    # write the form in notes and runbooks; PyTorch always prints them, so the line is a person's account: a
    # reported hang of NCCL's (never a parse problem), the dump-signal lines under it read as the watchdog's
    r = parse_file("msswift6578_elided_work_summary.log")
    assert r.errors == [] and r.limits == [] and of(r, "torch_watchdog_timeout") == []
    (s,) = of(r, "reported_symptom")
    assert (s.symptom, s.component, s.evidence.line) == ("hang", "nccl", 1)
    assert s.words.startswith("Watchdog caught collective operation timeout: WorkNCCL(...)")
    assert [p.rank for p in of(r, "torch_nccl_progress")] == [6, 1]
    # the ellipsis as one character, and with a rank label (CONSTRUCTED from the same form)
    r = parse_text("[rank0]:[E312 14:28:21] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(\u2026)\n")
    assert r.errors == [] and [s.symptom for s in of(r, "reported_symptom")] == ["hang"]
    # a work whose fields are there but not its timeout is still a form nobody reads
    r = parse_text("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE) ran for 5 "
                   "milliseconds before timing out.\nnext line\n")
    assert [e.line for e in r.errors] == [1] and of(r, "reported_symptom") == []


def test_cupy_nccl_error():
    """CuPy's NCCL binding raises NcclError('<ERROR2 name>: <ncclGetErrorString>') under Ray's collectives, Alpa and
    Chainer; the line alpa-projects/alpa's docs/install.rst quotes (CUDA, NCCL and driver versions that do not go
    together, alpa#496): one NCCL error, ncclUnhandledCudaError, read like c10d's."""
    text = "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled cuda error\n"
    assert torch_log.detect(text)
    e = of(parse_text(text), "torch_nccl_error")
    assert [(f.nccl_error, f.evidence.line, f.last_error) for f in e] == [("ncclUnhandledCudaError", 1, None)]
    # CONSTRUCTED near miss: the name in prose, without ncclGetErrorString's text after it, is no error line
    assert of(parse_text("we saw NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR once\n"), "torch_nccl_error") == []


@pytest.mark.parametrize("case,name", [
    ("3104", "torch-lines-quoted-in-comment.log"),  # the watchdog message hand-wrapped, its WorkNCCL(...) line 81 wide
    ("1902", "vllm-lines-quoted-in-pr.log"),  # Gloo's connectFullMesh line (88 wide) and its indented remote=
])
def test_a_message_read_over_lines_survives_a_terminal_cut_of_one_of_them(case, name):
    # copied 80 columns wide: facts/lines.py joins the cut line and leaves its second row blank; the
    # message's next line is read past that row, as it is in the text as posted
    from stethoscope.engine.parse_pool import parse_one

    text = next((ROOT / "fixtures/harvest/cases").glob(case + "-*/" + name)).read_text()
    cut = "\n".join(ln[i:i + 80] for ln in text.split("\n") for i in range(0, max(len(ln), 1), 80))
    assert cut.count("\n") > text.count("\n")

    def kinds(t):
        return sorted((f.kind, tuple(sorted((k, str(v)) for k, v in f.model_dump().items() if k not in ("id", "evidence"))))
                      for f in parse_one(Artefact(path=name, node="n1", text=t)).facts)
    assert kinds(cut) == kinds(text)


def test_an_nccl_error_whose_file_the_reporter_shortened_is_an_nccl_error():
    # microsoft/AzureML-BERT#34: c10d's "NCCL error in: " __FILE__ ":" __LINE__ ", " <result> with the file shortened to
    # "... /path" (a blank in it): read up to ":<line>,"
    line = "RuntimeError: NCCL error in: ... /torch/lib/c10d/ProcessGroupNCCL.cpp:290, unhandled system error\n"
    assert torch_log.detect(line)
    (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=line, node="n")).facts if f.kind == "torch_nccl_error"]
    assert (f.nccl_error, f.evidence.line) == ("ncclSystemError", 1)
    # a comma before any ":<line>," is not a file: no NCCL error is read from prose that quotes the words
    prose = "RuntimeError: NCCL error in: my job, after a while it stops\n"
    assert [f for f in torch_log.parse(Artefact(path="t.log", text=prose, node="n")).facts if f.kind == "torch_nccl_error"] == []


def test_a_bare_nccl_check_is_read_by_its_number_where_nccl_1_and_2_agree():
    # PaddlePaddle/Paddle#14620: CHECK_EQ(dynload::ncclGroupEnd(), ncclSuccess) with nothing streamed: 1 is
    # ncclUnhandledCudaError in NCCL 1 and 2
    text = (FIX / "paddle14620_nccl_group_end_check_bare.log").read_text()
    assert torch_log.detect(text)
    (f,) = [f for f in torch_log.parse(Artefact(path="t.log", text=text, node="n")).facts if f.kind == "torch_nccl_error"]
    assert (f.evidence.line, f.nccl_error) == (7, "ncclUnhandledCudaError")
    # must not: a number above 3 means other results in NCCL 1 and 2; a value streamed after that is no result text
    for line in ("F1125 15:44:39.266677 200102 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess (5 vs. 0) ",
                 "Check failed: result == ncclSuccess (2 vs. 0) NCCL Reduce failed!"):
        assert [f for f in torch_log.parse(Artefact(path="t.log", text=line + "\n", node="n")).facts
                if f.kind == "torch_nccl_error"] == []


# ProcessGroupGloo::monitoredBarrier (monitored_barrier, and the barrier TORCH_DISTRIBUTED_DEBUG=DETAIL runs before each collective)
@pytest.mark.parametrize("line, event, ranks, rank, reporter, ms", [
    # rank 0's error, the docs' sample (docs/source/distributed.md)
    ("RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms", "ranks_failed", "1", 1, 0, 2000),
    # ProcessGroupGloo.cpp's form with rank 0's tag, under torchrun's label (CONSTRUCTED from the format string)
    ("[rank0]: RuntimeError: [Rank 0]: Rank 3 failed to pass monitoredBarrier in 1800000 ms", "ranks_failed", "3", 3, 0, 1800000),
    # wait_all_ranks=True: every rank that did not arrive (CONSTRUCTED from "[Rank 0]: Ranks " + Join(", ", failedRanks) + ...)
    ("RuntimeError: [Rank 0]: Ranks 4, 5, 6, 7 failed to pass monitoredBarrier in 2000000 ms", "ranks_failed", "4, 5, 6, 7", None, 0, 2000000),
    # a rank other than 0 that arrived and was never released (pytorch/pytorch#121606's title)
    ("RuntimeError: Rank 2 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.",
     "waiting_on_rank0", None, None, 2, None),
])
def test_monitored_barrier(line, event, ranks, rank, reporter, ms):
    assert torch_log.detect(line)
    [f] = [f for f in parse_text(line + "\n").facts if f.kind == "gloo_monitored_barrier"]
    assert (f.event, f.ranks, f.rank, f.reporter, f.timeout_ms) == (event, ranks, rank, reporter, ms)


@pytest.mark.parametrize("line", [
    "dist.monitored_barrier(group=group_gloo, timeout=timedelta(seconds=2))",
    "# ranks that failed to pass monitoredBarrier are reported by rank 0",
    "Rank 1 failed to pass the barrier in 2000 ms",
])
def test_monitored_barrier_near_misses(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "gloo_monitored_barrier"] == []


def test_monitored_barrier_docs_sample_file():
    r = parse_file("pytorch_docs_monitored_barrier_rank1.log")
    assert [(f.evidence.line, f.event, f.rank) for f in r.facts if f.kind == "gloo_monitored_barrier"] == [(1, "ranks_failed", 1)]


@pytest.mark.parametrize("name, line, source", [
    # PyTorch 2.3.0's own conv2d smoke test (pytorch/pytorch#121834): CPython's header and the message on one line
    ("pytorch121834_cudnn_plan_failed_warning.log", 2, "conv.py"),
    # marieai/marie-ai#124: pasted without the header, c10's "Exception raised from run_conv_plan" and frames below
    ("marieai124_cudnn_plan_failed_cudnnerror.log", 1, ""),
])
def test_cudnn_plan_failed_warning_is_benign(name, line, source):
    # Conv_v8.cpp's try_configs goes on to the next engine config; the warning names the one it skipped (wild sweep J2)
    text = (FIX / name).read_text()
    assert torch_log.detect(text)
    (w,) = of(parse_text(text), "torch_warning")
    assert (w.warning_id, w.benign, w.evidence.line, w.source_file) == ("cudnn_plan_failed_next_tried", True, line, source)


@pytest.mark.parametrize("text", [
    # CONSTRUCTED from PyTorch's DistBackendError (ProcessGroupNCCL quotes ncclGetLastError after "Last error:") and NCCL
    # messages nccl_log reads bare (nccl_warn_kinds.BARE): nccl_log's fact, torch_log only cites the line. Both readers'
    # facts of one kind on one line share an id; before round rI1 the engine refused the second (an internal error)
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled "
    "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\nncclSystemError: System call (e.g. socket, "
    "malloc) or external library call failed or device error.\nLast error:\nNET/IB : Unable to open device mlx5_0\n",
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, invalid "
    "usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.16.2\nncclInvalidUsage: This usually reflects invalid usage "
    "of NCCL library.\nLast error:\nMismatched NCCL version detected : rank 0 version 21003 rank 1 version 21602\n",
])
def test_a_forwarded_message_nccl_log_reads_bare_is_one_fact(text):
    from stethoscope.facts.parsers import nccl_log

    def ids(mod):
        art = Artefact(path="train.log", text=text, node="n1")
        art.normalise()
        return {f.id for f in mod.parse(art).facts}
    torch_ids, nccl_ids = ids(torch_log), ids(nccl_log)
    assert "train.log:4:torch_nccl_error" in torch_ids
    assert not torch_ids & nccl_ids
    assert any(i.startswith("train.log:4:") for i in nccl_ids)


@pytest.mark.parametrize("text,want", [
    # deepspeedai/DeepSpeed#5008: after tqdm's bar, on its line
    ("  3%|▎         | 270/9847 [05:50<3:17:42,  1.24s/it]Invalidate trace cache @ step 1: expected module 25, but got module 323\n"
     "[E ProcessGroupNCCL.cpp:467] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=211067, "
     "OpType=_ALLGATHER_BASE, NumelIn=2359296, NumelOut=18874368, Timeout(ms)=1800000) ran for 1800001 milliseconds before timing out.\n",
     [(1, 323, 25, None)]),
    # CONSTRUCTED from DeepSpeed's second f-string (partitioned_param_coordinator.py trace_prologue)
    ("Invalidate trace cache @ step 0 and module 1458: cache has only 0 modules\n", [(0, 1458, None, 0)]),
    # not DeepSpeed's: another program's cache
    ("Invalidate trace cache for step 3\n", []),
])
def test_deepspeed_trace_invalidated(text, want):
    facts = [f for f in parse_text(text).facts if f.kind == "deepspeed_trace_invalidated"]
    assert [(f.step, f.got_module, f.expected_module, f.cache_modules) for f in facts] == want
