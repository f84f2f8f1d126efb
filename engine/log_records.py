"""Structured records a log shipper or a log search exports (Fluent Bit, Vector, journalctl -o json, a JSON
array or a CSV export of records): their lines read out of their values, and the records among a recognised
file's unread lines (:func:`record_runs`).

Part of what :mod:`stethoscope.engine.foreign_runs` does; it re-exports every public name (issue 12)."""

from __future__ import annotations

from stethoscope.engine.run_candidates import gaps as _gaps
from stethoscope.engine.uninformative import uninformative_reason
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.records import RECORD_TIME_KEY
from stethoscope.facts.registry import load_fallbacks


# Structured records a log shipper or a log search exports, each an event at a time with its line in a string value
# (issue 11, round rL8). The forms (each tool's documented record; only the journal's and Filebeat's are read as their
# message, facts/records.py _JSON_RECORD; since round rM2 the forms below too, and a CSV export's rows, where the record
# holds its line under "message", "log" or "line": what is left here is what those do not read):
#   Fluent Bit, stdout / file output, format json_lines (docs.fluentbit.io pipeline/outputs/standard-output:
#   json_date_key "date", json_date_format "double"; the tail input's line in "log"):
#     {"date":1764933720.735,"log":"NCCL WARN Cuda failure 'out of memory'"}
#   Vector, a log event as its console / file sink's json codec writes it (vector.dev docs/architecture/data-model/log):
#     {"custom":"field","host":"my.host.com","message":"Hello world","timestamp":"2020-11-01T21:15:47+00:00"}
#   journalctl -o json-pretty (the record over several lines), -o json-seq (RFC 7464: each record after an RS, 0x1e),
#   a JSON array of records (Loki's / Datadog's / Splunk's JSON export), and a CSV export whose header names a time
#   column (Kibana's "Generate CSV": "@timestamp",message; Splunk's _time,_raw; Datadog's Date,Host,Service,Message).
# A record must hold a time key (a log line is an event at a time): a config (package.json, a DeepSpeed config) or a
# metrics document without one is not a record. Reached only by a file nobody recognised (parse_one's uninformative
# path) and by the unread lines of a recognised file that open with '{"' or hold a time column's CSV header.
_TIME_KEY = RECORD_TIME_KEY  # (one list of time keys: the records facts/records.py reads as their lines are these)
RECORD_CHARS = 4_000_000  # a bigger file nobody knows is left as it was (off the hot path: one json.loads a file at most)
VALUE_CHARS = 4096  # a value's line read to this length (the journal's own limit, JSON_THRESHOLD): bounds the readers'
# and the fallbacks' searches over one long value
_CSV_TIME_HEADS = ('timestamp"', "timestamp,", "time,", 'time",', "Time,", 'Time",', "date,", 'date",', "Date,", 'Date",')


def _values(obj, out: list[str], depth: int = 0) -> None:
    if isinstance(obj, str):
        out.extend(ln[:VALUE_CHARS] for ln in obj.split("\n"))
    elif depth < 16 and isinstance(obj, dict):
        for v in obj.values():
            _values(v, out, depth + 1)
    elif depth < 16 and isinstance(obj, list):
        for v in obj:
            _values(v, out, depth + 1)


def _is_record(obj) -> bool:
    return isinstance(obj, dict) and any(isinstance(k, str) and _TIME_KEY.fullmatch(k) for k in obj)


def record_values(text: str) -> str | None:
    """The string values of the structured records ``text`` is made of (JSON objects one a line, a JSON array of
    objects, objects one after another as json-pretty / json-seq write them, a CSV whose header names a time column),
    one line each; None where ``text`` is no such file or no record holds a time key."""
    import csv
    import io
    import json

    if len(text) > RECORD_CHARS:
        return None
    body = text.replace("\x1e", "").strip()
    if not body:
        return None
    out: list[str] = []
    if body[0] in "[{":
        dec = json.JSONDecoder()
        records, i = [], 0
        try:
            while i < len(body):
                obj, i = dec.raw_decode(body, i)
                records.extend(obj if isinstance(obj, list) else [obj])
                while i < len(body) and body[i] in " \t\r\n,":
                    i += 1
        except (ValueError, RecursionError):
            return None
        if not records or not any(_is_record(r) for r in records):
            return None
        for r in records:
            _values(r, out)
        return "\n".join(out)
    lines = body.split("\n", 1)
    try:
        header = next(csv.reader([lines[0]]))
    except (csv.Error, StopIteration):
        return None
    if len(header) < 2 or not any(_TIME_KEY.fullmatch(h.strip()) for h in header):
        return None
    try:
        rows = list(csv.reader(io.StringIO(body)))[1:]  # (a quoted cell may hold several lines)
    except csv.Error:
        return None
    if not rows or sum(len(r) == len(header) for r in rows if r) < max(1, len([r for r in rows if r]) // 2):
        return None
    for r in rows:
        for cell in r:
            out.extend(ln[:VALUE_CHARS] for ln in cell.split("\n"))
    return "\n".join(out)


def records_report(text: str) -> bool:
    """Whether ``text``, a file nobody recognised, is structured records (:func:`record_values`) whose values hold a
    line a reader would claim (its signature and its detect) or a line the fallback readers take (an error word): such
    a file is not uninformative, it is not recognised (no evidence of health; the verdict inconclusive at least).
    Before, a failure inside Fluent Bit's or Vector's records beside a healthy capture read HEALTHY."""
    from stethoscope.facts.classify import classifier

    inner = record_values(text)
    if inner is None:
        return False
    if any(p.detect(inner) for p in classifier().candidates(inner)):
        return True
    # an error word (the fallback readers), or a diagnostic term, as a file of these lines would not be uninformative
    return any(p.detect(inner) for p in load_fallbacks()) or uninformative_reason(inner) is None


def record_runs(art: Artefact, read: list[int], kinds) -> list[tuple[int, str]]:
    """In a recognised file, the stretches of lines no reader read that are a log shipper's JSON records one a line
    (or a CSV export under its header) whose values hold a line a reader would claim or an error word
    (:func:`records_report`): ((first line, detail) each, an ``unread_run``). The runs above look for an error word or
    a diagnostic term in the lines as written; a record's line may hold neither (harvest 800's Fabric rows in Fluent
    Bit's records appended to an nvidia-smi -q read HEALTHY). Cost: C searches for a line opening with '{"' and for a
    time column's CSV header (_CSV_TIME_HEADS); nothing more for a file without one."""
    text = art.raw_text or art.text
    if not text.startswith('{"') and '\n{"' not in text and not any(h in text for h in _CSV_TIME_HEADS):
        return []
    lines = art.lines
    if art.raw_text is not None:  # the lines as written (the normaliser takes a quote off a line that opens with one)
        raw = art.raw_text.split("\n")
        lines = raw if len(raw) == len(lines) else lines
    out: list[tuple[int, str]] = []
    for first, last in _gaps(read, len(lines)):
        i = first
        while i <= last:
            line = lines[i - 1].lstrip("\x1e")
            if not (line.startswith('{"') or ("," in line and _TIME_KEY.search(line))):
                i += 1
                continue
            j = i
            while j < last and lines[j].strip() and (lines[j].lstrip("\x1e").startswith('{"') or not line.startswith('{"')):
                j += 1
            if records_report("\n".join(lines[i - 1:j])):
                at = i + art.line_offset
                out.append((at, f"lines {at}-{j + art.line_offset} ({j - i + 1} lines) are a log shipper's records "
                                f"(JSON or CSV) holding log lines that no reader of {'+'.join(p.KIND for p in kinds)} "
                                f"reads"))
            i = j + 1
    return out
