"""A table of pairwise bus bandwidths between nodes, as CSV: what a sweep script writes after
running nccl-tests between every pair of nodes (one row per pair, or a square matrix).

Sample content (long form; ``size_bytes`` is optional; the bandwidth column may be named
``busbw_gbps``, ``busbw_GBps``, ``busbw`` or ``bw``; values are bus bandwidth in GB/s as
nccl-tests prints it, whatever the letter case of the header says)::

    src,dst,busbw_gbps,size_bytes
    node01,node02,181.3,2147483648
    node01,node03,180.9,2147483648

Square form (row and column headers name the nodes; the diagonal and empty, ``-`` or ``nan``
cells mean "not measured")::

    ,node01,node02,node03
    node01,,181.3,180.9
    node02,181.1,,101.7

Facts: ``pair_bandwidth`` per measured pair cell or row (``node`` is ``fabric``), citing its
row. Recognised by content: a long-form header naming two host columns and a bandwidth
column, or a header of node names whose next row starts with one of them. A cell that should
hold a number and does not is a ParseError; comment lines (``#``) are read past.

Empty input: nothing measured.
"""
from __future__ import annotations

import math
import re

from stethoscope.facts.kinds.bench import PairBandwidth  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "pair_matrix_csv"

_A = ("src", "source", "a", "host_a", "node_a", "from", "host1", "node1")
_B = ("dst", "dest", "destination", "b", "host_b", "node_b", "to", "host2", "node2")
_BW = ("busbw_gbps", "busbw_gbs", "busbw", "bw", "bandwidth", "bandwidth_gbps", "busbw_gb_s")
_SIZE = ("size_bytes", "size", "bytes")
# src,dst,busbw_gbps      (case-insensitive, spaces allowed around commas)
_LONG_HEAD = re.compile(rf"^\s*(?:{'|'.join(_A)})\s*,\s*(?:{'|'.join(_B)})\s*,.*\b(?:{'|'.join(_BW)})\b", re.I)
# ,node01,node02,node03     /  src\dst,node01,node02
_NAME = re.compile(r"^[A-Za-z][\w.\-]*$")
_EMPTY = {"", "-", "nan", "NaN", "n/a", "NA"}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split(",")]


def _content(lines: list[str]) -> list[tuple[int, str]]:
    return [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")]


def _matrix_head(rows: list[tuple[int, str]]) -> list[str] | None:
    if len(rows) < 2:
        return None
    head, first = _cells(rows[0][1]), _cells(rows[1][1])
    names = head[1:]
    if len(names) < 2 or not all(_NAME.match(n) for n in names) or len(set(names)) != len(names):
        return None
    if len(first) != len(head) or first[0] not in names:
        return None
    return names


def detect(head: str) -> bool:
    rows = _content(head.split("\n", 50)[:50])  # the first 50 lines, without splitting the rest
    if not rows:
        return False
    return bool(_LONG_HEAD.match(rows[0][1])) or _matrix_head(rows) is not None


def _number(fb: FactBuilder, no: int, cell: str, what: str) -> float | None:
    try:
        value = float(cell)
    except ValueError:
        fb.error(no, f"pair CSV: {what} {cell!r} is not a number")
        return None
    if not math.isfinite(value) or value < 0:  # nan, inf ("Infinity", "1e309")
        fb.error(no, f"pair CSV: {what} {cell!r} is not a bandwidth")
        return None
    return value


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    rows = _content(artefact.lines)
    if not rows:
        return result
    if _LONG_HEAD.match(rows[0][1]):
        _long(fb, rows, result)
    elif (names := _matrix_head(rows)) is not None:
        _matrix(fb, rows, names, result)
    return result


def _long(fb: FactBuilder, rows: list[tuple[int, str]], result: ParseResult) -> None:
    head = [c.lower() for c in _cells(rows[0][1])]
    ia = next((i for i, c in enumerate(head) if c in _A), None)
    ib = next((i for i, c in enumerate(head) if c in _B), None)
    ibw = next((i for i, c in enumerate(head) if c in _BW), None)
    isize = next((i for i, c in enumerate(head) if c in _SIZE), None)
    if ia is None or ib is None or ibw is None:  # "bw" inside a longer cell ("src,dst,x bw")
        fb.error(rows[0][0], "pair CSV: the header names no host-a, host-b or bandwidth column of its own")
        return
    result.lines_used += 1
    for no, line in rows[1:]:
        cells = _cells(line)
        if len(cells) < len(head):
            fb.error(no, f"pair CSV: {len(cells)} cells, the header names {len(head)}")
            continue
        result.lines_used += 1
        a, b = cells[ia], cells[ib]
        if cells[ibw] in _EMPTY or a == b:
            continue
        bw = _number(fb, no, cells[ibw], "bandwidth")
        size = None
        if isize is not None and cells[isize] not in _EMPTY:
            s = _number(fb, no, cells[isize], "size")
            size = int(s) if s is not None else None
        if bw is not None:
            fb.add(PairBandwidth, no, node="fabric", host_a=a, host_b=b, busbw_gbs=bw, size_bytes=size, source="csv_rows")


def _matrix(fb: FactBuilder, rows: list[tuple[int, str]], names: list[str], result: ParseResult) -> None:
    result.lines_used += 1
    for no, line in rows[1:]:
        cells = _cells(line)
        if len(cells) != len(names) + 1 or cells[0] not in names:
            fb.error(no, f"pair CSV: row {cells[0]!r} does not match the header of {len(names)} nodes")
            continue
        result.lines_used += 1
        for b, cell in zip(names, cells[1:]):
            if b == cells[0] or cell in _EMPTY:
                continue
            bw = _number(fb, no, cell, f"bandwidth {cells[0]}->{b}")
            if bw is not None:
                fb.add(PairBandwidth, no, node="fabric", host_a=cells[0], host_b=b, busbw_gbs=bw, source="csv_matrix")


#: line signatures (facts/classify.py matches every reader's in one pass; detect() confirms): without
#: them every file of a bundle was handed to detect() (0.35 ms a bench node)
# src,dst,busbw_gbps   (a long-form header, anywhere: detect() wants it first)
_LONG_SIG = re.compile(rf"^\s*(?:{'|'.join(_A)})\s*,\s*(?:{'|'.join(_B)})\s*,", re.I | re.M)
# ,node01,node02,node03   (a square form's header: node names after its first cell)
_MATRIX_SIG = re.compile(r"^[^,\n]*(?:,[A-Za-z][\w.\-]*){2,}[ \t\r]*$", re.M)
SIGNATURES = (_LONG_SIG, _MATRIX_SIG)

