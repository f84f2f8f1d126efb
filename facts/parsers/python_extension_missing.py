"""Python's report that a compiled extension module of a package is not installed, in any program's output (a
traceback's last line, pytest's ``E   `` line), so it is looked for anywhere in a file.

CPython (Python/import.c and importlib._bootstrap ``_find_and_load_unlocked``: ``_ERR_MSG = 'No module named {!r}'``)
raises ``ModuleNotFoundError: No module named '<name>'`` (Python 3.6+; ``ImportError`` before, and Python 2's
``ImportError: No module named <name>`` without the quotes) when no finder has the module. Where the module is a
compiled C++/CUDA extension that a package builds at install time (setuptools' ``CUDAExtension`` / ``CppExtension`` of
torch.utils.cpp_extension: apex's ``fused_layer_norm_cuda`` and ``amp_C``, flash-attn's ``flash_attn_2_cuda``, mamba's
and VMamba's ``selective_scan_cuda[_core]``, ``causal_conv1d_cuda``, vLLM's ``vllm._C``, mmcv's ``mmcv._ext``,
detectron2's ``detectron2._C``), the package's Python part is there and its binary part is not: it was installed
without building it (apex's ``pip install`` without ``--cpp_ext --cuda_ext``), its build failed or was skipped (no
nvcc, a CUDA that does not match PyTorch's), or it was built into another environment. Sample lines (real)::

    ModuleNotFoundError: No module named 'fused_layer_norm_cuda'    (facebookresearch/esm#62: torch.hub.load of an ESM model with apex installed)
    E   ModuleNotFoundError: No module named 'selective_scan_cuda'    (TerryPei/EfficientVMamba#26: pytest of the selective-scan kernel)

The module is taken for a compiled extension by its name's last part, the names torch.utils.cpp_extension's users give
them: ``_C`` or ending in ``_C`` (``amp_C``, ``_moe_C``), ``_ext`` / ``*_ext``, ``*_cuda`` and ``*_cuda_<variant>``,
``*_cpp``, ``*_kernel(s)``. Any other missing module (a pure-Python package not installed) is not read here.
A logged fallback that quotes the exception's repr (vLLM's ``Failed to import from vllm._C with
ModuleNotFoundError("No module named 'vllm._C'")``) is not a raised exception: not read.

Facts: ``python_extension_missing`` per line (the module, its package: the first dotted part where the module has
one, and the exception's class). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import PythonExtensionMissing  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "python_extension_missing"

# ModuleNotFoundError: No module named 'fused_layer_norm_cuda'                 (facebookresearch/esm#62)
# E   ModuleNotFoundError: No module named 'selective_scan_cuda'              (TerryPei/EfficientVMamba#26, pytest's E line)
# ImportError: No module named 'vllm._C'                                         (CONSTRUCTED: Python 3.5's class, the same message)
# ImportError: No module named fused_layer_norm_cuda                            (CONSTRUCTED: Python 2's form, unquoted)
#   (the class then ": " (a raised exception's last line, not a repr in a logged fallback), the name's last part one of
#   the extension suffixes; the quote closed, or no quote and the name at the line's end)
MISSING = re.compile(
    r"\b(?P<exc>ModuleNotFoundError|ImportError): No module named (?P<q>'?)(?P<module>(?:[A-Za-z_]\w{0,100}\.){0,8}"
    r"(?:_C|\w{0,100}_(?:C|ext|cuda|cuda_\w{1,40}|cpp|kernels?)))(?P=q)(?![\w.])", re.M)


def detect(head: str) -> bool:
    return "No module named " in head and MISSING.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if "No module named " not in artefact.text:
        return result
    for n, m in iter_matches(MISSING, artefact):
        if not m["q"] and m.end() < len(artefact.text) and artefact.text[m.end()] not in "\r\n \t":
            continue  # unquoted (Python 2): the name ends the line
        result.lines_used += 1
        module = m["module"]
        fb.add(PythonExtensionMissing, n, module=module, package=module.split(".", 1)[0] if "." in module else None,
               exception=m["exc"])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?:ModuleNotFoundError|ImportError): No module named '?(?:\w+\.)*\w*_(?:C|ext|cuda|cpp|kernel)",)
