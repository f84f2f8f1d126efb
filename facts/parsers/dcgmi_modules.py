"""``dcgmi modules -l``: the DCGM host engine's modules and whether each is loaded.

Sample content (NVIDIA/DCGM#132, a GeForce RTX 4090; the states are dcgmi/Module.cpp's
``Module::statusToStr``: Not loaded, Denylisted, Failed to load, Loaded, Unloaded, Paused, and
``Blacklisted`` before DCGM 2.2)::

    | List Modules                                                                      |
    | Status: Success                                                                   |
    | Module ID | Name               | State                                            |
    | 0         | Core               | Loaded                                           |
    | 2         | VGPU               | Not loaded                                       |
    | 8         | Profiling          | Failed to load

Facts emitted: ``dcgm_module_state`` per module row (``module_id``, ``module`` as printed,
``state``: loaded, not_loaded, failed, denylisted, unloaded, paused). Modules load on first use,
so ``Not loaded`` is the ordinary state of an idle one. The header and frame lines count as read.
Empty input, or a table without rows: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import DcgmModuleState  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "dcgmi_modules"

# | 0         | Core               | Loaded                                           |
# | 8         | Profiling          | Failed to load                                   |      (the last '|' may be cut in a paste)
_ROW = re.compile(r"^\|\s*(?P<id>\d+)\s*\|\s*(?P<name>[A-Za-z]+)\s*\|\s*"
                  r"(?P<state>Loaded|Not loaded|Failed to load|Denylisted|Blacklisted|Unloaded|Paused)\s*\|?\s*$")
# | List Modules                                                                      |
# | Module ID | Name               | State                                            |
_HEADER = re.compile(r"^\| (?:List Modules|Module ID \| Name +\| State|Status: \w+)\s*\|\s*$")
_DETECT = re.compile(r"^\| List Modules\s+\|$|^\| Module ID \| Name +\| State +\|$", re.M)
_STATES = {"Loaded": "loaded", "Not loaded": "not_loaded", "Failed to load": "failed", "Denylisted": "denylisted",
           "Blacklisted": "denylisted", "Unloaded": "unloaded", "Paused": "paused"}


def detect(head: str) -> bool:
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if not line.startswith("|"):
            continue
        if (m := _ROW.match(line)) is not None:
            b.add(DcgmModuleState, n, module_id=int(m["id"]), module=m["name"], state=_STATES[m["state"]])
            result.lines_used += 1
        elif _HEADER.match(line):
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
