"""dcgmi modules -l tables from public threads (NVIDIA/DCGM#132; dcgm-exporter#152 in fixtures/harvest)."""
from __future__ import annotations

from parse_helper import parse_fixture

from stethoscope.facts.parsers import dcgmi_modules as reader


def test_rows_and_states() -> None:
    res = parse_fixture(reader, "dcgmi_modules/dcgm132_rtx4090_profiling_failed_to_load.txt")
    rows = [(f.module_id, f.module, f.state) for f in res.facts]
    assert rows[0] == (0, "Core", "loaded") and rows[2] == (2, "VGPU", "not_loaded")
    assert rows[-1] == (8, "Profiling", "failed")  # the row's closing '|' cut in the paste
    assert res.lines_used == 12  # 9 rows, the title, the status and the column header


def test_old_and_new_state_words() -> None:
    text = ("| Module ID | Name               | State                                            |\n"
            "| 7         | Diag               | Blacklisted                                      |\n"
            "| 9         | SysMon             | Paused                                           |\n")
    assert [f.state for f in parse_fixture(reader, text=text).facts] == ["denylisted", "paused"]


def test_other_tables_are_not_modules() -> None:
    assert not reader.detect("| GPU ID | Device Information |\n| 0      | Name: NVIDIA A100 |\n")
