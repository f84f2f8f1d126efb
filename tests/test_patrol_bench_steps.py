"""The patrol's benchmark steps (knowledge/patrol.yaml: gpu_burn, nvbandwidth, fio, iperf3,
perftest_write_bw, perftest_send_lat) through the real step runner: each program is a stand-in
on PATH that prints a real public sample of its tool (fixtures/artefacts/<tool>/) and checks the
arguments and working directory the suite gives it; the runner writes its file, the readers
parse it, the metrics go into the history and are compared with a baseline like the other
steps. Absent programs and unset peers are skipped with their reasons. The parse of each sample
itself is tested in tests/parsers/test_bench_readers.py."""
import os
import stat
import sys
from pathlib import Path

import pytest

from stethoscope.engine.patrol import run as patrol
from stethoscope.engine.patrol import store as patrol_store

ROOT = Path(__file__).resolve().parents[1]
ART = ROOT / "fixtures" / "artefacts"
BENCH = ["gpu_burn", "nvbandwidth", "fio", "iperf3", "perftest_write_bw", "perftest_send_lat"]

#: program -> (real sample it prints, shell test its arguments / cwd must pass)
STANDINS = {
    "gpu_burn": ("gpu_burn/superbench_a100x8_ok.log", '[ -f compare.ptx ] && [ "$1" = 30 ]'),
    "nvbandwidth": ("nvbandwidth/nvbandwidth50_a6000x6_v0.8.txt", '[ "$1" = -t ] && [ "$3" = device_to_host_memcpy_ce ]'),
    "fio": ("fio/superbench_randrw_fio3.16.json", '[ "$1" = "--directory=$STETH_PATROL_SCRATCH" ] && case "$*" in *--output-format=json*--name=randread_4k*) true;; *) false;; esac'),
    "iperf3": ("iperf3/cloudpilot_tcp_iperf3.9.json", '[ "$1" = -c ] && [ "$2" = peer07 ] && [ "$3" = -J ]'),
    "ib_write_bw": ("perftest/superbench_ib_write_bw_8M.txt", '[ "$1" = --report_gbits ] && [ "$6" = peer07-ib ]'),
    "ib_send_lat": ("perftest/ib_read_bw_send_lat_mlx4_capture.txt", '[ "$5" = peer07-ib ]'),
}


