"""nccl-tests text and JSON parsers on real captures (2 x H200, nccl-tests 2.19.6 and 2.11.0),
samples pasted in public threads, and crafted failures (see the fixtures' README)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nccl_tests, nccl_tests_json
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor, nccl_version_str

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "artefacts" / "nccl_tests"
FIXJ = ROOT / "fixtures" / "artefacts" / "nccl_tests_json"
OBS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"


def _parse(path: Path, module=nccl_tests, text: str | None = None):
    art = Artefact(path=path.name, text=path.read_text() if text is None else text)
    return module.parse(art)


def _kinds(result, kind):
    return [f for f in result.facts if f.kind == kind]


def _run(result):
    runs = _kinds(result, "nccl_test_run")
    assert len(runs) == 1
    return runs[0]


@pytest.mark.parametrize(
    "name, collective, rows, avg, last_size, last_oop_busbw, max_busbw, max_size",
    [
        ("allreduce_healthy_g2.txt", "all_reduce", 29, 95.4419, 2147483648, 339.90, 339.90, 2147483648),
        ("allgather_healthy_g2.txt", "all_gather", 28, 67.42, 1073741824, 271.24, 286.76, 1073741824),
        ("reducescatter_healthy_g2.txt", "reduce_scatter", 28, 66.0301, 1073741824, 272.93, 274.20, 1073741824),
        ("sendrecv_healthy_g2.txt", "sendrecv", 28, 91.7082, 1073741824, 360.84, 360.84, 1073741824),
        ("allreduce_socket_only_g2.txt", "all_reduce", 26, 1.3227, 268435456, 3.61, 3.81, 134217728),
    ],
)
def test_real_healthy_runs(name, collective, rows, avg, last_size, last_oop_busbw, max_busbw, max_size):
    res = _parse(FIX / name)
    assert res.errors == []
    run = _run(res)
    assert (run.collective, run.nccl_tests_version, run.nccl_version) == (collective, "2.19.6", "2.28.9")
    assert (run.n_threads, run.n_gpus, run.min_bytes, run.iters, run.warmup_iters) == (1, 2, 8, 20, 1)
    assert (run.nranks, run.hosts, run.status, run.out_of_bounds, run.failed) == (2, 1, "OK", 0, False)
    assert run.avg_busbw == avg and run.rows == rows and run.wrong_total == 0
    assert (run.max_busbw, run.max_busbw_size) == (max_busbw, max_size)
    assert run.evidence.line == 1 and run.evidence.text.startswith("# nccl-tests version 2.19.6")
    table = _kinds(res, "nccl_test_row")
    assert len(table) == rows and all(r.run_id == run.id for r in table)
    assert (table[-1].size_bytes, table[-1].oop_busbw) == (last_size, last_oop_busbw)
    ranks = _kinds(res, "nccl_test_rank")
    assert [(r.rank, r.group, r.device, r.pci_bus_id, r.gpu_name, r.host, r.node) for r in ranks] == [
        (0, 0, 0, "0000:00:06.0", "NVIDIA H200", "vm", "vm"),
        (1, 0, 1, "0000:00:07.0", "NVIDIA H200", "vm", "vm"),
    ]
    assert res.lines_used == len((FIX / name).read_text().splitlines()) - 2  # all but the blank line and "rc=0"


def test_allreduce_largest_row_fields():
    res = _parse(FIX / "allreduce_healthy_g2.txt")
    row = _kinds(res, "nccl_test_row")[-1]
    assert row.model_dump(exclude={"id", "evidence", "run_id", "node"}) == dict(
        kind="nccl_test_row", collective="all_reduce", size_bytes=2147483648, count=536870912, dtype="float",
        redop="sum", root=None, oop_time_us=6318.05, oop_algbw=339.90, oop_busbw=339.90, oop_wrong=0,
        oop_max_error=None, ip_time_us=6322.67, ip_algbw=339.65, ip_busbw=339.65, ip_wrong=0, ip_max_error=None, wrong=0)
    assert row.evidence.line == 40


def test_sendrecv_in_place_wrong_is_na():
    rows = _kinds(_parse(FIX / "sendrecv_healthy_g2.txt"), "nccl_test_row")
    assert all(r.ip_wrong is None and r.oop_wrong == 0 for r in rows)


def test_allgather_redop_none_and_zero_size_rows():
    rows = _kinds(_parse(FIX / "allgather_healthy_g2.txt"), "nccl_test_row")
    assert rows[0].size_bytes == 0 and rows[0].redop is None and rows[0].root is None


def test_bad_ifname_run_fails():
    res = _parse(FIX / "allreduce_bad_ifname_g2.txt")
    run = _run(res)
    assert run.failed and run.status is None and run.rows == 0 and run.nranks == 2
    assert run.failure_message == "Test NCCL failure common.cu:1550 'invalid usage (run with NCCL_DEBUG=WARN for details) / '"
    fails = _kinds(res, "nccl_test_failure")
    assert [(f.failure_type, f.host, f.pid, f.source_file, f.source_line, f.message, f.evidence.line) for f in fails] == [
        ("nccl", "vm", None, "common.cu", 1550, "invalid usage (run with NCCL_DEBUG=WARN for details) / ", 8),
        ("test", "vm", 1633, "common.cu", 1454, "Test failure", 9),
    ]
    assert fails[0].nccl_error == "invalid usage (run with NCCL_DEBUG=WARN for details)" and fails[0].last_error is None
    assert all(f.run_id == run.id and f.node == "vm" for f in fails)


def test_wrong_elements_and_failed_status():
    run = _run(_parse(FIX / "allreduce_wrong_failed_g2.txt"))
    assert (run.status, run.out_of_bounds, run.wrong_total, run.failed) == ("FAILED", 3, 12 + 3 + 1024, True)
    assert run.failure_message == "Out of bounds values : 3 FAILED"


def test_truncated_run_has_no_status():
    res = _parse(FIX / "allreduce_truncated_g2.txt")
    run = _run(res)
    assert (run.status, run.avg_busbw, run.failed, run.rows) == (None, None, False, 14)
    assert res.errors == []


def test_malformed_row_is_a_parse_error():
    res = _parse(FIX / "allreduce_malformed_row_g2.txt")
    assert len(res.errors) == 1
    err = res.errors[0]
    assert (err.path, err.line) == ("allreduce_malformed_row_g2.txt", 31) and "busbw" in err.message
    assert _run(res).rows == 28  # the other rows are kept


@pytest.mark.parametrize(
    "text, message",
    [
        ("# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: x\n", "nThread line"),
        ("# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 4(factor) warmup iters: 5 iters: 20 validation: 1\n"
         "#   Rank  0 Pid   1129 on         vm device  0 [0xzz] NVIDIA H200\n", "rank line"),
        ("#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
         "           8             2     float     sum    15.51    0.00    0.00  0e+00    15.02    0.00    0.00  0e+00    3\n", "columns"),
        ("#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
         "# Avg bus bandwidth    : fast\n", "average bus bandwidth"),
    ],
)
def test_malformed_lines(text, message):
    res = nccl_tests.parse(Artefact(path="x.txt", text=text))
    assert [e.line for e in res.errors] == [text.count("\n")] and message in res.errors[0].message


@pytest.mark.parametrize(
    "name, collective_rows",
    [
        ("v2.11.0_all_reduce_g2.txt", ("sum", None)),
        ("v2.11.0_broadcast_g2.txt", (None, 0)),
        ("v2.11.0_reduce_g2.txt", ("sum", 0)),
        ("v2.11.0_sendrecv_g2.txt", (None, None)),
        ("v2.11.0_all_gather_g2.txt", (None, None)),
    ],
)
def test_older_column_sets(name, collective_rows):
    res = _parse(FIX / name)
    assert res.errors == []
    run = _run(res)
    assert (run.collective, run.nccl_tests_version, run.n_gpus, run.warmup_iters, run.status) == (None, None, 2, 5, "OK")
    rows = _kinds(res, "nccl_test_row")
    assert len(rows) == 9 and (rows[0].redop, rows[0].root) == collective_rows
    assert rows[0].oop_wrong is None and rows[0].oop_max_error == 0.0
    ranks = _kinds(res, "nccl_test_rank")
    assert [(r.rank, r.group, r.pci_bus_id) for r in ranks] == [(0, None, "0000:00:00.0"), (1, None, "0000:00:00.0")]


def test_older_sendrecv_in_place_max_error():
    rows = _kinds(_parse(FIX / "v2.11.0_sendrecv_g2.txt"), "nccl_test_row")
    assert [r.ip_max_error for r in rows[:2]] == [0.08, 0.03]


def test_older_bad_ifname():
    res = _parse(FIX / "v2.11.0_all_reduce_bad_ifname_g2.txt")
    run = _run(res)
    assert run.failed and run.failure_message == "Test NCCL failure common.cu:1072 'invalid usage (run with NCCL_DEBUG=WARN for details)'"
    assert _kinds(res, "nccl_test_failure")[0].last_error is None


def test_issue78_tables_without_run_header_and_empty_alltoall_redop():
    res = _parse(FIX / "issue78_alltoall_allreduce_v2.txt")
    runs = _kinds(res, "nccl_test_run")
    assert [(r.avg_busbw, r.rows, r.evidence.line) for r in runs] == [(4.32178, 2, 3), (0.507636, 2, 11)]
    rows = _kinds(res, "nccl_test_row")
    assert (rows[0].redop, rows[0].oop_time_us, rows[0].oop_max_error) == ("sum", 122131.0, 2e-06)
    assert (rows[2].redop, rows[2].root, rows[2].oop_time_us, rows[2].ip_max_error) == (None, None, 520935.0, 1.0)
    # 8 nodes x 8 V100: busbw/algbw of alltoall is 63/64
    assert rows[2].oop_busbw == pytest.approx(rows[2].oop_algbw * busbw_factor("alltoall", 64), abs=0.01)


def test_interleaved_headers_make_two_runs():
    res = _parse(FIX / "crafted_two_processes_two_headers_g1.txt")
    runs = _kinds(res, "nccl_test_run")
    assert [(r.evidence.line, r.nranks, r.n_gpus) for r in runs] == [(1, 0, 1), (6, 2, 1)]
    assert [(r.rank, r.pci_bus_id) for r in _kinds(res, "nccl_test_rank")] == [(0, "0000:00:06.0"), (0, "0000:00:06.0")]


def test_multi_host_ranks_name_their_node():
    res = _parse(FIX / "soperator_pr428_multihost.txt")
    run = _run(res)
    assert (run.nranks, run.hosts, run.node, run.status) == (12, 2, "unknown", None)
    ranks = _kinds(res, "nccl_test_rank")
    assert (ranks[8].node, ranks[8].pci_bus_id, ranks[8].gpu_name) == ("worker-0", "0000:8d:00.0", "NVIDIA H100 80GB HBM3")


def test_prompt_and_nccl_info_lines_are_skipped():
    res = _parse(FIX / "nccl1320_prompt_and_nccl_info.txt")
    run = _run(res)
    assert (run.evidence.line, run.nranks, run.node) == (2, 2, "llm207")
    assert res.lines_used == 5 and res.errors == []


def test_several_runs_in_one_file_and_other_kinds_around_them():
    parts = [OBS / "nvidia-smi" / "nvidia-smi-q-ECC.txt", FIX / "allreduce_healthy_g2.txt",
             OBS / "kernel" / "dmesg-nvrm.log", FIX / "allgather_healthy_g2.txt", OBS / "nccl-logs" / "allreduce_healthy_g2.nccl.log",
             FIX / "allreduce_bad_ifname_g2.txt"]
    text = "".join(p.read_text() for p in parts)
    assert nccl_tests.detect(text[:65536])
    res = nccl_tests.parse(Artefact(path="mixed.txt", text=text))
    assert res.errors == []
    runs = _kinds(res, "nccl_test_run")
    assert [(r.collective, r.rows, r.status, r.failed) for r in runs] == [
        ("all_reduce", 29, "OK", False), ("all_gather", 28, "OK", False), ("all_reduce", 0, None, True)]
    assert len(_kinds(res, "nccl_test_row")) == 57 and len({f.id for f in res.facts}) == len(res.facts)


def test_json_equals_text_of_the_same_run():
    text = _parse(FIX / "allreduce_json_pair_g2.txt")
    js = _parse(FIXJ / "allreduce_json_pair_g2.json", nccl_tests_json)
    assert text.errors == js.errors == []
    trun, jrun = _run(text), _run(js)
    for field in ("collective", "nccl_version", "n_threads", "n_gpus", "min_bytes", "max_bytes", "iters",
                  "warmup_iters", "status", "out_of_bounds", "rows", "wrong_total", "failed", "max_busbw_size"):
        assert getattr(trun, field) == getattr(jrun, field), field
    assert trun.avg_busbw == pytest.approx(jrun.avg_busbw, abs=1e-4)
    trows, jrows = _kinds(text, "nccl_test_row"), _kinds(js, "nccl_test_row")
    assert len(trows) == len(jrows) == 25
    for t, j in zip(trows, jrows):
        for f in ("size_bytes", "count", "dtype", "redop", "root", "oop_wrong", "ip_wrong"):
            assert getattr(t, f) == getattr(j, f)
        for f in ("oop_time_us", "oop_algbw", "oop_busbw", "ip_time_us", "ip_algbw", "ip_busbw"):
            assert getattr(t, f) == round(getattr(j, f), 2), (t.size_bytes, f)  # the text prints %.2f
    # JSON evidence: the line (here the one-line file) from where the row sits
    assert jrows[-1].evidence.text.startswith('"size":134217728,"count":33554432')
    # nccl-tests lists one device entry per process in the JSON (the first of its -g 2 ranks):
    # both count the 2 ranks that ran
    assert (jrun.nranks, trun.nranks) == (2, 2)
    assert (len(_kinds(js, "nccl_test_rank")), len(_kinds(text, "nccl_test_rank"))) == (1, 2)


@pytest.mark.parametrize(
    "name, collective, nranks",
    [("allreduce_healthy_g2.txt", "all_reduce", 2), ("allgather_healthy_g2.txt", "all_gather", 2),
     ("reducescatter_healthy_g2.txt", "reduce_scatter", 2), ("sendrecv_healthy_g2.txt", "sendrecv", 2),
     ("v2.11.0_broadcast_g2.txt", "broadcast", 2), ("v2.11.0_reduce_g2.txt", "reduce", 2),
     ("v2.11.0_all_gather_g2.txt", "all_gather", 2)],
)
def test_busbw_factor_matches_real_rows(name, collective, nranks):
    factor = busbw_factor(collective, nranks)
    for r in _kinds(_parse(FIX / name), "nccl_test_row"):
        for algbw, busbw in ((r.oop_algbw, r.oop_busbw), (r.ip_algbw, r.ip_busbw)):
            assert busbw == pytest.approx(algbw * factor, abs=0.011), (r.size_bytes, algbw, busbw)


def test_busbw_factor_definitions():
    assert busbw_factor("all_reduce", 8) == 1.75 and busbw_factor("all_reduce_perf", 1) == 0.0
    assert busbw_factor("alltoall", 4) == 0.75 and busbw_factor("broadcast", 16) == 1.0
    with pytest.raises(ValueError):
        busbw_factor("hypercube", 2)


@pytest.mark.parametrize("code, version", [(22809, "2.28.9"), (21903, "2.19.3"), (2708, "2.7.8")])
def test_nccl_version_code(code, version):
    assert nccl_version_str(code) == version


@pytest.mark.parametrize(
    "line, expected",
    [
        ("# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809", True),
        ("# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 4(factor) warmup iters: 5 iters: 20 validation: 1 ", True),
        ("#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error", True),
        ("vm: Test NCCL failure common.cu:1550 'invalid usage (run with NCCL_DEBUG=WARN for details) / '", True),
        ("vm:1633:1633 [0] NCCL INFO NCCL version 2.28.9+cuda13.0", False),
        ("# Avg bus bandwidth    : 95.4419", True),
        ("# Out of bounds values : 0 OK", True),
        (" Out of bounds values : 2 FAILED", True),  # v1.0.0 printed the footer without "#"
        ("nThread 1 nGpus 1 minBytes 8 maxBytes 16777216 step: 2(factor)", True),  # v1.0.0, or '#' lost in a paste
        ("# nGpus(perProc) 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0", True),
        (" " + (FIX / "v2.11.0_all_gather_g2.txt").read_text().splitlines()[7][1:], True),  # its "#" lost in a paste
        ("   134217728      33554432     float     sum      -1   5190.8   25.86   25.86      0   5186.6   25.88   25.88      0", True),
        ("         256            64     float     sum      -1    34.24    0.01    0.01      0    33.65    0.01    0.01    N/A", True),
        ("   12   34   floating point units counted", False),
        ("8 2 float sum", False),
        ("Avg bandwidth : 12", False),
        # src/common.cu's "#\n# Reducing maxBytes to %ld due to memory limitation\n" (nccl-tests#198)
        ("# Reducing maxBytes to 12156305408 due to memory limitation", True),
        ("Reducing maxBytes to fit", False),
    ],
)
def test_detect_lines(line, expected):
    assert nccl_tests.detect(line + "\n") is expected


def test_detect_only_own_kind_on_real_captures():
    for path in sorted(p for p in OBS.rglob("*") if p.is_file() and p.name != "README.md"):
        head = path.read_text(errors="replace")[:65536]
        is_text = path.parent.name == "nccl-tests" and path.suffix == ".txt"
        is_json = path.parent.name == "nccl-tests" and path.suffix == ".json"
        assert nccl_tests.detect(head) is is_text, path
        assert nccl_tests_json.detect(head) is is_json, path


def test_empty_input():
    for module in (nccl_tests, nccl_tests_json):
        res = module.parse(Artefact(path="empty", text=""))
        assert (res.facts, res.errors, res.lines_used) == ([], [], 0)


def test_rows_and_footer_without_any_header():
    """nccl#1706: the tail of a run (last row, NCCL INFO lines, footer) is one anonymous run."""
    res = _parse(FIX / "nccl1706_g2_tail_footer.txt")
    assert res.errors == []
    run = _run(res)
    assert (run.evidence.line, run.rows, run.status, run.avg_busbw, run.nranks, run.collective) == (1, 1, "OK", 8.62002, 0, None)
    row = _kinds(res, "nccl_test_row")[0]
    assert (row.size_bytes, row.redop, row.root, row.oop_time_us, row.oop_busbw, row.oop_wrong, row.ip_wrong) == (
        134217728, "sum", None, 5190.8, 25.86, 0, 0)


