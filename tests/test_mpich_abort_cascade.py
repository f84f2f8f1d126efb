"""MPICH's abort after MPI_Init failed (rule mpich_init_failed): beside a finding that explains it (UCX finding no
usable transport, openucx/ucx#9610) it is that finding's cascade and ranks after it, adding no root of its own; alone it
is the failure there is (faulty, with the error stack's last message)."""
from __future__ import annotations

from pathlib import Path

import small_bundle

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts" / "ucx_log" / "ucx9610_no_usable_transports_mpich.txt"


def test_the_ucx_finding_explains_the_abort(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"app.log": FIX.read_text()}, ruleset)
    roots = [f for f in rep.findings if f.role == "root_cause"]
    assert roots and {f.rule for f in roots} == {"ucx_no_usable_transport"}
    mpich = [f for f in rep.findings if f.rule == "mpich_init_failed"]
    assert mpich and all(f.role == "cascade" and f.explained_by for f in mpich)
    assert not [f for f in rep.findings if f.rule == "unexplained_error"]


def test_the_abort_alone_is_the_failure(tmp_path, ruleset):
    text = "".join(FIX.read_text().splitlines(keepends=True)[2:7])  # the first abort and its stack, no UCX line
    rep = small_bundle.diagnose(tmp_path, {"n1/app.log": text}, ruleset)
    assert [(f.rule, f.cause, f.role) for f in rep.findings] == [("mpich_init_failed", "mpi_init_failed", "independent")]
    assert rep.verdict == "faulty"
