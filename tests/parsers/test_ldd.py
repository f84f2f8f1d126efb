"""ldd: the libraries the loader resolves for a program, from a real paste (fixtures/artefacts/ldd/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import ldd
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/ldd"


def parse(text: str):
    return ldd.parse(Artefact(path="ldd.txt", text=text, node="n1"))


def fields(f) -> dict:
    return {k: v for k, v in f.model_dump().items() if k not in ("id", "node", "evidence", "kind") and v is not None}


def test_resolved_libraries_with_their_program():
    # NVIDIA/nccl#76: NCCL 1 from a GitHub build dir, the CUDA 8.0 runtime, the driver's libcuda
    text = (FIX / "nccl76_nccl1_tests_github_build.txt").read_text()
    assert ldd.detect(text)
    res = parse(text)
    got = [fields(f) for f in res.facts]
    assert [g["library"] for g in got] == ["linux-vdso.so.1", "libnccl.so.1", "libcudart.so.8.0", "librt.so.1", "libcuda.so.1"]
    assert got[1] == {"library": "libnccl.so.1", "path": "/c7/home/tru/bench/nccl/nccl/build/lib/libnccl.so.1",
                      "soname_version": "1", "program": "build/test/single/all_reduce_scan", "provider": "nccl"}
    assert (got[2]["soname_version"], got[2]["provider"]) == ("8.0", "cuda_toolkit")
    assert got[4]["provider"] == "nvidia_driver" and "path" not in got[0]
    assert {f.kind for f in res.facts} == {"linked_library"}
    assert res.lines_used == 6 and res.facts[1].evidence.line == 3


def test_not_found_is_a_missing_library():
    # glibc's elf/rtld.c trace form "\t%s => not found" (the driver's libcuda absent in a container),
    # beside the "\t%s (0x%0*Zx)" form of the vDSO in glibc >= 2.18
    res = parse("$ ldd ./all_reduce_perf\n\tlinux-vdso.so.1 (0x00007ffd5e9f4000)\n\tlibcuda.so.1 => not found\n"
                "\tlibcudart.so.12 => not found\n\tlibnccl.so.2 => not found\n")
    missing = [fields(f) for f in res.facts if f.kind == "shared_library_missing"]
    assert missing == [{"library": "libcuda.so.1", "program": "./all_reduce_perf", "provider": "nvidia_driver", "reported_as_warning": False},
                       {"library": "libcudart.so.12", "program": "./all_reduce_perf", "provider": "cuda_toolkit", "reported_as_warning": False},
                       {"library": "libnccl.so.2", "program": "./all_reduce_perf", "reported_as_warning": False}]


def test_other_text_is_not_ldd():
    assert not ldd.detect("")
    # ldconfig -p's cache listing, and an NCCL log naming a library, are other tools' lines
    assert not ldd.detect("\tlibnccl.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnccl.so.2\n")
    assert not ldd.detect("node1:123:123 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so)\n")


def test_driver_library_from_a_compat_directory():
    # ldd's "\t%s => %s (0x%0*Zx)" row resolving libcuda.so.1 to a CUDA image's forward-compatibility copy
    # (the path as ldconfig -p printed it in vllm-project/vllm#19794); the host driver's copy is not compat,
    # and a library of another provider says nothing of it
    res = parse("$ ldd /usr/local/bin/python3\n"
                "\tlibcuda.so.1 => /usr/local/cuda-12.8/compat/libcuda.so.1 (0x00007f3b1c000000)\n"
                "\tlibnvidia-ml.so.1 => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 (0x00007f3b1a000000)\n"
                "\tlibcudart.so.12 => /usr/local/cuda-12.8/compat/../lib64/libcudart.so.12 (0x00007f3b19000000)\n")
    got = [(f.library, f.compat) for f in res.facts]
    assert got == [("libcuda.so.1", True), ("libnvidia-ml.so.1", False), ("libcudart.so.12", None)]
