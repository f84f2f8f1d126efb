"""python_extension_missing: a package's compiled extension module not found (real samples: fixtures/artefacts/
python_extension_missing/README.md)."""
from __future__ import annotations

import parser_rows
import pytest

from stethoscope.facts.parsers import python_extension_missing as pem

FIELDS = ("module", "package", "exception")


@pytest.mark.parametrize("name,line,module", [
    ("esm62_fused_layer_norm_cuda.txt", 1, "fused_layer_norm_cuda"),
    ("efficientvmamba26_pytest_selective_scan_cuda.txt", 3, "selective_scan_cuda"),
])
def test_real_lines(name, line, module):
    [f] = parser_rows.read_fixture(pem, name).facts
    assert (f.evidence.line, f.module, f.package, f.exception) == (line, module, None, "ModuleNotFoundError")


@pytest.mark.parametrize("line,want", [
    # CONSTRUCTED from CPython's 'No module named {!r}' with the extension names packages give (torch.utils.cpp_extension)
    ("ModuleNotFoundError: No module named 'vllm._C'", [("vllm._C", "vllm", "ModuleNotFoundError")]),
    ("ModuleNotFoundError: No module named 'amp_C'", [("amp_C", None, "ModuleNotFoundError")]),
    ("ModuleNotFoundError: No module named 'mmcv._ext'", [("mmcv._ext", "mmcv", "ModuleNotFoundError")]),
    ("ModuleNotFoundError: No module named 'selective_scan_cuda_core'", [("selective_scan_cuda_core", None, "ModuleNotFoundError")]),
    # Python 3.5's class, and Python 2's unquoted name at the line's end
    ("ImportError: No module named 'fused_layer_norm_cuda'", [("fused_layer_norm_cuda", None, "ImportError")]),
    ("ImportError: No module named fused_layer_norm_cuda", [("fused_layer_norm_cuda", None, "ImportError")]),
    # not read: a pure-Python package missing, a name without an extension's suffix, a logged fallback quoting the
    # exception's repr (vllm/_custom_ops.py's form: no raised exception), Python 2's form not ending the line
    ("ModuleNotFoundError: No module named 'transformers'", []),
    ("ModuleNotFoundError: No module named 'cuda'", []),
    ("WARNING 10-01 12:03:47 [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")", []),
    ("ImportError: No module named fused_layer_norm_cuda_helpers.py was found", []),
])
def test_forms(line, want):
    assert parser_rows.line_fields(pem, line, FIELDS) == want
