"""A log shipper's or a log search's records read as the lines they hold (issue 11, rounds rL3 and rM2).

The journal, Filebeat, Fluent Bit, Vector and LogCLI export a log as one JSON record an event, a console or a
ticket shows a record pretty-printed over several lines, and Kibana, Grafana, Splunk and Datadog export a search as
CSV; each holds the line the program wrote in one string value. :func:`read_records` replaces each such record by its
line, one line for one line (facts/lines.py's normaliser calls it: line numbers do not move, evidence quotes the
record as written); :func:`record_hosts` names the host each record came from (engine/parse_pool.py reads the lines
host by host). Moved out of facts/lines.py, which strips wrappers around lines, unchanged.
"""
from __future__ import annotations

import json
import re

import re2

# One JSON record a line whose message is a log line, as the journal and log shippers export them (issue 11, round
# rL3: bench/plant_prefix_probe.py's journal_json and filebeat_json; the bare lines read, wrapped they were not: Fabric
# rows and nccl-tests rows in Filebeat's records beside a healthy capture read HEALTHY):
# journalctl -o json (systemd src/shared/logs-show.c output_json: __CURSOR, __REALTIME_TIMESTAMP, __MONOTONIC_TIMESTAMP,
# _BOOT_ID, __SEQNUM and the entry's fields, put in a hashmap and written in its order, so any field may come first; the
# line in MESSAGE, a string unless it is 4096 bytes or more (null), not printable (an array of bytes) or given twice (an
# array): those are kept as they are). Real records: the first as systemd writes them now (the search index's file
# 26140624753, a Rust reader of "journalctl -o json --output-fields=UNIT,MESSAGE,__REALTIME_TIMESTAMP"), the second
# as it wrote them before, blanks around the colons (DigitalOcean's journalctl tutorial, "journalctl -b -u nginx -o json"):
# {"__REALTIME_TIMESTAMP":"1655046591494032","_SOURCE_REALTIME_TIMESTAMP":"1655046591493997","__CURSOR":"s=5726468a2162439e9e18a191202b1a7b;i=28e9c;b=e8ee305cff53408da12356a3876792ba;m=370bd562e;t=5e141902c3790;x=ec3c36f10424aa47","__MONOTONIC_TIMESTAMP":"14776358446","MESSAGE":"Invalid user ark from 43.154.144.211 port 42608","_BOOT_ID":"e8ee305cff53408da12356a3876792ba"}
# { "__CURSOR" : "s=13a21661cf4948289c63075db6c25c00;i=116f1;b=81b58db8fd9046ab9f847ddb82a2fa2d;m=19f0daa;t=50e33c33587ae;x=e307daadb4858635", "__REALTIME_TIMESTAMP" : "1422990364739502", ...
# Filebeat's document (the Elastic Common Schema: "@timestamp", the line in "message"), as an Elasticsearch export or
# bulk request holds it (the search index's file 7263426428, VictoriaLogs' Elasticsearch bulk-request test, a Filebeat
# 8.8.0 index's records; the message may come first):
# {"@timestamp":"2023-06-06T04:48:11.735Z","log":{"offset":71770,"file":{"path":"/var/log/auth.log"}},"message":"foobar"}
# {"message":"xyz","@timestamp":"2023-06-06T04:48:13.735Z","x":"y"}
# Other shippers' and log searches' records, the same way (issue 11, round rM2; rL8 had them only recognised,
# engine/foreign_runs.py records_report): the line in "message", "log" or "line", beside a time key:
# Fluent Bit's stdout / file output, format json_lines (docs.fluentbit.io pipeline/outputs/standard-output:
# json_date_key "date", json_date_format "double"): the tail input's line in "log" (its docker parser's; its cri
# parser's in "message", with "time", "stream", "logtag"); the kubernetes filter (pipeline/filters/kubernetes) adds
# "kubernetes": {"pod_name", "namespace_name", "pod_id", "host" (the node), "container_name", "docker_id", ...}:
# {"date":1599862267.483684,"log":"<line>"}
# Vector's log event, as its sinks' json codec writes it (vector.dev docs/architecture/data-model/log; the keys sorted):
# {"custom":"field","host":"my.host.com","message":"Hello world","timestamp":"2020-11-01T21:15:47+00:00"}
# and its kubernetes_logs source's (docs/reference/configuration/sources/kubernetes_logs: "file", "kubernetes":
# {"container_name", "pod_name", "pod_namespace", "pod_node_name" (the node), ...}, "message", "source_type",
# "stream", "timestamp"); LogCLI's --output jsonl (grafana/loki pkg/logcli/output/jsonl.go: "labels" (the stream's),
# "line", "timestamp"). A JSON array of such records one a line ("[{...},", "{...},", "{...}]") is read the same.
# The record must parse as JSON and hold the timestamp key of its form (__REALTIME_TIMESTAMP, which journalctl always
# writes, with MESSAGE; else a time key, RECORD_TIME_KEY) and its message as a string: another program's JSON line
# (an event, a flight recorder's record, a journal entry's field list without the time, a config) is kept. The
# record's host (host, hostname, _HOSTNAME, ECS's host.name, the kubernetes node, LogCLI's host label): record_hosts.
# (the line up to its end, one pass: its closing brace, a trailing "," / "]" and blanks are checked in _record_text)
_JSON_RECORD = re.compile(r'\n\x1e?[ \t]*(?:\[[ \t]*)?(?P<rec>\{ ?"[^"\n]{1,64}" ?: ?[^\n]*)(?=\n)')
#: a record's time key (a log line is an event at a time): Filebeat's / ECS's "@timestamp", Vector's and LogCLI's
#: "timestamp", Fluent Bit's "date" and its parsers' "time", Splunk's and VictoriaLogs' "_time", "ts", "<x>_time"
RECORD_TIME_KEY = re.compile(r"(?i)@?timestamp|_?time|date|ts|datetime|__REALTIME_TIMESTAMP|[\w.@-]{0,40}[_.]time(?:stamp)?")
#: the key holding the line, in the order the forms above are tried: ECS / Vector / Fluent Bit's cri parser's
#: "message", Fluent Bit's "log" (an object in Filebeat's records, where "message" holds the line), LogCLI's "line"
RECORD_LINE_KEYS = ("message", "log", "line")


