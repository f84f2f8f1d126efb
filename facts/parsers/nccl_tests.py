"""nccl-tests text output: what ``all_reduce_perf -b 8 -e 2G -f 2 -g 2`` (and the other
``*_perf`` binaries of https://github.com/NVIDIA/nccl-tests) print on stdout.

Sample content (nccl-tests 2.19.6 on a 2 x H200 host)::

    # nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
    # nThread 1 nGpus 2 minBytes 8 maxBytes 2147483648 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
    #  Rank  0 Group  0 Pid   1428 on         vm device  0 [0000:00:06] NVIDIA H200
      2147483648     536870912     float     sum      -1  6318.05  339.90  339.90       0  6322.67  339.65  339.65       0
    # Avg bus bandwidth    : 95.4419

Older releases differ: before 2.13 there is no version line, no ``Group``, the bus is printed
alone (``[0x1b]``), the leading columns depend on the collective (``redop``, ``root``, both or
neither) and the last column of each half is ``error`` (max deviation, ``0e+00``) instead of
``#wrong``; 2.19 adds per-iteration columns (``-P``) and a trailing timestamp (``-S``). v1.0.0
printed ``nThread`` and the footer without ``#``, rank lines without ``Pid``, a ``bytes N type
op ... res`` header and times in ms. The column header of each run says which set follows;
rows pasted without it are read by their own columns (:mod:`nccl_tests_rows`).

A file may hold several runs one after another (a run starts at ``# nccl-tests version``,
``# Collective test starting`` or ``# nThread``) and other text (mpirun warnings, a shell
prompt, NCCL INFO lines): only nccl-tests' own lines are taken. People paste parts: a column
header, rows or a footer alone is recognised by its own form and read as one anonymous run
per block (a block ends at its ``Avg bus bandwidth`` line); its node is the bundle's.

Facts emitted (classes in :mod:`nccl_tests_facts`): ``nccl_test_run`` per run (evidence: its
first line), ``nccl_test_rank`` per rank line, ``nccl_test_table`` per run with rows (every
row, as columns) and ``nccl_test_row`` per table row (kept only where a rule can bind it),
``nccl_test_failure`` per ``Test NCCL|CUDA failure`` / ``Test failure`` line.

Empty input, or text without nccl-tests lines, yields no facts: no test was run, which says
nothing about the fabric. A run without its footer has ``status`` None (cut short or still running).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from stethoscope.facts.ids import pci_bus_id
from stethoscope.facts.parsers import nccl_tests_rows as rows
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, last_line
from stethoscope.facts.parsers.nccl_tests_facts import (
    NcclTestFailure,
    NcclTestRank,
    NcclTestRow,
    NcclTestRun,
    emit_rows,
    nccl_version_str,
    normalise_collective,
    summarise_rows,
)

KIND = "nccl_tests"

__all__ = ["KIND", "detect", "parse", "NcclTestRun", "NcclTestRank", "NcclTestRow", "NcclTestFailure"]

# detect(): a line only nccl-tests prints, anywhere in the text: a run header, a column header,
# a results row (by its form, _ROW), a footer line, a failure line.
# # nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 ...
# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1     (v1.0.0: no "#")
# # nGpus(perProc) 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0   (scitix fork, sichek#52)
# #      bytes             N    type      op      time  algbw  busbw      res     time  algbw  busbw      res   (v1.0.0)
# # Out of bounds values : 0 OK          Out of bounds values : 0 OK   (v1.0.0 printed it without "#")
# # Avg bus bandwidth    : 3.94
# vm: Test NCCL failure common.cu:1550 'invalid usage (run with NCCL_DEBUG=WARN for details) / '
# # Reducing maxBytes to 12156305408 due to memory limitation
#   (src/common.cu: printf("#\n# Reducing maxBytes to %ld due to memory limitation\n", maxBytes))
_DETECT = re.compile(
    r"^(?:# )?(?:nccl-tests version \S+ nccl-headers=|Collective test starting: \S+|nThread \d+ nGpus \d+ minBytes "
    r"|nGpus\(perProc\) \d+ minBytes )"
    r"|^# ?Reducing maxBytes to \d+ due to memory limitation"
    r"|^#?[ \t]+(?:size\s+count|bytes\s+N)\s+type\s"
    r"|^(?:# ?| ?)(?:Out of bounds values\s*: *-?\d+|Avg bus bandwidth\s*: *\S)"
    r"|^\S+: Test (?:NCCL|CUDA) failure \S+:\d+ '|^\S+: Test timeout \(\d+s\) "
    r"|" + rows.ROW,
    re.M,
)
#: literal gates of detect(): every branch of _DETECT holds one of these
_GATES = ("#", "Reducing maxBytes", " failure ", " timeout (", "nThread ", "nGpus(", "bounds values", "bus bandwidth", " count ", " N ") + rows.DTYPES

# Whole-text scan: every line nccl-tests prints, one named alternative per line kind.
_LINE = re.compile(
    # # nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
    r"^# nccl-tests version (?P<tver>\S+) nccl-headers=\d+ nccl-library=(?P<lib>\S+)[^\n]*"
    # # Collective test starting: all_reduce_perf
    r"|^# Collective test starting: (?P<start>\S+)[^\n]*"
    # # nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 4(factor) warmup iters: 5 iters: 20 validation: 1
    # nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1   (v1.0.0)
    # # nGpus(perProc) 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
    r"|^(?:# )?(?P<nthread>(?:nThread \d+ nGpus|nGpus\(perProc\)) \d+ minBytes [^\n]*)"
    # #  Rank  0 Group  0 Pid   1633 on         vm device  0 [0000:00:06] NVIDIA H200
    # #   Rank  0 Pid   1129 on         vm device  0 [0x00] NVIDIA H200
    # #   Rank  0 on  hostname device  0 [0x1a] Tesla V100-SXM2-16GB          (v1.0.0: no Pid)
    r"|^# +(?P<rank>Rank [^\n]*)"
    # #       size         count      type   redop    root     time   algbw   busbw  #wrong     time ...
    # #      bytes             N    type      op      time  algbw  busbw      res     time  algbw  busbw      res   (v1.0.0)
    #        size         count      type     time   algbw   busbw  error     time   algbw   busbw  error   (its '#' lost in a paste)
    r"|^#?[ \t]+(?P<hfirst>size\s+count|bytes\s+N)\s+type(?P<header>[^\n]*)"
    #            8             2     float     sum      -1    13.54    0.00    0.00       0    13.06 ...
    r"|^(?P<row>[ \t]*\d+[ \t]+\d+[ \t]+[A-Za-z_]\w*[ \t][^\n]*)"
    # # Out of bounds values : 0 OK               Out of bounds values : 0 OK   (v1.0.0: no "#")
    r"|^(?:# ?| ?)Out of bounds values\s*: *(?P<oob>[^\n]*)"
    # # Avg bus bandwidth    : 95.4419            Avg bus bandwidth    : 23.565    (v1.0.0)
    r"|^(?:# ?| ?)Avg bus bandwidth\s*: *(?P<avg>[^\n]*)"
    # vm: Test NCCL failure common.cu:1550 'invalid usage (run with NCCL_DEBUG=WARN for details) / '
    r"|^(?P<fhost>\S+): Test (?P<ftype>NCCL|CUDA) failure (?P<ffile>[^\s:]+):(?P<fline>\d+) (?P<fmsg>[^\n]*)"
    #  .. vm pid 1633: Test failure common.cu:1454
    r"|^ \.\. (?P<thost>\S+) pid (?P<tpid>\d+): Test failure (?P<tfile>[^\s:]+):(?P<tline>\d+)[^\n]*"
    # src/common.cu since 2.13 (-T/--timeout): printf("%s: Test timeout (%ds) %s:%d\n", hostname, timeout, __FILE__, __LINE__)
    r"|^(?P<ohost>\S+): Test timeout \((?P<osec>\d+)s\) (?P<ofile>[^\s:]+):(?P<oline>\d+)[^\n]*"
    # # Collective test concluded: all_reduce_perf      # Using devices      #
    # #        (B)    (elements)  ...   # Writing JSON output to ...   # Blocking Enabled: ...
    r"|^(?P<other>#(?: Collective test concluded: | Using devices| +\(B\)| +out-of-place| Writing JSON output"
    r"| Blocking Enabled| Parallel Init| Per-Iteration Report| GPU memory usage| error: | Reducing maxBytes)[^\n]*|#[ \t]*$)",
    re.M,
)

# nThread 1 nGpus 2 minBytes 8 maxBytes 2147483648 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
_NTHREAD = re.compile(
    r"(?:nThread (?P<threads>\d+) nGpus|nGpus\(perProc\)) (?P<gpus>\d+) minBytes (?P<min>\d+) maxBytes (?P<max>\d+) "
    r"step: (?P<step>\d+)\((?:factor|bytes)\) warmup iters: (?P<warmup>\d+)\s+iters: (?P<iters>\d+)"
    r"(?:.*?validation: (?P<validation>\d+))?"
)

# The command that started a run, pasted above its header (nccl-tests 2.x prints no collective name of its own
# before 2.19's "# Collective test starting" line): the binary's name, after a prompt, a path, variables or mpirun.
# root@vm:/azure-nhc# /opt/nccl-tests/build/all_reduce_perf -b 16G -f 2 -g 8 -e 16G -c 1     (Azure/azurehpc-health-checks#142)
# $ ./all_reduce_perf -g 8 -c 0 -n 100 -w 20                                                 (NVIDIA/nccl-tests#74)
# NCCL_ALGO=TREE ./all_reduce_perf -g 8 -b 8 -e 128M -f 2                                   (NVIDIA/nccl#1530)
#       ../build/alltoall_perf \                                                           (NVIDIA/nccl-tests#152, mpirun's args on the next lines)
_COMMAND = re.compile(r"(?<![\w.-])(?P<bin>(?:all_reduce|all_gather|reduce_scatter|broadcast|reduce|sendrecv|alltoall|gather|scatter"
                      r"|hypercube)_perf)(?:_mpi)?(?=[ \t]|$)", re.M)

# Rank  0 Group  0 Pid   1633 on         vm device  0 [0000:00:06] NVIDIA H200
# Rank  1 Group  0 Pid    798 on       hw14 device  1 [0x34] NVIDIA H800
# Rank  0 on  hostname device  0 [0x1a] Tesla V100-SXM2-16GB        (v1.0.0: no Pid)
#   Rank  0 Pid 117738 on sharbox-ultra device  0 [0000:63:00.0] AMD Instinct MI210   (rccl-tests: the whole bus id,
#                                                                                         ROCm/rccl-tests#50)
_RANK = re.compile(
    r"Rank +(?P<rank>\d+)(?: +Group +(?P<group>\d+))?(?: +Pid +(?P<pid>\d+))? on +(?P<host>\S+) "
    r"device +(?P<device>\d+) \[(?P<bus>[0-9a-fA-Fx:]+(?:\.[0-7])?)\] (?P<name>(?:[^\n]*\S)?)\s*$"
)

# 0 OK          2 FAILED
_OOB = re.compile(r"(?P<count>-?\d+)(?: +(?P<status>OK|FAILED))?\s*$")
# 95.4419          1.2e+02 FAILED
_AVG = re.compile(r"(?P<bw>\S+)(?: +(?P<check>OK|FAILED))?\s*$")
# 'invalid usage (run with NCCL_DEBUG=WARN for details) / '
_QUOTED = re.compile(r"^'(?P<msg>.*)'\s*$")


@dataclass
class _Run:
    line: int
    collective: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    layout: rows.Layout | None = None  # from the column header; None: none seen
    headerless: bool = False  # rows read without a column header (layout inferred per row)
    ranks: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    rows: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    failures: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    rank_line_cut: bool = False  # the text ends inside a rank line
    header_cut: bool = False  # the text ends inside the column header line (before its time columns)
    from_devices: bool = False  # opened by '# Using devices' (its nThread line not pasted)
    row_cols: int = 0  # columns of the last whole row read without a header
    stage: int = 0  # 1 version seen, 2 start seen, 3 nThread seen, 4 ranks/rows/footer seen


def detect(head: str) -> bool:
    if not any(g in head for g in _GATES):
        return False
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    builder = FactBuilder(artefact, result)
    runs: list[_Run] = []
    orphans: list[tuple[int, dict[str, Any], str]] = []
    used = 0

    def open_run(line: int, stage: int) -> _Run:
        # a version line is followed by "starting" and "nThread": same run while in that order
        if runs and runs[-1].stage < stage and runs[-1].stage in (1, 2) and stage <= 3:
            runs[-1].stage = stage
            return runs[-1]
        run = _Run(line=line, stage=stage)
        runs.append(run)
        return run

    text, line_of, search, pos = artefact.text, artefact.line_of, _LINE.search, 0
    while (m := search(text, pos)) is not None:  # finditer's matches, with a table's rows taken at once
        pos = m.end()
        line_no = line_of(m.start())
        kind = m.lastgroup  # the outermost group of the alternative that matched
        run = runs[-1] if runs else None
        if kind == "lib":
            run = open_run(line_no, 1)
            run.fields["nccl_tests_version"] = m["tver"]
            run.fields["nccl_version"] = _version(m["lib"])
        elif kind == "start":
            run = open_run(line_no, 2)
            run.collective = normalise_collective(m["start"])
        elif kind == "nthread":
            run = open_run(line_no, 3)
            _read_nthread(builder, line_no, m["nthread"], run)
        elif kind in ("fmsg", "tline", "oline"):
            (run.failures if run else orphans).append(_failure(m, line_no))
        elif kind == "header":
            if run is None or run.layout is not None or run.headerless or _closed(run):
                run = _Run(line=line_no)  # a table pasted without its run header
                runs.append(run)
            run.stage = 4
            run.layout = rows.layout_of_header(m["hfirst"], m["header"])
            if not rows.header_has_times(m["header"]) and line_no >= last_line(artefact.lines):
                # '#       size         count      type   redop    root' and nothing after it (nccl-tests#270):
                # nccl-tests prints the names in one PRINT (src/common.cu, 2.14+ src/util.cu writeResultHeader),
                # so a header without its time columns on the text's last line is a cut capture, not a hang
                builder.limit(line_no, "cut_short", "nccl-tests column header on the text's last line is cut before its "
                                                    "time columns: the capture was cut; nothing was measured")
                run.header_cut = True
        elif kind == "row":
            if run is None or _closed(run) or (run.layout is None and not run.headerless):
                if not rows.ROW_RE.match(m["row"]):
                    continue  # digits outside a results table
                if run is None or _closed(run):  # rows pasted without any header: one run per block
                    run = _Run(line=line_no)
                    runs.append(run)
                run.headerless = True
            run.stage = 4
            # this row and those after it in the fixed forms of its header's layout: one findall
            block = None if run.headerless else rows.fixed_rows(text, m.start(), run.layout, run.collective)
            if block is not None:
                read, pos = block
                run.rows.extend(zip(count(line_no), read))
                used += len(read)
                continue
            _read_row(builder, line_no, m["row"], run)
        elif kind in ("oob", "avg") and (run is None or _closed(run) or (kind == "oob" and "out_of_bounds" in run.fields)):
            run = _Run(line=line_no, stage=4)  # a footer pasted without its table
            runs.append(run)
            _read_footer(builder, line_no, kind, m, run)
        elif kind == "other" and m["other"].startswith("# Using devices"):
            if run is None or _closed(run):  # a paste that starts at the device list (nccl-tests#314)
                runs.append(_Run(line=line_no, stage=3, from_devices=True))
            used += 1
            continue
        elif run is None:
            continue  # a rank line outside any run is not ours
        elif kind == "rank":
            run.stage = 4
            _read_rank(builder, line_no, m["rank"], run)
        elif kind in ("oob", "avg"):
            _read_footer(builder, line_no, kind, m, run)
        used += 1

    _name_from_commands(artefact.text, runs)
    for line_no, fields, host in orphans:
        fields = {k: v for k, v in fields.items() if k != "_summary"}
        builder.add(NcclTestFailure, line_no, node=artefact.node_for(host), run_id=None, **fields)
    for run in runs:
        _emit(builder, artefact, run)
    result.lines_used = used
    return result


def _name_from_commands(text: str, runs: list[_Run]) -> None:
    """A run that does not name its collective takes it from the last command line above its first
    line and below the previous run's (only a text holding ``_perf`` is searched)."""
    if "_perf" not in text or all(r.collective for r in runs):
        return
    commands = [(text.count("\n", 0, m.start()) + 1, m["bin"]) for m in _COMMAND.finditer(text)]
    floor = 0
    for run in runs:
        if run.collective is None:
            above = [name for line, name in commands if floor < line < run.line]
            if above:
                run.collective = normalise_collective(above[-1])
        floor = run.line


