"""vllm_memory_check: vLLM's start-up check 'Free memory on device ... on startup is less than desired GPU memory
utilization (...)' read as vllm_startup_memory_short (the free, total, asked and in-use memory)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import vllm_memory_check
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/vllm_memory_check"


def read(text: str):
    art = Artefact(path="vllm.log", text=text, node="node1")
    art.normalise()
    assert vllm_memory_check.detect(text)
    return [(f.device, f.free_gib, f.total_gib, f.utilization, f.requested_gib, f.used_gib, f.used_fraction,
             f.shortfall_gib, f.pid, f.evidence.line) for f in vllm_memory_check.parse(art).facts]


def test_engine_core_line_under_a_ci_timestamp():
    # pytorch/pytorch#175666: the engine core's ValueError for cuda:1 (an L4, PyTorch 2.11 + CUDA 13.0)
    assert read((FIX / "pytorch175666_engine_core_free_memory.txt").read_text()) == [
        (1, 19.77, 22.05, 0.9, 19.84, 2.28, 0.103, 0.07, 6940, 1)]


def test_title_in_lower_case():
    # the same thread's title quotes it for cuda:0, "free" in lower case, without the advice after it
    assert read((FIX / "pytorch175666_title.txt").read_text()) == [(0, 19.77, 22.05, 0.9, 19.84, 2.28, 0.103, 0.07, None, 1)]


def test_near_misses():
    # the KV-cache sizing advice of later releases (vllm/v1/worker/gpu_worker.py: f"Free memory on device ({free}/{total}
    # GiB) on startup. Desired GPU memory utilization is ({util}, {requested} GiB). ..."), its format filled in: no refusal
    text = "Free memory on device (19.77/22.05 GiB) on startup. Desired GPU memory utilization is (0.9, 19.84 GiB).\n"
    art = Artefact(path="vllm.log", text=text, node="node1")
    art.normalise()
    assert not vllm_memory_check.detect(text)
    assert vllm_memory_check.parse(art).facts == []


def profile(text: str):
    art = Artefact(path="vllm.log", text=text, node="node1")
    art.normalise()
    return [(f.initial_free_gib, f.current_free_gib, f.grew_gib, f.pid, f.evidence.line)
            for f in vllm_memory_check.parse(art).facts if f.kind == "vllm_memory_profile_inconsistent"]


def test_memory_profile_assertion_wrapped_by_the_reporter():
    # vllm-project/vllm#56830: the V1 worker's assert, its sentence re-wrapped over five lines
    text = (FIX / "vllm56830_memory_profiling_free_memory_grew.txt").read_text()
    assert vllm_memory_check.detect(text)
    assert profile(text) == [(82.94, 90.17, 7.23, None, 1)]


@pytest.mark.parametrize(("line", "want"), [
    # real (vllm-project/vllm#33358, the PR's description): the engine core's log line, the figures equal (an XPU)
    ("(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in memory profiling. Initial free"
     " memory 30.3 GiB, current free memory 30.3 GiB. This happens when other processes sharing the same container release"
     " GPU memory while vLLM is profiling during initialization. To fix this, ensure consistent GPU memory allocation or"
     " isolate vLLM in its own container.", (30.3, 30.3, 0.0, 418, 1)),
    # CONSTRUCTED from the V0 worker's assert (vllm/worker/worker.py): the figures in bytes
    ("AssertionError: Error in memory profiling. Initial free memory 84301545472, current free memory 85375287296. This"
     " happens when the GPU memory was not properly cleaned up before initializing the vLLM instance.", (78.51, 79.51, 1.0, None, 1)),
])
def test_memory_profile_assertion_forms(line, want):
    assert vllm_memory_check.detect(line)
    assert profile(line + "\n") == [want]


def test_memory_profile_prose_is_not_the_assertion():
    # CONSTRUCTED: a sentence about the check, no figures
    text = "The Error in memory profiling. Initial free memory check is too strict for shared GPUs.\n"
    assert not vllm_memory_check.detect(text)
    assert profile(text) == []
