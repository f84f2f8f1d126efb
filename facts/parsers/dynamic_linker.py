"""The dynamic linker's "undefined symbol" errors, in any program's output: a shared library that
needs a function the loaded copy of another library does not export (a library older than the
one it was built against, or a second copy shadowing the right one), so it is looked for anywhere
in a file.

glibc (elf/dl-lookup.c, ``_dl_lookup_symbol_x``) raises ``_dl_exception_create_format (&exception,
DSO_FILENAME (reference_name), "undefined symbol: %s%s%s", undef_name, versionstr, versionname)``
under "symbol lookup error" (``versionstr`` is ``", version "`` when the symbol is versioned).
``dlopen`` hands it to its caller as ``dlerror()``'s ``<object>: undefined symbol: <name>[, version
<v>]``, which Python raises as ``ImportError`` (an extension module) or ``OSError`` (ctypes); a
symbol bound lazily at run time makes ld.so print ``<program>: symbol lookup error: <object>:
undefined symbol: <name>`` and exit. Sample lines (real, from the public threads named)::

    ImportError: /home/test/anaconda3/envs/myenv/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister    (pytorch/pytorch#119932)
    torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister    (NVIDIA/nccl#1180, its title)

The loader's two other load-time errors are read here too (glibc's own wording):
``<program>: error while loading shared libraries: <lib>: cannot open shared object file: No such
file or directory`` (rtld's fatal error around elf/dl-load.c's "cannot open shared object file"),
and dlopen()'s same text raised by Python (``ImportError: <lib>: cannot open ...``), give
``shared_library_missing``; ``<lib>: version `<v>' not found (required by <object>)``
(elf/dl-version.c match_symbol) gives ``library_version_missing``. Sample lines::

    /sd-cli: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory    (leejet/stable-diffusion.cpp#1352)
    ImportError: libcuda.so.1: cannot open shared object file: No such file or directory    (openai/gpt-2#204)
    WARNING 10-01 12:03:47 [_custom_ops.py:21] Failed to import from vllm._C with ImportError('libcuda.so.1: cannot open shared object file: No such file or directory')    (kserve/kserve#4722, the exception's repr)
    ImportError: /lib64/libc.so.6: version `GLIBC_2.14' not found (required by /home/poinarlab/miniconda3/lib/python3.8/lib-dynload/../../libz.so.1)    (a public note in the code index)

TensorFlow's own loader (tsl/platform/default/dso_loader.cc, stream_executor/platform/default/ before
TF 2.9, compiler/xla/stream_executor/ in 2.11-2.13) logs a dlopen() it could not do as a warning and goes
on: without the CUDA libraries it skips the GPU ("Cannot dlopen some GPU libraries ... Skipping
registering GPU devices..."), without TensorRT or CUPTI only TF-TRT or the profiler is missing (TF 2.1-2.11
try libnvinfer on every import). TF 1.x wrote ``Couldn't open CUDA library <lib>. LD_LIBRARY_PATH: ...``
at INFO. Sample lines (real)::

    2020-01-23 07:49:01.813088: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: ...    (tensorflow/tensorflow#36088)
    2023-02-13 19:39:03.670024: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/lib64-nvidia    (googlecolab/colabtools#3408)
    I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH:     (TF 1.x, a public notebook in the code index)

each a ``shared_library_missing`` of the library TensorFlow asked for (``reported_as_warning``, the
dlerror in ``detail``: it may name another library the first needs). ``provider`` is read from the
library's name on every form: ``nvidia_driver``, ``cuda_toolkit`` (libcudart, libcublas[Lt],
libcudnn, libcufft, libcurand, libcusolver, libcusparse, libnvrtc, and their Windows DLLs),
``tensorrt`` (libnvinfer*), ``cuda_profiler`` (libcupti).

Facts: ``library_symbol_missing`` per line (the object that needs the symbol, the symbol, its
version when printed, and ``provider``: the library that exports a symbol of that name by its
naming convention, ``nccl`` for NCCL's ``nccl*``/``pnccl*`` API, ``rdma_core`` for the verbs of
libibverbs (``ibv_*``) and libmlx5 (``mlx5dv_*``); None for any other symbol, a C++ mangled name
included; ``object_library`` ``nccl`` when the object is a libnccl). An NCCL symbol missing means
the libnccl the process loaded is older than the one the object was built against
(rules/nccl/nccl_symbol_missing.yaml); a verbs symbol that a libnccl needs means that this NCCL
was built to call the verbs directly (RDMA_CORE=1) without the libibverbs that exports it linked
or loaded (rules/nccl/nccl_verbs_symbol_unresolved.yaml). Sample line (real)::

    /home/orinccl/nccl-tests/build/all_reduce_perf: symbol lookup error: /home/orinccl/nccl/build/lib/libnccl.so.2: undefined symbol: ibv_dereg_mr    (NVIDIA/nccl#1158)

ld.so's preload of a library named in LD_PRELOAD or /etc/ld.so.preload (or by --preload) that it
could not map is no fatal error: glibc's elf/rtld.c do_preload prints ``ERROR: ld.so: object '%s'
from %s cannot be preloaded (%s): ignored.`` (the file, where it was named, the loader's error;
older releases print it without the error) and runs the program without it, which gives
``library_preload_failed`` (the library, ``where``, ``reason``). Sample line (real)::

    ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.    (Project-HAMi/HAMi#1346)

Any other is left to unexplained_error. Empty input, or no such message: nothing.
"""
from __future__ import annotations

