"""vllm_process_death: vLLM's lines that one of its processes (a GPU worker, the engine core) died or did not start,
read from real pastes in each release's wording; the source's format strings and other programs' words are not."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import vllm_process_death
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "vllm_process_death"


def _parse(text: str, path: str = "engine.log"):
    a = Artefact(path=path, text=text, node="n1")
    a.normalise()
    return vllm_process_death.parse(a).facts


def _view(f):
    return (f.process, f.event, f.form, f.name, f.pid, f.exit_code, f.signal)


def test_worker_init_failed_under_the_engine_core_tag():
    text = (FIX / "vllm28910_worker_init_failed.log").read_text()
    assert vllm_process_death.detect(text)
    (f,) = _parse(text)
    assert _view(f) == ("worker", "failed to start", "worker_init_failed", None, 33630, None, None)
    assert f.evidence.line == 5


def test_v1_worker_died_then_engine_core_fatal_under_compose_prefix():
    facts = _parse((FIX / "llmscaler154_worker_died_engine_fatal.log").read_text())
    assert [_view(f) for f in facts] == [("worker", "died", "worker_died", "VllmWorker-3", None, None, None),
                                         ("engine core", "died", "engine_core_fatal", None, None, None, None)]
    assert [f.evidence.line for f in facts] == [2, 3]


def test_fatal_signal_of_0_8_once():
    # the executor's handler logs it once per worker's signal: one fact for the message
    facts = _parse((FIX / "vllm14452_fatal_signal_0_8.log").read_text())
    assert [_view(f) for f in facts] == [("worker", "died", "fatal_signal", None, None, None, None)]
    assert facts[0].evidence.line == 8


@pytest.mark.parametrize("line,view", [
    # forms of vLLM's source, filled in (CONSTRUCTED from each format string; the messages as the source writes them)
    ("ERROR 07-04 23:23:23 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 3283517 died, exit code: -15.",  # V0
     ("worker", "died", "worker_died_v0", "VllmWorkerProcess", 3283517, -15, "SIGTERM")),
    ("RayWorkerProc rank=[3] died unexpectedly, shutting down executor.",       # ray_executor_v2.py
     ("worker", "died", "worker_died", "RayWorkerProc rank=[3]", None, None, None)),
    ("ERROR 06-10 03:43:33 [multiproc_executor.py:487] WorkerProc failed to start.",   # worker_main
     ("worker", "failed to start", "worker_start_failed", None, None, None, None)),
    ("ERROR 12-01 23:08:02 [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
     ("engine core", "died", "engine_core_died", "EngineCore_DP0", None, None, None)),
    ("(EngineCore pid=12534) ERROR 06-13 18:37:33 [core.py:1202] EngineCore failed to start.",
     ("engine core", "failed to start", "engine_core_start_failed", None, 12534, None, None)),
    ("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
     ("engine core", "failed to start", "engine_core_start_failed", None, None, None, None)),
    ("ERROR 11-08 11:01:30 [core.py:502] EngineCore encountered a fatal error.",
     ("engine core", "died", "engine_core_fatal", None, None, None, None)),
    ("vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
     ("engine core", "died", "engine_dead", None, None, None, None)),
    ("Worker proc VllmWorker-14 died unexpectedly (exit code: None), shutting down executor.",
     ("worker", "died", "worker_died", "VllmWorker-14", None, None, None)),
])
def test_each_form(line, view):
    (f,) = _parse(line + "\n")
    assert _view(f) == view


@pytest.mark.parametrize("line", [
    '            "Worker proc %s died unexpectedly, "',                        # the source's format, split
    'logger.error("Worker %s pid %s died, exit code: %s", process.name, process.pid, process.exitcode)',
    "FFmpeg process died unexpectedly (exit code: 1). Forcing reconnect.",     # another program's words
    "ERROR: child process died unexpectedly (exit code 3)",
    "INFO 06-13 18:37:33 [core.py:90] Initializing a V1 LLM engine (v0.11.0) with config: model='m'",
])
def test_not_a_vllm_process_death(line):
    assert _parse(line + "\n") == []
