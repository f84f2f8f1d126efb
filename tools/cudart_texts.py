"""Every cudaError_t name and cudaGetErrorString text of each CUDA runtime on PyPI, for bench/message_audit.py.

    .venv/bin/python tools/cudart_texts.py /tmp/cudart > tools/sources/cudart_texts.json

Downloads NVIDIA's runtime wheels (``nvidia-cuda-runtime-cu11``/``-cu12``, ``nvidia-cuda-runtime``
for 13.x) with pip into the folder given, loads each ``libcudart.so`` with ctypes and asks
``cudaGetErrorName``/``cudaGetErrorString`` for every code (neither needs a GPU or a driver).
The texts change between releases (``cudaErrorInvalidNormSetting``'s in 12.8); the output keeps
each text with the releases that print it, and the first sentence of the newest release's
header comment (``driver_types.h`` in the wheel) as ``description``. tools/gen_cuda_errors.py adds
the codes newer than its probe and the older texts to knowledge/cuda_errors.yaml;
bench/message_audit.py prints every name and text in the forms applications use. The driver API's ``cuGetErrorString`` lives in the
driver (libcuda), not in a wheel: its texts are tools/sources/cuda_error_strings.json's.
"""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import zipfile
from pathlib import Path

WHEELS = ("nvidia-cuda-runtime-cu11==11.7.99", "nvidia-cuda-runtime-cu11==11.8.89",
          "nvidia-cuda-runtime-cu12==12.1.105", "nvidia-cuda-runtime-cu12==12.4.127",
          "nvidia-cuda-runtime-cu12==12.8.90", "nvidia-cuda-runtime-cu12==12.9.79",
          "nvidia-cuda-runtime==13.0.96", "nvidia-cuda-runtime==13.5.37")
PLATFORMS = ("manylinux1_x86_64", "manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64")
MAX_CODE = 1100


def _lib(folder: Path, spec: str) -> Path:
    name, version = spec.split("==")
    stem = name.replace("-", "_") + "-" + version + "-"
    whl = next(folder.glob(stem + "*.whl"), None)
    if whl is None:
        cmd = [sys.executable, "-m", "pip", "download", spec, "--no-deps", "-q", "-d", str(folder), "--only-binary=:all:"]
        for p in PLATFORMS:
            cmd += ["--platform", p]
        subprocess.run(cmd, check=True)
        whl = next(folder.glob(stem + "*.whl"))
    out = folder / (name + "-" + version)
    with zipfile.ZipFile(whl) as z:
        member = next(m for m in z.namelist() if "/lib/libcudart.so" in m)
        z.extract(member, out)
        header = next((m for m in z.namelist() if m.endswith("/include/driver_types.h")), None)
        if header:
            z.extract(header, out)
    return out / member


def main(folder: str) -> int:
    base = Path(folder)
    base.mkdir(parents=True, exist_ok=True)
    names: dict[str, dict] = {}
    releases = []
    for spec in WHEELS:
        version = spec.split("==")[1]
        releases.append(version)
        lib = ctypes.CDLL(str(_lib(base, spec)))
        lib.cudaGetErrorName.restype = lib.cudaGetErrorString.restype = ctypes.c_char_p
        for code in range(MAX_CODE):
            name = lib.cudaGetErrorName(code).decode()
            if name.startswith("unrecognized") or (name == "cudaErrorUnknown" and code != 999) or code == 0:
                continue
            rec = names.setdefault(name, {"code": code, "texts": {}})
            rec["texts"].setdefault(lib.cudaGetErrorString(code).decode(), []).append(version)
    headers = sorted(base.glob("*/nvidia/*/include/driver_types.h"), key=lambda p: [int(x) for x in p.parts[-5].split("-")[-1].split(".")])
    if headers:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from probe_cuda_errors import _header_docs  # the probe's own reading of the header comments

        docs = _header_docs(str(headers[-1]), r"cudaError\w+")
        for name, rec in names.items():
            rec["description"] = docs.get(name, "")
    json.dump({"generator": "tools/cudart_texts.py", "releases": releases, "runtime": names}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cudart"))
