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
    # a C++ mangled name of PyTorch's namespace torch (pytorch/pytorch#32638): PyTorch's; another library's C symbol: no provider
    ("ImportError: /usr/lib/python3.8/site-packages/torch/lib/libtorch_python.so: undefined symbol: _ZN5torch4cuda4nccl6detail16throw_nccl_errorE12ncclResult_t",
     "/usr/lib/python3.8/site-packages/torch/lib/libtorch_python.so", "_ZN5torch4cuda4nccl6detail16throw_nccl_errorE12ncclResult_t", None, "pytorch"),
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
    # kserve/kserve#4722: vLLM logs the ImportError it caught with %r: the exception's repr, the message in quotes
    (h,) = parse_text((FIX / "kserve4722_vllm_c_import_libcuda_repr.txt").read_text()).facts
    assert (h.library, h.provider) == ("libcuda.so.1", "nvidia_driver")
    assert [x.library for x in parse_text("OSError(\"libnvidia-ml.so.1: cannot open shared object file: No such file or "
                                          "directory\")\n").facts] == ["libnvidia-ml.so.1"]
    # a repr of another exception class is not the loader's (CONSTRUCTED near miss)
    assert parse_text("ValueError('libcuda.so.1: cannot open shared object file: No such file or directory')\n").facts == []
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


@pytest.mark.parametrize("name, expected", [
    ("tf36088_tensorrt_optional.log", [(1, "libnvinfer.so.6", "tensorrt"), (2, "libnvinfer_plugin.so.6", "tensorrt")]),
    ("colab3408_xla_nvinfer.log", [(1, "libnvinfer.so.7", "tensorrt"), (2, "libnvinfer_plugin.so.7", "tensorrt")]),
    ("nvtf110_cusolver_nvjitlink.log", [(5, "libcusolver.so.11", "cuda_toolkit")]),
    ("jax3746_tf_cudart.log", [(1, "libcudart.so.11.0", "cuda_toolkit")]),
])
def test_tensorflow_dso_loader_warnings(name, expected):
    """TensorFlow's own loader: the library it asked for, its dlerror kept; its successful loads are no fact."""
    text = (FIX / name).read_text()
    assert dynamic_linker.detect(text)
    got = parse_text(text).facts
    assert [(f.evidence.line, f.library, f.provider) for f in got] == expected
    assert all(f.reported_as_warning and f.program == "tensorflow" for f in got)
    if name.startswith("nvtf110"):
        assert got[0].detail == "libnvJitLink.so.12: cannot open shared object file: No such file or directory"


@pytest.mark.parametrize("line, library, provider", [
    # the Windows build (dso_loader.cc's message with the DLL's name)
    ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; "
     "dlerror: cudart64_110.dll not found", "cudart64_110.dll", "cuda_toolkit"),
    ("W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libcuda.so.1'; "
     "dlerror: libcuda.so.1: cannot open shared object file: No such file or directory", "libcuda.so.1", "nvidia_driver"),
    # TF 1.x (stream_executor/dso_loader.cc, LOG(INFO))
    ("I tensorflow/stream_executor/dso_loader.cc:142] Couldn't open CUDA library libcupti.so.9.0. LD_LIBRARY_PATH: /usr/local/cuda-9.0/lib64",
     "libcupti.so.9.0", "cuda_profiler"),
    ("I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH: ", "libcudnn.so", "cuda_toolkit"),
])
def test_tensorflow_forms_filled_in(line, library, provider):
    (f,) = parse_text(line + "\n").facts
    assert (f.library, f.provider) == (library, provider)


def test_tensorflow_successful_loads_are_nothing():
    text = "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0\n"
    assert not dynamic_linker.detect(text) and parse_text(text).facts == []


def test_import_error_of_a_cuda_library_names_its_provider():
    (f,) = parse_text("ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n").facts
    assert (f.provider, f.reported_as_warning) == ("cuda_toolkit", False)


