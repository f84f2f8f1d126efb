"""fio (https://github.com/axboe/fio): ``--output-format=json`` and ``--minimal`` / ``--output-format=terse``
(terse version 3), storage bandwidth, IOPS and latency per job.

Sample content (superbenchmark tests/data/disk_performance.log, fio-3.16 JSON; a fio-3.32 terse line
from a public fio tutorial)::

    {
      "fio version" : "fio-3.16",
      "jobs" : [ { "jobname" : "rand_read_write", "error" : 0,
                   "job options" : { "rw" : "randrw", "bs" : "4096" },
                   "read" : { "bw" : 340570, "iops" : 85138.890741, "lat_ns" : { "mean" : 1446562.14 } } } ] }

    3;fio-3.32;name;0;0;132160;13209;3302;10005;0;0;0.000000;0.000000;105;30823;301.964763;...

Terse v3 fields (fio HOWTO, "Terse output"): 1 version, 2 fio version, 3 job name, 4 group, 5
error, 6-46 the read half (kB, bandwidth KiB/s, IOPS, runtime ms, slat 4, clat 4, 20 clat
percentiles, lat 4, bw 5), 47-87 the write half, then CPU, depths, latency buckets and disk
utilisation. Facts: ``bench_result`` per job and direction that moved data (test ``<job>
<read|write>``, entity the ``filename`` when given, else ``storage``): ``bandwidth`` (KiB/s),
``iops`` and ``lat_mean`` (usec, lower better). A terse line with too few fields, or a JSON
document that does not parse, is a ParseError. Text with neither yields nothing.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, json_shape
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "fio"

# 3;fio-3.32;name;0;0;132160;13209;3302;10005;0;0;0.000000;0.000000;105;30823;301.964763;973.421730;1.000000%=110;...
_TERSE = re.compile(r"^3;(?P<ver>fio-[^;]+);")
_DETECT = re.compile(r"^3;fio-\d[^;]*;|\"fio version\"\s*:\s*\"fio-", re.M)
#: offsets of one direction's fields in terse v3, from the direction's first field
_HALF = 41
_READ0, _WRITE0 = 5, 5 + _HALF
_BW, _IOPS, _LAT_MEAN = 1, 2, 34


def detect(head: str) -> bool:
    return "fio" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if artefact.text.lstrip().startswith("{"):
        with json_shape(fb, "fio --output-format=json"):  # a value of another type than the format's: one problem
            _json(artefact, fb, result)
        return result
    for n, line in enumerate(artefact.lines, 1):
        m = _TERSE.match(line)
        if not m:
            continue
        f = line.split(";")
        if len(f) < _WRITE0 + _HALF:
            fb.error(n, f"fio terse v3 line with {len(f)} fields, {_WRITE0 + _HALF} or more expected")
            continue
        result.lines_used += 1
        try:
            for name, base in (("read", _READ0), ("write", _WRITE0)):
                kib = float(f[base])
                if kib <= 0:
                    continue
                _emit(fb, n, f"{f[2]} {name}", "storage", float(f[base + _BW]), float(f[base + _IOPS]),
                      float(f[base + _LAT_MEAN]), m["ver"], f"error {f[4]}")
        except ValueError as exc:
            fb.error(n, f"fio terse v3 field is not a number: {exc}")
    return result


def _emit(fb: FactBuilder, line: int, test: str, entity: str, bw_kib: float, iops: float, lat_us: float | None,
          version: str | None, detail: str | None) -> None:
    common = dict(benchmark="fio", test=test, entity=entity, tool_version=version, detail=detail)
    fb.add(BenchResult, line, metric="bandwidth", value=round(bw_kib, 1), unit="KiB/s", **common)
    fb.add(BenchResult, line, metric="iops", value=round(iops, 1), unit="IOPS", **common)
    if lat_us is not None and lat_us > 0:
        fb.add(BenchResult, line, metric="lat_mean", value=round(lat_us, 3), unit="usec", higher_is_better=False, **common)


def _json(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    try:
        doc = json.loads(artefact.text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested thousands deep
        fb.error(1, f"fio --output-format=json: not JSON: {exc}")
        return
    version = doc.get("fio version")
    glob = doc.get("global options") or {}
    text, pos = artefact.text, 0
    for job in doc.get("jobs") or []:
        name = str(job.get("jobname", "job"))
        at = text.find(f'"jobname" : "{name}"', pos)
        if at < 0:
            at = text.find(f'"{name}"', pos)
        pos = at if at >= 0 else pos
        line = artefact.line_of(pos) if at >= 0 else 1
        opts = job.get("job options") or {}
        entity = opts.get("filename") or glob.get("filename") or "storage"
        rw = opts.get("rw") or glob.get("rw")
        detail = "; ".join(x for x in (f"rw={rw}" if rw else None, f"bs={opts.get('bs') or glob.get('bs')}" if (opts.get("bs") or glob.get("bs")) else None,
                                       f"iodepth={glob.get('iodepth')}" if glob.get("iodepth") else None,
                                       f"error {job.get('error', 0)}") if x)
        for direction in ("read", "write"):
            d = job.get(direction) or {}
            if not d.get("io_bytes") and not d.get("io_kbytes"):
                continue
            lat = (d.get("lat_ns") or {}).get("mean")
            _emit(fb, line, f"{name} {direction}", entity, float(d.get("bw", 0)), float(d.get("iops", 0)),
                  float(lat) / 1000 if lat else None, version, detail)
    result.lines_used = len(artefact.lines)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