import re
from typing import Iterator

from stethoscope.facts import classify
from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    LibraryPreloadFailed, LibrarySymbolMissing, LibraryVersionMissing, SharedLibraryMissing,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nccl_log_scan import ALL_PREFIXED_TEXT

KIND = "dynamic_linker"

# ImportError: /.../torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister
# python3: symbol lookup error: /usr/lib/libfoo.so.1: undefined symbol: bar, version FOO_1.0     (glibc's format filled in)
# (the object: the last whitespace-free text before ": undefined symbol: "; the symbol: a C identifier or a mangled name)
UNDEFINED = re.compile(
    r"(?:^|[\s'\"(])(?P<object>[^\s'\"()]{1,1000}?): undefined symbol: (?P<symbol>[A-Za-z_$][\w$.@]{0,1000})"
    r"(?:, version (?P<version>[\w.@-]{1,200}))?", re.M)
# the symbols of NCCL's API (nccl.h: ncclCommInitRank ...; the profiling interface: pncclCommInitRank ...)
_NCCL_SYMBOL = re.compile(r"p?nccl[A-Z]\w*")
# the verbs of rdma-core: libibverbs' API (infiniband/verbs.h: ibv_dereg_mr ...) and libmlx5's direct verbs
# (infiniband/mlx5dv.h: mlx5dv_reg_dmabuf_mr ...)
# /home/orinccl/nccl-tests/build/all_reduce_perf: symbol lookup error: /home/orinccl/nccl/build/lib/libnccl.so.2: undefined symbol: ibv_dereg_mr    (NVIDIA/nccl#1158)
_VERBS_SYMBOL = re.compile(r"(?:ibv|mlx5dv)_\w+")
# the C++ symbols of PyTorch's own libraries (libc10, libtorch_cpu, libtorch_cuda), mangled (Itanium C++ ABI) in their
# namespaces c10, at and torch: _ZN3c105ErrorC2ENS_14SourceLocationE..., _ZN3c104cuda9SetDeviceEi, _ZN2at4_ops5zeros4callE...,
# const members _ZNK3c10..., vtables and typeinfo _ZTVN3c10..., _ZTIN3c10...
# ImportError: /usr/local/lib/python3.8/dist-packages/flash_attn_2_cuda.cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi   (Dao-AILab/flash-attention#1612)
#   (an extension (flash-attn, apex, TransformerEngine, vLLM's _C, xformers) built against one PyTorch release, or with the
#   other setting of _GLIBCXX_USE_CXX11_ABI, loaded into another: the symbol's mangled name changed between releases)
_TORCH_SYMBOL = re.compile(r"_Z(?:NK?|T[VIS]NK?)(?:3c10|2at|5torch)\w*")
# libnccl.so, libnccl.so.2, libnccl.so.2.19.3 (the object of the line above)
_NCCL_LIBRARY = re.compile(r"libnccl\.so(?:\.\d+)*")
# PyTorch's own libraries (torch/lib: libtorch_python.so, libtorch_cuda.so, libc10.so, libc10_cuda.so, libshm.so): one of them
# missing a symbol of another is the torch installation itself mixed or broken (pytorch/pytorch#32638), not an extension
_TORCH_LIBRARY = re.compile(r"lib(?:torch\w*|c10\w*|shm|caffe2\w*)\.so(?:\.\d+)*")


