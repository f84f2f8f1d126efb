"""sglang_start: a multi-node SGLang start-up without the ready line is a capture limit, not a finding."""
from pathlib import Path

from stethoscope.facts.parsers import sglang_start
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "sglang_start"
STUCK = (FIX / "sglang4978_multinode_startup_stuck_paste.log").read_text()


def _parse(text: str):
    return sglang_start.parse(Artefact(path="sglang.log", text=text, node="node01"))


def test_detects_the_multinode_startup_line():
    assert sglang_start.detect(STUCK)


def test_no_ready_line_is_a_cut_short_limit_and_no_fact():
    r = _parse(STUCK)
    assert r.facts == [] and r.lines_used == 4
    assert [h.limit for h in r.limits] == ["cut_short"] and r.limits[0].line == 5


def test_ready_line_after_startup_is_no_limit():
    # SGLang's own ready line (sgl-project/sglang http_server.py _wait_and_warmup) after the start-up
    r = _parse(STUCK + "[2025-04-01 09:59:40] The server is fired up and ready to roll!\n")
    assert r.limits == []


def test_vllm_form_of_the_same_words_is_not_sglang():
    # vLLM's own logger prefix ("WARNING ... [custom_all_reduce.py:92]"), not SGLang's "[date TPn]"
    line = "WARNING [custom_all_reduce.py:92] Custom allreduce is disabled because this process group spans across nodes\n"
    assert not sglang_start.detect(line)


def test_stamp_taken_off_by_normalisation_is_read_from_the_line_as_written():
    # facts/lines.py takes SGLang's "[date TPn] " off before readers see the lines (round rM3)
    art = Artefact(path="sglang.log", text=STUCK, node="node01")
    art.normalise()
    assert "TP0] Custom" not in art.text and sglang_start.detect(art.text)
    r = sglang_start.parse(art)
    assert r.lines_used == 4 and [h.limit for h in r.limits] == ["cut_short"]


def test_vllm_line_of_the_same_words_normalised_is_not_sglang():
    # vLLM's worker tag and logger head over the same words (CONSTRUCTED from vllm/logger.py _FORMAT and the
    # custom_all_reduce.py warning): both come off, and the line as written has no SGLang stamp
    art = Artefact(path="vllm.log", node="node01", text="(VllmWorker rank=1 pid=2699412) WARNING 08-11 10:45:36 "
                   "[custom_all_reduce.py:92] Custom allreduce is disabled because this process group spans across nodes.\n")
    art.normalise()
    r = sglang_start.parse(art)
    assert r.lines_used == 0 and r.limits == []


def _read(text: str):
    art = Artefact(path="sglang.log", text=text, node="node01")
    art.normalise()
    assert sglang_start.detect(art.text)
    return sglang_start.parse(art)


def test_sglang_7478_stops_after_the_server_args():
    # node 1's server_args line, then nothing: hung before torch distributed was set up (wild sweep rO3)
    r = _read((FIX / "sglang7478_multihost_stops_after_server_args.log").read_text())
    assert r.facts == [] and r.errors == [] and r.lines_used == 1
    [lim] = r.limits
    assert (lim.limit, lim.line) == ("cut_short", 13)
    assert "the server's arguments" in lim.detail and "setting up torch distributed" in lim.detail


def test_a_start_up_cut_in_the_cuda_graph_capture_names_that_step():
    # two pull requests' healthy test logs, each stored cut inside the capture: a limit, never a finding
    for name, used, line in (("sglang11716_stops_in_cuda_graph_capture.log", 12, 14),
                             ("sglang4826_gemma3_stops_in_cuda_graph_capture.log", 4, 6)):
        r = _read((FIX / name).read_text())
        assert r.facts == [] and r.lines_used == used
        [lim] = r.limits
        assert (lim.limit, lim.line) == ("cut_short", line) and "the CUDA graphs' capture (begun)" in lim.detail


