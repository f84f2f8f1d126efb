"""mlxlink and ethtool -S readers (issue 11): real fixtures, and the forms a failing port prints."""
from parse_helper import parse_fixture

from stethoscope.engine.combine import link_quality
from stethoscope.facts.parsers import ethtool_stats, mlxlink
from stethoscope.facts.parsers.base import Artefact

MLX = "mlxlink/bluefield3_tutorial_p0_active.txt"
ETH = "ethtool_stats/ethq8_connectx4_mlx5_head.txt"


def _kinds(res, kind):
    return [f for f in res.facts if f.kind == kind]


def test_mlxlink_real_healthy_port():
    res = parse_fixture(mlxlink, MLX)
    (port,) = _kinds(res, "mlxlink_port")
    assert (port.device, port.port, port.state, port.physical_state, port.link_up) == ("/dev/mst/mt41692_pciconf0", 1, "Active", "LinkUp", True)
    assert (port.speed_gbps, port.width_lanes, port.enabled_max, port.below_enabled) == (100.0, 4, "100G_4X", False)
    assert port.evidence.line == 5 and "State" in port.evidence.text
    counters = {c.counter: c for c in _kinds(res, "link_counter")}
    assert counters["Effective Physical BER"].value < 1e-200 and counters["Effective Physical BER"].printed == "15E-255"
    assert counters["Link Down Counter"].value == 0 and counters["Link Down Counter"].minutes_since_clear == 25074.8
    assert "Raw Physical Errors Per Lane" not in counters  # a per-lane list, not one number
    # each counter knowledge lists, beside its limit (the rules judge: tests/rules/network/link_*)
    beside = {j.counter: j for j in link_quality.summarise(_kinds(res, "link_counter"))}
    assert set(beside) == {"Effective Physical Errors", "Effective Physical BER", "Link Down Counter", "Link Error Recovery Counter"}
    ber = beside["Effective Physical BER"]
    assert (ber.limit, ber.limit_log10, round(ber.value_log10, 2)) == (1e-12, -12.0, -253.82)
    assert beside["Link Down Counter"].value_log10 is None  # 0: no logarithm, the count rules compare value


def test_mlxlink_failing_forms():
    text = ("# mlxlink -d mlx5_0 -c\n\nOperational Info\n----------------\nState                              : Active\n"
            "Physical state                     : LinkUp\nSpeed                              : IB-HDR\nWidth                              : 2x\n\n"
            "Supported Info\n--------------\nEnabled Link Speed                 : 0x000003ff (HDR,EDR,FDR,FDR10,QDR,DDR,SDR)\n\n"
            "Physical Counters and BER Info\n------------------------------\nEffective Physical Errors          : 17\n"
            "Effective Physical BER             : 3E-12\nLink Down Counter                  : N/A\n\n"
            "# mlxlink -d mlx5_1\n\nOperational Info\n----------------\nState                              : Polling\n"
            "Physical state                     : Polling\nSpeed                              : N/A\n")
    res = parse_fixture(mlxlink, text=text)
    hdr, down = _kinds(res, "mlxlink_port")
    # HDR at 2x: a split port by design, not slow (the lane rates agree)
    assert (hdr.device, hdr.speed_gbps, hdr.enabled_max_gbps, hdr.below_enabled) == ("mlx5_0", 100.0, 100.0, False)
    assert (down.device, down.link_up, down.below_enabled) == ("mlx5_1", False, False)
    judged = {j.counter: j for j in link_quality.summarise(_kinds(res, "link_counter"))}
    assert judged["Effective Physical BER"].check == "ber" and judged["Effective Physical BER"].limit == 1e-12
    assert round(judged["Effective Physical BER"].value_log10, 9) == -11.522878745  # what rule link_ber_over_limit compares
    assert judged["Effective Physical Errors"].cause == "ib_link_errors"
    assert "Link Down Counter" not in judged  # N/A: no reading


