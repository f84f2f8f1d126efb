"""rx_discards_phy judged per received packet (knowledge/link_quality.yaml per:, engine/combine/link_quality.py)."""
from parse_helper import parse_fixture

from stethoscope.engine.combine import link_quality
from stethoscope.facts.parsers import ethtool_stats


def test_ethtool_discards_judged_per_received_packet():
    # knowledge/link_quality.yaml: rx_discards_phy per rx_packets_phy of the same reading, limit 1e-6
    text = "$ ethtool -S ens1f0np0\nNIC statistics:\n     rx_packets_phy: 845320277\n     rx_discards_phy: 120331\n"
    (j,) = link_quality.summarise(parse_fixture(ethtool_stats, text=text).facts)
    assert (j.check, j.limit, round(j.value, 6)) == ("drops", 1e-6, 0.000142)
    assert j.printed == "120331 of 845320277 rx_packets_phy (1.4e-04)"
    alone = "$ ethtool -S ens1f0np0 | grep discard\n     rx_discards_phy: 5012\n"
    assert link_quality.summarise(parse_fixture(ethtool_stats, text=alone).facts) == []  # no packets: no rate
