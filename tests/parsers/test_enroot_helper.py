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


# enroot's own runtime: common::err's "[ERROR] <message>" (enroot src/common.sh, src/docker.sh, conf/hooks/98-nvidia.sh)
ERROR_ROWS = [
    # (line, (stage, http_code, hook, command) or None)
    ("[ERROR] URL http://master:5000/v2/custom-pytorch-3-1/manifests/latest returned error code: 400",
     ("import", 400, None, None)),                                                      # NVIDIA/pyxis#118 (enroot import)
    # the form filled from common::curl with its status text, and docker.sh's reference check (CONSTRUCTED)
    ("[ERROR] URL https://nvcr.io/proxy_auth?scope=repository:nvidia/pytorch:pull returned error code: 401 Unauthorized",
     ("import", 401, None, None)),
    ("[ERROR] Invalid image reference: docker://dockerd://mlperf-nvidia:minigo", ("import", None, None, None)),
    ("[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1",
     ("hook", None, "/etc/enroot/hooks.d/98-nvidia.sh", None)),                         # NVIDIA/enroot#128
    ("[ERROR] Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container",
     ("command", None, None, "nvidia-container-cli")),                                  # conf/hooks/98-nvidia.sh
    # another tool's [ERROR] line, and pyxis's copy of enroot's log (the slurm_log reader's): not read here
    ("[ERROR] Failed to connect to the database", None),
    ("slurmstepd: error: pyxis:     [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1", None),
]


@pytest.mark.parametrize("line,want", ERROR_ROWS)
def test_enroot_error_line(line, want):
    assert parser_rows.line_fields(r, line, ("stage", "http_code", "hook", "command")) == ([want] if want else [])


def test_pyxis118_enroot_import_by_hand():
    res = parser_rows.read_fixture(r, "pyxis118_import_local_registry_400.txt", "enroot.txt")
    assert [(f.kind, f.stage, f.http_code, f.evidence.line) for f in res.facts] == [("enroot_error", "import", 400, 3)]


def test_enroot128_hook_line_under_a_quote():
    from stethoscope.facts.lines import normalise
    text = normalise((parser_rows.ARTEFACTS / "enroot_helper" / "enroot128_ldcache_hook_quoted.txt").read_text())
    res = r.parse(parser_rows.Artefact(path="out.txt", text=text))
    assert [(f.stage, f.hook, f.evidence.line) for f in res.facts] == [("hook", "/etc/enroot/hooks.d/98-nvidia.sh", 8)]
