"""``dcgmi health -c`` (DCGM's health watches checked): its report table, and ``-j`` JSON.

dcgmi/Health.cpp writes the report through DcgmiOutputTree (two columns, a ``-> `` per level,
each incident message wrapped at 54 characters in the rows below its system) or DcgmiOutputJson
(``{"header": ["Health Monitor Report"], "body": {"Overall Health": {"value": ...}, "GPU":
{"children": {"0": {"value": ..., "children": {"Errors": {"children": {"<System> system":
{"value": "Warning", "overflow": [<message parts>]}}}}}}}}}``); several incidents of one system
are one message joined by ", ". Sample content (real: DCGM 4.6.1 on an L4, a public command
reference in the code index, file id 61225361155)::

    | Health Monitor Report                                                                |
    +===========================+==========================================================+
    | Overall Health            | Warning                                                  |
    | GPU                       |                                                          |
    | -> 0                      | Warning                                                  |
    |    -> Errors              |                                                          |
    |       -> Power system     | Warning                                                  |
    |                           | Detected clocks event due to power violation in GPU 0.   |
    |                           | Monitor the power conditions. This GPU can still         |
    |                           | perform workload.                                        |

Facts: ``dcgm_health_incident`` per entity and health system that is not Healthy (the same kind
the host engine's log gives, dcgm_log: result ``WARNING``/``FAILURE``, the system as DCGM names
it, the message, and the component, cause and actions of its DCGM_FR_* message or else of its
system, from ``knowledge/dcgm.yaml``); ``dcgm_health_check`` for the report's Overall Health. A
report whose Overall Health is not Healthy but whose incidents are not shown, an entity whose
system knowledge does not name, and dcgmi's ``Error: Unable to check health watches`` /
``Health watches not enabled`` are parse problems (never a clean check). Empty input: nothing.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.kinds.dcgm import DcgmHealthCheck  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, json_shape
from stethoscope.facts.parsers.dcgm_facts import DcgmHealthIncident, health_meaning, health_severity

KIND = "dcgmi_health"

# | Overall Health            | Warning                                                  |
# |       -> Power system     | Warning                                                  |
# |                           | Detected clocks event due to power violation in GPU 0.   |
# a cell's text neither starts nor ends with a space and an empty cell is spaces only, so a run of
# spaces has one reading (an optional cell between two space runs split it every way: quadratic)
_TEXT = r"[^|\s](?:[^|]*[^|\s])?"
_ROW = re.compile(rf"^\s*\|(?P<indent> *)(?:(?P<arrow>-> )?(?P<label>{_TEXT}) *)?\| *(?:(?P<value>{_TEXT}) *)?\|\s*$")
_HEADER = re.compile(r"^\s*\|\s*Health Monitor Report\s*\|\s*$")
# Error: Unable to check health watches. Return: <error>      Error: Health watches not enabled. Please enable watches.
_ERROR = re.compile(r"^\s*Error: (?P<msg>(?:Unable to check health watches|Health watches not enabled)[^\n]{0,200})", re.M)
_DETECT = re.compile(r"^\s*\|\s*Health Monitor Report\s*\||\"Health Monitor Report\"", re.M)
_RESULT = {"Warning": "WARNING", "Failure": "FAILURE"}
_GPU_GROUP = "GPU"


def detect(head: str) -> bool:
    # dcgmi health --check's report, or its refusal alone (NVIDIA/DCGM#176: watches never set)
    if "Health watches" in head and _ERROR.search(head) is not None:
        return True
    return "Health Monitor Report" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if (e := _ERROR.match(line)) is not None:
            fb.error(n, f"dcgmi health checked nothing: {e['msg'].strip()}")
    if artefact.text.lstrip().startswith("{"):
        with json_shape(fb, "dcgmi health -c -j"):
            _json(artefact, fb, result)
        return result
    start = next((n for n, line in enumerate(artefact.lines, 1) if _HEADER.match(line)), None)
    if start is not None:
        _table(artefact, fb, result, start)
    return result


def _table(artefact: Artefact, fb: FactBuilder, result: ParseResult, start: int) -> None:
    overall = overall_line = None
    group = entity = None
    incidents: list[dict] = []  # system, value, line, parts
    cur: dict | None = None
    result.lines_used += 1  # the header
    for n in range(start + 1, len(artefact.lines) + 1):
        line = artefact.lines[n - 1]
        m = _ROW.match(line)
        if m is None:
            if line.strip() and not line.lstrip().startswith("+"):
                break  # the table ended
            continue
        result.lines_used += 1
        label, value = m["label"] or "", m["value"] or ""
        level = len(m["indent"]) // 3 + (1 if m["arrow"] else 0)
        if not label and value and cur is not None:
            cur["parts"].append(value)  # a wrapped part of the message above
        elif label == "Overall Health" and not m["arrow"]:
            overall, overall_line = value, n
        elif level == 0 and label:
            group, entity, cur = label, None, None
        elif level == 1:
            entity, cur = label, None
        elif level == 3 and group is not None:
            cur = {"group": group, "entity": entity, "system": label, "value": value, "line": n, "parts": []}
            incidents.append(cur)
        else:
            cur = None  # "-> Errors"
    _emit(fb, overall, overall_line or start, incidents)


def _json(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    try:
        doc = json.loads(artefact.text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested thousands deep
        fb.error(getattr(exc, "lineno", 1), f"dcgmi health -c -j: not JSON ({getattr(exc, 'msg', type(exc).__name__)})")
        return
    body = doc["body"]
    result.lines_used += 1
    incidents = []
    for group, node in body.items():
        if group == "Overall Health":
            continue
        for entity, ent in (node.get("children") or {}).items():
            for system, sysnode in ((ent.get("children") or {}).get("Errors", {}).get("children") or {}).items():
                incidents.append({"group": group, "entity": entity, "system": system, "value": sysnode.get("value", ""),
                                  "line": 1, "parts": _parts(sysnode.get("overflow"))})
    _emit(fb, (body.get("Overall Health") or {}).get("value"), 1, incidents)


def _parts(overflow: object) -> list[str]:
    """A system's message: DcgmiOutputBoxer writes its pieces as a list (``"overflow": [...]``); a
    wrapper that joined them into one string is read as one piece, not as its characters."""
    if isinstance(overflow, str):
        return [overflow]
    return [str(p) for p in overflow or []]


def _emit(fb: FactBuilder, overall: str | None, overall_line: int, incidents: list[dict]) -> None:
    shown = 0
    for inc in incidents:
        result = _RESULT.get(inc["value"])
        if result is None:
            continue  # Healthy (not printed by dcgmi, read if a wrapper does)
        system = inc["system"]
        msg = " ".join(inc["parts"]).strip()
        reason, component, cause, actions = health_meaning(system, msg)
        if component is None:
            fb.error(inc["line"], f"DCGM health system {system!r} is not in knowledge/dcgm.yaml health_systems")
            continue
        ent = inc["entity"]
        gpu = int(ent) if inc["group"] == _GPU_GROUP and ent is not None and ent.isdigit() else None
        name = f"GPU {gpu}" if gpu is not None else (f"{inc['group']} {ent}" if ent is not None else "the GPU DCGM watched")
        fb.add(DcgmHealthIncident, inc["line"], result=result, system=system.removesuffix(" system"), message=msg[:400],
               reason=reason, gpu=gpu, gpu_name=name, component=component, cause=cause,
               severity=health_severity(result), actions=actions)
        shown += 1
    if overall is None:
        return
    fb.add(DcgmHealthCheck, overall_line, overall=overall, incidents=shown)
    if overall != "Healthy" and shown == 0:
        fb.error(overall_line, f"dcgmi health reports Overall Health {overall} but shows no incident: what failed is not in the file")


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _ERROR)