def test_footer_alone_is_a_run():
    res = _parse(FIX / "nccl1412_footer_only.txt")
    run = _run(res)
    assert (run.evidence.line, run.rows, run.status, run.avg_busbw, run.failed) == (3, 0, "OK", 33.3227, False)


def test_footer_alone_is_no_check_that_passed():
    """The footer pasted alone (issue 11, the key line alone): its average cannot be judged, so it
    is a capture cut short (never a healthy check); the run the footer closes is not."""
    text = next(ln for ln in (FIX / "allreduce_healthy_g2.txt").read_text().splitlines() if "Avg bus bandwidth" in ln) + "\n"
    res = nccl_tests.parse(Artefact(path="paste.txt", text=text))
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 1)] and _run(res).avg_busbw is not None
    assert nccl_tests.parse(Artefact(path="whole.txt", text=(FIX / "nccl1706_g2_tail_footer.txt").read_text())).limits == []
    failed = nccl_tests.parse(Artefact(path="f.txt", text="# Out of bounds values : 3 FAILED\n" + text))
    assert failed.limits == [] and _run(failed).failed


def test_column_header_without_run_header():
    res = _parse(FIX / "issue252_header_fragment_rows_footer.txt")
    assert res.errors == []
    run = _run(res)
    assert (run.evidence.line, run.rows, run.status, run.avg_busbw, run.max_busbw) == (2, 5, "OK", 95.3009, 97.54)


