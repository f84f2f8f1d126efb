"""nccl-tests JSON output: the file ``all_reduce_perf -b 8 -e 1G -f 2 -g 2 -J out.json``
writes (nccl-tests 2.17 and later; one JSON object per run, ``"version": 3`` in 2.19).

Sample content (nccl-tests 2.19.6 on a 2 x H200 host, pretty-printed; the tool itself writes
one line)::

    "args": ["/tmp/nt/build/all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "2", ...
    "nccl_version": 22809,
    "devices": [{"rank": 0, "group": 0, "pid": 1644, "hostname": "vm", "device": 0, "device_hex": "0000:00:06", ...
    "results": [{"size": 8, "count": 2, "type": "float", "redop": "sum", "root": "    -1",
                 "out_of_place": {"time": 18.66565, "alg_bw": 0.000429, "bus_bw": 0.000429, "nwrong": 0.0}, ...
    "average_bus_bandwidth": {"bandwidth": 85.906938, "okay": "unchecked"},

Facts emitted: the same kinds as the text parser (:mod:`nccl_tests`), ``nccl_test_run``,
``nccl_test_rank``, ``nccl_test_table`` and ``nccl_test_row`` (kept where a rule can bind it), and ``nccl_test_failure`` for each non-empty entry of
``errors``. Values keep the JSON's full precision. ``devices`` holds ONE entry per process,
not per rank: nccl-tests' writer (``writeDeviceReport`` in src/util.cu) prints one
``#  Rank`` line per GPU of the process but ``parseRankInfo`` reads only the first line of
each process's block (without MPI, the one process's). Each process drives ``nthreads x
ngpus`` ranks, so ``nranks`` = entries x ``nthreads`` x ``ngpus`` (a ``-g 2`` run without MPI:
2 ranks, one entry); ``nccl_test_rank`` facts are emitted for the listed entries only, since
the other ranks' PCI addresses are not in the file. A file without
``out_of_bounds`` is a run that stopped before its results footer: ``failed`` is True and
``status`` None. Evidence is the line where the value sits; for a one-line file, the text
from that value on.

Empty input yields no facts; text that is not a JSON object is one ParseError.
"""
from __future__ import annotations

import json
import re
from typing import Any

from stethoscope.facts.ids import pci_bus_id
from stethoscope.facts.kinds.bench import wrong_total
from stethoscope.facts.parsers.base import JSON_SHAPE_ERRORS, Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nccl_tests_facts import (
    NcclTestFailure,
    NcclTestRank,
    NcclTestRun,
    emit_rows,
    nccl_version_str,
    normalise_collective,
    summarise_rows,
)

KIND = "nccl_tests_json"

__all__ = ["KIND", "detect", "parse"]

# detect(): the config keys only nccl-tests writes, or its args naming a *_perf binary.
#  "minimum_bytes": 8,            {"version":3,"start_time":"...","args":["/tmp/nt/build/all_reduce_perf",
_DETECT = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"start_time"|"minimum_bytes"\s*:\s*\d+|"args"\s*:\s*\[\s*"[^"]*_perf(?:_mpi)?"')

# Offsets of the values the facts cite (the k-th "size" key after "results" is the k-th row).
#  "args": [            "/tmp/nt/build/all_reduce_perf",
_ARGS = re.compile(r'"args"\s*:\s*\[\s*')
#     "rank": 0,
_RANK_KEY = re.compile(r'"rank"\s*:')
#    "size": 8,
_SIZE_KEY = re.compile(r'"size"\s*:')
#  "results": [
_RESULTS_KEY = re.compile(r'"results"\s*:')
#  "errors": [
_ERRORS_KEY = re.compile(r'"errors"\s*:')

_EXCERPT = 200  # characters of a long (one-line) file quoted as evidence


def detect(head: str) -> bool:
    if not ('"version"' in head or '"minimum_bytes"' in head or '"args"' in head):  # one per branch
        return False
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    builder = FactBuilder(artefact, result)
    text = artefact.text
    if not text.strip():
        return result
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        builder.error(exc.lineno, f"not valid JSON: {exc.msg}")
        return result
    except RecursionError:  # nested thousands deep
        builder.error(1, "not valid JSON: nested too deep to read")
        return result
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict):
        builder.error(1, "JSON without an nccl-tests 'config' object")
        return result
    try:
        _parse_doc(builder, artefact, doc)
    except JSON_SHAPE_ERRORS as exc:  # OverflowError: int() of 1e999; AttributeError: a number for a name
        builder.error(1, f"nccl-tests JSON field missing or of the wrong type: {exc}")
        return result
    result.lines_used = len(artefact.lines)
    return result


