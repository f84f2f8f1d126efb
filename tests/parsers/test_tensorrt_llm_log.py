"""tensorrt_llm_log: TensorRT-LLM's start-up world-size check, on real lines and the upstream forms."""
import pytest

from stethoscope.facts.parsers import tensorrt_llm_log
from stethoscope.facts.parsers.base import Artefact

ROWS = [
    # (line, (check, condition, mpi_size, tp, pp, cp) or None for no fact)
    ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/opt/optimum-nvidia/third-party/tensorrt-llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:89)",
     ("world_config", "mpiSize == tp * pp", None, None, None, None)),   # huggingface/optimum-nvidia#68
    ("The qwen demo faileed to run: RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: MPI size 1 != TP size 2 * PP size 1",
     ("world_config", "MPI size 1 != TP size 2 * PP size 1", 1, 2, 1, None)),   # NVIDIA/TensorRT-LLM#1992, its title
    ("Error: MPI worldSize is expected to be equal to tp*pp when participantIds are not specified",
     ("executor_leader", "MPI worldSize is expected to be equal to tp*pp when participantIds are not specified",
      None, None, None, None)),   # NVIDIA/TensorRT-LLM#2058, its title
    # the context-parallel form as worldConfig.cpp prints it ("MPI size %d != TP size %d * PP size %d * CP Size %d"), filled
    ("[TensorRT-LLM][ERROR] Assertion failed: MPI size 8 != TP size 4 * PP size 1 * CP Size 1 (/src/worldConfig.cpp:113)",
     ("world_config", "MPI size 8 != TP size 4 * PP size 1 * CP Size 1", 8, 4, 1, 1)),
    # another TensorRT-LLM check is not this one (NVIDIA/TensorRT-LLM#1826, its title)
    ("terminate called after throwing an instance of 'tensorrt_llm::common::TllmException' Assertion failed: Failed: MPI error", None),
    # the condition quoted in source, not printed by a failed check
    ("    TLLM_CHECK_WITH_INFO(mpiSize == tp * pp, \"MPI size %d != TP size %d * PP size %d\", mpiSize, tp, pp);", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = tensorrt_llm_log.parse(Artefact(path="log.txt", text=line + "\n")).facts
    assert [(f.check, f.condition, f.mpi_size, f.tp, f.pp, f.cp) for f in facts] == ([want] if want else [])


def test_fixture_with_its_stack():
    text = open("fixtures/artefacts/tensorrt_llm_log/optimum_nvidia68_mpisize_tp_pp.log").read()
    assert tensorrt_llm_log.detect(text)
    res = tensorrt_llm_log.parse(Artefact(path="error.log", text=text))
    (f,) = res.facts
    assert f.evidence.line == 1 and f.condition == "mpiSize == tp * pp"
    assert res.lines_used == 5  # the check and its four stack frames


def test_detect_wants_the_check():
    assert not tensorrt_llm_log.detect("[TensorRT-LLM][INFO] TRTGptModel mMaxAttentionWindowSize: 4096\n")
