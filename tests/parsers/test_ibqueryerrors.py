"""ibqueryerrors on real pastes (guilbaults/infiniband-exporter#48, #20): port counters as the
ib_port_counters perfquery makes, PortXmitWait and the data counters read past, 64-bit counters,
the Link info line, a clean summary, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import ibqueryerrors
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ibqueryerrors"


def read(text, node="n1"):
    return ibqueryerrors.parse(Artefact(path="ibqueryerrors.txt", text=text, node=node, node_from_folder=True))


def test_symbol_errors_of_a_grep_without_headers():
    text = (A / "exporter20_symbol_errors_grep.txt").read_text()
    assert ibqueryerrors.detect(text)
    res = read(text)
    got = [(f.kind, f.hca, f.port, f.port_id, f.symbol_errors, f.link_downed, f.extended, f.source) for f in res.facts]
    assert got == [("ib_port_counters", "0xc42a10300dcf8e2", 1, "n1/0xc42a10300dcf8e2/1", 3, None, False, "ibqueryerrors"),
                   ("ib_port_counters", "0xc42a10300dd0bea", 1, "n1/0xc42a10300dd0bea/1", 4, None, False, "ibqueryerrors")]
    assert res.facts[0].evidence.line == 5 and not res.errors


def test_xmitwait_and_data_counters_alone_make_no_error_reading():
    res = read((A / "exporter48_xmitwait_only.txt").read_text())
    assert res.facts == [] and not res.errors and res.lines_used == 2  # the header and the port line


def test_clean_summary_is_read():
    text = (A / "exporter48_clean_and_bad_node.txt").read_text()
    assert ibqueryerrors.detect(text)
    res = read(text)
    assert res.facts == [] and res.lines_used == 4


def test_switch_header_extended_counters_link_info_and_all():
    # print_results' forms: a switch's header, a 64-bit counter " [%s == %lu (%5.3f%s)]", the port ALL aggregate,
    # and print_port_config's "Link info:" (-r) in iblinkinfo's layout
    text = ('Errors for 0xb8599f0300383ec0 "ibswh2 [255-B05] HDR-40"\n'
            '   GUID 0xb8599f0300383ec0 port ALL: [SymbolErrorCounter == 19817 (19.353K)] [LinkDownedCounter == 37 (37.000)]\n'
            '   GUID 0xb8599f0300383ec0 port 7: [LinkDownedCounter == 37 (37.000)] [PortXmitDiscards == 8 (8.000)] [PortXmitWait == 2417380683166 (2.199T)]\n'
            '       Link info:      5   7[  ] ==( 4X        53.125 Gbps Active/  LinkUp)==>  0x0c42a10300ac1e2a     41    1[  ] "gpu03 mlx5_2" ( )\n')
    res = read(text, node="fabric")
    c, link = res.facts
    assert (c.hca, c.port, c.link_downed, c.xmit_discards, c.symbol_errors, c.extended) == ("ibswh2 [255-B05] HDR-40", 7, 37, 8, None, True)
    assert (link.kind, link.node_description, link.port, link.generation, link.rate_gbps, link.peer_description, link.source) == (
        "ib_link_info", "ibswh2 [255-B05] HDR-40", 7, "HDR", 200.0, "gpu03 mlx5_2", "ibqueryerrors")


def test_near_misses_and_bad_value():
    assert not ibqueryerrors.detect("# Port counters: Lid 21 port 1 (CapMask: 0x1600)\nSymbolErrorCounter:..............0\n")
    assert not ibqueryerrors.detect("GUID: 0x0002c903000e0b72\n")
    res = read("   GUID 0xc42a10300dcf8e2 port 1: [SymbolErrorCounter == 3x]\n")
    assert res.facts == [] and res.errors and "not a number" in res.errors[0].message
