"""ethtool <iface> on real pastes (openucx/ucx#10430 bond, openwrt/openwrt#22126 no link,
ublue-os/bazzite#5094 trained down, svinota/pyroute2#720 at full speed; Speed
Unknown! with a link CONSTRUCTED from ethtool's format): link state, speed, the fastest mode of each list, the capable speed, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import ethtool_settings
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ethtool_settings"


def read(text, path="ethtool.txt"):
    res = ethtool_settings.parse(Artefact(path=path, text=text, node="n1", node_from_folder=True))
    return res, res.facts


def test_bond_without_link_modes_has_no_capable_speed():
    text = (A / "ucx10430_bond0_node12.txt").read_text()
    assert ethtool_settings.detect(text)
    res, (s,) = read(text)
    assert (s.interface, s.link_detected, s.speed_mbps, s.duplex, s.autoneg) == ("bond0", True, 200000, "Full", False)
    assert s.supported_max_mbps is None and s.capable_mbps is None and s.evidence.line == 2 and not res.errors


def test_no_link_and_unknown_speed():
    res, (s,) = read((A / "openwrt22126_lan12_no_link.txt").read_text())
    assert (s.interface, s.link_detected, s.speed_mbps, s.speed_printed) == ("lan12", False, None, "Unknown!")
    assert s.supported_max_mbps == 10000 and s.capable_mbps is None  # auto-negotiation off: a forced speed


def test_trained_down_below_the_partners_common_speed():
    res, (s,) = read((A / "bazzite5094_eno1_100mb.txt").read_text())
    assert (s.speed_mbps, s.advertised_max_mbps, s.partner_max_mbps) == (100, 2500, 1000)
    assert (s.capable_mbps, s.capable_from) == (1000, "advertised and partner")
    assert s.link_detected is None  # the paste stops before "Link detected:"


def test_tab_indented_full_speed_and_message_level_continuation():
    res, (s,) = read((A / "pyroute2_720_enp0s31f6.txt").read_text())
    assert (s.interface, s.link_detected, s.speed_mbps, s.capable_mbps) == ("enp0s31f6", True, 1000, 1000)


# a link whose driver reports no speed (SPEED_UNKNOWN, e.g. a virtual NIC): CONSTRUCTED from ethtool.c
# dump_link_usettings' lines ("Settings for %s:", "Speed: Unknown!", "Duplex: Unknown! (%d)", "Link detected: %s"),
# the Speed and Duplex lines as openwrt/openwrt#22126 shows them
SPEED_UNKNOWN_LINKED = "Settings for eth0:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tAuto-negotiation: off\n\tLink detected: yes\n"


def test_speed_unknown_with_link():
    _, (s,) = read(SPEED_UNKNOWN_LINKED)
    assert (s.link_detected, s.speed_mbps, s.duplex) == (True, None, "Unknown! (255)")


def test_netlink_extended_state_and_two_blocks():
    text = ("$ ethtool ens1f0np0; ethtool ens1f1np1\nSettings for ens1f0np0:\n"
            "\tSupported link modes:   25000baseCR/Full\n\t                        100000baseCR4/Full\n"
            "\t                        200000baseCR4/Full\n\tSpeed: 100000Mb/s\n\tDuplex: Full\n\tAuto-negotiation: on\n"
            "\tLink detected: yes\nSettings for ens1f1np1:\n\tSpeed: Unknown!\n\tLink detected: no (No cable)\n")
    _, (a, b) = read(text)
    assert (a.supported_max_mbps, a.capable_mbps, a.capable_from) == (200000, 200000, "supported")
    assert (b.interface, b.link_detected, b.link_state_detail) == ("ens1f1np1", False, "No cable")


def test_near_misses():
    assert not ethtool_settings.detect("Settings for the job:\n  lr: 0.1\n")
    assert not ethtool_settings.detect("NIC statistics:\n     rx_packets: 1\n")
    assert read("        Speed: 100000Mb/s\n")[1] == []  # no "Settings for" block: not ours
