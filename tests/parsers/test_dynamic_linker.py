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
