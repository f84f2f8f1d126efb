"""vLLM's start-up steps: a log that stops before the server is ready is a capture limit naming the step."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import vllm_start
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/vllm_start"


def _read(text: str):
    assert vllm_start.detect(text)
    a = Artefact(path="vllm.log", text=text, node="n1")
    a.normalise()
    return vllm_start.parse(a)


def test_vllm_6636_stops_after_the_version_line():
    r = _read((FIX / "vllm6636_tp4_stops_after_args.log").read_text())
    assert r.facts == [] and r.errors == [] and r.lines_used == 1
    [lim] = r.limits
    assert (lim.limit, lim.line) == ("cut_short", 1)
    assert "the API server's version line" in lim.detail and "the engine's configuration" in lim.detail


def test_vllm_39682_the_weights_line_alone_is_no_server_start_up():
    # the engine core's line without the API server's: an offline LLM() run logs the same and never a ready line
    r = _read((FIX / "vllm39682_v1_stops_after_weights.log").read_text())
    assert (r.lines_used, r.limits) == (1, [])
    # with the API server's version line before it (CONSTRUCTED from api_server.py's "vLLM API server version %s"): a limit
    [lim] = _read("INFO 04-13 10:00:00 [api_server.py:1043] vLLM API server version 0.19.1\n"
                  + (FIX / "vllm39682_v1_stops_after_weights.log").read_text()).limits
    assert "the weights' loading" in lim.detail and "profiling memory for the KV cache" in lim.detail


def test_a_start_up_that_reached_ready_is_no_limit():
    # CONSTRUCTED from vLLM's format strings (api_server.py, gpu_model_runner.py, kv_cache_utils.py) and uvicorn's line
    text = ("INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5\n"
            "INFO 05-01 10:00:40 [gpu_model_runner.py:1329] Model loading took 14.9917 GiB and 31.2 seconds\n"
            "INFO 05-01 10:01:02 [kv_cache_utils.py:634] GPU KV cache size: 452,768 tokens\n"
            "INFO 05-01 10:01:20 [gpu_model_runner.py:1686] Graph capturing finished in 18 secs, took 0.52 GiB\n"
            "INFO 05-01 10:01:21 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000\n"
            "INFO:     Application startup complete.\n")
    r = _read(text)
    assert r.limits == [] and r.lines_used == 5
    # must not: the same log cut before uvicorn's line names the API server's start as the last step
    [lim] = _read(text.rsplit("INFO:", 1)[0]).limits
    assert "the API server's start" in lim.detail


def test_other_programs_lines_are_not_vllms():
    assert not vllm_start.detect("Loading model weights took too long, retrying\nStarting API server on port 8000\n")