def read_records(out: str, apps: bool = True) -> str:
    """``out`` (newline-framed, as facts/lines.py's _strip holds it) with each record read as its line: JSON records one
    a line (_JSON_RECORD; an application's own record, APP_MESSAGE_KEY, where ``apps``: the text as read names no gpud),
    a CSV export's rows (_CSV_HEADER), a pretty-printed record's line member (_JSON_MEMBER)."""
    if ('"MESSAGE"' in out or '"message"' in out or '"log"' in out or '"line"' in out) and "{" in out:
        out = _JSON_RECORD.sub(_json_record, out)
    if apps and '"msg"' in out and "{" in out and "gpud" not in out:
        out = _JSON_RECORD.sub(_app_record, out)
    if "," in out and _CSV_GATE.search(out) is not None and _CSV_HEADER.search(out) is not None:
        out = _csv_export(out)
    if ('"MESSAGE"' in out or '"message"' in out or '"log"' in out or '"line"' in out) \
            and ('\n"' in out or '\n ' in out or '\n\t' in out):
        out = _json_members(out)
    return out


def _record_text(rec: str) -> str | None:
    """A record line's object (_JSON_RECORD's ``rec``: to its line's end) without what may follow its closing brace:
    blanks, a JSON array's "," or "]", a CR; None where it does not end with one."""
    rec = rec.rstrip(" \t\r")
    if rec[-1:] in (",", "]"):
        rec = rec[:-1].rstrip(" \t")
    return rec if rec.endswith("}") else None


def _record(text: str) -> dict | None:
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth: no record of these forms
        return None
    return record if isinstance(record, dict) else None


def record_line(record: dict) -> str | None:
    """The log line a shipper's record holds (see _JSON_RECORD), or None where it is no such record."""
    if "__REALTIME_TIMESTAMP" in record:
        line = record.get("MESSAGE")
        return line if isinstance(line, str) else None
    if not any(isinstance(k, str) and RECORD_TIME_KEY.fullmatch(k) for k in record):
        return None
    return next((v for k in RECORD_LINE_KEYS if isinstance(v := record.get(k), str)), None)


# Rust's tracing-subscriber JSON format (tracing-subscriber src/fmt/format/json.rs, Format<Json>: "timestamp", "level",
# the event's fields in "fields" (its message in "message"), "target", the current span in "span" and every entered
# span in "spans", each with its "name" and fields), which text-generation-inference's launcher writes under
# --json-output (launcher/src/main.rs: tracing_subscriber::fmt().json(); its text form .compact()); real records
# (huggingface/text-generation-inference#402, #1156):
# {"timestamp":"2023-06-02T14:12:35.001957Z","level":"INFO","fields":{"message":"Waiting for shard 0 to be ready..."},"target":"text_generation_launcher"}
# The record is read as the line the same program writes without --json-output, tracing-subscriber's compact form (the
# level right-aligned in 5, the spans' names, the target, the message, then the event's other fields and the span's
# as key=value): 2023-08-11T06:42:43.498333Z ERROR shard-manager: text_generation_launcher: Shard process was signaled
# to shutdown with signal 7 rank=1 (#814's text form), so one reader reads both. A record with "message" at the top
# (.flatten_event(true): TGI's router) is a shipper's form above (RECORD_LINE_KEYS).
TRACING_LEVELS = frozenset({"TRACE", "DEBUG", "INFO", "WARN", "ERROR"})


