"""The CUDA error checks of science codes (adaptive-mesh CFD and astrophysics on AMReX, SPECFEM's seismic wave solvers,
the Grid lattice-QCD library, the hypre solver library under PETSc, MFEM and MOOSE), as they print
``cudaGetErrorString``'s text in their own wording, usually just before ``MPI_Abort`` ends every rank of the job.

Each code wraps its CUDA calls in a macro of its own (upstream format strings; sample lines real, from the threads
named):

AMReX (Src/Base/AMReX_GpuError.H ``AMREX_CUDA_SAFE_CALL``: ``std::string("CUDA error ") + std::to_string(err) + " in file "
+ __FILE__ + " line " + std::to_string(__LINE__) + ": " + cudaGetErrorString(err)``, handed to ``amrex::Abort``, which
prints ``amrex::Abort::<rank>::<message> !!!``), AMReX-Codes/amrex#3300 (CNS on an RTX 3090 under MPI)::

    amrex::Abort::0::CUDA error 2 in file ../../../../../Src/Base/AMReX_Arena.cpp line 173: out of memory !!!

SPECFEM (specfem3d / specfem3d_globe src/gpu ``print_CUDA_error_if_any``: ``printf("\\nCUDA error !!!!! <%s> !!!!!
\\nat CUDA call error code: # %d\\n", cudaGetErrorString(err), num)``, older releases ``... !!!!! at CUDA call # %d``;
``num`` is SPECFEM's own number for the call site, not CUDA's), SPECFEM/specfem3d#1344 (tpv15 on an 8 GB RTX 4060)::

    CUDA error !!!!! <out of memory> !!!!!
    at CUDA call error code: # 2402

Grid (Grid/threads/Accelerator.h ``accelerator_barrier``: ``printf("Cuda error %s \\n", cudaGetErrorString(err));
puts(__FILE__); printf("Line %d\\n", __LINE__)``; later ``"accelerator_barrier(): Cuda error %s \\n"`` and ``"File %s Line
%d\\n"``), paboyle/Grid#362 (Wilson fermions on Marconi100's V100s)::

    accelerator_barrier(): Cuda error out of memory
    File /m100/home/userexternal/alupo000/production_src/Grid/Grid/lattice/Lattice_local.h Line 83

hypre (its utilities' ``HYPRE_CUDA_CALL``: ``hypre_printf("CUDA ERROR (code = %d, %s) at %s:%d\\n", err,
cudaGetErrorString(err), __FILE__, __LINE__)``, then ``hypre_assert(0)``), hypre-space/hypre#1392 (PETSc's ex19 with
``-pc_type hypre`` on two ranks, both bound to GPU 0) and hypre-space/hypre#1316 (the same example on a two-GPU runner)::

    CUDA ERROR (code = 101, invalid device ordinal) at memory.c:199
    CUDA ERROR (code = 1, invalid argument) at memory.c:136

Facts: ``cuda_error`` (form ``hpc_check``, the source file and line where printed, the rank from ``amrex::Abort::N::``)
for each line whose text is ``cudaGetErrorString``'s for an entry of the CUDA catalogue (and, where a number is printed
too, as AMReX and hypre do, the number names the same entry); the CUDA error catalogue judges it. SPECFEM's call number
and the file lines after Grid's are read as the same error's. A text the catalogue does not hold is not read, unless it is
the paste's last line cut short mid-text and the start of exactly one entry's text (catalogue.cut_entry): read as
that entry, with a cut_short limit on the line (paboyle/Grid#300: "Cuda error an illegal memory access was").
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import CudaError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, last_line, lines_with

KIND = "hpc_cuda_check"

# amrex::Abort::0::CUDA error 2 in file ../../../../../Src/Base/AMReX_Arena.cpp line 173: out of memory !!!   (AMReX-Codes/amrex#3300)
#   (the text a bounded lazy run and the blanks after it bounded too: "[ \t]*$" after the lazy text scanned a long run
#   of blanks once per character it tried, 0.57 s on bench/redos.py's 120,000-character line)
AMREX = re.compile(r"(?:\bamrex::Abort::(?P<rank>\d{1,7})::)?\bCUDA error (?P<num>\d{1,4}) in file (?P<file>[^\s:]{1,300})"
                   r" line (?P<fline>\d{1,7}): (?P<msg>[^\n!]{1,150}?)(?: !!!)?[ \t]{0,20}\r?$")
# CUDA error !!!!! <out of memory> !!!!!                                                       (SPECFEM/specfem3d#1344)
SPECFEM = re.compile(r"\bCUDA error !!!!! <(?P<msg>[^<>\n]{1,150})> !!!!!")
# at CUDA call error code: # 2402                                                               (SPECFEM/specfem3d#1344)
SPECFEM_CALL = re.compile(r"^[ \t]{0,8}at CUDA call (?:error code: )?# ?\d{1,9}[ \t]*$")
# accelerator_barrier(): Cuda error out of memory                                               (paboyle/Grid#362)
GRID = re.compile(r"^[ \t]{0,8}(?:accelerator_barrier\(\): )?Cuda error (?P<msg>[^\n]{1,150}?)[ \t]{0,20}\r?$")
# File /m100/home/userexternal/alupo000/production_src/Grid/Grid/lattice/Lattice_local.h Line 83   (paboyle/Grid#362)
GRID_FILE_LINE = re.compile(r"^[ \t]{0,8}File (?P<file>\S{1,300}) Line (?P<fline>\d{1,7})[ \t]*$")
# (Grid before the "File" wording, its upstream format: puts(__FILE__); printf("Line %d\n",__LINE__); in
#  Grid/threads/Accelerator.h accelerator_barrier: the path on a line of its own, then "Line <n>")
GRID_PATH = re.compile(r"^[ \t]{0,8}(?P<file>\S{1,300}\.(?:h|cc|cpp|cu))[ \t]*$")
GRID_LINE = re.compile(r"^[ \t]{0,8}Line (?P<fline>\d{1,7})[ \t]*$")
# CUDA ERROR (code = 101, invalid device ordinal) at memory.c:199                               (hypre-space/hypre#1392)
HYPRE = re.compile(r"\bCUDA ERROR \(code ?= ?(?P<num>\d{1,4}), (?P<msg>[^\n()]{1,150})\) at (?P<file>[^\s:]{1,300}):(?P<fline>\d{1,7})")
_MARKERS = ("CUDA error ", "Cuda error ", "CUDA ERROR (code")


def _runtime_entry(text: str) -> catalogue.Entry | None:
    """The runtime entry whose cudaGetErrorString text (or an older wording of it) is all of ``text``, case, blanks and a
    final period aside."""
    low = text.strip().lower().rstrip(".")
    e = catalogue.by_text(low)
    if e is None or e.api != "runtime":
        return None
    return e if low in {t.lower().rstrip(".") for t in (e.text, *e.texts)} else None


def _read(line: str, last: bool = False) -> tuple[str, re.Match, catalogue.Entry] | None:
    """(form, match, entry) of a check's line; on the text's last line (``last``) a message cut short names the one
    entry it can be the start of (the fact's line then carries a cut_short limit: parse)."""
    entry = (lambda msg: _runtime_entry(msg) or catalogue.cut_entry(msg)) if last else _runtime_entry
    if (m := AMREX.search(line)) is not None:
        e = entry(m["msg"])
        return ("amrex", m, e) if e is not None and e.code == int(m["num"]) else None
    if (m := HYPRE.search(line)) is not None:
        e = _runtime_entry(m["msg"])
        return ("hypre", m, e) if e is not None and e.code == int(m["num"]) else None
    if (m := SPECFEM.search(line)) is not None:
        return ("specfem", m, e) if (e := _runtime_entry(m["msg"])) is not None else None
    if (m := GRID.match(line)) is not None:
        return ("grid", m, e) if (e := entry(m["msg"])) is not None else None
    return None


def _last_line(text: str) -> str:
    """The text's last line that is not blank."""
    return text.rstrip().rpartition("\n")[2]


def detect(text: str) -> bool:
    last = _last_line(text)
    return any(_read(line, line == last) is not None for _start, line in lines_with(text, _MARKERS))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    used: set[int] = set()
    seen: set[tuple[str, int | None]] = set()
    last = last_line(lines)
    for n, line in iter_lines_with(_MARKERS, artefact):
        if (read := _read(line, n == last)) is None:
            continue
        code, m, e = read
        used.add(n)
        if n == last and _runtime_entry(m["msg"]) is None:
            fb.limit(n, "cut_short", f"the CUDA error on the text's last line is cut short ({m['msg'].strip()}): read as {e.name}, "
                                     f"the one error whose text begins so")
        src, src_line = (m["file"], int(m["fline"])) if code in ("amrex", "hypre") else (None, None)
        nxt = lines[n] if n < len(lines) else ""
        if code == "specfem" and SPECFEM_CALL.match(nxt):
            used.add(n + 1)
        elif code == "grid":
            if (f := GRID_FILE_LINE.match(nxt)) is not None:
                used.add(n + 1)
                src, src_line = f["file"], int(f["fline"])
            elif (p := GRID_PATH.match(nxt)) is not None and n + 1 < len(lines) \
                    and (ln := GRID_LINE.match(lines[n + 1])) is not None:
                used.update((n + 1, n + 2))
                src, src_line = p["file"], int(ln["fline"])
        rank = int(m["rank"]) if code == "amrex" and m["rank"] else None
        if (e.name, rank) in seen:
            continue  # every rank's copy of the same error is one fact per rank
        seen.add((e.name, rank))
        fb.add(CudaError, n, error_name=e.name, catalogue_name=e.name, runtime_name=e.name, code=e.code,
               printed_code=int(m["num"]) if code in ("amrex", "hypre") else None, message=line.strip()[:300], form="hpc_check",
               source_file=src, source_line=src_line, rank=rank)
    result.lines_used = len(used)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"CUDA error \d+ in file \S+ line \d+: ", r"CUDA error !!!!! <[^<>]+> !!!!!", r"CUDA ERROR \(code ?= ?\d+, ",
              r"(?m)^[ \t]*(?:accelerator_barrier\(\): )?Cuda error \S")  # (?m): one RE2 set over the whole text
