"""openmpi_cma: Open MPI's shared-memory single copy (CMA) failing."""
from __future__ import annotations

import pytest
from parse_helper import parse_fixture

from stethoscope.facts.parsers import openmpi_cma


def test_rochpl14_both_ranks_one_fact_per_host_and_errno():
    res = parse_fixture(openmpi_cma, "openmpi_cma/rochpl14_vader_cma_read_efault.txt")
    (f,) = res.facts
    assert (f.node, f.op, f.errno, f.expected_bytes, f.count, f.evidence.line) == ("MI250-1", "read", 14, 549888, 19, 4)
    assert res.lines_used == 19


# CONSTRUCTED from btl_vader_put.c's and Open MPI 5 smsc/cma's formats
def test_write_and_open_mpi_5_forms():
    text = ("[gpu-3:4242] Wrote -1, expected 65536, errno = 1\n"
            "CMA wrote -1, expected 131072, errno = 1\n")
    a, b = parse_fixture(openmpi_cma, text=text).facts
    assert (a.node, a.op, a.errno, b.node, b.op, b.expected_bytes) == ("gpu-3", "write", 1, "n1", "write", 131072)


@pytest.mark.parametrize("text", ["read returns -1, expected 8, errno = 4\n", "Read 10 bytes, expected 10\n"])
def test_other_lines_are_not_read(text):
    assert not openmpi_cma.detect(text)