def tracing_record_line(record: dict) -> str | None:
    """The compact text line of a tracing-subscriber JSON record, None where ``record`` is no such record."""
    fields, level, ts = record.get("fields"), record.get("level"), record.get("timestamp")
    if not isinstance(fields, dict) or not isinstance(message := fields.get("message"), str) \
            or level not in TRACING_LEVELS or not isinstance(ts, str):
        return None
    spans = record.get("spans")
    spans = [s for s in spans if isinstance(s, dict)] if isinstance(spans, list) else []
    span = record.get("span") if isinstance(record.get("span"), dict) else (spans[-1] if spans else None)
    names = [str(s["name"]) for s in (spans or ([span] if span else [])) if "name" in s]
    target = record.get("target")
    head = f"{ts} {level:>5} " + "".join(f"{n}:" for n in names)[:-1] + (": " if names else "") \
        + (f"{target}: " if isinstance(target, str) else "")
    tail = [f"{k}={v}" for k, v in fields.items() if k != "message"]
    tail += [f"{k}={v}" for k, v in (span or {}).items() if k != "name"]
    return head + message + "".join(" " + t for t in tail)


def _json_record(m: re.Match[str]) -> str:
    rec = _record_text(m["rec"])
    record = _record(rec) if rec is not None else None
    line = record_line(record) if record is not None else None
    if line is None and record is not None:
        line = tracing_record_line(record)
    if line is None:
        return m[0]
    # one line for one line: a message of several lines (a traceback sent as one entry) is read as one; the line's CR stays
    return "\n" + line.rstrip("\r\n").replace("\r", " ").replace("\n", " ") + ("\r" if m["rec"].endswith("\r") else "")


# An application's own log record, as its logger's JSON encoder writes it, one a line (issue 11, round rO1: Go programs
# of the GPU stack log so: the GPU operator, device plugins, node agents, gpud); the message in "msg", the error the
# call site attached in "error" (or "err"), the level in "level":
# zap (uber-go/zap config.go NewProductionEncoderConfig: TimeKey "ts", LevelKey "level", NameKey "logger", CallerKey
#   "caller", MessageKey "msg", StacktraceKey "stacktrace", EncodeLevel LowercaseLevelEncoder, EncodeTime
#   EpochTimeEncoder; field.go zap.Error(err) = NamedError("error", err)), controller-runtime's zap the same:
# {"level":"error","ts":1741165859.009253,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy is not ready, states not ready: [state-operator-validation state-device-plugin state-dcgm-exporter gpu-feature-discovery state-mig-manager]"}
#   (NVIDIA/gpu-operator#1310)
# {"level":"info","ts":1609192433.9836864,"logger":"controller_clusterpolicy","msg":"DEBUG: DaemonSet","LabelSelector":"app=nvidia-driver-daemonset"}
#   (NVIDIA/gpu-operator#122)
# logrus's JSONFormatter (sirupsen/logrus formatter.go FieldKeyMsg "msg", FieldKeyLevel "level", FieldKeyTime "time";
#   entry.go ErrorKey "error"): {"level":"error","msg":"...","time":"..."}; Go's log/slog JSONHandler (log/slog
#   handler.go TimeKey "time", LevelKey "level", MessageKey "msg"; level.go Level.String "DEBUG", "INFO", "WARN",
#   "ERROR", "ERROR+2"): {"time":"...","level":"ERROR","msg":"...","err":"..."}.
# The record is read as its message, the error after it ("<msg>: <error>", as the program's own wrapping reads, where
# the message does not already hold it), so an NCCL, CUDA or NVML message in either is its reader's; the record must
# parse, hold a time key (RECORD_TIME_KEY) and a string level (APP_LEVEL_KEYS). Its level stays in the line as written
# (record_level: the fallback reader's and the unread-failure check's, facts/parsers/unrecognised_text.py). Left as
# written, for the readers that read such records whole: gpud's (facts/parsers/gpud_journal.py, gpud_scan.py: no record
# where the text names gpud, nor one whose caller is gpud's log wrapper or a component's file, _KEEP_CALLER:
# "caller":"log/log.go:175" leptonai/gpud#1238, "caller":"fabric-manager/component.go:378" leptonai/gpud#1108), and a
# record carrying a structured payload, an object or array member (NVSentinel's health events, nvsentinel_event.py:
# {"level":"INFO","msg":"Successfully got item",...,"healthEvents":{"version":1,"events":[...]}}, NVIDIA/NVSentinel#762).
APP_MESSAGE_KEY = "msg"
#: gpud's own log wrapper or one of its components' files as zap's caller (gpud_journal's and gpud_scan's marks)
_KEEP_CALLER = re.compile(r'"caller":"(?:log/log\.go|[\w./-]{0,200}component\.go):\d')
APP_LEVEL_KEYS = ("level", "severity", "lvl")
APP_ERROR_KEYS = ("error", "err")


def app_record_line(record: dict, nested: bool = False) -> str | None:
    """The line an application's own log record holds (its message, its error after it), or None where it is none
    (or it carries a structured payload: kept whole for its reader; read where ``nested``, record_message: an error
    given as an object is its message, _ERROR_TEXT_KEYS)."""
    msg = record.get(APP_MESSAGE_KEY)
    if not isinstance(msg, str) or not any(isinstance(record.get(k), str) for k in APP_LEVEL_KEYS):
        return None
    if not nested and any(isinstance(v, (dict, list)) for v in record.values()):
        return None
    if not any(isinstance(k, str) and RECORD_TIME_KEY.fullmatch(k) for k in record):
        return None
    line = msg.strip()
    err = next((v.strip() for k in APP_ERROR_KEYS if isinstance(v := _error_text(record.get(k)), str) and v.strip()), None)
    if err and err not in line:
        line = f"{line}: {err}" if line else err
    return line