# NCCL's own probes, which nccl_log reads (a missing symbol there is NCCL choosing another path):
# vm:1502:1513 [0] NCCL INFO dlvsym failed on mlx5dv_reg_dmabuf_mr - /lib/x86_64-linux-gnu/libmlx5.so: undefined symbol: mlx5dv_reg_dmabuf_mr, version MLX5_1.25 version MLX5_1.25
# NET/Plugin: Plugin load returned 2 : libnccl-net.so: undefined symbol: ...     (nccl_net_plugin_load_failed's)
_NCCL_OWN = ("NCCL INFO", "NCCL WARN", "NET/Plugin")


def _in_nccl_line(m: re.Match[str]) -> bool:
    """The match sits in one of NCCL's own log lines."""
    before = m.string[m.string.rfind("\n", 0, m.start()) + 1:m.start()]
    return any(k in before for k in _NCCL_OWN)


_MARK = ": undefined symbol: "

# /sd-cli: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory
# ImportError: libcuda.so.1: cannot open shared object file: No such file or directory
# WARNING 10-01 12:03:47 [_custom_ops.py:21] Failed to import from vllm._C with ImportError('libcuda.so.1: cannot open shared object file: No such file or directory')
#   (kserve/kserve#4722: vLLM in a KServe predictor pod given nvidia.com/gpu; vllm/_custom_ops.py logs the caught
#   exception with %r, so Python's repr of it: the class, then the message quoted in parentheses)
# (ld.so's form names the program; Python's names the library right after its exception class, as str() or repr();
# NCCL's own "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file" probes are not these)
NO_FILE = re.compile(
    r"(?:(?P<program>[^\s'\"]{1,1000}): error while loading shared libraries: |\b(?:ImportError|OSError)(?:: |\(['\"]))"
    r"(?P<library>[^\s:'\"()]{1,1000}\.so(?:\.[\w.]{1,40})?): cannot open shared object file: No such file or directory")
_NO_FILE_MARK = ": cannot open shared object file: No such file or directory"
# /lib64/libc.so.6: version `GLIBC_2.27' not found (required by /usr/local/nvidia/toolkit/libnvidia-container.so.1)
VERSION = re.compile(
    r"(?P<library>[^\s:'\"()]{1,1000}): version [`'](?P<version>[\w.@-]{1,200})' not found \(required by (?P<by>[^\s)]{1,1000})\)")
_VERSION_MARK = "' not found (required by "
# ERROR: ld.so: object '/usr/local/vgpu/libvgpu.so' from /etc/ld.so.preload cannot be preloaded (cannot read file data): ignored.    (Project-HAMi/HAMi#1346)
# ERROR: ld.so: object '/usr/lib/libfoo.so' from LD_PRELOAD cannot be preloaded: ignored.    (glibc before the reason was printed)
PRELOAD = re.compile(r"ld\.so: object '(?P<library>[^'\n]{1,1000})' from (?P<where>\S{1,1000}) cannot be preloaded"
                     r"(?: \((?P<reason>[^\n]{1,300}?)\))?: ignored")