def _standins(bin_dir: Path, log: Path) -> None:
    bin_dir.mkdir()
    (bin_dir / "compare.ptx").write_text("// gpu-burn's compare kernel sits beside its binary\n")
    for prog, (sample, check) in STANDINS.items():
        p = bin_dir / prog
        p.write_text(f'#!/bin/sh\necho "{prog} $PWD $*" >> "{log}"\n{check} || {{ echo "{prog}: unexpected arguments: $*" >&2; exit 2; }}\n'
                     f'cat "{ART / sample}"\n')
        p.chmod(p.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def bench_env(tmp_path, monkeypatch):
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    _standins(bin_dir, log)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STETH_PATROL_SCRATCH", str(scratch))
    monkeypatch.setenv("STETH_PATROL_IPERF3_SERVER", "peer07")
    monkeypatch.setenv("STETH_PATROL_PERFTEST_PEER", "peer07-ib")
    return bin_dir, log


def _run(tmp_path: Path, name: str) -> patrol.NodeRecord:
    return patrol.run_node(patrol.load_suite(), tmp_path / name, "n1", sys.executable, only=set(BENCH) | {"torch_burn"})


@pytest.mark.skipif(sys.platform != "linux", reason="stand-in programs are POSIX shell scripts")
def test_benchmark_steps_run_their_tool_and_store_its_figures(tmp_path, bench_env):
    bin_dir, log = bench_env
    rec = _run(tmp_path, "out")
    steps = {s.step: s for s in rec.steps}
    assert {n: steps[n].status for n in BENCH} == dict.fromkeys(BENCH, "ok"), [s.note for s in rec.steps]
    # gpu-burn ran, so the PyTorch burn did not; gpu-burn ran in its own folder (compare.ptx)
    assert steps["torch_burn"].status == "skipped" and steps["torch_burn"].note == "not needed: gpu_burn ran"
    assert f"gpu_burn {bin_dir} 30" in log.read_text()
    folder = Path(rec.output_dir)
    assert (folder / "fio.json").read_bytes() == (ART / STANDINS["fio"][0]).read_bytes()
    m = {(x.metric, tuple(sorted(x.labels.items()))): x.value for x in rec.metrics}
    assert m[("gpu_burn_gflops", (("entity", "gpu0"), ("test", "fp64_tc")))] == 16942.0
    assert m[("gpu_burn_faulty", (("gpu_name", "GPU0"),))] == 0 and m[("gpu_burn_errors", (("gpu_name", "GPU0"),))] == 0
    assert m[("nvbandwidth_gbps", (("entity", "gpu3->gpu0"), ("test", "device_to_device_memcpy_read_ce")))] == 21.82
    assert m[("nvbandwidth_sum_gbps", (("test", "device_to_device_memcpy_read_ce"),))] == 715.53
    assert m[("fio_iops", (("test", "rand_read_write read"),))] == 85138.9
    assert m[("fio_lat_mean_usec", (("test", "rand_read_write write"),))] == 1560.749
    assert m[("iperf3_receiver_gbps", (("entity", "169.44.160.3"), ("test", "tcp")))] == 0.4648
    assert m[("perftest_bw_average_gbps", (("entity", "ib0"), ("size_bytes", "8388608"), ("test", "ib_write_bw")))] == 201.8024
    assert m[("perftest_t_typical_usec", (("entity", "mlx4_0"), ("size_bytes", "2"), ("test", "ib_send_lat")))] == 1.07

    # into the history, a baseline of it, a second run compared with it: the same figures pass
    db = tmp_path / "h.sqlite"
    first = patrol_store.store(db, rec)
    patrol_store.record_baseline(db, "patrol", [first])
    _, base = patrol_store.load_baseline(db, "patrol")
    second = _run(tmp_path, "out2")
    patrol_store.store(db, second)
    comps = patrol_store.compare(second, base, patrol.load_suite())
    assert {c.metric for c in comps} >= {"gpu_burn_gflops", "nvbandwidth_gbps", "fio_iops", "fio_bandwidth_kib",
                                         "iperf3_receiver_gbps", "perftest_bw_average_gbps", "perftest_t_typical_usec"}
    assert not [c for c in comps if c.below]
    # a storage that serves 30 % fewer IOPS and an RDMA path 10 % slower are below it
    for x in second.metrics:
        if x.metric in ("fio_iops", "perftest_bw_average_gbps"):
            x.value = round(x.value * (0.7 if x.metric == "fio_iops" else 0.9), 4)
    below = sorted((c.metric, c.labels.get("test")) for c in patrol_store.compare(second, base, patrol.load_suite()) if c.below)
    assert below == [("fio_iops", "rand_read_write read"), ("fio_iops", "rand_read_write write"), ("perftest_bw_average_gbps", "ib_write_bw")]
    assert [r["id"] for r in patrol_store.runs(db)] == [1, 2]


def test_absent_tools_and_unset_peers_are_skipped_with_their_reasons(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("STETH_PATROL_IPERF3_SERVER", raising=False)
    rec = patrol.run_node(patrol.load_suite(), tmp_path / "out", "n1", sys.executable, only=set(BENCH))
    notes = {s.step: (s.status, s.note) for s in rec.steps}
    assert all(status == "skipped" for status, _ in notes.values())
    assert notes["fio"][1].endswith("(fio not found)") and "data loader" in notes["fio"][1]
    assert notes["gpu_burn"][1].startswith("gpu_burn (github.com/wilicc/gpu-burn) is not on PATH")


@pytest.mark.skipif(sys.platform != "linux", reason="stand-in programs are POSIX shell scripts")
def test_a_network_test_without_its_peer_is_skipped_naming_the_variable(tmp_path, bench_env, monkeypatch):
    monkeypatch.setenv("STETH_PATROL_IPERF3_SERVER", "  ")
    monkeypatch.delenv("STETH_PATROL_PERFTEST_PEER")
    rec = patrol.run_node(patrol.load_suite(), tmp_path / "out", "n1", sys.executable,
                          only={"iperf3", "perftest_write_bw", "perftest_send_lat"})
    notes = {s.step: (s.status, s.note) for s in rec.steps}
    assert notes["iperf3"][0] == "skipped" and notes["iperf3"][1].endswith("(STETH_PATROL_IPERF3_SERVER not set)")
    assert notes["perftest_write_bw"][1].endswith("(STETH_PATROL_PERFTEST_PEER not set)")
    assert rec.metrics == []


def test_placeholders_are_checked_when_the_suite_is_loaded():
    from stethoscope.facts import knowledge

    suite = patrol.load_suite().model_dump(by_alias=True)
    step = next(s for s in suite["steps"] if s["name"] == "iperf3")
    step["requires_env"] = []
    with pytest.raises(knowledge.KnowledgeError, match="requires_env does not list"):
        knowledge.validate("patrol.yaml", suite)
    step["requires_env"], step["argv"] = ["STETH_PATROL_IPERF3_SERVER"], ["iperf3", "-c", "{peer}"]
    with pytest.raises(knowledge.KnowledgeError, match="unknown placeholder"):
        knowledge.validate("patrol.yaml", suite)