def _closed(run: _Run) -> bool:
    """The run printed its last footer line: what follows is another run."""
    return "avg_busbw" in run.fields


def _read_footer(builder: FactBuilder, line_no: int, kind: str | None, m: re.Match[str], run: _Run) -> None:
    run.stage = 4
    if kind == "oob":
        om = _OOB.match(m["oob"])
        if om is None:
            builder.error(line_no, f"out-of-bounds count is not a number: {m['oob']!r}")
        else:
            run.fields["out_of_bounds"] = int(om["count"])
            run.fields["status"] = om["status"] or ("FAILED" if int(om["count"]) else "OK")
        return
    am = _AVG.match(m["avg"])
    bw = _float(am["bw"]) if am else None
    if bw is None:
        builder.error(line_no, f"average bus bandwidth is not a number: {m['avg']!r}")
    else:
        run.fields["avg_busbw"] = bw
        run.fields["avg_busbw_check"] = am["check"]


def _version(raw: str) -> str | None:
    return nccl_version_str(int(raw)) if raw.isdecimal() else None


def _read_nthread(builder: FactBuilder, line_no: int, text: str, run: _Run) -> None:
    m = _NTHREAD.match(text)
    if m is None:
        builder.error(line_no, "nThread line without the expected numbers")
        return
    run.fields.update(
        n_threads=int(m["threads"]), n_gpus=int(m["gpus"]), min_bytes=int(m["min"]), max_bytes=int(m["max"]),
        warmup_iters=int(m["warmup"]), iters=int(m["iters"]),
        validation=int(m["validation"]) if m["validation"] else None,
    )