def test_in_place_wrong_not_available():
    res = _parse(FIX / "issue214_sendrecv_inplace_na.txt")
    assert res.errors == []
    rows = _kinds(res, "nccl_test_row")
    assert len(rows) == 5 and [(r.oop_wrong, r.ip_wrong, r.wrong) for r in rows[:1]] == [(0, None, 0)]


# The forms of nccl-tests v1.0.0 (src/common.cu and src/<coll>.cu at tag v1.0.0 of
# github.com/NVIDIA/nccl-tests: "nThread" without "#", rank lines without Pid, header
# "bytes N type op ... res", time in ms, broadcast out-of-place only, footer without "#").
# CRAFTED from those printf formats: no public paste of v1.0.0 output was found.
V1_ALL_REDUCE = """nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 4(factor) warmup iters: 5 iters: 20 validation: 1 
# Using devices
#   Rank  0 on  dgx1-node device  0 [0x06] Tesla V100-SXM2-16GB
#   Rank  1 on  dgx1-node device  1 [0x07] Tesla V100-SXM2-16GB

#                                 out-of-place                    in-place
#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res
     1048576        262144   float     sum    0.045  23.30  23.30    0e+00    0.044  23.83  23.83    0e+00
 Out of bounds values : 0 OK
 Avg bus bandwidth    : 23.565 

"""
V1_BROADCAST_ROWS = """     1048576        262144   float       0    0.040  26.21  26.21    0e+00
     4194304       1048576   float       0    0.150  27.96  27.96    0e+00
"""


