"""nvidia-smi dmon -o DT / -o TD and the query-gpu ``timestamp`` column: date/time columns
read, sample interval taken from the stamps (facts/parsers/nvidia_smi_util.py)."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_smi_util as util
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "artefacts" / "nvidia_smi_util"


def _parse(name: str, text: str | None = None):
    text = (ROOT / name).read_text() if text is None else text
    assert util.detect(text)
    return util.parse(Artefact(path=name, text=text, node="n1"))


def test_dmon_date_time_columns_two_second_interval():
    r = _parse("dmon_DT_2s.txt")
    assert not r.errors
    [s] = r.facts
    # sm is the 5th column after gpu; the date and time columns do not shift it
    assert (s.index, s.samples, s.mean_pct, s.interval_s, s.source) == (0, 3, 0.0, 2.0, "dmon")
    assert s.evidence.text.startswith(" 20210102   19:12:35")


def test_dmon_td_with_blank_line_and_other_columns():
    r = _parse("dmon_TD_mutc.txt")
    assert not r.errors
    [s] = r.facts
    # sm column of `-s mutc` (after fb, bar1, ccpm): 6 0 3 13 0 3
    assert (s.samples, s.dips, s.interval_s) == (6, 2, 1.0)
    assert s.mean_pct == round((6 + 0 + 3 + 13 + 0 + 3) / 6, 1)


def test_query_gpu_timestamp_gives_interval_per_gpu():
    r = _parse("query-gpu-timestamp.csv")
    assert not r.errors
    by = {s.index: s for s in r.facts if s.kind == "gpu_util_series"}
    assert by[0].pci_bus_id == "0000:00:06.0" and by[0].interval_s == pytest.approx(5.0, abs=0.01)
    assert (by[0].dips, by[1].dips) == (1, 0)


def test_without_stamps_interval_stays_one_second():
    [s] = _parse("dmon_input_stall.txt").facts
    assert s.interval_s == 1.0


def test_bad_timestamp_is_a_parse_error():
    text = (ROOT / "query-gpu-timestamp.csv").read_text().replace("2026/11/29 18:40:06.121", "yesterday", 1)
    r = _parse("bad.csv", text)
    assert [e.line for e in r.errors] == [4]
    assert {s.index: s.samples for s in r.facts if s.kind == "gpu_util_series"} == {0: 2, 1: 3}
