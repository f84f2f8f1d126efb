"""The manifest ``steth collect`` writes beside its outputs (``<node>/steth-collect.json``).

Made by: ``steth collect --out DIR`` (facts/collect.py). Sample content::

    {
      "steth_collect": 1,
      "node": "vm",
      "commands": [
        {"name": "ibstat", "argv": ["ibstat"], "file": null, "status": "missing", ...

Facts: ``collected_command`` per command (name, status ok/failed/missing/timeout, return
code, output file, note), so that a report can say which evidence was never gathered and
why. Empty input: nothing. A manifest that is not valid JSON is one ParseError.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.kinds.steth import (  # noqa: F401 - the fact classes live in facts/kinds
    CollectedCommand,
)
from stethoscope.facts.parsers.base import JSON_SHAPE_ERRORS, Artefact, FactBuilder, ParseResult

KIND = "steth_collect"

# {"steth_collect": 1, "node": "vm", ...
_DETECT = re.compile(r'^\s*\{\s*"steth_collect"\s*:\s*\d+')
#     {"name": "ibstat", ...   (one command object per "name" key, in order)
_NAME = re.compile(r'"name"\s*:\s*"(?P<name>[a-z0-9_]+)"')


def detect(head: str) -> bool:
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    if not artefact.text.strip():
        return result
    try:
        doc = json.loads(artefact.text)
        cmds = doc["commands"]
        assert isinstance(cmds, list)
    except (ValueError, KeyError, TypeError, AssertionError, RecursionError) as exc:  # RecursionError: nested thousands deep
        b.error(1, f"steth-collect manifest unreadable: {exc}")
        return result
    # evidence: the line of each command's "name" key, in order
    lines = [artefact.line_of(m.start()) for m in _NAME.finditer(artefact.text)]
    for i, cmd in enumerate(cmds):
        line = lines[i] if i < len(lines) else 1
        try:
            b.add(CollectedCommand, line, node=artefact.node_for(doc.get("node")), name=str(cmd["name"]), status=cmd["status"],
                  returncode=cmd.get("returncode"), file=cmd.get("file"), note=cmd.get("note") or None)
        except JSON_SHAPE_ERRORS as exc:
            b.error(line, f"steth-collect manifest: bad command entry: {str(exc).splitlines()[0]}")
    result.lines_used = len(artefact.lines)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