def test_a_verbs_symbol_libnccl_needs():
    # NVIDIA/nccl#1158: an RDMA_CORE=1 build of NCCL not linked against libibverbs
    text = (FIX / "nccl1158_libnccl_undefined_ibv_dereg_mr.txt").read_text()
    (f,) = parse_text(text).facts
    assert (f.symbol, f.provider, f.object_library, f.evidence.line) == ("ibv_dereg_mr", "rdma_core", "nccl", 1)
    assert f.object == "/home/orinccl/nccl/build/lib/libnccl.so.2"


def test_a_verbs_symbol_of_libmlx5_itself_is_no_libnccl():
    # vllm-project/vllm#42750's title: the library named is the one searched (NCCL's optional-symbol probe)
    (f,) = parse_text((FIX / "vllm42750_title_libmlx5_undefined_mlx5dv.txt").read_text()).facts
    assert (f.symbol, f.provider, f.object_library) == ("mlx5dv_get_data_direct_sysfs_path", "rdma_core", None)


# --- wild sweep P2: PyTorch's C++ symbols an extension built for another PyTorch needs ------------------------------

@pytest.mark.parametrize("name, lines", [
    # Dao-AILab/flash-attention#1612: behind transformers' "Failed to import ..." (the path alone, no ImportError)
    ("fa1612_flash_attn_undefined_at_ops_zeros.txt", [2]),
    # Dao-AILab/flash-attention#680: the cxx11abiTRUE wheel for torch 2.1 beside torch 2.1.0
    ("fa680_flash_attn_wheel_undefined_c10_error_paste.txt", [1]),
])
def test_extension_needing_a_pytorch_symbol(name, lines):
    facts = parse_text((FIX / name).read_text()).facts
    assert [(f.evidence.line, f.provider, f.object_library) for f in facts] == [(n, "pytorch", None) for n in lines]
    assert all("flash_attn_2_cuda" in f.object for f in facts)


@pytest.mark.parametrize("symbol, provider", [
    ("_ZN3c104cuda9SetDeviceEi", "pytorch"),  # Dao-AILab/flash-attention#1612's comment
    ("_ZNK3c1010TensorImpl4sizeEv", "pytorch"),  # CONSTRUCTED: a const member of c10
    ("_ZTVN5torch8autograd12AutogradMetaE", "pytorch"),  # CONSTRUCTED: a vtable in namespace torch
    ("_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "pytorch"),
    ("_ZN4cuda3fooEv", None),  # CONSTRUCTED: another library's namespace
    ("_ZN3c1x4fooEv", None),  # CONSTRUCTED: not the namespace c10
])
def test_pytorch_symbol_provider(symbol, provider):
    (f,) = parse_text(f"ImportError: /x/site-packages/ext_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: {symbol}\n").facts
    assert (f.provider, f.object_library) == (provider, None)


def test_pytorch_own_library_is_named_as_such():
    (f,) = parse_text((FIX / "torch32638_undefined_mangled_symbol.txt").read_text()).facts
    assert (f.provider, f.object_library) == ("pytorch", "pytorch")


def test_library_preload_failed():
    # Project-HAMi/HAMi#1346: a HAMi vGPU container whose /etc/ld.so.preload names libvgpu.so, which ld.so could not read
    text = (FIX / "hami1346_libvgpu_not_preloaded.txt").read_text()
    assert dynamic_linker.detect(text)
    (f,) = parse_text(text).facts
    assert (f.kind, f.library, f.where, f.reason) == (
        "library_preload_failed", "/usr/local/vgpu/libvgpu.so", "/etc/ld.so.preload", "cannot read file data")
    # glibc's form before the loader's error was printed (unrecognised_text's old sample; CONSTRUCTED from elf/rtld.c)
    (g,) = parse_text("ERROR: ld.so: object '/usr/lib/libfoo.so' from LD_PRELOAD cannot be preloaded: ignored.\n").facts
    assert (g.library, g.where, g.reason) == ("/usr/lib/libfoo.so", "LD_PRELOAD", None)
    # a line that only talks about preloading is nothing (CONSTRUCTED near miss)
    assert parse_text("the object cannot be preloaded before start\n").facts == []
