"""pmix_error_log: PMIx's own error lines in a job's output, on real lines."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import pmix_error_log
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/pmix_error_log"


def _facts(text: str):
    return pmix_error_log.parse(Artefact(path="out.txt", text=text, node="n")).facts


def test_srun_pmix_unpack_lines():
    # open-mpi/ompi#12146: srun --mpi=pmix under Slurm's pmix_v4 plugin, then both ranks' hello
    text = (FIX / "ompi12146_srun_pmix_unpack_out_of_resource.txt").read_text()
    assert pmix_error_log.detect(text)
    facts = _facts(text)
    assert [(f.host, f.status, f.unsupported_type, f.source_file, f.source_line, f.unpack) for f in facts] == [
        ("nid200018", "UNSUPPORTED TYPE", 104, None, None, True),
        ("nid200019", "UNSUPPORTED TYPE", 104, None, None, True),
        ("nid200019", "OUT-OF-RESOURCE", None, "base/bfrop_base_unpack.c", 750, True),
        ("nid200018", "OUT-OF-RESOURCE", None, "base/bfrop_base_unpack.c", 750, True),
    ]
    assert [f.evidence.line for f in facts] == [2, 3, 4, 5]


def test_unpack_status_in_another_file_and_other_errors():
    # the form with a build's relative __FILE__ (Open MPI 5's bundled PMIx); CONSTRUCTED from PMIX_ERROR_LOG's format:
    # a key not found is no unpacking error
    (f,) = _facts("[squidhpc2:3977236] PMIX ERROR: UNPACK-INADEQUATE-SPACE in file ../../../../../../3rd-party/openpmix/src/mca/gds/base/gds_base_fns.c at line 266\n")
    assert (f.status, f.source_line, f.unpack) == ("UNPACK-INADEQUATE-SPACE", 266, True)
    line = "[node1:4242] PMIX ERROR: NOT-FOUND in file client/pmix_client_get.c at line 334\n"
    assert not pmix_error_log.detect(line) and _facts(line) == []
    # PMIx 1.x's unpacker: no type number
    (f,) = _facts("UNPACK-PMIX-VALUE: UNSUPPORTED TYPE\n")
    assert (f.unsupported_type, f.unpack, f.host) == (None, True, None)


def test_nothing_in_other_text():
    assert not pmix_error_log.detect("Hello world from processor nid200018, rank 0 out of 2 processors\n")
    assert _facts("") == []
    assert _facts("the PMIX ERROR: lines mean nothing here\n") == []