#: the member holding an error object's text: {"code": 12, "message": "..."} (gRPC's status, Google's JSON error), an
#: error's own fields under zap's ObjectMarshaler ({"error": {"msg": ...}}), an errors' chain's {"error": "..."}
_ERROR_TEXT_KEYS = ("message", "msg", "error", "reason", "detail")


def _error_text(value: object) -> object:
    """An error member's text: the string itself, or an object's message (_ERROR_TEXT_KEYS)."""
    if isinstance(value, dict):
        return next((v for k in _ERROR_TEXT_KEYS if isinstance(v := value.get(k), str)), None)
    return value


def _app_record(m: re.Match[str]) -> str:
    rec = _record_text(m["rec"])
    record = _record(rec) if rec is not None and '"msg"' in rec and _KEEP_CALLER.search(rec) is None else None
    line = app_record_line(record) if record is not None and record_line(record) is None else None
    if line is None:
        return m[0]
    return "\n" + line.replace("\r", " ").replace("\n", " ") + ("\r" if m["rec"].endswith("\r") else "")


def record_level(raw: str) -> str | None:
    """The level (lower case) of the application record ``raw`` (one line as written, a label before it allowed) is,
    where facts/lines.py read it as its message (app_record_line), or where lines.py keeps it as written (kept_record:
    logfmt, JSON with an object member); None otherwise."""
    record = _app_json(raw) or kept_record(raw)
    if record is None:
        return None
    return next(v.lower() for k in APP_LEVEL_KEYS if isinstance(v := record.get(k), str))


def _app_json(raw: str) -> dict | None:
    """The application JSON record ``raw`` holds (a label before it allowed) that facts/lines.py reads as its message."""
    at = raw.find('{"')
    if at == -1 or '"msg"' not in raw:
        return None
    m = _JSON_RECORD.match("\n" + raw[at:].rstrip("\r") + "\n")
    rec = _record_text(m["rec"]) if m is not None else None
    record = _record(rec) if rec is not None else None
    if record is None or record_line(record) is not None or app_record_line(record) is None \
            or _KEEP_CALLER.search(rec) is not None:
        return None
    return record


# The same application record in logfmt, one a line (issue 11, round rP5): key=value pairs, a value quoted where it holds
# a blank, '=' or '"' (Go's strconv.Quote), the keys of the JSON encoders above:
# Go's log/slog TextHandler (handler.go: TimeKey "time", LevelKey "level", MessageKey "msg", AddSource's "source";
#   text_handler.go appendTextValue quotes a string when needsQuoting):
# time=2024-05-01T10:00:00.000Z level=ERROR msg="failed to initialize NVML" err="ERROR_LIBRARY_NOT_FOUND"     (CONSTRUCTED)
# logrus's TextFormatter without a terminal (text_formatter.go appendKeyValue, needsQuoting: the time always quoted):
# time="2022-07-19T14:22:41Z" level=fatal msg="Error getting device busid: ..."   (NVIDIA/gpu-monitoring-tools' exporter, nvidia_smi_q.py)
# go-kit's log (go-logfmt: ts, caller, level, msg, err):
# ts=2022-03-05T12:15:01.058Z caller=exporter.go:157 level=error error="command failed. stderr:  err: exit status 12"   (nvml_init.py)
# A logfmt record is kept in the text as written (facts/lines.py does not read it as its message, unlike the JSON record):
# readers read their programs' records whole (dcgm_exporter_log, nvml_init, mig_mode_log, nvidia_ctk, ollama_log,
# container_runtime, k8s_driver_manager); the fallback readers (facts/parsers/unrecognised_text.py, ticket_prose.py)
# read it as its message with its level (record_level, record_message). The whole rest of the line must be pairs, three
# at least, one of them a time key, a string level and a msg (app_record_line): a sentence with an '=' in it is none.
# log15 (inconshreveable/log15 format.go LogfmtFormat, go-ethereum's and Grafana 7-8's logs): keys t, lvl, msg, its
#   levels Lvl.String()'s trce, dbug, info, warn, eror, crit:
# t=2021-03-04T10:00:00+0000 lvl=eror msg="Failed to read plugin provisioning files" logger=provisioning.plugins   (CONSTRUCTED)
_LOGFMT_START = re.compile(r"(?<![\w.@/-])(?:time|ts|timestamp|level|lvl|severity)=")
_LOG15_TIME = re.compile(r"(?<![\w.@/-])t=(?P<t>[^\s\"=]{1,64})[ \t]+$")
_LOGFMT_PAIR = re.compile(r'[ \t]*(?P<k>[A-Za-z_@][\w.@/-]{0,63})=(?P<v>"(?:[^"\\\n]|\\.)*"|[^\s"=]*)(?=[ \t\r]|$)')


