"""TensorRT-LLM start-up: how far a start-up log got, where nothing in it failed.

TensorRT-LLM's C++ runtime logs its start-up through TLLM_LOG_INFO as ``[TensorRT-LLM][INFO] <message>`` (the same
lines under ``trtllm-serve``, ``trtllm-bench``, the Python ``LLM`` API and Triton's tensorrtllm backend), in steps
(upstream strings, NVIDIA/TensorRT-LLM cpp/tensorrt_llm/):

0. the engine's config read: ``Engine version %s found in the config file, assuming engine(s) built by new builder
   API.`` or ``No engine version found in the config file, assuming engine(s) built by old builder API.``
   (runtime/gptJsonConfig.cpp);
1. MPI set up: ``Refreshed the MPI local session`` (runtime/utils/mpiUtils.cpp refreshLocalMpiComm), ``MPI size: %d,
   MPI local size: %d, rank: %d`` (older ``MPI size: %d, rank: %d``);
2. the rank's GPU: ``Rank %d is using GPU %d`` (batch_manager/trtGptModelFactory.h create);
3. the engine deserialised: ``Loaded engine size: %d MiB``;
4. the KV cache: ``[MemUsageChange] Allocated %0.2f GiB for max tokens in paged KV cache (%d).``
   (batch_manager/kvCacheManager.cpp);
5. the executor built on every rank: ``Executor instance created by worker`` (executor_worker, after its barrier);

then the server: trtllm-serve's uvicorn ``Application startup complete.`` / ``Uvicorn running on http://...``, or
Triton's ``Started GRPCInferenceService at ...`` / ``Started HTTPService at ...``.

Sample content (real, NVIDIA/TensorRT-LLM#9680, trtllm-serve with TP 4 on four L40S that hangs; fixtures/artefacts/
tensorrt_llm_start/)::

    [TensorRT-LLM][INFO] MPI size: 4, MPI local size: 4, rank: 0
    [TensorRT-LLM][INFO] Using user-specified devices: (0, 1, 2, 3)
    [TensorRT-LLM][INFO] Rank 0 is using GPU 0

A log whose furthest step is followed only by more of TensorRT-LLM's own lines (``[TensorRT-LLM]...``, ``[TRT-LLM]
...``) or uvicorn's start (``Started server process``, ``Waiting for application startup.``), no ready line among them,
stops in the start-up: a start-up that hung at its next step, or a log cut short. Either way it does not show the
runtime working, so it is a capture limit (``cut_short``: the verdict cannot be healthy, and the limit names the
step), not a finding, as vllm_start and sglang_start treat theirs. Any other line after the furthest step (an offline
run's output, a benchmark's table, Triton's model table, a failure) ends the question: those are other readers'. A
later window of a large file (line_offset > 0) is not asked: the start-up lies in the first.

Facts: none (the start-up lines count as read).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, ParseResult
from stethoscope.facts.parsers.start_up_steps import step_of, stopped_short

KIND = "tensorrt_llm_start"

_HEAD = "[TensorRT-LLM][INFO] "
#: what each step did, in words
_STEPS = ("the engine's config", "MPI's set-up", "the ranks' GPUs", "the engine's deserialisation",
          "the KV cache's allocation", "the executor's creation on every rank")
#: what comes after each step: where a start-up that stops there hung
_NEXT = ("MPI's set-up between the ranks", "binding each rank to its GPU",
         "loading the engine or the weights on each rank (then its communicators between the ranks)",
         "sizing and allocating the KV cache", "the executor's creation (the ranks' barrier)",
         "the server's start (its ready line)")
# [TensorRT-LLM][INFO] Engine version 1.2.0rc2 found in the config file, assuming engine(s) built by new builder API.   (NVIDIA/TensorRT-LLM#9680)
# [TensorRT-LLM][INFO] No engine version found in the config file, assuming engine(s) built by old builder API.   (CONSTRUCTED from gptJsonConfig.cpp)
# [TensorRT-LLM][INFO] Refreshed the MPI local session                                    (NVIDIA/TensorRT-LLM#9680)
# [TensorRT-LLM][INFO] MPI size: 4, MPI local size: 4, rank: 2                             (NVIDIA/TensorRT-LLM#9680)
# [TensorRT-LLM][INFO] Rank 2 is using GPU 2                                               (NVIDIA/TensorRT-LLM#9680)
# [TensorRT-LLM][INFO] Loaded engine size: 777 MiB                                         (CONSTRUCTED from the runtime's message)
# [TensorRT-LLM][INFO] [MemUsageChange] Allocated 26.91 GiB for max tokens in paged KV cache (220480).   (CONSTRUCTED from kvCacheManager.cpp)
# [TensorRT-LLM][INFO] Executor instance created by worker                                 (CONSTRUCTED from executorWorker.cpp)
_STEP = re.compile(
    r"\[TensorRT-LLM\]\[INFO\] (?:(?P<s0>(?:Engine version \S{1,64}|No engine version) found in the config file, "
    r"assuming engine)|(?P<s1>Refreshed the MPI local session|MPI size: \d{1,7}, (?:MPI local size: \d{1,7}, )?rank: \d)"
    r"|(?P<s2>Rank \d{1,7} is using GPU \d)|(?P<s3>Loaded engine size: \d)"
    r"|(?P<s4>\[MemUsageChange\] Allocated [\d.]{1,12} GiB for max tokens in paged KV cache)"
    r"|(?P<s5>Executor instance created by worker))")
# INFO:     Application startup complete.                     (uvicorn, trtllm-serve's HTTP server: CONSTRUCTED)
# INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)
# I0105 10:10:31.123456 1 grpc_server.cc:2466] Started GRPCInferenceService at 0.0.0.0:8001   (Triton: CONSTRUCTED)
_READY = re.compile(r"Application startup complete\.|Uvicorn running on http|Started (?:GRPCInferenceService|HTTPService) at ")
# the start-up's own chatter after a step: TensorRT-LLM's C++ and Python loggers ("[TensorRT-LLM][WARNING] ...",
# "[12/20/2025-04:21:10] [TRT-LLM] [I] ...", "[TensorRT-LLM] TensorRT LLM version: 1.2.0rc2") and uvicorn's start
_CHATTER = re.compile(r"\[TensorRT-LLM\]|\[TRT-LLM[\] ]|Started server process|Waiting for application startup\.")


def detect(head: str) -> bool:
    return _HEAD in head and _STEP.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    last: tuple[int, int] | None = None  # (line, step) of the furthest step logged
    for n, line in enumerate(artefact.lines, 1):
        if _HEAD not in line or (m := _STEP.search(line)) is None:
            continue
        result.lines_used += 1
        step = step_of(m)
        if last is None or step >= last[1]:
            last = (n, step)
    if last is None or artefact.line_offset:
        return result
    n, step = last
    for line in artefact.lines[n:]:
        if _READY.search(line) is not None or line.strip() and _CHATTER.search(line) is None:
            return result  # ready, or something else logged after the start-up: not a start-up that stopped
    stopped_short(artefact, result, "TensorRT-LLM", n, _STEPS[step], "Application startup complete.", _NEXT[step])
    return result


#: line signatures (facts/classify.py): TensorRT-LLM's start-up steps under its C++ logger's head
SIGNATURES = (r"\[TensorRT-LLM\]\[INFO\] (?:Engine version \S+|No engine version) found in the config file, assuming engine",
              r"\[TensorRT-LLM\]\[INFO\] (?:Refreshed the MPI local session|MPI size: \d+, (?:MPI local size: \d+, )?rank: \d)",
              r"\[TensorRT-LLM\]\[INFO\] (?:Rank \d+ is using GPU \d|Loaded engine size: \d|Executor instance created by worker)",
              r"\[TensorRT-LLM\]\[INFO\] \[MemUsageChange\] Allocated [\d.]+ GiB for max tokens in paged KV cache")
