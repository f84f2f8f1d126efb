"""mpstat parser: public captures (24-hour and AM/PM stamps, Average block) and a saturated core."""
from pathlib import Path

from stethoscope.facts.parsers import mpstat
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "mpstat"


def _parse(name: str):
    return mpstat.parse(Artefact(path=name, text=(FIX / name).read_text(), node="n1"))


def _summary(r):
    return next(f for f in r.facts if f.kind == "cpu_usage_summary")


def test_all_cores_busy_from_the_average_block():
    r = _parse("mpstat_all_busy.txt")
    assert r.errors == []
    s = _summary(r)
    # Average rows as published list cores 0-2; core 3 comes from its interval row
    assert (s.cores, s.saturated_cores, s.mean_core_pct, s.all_busy_pct) == (4, 4, 100.0, 100.0)


def test_am_pm_stamps_and_repeated_headers():
    r = _parse("mpstat_pm_cpu0.txt")
    (core,) = [f for f in r.facts if f.kind == "cpu_core_usage"]
    assert (core.cpu, core.busy_pct, core.samples) == (0, 100.0, 2)


def test_one_saturated_core_among_idle_ones():
    s = _summary(_parse("mpstat_one_core_saturated.txt"))
    assert (s.cores, s.busiest_cpu, s.busiest_pct, s.saturated_cores, s.mean_core_pct) == (8, 3, 100.0, 1, 16.38)
    assert s.evidence.text.startswith("Average:")


def test_short_row_is_a_parse_error():
    text = "13:50:49     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest   %idle\n13:50:50       0   97.03    0.00\n"
    r = mpstat.parse(Artefact(path="m.txt", text=text, node="n1"))
    assert [e.line for e in r.errors] == [2] and r.facts == []
