"""bitsandbytes' CUDA set-up report (bitsandbytes/cuda_setup/main.py, releases 0.35-0.42; 0.43 replaced it), in any
program's output: the library looks for the CUDA runtime (libcudart) and driver (libcuda), reads the CUDA version and
the GPUs' compute capability, and loads its binary built for them (``libbitsandbytes_cuda<ver>[_nocublaslt].so``). Its
log lines (``CUDASetup.add_log_entry``, printed on failure) say what it found. Sample lines (real, from the public
threads named)::

    CUDA SETUP: Required library version not found: libbitsandbytes_cuda100.so. Maybe you need to compile it from source?
    CUDA SETUP: Defaulting to libbitsandbytes.so...
    ================================================ERROR=====================================
    CUDA SETUP: CUDA detection failed! Possible reasons:
        (bitsandbytes-foundation/bitsandbytes#82)
    CUDA SETUP: PyTorch settings found: CUDA_VERSION=117, Highest Compute Capability: 7.0.
    CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so. Maybe you need to compile it from source?
    CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...
        (bitsandbytes-foundation/bitsandbytes#138)
    ===================================BUG REPORT===================================
    /home/.../bitsandbytes/cuda_setup/main.py:167: UserWarning: Welcome to bitsandbytes. For bug reports, please run
        (bitsandbytes-foundation/bitsandbytes#1518: a banner printed on every import, no error)

and the set-up's own findings (main.py's wording): ``CUDA SETUP: Problem: The main issue seems to be that the main CUDA
runtime library was not detected.`` (no libcudart found), ``... the main CUDA library was not detected.`` and
``CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed?`` (no libcuda), ``DEBUG: Possible
options found for libcudart.so: set()`` (0.39-0.42: none), ``CUDA_SETUP: WARNING! libcudart.so not found in any
environmental path. Searching ...`` (a search that went on: alone it says nothing), ``CUDA SETUP: CUDA runtime path
found: <path>``.

Its closing exception (bitsandbytes/cextension.py, 0.37-0.42), raised when no GPU binary loaded and PyTorch sees a GPU::

    RuntimeError: 
            CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above to fix your environment!
        (bitsandbytes-foundation/bitsandbytes#1522; 0.37-0.38.0)
            CUDA Setup failed despite GPU being available. Please run the following command to get more information:
        (0.38.1-0.42: then "python -m bitsandbytes" and "Inspect the output of the command and see if you can locate CUDA
        libraries. You might need to add them to your LD_LIBRARY_PATH.")

Facts: ``shared_library_missing`` (libcudart.so, provider cuda_toolkit; libcuda.so, provider nvidia_driver) where the
set-up said it found no such library; else ``bitsandbytes_binary_missing`` per file for its "Required library version
not found" lines (the first cited; the CUDA version, compute capability, fallback and whether detection failed). The
banner, the search notes and the set-up's other lines are read as its report. ``bitsandbytes_setup_failed`` for the closing
exception where none of those facts came from the file (its report, which says why, was not pasted). Nothing else of a
file is read here.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import BitsandbytesBinaryMissing, BitsandbytesSetupFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.host import SharedLibraryMissing
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "bitsandbytes_cuda_setup"

# CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so. Maybe you need to compile it from source?   (#138)
# CUDA SETUP: Required library version not found: libsbitsandbytes_cpu.so. Maybe you need to compile it from source?   (#228, 0.37's name)
_REQUIRED = re.compile(r"CUDA SETUP: Required library version not found: (?P<lib>\S+?)\.?(?: Maybe you need|\s*$)")
# CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...
_DEFAULTING = re.compile(r"CUDA SETUP: Defaulting to (?P<lib>\S+?)\.\.\.")
# CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.
# CUDA SETUP: Problem: The main issue seems to be that the main CUDA library was not detected.
_PROBLEM = re.compile(r"CUDA SETUP: Problem: The main issue seems to be that the main CUDA (?P<what>runtime )?library was not detected")
# CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? ...
_NO_LIBCUDA = re.compile(r"CUDA SETUP: WARNING! libcuda\.so not found!")
# DEBUG: Possible options found for libcudart.so: set()      (0.39-0.42: the runtime searched for and none found)
# DEBUG: Possible options found for libcudart.so: {PosixPath('/home/kadu/local/cuda-11.7/lib64/libcudart.so'), ...}   (#138)
_OPTIONS = re.compile(r"Possible options found for libcudart\.so: (?P<set>set\(\)|\{)")
# CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so
_RUNTIME_FOUND = re.compile(r"CUDA SETUP: CUDA runtime path found: \S")
# CUDA SETUP: Detected CUDA version 121 / CUDA SETUP: PyTorch settings found: CUDA_VERSION=117, Highest Compute Capability: 7.0.
_VERSION = re.compile(r"CUDA SETUP: (?:Detected CUDA version |PyTorch settings found: CUDA_VERSION=)(?P<ver>\d{2,4})")
# CUDA SETUP: Highest compute capability among GPUs detected: 7.5 / ..., Highest Compute Capability: 7.0.
_CC = re.compile(r"(?:Highest compute capability among GPUs detected|Highest Compute Capability): (?P<cc>\d{1,2}\.\d)")
_DETECTION_FAILED = "CUDA SETUP: CUDA detection failed!"
# RuntimeError: 
#         CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above to fix your environment!   (bitsandbytes-foundation/bitsandbytes#1522)
#         CUDA Setup failed despite GPU being available. Please run the following command to get more information:      (cextension.py 0.38.1-0.42)
#   (bitsandbytes/cextension.py: `if lib is None and torch.cuda.is_available(): ... raise RuntimeError(...)`: the set-up
#   loaded no GPU binary of its own though PyTorch sees a GPU)
SETUP_FAILED = re.compile(r"\bCUDA Setup failed despite GPU being available\b(?:\. (?:Inspect the CUDA SETUP outputs above|Please run the following command)[^\n]{0,80})?")
# libbitsandbytes_cuda117_nocublaslt.so: the CUDA version in its name
_LIB_VERSION = re.compile(r"_cuda(?P<ver>\d{2,4})")
# the set-up's report lines read as such (the banner, the search notes, its instructions)
_REPORT = re.compile(r"^\s*(?:CUDA[ _]SETUP: |=+(?:BUG REPORT|ERROR)=+\s*$|DEBUG: Possible options found for libcudart)")


def detect(head: str) -> bool:
    if "CUDA Setup failed despite GPU" in head and SETUP_FAILED.search(head) is not None:
        return True
    return ("CUDA SETUP: " in head or "CUDA_SETUP: " in head) and (
        _REQUIRED.search(head) is not None or _PROBLEM.search(head) is not None or _NO_LIBCUDA.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    setup_failed = None  # the closing exception's line and sentence
    if "CUDA Setup failed despite GPU" in text:
        for n, line in enumerate(artefact.lines, 1):
            if "CUDA Setup failed despite GPU" in line and (m := SETUP_FAILED.search(line)) is not None:
                setup_failed = (n, m[0])
                result.lines_used += 1
                break
    if "CUDA SETUP: " not in text and "CUDA_SETUP: " not in text:
        if setup_failed is not None:
            b.add(BitsandbytesSetupFailed, setup_failed[0], message=setup_failed[1])
        return result
    required: list[tuple[int, str]] = []
    fallback = version = cc = None
    failed = False
    runtime_missing = driver_missing = None  # the line that says so
    for n, line in enumerate(artefact.lines, 1):
        if "CUDA" not in line and "libcudart" not in line and "BUG REPORT" not in line:
            continue
        if _REPORT.search(line) is not None:
            result.lines_used += 1
        if (m := _REQUIRED.search(line)) is not None:
            required.append((n, m["lib"]))
        elif (m := _DEFAULTING.search(line)) is not None:
            fallback = fallback or m["lib"]
        elif (m := _PROBLEM.search(line)) is not None:
            if m["what"]:
                runtime_missing = runtime_missing or n
            else:
                driver_missing = driver_missing or n
        elif _NO_LIBCUDA.search(line) is not None:
            driver_missing = driver_missing or n
        elif (m := _OPTIONS.search(line)) is not None:
            if m["set"] == "set()":
                runtime_missing = runtime_missing or n
        elif _DETECTION_FAILED in line:
            failed = True
        if (m := _VERSION.search(line)) is not None:
            version = version or m["ver"]
        if (m := _CC.search(line)) is not None:
            cc = cc or m["cc"]
    wanted = f" (it then looked for {required[0][1]})" if required else ""
    if runtime_missing is not None:
        b.add(SharedLibraryMissing, runtime_missing, library="libcudart.so", provider="cuda_toolkit",
              detail="bitsandbytes' CUDA set-up found no CUDA runtime library" + wanted)
    if driver_missing is not None:
        b.add(SharedLibraryMissing, driver_missing, library="libcuda.so", provider="nvidia_driver",
              detail="bitsandbytes' CUDA set-up found no CUDA driver library" + wanted)
    if required and runtime_missing is None and driver_missing is None:
        n, lib = required[0]
        cpu = "_cuda" not in lib
        v = _LIB_VERSION.search(lib)
        b.add(BitsandbytesBinaryMissing, n, library=lib, cpu_build=cpu, cuda_version=(v["ver"] if v else version),
              compute_capability=cc, fallback=fallback, detection_failed=failed, lines=len(required))
    elif setup_failed is not None and runtime_missing is None and driver_missing is None:
        b.add(BitsandbytesSetupFailed, setup_failed[0], message=setup_failed[1])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"CUDA SETUP: Required library version not found: ", r"CUDA Setup failed despite GPU being available",
              r"CUDA SETUP: Problem: The main issue seems to be that the main CUDA ",
              r"CUDA SETUP: WARNING! libcuda\.so not found!")