def _read_rank(builder: FactBuilder, line_no: int, text: str, run: _Run) -> None:
    m = _RANK.match(text)
    if m is None:
        # '#  Rank 13 Group': cut before its bus id (NVIDIA/nccl-tests#152), or right after it, before the GPU's
        # name that the same snprintf prints ('#  Rank  5 Group  0 Pid 672739 on     qjh001 device  5 [0000:69:03]',
        # kvcache-ai/Mooncake#3484): cut, if nothing follows
        if "]" not in text or text.rstrip().endswith("]"):
            limits = len(builder.result.limits)
            builder.error_unless_last(line_no, "rank line without rank, pid, host, device and bus id", "an nccl-tests rank line")
            run.rank_line_cut = len(builder.result.limits) > limits  # the text ends inside it: the list was cut
        else:
            builder.error(line_no, "rank line without rank, pid, host, device and bus id")
        return
    bus = m["bus"]
    try:
        # [0x1b]: nccl-tests before 2.17 printed only prop.pciBusID
        busid = pci_bus_id(f"0000:{int(bus, 16):02x}:00.0" if ":" not in bus else bus)
    except ValueError:
        builder.error(line_no, f"bad PCI bus id {bus!r}")
        return
    fields = dict(rank=int(m["rank"]), group=int(m["group"]) if m["group"] else None,
                  pid=int(m["pid"]) if m["pid"] else None,
                  host=m["host"], device=int(m["device"]), pci_bus_id=busid, gpu_name=m["name"])
    run.ranks.append((line_no, fields, m["host"]))


