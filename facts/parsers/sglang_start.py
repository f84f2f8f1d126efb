"""SGLang server start-up across nodes: whether the log reaches SGLang's ready line.

Sample content (real, sgl-project/sglang#4978, two H20 nodes, tp 16; fixtures/artefacts/sglang_start/)::

    node01:322:322 [3] NCCL INFO ncclCommInitRank comm 0x55f5be32f460 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 5a000 commId 0x4e2671c9674e940d - Init COMPLETE
    [2025-04-01 09:58:02 TP0] Custom allreduce is disabled because this process group spans across nodes.
    [2025-04-01 09:58:02 TP1] Custom allreduce is disabled because this process group spans across nodes.

SGLang's scheduler processes log ``[%Y-%m-%d %H:%M:%S TP<n>] <message>`` (a DP, PP or EP rank
before the TP one where set); every TP rank of a group that spans nodes logs the custom all-reduce
line while its communicators are set up. Once the warm-up request went through, the HTTP server
logs ``The server is fired up and ready to roll!`` (sgl-project/sglang
python/sglang/srt/entrypoints/http_server.py, ``_wait_and_warmup``), or ``Initialization failed.
warmup error: ...`` and exits.

A log holding the multi-node start-up line and no ready line after it is a start-up that hung
(NCCL or Gloo between the nodes, weight loading, CUDA graph capture) or a log cut short: either way
it does not show the server working, so it is a capture limit (the verdict cannot be healthy), not
a finding, as nccl_log treats a log without NCCL's 'Init COMPLETE'. A later window of a large file
(line_offset > 0) is not asked: the start-up lies in the first.

facts/lines.py takes SGLang's stamp off every line before readers see it (vLLM's custom all-reduce
logs the same words under its own logger's head), so the stamp is looked for in the line as written.

Facts: none (the start-up lines count as read).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "sglang_start"

# [2025-04-01 09:58:02 TP0] Custom allreduce is disabled because this process group spans across nodes.
#   (the line as written: SGLang's stamp, with the process's ranks, facts/lines.py _SGLANG_RANKS)
_STAMP = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z][A-Z_]{1,6}\d{1,5})+\] ")
# the same line with the stamp taken off (facts/lines.py), as readers see it
_MESSAGE = "Custom allreduce is disabled because this process group spans across nodes."
_SPANS = re.compile(r"(?:" + _STAMP.pattern + r"|^)" + re.escape(_MESSAGE), re.M)
# [2026-03-11 13:53:33] The server is fired up and ready to roll!
_READY = "The server is fired up and ready to roll!"


def detect(head: str) -> bool:
    return "spans across nodes" in head and _SPANS.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    last = None
    for n, m in iter_matches(_SPANS, artefact):
        raw = artefact.raw_line(n)
        if _STAMP.search(raw, 0, max(0, raw.find(_MESSAGE)) + 1) is None:
            continue  # vLLM's line of the same words (its logger's head, or a Ray worker's tag): not SGLang's start-up
        result.lines_used += 1
        last = (n, m.end())
    if last is None or artefact.line_offset:
        return result
    n, end = last
    if _READY not in artefact.text[end:]:
        fb.limit(n, "cut_short", "SGLang's multi-node start-up lines ('Custom allreduce is disabled because this process "
                 "group spans across nodes.') end without 'The server is fired up and ready to roll!': a start-up that hung "
                 "(NCCL or Gloo between the nodes, weight loading, CUDA graph capture), or a log cut short; the server was not seen ready")
    return result


#: line signatures (facts/classify.py): the line as written, and as readers see it without SGLang's stamp
SIGNATURES = (r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z][A-Z_]{1,6}\d+)+\] Custom allreduce is disabled because this process group spans across nodes\.",
              r"(?m)^Custom allreduce is disabled because this process group spans across nodes\.")
