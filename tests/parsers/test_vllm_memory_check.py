"""vllm_memory_check: vLLM's start-up check 'Free memory on device ... on startup is less than desired GPU memory
utilization (...)' read as vllm_startup_memory_short (the free, total, asked and in-use memory)."""
from __future__ import annotations

from pathlib import Path

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
