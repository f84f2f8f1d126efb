"""bitsandbytes_cuda_setup: bitsandbytes' (< 0.43) CUDA SETUP report (real samples: fixtures/artefacts/bitsandbytes_cuda_setup/README.md;
CONSTRUCTED lines from bitsandbytes/cuda_setup/main.py's wording say so)."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import bitsandbytes_cuda_setup as reader
from stethoscope.facts.parsers.base import Artefact
from tests.parsers.parse_helper import FIX, parse_fixture


def _facts(text: str):
    return [(f.kind, f.evidence.line, f.rule_view()) for f in reader.parse(Artefact(path="t.txt", text=text, node="n1")).facts]


@pytest.mark.parametrize(("name", "lib", "ver", "cc", "fallback", "failed", "n"), [
    ("bnb138_cuda117_nocublaslt_not_found.txt", "libbitsandbytes_cuda117_nocublaslt.so", "117", "7.0", "libbitsandbytes_cpu.so", False, 1),
    ("bnb82_cuda100_detection_failed.txt", "libbitsandbytes_cuda100.so", "100", None, "libbitsandbytes.so", True, 2),
])
def test_real_binary_missing(name, lib, ver, cc, fallback, failed, n):
    (f,) = parse_fixture(reader, f"bitsandbytes_cuda_setup/{name}").facts
    assert (f.kind, f.library, f.cpu_build, f.cuda_version, f.compute_capability, f.fallback, f.detection_failed, f.lines) == (
        "bitsandbytes_binary_missing", lib, False, ver, cc, fallback, failed, n)


def test_real_cpu_library_asked_for():
    (f,) = parse_fixture(reader, "bitsandbytes_cuda_setup/bnb228_cpu_library_windows.txt").facts
    assert (f.library, f.cpu_build, f.cuda_version, f.lines) == ("libsbitsandbytes_cpu.so", True, None, 2)


def test_real_banner_alone_is_no_report():
    text = (FIX / "bitsandbytes_cuda_setup/bnb1518_bug_report_banner_paths.txt").read_text()
    assert not reader.detect(text)
    assert _facts(text) == []


def test_runtime_not_detected_is_a_missing_library_not_a_binary():
    # CONSTRUCTED from main.py's generate_instructions wording
    text = ("CUDA SETUP: Required library version not found: libbitsandbytes_cuda100.so. Maybe you need to compile it from source?\n"
            "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n"
            "CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.\n")
    assert reader.detect(text)
    ((kind, line, view),) = _facts(text)
    assert (kind, line, view["library"], view["provider"]) == ("shared_library_missing", 3, "libcudart.so", "cuda_toolkit")


@pytest.mark.parametrize(("line", "lib", "provider"), [
    # CONSTRUCTED from main.py's get_cuda_lib_handle and 0.39-0.42's DEBUG line
    ("CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If you are on a cluster, make sure you are on a CUDA machine!",
     "libcuda.so", "nvidia_driver"),
    ("CUDA SETUP: Problem: The main issue seems to be that the main CUDA library was not detected.", "libcuda.so", "nvidia_driver"),
])
def test_driver_library_not_found(line, lib, provider):
    text = "CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.so. Maybe you need to compile it from source?\n" + line + "\n"
    ((kind, _line, view),) = _facts(text)
    assert (kind, view["library"], view["provider"]) == ("shared_library_missing", lib, provider)


@pytest.mark.parametrize("text", [
    # CONSTRUCTED negatives: a search that went on and found the runtime, a binary loaded, a sentence naming the form
    "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...\n"
    "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so\n"
    "CUDA SETUP: Loading binary /usr/lib/python3/site-packages/bitsandbytes/libbitsandbytes_cuda121.so...\n",
    "I keep getting Required library version not found when I import it\n",
])
def test_not_read(text):
    assert not reader.detect(text)
    assert _facts(text) == []
