"""pidstat parser: real captures (localised stamps, -t threads, -h one-line layout) and a loader thread."""
from pathlib import Path

from stethoscope.facts.parsers import pidstat
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "pidstat"


def _parse(name: str):
    return pidstat.parse(Artefact(path=name, text=(FIX / name).read_text(), node="n1"))


def test_threads_belong_to_their_process_and_localised_stamps_parse():
    r = _parse("pidstat_ut_pigz_sysstat344.txt")
    assert r.errors == [] and r.lines_used == 8
    rows = [(f.pid, f.tid, f.command, f.cpu_pct, f.last_cpu) for f in r.facts]
    assert rows[0] == (219296, None, "pigz", 100.0, 1)
    assert rows[3] == (219296, 219299, "pigz", 100.0, 55)
    assert {f.host_busy_pct for f in r.facts} == {None}  # no banner: core count unknown


def test_intervals_are_averaged_and_pm_stamps_parse():
    (java,) = _parse("pidstat_u_p_java_pm.txt").facts
    assert (java.pid, java.cpu_pct, java.max_cpu_pct, java.samples) == (949569, 189.33, 382.0, 3)


def test_banner_gives_the_host_share():
    facts = _parse("pidstat_1_three_processes.txt").facts
    assert [f.command for f in facts] == ["java", "postgres"]  # systemd at 0 % says nothing
    assert {(f.host_cpus, f.host_busy_pct) for f in facts} == {(8, 2.56)}


def test_one_line_layout_with_idle_tasks_only():
    r = _parse("pidstat_drshut_rancher.txt")
    assert r.errors == [] and r.facts == [] and r.lines_used == 5


def test_average_block_wins_and_evidence_is_its_row():
    r = _parse("pidstat_ut_python_loader_thread.txt")
    main = next(f for f in r.facts if f.tid == 220417)
    assert (main.pid, main.cpu_pct, main.samples, main.host_busy_pct) == (220417, 100.0, 2, 13.5)
    assert main.evidence.text.startswith("Average:") and "|__python" in main.evidence.text


def test_malformed_rows_are_parse_errors():
    text = (
        "05:03:29 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
        "05:03:30 PM  1000    251473   12.00    3.50    0.00    1.20   abc     3  java\n"
        "05:03:30 PM  1000    251473   12.00\n"
    )
    r = pidstat.parse(Artefact(path="p.txt", text=text, node="n1"))
    assert [e.line for e in r.errors] == [2, 3] and r.facts == []


def test_detect_only_pidstat():
    assert pidstat.detect((FIX / "pidstat_u_p_java_pm.txt").read_text())
    assert not pidstat.detect((FIX.parent / "mpstat" / "mpstat_one_core_saturated.txt").read_text())
    assert not pidstat.detect((FIX.parent / "top" / "top_b_summary_only_dev_host.txt").read_text())
