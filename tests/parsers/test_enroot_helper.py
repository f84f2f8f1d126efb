"""enroot_helper: enroot's helper programs failing a container's set-up, on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import enroot_helper as r

import parser_rows


ROWS = [
    # (line, (program, step, error) or None for no fact)
    ("enroot-nsenter: failed to create user namespace: Permission denied",
     ("enroot-nsenter", "failed to create user namespace", "Permission denied")),   # NVIDIA/enroot#238
    ("enroot-mount: failed to mount: devpts at /scratch/pbs/enroot-data/user-613.chas052/lammps/dev/pts: Invalid argument",
     ("enroot-mount", "failed to mount: devpts at /scratch/pbs/enroot-data/user-613.chas052/lammps/dev/pts", "Invalid argument")),  # NVIDIA/enroot#54
    # errx(3)'s message alone (bin/enroot-nsenter.c, filled)
    ("enroot-nsenter: kernel lacks support for ambient capabilities, consider using --remap-root instead",
     ("enroot-nsenter", "kernel lacks support for ambient capabilities, consider using --remap-root instead", None)),
    # pyxis's copy of enroot's log is the slurm_log reader's (NVIDIA/pyxis's "pyxis:     %s", filled)
    ("slurmstepd: error: pyxis:     enroot-nsenter: failed to create user namespace: Permission denied", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    assert parser_rows.line_fields(r, line, ("program", "step", "error")) == ([want] if want else [])


def test_enroot238_after_the_squashfs_extraction():
    res = parser_rows.read_fixture(r, "enroot238_userns_permission_denied.log", "enroot.txt")
    assert [(f.program, f.error, f.evidence.line) for f in res.facts] == [("enroot-nsenter", "Permission denied", 15)]
