"""PyTorch's ``torch.utils.cpp_extension`` at import: the process found no usable GPU.

``_find_cuda_home()`` (torch/utils/cpp_extension.py) prints, and newer releases log with
``logger.warning``, this line when a CUDA toolkit is installed but ``torch.cuda.is_available()`` is
False: no driver reachable, the GPUs not passed into the container, CUDA_VISIBLE_DEVICES empty,
or a CPU-only build step. Any program that imports cpp_extension (an extension build, mmcv,
DeepSpeed's op builder) prints it to its own log.

Sample content (an MMEdu import in a container; pytorch/pytorch#153760 quotes the first words
alone, "Job failures with: `No CUDA runtime is found`")::

    >>> import MMEdu
    No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'

Facts emitted: ``torch_cuda_unavailable`` per such line (``cuda_home`` where printed). Other lines
are not read (a log holds other programs' lines: their own readers read them). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TorchCudaUnavailable  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "torch_cpp_extension"

# No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'
# 4.070 No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda' 4.146       (a docker build's step log, one line)
# Job failures with: `No CUDA runtime is found`                                   (quoted, pytorch/pytorch#153760)
_LINE = re.compile(r"\bNo CUDA runtime is found\b(?:, using CUDA_HOME='(?P<home>[^'\n]*)')?")
_DETECT = re.compile(r"\bNo CUDA runtime is found\b")


def detect(head: str) -> bool:
    return "No CUDA runtime" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    if "No CUDA runtime" not in artefact.text:
        return result
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "No CUDA runtime" in line and (m := _LINE.search(line)) is not None:
            b.add(TorchCudaUnavailable, n, cuda_home=m["home"] or None)
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