def logfmt_record(raw: str) -> dict | None:
    """The logfmt record ``raw`` holds from its first time or level key to its end (a label before it allowed): {key:
    value}, the values unquoted; None where the rest of the line is not all key=value pairs (three at least)."""
    if "=" not in raw or (m := _LOGFMT_START.search(raw)) is None:
        return None
    line, pos, record = raw.rstrip("\r\n \t"), m.start(), {}
    while pos < len(line):
        p = _LOGFMT_PAIR.match(line, pos)
        if p is None or p.end() == pos:
            return None
        v = p["v"]
        if v.startswith('"'):
            try:
                v = json.loads(v)
            except ValueError:  # Go's \x.. and \a escapes, which JSON lacks
                v = v[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        record.setdefault(p["k"], v)
        pos = p.end()
    if "lvl" in record and not any(RECORD_TIME_KEY.fullmatch(k) for k in record) \
            and (t := _LOG15_TIME.search(raw, 0, m.start())) is not None:
        record = {"time": t["t"], **record}  # log15's logfmt (its keys t, lvl, msg): t, before lvl, is its time
    return record if len(record) >= 3 else None


def record_message(raw: str) -> str | None:
    """The line an application's record kept as written in the text is read as ('<msg>: <error>', app_record_line) by the
    fallback readers: a logfmt record (logfmt_record), or a JSON record with an object or array member (facts/lines.py
    keeps it for the readers of such payloads, nvsentinel_event; another program's, controller-runtime's "object":
    {"name": ...} or an error object, is read here); None where ``raw`` is none."""
    record = kept_record(raw)
    return app_record_line(record, nested=True) if record is not None else None


def kept_record(raw: str) -> dict | None:
    """The application record ``raw`` (one line as written, a label before it allowed) holds that facts/lines.py keeps as
    written: logfmt, or JSON with an object or array member (not gpud's, _KEEP_CALLER: gpud_journal's); None otherwise."""
    if '"msg"' in raw and (at := raw.find('{"')) != -1:
        m = _JSON_RECORD.match("\n" + raw[at:].rstrip("\r") + "\n")
        rec = _record_text(m["rec"]) if m is not None else None
        record = _record(rec) if rec is not None and _KEEP_CALLER.search(rec) is None else None
        if record is None or record_line(record) is not None or not any(isinstance(v, (dict, list)) for v in record.values()):
            return None
    elif "msg=" in raw:
        record = logfmt_record(raw)
    else:
        return None
    return record if record is not None and app_record_line(record, nested=True) is not None else None


# A record written over several lines (journalctl -o json-pretty; a log console's or a ticket's pretty-printed record:
# aws-samples/stable-diffusion-on-eks#96, Fluent Bit's records in CloudWatch, pasted cut):
#     "time": "2024-03-06T22:35:04.442650075Z",
#     "stream": "stdout",
#     "_p": "F",
#     "log": "Warning: caught exception 'Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx', memory monitor disabled",
# its line member ("MESSAGE", "message", "log", "line": a JSON string) is read as the line, where a time key's member
# sits at the same indentation in the same block (no blank line between): the record's own level, not a document's
# nested "message"; the other members stay as they are.
_JSON_MEMBER = re.compile(r'\n(?P<ind>[ \t]{0,16})"(?:MESSAGE|message|log|line)" ?: ?(?P<val>"(?:[^"\\\n]|\\.)*")'
                          r'[ \t]*(?:,[ \t]*)?(?=\r?\n)')
_MEMBER_KEY = re.compile(r'\n(?P<ind>[ \t]{0,16})"(?P<key>[^"\n]{1,64})" ?:')
_BLANK = re.compile(r"\n[ \t]*(?=\r?\n)")


def _json_members(out: str) -> str:
    """``out`` (newline-framed) with a pretty-printed record's line member read as its line (_JSON_MEMBER)."""
    import bisect

    found = list(_JSON_MEMBER.finditer(out))
    if not found:
        return out
    times: dict[str, list[int]] = {}
    for m in _MEMBER_KEY.finditer(out):
        if RECORD_TIME_KEY.fullmatch(m["key"]):
            times.setdefault(m["ind"], []).append(m.start())
    if not times:
        return out
    blanks = [m.start() for m in _BLANK.finditer(out)]
    parts, pos = [], 0
    read: list[tuple[int, str]] = []  # (row, indentation) of each member read
    for m in found:
        at = times.get(m["ind"])
        if not at:
            continue
        k = bisect.bisect_left(blanks, m.start())
        lo, hi = blanks[k - 1] if k else -1, blanks[k] if k < len(blanks) else len(out)
        j = bisect.bisect_right(at, lo)
        if j >= len(at) or at[j] >= hi:
            continue  # no time member in its block at its level
        try:
            line = json.loads(m["val"])
        except (ValueError, RecursionError):
            continue
        parts.append(out[pos:m.start()])
        parts.append("\n" + line.rstrip("\r\n").replace("\r", " ").replace("\n", " "))
        read.append((out.count("\n", 0, m.start()) + 1, m["ind"]))
        pos = m.end()
    if not parts:
        return out
    parts.append(out[pos:])
    return _record_rows_read("".join(parts), read)


# The rest of a pretty-printed record whose line member was read (its braces, its other members one a row: the
# journal's "__CURSOR", "__REALTIME_TIMESTAMP", "_HOSTNAME", ...) is the record's wrapper, as a one-line record's other
# fields are: blank rows (line for line), not lines of another program nobody read (bench/plant_prefix_probe.py
# --prefixes rM2: a json-pretty record below an nccl-tests capture left its six other rows unread). Only a record of
# flat members (a string, a number, true, false or null a row) between an opening brace and a closing one:
#     {
#             "__CURSOR": "s=5726468a2162439e9e18a191202b1a7b;i=28e90",
#             "_HOSTNAME": "gpu-node-7",
#     },
_FLAT_MEMBER = re.compile(r'[ \t]{0,16}"[^"\n]{1,64}" ?: ?(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]{0,40}|true|false|null)[ \t]*,?[ \t]*\r?')
_OPEN_ROW = re.compile(r"[ \t]{0,16}(?:\[[ \t]*)?\{[ \t]*\r?")
_CLOSE_ROW = re.compile(r"[ \t]{0,16}\}[ \t]*[,\]]?[ \t]*\r?")


def _record_rows_read(out: str, read: list[tuple[int, str]]) -> str:
    """``out`` (newline-framed) with the other rows of each record whose line member was read (``read``: its row index
    in ``out.split("\\n")`` and its indentation) blank, where the record is of flat members between its braces."""
    rows = out.split("\n")
    for i, ind in read:
        top = i - 1
        while top > 0 and rows[top].startswith(ind) and _FLAT_MEMBER.fullmatch(rows[top]) is not None:
            top -= 1
        end = i + 1
        while end < len(rows) - 1 and rows[end].startswith(ind) and _FLAT_MEMBER.fullmatch(rows[end]) is not None:
            end += 1
        if top < 1 or end >= len(rows) - 1 or _OPEN_ROW.fullmatch(rows[top]) is None \
                or _CLOSE_ROW.fullmatch(rows[end]) is None:
            continue
        for k in range(top, end + 1):
            if k != i:
                rows[k] = "\r" if rows[k].endswith("\r") else ""
    return "\n".join(rows)


# A log search's CSV export, its header naming the fields (issue 11, round rM2; rL8 had it only recognised): each row
# is read as its line cell, line for line (a cell of several lines over its rows one for one where they match, else on
# the row's first), the header a blank line. Kibana Discover's "Generate CSV" (the saved search's fields; the time in
# its dateFormat "MMM D, YYYY @ HH:mm:ss.SSS"; cells quoted per RFC 4180):
# "@timestamp",message
# "Dec 5, 2026 @ 11:22:00.735","<line>"
# Grafana's panel inspector's "Download CSV" of a Loki logs frame (its fields: labels, Time, Line, tsNs, id), Splunk's
# export (_time, _raw), Datadog's (Date, Host, Service, Message). The header must name a time column (RECORD_TIME_KEY)
# and a line column (RECORD_LINE_KEYS, Splunk's _raw), every row up to a blank line as many cells as it: nvidia-smi
# --query-gpu=timestamp,... (no line column) and a table of other cells are kept.
_CSV_HEADER = re.compile(r'\n"?[\w@.-]{1,64}"?(?:,"?[\w@. -]{1,64}"?){1,63}\r?(?=\n)')
_CSV_LINE_KEYS = (*RECORD_LINE_KEYS, "_raw")
#: a header cell naming a line column, one RE2 pass (a wrapped log of 25 MB: milliseconds) before _CSV_HEADER's search
_CSV_GATE = re2.compile(r'(?m)(?:^|[,"])(?:message|Message|MESSAGE|_raw|[Ll]ine|[Ll]og)(?:[,"]|\r?$)')
#: a column naming the host a row came from (Datadog's Host, ECS's host.name, the kubernetes node's name)
_CSV_HOST_KEYS = ("host", "hostname", "host.name", "_hostname", "kubernetes.host", "kubernetes.pod_node_name",
                  "kubernetes.node.name")


def _csv_columns(header: str) -> tuple[int, int, int | None] | None:
    """(cells, line column, host column) of a CSV export's header, or None where it names no time or no line column."""
    cols = [c.strip().strip('"').lower() for c in header.rstrip("\r").split(",")]
    if not any(RECORD_TIME_KEY.fullmatch(c) for c in cols):
        return None
    at = next((cols.index(k) for k in _CSV_LINE_KEYS if k in cols), None)
    if at is None:
        return None
    return len(cols), at, next((cols.index(k) for k in _CSV_HOST_KEYS if k in cols), None)


def _csv_rows(lines: list[str], head: int) -> tuple[int, int | None, list[tuple[int, int, list[str]]]] | None:
    """The rows under the CSV header at ``lines[head]``: (line column, host column, [(first, last, cells), ...]),
    the rows' line indices in ``lines``; None where the header is no export's."""
    import csv
    import io

    cols = _csv_columns(lines[head])
    if cols is None:
        return None
    n, at, host = cols
    end = head + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    reader = csv.reader(io.StringIO("\n".join(ln.rstrip("\r") for ln in lines[head + 1:end])))
    rows, first = [], head + 1
    try:
        for cells in reader:
            last = head + reader.line_num
            if len(cells) != n:
                break
            rows.append((first, last, cells))
            first = last + 1
    except csv.Error:
        pass
    return at, host, rows


def _csv_export(out: str) -> str:
    """``out`` (newline-framed) with each CSV export's rows read as their line cell (_CSV_HEADER)."""
    lines = out.split("\n")
    heads = [out.count("\n", 0, m.start() + 1) for m in _CSV_HEADER.finditer(out)]
    done = 0
    for head in heads:
        if head < done or (got := _csv_rows(lines, head)) is None or not got[2]:
            continue
        at, _host, rows = got
        lines[head] = "\r" if lines[head].endswith("\r") else ""
        for first, last, cells in rows:
            cr = "\r" if lines[last].endswith("\r") else ""
            parts = cells[at].replace("\r\n", "\n").split("\n")
            if len(parts) != last - first + 1:
                parts = [" ".join(parts)] + [""] * (last - first)
            lines[first:last + 1] = [p.rstrip("\r") + cr for p in parts]
            done = last + 1
    return "\n".join(lines)


def _record_host(record: dict) -> str | None:
    """The host a shipper's record names (see _JSON_RECORD): the kubernetes node (Fluent Bit's kubernetes.host,
    Vector's kubernetes.pod_node_name, Filebeat's kubernetes.node.name), the record's host (Vector's and Logstash's
    host, ECS's host.name or host.hostname, hostname, the journal's _HOSTNAME), LogCLI's stream label (host,
    hostname, node_name, nodename), else the kubernetes pod (pod_name, ECS's kubernetes.pod.name)."""
    k8s = record.get("kubernetes")
    k8s = k8s if isinstance(k8s, dict) else {}
    node, pod = k8s.get("node"), k8s.get("pod")
    labels = record.get("labels")
    labels = labels if isinstance(labels, dict) else {}
    host = record.get("host")
    found = (k8s.get("host"), k8s.get("pod_node_name"), node.get("name") if isinstance(node, dict) else None,
             *((host.get("name"), host.get("hostname")) if isinstance(host, dict) else (host,)),
             record.get("hostname"), record.get("_HOSTNAME"),
             labels.get("host"), labels.get("hostname"), labels.get("node_name"), labels.get("nodename"),
             k8s.get("pod_name"), pod.get("name") if isinstance(pod, dict) else None)
    return next((h for h in found if isinstance(h, str) and _HOST_NAME.fullmatch(h)), None)


_HOST_NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,127}")