_PRELOAD_MARK = " cannot be preloaded"
# the driver's user-space libraries: they come from the host's driver (a container gets them from the
# NVIDIA runtime), never from an image or a wheel
_DRIVER_LIB = re.compile(r"lib(?:cuda|nvidia-[\w-]+|nvcuvid|nvoptix)\.so(?:\.[\w.]+)?|nvcuda\.dll")
#: the other NVIDIA libraries a framework loads, by name (the soname or the Windows DLL: cudart64_110.dll)
_PROVIDERS = (
    ("cuda_toolkit", re.compile(r"(?:lib)?(?:cudart|cublas(?:Lt)?|cudnn\w*|cufft|curand|cusolver|cusparse|nvrtc)"
                                r"(?:\.so(?:\.[\w.]+)?|64_\w+\.dll)")),
    ("tensorrt", re.compile(r"(?:lib)?nvinfer\w*(?:\.so(?:\.[\w.]+)?|(?:_\d+)?\.dll)")),
    ("cuda_profiler", re.compile(r"(?:lib)?cupti(?:\.so(?:\.[\w.]+)?|64_\w+\.dll)")),
)
# 2020-01-23 07:49:01.813088: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/cuda/lib64:
# W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found
# I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH:
TF_DSO = re.compile(r"\bdso_loader\.cc:\d{1,5}\] (?:Could not load dynamic library '(?P<library>[^'\n]{1,300})'; dlerror: "
                    r"(?P<detail>(?:[^\n]{0,399}?[^\n](?:(?<![ \t\r])|(?![ \t\r])))??)(?:; LD_LIBRARY_PATH: [^\n]{0,2000}+)?[ \t\r]*$"
                    r"|Couldn't open CUDA library (?P<old>[^\s\n]{1,300}?)\.? LD_LIBRARY_PATH:)", re.M)
_TF_DSO_MARK = "dso_loader.cc:"


def provider_of(library: str) -> str | None:
    """Who ships a library, by its file name (see SharedLibraryMissing.provider)."""
    name = library.rsplit("/", 1)[-1]
    if _DRIVER_LIB.fullmatch(name):
        return "nvidia_driver"
    return next((p for p, rx in _PROVIDERS if rx.fullmatch(name)), None)


def _abi(version: str) -> str | None:
    if version.startswith("GLIBC_"):
        return "glibc"
    if version.startswith(("GLIBCXX_", "CXXABI_")):
        return "libstdc++"
    return None


