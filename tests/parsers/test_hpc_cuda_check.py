"""hpc_cuda_check: science codes' own CUDA checks (AMReX, SPECFEM, Grid) printing cudaGetErrorString's text."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import hpc_cuda_check as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "hpc_cuda_check"
# AMReX-Codes/amrex#2892 (AMReX's GPU tests under WSL on an RTX 3080), the description's quoted line
AMREX_2892 = "> amrex::Abort::0::CUDA error 2 in file ../../..//Src/Base/AMReX_Arena.cpp line 166: out of memory !!!\n"
# paboyle/Grid#362 (Wilson fermions on Marconi100's V100s), the description's error block
GRID_362 = ("accelerator_barrier(): Cuda error out of memory \n"
            "File /m100/home/userexternal/alupo000/production_src/Grid/Grid/lattice/Lattice_local.h Line 83\n")


def _read(text):
    res = r.parse(Artefact(path="t.log", text=text, node="n1"))
    return [(f.code, f.catalogue_name, f.rank, f.source_file, f.source_line) for f in res.facts], res.lines_used


def test_amrex3300_rank_and_source():
    text = (FIX / "amrex3300_arena_oom_mpi_abort.log").read_text()
    assert r.detect(text)
    assert _read(text) == ([(2, "cudaErrorMemoryAllocation", 0, "../../../../../Src/Base/AMReX_Arena.cpp", 173)], 1)


def test_amrex2892_quoted():
    assert _read(AMREX_2892) == ([(2, "cudaErrorMemoryAllocation", 0, "../../..//Src/Base/AMReX_Arena.cpp", 166)], 1)


def test_specfem1344_with_its_call_number():
    text = (FIX / "specfem1344_oom_mpi_abort.log").read_text()
    assert r.detect(text)
    assert _read(text) == ([(2, "cudaErrorMemoryAllocation", None, None, None)], 2)


def test_grid362_with_its_file_line():
    assert r.detect(GRID_362)
    assert _read(GRID_362) == ([(2, "cudaErrorMemoryAllocation", None,
                                 "/m100/home/userexternal/alupo000/production_src/Grid/Grid/lattice/Lattice_local.h", 83)], 2)


@pytest.mark.parametrize("line, code, name, fline", [
    # hypre-space/hypre#1392 (PETSc ex19 with hypre on two ranks bound to one GPU) and hypre-space/hypre#1316 (a two-GPU runner)
    ("CUDA ERROR (code = 101, invalid device ordinal) at memory.c:199\n", 101, "cudaErrorInvalidDevice", 199),
    ("CUDA ERROR (code = 1, invalid argument) at memory.c:136\n", 1, "cudaErrorInvalidValue", 136),
])
def test_hypre_check(line, code, name, fline):
    assert r.detect(line)
    assert _read(line) == ([(code, name, None, "memory.c", fline)], 1)


@pytest.mark.parametrize("text", [
    # CONSTRUCTED: hypre's wording whose number and text name different errors
    "CUDA ERROR (code = 2, invalid device ordinal) at memory.c:199\n",
    # paboyle/Grid#300's line as its stored excerpt cuts it, with a line after it (CONSTRUCTED, Grid's shape): not the
    # paste's end, not read
    "Cuda error an illegal memory access was\nGrid : Message : 0.849977 s : done\n",
    # CONSTRUCTED: a cut text of fewer than CUT_MIN_WORDS words; one that begins more than one CUDA text ("peer access
    # is not supported between these two devices", "peer access is already enabled")
    "Cuda error out of\n",
    "Cuda error peer access is\n",
    # CONSTRUCTED near misses: AMReX's number and text naming different errors; a text CUDA never prints; a sentence
    "amrex::Abort::0::CUDA error 2 in file AMReX_Arena.cpp line 173: invalid argument !!!\n",
    "CUDA error !!!!! <something went wrong> !!!!!\n",
    "We saw a Cuda error out of memory on the second node\n",
])
def test_not_read(text):
    assert not r.detect(text)
    assert _read(text) == ([], 0)


def test_grid300_cut_on_the_last_line_is_the_one_error_it_begins():
    """paboyle/Grid#300: the excerpt ends inside Grid's 'Cuda error %s' line, after 'an illegal memory access was':
    cudaErrorIllegalAddress is the one CUDA text that begins so; read as it, with a cut_short limit on that line. The
    Grid line is found below other lines (its signature is multi-line: the classifier's set runs over the whole text)."""
    from stethoscope.facts import classify

    text = (FIX / "grid300_wilson_sweep_cut.txt").read_text()
    assert r in classify.recognise(text) and r.detect(text)
    res = r.parse(Artefact(path="t.log", text=text, node="n1"))
    assert [(f.code, f.catalogue_name) for f in res.facts] == [(700, "cudaErrorIllegalAddress")]
    assert [(h.limit, h.line) for h in res.limits] == [("cut_short", 11)]
    assert "cut short (an illegal memory access was)" in res.limits[0].detail