def _parse_doc(builder: FactBuilder, artefact: Artefact, doc: dict[str, Any]) -> None:
    text = artefact.text
    cfg = doc["config"]
    args = doc.get("args") or []
    collective = normalise_collective(args[0]) if args else None
    devices = cfg.get("devices") or []
    results = doc.get("results") or []
    oob = doc.get("out_of_bounds")
    avg = doc.get("average_bus_bandwidth") or {}
    errors = [e for e in (doc.get("errors") or []) if isinstance(e, str) and e.strip()]

    rows = [_row(r, collective) for r in results]
    status = None
    if isinstance(oob, dict):
        status = "OK" if _truthy(oob.get("okay")) and int(oob.get("count", 0)) == 0 else "FAILED"
    check = avg.get("okay")
    avg_check = None if check in (None, "unchecked") else ("OK" if _truthy(check) else "FAILED")
    hosts = {d["hostname"] for d in devices}
    node = artefact.node_for(next(iter(hosts))) if len(hosts) == 1 else artefact.node
    failed = oob is None or status == "FAILED" or avg_check == "FAILED"
    message = errors[0] if errors else None
    if message is None and failed:
        message = "results footer missing" if oob is None else f"out_of_bounds count {oob.get('count')}"

    a = _ARGS.search(text)
    run_line, run_text = _evidence(artefact, a.end() if a else 0)
    run = builder.add(
        NcclTestRun, run_line, node=node, text=run_text, collective=collective, nccl_tests_version=None,
        nccl_version=nccl_version_str(int(doc["nccl_version"])) if doc.get("nccl_version") else None,
        n_threads=cfg.get("nthreads"), n_gpus=cfg.get("ngpus"), min_bytes=cfg.get("minimum_bytes"),
        max_bytes=cfg.get("maximum_bytes"), iters=cfg.get("iterations"), warmup_iters=cfg.get("warmup_iters"),
        validation=cfg.get("validation"), nranks=_nranks(cfg, devices), hosts=len(hosts),
        avg_busbw=float(avg["bandwidth"]) if avg.get("bandwidth") is not None else None,
        avg_busbw_check=avg_check, out_of_bounds=int(oob["count"]) if isinstance(oob, dict) else None,
        status=status, failed=failed, failure_message=message, **summarise_rows(rows),
    )
    rank_offsets = [m.start() for m in _RANK_KEY.finditer(text)]
    for i, d in enumerate(devices):
        line, ev = _evidence(artefact, rank_offsets[i] if i < len(rank_offsets) else 0)
        builder.add(
            NcclTestRank, line, node=artefact.node_for(d["hostname"]), text=ev, run_id=run.id, rank=int(d["rank"]),
            group=d.get("group"), pid=int(d["pid"]), host=d["hostname"], device=int(d["device"]),
            pci_bus_id=pci_bus_id(d["device_hex"]), gpu_name=d.get("device_info", ""),
        )
    start = _RESULTS_KEY.search(text)
    size_offsets = [m.start() for m in _SIZE_KEY.finditer(text, start.end() if start else 0)]
    placed = []
    for i, fields in enumerate(rows):
        line, ev = _evidence(artefact, size_offsets[i] if i < len(size_offsets) else 0)
        placed.append((line, fields, ev))
    emit_rows(builder, placed, node, run.id)
    e = _ERRORS_KEY.search(text)
    for err in errors:
        line, ev = _evidence(artefact, text.find(json.dumps(err)[1:-1], e.end()) if e else 0)
        builder.add(NcclTestFailure, line, node=node, text=ev, run_id=run.id, host=None, failure_type="nccl",
                    message=err, nccl_error=None, last_error=err)


def _nranks(cfg: dict[str, Any], devices: list[dict[str, Any]]) -> int:
    """Ranks that ran: one ``devices`` entry per process, ``nthreads x ngpus`` ranks each."""
    per_process = int(cfg.get("nthreads") or 1) * int(cfg.get("ngpus") or 1)
    return len(devices) * per_process


def _row(r: dict[str, Any], collective: str | None) -> dict[str, Any]:
    root = int(str(r.get("root", "-1")).strip() or "-1")
    redop = r.get("redop") or None
    fields: dict[str, Any] = dict(
        collective=collective, size_bytes=int(r["size"]), count=int(r["count"]), dtype=r["type"],
        redop=None if redop == "none" else redop, root=None if root < 0 else root,
    )
    v = r["out_of_place"]
    fields.update(oop_time_us=float(v.get("time", v.get("cpu_time"))), oop_algbw=float(v["alg_bw"]),
                  oop_busbw=float(v["bus_bw"]), oop_wrong=None if v.get("nwrong") is None else int(v["nwrong"]))
    v = r["in_place"]
    fields.update(ip_time_us=float(v.get("time", v.get("cpu_time"))), ip_algbw=float(v["alg_bw"]),
                  ip_busbw=float(v["bus_bw"]), ip_wrong=None if v.get("nwrong") is None else int(v["nwrong"]))
    wrong = wrong_total(fields["oop_wrong"], fields["ip_wrong"])
    if wrong is not None:
        fields["wrong"] = wrong
    return fields


def _truthy(value: Any) -> bool:
    # nccl-tests writes booleans as the strings "true" / "false"
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _evidence(artefact: Artefact, offset: int) -> tuple[int, str]:
    line = artefact.line_of(offset)
    text = artefact.lines[line - 1] if artefact.lines else ""
    if len(text) > _EXCERPT:
        start = offset - (artefact.text.rfind("\n", 0, offset) + 1)
        text = text[start:start + _EXCERPT]
    return line, text


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
