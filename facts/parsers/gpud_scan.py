"""``gpud scan`` (leptonai/gpud): the verdict line of each component check, as the CLI prints it.

For every component ``gpud scan`` prints its log line, then ``✔ <summary>`` when the check found
the component healthy or ``✘ <summary>`` when not, then the component's own state text.
Sample content (leptonai/gpud#906, an A10 host without NVSwitch; the summaries and states of
components/accelerator/nvidia/fabric-manager/component.go)::

    {"level":"info","ts":"2025-06-05T18:00:13Z","caller":"fabric-manager/component.go:163","msg":"checking nvidia fabric manager"}
    ✔ NVSwitch not detected, skipping fabric manager check
    fabric manager is not active

Facts: ``gpud_check`` per ``✔`` line (the component, from the ``caller`` of the log line before
it when there is one, and gpud's summary; ``skipped`` where the summary says gpud skipped the check,
as the one above: a pass of nothing); ``gpud_check_failed`` per ``✘`` line (gpud judged
something unhealthy: an error until a rule says what it means); ``fabric_manager_status``
(``unit_active`` / ``unit_inactive``, detail ``gpud``) for the fabric-manager component's
state line; ``gpud_check_failed`` too per warn- or error-level log line of a component (gpud's
zap logger: the component reports what it judged unhealthy there, and may still print ``✔`` after
it, e.g. "fabric state is not healthy" then "✔ NVIDIA-GB200 checked fabric state",
leptonai/gpud#1108). gpud's ``Xid``/``SXid`` messages are :mod:`gpud_log`'s; its info and debug
log lines are context, not read. A file with no verdict line yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import (  # noqa: F401 - the fact classes live in facts/kinds
    GpudCheck, GpudCheckFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.fabric_manager_log import FabricManagerStatus
from stethoscope.facts.parsers.gpud_states import SKIPPED  # the reasons gpud gives a check that did not run

KIND = "gpud_scan"

# {"level":"info","ts":"2025-06-05T18:00:13Z","caller":"fabric-manager/component.go:163","msg":"checking nvidia fabric manager"}
_CALLER = re.compile(r"\"caller\":\"(?:[\w.-]+/)*?(?P<component>[\w.-]+)/component\.go:\d+\"")
# a component's log line at warn level or worse (zap's levels: warn, error, dpanic, panic, fatal):
# {"level":"warn","ts":"2025-10-16T10:34:29.644Z","caller":"fabric-manager/component.go:378","msg":"fabric state is not healthy","reason":"GPU GPU-1182579c-5a69-8e8e-cb7a-e6e0b65d47c7: state=Not Supported; ..."}
_PROBLEM_LEVEL = re.compile(r"^\s*\{\"level\":\"(?:warn|error|dpanic|panic|fatal)\"")
_MSG = re.compile(r"\"msg\":\"(?P<msg>(?:[^\"\\]|\\.)*)\"")
_REASON = re.compile(r"\"reason\":\"(?P<reason>(?:[^\"\\]|\\.)*)\"")
# ✔ NVSwitch not detected, skipping fabric manager check      ✘ gpud.service is not active
_VERDICT = re.compile(r"^\s*(?P<mark>[✔✘]) (?P<summary>\S(?:.*\S)?)\s*$", re.M)
# fabric manager is not active     (checkResult.String() of the fabric-manager component)
_FM_STATE = re.compile(r"^\s*fabric manager is (?P<not>not )?active\s*$")
_GPUD_LINE = re.compile(r"\"caller\":\"[\w./-]*component\.go:\d+\"|^\s*fabric manager is (?:not )?active\s*$"
                        r"|skipping fabric manager check", re.M)


def detect(head: str) -> bool:
    if "✔" not in head and "✘" not in head:
        return False
    return _GPUD_LINE.search(head) is not None and _VERDICT.search(head.replace("\r", "")) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    component = None
    for n, line in enumerate(artefact.lines, 1):
        if (c := _CALLER.search(line)) is not None:
            component = c["component"]
            if _PROBLEM_LEVEL.match(line) and (m := _MSG.search(line)) is not None:
                reason = _REASON.search(line)
                summary = f"{m['msg']}: {reason['reason']}" if reason else m["msg"]
                b.add(GpudCheckFailed, n, component=component, summary=summary)
                result.lines_used += 1
        elif (v := _VERDICT.match(line)) is not None:
            if v["mark"] == "✔":
                b.add(GpudCheck, n, component=component, summary=v["summary"], skipped=SKIPPED.search(v["summary"]) is not None)
            else:
                b.add(GpudCheckFailed, n, component=component, summary=v["summary"])
            result.lines_used += 1
        elif (s := _FM_STATE.match(line)) is not None:
            b.add(FabricManagerStatus, n, status="unit_inactive" if s["not"] else "unit_active", detail="gpud")
            result.lines_used += 1
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_GPUD_LINE,)
