"""PyTorch cpp_extension's 'No CUDA runtime is found' (an MMEdu import; pytorch/pytorch#153760 quoted)."""
from __future__ import annotations

import pytest
from parse_helper import FIX, parse_fixture

from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers import torch_cpp_extension as reader
from stethoscope.facts.parsers.base import Artefact


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


def test_task_prints_is_available_false():
    # skypilot-org/skypilot#2510: a SkyPilot task's prints (Ray's "(task, pid=...)" prefix), then a cut traceback
    text = normalise((FIX / "torch_cpp_extension/skypilot2510_task_is_available_false.txt").read_text())
    res = parse_fixture(reader, text=text)
    [f] = res.facts
    assert (f.via, f.evidence.line, res.lines_used) == ("is_available", 6, 2)


@pytest.mark.parametrize("text, via", [
    ("torch.cuda.is_available(): False\n", "is_available"),  # skypilot-org/skypilot#2510, its prefix off
    ("torch.cuda.device_count(): 0\n", "device_count"),
    ("torch.cuda.is_available() = False\n", "is_available"),  # CONSTRUCTED separators
    ("torch.cuda.is_available() False\n", "is_available"),
    (">>> torch.cuda.is_available()\nFalse\n", "is_available"),  # CONSTRUCTED: the REPL's answer on the next line
    ("torch.cuda.is_available(): True\ntorch.cuda.device_count(): 8\n", None),
    (">>> torch.cuda.is_available()\nTrue\n", None),
    ("if not torch.cuda.is_available(): raise SystemExit\n", None),  # code, not an answer
])
def test_probe_forms(text: str, via: str | None) -> None:
    facts = parse_fixture(reader, text=text).facts if via else reader.parse(Artefact(path="t.txt", text=text, node="n1")).facts
    assert [f.via for f in facts] == ([via] if via else [])
