"""NVLink Xid decoding against NVIDIA's tables: intrinfo bit patterns, status bits, Xid 74 registers."""
import pytest

from stethoscope.engine.catalogues.nvlink_xid import _pattern_ok, decode_nvlink5, load_workflow
from stethoscope.engine.catalogues.xid import load_catalogue

CAT = load_catalogue()


def test_every_row_has_32_bit_patterns_that_sample_rows_match():
    for row in CAT.nvlink5_decode:
        assert len(row.intrinfo_v1) == 32 and len(row.intrinfo_v2) == 32 and set(row.intrinfo_v1) <= set("01-")


@pytest.mark.parametrize("intrinfo, investigatory", [
    (0x025001C6, "INVESTIGATE_PEER_DEVICE"),  # gpud PR #1160: sub-code 37
    (0x026001C6, "INVESTIGATE_SW/USER"),  # sub-code 38
    (0x004505C6, "INVESTIGATE_LINK_SI"),  # gpud kmsg.go comment: sub-code 4
    (0x000001C6, "SYMPATHETIC_REPORT_SOLO"),
])
def test_netir_link_event_rows_are_told_apart_by_bits_20_to_25(intrinfo, investigatory):
    rows, how = decode_nvlink5(CAT, 149, "NETIR_LINK_EVT", intrinfo, 0)
    assert how == "intrinfo pattern" and [r.investigatory for r in rows] == [investigatory]


def test_unknown_subcode_falls_back_to_nothing_not_to_a_guess():
    rows, how = decode_nvlink5(CAT, 149, "NETIR_LINK_EVT", 0x03F001C6, 0)
    assert (rows, how) == ([], "none")


def test_status_with_two_bits_combines_rows():
    rows, how = decode_nvlink5(CAT, 144, "SAW_MVB", 0x1, 0x6)
    assert how == "status bits" and [r.error_status for r in rows] == ["0x00000002", "0x00000004"]


def test_pattern_is_msb_first():
    assert _pattern_ok("1" + "-" * 31, 0x80000000) and not _pattern_ok("1" + "-" * 31, 0x1)


def test_workflow_lists_each_register_bit_once_and_names_known_classes():
    wf = load_workflow()
    seen = set()
    for g in wf.groups:
        assert g.class_ in wf.classes and g.reg in wf.valid_registers
        for b in g.bits:
            assert (g.reg, b) not in seen
            seen.add((g.reg, b))
