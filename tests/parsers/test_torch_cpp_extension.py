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


@pytest.mark.parametrize("fixture,line,via,cpu", [
    # facebookresearch/detectron2#460: PyTorch's own AssertionError, a CPU-only build asked for CUDA
    ("torch_cpp_extension/detectron2_460_torch_not_compiled_with_cuda.txt", 3, "not_compiled", True),
    # bmaltais/kohya_ss#1608: the GUI's setup check, the build's '+cpu' version two lines above its warning
    ("torch_cpp_extension/kohya1608_setup_torch_cpu_reports_cuda_not_available.txt", 5, "is_available", True),
    # the same thread's comment: diffusers' ValueError for --xformers, no build named
    ("torch_cpp_extension/kohya1608_comment_diffusers_xformers_is_available_false.txt", 1, "is_available", False),
])
def test_a_library_or_installer_saying_cuda_is_not_available(fixture: str, line: int, via: str, cpu: bool) -> None:
    assert reader.detect((FIX / fixture).read_text())
    [f] = parse_fixture(reader, fixture).facts
    assert (f.evidence.line, f.via, f.cpu_build) == (line, via, cpu)


def test_a_cuda_builds_version_is_no_cpu_build() -> None:
    # CONSTRUCTED: the installer's lines with a CUDA wheel's version
    [f] = parse_fixture(reader, text="INFO     Torch 2.1.2+cu121\nWARNING  Torch reports CUDA not available\n").facts
    assert (f.via, f.cpu_build) == ("is_available", False)
    # a sentence naming the check without its answer is not read
    assert not reader.detect("Please check that torch.cuda.is_available() should be True on your machine.\n")
