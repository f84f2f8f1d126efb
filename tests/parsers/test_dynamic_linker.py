"""dynamic_linker: glibc's "undefined symbol" errors as Python and ld.so print them, in any output."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import dynamic_linker
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/dynamic_linker"


def parse_text(text: str):
    return dynamic_linker.parse(Artefact(path="t.log", text=text, node="node1"))


def test_torch_import_error_of_an_nccl_symbol():
    text = (FIX / "torch119932_undefined_ncclcommregister.txt").read_text()
    assert dynamic_linker.detect(text)
    (f,) = parse_text(text).facts
    assert (f.evidence.line, f.symbol, f.provider, f.version) == (13, "ncclCommRegister", "nccl", None)
    assert f.object.endswith("/site-packages/torch/lib/libtorch_cuda.so")


@pytest.mark.parametrize("line,obj,symbol,version,provider", [
    # NVIDIA/nccl#1180's title: the message without Python's exception name
    ("torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister", "torch/lib/libtorch_cuda.so", "ncclCommRegister", None, "nccl"),
    # ld.so's lazy-binding failure, glibc's format filled in, with a versioned symbol
    ("python3: symbol lookup error: /opt/x/lib/libfoo.so.1: undefined symbol: ncclCommWindowRegister, version NCCL_2.27",
     "/opt/x/lib/libfoo.so.1", "ncclCommWindowRegister", "NCCL_2.27", "nccl"),
    # ctypes' OSError, the profiling interface's name
    ("OSError: /usr/lib/libnccl-net.so: undefined symbol: pncclAllReduce", "/usr/lib/libnccl-net.so", "pncclAllReduce", None, "nccl"),
    # a C++ mangled name (pytorch/pytorch#32638) and another library's C symbol: no provider
    ("ImportError: /usr/lib/python3.8/site-packages/torch/lib/libtorch_python.so: undefined symbol: _ZN5torch4cuda4nccl6detail16throw_nccl_errorE12ncclResult_t",
     "/usr/lib/python3.8/site-packages/torch/lib/libtorch_python.so", "_ZN5torch4cuda4nccl6detail16throw_nccl_errorE12ncclResult_t", None, None),
    ("ImportError: /x/flash_attn_2_cuda.so: undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12",
     "/x/flash_attn_2_cuda.so", "cudaGetDriverEntryPointByVersion", "libcudart.so.12", None),
])
def test_forms(line, obj, symbol, version, provider):
    (f,) = parse_text(line + "\n").facts
    assert (f.object, f.symbol, f.version, f.provider) == (obj, symbol, version, provider)


@pytest.mark.parametrize("text", [
    "",
    "ImportError: cannot import name 'foo' from 'bar'\n",
    # NCCL's net plugin probe is nccl_log's (nccl_net_plugin_load_failed)
    "node1:1:1 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: undefined symbol: ncclNetPlugin_v9.\n",
    # NCCL's probe of an optional libmlx5 entry point (our own H200 capture, fixtures/artefacts/nccl_log)
    "vm:1502:1513 [0] NCCL INFO dlvsym failed on mlx5dv_reg_dmabuf_mr - /lib/x86_64-linux-gnu/libmlx5.so: undefined symbol: mlx5dv_reg_dmabuf_mr, version MLX5_1.25 version MLX5_1.25\n",
])
def test_near_misses(text):
    assert parse_text(text).facts == []


def test_shared_library_missing_forms():
    # openai/gpt-2#204: Python's ImportError of the driver's library in a container run without the runtime
    (f,) = parse_text((FIX / "gpt2_204_importerror_libcuda.txt").read_text()).facts
    assert (f.kind, f.library, f.program, f.provider) == ("shared_library_missing", "libcuda.so.1", None, "nvidia_driver")
    # ld.so's own form names the program; a library of another package has no provider
    (g,) = parse_text((FIX / "mysql_libncursesw_missing.txt").read_text()).facts
    assert (g.library, g.program, g.provider) == ("libncursesw.so.5", "mysql", None)
    # NCCL's plugin probe is nccl_log's, not a load failure
    assert parse_text("x:1:1 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: "
                      "No such file or directory No plugin found (libnccl-net.so), using internal implementation\n").facts == []


def test_library_version_missing():
    (f,) = parse_text((FIX / "glibc_2_14_version_not_found.txt").read_text()).facts
    assert (f.kind, f.library, f.version, f.abi) == ("library_version_missing", "/lib64/libc.so.6", "GLIBC_2.14", "glibc")
    assert f.required_by.endswith("/libz.so.1")
    # a libstdc++ version behind a hook's stderr prefix (the same glibc format)
    (g,) = parse_text("stderr: /usr/bin/x: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /usr/bin/x)\n").facts
    assert (g.version, g.abi) == ("GLIBCXX_3.4.29", "libstdc++")


def test_nccl_plugin_dlerror_of_a_version_is_not_read_here():
    # harvest 126 (awsome-distributed-ai#292): NCCL's own NET/Plugin line, nccl_log's to read
    assert parse_text(" [0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' "
                      "not found (required by /x/libnccl-net.so)\n").facts == []