def test_v1_layout_with_header():
    res = nccl_tests.parse(Artefact(path="v1.txt", text=V1_ALL_REDUCE))
    assert res.errors == []
    run = _run(res)
    assert (run.n_gpus, run.nranks, run.status, run.avg_busbw) == (2, 2, "OK", 23.565)
    assert [r.pid for r in _kinds(res, "nccl_test_rank")] == [None, None]
    row = _kinds(res, "nccl_test_row")[0]
    assert (row.redop, row.oop_time_us, row.oop_max_error, row.ip_busbw) == ("sum", 45.0, 0.0, 23.83)


def test_v1_broadcast_rows_without_header_out_of_place_only():
    assert nccl_tests.detect(V1_BROADCAST_ROWS)
    res = nccl_tests.parse(Artefact(path="v1b.txt", text=V1_BROADCAST_ROWS))
    assert res.errors == []
    rows = _kinds(res, "nccl_test_row")
    # the printed algbw agrees with bytes / time only if time is in ms
    assert [(r.root, r.oop_time_us, r.ip_time_us, r.oop_max_error) for r in rows] == [(0, 40.0, None, 0.0), (0, 150.0, None, 0.0)]


def test_two_footers_make_two_runs():
    text = (FIX / "nccl1412_footer_only.txt").read_text() + (FIX / "nccl1706_g2_tail_footer.txt").read_text()
    runs = _kinds(nccl_tests.parse(Artefact(path="two.txt", text=text)), "nccl_test_run")
    assert [(r.rows, r.avg_busbw) for r in runs] == [(0, 33.3227), (1, 8.62002)]


