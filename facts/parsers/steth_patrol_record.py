"""The node record ``steth patrol run`` writes beside its outputs (``<node>/steth-patrol.json``).

Made by: ``steth patrol run`` (engine/patrol/run.py), so that ``steth diagnose`` over a patrol's
folder says which checks ran and which were skipped, and why. Sample content (the device
machine's run, fixtures/observations/device-h200-patrol/runs/20261201T124952Z/vm)::

    {
      "node": "vm",
      "started_at": "2026-12-01T12:49:52+00:00",
      "seconds": 33.136,
      "suite_version": 1,
      ...
      "steps": [
        {
          "step": "nvidia_smi_q_xml",
          "status": "ok",

Facts: ``patrol_step`` per step (status ok/failed/timeout/skipped, return code, seconds, output
file, note: the skip reason). The verdict, metrics and findings in the record are not facts
again: they came from the other files of the folder, which are read themselves. Empty input:
nothing. A record that is not valid JSON, or has no list of steps, is one ParseError.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.kinds.steth import (  # noqa: F401 - the fact classes live in facts/kinds
    PatrolStepRecord,
)
from stethoscope.facts.parsers.base import JSON_SHAPE_ERRORS, Artefact, FactBuilder, ParseResult

KIND = "steth_patrol"

#   "suite_version": 1,
_DETECT = re.compile(r'^\s*"suite_version": \d+,\s*$', re.M)
#       "step": "nvidia_smi_q_xml",
_STEP = re.compile(r'"step"\s*:\s*"(?P<name>[a-z0-9_]+)"')


def detect(head: str) -> bool:
    return head.lstrip().startswith("{") and _DETECT.search(head) is not None and '"steps": [' in head


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    if not artefact.text.strip():
        return result
    try:
        doc = json.loads(artefact.text)
        steps = doc["steps"]
        assert isinstance(steps, list)
    except (ValueError, KeyError, TypeError, AssertionError, RecursionError) as exc:  # RecursionError: nested thousands deep
        b.error(1, f"steth patrol record unreadable: {exc}")
        return result
    # evidence: the line of each step's "step" key; the steps come before the metrics
    lines = [artefact.line_of(m.start()) for m in _STEP.finditer(artefact.text)]
    for i, s in enumerate(steps):
        line = lines[i] if i < len(lines) else 1
        try:
            b.add(PatrolStepRecord, line, node=artefact.node_for(doc.get("node")), step=str(s["step"]), status=s["status"],
                  returncode=s.get("returncode"), seconds=float(s.get("seconds") or 0), file=s.get("file"),
                  note=s.get("note") or None)
        except JSON_SHAPE_ERRORS as exc:
            b.error(line, f"steth patrol record: bad step entry: {str(exc).splitlines()[0]}")
    result.lines_used = len(artefact.lines)
    return result


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