def _read_row(builder: FactBuilder, line_no: int, text: str, run: _Run) -> None:
    fields, problem = rows.read_row(text, None if run.headerless else run.layout, run.collective)
    if fields is None and rows.out_of_place_half(text, None if run.headerless else run.layout):
        builder.limit(line_no, "cut_short", f"nccl-tests row of {text.split()[0]} bytes ends after its out-of-place "
                                            "columns: the in-place half never came (hung, killed or cut)")
        return
    if fields is None:
        # a row cut inside its in-place half as the last line (NVIDIA/nccl-tests#194):
        #   4294967296    1073741824     float     sum      -1    36943  116.26  116.26      0    36917  116.34
        lay = None if run.headerless else run.layout
        # fewer columns than a full row (for rows without their header: than the row before it, or than
        # any layout has): cut, if nothing follows it
        #    67108864      16777216     float     sum        (kvcache-ai/Mooncake#3484, the last line of a paste)
        short = rows.short_row(text, lay) if lay is not None else len(text.split()) < (run.row_cols or rows.FEWEST_COLUMNS)
        if short:
            builder.error_unless_last(line_no, problem or "results row not read", "an nccl-tests results row")
        else:
            builder.error(line_no, problem or "results row not read")
        return
    if run.headerless:
        run.row_cols = len(text.split())
    run.rows.append((line_no, fields))


