"""iperf3 (https://github.com/esnet/iperf): the client's summary (text) and ``iperf3 -J`` (JSON).

Sample content (esnet/iperf#734 and #306, text; kfirtoledo/CloudPilot_Project's iperf 3.9 ``-J``
results)::

    Connecting to host 10.0.0.2, port 5201
    [  5]   9.09-10.06  sec  10.0 MBytes  85.7 Mbits/sec    0    112 KBytes
    [ ID] Interval           Transfer     Bitrate         Retr
    [  5]   0.00-10.06  sec   106 MBytes  88.1 Mbits/sec    0             sender
    [  5]   0.00-10.12  sec   106 MBytes  87.6 Mbits/sec                  receiver
    [ 15] 0.00-10.00sec  9.45 GBytes  8114 Mbits/sec   0      sender

    {"start": {"version": "iperf 3.9", "connecting_to": {"host": "169.44.160.3"}, "test_start": {"protocol": "TCP", "num_streams": 1}},
     "end": {"sum_sent": {"bits_per_second": 464521026.08, "retransmits": 0}, "sum_received": {"bits_per_second": 464786288.6}}}

The summary rows are the ones ending in ``sender`` / ``receiver``; with several streams the
``[SUM]`` rows stand for the run and the per-stream rows are read past. Facts: ``bench_result``
per side (test ``tcp`` or ``udp``, entity the host connected to, else ``peer``; metric
``sender_bitrate`` / ``receiver_bitrate`` in Gbit/s; the detail gives streams and
retransmits). A JSON document that does not parse, or one holding iperf3's ``"error"``, is a
ParseError. Text without a summary yields nothing (interval rows alone are a run cut short).
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, json_shape
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "iperf3"

# Connecting to host 10.0.0.2, port 5201
_CONNECT = re.compile(r"^Connecting to host (?P<host>\S+), port \d+")
# [  5]   0.00-10.06  sec   106 MBytes  88.1 Mbits/sec    0             sender
# [ 15] 0.00-10.00sec  9.45 GBytes  8114 Mbits/sec   0      sender
_SUMMARY = re.compile(r"^\[\s*(?P<id>\d+|SUM)\]\s+(?P<start>\d+(?:\.\d+)?)-(?P<end>\d+(?:\.\d+)?)\s*sec\s+(?P<xfer>\d+(?:\.\d+)?) (?P<xunit>[KMGT]?Bytes)"
                      r"\s+(?P<rate>\d+(?:\.\d+)?) (?P<runit>[KMGT]?bits/sec)(?:\s+(?P<retr>\d+))?.*?\s(?P<role>sender|receiver)\s*$")
# [  5]   0.00-1.05   sec  11.2 MBytes  88.7 Mbits/sec    0   42.4 KBytes
_INTERVAL = re.compile(r"^\[\s*(?:\d+|SUM)\]\s+\d+(?:\.\d+)?-\d+(?:\.\d+)?\s*sec\s+\d")
# [  5]   0.00-10.00  sec  1.25 MBytes  1.05 Mbits/sec  0.000 ms  0/906 (0%)  sender   (UDP: jitter, lost/total)
_UDP = re.compile(r"\d ms\s+\d+/\d+ \(")
# [ ID] Interval           Transfer     Bitrate         Retr
_HEADER = re.compile(r"^\[ ID\] Interval\s+Transfer\s+(?:Bitrate|Bandwidth)")
_DETECT = re.compile(r"^\[ ID\] Interval\s+Transfer\s+(?:Bitrate|Bandwidth)|^\[\s*(?:\d+|SUM)\]\s+[\d.]+-[\d.]+\s*sec\s+.*bits/sec.*\s(?:sender|receiver)\s*$"
                     r'|"connecting_to"\s*:|"sum_sent"\s*:', re.M)
_SCALE = {"bits/sec": 1e-9, "Kbits/sec": 1e-6, "Mbits/sec": 1e-3, "Gbits/sec": 1.0, "Tbits/sec": 1e3}


def detect(head: str) -> bool:
    return ("Interval" in head or "bits/sec" in head or "sum_sent" in head or "connecting_to" in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if artefact.text.lstrip().startswith("{"):
        with json_shape(fb, "iperf3 -J"):  # a value of another type than the format's: one problem
            _json(artefact, fb, result)
        return result
    host = "peer"
    rows: list[tuple[int, re.Match[str]]] = []
    for n, line in enumerate(artefact.lines, 1):
        if m := _CONNECT.match(line):
            host, result.lines_used = m["host"], result.lines_used + 1
        elif m := _SUMMARY.match(line):
            rows.append((n, m))
            result.lines_used += 1
        elif _INTERVAL.match(line) or _HEADER.match(line) or line.strip() in ("iperf Done.", "- - - - - - - - - - - - - - - - - - - - - - - - -"):
            result.lines_used += 1
    streams = len({m["id"] for _, m in rows if m["id"] != "SUM"}) or None
    if any(m["id"] == "SUM" for _, m in rows):
        rows = [(n, m) for n, m in rows if m["id"] == "SUM"]
    for n, m in rows:
        gbps = float(m["rate"]) * _SCALE[m["runit"]]
        detail = "; ".join(x for x in (f"{streams} stream(s)" if streams else "several streams ([SUM])",
                                       f"retransmits {m['retr']}" if m["retr"] else None,
                                       f"{m['start']}-{m['end']} s") if x)
        udp = _UDP.search(artefact.lines[n - 1]) is not None
        fb.add(BenchResult, n, benchmark="iperf3", test="udp" if udp else "tcp",
               entity=host, metric=f"{m['role']}_bitrate", value=round(gbps, 4), unit="Gbit/s", detail=detail)
    return result


def _json(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    try:
        doc = json.loads(artefact.text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested thousands deep
        fb.error(1, f"iperf3 -J: not JSON: {exc}")
        return
    if doc.get("error"):
        at = artefact.text.find('"error"')
        fb.error(artefact.line_of(at) if at >= 0 else 1, f"iperf3 -J reports an error: {doc['error']}")
    start = doc.get("start") or {}
    end = doc.get("end") or {}
    ts = start.get("test_start") or {}
    proto = str(ts.get("protocol", "TCP")).lower()
    host = (start.get("connecting_to") or {}).get("host") or "peer"
    version = start.get("version")
    base = f"{ts.get('num_streams', '?')} stream(s)" + ("; reverse" if ts.get("reverse") else "")
    sides = [("sender", end.get("sum_sent")), ("receiver", end.get("sum_received"))]
    if not any(s for _, s in sides) and end.get("sum"):  # UDP: one "sum"
        sides = [("receiver", end["sum"])]
    for role, s in sides:
        if not s or s.get("bits_per_second") is None:
            continue
        key = {"sender": '"sum_sent"', "receiver": '"sum_received"'}[role] if role != "receiver" or end.get("sum_received") else '"sum"'
        at = artefact.text.find(key)
        detail = base + (f"; retransmits {s['retransmits']}" if s.get("retransmits") is not None else "")
        if s.get("lost_percent") is not None:
            detail += f"; lost {s['lost_percent']}%"
        fb.add(BenchResult, artefact.line_of(at) if at >= 0 else 1, benchmark="iperf3", test=proto, entity=host,
               metric=f"{role}_bitrate", value=round(float(s["bits_per_second"]) / 1e9, 4), unit="Gbit/s",
               tool_version=version, detail=detail)
    result.lines_used = len(artefact.lines)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