def record_hosts(text: str) -> list[str | None] | None:
    """The host each line of ``text`` came from where it is a shipper's record read as its line (_JSON_RECORD: JSON
    records one a line; _CSV_HEADER: a CSV export's rows) that names one (_record_host; a CSV's host column), None
    for the other lines; None where no record names a host. Reached only for a text holding such a record's key."""
    has_json, has_csv = "{" in text and '"' in text, "," in text and _CSV_GATE.search(text) is not None
    if not has_json and not has_csv:
        return None
    lines = text.split("\n")
    hosts: list[str | None] = [None] * len(lines)
    for i, ln in enumerate(lines if has_json else ()):
        if "{" in ln and (m := _JSON_RECORD.match("\n" + ln + "\n")) is not None and (rec := _record_text(m["rec"])) \
                and (record := _record(rec)) is not None and record_line(record) is not None:
            hosts[i] = _record_host(record)
    if has_csv:
        for m in _CSV_HEADER.finditer("\n" + text + "\n"):
            head = text.count("\n", 0, m.start())
            got = _csv_rows(lines, head)
            if got is not None and got[1] is not None:
                for first, last, cells in got[2]:
                    h = cells[got[1]].strip()
                    hosts[first:last + 1] = [h if _HOST_NAME.fullmatch(h) else None] * (last - first + 1)
    return hosts if any(hosts) else None


