"""Ray's autoscaler reporting a resource request with GPUs that it cannot place. Ray prints these
lines among a job's own output (the driver's, forwarded as ``(autoscaler +2m17s) ...`` or
``(scheduler +2m13s) ...``), so they are looked for anywhere in a file.

Each update the autoscaler (python/ray/autoscaler/_private/autoscaler.py
``_report_pending_infeasible``) sorts the cluster's unmet demands: a request some node type could
hold while every node is taken by actors is *pending*, one that no node type can hold is
*infeasible*, and it reports each once every 30 s::

    "Warning: The following resource request cannot be scheduled right now: {}. This is likely due to all
     cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster."
    "Error: No available node types can fulfill resource request {}. Add suitable node types to this
     cluster to resolve this issue."

Sample content (real lines; the sources beside the patterns)::

    (scheduler +2m13s) Warning: The following resource request cannot be scheduled right now: {'GPU': 0.125, 'CPU': 0.5}. This is likely due to all cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster.

Facts: ``ray_gpu_request_unplaced`` per such line whose request asks for GPUs: ``state``
(pending / infeasible), ``request`` (as printed) and ``gpu`` (its 'GPU' amount). A request
without GPUs (CPUs, a custom resource) makes no fact: not a GPU's. Empty input, or no such line:
nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import RayGpuRequestUnplaced  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "ray_gpu_request"

# (scheduler +2m13s) Warning: The following resource request cannot be scheduled right now: {'GPU': 0.125, 'CPU': 0.5}. This is likely due to all cluster resources being claimed by actors. ...   (YeWR/EfficientZero#44)
# (autoscaler +2m17s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0, 'GPU': 1.0}. This is likely due to ...   (ray-project/llm-applications#58)
# Warning: The following resource request cannot be scheduled right now: {'GPU': 1.0, 'CPU': 1.0}. This is likely due to ...   (OpenRLHF/OpenRLHF#516, the line alone)
_PENDING = re.compile(r"\bThe following resource request cannot be scheduled right now: (?P<req>\{[^{}\n]{0,2000}\})")
# "Error: No available node types can fulfill resource request {}. Add suitable node types ..." (the same function;
#   the form only here: no even-numbered thread's paste of it with a GPU request was found)
_INFEASIBLE = re.compile(r"\bNo available node types can fulfill resource request (?P<req>\{[^{}\n]{0,2000}\})")
_GPU = re.compile(r"'GPU': ?(?P<n>\d{1,6}(?:\.\d{1,9})?)")


def detect(head: str) -> bool:
    return _PENDING.search(head) is not None or _INFEASIBLE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for state, pattern in (("pending", _PENDING), ("infeasible", _INFEASIBLE)):
        for n, m in iter_matches(pattern, artefact):
            gpu = _GPU.search(m["req"])
            if gpu is None or float(gpu["n"]) <= 0:  # CPUs or a custom resource only: not a GPU's
                continue
            result.lines_used += 1
            fb.add(RayGpuRequestUnplaced, n, state=state, request=m["req"], gpu=float(gpu["n"]))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"The following resource request cannot be scheduled right now: \{",
              r"No available node types can fulfill resource request \{")