def test_timeout_line_fails_the_run():
    # CRAFTED from src/common.cu (2.13 on, -T): printf("%s: Test timeout (%ds) %s:%d\n", hostname, timeout, __FILE__, __LINE__)
    text = (FIX / "allreduce_hang_g4_h800.txt").read_text() + "deepseek: Test timeout (600s) common.cu:527\n"
    assert nccl_tests.detect("deepseek: Test timeout (600s) common.cu:527\n")
    res = nccl_tests.parse(Artefact(path="t.txt", text=text))
    run = _run(res)
    [fail] = _kinds(res, "nccl_test_failure")
    assert (fail.failure_type, fail.message, fail.source_line, run.failed) == ("timeout", "Test timeout (600s)", 527, True)
    assert run.failure_message == "Test timeout (600s) common.cu:527"


def test_row_ending_after_its_out_of_place_half_is_cut_short_not_malformed():
    """nccl-tests prints a row in pieces (the out-of-place block, then the in-place collective runs
    and its block follows): a row ending after the out-of-place columns is a run whose in-place half
    never reported (hung, killed or cut: nccl#1530's paste), not a malformed row."""
    res = _parse(FIX / "nccl1530_tree_first_row_out_of_place_only.txt")
    assert res.errors == []
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 17)]
    run = _run(res)
    assert (run.nranks, run.rows, run.failed, run.status) == (8, 0, False, None)
    # one column too many or too few is still a malformed row
    head = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    nxt = "          16             4     float     sum      -1    42.10    0.00    0.00      0    41.9    0.00    0.00      0\n"
    for row in ("           8             2     float     sum      -1    42.56    0.00    0.00\n",
                "           8             2     float     sum      -1    42.56    0.00    0.00      0    41.0\n"):
        bad = nccl_tests.parse(Artefact(path="x.txt", text=head + row + nxt))  # (no footer: cut at line 3)
        assert [e.line for e in bad.errors] == [2] and 2 not in [h.line for h in bad.limits]
    # one column too many is malformed even as the last line; too few there is a cut row
    long = "           8             2     float     sum      -1    42.56    0.00    0.00      0    41.0    0.00    0.00      0    7\n"
    bad = nccl_tests.parse(Artefact(path="x.txt", text=head + long))
    assert [e.line for e in bad.errors] == [2] and bad.limits == []