# One JSON record a line that a terminal or a ticket broke over rows (issue 11, round rS1): the record goes on past its
# first row, cut inside a string or between two members, and the rows after it hold its tail (a 80-column terminal's
# cut, a ticket's word wrap, which drops the blank it broke at). zap's record of NVIDIA/gpu-operator#1310 (real), as a
# ticket wrapped it at 70 columns (CONSTRUCTED):
#   {"level":"error","ts":1741165859.009253,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy is not ready,
#   states not ready: [state-operator-validation state-device-plugin
#   state-dcgm-exporter gpu-feature-discovery state-mig-manager]"}
# Read alone, the first row is no record (it does not parse) and its tail rows are lines of nobody's: the error record
# read as a line of unknown words, its tail counted unread. The rows are joined on the first (the rows after it left
# blank, as facts/lines.py's _unwrap joins a terminal's cut: Normalised.joined), where the record's first row starts
# with '{"' (after a prefix or a margin), does not end a record ('}', '},', '}]'), parses as no JSON alone, and parses as
# one JSON object with the next one to _REJOIN_ROWS rows (non-blank, none starting another record, none a pretty-printed
# member: an indented '"key":' row or a brace alone, _json_members' form) joined as they were cut: at a blank (a row
# ending or starting with one: joined as they are; after a hyphen, where a word wrap breaks too), at a terminal's width
# (a wall of rows, or a row as wide as a terminal opens: joined without a blank), else at a word wrap's blank (joined
# with one); where that parses as no object, the other way. A record the paste cut (its tail absent) parses with no rows: it stays as written.
_REJOIN_ROWS = 5
#: the widths terminals open with (facts/lines.py's): a row of one of them was cut there; a record's first row, a run
#: without blanks, is often wider than a word wrap's width (a wrap breaks at the first blank it can)
_TERMINAL_WIDTHS = frozenset((80, 100, 120, 132, 160, 200))
#: a row holding a record's start that does not end one (its last non-blank character no '}', ']', nor a '}' or ']'
#: before a last ','): one RE2 pass over a text that holds '{"'
_REJOIN_GATE = re2.compile(r'(?m)\{ ?"[^\n]*(?:[^\s,}\]]|[^\s}\]],)[ \t]*\r?$')
_MEMBER_ROW = re.compile(r'[ \t]+"[^"\n]{1,64}" ?:|[ \t]*[{}\[\]],?[ \t]*\r?$')
_ROW_MARGIN = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+|[ \t]+")