# CONSTRUCTED from SGLang's format strings (entrypoints/engine.py, model_executor/model_runner.py, mem_cache/memory_pool.py,
# managers/scheduler.py; the stamps as utils configure_logger writes them)
_STEPS = ("[2026-01-05 10:00:00] server_args=ServerArgs(model_path='m', tp_size=16, nnodes=2, node_rank={rank}, port=30000)\n"
          "[2026-01-05 10:00:05 TP8] Init torch distributed begin.\n"
          "[2026-01-05 10:00:09 TP8] Init torch distributed ends. mem usage=0.84 GB\n"
          "[2026-01-05 10:00:09 TP8] Load weight begin. avail mem=78.11 GB\n"
          "[2026-01-05 10:09:40 TP8] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=36.20 GB, mem usage=41.91 GB.\n"
          "[2026-01-05 10:09:41 TP8] KV Cache is allocated. #tokens: 524288, KV size: 17.16 GB\n"
          "[2026-01-05 10:09:41 TP8] Memory pool end. avail mem=17.02 GB\n"
          "[2026-01-05 10:09:42 TP8] Capture cuda graph begin. This can take up to several minutes. avail mem=16.90 GB\n"
          "[2026-01-05 10:10:30 TP8] Capture cuda graph end. Time elapsed: 48.11 s. mem usage=1.04 GB. avail mem=15.86 GB.\n"
          "[2026-01-05 10:10:30 TP8] max_total_num_tokens=524288, chunked_prefill_size=8192, max_prefill_tokens=16384, "
          "max_running_requests=2048, context_len=163840, available_gpu_mem=15.86 GB\n")


def test_a_worker_node_that_reached_the_schedulers_summary_started():
    # node rank > 0 runs no HTTP server: its log ends at the scheduler's summary when all went well
    assert _read(_STEPS.format(rank=1)).limits == []
    # must not: the same log on node 0 (it would go on to the HTTP server and its ready line) is cut short
    [lim] = _read(_STEPS.format(rank=0)).limits
    assert "the scheduler's summary" in lim.detail and "starting the HTTP server" in lim.detail
    # must not: a worker node that stopped in the weights' loading
    [lim] = _read(_STEPS.format(rank=1).split("[2026-01-05 10:09:40")[0]).limits
    assert "the weights' loading (begun)" in lim.detail


def test_the_server_serving_after_the_steps_shows_it_started():
    # the scheduler's batch lines (managers/scheduler.py; real form: "[2025-04-14 03:56:38 TP0] Prefill batch.
    # #new-seq: 1, #new-token: 10, #cached-token: 0, ..." in sgl-project/sglang#4880) after the start-up: no limit
    text = _STEPS.format(rank=0) + "[2026-01-05 10:12:00 TP0] Prefill batch. #new-seq: 1, #new-token: 10, #cached-token: 0\n"
    assert _read(text).limits == []
    assert _read(_STEPS.format(rank=0) + "[2026-01-05 10:11:00] The server is fired up and ready to roll!\n").limits == []


def test_uvicorn_alone_and_other_programs_words_are_not_sglangs_start_up():
    assert not sglang_start.detect("INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n")
    assert not sglang_start.detect("Load weight begin soon\nKV Cache is allocated elsewhere\nmax_total_num_tokens=12\n")


def test_capture_failed_is_a_fact_with_its_error():
    # THUDM/slime#1998: the wrapper alone (its error pasted apart); CONSTRUCTED from cuda_graph_runner.py's f-string:
    # the wrapped error on the line, after the capture's begin step
    from stethoscope.facts.parsers import sglang_start
    text = (FIX / "slime1998_capture_cuda_graph_failed.txt").read_text()
    assert sglang_start.detect(text)
    r = sglang_start.parse(Artefact(path="s.log", text=text, node="node1"))
    assert [(f.kind, f.engine, f.error) for f in r.facts] == [("engine_graph_capture_failed", "sglang", None)]
    assert r.lines_used == 1
    text = ("[2026-01-05 10:09:42 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=11.90 GB\n"
            "Exception: Capture cuda graph failed: CUDA error: out of memory\n")
    a = Artefact(path="s.log", text=text, node="node1")
    a.normalise()
    r = sglang_start.parse(a)
    assert [(f.error, f.evidence.line) for f in r.facts] == [("CUDA error: out of memory", 2)]
    # the step lines alone make no fact; the words in another sentence are not the runner's
    assert not sglang_start.parse(Artefact(path="s.log", text=text.splitlines()[0] + "\n", node="node1")).facts
    assert not sglang_start.detect("we saw Capture cuda graph failing sometimes\n")
