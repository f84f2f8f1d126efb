"""vLLM's offline generate progress bar: whether the log shows any request of the batch finishing.

Sample content (real, vllm-project/vllm#9920, vLLM 0.5.2 with tensor_parallel_size=2, the run that
stalled; fixtures/artefacts/vllm_generate_progress/)::

    HP-Z8-Fury-G5-Workstation-Desktop-PC:23458:23665 [0] NCCL INFO comm 0x23ba7ea0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 47000 commId 0x47dc53f08cbcda96 - Init COMPLETE
    INFO 11-01 23:16:33 distributed_gpu_executor.py:56] # GPU blocks: 185231, # CPU blocks: 18724
    Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]

``LLM.generate`` (vllm/entrypoints/llm.py ``_run_engine``, every release since 0.1) draws a tqdm bar
``Processed prompts: <pct>%|<bar>| <done>/<total> [<elapsed><<eta>, <rate>, est. speed ...]`` and
advances it once per finished request; a captured log keeps each redraw (on its own line, or joined
by carriage returns). When the last state of the bar in the file is ``0/N`` (N > 0), not one request
of the batch finished in the capture: the engine's first step hung (a collective on a broken GPU
peer path, a stalled worker) or the log was cut short. Either way the log does not show the engine
working, so it is a capture limit (``cut_short``: the verdict cannot be healthy), not a finding, as
nccl_log treats NCCL lines without 'Init COMPLETE' and sglang_start a start-up without its ready
line. A bar that moved past 0 is read, with no limit. A later window of a large file
(line_offset > 0) is not asked: its bars belong to the windows that hold them.

Facts: none (the bar lines count as read).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "vllm_generate_progress"

# Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]
# Processed prompts: 100%|██████████| 4/4 [00:00<00:00,  8.46it/s, est. speed input: 46.55 toks/s, output: 135.41 toks/s]
_BAR = re.compile(r"Processed prompts: +(?P<pct>\d{1,3})%\|[^|\n\r]*\| *(?P<done>\d+)/(?P<total>\d+) \[")
_LITERAL = "Processed prompts:"


def detect(head: str) -> bool:
    return _LITERAL in head and _BAR.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    if artefact.line_offset or _LITERAL not in artefact.text:
        return result
    last = None
    for m in _BAR.finditer(artefact.text):
        last = m
    if last is None:
        return result
    result.lines_used += len({artefact.line_of(m.start()) for m in _BAR.finditer(artefact.text)})
    if int(last["done"]) == 0 and int(last["total"]) > 0:
        FactBuilder(artefact, result).limit(
            artefact.line_of(last.start()), "cut_short",
            f"vLLM's generate progress bar ('Processed prompts:') ends at 0/{last['total']}: no request of the batch "
            "finished in the capture (the engine's first step hung: a collective on a broken GPU peer path, a "
            "stalled worker) or the log was cut short; the engine was not seen working")
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Processed prompts: +\d{1,3}%\|",)
