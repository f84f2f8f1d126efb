"""vLLM server start-up: how far a start-up log got, where nothing in it failed.

``vllm serve`` (and ``python -m vllm.entrypoints.openai.api_server``) logs its start-up in steps, each one line of
vLLM's own (upstream strings; vllm-project/vllm, v0.5 to v0.1x; forks such as vllm-ascend keep them):

1. ``vLLM API server version %s`` (entrypoints/openai/api_server.py run_server / setup_server), then ``args: %s``;
2. the engine's configuration: ``Initializing an LLM engine (v%s) with config: ...`` (engine/llm_engine.py) or
   ``Initializing a V1 LLM engine (v%s) with config: ...`` (v1/engine/core.py);
3. the weights loaded: ``Loading model weights took %.4f GB`` (worker/model_runner.py) or ``Model loading took %.4f GiB
   and %.6f seconds`` / ``... GiB memory and ...`` (v1/worker/gpu_model_runner.py);
4. the KV cache sized: ``# GPU blocks: %d, # CPU blocks: %d`` (executor, before v0.7 ``# cuda blocks``) or ``GPU KV cache
   size: %s tokens`` (v1/core/kv_cache_utils.py);
5. CUDA graphs captured: ``Graph capturing finished in %.0f secs, took %.2f GiB``;
6. the server starting: ``Starting vLLM API server on http://%s:%d`` (``Starting vLLM API server %d on %s`` with
   several API servers);
7. ready: uvicorn's ``Application startup complete.`` after them.

Sample content (real, vllm-project/vllm#6636: a tp=4 start-up that hung, as its reporter pasted it; the second line cut)::

    INFO 07-22 07:59:44 api_server.py:212] vLLM API server version 0.5.2
    INFO 07-22 07:59:44 api_server.py:213] args: Namespace(model_tag='meta-llama/Meta-Llama-3-70B-Instruct', ...

and a V1 engine core's weights line as a report quoted it, its head elided (vllm-project/vllm#39682)::

    (EngineCore pid=...) INFO ... Model loading took 14.53 GiB memory and 172.4 seconds

An API server's start-up log (its version line or its start logged: an offline ``LLM(...)`` run logs the engine's steps
and never a ready line) that ends before the ready line is a start-up that hung at the step after
the last one logged (NCCL between the ranks, weight loading, the KV cache profile, CUDA graph capture) or a log cut
short: either way it does not show the server working, so it is a capture limit (``cut_short``: the verdict is
inconclusive and names the step), not a finding, as sglang_start and nccl_log treat theirs. A failure in the same log is
its readers' (a traceback, an NCCL error, CUDA out of memory): the verdict is theirs. A later window of a large file
(line_offset > 0) is not asked: the start-up lies in the first.

Facts: none (the start-up lines count as read).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, ParseResult
from stethoscope.facts.parsers.start_up_steps import step_of, stopped_short

KIND = "vllm_start"

#: the start-up steps in their order: (what the step did, in words; its lines' fixed words)
_STEPS = (
    ("the API server's version line", ("vLLM API server version ",)),
    ("the engine's configuration", ("Initializing an LLM engine (v", "Initializing a V1 LLM engine (v")),
    ("the weights' loading", ("Loading model weights took ", "Model loading took ")),
    ("the KV cache's size", ("# GPU blocks: ", "# cuda blocks: ", "GPU KV cache size: ")),
    ("the CUDA graphs' capture", ("Graph capturing finished in ",)),
    ("the API server's start", ("Starting vLLM API server ",)),
)
_NEXT = ("the engine's configuration (the model's config and tokenizer fetched)", "loading the weights (NCCL set up between the "
         "ranks first where tensor-parallel)", "profiling memory for the KV cache", "capturing CUDA graphs",
         "starting the API server", "uvicorn's 'Application startup complete.'")
# each step's words with what follows them in vLLM's format (a number, a version), one pattern for the lot
_STEP = re.compile(
    r"(?P<s0>vLLM API server version )\d|(?P<s1>Initializing (?:an|a V1) LLM engine \(v)\d"
    r"|(?P<s2>Loading model weights took |Model loading took )\d|(?P<s3># (?:GPU|cuda) blocks: |GPU KV cache size: )\d"
    r"|(?P<s4>Graph capturing finished in )\d|(?P<s5>Starting vLLM API server )(?:on |\d|\(\w)")
_READY = "Application startup complete."


def detect(head: str) -> bool:
    return ("vLLM API server version " in head or "LLM engine (v" in head or " took " in head or "blocks: " in head
            or "Graph capturing finished" in head or "Starting vLLM API server" in head or "KV cache size: " in head) \
        and _STEP.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    last: tuple[int, int] | None = None  # (line, step) of the furthest step logged
    server = False  # the API server's own lines seen (its version line, its start): an offline LLM() run logs no ready line
    for n, line in enumerate(artefact.lines, 1):
        if "vLLM" not in line and " took " not in line and "blocks: " not in line and "LLM engine" not in line \
                and "Graph capturing" not in line and "KV cache size" not in line:
            continue
        if (m := _STEP.search(line)) is None:
            continue
        step = step_of(m)
        result.lines_used += 1
        server = server or step in (0, 5)
        if last is None or step >= last[1]:
            last = (n, step)
    if last is None or not server or artefact.line_offset:
        return result
    n, step = last
    if _READY in "\n".join(artefact.lines[n:]):
        return result
    stopped_short(artefact, result, "vLLM", n, _STEPS[step][0], _READY, _NEXT[step])
    return result


#: the line signatures this reader owns
SIGNATURES = (r"vLLM API server version \d", r"Initializing (?:an|a V1) LLM engine \(v\d", r"(?:Loading model weights|Model loading) took \d",
              r"# (?:GPU|cuda) blocks: \d", r"GPU KV cache size: \d", r"Graph capturing finished in \d", r"Starting vLLM API server (?:on |\d|\(\w)")
