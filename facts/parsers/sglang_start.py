"""SGLang server start-up: how far a start-up log got, where nothing in it failed.

``python -m sglang.launch_server`` (and ``sglang.Engine``) logs its start-up in steps, each one line of SGLang's
own (upstream strings, sgl-project/sglang python/sglang/srt/, v0.4 to v0.5.x; forks such as Ascend/sglang keep them),
under its stamp ``[%Y-%m-%d %H:%M:%S{ DP<n> TP<n> EP<n>...}] `` (utils configure_logger), which facts/lines.py takes
off before readers see the lines:

0. ``server_args=ServerArgs(...)`` (entrypoints/engine.py _launch_subprocesses: ``logger.info(f"{server_args=}")``);
1. torch distributed begun: ``Init torch distributed begin.`` (model_executor/model_runner.py init_torch_distributed),
   and across nodes ``Custom allreduce is disabled because this process group spans across nodes.``
   (distributed/device_communicators/custom_all_reduce.py, every TP rank of a group that spans nodes);
2. ``Init torch distributed ends. mem usage=%.2f GB`` (later ``ends. elapsed=%.2f s, mem usage=...``);
3. ``Load weight begin. avail mem=%.2f GB``;
4. ``Load weight end. type=%s, dtype=%s, avail mem=...`` (later ``end. elapsed=%.2f s, type=...``);
5. the KV cache: ``KV Cache is allocated. #tokens: %d, K size: ...`` (mem_cache/memory_pool.py; older ``KV Cache is
   allocated. K size: ...``, later ``allocated. dtype: ...``) and ``Memory pool end. avail mem=%.2f GB``;
6. ``Capture cuda graph begin. This can take up to several minutes.`` (NPU builds: ``Capture npu graph begin.``);
7. ``Capture cuda graph end. Time elapsed: %.2f s ...``;
8. the scheduler's summary: ``max_total_num_tokens=%d, chunked_prefill_size=%d, ...`` (managers/scheduler.py; before
   v0.4.2 ``max_total_num_tokens=%d, max_prefill_tokens=%d, ...``);
9. uvicorn's ``Uvicorn running on http://...`` once the HTTP server listens;

then, the warm-up request through, ``The server is fired up and ready to roll!`` (entrypoints/http_server.py
_wait_and_warmup) or ``Initialization failed. warmup error: ...``.

Sample content (real, sgl-project/sglang#4978, two H20 nodes, tp 16; fixtures/artefacts/sglang_start/)::

    node01:322:322 [3] NCCL INFO ncclCommInitRank comm 0x55f5be32f460 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 5a000 commId 0x4e2671c9674e940d - Init COMPLETE
    [2025-04-01 09:58:02 TP0] Custom allreduce is disabled because this process group spans across nodes.
    [2025-04-01 09:58:02 TP1] Custom allreduce is disabled because this process group spans across nodes.

and a start-up that stopped in the CUDA graphs' capture as a pull request's test log was stored (sgl-project/sglang#11716)::

    [2025-10-16 09:06:22 TP6] Memory pool end. avail mem=11.87 GB
    [2025-10-16 09:06:22 TP7] Capture cuda graph begin. This can take up to several minutes. avail mem=12.01 GB

A start-up log that ends before the ready line is a start-up that hung at the step after the last one logged, or a log
cut short: either way it does not show the server working, so it is a capture limit (``cut_short``: the verdict cannot
be healthy, and the limit names the step), not a finding, as vllm_start and nccl_log treat theirs. The server serving
after it (the scheduler's ``Prefill batch.`` / ``Decode batch.`` lines, an offline Engine's too) shows it started;
so does a worker node's log (``node_rank`` > 0 in its server_args: it runs no HTTP server and never logs the ready
line) that reached the scheduler's summary. A failure in the same log is its readers'. A later window of a large
file (line_offset > 0) is not asked: the start-up lies in the first.

A capture that raised is SGLang's own report of a failed step: every release's CUDA graph runner
(model_executor/cuda_graph_runner.py, its EAGLE and piecewise copies) wraps the capture's ``RuntimeError`` as
``raise Exception(f"Capture cuda graph failed: {e}\\n" ...)`` followed by its "Possible solutions:" list (a smaller
--mem-fraction-static or --cuda-graph-max-bs, no --enable-torch-compile, --disable-cuda-graph; later
``f"Capture cuda graph failed: {e}\\n{CUDA_GRAPH_CAPTURE_FAILED_MSG}"``), and the scheduler dies of it. Samples (real,
THUDM/slime#1998, SGLang rollout servers whose custom all-reduce v2 failed in capture; the error under it was pasted
apart; and the form with its error, CONSTRUCTED from cuda_graph_runner.py)::

    Exception: Capture cuda graph failed
    Exception: Capture cuda graph failed: CUDA error: out of memory

Facts: ``engine_graph_capture_failed`` once a file (the first such line; ``error`` the wrapped error where the line
carries it). The start-up lines count as read.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import EngineGraphCaptureFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.start_up_steps import step_of, stopped_short

KIND = "sglang_start"

# [2025-04-01 09:58:02 TP0] Custom allreduce is disabled because this process group spans across nodes.
#   (the line as written: SGLang's stamp, with the process's ranks, facts/lines.py _SGLANG_RANKS)
_STAMP = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z][A-Z_]{1,6}\d{1,5})+\] ")
# the same line with the stamp taken off (facts/lines.py), as readers see it; vLLM logs the same words under its
# own logger's head, so this one step is SGLang's only where the line as written carries SGLang's stamp
_MESSAGE = "Custom allreduce is disabled because this process group spans across nodes."

#: what each step did, in words
_STEPS = ("the server's arguments", "torch distributed's set-up (begun)", "torch distributed's set-up (done)",
          "the weights' loading (begun)", "the weights' loading (done)", "the KV cache's allocation",
          "the CUDA graphs' capture (begun)", "the CUDA graphs' capture (done)", "the scheduler's summary",
          "the HTTP server's start")
#: what comes after each step: where a start-up that stops there hung
_NEXT = ("setting up torch distributed (the TCP store at --dist-init-addr, then NCCL between the ranks)",
         "torch distributed's set-up between the ranks (the store, NCCL and Gloo groups, the custom all-reduce's peer "
         "checks)", "loading the weights", "loading the weights (the checkpoint's shards read from storage)",
         "sizing and allocating the KV cache", "capturing CUDA graphs (the first forward passes: collectives across "
         "the ranks where they are several)", "capturing CUDA graphs (the first forward passes: collectives across the "
         "ranks where they are several)", "the scheduler's start",
         "starting the HTTP server and its warm-up request", "the warm-up request (the first forward pass across the ranks)")
# [2025-06-23 15:06:53] server_args=ServerArgs(model_path='/place/deepseek-r1/weights', ...   (sgl-project/sglang#7478)
# [2026-01-05 10:00:05 DP2 TP2] Init torch distributed begin.                                  (CONSTRUCTED from model_runner.py)
# [2026-06-22 17:51:03] Init torch distributed ends. elapsed=0.03 s, mem usage=0.00 GB           (sgl-project/sglang#24188)
# [2026-06-22 17:51:04] Load weight begin. avail mem=15.11 GB                                   (sgl-project/sglang#24188)
# [2025-03-27 21:33:30 TP0] Load weight end. type=Gemma3ForConditionalGeneration, dtype=torch.bfloat16, avail mem=131.08 GB, mem usage=8.13 GB.   (sgl-project/sglang#4826)
# [2025-10-16 09:06:22 TP5] KV Cache is allocated. #tokens: 2795207, K size: 53.31 GB, V size: 53.31 GB   (sgl-project/sglang#11716)
# [2026-01-05 10:09:41 TP0] KV Cache is allocated. K size: 20.00 GB, V size: 20.00 GB.                      (CONSTRUCTED: an older memory_pool.py form)
# [2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB                                            (sgl-project/sglang#11716)
# [2025-10-16 09:06:22 TP7] Capture cuda graph begin. This can take up to several minutes. avail mem=12.01 GB   (sgl-project/sglang#11716)
# [2026-01-05 10:09:42 TP1] Capture npu graph begin. This can take up to several minutes. avail mem=11.90 GB   (CONSTRUCTED: NPU builds)
# [2025-11-10 19:59:09 TP1] Capture cuda graph end. Time elapsed: 11.35 s. mem usage=1.04 GB. avail mem=11.22 GB.   (sgl-project/sglang#12978)
# [2026-01-05 10:10:30 TP0] max_total_num_tokens=524288, max_prefill_tokens=16384, max_running_requests=2048, context_len=163840   (CONSTRUCTED: before v0.4.2)
# [2026-01-05 10:10:30 TP0] max_total_num_tokens=524288, chunked_prefill_size=8192, max_prefill_tokens=16384, ...   (CONSTRUCTED: scheduler.py)
# [2026-01-05 10:10:31] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)   (CONSTRUCTED: uvicorn's line under SGLang's stamp)
_STEP = re.compile(
    r"(?P<s0>server_args=ServerArgs\()|(?P<s1>Init torch distributed begin\.|" + re.escape(_MESSAGE) + r")"
    r"|(?P<s2>Init torch distributed ends\. )(?:elapsed|mem usage)=|(?P<s3>Load weight begin\. avail mem=)\d"
    r"|(?P<s4>Load weight end\. )(?:elapsed|type)=|(?P<s5>KV Cache is allocated\. |Memory pool end\. avail mem=\d)"
    r"|(?P<s6>Capture (?:cuda|npu) graph begin\. )|(?P<s7>Capture (?:cuda|npu) graph end\. )Time elapsed"
    r"|(?P<s8>max_total_num_tokens=)\d+, (?:chunked_prefill_size|max_prefill_tokens)="
    r"|(?P<s9>Uvicorn running on )http")
_KEYS = ("server_args=", "Init torch distributed", "Load weight", "KV Cache is allocated", "Memory pool end",
         "graph begin", "graph end", "graph failed", "max_total_num_tokens=", "Uvicorn running on", "spans across nodes")
# [2025-11-05 16:35:02] The server is fired up and ready to roll!                                 (sgl-project/sglang#12688)
_READY = "The server is fired up and ready to roll!"
# the scheduler serving (managers/scheduler.py log_prefill_stats / log_decode_stats):
# [2025-04-14 03:56:38 TP0] Prefill batch. #new-seq: 1, #new-token: 10, #cached-token: 0, ...       (sgl-project/sglang#4880)
# [2025-09-09 08:32:09 TP0 EP0] Decode batch. #running-req: 1, #token: 2625, token usage: 0.01, ...  (sgl-project/sglang#10216)
_SERVING = re.compile(r"(?:Prefill batch\. #new-seq|Decode batch\. #running-req): \d|" + re.escape(_READY))
# Exception: Capture cuda graph failed                                        (THUDM/slime#1998: the error pasted apart)
# Exception: Capture cuda graph failed: CUDA error: out of memory              (CONSTRUCTED from cuda_graph_runner.py's f-string)
_CAPTURE_FAILED = re.compile(r"\bCapture cuda graph failed\b(?:: (?P<error>[^\n]{0,300}\S))?")
# server_args=ServerArgs(..., nnodes=2, node_rank=1, ...)
_NODE_RANK = re.compile(r"\bnode_rank=(\d{1,5})\b")


def detect(head: str) -> bool:
    return any(k in head for k in _KEYS) and _SIGNED.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    last: tuple[int, int] | None = None  # (line, step) of the furthest step logged
    worker = False  # a node of rank > 0: it runs no HTTP server
    failed = False
    for n, line in enumerate(artefact.lines, 1):
        if not any(k in line for k in _KEYS):
            continue
        if not failed and "graph failed" in line and (c := _CAPTURE_FAILED.search(line)) is not None:
            failed = True
            result.lines_used += 1
            FactBuilder(artefact, result).add(EngineGraphCaptureFailed, n, engine="sglang", error=c["error"])
            continue
        if (m := _STEP.search(line)) is None:
            continue
        step = step_of(m)
        if step == 1 and m.group(0) == _MESSAGE:
            raw = artefact.raw_line(n)
            if _STAMP.search(raw, 0, max(0, raw.find(_MESSAGE)) + 1) is None:
                continue  # vLLM's line of the same words (its logger's head, or a Ray worker's tag): not SGLang's
        if step == 9 and last is None:
            continue  # uvicorn's line alone: any ASGI server's
        result.lines_used += 1
        if step == 0 and (r := _NODE_RANK.search(line)) is not None:
            worker = int(r.group(1)) > 0
        if last is None or step >= last[1]:
            last = (n, step)
    if last is None or artefact.line_offset:
        return result
    n, step = last
    if _SERVING.search("\n".join(artefact.lines[n:])) is not None or (worker and step >= 8):
        return result
    stopped_short(artefact, result, "SGLang", n, _STEPS[step], _READY, _NEXT[step])
    return result


#: line signatures (facts/classify.py): the steps, the multi-node line as written and as readers see it
SIGNATURES = (r"server_args=ServerArgs\(", r"Init torch distributed (?:begin\.|ends\. (?:elapsed|mem usage)=)",
              r"Load weight (?:begin\. avail mem=\d|end\. (?:elapsed|type)=)", r"KV Cache is allocated\. ",
              r"Memory pool end\. avail mem=\d", r"Capture (?:cuda|npu) graph (?:begin\. |end\. Time elapsed)",
              r"\bCapture cuda graph failed\b",
              r"max_total_num_tokens=\d+, (?:chunked_prefill_size|max_prefill_tokens)=",
              r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z][A-Z_]{1,6}\d+)+\] Custom allreduce is disabled because this process group spans across nodes\.",
              r"(?m)^Custom allreduce is disabled because this process group spans across nodes\.")
_SIGNED = re.compile("|".join(f"(?:{s})" if not s.startswith("(?m)") else f"(?m:{s[4:]})" for s in SIGNATURES))