def test_last_line_cut_inside_a_rank_line_or_a_row_is_cut_short():
    """A paste that ends inside its last line (nccl-tests#152: `#  Rank 13 Group`; nccl-tests#194: a
    row cut inside its in-place half) is an incomplete capture, not a parse problem nobody explains;
    the rows before it are read."""
    res = _parse(FIX / "nccltests152_rank_list_cut_mid_line.txt")
    assert res.errors == [] and ("cut_short", 22) in [(h.limit, h.line) for h in res.limits]
    assert _run(res).nranks == 13
    res = _parse(FIX / "nccltests194_last_row_cut_in_place_half.txt")
    assert res.errors == [] and ("cut_short", 11) in [(h.limit, h.line) for h in res.limits]
    assert [r.size_bytes for r in _kinds(res, "nccl_test_row")] == [1073741824, 2147483648]
    # the same rank line with a line after it is still malformed
    text = (FIX / "nccltests152_rank_list_cut_mid_line.txt").read_text() + "#  Rank 14 Group  0 Pid  23216 on      gpu37 device  6 [0xc8] NVIDIA A100-SXM4-80GB\n"
    assert [e.line for e in nccl_tests.parse(Artefact(path="x.txt", text=text)).errors] == [22]


def test_rank_list_cut_inside_a_process_block_is_cut_short():
    """nccl-tests prints a process's nThread x nGpus rank lines in one write: a '-g 4' run pasted with
    two of its four lines was cut, not hung (CONSTRUCTED cut: nccl#1706's real run ending after its
    second rank line). Whole blocks (nccl#1706's four lines of -g 4, one line per process of -g 1)
    stay a run with no results."""
    cut = "".join((FIX / "allreduce_hang_g4_h800.txt").read_text().splitlines(keepends=True)[:7])
    res = nccl_tests.parse(Artefact(path="x.txt", text=cut))
    assert (_run(res).nranks, _run(res).rank_list_cut) == (2, True)
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 7)] and res.errors == []
    for name in ("allreduce_hang_g4_h800.txt", "soperator_pr428_multihost.txt"):
        assert _run(_parse(FIX / name)).rank_list_cut is False, name
    # nccl-tests#152 (-np 16 x -g 1): whole one-line blocks, but the text ends inside rank 13's line
    res = _parse(FIX / "nccltests152_rank_list_cut_mid_line.txt")
    assert _run(res).rank_list_cut is True and [(h.limit, h.line) for h in res.limits] == [("cut_short", 22)]


