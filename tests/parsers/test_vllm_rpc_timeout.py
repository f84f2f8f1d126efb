"""vllm_rpc_timeout: vLLM's engine core giving up on its workers ('RPC call to <method> timed out', the message
queue's bare TimeoutError under its shm_broadcast.py frame), read from real pastes; other timeouts are not."""
from pathlib import Path

from stethoscope.facts.parsers import vllm_rpc_timeout
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "vllm_rpc_timeout"


def _parse(text: str, path: str = "engine.log"):
    a = Artefact(path=path, text=text, node="n1")
    a.normalise()
    return vllm_rpc_timeout.parse(a).facts


def test_queue_read_timeout_under_engine_tags():
    text = (FIX / "mooncake1458_engine_queue_timeout.txt").read_text()
    assert vllm_rpc_timeout.detect(text)
    (f,) = _parse(text)
    assert (f.form, f.method, f.pid) == ("queue", None, 1101)
    assert f.evidence.line == 3


def test_newer_queue_frame_timeout_ms():
    (f,) = _parse((FIX / "spark348_queue_timeout_ms.txt").read_text())
    assert (f.form, f.pid) == ("queue", 222)


def test_titles_quoting_the_message():
    (f,) = _parse((FIX / "mooncake1458_title.txt").read_text(), path="title.txt")
    assert (f.form, f.method) == ("rpc", "execute_model")
    (g,) = _parse((FIX / "vllm37250_title.txt").read_text(), path="title.txt")
    assert (g.form, g.method) == ("rpc", "sample_tokens")


def test_executor_message_and_not_its_source_line():
    # the executor's code line and the message it makes (vllm/v1/executor/multiproc_executor.py collective_rpc): the
    # message is read, the code line a traceback quotes is not ("{method}" is no name)
    (f,) = _parse('    raise TimeoutError(f"RPC call to {method} timed out.") from e\n'
                  "TimeoutError: RPC call to execute_model timed out.\n")
    assert (f.form, f.method, f.evidence.line) == ("rpc", "execute_model", 2)


def test_bare_timeout_without_the_queue_frame_is_not_read():
    # vllm-project/vllm#33802: the frame above the bare TimeoutError was cut off; any Python timeout ends so
    text = (FIX / "vllm33802_bare_timeout_frame_cut.txt").read_text()
    assert not _parse(text)


def test_ray_executors_channel_timeout():
    # Ray's compiled graph read given up (pytorch/pytorch#181632's quoted line; vllm-project/vllm#27116's title)
    (f,) = _parse((FIX / "pytorch181632_ray_channel_timeout_quoted.txt").read_text())
    assert (f.form, f.method, f.evidence.line) == ("ray_channel", None, 3)
    (g,) = _parse((FIX / "vllm27116_ray_channel_title.txt").read_text(), path="title.txt")
    assert g.form == "ray_channel"


def test_message_queue_waits_in_every_wording():
    # vllm-project/vllm-omni#2928 (vLLM 0.19's wording with its hint sentence, under the API server's tag)
    waits = [f for f in _parse((FIX / "omni2928_shm_broadcast_wait_serving.log").read_text())
             if f.kind == "vllm_shm_broadcast_wait"]
    assert [(f.form, f.seconds, f.pid, f.evidence.line) for f in waits] == [("hint", 60, 81599, 2)]
    # vllm-project/vllm#6614 (vLLM 0.5: "No available block found in 60 second.", one line per worker)
    old = [f for f in _parse((FIX / "vllm6614_old_form_workers_then_throughput.log").read_text())
           if f.kind == "vllm_shm_broadcast_wait"]
    assert len(old) == 7 and {f.form for f in old} == {"old"} and old[0].pid == 103446
    # gpustack/gpustack#3888: vLLM 0.11's shorter hint, no prefix
    (g,) = _parse("No available shared memory broadcast block found in 60 seconds. This typically happens when some"
                  " processes are hanging or doing some time-consuming work (e.g. compilation). \n")
    assert (g.kind, g.form, g.pid) == ("vllm_shm_broadcast_wait", "hint", None)
    assert not [f for f in old if f.kind == "vllm_rpc_timeout"]


def test_a_sentence_about_the_wait_is_no_wait_line():
    # prose that names the message without its number of seconds (local-inference-lab/rtx6kpro#24's title words)
    assert not _parse("No available shared memory broadcast block found in 60s on RTX Pro 6000 * 8\n")
