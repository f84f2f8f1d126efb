"""GPUd (leptonai/gpud) as the node's journal or syslog carries it: gpud's own log lines, and a
node checker's rows of gpud's component states.

gpud logs through zap as JSON, one object a line (``log/log.go``); through journald or rsyslog the
line gets the ``gpud[<pid>]:`` tag. A checker that relays gpud's states (``gpud status`` or
``/v1/states`` turned into rows) writes a component, its health and gpud's reason separated by
tabs, which rsyslog escapes as ``#011``. Sample content (leptonai/gpud#1238, the node's syslog)::

    2026-04-23T00:50:09.175720+00:00 worker-node-8 gpud[3567]: {"level":"warn","ts":"2026-04-23T00:50:09.175Z","caller":"log/log.go:175","msg":"error getting processes","error":"failed to get process 2748003 environ: open /proc/2748003/environ: no such process"}
    2026-04-23T00:50:12.207672+00:00 worker-node-8 nhc_gpud_checker: ERROR: gpud found issues not repairable by reboot, draining the node: accelerator-nvidia-processes#011Unhealthy#011error getting processes#0112026-04-23T00:50:08Z#011null

Facts: ``gpud_log_error`` per gpud line at warn level or above (zap's warn, error, dpanic, panic,
fatal), with gpud's message and error and whether the error says a ``/proc/<pid>`` entry it read
was gone (``no such process``, ``no such file or directory``: the process exited between gpud
listing it and reading it) or is gpud's ``no data collected yet in the poller`` (a component asked before its poller's
first collection, ``no_data_yet``); a component that logs, as the message, the reason it sets its state Unhealthy with
(``log.Logger.Errorw(cr.reason, ...)``: the GPU count against the expected one, leptonai/gpud#944)
gives that state, ``gpud_unhealthy_state``, instead: gpud reporting a fault, not failing itself
(:data:`_COMPONENT_REASONS`); ``gpud_unhealthy_state`` per relayed row of a component gpud knows
(:mod:`gpud_states` CHECKS) in state Unhealthy or Degraded, as gpud_states makes it from the
JSON. gpud's info and debug lines and Healthy rows are read, no fact. Empty input: nothing.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.kinds.dcgm import GpudLogError, GpudUnhealthyState
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.gpud_states import CHECKS

KIND = "gpud_journal"

# ... worker-node-8 gpud[3567]: {"level":"warn","ts":"...","caller":"log/log.go:175","msg":"error getting processes","error":"..."}
# (the journal's tag is gone once the line is normalised: facts/lines.py; the raw line keeps it)
_ZAP = re.compile(r"^\s*(?P<json>\{\"level\":\"(?P<level>[a-z]+)\",\"ts\":.*\})\s*$")
_GPUD_TAG = re.compile(r"\bgpud(?:\[\d+\])?:\s*\{")
# gpud logs through its own wrapper of zap (pkg/log), so zap's caller is that wrapper's file in every line:
# "caller":"log/log.go:175" (leptonai/gpud#1238); with zap's key order, gpud's mark where the journal's tag is gone
_GPUD_CALLER = '"caller":"log/log.go:'
# accelerator-nvidia-processes#011Unhealthy#011error getting processes#0112026-04-23T00:50:08Z#011null
_SEP = r"(?:\t|#011)"
_ROW = re.compile(rf"(?<![\w-])(?P<comp>[a-z][a-z0-9-]{{1,60}}){_SEP}(?P<health>Unhealthy|Degraded|Healthy|Initializing)"
                  rf"(?:{_SEP}(?P<reason>(?:(?!#011)[^\t\n]){{0,500}}))?")
# open /proc/2748003/environ: no such process
_PROC_GONE = re.compile(r"/proc/\d+/\S*:? (?:no such process|no such file or directory)", re.I)
# gpud's ErrNoData (components/query/poller.go, later pkg/poller/poller.go: var ErrNoData = errors.New("no data collected
# yet in the poller")), which a component's state returned until its poller's first collection; internal/session/serve.go
# logged it at error level as the failed state call:
# {"level":"error","ts":"2024-10-26T11:43:35Z","caller":"log/log.go:60","msg":"failed to invoke component state","operation":"GetStates","component":"accelerator-nvidia-error-xid","error":"no data collected yet in the poller",...}
#   (leptonai/gpud#138, whose fix stopped logging it at error; gpud#(odd) the same for events)
_NO_DATA = re.compile(r"\bno data collected yet in the poller\b")
_DETECT = re.compile(r"\{\"level\":\"[a-z]+\",\"ts\":|(?:\t|#011)(?:Unhealthy|Degraded)(?:\t|#011)")
_LOUD = ("warn", "error", "dpanic", "panic", "fatal")
# A component's reason for Unhealthy logged as the line's message (components/accelerator/nvidia/gpu-counts/
# component.go: cr.reason = fmt.Sprintf("nvidia gpu count mismatch (lspci %d, expected %d)" | "(nvml %d, expected %d)"
# then log.Logger.Errorw(cr.reason, ...); later releases "(found %d, expected %d)" with Warnw):
# {"level":"error","ts":"2025-06-20T19:55:30.809+0530","caller":"log/log.go:102","msg":"nvidia gpu count mismatch (lspci 8, expected 10)","count_lspci":8,"count_nvml":8,"expected":10,}
#   (leptonai/gpud#944)
_COMPONENT_REASONS = (
    (re.compile(r"nvidia gpu count mismatch \((?:lspci|nvml|found) \d+, expected \d+\)"), "accelerator-nvidia-gpu-counts"),
)
# a paste shortened by hand leaves a comma before the closing brace, which zap never writes:
# ..."count_nvml":8,"expected":10,}   (leptonai/gpud#944)
_TRAILING_COMMA = re.compile(r",\s*\}$")


def detect(head: str) -> bool:
    """gpud's JSON lines (the text names gpud, or zap's caller is gpud's log wrapper: the journal's
    tag is stripped before readers look), or a relayed row of a component gpud has."""
    if _DETECT.search(head) is None:
        return False
    return "gpud" in head or _GPUD_CALLER in head or any(m["comp"] in CHECKS for m in _ROW.finditer(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    names_gpud = "gpud" in artefact.text
    for n, line in enumerate(artefact.lines, 1):
        if '{"level":"' in line and (m := _ZAP.search(line)) is not None:
            if not (names_gpud or _GPUD_CALLER in line or _GPUD_TAG.search(artefact.raw_line(n))):
                continue  # another program's zap line: not gpud's
            result.lines_used += 1
            if m["level"] not in _LOUD:
                continue
            rec = _load(m["json"])
            if rec is None:
                b.error(n, "gpud log line whose JSON does not parse")
                continue
            error = rec.get("error") if isinstance(rec.get("error"), str) else None
            msg = str(rec.get("msg") or "")
            if (comp := _component_reason(msg)) is not None:
                b.add(GpudUnhealthyState, n, component=comp, state_name=None, health="Unhealthy", reason=msg,
                      error=error, checks=CHECKS[comp], message=f"{comp}: {msg}")
                continue
            b.add(GpudLogError, n, level=m["level"], msg=msg, error=error,
                  process_exited=bool(error and _PROC_GONE.search(error)),
                  no_data_yet=bool(error and _NO_DATA.search(error)))
            continue
        if "#011" not in line and "\t" not in line:
            continue
        for r in _ROW.finditer(line):
            comp = r["comp"]
            if comp not in CHECKS:
                continue
            result.lines_used += 1
            if r["health"] in ("Unhealthy", "Degraded"):
                reason = (r["reason"] or "").strip() or None
                b.add(GpudUnhealthyState, n, component=comp, state_name=None, health=r["health"], reason=reason,
                      error=None, checks=CHECKS[comp], message=f"{comp}: {reason or r['health']}")
    return result


def _load(text: str) -> dict | None:
    """The zap line's JSON object, or None; a hand-shortened paste's comma before the closing brace
    is forgiven (the rest of the object must still parse)."""
    for candidate in (text, _TRAILING_COMMA.sub("}", text)):
        try:
            rec = json.loads(candidate)
        except ValueError:
            continue
        return rec if isinstance(rec, dict) else None
    return None


def _component_reason(msg: str) -> str | None:
    """The gpud component whose Unhealthy reason ``msg`` is, when a component logs its reason as the message."""
    for pattern, comp in _COMPONENT_REASONS:
        if pattern.fullmatch(msg):
            return comp
    return None


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