def test_nthread_line_with_nothing_after_it_is_cut_short():
    """A run that printed its nThread line and then nothing of its own (nccl#340: a table's tail and
    footer, then `./broadcast_perf ...` and its header where the paste ends): nothing was measured,
    so the capture is cut short and the finished run before it does not make the file a pass."""
    res = _parse(FIX / "nccl340_table_tail_then_nthread_only.txt")
    runs = _kinds(res, "nccl_test_run")
    assert [(r.rows, r.status, r.n_threads) for r in runs] == [(12, "OK", None), (0, None, 1)]
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 17)]
    assert res.errors == []
    assert _parse(FIX / "allreduce_truncated_g2.txt").limits[0].line != 1  # a run with rows is cut at its last row


def test_table_without_run_header_or_footer_is_cut_short():
    """Every nccl-tests release prints its footer (`# Out of bounds values`, `# Avg bus bandwidth`)
    after the last size: a table pasted without it, even without its nThread line (nccl-tests#150,
    "all_reduce_perf fails on 2 nodes": the column header and four rows), never showed the run
    finish, so the capture is cut short, not a run that passed."""
    res = _parse(FIX / "nccltests150_table_no_run_header_no_footer.txt")
    run = _run(res)
    assert (run.rows, run.failed, run.status) == (4, False, None)
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 8)]
    assert res.errors == []


@pytest.mark.parametrize("name, collectives", [
    # 'NCCL_ALGO=TREE ./all_reduce_perf -g 8 ...' above the nThread line (NVIDIA/nccl#1530)
    ("nccl1530_tree_first_row_out_of_place_only.txt", ["all_reduce"]),
    # '../build/alltoall_perf \' with mpirun's arguments on the lines around it (NVIDIA/nccl-tests#152)
    ("nccltests152_rank_list_cut_mid_line.txt", ["alltoall"]),
    # a table tail with no command above it, then './broadcast_perf ...' and its nThread line (NVIDIA/nccl#340):
    # the command names the second run only
    ("nccl340_table_tail_then_nthread_only.txt", [None, "broadcast"]),
])
def test_collective_named_by_the_command_line_above_the_run(name, collectives):
    runs = _kinds(_parse(FIX / name), "nccl_test_run")
    assert [r.collective for r in sorted(runs, key=lambda r: r.evidence.line)] == collectives


def test_command_after_a_shell_prompt_names_the_run():
    """Azure/azurehpc-health-checks#142 (harvest 1603): 'root@vm:/azure-nhc# /opt/nccl-tests/build/all_reduce_perf
    -b 16G ...' then the run; '# Collective test starting' (nccl-tests 2.19+) is not printed by that build."""
    [path] = (ROOT / "fixtures" / "harvest" / "cases").glob("1603-*/nccl-tests.txt")
    assert _run(_parse(path)).collective == "all_reduce"


