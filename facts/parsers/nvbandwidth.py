"""nvbandwidth (https://github.com/NVIDIA/nvbandwidth): ``nvbandwidth [-t TEST]`` text output, and
``nvbandwidth --json``.

Sample content (superbenchmark tests/data/nvbandwidth_results.log, GH200, v0.6; NVIDIA/nvbandwidth#50,
6 x A6000, v0.8)::

    nvbandwidth Version: v0.6
    Driver Version: 550.54.15
    Running host_to_device_memcpy_ce.
    memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
               0         1         2
     0    369.36    269.33    412.11
    SUM host_to_device_memcpy_ce 1985.60
     0       N/A     26.34     26.35     21.95     22.64     21.80

v0.7+ print a banner and the devices above the tests, and device_local_copy one row (NVIDIA/nvbandwidth#48, 8 x H20-3e,
v0.8; its banner and devices read as used lines, no fact)::

    CUDA Runtime Version: 12060
    Driver Version: 550.127.08
    sglang-host-cuda
    Device 0: NVIDIA H20-3e (00000000:18:00)
    Running device_local_copy.
    memcpy local GPU(column) bandwidth (GB/s)
               0         1         2         3         4         5         6         7
     0   1116.30   1116.30   1115.72   1116.16   1116.16   1116.88   1117.17   1116.30
    SUM device_local_copy 8930.99

A matrix starts at its description line (``memcpy CE|SM <row>(row) ->|<-|<-> <col>(column)
bandwidth (GB/s)``, or ``memory latency ... (ns)``), then a header of column numbers, then one
row per source; ``N/A`` cells (a GPU with itself) and a device's copy to itself are skipped.
The test is named by the ``Running`` line before it, else by its ``SUM`` line (pastes often
start at the matrix). JSON (json_output.cpp): ``{"nvbandwidth": {"Driver Version", "version",
"testcases": [{"name", "status", "bandwidth_description", "bandwidth_matrix": [["369.36",
"N/A", ...]], "sum"}]}}``.

Facts: ``bench_result`` per cell (entity ``cpu0->gpu1``, ``gpu0<-gpu3``, ``gpu1<->gpu2`` as the
description's arrow reads, ``gpu3`` for a device's local copy; metric ``bandwidth`` in GB/s, or ``latency`` in ns, lower better)
and per ``SUM`` (entity ``all``, metric ``sum``). A row with the wrong number of cells is a
ParseError. Text without a matrix yields nothing.

A copy whose destination does not hold the pattern written to its source is reported by the pattern
check (memcpy.cpp; NVIDIA/nvbandwidth#34, A100, v0.7)::

    Running device_to_device_memcpy_read_ce.
     Invalid value when checking the pattern at 0x70a640000000
     Current offset : 11136
    ASSERT in expression h_errorFlag == 0 in void memcmpPatternHelper(...)() : .../memcpy.cpp:165

(v0.4's host-side check: ``... pattern at <0x...>`` / `` Current offset [ <offset>/<size>]``): one
``gpu_copy_verification_failed`` per such line, with the test of the ``Running`` line before it
(peer: a test without the host on a side).
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, json_shape
from stethoscope.facts.kinds.bench import GpuCopyVerificationFailed
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "nvbandwidth"

# nvbandwidth Version: v0.8
_VERSION = re.compile(r"^nvbandwidth Version: (?P<v>\S+)")
# Running host_to_device_memcpy_ce.
_RUNNING = re.compile(r"^Running (?P<test>\w+)\.\s*$")
# memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
# memory latency SM CPU(row) <-> GPU(column) (ns)
# memcpy local GPU(column) bandwidth (GB/s)      (device_local_copy, v0.7+: one row, each GPU's copy within its own memory;
#   testcases_ce.cpp DeviceLocalCopy::run: output->addTestcaseResults(bandwidthValues, "memcpy local GPU(column) bandwidth
#   (GB/s)"); NVIDIA/nvbandwidth#48, 8 x H20-3e)
_DESC = re.compile(r"^(?P<what>memcpy|memory latency) (?P<engine>CE|SM|local) (?:(?P<row>CPU|GPU)\(row\) (?P<arrow><->|->|<-) )?"
                   r"(?P<col>CPU|GPU)\(column\) (?:bandwidth )?\((?P<unit>GB/s|ns)\)\s*$")
# the banner above the tests (output.cpp): printHeader's "Built from Git version: ", printCudaInfo's three version lines,
# the multinode build's "MPI version: "; the note under it; printGPUs' host name, then a line a device
#   Built from Git version: v0.8      CUDA Runtime Version: 12060      CUDA Driver Version: 12060      Driver Version: 550.127.08
#   NOTE: The reported results may not reflect the full capabilities of the platform.
#   Performance can vary with software drivers, hardware clocks, and system topology.
#   sglang-host-cuda                                        (OUTPUT << localHostname, v0.8)
#   Device 0: NVIDIA H20-3e (00000000:18:00)                 ("Device " << iDev << ": " << getDeviceDisplayInfo(iDev): the
#                                                             name, then " (" domain %08x ":" bus %02x ":" device %02x ")")
_BANNER = re.compile(r"^(?:Built from Git version|CUDA Runtime Version|CUDA Driver Version|Driver Version|MPI version): \S"
                     r"|^NOTE: The reported results may not reflect the full capabilities of the platform\."
                     r"|^Performance can vary with software drivers, hardware clocks, and system topology\.")
_DEVICE = re.compile(r"^Device (?P<idx>\d{1,4}): \S[^\n]{0,200} \([0-9a-f]{8}:[0-9a-f]{2}:[0-9a-f]{2}\)\s*$")
_HOSTNAME = re.compile(r"^[A-Za-z0-9][\w.-]{0,252}\s*$")
#            0         1         2
_HEADER = re.compile(r"^\s*\d+(?:\s+\d+)*\s*$")
#  0    369.36    269.33    412.11        /   0       N/A     26.34
_ROW = re.compile(r"^\s*(?P<idx>\d+)(?P<cells>(?:\s+(?:\d+(?:\.\d+)?|N/A))+)\s*$")
# SUM host_to_device_memcpy_ce 1985.60
_SUM = re.compile(r"^SUM (?P<test>\w+) (?P<value>\d+(?:\.\d+)?)\s*$")
#  Invalid value when checking the pattern at 0x70a640000000      (memcmpKernel's printf, v0.5+; NVIDIA/nvbandwidth#34)
#  Invalid value when checking the pattern at <0x...>    (the host-side check, NVIDIA/nvbandwidth v0.4 memcpy.cpp:76:
#    std::cout << " Invalid value when checking the pattern at <" << (void*)(...) << ">", a void* streamed as 0x-hex)
_PATTERN = re.compile(r"^\s{0,4}Invalid value when checking the pattern at <?(?P<addr>0x[0-9a-fA-F]{1,16})>?\s*$")
#  Current offset : 11136         /   Current offset [ <offset>/<size>]   (v0.4 memcpy.cpp:77: " Current offset [ " << offset << "/" << (size) << "]")
_OFFSET = re.compile(r"^\s{0,4}Current offset (?:: (?P<a>\d{1,20})|\[ (?P<b>\d{1,20})/\d{1,20}\])\s*$")
# ASSERT in expression h_errorFlag == 0 in void memcmpPatternHelper(CUstream, ...)() : /mnt/project/.../memcpy.cpp:165
_ASSERT = re.compile(r"^ASSERT in expression h_errorFlag == 0 in ")
_DETECT = re.compile(r"^nvbandwidth Version: |^(?:memcpy|memory latency) (?:CE|SM) (?:CPU|GPU)\(row\) |^SUM \w+_(?:ce|sm) \d"
                     r"|^memcpy local GPU\(column\) |^SUM device_local_copy \d"
                     r'|"nvbandwidth"\s*:\s*\{', re.M)


def detect(head: str) -> bool:
    return ("nvbandwidth" in head or "(row)" in head or "SUM " in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if artefact.text.lstrip().startswith("{"):
        with json_shape(fb, "nvbandwidth --json"):  # a value of another type than the format's: one problem
            _json(artefact, fb, result)
        return result
    version = test = None
    matrix: dict | None = None  # desc match, line, cells [(line, row, col, value)], ncols
    pending: list[tuple[dict, str | None]] = []  # matrices waiting for a SUM line to name them

    def flush(name: str | None) -> None:
        nonlocal matrix
        if matrix is not None:
            pending.append((matrix, name))
            matrix = None

    unread: tuple[int, str] | None = None  # the last line no branch read (the host name printGPUs prints before Device 0)
    for n, line in enumerate(artefact.lines, 1):
        if m := _VERSION.match(line):
            version = m["v"]
            result.lines_used += 1
        elif _BANNER.match(line):
            result.lines_used += 1
        elif m := _DEVICE.match(line):
            result.lines_used += 1
            if m["idx"] == "0" and unread is not None and unread[0] == n - 1 and _HOSTNAME.match(unread[1]):
                result.lines_used += 1
        elif m := _RUNNING.match(line):
            flush(test)
            _emit_pending(fb, pending, None, version)
            test = m["test"]
            result.lines_used += 1
        elif m := _DESC.match(line):
            flush(test)
            matrix = {"desc": m, "line": n, "cells": [], "ncols": None}
            result.lines_used += 1
        elif matrix is not None and matrix["ncols"] is None and _HEADER.match(line):
            matrix["ncols"] = len(line.split())
            result.lines_used += 1
        elif matrix is not None and (m := _ROW.match(line)):
            cells = m["cells"].split()
            if matrix["ncols"] is not None and len(cells) != matrix["ncols"]:
                fb.error(n, f"nvbandwidth row {m['idx']} has {len(cells)} cells, the header {matrix['ncols']}")
                continue
            for col, raw in enumerate(cells):
                if raw != "N/A":
                    matrix["cells"].append((n, int(m["idx"]), col, float(raw)))
            result.lines_used += 1
        elif m := _PATTERN.match(line):
            # a copy's destination held other values than the pattern written to its source
            peer = None if test is None else "host" not in test
            fb.add(GpuCopyVerificationFailed, n, tool="nvbandwidth", test=test, peer=peer,
                   first=f"pattern mismatch at {m['addr']}", gpus="not named by nvbandwidth")
            result.lines_used += 1
        elif _OFFSET.match(line) or _ASSERT.match(line):
            result.lines_used += 1
        elif m := _SUM.match(line):
            flush(test)
            latency = any(mx["desc"]["unit"] == "ns" for mx, _ in pending)
            _emit_pending(fb, pending, m["test"], version)
            fb.add(BenchResult, n, benchmark="nvbandwidth", test=m["test"], entity="all", metric="sum",
                   value=float(m["value"]), unit="ns" if latency else "GB/s", higher_is_better=not latency,
                   tool_version=version)
            test = None
            result.lines_used += 1
        else:
            unread = (n, line)
    flush(test)
    _emit_pending(fb, pending, None, version)
    return result


def _emit_pending(fb: FactBuilder, pending: list, sum_name: str | None, version: str | None) -> None:
    for matrix, name in pending:
        _emit_matrix(fb, matrix, name or sum_name or "unnamed", version)
    pending.clear()


def _entity(d: re.Match, row: int, col: int) -> str | None:
    if d["row"] is None:  # a device's copy within itself (device_local_copy): its one row
        return f"{d['col'].lower()}{col}"
    r, c = d["row"].lower(), d["col"].lower()
    if r == c and row == col:
        return None  # a device with itself: nvbandwidth prints N/A or 0.00
    return f"{r}{row}{d['arrow']}{c}{col}"


def _emit_matrix(fb: FactBuilder, matrix: dict, test: str, version: str | None) -> None:
    d = matrix["desc"]
    latency = d["unit"] == "ns"
    for line, row, col, value in matrix["cells"]:
        entity = _entity(d, row, col)
        if entity is None:
            continue
        fb.add(BenchResult, line, benchmark="nvbandwidth", test=test, entity=entity,
               metric="latency" if latency else "bandwidth", value=value, unit=d["unit"],
               higher_is_better=not latency, tool_version=version, detail=f"{d['what']} {d['engine']}")


def _json(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    try:
        doc = json.loads(artefact.text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested thousands deep
        fb.error(1, f"nvbandwidth --json: not JSON: {exc}")
        return
    root = doc.get("nvbandwidth") if isinstance(doc, dict) else None
    if not isinstance(root, dict):
        fb.error(1, "nvbandwidth --json: no \"nvbandwidth\" object")
        return
    version = root.get("version")
    text, pos = artefact.text, 0
    for tc in root.get("testcases") or []:
        name = str(tc.get("name", "unnamed"))
        at = text.find(f'"{name}"', pos)
        pos = at if at >= 0 else pos
        line = artefact.line_of(pos) if at >= 0 else 1
        desc = _DESC.match(str(tc.get("bandwidth_description", "")))
        if tc.get("status") != "Passed" or desc is None:
            continue  # Waived / Not Found / Error: nothing measured
        cells = []
        for r, row in enumerate(tc.get("bandwidth_matrix") or []):
            for c, raw in enumerate(row):
                try:
                    cells.append((line, r, c, float(raw)))
                except (TypeError, ValueError):
                    continue  # "N/A"
        _emit_matrix(fb, {"desc": desc, "cells": cells}, name, version)
        if tc.get("sum") is not None:
            latency = desc["unit"] == "ns"
            fb.add(BenchResult, line, benchmark="nvbandwidth", test=name, entity="all", metric="sum",
                   value=float(tc["sum"]), unit=desc["unit"], higher_is_better=not latency, tool_version=version)
    result.lines_used = len(artefact.lines)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
