"""PyTorch cpp_extension's 'No CUDA runtime is found' (an MMEdu import; pytorch/pytorch#153760 quoted)."""
from __future__ import annotations

import pytest
from parse_helper import parse_fixture

from stethoscope.facts.parsers import torch_cpp_extension as reader


def test_import_line_with_cuda_home() -> None:
    res = parse_fixture(reader, "torch_cpp_extension/mmedu_import_no_cuda_runtime.txt")
    [f] = res.facts
    assert (f.cuda_home, f.evidence.line, res.lines_used) == ("/usr/local/cuda", 2, 1)


@pytest.mark.parametrize("line,home", [
    ("Job failures with: `No CUDA runtime is found`", None),  # quoted without its tail
    ("4.070 No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda' 4.146 ", "/usr/local/cuda"),  # a docker build step
])
def test_forms(line: str, home: str | None) -> None:
    [f] = parse_fixture(reader, text=line + "\n").facts
    assert f.cuda_home == home


def test_other_cuda_home_lines_are_not_read() -> None:
    assert not reader.detect("Using CUDA_HOME='/usr/local/cuda'\n")
