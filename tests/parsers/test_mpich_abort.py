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


def test_mpid_abort_prints_each_part_only_when_it_has_it():
    # pmodels/mpich src/mpid/ch4/src/ch4_globals.c MPID_Abort: "Abort(%d)%s%s: %s%s\n", " on node %d" once
    # MPI_COMM_WORLD exists, " (rank %d in comm %d)" with a communicator. openucx/ucx#9610's line (neither part);
    # rouyang2017/SISSO#64's (both); a world rank alone and a communicator's part alone (CONSTRUCTED from the format)
    text = ("Abort(1008326287): Fatal error in internal_Init_thread: Other MPI error, error stack:\n"
            "Abort(1615247) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, error stack:\n"
            "Abort(15) on node 2: Fatal error in internal_Allreduce: Other MPI error, error stack:\n"
            "Abort(16) (rank 5 in comm 3): Fatal error in internal_Bcast: Other MPI error\n")
    assert mpich_abort.detect(text) and mpich_abort.detect(text.splitlines()[0])
    res = _parse(text)
    assert [(f.code, f.rank, f.function, f.in_init) for f in res.facts] == [
        (1008326287, None, "internal_Init_thread", True), (1615247, 0, "PMPI_Init", True),
        (15, 2, "internal_Allreduce", False), (16, 5, "internal_Bcast", False)]


def test_error_stack_is_the_aborts_detail():
    # openucx/ucx#9610 (verbatim): the stack's frames are read with the abort, its deepest message kept; a UCX line after
    # the stack ends it
    text = ("Abort(1008326287): Fatal error in internal_Init_thread: Other MPI error, error stack:\n"
            "internal_Init_thread(67).: MPI_Init_thread(argc=(nil), argv=(nil), required=3, provided=0x7ffd1812c8bc) failed\n"
            "MPII_Init_thread(234)....: \n"
            "MPID_Init(513)...........: \n"
            "MPIDI_UCX_init_local(219):  ucx function returned with failed status(ucx_init.c 219 MPIDI_UCX_init_local No such device)\n"
            "[1705555968.598827] [c204-010:158463:0]     ucp_context.c:1081 UCX  WARN  transports 'knem','dc_x','rc' are not available, please use one or more of: mm, posix, self, shm, sm, sysv, tcp\n")
    res = _parse(text)
    (f,) = res.facts
    assert f.stack_error == "ucx function returned with failed status(ucx_init.c 219 MPIDI_UCX_init_local No such device)"
    assert res.lines_used == 5
