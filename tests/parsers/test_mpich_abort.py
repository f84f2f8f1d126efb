from stethoscope.facts.parsers import mpich_abort
from stethoscope.facts.parsers.base import Artefact

# JuliaParallel/MPI.jl#716 (Perlmutter), verbatim
GTL = """MPICH ERROR [Rank 0] [job id 5680267.11] [Wed Feb 22 23:01:58 2023] [nid002845] - Abort(-1) (rank 0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked
 (Other MPI error)

aborting job:
MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked
"""


def _parse(text, node="unknown"):
    return mpich_abort.parse(Artefact(path="err.txt", text=text, node=node))


def test_cray_gtl_abort():
    assert mpich_abort.detect(GTL)
    res = _parse(GTL)
    (f,) = res.facts
    assert (f.node, f.rank, f.job_id, f.function, f.code, f.reason) == ("nid002845", 0, "5680267.11", "MPIDI_CRAY_init", -1, "gtl_not_linked")
    assert res.lines_used == 4  # the abort, its class line, "aborting job:" and the repeat


def test_empty_job_id_and_other_message():
    # APPFL/APPFL#258 (empty job id), and the same form with another message (filled)
    res = _parse("MPICH ERROR [Rank 0] [job id ] [Thu Jan 30 22:35:30 2025] [x3006c0s19b1n0] - Abort(-1) (rank 0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked\n"
                 "MPICH ERROR [Rank 3] [job id 77.0] [Wed Feb 22 23:01:58 2023] [nid1] - Abort(1091855) (rank 3 in comm 0): Fatal error in PMPI_Init: Other MPI error\n")
    assert [(f.node, f.job_id, f.reason) for f in res.facts] == [("x3006c0s19b1n0", None, "gtl_not_linked"), ("nid1", "77.0", "other")]


def test_mpich_plain_form():
    # MPICH's MPIR_Handle_fatal_error form, filled
    res = _parse("Abort(1) on node 3 (rank 3 in comm 0): Fatal error in PMPI_Init_thread: Other MPI error, error stack:\n")
    (f,) = res.facts
    assert (f.rank, f.function, f.reason) == (3, "PMPI_Init_thread", "other")


def test_not_mpich():
    assert not mpich_abort.detect("MPICH ERROR: something\nAbort(1)\n")
    assert _parse("").facts == []
