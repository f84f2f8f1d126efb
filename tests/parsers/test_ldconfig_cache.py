"""ldconfig -p (ldconfig_cache): the loader cache's driver libraries as people paste them, a
CUDA image's compat copy first (vllm-project/vllm#19794, fixture), the host driver's copy
(vllm-project/vllm#33992, harvest 2801), a GH200 container's compat entries (vllm#32474, fixture), and
ldd's rows, which are not the cache's."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import ldconfig_cache as lc
from stethoscope.facts.parsers import ldd
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ldconfig_cache"


def _facts(text: str):
    return lc.parse(Artefact(path="ldconfig.txt", text=text, node="n1")).facts


def test_compat_copy_first_is_the_one_the_loader_takes():
    text = (FIXTURES / "vllm19794_libcuda_compat_copy_first.txt").read_text()
    assert lc.detect(text)
    first, second = _facts(text)
    assert (first.library, first.path, first.compat, first.provider) == (
        "libcuda.so.1", "/usr/local/cuda-12.8/compat/libcuda.so.1", True, "nvidia_driver")
    assert second.library == "libcuda.so" and second.compat is True


def test_a_later_entry_of_the_same_soname_is_not_taken():
    # the host driver's copy listed after the compat copy: the loader takes the first
    text = ("        libcuda.so.1 (libc6,x86-64) => /usr/local/cuda-12.8/compat/libcuda.so.1\n"
            "        libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n")
    (f,) = _facts(text)
    assert f.compat is True


def test_host_driver_copy_and_other_libraries():
    # vllm#33992's listing (harvest 2801): the host driver's libcuda, the toolkit's libcudart read without a fact
    text = ("$ ldconfig -p | grep libcuda\n"
            "        libcudart.so.13 (libc6,x86-64) => /usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13\n"
            "        libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n")
    r = lc.parse(Artefact(path="x", text=text, node="n1"))
    assert [(f.library, f.compat) for f in r.facts] == [("libcuda.so.1", False)]
    assert r.lines_used == 2


def test_gh200_compat_entries_and_the_header():
    text = "1180 libs found in cache `/etc/ld.so.cache'\n" + (FIXTURES / "vllm32474_gh200_cuda13_compat_entries.txt").read_text()
    r = lc.parse(Artefact(path="x", text=text, node="n1"))
    assert {f.library for f in r.facts} >= {"libnvidia-ptxjitcompiler.so.1", "libnvidia-gpucomp.so.580.82.07"}
    assert all(f.compat for f in r.facts) and r.lines_used == 12


def test_ldd_rows_are_not_the_cache():
    rows = "\tlibnccl.so.1 => /c7/home/tru/bench/nccl/nccl/build/lib/libnccl.so.1 (0x00007f56ab34b000)\n"  # NVIDIA/nccl#76
    assert ldd.detect(rows) and not lc.detect(rows)
    assert not ldd.detect((FIXTURES / "vllm19794_libcuda_compat_copy_first.txt").read_text())
