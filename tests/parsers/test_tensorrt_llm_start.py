"""tensorrt_llm_start: a TensorRT-LLM start-up that stops before the server is ready is a capture limit naming the step."""
from pathlib import Path

from stethoscope.facts.parsers import tensorrt_llm_start
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "tensorrt_llm_start"
TP4 = (FIX / "trtllm9680_tp4_stops_at_rank_gpu.log").read_text()


def _read(text: str):
    art = Artefact(path="trtllm_serve.log", text=text, node="node01")
    art.normalise()
    assert tensorrt_llm_start.detect(art.text)
    return tensorrt_llm_start.parse(art)


def test_tp4_start_up_stopping_at_the_ranks_gpus_is_cut_short():
    # NVIDIA/TensorRT-LLM#9680: ranks 2, 0 and 1 log "Rank N is using GPU N" (rank 3 not yet), then the excerpt ends ("[TensorRT-LLM][INFO] R")
    r = _read(TP4)
    assert r.facts == [] and r.lines_used == 15
    assert [h.limit for h in r.limits] == ["cut_short"] and r.limits[0].line == 18
    assert "the ranks' GPUs" in r.limits[0].detail and "loading the engine" in r.limits[0].detail


def test_engine_config_line_alone_is_cut_short_at_the_first_step():
    # triton-inference-server/server#8540: the one line the reporter's start-up stays on
    r = _read("[TensorRT-LLM][INFO] Engine version 1.0.0 found in the config file, assuming engine(s) built by new "
              "builder API.\n")
    assert [h.limit for h in r.limits] == ["cut_short"] and "the engine's config" in r.limits[0].detail


# the later steps and the ready line: CONSTRUCTED from kvCacheManager.cpp, executorWorker.cpp and uvicorn's messages
_LATER = ("[TensorRT-LLM][INFO] Number of tokens per block: 64.\n"
          "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 26.91 GiB for max tokens in paged KV cache (220480).\n"
          "[02/14/2025-09:38:53] [TRT-LLM] [I] max_seq_len=131072, max_num_requests=2048, max_num_tokens=8192\n")


def test_start_up_reaching_ready_is_no_limit():
    r = _read(TP4 + "\n" + _LATER + "INFO:     Started server process [1]\nINFO:     Waiting for application startup.\n"
              "INFO:     Application startup complete.\n"
              "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n")
    assert r.limits == [] and r.lines_used == 16


def test_stopping_after_the_kv_cache_in_own_lines_names_that_step():
    r = _read(TP4 + "\n" + _LATER + "INFO:     Waiting for application startup.\n")
    assert [h.limit for h in r.limits] == ["cut_short"]
    assert "the KV cache's allocation" in r.limits[0].detail and "executor's creation" in r.limits[0].detail


def test_other_output_after_the_start_up_is_not_asked():
    # an offline run's output (or a benchmark's table) after the start-up: the runtime worked
    r = _read(TP4 + "\n" + _LATER + "Output [Text 0 Beam 0]: \"Paris is the capital of France.\"\n")
    assert r.limits == []


def test_not_tensorrt_llm():
    assert not tensorrt_llm_start.detect("[I] [TRT] Loaded engine size: 23 MiB\nRank 0 is using GPU 0\n")
    assert not tensorrt_llm_start.detect("[TensorRT-LLM][INFO] Number of tokens per block: 64.\n")