def _failure(m: re.Match[str], line_no: int) -> tuple[int, dict[str, Any], str]:
    if m["fhost"] is not None:
        q = _QUOTED.match(m["fmsg"])
        msg = q["msg"] if q else m["fmsg"].strip()
        err, _, last = msg.partition(" / ") if m["ftype"] == "NCCL" else ("", "", "")
        # NCCL >= 2.13 builds print 'error string / ncclGetLastError()'
        fields = dict(host=m["fhost"], pid=None, failure_type=m["ftype"].lower(), source_file=m["ffile"],
                      source_line=int(m["fline"]), message=msg, nccl_error=err.strip() or None,
                      last_error=last.strip() or None,
                      _summary=f"Test {m['ftype']} failure {m['ffile']}:{m['fline']} {m['fmsg'].strip()}")
        return line_no, fields, m["fhost"]
    if m["ohost"] is not None:
        fields = dict(host=m["ohost"], pid=None, failure_type="timeout", source_file=m["ofile"],
                      source_line=int(m["oline"]), message=f"Test timeout ({m['osec']}s)", nccl_error=None,
                      last_error=None, _summary=f"Test timeout ({m['osec']}s) {m['ofile']}:{m['oline']}")
        return line_no, fields, m["ohost"]
    fields = dict(host=m["thost"], pid=int(m["tpid"]), failure_type="test", source_file=m["tfile"],
                  source_line=int(m["tline"]), message="Test failure", nccl_error=None, last_error=None,
                  _summary=f"Test failure {m['tfile']}:{m['tline']}")
    return line_no, fields, m["thost"]