def test_ethtool_real_no_phy_counters():
    res = parse_fixture(ethtool_stats, ETH)
    assert not res.facts and res.lines_used == 24


def test_ethtool_phy_and_pause_storm_counters():
    text = ("$ ethtool -S ens1f0\nNIC statistics:\n     rx_packets: 845320277\n     rx_crc_errors_phy: 12\n"
            "     rx_symbol_err_phy: 0\n     link_down_events_phy: 2\n     rx_prio3_pause: 41927\n"
            "     tx_pause_storm_warning_events: 0\n     tx_pause_storm_error_events: 1\n")
    res = parse_fixture(ethtool_stats, text=text)
    got = {c.counter: c for c in res.facts}
    assert set(got) == {"rx_crc_errors_phy", "link_down_events_phy", "rx_prio3_pause", "tx_pause_storm_error_events"}
    assert got["rx_crc_errors_phy"].device == "ens1f0" and got["rx_crc_errors_phy"].evidence.line == 4
    judged = {j.counter: (j.check, j.severity) for j in link_quality.summarise(res.facts)}
    assert judged == {"rx_crc_errors_phy": ("errors", "warning"), "link_down_events_phy": ("link_down", "warning"),
                      "tx_pause_storm_error_events": ("pause_storm", "critical")}  # pause frames alone are not judged


def test_mlxlink_older_speed_names_and_na_physical_state():
    text = ("Operational Info\n----------------\nState                           : Active\n"
            "Physical state                  : N/A\nSpeed                           : 25GbE\nWidth                           : 1x\n")
    (port,) = _kinds(parse_fixture(mlxlink, text=text), "mlxlink_port")
    assert (port.link_up, port.speed_gbps, port.width_lanes) == (True, 25.0, 1)


def test_mlxlink_ib_port_at_a_slower_lane_rate():
    text = ("Operational Info\n----------------\nState                              : Active\n"
            "Physical state                     : LinkUp\nSpeed                              : IB-EDR\nWidth                              : 4x\n\n"
            "Supported Info\n--------------\nEnabled Link Speed                 : 0x000007ff (NDR,HDR,EDR,FDR,FDR10,QDR,DDR,SDR)\n")
    (port,) = _kinds(parse_fixture(mlxlink, text=text), "mlxlink_port")
    assert (port.speed_gbps, port.enabled_max, port.enabled_max_gbps, port.below_enabled) == (100.0, "NDR", 400.0, True)


def test_ethtool_grep_paste_without_header():
    text = ("# ethtool -S ens1f0 | grep -i -e pause_storm -e crc\n     rx_crc_errors_phy: 0\n"
            "     tx_pause_storm_warning_events: 3\n     tx_pause_storm_error_events: 0\n")
    (c,) = parse_fixture(ethtool_stats, text=text).facts
    assert (c.device, c.counter, c.printed, c.evidence.line) == ("ens1f0", "tx_pause_storm_warning_events", "3", 3)


def test_ethtool_sosreport_grep_names_the_interface():
    # ryran/xsos#112: a grep of an sosreport's ethtool -S file (no command, no header)
    text = ("$ grep pause sos_commands/networking/ethtool_-S_eth1\n     rx_pause_frames: 95331\n"
            "     rx_constant_pause_events: 0\n     tx_pause_frames: 0\n")
    assert ethtool_stats.detect(text)
    res = parse_fixture(ethtool_stats, text=text)
    assert res.lines_used == 4 and not res.facts  # generic pause frames: read, not a port counter of mlx5


def test_ethtool_sosreport_file_name_gives_the_interface():
    text = "NIC statistics:\n     rx_packets_phy: 1000000\n     rx_discards_phy: 7\n"
    res = ethtool_stats.parse(Artefact(path="n1/sos_commands/networking/ethtool_-S_ens1f0np0", text=text))
    assert {c.device for c in res.facts} == {"ens1f0np0"}

