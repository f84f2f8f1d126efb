"""Ask the CUDA libraries themselves for every error code's name and text.

Run on a host with an NVIDIA driver and a CUDA runtime (a PyTorch install brings one)::

    python3 tools/probe_cuda_errors.py > tools/sources/cuda_error_strings.json

``cudaGetErrorName`` / ``cudaGetErrorString`` (libcudart) and ``cuGetErrorName`` /
``cuGetErrorString`` (libcuda) are called for every code in 0..MAX_CODE; codes the library
does not know (``cudaErrorUnknown``'s "unrecognized error code", ``CUDA_ERROR_INVALID_VALUE``
back from the driver) are left out, so the output is exactly the enums of the installed
versions, with the texts applications print. The header's doc comments (``driver_types.h``,
``cuda.h``) are added as ``description`` when the headers are found next to the library (the
pip wheels ``nvidia-cuda-runtime-cu12``/``nvidia-cuda-runtime`` ship them) or under
``/usr/local/cuda/include``. Standard library only: it must run on a bare GPU host.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import json
import os
import re
import sys

MAX_CODE = 1100


def _load(names: list[str]) -> ctypes.CDLL | None:
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            continue
    return None


def _cudart_candidates() -> list[str]:
    out = []
    for base in sys.path:
        out += sorted(glob.glob(os.path.join(base, "nvidia", "cuda_runtime", "lib", "libcudart.so*")))
        out += sorted(glob.glob(os.path.join(base, "nvidia", "cu13", "lib", "libcudart.so*")))
    out += sorted(glob.glob("/usr/local/cuda/lib64/libcudart.so*"))
    found = ctypes.util.find_library("cudart")
    return out + ([found] if found else [])


def _header_docs(path: str, pattern: str) -> dict[str, str]:
    """``{enum name: first sentence of its /** ... */ comment}``."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for m in re.finditer(r"/\*\*(?P<doc>(?:(?!\*/).)*?)\*/\s*(?P<name>" + pattern + r")\s*=\s*-?\d+", text, re.S):
        doc = " ".join(line.strip().lstrip("*").strip() for line in m["doc"].splitlines())
        doc = re.sub(r"\s+", " ", doc.replace("::", "")).strip()
        out.setdefault(m["name"], doc)
    return out


def _find_header(lib_path: str | None, name: str) -> str | None:
    cands = []
    if lib_path:
        cands.append(os.path.join(os.path.dirname(os.path.dirname(lib_path)), "include", name))
    for base in sys.path:
        cands += glob.glob(os.path.join(base, "nvidia", "*", "include", name))
    cands += [f"/usr/local/cuda/include/{name}", f"/usr/include/{name}"]
    return next((c for c in cands if os.path.exists(c)), None)


def _runtime() -> dict:
    cands = _cudart_candidates()
    lib, path = None, None
    for c in cands:
        lib = _load([c])
        if lib is not None:
            path = c
            break
    if lib is None:
        return {"error": "libcudart not found"}
    lib.cudaGetErrorName.restype = ctypes.c_char_p
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    ver = ctypes.c_int()
    lib.cudaRuntimeGetVersion(ctypes.byref(ver))
    header = _find_header(path, "driver_types.h")
    docs = _header_docs(header, r"cudaError\w+|cudaSuccess") if header else {}
    codes = []
    for code in range(MAX_CODE):
        name = lib.cudaGetErrorName(code).decode()
        if name in ("cudaErrorUnknown", "unrecognized error code") and code != 999:
            continue
        codes.append({"code": code, "name": name, "text": lib.cudaGetErrorString(code).decode(),
                      "description": docs.get(name, "")})
    return {"library": path, "version": ver.value, "header": header, "codes": codes}


def _driver() -> dict:
    lib = _load(["libcuda.so.1", "libcuda.so"])
    if lib is None:
        return {"error": "libcuda not found"}
    ver = ctypes.c_int()
    lib.cuDriverGetVersion(ctypes.byref(ver))
    header = _find_header(None, "cuda.h")
    docs = _header_docs(header, r"CUDA_ERROR_\w+|CUDA_SUCCESS") if header else {}
    codes = []
    for code in range(MAX_CODE):
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        if lib.cuGetErrorName(code, ctypes.byref(name)) != 0 or name.value is None:
            continue  # not a CUresult of this driver
        lib.cuGetErrorString(code, ctypes.byref(text))
        n = name.value.decode()
        codes.append({"code": code, "name": n, "text": (text.value or b"").decode(), "description": docs.get(n, "")})
    return {"library": "libcuda.so.1", "version": ver.value, "header": header, "codes": codes}


def main() -> None:
    json.dump({"runtime": _runtime(), "driver": _driver()}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
