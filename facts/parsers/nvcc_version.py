"""``nvcc --version``: the CUDA toolkit's compiler names its release, the installed toolkit's version.

Sample content (ollama/ollama#4726; fixtures/artefacts/nvcc_version/README.md names the others)::

    > nvcc --version
    nvcc: NVIDIA (R) Cuda compiler driver
    Copyright (c) 2005-2022 NVIDIA Corporation
    Built on Wed_Sep_21_10:33:58_PDT_2022
    Cuda compilation tools, release 11.8, V11.8.89
    Build cuda_11.8.r11.8/compiler.31833905_0

Facts: ``package_version`` for the release line (``package`` cuda-nvcc, ``version`` the full one, 11.8.89,
``manager`` nvcc, ``cuda_build`` the release, 11.8, and its integer form as the package listers give it:
engine/combine/version_compat.py checks it against the node's driver as it does a listed ``cudatoolkit``).
The banner's other lines and the command line are counted as read. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import PackageVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.python_packages import add_package

KIND = "nvcc_version"

# nvcc: NVIDIA (R) Cuda compiler driver
_HEAD = re.compile(r"^nvcc: NVIDIA \(R\) Cuda compiler driver\s*$", re.M)
# Cuda compilation tools, release 11.8, V11.8.89          (ollama/ollama#4726)
# Cuda compilation tools, release 10.1, V10.1.243         (NVIDIA/nvidia-container-toolkit#20)
_RELEASE = re.compile(r"^Cuda compilation tools, release (?P<release>\d{1,2}\.\d{1,2}), V(?P<version>\d{1,2}\.\d{1,2}\.\d{1,4})\s*$", re.M)
# Copyright (c) 2005-2022 NVIDIA Corporation      Built on Wed_Sep_21_10:33:58_PDT_2022
# Build cuda_11.8.r11.8/compiler.31833905_0       Build cuda_11.1.TC455_06.29190527_0      (pytorch/builder#580)
_BANNER = re.compile(r"^(?:Copyright \(c\) \d{4}-\d{4} NVIDIA Corporation|Built on \w{3}_\w{3}_[\w:]{1,30}|Build cuda_\S{1,80})\s*$")
# > nvcc --version      $nvcc --version      root@host:/# nvcc --version      nvcc -V
#   (a quoted paste's "> " is taken off before a reader sees the line: the command alone)
_COMMAND = re.compile(r"^(?:\S{0,200}?[>$#] ?)?nvcc (?:--version|-V)\s*$")


def detect(head: str) -> bool:
    return "Cuda compilation tools" in head and _RELEASE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if (m := _RELEASE.match(line)) is not None:
            add_package(b, n, "cuda-nvcc", m["version"], "nvcc", m["release"])
            result.lines_used += 1
        elif _HEAD.match(line) or _BANNER.match(line) or _COMMAND.match(line):
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_RELEASE,)