def _float(raw: str) -> float | None:
    try:
        return float(raw)
    except ValueError:
        return None


def _emit(builder: FactBuilder, artefact: Artefact, run: _Run) -> None:
    f = run.fields
    if run.rows and not run.failures and "out_of_bounds" not in f and "avg_busbw" not in f:
        # a table (with or without its nThread line and column header) that stops without the
        # footer every nccl-tests release prints after its last size (src/common.cu: "# Out of
        # bounds values" and "# Avg bus bandwidth"): the test hung, crashed or was killed, or the
        # capture was cut; the sizes it never reached were not measured
        last, row = run.rows[-1]
        builder.limit(last, "cut_short", f"nccl-tests run of line {run.line} stops after {row.get('size_bytes', row.get('bytes', '?'))} bytes "
                                         f"without its footer (hung, killed or cut): the larger sizes were not measured")
    if "n_threads" in f and not (run.ranks or run.rows or run.failures) and "avg_busbw" not in f and "out_of_bounds" not in f:
        # the nThread line and nothing of its run after it (no device, row or footer): the run
        # hung before it listed its devices, or the capture was cut; nothing was measured
        builder.limit(run.line, "cut_short", f"nccl-tests run of line {run.line} printed its nThread line and no "
                                             "device, result or footer after it (hung or cut): nothing was measured")
    rank_list_cut = _rank_list_cut(run)
    if run.header_cut:  # cut inside the column header: its own limit; no hang seen
        rank_list_cut = True
    elif run.from_devices and run.ranks and not (run.rows or run.failures or run.layout or "avg_busbw" in f or "out_of_bounds" in f):
        # '# Using devices' and its rank lines pasted without the run's nThread line, column header or
        # results: a device list, not a run seen to hang (that needs the lines around it)
        builder.limit(run.line, "cut_short", f"nccl-tests device list of line {run.line} pasted without its run's "
                                             "nThread line, header or results: nothing was measured")
        rank_list_cut = True
    elif not rank_list_cut and _cut_after_init(artefact, run):
        builder.limit(run.ranks[-1][0] + 1, "cut_short", f"nccl-tests run of line {run.line} printed the '#' that precedes its column "
                                                         "header once its communicators exist, and nothing after it: the capture was cut "
                                                         "after NCCL init; nothing was measured")
        rank_list_cut = True
    elif rank_list_cut and not run.rank_line_cut:  # a rank line cut inside has its own limit
        builder.limit(run.ranks[-1][0], "cut_short", f"nccl-tests run of line {run.line} lists {len(run.ranks)} rank(s) where each "
                                                     f"process prints {f['n_threads'] * f['n_gpus']} at once (nThread x nGpus): "
                                                     "the capture was cut inside the device list; nothing was measured")
    hosts = {h for _, _, h in run.ranks}
    summary = summarise_rows([r for _, r in run.rows])
    failures = [fl for _, fl, _ in run.failures]
    message = next((fl["_summary"] for fl in failures if fl["failure_type"] != "test"), None)
    message = message or next((fl["_summary"] for fl in failures), None)
    if message is None and f.get("status") == "FAILED":
        message = f"Out of bounds values : {f.get('out_of_bounds')} FAILED"
    if message is None and f.get("avg_busbw_check") == "FAILED":
        message = f"Avg bus bandwidth : {f.get('avg_busbw')} FAILED"
    failed = bool(failures) or f.get("status") == "FAILED" or f.get("avg_busbw_check") == "FAILED"
    if "avg_busbw" in f and not (run.rows or run.ranks or run.failures or "n_threads" in f) and not failed:
        # the footer pasted alone (# Avg bus bandwidth    : 95.4419): a figure with no sizes, ranks,
        # GPUs or transport to judge it by is no check that passed
        builder.limit(run.line, "cut_short", f"nccl-tests footer of line {run.line} without its run: an average bus "
                                             f"bandwidth of {f['avg_busbw']} GB/s alone cannot be judged (no sizes, ranks or GPUs)")
    node = artefact.node_for(next(iter(hosts))) if len(hosts) == 1 else artefact.node
    fact = builder.add(
        NcclTestRun, run.line, node=node, collective=run.collective, nranks=len(run.ranks), hosts=len(hosts),
        rank_list_cut=rank_list_cut,
        failed=failed, failure_message=message, **f, **summary,
    )
    for line_no, fields, host in run.ranks:
        builder.add(NcclTestRank, line_no, node=artefact.node_for(host), run_id=fact.id, **fields)
    emit_rows(builder, [(line_no, fields, None) for line_no, fields in run.rows], node, fact.id)
    for line_no, fields, host in run.failures:
        fields = {k: v for k, v in fields.items() if k != "_summary"}
        builder.add(NcclTestFailure, line_no, node=artefact.node_for(host), run_id=fact.id, **fields)


