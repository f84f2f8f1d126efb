"""An RL job's rollout engine that failed to take the trainer's weights: SGLang's own report.

RL post-training stacks (slime, verl, AReaL, ROLL, NeMo-RL) keep an SGLang engine for rollouts and push the trainer's
weights into it after each step: over a process group the trainer and the engine's TP workers join
(``init_weights_update_group``), then per parameter or per bucket a broadcast the engine loads
(``update_weights_from_distributed``). Where either fails, SGLang's model runner logs one line and answers the
request with it (python/sglang/srt/model_executor/model_runner.py, later its weight updater; the same words in
every release since the API came, 0.4.0)::

    f"Failed to initialize custom process group: {e}."
    f"Failed to update parameter online: {e}. The full weights of the ModelRunner are partially updated. Please discard the whole weights."

Sample line (real, sgl-project/sglang#26032, slime's run with an NPU MoE model; the paste cut it)::

    (SGLangEngine pid=1493437) [2026-05-21 16:07:41 DP6 TP6] Failed to update parameter online: start out of range (expected to be in ra

The error after the colon says why: a name, shape or dtype the engine's loader refused (the trainer's conversion and
the engine's model disagree, sgl-project/sglang#26032's "start out of range"), or the broadcast itself failing (an
NCCL error, which the NCCL readers read where its own lines are in the bundle). The line quoted inside a traceback's
code (``error_msg = (``, ``f"Failed to update parameter online: {e}. "``) is no message: ``{e}`` is no error.

Facts: ``rollout_weight_update_failed`` per line: ``step`` (update, group_init), ``error`` (the text after the
colon, its closing advice left off), ``tp_rank`` where the scheduler's prefix names it. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import RolloutWeightUpdateFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "rollout_weight_update"

# [2026-05-21 16:07:41 DP6 TP6] Failed to update parameter online: start out of range (expected to be in ra   (sgl-project/sglang#26032)
# Failed to initialize custom process group: <error>.       (CONSTRUCTED from model_runner.py init_weights_update_group)
_FAILED = re.compile(r"\bFailed to (?P<what>update parameter online|initialize custom process group): (?P<err>[^\n]{1,400})")
# the closing advice of the update's message
_ADVICE = re.compile(r"\.? ?The full weights of the ModelRunner are partially updated\..*$")
# SGLang's scheduler prefix: "[2026-05-21 16:07:41 DP6 TP6] " (TP<rank>, DP/PP/EP before it where used)
_TP = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^\]\n]{0,40}? TP(?P<tp>\d{1,4})(?: [A-Z]{2}\d{1,4})*\]")
_MARKERS = ("Failed to update parameter online: ", "Failed to initialize custom process group: ")


def detect(head: str) -> bool:
    return any(_message(line) is not None for line in head.splitlines() if any(k in line for k in _MARKERS))


def _message(line: str) -> re.Match[str] | None:
    m = _FAILED.search(line)
    if m is None or m["err"].lstrip().startswith("{e}"):
        return None  # the f-string a traceback quotes
    return m


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_MARKERS, artefact):
        m = _message(line)
        if m is None:
            continue
        err = _ADVICE.sub("", m["err"]).strip().rstrip(".").strip()
        tp = _TP.search(artefact.raw_line(n)) or _TP.search(line)
        fb.add(RolloutWeightUpdateFailed, n, step="update" if m["what"].startswith("update") else "group_init",
               error=err[:300], tp_rank=int(tp["tp"]) if tp else None)
        result.lines_used += 1
    return result


#: the line signatures this reader owns (facts/classify.py: one pass over every reader's)
SIGNATURES = (r"\bFailed to (?:update parameter online|initialize custom process group): [^{\s]",)
