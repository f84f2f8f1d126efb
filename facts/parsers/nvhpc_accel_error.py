"""The NVIDIA HPC SDK's (formerly PGI's) accelerator runtime reporting a failed CUDA driver call, in the output of a
program built with ``nvc``/``nvc++``/``nvfortran`` (``pgcc``/``pgf90``) for OpenACC, CUDA Fortran or OpenMP offload:
climate and weather models (E3SM, MPAS, ICON), CFD codes, lattice and Monte-Carlo codes under MPI.

The runtime checks each CUDA driver call it makes for the program (``cuStreamSynchronize`` at the end of a compute
region, ``cuMemAllocHost``/``cuMemHostAlloc`` for pinned buffers, ``cuMemFreeHost`` at exit) and, when one fails, prints
the call, the driver's ``CUresult`` and the runtime's own text for it, then ends the process. The runtime is closed
source; the wordings below are its, as the real sample lines show them (the threads named)::

    Failing in Thread:1
    call to cuStreamSynchronize returned error 700: Illegal address during kernel execution       (OP-DSL/OPS#54, MPI+OpenACC Poisson; mccode-dev/McCode#942; alpaka-group/alpaka#1550, behind ctest's "9: ")
    call to cuMemFreeHost returned error 700: Illegal address during kernel execution             (OP-DSL/OPS#54, the call after it)
    call to cuMemAllocHost returned error 205: Map failed                                          (E3SM-Project/E3SM#2074, pgiacc on Titan, all 16 cores)
    malloc: cuMemHostAlloc returns error code 201                                                  (E3SM-Project/E3SM#2074, with OpenMP threads)
    0: ALLOCATE: 256 bytes requested; not enough memory                                            (the Fortran runtime's ALLOCATE failing after it, the same thread)

Newer releases (NVHPC 20.x and later) print ``Accelerator Fatal Error: call to cuStreamSynchronize returned error 700
(CUDA_ERROR_ILLEGAL_ADDRESS): Illegal address during kernel execution`` with the ``CUresult``'s name, which
:mod:`cuda_app` reads by that name; this reader takes the older wording, the number alone (and the text, the
runtime's own, never ``cuGetErrorString``'s: it is not compared with the catalogue's).

Facts: ``cuda_error`` (form ``nvhpc_accel``, ``api_call`` the driver function) for each distinct ``CUresult`` the
catalogue holds (700 CUDA_ERROR_ILLEGAL_ADDRESS, 205 CUDA_ERROR_MAP_FAILED, 201 CUDA_ERROR_INVALID_CONTEXT); the CUDA
error catalogue judges it. The calls after the first that fail with the same number (``cuMemFreeHost`` at exit) are
the same fault's; ``Failing in Thread:N`` and the Fortran runtime's ``ALLOCATE: ... not enough memory`` beside such a
line are read as its own. A number the catalogue lacks is not read (the line stays the catch-all's error line).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CudaError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "nvhpc_accel_error"

# call to cuStreamSynchronize returned error 700: Illegal address during kernel execution      (OP-DSL/OPS#54)
# call to cuMemAllocHost returned error 205: Map failed                                         (E3SM-Project/E3SM#2074)
#   (the number then ": " at once: the newer "returned error 700 (CUDA_ERROR_ILLEGAL_ADDRESS): ..." is cuda_app's, by the name)
CALL = re.compile(r"\bcall to (?P<call>cu[A-Z]\w{1,60}) returned error (?P<num>\d{1,4}): (?P<msg>\S[^\n]{0,150})")
# malloc: cuMemHostAlloc returns error code 201                                                  (E3SM-Project/E3SM#2074)
#   (from the ": " on: a word run before it, "\w{1,60}: ", was tried at every letter of a long word, 0.2 s on a
#   120,000-character line; where it failed is not read)
RETURNS = re.compile(r": (?P<call>cu[A-Z]\w{1,60}) returns error code (?P<num>\d{1,4})\b")
# Failing in Thread:1                                                                            (E3SM-Project/E3SM#2074, mccode-dev/McCode#942)
THREAD = re.compile(r"^[ \t]{0,8}(?:\d{1,6}: )?Failing in Thread:\d{1,6}[ \t]*$")
# 0: ALLOCATE: 256 bytes requested; not enough memory                                            (E3SM-Project/E3SM#2074;
#   the "0: " a rank's label, which the bundle may already have taken off)
ALLOCATE = re.compile(r"^[ \t]{0,8}(?:\d{1,6}: )?ALLOCATE: \d{1,20} bytes requested; not enough memory[ \t]*$")
_MARKERS = ("call to cu", " returns error code ")


def _read(line: str) -> tuple[re.Match, catalogue.Entry] | None:
    for pattern in (CALL, RETURNS):
        if (m := pattern.search(line)) is not None:
            e = catalogue.by_code(int(m["num"]), "driver")  # a driver API function's result is a CUresult
            return (m, e) if e is not None else None
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    used: set[int] = set()
    codes: set[int] = set()
    for n, line in iter_lines_with(_MARKERS, artefact):
        if (read := _read(line)) is None:
            continue
        m, e = read
        used.add(n)
        if e.code in codes:
            continue  # the same fault, reported again by the calls after it
        codes.add(e.code)
        fb.add(CudaError, n, error_name=e.name, catalogue_name=e.name, runtime_name=catalogue.runtime_twin(e), code=e.code,
               printed_code=int(m["num"]), message=m.group(0)[:300], form="nvhpc_accel", api_call=m["call"])
    if codes:
        for i, line in enumerate(artefact.lines, 1):
            if THREAD.match(line) or ALLOCATE.match(line):
                used.add(i)
    result.lines_used = len(used)
    return result


def detect(text: str) -> bool:
    return any(_read(line) is not None for _start, line in lines_with(text, _MARKERS))


#: line signatures (facts/classify.py)
SIGNATURES = (r"call to cu[A-Z]\w* returned error \d+: ", r"\w+: cu[A-Z]\w* returns error code \d")