def rejoin_records(text: str, joined: dict[int, int] | None = None) -> tuple[str, dict[int, int]] | None:
    """``text`` with each JSON record a terminal or a ticket broke over rows joined on its first row, the rows after it
    blank (line for line), and {first row (1-based): rows joined after it}, ``joined`` (rows an earlier join left blank:
    facts/lines.py _unwrap's) merged in; None where no record was broken."""
    if '{"' not in text and '{ "' not in text or _REJOIN_GATE.search(text) is None:
        return None
    rows = text.split("\n")
    blanked: set[int] = set()  # (0-based rows an earlier join left blank)
    for first, n in (joined or {}).items():
        blanked.update(range(first, first + n))
    done: dict[int, int] = dict(joined or {})
    changed = False
    tried = 0
    for m in _REJOIN_GATE.finditer(text):
        tried += 1
        if tried > 2000:
            break
        i = text.count("\n", 0, m.start())
        if i in blanked or not rows[i].strip():
            continue  # (taken by a join above)
        got = _rejoin(rows, i, blanked)
        if got is None:
            continue
        line, last = got
        rows[i] = line
        for k in range(i + 1, last + 1):
            rows[k] = "\r" if rows[k].endswith("\r") else ""
            blanked.add(k)
            done.pop(k + 1, None)
        done[i + 1] = last - i
        changed = True
    return ("\n".join(rows), done) if changed else None


def _rejoin(rows: list[str], i: int, blanked: set[int]) -> tuple[str, int] | None:
    """(row ``i`` with the rows after it that end its JSON record joined on, the last row joined), or None."""
    row = rows[i]
    cr = "\r" if row.endswith("\r") else ""
    row = row.rstrip("\r")
    at = row.find('{"')
    at = row.find('{ "') if at < 0 else at
    if at < 0 or _record(row[at:].rstrip(" \t")) is not None:
        return None
    margin = m[0] if (m := _ROW_MARGIN.match(row, 0, at)) is not None and m.end() == at else ""
    pieces: list[tuple[int, str, int]] = []  # (row, text, columns of the row as cut)
    j = i + 1
    while j < len(rows) and len(pieces) < _REJOIN_ROWS:
        if j in blanked:
            j += 1
            continue
        nxt = rows[j].rstrip("\r")
        if not nxt.strip() or _MEMBER_ROW.match(nxt) is not None:
            return None
        body = nxt[len(margin):] if margin and nxt.startswith(margin) else nxt
        if body.lstrip().startswith(('{"', '{ "')):
            return None  # (another record's start: this one's tail is not here)
        pieces.append((j, body, len(rows[j - 1].rstrip("\r")) if j - 1 not in blanked else 0))
        seps = _separators(row, pieces)
        for joins in (seps, [""] * len(seps), [" "] * len(seps)):
            whole = row + "".join(s + p for s, (_k, p, _w) in zip(joins, pieces))
            rec = _record_text(whole[at:])
            if rec is not None and _record(rec) is not None:
                return whole + (cr if rows[j].endswith("\r") else ""), j
        j += 1
    return None


def _separators(first: str, pieces: list[tuple[int, str, int]]) -> list[str]:
    """What each break between ``first`` and ``pieces`` lost: nothing at a blank or at a terminal's width, else the
    blank a word wrap broke at."""
    widths = [len(first)] + [w for _k, _p, w in pieces[1:]]
    wall = len(widths) > 1 and len(set(widths)) == 1
    out, before = [], first
    for (_k, piece, _w), width in zip(pieces, widths):
        cut = before[-1:].isspace() or piece[:1].isspace() or before[-1:] == "-" or wall or width in _TERMINAL_WIDTHS
        out.append("" if cut else " ")
        before = piece
    return out
