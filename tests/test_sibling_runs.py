"""Runs of the same nccl-tests test in one bundle, judged against each other where no baseline,
expected figure or NVLink pair applies (engine/baselines/perf_compare.py siblings; limits in
knowledge/bench_tolerances.yaml nccl_tests.siblings).

Real inputs: NVIDIA/nccl#644's two all_reduce tables (fixtures/harvest/cases/2501-*: with mpirun
5.28-5.45 GB/s, without 7.27-7.32 GB/s at 64-256 MiB) and the 2 x H200 captures of
fixtures/observations/h200-x2 (a healthy run, pid 1428, and one with NCCL_P2P_DISABLE=1
NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo, pid 1552, each with the NCCL INFO log its process wrote)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.engine.baselines import perf_compare
from stethoscope.engine.pipeline import parse_artefacts
from stethoscope.facts import knowledge
from stethoscope.facts.kinds.bench import NcclTestRank, NcclTestRow, NcclTestRun, NcclTestTable
from stethoscope.facts.model import Evidence, of_kind
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parent.parent
CASE_2501 = next((ROOT / "fixtures/harvest/cases").glob("2501-*"))
H200 = ROOT / "fixtures/observations/h200-x2"
MIB = 1 << 20


def _facts(files: dict[str, Path], keep=lambda line: True):
    """node/name -> path, parsed as a bundle (``keep``: the lines of each file kept, in order)."""
    arts = []
    for where, path in files.items():
        node = where.split("/")[0]
        text = "".join(line for line in path.read_text().splitlines(keepends=True) if keep(line))
        arts.append(Artefact(path=where, text=text, node=node, node_from_folder=True))
    return parse_artefacts(arts).facts


def _mpirun_pair():
    return {"n1/with-mpirun.txt": CASE_2501 / "nccl-tests-with-mpirun.txt",
            "n1/without-mpirun.txt": CASE_2501 / "nccl-tests-without-mpirun.txt"}


def _h200_pair(logs: bool):
    files = {f"vm/{n}_g2.txt": H200 / f"nccl-tests/{n}_g2.txt" for n in ("allreduce_healthy", "allreduce_socket_only")}
    if logs:
        files.update({f"vm/{n}_g2.nccl.log": H200 / f"nccl-logs/{n}_g2.nccl.log" for n in ("allreduce_healthy", "allreduce_socket_only")})
    return files


def _below(out):
    lim = knowledge.load("bench_tolerances.yaml").nccl_tests.siblings.below
    return {c.run_id.split(":")[0]: c for c in out if c.ratio < lim}


def test_slower_run_of_the_same_test_is_below_its_sibling():
    out = perf_compare.siblings(_facts(_mpirun_pair()), set())
    assert {c.reference_kind for c in out} == {"sibling run"} and len(out) == 2
    low = _below(out)
    assert list(low) == ["n1/with-mpirun.txt"]
    c = low["n1/with-mpirun.txt"]
    assert (c.ratio, c.sizes, c.measured_busbw, c.reference_busbw, c.size_text) == (0.7291, 3, 5.44, 7.32, "256 MiB")
    assert c.below_limit == 0.8 and c.below_limit_source == "knowledge/bench_tolerances.yaml nccl_tests.siblings.below"
    # neither paste shows the runs' NCCL settings: the comparison says a difference in them would explain it
    assert c.context_diff.startswith("not known") and "would explain it" in c.context_diff
    assert c.env_overrides == "not known for these runs"


def test_runs_whose_own_nccl_logs_show_different_settings_are_not_compared():
    # the same command, once with P2P and SHM disabled: NCCL's INFO lines of each process (by pid) say so
    assert perf_compare.siblings(_facts(_h200_pair(logs=True)), set()) == []


def test_runs_whose_settings_are_not_shown_are_compared_and_say_so():
    low = _below(perf_compare.siblings(_facts(_h200_pair(logs=False)), set()))
    assert list(low) == ["vm/allreduce_socket_only_g2.txt"]
    c = low["vm/allreduce_socket_only_g2.txt"]
    assert c.ratio < c.critical_limit and "not known" in c.context_diff


def test_a_judged_run_is_no_sibling_and_runs_with_a_reference_are_not_recomputed(monkeypatch):
    # with the H200 pair's expected figure both runs are judged there: no sibling comparison
    kinds = {c.reference_kind for c in perf_compare.compare_bundle(_facts(_h200_pair(logs=False)))}
    assert kinds == {"expected"}
    # without it, compare_bundle falls back to the sibling: the run's own logs still keep them apart
    monkeypatch.setattr(perf_compare, "expected_platforms", lambda: [])
    assert perf_compare.compare_bundle(_facts(_h200_pair(logs=True))) == []
    got = perf_compare.compare_bundle(_facts(_h200_pair(logs=False)))
    assert {c.reference_kind for c in got} == {"sibling run"}


def test_small_sizes_only_are_not_compared():
    # NVIDIA/nccl#644's tables cut before 64 MiB: 5.15 against 7.18 GB/s at 16 MiB, but not bandwidth-bound
    small = lambda line: line.startswith("#") or int(line.split()[0]) < 64 * MIB  # noqa: E731 - rows and the footer
    assert perf_compare.siblings(_facts(_mpirun_pair(), keep=small), set()) == []


def test_a_fleet_of_identical_runs_raises_nothing():
    files = {f"n{i}/without-mpirun.txt": CASE_2501 / "nccl-tests-without-mpirun.txt" for i in range(1, 5)}
    out = perf_compare.siblings(_facts(files), set())
    assert len(out) == 4 and all(c.ratio == 1.0 for c in out)


def _run(node: str, busbw: float, sizes=(64 * MIB, 128 * MIB, 256 * MIB), gpu="NVIDIA H100 80GB HBM3", nranks=8,
         collective="all_reduce", pid=100):
    ev = Evidence(path=f"{node}/nccl-tests.txt", line=1, text="x")
    run = NcclTestRun(id=f"{node}/nccl-tests.txt:1:nccl_test_run", node=node, evidence=ev, collective=collective, nranks=nranks,
                      n_gpus=1, hosts=1, rows=len(sizes))
    ranks = [NcclTestRank(id=f"{node}:rank{i}", node=node, evidence=ev, run_id=run.id, rank=i, host=node, device=i, pid=pid + i,
                          pci_bus_id=f"0000:{i + 1:02x}:00.0", gpu_name=gpu) for i in range(nranks)]
    factor = 2 * (nranks - 1) / nranks
    rows = [NcclTestRow(id=f"{node}:row{s}", node=node, evidence=Evidence(path=ev.path, line=10 + k, text="x"), run_id=run.id,
                        collective=collective, size_bytes=s, count=s // 4, dtype="float", redop="sum",
                        oop_time_us=s / (busbw / factor) / 1e3, oop_algbw=round(busbw / factor, 2), oop_busbw=busbw)
            for k, s in enumerate(sizes)]
    return [run, *ranks, *rows, *NcclTestTable.of_rows(rows)]


@pytest.mark.parametrize(("slow", "reported"), [(0.801, False), (0.8, False), (0.799, True)])
def test_the_limit_of_the_knowledge_file(slow, reported):
    facts = _run("a", 100.0) + _run("b", 100.0) + _run("c", 100.0 * slow)
    low = _below(perf_compare.siblings(facts, set()))
    assert list(low) == (["c/nccl-tests.txt"] if reported else [])


def test_different_tests_are_not_siblings():
    # another collective, rank count or GPU model: no comparison, however far apart
    for other in (_run("b", 10.0, collective="all_gather"), _run("b", 10.0, nranks=4), _run("b", 10.0, gpu="NVIDIA A100-SXM4-80GB")):
        assert perf_compare.siblings(_run("a", 100.0) + other, set()) == []


def test_a_sweep_of_host_pairs_is_left_to_the_pairwise_tomography():
    facts = []
    for k, (a, b) in enumerate((("h1", "h2"), ("h1", "h3"), ("h2", "h3"))):
        part = _run(f"p{k}", 100.0 if k else 40.0, nranks=2)
        facts += [f.model_copy(update={"host": (a, b)[f.rank]}) if f.kind == "nccl_test_rank" else f for f in part]
    assert perf_compare.siblings(facts, set()) == []


def test_grouping_is_one_pass():
    # 1,024 identical runs: every one compared, nothing below; no pair of runs is looked at
    facts = [f for i in range(1024) for f in _run(f"n{i:04d}", 100.0)]
    out = perf_compare.siblings(facts, set())
    assert len(out) == 1024 and not _below(out)


def test_each_run_compared_with_its_expected_figure_shows_its_own_nccl_settings():
    """The two real H200 runs of one bundle, each with its own NCCL INFO log (pid 1428: no setting
    but NCCL_NVLS_ENABLE; pid 1552: P2P and SHM disabled, sockets on lo): each run's context and
    comparison carry its own settings, not the union of the bundle's (which gave the healthy run
    NCCL_P2P_DISABLE=1 in its context and its 'NCCL environment')."""
    facts = _facts(_h200_pair(logs=True))
    env = {run.evidence.path: ctx["env"] for run, _t, ctx, _r in perf_compare.runs_of(facts)}
    healthy, slow = env["vm/allreduce_healthy_g2.txt"], env["vm/allreduce_socket_only_g2.txt"]
    assert slow["NCCL_P2P_DISABLE"] == "1" and slow["NCCL_SHM_DISABLE"].startswith("1") and slow["NCCL_SOCKET_IFNAME"] == "lo"
    assert not {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_SOCKET_IFNAME"} & set(healthy)
    shown = {c.run_id.split(":")[0]: c.env_overrides for c in perf_compare.compare_bundle(facts) if c.band == "bandwidth"}
    assert "NCCL_P2P_DISABLE=1" in shown["vm/allreduce_socket_only_g2.txt"]
    assert "NCCL_P2P_DISABLE" not in shown["vm/allreduce_healthy_g2.txt"]


def test_a_run_whose_own_lines_show_no_settings_takes_the_bundles():
    """Without its NCCL INFO log a run's settings are the bundle's (here: none known at all)."""
    facts = _facts(_h200_pair(logs=False))
    assert {ctx["env"] is None for *_x, ctx, _r in perf_compare.runs_of(facts)} == {True}
