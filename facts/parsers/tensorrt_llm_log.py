"""TensorRT-LLM's own error lines (its C++ runtime's checks, as the Python binding, ``trtllm-serve``,
Triton's tensorrtllm backend or an MPI rank prints them): the start-up check of the processes it was
given against the engine's parallelism.

A TensorRT-LLM engine is built for TP × PP (× CP) GPUs, one MPI process each; at start-up the runtime
compares the processes MPI reports with that product and stops with the check that failed, in the
form of the release (cpp/tensorrt_llm/runtime/worldConfig.cpp WorldConfig::mpi: ``TLLM_CHECK(mpiSize ==
tp * pp)``, later ``TLLM_CHECK_WITH_INFO(mpiSize == tp * pp, "MPI size %d != TP size %d * PP size %d",
...)`` and, with context parallelism, ``"MPI size %d != TP size %d * PP size %d * CP Size %d"``; the
executor's kLEADER mode, cpp/tensorrt_llm/executor/executorImpl.cpp: ``"With communicationMode kLEADER,
MPI worldSize is expected to be equal to tp*pp[*cp] when participantIds are not specified"``). The
check's text comes as ``[TensorRT-LLM][ERROR] Assertion failed: <condition or message> (<file>:<line>)``
(TllmException), usually under Python's ``RuntimeError: `` and followed by its numbered stack frames.
Sample content (real, huggingface/optimum-nvidia#68: an engine built for two L4s loaded by one
process)::

    RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/opt/optimum-nvidia/third-party/tensorrt-llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:89)
    1       0x7f6fe2659212 /usr/local/lib/python3.10/dist-packages/tensorrt_llm/bindings.cpython-310-x86_64-linux-gnu.so(+0x7c212) [0x7f6fe2659212]
    3       0x7f6fe275d847 tensorrt_llm::runtime::WorldConfig::mpi(int, std::optional<int>, ...) + 103

Fact: ``engine_world_size_mismatch`` per check line (the check, and the MPI size, TP, PP and CP where
the form names them); the stack frames under it are its trace. A text without such a check is not
this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.launch import EngineWorldSizeMismatch
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "tensorrt_llm_log"

# RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/opt/optimum-nvidia/third-party/tensorrt-llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:89)   (huggingface/optimum-nvidia#68)
#   (earlier releases: TLLM_CHECK(mpiSize == tp * pp), the condition as written)
# The qwen demo faileed to run: RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: MPI size 1 != TP size 2 * PP size 1   (NVIDIA/TensorRT-LLM#1992, its title)
#   (later releases: TLLM_CHECK_WITH_INFO(mpiSize == tp * pp, "MPI size %d != TP size %d * PP size %d", ...); with context
#   parallelism "MPI size %d != TP size %d * PP size %d * CP Size %d")
_WORLD_CONFIG = re.compile(
    r"Assertion failed: (?:mpiSize == tp \* pp(?: \* cp)?(?![\w*])"
    r"|MPI size (?P<mpi>\d{1,7}) != TP size (?P<tp>\d{1,7}) \* PP size (?P<pp>\d{1,7})(?: \* CP Size (?P<cp>\d{1,7}))?)")
# Error: MPI worldSize is expected to be equal to tp*pp when participantIds are not specified   (NVIDIA/TensorRT-LLM#2058, its title)
#   (the executor's kLEADER check: "With communicationMode kLEADER, MPI worldSize is expected to be equal to tp*pp[*cp]
#   when participantIds are not specified", as "[TensorRT-LLM][ERROR] Assertion failed: <that>")
_EXECUTOR = re.compile(r"\bMPI worldSize is expected to be equal to tp\*pp(?:\*cp)? when participantIds are not specified")
# 1       0x7f6fe2659212 /usr/local/lib/python3.10/dist-packages/tensorrt_llm/bindings.cpython-310-x86_64-linux-gnu.so(+0x7c212) [0x7f6fe2659212]
_FRAME = re.compile(r"^\s{0,8}\d{1,3}\s{1,12}0x[0-9a-f]{4,16} ")


def detect(head: str) -> bool:
    return ("Assertion failed: " in head and _WORLD_CONFIG.search(head) is not None
            or "MPI worldSize is expected" in head and _EXECUTOR.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    in_trace = False
    for n, line in enumerate(artefact.lines, 1):
        m = _WORLD_CONFIG.search(line) if "Assertion failed: " in line else None
        e = _EXECUTOR.search(line) if m is None and "worldSize" in line else None
        if m is not None:
            num = {k: int(v) for k, v in m.groupdict().items() if v is not None}
            b.add(EngineWorldSizeMismatch, n, check="world_config", condition=m[0][len("Assertion failed: "):],
                  mpi_size=num.get("mpi"), tp=num.get("tp"), pp=num.get("pp"), cp=num.get("cp"))
        elif e is not None:
            b.add(EngineWorldSizeMismatch, n, check="executor_leader", condition=e[0])
        elif in_trace and _FRAME.match(line):
            result.lines_used += 1  # the check's stack frame
            continue
        else:
            in_trace = False
            continue
        in_trace = True
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"Assertion failed: (?:mpiSize == tp \* pp|MPI size \d+ != TP size \d+ \* PP size \d+)",
              r"MPI worldSize is expected to be equal to tp\*pp")
