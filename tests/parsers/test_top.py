"""top parser: real batch captures (per-CPU text, bars, side by side, old procps) and a process at one core."""
from pathlib import Path

from stethoscope.facts.parsers import top
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "top"


def _parse(name: str):
    return top.parse(Artefact(path=name, text=(FIX / name).read_text(), node="n1"))


def _kind(r, kind):
    return [f for f in r.facts if f.kind == kind]


def test_real_h200_capture_reads_the_last_frame_side_by_side():
    r = _parse("top_1_w512_h200_python_busy_loop.txt")
    assert r.errors == []
    (s,) = _kind(r, "cpu_usage_summary")
    assert (s.cores, s.busiest_cpu, s.busiest_pct, s.saturated_cores, s.mean_core_pct) == (16, 9, 100.0, 1, 6.59)
    assert s.evidence.line > 192  # the second frame, not the since-boot first one
    loop = max(_kind(r, "cpu_process_sample"), key=lambda f: f.cpu_pct)
    assert (loop.pid, loop.command, loop.cpu_pct, loop.host_cpus, loop.tool) == (416, "python3", 99.0, 16, "top")


def test_bar_form_per_cpu_lines():
    cores = _kind(_parse("top_1_bars_dev_host.txt"), "cpu_core_usage")
    assert [(c.cpu, c.busy_pct) for c in cores] == [(0, 100.0), (1, 100.0)]


def test_summary_only_capture_gives_processes_and_host_share():
    r = _parse("top_b_summary_only_dev_host.txt")
    assert _kind(r, "cpu_usage_summary") == []
    procs = _kind(r, "cpu_process_sample")
    assert [(p.pid, p.command, p.cpu_pct) for p in procs][0] == (11567, "steth", 76.2)
    assert {p.host_busy_pct for p in procs} == {100.0} and {p.host_cpus for p in procs} == {None}


def test_old_procps_percent_signs():
    procs = _kind(_parse("top_old_procps_hhvm.txt"), "cpu_process_sample")
    assert len(procs) == 6 and procs[0].host_busy_pct == 30.6


def test_two_full_cores_of_four_is_half_the_host():
    (s,) = _kind(_parse("top_per_cpu_two_cores_full.txt"), "cpu_usage_summary")
    assert (s.saturated_cores, s.mean_core_pct) == (1, 51.0)  # core 0 at 93 %: loaded, not saturated


def test_malformed_lines_are_parse_errors():
    text = (
        "top - 10:39:10 up 40 min,  1 user,  load average: 0.45, 1.28, 1.85\n"
        "%Cpu0  :  n/a\n"
        "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU %MEM     TIME+ COMMAND\n"
        " 1992 root      20   0  139488  90676  45940 S   x.y  2.2   0:17.21 kube\n"
        " 2019 root      20   0\n"
    )
    r = top.parse(Artefact(path="t.txt", text=text, node="n1"))
    assert [e.line for e in r.errors] == [2, 4, 5] and r.facts == []


def test_detect_only_top():
    assert top.detect((FIX / "top_per_cpu_two_cores_full.txt").read_text())
    assert not top.detect((FIX.parent / "mpstat" / "mpstat_all_busy.txt").read_text())