def _marked(text: str, mark: str, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """pattern's matches in the lines that hold mark (found by str.find, at C speed)."""
    pos = text.find(mark)
    while pos != -1:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        yield from pattern.finditer(text, start, end)
        pos = text.find(mark, end)


def _matches(text: str) -> Iterator[re.Match[str]]:
    """UNDEFINED's matches, each looked for only in a line holding _MARK: UNDEFINED itself is tried
    at every blank of a text, ~16 ms on a 170 kB NCCL log whose probe lines name an undefined
    symbol (bench/synth_bundle.py's nodes)."""
    return _marked(text, _MARK, UNDEFINED)


def detect(head: str) -> bool:
    # each form looked for only where the classifier's pass found its signature (found(): False
    # when it did not, None for a text it did not scan): an NCCL log's dlvsym probes name an
    # undefined symbol, and the three other searches of its 175 kB cost 0.1 ms
    undefined, no_file, version, tf_dso, preload = (classify.found(head, sig) is not False for sig in SIGNATURES)
    if undefined or no_file or version:
        # a log NCCL wrote alone (every line starts with NCCL's prefix, ALL_PREFIXED_TEXT: the pass answers it):
        # a match of UNDEFINED, NO_FILE or VERSION starts in its line's message, after the prefix's "NCCL INFO" or
        # "NCCL WARN" (the object, program or library is the blank-free text right before the form's ": ", and the
        # prefix holds a blank and no ": "), so each sits in an NCCL line: only TF_DSO can be its, and the three
        # searches of a 175 kB nccl-tests log (its dlvsym probes name undefined symbols: ~0.09 ms) are not made
        if classify.gate(head, ALL_PREFIXED_TEXT):
            undefined = no_file = version = False
    return (undefined and any(not _in_nccl_line(m) for m in _matches(head))
            or no_file and any(not _in_nccl_line(m) for m in _marked(head, _NO_FILE_MARK, NO_FILE))
            or version and any(not _in_nccl_line(m) for m in _marked(head, _VERSION_MARK, VERSION))
            or tf_dso and any(True for _ in _marked(head, _TF_DSO_MARK, TF_DSO))
            or preload and any(True for _ in _marked(head, _PRELOAD_MARK, PRELOAD)))


def _object_library(name: str) -> str | None:
    """Whose library the object needing a symbol is, by its file name (LibrarySymbolMissing.object_library)."""
    return "nccl" if _NCCL_LIBRARY.fullmatch(name) else "pytorch" if _TORCH_LIBRARY.fullmatch(name) else None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for m in _matches(artefact.text):
        n = artefact.line_of(m.start())
        if _in_nccl_line(m):
            continue
        result.lines_used += 1
        sym = m["symbol"]
        provider = ("nccl" if _NCCL_SYMBOL.fullmatch(sym) else "rdma_core" if _VERBS_SYMBOL.fullmatch(sym)
                    else "pytorch" if _TORCH_SYMBOL.fullmatch(sym) else None)
        fb.add(LibrarySymbolMissing, n, object=m["object"], symbol=sym, version=m["version"], provider=provider,
               object_library=_object_library(m["object"].rsplit("/", 1)[-1]))
    for m in _marked(artefact.text, _NO_FILE_MARK, NO_FILE):
        if _in_nccl_line(m):
            continue
        result.lines_used += 1
        lib = m["library"]
        fb.add(SharedLibraryMissing, artefact.line_of(m.start()), library=lib, program=m["program"], provider=provider_of(lib))
    for m in _marked(artefact.text, _TF_DSO_MARK, TF_DSO):
        result.lines_used += 1
        lib = m["library"] or m["old"]
        fb.add(SharedLibraryMissing, artefact.line_of(m.start()), library=lib, program="tensorflow", provider=provider_of(lib),
               reported_as_warning=True, detail=m["detail"] or None)
    for m in _marked(artefact.text, _VERSION_MARK, VERSION):
        if _in_nccl_line(m):  # NCCL's net plugin dlerror (nccl_log's)
            continue
        result.lines_used += 1
        fb.add(LibraryVersionMissing, artefact.line_of(m.start()), library=m["library"], version=m["version"],
               required_by=m["by"], abi=_abi(m["version"]))
    for m in _marked(artefact.text, _PRELOAD_MARK, PRELOAD):
        result.lines_used += 1
        fb.add(LibraryPreloadFailed, artefact.line_of(m.start()), library=m["library"], where=m["where"], reason=m["reason"])
    return result


#: line signatures (facts/classify.py), in detect()'s order of its forms: UNDEFINED, NO_FILE, VERSION, TF_DSO, PRELOAD
SIGNATURES = (r": undefined symbol: [A-Za-z_$]", r"\.so[\w.]*: cannot open shared object file: No such file or directory",
              r"' not found \(required by ", r"dso_loader\.cc:\d+\] (?:Could not load dynamic library '|Couldn't open CUDA library )",
              r"ld\.so: object '[^']+' from \S+ cannot be preloaded")
#: whether every line carries NCCL's prefix (nccl_log's gate too: the set holds it once), answered by the classifier's pass
TEXT_GATES = (ALL_PREFIXED_TEXT,)
