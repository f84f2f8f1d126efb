"""nvcc --version's banner: the toolkit's release as a package_version (real pastes, fixtures/artefacts/nvcc_version)."""
from __future__ import annotations

import pytest
from parse_helper import parse_fixture

from stethoscope.facts.parsers import nvcc_version as reader
from stethoscope.facts.parsers.base import Artefact


@pytest.mark.parametrize("rel, version, release, num, line, used", [
    ("nvcc_version/ollama4726_nvcc_version_11.8.txt", "11.8.89", "11.8", 11080, 5, 6),
    ("nvcc_version/pytorch_builder580_nvcc_version_11.1.txt", "11.1.105", "11.1", 11010, 4, 5),
    ("nvcc_version/nvidia_container_toolkit20_nvcc_version_10.1.txt", "10.1.243", "10.1", 10010, 5, 5),
])
def test_banner(rel, version, release, num, line, used):
    r = parse_fixture(reader, rel)
    [f] = r.facts
    assert (f.package, f.manager, f.version, f.cuda_build, f.cuda_build_num, f.evidence.line) == (
        "cuda-nvcc", "nvcc", version, release, num, line)
    assert r.lines_used == used and not r.errors


def test_release_line_alone_and_near_misses():
    # CONSTRUCTED: the release line grepped out alone (nvcc --version | grep release), CUDA 12.4's
    [f] = parse_fixture(reader, text="Cuda compilation tools, release 12.4, V12.4.131\n").facts
    assert (f.version, f.cuda_build_num) == ("12.4.131", 12040)
    assert not reader.detect("nvcc: NVIDIA (R) Cuda compiler driver\n")  # the head alone names no release
    assert not reader.parse(Artefact(path="t.txt", text="NVCC: Cuda compilation tools, release 12.4, V12.4.131\n", node="n")).facts
