"""Building GPU code: the CUDA toolkit's compiler and assembler (nvcc, ptxas) as a build or a JIT
(Triton, an extension's pip install, a CMake project) prints them.

Generated layout (issue 12): every fact class lives in facts/kinds, by family."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CudaToolchainError(Fact):
    """The CUDA toolkit's compiler or assembler (nvcc, ptxas) refusing to build for a GPU
    architecture: ptxas's "Instruction 'tensormap.replace' not supported on .target 'sm_120'" (a
    kernel using an instruction the target lacks), "Value 'sm_121a' is not defined for option
    'gpu-name'" (a toolkit that does not know the target), or another error or fatal line of theirs."""

    kind: Literal["cuda_toolchain_error"] = "cuda_toolchain_error"
    tool: Literal["ptxas", "nvcc"]
    reason: Literal["instruction_not_on_target", "target_unknown", "other"]
    message: str  # the message after "error :" / "fatal :", as printed
    target: str | None = None  # the architecture the line names ("sm_120", "sm_121a", "compute_90")
    instruction: str | None = None  # the PTX instruction ptxas refused ("tensormap.replace")
    lines: int = 1  # lines of this tool, reason, target and instruction in the file