def test_a_name_that_is_not_a_command_names_nothing():
    text = ("see all_reduce_perf.cu and my_all_reduce_perf -g 2\n"
            + (FIX / "nccl1530_tree_first_row_out_of_place_only.txt").read_text().split("\n", 1)[1])
    assert _run(_parse(FIX / "x.txt", text=text)).collective is None


def test_capture_cut_after_a_bus_id_inside_a_header_or_inside_a_headerless_row():
    """Lines nccl-tests prints in one write, cut on the text's last line, are a cut capture, not
    a hang or a parse problem: a rank line after its bus id, before the GPU's name
    (kvcache-ai/Mooncake#3484); the column header before its time columns (nccl-tests#270); a row
    pasted without its header, cut after its redop (Mooncake#3484)."""
    res = _parse(FIX / "mooncake3484_rank_line_cut_after_bus_id.txt")
    run = [r for r in _kinds(res, "nccl_test_run") if r.nranks][0]
    assert res.errors == [] and ("cut_short", 19) in [(h.limit, h.line) for h in res.limits]
    assert (run.nranks, run.rank_list_cut, run.node, run.nccl_tests_version) == (5, True, "qjh001", "2.19.7")
    res = _parse(FIX / "nccltests270_header_cut.txt")
    assert res.errors == [] and [(h.limit, h.line) for h in res.limits] == [("cut_short", 15)]
    assert (_run(res).nranks, _run(res).rank_list_cut) == (8, True)
    res = _parse(FIX / "mooncake3484_headerless_row_cut.txt")
    assert res.errors == [] and ("cut_short", 5) in [(h.limit, h.line) for h in res.limits]
    assert _run(res).rows == 4
    # the same lines with a line after them are malformed, not cut
    for name, line in (("mooncake3484_rank_line_cut_after_bus_id.txt", 19), ("mooncake3484_headerless_row_cut.txt", 5)):
        text = (FIX / name).read_text() + "     1048576        262144     float     sum      -1    27.76   37.78   66.11       0    27.49   38.15   66.76       0\n"
        assert line in [e.line for e in nccl_tests.parse(Artefact(path="x.txt", text=text)).errors], name
    # a whole column header as the last line is no cut: the run hung before its first size
    text = (FIX / "nccltests270_header_cut.txt").read_text().rstrip("\n") + "     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    res = nccl_tests.parse(Artefact(path="x.txt", text=text))
    assert res.limits == [] and _run(res).rank_list_cut is False


def test_paste_starting_at_using_devices_reads_its_rank_lines():
    """'# Using devices' (every release's src/common.cu / util.cu PRINT) opens a run when the paste
    starts there without its nThread line (nccl-tests#314): its rank lines name the host and GPUs.
    A device list alone is no run seen to hang."""
    res = _parse(FIX / "nccltests314_from_using_devices.txt")
    run = _run(res)
    assert (run.nranks, run.hosts, run.node, run.rows) == (8, 1, "TENCENT64", 3) and res.errors == []
    assert {r.gpu_name for r in _kinds(res, "nccl_test_rank")} == {"NVIDIA H20-3e"}
    devices = "".join((FIX / "nccltests314_from_using_devices.txt").read_text().splitlines(True)[:9])
    res = nccl_tests.parse(Artefact(path="x.txt", text="# nccl-tests version 2.19.7 nccl-headers=23004 nccl-library=23004\n"
                                                        "# Avg bus bandwidth    : 1.0\n" + devices))
    runs = _kinds(res, "nccl_test_run")
    assert [(r.nranks, r.rank_list_cut) for r in runs][-1] == (8, True)
    assert ("cut_short", 3) in [(h.limit, h.line) for h in res.limits]


def test_rccl_tests_rank_lines_with_the_whole_bus_id():
    # real (ROCm/rccl-tests#50): rccl-tests prints the domain, bus, device and function
    r = _parse(FIX / "rccltests50_rank_whole_bus_id_internal_error.txt")
    ranks = _kinds(r, "nccl_test_rank")
    assert [(f.rank, f.pci_bus_id, f.gpu_name) for f in ranks][:2] == [
        (0, "0000:63:00.0", "AMD Instinct MI210"), (1, "0000:43:00.0", "AMD Instinct MI210")]
    assert len(ranks) == 4 and not r.errors
    # CONSTRUCTED: a function digit out of range stays a bad rank line
    bad = _parse(FIX / "x.txt", text="#   Rank  0 Pid 1 on h device  0 [0000:63:00.9] AMD Instinct MI210\n")
    assert _kinds(bad, "nccl_test_rank") == []