def _cut_after_init(artefact: Artefact, run: _Run) -> bool:
    """The device list is followed by a bare '#' and nothing else.

    nccl-tests prints that '#' only after its communicators are created, in the same call as the
    three column-header lines (v2.0-2.13 src/common.cu: ``PRINT("#\\n"); print_header();`` after
    ncclCommInitAll; 2.14+ src/util.cu writeResultHeader), so a text that stops on it was cut; a run
    that hangs in NCCL init stops at the rank lines or its NCCL INFO lines (NVIDIA/nccl#1706).
    """
    f = run.fields
    if not run.ranks or run.rows or run.failures or "avg_busbw" in f or "out_of_bounds" in f or run.rank_line_cut:
        return False
    rest = [ln.strip() for ln in artefact.lines[run.ranks[-1][0]:] if ln.strip()]
    return bool(rest) and all(ln == "#" for ln in rest)


def _rank_list_cut(run: _Run) -> bool:
    """The run's last lines are a device list that stops inside one process's block.

    src/common.cu formats the nThread x nGpus rank lines of a process into one buffer and prints it
    with one PRINT (rank 0 prints every process's buffer in turn after MPI_Gather), so a run that
    hangs afterwards still shows whole blocks: a count that is not a multiple of nThread x nGpus,
    with no row, footer or failure after it, is a capture cut inside the list (e.g. '-g 4' with two
    of its four rank lines), and so is a text that ends inside a rank line (nccl-tests#152). Past 16 ranks a process may not list them all (its buffer
    is MAX_LINE = 2048 bytes, ended with '...'), so larger blocks are not judged.
    """
    f = run.fields
    if not run.ranks or run.rows or run.failures or "avg_busbw" in f or "out_of_bounds" in f:
        return False
    if run.rank_line_cut:  # nccl-tests#152: the list ends inside '#  Rank 13 Group'
        return True
    per = f.get("n_threads", 0) * f.get("n_gpus", 0)
    return 1 < per <= 16 and len(run.ranks) % per != 0


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
