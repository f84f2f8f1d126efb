"""openmpi_cuda_help: Open MPI's CUDA support's help messages, real pastes and help-mpi-common-cuda.txt's forms."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import openmpi_cuda_help as och
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/openmpi_cuda_help"


def parse_text(text: str):
    return och.parse(Artefact(path="rank.log", text=text, node="n1"))


def test_aggregation_lines_alone_give_one_fact_per_host_and_topic():
    """OPM/LBPM#34: twelve of mpirun's aggregation lines, quoted, the block left out, the last line cut."""
    text = (FIX / "lbpm34_ipc_get_mem_handle_aggregated.txt").read_text()
    assert och.detect(text)
    r = parse_text(text)
    (f,) = r.facts
    assert (f.evidence.line, f.call, f.topic, f.host, f.aborts, f.return_value) == (
        1, "cuIpcGetMemHandle", "cuIpcGetMemHandle failed", "gpu03", False, None)
    assert f.copies == 126 + 120 + 122 + 148 + 122 + 128 + 108 + 126 + 130 + 130 + 124 + 126
    assert r.lines_used == 12 and r.errors == []


def test_a_block_head_alone_and_its_words():
    """horovod/horovod#82's title: the block's first line, which says the program goes on."""
    r = parse_text((FIX / "horovod82_title_ipc_close_mem_handle.txt").read_text())
    (f,) = r.facts
    assert (f.call, f.aborts, f.return_value, f.copies) == ("cuIpcCloseMemHandle", False, None, 0)


def test_block_with_its_return_value_and_abort_and_the_copies_it_explains():
    # CONSTRUCTED from help-mpi-common-cuda.txt's [cuIpcOpenMemHandle failed] block, filled in, then mpirun's count
    text = ("The call to cuIpcOpenMemHandle failed. This is an unrecoverable error\n"
            "and will cause the program to abort.\n"
            "  Hostname:                         node7\n"
            "  cuIpcOpenMemHandle return value:  1\n"
            "  address:                          0x7fd865200000\n"
            "[node7:1868819] 3 more processes have sent help message help-mpi-common-cuda.txt / cuIpcOpenMemHandle failed\n")
    (f,) = parse_text(text).facts  # the aggregation line is the block's own copies
    assert (f.evidence.line, f.call, f.aborts, f.return_value, f.return_name) == (
        1, "cuIpcOpenMemHandle", True, 1, "CUDA_ERROR_INVALID_VALUE")


def test_other_help_files_and_prose_are_not_read():
    # CONSTRUCTED: another help file's aggregation (openmpi_help's), and the words in a sentence
    for text in ("[gpu004:10178] 4 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics\n",
                 "we saw that the call to cuIpcOpenMemHandle failed yesterday\n"):
        assert not och.detect(text), text
        assert parse_text(text).facts == []
